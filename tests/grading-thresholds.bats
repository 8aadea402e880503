#!/usr/bin/env bats
# Which threshold a step is graded against: a calibrated file for the GPU,
# else the manifest's defaults, GRADE_THRESHOLDS over both, and the defaults
# for what a calibrated file lacks. No GPU.

load grading-helpers

@test "at_least compares decimals" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    # Each comparison through run: a failing command that starts with `!` is
    # ignored by errexit, so it could not fail the test.
    # At, just above and just below the minimum.
    run at_least 1.5 1.5
    assert_success
    run at_least 1.50 1.5
    assert_success
    run at_least 1.5001 1.5
    assert_success
    run ! at_least 1.4999 1.5
    run ! at_least 0.99 1.03
    run at_least 10.2 9.8
    assert_success
}

@test "a GPU's name makes the name of its thresholds file" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    assert_equal "$(gpu_slug 'NVIDIA H100 80GB HBM3')" nvidia-h100-80gb-hbm3
}

@test "a calibrated thresholds file is preferred for its GPU; another GPU gets the manifest's defaults" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    GRADING_DIR=$BATS_TEST_TMPDIR/grading
    mkdir -p "$GRADING_DIR/thresholds"
    touch "$GRADING_DIR/thresholds/nvidia-a100-sxm4-40gb.conf"
    assert_equal "$(thresholds_file 'NVIDIA H100 80GB HBM3')" "$MANIFEST"
    assert_equal "$(thresholds_file 'NVIDIA A100-SXM4-40GB')" "$GRADING_DIR/thresholds/nvidia-a100-sxm4-40gb.conf"
}

@test "GRADE_THRESHOLDS is preferred over a calibrated thresholds file" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    GRADING_DIR=$BATS_TEST_TMPDIR/grading
    mkdir -p "$GRADING_DIR/thresholds"
    touch "$GRADING_DIR/thresholds/nvidia-a100-sxm4-40gb.conf"
    GRADE_THRESHOLDS=/elsewhere.conf
    assert_equal "$(thresholds_file 'NVIDIA A100-SXM4-40GB')" /elsewhere.conf
}

@test "a calibrated file that lacks a step or a metric falls back to the defaults for it" {
    # tests/fixtures/grading/thresholds: the defaults of 04 and 08, and a
    # calibrated file that sets only their x_start.
    MANIFEST=$FIXTURES/thresholds/steps.conf
    source "$WORKBOOK_DIR/grading/lib.bash"
    calibrated=$FIXTURES/thresholds/gpu.conf
    assert_equal "$(threshold_or_default "$calibrated" 04 x_start)" "1.31 $calibrated"
    assert_equal "$(threshold_or_default "$calibrated" 08 pct_ceiling)" "80 $MANIFEST"
    assert_equal "$(threshold_or_default "$calibrated" 04 lesson)" "2.0 $MANIFEST"
    assert_equal "$(threshold_or_default "$calibrated" 05 x_start)" ""
}

@test "the speed test of a step that the calibrated file lacks uses the step's default threshold" {
    use_fake_step
    # A file that lacks step 04 altogether: the fake step's default, x_start=1.06.
    # At that threshold and just below it, so that no other threshold passes both.
    printf '05 x_start 1.20\n' >"$GRADE_THRESHOLDS"
    timed_speed 1.06 22.40
    assert_success
    assert_verdict "$GRADE_RESULTS/04/speed" test=speed result=pass x_start=1.06 x_min=1.06 thresholds=steps.conf
    timed_speed 1.0599 22.40
    assert_failure
    assert_verdict "$GRADE_RESULTS/04/speed" test=speed result=fail x_start=1.0599 x_min=1.06 thresholds=steps.conf
}
