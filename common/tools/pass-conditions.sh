#!/usr/bin/env bash
# pass-conditions.sh STEP [ROOT]: what the grader checks for a step, and what each
# test is worth, as a Markdown table for the step's README ("Your task"),
# read from the step's entry in steps.conf and from what the grader itself
# uses: the sizes of its correctness tests (grading/common.bash), the runs of
# its sanitizer test (make print-sanitize-args) and the launch audit's facts.
# make readme-figures writes it between <!-- pass:NN --> and <!-- /pass -->;
# tests/readme-numbers.bats fails when a README's table is not this one.
# Needs no GPU. STEP: the step's number or folder; ROOT: another copy of the
# workbook, whose steps.conf and step folders are read (the tests use one).
# Exit status: 0 written, 2 no such step.
set -u
here=$(cd "$(dirname "$0")" && pwd)
OPTIONS_NAME="pass-conditions"
source "$here/options.bash"
case ${1:-} in
-h | --help) usage; exit 0 ;;
'' | -*) die "name a step, e.g. 04 (try --help)" ;;
esac
[ $# -le 2 ] || die "too many arguments (try --help)"
root=$(cd "${2:-$here/../..}" && pwd) || die "no folder ${2:-}"
MANIFEST=$root/steps.conf
source "$here/../../grading/common.bash"
step=$(step_folder "$1") || die "no step '$1' in $MANIFEST"

field() { step_field "$step" "$1"; }
points() { step_points "$step" "$1"; }
# commas LIST...: "a, b and c".
commas() { awk '{ for (i = 1; i <= NF; i++) printf "%s%s", $i, (i == NF ? "" : i == NF - 1 ? " and " : ", ") }' <<<"$*"; }
# plural N WORD: "1 point", "2 points".
plural() { [ "$1" = 1 ] && echo "$1 $2" || echo "$1 ${2}s"; }

program=$(field program)
blocks=$(field blocks | tr ',' ' ')
timed=$(field timed)
audit=$(field audit)
audit_fact() { tr ' ' '\n' <<<"$audit" | sed -n "s/^$1=//p"; }

# The sizes of the correctness tests: those every block shares, then, where
# the track's sizes follow the block (its check_block_multiples), those
# around k blocks' worth, written in terms of B.
first=${blocks%% *}
common_sizes=$(step_check_sizes "$step" "$first" | paste -sd' ')
around=""
multiples=$(step_fact "$step" check_block_multiples)
if [ -n "$multiples" ]; then
    # The sizes that follow the block: those of one block that are not
    # among another block's.
    other=${blocks##* }
    common_sizes=$(comm -12 <(step_check_sizes "$step" "$first" | sort) <(step_check_sizes "$step" "$other" | sort) | sort -n | paste -sd' ')
    around="$(for k in ${multiples//,/ }; do
        [ "$k" = 1 ] && k=""
        printf '%s ' "${k}B−1" "${k}B" "${k}B+1"
    done)"
    around="$(commas $around) (B: the block size)"
fi

# What the launch audit wants, in words.
kernel=$(audit_fact kernel)
per_thread=$(audit_fact per_thread)
case $(audit_fact launches) in
one-launch) shape="one launch of \`$kernel\`" ;;
levels) shape="one launch of \`$kernel\` per level of the tree, each thread loading $(plural "${per_thread:-1}" element) of the input, its own and no more (a census under compute-sanitizer's initcheck sees which thread reads what; n → ⌈n / ($per_thread·B)⌉ → … → 1)" ;;
one-pass) shape="one launch of \`$kernel\`"
    [ -z "$per_thread" ] || shape="$shape, a grid of ⌈n / ($per_thread·B)⌉ blocks" ;;
*) shape="" ;;
esac
case $(audit_fact template) in
yes) shape="$shape, the instance of its template for the block asked for (\`$kernel<B>\`)" ;;
or-block) shape="$shape, the instance of its template for the block asked for (\`$kernel<B>\`), or a \`$kernel\` that sizes its tile from its block, launched with the block asked for" ;;
esac
[ "$(audit_fact fills_gpu)" = yes ] && shape="$shape, a grid no larger than the GPU holds at once"
memsets=$(audit_fact memsets)
case $memsets in
'' | 0-1) memset_text="at most one memset" ;;
0) memset_text="no memset" ;;
1) memset_text="exactly one memset" ;;
*) memset_text="$memsets memsets" ;;
esac
shape="$shape; $memset_text; the default stream, the buffers it was given and nothing else"
[[ " $(field audit_forbids) " == *" cluster "* ]] && shape="$shape; no thread block clusters (groups of blocks, from Hopper on, that read one another's shared memory)"
[ -z "$(field audit_module_bytes)" ] || shape="$shape; at most $(field audit_module_bytes) bytes of \`__device__\` variables"

# The instruction families a test refuses (steps.conf lesson_forbids and
# audit_forbids), in words.
family_words() {
    local family words=()
    for family in $1; do
        case $family in
        shfl) words+=("warp shuffles") ;;
        redux) words+=("\`__reduce_add_sync\` (or \`cooperative_groups::reduce\`)") ;;
        vote) words+=("ballots (or \`__activemask\`)") ;;
        match) words+=("\`__match_any_sync\`") ;;
        bar.red) words+=("\`__syncthreads_count\`") ;;
        mma) words+=("tensor cores") ;;
        st.async) words+=("asynchronous stores") ;;
        red.async) words+=("asynchronous reductions") ;;
        cp.async.bulk) words+=("the TMA's bulk copies") ;;
        cluster) words+=("clusters") ;;
        atom.shared) words+=("atomics on shared memory") ;;
        atom.global) words+=("atomics on global memory but a counter's add of a constant") ;;
        *) words+=("\`$family\`") ;;
        esac
    done
    local last=${words[${#words[@]} - 1]}
    unset 'words[${#words[@]}-1]'
    local IFS=,
    if [ ${#words[@]} -gt 0 ]; then echo "$(sed 's/,/, /g' <<<"${words[*]}") or $last"; else echo "$last"; fi
}

# The speed test's conditions.
speed="at least $(field x_start)x the starting kernel's speed in the timed run (\`$timed\`)"
pct=$(field pct_ceiling)
[ -z "$pct" ] || speed="$speed, and at least $pct% of the ceiling measured in the same run (the table's \`%\` column)"
speed="$speed; the defaults: \`make calibrate\` may write this GPU's own"

# The sanitizer test's runs, a run a line of make print-sanitize-args.
# A run that names its tools (--tools a,b) runs those; the others, all four.
all_tools=$(sed -n 's/^tools="\(.*\)"$/\1/p' "$here/sanitize.sh")
sanitize_runs=$(make_value "$root/$step" print-sanitize-args | while read -r args; do
    tools=$all_tools
    if [[ $args == --tools\ * ]]; then
        read -r _ tools args <<<"$args"
        tools=${tools//,/ }
    fi
    echo "$(commas $tools) in \`$args\`"
done | paste -sd';' | sed 's/;/, and /g')

# The lesson's second figure, where the step has one (steps.conf lesson_also).
also_words() { [ -z "$(field lesson_also)" ] || echo "; and, of your kernel alone, $(field lesson_also_what)"; }

# The total, as the report counts it: a correctness test per block, and one
# for the timed run.
correct_tests=$(($(wc -w <<<"$blocks") + 1))
lesson_points=$(points lesson)
total=$(($(points build) + $(points correct) * correct_tests + $(points speed) + ${lesson_points:-0} +
    $(points sanitize) + $(points integrity) + $(points audit)))

echo "What the grader checks, from this step's entry in \`steps.conf\` ($(plural "$total" point) in all; \`make -C .. grade EX=${step%%-*}\` runs it):"
echo
echo "| test | passes when | points |"
echo "|---|---|---|"
echo "| builds | \`make\` builds \`./$program\` from your file | $(points build) |"
sizes_text="n = $(commas $common_sizes)"
[ -z "$around" ] || sizes_text="$sizes_text, and $around"
echo "| correct with block B ($(commas $blocks)) | right at $sizes_text (the check the program's --check makes) | $(points correct) each |"
echo "| correct when timed | every run of the timed run (\`$timed\`) is right | $(points correct) |"
echo "| faster than its starting kernel | $speed | $(points speed) |"
if [ -n "$(field lesson)" ]; then
    forbids=$(field lesson_forbids)
    echo "| lesson: $(field lesson_title) | $(field lesson_what): at least $(field lesson)x fewer than \`$(field lesson_start)\`'s, in one round of the timed run (\`$(field timed)\`) under ncu, a round drawn at random for each grading$(also_words)${forbids:+; no $(family_words "$forbids"): they do that work where the counter cannot see it} | $(points lesson) |"
fi
echo "| clean under compute-sanitizer | nothing found by $sanitize_runs (to the small sizes, the grader adds two more of the correctness tests' sizes and one more block, drawn anew each grading); and no clock read, nor a ticket without a fence: an atomic whose old value tells a block it is the last, with no \`__threadfence()\` between the partial sums' stores and it (read from your kernels' PTX) | $(points sanitize) |"
echo "| integrity of your file | its host code only launches its kernels (\`grading/integrity $program.cu\`) | $(points integrity) |"
echo "| launch audit | $shape | $(points audit) |"
echo
echo "$([ -n "$(field lesson)" ] && echo "Speed, lesson and sanitizer" || echo "Speed and sanitizer") points count only once every correctness test has passed; a failed integrity test or launch audit leaves the step no points at all."
