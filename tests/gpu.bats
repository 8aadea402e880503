#!/usr/bin/env bats
# On a GPU: the reference solutions pass every grading test (their timed runs
# take the GPU alone: tests/run runs this file by itself). The untouched
# exercises, which are never timed, are tests/gpu-exercises.bats'.
# Without a GPU these tests skip, saying so.

load helpers

setup() {
    have_gpu || skip "no usable CUDA device: the reference solutions were not graded"
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
