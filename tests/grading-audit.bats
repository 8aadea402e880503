#!/usr/bin/env bats
# The launch audit test (grade_launch_audit) on the fake step: the program
# audits the launches of the learner's plan at each size, and its records say
# what it found. No GPU.

load grading-helpers

@test "the launch audit test fails on a finding, in the program's words" {
    use_fake_step
    record build pass
    # Two sizes audited, the first with a finding (tests/fixtures/grading/runs/audit-finding.out).
    FAKE_STATUS=1
    program_says audit-finding.out
    run grade_launch_audit 256 1 2
    assert_failure
    assert_output --partial "your sum_x launched cub::Kernel, not reduce_x"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail reason=  # a finding: no reason
}

@test "the launch audit test fails when fewer plans were audited than sizes" {
    use_fake_step
    record build pass
    # The program ended before the audit (or forged its records).
    FAKE_OUTPUT=$(
        record_line audit step=04-fake n=1 block=256 kernels=1
        record_line summary step=04-fake result=correct
    )
    run grade_launch_audit 256 1 2
    assert_failure
    assert_output --partial "1 plans audited for 2 sizes"
}

@test "the launch audit test passes when every size was audited without a finding" {
    use_fake_step
    record build pass
    FAKE_OUTPUT=$(
        record_line audit step=04-fake n=1 block=256 kernels=1
        record_line audit step=04-fake n=2 block=256 kernels=1
        record_line summary step=04-fake result=correct
    )
    run grade_launch_audit 256 1 2
    assert_success
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=pass
}

@test "a finding the program prints is no finding: the audit comes from the program's records file" {
    use_fake_step
    record build pass
    # A finding and a debugging line printed onto stdout
    # (tests/fixtures/grading/runs/prints-finding.out), a clean audit in the records.
    program_prints prints-finding.out
    FAKE_OUTPUT=$(
        record_line audit step=04-fake n=1 block=128 kernels=1
        record_line summary step=04-fake result=correct
    )
    run grade_launch_audit 128 1
    assert_success
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=pass
}
