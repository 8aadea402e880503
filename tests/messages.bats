#!/usr/bin/env bats
# What the grader and the steps say to people: each grading script's --help,
# the launch audit's findings, the commands each step's README lists. Needs
# no GPU.

load helpers

# The fake programs here are steered by variables that the grader's sandbox
# would clear: what is tested is the grading (tests/confine.bats tests the sandbox).
export GRADE_SANDBOX=none

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

# A step whose program writes the records among the lines of $FAKE_OUTPUT
# (printf %b) to the file --records names, and exits with $FAKE_STATUS; the
# grading library loaded for it as a step's test file loads it.
fake_step() {
    local fake=$BATS_TEST_TMPDIR/workbook
    mkdir -p "$fake/04-fake"
    printf 'print-program:\n\t@echo prog\nprint-sanitize-args:\n\t@echo --check -n 1 -b 256\n' >"$fake/04-fake/Makefile"
    cat >"$fake/04-fake/prog" <<'SCRIPT'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do case $1 in --write-plans) : >"$2"; exit 0 ;; --records) records=$2; shift 2 ;; *) shift ;; esac; done
printf '%b' "$FAKE_OUTPUT" >"$records"
exit "${FAKE_STATUS:-0}"
SCRIPT
    chmod +x "$fake/04-fake/prog"
    STEP=04-fake
    source "$WORKBOOK_DIR/grading/lib.bash"
    WORKBOOK_DIR=$fake
    GRADE_RESULTS=$BATS_TEST_TMPDIR/results
    unset GRADE_SEED
}

# audited_calls N FINDING...: the records of N audited calls at sizes 1..N,
# each with the findings given (one record each), then the harness's summary.
audited_calls() {
    local n=$1 i f
    shift
    for ((i = 1; i <= n; i++)); do
        printf 'check\\tstep=04-fake\\tn=%d\\tresult=correct\\n' "$i"
        printf 'audit\\tstep=04-fake\\tn=%d\\tblock=256\\tkernels=1\\n' "$i"
        for f in "$@"; do printf 'finding\\tstep=04-fake\\tn=%d\\tblock=256\\tmessage=%s\\n' "$i" "$f"; done
    done
    printf 'summary\\tstep=04-fake\\tresult=audit\\n'
}

@test "a finding that every audited call makes is said once, with the count of calls" {
    fake_step
    local copy="your sum_fake made a copy of 4 bytes, device to host: the result must be computed on the GPU"
    export FAKE_STATUS=1
    FAKE_OUTPUT=$(audited_calls 8 "$copy" "your sum_fake launched 2 kernels")
    export FAKE_OUTPUT
    # The launch audit test, and a correctness test whose run the audit failed.
    for test in "grade_launch_audit 256 1 2 3 4 5 6 7 8" "grade_check 256 1 2 3 4 5 6 7 8"; do
        run $test
        assert_failure
        assert_equal "$(grep -c "made a copy of 4 bytes" <<<"$output")" 1
        assert_line "  $copy -- in 8 of the 8 plans audited"
        assert_line "  your sum_fake launched 2 kernels -- in 8 of the 8 plans audited"
    done
    # Made once, it is said as it is.
    FAKE_OUTPUT=$(audited_calls 1 "$copy")
    run grade_launch_audit 256 1
    assert_failure
    assert_line "  $copy"
}

@test "every step's README lists make explain with its other commands, in the same words, and make sanitize's every tool" {
    # The tools make sanitize runs, as a stand-in compute-sanitizer is asked for them.
    printf '#!/bin/sh\necho "$2" >>%q\n' "$BATS_TEST_TMPDIR/tools" >"$BATS_TEST_TMPDIR/compute-sanitizer"
    chmod +x "$BATS_TEST_TMPDIR/compute-sanitizer"
    COMPUTE_SANITIZER=$BATS_TEST_TMPDIR/compute-sanitizer run "$WORKBOOK_DIR/common/tools/sanitize.sh" /bin/true
    assert_success
    grep -qx memcheck "$BATS_TEST_TMPDIR/tools" || fail "the stand-in compute-sanitizer was not asked for memcheck"
    local dir n block tool
    for dir in "${STEP_DIRS[@]}"; do
        dir=${dir%/}
        n=$(basename "$dir" | cut -c1-2)
        # The block of commands around `make -C .. grade EX=NN` (up to blank lines or a fence).
        # (The command at the start of a line: a code block's, not prose's.)
        block=$(awk -v g="make -C .. grade EX=$n" '/^ *(```)?$/ { if (found) exit; blk = ""; next }
            { blk = blk $0 "\n"; line = $0; sub(/^ +/, "", line) } index(line, g) == 1 { found = 1 } END { printf "%s", found ? blk : "" }' "$dir/README.md")
        [ -n "$block" ] || fail "$dir/README.md lists no make -C .. grade EX=$n"
        grep -Eq "^ *make -C \.\. explain EX=$n +# the lines of your file that ncu blames, and why$" <<<"$block" ||
            fail "$(printf '%s/README.md: its commands list no make -C .. explain EX=%s in the words of the others:\n%s' "$dir" "$n" "$block")"
        while read -r tool; do
            grep -E "^ *make -C \.\. sanitize EX=$n " <<<"$block" | grep -q "$tool" ||
                fail "$dir/README.md: its make sanitize line does not name $tool, which make sanitize runs"
        done <"$BATS_TEST_TMPDIR/tools"
    done
}
