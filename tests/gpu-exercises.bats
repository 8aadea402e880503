#!/usr/bin/env bats
# On a GPU: every untouched exercise fails its correctness tests (it builds,
# is wrong, and only defines and launches its kernels: build and integrity
# score). A wrong kernel is never timed, so this runs beside the tests that
# time nothing; the solutions' grading is tests/gpu.bats'.
# Without a GPU this test skips, saying so.

load helpers

setup() {
    have_gpu || skip "no usable CUDA device: the untouched exercises were not graded"
}

@test "every untouched exercise builds and fails its correctness tests" {
    # In a handout the exercises are the learner's to solve: make grade grades them.
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "a handout: its exercises are the learner's, not untouched ones"
    run "$WORKBOOK_DIR/grading/grade" --require-gpu --jobs "$(grade_jobs)" --results "$BATS_TEST_TMPDIR/exercises"
    echo "$output" | tail -n 10 >&3
    assert_failure
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        # Build and integrity score; nothing else does, and a launch audit
        # that finds the skeleton's shape wrong voids even those (06's
        # issues no memset: zeroing the total is one of its TODOs).
        assert_line --regexp "^$step +pass +fail +not timed +(fail|-) +fail +fail +[02]/[0-9]+$"
    done
}

# The grader checks and sanitizes the learner's kernels only (--only yours);
# the kernels past the lesson, which only the reference solutions define,
# are checked here, at every size and block a grading checks, and are clean
# under memcheck, synccheck and initcheck at make sanitize's small sizes
# (racecheck watches the kernels of the learner's file only).
@test "the reference solutions' kernels past the lesson are right at every size and block the grader checks, and clean" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "a handout: no reference solutions"
    local dir step blocks sizes small checked=0
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        [ -n "$(cd "$WORKBOOK_DIR" && source common/tools/manifest.bash && step_field "$step" beyond_sources)" ] || continue
        blocks=$(cd "$WORKBOOK_DIR" && source common/tools/manifest.bash && step_field "$step" blocks)
        sizes=$(source "$WORKBOOK_DIR/grading/common.bash" && for b in ${blocks//,/ }; do step_check_sizes "$step" "$b"; done | sort -nu | paste -sd, -)
        run "$dir$(program_of "$dir")_solution" --check --only beyond -b "$blocks" -n "$sizes"
        [ "$status" -eq 0 ] || fail "$(printf '%s: its kernels past the lesson are not right (exit %s):\n%s' "$step" "$status" "$(tail -n 20 <<<"$output")")"
        small=$(make -s -C "$dir" print-sanitize-args | head -n 1 | sed 's/--only yours/--only beyond/')
        # shellcheck disable=SC2086
        run "$WORKBOOK_DIR/common/tools/sanitize.sh" "$dir$(program_of "$dir")_solution" --tools memcheck,synccheck,initcheck $small
        [ "$status" -eq 0 ] || fail "$(printf '%s: its kernels past the lesson are not clean (exit %s):\n%s' "$step" "$status" "$(tail -n 30 <<<"$output")")"
        checked=$((checked + 1))
    done
    [ "$checked" -gt 0 ] || fail "no step has kernels past the lesson (beyond_sources in steps.conf)"
}

# The grader's timed and profiled runs take its GPU lock themselves
# (--gpu-lock, on_gpu measure in grading/lib.bash): shared from their start,
# so that no run alone is disturbed by it, and alone only while they time.
@test "a run with --gpu-lock holds the lock shared from its start, and alone while it times" {
    local dir=$WORKBOOK_DIR/04-reduction-interleaved/ program lock=$BATS_TEST_TMPDIR/gpu.lock started
    program=$dir$(program_of "$dir")
    : >"$lock"
    # A run alone holds the GPU: the program waits before it starts.
    flock --exclusive "$lock" sh -c 'touch "$1"; sleep 2' _ "$BATS_TEST_TMPDIR/alone" &
    while [ ! -e "$BATS_TEST_TMPDIR/alone" ]; do sleep 0.05; done
    started=$EPOCHREALTIME
    run "$program" --only start -n 2^20 -r 3 --machine --gpu-lock "$lock"
    wait
    assert_success
    assert_equal "$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { print (b - a >= 1.5) }')" 1
    # ... and then times at once: nothing else holds the lock.
    assert_equal "$(grep -c $'^lock\t' <<<"$output")" 1
    assert_equal "$(awk -F'\t' -v get=waited -f "$WORKBOOK_DIR/common/tools/records.awk" <<<"$(grep $'^lock\t' <<<"$output")" | awk '{ print ($1 < 0.5) }')" 1
    # Other runs' checks hold it shared: the program starts beside them, and
    # waits for them to end before it times.
    flock --shared "$lock" sh -c 'touch "$1"; sleep 3' _ "$BATS_TEST_TMPDIR/shared" &
    while [ ! -e "$BATS_TEST_TMPDIR/shared" ]; do sleep 0.05; done
    run "$program" --only start -n 2^20 -r 3 --machine --gpu-lock "$lock"
    wait
    assert_success
    assert_equal "$(awk -F'\t' -v get=waited -f "$WORKBOOK_DIR/common/tools/records.awk" <<<"$(grep $'^lock\t' <<<"$output")" | awk '{ print ($1 >= 0.5) }')" 1
}

@test "a run past --time-limit ends itself with exit 124, saying so" {
    local dir=$WORKBOOK_DIR/04-reduction-interleaved/ program
    program=$dir$(program_of "$dir")
    run timeout 60 "$program" --only start -n 2^26 -r 100000 --time-limit 2
    assert_failure 124
    assert_line --partial "went past its time limit (--time-limit)"
}
