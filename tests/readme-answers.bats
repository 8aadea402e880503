#!/usr/bin/env bats
# No step's README or exercise hands out its answer. The answer lines of a
# step are the code lines of its reference solution that the learner is not
# given (common/tools/answer-lines.sh compares them as code: comments, spacing, the
# braces at the ends, a named constant or its number aside; lines too short to
# be more than an idiom are none). Given is what the learner starts from or
# has already seen:
#
#   - this step's exercise and main.cu (which holds the starting kernel, the
#     previous step's answer), and those of every earlier step;
#   - every earlier step's reference solution: a later README may show it as
#     the kernel the step starts from;
#   - the shared code each of those is built with: its track's harness
#     (common/tracks/<track>/<track>.cu) and the common/ headers it includes, followed on
#     through theirs. A header that no given file includes is not given:
#     common/tracks/reduction/block_sum.cuh holds step 07's answer for step 08.
#
# Every line of the README and of the exercise, comments and prose included,
# is searched for an answer line: a TODO or a sentence can spell it as well as
# a code block. Needs no GPU; a copy without solutions/ (a handout) has no
# answers to look for.

load helpers

setup() {
    CHECK=$WORKBOOK_DIR/common/tools/answer-lines.sh
}

# with_includes FILE...: the FILEs and the common/ headers they include (from
# common/core/ or a track's folder, common/tracks/*/), and those these
# include, each once.
with_includes() {
    local -A seen=()
    local -a todo=("$@")
    local file header
    while [ ${#todo[@]} -gt 0 ]; do
        file=${todo[0]}
        todo=("${todo[@]:1}")
        if [ ! -f "$file" ] || [ -n "${seen[$file]+set}" ]; then continue; fi
        seen[$file]=1
        echo "$file"
        while read -r header; do
            todo+=("$WORKBOOK_DIR"/common/{core,tracks/*}/"$header")
        done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$file")
    done
}

# The files given to each step (see the top of this file), one list per step
# in $GIVEN/STEP: each step has what the one before it had, and that step's
# solution.
setup_file() {
    export GIVEN=$BATS_FILE_TMPDIR/given
    mkdir -p "$GIVEN"
    local step
    local -a files=()
    for step in $(manifest_steps); do
        files+=("$(learner_file "$step")" "$WORKBOOK_DIR/$step/main.cu"
            "$WORKBOOK_DIR/common/tracks/$(step_field "$step" track)/$(step_field "$step" track).cu")
        with_includes "${files[@]}" >"$GIVEN/$step"
        files+=("$WORKBOOK_DIR/solutions/$step"/*.cu "$WORKBOOK_DIR/solutions/$step"/*/*.{cu,h})
    done
}

# check_step STEP [FILE...]: the checker on STEP's README and exercise, or on
# the FILEs in their place. It runs in the workbook, which its files are named
# relative to.
check_step() {
    local step=$1 file
    local -a given=()
    shift
    [ $# -gt 0 ] || set -- "$step/README.md" "$(in_workbook "$(learner_file "$step")")"
    while read -r file; do given+=(--given "$(in_workbook "$file")"); done <"$GIVEN/$step"
    (cd "$WORKBOOK_DIR" && "$CHECK" --solution "$(in_workbook "$(learner_file "$step" solution)")" "${given[@]}" "$@")
}

in_workbook() { echo "${1#"$WORKBOOK_DIR"/}"; }

# A step to plant answers in, STEP, and the code of its first answer line, ANSWER.
pick_step() {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy (a handout): no answers to plant"
    STEP=$(basename "${STEP_DIRS[0]}")
    ANSWER=$(check_step "$STEP" --list | head -n 1)
    ANSWER=${ANSWER#*: }
    ANSWER=$(sed -E 's|[[:space:]]*//.*||' <<<"$ANSWER")
    [ -n "$ANSWER" ] || fail "$STEP: its solution has no answer line"
}

@test "readme-answers: no step's README or exercise holds a line of its solution that the step does not give" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy (a handout): no answers to look for"
    local dir step found=""
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        run check_step "$step"
        case $status in
        0) ;;
        1) found+="$output"$'\n' ;;
        *) fail "$step: the checker failed: $output" ;;
        esac
    done
    [ -z "$found" ] || fail "$(printf 'These lines give away the answer of their step (under each, the line of the solution it gives):\n%s' "$found")"
}

@test "readme-answers: every step's solution has answer lines to look for" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy (a handout): no answers to look for"
    local dir step
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        run check_step "$step" --list
        assert_success
        [ -n "$output" ] || fail "$step: no line of its solution counts as an answer, so none could be found"
    done
}

@test "readme-answers: starting code shown in full, and the earlier solutions, give nothing away" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy (a handout): no answers to look for"
    local dir step readme file
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        readme=$BATS_TEST_TMPDIR/$step.md
        {
            echo "You start from this kernel:"
            printf '\n```cuda\n'
            cat "$dir/main.cu"
            printf '```\n\nand what came before:\n\n'
            while read -r file; do
                case $file in "$WORKBOOK_DIR"/solutions/*) sed 's/^/    /' "$file" ;; esac
            done <"$GIVEN/$step"
        } >"$readme"
        run check_step "$step" "$readme"
        [ "$status" -eq 0 ] || fail "$(printf '%s: a README of given code only is refused:\n%s' "$step" "$output")"
    done
}

@test "readme-answers: an answer line planted in a README's code block is found, however it is spaced" {
    pick_step
    local readme=$BATS_TEST_TMPDIR/README.md tight
    tight=$(sed -E 's/ *([^A-Za-z0-9_ ]) */\1/g' <<<"$ANSWER")
    printf 'Nothing to see.\n\n```cuda\n%s\n```\n' "$tight" >"$readme"
    run check_step "$STEP" "$readme"
    assert_failure 1
    assert_line "$readme:4: $tight"
    assert_line --partial "= solutions/$STEP/"
    assert_line --partial "$ANSWER"
}

@test "readme-answers: an answer line wrapped over two lines of prose, in inline code, is found" {
    pick_step
    local readme=$BATS_TEST_TMPDIR/README.md first rest
    first=${ANSWER% *}
    rest=${ANSWER##* }
    printf 'Write `%s\n%s` and you are done.\n' "$first" "$rest" >"$readme"
    run check_step "$STEP" "$readme"
    assert_failure 1
    assert_line --partial "$readme:1-2: "
}

@test "readme-answers: an answer spelled in a TODO of the exercise is found" {
    pick_step
    local exercise
    exercise=$BATS_TEST_TMPDIR/$(basename "$(learner_file "$STEP")")
    cp "$(learner_file "$STEP")" "$exercise"
    printf '    // TODO: %s\n' "$ANSWER" >>"$exercise"
    run check_step "$STEP" "$exercise"
    assert_failure 1
    assert_line --partial "$exercise:$(wc -l <"$exercise"): // TODO: "
}

# The checker's rules on a made-up step: its given file, its solution.
made_up_step() {
    GIVEN_CU=$BATS_TEST_TMPDIR/given.cu
    SOLUTION_CU=$BATS_TEST_TMPDIR/solution.cu
    printf '%s\n' '__global__ void add_up(const int *in, int *out)' '{' \
        '    int v = 0;' '    out[blockIdx.x] = v;' '}' >"$GIVEN_CU"
    printf '%s\n' 'enum { LANES = 32 };' '' '__global__ void add_up(const int *in, int *out)' '{' \
        '    int v = 0;' '#pragma unroll' '    for (int lane = 0; lane < LANES; lane++)' \
        '        v += in[lane];' '    __syncthreads();' '    out[blockIdx.x] = v;  // once' '}' >"$SOLUTION_CU"
}

@test "readme-answers: idioms and given lines may be named; a constant written as its number is still the answer" {
    made_up_step
    local readme=$BATS_TEST_TMPDIR/README.md
    # __syncthreads() and #pragma unroll are idioms, v += in[lane] is too
    # short to tell, and the rest is given.
    printf '%s\n' 'Start from `int v = 0;`, end with `out[blockIdx.x] = v;`, and mind' \
        'the `__syncthreads()`. A `#pragma unroll` helps; `v += in[lane]` adds.' >"$readme"
    run "$CHECK" --solution "$SOLUTION_CU" --given "$GIVEN_CU" "$readme"
    assert_success
    assert_output ""
    printf '%s\n' '    for (int lane = 0; lane < 32; lane++)' >>"$readme"
    run "$CHECK" --solution "$SOLUTION_CU" --given "$GIVEN_CU" "$readme"
    assert_failure 1
    assert_output "$(printf '%s\n' "$readme:3: for (int lane = 0; lane < 32; lane++)" \
        "    = $SOLUTION_CU:7: for (int lane = 0; lane < LANES; lane++)")"
}
