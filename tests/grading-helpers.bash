# grading-helpers.bash: what the tests of the grader (tests/grading-*.bats)
# share, loaded by each of them (`load grading-helpers`): their setup(), a
# fake workbook of one step whose "program" is a shell script that writes
# chosen records, fake CUDA tools, and the records and pages those fakes give
# back. The fixtures are files in tests/fixtures/grading/:
#   fake-step/      the fake step: its Makefile, its program, its kernels'
#                   table, its manifest and the thresholds it is graded against
#   runs/           what the fake program says in a test: its records (one
#                   a line, tab-separated) among its messages to people
#   tools/          a fake ncu and compute-sanitizer, and what they say
#   report/         result folders as grading/grade leaves them (their verdicts,
#                   records, one a line), for grading/report
#   calibrate/      a fake reference solution and manifests for grading/calibrate
#   thresholds/     a manifest and a calibrated file that lack some thresholds
#   stub-grading/   grading/lib.bash with every test body replaced by a note

bats_require_minimum_version 1.5.0
load helpers

FIXTURES=$WORKBOOK_DIR/tests/fixtures/grading

setup() {
    # The fake workbook: one step, 04-fake, whose program (fake-step/prog) is
    # steered by FAKE_OUTPUT, FAKE_PRINTS and FAKE_STATUS.
    FAKE=$BATS_TEST_TMPDIR/workbook
    mkdir -p "$FAKE/04-fake/build"
    cp "$FIXTURES/fake-step/Makefile" "$FIXTURES/fake-step/prog" "$FAKE/04-fake/"
    chmod +x "$FAKE/04-fake/prog"
    # The table of its learner's module: one kernel, mine.
    cp "$FIXTURES/fake-step/prog.kernels" "$FAKE/04-fake/build/"
    # Its entry in a manifest of its own.
    cp "$FIXTURES/fake-step/steps.conf" "$FAKE/steps.conf"
    export FAKE_OUTPUT="" FAKE_PRINTS="" FAKE_STATUS=0
    # The fake program is steered by those variables, which the sandbox would
    # clear: what is tested here is the grading (tests/confine.bats tests the sandbox).
    export GRADE_SANDBOX=none
}

# Load the grading library as a step's .bats file would, pointed at the fake.
use_fake_step() {
    STEP=04-fake
    MANIFEST=$FAKE/steps.conf
    source "$WORKBOOK_DIR/grading/lib.bash"
    WORKBOOK_DIR=$FAKE
    GRADE_RESULTS=$BATS_TEST_TMPDIR/results
    GRADE_THRESHOLDS=$BATS_TEST_TMPDIR/thresholds.conf
    cp "$FIXTURES/fake-step/thresholds.conf" "$GRADE_THRESHOLDS"
    # No compute-sanitizer but a test's own (fake_tools): a correctness test
    # starts the sanitizers' runs where it finds one (sanitize_early), and
    # the toolkit's, on a machine with a GPU, would run the fake programs.
    GRADE_SANITIZER=$BATS_TEST_TMPDIR/no-compute-sanitizer
}

# record_line KIND KEY=VALUE...: one record of a program, its fields joined by tabs.
record_line() {
    local IFS=$'\t'
    echo "$*"
}

# program_says NAME: the fake program's output is tests/fixtures/grading/runs/NAME.
program_says() {
    FAKE_OUTPUT=$(<"$FIXTURES/runs/$1")$'\n'
}

# program_prints NAME: ... and what its kernel prints onto stdout, runs/NAME.
program_prints() {
    FAKE_PRINTS=$(<"$FIXTURES/runs/$1")$'\n'
}

# fake_program: the fake step's program is the script on stdin instead.
fake_program() {
    cat >"$FAKE/04-fake/prog"
    chmod +x "$FAKE/04-fake/prog"
}

timed_output() {  # timed_output X_START PCT: the records of a timed run
    record_line device step=04-fake "name=Fake GPU" cc=9.0
    record_line time step=04-fake id=start role=start x_start=1.0000 pct_ceiling=10.00
    record_line time step=04-fake id=mine role=yours "x_start=$1" "pct_ceiling=$2"
    record_line summary step=04-fake result=correct
}

timed_speed() {  # timed_speed X_START PCT: the timed run (a correctness test), then the speed test on it
    FAKE_OUTPUT=$(timed_output "$1" "$2")
    run grade_check_timed
    assert_success
    run grade_speed
}

# Fake tools for the lesson and sanitizer tests (tests/fixtures/grading/tools):
# an ncu that writes the CSV in $FAKE_CSV to its --log-file and says
# $FAKE_NCU_SAYS, and a compute-sanitizer that says $FAKE_SANITIZER_SAYS and
# exits $FAKE_SANITIZER_STATUS. The thresholds file has the lesson's factor.
fake_tools() {
    TOOLS=$BATS_TEST_TMPDIR/tools
    mkdir -p "$TOOLS"
    cp "$FIXTURES/tools/ncu" "$FIXTURES/tools/compute-sanitizer" "$TOOLS/"
    chmod +x "$TOOLS"/*
    PATH=$TOOLS:$PATH
    export FAKE_CSV="" FAKE_NCU_SAYS="" FAKE_NCU_STATUS=0 FAKE_SANITIZER_SAYS="" FAKE_SANITIZER_STATUS=0
    GRADE_NCU=$TOOLS/ncu
    GRADE_SANITIZER=$TOOLS/compute-sanitizer
}

# lesson_csv START YOURS: ncu's raw page of the lesson's run, with the stores
# of the starting kernel's first launch and of mine (4 blocks each), a launch
# of another kernel between them, and a second launch of the starting kernel.
lesson_csv() {
    cat <<CSV
"ID","Kernel Name","launch__grid_size","smsp__stores.sum"
"","","",""
"0","_Z12reduce_startPKiPij","4","$1"
"1","_Z15flush_l2_kernelPK4int4mPi","528","1,000"
"2","_Z4minePKiPij","4","$2"
"3","_Z12reduce_startPKiPij","1","5"
CSV
}

# report_of NAME: in $results, the result folder that
# tests/fixtures/grading/report/NAME describes, for grading/report to read
# (and write its files into): its bats stream, its manifest, and a file per
# line of its verdicts ("04/speed  verdict<TAB>test=speed<TAB>..." is the
# file 04/speed, which holds the record).
report_of() {
    local fixture=$FIXTURES/report/$1 file text
    results=$BATS_TEST_TMPDIR/r
    mkdir -p "$results"
    cp "$fixture"/* "$results/"
    rm "$results/verdicts"
    while read -r file text; do
        [ -n "$file" ] && [ "${file#\#}" = "$file" ] || continue
        mkdir -p "$results/$(dirname "$file")"
        echo "$text" >"$results/$file"
    done <"$fixture/verdicts"
}

# A fake workbook for calibrate: one step whose solution prints the speedups
# listed in $FAKE_X and the ceiling's rates in $FAKE_CEILING, one per run.
fake_calibration_workbook() {
    W=$BATS_TEST_TMPDIR/cal
    mkdir -p "$W/grading" "$W/common/tools" "$W/04-fake" "$W/solutions/04-fake"
    cp "$WORKBOOK_DIR/grading/calibrate" "$WORKBOOK_DIR/grading/common.bash" "$W/grading/"
    cp "$WORKBOOK_DIR"/common/tools/{options.bash,manifest.bash,manifest.awk,records.awk} "$W/common/tools/"
    cp "$FIXTURES/calibrate/steps.conf" "$W/steps.conf"
    cp "$FIXTURES/calibrate/prog_solution" "$W/04-fake/"
    chmod +x "$W/04-fake/prog_solution"
    export FAKE_RUN=$BATS_TEST_TMPDIR/run-count
    rm -f "$FAKE_RUN"
}

# assert_no_gpu_results GRADESCOPE CLASSROOM JUNIT TESTS: the result files of
# a run that had no GPU give no point and pass no test: Gradescope's total and
# every test's score 0, none "passed", its output saying "no GPU: not graded";
# Classroom's status "error" (neither pass nor fail), no test "pass", every
# score 0; JUnit's TESTS testcases each skipped or failed, none passed.
assert_no_gpu_results() {
    command -v python3 >/dev/null || skip "python3 reads the result files here as Gradescope, Classroom and a JUnit reader would"
    python3 - "$@" <<'PY' || fail "a result file of a run without a GPU gives a point or passes a test"
import json, sys, xml.etree.ElementTree as ET
gs_file, cr_file, junit_file, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
gs = json.load(open(gs_file))
assert gs["score"] == 0, gs
assert gs["output"].startswith("no GPU: not graded"), gs["output"]
assert len(gs["tests"]) == n, len(gs["tests"])
for t in gs["tests"]:
    assert t["score"] == 0 and t.get("status") != "passed", t
    assert t.get("status") == "failed" or t["output"].startswith("no GPU: not graded"), t
cr = json.load(open(cr_file))
assert cr["status"] == "error", cr["status"]
assert len(cr["tests"]) == n, len(cr["tests"])
for t in cr["tests"]:
    assert t["score"] == 0 and t["status"] in ("error", "fail"), t
    assert t["status"] == "fail" or t["message"].startswith("no GPU: not graded"), t
cases = ET.parse(junit_file).getroot().iter("testcase")
count = 0
for case in cases:
    count += 1
    assert case.find("skipped") is not None or case.find("failure") is not None, ET.tostring(case)
assert count == n, count
PY
}
