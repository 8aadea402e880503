#!/usr/bin/env bats
# One plan per grading (plans_ready, grading/lib.bash): the learner's planner
# runs once per step, before any other run, for every size and block that
# any of the step's tests will use, and every run -- the checks, the timed
# run, the profiled run, the sanitizers' -- replays those plans (--plans), so
# that no run's plan can depend on which test asked. And the sanitizers'
# sizes and blocks: make sanitize's, with more drawn from GRADE_SEED. On the
# fake step, its program logging its arguments; no GPU.

load grading-helpers

# The fake ncu and compute-sanitizer, each logging its arguments to $FAKE_LOG too
# (a run's; not a question to the tool itself, such as --help).
logging_tools() {
    fake_tools
    local tool
    for tool in ncu compute-sanitizer; do
        mv "$TOOLS/$tool" "$TOOLS/real-$tool"
        printf '#!/usr/bin/env bash\n[ "$1" = --help ] || echo "%s $*" >>"$FAKE_LOG"\nexec "%s" "$@"\n' "$tool" "$TOOLS/real-$tool" >"$TOOLS/$tool"
        chmod +x "$TOOLS/$tool"
    done
}

# values OPTION LINE: the comma-separated values of OPTION in LINE, one a line.
values() {
    local previous="" word
    for word in $2; do
        [ "$previous" = "$1" ] && tr ',' '\n' <<<"$word"
        previous=$word
    done
    return 0
}

@test "the planner runs once, first, for every size and block of every test; every run replays its plans" {
    use_fake_step
    logging_tools
    export FAKE_LOG=$BATS_TEST_TMPDIR/calls
    GRADE_SEED=7
    FAKE_OUTPUT=$(record_line summary step=04-fake result=correct)
    run grade_check 32
    assert_success
    # (What the fake ncu writes, before the timed test: it starts the lesson's profile.)
    FAKE_CSV=$(lesson_csv 220 80)
    run grade_check_timed
    run grade_lesson
    assert_success
    run grade_sanitize
    assert_success
    run grade_launch_audit
    local plans first line n b calls=0
    plans=$(plans_file)
    first=$(head -n 1 "$FAKE_LOG")
    [[ $first == "--write-plans $plans "* ]] || fail "the first run is not the planning: $first"
    [ "$(grep -c -- '--write-plans' "$FAKE_LOG")" -eq 1 ] || fail "planned more than once: $(cat "$FAKE_LOG")"
    while read -r line; do
        calls=$((calls + 1))
        [[ " $line " == *" --plans $plans "* ]] || fail "a run without the grading's plans: $line"
        # compute-sanitizer and ncu are called with the program's command; their own options name no size.
        for n in $(values -n "$line"); do
            values -n "$first" | grep -qxF -- "$n" || fail "size $n of '$line' was not planned (planned: $first)"
        done
        for b in $(values -b "$line"); do
            values -b "$first" | grep -qxF -- "$b" || fail "block $b of '$line' was not planned (planned: $first)"
        done
    done < <(tail -n +2 "$FAKE_LOG")
    # the checks, the timed run, the audit, the profiled run, the sanitizers' two
    [ "$calls" -ge 6 ] || fail "only $calls runs: $(cat "$FAKE_LOG")"
    grep -q '^ncu ' "$FAKE_LOG" || fail "ncu did not run"
    grep -q '^compute-sanitizer ' "$FAKE_LOG" || fail "compute-sanitizer did not run"
}

@test "a planning that fails fails every run with its message, and is not tried again" {
    use_fake_step
    export FAKE_LOG=$BATS_TEST_TMPDIR/calls
    export FAKE_PLANS_STATUS=3 FAKE_PLANS_OUTPUT='prog: your host code stopped while planning its launches: boom\n'
    FAKE_OUTPUT=$(record_line summary step=04-fake result=correct)
    run grade_check 32
    assert_failure
    assert_output --partial "your host code stopped while planning its launches: boom"
    assert_verdict "$GRADE_RESULTS/04/check-32" test=check-32 result=fail
    run grade_check_timed
    assert_failure
    assert_output --partial "your host code stopped while planning its launches: boom"
    [ "$(wc -l <"$FAKE_LOG")" -eq 1 ] || fail "ran again after the planning failed: $(cat "$FAKE_LOG")"
    [ ! -e "$(plans_file)" ] || fail "a failed planning left plans behind"
}

@test "the sanitizers' runs: make sanitize's, with two more checked sizes and one more block drawn from the seed" {
    use_fake_step
    # The fake step's make sanitize: --check -n 1,33 -b 64; its one block, 32,
    # and its correctness tests' sizes at block 32 (check_sizes), up to 67108864.
    local first runs seen=""
    for GRADE_SEED in 1 2 3 4 5 6 7 8; do
        rm -rf "$(verdict_dir)"
        runs=$(sanitize_runs)
        first=$(head -n 1 <<<"$runs")
        [[ $first == "--check -n 1,33,"*" -b 64,32" ]] || fail "seed $GRADE_SEED: $first"
        [ "$(sanitize_runs)" = "$runs" ] || fail "seed $GRADE_SEED: drawn twice, differently"
        local n count=0
        for n in $(values -n "$first"); do
            count=$((count + 1))
            check_sizes 32 | grep -qxF -- "$n" || fail "seed $GRADE_SEED: $n is not a checked size"
            [ "$n" -le 33 ] || fail "seed $GRADE_SEED: $n is larger than make sanitize's sizes"
        done
        [ "$count" -eq 4 ] || fail "seed $GRADE_SEED: $count sizes in $first"
        seen+=" $(values -n "$first" | paste -sd, -)"
    done
    # Eight seeds do not all draw the same sizes.
    [ "$(tr ' ' '\n' <<<"$seen" | sort -u | grep -c .)" -gt 1 ] || fail "every seed drew the same: $seen"
}
