#!/usr/bin/env bats
# The correctness tests (grade_check, grade_check_timed) on the fake step:
# their verdicts from the program's records and exit status, and when the
# program is not run at all, or stopped. No GPU.

load grading-helpers

# The fake step's program only notes, in $BATS_TEST_TMPDIR/ran, that it ran.
program_that_notes_it_ran() {
    fake_program <<SCRIPT
#!/usr/bin/env bash
touch "$BATS_TEST_TMPDIR/ran"
exit 1
SCRIPT
}

# The fake step's program never ends.
program_that_hangs() {
    fake_program <<'SCRIPT'
#!/usr/bin/env bash
sleep 60
SCRIPT
}

@test "a correctness test fails with the mismatches, each with its hint, and the program's messages" {
    use_fake_step
    # tests/fixtures/grading/runs/check-mismatch.out: one mismatch, and a message.
    FAKE_STATUS=1
    program_says check-mismatch.out
    run grade_check 32 1 33
    assert_failure
    assert_output --partial "n=33 block=32 id=mine input=guarded expected=10 got=9"
    assert_output --partial "    hint: short by 1"
    assert_output --partial "prog: sum_mine has no kernel for block 64 yet"
    assert_verdict "$GRADE_RESULTS/04/check-32" test=check-32 result=fail
}

@test "a correctness test passes on a clean run" {
    use_fake_step
    FAKE_OUTPUT=$(record_line summary step=04-fake result=correct)
    run grade_check 32 1 33
    assert_success
    assert_verdict "$GRADE_RESULTS/04/check-32" test=check-32 result=pass
}

@test "a correctness run that ends in a CUDA error fails, is recorded as failed, and stops the speed test" {
    use_fake_step
    FAKE_STATUS=3
    program_says cuda-error.out
    run grade_check 16x16 1 17
    assert_failure
    assert_output --partial "CUDA error (exit 3)"
    assert_verdict "$GRADE_RESULTS/04/check-16x16" test=check-16x16 result=fail
    FAKE_STATUS=0
    FAKE_OUTPUT=$(timed_output 9.9 99)
    run grade_speed
    assert_failure
    assert_output --partial "not timed"
}

@test "a wrong result in the timed run fails the correctness test 'correct when timed', and then speed is not timed" {
    use_fake_step
    record check-32 pass
    # tests/fixtures/grading/runs/timed-mismatch.out: a timed run whose
    # summary is a mismatch, and the program's word on it.
    FAKE_STATUS=1
    program_says timed-mismatch.out
    run grade_check_timed
    assert_failure
    assert_output --partial "wrong results in the timed run"
    assert_output --partial "gave a wrong sum in 1 of 102 runs of the timing"
    assert_verdict "$GRADE_RESULTS/04/check-timed" test=check-timed result=fail
    run grade_speed
    assert_failure
    assert_output --partial "not timed"
}

@test "a program without a GPU makes its test skip" {
    use_fake_step
    FAKE_STATUS=77
    FAKE_OUTPUT="prog: skipped: no usable CUDA device (none here)\n"
    run grade_check 32 1
    assert_success  # a skipped test returns success to `run`
    assert_verdict "$GRADE_RESULTS/04/check-32" test=check-32 result=skip
}

@test "a program without a GPU fails its test with REQUIRE_GPU=1" {
    use_fake_step
    FAKE_STATUS=77
    FAKE_OUTPUT="prog: skipped: no usable CUDA device (none here)\n"
    REQUIRE_GPU=1
    run grade_check 32 1
    assert_failure
    assert_output --partial "no GPU, and REQUIRE_GPU=1"
}

@test "a file that failed its integrity test is not run at all" {
    use_fake_step
    program_that_notes_it_ran
    record integrity fail
    run grade_check 32 1
    assert_failure
    assert_output --partial "not run: your file's integrity test failed"
    run grade_speed
    assert_failure
    assert [ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "a file whose integrity could not be checked is run" {
    use_fake_step
    program_that_notes_it_ran
    # Not checked (no tool, say): its verdict is no finding, and the runs go on.
    record integrity fail reason="not checked"
    run grade_check 32 1
    assert [ -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "a hung program is stopped by the timeout and its test fails" {
    use_fake_step
    program_that_hangs
    GRADE_TIMEOUT=1
    SECONDS=0
    run grade_check 32 1
    assert_failure
    assert_output --partial "timed out after 1s"
    [ "$SECONDS" -lt 20 ]
    assert_verdict "$GRADE_RESULTS/04/hung" test=hung result=fail "reason=an earlier run of 04-fake was stopped after 1s"
}

@test "a timed run takes the GPU's lock itself, with a time limit and a deadline for its wait; past the deadline it is not graded here" {
    use_fake_step
    FAKE_LOG=$BATS_TEST_TMPDIR/args FAKE_OUTPUT="$(timed_output 2.0 50)" run grade_check_timed
    assert_success
    run grep -cE -- "--gpu-lock $(measure_lock) --time-limit $GRADE_TIMEOUT --gpu-deadline [0-9]+ " "$BATS_TEST_TMPDIR/args"
    assert_output 1
    local deadline
    deadline=$(sed -nE 's/.* --gpu-deadline ([0-9]+) .*/\1/p' "$BATS_TEST_TMPDIR/args")
    [ "$((deadline - EPOCHSECONDS))" -le "$GRADE_GPU_WAIT" ] && [ "$((deadline - EPOCHSECONDS))" -ge "$((GRADE_GPU_WAIT - 30))" ] ||
        fail "deadline $deadline is not GRADE_GPU_WAIT ($GRADE_GPU_WAIT s) from now ($EPOCHSECONDS)"
    # Past its deadline, the program ends as without a GPU: not graded here.
    FAKE_STATUS=77 FAKE_OUTPUT="prog: skipped: the GPU was not free in time (--gpu-deadline): not graded here\n"
    run grade_check_timed
    assert_success  # a skipped test returns success to `run`
    assert_verdict "$GRADE_RESULTS/04/check-timed" test=check-timed result=skip
    assert [ -e "$GRADE_RESULTS/04/no-gpu" ]
    assert [ ! -e "$GRADE_RESULTS/04/hung" ]
}

@test "once a run of a step was stopped by the timeout, the step's other tests fail without waiting for it again" {
    use_fake_step
    program_that_hangs
    GRADE_TIMEOUT=1
    run grade_check 32 1
    assert_failure
    assert_output --partial "timed out after 1s"
    SECONDS=0
    run grade_check 64 1
    assert_failure
    assert_output --partial "not run: an earlier run of 04-fake was stopped after 1s"
    run grade_speed
    assert_failure
    [ "$SECONDS" -lt 5 ]
}

@test "with REQUIRE_GPU=1 and no GPU, the tests after the checks say there was no GPU, not that the kernel is wrong" {
    use_fake_step
    export FAKE_STATUS=77 FAKE_OUTPUT='prog: skipped: no usable CUDA device\n'
    REQUIRE_GPU=1 run grade_check 32
    assert_failure
    REQUIRE_GPU=1 run grade_speed
    assert_failure
    assert_output --partial "not timed: no GPU, so the correctness tests did not run"
    refute_output --partial "not correct yet"
    REQUIRE_GPU=1 run grade_sanitize
    assert_failure
    assert_output --partial "not sanitized: no GPU, so the correctness tests did not run"
}

# The fake step's program checks what it is asked: a check record for each
# size and block of -n and -b, wrong at the BLOCK:SIZE pairs of $FAKE_WRONG
# (of $FAKE_WRONG_BESIDE: only in a run of several blocks), a finding of
# the audit where $FAKE_FINDING says one, none of the BLOCK:SIZE pairs of
# $FAKE_DROP in a run of several blocks, and exit $FAKE_CRASH where set; each run's arguments in $FAKE_LOG. Before
# use_fake_step: the step has blocks 32 and 64.
program_that_checks() {
    fake_program <<'SCRIPT'
#!/usr/bin/env bash
echo "$*" >>"$FAKE_LOG"
records=/dev/stdout sizes="" blocks="" wrong=0
while [ $# -gt 0 ]; do
    case $1 in
    --records) records=$2; shift 2 ;;
    --write-plans) : >"$2"; exit 0 ;;
    -n) sizes=$2; shift 2 ;;
    -b) blocks=$2; shift 2 ;;
    *) shift ;;
    esac
done
{
    printf 'device\tstep=04-fake\tname=Fake GPU\n'
    for n in ${sizes//,/ }; do
        for b in ${blocks//,/ }; do
            result=ok
            [[ " ${FAKE_DROP:-} " == *" $b:$n "* && $blocks == *,* ]] && continue
            [[ " ${FAKE_WRONG:-} " == *" $b:$n "* ]] && { result=mismatch; wrong=1; }
            [[ $blocks == *,* && " ${FAKE_WRONG_BESIDE:-} " == *" $b:$n "* ]] && { result=mismatch; wrong=1; }
            shown=$b  # a matrix program records a square block given as N as NxN
            [ -z "${FAKE_SQUARE:-}" ] || [[ $b == *x* ]] || shown=${b}x$b
            printf 'check\tstep=04-fake\tn=%s\tblock=%s\tid=mine\trole=yours\tinput=exact\tresult=%s\n' "$n" "$shown" "$result"
        done
    done
    [ -z "${FAKE_FINDING:-}" ] || { printf 'finding\tstep=04-fake\tn=1\tblock=32\tmessage=%s\n' "$FAKE_FINDING"; wrong=1; }
    printf 'summary\tstep=04-fake\tresult=%s\n' "$([ $wrong = 0 ] && echo correct || echo mismatch)"
} >"$records"
[ -z "${FAKE_CRASH:-}" ] || exit "$FAKE_CRASH"
exit $wrong
SCRIPT
    sed -i 's/ blocks=32$/ blocks=32,64/' "$FAKE/steps.conf"
    export FAKE_LOG=$BATS_TEST_TMPDIR/calls
}

# checks_of_runs: how many runs of the program checked, and at which blocks.
checks_of_runs() { grep -- '--check' "$FAKE_LOG" | grep -o -- '-b [^ ]*' | paste -sd' ' -; }

@test "the correctness tests check every block in one run, each test judged on its own block" {
    program_that_checks
    use_fake_step
    run grade_check 32
    assert_success
    run grade_check 64
    assert_success
    assert_equal "$(checks_of_runs)" "-b 32,64"
    assert_verdict "$GRADE_RESULTS/04/check-32" test=check-32 result=pass
    assert_verdict "$GRADE_RESULTS/04/check-64" test=check-64 result=pass
    # Every size that any block checks, at every block.
    local sizes
    sizes=$( { check_sizes 32; check_sizes 64; } | sort -nu | paste -sd, -)
    grep -q -- "-n $sizes" "$FAKE_LOG" || fail "not every size: $(cat "$FAKE_LOG")"
}

# A matrix step's blocks= may name a square block by its side (03: 8,16,32),
# which the program records as NxN: the same block, judged from the one run.
@test "a square block named by its side is judged from the run of every block, where the program records it NxN" {
    program_that_checks
    use_fake_step
    export FAKE_SQUARE=1
    run grade_check 32
    assert_success
    run grade_check 64
    assert_success
    assert_equal "$(checks_of_runs)" "-b 32,64"
}

@test "a block wrong in the run of every block is checked again alone, and judged on that run; the others pass" {
    program_that_checks
    use_fake_step
    export FAKE_WRONG="64:33"
    run grade_check 32
    assert_success
    run grade_check 64
    assert_failure
    assert_output --partial "wrong results with block 64"
    assert_output --partial "n=33 block=64"
    assert_equal "$(checks_of_runs)" "-b 32,64 -b 64"
    assert_verdict "$GRADE_RESULTS/04/check-64" test=check-64 result=fail
    # Wrong only beside the other blocks, right alone: judged alone, as before.
    rm -rf "$GRADE_RESULTS" "$FAKE_LOG"
    unset FAKE_WRONG
    export FAKE_WRONG_BESIDE="64:33"
    run grade_check 64
    assert_success
    assert_equal "$(checks_of_runs)" "-b 32,64 -b 64"
}

@test "a run of every block that crashes, or holds a finding of the audit, leaves each block to a run of its own" {
    program_that_checks
    use_fake_step
    export FAKE_CRASH=3
    run grade_check 32
    assert_failure
    assert_output --partial "CUDA error (exit 3)"
    unset FAKE_CRASH
    run grade_check 64
    assert_success
    assert_equal "$(checks_of_runs)" "-b 32,64 -b 32 -b 64"
    # A finding of the launch audit, all checks right: alone too, and judged there.
    rm -rf "$GRADE_RESULTS" "$FAKE_LOG"
    export FAKE_FINDING="the sum is copied to the host"
    run grade_check 64
    assert_failure
    assert_output --partial "right results, but the launch audit found"
    assert_equal "$(checks_of_runs)" "-b 32,64 -b 64"
    # A size of the block's that the run of all never checked: alone too.
    rm -rf "$GRADE_RESULTS" "$FAKE_LOG"
    unset FAKE_FINDING
    export FAKE_DROP="64:33"
    run grade_check 64
    assert_success
    assert_equal "$(checks_of_runs)" "-b 32,64 -b 64"
}

# A finding names a symbol of the learner's file and quotes its line: the
# learner needs it whole (it once read "[1 line(s) about other files ...
# left out]", and the make it pointed to showed nothing).
@test "the integrity test shows its findings about the learner's file in full" {
    use_fake_step
    local fake=$BATS_TEST_TMPDIR/grading
    mkdir -p "$fake"
    printf '#!/usr/bin/env bash\nwhile [ "$1" != -- ]; do shift; done; shift; exec "$@"\n' >"$fake/confine"
    printf '#!/usr/bin/env bash\necho "printf: prints from the host (line 86: printf(\\"n=%%d\\", n);)"\necho "prog.cu: 1 finding(s): the file you hand in may define kernels and launch them, nothing else"\nexit 1\n' >"$fake/integrity"
    chmod +x "$fake/confine" "$fake/integrity"
    : >"$FAKE/04-fake/prog.cu"
    GRADING_DIR=$fake
    run grade_integrity
    assert_failure
    assert_output --partial 'printf: prints from the host (line 86: printf("n=%d", n);)'
    refute_output --partial "left out"
}

# A check that the file keeps from ending finds as one that ended: the time
# limit (124) or its kill (137) is a finding, which voids the step
# (tests/mutants/06-integrity-hung-by-ptmx-import.patch); the check's own
# failure (a tool missing: 2) is not.
@test "an integrity check that the time limit ended is a finding; one that failed otherwise is not" {
    use_fake_step
    local fake=$BATS_TEST_TMPDIR/grading status
    mkdir -p "$fake"
    printf '#!/usr/bin/env bash\nwhile [ "$1" != -- ]; do shift; done; shift; exec "$@"\n' >"$fake/confine"
    printf '#!/usr/bin/env bash\necho "printf: prints from the host (line 86)"\nexit $FAKE_INTEGRITY_STATUS\n' >"$fake/integrity"
    chmod +x "$fake/confine" "$fake/integrity"
    : >"$FAKE/04-fake/prog.cu"
    GRADING_DIR=$fake
    for status in 124 137; do
        FAKE_INTEGRITY_STATUS=$status run grade_integrity
        assert_failure
        assert_output --partial "did not finish within"
        assert_verdict "$GRADE_RESULTS/04/integrity" test=integrity result=fail reason=
    done
    FAKE_INTEGRITY_STATUS=2 run grade_integrity
    assert_failure
    assert_output --partial "not checked (exit 2)"
    assert_verdict "$GRADE_RESULTS/04/integrity" test=integrity result=fail reason="not checked"
}

# The timed run times what the speed test reads: the starting kernel and the
# learner's (the ceiling comes with them), not the rest of make bench's
# table; the lesson profiles a round of that same command, and make
# calibrate times the same (graded_timed).
@test "the timed run times the starting kernel and the learner's, as the lesson profiles and calibrate times it" {
    use_fake_step
    export FAKE_LOG=$BATS_TEST_TMPDIR/calls
    FAKE_OUTPUT=$(timed_output 9.9 99)
    run grade_check_timed
    assert_success
    run grep -c -- "$(step_setting timed) --only start,yours --watch [0-9]" "$FAKE_LOG"
    assert_output 1
    assert_equal "$(timed_run)" "$(step_setting timed) --only start,yours --watch $(watch_round)"
    # (calibrate's: tests/grading-calibrate.bats)
}
