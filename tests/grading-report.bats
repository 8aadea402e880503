#!/usr/bin/env bats
# grading/report: the summary table, the points, and the result files, from
# a result folder as grading/grade leaves it, made by report_of from
# tests/fixtures/grading/report/NAME: its verdicts (a file per test under the
# step's number), its bats stream, and a manifest with the steps' points. No GPU.

load grading-helpers

@test "the report: points per step, correctness before speed, and the same totals in every result file" {
    # 04 passes everything; 05 fails a correctness test, so its speed is not timed.
    report_of points
    MANIFEST=$results/steps.conf run "$WORKBOOK_DIR/grading/report" "$results" \
        --gradescope "$results/gs.json" --classroom "$results/cr.json"
    assert_success
    assert_line --regexp '^04-reduction-interleaved +pass +pass +1\.61x / 1\.06x +- +- +pass +8/8$'
    assert_line --regexp '^05-reduction-sequential +pass +fail +not timed +- +- +fail +3/8$'
    assert_line "total: 11 of 16 points on Fake GPU"
    # The result files agree with the summary, and are JSON.
    grep -q '"score": 11,' "$results/gs.json"
    grep -q '"max_score": 16,' "$results/gs.json"
    grep -q '"status": "fail",' "$results/cr.json"
    grep -q '"max_score": 16,' "$results/cr.json"
    assert_equal "$(grep -o '"score": [0-9]*' "$results/cr.json" | awk '{ s += $2 } END { print s }')" 11
    if command -v python3 >/dev/null; then
        python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' "$results/gs.json" "$results/cr.json"
        # The failed test's output, whose last line ends in a backslash, quoted whole.
        python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["tests"][6]; assert t["output"].startswith("failed: wrong results"), t; assert "got=\"99\"\\" in t["output"], t' "$results/gs.json"
    fi
}

@test "the report: lesson and sanitizer columns, their points, and a failed one fails the step" {
    report_of lesson-sanitizer
    MANIFEST=$results/steps.conf run "$WORKBOOK_DIR/grading/report" "$results"
    assert_success
    assert_line --regexp '^step +build +correct +speedup: measured / required +lesson +sanitizer +result +points$'
    assert_line --regexp '^04-reduction-interleaved +pass +pass +1\.61x / 1\.06x +fail +pass +fail +8/10$'
    assert_equal "$(cut -f2 "$results/tests.tsv" | tr '\n' ' ')" "build correct speed lesson sanitize "
}

@test "the report reads a verdict's fields by name, in any order, beside fields it does not know" {
    report_of points
    record_line verdict thresholds=other.conf pct=22.4 note=x_start=9 x_min=1.06 result=pass x_start=1.61 test=speed \
        >"$results/04/speed"
    MANIFEST=$results/steps.conf run "$WORKBOOK_DIR/grading/report" "$results"
    assert_success
    assert_line --regexp '^04-reduction-interleaved +pass +pass +1\.61x / 1\.06x +- +- +pass +8/8$'
    assert_line --regexp '^speed thresholds: other\.conf *$'
}

@test "the report: a failed launch audit leaves the step no points at all" {
    report_of audit-failed
    MANIFEST=$results/steps.conf run "$WORKBOOK_DIR/grading/report" "$results" --gradescope "$results/gs.json"
    assert_success
    assert_line --regexp '^08-cascaded +pass +pass +1\.80x / 1\.16x +- +- +fail +0/8$'
    assert_output --partial "no points for step(s) 08"
    assert_equal "$(cut -f4 "$results/tests.tsv" | sort -u)" 0
    grep -q '"score": 0,' "$results/gs.json"
}

@test "the report: a failed integrity test leaves the step no points at all" {
    report_of integrity-failed
    MANIFEST=$results/steps.conf run "$WORKBOOK_DIR/grading/report" "$results" --gradescope "$results/gs.json"
    assert_success
    assert_line --regexp '^08-cascaded +pass +pass +1\.80x / 1\.16x +- +- +fail +0/8$'
    assert_output --partial "no points for step(s) 08"
    assert_equal "$(cut -f4 "$results/tests.tsv" | sort -u)" 0
    grep -q '"score": 0,' "$results/gs.json"
}

@test "the report: a launch audit that did not run voids nothing, though the step fails" {
    # A kernel not yet correct is not audited; the step's result is still a
    # failure, as its audit test failed.
    report_of audit-failed
    record_line verdict test=audit result=fail "reason=not run" >"$results/08/audit"  # in place of a finding
    MANIFEST=$results/steps.conf run "$WORKBOOK_DIR/grading/report" "$results"
    assert_success
    assert_line --regexp '^08-cascaded +pass +pass +1\.80x / 1\.16x +- +- +fail +7/8$'
    refute_output --partial "no points for step(s)"
}

@test "the report says no GPU only where the grader's test marked it, never for a message a learner's code wrote" {
    # 05's failed correctness test printed the words the grader uses for no GPU.
    report_of points
    sed -i 's/^#   n=65 block=64/#   no GPU, and REQUIRE_GPU=1: n=65 block=64/' "$results/bats-stream"
    MANIFEST=$results/steps.conf run "$WORKBOOK_DIR/grading/report" "$results"
    assert_success
    assert_line --regexp '^05-reduction-sequential +pass +fail +not timed +- +- +fail +3/8$'
    refute_output --partial "no GPU"
    assert [ ! -e "$results/no-gpu" ]
    # The mark a test leaves where the program found no GPU (triage_exit).
    : >"$results/05/no-gpu"
    MANIFEST=$results/steps.conf run "$WORKBOOK_DIR/grading/report" "$results"
    assert_line --regexp '^05-reduction-sequential +pass +no GPU '
    assert_equal "$(cat "$results/no-gpu")" 05
}
