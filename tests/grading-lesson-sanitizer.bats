#!/usr/bin/env bats
# The lesson test (grade_lesson: a counter of ncu, the learner's kernel
# against the starting one) and the sanitizer test (grade_sanitize) on the
# fake step, with the fake ncu and compute-sanitizer of
# tests/fixtures/grading/tools. The fake step's lesson: stores per block, at
# least 2.0x fewer than the starting kernel's. No GPU.

load grading-helpers

@test "the lesson test passes when the step's counter falls by its factor, and names the figures" {
    use_fake_step
    fake_tools
    record check-32 pass
    # Over every launch of each: the start's two, (220 + 5) / (4 + 1) blocks.
    FAKE_CSV=$(lesson_csv 220 80)
    run grade_lesson
    assert_success
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=pass yours=20 start=45 factor=2.0 thresholds=thresholds.conf
}

@test "the lesson test fails when the counter has not fallen enough, naming the figures and the fix" {
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_CSV=$(lesson_csv 220 220)
    run grade_lesson
    assert_failure
    assert_output --partial "mine: 55 stores per block over its 1 launches; the starting kernel reduce_start: 45 over its 2. The lesson asks for at least 2.0x fewer"
    assert_output --partial "Keep whole warps idle."
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=fail yours=55 start=45 factor=2.0 thresholds=thresholds.conf
}

# The lesson's profile starts from the timed test (lesson_early), where its
# checks of every block were right, so that its passes wait for the GPU
# beside the timed run; the lesson test judges what it left, profiling
# nothing again, by its own verdict.
@test "the lesson's profile starts from the timed test, and the lesson test judges it without profiling again" {
    use_fake_step
    fake_tools
    local n
    mkdir -p "$(verdict_dir)"
    { echo 0; for n in $(all_check_sizes | tr , ' '); do record_line check step=04-fake block=32 n="$n" result=ok; done; } >"$(checks_file)"
    record check-32 pass
    FAKE_CSV=$(lesson_csv 220 80)
    FAKE_NCU_ARGS=$BATS_TEST_TMPDIR/early-args lesson_early
    for n in $(seq 100); do [ -e "$(verdict_dir)/early/lesson.status" ] && break; sleep 0.1; done
    [ -s "$BATS_TEST_TMPDIR/early-args" ] || fail "no profile started by lesson_early"
    # The lesson test reads it: its own ncu (a stand-in that says so) never runs.
    printf '#!/bin/sh\necho "profiled again" >>%q\nexit 1\n' "$BATS_TEST_TMPDIR/again" >"$TOOLS/ncu"
    run grade_lesson
    assert_success
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=pass yours=20 start=45 factor=2.0 thresholds=thresholds.conf
    [ ! -e "$BATS_TEST_TMPDIR/again" ] || fail "the lesson test profiled again"
    # Judged by its own verdict: a kernel found wrong since is not judged.
    record check-timed fail
    run grade_lesson
    assert_failure
    record check-timed pass
    # Checks not all right, or a step without a lesson: nothing starts early.
    rm -rf "$(verdict_dir)/early"
    sed -i '1s/.*/1/' "$(checks_file)"
    lesson_early
    [ ! -e "$(verdict_dir)/early/lesson.started" ] || fail "a profile started for checks that were not all right"
}

# profiled_honestly: the fake step's lesson graded, passing, with the
# arguments ncu was given kept in ncu-args, one a line; ncu_arg OPTION: the
# value given to OPTION.
profiled_honestly() {
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_CSV=$(lesson_csv 220 80)
    FAKE_NCU_ARGS=$BATS_TEST_TMPDIR/ncu-args run grade_lesson
    assert_success
}
ncu_arg() { grep -A1 -x -- "$1" "$BATS_TEST_TMPDIR/ncu-args" | tail -n 1; }

# ncu_start_beside_shared_run VAR=VALUE...: grade_lesson with those set
# (in a subshell of its own), while a shared run (a sanitizer's, say) holds
# the GPU for 3 s; NCU_STARTED is "before" or "after": whether ncu started
# before that run ended.
ncu_start_beside_shared_run() {
    local lock taken=$BATS_TEST_TMPDIR/taken released=$BATS_TEST_TMPDIR/released started=$BATS_TEST_TMPDIR/ncu-started
    rm -f "$taken" "$released" "$started"
    lock=$(gpu_lock)
    { flock --shared 9; : >"$taken"; sleep 3; date +%s.%N >"$released"; } 9<"$lock" &
    while [ ! -e "$taken" ]; do sleep 0.05; done
    # shellcheck disable=SC2163
    (export "$@"; grade_lesson >"$BATS_TEST_TMPDIR/lesson-out" 2>&1) || fail "grade_lesson failed: $(cat "$BATS_TEST_TMPDIR/lesson-out")"
    wait
    [ -s "$started" ] || fail "ncu did not run"
    NCU_STARTED=$(awk -v r="$(cat "$released")" '{ print ($1 < r ? "before" : "after"); exit }' "$started")
}

@test "the lesson's ncu starts once no run holds the GPU, asleep, where other steps or graders share it; one step alone, at once" {
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_CSV=$(lesson_csv 220 80)
    mv "$TOOLS/ncu" "$TOOLS/ncu.real"
    printf '#!/bin/sh\ndate +%%s.%%N >>%q\nexec %q "$@"\n' "$BATS_TEST_TMPDIR/ncu-started" "$TOOLS/ncu.real" >"$TOOLS/ncu"
    chmod +x "$TOOLS/ncu"
    # Steps at once (grade --jobs): ncu, which keeps a core busy while its
    # program waits, waits asleep for the shared runs to end.
    ncu_start_beside_shared_run GRADE_AT_ONCE=2 GRADE_GPU_LOCK= GRADE_BATCH_JOB=
    assert_equal "$NCU_STARTED" after
    # Another grader's lock (tests/mutants/run --jobs): the same; and a
    # class's gradings on one host (grading/batch), whose cores they share.
    ncu_start_beside_shared_run GRADE_AT_ONCE=1 GRADE_GPU_LOCK="$(gpu_lock)" GRADE_BATCH_JOB=
    assert_equal "$NCU_STARTED" after
    ncu_start_beside_shared_run GRADE_AT_ONCE=1 GRADE_GPU_LOCK= GRADE_BATCH_JOB=batch-1-student
    assert_equal "$NCU_STARTED" after
    # One step alone: its program's start runs beside the step's own runs.
    ncu_start_beside_shared_run GRADE_AT_ONCE=1 GRADE_GPU_LOCK= GRADE_BATCH_JOB=
    assert_equal "$NCU_STARTED" before
}

# The lesson's run found the GPU's memory short (its start beside the step's
# sanitizers, on a small GPU): the harness says so on stderr, exit 3 for an
# allocation that failed, 2 for its own check before it allocates. It runs
# once more, once the GPU is free; short again, or any other CUDA error, and
# the lesson fails as the file's.
@test "a lesson's run short of the GPU's memory runs once more, once the GPU is free; any other CUDA error fails it" {
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_CSV=$(lesson_csv 220 80)
    local calls=$BATS_TEST_TMPDIR/ncu-calls
    mv "$TOOLS/ncu" "$TOOLS/ncu.real"
    # Short on its first run (SHORT_RUNS of them), as the harness says it.
    cat >"$TOOLS/ncu" <<SCRIPT
#!/bin/sh
echo run >>"$calls"
if [ "\$(grep -c . "$calls")" -le "\${SHORT_RUNS:-0}" ]; then
    echo "\${SHORT_SAYS:-CUDA error cudaErrorMemoryAllocation: out of memory}" >&2
    exit "\${SHORT_EXIT:-3}"
fi
exec "$TOOLS/ncu.real" "\$@"
SCRIPT
    chmod +x "$TOOLS/ncu"
    SHORT_RUNS=1 run grade_lesson
    assert_success
    assert_equal "$(grep -c . "$calls")" 2
    rm -f "$calls"
    SHORT_RUNS=1 SHORT_EXIT=2 SHORT_SAYS="reduction_sequential: the input needs 1.07 GB of GPU memory and 512 MB is free: choose a smaller --size" run grade_lesson
    assert_success
    assert_equal "$(grep -c . "$calls")" 2
    rm -f "$calls"
    SHORT_RUNS=2 run grade_lesson
    assert_failure
    assert_equal "$(grep -c . "$calls")" 2
    # Another CUDA error: the file's, run once.
    rm -f "$calls"
    SHORT_RUNS=1 SHORT_SAYS="CUDA error cudaErrorIllegalAddress: an illegal memory access" run grade_lesson
    assert_failure
    assert_equal "$(grep -c . "$calls")" 1
}

@test "the lesson's profile runs the whole program again for each pass of ncu, never the kernel again within a run" {
    profiled_honestly
    # A kernel replayed within one run finds its shared memory as its last
    # pass left it, and can count its passes; a program run again scrubs it.
    assert_equal "$(ncu_arg --replay-mode)" application
}

@test "the lesson's profile counts the two kernels compared, however the learner's is spelled, and no other launch" {
    profiled_honestly
    assert_equal "$(ncu_arg --kernel-name-base)" demangled
    local filter
    filter=$(ncu_arg --kernel-name)
    [[ $filter == regex:* ]] || fail "the lesson's ncu was given no regex: --kernel-name '$filter'"
    # The names as ncu demangles them: a template, a namespace, an anonymous
    # one, extern "C"; the starting kernel; and never a name that only
    # begins, ends or holds one of the two.
    local name
    for name in "void mine<256u>(const int *, int *, unsigned int)" "ws::mine(const int *, int *, unsigned int)" \
        "(anonymous namespace)::mine(const int *, int *, unsigned int)" mine "reduce_start(const int *, int *, unsigned int)"; do
        grep -qE -- "${filter#regex:}" <<<"$name" || fail "the lesson's filter leaves out: $name"
    done
    for name in "mine_helper(const int *)" "not_mine(const int *)" "void helper<&mine>(int)" "reduce_start2(int)" scrub_shared_memory; do
        ! grep -qE -- "${filter#regex:}" <<<"$name" || fail "the lesson's filter takes: $name"
    done
}

# A second figure of the learner's kernel alone (steps.conf lesson_also,
# LEFT>=RIGHT): step 03's bytes read from shared memory against those loaded
# from global memory, so that reuse in registers alone (global loads cut by
# an 8x4 patch of C a thread, no tile) does not pass.
also_step() {
    use_fake_step
    fake_tools
    sed -i 's|lesson_fix="Keep whole warps idle."|& lesson_also=smsp__shared.sum>=smsp__loads.sum+smsp__copies.sum lesson_also_what="tiles read at least as much as is loaded"|' "$MANIFEST"
    record check-32 pass
}
# also_csv SHARED LOADS: the lesson's page with the second figure's counters
# (the starting kernel reads no tile; copies are 10 in each of mine).
also_csv() {
    cat <<CSV
"ID","Kernel Name","launch__grid_size","smsp__stores.sum","smsp__shared.sum","smsp__loads.sum","smsp__copies.sum"
"","","","","","",""
"0","_Z12reduce_startPKiPij","4","220","0","9,000","0"
"1","_Z4minePKiPij","4","40","$1","$2","10"
"2","_Z4minePKiPij","4","40","$1","$2","10"
CSV
}

@test "the lesson's second figure passes the learner's kernel where its left side reaches its right, and records both" {
    also_step
    FAKE_CSV=$(also_csv 300 290)
    FAKE_NCU_ARGS=$BATS_TEST_TMPDIR/ncu-args run grade_lesson
    assert_success
    # One profile counts both figures, each counter asked for once.
    assert_equal "$(grep -A1 -x -- --metrics "$BATS_TEST_TMPDIR/ncu-args" | tail -1)" "smsp__stores.sum,launch__grid_size,smsp__shared.sum,smsp__loads.sum,smsp__copies.sum"
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=pass yours=10 start=55 factor=2.0 thresholds=thresholds.conf also=600 also_against=600
}

@test "the lesson's second figure fails a kernel whose main figure passes, naming both sides and the fix" {
    also_step
    FAKE_CSV=$(also_csv 0 5,000)
    run grade_lesson
    assert_failure
    assert_output --partial "mine: 0 against 10020 over its 2 launches. The lesson also asks for tiles read at least as much as is loaded."
    assert_output --partial "Keep whole warps idle."
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=fail yours=10 start=55 factor=2.0 thresholds=thresholds.conf also=0 also_against=10020
}

@test "the lesson's second figure fails, never passes, where ncu's page lacks one of its counters or it is malformed" {
    also_step
    FAKE_CSV=$(also_csv 300 290 | sed 's/smsp__copies.sum/smsp__other.sum/')
    run grade_lesson
    assert_failure
    assert_output --partial "ncu gave no smsp__loads.sum+smsp__copies.sum"
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=fail reason="no metric"
    sed -i 's|lesson_also=[^ ]*|lesson_also=smsp__shared.sum|' "$MANIFEST"
    FAKE_CSV=$(also_csv 300 290)
    run grade_lesson
    assert_failure
    assert_output --partial "the lesson's second figure could not be read"
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=fail reason="no metric"
}

@test "the lesson test fails, never passes, when ncu's page lacks a counter of the figure" {
    use_fake_step
    fake_tools
    record check-32 pass
    # A page without the lesson's counter: no figure to compare, so no
    # point, whatever else it holds (read as 0 against 0, it would pass).
    FAKE_CSV=$(lesson_csv 220 220 | sed 's/smsp__stores.sum/smsp__other.sum/')
    run grade_lesson
    assert_failure
    assert_output --partial "ncu gave no smsp__stores.sum/launch__grid_size"
    assert_output --partial "missing metric: smsp__stores.sum"
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=fail reason="no metric"
}

# A shuffle, a warp sum, a ballot, a matrix multiply-add: each does the
# counted work where the counter cannot see it, so the figure would pass a
# kernel without the step's idea (steps.conf lesson_forbids).
@test "the lesson test fails a module with an instruction the step's lesson leaves out, naming it, whatever the figure" {
    use_fake_step
    fake_tools
    record check-32 pass
    printf 'op\tname=_Z4minePKiPij\tfamily=redux\tinstruction=redux.sync.add.s32\twhere=prog.cu:21\n' >>"$FAKE/04-fake/build/prog.kernels"
    FAKE_CSV=$(lesson_csv 220 80)
    run grade_lesson
    assert_failure
    assert_output --partial "your kernels use instructions that step 04's lesson leaves out:"
    assert_output --partial "  redux.sync.add.s32 in mine (prog.cu:21): a warp's sum in one instruction: __reduce_add_sync and kin, or cooperative_groups::reduce"
    assert_output --partial "The lesson counts stores per block"
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=fail "reason=instructions the lesson leaves out" "families=redux"
}

@test "an instruction of a family the step's lesson allows leaves the lesson to its figure" {
    use_fake_step
    fake_tools
    record check-32 pass
    printf 'op\tname=_Z4minePKiPij\tfamily=mma\tinstruction=mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64\n' >>"$FAKE/04-fake/build/prog.kernels"
    FAKE_CSV=$(lesson_csv 220 80)
    run grade_lesson
    assert_success
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=pass yours=20 start=45 factor=2.0 thresholds=thresholds.conf
}

@test "the lesson test counts every launch of the learner's kernel: a first launch that does nothing hides nothing" {
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_CSV=$(lesson_csv 220 0; printf '"4","_Z4minePKiPij","1","900"\n')
    run grade_lesson
    assert_failure
    assert_output --partial "mine: 180 stores per block over its 2 launches"
}

# A learner who carries the last step's file forward may keep its kernel,
# static and never launched: the same name as this step's starting kernel.
# The plan launches the step's kernel alone (the audit fails any other), so
# the launches of that name are the program's.
@test "the lesson test counts the starting kernel's launches though the file keeps a kernel of that name" {
    use_fake_step
    fake_tools
    record check-32 pass
    printf 'kernel\tname=_Z12reduce_startPKiPij\tparams=8:8,8:8,4:4\n' >>"$FAKE/04-fake/build/prog.kernels"
    FAKE_CSV=$(lesson_csv 220 80)
    run grade_lesson
    assert_success
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=pass yours=20 start=45 factor=2.0 thresholds=thresholds.conf
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

@test "the lesson test skips, with the fix, where the GPU's counters are refused to ncu; it never passes" {
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_CSV=""
    FAKE_NCU_SAYS=$(<"$FIXTURES/tools/ncu-no-permission.out")
    FAKE_NCU_STATUS=1
    run grade_lesson
    assert_success  # a skipped test returns success to `run`; its verdict keeps the reason
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=skip
    run verdict_value "$GRADE_RESULTS/04/lesson" reason
    assert_output --regexp '^ncu may not read .*ERR_NVGPUCTRPERM.* Fix: .*NVreg_RestrictProfilingToAdminUsers=0'
}

@test "the lesson test skips where the ncu it is given (GRADE_NCU) is missing" {
    use_fake_step
    fake_tools
    record check-32 pass
    GRADE_NCU=$BATS_TEST_TMPDIR/no/ncu
    run grade_lesson
    assert_success
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=skip
    run verdict_value "$GRADE_RESULTS/04/lesson" reason
    assert_output --regexp '^ncu \(Nsight Compute\) not found'
}

@test "the lesson test skips where no ncu is on PATH, beside nvcc or in the toolkit's folders" {
    use_fake_step
    fake_tools
    record check-32 pass
    # The grader looks for ncu by itself (cuda_tool, common/tools/options.bash):
    # none given, none on PATH (not even the fake one), no nvcc to look
    # beside, and a toolkit folder without it.
    unset GRADE_NCU
    CUDA_BIN=""
    NVCC=$BATS_TEST_TMPDIR/no/nvcc
    CUDA_PATH=$BATS_TEST_TMPDIR/no/cuda
    PATH=$(path_without ncu)
    run grade_lesson
    assert_success
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=skip
    [[ $(verdict_value "$GRADE_RESULTS/04/lesson" reason) == "ncu (Nsight Compute) not found"* ]]
}

@test "the lesson test does not profile a kernel that is not correct" {
    use_fake_step
    fake_tools
    record check-32 fail
    FAKE_CSV=$(lesson_csv 220 80)
    run grade_lesson
    assert_failure
    assert_output --partial "not profiled: 04-fake is not correct yet"
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=fail "reason=not run"
}

@test "the lesson test skips where the correctness tests were skipped" {
    use_fake_step
    fake_tools
    record check-32 skip
    FAKE_CSV=$(lesson_csv 220 80)
    run grade_lesson
    assert_success
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=skip "reason=not profiled: the correctness tests were skipped (no GPU)"
}

@test "the sanitizer test passes when every tool is clean" {
    use_fake_step
    fake_tools
    record check-32 pass
    run grade_sanitize
    assert_success
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=pass "tools=memcheck racecheck synccheck initcheck"
}

@test "the sanitizer test fails on a report, naming the tool and quoting it" {
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_SANITIZER_SAYS=$(<"$FIXTURES/tools/sanitizer-race.out")
    FAKE_SANITIZER_STATUS=99
    run grade_sanitize
    assert_failure
    assert_output --partial "compute-sanitizer reports problems in prog"
    assert_output --partial "Race reported between Write access"
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=fail "reported=memcheck racecheck synccheck initcheck" tools=
}

@test "the sanitizer test, called as a graded test calls it (errexit on), names the tool and quotes its report" {
    # The graded test calls grade_sanitize itself, not through bats' run:
    # bats' errexit holds, in the runs it starts in the background too. A
    # run that reports problems must still say so, and leave its verdict;
    # not end the test with no word and the verdict "not run".
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_SANITIZER_SAYS=$(<"$FIXTURES/tools/sanitizer-race.out")
    FAKE_SANITIZER_STATUS=99
    local said rc
    set +e
    (set -e; grade_sanitize) >"$BATS_TEST_TMPDIR/said" 2>&1
    rc=$?
    set -e
    said=$(cat "$BATS_TEST_TMPDIR/said")
    [ "$rc" -ne 0 ] || fail "passed: $said"
    [[ $said == *"compute-sanitizer reports problems in prog"* ]] || fail "no report: '$said'"
    [[ $said == *"Race reported between Write access"* ]] || fail "the race is not quoted: '$said'"
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=fail "reported=memcheck racecheck synccheck initcheck" tools=
}

# A race between blocks in global memory, which no sanitizer watches: a
# ticket taken with an atomic and no fence (kernels.awk's unfenced record).
@test "the sanitizer test fails a kernel that takes a ticket without a fence, naming it, before any tool runs" {
    use_fake_step
    fake_tools
    record check-32 pass
    printf 'unfenced\tname=_Z4minePKiPij\tinstruction=atom.global.add.u32\n' >>"$FAKE/04-fake/build/prog.kernels"
    run grade_sanitize
    assert_failure
    assert_output --partial "your kernels take a ticket with a global atomic"
    assert_output --partial "  atom.global.add.u32 in mine"
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=fail "reason=no fence"
}

@test "the sanitizer test fails a kernel that reads a clock, naming it, before any tool runs" {
    use_fake_step
    fake_tools
    record check-32 pass
    printf 'clock\tname=_Z4minePKiPij\tregister=%%globaltimer\n' >>"$FAKE/04-fake/build/prog.kernels"
    run grade_sanitize
    assert_failure
    assert_output --partial "your kernels read a clock"
    assert_output --partial "  %globaltimer in mine"
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=fail "reason=reads clocks"
}

@test "the sanitizer test skips without compute-sanitizer" {
    use_fake_step
    fake_tools
    record check-32 pass
    GRADE_SANITIZER=$BATS_TEST_TMPDIR/no/compute-sanitizer
    run grade_sanitize
    assert_success
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=skip
    [[ $(verdict_value "$GRADE_RESULTS/04/sanitize" reason) == "compute-sanitizer not found"* ]]
}

# The sanitizers' runs share the GPU and take seconds of CPU; a timed or
# profiled run waits for every shared one. They start from the correctness
# tests, once the run of every block came out right (sanitize_early), and
# the sanitizer test judges what they left, running nothing again; its
# verdict is still its own (a kernel found wrong after is not sanitized).
# Where none were started, or they were stopped before their end, the test
# runs them itself.
@test "the sanitizers' runs start once the checks of every block are right, and the sanitizer test judges them without running them again" {
    use_fake_step
    fake_tools
    local asked=$BATS_TEST_TMPDIR/asked release=$BATS_TEST_TMPDIR/release n
    # Each tool's run ends only once the test lets it (at most 10 s).
    printf '#!/bin/sh\n[ "$1" != --help ] || exit 0\necho "$2" >>%q\nfor i in $(seq 100); do [ -e %q ] && break; sleep 0.1; done\necho "========= ERROR SUMMARY: 0 errors"\n' \
        "$asked" "$release" >"$TOOLS/compute-sanitizer"
    # The one run of every block: right at every size.
    mkdir -p "$(verdict_dir)"
    { echo 0; for n in $(all_check_sizes | tr , ' '); do record_line check step=04-fake block=32 n="$n" result=ok; done; } >"$(checks_file)"
    run grade_check 32
    assert_success
    # The correctness test is over and its sanitizers' runs are not: it did not wait for them.
    [ -e "$(verdict_dir)/early/sanitize/pid" ] || fail "no sanitizer run started from the correctness test"
    [ ! -e "$(verdict_dir)/early/sanitize/done" ] || fail "the correctness test waited for the sanitizers"
    : >"$release"
    run grade_sanitize
    assert_success
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=pass "tools=memcheck racecheck synccheck initcheck"
    # Each tool once for make sanitize's one run: none again.
    assert_equal "$(sort "$asked" | paste -sd' ')" "initcheck memcheck racecheck synccheck"
    # A second check test starts nothing more.
    run grade_check 32
    assert_equal "$(wc -l <"$asked")" 4
    # Judged by the sanitizer test's own verdict: a kernel found wrong since.
    record check-timed fail
    run grade_sanitize
    assert_failure
    assert_output --partial "not sanitized: 04-fake is not correct yet"
    record check-timed pass
    # Stopped before their end (no done): the test runs them itself.
    rm "$(verdict_dir)/early/sanitize/done"
    : >"$asked"
    run grade_sanitize
    assert_success
    assert_equal "$(wc -l <"$asked")" 4
    # Checks not all right: nothing starts early.
    rm -rf "$(verdict_dir)/early"
    sed -i '1s/.*/1/' "$(checks_file)"
    run grade_check 32
    [ ! -e "$(verdict_dir)/early/sanitize" ] || fail "sanitizers started for checks that were not all right"
}

@test "a tool's run at the timed size is its run of the small sizes' --exact-at point: one process where the options are alike" {
    use_fake_step
    fake_tools
    record check-32 pass
    export SANITIZER_CALLS=$BATS_TEST_TMPDIR/calls
    printf '#!/bin/sh\n[ "$1" != --help ] || exit 0\necho "$*" >>"$SANITIZER_CALLS"\necho "========= ERROR SUMMARY: 0 errors"\n' >"$TOOLS/compute-sanitizer"
    # make sanitize's runs: the small sizes (all four tools), racecheck at a
    # point with other options (another role), the timed size (all four),
    # memcheck at a second point: the second and the last stay runs of their own.
    {
        printf 'print-program:\n\t@echo prog\nall solution:\n\t@true\nprint-sanitize-args:\n'
        printf '\t@echo %s\n' "--check --only yours -n 1,33 -b 64" "--tools racecheck --check --exact --only start -n 512 -b 64" \
            "--check --exact --only yours -n 2^12 -b 256" "--tools memcheck --check --exact --only yours -n 2048 -b 128"
    } >"$FAKE/04-fake/Makefile"
    run grade_sanitize
    assert_success
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=pass "tools=memcheck racecheck synccheck initcheck"
    local tool
    for tool in memcheck racecheck synccheck initcheck; do
        # (The small sizes with the grader's drawn ones, then the point.)
        run grep -cE -- "--tool $tool .*prog --check --only yours -n 1,33[0-9,]* -b 64[0-9,]* --exact-at 2\^12:256( |\$)" "$SANITIZER_CALLS"
        assert_output 1
    done
    run grep -c -- "--exact-at" "$SANITIZER_CALLS"
    assert_output 4
    run grep -cE -- "--tool memcheck .*prog --check --exact --only yours -n 2048 -b 128( |\$)" "$SANITIZER_CALLS"
    assert_output 1
    run grep -cE -- "--tool racecheck .*prog --check --exact --only start -n 512 -b 64( |\$)" "$SANITIZER_CALLS"
    assert_output 1
    assert_equal "$(wc -l <"$SANITIZER_CALLS")" 6
}

@test "the sanitizer test does not sanitize a kernel that is not correct" {
    use_fake_step
    fake_tools
    record check-32 fail
    run grade_sanitize
    assert_failure
    assert_output --partial "not sanitized: 04-fake is not correct yet"
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=fail "reason=not run"
}

@test "the sanitizer test skips where the correctness tests were skipped" {
    use_fake_step
    fake_tools
    record check-32 skip
    run grade_sanitize
    assert_success
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=skip "reason=not sanitized: the correctness tests were skipped (no GPU)"
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

@test "the lesson test counts every overload the launch audit takes for the graded kernel, whatever its parameters" {
    use_fake_step
    fake_tools
    record check-32 pass
    # mine(int const*, int (*) [1], unsigned int): to the audit, mine (its
    # name up to the first parenthesis); a "(" in the parameters hides nothing.
    printf 'kernel\tname=_Z4minePKiPA1_ij\tparams=8:8,8:8,4:4\n' >>"$FAKE/04-fake/build/prog.kernels"
    FAKE_CSV=$(lesson_csv 220 80; printf '"4","_Z4minePKiPA1_ij","4","900"\n')
    run grade_lesson
    assert_failure
    assert_output --partial "mine: 122.5 stores per block over its 2 launches"
}

@test "a profiled run that reaches ncu's launch limit fails the lesson: its kernels may not be counted alike" {
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_CSV=$(lesson_csv 220 80)  # 4 launches
    LESSON_LAUNCHES=4 run grade_lesson
    assert_failure
    assert_output --partial "the profiled run made 4 or more launches, as many as ncu profiles (4)"
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=fail "reason=too many launches"
    LESSON_LAUNCHES=5 run grade_lesson
    assert_success
}

@test "what the profiled program prints decides no outcome: 'no usable CUDA device' in its output is no skip" {
    use_fake_step
    fake_tools
    record check-32 pass
    FAKE_CSV=$(lesson_csv 220 80)
    FAKE_NCU_SAYS='prog: skipped: no usable CUDA device (printed by a kernel)\n'
    run grade_lesson
    assert_success
    [ ! -e "$GRADE_RESULTS/04/no-gpu" ] || fail "a kernel's printf marked the grading as done without a GPU"
    assert_verdict "$GRADE_RESULTS/04/lesson" test=lesson result=pass yours=20 start=45 factor=2.0 thresholds=thresholds.conf
}

@test "the lesson profiles the watched round of the very command the timed run is credited for" {
    use_fake_step
    fake_tools
    record check-32 pass
    export FAKE_LOG=$BATS_TEST_TMPDIR/calls
    # The timed run (its correctness test), then the lesson's profile of it.
    FAKE_OUTPUT='summary\truns=6\twrong=0\tresult=correct\n' run grade_check_timed
    assert_success
    FAKE_CSV=$(lesson_csv 220 80)
    cat >"$TOOLS/ncu" <<'SCRIPT'
#!/usr/bin/env bash
echo "$*" >"$FAKE_LOG.ncu"
while [ $# -gt 0 ]; do [ "$1" = --log-file ] && { printf '%b' "$FAKE_CSV" >"$2"; shift; }; shift; done
SCRIPT
    run grade_lesson
    assert_success
    local timed
    timed=$(grep -v -- --write-plans "$FAKE_LOG" | head -n 1)
    [[ $timed == *" --watch "* ]] || fail "the timed run names no watched round: $timed"
    # ncu profiles from cudaProfilerStart only (the watched round), and the
    # program it starts is asked what the timed run was asked, word for word,
    # cut to that round.
    run cat "$FAKE_LOG.ncu"
    assert_output --partial -- "--profile-from-start off"
    assert_output --partial -- "$(program_path) "
    assert_equal "${output##*--plans $(plans_file) }" "${timed##*--plans $(plans_file) } --watched-only"
}

@test "the watched round is drawn from the grading's seed, the same for every run of a grading" {
    use_fake_step
    GRADE_SEED=11
    local one two
    one=$(watch_round)
    [ "$(watch_round)" = "$one" ] || fail "a second ask gave another round"
    GRADE_RESULTS=$BATS_TEST_TMPDIR/other GRADE_SEED=12
    two=$(watch_round)
    [ "$one" != "$two" ] || fail "seeds 11 and 12 drew the same round $one"
}

# ncu takes seconds to list its metrics: grading/grade asks it once, in the
# background while the steps build (the mark ncu-metrics.asked), and each
# lesson reads that listing, waiting for it where it has not come yet,
# rather than asking again.
@test "a lesson reads the metrics listing that grade asked for, waiting for it, and does not ask ncu again" {
    use_fake_step
    fake_tools
    sed 's|lesson_metric=smsp__stores.sum/|lesson_metric=smsp__stores.sum+?smsp__atoms.sum/|' "$MANIFEST" >"$BATS_TEST_TMPDIR/steps.conf"
    MANIFEST=$BATS_TEST_TMPDIR/steps.conf
    printf '#!/bin/sh\necho "$*" >>%q\n' "$BATS_TEST_TMPDIR/asked" >"$BATS_TEST_TMPDIR/ncu"
    chmod +x "$BATS_TEST_TMPDIR/ncu"
    mkdir -p "$GRADE_RESULTS/ncu-metrics.asked"
    { sleep 0.5; echo smsp__atoms >"$GRADE_RESULTS/ncu-metrics.part"; mv "$GRADE_RESULTS/ncu-metrics.part" "$GRADE_RESULTS/ncu-metrics"; } &
    run lesson_metric_here "$BATS_TEST_TMPDIR/ncu" "$(step_setting lesson_metric)"
    assert_output "smsp__stores.sum+smsp__atoms.sum/launch__grid_size"
    assert [ ! -e "$BATS_TEST_TMPDIR/asked" ]
    # Where none was asked for, it asks, once a grading.
    rm -rf "$GRADE_RESULTS"
    mkdir -p "$GRADE_RESULTS"
    printf '#!/bin/sh\necho "$*" >>%q\necho "smsp__atoms  Counter"\n' "$BATS_TEST_TMPDIR/asked" >"$BATS_TEST_TMPDIR/ncu"
    run lesson_metric_here "$BATS_TEST_TMPDIR/ncu" "$(step_setting lesson_metric)"
    assert_output "smsp__stores.sum+smsp__atoms.sum/launch__grid_size"
    run lesson_metric_here "$BATS_TEST_TMPDIR/ncu" "$(step_setting lesson_metric)"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/asked")" "--query-metrics"
    # A listing that came out empty (ncu failed) is not kept for the other
    # lessons, nor is a mark whose listing never came waited on past its end.
    rm -rf "$GRADE_RESULTS" "$BATS_TEST_TMPDIR/asked"
    mkdir -p "$GRADE_RESULTS"
    printf '#!/bin/sh\necho "$*" >>%q\nexit 1\n' "$BATS_TEST_TMPDIR/asked" >"$BATS_TEST_TMPDIR/ncu"
    run lesson_metric_here "$BATS_TEST_TMPDIR/ncu" "$(step_setting lesson_metric)"
    assert_output "smsp__stores.sum/launch__grid_size"
    run lesson_metric_here "$BATS_TEST_TMPDIR/ncu" "$(step_setting lesson_metric)"
    assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/asked")" 2
    assert [ ! -e "$GRADE_RESULTS/ncu-metrics" ]
}

# A lesson counts the same work whatever instruction does it: a ?term (an
# atomic's counter, say) is asked of ncu where the GPU's ncu lists it
# (--query-metrics), and left out where it does not.
@test "the lesson counts a ?term where this GPU's ncu has its metric, and leaves out one it has not" {
    use_fake_step
    fake_tools
    record check-32 pass
    sed 's|lesson_metric=smsp__stores.sum/|lesson_metric=smsp__stores.sum+?smsp__atoms.sum+?smsp__absent.sum/|' "$MANIFEST" >"$BATS_TEST_TMPDIR/steps.conf"
    MANIFEST=$BATS_TEST_TMPDIR/steps.conf
    run lesson_metric_here "$GRADE_NCU" "$(step_setting lesson_metric)"
    assert_output "smsp__stores.sum/launch__grid_size"  # this ncu lists nothing
    # The GPU's ncu lists the atomics' counter (and the stores'), not the other.
    # (ncu is asked once a grading: a new listing, a new grading.)
    FAKE_NCU_SAYS='Metric Name      Metric Type\nsmsp__stores     Counter\nsmsp__atoms      Counter\n'
    rm -f "$GRADE_RESULTS/ncu-metrics"
    run lesson_metric_here "$GRADE_NCU" "$(step_setting lesson_metric)"
    assert_output "smsp__stores.sum+smsp__atoms.sum/launch__grid_size"
    # The learner's kernel makes its stores as atomics: counted, it fails.
    FAKE_CSV=$(printf '"ID","Kernel Name","launch__grid_size","smsp__stores.sum","smsp__atoms.sum"\n"","","","",""\n')
    FAKE_CSV+=$'\n"0","_Z12reduce_startPKiPij","4","220","0"\n"1","_Z4minePKiPij","4","0","220"'
    run grade_lesson
    assert_failure
    assert_output --partial "mine: 55 stores per block over its 1 launches; the starting kernel reduce_start: 55 over its 1."
    # Where the GPU's ncu has no such counter, no such instruction runs: out.
    FAKE_NCU_SAYS='Metric Name      Metric Type\nsmsp__stores     Counter\n'
    rm -f "$GRADE_RESULTS/ncu-metrics"
    run grade_lesson
    assert_success
    # A real GPU's ncu lists thousands (5,540 on an H200, a megabyte): more
    # than one argument of a command may hold.
    local listing=$BATS_TEST_TMPDIR/metrics.txt
    { echo 'Metric Name      Metric Type'; seq -f 'gpu__some_unit_counter_number_%06g_of_a_long_list Counter  the description of it' 1 6000
        echo 'smsp__atoms      Counter'; } >"$listing"
    printf '#!/usr/bin/env bash\n[ "$1" = --query-metrics ] && exec cat %q\nexec %q "$@"\n' "$listing" "$GRADE_NCU" >"$BATS_TEST_TMPDIR/ncu"
    chmod +x "$BATS_TEST_TMPDIR/ncu"
    FAKE_NCU_SAYS=""
    rm -f "$GRADE_RESULTS/ncu-metrics"
    run lesson_metric_here "$BATS_TEST_TMPDIR/ncu" "$(step_setting lesson_metric)"
    assert_success
    assert_output "smsp__stores.sum+smsp__atoms.sum/launch__grid_size"
    # And a metric that comes out empty fails: it would count 0 for both.
    lesson_metric_here() { :; }
    FAKE_CSV=$(lesson_csv 220 80)
    run grade_lesson
    assert_failure
    assert_output --partial "the lesson's metric could not be read"
}

# Each counter ncu reads may cost the lesson another run of the program, so
# a ?term is asked for only where an instruction that feeds it can run: one
# of the learner's module (kernels.awk's feeds records, anywhere in it), the
# starting kernels holding none (tests/grading-manifest.bats). An atomic
# that does a load's work is counted; a call the table cannot read keeps
# every term; a term of no known family is always kept.
@test "the lesson asks for a ?term only where the learner's module holds an instruction that feeds it, and counts it there" {
    use_fake_step
    fake_tools
    record check-32 pass
    local atom=smsp__sass_inst_executed_op_global_atom.sum copy=smsp__sass_inst_executed_op_ldgsts.sum ldsm=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum
    sed "s|lesson_metric=smsp__stores.sum/|lesson_metric=smsp__stores.sum+?$atom+?$copy+?$ldsm+?smsp__other.sum/|" "$MANIFEST" >"$BATS_TEST_TMPDIR/steps.conf"
    MANIFEST=$BATS_TEST_TMPDIR/steps.conf
    FAKE_NCU_SAYS="Metric Name      Metric Type\nsmsp__stores Counter\n${atom%.sum} Counter\n${copy%.sum} Counter\n${ldsm%.sum} Counter\nsmsp__other Counter\n"
    local table
    table=$(module_table)
    # The fake module holds plain loads and stores: the three are left out.
    assert_equal "$(lesson_families)" ""
    run lesson_metric_here "$GRADE_NCU" "$(step_setting lesson_metric)" "$(lesson_families)"
    assert_output "smsp__stores.sum+smsp__other.sum/launch__grid_size"
    # A helper's atomic, anywhere in the module: the atomics' term is asked for.
    printf 'feeds\tname=_Z6helperPi\tfamily=atomic\tinstruction=atom.global.add.u32\n' >>"$table"
    run lesson_metric_here "$GRADE_NCU" "$(step_setting lesson_metric)" "$(lesson_families)"
    assert_output "smsp__stores.sum+$atom+smsp__other.sum/launch__grid_size"
    printf 'feeds\tname=_Z4minePKiPij\tfamily=ldmatrix\tinstruction=ldmatrix.sync.aligned.m8n8.x4.shared.b16\n' >>"$table"
    run lesson_metric_here "$GRADE_NCU" "$(step_setting lesson_metric)" "$(lesson_families)"
    assert_output "smsp__stores.sum+$atom+$ldsm+smsp__other.sum/launch__grid_size"
    # ... and counted: the learner's stores made as atomics fail the lesson.
    FAKE_CSV=$(printf '"ID","Kernel Name","launch__grid_size","smsp__stores.sum","%s","%s","smsp__other.sum"\n"","","","","","",""\n' "$atom" "$ldsm")
    FAKE_CSV+=$'\n"0","_Z12reduce_startPKiPij","4","220","0","0","0"\n"1","_Z4minePKiPij","4","0","220","0","0"'
    run grade_lesson
    assert_failure
    assert_output --partial "mine: 55 stores per block over its 1 launches; the starting kernel reduce_start: 55 over its 1."
    # A call whose callee the table cannot read (printf's vprintf), or no
    # table at all: every term.
    printf 'feeds\tname=_Z4minePKiPij\tfamily=call\tinstruction=vprintf\n' >>"$table"
    run lesson_metric_here "$GRADE_NCU" "$(step_setting lesson_metric)" "$(lesson_families)"
    assert_output "smsp__stores.sum+$atom+$copy+$ldsm+smsp__other.sum/launch__grid_size"
    rm "$table"
    assert_equal "$(lesson_families)" all
    run lesson_metric_here "$GRADE_NCU" "$(step_setting lesson_metric)" "$(lesson_families)"
    assert_output "smsp__stores.sum+$atom+$copy+$ldsm+smsp__other.sum/launch__grid_size"
    # A divisor's term stays where ncu has it: the figure stays a ratio.
    run lesson_metric_here "$GRADE_NCU" "smsp__stores.sum/?$atom" ""
    assert_output "smsp__stores.sum/$atom"
    # Where the metric is not listed, the family does not keep it.
    FAKE_NCU_SAYS="Metric Name      Metric Type\nsmsp__stores Counter\n"
    rm -f "$GRADE_RESULTS/ncu-metrics"
    run lesson_metric_here "$GRADE_NCU" "$(step_setting lesson_metric)" "atomic call"
    assert_output "smsp__stores.sum/launch__grid_size"
}
