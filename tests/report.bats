#!/usr/bin/env bats
# tests/run: about 20 s, 34 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# What a grading run reports, from the stream bats wrote: the summary table
# and every result file (tests.tsv, which the gradebook of grading/batch
# adds up; Gradescope's and Classroom's JSON; JUnit XML) say at least what
# the tests said, and stay valid whatever bytes a learner's file or a
# compiler put into a test's message. Needs no GPU: fixture streams, and a
# real compile failure.

load helpers

setup() {
    command -v python3 >/dev/null || skip "python3 reads the result files here as Gradescope, Classroom and a JUnit reader would"
    R=$BATS_TEST_TMPDIR/r
    mkdir -p "$R/04"
    printf '04-reduction-interleaved points="build=1 correct=1 speed=3 lesson=2 sanitize=2 integrity=1 audit=1"\n' >"$R/steps.conf"
    export MANIFEST=$R/steps.conf
}

# report_all: the formatter's JUnit and the report's files, from $R/bats-stream,
# as grading/grade makes them.
report_all() {
    GRADE_RESULTS=$R GRADE_JUNIT=$R/junit.xml GRADE_TAP=1 "$WORKBOOK_DIR/grading/formatter" <"$R/bats-stream.in" >/dev/null
    run "$WORKBOOK_DIR/grading/report" "$R" --gradescope "$R/gs.json" --classroom "$R/cr.json"
    assert_success
}

@test "a test that failed is a failure in the table and in every result file, whatever verdict it left" {
    # Step 04 built; then each test failed -- some before leaving a verdict
    # (a program that could not be named, as under make -C), some after an
    # earlier verdict of their own, or beside a stale one.
    printf 'verdict\ttest=build\tresult=pass\n' >"$R/04/build"
    printf 'verdict\ttest=check-32\tresult=pass\n' >"$R/04/check-32"
    printf 'verdict\ttest=speed\tresult=pass\tx_start=1.61\tx_min=1.06\tpct=22.4\tthresholds=thresholds.conf\n' >"$R/04/speed"
    printf 'verdict\ttest=lesson\tresult=skip\treason=not profiled: the correctness tests were skipped (no GPU)\n' >"$R/04/lesson"
    cat >"$R/bats-stream.in" <<'STREAM'
1..8
suite /x/grading/04-reduction-interleaved.bats
begin 1 04 builds
ok 1 04 builds in 5ms
begin 2 04 correct with block 32
not ok 2 04 correct with block 32 in 5ms
# not run: /x/make[1]: Entering directory '/x' is missing (did the build test run?)
begin 3 04 correct when timed
not ok 3 04 correct when timed in 5ms
# not run: /x/make[1]: Entering directory '/x' is missing (did the build test run?)
begin 4 04 faster than its starting kernel
not ok 4 04 faster than its starting kernel in 5ms
# not run
begin 5 04 lesson: whole warps idle
not ok 5 04 lesson: whole warps idle in 5ms
# not run
begin 6 04 clean under compute-sanitizer
not ok 6 04 clean under compute-sanitizer in 5ms
# not run
begin 7 04 integrity of your file
not ok 7 04 integrity of your file in 5ms
# cannot tell which file of 04-reduction-interleaved to check
begin 8 04 launch audit
not ok 8 04 launch audit in 5ms
# not run
STREAM
    report_all
    assert_line --regexp '^04-reduction-interleaved +pass +fail +fail +fail +fail +fail +1/12$'
    assert_line "total: 1 of 12 points"
    # tests.tsv (the gradebook's source): seven failures, no points for them.
    assert_equal "$(awk -F'\t' '$3 == "failed" && $4 == 0' "$R/tests.tsv" | wc -l)" 7
    assert_equal "$(awk -F'\t' '$3 != "failed"' "$R/tests.tsv" | cut -f2,3)" "$(printf 'build\tpassed')"
    python3 - "$R" <<'PY'
import json, sys, xml.etree.ElementTree as ET
r = sys.argv[1]
gs = json.load(open(r + "/gs.json"))
assert gs["score"] == 1, gs
assert [t.get("status") for t in gs["tests"]] == ["passed"] + ["failed"] * 7, gs
cr = json.load(open(r + "/cr.json"))
assert cr["status"] == "fail", cr
assert [t["status"] for t in cr["tests"]] == ["pass"] + ["fail"] * 7, cr
suite = ET.parse(r + "/junit.xml").getroot().find("testsuite")
assert suite.get("failures") == "7", suite.attrib
PY
}

@test "bats' own lines after a failure -- where it came from, the test's line -- reach no result file; the message does, whole" {
    # A stream as bats writes it: its stack lines first, then the test's message,
    # one line of which reads like them (a learner's program may print anything).
    cat >"$R/bats-stream.in" <<'STREAM'
1..2
suite /x/grading/04-reduction-interleaved.bats
begin 1 04 builds
not ok 1 04 builds in 5ms
# (from function `grade_build' in file grading/lib.bash, line 142,
#  in test file /x/grading/04-reduction-interleaved.bats, line 9)
#   `@test "04 builds" { grade_build; }' failed
# 04-reduction-interleaved does not build (make all, exit 2):
# reduction_interleaved.cu(12): error: expected a ";"
begin 2 04 correct with block 32
not ok 2 04 correct with block 32 in 5ms
# (in test file /x/grading/04-reduction-interleaved.bats, line 11)
#   `@test "04 correct with block 32" { grade_check 32; }' failed with status 2
# not run (the build failed)
#  in test file my.cu, line 3 (the learner's own words)
STREAM
    report_all
    run grep -E 'from function|in test file /x|@test ' "$R/bats-stream" "$R/tests.tsv" "$R/gs.json" "$R/cr.json" "$R/junit.xml"
    assert_failure 1
    python3 - "$R" <<'PY'
import json, sys
r = sys.argv[1]
gs = json.load(open(r + "/gs.json"))
assert [t["output"] for t in gs["tests"]] == [
    'failed: 04-reduction-interleaved does not build (make all, exit 2):\nreduction_interleaved.cu(12): error: expected a ";"',
    "failed: not run (the build failed)\n in test file my.cu, line 3 (the learner's own words)"], gs["tests"]
PY
    # bats' own stream, whole, for whoever debugs the grader.
    grep -q "from function \`grade_build'" "$R/bats-stream.raw"
}

# is_valid_everywhere: tests.tsv is UTF-8, the two JSON files load, the
# JUnit XML parses; prints the failed tests' messages from results.json.
is_valid_everywhere() {
    python3 - "$R" <<'PY'
import json, sys, xml.etree.ElementTree as ET
r = sys.argv[1]
open(r + "/tests.tsv", encoding="utf-8", errors="strict").read()
gs = json.load(open(r + "/gs.json", encoding="utf-8"))
json.load(open(r + "/cr.json", encoding="utf-8"))
ET.parse(r + "/junit.xml")
for t in gs["tests"]:
    if t.get("status") == "failed":
        print(t["output"])
PY
}

@test "a message with bytes that are not UTF-8, or control characters, leaves every result file valid" {
    # Latin-1 (0xe9), a lone continuation byte, an overlong /, a surrogate,
    # U+FFFE, control characters (0x01, ESC, DEL), and what XML and JSON escape.
    printf '1..2\nsuite /x/grading/04-reduction-interleaved.bats\nbegin 1 04 builds\n' >"$R/bats-stream.in"
    printf 'not ok 1 04 builds in 5ms\n# caf\351 \200 \300\257 \355\240\200 \357\277\276 a\001b \033[31mred\033[0m del\177 <&>"'"'"' \\ caf\303\251 \342\202\254\n' >>"$R/bats-stream.in"
    printf 'begin 2 04 integrity of your file\nnot ok 2 04 integrity of your file in 5ms\n# \001\n' >>"$R/bats-stream.in"
    report_all
    run is_valid_everywhere
    assert_success
    # What could be kept is kept; what could not is shown as U+FFFD or ^X.
    assert_line --partial $'failed: caf\uFFFD \uFFFD \uFFFD\uFFFD \uFFFD\uFFFD\uFFFD \uFFFD a^Ab ^[[31mred^[[0m del^? <&>"\' \\ caf\u00e9 \u20ac'
    assert_line "failed: ^A"
}

# copy_with_first_step: a copy of the workbook in $W (results in $R), and
# its first step's folder name in step (the caller's local).
copy_with_first_step() {
    R=$BATS_TEST_TMPDIR/g
    W=$BATS_TEST_TMPDIR/w
    mkdir -p "$W"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude='./*/build' --exclude='./.tools' \
        --exclude='./solutions' -cf - .) | tar -xf - -C "$W"
    export MANIFEST=$W/steps.conf
    step=$(basename "${STEP_DIRS[0]}")
}

@test "a step file saved in Latin-1 that does not compile leaves every result file valid" {
    slow_test "a copy graded"
    # A copy of the workbook, a step's file in Latin-1 with an error the compiler quotes.
    local step
    copy_with_first_step
    printf 'const char *greeting = "caf\351 \001";\nint sum_of_nothing() { return undefined_here; }\n' \
        >>"$W/$step/$(step_field "$step" program).cu"
    one_architecture_without_gpu
    run env CUDA_VISIBLE_DEVICES= "$W/grading/grade" --step "${step%%-*}" --results "$R" \
        --junit "$R/junit.xml" --gradescope "$R/gs.json" --classroom "$R/cr.json"
    assert_failure 1
    assert_line --regexp "^$step +fail "
    run is_valid_everywhere
    assert_success
    assert_output --partial $'"caf\uFFFD ^A"'
}

@test "a missing ; is reported once, with the compiler's message; the step's other tests say 'not run (the build failed)' in one line; no bats internals reach a result file" {
    local step
    copy_with_first_step
    printf 'int missing_semicolon() { return 1 }\n' >>"$W/$step/$(step_field "$step" program).cu"
    one_architecture_without_gpu
    run env CUDA_VISIBLE_DEVICES= "$W/grading/grade" --step "${step%%-*}" --results "$R" \
        --junit "$R/junit.xml" --gradescope "$R/gs.json" --classroom "$R/cr.json"
    assert_failure 1
    assert_line --regexp "^$step +fail "
    # What people see, and every result file: not one line of bats' own.
    local internals='from function|in test file|@test |^#   `'
    refute_output --regexp "$internals"
    run grep -E "$internals" "$R/gs.json" "$R/cr.json" "$R/junit.xml"
    assert_failure 1
    # The compiler's message in the build test, once; each other test one line.
    python3 - "$R" <<'PY'
import json, sys
r = sys.argv[1]
gs = json.load(open(r + "/gs.json"))
tests = gs["tests"]
assert len(tests) > 5, tests
assert [t["name"] for t in tests if "expected a \";\"" in t["output"]] == [tests[0]["name"]], tests
assert tests[0]["name"].endswith(" builds") and tests[0]["status"] == "failed", tests[0]
for t in tests[1:]:
    assert t["status"] == "failed" and t["score"] == 0, t
    assert t["output"] in ("failed: not run (the build failed)", "failed: not checked (the build failed)"), t
cr = json.load(open(r + "/cr.json"))
assert cr["status"] == "fail", cr["status"]
assert sum("expected a \";\"" in t["message"] for t in cr["tests"]) == 1, cr
PY
}
