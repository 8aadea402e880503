#!/usr/bin/env bats
# tests/guards/run, the mutation check of the grader's guards: its options,
# its list, a patch that does not apply (an error, neither caught nor
# missed), and one real break, the cheapest, caught. Needs no GPU.

load helpers

GUARDS=$WORKBOOK_DIR/tests/guards

# The state of the checkout: what git says of it, its changes included.
checkout_state() {
    git -C "$WORKBOOK_DIR" status --porcelain --untracked-files=all
    git -C "$WORKBOOK_DIR" diff
}

@test "guards/run: a bad option, a missing value or an unknown break exits 2, saying why" {
    run "$GUARDS/run" --bogus
    assert_failure 2
    assert_output --partial "unknown option '--bogus'"
    run "$GUARDS/run" --only
    assert_failure 2
    assert_output --partial "--only needs a value"
    run "$GUARDS/run" --jobs 0
    assert_failure 2
    run "$GUARDS/run" no-such-break
    assert_failure 2
    assert_output --partial "no such break: no-such-break"
}

@test "guards/run --list names every patch, what it breaks and the tests that must catch it" {
    run "$GUARDS/run" --list
    assert_success
    local patch name count=0
    for patch in "$GUARDS"/*.patch; do
        name=$(basename "$patch" .patch)
        assert_line --regexp "^$name: [^ ]"
        grep -q '^# caught-by: tests/[a-z0-9-]*\.bats: .' "$patch" || fail "$name names no test that must catch it"
        count=$((count + 1))
    done
    [ "$count" -ge 10 ] || fail "only $count patches in $GUARDS"
    [ "$(grep -c '^    caught by tests/' <<<"$output")" -ge "$count" ]
}

@test "guards/run: a patch that does not apply is an error, neither caught nor missed" {
    local patch=$BATS_TEST_TMPDIR/stale.patch
    {
        echo "# breaks: nothing: its hunk matches no line of the file"
        echo "# caught-by: tests/grading-audit.bats: the launch audit test fails when fewer plans"
        echo "--- a/grading/lib.bash"
        echo "+++ b/grading/lib.bash"
        echo "@@ -1,1 +1,1 @@"
        echo "-a line that lib.bash does not hold"
        echo "+another"
    } >"$patch"
    run "$GUARDS/run" "$patch"
    assert_failure 1
    assert_line --regexp '^ERROR +stale +the patch does not apply'
    assert_line "guards: 1 breaks, 0 caught, 0 missed, 0 not checked, 1 errors"
}

@test "guards/run: a real break (a plan count the audit ignores) is caught, and the checkout is left as it was" {
    local before=""
    git -C "$WORKBOOK_DIR" rev-parse 2>/dev/null && before=$(checkout_state)
    run "$GUARDS/run" --only audit-ignores-plan-count
    assert_success
    assert_line --regexp '^caught +audit-ignores-plan-count +by tests/grading-audit\.bats \(1 of 1 failed\)$'
    assert_line "guards: 1 breaks, 1 caught, 0 missed, 0 not checked, 0 errors"
    [ -z "$before" ] || assert_equal "$(checkout_state)" "$before"
}
