#!/usr/bin/env bats
# tests/run: about 1 s, 370 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# The integrity test of the learner's file, which needs no GPU, finds nothing
# in good files: every reference solution, every untouched exercise and every
# honest variant. (tests/integrity.bats: the findings on bad ones. Two files,
# so that make test runs them side by side.)

load helpers

# A step's file is checked as its build compiles it: without a GPU, for one
# architecture (the whole list the build would make takes minutes).
setup() {
    one_architecture_without_gpu
}

@test "integrity: every reference solution and every untouched exercise is clean; no solution's module holds what a test refuses unrun" {
    slow_test "every step compiled twice"
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        for which in exercise solution; do
            # A step has its exercise always, its solution where solutions/ has the step.
            [ "$which" = exercise ] || [ -d "$WORKBOOK_DIR/solutions/$step" ] || continue
            file=$(learner_file "$step" "$which")
            [ -f "$file" ] || fail "$step has no $which file $file"
            run "$WORKBOOK_DIR/grading/integrity" "$file"
            [ "$status" -eq 0 ] || fail "$(printf '%s (%s) is not clean:\n%s' "$step" "$which" "$output")"
            [ "$which" = exercise ] || module_refuses_nothing "$dir/build/$(program_of "$dir")_solution.kernels" "$step" ||
                fail "$step's solution: $REFUSED"
        done
    done
}

# An honest learner's file in another style than the solution's (tests/honest):
# helpers, namespaces, cooperative groups, debugging aids. Built in its step's
# folder, as the grader builds a hand-in, each is clean against the object the
# build made (check 6): nvcc's own code (a __device__ function's host
# stand-in) is no difference. This is the grader's mode on every honest
# variant. The check of its own compile (no --object) runs the same checks,
# and is tested on every exercise (make's flags, as here) and solution (a
# file outside a step's folder: the oldest architecture's PTX, every track's
# headers) by the first test; on the honest variants it read, on 2026-12-02,
# the same host code and PTX entries as this build, but for the internal
# names nvcc derives from the file's name.
@test "integrity: every honest variant, built as a hand-in, is clean against its build's object, and its module holds nothing a test refuses unrun" {
    slow_test "every honest variant built and compiled"
    [ -d "$WORKBOOK_DIR/tests/honest" ] || skip "no tests/honest/ here: a copy handed out to a class leaves the answers out"
    local copy=$BATS_TEST_TMPDIR/wb file n dir program
    mkdir -p "$copy"
    (cd "$WORKBOOK_DIR" && tar -cf - --exclude='*/build' --exclude='*_solution' common grading steps.conf [0-9][0-9]-*) |
        tar -xf - -C "$copy"
    for file in "$WORKBOOK_DIR"/tests/honest/*.cu; do
        n=$(basename "$file" | cut -c1-2)
        dir=$(echo "$copy/$n"-*)
        program=$(program_of "$dir")
        cp "$file" "$dir/$program.cu"
        # (Its object, module table and planner: the program's link takes
        # no part of the learner's file, which its module holds.)
        make -s -C "$dir" "build/$program.plan" >/dev/null 2>&1 || fail "$(basename "$file") does not build as $program.cu"
        run "$copy/grading/integrity" --object "$dir/build/$program.o" "$dir/$program.cu"
        [ "$status" -eq 0 ] || fail "$(printf '%s, built, is not clean:\n%s' "$(basename "$file")" "$output")"
        module_refuses_nothing "$dir/build/$program.kernels" "$n" || fail "$(basename "$file"), built: $REFUSED"
    done
}

# module_refuses_nothing TABLE STEP: the module's table (kernels.awk) holds
# nothing that a test of the step refuses before any run: no clock read and
# no ticket without a fence (the sanitizer test), no instruction of a family
# the lesson or the audit leaves out (steps.conf's lesson_forbids and
# audit_forbids). What it holds goes to REFUSED. (On a GPU, tests/mutants/run
# grades these files whole; here a false alarm of the PTX reader shows
# without one.)
module_refuses_nothing() {
    local families
    families=$(source "$WORKBOOK_DIR/common/tools/manifest.bash" &&
        echo "$(step_field "$2" lesson_forbids) $(step_field "$2" audit_forbids)")
    REFUSED=$(awk -F'\t' -v families=" $families " '
        $1 == "clock" || $1 == "unfenced" { print; next }
        $1 == "op" { for (i = 2; i <= NF; i++) if ($i ~ /^family=/ && index(families, " " substr($i, 8) " ")) print }' "$1")
    [ -f "$1" ] || REFUSED="no table $1"
    [ -z "$REFUSED" ]
}
