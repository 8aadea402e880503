#!/usr/bin/env bats
# The launch audit test (grade_launch_audit) on the fake step: the program
# audits the launches of the learner's plan at each size, and its records say
# what it found. No GPU.

load grading-helpers

# Every audit here runs its census (at the fake step, a step of levels) with
# the fake compute-sanitizer of fake_tools: by default, a census of no holes.

# The program's records: sizes 1 and 2 audited, no finding, the sums right.
two_sizes_audited() {
    FAKE_OUTPUT=$(
        record_line audit step=04-fake n=1 block=256 kernels=1
        record_line audit step=04-fake n=2 block=256 kernels=1
        record_line summary step=04-fake result=correct
    )
}

@test "the launch audit test fails on a finding, in the program's words" {
    use_fake_step
    fake_tools
    record build pass
    # Two sizes audited, the first with a finding (tests/fixtures/grading/runs/audit-finding.out).
    FAKE_STATUS=1
    program_says audit-finding.out
    run grade_launch_audit 256 1 2
    assert_failure
    assert_output --partial "your sum_x launched cub::Kernel, not reduce_x"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail reason=  # a finding: no reason
    # The program audits the plans before any kernel runs: a run that a
    # kernel then ends (a CUDA error, exit 3) keeps the finding.
    FAKE_STATUS=3
    run grade_launch_audit 256 1 2
    assert_failure
    assert_output --partial "your sum_x launched cub::Kernel, not reduce_x"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail reason=
}

# The blocks of a cluster read one another's shared memory: one block can
# sum its neighbours' shares where no census of the input sees it. Read from
# the module's table, before anything runs (steps.conf audit_forbids).
@test "the launch audit refuses a kernel of a cluster, named, as a finding that voids the step, without running" {
    use_fake_step
    fake_tools
    record build pass
    printf 'op\tname=_Z4minePKiPij\tfamily=cluster\tinstruction=.explicitcluster\n' >>"$FAKE/04-fake/build/prog.kernels"
    two_sizes_audited
    run grade_launch_audit 256 1 2
    assert_failure
    assert_output --partial "the launch audit refuses instructions of your kernels at step 04:"
    assert_output --partial "  .explicitcluster in mine: a cluster: __cluster_dims__"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail reason= finding=instructions families=cluster
}

@test "an instruction of a family the audit allows is left to the audit's runs" {
    use_fake_step
    fake_tools
    record build pass
    printf 'op\tname=_Z4minePKiPij\tfamily=shfl\tinstruction=shfl.sync.down.b32\n' >>"$FAKE/04-fake/build/prog.kernels"
    two_sizes_audited
    run grade_launch_audit 256 1 2
    assert_success
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=pass
}

# A __device__ buffer as large as a share of the input is room to park
# elements for another block to sum, where no census of the input looks;
# a constant table, which no kernel writes, is no such room, nor the text
# an assert keeps (its function's name, in every instance of a template).
@test "the launch audit refuses a module with more __device__ memory than the step allows, naming the largest" {
    use_fake_step
    fake_tools
    record build pass
    printf 'global\tname=ring\tbytes=16777216\tspace=global\nglobal\tname=count\tbytes=4\tspace=global\n' >>"$FAKE/04-fake/build/prog.kernels"
    run grade_launch_audit 256 1 2
    assert_failure
    assert_output --partial "the launch audit refuses 16777220 bytes of __device__ memory in your module, where step 04 allows 1024:"
    assert_output --partial "  ring: 16777216 bytes"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail reason= finding=module_bytes bytes=16777220 most=1024
}

@test "a constant table, an assert's text and a few __device__ flags are within what the audit allows" {
    use_fake_step
    fake_tools
    record build pass
    printf 'global\tname=table\tbytes=65536\tspace=const\nglobal\tname=count\tbytes=4\tspace=global\nglobal\tname=__unnamed_1\tbytes=2000\tspace=global\ttext=yes\n' >>"$FAKE/04-fake/build/prog.kernels"
    two_sizes_audited
    run grade_launch_audit 256 1 2
    assert_success
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=pass
}

@test "the launch audit test fails when fewer plans were audited than sizes" {
    use_fake_step
    fake_tools
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
    fake_tools
    record build pass
    two_sizes_audited
    run grade_launch_audit 256 1 2
    assert_success
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=pass
}

@test "a finding the program prints is no finding: the audit comes from the program's records file" {
    use_fake_step
    fake_tools
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

# The census (grade_census, common/tools/census.awk): who reads the input, at
# a step of levels. FAKE_CENSUS is the program's census file, FAKE_CENSUS_LOG
# initcheck's log; a report of initcheck's is a read of a hole.
initcheck_read() {  # SIZE BLOCK THREAD ADDRESS
    printf '========= Uninitialized __global__ memory read of size %s bytes\n' "$1"
    printf '=========     at mine(const int *, int *, unsigned int)+0x390\n'
    printf '=========     by thread (%s,0,0) in block (%s,0,0)\n' "$3" "$2"
    printf '=========     Address %s\n' "$4"
    printf '=========     Saved host backtrace up to driver entry point at kernel launch time\n=========\n'
}
census_audit() {
    use_fake_step
    fake_tools
    record build pass
    FAKE_OUTPUT=$(
        record_line audit step=04-fake n=1 block=256 kernels=1
        record_line summary step=04-fake result=correct
    )
    # Holes at ints 64, 65 and 300 of an input at 0x7f0000000000.
    export FAKE_CENSUS=$'census\tn=1024\tblock=256\tbase=0x7f0000000000\tholes=3\tper_thread=1\nhole\t64\nhole\t65\nhole\t300\n'
}
# audit_census READ...: the audit, initcheck having reported each READ,
# "SIZE BLOCK THREAD INT" (SIZE bytes from int INT of the input), then
# $CENSUS_LOG_TAIL and its summary.
audit_census() {
    local read size block thread int log=""
    for read in "$@"; do
        read -r size block thread int <<<"$read"
        log+=$(initcheck_read "$size" "$block" "$thread" "$(printf '0x%x' $((0x7f0000000000 + 4 * int)))")$'\n'
    done
    export FAKE_CENSUS_LOG="$log${CENSUS_LOG_TAIL:-}========= ERROR SUMMARY: $# errors"$'\n'
    run grade_launch_audit 256 1
}

@test "the audit passes a census in which every hole was read, each by a thread of its own" {
    census_audit
    # Ints 64 and 65 by two threads of block 0; int 300 by a 16-byte read
    # (ints 300 to 303, one of them a hole) of block 1.
    audit_census "4 0 64 64" "4 0 65 65" "16 1 44 300"
    assert_success
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=pass census="holes=3 read=3 threads=3 over=0 blocks_over=0"
}

@test "a thread that reads more of the input than per_thread fails the audit, named" {
    census_audit
    # Thread 64 of block 0 reads ints 64 and 65, its own and its neighbour's,
    # in the block's own share; thread 65 nothing, thread 44 of block 1 int 300.
    audit_census "4 0 64 64" "4 0 64 65" "4 1 44 300"
    assert_failure
    assert_output --partial "1 threads read more elements of the input than the step gives a thread (1): thread 64,0,0 of block 0,0,0 read 2 of the census's 3 holes"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail finding=census reason=
}

@test "each hole a vector read covers counts: an int2 over holes 64 and 65 is two elements, one too many at per_thread 1" {
    census_audit
    audit_census "8 0 32 64" "4 1 44 300"
    assert_failure
    assert_output --partial "thread 32,0,0 of block 0,0,0 read 2 of the census's 3 holes"
}

@test "at per_thread 2 (step 07's), an int2 over two holes is a thread's own two elements" {
    census_audit
    FAKE_CENSUS=${FAKE_CENSUS//per_thread=1/per_thread=2}
    audit_census "8 0 32 64" "4 1 44 300"
    assert_success
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=pass census="holes=3 read=3 threads=2 over=0 blocks_over=0"
}

@test "a block that reads in two blocks' shares fails the audit, though each of its threads reads one element" {
    census_audit
    # Ints 64 and 65 lie in block 0's share, int 300 in block 1's: all three
    # read by threads of block 0, one each (a block summing its neighbour's
    # share, its threads taking the elements in any order).
    audit_census "4 0 64 64" "4 0 65 65" "4 0 44 300"
    assert_failure
    assert_output --partial "1 blocks read in more shares of the input than 1 (a share: the 256 elements a block of the first level sums"
    assert_output --partial "block 0,0,0 read holes of 2 shares"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail finding=census reason=
}

@test "at per_thread 2, a block may read in two shares (a thread's second element a grid away), not in three" {
    census_audit
    # Shares of 512 ints: 64 in the first, 600 in the second, 1100 in the third.
    FAKE_CENSUS=$'census\tn=2048\tblock=256\tbase=0x7f0000000000\tholes=3\tper_thread=2\nhole\t64\nhole\t600\nhole\t1100\n'
    audit_census "4 0 64 64" "4 0 64 600" "4 2 7 1100"
    assert_success
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=pass census="holes=3 read=3 threads=2 over=0 blocks_over=0"
    audit_census "4 0 64 64" "4 0 64 600" "4 0 7 1100"
    assert_failure
    assert_output --partial "block 0,0,0 read holes of 3 shares"
}

@test "a hole no thread was seen reading fails the audit: a read initcheck cannot see" {
    census_audit
    audit_census "4 0 64 64" "4 0 65 65"
    assert_failure
    assert_output --partial "of the census's 3 holes, 2 were seen read"
}

@test "a census whose reports initcheck dropped fails the audit: reads many times over hide whose they were" {
    census_audit
    CENSUS_LOG_TAIL=$'========= 1021 errors were skipped (error buffer overflow).\n'
    audit_census "4 0 64 64" "4 0 65 65" "4 1 44 300"
    assert_failure
    assert_output --partial "initcheck dropped reports"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail finding=census reason=
}

@test "a census whose reports are in a form it does not read passes, saying so: another compute-sanitizer is no finding" {
    census_audit
    export FAKE_CENSUS_LOG=$'========= Uninitialised read, 4 bytes, thread 64 block 0, at 0x7f0000000100\n========= ERROR SUMMARY: 3 errors\n'
    run grade_launch_audit 256 1
    assert_success
    [[ $(verdict_value "$GRADE_RESULTS/04/audit" census) == "not read: initcheck counted 3 errors in a form"* ]]
}

@test "a census run whose sum is wrong, that a CUDA error or the time limit ended, is a finding; one short of memory costs the audit's point only" {
    census_audit
    FAKE_SANITIZER_STATUS=1 run grade_launch_audit 256 1
    assert_failure
    assert_output --partial "gave a wrong sum, where the correctness tests found it right"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail finding=census reason=
    # A kernel that stops on the census's holes (a trap: the program's CUDA
    # error, exit 3), or spins on them (the time limit), voids the step as a
    # wrong sum does (tests/mutants/04-quads-census-aborted-on-hole.patch).
    FAKE_SANITIZER_STATUS=3 FAKE_SANITIZER_SAYS='CUDA error cudaErrorLaunchFailure: unspecified launch failure\n' run grade_launch_audit 256 1
    assert_failure
    assert_output --partial "ended with a CUDA error, where the correctness tests found it right"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail finding=census reason=
    for status in 124 137; do
        FAKE_SANITIZER_STATUS=$status run grade_launch_audit 256 1
        assert_failure
        assert_output --partial "did not finish within"
        assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail finding=census reason=
    done
    # The GPU's memory, taken by other graders' runs, is no finding, as the
    # program says it (stderr); the same words from a kernel's printf
    # (stdout) are no excuse (tests/mutants/04-census-oom-words.patch).
    FAKE_SANITIZER_STATUS=3 FAKE_PROGRAM_SAYS='prog: CUDA error cudaErrorMemoryAllocation: out of memory\n' run grade_launch_audit 256 1
    assert_failure
    assert_output --partial "failed (exit 3)"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail reason="census not run"
    FAKE_SANITIZER_STATUS=3 FAKE_SANITIZER_SAYS='prog: CUDA error cudaErrorMemoryAllocation: out of memory\n' run grade_launch_audit 256 1
    assert_failure
    assert_output --partial "ended with a CUDA error"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail finding=census reason=
    FAKE_SANITIZER_STATUS=2 run grade_launch_audit 256 1
    assert_failure
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail reason="census not run"
}

@test "a census that cannot be read fails the audit" {
    census_audit
    export FAKE_CENSUS_LOG="no summary here"
    run grade_launch_audit 256 1
    assert_failure
    assert_output --partial "the census could not be read"
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=fail reason="census not run"
}

@test "without compute-sanitizer the census is not run, and the audit's verdict says so" {
    census_audit
    GRADE_SANITIZER=$BATS_TEST_TMPDIR/no/compute-sanitizer
    PATH=/usr/bin:/bin
    run grade_launch_audit 256 1
    assert_success
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=pass census="not run: compute-sanitizer not found"
}

# The audit's runs (its run of the plans, the census) start beside the
# sanitizers (grade_sanitize, start_audit_runs): the audit test then reads
# what they left, and makes no run of its own; where the sanitizer test did
# not start them, it makes them as before.
@test "the audit's runs start beside the sanitizers, and the audit reads them instead of running again" {
    census_audit
    sed -i 's/timed=""/timed="-n 1024 -b 256"/' "$FAKE/steps.conf"
    record check-32 pass
    export FAKE_LOG=$BATS_TEST_TMPDIR/calls
    FAKE_OUTPUT=$(
        record_line audit step=04-fake n=1 block=128 kernels=1
        record_line audit step=04-fake n=1000 block=128 kernels=1
        record_line summary step=04-fake result=correct
    )
    export FAKE_CENSUS_LOG="$(initcheck_read 4 0 64 "$(printf '0x%x' $((0x7f0000000000 + 4 * 64)))")
$(initcheck_read 4 0 65 "$(printf '0x%x' $((0x7f0000000000 + 4 * 65)))")
$(initcheck_read 4 1 44 "$(printf '0x%x' $((0x7f0000000000 + 4 * 300)))")
========= ERROR SUMMARY: 3 errors
"
    run grade_sanitize
    assert_success
    # The program's audit run, and the census under initcheck, were started once each.
    [ -e "$(verdict_dir)/early/audit-run.started" ] || fail "the audit's run was not started beside the sanitizers"
    [ -e "$(verdict_dir)/early/census.started" ] || fail "the census was not started beside the sanitizers"
    # The program itself logs its calls (--check -b 128: the audit run); the fake initcheck does not.
    run grade_launch_audit
    assert_success
    assert_verdict "$GRADE_RESULTS/04/audit" test=audit result=pass census="holes=3 read=3 threads=3 over=0 blocks_over=0"
    [ "$(grep -c -- '--check -b 128 -n 1,1000$' "$FAKE_LOG")" -eq 1 ] || fail "$(printf 'the audit run was not made exactly once:\n%s' "$(cat "$FAKE_LOG")")"
    # Without the sanitizer test's start, the audit makes its run itself.
    rm -rf "$(verdict_dir)/early"
    : >"$FAKE_LOG"
    run grade_launch_audit
    assert_success
    [ "$(grep -c -- '--check -b 128 -n 1,1000$' "$FAKE_LOG")" -eq 1 ] || fail "$(printf 'the audit made no run of its own:\n%s' "$(cat "$FAKE_LOG")")"
}

@test "an audit run started beside the sanitizers that failed fails the audit as its own run would" {
    census_audit
    record check-32 pass
    FAKE_OUTPUT=$(record_line summary step=04-fake result=correct)
    run grade_sanitize
    assert_success
    # The early run is what the audit reads: a program that crashed there (status 3).
    early_result audit-run
    printf '3' >"$(verdict_dir)/early/audit-run.status"
    printf 'CUDA error: an illegal memory access' >"$(verdict_dir)/early/audit-run.out"
    run grade_launch_audit
    assert_failure
    assert_output --partial "an illegal memory access"
}

# A run started early that never left its status (stopped with the test
# that started it) is not waited for past its limit: the audit makes it.
@test "an audit run started early that never ended is run again by the audit, not waited for" {
    census_audit
    FAKE_OUTPUT=$(record_line audit step=04-fake n=1 block=256 kernels=1; record_line summary step=04-fake result=correct)
    mkdir -p "$(verdict_dir)/early"
    : >"$(verdict_dir)/early/audit-run.started"
    SECONDS=0
    EARLY_WAIT=1 run early_result audit-run
    assert_failure 1
    [ "$SECONDS" -lt 5 ] || fail "waited $SECONDS s"
}
