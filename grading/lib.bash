# lib.bash: what every step's .bats file shares. A step's file sets STEP (its
# folder's name) and SPEED_ARGS (the options of its timed run), then loads this.
#
# Each program run is bounded by `timeout`, so a kernel that never ends fails
# its test instead of hanging the grader. A program that finds no GPU (exit 77)
# makes its test skip with the program's own reason, or fail when REQUIRE_GPU=1.
# Each test leaves a one-line verdict in $GRADE_RESULTS/<step number>/, which
# `grading/grade` reads for its summary.
#
# Environment (grading/grade sets these):
#   GRADE_SOLUTIONS=1   grade the reference solutions instead of the exercises
#   REQUIRE_GPU=1       a missing GPU fails the GPU tests instead of skipping them
#   GRADE_TIMEOUT       seconds one program run may take (default 180)
#   GRADE_RESULTS       where verdicts go (default: a folder of this bats run)
#   GRADE_THRESHOLDS    a thresholds file to use instead of grading/thresholds.conf
#   GRADE_SEED          the seed of the programs' random inputs (-s); grading/grade picks one per run

bats_load_library bats-support
bats_load_library bats-assert
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

GRADING_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORKBOOK_DIR=$(cd "$GRADING_DIR/.." && pwd)
: "${GRADE_TIMEOUT:=180}"
: "${GRADE_RESULTS:=$BATS_RUN_TMPDIR/results}"

step_number() { echo "${STEP%%-*}"; }

# The verdict files of this step.
verdict_dir() { echo "$GRADE_RESULTS/$(step_number)"; }

# record KEY TEXT: leave a verdict ("pass ...", "fail ...", "skip ...").
record() {
    mkdir -p "$(verdict_dir)"
    echo "$2" >"$(verdict_dir)/$1"
}

program_name() { make -s -C "$WORKBOOK_DIR/$STEP" print-program; }

program_path() {
    local name
    name=$(program_name) || return 1
    if [ "${GRADE_SOLUTIONS:-0}" = 1 ]; then
        echo "$WORKBOOK_DIR/$STEP/${name}_solution"
    else
        echo "$WORKBOOK_DIR/$STEP/$name"
    fi
}

# ---------------------------------------------------------------------------
# The tests' bodies
# ---------------------------------------------------------------------------

# Build the exercise (or the solution). A compiler error fails this test with
# the compiler's message; the other steps are graded all the same.
grade_build() {
    local target=all
    [ "${GRADE_SOLUTIONS:-0}" = 1 ] && target=solution
    run make -C "$WORKBOOK_DIR/$STEP" "$target"
    if [ "$status" -ne 0 ]; then
        record build "fail"
        fail "$(printf '%s does not build (make %s, exit %d):\n%s' "$STEP" "$target" "$status" "$(tail -n 40 <<<"$output")")" || return
    fi
    record build "pass"
}

# A test of a step that did not build, or whose program already hung once,
# fails at once, naming the reason: a hang costs one timeout, not one per test.
require_build() {
    local verdict
    verdict=$(cat "$(verdict_dir)/build" 2>/dev/null)
    [ "$verdict" = fail ] && { fail "not run: $STEP does not build"; return; }
    [ -e "$(verdict_dir)/hung" ] && { fail "not run: $(cat "$(verdict_dir)/hung")"; return; }
    [ -x "$(program_path)" ] || { fail "not run: $(program_path) is missing (did the build test run?)"; return; }
}

# run_program ARGS...: run the step's program under timeout; sets status and output.
run_program() {
    run timeout -k 10 "$GRADE_TIMEOUT" "$(program_path)" ${GRADE_SEED:+-s "$GRADE_SEED"} "$@"
}

# Note the GPU's name from a program's device record, for the summary.
note_gpu() {
    local device
    device=$(grep -m 1 $'^device\t' <<<"$output") || return 0
    mkdir -p "$GRADE_RESULTS"
    record_field "$device" name >"$GRADE_RESULTS/gpu"
}

# triage_exit KEY: after run_program, skip (or fail) on exit 77 -- the only
# case that records KEY as skipped -- and explain timeouts and crashes.
# Returns normally only for exit 0 and 1.
triage_exit() {
    case "$status" in
    0 | 1) return 0 ;;
    77)
        [ "${REQUIRE_GPU:-0}" = 1 ] || record "$1" skip
        if [ "${REQUIRE_GPU:-0}" = 1 ]; then
            fail "no GPU, and REQUIRE_GPU=1: $output" || return
        fi
        skip "$(tail -n 1 <<<"$output")"
        ;;
    124 | 137)
        record hung "an earlier run of $STEP was stopped after ${GRADE_TIMEOUT}s"
        fail "timed out after ${GRADE_TIMEOUT}s and was stopped: a kernel that never finishes -- a loop whose end is never reached, or a __syncthreads() that some threads of a block never reach?" || return
        ;;
    2) fail "$(printf 'the program refused its options (exit 2):\n%s' "$output")" ;;
    3) fail "$(printf 'CUDA error (exit 3):\n%s' "$(grep -v $'^check\t' <<<"$output")")" ;;
    *) fail "$(printf 'the program ended with exit status %d:\n%s' "$status" "$(tail -n 20 <<<"$output")")" ;;
    esac
}

# The mismatches among the check records, one readable line each (the hint
# on a line of its own), then whatever the program said that is no record.
describe_mismatches() {
    awk -F'\t' '$1 == "check" && /result=mismatch/ {
        line = ""; hint = ""
        for (i = 2; i <= NF; i++) {
            if ($i ~ /^hint=/) hint = substr($i, 6)
            else if ($i !~ /^(step|role|result)=/) line = line (line ? " " : "") $i
        }
        if (++shown <= 12) { print "  " line; if (hint != "") print "    hint: " hint }
        total++
        next
    }
    $1 == "finding" { for (i = 2; i <= NF; i++) if ($i ~ /^message=/) said = said "  " substr($i, 9) "\n"; next }
    $1 !~ /^(device|check|time|summary|audit|launch)$/ && NF > 0 { said = said "  " $0 "\n" }
    END { if (total > 12) print "  ... and " total - 12 " more"; printf "%s", said }' <<<"$output"
}

# grade_check BLOCK SIZE...: correct at every size with this block size?
grade_check() {
    local block=$1
    shift
    require_build
    local sizes
    sizes=$(IFS=,; echo "$*")
    run_program --check --machine -b "$block" -n "$sizes"
    record "check-$block" fail  # until shown otherwise
    triage_exit "check-$block" || return
    note_gpu
    if [ "$status" -ne 0 ]; then
        fail "$(printf 'wrong results with block %s:\n%s\n(run it yourself: %s --check -b %s -n %s%s)' "$block" \
            "$(describe_mismatches)" "$(basename "$(program_path)")" "$block" "$sizes" "${GRADE_SEED:+ -s $GRADE_SEED}")" || return
    fi
    grep -q $'^summary\t.*result=correct' <<<"$output" || { fail "the program said nothing about its checks: $output"; return; }
    summary_from_harness || return
    record "check-$block" "pass"
}

# The sizes that catch the usual mistakes of a reduction, for one block size:
# tiny ones, one short of, at and one past a block and two blocks (elements
# per block are blockDim.x or 2 * blockDim.x from step 06 on), odd ones, and
# several times the L2 cache.
reduction_sizes() {
    local b=$1
    printf '%s\n' 1 2 31 32 33 255 256 257 511 512 513 1000 65537 1000003 16777217 67108864 \
        $((b - 1)) $((b + 1)) $((2 * b - 1)) $((2 * b)) $((2 * b + 1)) | sort -nu
}

# The sizes for matrix multiplication: tiny, around a tile or block of 16 and
# 32, odd ones, and the timed size.
matmul_sizes() {
    printf '%s\n' 1 2 15 16 17 31 32 33 100 257 1000 1023 2048
}

# ---------------------------------------------------------------------------
# Speed
# ---------------------------------------------------------------------------

# The graded kernel is the learner's last; its speedup over the step's
# starting kernel is measured in the same process, paired run by run.
grade_speed() {
    require_build
    local verdict
    for verdict in "$(verdict_dir)"/check-*; do
        [ -e "$verdict" ] || continue
        if [ "$(cat "$verdict")" = fail ]; then
            record speed "fail not timed"
            fail "not timed: $STEP is not correct yet (see its correctness tests); speed counts only for a correct kernel" || return
        fi
    done
    # shellcheck disable=SC2086
    run_program --machine $SPEED_ARGS
    record speed "fail not timed"  # until shown otherwise
    triage_exit speed || return
    note_gpu
    if [ "$status" -ne 0 ]; then
        fail "$(printf 'wrong results in the timed run:\n%s' "$(describe_mismatches)")" || return
    fi
    local device graded file x_start x_min pct pct_min
    device=$(grep $'^device\t' <<<"$output")
    graded=$(grep $'^time\t' <<<"$output" | grep $'\trole=yours\t' | tail -n 1)
    [ -n "$graded" ] || { fail "no timing of the graded kernel in the output: $output"; return; }
    file=$(thresholds_file "$(record_field "$device" name)")
    x_start=$(record_field "$graded" x_start)
    x_min=$(threshold "$file" "$(step_number)" x_start)
    pct=$(record_field "$graded" pct_ceiling)
    pct_min=$(threshold "$file" "$(step_number)" pct_ceiling)
    [ -n "$x_min" ] || { fail "no x_start threshold for step $(step_number) in $file"; return; }
    local verdict_line="$x_start $x_min $pct ${pct_min:--} $(basename "$file")"
    if ! at_least "$x_start" "$x_min"; then
        record speed "fail $verdict_line"
        fail "$(printf '%.2fx faster than the starting kernel; at least %sx is required (%s)' "$x_start" "$x_min" "$file")" || return
    fi
    if [ -n "$pct_min" ] && ! at_least "$pct" "$pct_min"; then
        record speed "fail $verdict_line"
        fail "$(printf '%.1f%% of the ceiling measured in the same run; at least %s%% is required (%s)' "$pct" "$pct_min" "$file")" || return
    fi
    record speed "pass $verdict_line"
}

# ---------------------------------------------------------------------------
# Integrity and the launch audit
# ---------------------------------------------------------------------------

# The one file a learner edits (or its reference solution).
learner_file() {
    local name
    name=$(program_name) || return 1
    if [ "${GRADE_SOLUTIONS:-0}" = 1 ]; then
        echo "$WORKBOOK_DIR/solutions/$STEP/$name.cu"
    else
        echo "$WORKBOOK_DIR/$STEP/$name.cu"
    fi
}

# The summary must carry this run's seed, as the harness prints it: records
# printed by anything else (a forgery before main) do not know it.
summary_from_harness() {
    [ -n "${GRADE_SEED:-}" ] || return 0
    grep -q $'^summary\t.*\tseed='"$GRADE_SEED"$'\t' <<<"$output" ||
        fail "the program's summary does not carry this run's seed ($GRADE_SEED): it did not come from the harness's checks"
}

# Does that file hold only kernels and their launches? Needs no GPU: see
# grading/integrity for what it checks.
grade_integrity() {
    local file
    file=$(learner_file) || { fail "cannot tell which file of $STEP to check"; return; }
    run "$GRADING_DIR/integrity" "$file"
    record integrity fail
    case $status in
    0) record integrity pass ;;
    1) fail "$(printf '%s does more than define and launch its kernels:\n%s' "$(basename "$file")" "$output")" ;;
    *) fail "$(printf 'not checked (exit %d):\n%s' "$status" "$output")" ;;
    esac
}

# The launch audit: the program traces (CUPTI) one call of the graded function
# at each size of its run and reports what it launched. A finding fails.
grade_launch_audit() {
    require_build
    local block=$1
    shift
    local sizes
    sizes=$(IFS=,; echo "$*")
    run_program --check --machine -b "$block" -n "$sizes"
    record audit fail
    triage_exit audit || return
    local findings audited
    findings=$(awk -F'\t' '$1 == "finding" { for (i = 2; i <= NF; i++) if ($i ~ /^message=/) print "  " substr($i, 9) }' <<<"$output" | sort -u)
    audited=$(grep -c $'^audit\t' <<<"$output")
    if [ -n "$findings" ]; then
        fail "$(printf 'the launch audit found work that is not your kernel doing the step:\n%s\n(run it yourself: %s --check -b %s -n %s)' \
            "$findings" "$(basename "$(program_path)")" "$block" "$sizes")" || return
    fi
    [ "$audited" -ge "$#" ] || { fail "$(printf 'the program reported %d launch audits for %d sizes: did it end early?\n%s' "$audited" "$#" "$(tail -n 5 <<<"$output")")"; return; }
    record audit pass
}
