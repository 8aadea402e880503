#!/usr/bin/env bats
# The speed test (grade_speed) on the fake step: its verdict from the records
# of the timed run, against the thresholds in
# tests/fixtures/grading/fake-step/thresholds.conf (x_start 1.50, 20% of the
# ceiling). No GPU.

load grading-helpers

# Each threshold at, just below and just above it (x_start 1.50, 20% of the
# ceiling): a comparison made strict, or loosened, fails one of these.
@test "the speed test passes at the threshold and names the figures" {
    use_fake_step
    timed_speed 1.50 20
    assert_success
    assert_verdict "$GRADE_RESULTS/04/speed" test=speed result=pass x_start=1.50 x_min=1.50 pct=20 pct_min=20 \
        thresholds=thresholds.conf
    timed_speed 1.5001 20.01
    assert_success
    assert_verdict "$GRADE_RESULTS/04/speed" test=speed result=pass x_start=1.5001 pct=20.01
}

@test "the speed test fails just below either threshold" {
    use_fake_step
    timed_speed 1.4999 20
    assert_failure
    assert_output --partial "1.50x faster than the starting kernel; at least 1.50x is required"
    assert_verdict "$GRADE_RESULTS/04/speed" test=speed result=fail x_start=1.4999 x_min=1.50
    timed_speed 1.50 19.99
    assert_failure
    assert_output --partial "20.0% of the ceiling measured in the same run; at least 20% is required"
    assert_verdict "$GRADE_RESULTS/04/speed" test=speed result=fail x_start=1.50 pct=19.99 pct_min=20
}

@test "the speed test fails below the speedup threshold" {
    use_fake_step
    timed_speed 1.0040 22.40
    assert_failure
    assert_output --partial "1.00x faster than the starting kernel; at least 1.50x is required"
    assert_verdict "$GRADE_RESULTS/04/speed" test=speed result=fail x_start=1.0040 x_min=1.50 reason=
}

@test "the speed test fails below the share of the ceiling" {
    use_fake_step
    timed_speed 1.9 12.5
    assert_failure
    assert_output --partial "12.5% of the ceiling measured in the same run; at least 20% is required"
    assert_verdict "$GRADE_RESULTS/04/speed" test=speed result=fail x_start=1.9 pct=12.5 pct_min=20
}

@test "the speed test below both thresholds says both, and what the floor is about (the step's pct_hint)" {
    use_fake_step
    timed_speed 1.10 12.5
    assert_failure
    assert_output --partial "1.10x faster than the starting kernel; at least 1.50x is required"
    assert_output --partial "12.5% of the ceiling measured in the same run; at least 20% is required"
    assert_output --partial "The lesson of this step is reaching the limit of the memory."
}

@test "the speed test does not time a step that is not correct" {
    use_fake_step
    record check-256 fail
    FAKE_OUTPUT=$(timed_output 9.9 99)
    run grade_speed
    assert_failure
    assert_output --partial "not timed"
    assert_verdict "$GRADE_RESULTS/04/speed" test=speed result=fail "reason=not timed" x_start=
}

@test "a timing the program prints changes no speed verdict: the speed comes from the program's records file" {
    use_fake_step
    record build pass
    # A slow kernel that prints a fast timing, and a passing summary, onto
    # stdout (tests/fixtures/grading/runs/prints-fast-timing.out).
    program_prints prints-fast-timing.out
    timed_speed 1.0040 22.40
    assert_failure
    assert_output --partial "1.00x faster than the starting kernel"
}

@test "a speed past the ceiling by half again fails: the timed runs did not do the work" {
    use_fake_step
    timed_speed 30 1400
    assert_failure
    assert_output --partial "1400% of the ceiling measured in the same run: more than 150% is not a kernel doing the work"
    assert_verdict "$GRADE_RESULTS/04/speed" test=speed result=fail x_start=30 pct=1400 "reason=faster than the ceiling"
    timed_speed 3 150
    assert_success
}
