#!/usr/bin/env bats
# On a GPU: the reference solutions pass every grading test, and every
# untouched exercise fails its correctness tests (it builds, is wrong, and only
# defines and launches its kernels: build and integrity score).
# Without a GPU these tests skip, saying so.

load helpers

# Steps graded at once: one per core, up to the eight steps (grade --jobs
# times and profiles each alone all the same).
grade_jobs() {
    local cores
    cores=$(nproc 2>/dev/null || echo 1)
    echo $((cores < 8 ? cores : 8))
}

setup() {
    have_gpu || skip "no usable CUDA device: the solutions and exercises were not graded"
}

@test "the reference solutions pass every grading test" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy (a handout): no reference solutions to grade"
    run "$WORKBOOK_DIR/grading/grade" --solutions --require-gpu --jobs "$(grade_jobs)" --results "$BATS_TEST_TMPDIR/solutions"
    echo "$output" | tail -n 12 >&3
    assert_success
    refute_output --regexp 'not ok'
    # Every step graded, to its last point: a run that graded nothing, or
    # skipped a test, passes the two checks above.
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        row=$(grep -E "^$step " <<<"$output") || fail "no row for $step in the summary: $output"
        points=${row##* }
        [[ $points =~ ^[0-9]+/[0-9]+$ ]] && [ "${points%/*}" = "${points#*/}" ] || fail "$step scored $points: $row"
    done
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
