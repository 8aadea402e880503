#!/usr/bin/env bash
# readme-figures.sh [LOG [ROOT]]: write each step's measured figures into its
# README, between the lines <!-- bench:NN --> and <!-- /bench -->, from the
# records of a `make bench` run (default results/bench.log): the step's whole
# table as its program printed it, the GPU, the size, the block, the date.
# The top-level README's <!-- bench:progression --> block gets the
# progression table that make bench printed, from a log that times every step
# with a table (one that times only some leaves it as it was); the atomics
# table, step 08's float sums, each step's last make profile and make
# bench-sweep go into their blocks too (below),
# and each step's pass conditions, from steps.conf, into its <!-- pass:NN -->
# block, with or without a log.
# Called by `make readme-figures`; the figures in the READMEs come from here,
# never from hand-copied numbers.
# A log without a single timed kernel (a run that found no GPU, say) changes
# no figure and exits 1.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
OPTIONS_NAME="readme-figures"
source "$root/common/tools/options.bash"
source "$root/common/tools/manifest.bash"  # track_records: the tracks' facts
case ${1:-} in -h | --help) usage; exit 0 ;; -*) die "unknown option '$1' (try --help)" ;; esac
[ $# -le 2 ] || die "too many arguments (try --help)"
log=${1:-$root/results/bench.log}
[ -n "${2:-}" ] && root=$2  # another copy of the workbook (the tests use one)

# fill_text README OPEN CLOSE TEXT: TEXT between the lines OPEN and CLOSE of
# README (whatever stood there before goes); fill_block: as a code block.
fill_text() {
    awk -v opening="$2" -v closing="$3" -v text="$4" '
    $0 == opening { print; print text; skip = 1; next }
    $0 == closing { skip = 0 }
    !skip' "$1" >"$1.new" && mv "$1.new" "$1" ||
        { rm -f "$1.new"; echo "readme-figures: could not rewrite $1: it was left as it was" >&2; exit 1; }
}
fill_block() { fill_text "$1" "$2" "$3" "$(printf '```\n%s\n```' "$4")"; }

# What the grader checks for each step, from steps.conf (pass-conditions.sh),
# into its README's <!-- pass:NN --> block: no GPU needed, so it is written
# whatever the log holds.
if [ -f "$root/steps.conf" ]; then
    for readme in "$root"/[0-9][0-9]-*/README.md; do
        number=$(basename "$(dirname "$readme")"); number=${number%%-*}
        grep -q "^<!-- pass:$number -->$" "$readme" || continue
        conditions=$("$(dirname "$0")/pass-conditions.sh" "$number" "$root") ||
            { echo "readme-figures: step $number's pass conditions could not be read: its README stays as it is" >&2; continue; }
        before=$(cat "$readme")
        fill_text "$readme" "<!-- pass:$number -->" "<!-- /pass -->" "$(printf '\n%s\n' "$conditions")"
        [ "$before" = "$(cat "$readme")" ] || echo "updated $readme (pass conditions)" >&2
    done
fi

# How long a grading takes (make bench-grading's summary) into the top-level
# README's <!-- bench:grading --> block: no make bench log needed.
# BENCH_GRADING names another summary file.
grading_summary=${BENCH_GRADING:-$(dirname "$log")/bench-grading.txt}
if [ -s "$grading_summary" ] && grep -qx -- '<!-- bench:grading -->' "$root/README.md" 2>/dev/null; then
    fill_block "$root/README.md" "<!-- bench:grading -->" "<!-- /bench -->" "$(cat "$grading_summary")"
    echo "updated $root/README.md (grading times)" >&2
fi

[ -f "$log" ] || { echo "readme-figures: no $log: run make bench first" >&2; exit 1; }
grep -q $'^device\t' "$log" && grep -q $'^time\t' "$log" || {
    echo "readme-figures: $log holds no timed kernel (did make bench find no GPU?): no figure was changed" >&2
    exit 1
}

for readme in "$root"/[0-9][0-9]-*/README.md; do
    step=$(basename "$(dirname "$readme")")
    number=${step%%-*}
    grep -q "^<!-- bench:$number -->$" "$readme" || continue
    table=$(awk -F'\t' -v step="$step" -f "$root/common/tools/records.awk" -f <(cat <<'AWK'
    function x(v) { return v == "" ? "" : sprintf("%.2fx", v) }
    $1 == "run" { date = field("date") }
    $1 == "device" && field("step") == step { gpu = field("name"); runtime = field("runtime") }
    $1 == "time" && field("step") == step {
        if (!rows++) {
            track = track_of[step]
            size = fact(track, "size_symbol") " = " field("n") (fact(track, "size_unit") == "" ? "" : " " fact(track, "size_unit"))
            printf "Measured by `make bench` on %s (CUDA %s), %s: %s, block %s, median of %s interleaved runs.\n\n",
                   gpu, runtime, date, size, field("block"), field("reps")
            printf "| kernel | ms | %s | %% of %s | x start | x first |\n", field("unit"),
                   fact(track, "ceiling")
            print "|---|---:|---:|---:|---:|---:|"
        }
        printf "| %s [%s] | %.4f | %.1f | %.1f | %s | %s |\n", field("label"), field("role"), field("ms"), field("rate"),
               field("pct_ceiling"), x(field("x_start")), x(field("x_first"))
    }
    END { if (!rows) exit 1 }
AWK
    ) <(track_records) "$log") || { echo "readme-figures: $step: not in $log" >&2; continue; }
    awk -v number="$number" -v table="$table" '
    $0 == "<!-- bench:" number " -->" { print; print table; skip = 1; next }
    $0 == "<!-- /bench -->" { skip = 0 }
    !skip' "$readme" >"$readme.new" && mv "$readme.new" "$readme"
    echo "updated $readme" >&2
done

# The progression, as make bench prints it, for the top-level README. It shows
# every step with a table of its own: a log that times only some of them
# (bench.sh 03-tiled-matmul, say) would leave the others out and make the
# first step it timed its track's start, so such a log leaves it as it was.
readme=$root/README.md
untimed=
for step_readme in "$root"/[0-9][0-9]-*/README.md; do
    step=$(basename "$(dirname "$step_readme")")
    grep -q "^<!-- bench:${step%%-*} -->$" "$step_readme" || continue
    awk -F'\t' -v want="step=$step" '
        $1 == "time" { for (i = 2; i <= NF; i++) if ($i == want) found = 1 }
        END { exit !found }' "$log" || untimed="$untimed ${step%%-*}"
done
if [ -n "$untimed" ] && grep -q '^<!-- bench:progression -->$' "$readme" 2>/dev/null; then
    echo "readme-figures: $log times no step$untimed: the progression in $readme stays as it is (make bench times them all)" >&2
elif grep -q '^<!-- bench:progression -->$' "$readme" 2>/dev/null; then
    scratch=$(mktemp -d)
    table=$(BENCH_RESULTS=$scratch "$root/common/tools/bench.sh" --from "$log" 2>/dev/null)
    rm -rf "$scratch"
    grep -q '^Progression on ' <<<"$table" || { echo "readme-figures: no progression in $log: $readme left as it was" >&2; exit 1; }
    fill_block "$readme" "<!-- bench:progression -->" "<!-- /bench -->" "$table"
    echo "updated $readme" >&2
fi

# fill_from FILE OPEN CLOSE WHAT MAKE: a program's output FILE, as it printed
# it, into every README's block OPEN ... CLOSE; without FILE, those blocks
# stay as they are (MAKE writes it).
fill_from() {
    local readme
    if [ -s "$1" ]; then
        for readme in "$root"/README.md "$root"/[0-9][0-9]-*/README.md; do
            grep -qx -- "$2" "$readme" || continue
            fill_block "$readme" "$2" "$3" "$(cat "$1")"
            echo "updated $readme ($4)" >&2
        done
    else
        echo "readme-figures: no $1: the $4 stay as they are ($5 writes it)" >&2
    fi
}
# The atomics microbenchmark's table (make micro-atomics), into every README
# with a <!-- micro:atomics --> block. MICRO_ATOMICS names another output file.
fill_from "${MICRO_ATOMICS:-$(dirname "$log")/micro-atomics.txt}" "<!-- micro:atomics -->" "<!-- /micro -->" \
    "atomics tables" "make micro-atomics"

# Step 08's float sums (make float-sum), as the program printed them, into
# its <!-- float:sum --> block. FLOAT_SUM names another output file.
fill_from "${FLOAT_SUM:-$(dirname "$log")/float-sum.txt}" "<!-- float:sum -->" "<!-- /float -->" \
    "float sums" "make float-sum"

# Each step's last `make profile` output (results/profile-NN.txt, headed by
# what ran where) into its README's <!-- profile:NN --> block; its last `make
# bench-sweep` table (results/sweep-NN.txt) into its <!-- sweep:NN --> block,
# and that run's plot (sweep-NN.svg) beside the README, as sweep.svg.
for kind in profile sweep; do
    for readme in "$root"/[0-9][0-9]-*/README.md; do
        number=$(basename "$(dirname "$readme")"); number=${number%%-*}
        grep -q "^<!-- $kind:$number -->$" "$readme" || continue
        output=$(dirname "$log")/$kind-$number.txt
        [ -s "$output" ] || { echo "readme-figures: no $output: step $number's $kind stays as it is (make ${kind/sweep/bench-sweep} writes it)" >&2; continue; }
        fill_block "$readme" "<!-- $kind:$number -->" "<!-- /$kind -->" "$(cat "$output")"
        plot=$(dirname "$log")/$kind-$number.svg
        if [ $kind = sweep ] && [ -s "$plot" ]; then cp "$plot" "$(dirname "$readme")/sweep.svg"; fi
        echo "updated $readme ($kind)" >&2
    done
done
