#!/usr/bin/env bats
# grading/calibrate: a GPU's own speed thresholds, from several runs of the
# reference solutions. A fake workbook whose one solution
# (tests/fixtures/grading/calibrate/prog_solution) prints the speedups in
# $FAKE_X and the ceiling's rates in $FAKE_CEILING, one per run. No GPU.

load grading-helpers

@test "calibrate writes a share of the median gain, with the raw figures, for this GPU" {
    fake_calibration_workbook
    FAKE_X="1.60 1.62 1.60 1.59 1.61" FAKE_CEILING="3000 3010 2995 3005 3000" run "$W/grading/calibrate" --runs 5
    assert_success
    file=$W/grading/thresholds/fake-gpu-9000.conf
    assert [ -f "$file" ]
    source "$WORKBOOK_DIR/grading/common.bash"
    assert_equal "$(threshold "$file" 04 x_start)" 1.30  # 1 + 0.5 x (1.60 - 1)
    run cat "$file"
    assert_output --partial "Fake GPU 9000"
    assert_output --partial "1.60 1.62 1.60 1.59 1.61"
    assert_output --partial "min = 1 + f x (median - 1), f = 0.5"
}

# A threshold is set from what the speed test times: the step's timed run of
# the starting kernel and the learner's (graded_timed, grading/common.bash).
@test "calibrate times the run the speed test times: the step's timed options, of the starting kernel and the learner's" {
    fake_calibration_workbook
    export FAKE_ARGS_LOG=$BATS_TEST_TMPDIR/args
    FAKE_X="1.60 1.62 1.60" FAKE_CEILING="3000 3010 2995" run "$W/grading/calibrate" --runs 3
    assert_success
    source "$WORKBOOK_DIR/grading/common.bash"
    MANIFEST=$W/steps.conf
    run grep -c -- " $(step_field 04-fake timed) --only start,yours$" "$FAKE_ARGS_LOG"
    assert_output 3
}

@test "calibrate refuses a gain within reach of the noise floor" {
    fake_calibration_workbook
    # a small gain: 0.8 x 1.04 would be below 1; the floor 1 + 2 x spread holds it up
    FAKE_X="1.04 1.04 1.05 1.04 1.04" FAKE_CEILING="3000 3000 3000 3000 3000" run "$W/grading/calibrate" --runs 5
    assert_failure 1
    assert_output --partial "within reach of the noise floor"
}

@test "calibrate refuses a noisy or throttling GPU, whose ceiling moves between runs, and writes nothing" {
    fake_calibration_workbook
    FAKE_X="1.60 1.61 1.61 1.60 1.61" FAKE_CEILING="3000 2600 3000 2900 3000" run "$W/grading/calibrate" --runs 5
    assert_failure 1
    assert_output --partial "the ceiling measured in the same runs moved by 13.3%"
    assert [ ! -e "$W/grading/thresholds/fake-gpu-9000.conf" ]
}

@test "calibrate keeps a modest gain's threshold a share of the gain, not of the speedup" {
    fake_calibration_workbook
    FAKE_X="1.30 1.29 1.30 1.30 1.31" FAKE_CEILING="3000 3000 3000 3000 3000" run "$W/grading/calibrate" --runs 5
    assert_success
    source "$WORKBOOK_DIR/grading/common.bash"
    assert_equal "$(threshold "$W/grading/thresholds/fake-gpu-9000.conf" 04 x_start)" 1.15  # 1 + 0.5 x 0.30, not 0.8 x 1.30 = 1.04
}

@test "calibrate writes a floor on the share of the ceiling for a step whose defaults have one" {
    fake_calibration_workbook
    cp "$FIXTURES/calibrate/steps-pct-ceiling.conf" "$W/steps.conf"
    FAKE_X="1.60 1.62 1.60 1.59 1.61" FAKE_CEILING="3000 3010 2995 3005 3000" run "$W/grading/calibrate" --runs 5
    assert_success
    source "$WORKBOOK_DIR/grading/common.bash"
    assert_equal "$(threshold "$W/grading/thresholds/fake-gpu-9000.conf" 04 pct_ceiling)" 45  # 0.9 x 50
    assert_equal "$(threshold "$W/grading/thresholds/fake-gpu-9000.conf" 04 x_start)" 1.30
}
