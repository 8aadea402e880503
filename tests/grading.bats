#!/usr/bin/env bats
# The grader's own logic, without a GPU: thresholds, verdicts, the summary,
# skipping without a GPU, and the result files. A fake step whose "program" is
# a shell script that prints chosen records stands in for a real one.

load helpers

setup() {
    # A fake workbook: one step whose program prints the records in $FAKE_OUTPUT
    # and exits with $FAKE_STATUS.
    FAKE=$BATS_TEST_TMPDIR/workbook
    mkdir -p "$FAKE/04-fake"
    printf 'print-program:\n\t@echo prog\nall solution:\n\t@true\n' >"$FAKE/04-fake/Makefile"
    cat >"$FAKE/04-fake/prog" <<'SCRIPT'
#!/usr/bin/env bash
printf '%b' "$FAKE_OUTPUT"
exit "${FAKE_STATUS:-0}"
SCRIPT
    chmod +x "$FAKE/04-fake/prog"
    export FAKE_OUTPUT="" FAKE_STATUS=0
}

# Load the grading library as a step's .bats file would, pointed at the fake.
use_fake_step() {
    STEP=04-fake
    SPEED_ARGS=""
    source "$WORKBOOK_DIR/grading/lib.bash"
    WORKBOOK_DIR=$FAKE
    GRADE_RESULTS=$BATS_TEST_TMPDIR/results
    GRADE_THRESHOLDS=$BATS_TEST_TMPDIR/thresholds.conf
    printf '04 x_start 1.50\n04 pct_ceiling 20\n' >"$GRADE_THRESHOLDS"
}

timed_output() {  # timed_output X_START PCT: the records of a timed run
    printf 'device\tstep=04-fake\tname=Fake GPU\tcc=9.0\\n'
    printf 'time\tstep=04-fake\tid=start\trole=start\tx_start=1.0000\tpct_ceiling=10.00\\n'
    printf 'time\tstep=04-fake\tid=mine\trole=yours\tx_start=%s\tpct_ceiling=%s\\n' "$1" "$2"
    printf 'summary\tstep=04-fake\tresult=correct\\n'
}

@test "every step has a grading file, and a default threshold in thresholds.conf" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        [ -f "$WORKBOOK_DIR/grading/$step.bats" ] || fail "no grading/$step.bats"
        value=$(threshold "$WORKBOOK_DIR/grading/thresholds.conf" "${step%%-*}" x_start)
        [ -n "$value" ] || fail "no x_start threshold for $step"
        at_least "$value" 1.01 || fail "threshold $value for $step would pass an unchanged starting kernel"
    done
}

@test "at_least compares decimals" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    at_least 1.61 1.5
    at_least 1.5 1.5
    ! at_least 1.49 1.5
    ! at_least 0.99 1.03
    at_least 10.2 9.8
}

@test "a calibrated thresholds file is preferred for its GPU, and GRADE_THRESHOLDS over both" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    assert_equal "$(gpu_slug 'NVIDIA H100 80GB HBM3')" nvidia-h100-80gb-hbm3
    GRADING_DIR=$BATS_TEST_TMPDIR/grading
    mkdir -p "$GRADING_DIR/thresholds"
    touch "$GRADING_DIR/thresholds.conf" "$GRADING_DIR/thresholds/nvidia-a100-sxm4-40gb.conf"
    assert_equal "$(thresholds_file 'NVIDIA H100 80GB HBM3')" "$GRADING_DIR/thresholds.conf"
    assert_equal "$(thresholds_file 'NVIDIA A100-SXM4-40GB')" "$GRADING_DIR/thresholds/nvidia-a100-sxm4-40gb.conf"
    GRADE_THRESHOLDS=/elsewhere.conf
    assert_equal "$(thresholds_file 'NVIDIA A100-SXM4-40GB')" /elsewhere.conf
}

@test "the speed test passes at the threshold and names the figures" {
    use_fake_step
    FAKE_OUTPUT=$(timed_output 1.6100 22.40)
    run grade_speed
    assert_success
    assert_equal "$(cat "$GRADE_RESULTS/04/speed")" "pass 1.6100 1.50 22.40 20 thresholds.conf"
}

@test "the speed test fails below the speedup threshold" {
    use_fake_step
    FAKE_OUTPUT=$(timed_output 1.0040 22.40)
    run grade_speed
    assert_failure
    assert_output --partial "1.00x faster than the starting kernel; at least 1.50x is required"
    [[ $(cat "$GRADE_RESULTS/04/speed") == fail* ]]
}

@test "the speed test fails below the share of the ceiling" {
    use_fake_step
    FAKE_OUTPUT=$(timed_output 1.9 12.5)
    run grade_speed
    assert_failure
    assert_output --partial "12.5% of the ceiling measured in the same run; at least 20% is required"
}

@test "the speed test does not time a step that is not correct" {
    use_fake_step
    record check-256 fail
    FAKE_OUTPUT=$(timed_output 9.9 99)
    run grade_speed
    assert_failure
    assert_output --partial "not timed"
}

@test "a correctness test fails with the mismatches, and passes on a clean run" {
    use_fake_step
    FAKE_STATUS=1
    FAKE_OUTPUT=$(printf 'check\tstep=04-fake\tn=33\tblock=32\tid=mine\trole=yours\tinput=guarded\tresult=mismatch\texpected=10\tgot=9\thint=short by 1\\nprog: sum_mine has no kernel for block 64 yet\\nsummary\tstep=04-fake\tresult=mismatch\\n')
    run grade_check 32 1 33
    assert_failure
    assert_output --partial "n=33 block=32 id=mine input=guarded expected=10 got=9"
    assert_output --partial "    hint: short by 1"
    assert_output --partial "prog: sum_mine has no kernel for block 64 yet"
    assert_equal "$(cat "$GRADE_RESULTS/04/check-32")" fail
    FAKE_STATUS=0
    FAKE_OUTPUT=$(printf 'summary\tstep=04-fake\tresult=correct\\n')
    run grade_check 32 1 33
    assert_success
    assert_equal "$(cat "$GRADE_RESULTS/04/check-32")" pass
}

@test "a correctness run that ends in a CUDA error fails, is recorded as failed, and stops the speed test" {
    use_fake_step
    FAKE_STATUS=3
    FAKE_OUTPUT="prog: CUDA error cudaErrorInvalidValue: invalid argument\n  at prog.cu:26: kernel launch\n"
    run grade_check 16x16 1 17
    assert_failure
    assert_output --partial "CUDA error (exit 3)"
    assert_equal "$(cat "$GRADE_RESULTS/04/check-16x16")" fail
    FAKE_STATUS=0
    FAKE_OUTPUT=$(timed_output 9.9 99)
    run grade_speed
    assert_failure
    assert_output --partial "not timed"
}

@test "the launch audit test fails on findings, in the program's words, and on missing audits; passes on clean ones" {
    use_fake_step
    record build pass
    audit='audit\tstep=04-fake\tn=%s\tblock=256\tkernels=1\\n'  # the line's end stays \n for the fake's %b
    FAKE_STATUS=1
    FAKE_OUTPUT="$(printf "$audit" 1)finding\tstep=04-fake\tn=1\tblock=256\tmessage=your sum_x launched cub::Kernel, not reduce_x: this step is about writing that kernel yourself and launching it\n$(printf "$audit" 2)summary\tstep=04-fake\tresult=audit\n"
    run grade_launch_audit 256 1 2
    assert_failure
    assert_output --partial "your sum_x launched cub::Kernel, not reduce_x"
    assert_equal "$(cat "$GRADE_RESULTS/04/audit")" fail
    # Fewer audits than sizes: the program ended before the audit (or forged its records).
    FAKE_STATUS=0
    FAKE_OUTPUT="$(printf "$audit" 1)summary\tstep=04-fake\tresult=correct\n"
    run grade_launch_audit 256 1 2
    assert_failure
    assert_output --partial "1 launch audits for 2 sizes"
    FAKE_OUTPUT="$(printf "$audit" 1)$(printf "$audit" 2)summary\tstep=04-fake\tresult=correct\n"
    run grade_launch_audit 256 1 2
    assert_success
    assert_equal "$(cat "$GRADE_RESULTS/04/audit")" pass
}

@test "with a seed, a check passes only on a summary that carries it: records forged before main do not" {
    use_fake_step
    record build pass
    GRADE_SEED=12345
    FAKE_OUTPUT='summary\tstep=04-fake\truns=1\twrong=0\tresult=correct\n'
    run grade_check 32 1
    assert_failure
    assert_output --partial "does not carry this run's seed (12345)"
    FAKE_OUTPUT='summary\tstep=04-fake\truns=1\twrong=0\taudit_findings=0\tseed=12345\tresult=correct\n'
    run grade_check 32 1
    assert_success
}

@test "a program without a GPU makes its test skip, or fail with REQUIRE_GPU=1" {
    use_fake_step
    FAKE_STATUS=77
    FAKE_OUTPUT="prog: skipped: no usable CUDA device (none here)\n"
    run grade_check 32 1
    assert_success  # a skipped test returns success to `run`
    assert_equal "$(cat "$GRADE_RESULTS/04/check-32")" skip
    REQUIRE_GPU=1
    run grade_check 32 1
    assert_failure
    assert_output --partial "no GPU, and REQUIRE_GPU=1"
}

@test "a hung program is stopped by the timeout and its test fails" {
    use_fake_step
    printf '#!/usr/bin/env bash\nsleep 60\n' >"$FAKE/04-fake/prog"
    GRADE_TIMEOUT=1
    SECONDS=0
    run grade_check 32 1
    assert_failure
    assert_output --partial "timed out after 1s"
    [ "$SECONDS" -lt 20 ]
    # The step's other tests do not wait for it again.
    SECONDS=0
    run grade_check 64 1
    assert_failure
    assert_output --partial "not run: an earlier run of 04-fake was stopped after 1s"
    run grade_speed
    assert_failure
    [ "$SECONDS" -lt 5 ]
}

@test "the report: points per step, correctness before speed, and the same totals in every result file" {
    results=$BATS_TEST_TMPDIR/r
    mkdir -p "$results/04" "$results/05"
    echo pass >"$results/04/build"; echo pass >"$results/04/check-32"; echo pass >"$results/04/check-64"
    echo "pass 1.61 1.06 22.4 - thresholds.conf" >"$results/04/speed"
    echo pass >"$results/05/build"; echo pass >"$results/05/check-32"; echo fail >"$results/05/check-64"
    echo "fail not timed" >"$results/05/speed"
    echo "Fake GPU" >"$results/gpu"
    cat >"$results/bats-stream" <<'STREAM'
1..8
suite /x/grading/04-reduction-interleaved.bats
begin 1 04 builds
ok 1 04 builds in 5ms
begin 2 04 correct with block 32
ok 2 04 correct with block 32 in 5ms
begin 3 04 correct with block 64
ok 3 04 correct with block 64 in 5ms
begin 4 04 faster than its starting kernel
ok 4 04 faster than its starting kernel in 5ms
suite /x/grading/05-reduction-sequential.bats
begin 5 05 builds
ok 5 05 builds in 5ms
begin 6 05 correct with block 32
ok 6 05 correct with block 32 in 5ms
begin 7 05 correct with block 64
not ok 7 05 correct with block 64 in 5ms
# wrong results with block 64:
#   n=65 block=64 id=sequential input=guarded expected=100 got="99"\ 
begin 8 05 faster than its starting kernel
not ok 8 05 faster than its starting kernel in 5ms
# not timed: 05-reduction-sequential is not correct yet
STREAM
    printf '04 build 1\n04 correct 2\n04 speed 3\n05 build 1\n05 correct 2\n05 speed 3\n' >"$results/points.conf"
    GRADE_POINTS=$results/points.conf run "$WORKBOOK_DIR/grading/report" "$results" \
        --gradescope "$results/gs.json" --classroom "$results/cr.json"
    assert_success
    assert_line --regexp '^04-reduction-interleaved +pass +pass +1\.61x / 1\.06x +pass +8/8$'
    assert_line --regexp '^05-reduction-sequential +pass +fail +not timed +fail +3/8$'
    assert_line "total: 11 of 16 points on Fake GPU"
    # The result files agree with the summary, and are JSON.
    grep -q '"score": 11,' "$results/gs.json"
    grep -q '"max_score": 16,' "$results/gs.json"
    grep -q '"status": "fail",' "$results/cr.json"
    grep -q '"max_score": 16,' "$results/cr.json"
    assert_equal "$(grep -o '"score": [0-9]*' "$results/cr.json" | awk '{ s += $2 } END { print s }')" 11
    if command -v python3 >/dev/null; then
        python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' "$results/gs.json" "$results/cr.json"
        python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["tests"][6]; assert t["output"].startswith("failed: wrong results"), t; assert "got=\"99\"\\" in t["output"], t' "$results/gs.json"
    fi
}

@test "grading without a GPU skips every GPU test, says why, and passes; --require-gpu fails" {
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/grade" --step 04 --solutions \
        --results "$BATS_TEST_TMPDIR/g" --junit "$BATS_TEST_TMPDIR/junit.xml"
    assert_success
    assert_output --partial "# skip reduction_interleaved_solution: skipped: no usable CUDA device"
    assert_line --regexp '^04-reduction-interleaved +pass +skip +skip +skipped +2/12$'
    # JUnit: complete, one testcase per test, the skips marked.
    run cat "$BATS_TEST_TMPDIR/junit.xml"
    assert_line --partial '<testsuite name="04-reduction-interleaved.bats" tests="10" failures="0" errors="0" skipped="8"'
    assert_line '</testsuites>'
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/grade" --step 04 --solutions --require-gpu \
        --results "$BATS_TEST_TMPDIR/g"
    assert_failure 1
    assert_output --partial "no GPU, and REQUIRE_GPU=1"
}

@test "grade refuses bad options with exit 2" {
    run "$WORKBOOK_DIR/grading/grade" --step 4
    assert_failure 2
    assert_output --partial "bad step '4'"
    run "$WORKBOOK_DIR/grading/grade" --bogus
    assert_failure 2
    run "$WORKBOOK_DIR/grading/grade" --step 99
    assert_failure 2
    assert_output --partial "no grading file for step 99"
}

# A fake workbook for calibrate: one step whose solution prints the speedups listed in $FAKE_X, one per run.
fake_calibration_workbook() {
    W=$BATS_TEST_TMPDIR/cal
    mkdir -p "$W/grading" "$W/04-fake"
    cp "$WORKBOOK_DIR/grading/calibrate" "$WORKBOOK_DIR/grading/common.bash" "$W/grading/"
    printf 'SPEED_ARGS="-n 2^26 -b 256"\n' >"$W/grading/04-fake.bats"
    printf 'print-program:\n\t@echo prog\n' >"$W/04-fake/Makefile"
    cat >"$W/04-fake/prog_solution" <<'SCRIPT'
#!/usr/bin/env bash
n=$(cat "$FAKE_RUN" 2>/dev/null || echo 0); echo $((n + 1)) >"$FAKE_RUN"
set -- $FAKE_X; shift "$n"; x=$1
set -- $FAKE_CEILING; shift "$n"; c=$1
printf 'device\tstep=04-fake\tname=Fake GPU 9000\tcc=9.0\truntime=13.0\tdriver=13.0\n'
printf 'time\tstep=04-fake\tid=copy\trole=ceiling\trate=%s\n' "$c"
printf 'time\tstep=04-fake\tid=start\trole=start\tx_start=1.0000\n'
printf 'time\tstep=04-fake\tid=mine\trole=yours\tx_start=%s\tpct_ceiling=50\n' "$x"
SCRIPT
    chmod +x "$W/04-fake/prog_solution"
    export FAKE_RUN=$BATS_TEST_TMPDIR/run-count
    rm -f "$FAKE_RUN"
}

@test "calibrate writes a fraction of the median speedup, with the raw figures, for this GPU" {
    fake_calibration_workbook
    FAKE_X="1.60 1.62 1.61 1.59 1.61" FAKE_CEILING="3000 3010 2995 3005 3000" run "$W/grading/calibrate" --runs 5
    assert_success
    file=$W/grading/thresholds/fake-gpu-9000.conf
    assert [ -f "$file" ]
    source "$WORKBOOK_DIR/grading/common.bash"
    assert_equal "$(threshold "$file" 04 x_start)" 1.29  # 0.80 x 1.61
    run cat "$file"
    assert_output --partial "Fake GPU 9000"
    assert_output --partial "1.60 1.62 1.61 1.59 1.61"
}

@test "calibrate keeps the threshold above the noise, and refuses a noisy or throttling GPU" {
    fake_calibration_workbook
    # a small gain: 0.8 x 1.04 would be below 1; the floor 1 + 2 x spread holds it up
    FAKE_X="1.04 1.04 1.05 1.04 1.04" FAKE_CEILING="3000 3000 3000 3000 3000" run "$W/grading/calibrate" --runs 5
    assert_failure 1
    assert_output --partial "within reach of the noise floor"
    rm -f "$FAKE_RUN"
    FAKE_X="1.60 1.61 1.61 1.60 1.61" FAKE_CEILING="3000 2600 3000 2900 3000" run "$W/grading/calibrate" --runs 5
    assert_failure 1
    assert_output --partial "the ceiling measured in the same runs moved by 13.3%"
    assert [ ! -e "$W/grading/thresholds/fake-gpu-9000.conf" ]
    rm -f "$FAKE_RUN"
    FAKE_X="1.30 1.29 1.29 1.29 1.28" FAKE_CEILING="3000 3000 3000 3000 3000" run "$W/grading/calibrate" --runs 5
    assert_success
    source "$WORKBOOK_DIR/grading/common.bash"
    assert_equal "$(threshold "$W/grading/thresholds/fake-gpu-9000.conf" 04 x_start)" 1.03  # 0.8 x 1.29
}

@test "batch grading: each student in a pristine copy, only their exercise files, one gradebook" {
    students=$BATS_TEST_TMPDIR/class
    # alice: her step 04 handed in (the reference solution), plus a Makefile that must never run
    mkdir -p "$students/alice/04-reduction-interleaved"
    cp "$WORKBOOK_DIR/solutions/04-reduction-interleaved/reduction_interleaved.cu" "$students/alice/04-reduction-interleaved/"
    printf 'all:\n\ttouch %s/pwned\n' "$BATS_TEST_TMPDIR" >"$students/alice/04-reduction-interleaved/Makefile"
    # bob: a step 04 that does not compile
    mkdir -p "$students/bob/04-reduction-interleaved"
    echo 'this is not CUDA' >"$students/bob/04-reduction-interleaved/reduction_interleaved.cu"
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/batch" --step 04 --out "$BATS_TEST_TMPDIR/out" "$students"
    assert_success
    assert [ ! -e "$BATS_TEST_TMPDIR/pwned" ]
    run cat "$BATS_TEST_TMPDIR/out/gradebook.csv"
    assert_line --index 0 'student,01,02,03,04,05,06,07,08,total,max,gpu,status'
    # No GPU here: alice earns the build and integrity points only, bob nothing; both graded.
    assert_line --index 1 'alice,,,,2,,,,,2,12,"","graded"'
    assert_line --index 2 'bob,,,,0,,,,,0,12,"","graded"'
    assert [ -f "$BATS_TEST_TMPDIR/out/alice/results.json" ]
    assert [ -f "$BATS_TEST_TMPDIR/out/bob/junit.xml" ]
    grep -q "does not build" "$BATS_TEST_TMPDIR/out/bob/grade.log"
}

@test "grading finds CUDA and the bats libraries with an empty environment, as Classroom's runner gives it" {
    run env -i CUDA_VISIBLE_DEVICES= /bin/bash "$WORKBOOK_DIR/grading/grade" --step 04 --results "$BATS_TEST_TMPDIR/g"
    assert_success
    assert_line --regexp '^04-reduction-interleaved +pass +skip +skip +skipped +2/12$'
}
