#!/usr/bin/env bats
# Each step's README states what the grader checks, with the numbers of its
# entry in steps.conf: common/tools/pass-conditions.sh writes the table, make
# readme-figures puts it between <!-- pass:NN --> and <!-- /pass -->, and
# these tests fail when a README's table is not the one steps.conf gives, or
# when the table's points are not the grader's. Needs no GPU.

load helpers

PASS=$WORKBOOK_DIR/common/tools/pass-conditions.sh

# block_of README NN: what stands between the step's pass markers.
block_of() { sed -n "/^<!-- pass:$2 -->\$/,/^<!-- \\/pass -->\$/p" "$1" | sed '1d;$d'; }

@test "pass-conditions.sh: --help, and a clear refusal of no step or an unknown one" {
    run "$PASS" --help
    assert_success
    assert_output --partial "pass-conditions.sh STEP"
    run "$PASS"
    assert_failure 2
    run "$PASS" 99
    assert_failure 2
    assert_output --partial "no step '99'"
}

@test "every step's README shows, under Your task, the grader's conditions as steps.conf gives them" {
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir") number=${step%%-*}
        readme=$dir/README.md
        grep -q "^<!-- pass:$number -->$" "$readme" || fail "$step/README.md has no <!-- pass:$number --> block"
        # Under "Your task", before the hints.
        awk -v marker="<!-- pass:$number -->" '/^## Your task/ { task = 1 } /^## Hints/ { task = 0 } $0 == marker { exit !task }' "$readme" ||
            fail "$step/README.md's pass block is not under \"Your task\""
        expected=$(printf '\n%s' "$("$PASS" "$number")")
        [ "$(block_of "$readme" "$number")" = "$expected" ] ||
            fail "$step/README.md's pass conditions are not steps.conf's: run make readme-figures (diff: $(diff <(block_of "$readme" "$number") <(echo "$expected") | head -n 6))"
    done
}

@test "the table's points are those the grader's tests of the step are worth" {
    source "$WORKBOOK_DIR/grading/common.bash"
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        write_step_tests "$step" "$BATS_TEST_TMPDIR" || fail "cannot write $step's tests"
        # The points of each test the grader wrote, by the kind the report gives it.
        total=0
        while read -r name; do
            case $name in
            *" builds") kind=build ;;
            *" correct "*) kind=correct ;;
            *" faster "*) kind=speed ;;
            *" lesson: "*) kind=lesson ;;
            *" clean under compute-sanitizer") kind=sanitize ;;
            *" integrity of your file") kind=integrity ;;
            *" launch audit") kind=audit ;;
            *) fail "a test the table does not know: $name" ;;
            esac
            total=$((total + $(step_points "$step" "$kind")))
        done < <(sed -n 's/^@test "\([^"]*\)".*/\1/p' "$BATS_TEST_TMPDIR/$step.bats")
        run "$PASS" "$step"
        assert_line --partial "($total points in all;"
    done
}

@test "a threshold changed in steps.conf changes the README's table, and make readme-figures writes it there" {
    [ -d "$WORKBOOK_DIR/05-reduction-sequential" ] || skip "no step 05 in this copy"
    local copy=$BATS_TEST_TMPDIR/wb
    mkdir -p "$copy"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude='./*/build' -cf - common grading steps.conf 05-reduction-sequential) |
        tar -xf - -C "$copy"
    sed -i 's/^\(    x_start=\)1\.03$/\11.07/' "$copy/steps.conf"
    grep -q '^    x_start=1.07$' "$copy/steps.conf" || fail "the test's edit did not apply"
    run "$copy/common/tools/pass-conditions.sh" 05
    assert_output --partial 'at least 1.07x the starting kernel'
    # The README still holds the old table until readme-figures writes the new one.
    [ "$(block_of "$copy/05-reduction-sequential/README.md" 05)" != "$(printf '\n%s' "$output")" ]
    run "$copy/common/tools/readme-figures.sh" "$BATS_TEST_TMPDIR/no-bench.log" "$copy"
    assert_failure 1  # no bench log: no figure, but the pass conditions all the same
    assert_output --partial "05-reduction-sequential/README.md (pass conditions)"
    block_of "$copy/05-reduction-sequential/README.md" 05 | grep -q 'at least 1.07x the starting kernel'
    # Nothing else of the README changed.
    diff <(sed '/^<!-- pass:05 -->$/,/^<!-- \/pass -->$/d' "$WORKBOOK_DIR/05-reduction-sequential/README.md") \
         <(sed '/^<!-- pass:05 -->$/,/^<!-- \/pass -->$/d' "$copy/05-reduction-sequential/README.md")
}
