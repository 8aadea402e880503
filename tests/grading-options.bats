#!/usr/bin/env bats
# The options of grading/grade and grading/batch: what each refuses, with
# exit 2, before grading or building anything; and the limits grade hands
# its tests. No GPU.

load grading-helpers

@test "grade refuses a step number that is not one or two digits" {
    for bad in 4x 004 x; do
        run "$WORKBOOK_DIR/grading/grade" --step "$bad"
        assert_failure 2
        assert_output --partial "bad step '$bad'"
    done
    # 9 for 09, as make's EX=9: a step steps.conf does not list.
    run "$WORKBOOK_DIR/grading/grade" --step 9
    assert_failure 2
    assert_output --partial "no step 09 in steps.conf"
}

@test "grade refuses an unknown option" {
    run "$WORKBOOK_DIR/grading/grade" --bogus
    assert_failure 2
}

@test "grade refuses a hand-in that is a file, or nothing, saying which" {
    run "$WORKBOOK_DIR/grading/grade" --hand-in "$WORKBOOK_DIR/README.md"
    assert_failure 2
    assert_output --partial "README.md: not a folder (a hand-in is the folder that holds the learner's files)"
    run "$WORKBOOK_DIR/grading/grade" --hand-in "$BATS_TEST_TMPDIR/none"
    assert_failure 2
    assert_output --partial "none: no such folder"
}

@test "grade refuses a step that steps.conf does not list" {
    run "$WORKBOOK_DIR/grading/grade" --step 99
    assert_failure 2
    assert_output --partial "no step 99 in steps.conf"
}

@test "grade refuses a limit that is not a whole number, before grading: it would be charged to the learner" {
    local limit
    for limit in GRADE_TIMEOUT GRADE_MEMORY GRADE_BUILD_TIMEOUT GRADE_SANITIZE_TIMEOUT GRADE_GPU_WAIT GRADE_SANITIZE_SLOTS; do
        run env "$limit=abc" "$WORKBOOK_DIR/grading/grade" --step 04
        assert_failure 2
        assert_output --partial "$limit=abc: a whole number"
    done
    run env GRADE_TIMEOUT=0 "$WORKBOOK_DIR/grading/grade" --step 04
    assert_failure 2
    run env GRADE_SANITIZE_SLOTS=0 "$WORKBOOK_DIR/grading/grade" --step 04
    assert_failure 2
}

@test "batch refuses a bad --step before building anything" {
    # (4 for 04 is accepted: tests/grading-batch.bats grades with --step 4.)
    mkdir -p "$BATS_TEST_TMPDIR/class/alice"
    for bad in 9 4x 004 ""; do
        run "$WORKBOOK_DIR/grading/batch" --step "$bad" --out "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/class"
        assert_failure 2
        refute_output --partial "== alice"
    done
}

@test "batch refuses --step without a value" {
    run "$WORKBOOK_DIR/grading/batch" --step
    assert_failure 2
    assert_output --partial "--step needs a value"
}

# limits_handed NAME=VALUE... -- OPTIONS...: grade --jobs 8 OPTIONS with those
# settings, through a stand-in bats that notes the limits the tests would run
# under and a make that builds nothing: what grade hands its tests, without
# grading.
limits_handed() {
    local fake=$BATS_TEST_TMPDIR/bin settings=()
    while [ "$1" != -- ]; do settings+=("$1"); shift; done
    shift
    mkdir -p "$fake"
    printf '#!/bin/sh\necho "$GRADE_TIMEOUT ${GRADE_SANITIZE_TIMEOUT:-unset} ${GRADE_AT_ONCE:-unset}" >"%s"\n' "$BATS_TEST_TMPDIR/limits" >"$fake/bats"
    printf '#!/bin/sh\nexit 0\n' >"$fake/make"
    chmod +x "$fake/bats" "$fake/make"
    rm -f "$BATS_TEST_TMPDIR/limits"
    run env PATH="$fake:$PATH" "${settings[@]}" "$WORKBOOK_DIR/grading/grade" --results "$BATS_TEST_TMPDIR/results" --jobs 8 "$@"
}

# (The steps at once, GRADE_AT_ONCE, also tell the lesson's ncu to wait
# for the GPU asleep: tests/grading-lesson-sanitizer.bats.)
@test "grade --jobs N: each run may take the steps at once times its limit alone, said, and the steps at once are handed on" {
    # The first three steps of this copy (a handout may hold only some).
    local steps
    mapfile -t steps < <(cd "$WORKBOOK_DIR" && ls -d [0-9][0-9]-*/ | cut -c1-2 | head -n 3)
    [ ${#steps[@]} -eq 3 ] || skip "this copy holds fewer than three steps"
    limits_handed GRADE_TIMEOUT=10 -- --step "${steps[0]},${steps[1]},${steps[2]}"
    assert_output --partial "grade: 3 steps at once share the GPU: a run may take 3 times its limit alone, 30 s (GRADE_TIMEOUT)"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/limits")" "30 unset 3"
    limits_handed GRADE_TIMEOUT=10 GRADE_SANITIZE_TIMEOUT=7 -- --step "${steps[0]},${steps[1]}"
    assert_output --partial "a run may take 2 times its limit alone, 20 s (GRADE_TIMEOUT), a sanitizer run 14 s"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/limits")" "20 14 2"
    # One step, or one at a time: the limits as they are.
    # (A count left in the environment is not taken for grade's.)
    limits_handed GRADE_TIMEOUT=10 GRADE_AT_ONCE=4 -- --step "${steps[0]}"
    refute_output --partial "steps at once"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/limits")" "10 unset 1"
    limits_handed GRADE_TIMEOUT=10 -- --step "${steps[0]},${steps[1]}" --jobs 1
    refute_output --partial "steps at once"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/limits")" "10 unset 1"
}
