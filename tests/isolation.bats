#!/usr/bin/env bats
# The learner's code never runs in the program that checks and times it
# (common/plan.h): no function the learner's file defines is linked into
# ./PROGRAM, the program that takes --records; its planner, build/PROGRAM.plan,
# holds them. Needs no GPU: nm reads the programs the build made.

load helpers

# global_text FILE: the global functions FILE defines, one a line, sorted.
global_text() { nm --defined-only "$1" | awk '$2 == "T" { print $3 }' | sort -u; }
# defined FILE: every symbol FILE defines, sorted.
defined() { nm --defined-only "$1" | awk '{ print $3 }' | sort -u; }

@test "no function of the learner's file is linked into the program that takes --records, for every step" {
    command -v nm >/dev/null || skip "no nm here"
    local dir name program object checked=0 learner linked
    for dir in "${STEP_DIRS[@]}"; do
        name=$(program_of "$dir")
        for program in "$name" "${name}_solution"; do
            [ -x "$dir$program" ] || continue
            object=$dir/build/$program.o
            [ -f "$object" ] || fail "$program was built without its learner object $object"
            learner=$(global_text "$object")
            [ -n "$learner" ] || fail "$object defines no function: nothing to check"
            linked=$(comm -12 <(echo "$learner") <(defined "$dir$program"))
            [ -z "$linked" ] || fail "$(basename "$dir")/$program links the learner's $(echo $linked)"
            # They are in the planner, where the learner's host code runs.
            [ -z "$(comm -23 <(echo "$learner") <(defined "$dir/build/$program.plan"))" ] ||
                fail "$(basename "$dir")/build/$program.plan lacks some of the learner's functions"
            checked=$((checked + 1))
        done
    done
    [ "$checked" -ge "${#STEP_DIRS[@]}" ] || fail "only $checked programs were built to check"
}
