#!/usr/bin/env bats
# Adding a step as a newcomer would: copy a step's folder and its solution,
# and copy its entry in steps.conf under the new folder's name. Nothing else
# is edited; the build, the grader, its points, make bench and the gradebook
# must all find the new step.

load helpers

setup() {
    slow_test "a copy built and graded"
    [ -d "$WORKBOOK_DIR/solutions/08-cascaded" ] || skip "no solutions/08-cascaded in this copy"
    command -v nvcc >/dev/null || skip "no nvcc"
    one_architecture_without_gpu
    # A copy of the workbook, its builds included (so the shared harness is not rebuilt).
    W=$BATS_TEST_TMPDIR/wb
    mkdir -p "$W"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude=./tests -cf - .) | tar -xf - -C "$W"
    # The three edits.
    cp -r "$W/08-cascaded" "$W/09-scratch"
    cp -r "$W/solutions/08-cascaded" "$W/solutions/09-scratch"
    {
        echo
        awk '/^[0-9][0-9]-/ { inside = ($1 == "08-cascaded") } inside' "$W/steps.conf" | sed '1s/^08-cascaded/09-scratch/'
    } >>"$W/steps.conf"
    make -s -C "$W/09-scratch" clean  # the copied folder's build outputs: not the new step's
}

@test "a step added by copying a folder, its solution and its manifest entry builds, is graded, benched and counted" {
    run awk -f "$W/common/tools/manifest.awk" "$W/steps.conf"
    assert_success
    assert_line --index 8 09-scratch

    # It builds, its program knowing its own name from the build: the copied
    # main.cu names no step.
    run make -C "$W/09-scratch" all solution
    assert_success
    run grep -c -a 08-cascaded "$W/09-scratch/cascaded_solution"
    assert_output 0

    # The grader grades it: its tests written from the entry, its points counted
    # (skipped without a GPU, graded with one).
    run "$W/grading/grade" --solutions --step 09 --results "$BATS_TEST_TMPDIR/grade"
    assert_success
    assert_line --regexp '^09-scratch +pass +(pass|no GPU) .* [0-9]+/15$'
    assert [ -f "$BATS_TEST_TMPDIR/grade/tests/09-scratch.bats" ]
    assert_equal "$(grep -c '@test "09 correct with block' "$BATS_TEST_TMPDIR/grade/tests/09-scratch.bats")" 6

    # make bench runs it, and reads its records as any step's.
    run make -s -n -C "$W" bench
    assert_output --regexp 'bench\.sh .*08-cascaded 09-scratch'
    sed 's/step=08-cascaded/step=09-scratch/' "$WORKBOOK_DIR/tests/fixtures/bench-h100.log" |
        grep -F 'step=09-scratch' >"$BATS_TEST_TMPDIR/09.log"
    cat "$WORKBOOK_DIR/tests/fixtures/bench-h100.log" "$BATS_TEST_TMPDIR/09.log" >"$BATS_TEST_TMPDIR/bench.log"
    BENCH_RESULTS=$BATS_TEST_TMPDIR/bench run "$W/common/tools/bench.sh" --from "$BATS_TEST_TMPDIR/bench.log"
    assert_success
    assert_line --regexp '^  09 cascaded, grid sized to the GPU \(block 256\) '

    # The gradebook has its column. No GPU is lent to the class run (a
    # launcher, env, stands for one that would lend it: batch asks this
    # machine for none), so batch ends as it does for a student graded
    # without one: exit 1, the status "no GPU: not graded", and no other
    # failure (the sandbox where it runs).
    mkdir -p "$BATS_TEST_TMPDIR/class/ann/09-scratch"
    cp "$W/solutions/09-scratch/cascaded.cu" "$BATS_TEST_TMPDIR/class/ann/09-scratch/"
    run env CUDA_VISIBLE_DEVICES= GRADE_SANDBOX=auto "$W/grading/batch" --launcher env --step 09 --out "$BATS_TEST_TMPDIR/batch" "$BATS_TEST_TMPDIR/class"
    assert_failure 1
    assert_output --partial "batch: 1/1 students done, 1 failed"
    assert_output --partial "batch: NO GPU: 1 of 1 students could not be graded"
    run head -n 1 "$BATS_TEST_TMPDIR/batch/gradebook.csv"
    assert_output "student,01,02,03,04,05,06,07,08,09,total,max,gpu,status"
    run grep '^"ann",' "$BATS_TEST_TMPDIR/batch/gradebook.csv"
    assert_output --regexp ',"no GPU: not graded"$'
}
