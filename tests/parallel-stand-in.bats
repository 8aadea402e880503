#!/usr/bin/env bats
# grading/parallel-stand-in/parallel: what bats --jobs asks of GNU parallel,
# where GNU parallel is missing (grading/grade --jobs puts it on PATH then).
# bats runs with it as it would with GNU parallel: files side by side, their
# output whole and in the files' order, a failure counted. Needs no GPU.

load helpers

STAND_IN=$WORKBOOK_DIR/grading/parallel-stand-in

setup() {
    D=$BATS_TEST_TMPDIR
    mkdir -p "$D/files" "$D/meet"
    # Two files that can pass only side by side: each waits for the other.
    for me in a b; do
        other=$([ $me = a ] && echo b || echo a)
        printf '@test "%s meets %s" {\n  touch "$MEET/%s"\n  for _ in $(seq 200); do [ -e "$MEET/%s" ] && return 0; sleep 0.05; done\n  false\n}\n' \
            "$me" "$other" "$me" "$other" >"$D/files/$me.bats"
    done
    # A third, quick, whose tests end before the two above: still shown after them.
    printf '@test "c passes" { true; }\n@test "c skips" { skip "for a reason"; }\n' >"$D/files/c.bats"
}

@test "bats --jobs with the stand-in: files side by side, output whole and in the files' order" {
    run env PATH="$STAND_IN:$(path_without parallel)" MEET="$D/meet" \
        bats --jobs 3 --no-parallelize-within-files --formatter tap "$D/files/a.bats" "$D/files/b.bats" "$D/files/c.bats"
    assert_success
    assert_output "1..4
ok 1 a meets b
ok 2 b meets a
ok 3 c passes
ok 4 c skips # skip for a reason"
}

@test "a failed test fails the run, and the failed file's lines stay together" {
    printf '@test "c fails" { echo why; false; }\n' >"$D/files/c.bats"
    run env PATH="$STAND_IN:$(path_without parallel)" MEET="$D/meet" \
        bats --jobs 3 --no-parallelize-within-files --formatter tap "$D/files/a.bats" "$D/files/b.bats" "$D/files/c.bats"
    assert_failure
    assert_line --index 3 'not ok 3 c fails'
    assert_line --index 6 '# why'
    refute_line --partial 'parallel (grading/parallel-stand-in)'
}

@test "a call of another form is refused, saying what is understood" {
    run "$STAND_IN/parallel" --jobs 2 echo {} ::: x y
    [ "$status" -eq 255 ]
    assert_output --partial "only 'parallel --keep-order --jobs N COMMAND ... ::: ITEM...' is understood"
    run "$STAND_IN/parallel" --keep-order --jobs 2 echo {}
    [ "$status" -eq 255 ]
    # Items are quoted into the command as GNU parallel quotes them.
    run "$STAND_IN/parallel" --keep-order --jobs 2 printf '%s\\n' '{}' ::: 'two words' '$HOME;' "it's"
    assert_success
    assert_output "two words
\$HOME;
it's"
}
