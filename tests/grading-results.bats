#!/usr/bin/env bats
# tests/run: about 33 s, 39 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# grading/grade end to end on step 04 without a GPU (CUDA_VISIBLE_DEVICES=):
# what it skips and says, the result files it writes (JUnit, Gradescope's,
# Classroom's: no point in any, as nothing was graded), the folder it keeps
# its records in (--results), and an empty environment. It grades step 04 in
# a copy of the workbook, its builds as they are (cp -a), so that a build for
# other architectures never lands in the workbook's own folders.

load grading-helpers

setup_file() {
    export W=$BATS_FILE_TMPDIR/workbook
    mkdir -p "$W"
    cp -a "$WORKBOOK_DIR"/{Makefile,steps.conf,common,grading} "$WORKBOOK_DIR"/[0-9][0-9]-* "$W/"
    if [ -d "$WORKBOOK_DIR/solutions" ]; then
        mkdir -p "$W/solutions"
        cp -a "$WORKBOOK_DIR/solutions/04-reduction-interleaved" "$W/solutions/"
    fi
    [ ! -d "$WORKBOOK_DIR/.tools" ] || ln -s "$WORKBOOK_DIR/.tools" "$W/.tools"
}

@test "grading without a GPU skips every GPU test, says why, and passes; no result file gives a point" {
    # The reference solution, or in a copy handed out without solutions/, the exercise.
    local solutions=--solutions program=reduction_interleaved_solution
    [ -d "$W/solutions/04-reduction-interleaved" ] || { solutions=; program=reduction_interleaved; }
    run env CUDA_VISIBLE_DEVICES= "$W/grading/grade" --step 04 $solutions \
        --results "$BATS_TEST_TMPDIR/g" --junit "$BATS_TEST_TMPDIR/junit.xml" \
        --gradescope "$BATS_TEST_TMPDIR/gs.json" --classroom "$BATS_TEST_TMPDIR/cr.json"
    assert_success
    assert_output --partial "# skip $program: skipped: no usable CUDA device"
    assert_output --partial "# skip not profiled: the correctness tests were skipped (no GPU)"
    assert_output --partial "# skip not sanitized: the correctness tests were skipped (no GPU)"
    # The build and the integrity test passed, but the run is no grade: 0 points.
    assert_line --regexp '^04-reduction-interleaved +pass +no GPU +no GPU +no GPU +no GPU +no GPU +0/17$'
    assert_line "total: 0 of 17 points"
    assert_line --partial "no GPU: the GPU tests of step(s) 04 could not run here, so this run is no grade: 0 points"
    assert_no_gpu_results "$BATS_TEST_TMPDIR/gs.json" "$BATS_TEST_TMPDIR/cr.json" "$BATS_TEST_TMPDIR/junit.xml" 13
    # Each test's verdict, a record of fields (record, grading/lib.bash), as the test found it.
    assert_verdict "$BATS_TEST_TMPDIR/g/04/build" test=build result=pass
    assert_verdict "$BATS_TEST_TMPDIR/g/04/integrity" test=integrity result=pass
    assert_verdict "$BATS_TEST_TMPDIR/g/04/check-timed" test=check-timed result=skip
    assert_verdict "$BATS_TEST_TMPDIR/g/04/sanitize" test=sanitize result=skip \
        "reason=not sanitized: the correctness tests were skipped (no GPU)"
    # tests.tsv, which the gradebook of grading/batch adds up: no points either.
    assert_equal "$(cut -f4 "$BATS_TEST_TMPDIR/g/tests.tsv" | sort -u)" 0
}

@test "grading without a GPU with --require-gpu fails, and the table says no GPU rather than a verdict" {
    local solutions=--solutions
    [ -d "$W/solutions/04-reduction-interleaved" ] || solutions=
    run env CUDA_VISIBLE_DEVICES= "$W/grading/grade" --step 04 $solutions --require-gpu \
        --results "$BATS_TEST_TMPDIR/g"
    assert_failure 1
    assert_output --partial "no GPU, and REQUIRE_GPU=1"
    # The table says why, rather than a verdict on a kernel that never ran.
    assert_line --regexp '^04-reduction-interleaved +pass +no GPU +no GPU +no GPU +no GPU +no GPU +0/17$'
    assert_line --partial "no GPU: the GPU tests of step(s) 04 could not run here"
}

@test "grade --results never empties a folder it did not make" {
    mine=$BATS_TEST_TMPDIR/mine
    mkdir -p "$mine"
    echo "my notes" >"$mine/notes.txt"
    run env CUDA_VISIBLE_DEVICES= "$W/grading/grade" --step 04 --results "$mine"
    assert_failure 2
    assert_output --partial "holds files that grade did not write"
    assert_equal "$(cat "$mine/notes.txt")" "my notes"
}

@test "grade --results replaces a folder grade made, run after run" {
    slow_test "a step graded twice"
    run env CUDA_VISIBLE_DEVICES= "$W/grading/grade" --step 04 --results "$BATS_TEST_TMPDIR/new"
    assert_success
    assert [ -f "$BATS_TEST_TMPDIR/new/.grade-results" ]
    run env CUDA_VISIBLE_DEVICES= "$W/grading/grade" --step 04 --results "$BATS_TEST_TMPDIR/new"
    assert_success
}

@test "grade --results refuses a file, such as one that grade wrote, as not a folder" {
    run env CUDA_VISIBLE_DEVICES= "$W/grading/grade" --step 04 --results "$BATS_TEST_TMPDIR/new"
    assert_success
    run "$W/grading/grade" --step 04 --results "$BATS_TEST_TMPDIR/new/bats-stream"
    assert_failure 2
    assert_output --partial "not a folder"
    assert [ -f "$BATS_TEST_TMPDIR/new/bats-stream" ]
}

@test "grading finds CUDA and the bats libraries with an empty environment, as Classroom's runner gives it" {
    # Where bats lives outside the places grade looks without PATH, an empty
    # environment cannot find it: that machine cannot run this test.
    local found="" d
    for d in /usr/local/bin /usr/bin /bin "$W/.tools/bats/bin"; do [ -x "$d/bats" ] && found=$d; done
    [ -n "$found" ] || skip "bats is on PATH only ($(command -v bats)): grade finds it without PATH in /usr/local/bin, /usr/bin or .tools/bats"
    found=""
    for d in /usr/lib/bats /usr/local/lib/bats "$W/.tools/bats/lib/bats"; do [ -f "$d/bats-assert/load.bash" ] && found=$d; done
    [ -n "$found" ] || skip "bats-support and bats-assert are only in BATS_LIB_PATH ($BATS_LIB_PATH): grade finds them without it in /usr/lib/bats, /usr/local/lib/bats or .tools/bats/lib/bats"
    # The build's own SM and compiler go along, so that the user's build is
    # used as it is, not rebuilt for other architectures by another nvcc.
    build=("NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}")
    [ -z "${SM+set}" ] || build+=("SM=$SM")
    flags=$W/04-reduction-interleaved/build/flags
    before=$(stat -c '%Y %s' "$flags" 2>/dev/null; cat "$flags" 2>/dev/null)
    # (No sandbox: the copy lies in a /tmp of its own there, and the sandbox is confine.bats's.)
    run env -i CUDA_VISIBLE_DEVICES= GRADE_SANDBOX=none "${build[@]}" /bin/bash "$W/grading/grade" --step 04 --results "$BATS_TEST_TMPDIR/g"
    assert_success
    assert_line --regexp '^04-reduction-interleaved +pass +no GPU +no GPU +no GPU +no GPU +no GPU +0/17$'
    [ ! -f "$flags" ] || assert_equal "$(stat -c '%Y %s' "$flags"; cat "$flags")" "$before"
}
