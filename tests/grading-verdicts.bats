#!/usr/bin/env bats
# A grading test's verdict (record, grading/lib.bash): the file it leaves in
# $GRADE_RESULTS/<step number>/<test>, one record of the kind verdict with
# key=value fields, tab-separated, as the programs' records are; grading/report,
# lib.bash and tests/mutants/run read its fields by name (verdict_field,
# grading/common.bash). No GPU.

load grading-helpers

@test "a verdict is one record: the kind verdict, then test=, result= and the fields given, tab-separated" {
    use_fake_step
    record speed pass x_start=1.6100 x_min=1.50 pct=22.40 pct_min=20 thresholds=thresholds.conf
    assert_equal "$(cat "$GRADE_RESULTS/04/speed")" \
        $'verdict\ttest=speed\tresult=pass\tx_start=1.6100\tx_min=1.50\tpct=22.40\tpct_min=20\tthresholds=thresholds.conf'
}

@test "a tab or a line break in a verdict's value becomes a space: the verdict stays one line of fields" {
    use_fake_step
    record lesson skip reason=$'ncu said:\tno\nand\r\nno'
    assert_equal "$(wc -l <"$GRADE_RESULTS/04/lesson")" 1
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=skip "reason=ncu said: no and  no"
}

@test "a verdict leaves out a field with no value" {
    use_fake_step
    # A step without a floor on the share of the ceiling (no pct_ceiling).
    record speed pass x_start=1.10 x_min=1.06 pct=22.40 pct_min= thresholds=steps.conf
    assert_verdict "$GRADE_RESULTS/04/speed" test=speed result=pass pct=22.40 pct_min=
}

@test "record refuses a field that is not NAME=VALUE, as a verdict written as words would be" {
    use_fake_step
    run record speed fail "not timed"
    assert_failure 2
    assert_output --partial "'not timed' is not NAME=VALUE"
    assert [ ! -e "$GRADE_RESULTS/04/speed" ]
}

@test "the grader reads a verdict's fields by name, in any order, beside fields it does not know" {
    use_fake_step
    mkdir -p "$GRADE_RESULTS/04"
    record_line verdict result=fail note=x_min=9 x_min=1.50 test=speed x_start=1.0040 >"$GRADE_RESULTS/04/speed"
    assert_equal "$(verdict_field "$GRADE_RESULTS/04/speed" result)" fail
    assert_equal "$(verdict_field "$GRADE_RESULTS/04/speed" x_min)" 1.50
    assert_equal "$(verdict_field "$GRADE_RESULTS/04/speed" x_start)" 1.0040
    assert_equal "$(verdict_field "$GRADE_RESULTS/04/speed" reason)" ""
}
