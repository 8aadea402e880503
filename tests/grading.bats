#!/usr/bin/env bats
# The grader's own logic, without a GPU: thresholds, verdicts, the summary,
# skipping without a GPU, and the result files. A fake step whose "program" is
# a shell script that writes chosen records stands in for a real one.

bats_require_minimum_version 1.5.0
load helpers

setup() {
    # A fake workbook: one step whose program writes the records among the
    # lines of $FAKE_OUTPUT to the file --records names, prints its other
    # lines (what the harness says to people), prints $FAKE_PRINTS (what a
    # kernel prints), and exits with $FAKE_STATUS.
    FAKE=$BATS_TEST_TMPDIR/workbook
    mkdir -p "$FAKE/04-fake"
    printf 'print-program:\n\t@echo prog\nall solution:\n\t@true\nprint-sanitize-args:\n\t@echo --check -n 1,33 -b 32\n' >"$FAKE/04-fake/Makefile"
    cat >"$FAKE/04-fake/prog" <<'SCRIPT'
#!/usr/bin/env bash
records=/dev/stdout
while [ $# -gt 0 ]; do
    case $1 in --records) records=$2; shift 2 ;; *) shift ;; esac
done
kinds=$'^(device|check|time|summary|audit|launch|finding)\t'
printf '%b' "$FAKE_OUTPUT" | grep -E "$kinds" >"$records"
printf '%b' "$FAKE_OUTPUT" | grep -v -E "$kinds"
printf '%b' "${FAKE_PRINTS:-}"
exit "${FAKE_STATUS:-0}"
SCRIPT
    chmod +x "$FAKE/04-fake/prog"
    # The table of its learner's module: one kernel, mine.
    mkdir -p "$FAKE/04-fake/build"
    printf 'kernel\tname=_Z4minePKiPij\tparams=8:8,8:8,4:4\n' >"$FAKE/04-fake/build/prog.kernels"
    # Its entry in a manifest of its own.
    cat >"$FAKE/steps.conf" <<'MANIFEST'
04-fake  track=reduction  program=prog  blocks=32
    timed=""  points="build=1 correct=1 speed=3 lesson=2 sanitize=2 integrity=1 audit=1"
    x_start=1.06  pct_ceiling=20  lesson=2.0
    pct_hint="The lesson of this step is reaching the limit of the memory."
    lesson_title="whole warps idle"  lesson_run="-n 1024 -r 1"  lesson_start=reduce_start
    lesson_metric=smsp__stores.sum/launch__grid_size  lesson_what="stores per block"
    lesson_fix="Keep whole warps idle."
    audit="kernel=mine function=sum_mine launches=levels per_thread=1"  audit_run="-b 128 -n 1,1000"
MANIFEST
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
    printf '04 x_start 1.50\n04 pct_ceiling 20\n' >"$GRADE_THRESHOLDS"
}

timed_output() {  # timed_output X_START PCT: the records of a timed run
    printf 'device\tstep=04-fake\tname=Fake GPU\tcc=9.0\\n'
    printf 'time\tstep=04-fake\tid=start\trole=start\tx_start=1.0000\tpct_ceiling=10.00\\n'
    printf 'time\tstep=04-fake\tid=mine\trole=yours\tx_start=%s\tpct_ceiling=%s\\n' "$1" "$2"
    printf 'summary\tstep=04-fake\tresult=correct\\n'
}

timed_speed() {  # timed_speed X_START PCT: the timed run (a correctness test), then the speed test on it
    FAKE_OUTPUT=$(timed_output "$1" "$2")
    run grade_check_timed
    assert_success
    run grade_speed
}

@test "every step folder has an entry in steps.conf whose tests can be written, with a default threshold" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    # The written files are run, not counted (bats --count reads only the
    # @test lines): they load a library that is the real one with each test
    # body replaced by a line saying which body ran, with what.
    local stub=$BATS_TEST_TMPDIR/stub written=$BATS_TEST_TMPDIR/written
    mkdir -p "$stub" "$written"
    cat >"$stub/lib.bash" <<'STUB'
source "$REAL_GRADING_DIR/lib.bash"
ran() { echo "$STEP $*" >>"$BODIES_RAN"; }
grade_build() { ran grade_build "$@"; }
grade_check() { ran grade_check "$@"; }
grade_check_timed() { ran grade_check_timed "$@"; }
grade_speed() { ran grade_speed "$@"; }
grade_lesson() { ran grade_lesson "$@"; }
grade_sanitize() { ran grade_sanitize "$@"; }
grade_integrity() { ran grade_integrity "$@"; }
grade_launch_audit() { ran grade_launch_audit "$@"; }
STUB
    export REAL_GRADING_DIR=$GRADING_DIR BODIES_RAN=$BATS_TEST_TMPDIR/ran
    expected=()
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        (GRADING_DIR=$stub && write_step_tests "$step" "$written") || fail "cannot write the tests of $step from steps.conf"
        expected+=("$step grade_build" "$step grade_integrity")
        for block in $(step_field "$step" blocks | tr , ' '); do
            expected+=("$step grade_check $block")
        done
        expected+=("$step grade_check_timed" "$step grade_speed")
        [ -z "$(step_field "$step" lesson_title)" ] || expected+=("$step grade_lesson")
        expected+=("$step grade_sanitize" "$step grade_launch_audit")
        value=$(threshold "$MANIFEST" "${step%%-*}" x_start)
        [ -n "$value" ] || fail "no x_start threshold for $step"
        at_least "$value" 1.01 || fail "threshold $value for $step would pass an unchanged starting kernel"
    done
    run bats --tap "$written"
    assert_success
    refute_output --partial "not ok"
    assert_equal "$(grep -c '^ok ' <<<"$output")" "${#expected[@]}"
    assert_equal "$(cat "$BODIES_RAN")" "$(printf '%s\n' "${expected[@]}")"
}

@test "at_least compares decimals" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    # Each comparison through run: a failing command that starts with `!` is
    # ignored by errexit, so it could not fail the test.
    run at_least 1.61 1.5
    assert_success
    run at_least 1.5 1.5
    assert_success
    run ! at_least 1.49 1.5
    run ! at_least 0.99 1.03
    run at_least 10.2 9.8
    assert_success
}

@test "a calibrated thresholds file is preferred for its GPU, and GRADE_THRESHOLDS over both" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    assert_equal "$(gpu_slug 'NVIDIA H100 80GB HBM3')" nvidia-h100-80gb-hbm3
    GRADING_DIR=$BATS_TEST_TMPDIR/grading
    mkdir -p "$GRADING_DIR/thresholds"
    touch "$GRADING_DIR/thresholds/nvidia-a100-sxm4-40gb.conf"
    assert_equal "$(thresholds_file 'NVIDIA H100 80GB HBM3')" "$MANIFEST"
    assert_equal "$(thresholds_file 'NVIDIA A100-SXM4-40GB')" "$GRADING_DIR/thresholds/nvidia-a100-sxm4-40gb.conf"
    GRADE_THRESHOLDS=/elsewhere.conf
    assert_equal "$(thresholds_file 'NVIDIA A100-SXM4-40GB')" /elsewhere.conf
}

@test "the speed test passes at the threshold and names the figures" {
    use_fake_step
    timed_speed 1.6100 22.40
    assert_success
    assert_equal "$(cat "$GRADE_RESULTS/04/speed")" "pass 1.6100 1.50 22.40 20 thresholds.conf"
}

@test "the speed test fails below the speedup threshold" {
    use_fake_step
    timed_speed 1.0040 22.40
    assert_failure
    assert_output --partial "1.00x faster than the starting kernel; at least 1.50x is required"
    [[ $(cat "$GRADE_RESULTS/04/speed") == fail* ]]
}

@test "the speed test fails below the share of the ceiling" {
    use_fake_step
    timed_speed 1.9 12.5
    assert_failure
    assert_output --partial "12.5% of the ceiling measured in the same run; at least 20% is required"
    # Below both: the message says both, and what the floor is about (its pct_hint).
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

@test "a wrong result in the timed run fails the correctness test 'correct when timed', and then speed is not timed" {
    use_fake_step
    record check-32 pass
    FAKE_STATUS=1
    FAKE_OUTPUT="$(timed_output 2.5 50 | sed 's/result=correct/result=mismatch/')MISMATCH: 'mine' [yours] gave a wrong sum in 1 of 102 runs of the timing\n"
    run grade_check_timed
    assert_failure
    assert_output --partial "wrong results in the timed run"
    assert_output --partial "gave a wrong sum in 1 of 102 runs of the timing"
    assert_equal "$(cat "$GRADE_RESULTS/04/check-timed")" fail
    run grade_speed
    assert_failure
    assert_output --partial "not timed"
}

@test "records printed by the program change no verdict: the speed and the audit come from the program's records file" {
    use_fake_step
    record build pass
    # A slow kernel that prints a fast timing, and a passing summary, onto stdout.
    FAKE_PRINTS='time\tstep=04-fake\tid=mine\trole=yours\tx_start=9.0000\tpct_ceiling=90.00\nsummary\tstep=04-fake\tresult=correct\n'
    timed_speed 1.0040 22.40
    assert_failure
    assert_output --partial "1.00x faster than the starting kernel"
    # A finding printed onto stdout is no finding either.
    FAKE_PRINTS='finding\tstep=04-fake\tn=1\tmessage=made up\ndebug: n=1, block 0 sums 7\n'
    FAKE_OUTPUT="$(printf 'audit\tstep=04-fake\tn=1\tblock=128\tkernels=1\\nsummary\tstep=04-fake\tresult=correct\\n')"
    run grade_launch_audit 128 1
    assert_success
    assert_equal "$(cat "$GRADE_RESULTS/04/audit")" pass
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
    assert_output --partial "1 plans audited for 2 sizes"
    FAKE_OUTPUT="$(printf "$audit" 1)$(printf "$audit" 2)summary\tstep=04-fake\tresult=correct\n"
    run grade_launch_audit 256 1 2
    assert_success
    assert_equal "$(cat "$GRADE_RESULTS/04/audit")" pass
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

@test "a file that failed its integrity test is not run at all; one that could not be checked is" {
    use_fake_step
    # The program would note that it ran.
    printf '#!/usr/bin/env bash\ntouch "%s"\nexit 1\n' "$BATS_TEST_TMPDIR/ran" >"$FAKE/04-fake/prog"
    record integrity fail
    run grade_check 32 1
    assert_failure
    assert_output --partial "not run: your file's integrity test failed"
    run grade_speed
    assert_failure
    assert [ ! -e "$BATS_TEST_TMPDIR/ran" ]
    # Not checked (no tool, say): its verdict is no finding, and the runs go on.
    record integrity "fail not checked"
    run grade_check 32 1
    assert [ -e "$BATS_TEST_TMPDIR/ran" ]
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

# Fake tools for the lesson and sanitizer tests: an ncu that writes the CSV
# in $FAKE_CSV to its --log-file and says $FAKE_NCU_SAYS, a compute-sanitizer
# that says $FAKE_SANITIZER_SAYS and exits $FAKE_SANITIZER_STATUS, and an nm
# that names the learner's kernel "mine".
fake_tools() {
    TOOLS=$BATS_TEST_TMPDIR/tools
    mkdir -p "$TOOLS"
    cat >"$TOOLS/ncu" <<'SCRIPT'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do [ "$1" = --log-file ] && { printf '%b' "$FAKE_CSV" >"$2"; shift; }; shift; done
printf '%b' "${FAKE_NCU_SAYS:-}"
exit "${FAKE_NCU_STATUS:-0}"
SCRIPT
    cat >"$TOOLS/compute-sanitizer" <<'SCRIPT'
#!/usr/bin/env bash
printf '%b' "${FAKE_SANITIZER_SAYS:-========= ERROR SUMMARY: 0 errors\n}"
exit "${FAKE_SANITIZER_STATUS:-0}"
SCRIPT
    chmod +x "$TOOLS"/*
    PATH=$TOOLS:$PATH
    export FAKE_CSV="" FAKE_NCU_SAYS="" FAKE_NCU_STATUS=0 FAKE_SANITIZER_SAYS="" FAKE_SANITIZER_STATUS=0
    GRADE_NCU=$TOOLS/ncu
    GRADE_SANITIZER=$TOOLS/compute-sanitizer
    printf '04 lesson 2.0\n' >>"$GRADE_THRESHOLDS"
}

lesson_csv() {  # lesson_csv START YOURS: ncu's raw page, per block over 4 blocks
    printf '"ID","Kernel Name","launch__grid_size","smsp__stores.sum"\n"","","",""\n'
    printf '"0","_Z12reduce_startPKiPij","4","%s"\n' "$1"
    printf '"1","_Z15flush_l2_kernelPK4int4mPi","528","1,000"\n'
    printf '"2","_Z4minePKiPij","4","%s"\n' "$2"
    printf '"3","_Z12reduce_startPKiPij","1","5"\n'
}

@test "the lesson test passes when the step's counter falls by its factor, and fails naming the figures" {
    use_fake_step
    fake_tools
    record check-32 pass
    # Over every launch of each: the start's two, (220 + 5) / (4 + 1) blocks.
    FAKE_CSV=$(lesson_csv 220 80)
    run grade_lesson
    assert_success
    assert_equal "$(cat "$GRADE_RESULTS/04/lesson")" "pass 20 45 2.0 thresholds.conf"
    FAKE_CSV=$(lesson_csv 220 220)
    run grade_lesson
    assert_failure
    assert_output --partial "mine: 55 stores per block over its 1 launches; the starting kernel reduce_start: 45 over its 2. The lesson asks for at least 2.0x fewer"
    assert_output --partial "Keep whole warps idle."
    [[ $(cat "$GRADE_RESULTS/04/lesson") == "fail 55 45 2.0 thresholds.conf" ]]
    # A first launch that does nothing hides nothing: every launch of mine counts.
    FAKE_CSV=$(lesson_csv 220 0; printf '"4","_Z4minePKiPij","1","900"\n')
    run grade_lesson
    assert_failure
    assert_output --partial "mine: 180 stores per block over its 2 launches"
}

@test "the lesson test fails when the learner's kernel is not among the launches" {
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_CSV=$(lesson_csv 220 80 | grep -v _Z4mine)
    run grade_lesson
    assert_failure
    assert_output --partial "ncu saw no launch of mine from your file"
}

@test "the lesson test skips, with the fix, where the counters are refused or ncu is missing; it never passes" {
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_CSV=""
    FAKE_NCU_SAYS="==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0.\n"
    FAKE_NCU_STATUS=1
    run grade_lesson
    assert_success  # a skipped test returns success to `run`; its verdict keeps the reason
    run cat "$GRADE_RESULTS/04/lesson"
    assert_output --regexp '^skip ncu may not read .*ERR_NVGPUCTRPERM.* Fix: .*NVreg_RestrictProfilingToAdminUsers=0'
    GRADE_NCU=$BATS_TEST_TMPDIR/no/ncu
    run grade_lesson
    assert_success
    run cat "$GRADE_RESULTS/04/lesson"
    assert_output --regexp '^skip ncu \(Nsight Compute\) not found'
    # Not on PATH either, nor beside nvcc: the grader looks there by itself.
    unset GRADE_NCU
    if ! command -v ncu >/dev/null && [ ! -x "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")/ncu" ]; then
        run grade_lesson
        assert_success
        [[ $(cat "$GRADE_RESULTS/04/lesson") == "skip ncu (Nsight Compute) not found"* ]]
    fi
}

@test "the lesson and sanitizer tests score only a correct kernel, and skip where correctness was skipped" {
    use_fake_step
    fake_tools
    record check-32 fail
    FAKE_CSV=$(lesson_csv 220 80)
    run grade_lesson
    assert_failure
    assert_output --partial "not profiled: 04-fake is not correct yet"
    run grade_sanitize
    assert_failure
    assert_output --partial "not sanitized: 04-fake is not correct yet"
    record check-32 skip
    run grade_lesson
    assert_success
    assert_equal "$(cat "$GRADE_RESULTS/04/lesson")" "skip not profiled: the correctness tests were skipped (no GPU)"
    run grade_sanitize
    assert_success
    assert_equal "$(cat "$GRADE_RESULTS/04/sanitize")" "skip not sanitized: the correctness tests were skipped (no GPU)"
}

@test "the sanitizer test passes when every tool is clean, fails naming the tool, skips without compute-sanitizer" {
    use_fake_step
    fake_tools
    record check-32 pass
    run grade_sanitize
    assert_success
    assert_equal "$(cat "$GRADE_RESULTS/04/sanitize")" "pass memcheck racecheck synccheck initcheck"
    FAKE_SANITIZER_SAYS="========= Warning: Race reported between Write access at reduce+0x90\n========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n"
    FAKE_SANITIZER_STATUS=99
    run grade_sanitize
    assert_failure
    assert_output --partial "compute-sanitizer reports problems in prog"
    assert_output --partial "Race reported between Write access"
    [[ $(cat "$GRADE_RESULTS/04/sanitize") == fail* ]]
    GRADE_SANITIZER=$BATS_TEST_TMPDIR/no/compute-sanitizer
    run grade_sanitize
    assert_success
    [[ $(cat "$GRADE_RESULTS/04/sanitize") == "skip compute-sanitizer not found"* ]]
}

@test "a calibrated file that lacks a step or a metric falls back to the defaults for it" {
    MANIFEST=$BATS_TEST_TMPDIR/steps.conf
    printf '04-a track=reduction x_start=1.06 lesson=2.0\n08-b track=reduction x_start=1.05 pct_ceiling=80\n' >"$MANIFEST"
    source "$WORKBOOK_DIR/grading/lib.bash"
    GRADING_DIR=$BATS_TEST_TMPDIR/grading
    mkdir -p "$GRADING_DIR/thresholds"
    printf '04 x_start 1.31\n08 x_start 1.16\n' >"$GRADING_DIR/thresholds/gpu.conf"
    assert_equal "$(threshold_or_default "$GRADING_DIR/thresholds/gpu.conf" 04 x_start)" "1.31 $GRADING_DIR/thresholds/gpu.conf"
    assert_equal "$(threshold_or_default "$GRADING_DIR/thresholds/gpu.conf" 08 pct_ceiling)" "80 $MANIFEST"
    assert_equal "$(threshold_or_default "$GRADING_DIR/thresholds/gpu.conf" 04 lesson)" "2.0 $MANIFEST"
    assert_equal "$(threshold_or_default "$GRADING_DIR/thresholds/gpu.conf" 05 x_start)" ""
    # The speed test, with a file that lacks step 04 altogether: the fake step's default.
    use_fake_step
    printf '05 x_start 1.20\n' >"$GRADE_THRESHOLDS"
    timed_speed 1.10 22.40
    assert_success
    assert_equal "$(cat "$GRADE_RESULTS/04/speed")" "pass 1.10 1.06 22.40 20 steps.conf"
}

@test "every lesson test names a metric the profile shows, a starting kernel, and a factor" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    keys=(lesson lesson_title lesson_run lesson_start lesson_metric lesson_what lesson_fix)
    checked=0
    for step in $(manifest_steps); do
        # A step with any of the lesson's keys has a lesson test (its title
        # writes one), so it needs all of them.
        set_keys=""
        for key in "${keys[@]}"; do
            [ -z "$(step_field "$step" $key)" ] || set_keys+=" $key"
        done
        [ -n "$set_keys" ] || continue
        for key in "${keys[@]}"; do
            [ -n "$(step_field "$step" $key)" ] || fail "$step: a lesson test (it sets$set_keys) without $key= in steps.conf"
        done
        checked=$((checked + 1))
        metrics=$(step_field "$step" profile)
        for m in $(step_field "$step" lesson_metric | tr '/+-' '   '); do
            [[ ,$metrics, == *,$m,* ]] || fail "$step: its lesson metric $m is not in its profile= (make profile shows those)"
        done
        factor=$(step_field "$step" lesson)
        at_least "$factor" 1.5 || fail "lesson factor $factor for $step would pass a kernel that barely moved"
        grep -q "__global__ void $(step_field "$step" lesson_start)\b" "$WORKBOOK_DIR"/common/*.cu "$WORKBOOK_DIR/$step/main.cu" ||
            fail "$step: its lesson_start names no kernel of the harness"
    done
    [ "$checked" -ge 1 ] || fail "no step of steps.conf has a lesson test to check"
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
    printf '04-reduction-interleaved points="build=1 correct=2 speed=3"\n05-reduction-sequential points="build=1 correct=2 speed=3"\n' >"$results/steps.conf"
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
        python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["tests"][6]; assert t["output"].startswith("failed: wrong results"), t; assert "got=\"99\"\\" in t["output"], t' "$results/gs.json"
    fi
}

@test "the report: lesson and sanitizer columns, their points, and a failed one fails the step" {
    results=$BATS_TEST_TMPDIR/r
    mkdir -p "$results/04"
    echo pass >"$results/04/build"; echo pass >"$results/04/check-32"
    echo "pass 1.61 1.06 22.4 - thresholds.conf" >"$results/04/speed"
    echo "fail 55 55 2.0 thresholds.conf" >"$results/04/lesson"
    echo "pass memcheck racecheck synccheck initcheck" >"$results/04/sanitize"
    cat >"$results/bats-stream" <<'STREAM'
1..5
suite /x/grading/04-reduction-interleaved.bats
begin 1 04 builds
ok 1 04 builds in 5ms
begin 2 04 correct with block 32
ok 2 04 correct with block 32 in 5ms
begin 3 04 faster than its starting kernel
ok 3 04 faster than its starting kernel in 5ms
begin 4 04 lesson: whole warps idle
not ok 4 04 lesson: whole warps idle in 5ms
# reduce_interleaved_strided: 55 warp-level shared-memory stores per block
begin 5 04 clean under compute-sanitizer
ok 5 04 clean under compute-sanitizer in 5ms
STREAM
    printf '04-reduction-interleaved points="build=1 correct=2 speed=3 lesson=2 sanitize=2"\n' >"$results/steps.conf"
    MANIFEST=$results/steps.conf run "$WORKBOOK_DIR/grading/report" "$results"
    assert_success
    assert_line --regexp '^step +build +correct +speedup: measured / required +lesson +sanitizer +result +points$'
    assert_line --regexp '^04-reduction-interleaved +pass +pass +1\.61x / 1\.06x +fail +pass +fail +8/10$'
    assert_equal "$(cut -f2 "$results/tests.tsv" | tr '\n' ' ')" "build correct speed lesson sanitize "
}

@test "grading without a GPU skips every GPU test, says why, and passes; --require-gpu fails" {
    # The reference solution, or in a copy handed out without solutions/, the exercise.
    local solutions=--solutions program=reduction_interleaved_solution
    [ -d "$WORKBOOK_DIR/solutions/04-reduction-interleaved" ] || { solutions=; program=reduction_interleaved; }
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/grade" --step 04 $solutions \
        --results "$BATS_TEST_TMPDIR/g" --junit "$BATS_TEST_TMPDIR/junit.xml" \
        --gradescope "$BATS_TEST_TMPDIR/gs.json" --classroom "$BATS_TEST_TMPDIR/cr.json"
    assert_success
    assert_output --partial "# skip $program: skipped: no usable CUDA device"
    assert_line --regexp '^04-reduction-interleaved +pass +skip +skip +skip +skip +skipped +2/17$'
    # Skipped, not failed, in the result files; Gradescope has no such status, and its output says so.
    assert_equal "$(grep -c '"status": "skipped"' "$BATS_TEST_TMPDIR/cr.json")" 11
    refute grep -q '"status": "fail"' "$BATS_TEST_TMPDIR/cr.json"
    assert_equal "$(grep -c '"output": "skipped, not failed (Gradescope has no status for a skipped test)' "$BATS_TEST_TMPDIR/gs.json")" 11
    refute grep -q '"status": "failed"' "$BATS_TEST_TMPDIR/gs.json"
    if command -v python3 >/dev/null; then
        python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' "$BATS_TEST_TMPDIR/gs.json" "$BATS_TEST_TMPDIR/cr.json"
    fi
    assert_output --partial "# skip not profiled: the correctness tests were skipped (no GPU)"
    assert_output --partial "# skip not sanitized: the correctness tests were skipped (no GPU)"
    # JUnit: complete, one testcase per test, the skips marked.
    run cat "$BATS_TEST_TMPDIR/junit.xml"
    assert_line --partial '<testsuite name="04-reduction-interleaved.bats" tests="13" failures="0" errors="0" skipped="11"'
    assert_line '</testsuites>'
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/grade" --step 04 $solutions --require-gpu \
        --results "$BATS_TEST_TMPDIR/g"
    assert_failure 1
    assert_output --partial "no GPU, and REQUIRE_GPU=1"
    # The table says why, rather than a verdict on a kernel that never ran.
    assert_line --regexp '^04-reduction-interleaved +pass +no GPU +no GPU +no GPU +no GPU +no GPU +2/17$'
    assert_line --partial "no GPU: the GPU tests of step(s) 04 could not run here"
}

@test "grade --results never empties a folder it did not make" {
    mine=$BATS_TEST_TMPDIR/mine
    mkdir -p "$mine"
    echo "my notes" >"$mine/notes.txt"
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/grade" --step 04 --results "$mine"
    assert_failure 2
    assert_output --partial "holds files that grade did not write"
    assert_equal "$(cat "$mine/notes.txt")" "my notes"
    # A folder grade made is its own to replace, run after run.
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/grade" --step 04 --results "$BATS_TEST_TMPDIR/new"
    assert_success
    assert [ -f "$BATS_TEST_TMPDIR/new/.grade-results" ]
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/grade" --step 04 --results "$BATS_TEST_TMPDIR/new"
    assert_success
    run "$WORKBOOK_DIR/grading/grade" --step 04 --results "$BATS_TEST_TMPDIR/new/bats-stream"
    assert_failure 2
}

@test "batch --out never overlaps the repositories it grades, nor replaces a folder it did not make" {
    class=$BATS_TEST_TMPDIR/class
    mkdir -p "$class/alice/.git" "$class/bob"
    echo "her history" >"$class/alice/.git/HEAD"
    for out in "$class" "$class/alice" "$class/alice/reports" "$BATS_TEST_TMPDIR" "$WORKBOOK_DIR"; do
        run "$WORKBOOK_DIR/grading/batch" --step 04 --out "$out" "$class"
        assert_failure 2
        refute_output --partial "== alice"
    done
    run "$WORKBOOK_DIR/grading/batch" --step 04 --out "$class/alice/reports" --list <(echo "$class/alice")
    assert_failure 2
    assert_equal "$(cat "$class/alice/.git/HEAD")" "her history"
    mkdir -p "$BATS_TEST_TMPDIR/notes"
    echo "my notes" >"$BATS_TEST_TMPDIR/notes/n.txt"
    run "$WORKBOOK_DIR/grading/batch" --step 04 --out "$BATS_TEST_TMPDIR/notes" "$class"
    assert_failure 2
    assert_output --partial "holds files that batch did not write"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/notes/n.txt")" "my notes"
    # Names that would lead out of OUT are refused.
    run "$WORKBOOK_DIR/grading/batch" --step 04 --out "$BATS_TEST_TMPDIR/out" --list <(echo ".. $class/alice")
    assert_failure 2
    assert_output --partial "bad student name '..'"
}

@test "batch checks --step before building anything, and accepts 4 for 04" {
    mkdir -p "$BATS_TEST_TMPDIR/class/alice"
    for bad in 9 4x 004 ""; do
        run "$WORKBOOK_DIR/grading/batch" --step "$bad" --out "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/class"
        assert_failure 2
        refute_output --partial "== alice"
    done
    run "$WORKBOOK_DIR/grading/batch" --step
    assert_failure 2
    assert_output --partial "--step needs a value"
}

@test "grade refuses bad options with exit 2" {
    run "$WORKBOOK_DIR/grading/grade" --step 4
    assert_failure 2
    assert_output --partial "bad step '4'"
    run "$WORKBOOK_DIR/grading/grade" --bogus
    assert_failure 2
    run "$WORKBOOK_DIR/grading/grade" --step 99
    assert_failure 2
    assert_output --partial "no step 99 in steps.conf"
}

# A fake workbook for calibrate: one step whose solution prints the speedups listed in $FAKE_X, one per run.
fake_calibration_workbook() {
    W=$BATS_TEST_TMPDIR/cal
    mkdir -p "$W/grading" "$W/common" "$W/04-fake" "$W/solutions/04-fake"
    cp "$WORKBOOK_DIR/grading/calibrate" "$WORKBOOK_DIR/grading/common.bash" "$W/grading/"
    cp "$WORKBOOK_DIR"/common/{options.bash,manifest.bash,manifest.awk,records.awk} "$W/common/"
    printf '04-fake track=reduction program=prog timed="-n 2^26 -b 256" x_start=1.06\n' >"$W/steps.conf"
    cat >"$W/04-fake/prog_solution" <<'SCRIPT'
#!/usr/bin/env bash
[ "$1" = --records ] && exec >"$2"  # the records go to the file calibrate names
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
    FAKE_X="1.30 1.29 1.30 1.30 1.31" FAKE_CEILING="3000 3000 3000 3000 3000" run "$W/grading/calibrate" --runs 5
    assert_success
    source "$WORKBOOK_DIR/grading/common.bash"
    assert_equal "$(threshold "$W/grading/thresholds/fake-gpu-9000.conf" 04 x_start)" 1.15  # 1 + 0.5 x 0.30, not 0.8 x 1.30 = 1.04
}

@test "calibrate writes a floor on the share of the ceiling for a step whose defaults have one" {
    fake_calibration_workbook
    printf '04-fake track=reduction program=prog timed="-n 2^26 -b 256" x_start=1.06 pct_ceiling=20\n' >"$W/steps.conf"
    FAKE_X="1.60 1.62 1.60 1.59 1.61" FAKE_CEILING="3000 3010 2995 3005 3000" run "$W/grading/calibrate" --runs 5
    assert_success
    source "$WORKBOOK_DIR/grading/common.bash"
    assert_equal "$(threshold "$W/grading/thresholds/fake-gpu-9000.conf" 04 pct_ceiling)" 45  # 0.9 x 50
    assert_equal "$(threshold "$W/grading/thresholds/fake-gpu-9000.conf" 04 x_start)" 1.30
}

@test "batch grading: each student in a pristine copy, only their exercise files, one gradebook" {
    students=$BATS_TEST_TMPDIR/class
    # alice: her step 04 handed in (the reference solution, or without solutions/
    # the exercise: both build), plus a Makefile that must never run
    mkdir -p "$students/alice/04-reduction-interleaved"
    local handed_in=$WORKBOOK_DIR/solutions/04-reduction-interleaved/reduction_interleaved.cu
    [ -f "$handed_in" ] || handed_in=$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved.cu
    cp "$handed_in" "$students/alice/04-reduction-interleaved/"
    printf 'all:\n\ttouch %s/pwned\n' "$BATS_TEST_TMPDIR" >"$students/alice/04-reduction-interleaved/Makefile"
    # bob: a step 04 that does not compile, in a folder whose name needs quoting in CSV
    bob='bob "the builder", jr'
    mkdir -p "$students/$bob/04-reduction-interleaved"
    echo 'this is not CUDA' >"$students/$bob/04-reduction-interleaved/reduction_interleaved.cu"
    one_architecture_without_gpu  # the students' copies are built
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/batch" --step 4 --out "$BATS_TEST_TMPDIR/out" "$students"
    # No GPU here: nobody is graded, and the run says so first and fails.
    assert_failure 1
    assert [ ! -e "$BATS_TEST_TMPDIR/pwned" ]
    [[ $output == *"batch: NO GPU: 2 of 2 students could not be graded"*"gradebook: "* ]] || fail "no NO GPU summary before the gradebook: $output"
    run cat "$BATS_TEST_TMPDIR/out/gradebook.csv"
    # A column per step of this copy (01 to 08, fewer in a copy handed out), and
    # no points at all: the build point alone would pass for a grade.
    local dir header=student empty=,,,
    for dir in "${STEP_DIRS[@]}"; do
        dir=$(basename "$dir")
        header+=",${dir%%-*}"
        empty+=,
    done
    assert_line --index 0 "$header,total,max,gpu,status"
    assert_line --index 1 "\"alice\"$empty\"\",\"no GPU\""
    assert_line --index 2 "\"bob \"\"the builder\"\", jr\"$empty\"\",\"no GPU\""
    if command -v python3 >/dev/null; then
        python3 -c 'import csv, sys; rows = list(csv.reader(open(sys.argv[1]))); assert [len(r) for r in rows] == [int(sys.argv[3])] * 3, rows; assert rows[2][0] == sys.argv[2], rows' \
            "$BATS_TEST_TMPDIR/out/gradebook.csv" "$bob" $(( ${#STEP_DIRS[@]} + 5 ))
    fi
    assert [ -f "$BATS_TEST_TMPDIR/out/alice/results.json" ]
    assert [ -f "$BATS_TEST_TMPDIR/out/$bob/junit.xml" ]
    grep -q "does not build" "$BATS_TEST_TMPDIR/out/$bob/grade.log"
    # The same folder again: it is batch's own, so it is replaced.
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/batch" --step 04 --out "$BATS_TEST_TMPDIR/out" --list <(echo "$students/alice")
    assert_failure 1
    assert_line "\"alice\"$empty\"\",\"no GPU\""
}

@test "grading finds CUDA and the bats libraries with an empty environment, as Classroom's runner gives it" {
    # Where bats lives outside the places grade looks without PATH, an empty
    # environment cannot find it: that machine cannot run this test.
    local found="" d
    for d in /usr/local/bin /usr/bin /bin "$WORKBOOK_DIR/.tools/bats/bin"; do [ -x "$d/bats" ] && found=$d; done
    [ -n "$found" ] || skip "bats is on PATH only ($(command -v bats)): grade finds it without PATH in /usr/local/bin, /usr/bin or .tools/bats"
    found=""
    for d in /usr/lib/bats /usr/local/lib/bats "$WORKBOOK_DIR/.tools/bats/lib/bats"; do [ -f "$d/bats-assert/load.bash" ] && found=$d; done
    [ -n "$found" ] || skip "bats-support and bats-assert are only in BATS_LIB_PATH ($BATS_LIB_PATH): grade finds them without it in /usr/lib/bats, /usr/local/lib/bats or .tools/bats/lib/bats"
    # The build's own SM and compiler go along, so that the user's build is
    # used as it is, not rebuilt for other architectures by another nvcc.
    build=("NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}")
    [ -z "${SM+set}" ] || build+=("SM=$SM")
    flags=$WORKBOOK_DIR/04-reduction-interleaved/build/flags
    before=$(stat -c '%Y %s' "$flags" 2>/dev/null; cat "$flags" 2>/dev/null)
    run env -i CUDA_VISIBLE_DEVICES= "${build[@]}" /bin/bash "$WORKBOOK_DIR/grading/grade" --step 04 --results "$BATS_TEST_TMPDIR/g"
    assert_success
    assert_line --regexp '^04-reduction-interleaved +pass +skip +skip +skip +skip +skipped +2/17$'
    [ ! -f "$flags" ] || assert_equal "$(stat -c '%Y %s' "$flags"; cat "$flags")" "$before"
}

@test "the report: a failed integrity test or launch audit leaves the step no points at all" {
    results=$BATS_TEST_TMPDIR/r
    mkdir -p "$results/08"
    echo pass >"$results/08/build"; echo pass >"$results/08/check-32"
    echo "pass 1.80 1.16 96.0 86 thresholds.conf" >"$results/08/speed"
    echo pass >"$results/08/integrity"
    echo fail >"$results/08/audit"
    cat >"$results/bats-stream" <<'STREAM'
1..5
suite /x/grading/08-cascaded.bats
begin 1 08 builds
ok 1 08 builds in 5ms
begin 2 08 correct with block 32
ok 2 08 correct with block 32 in 5ms
begin 3 08 faster than its starting kernel
ok 3 08 faster than its starting kernel in 5ms
begin 4 08 integrity of your file
ok 4 08 integrity of your file in 5ms
begin 5 08 launch audit
not ok 5 08 launch audit in 5ms
# your sum_cascaded launched cub::DeviceReduceKernel, not reduce_cascaded
STREAM
    printf '08-cascaded points="build=1 correct=2 speed=3 integrity=1 audit=1"\n' >"$results/steps.conf"
    MANIFEST=$results/steps.conf run "$WORKBOOK_DIR/grading/report" "$results" --gradescope "$results/gs.json"
    assert_success
    assert_line --regexp '^08-cascaded +pass +pass +1\.80x / 1\.16x +- +- +fail +0/8$'
    assert_output --partial "no points for step(s) 08"
    assert_equal "$(cut -f4 "$results/tests.tsv" | sort -u)" 0
    grep -q '"score": 0,' "$results/gs.json"
    # An audit that did not run (a kernel not yet correct) voids nothing; the
    # step's result is still a failure, as its audit test failed.
    echo "fail not run" >"$results/08/audit"
    MANIFEST=$results/steps.conf run "$WORKBOOK_DIR/grading/report" "$results"
    assert_line --regexp '^08-cascaded +pass +pass +1\.80x / 1\.16x +- +- +fail +7/8$'
}

@test "a missing ncu or compute-sanitizer makes its test skip, also under bats' errexit, outside run" {
    # The graded tests call these functions directly, where a failed
    # assignment would end the test as failed: find_cuda_tool must succeed.
    source "$WORKBOOK_DIR/grading/lib.bash"
    set -e
    tool=$(find_cuda_tool ncu "$BATS_TEST_TMPDIR/no/ncu")
    assert_equal "$tool" ""
    tool=$(find_cuda_tool compute-sanitizer "$BATS_TEST_TMPDIR/no/compute-sanitizer")
    assert_equal "$tool" ""
}
