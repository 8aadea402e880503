#!/usr/bin/env bats
# What a grading's seconds are told from: the GPU lock's log of each run
# (on_gpu, grading/lib.bash: gpu-use.tsv) and grading/bench, which reads it
# with the tests' own times (tests.tsv). No GPU.

load grading-helpers

@test "each run on the GPU leaves a line of its step, test, mode and seconds, and holds the lock no longer than it runs" {
    use_fake_step
    mkdir -p "$GRADE_RESULTS"
    # (The test's name, as bats sets it in a step's test; here in a subshell.)
    (BATS_TEST_DESCRIPTION="04 correct when timed" && on_gpu alone sleep 0.2)
    (BATS_TEST_DESCRIPTION="04 clean under compute-sanitizer" && on_gpu shared true)
    run cat "$GRADE_RESULTS/gpu-use.tsv"
    assert_line --index 0 --regexp $'^04-fake\t04 correct when timed\talone\t[0-9]+\\.[0-9]{2}\t[0-9]+\\.[0-9]{2}\t[0-9]{10}\\.[0-9]{2}$'
    # (It held the GPU for the command's 0.2 s at least.)
    assert_equal "$(awk -F'\t' 'NR == 1 { print ($5 >= 0.2) }' "$GRADE_RESULTS/gpu-use.tsv")" 1
    assert_line --index 1 --regexp $'^04-fake\t04 clean under compute-sanitizer\tshared\t'
    # Its status is the command's.
    run on_gpu shared sh -c 'exit 3'
    assert_failure 3
    # What the command leaves running does not hold the GPU's lock: the
    # command never had the lock's descriptor.
    on_gpu shared sh -c 'sleep 29.51 & exit 0'
    run flock --nonblock --exclusive "$GRADE_RESULTS/gpu.lock" true
    assert_success
    pkill -f "^sleep 29.51$" || true
}

@test "a run that waits for a run alone counts its wait apart from its own seconds" {
    use_fake_step
    mkdir -p "$GRADE_RESULTS"
    # A run alone holds the GPU for a second: the shared one waits for it.
    flock --exclusive "$GRADE_RESULTS/gpu.lock" sh -c 'touch "$1"; sleep 1' _ "$BATS_TEST_TMPDIR/held" &
    while [ ! -e "$BATS_TEST_TMPDIR/held" ]; do sleep 0.05; done
    (BATS_TEST_DESCRIPTION="04 correct with block 32" && on_gpu shared true)
    wait
    run awk -F'\t' '{ print ($4 >= 0.5 && $5 < 0.5) ? "waited" : "did not wait: " $0 }' "$GRADE_RESULTS/gpu-use.tsv"
    assert_output "waited"
}

@test "a run that measures takes the lock itself: the grader holds none for it, and logs its holds alone from its lock records" {
    use_fake_step
    mkdir -p "$GRADE_RESULTS"
    # Its program may take the lock alone at once: the grader holds none of
    # it (a lock of the grader's, shared or not, would keep it waiting).
    (BATS_TEST_DESCRIPTION="04 correct when timed" && on_gpu measure flock --nonblock --exclusive "$(gpu_lock)" true)
    # Its program's records: a lock record each time it was alone.
    printf '%s\n' "$(record_line device step=04-fake)" "$(record_line lock waited=1.234 held=0.567)" \
        "$(record_line lock waited=x held=1)" "lock waited=9 held=9" |
        (BATS_TEST_DESCRIPTION="04 correct when timed" && log_gpu_alone)
    run cat "$GRADE_RESULTS/gpu-use.tsv"
    assert_line --index 0 --regexp $'^04-fake\t04 correct when timed\tmeasure\t0\\.00\t[0-9]+\\.[0-9]{2}\t[0-9]{10}\\.[0-9]{2}$'
    assert_line --index 1 --regexp $'^04-fake\t04 correct when timed\talone\t1\\.23\t0\\.57\t[0-9]{10}\\.[0-9]{2}$'
    assert_equal "${#lines[@]}" 2
    # The lock is given to the program, and is readable in its sandbox.
    LOCK=measure confine 10 100 "$BATS_TEST_TMPDIR"
    [[ " ${CONFINE[*]} " == *" --read $(gpu_lock) "* ]] || fail "the sandbox does not show the lock: ${CONFINE[*]}"
    LOCK=shared confine 10 100 "$BATS_TEST_TMPDIR"
    [[ " ${CONFINE[*]} " != *" --read $(gpu_lock) "* ]] || fail "a shared run is shown the lock: ${CONFINE[*]}"
    # A lock named through a link: the program and its sandbox get the file
    # itself (the sandbox shows no link).
    mkdir -p "$BATS_TEST_TMPDIR/locks"
    ln -s "$BATS_TEST_TMPDIR/locks" "$BATS_TEST_TMPDIR/lock-link"
    GRADE_GPU_LOCK=$BATS_TEST_TMPDIR/lock-link/gpu.lock
    assert_equal "$(measure_mode)" measure
    assert_equal "$(measure_lock)" "$BATS_TEST_TMPDIR/locks/gpu.lock"
    LOCK=measure confine 10 100 "$BATS_TEST_TMPDIR"
    [[ " ${CONFINE[*]} " == *" --read $BATS_TEST_TMPDIR/locks/gpu.lock "* ]] || fail "not the lock itself: ${CONFINE[*]}"
    # A lock that cannot be made: the run holds the GPU alone from the grader, as before.
    GRADE_GPU_LOCK=/proc/no-such-lock
    assert_equal "$(measure_mode)" alone
}

@test "bench reads a grading's records: each step's seconds by test, the GPU's, the tests that failed or skipped" {
    local dir=$BATS_TEST_TMPDIR/graded
    mkdir -p "$dir"
    cp "$FIXTURES/bench/tests.tsv" "$FIXTURES/bench/gpu-use.tsv" "$dir/"
    run "$WORKBOOK_DIR/grading/bench" --read "$dir"
    assert_success
    assert_line --index 0 --regexp '^step +build +integrity +correct +timed +speed +lesson +sanitize +audit +tests +GPU-alone +GPU-wait$'
    # 04: build 4.0, integrity 1.6, three checks 3.9 + 0.2 + 0.2, the timed run
    # 1.7, speed 0.2, lesson 3.4, sanitizers 10.0, audit 0.3: 25.5 in all; alone
    # 1.8 + 2.8, waited 0.5.
    assert_line --regexp '^04 +4\.0 +1\.6 +4\.3 +1\.7 +0\.2 +3\.4 +10\.0 +0\.3 +25\.5 +4\.6 +0\.5$'
    assert_line --regexp '^06 +'
    assert_line "GPU held alone, all steps: 6 s"
    assert_line "tests: 12, 0 failed, 0 skipped"
    # A failed or skipped test: no bench of a full grading, and it says so.
    sed -i '3s/\tpassed\t/\tfailed\t/; 4s/\tpassed\t/\tskipped\t/' "$dir/tests.tsv"
    run "$WORKBOOK_DIR/grading/bench" --read "$dir"
    assert_failure 1
    assert_line "tests: 12, 1 failed, 1 skipped"
    assert_line "bench: not a full grading (1 failed, 1 skipped: no GPU?): its seconds are no figure"
    run "$WORKBOOK_DIR/grading/bench" --read "$BATS_TEST_TMPDIR/nowhere"
    assert_failure 2
    assert_output --partial "no tests.tsv there"
    run "$WORKBOOK_DIR/grading/bench" --jobs 0
    assert_failure 2
}

# A grading that did not run (grade refused its options, say) measures
# nothing: bench shows why, and neither an earlier grading's records nor its
# summary are read or written as this one's.
@test "bench of a grading that did not run shows why, and reads no earlier grading's records as its own" {
    local W=$BATS_TEST_TMPDIR/wb
    mkdir -p "$W/grading" "$W/common/tools" "$W/results/bench-grading"
    cp "$WORKBOOK_DIR/grading/bench" "$W/grading/"
    cp "$WORKBOOK_DIR/common/tools/options.bash" "$W/common/tools/"
    printf '#!/bin/sh\necho "grade: no step 99 in steps.conf (the steps: 04)" >&2\nexit 2\n' >"$W/grading/grade"
    chmod +x "$W/grading/grade"
    # An earlier grading's records, and its summary.
    cp "$FIXTURES/bench/tests.tsv" "$FIXTURES/bench/gpu-use.tsv" "$W/results/bench-grading/"
    : >"$W/results/bench-grading/.grade-results"
    echo "the earlier summary" >"$W/results/bench-grading.txt"
    WORKBOOK_GPU=usable run "$W/grading/bench" --step 99
    assert_failure 2
    assert_output --partial "grade: no step 99 in steps.conf"
    assert_output --partial "bench: the grading did not run"
    refute_output --partial "GPU held alone"
    assert_equal "$(cat "$W/results/bench-grading.txt")" "the earlier summary"
    assert [ ! -e "$W/results/bench-grading/tests.tsv" ]
}

# Without a GPU a grading measures its skips only: bench says so at once,
# grades nothing, and leaves the last summary alone.
@test "bench without a usable GPU says so at once and grades nothing" {
    local W=$BATS_TEST_TMPDIR/wb
    mkdir -p "$W/grading" "$W/common/tools"
    cp "$WORKBOOK_DIR/grading/bench" "$W/grading/"
    cp "$WORKBOOK_DIR/common/tools/options.bash" "$W/common/tools/"
    printf '#!/bin/sh\ntouch "%s/graded"\n' "$BATS_TEST_TMPDIR" >"$W/grading/grade"
    chmod +x "$W/grading/grade"
    CUDA_VISIBLE_DEVICES=-1 run "$W/grading/bench"
    assert_failure 77
    assert_output "bench: skipped: no usable CUDA device (CUDA_VISIBLE_DEVICES='-1' hides every GPU)"
    assert [ ! -e "$BATS_TEST_TMPDIR/graded" ]
    assert [ ! -e "$W/results/bench-grading.txt" ]
    # Asked already (make bench-grading): not asked again.
    CUDA_VISIBLE_DEVICES=-1 WORKBOOK_GPU=usable run "$W/grading/bench"
    assert [ -e "$BATS_TEST_TMPDIR/graded" ]
}
