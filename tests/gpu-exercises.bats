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
