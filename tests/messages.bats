#!/usr/bin/env bats
# What the grader and the steps say to people: each grading script's --help,
# the launch audit's findings, the commands each step's README lists. Needs
# no GPU.

load helpers

# The header comment of a script, as --help should print it: its lines after
# #!, up to the first line that is not a comment, without the leading "# ".
header_of() {
    awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$1"
}

@test "every grading script's --help prints its header comment, and none of its code" {
    local script count=0
    for script in "$WORKBOOK_DIR"/grading/*; do
        [ -f "$script" ] && [ -x "$script" ] && grep -q -- '--help' "$script" || continue
        run timeout 20 "$script" --help </dev/null
        assert_success
        assert_equal "$output" "$(header_of "$script")"
        count=$((count + 1))
    done
    # grade, batch, calibrate, report and integrity at least.
    [ "$count" -ge 5 ] || fail "only $count grading scripts with --help found"
}
