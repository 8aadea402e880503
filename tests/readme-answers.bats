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
# a code block. The same files are searched for the pieces of the answer lines
# (answer-lines.sh --fragments: index expressions, bound tests, what is
# computed into what), wherever the README comes before its last hint: an
# answer given as an expression in a sentence leaves as little to do as a
# line. Needs no GPU; a copy without solutions/ (a handout) has no answers to
# look for.

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
    (cd "$WORKBOOK_DIR" && "$CHECK" ${FRAGMENTS:+--fragments} --solution "$(in_workbook "$(learner_file "$step" solution)")" "${given[@]}" "$@")
}

# check_fragments STEP [FILE...]: check_step, for the pieces of the answer lines.
check_fragments() { FRAGMENTS=1 check_step "$@"; }

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

# found_in_every_step CHECK: what CHECK STEP (check_step, check_fragments)
# finds in each step, together; status 1, with the message, where the
# checker itself failed.
found_in_every_step() {
    local dir step
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        run "$1" "$step"
        case $status in
        0) ;;
        1) printf '%s\n' "$output" ;;
        *) echo "$step: the checker failed: $output"; return 1 ;;
        esac
    done
}

@test "readme-answers: no step's README or exercise holds a line of its solution that the step does not give" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy (a handout): no answers to look for"
    local found
    found=$(found_in_every_step check_step) || fail "$found"
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

@test "readme-answers: starting code shown in full, and the earlier solutions, give nothing away, as a line or a piece" {
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
        run check_fragments "$step" "$readme"
        [ "$status" -eq 0 ] || fail "$(printf '%s: a README of given code only is refused a piece:\n%s' "$step" "$output")"
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

@test "readme-answers: no step's README before its last hint, or exercise, holds a piece of its solution" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy (a handout): no answers to look for"
    local found
    found=$(found_in_every_step check_fragments) || fail "$found"
    [ -z "$found" ] || fail "$(printf 'These lines give away a piece of the answer of their step before its last hint (under each, the piece and its line of the solution):\n%s' "$found")"
}

# Step 04, whose answer's pieces the planted cases below spell: its index
# (index = 2 * s * tid) and its bound (index < blockDim.x).
need_step_04() {
    [ -f "$WORKBOOK_DIR/solutions/04-reduction-interleaved/reduction_interleaved.cu" ] ||
        skip "no solution of step 04 in this copy: no answers to plant"
    run check_fragments 04-reduction-interleaved --list
    assert_success
    assert_line --partial ": 2*s*tid"
    assert_line --partial ": index<blockDim.x"
}

@test "readme-answers: step 04's README as it was, with the index in its idea, is refused at that line" {
    need_step_04
    local old=8031c69 readme=$BATS_TEST_TMPDIR/README.md
    git -C "$WORKBOOK_DIR" show "$old:04-reduction-interleaved/README.md" >"$readme" 2>/dev/null ||
        skip "no git history with commit $old in this copy"
    run check_fragments 04-reduction-interleaved "$readme"
    assert_failure 1
    assert_line "$readme:63: \`index = 2 * s * tid\`: thread 0 takes the pair at 0, thread 1 the pair at 2s,"
    assert_line --partial "= solutions/04-reduction-interleaved/reduction_interleaved.cu:21: 2*s*tid"
    assert_line --partial "$readme:68: \`index < blockDim.x\`."
}

# readme_with_hints FILE TEXT...: a README of four hints, with one more line of
# prose after them; each TEXT goes in as a line of hint 3 when it starts with
# "3:", of hint 4 with "4:", and in the idea section before them otherwise.
readme_with_hints() {
    local readme=$1 text hint
    shift
    {
        printf '# A step\n\n## The idea\n\n'
        for text in "$@"; do case $text in [34]:*) ;; *) printf '%s\n' "$text" ;; esac; done
        printf '\n## Hints\n'
        for hint in 1 2 3 4; do
            printf '\n<details><summary>Hint %s</summary>\n\nThink about it.\n' "$hint"
            for text in "$@"; do case $text in "$hint":*) printf '%s\n' "${text#?:}" ;; esac; done
            printf '</details>\n'
        done
        printf '\n## Build, run, grade\n\nmake && ./program\n'
    } >"$readme"
}

@test "readme-answers: a piece in prose is found in any spacing and order, wrapped, or in hint 3" {
    need_step_04
    local readme=$BATS_TEST_TMPDIR/README.md
    readme_with_hints "$readme" 'Thread tid starts at `tid*2*s`, the rest is yours.'
    run check_fragments 04-reduction-interleaved "$readme"
    assert_failure 1
    assert_line "$readme:5: Thread tid starts at \`tid*2*s\`, the rest is yours."
    readme_with_hints "$readme" 'Keep the threads with `blockDim.x >' 'index` and let the others wait.'
    run check_fragments 04-reduction-interleaved "$readme"
    assert_failure 1
    assert_line "$readme:5-6: Keep the threads with \`blockDim.x > / index\` and let the others wait."
    readme_with_hints "$readme" '- `index < blockDim.x`: these threads work.'
    run check_fragments 04-reduction-interleaved "$readme"
    assert_failure 1
    assert_line "$readme:5: - \`index < blockDim.x\`: these threads work."
    readme_with_hints "$readme" 'The stride doubles each level.' '3:The pair starts at `index = 2 * s * tid`.'
    run check_fragments 04-reduction-interleaved "$readme"
    assert_failure 1
    assert_line --partial "The pair starts at \`index = 2 * s * tid\`."
}

@test "readme-answers: a row-major index is found written as two subscripts, and a ?: bound" {
    [ -f "$WORKBOOK_DIR/solutions/03-tiled-matmul/tiled_matmul.cu" ] || skip "no solution of step 03 in this copy"
    local readme=$BATS_TEST_TMPDIR/README.md
    readme_with_hints "$readme" 'Thread (tx, ty) loads `A[row][tx + t]`.'
    run check_fragments 03-tiled-matmul "$readme"
    assert_failure 1
    assert_line --partial "= solutions/03-tiled-matmul/tiled_matmul.cu:31: A[row*n+t+tx]"
    readme_with_hints "$readme" 'It loads a zero unless `n > t + tx`.'
    run check_fragments 03-tiled-matmul "$readme"
    assert_failure 1
    assert_line --partial "= solutions/03-tiled-matmul/tiled_matmul.cu:31: t+tx<n"
}

@test "readme-answers: a piece in a TODO of the exercise is found" {
    need_step_04
    local exercise=$BATS_TEST_TMPDIR/reduction_interleaved.cu
    cp "$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved.cu" "$exercise"
    run check_fragments 04-reduction-interleaved "$exercise"
    assert_success
    sed -i '0,\|// TODO:|s||// TODO: start at 2 * s * tid;|' "$exercise"
    grep -q '// TODO: start at 2 \* s \* tid;' "$exercise" || fail "the exercise has no TODO to plant the piece in"
    run check_fragments 04-reduction-interleaved "$exercise"
    assert_failure 1
    assert_line --regexp "^$exercise:[0-9]+: // TODO: start at 2 \\* s \\* tid;"
}

@test "readme-answers: the last hint, idioms, words and the given code may name what they like" {
    need_step_04
    local readme=$BATS_TEST_TMPDIR/README.md
    readme_with_hints "$readme" \
        'The stride doubles each level, and thread 0 takes the first pair; the' \
        'busy threads are contiguous. Each thread loads `in[i]` when `i < n`, adds' \
        '`partial[tid + s]`, waits at `__syncthreads()`, and the block covers' \
        '`blockIdx.x * blockDim.x + threadIdx.x`. The given kernel keeps thread tid' \
        'busy when `tid % (2*s) == 0`, for `(unsigned int s = 1; s < blockDim.x; s *= 2)`.' \
        'Other sums are other answers: `4 * index < blockDim.x`, `index < blockDim.x / 2`.' \
        '4:`unsigned int index = 2 * s * tid;` and `if (index < blockDim.x)`: that is all.'
    run check_fragments 04-reduction-interleaved "$readme"
    assert_success
    assert_output ""
}

@test "readme-answers: a piece of the given code or of an earlier step's solution is no answer, as real steps show" {
    [ -f "$WORKBOOK_DIR/solutions/01-naive-matmul/naive_matmul.cu" ] &&
        [ -f "$WORKBOOK_DIR/solutions/06-reduction-direct/reduction_direct.cu" ] &&
        [ -f "$WORKBOOK_DIR/solutions/07-unrolled/unrolled.cu" ] ||
        skip "no solutions of steps 01, 06 and 07 in this copy"
    local readme=$BATS_TEST_TMPDIR/README.md
    # Step 01's given kernel computes this sum into row; into col it is the answer.
    readme_with_hints "$readme" 'The given kernel: `row = blockIdx.x * blockDim.x + threadIdx.x`, and' \
        'the global index is `threadIdx.x + blockIdx.x * blockDim.x` in any step.'
    run check_fragments 01-naive-matmul "$readme"
    assert_success
    readme_with_hints "$readme" 'Yours: `col = threadIdx.x + blockDim.x * blockIdx.x`.'
    run check_fragments 01-naive-matmul "$readme"
    assert_failure 1
    assert_line --partial "= solutions/01-naive-matmul/naive_matmul.cu:13: col=blockIdx.x*blockDim.x+threadIdx.x"
    # Step 06's second load, which step 07 starts from: its answer, not 07's.
    readme_with_hints "$readme" 'Each thread adds `in[i + blockDim.x]` as it loads.'
    run check_fragments 07-unrolled "$readme"
    assert_success
    run check_fragments 06-reduction-direct "$readme"
    assert_failure 1
    assert_line --partial "= solutions/06-reduction-direct/reduction_direct.cu:22: in[i+blockDim.x]"
}

@test "readme-answers: pieces on a made-up step: given, idiom, constant as its number, what into what" {
    GIVEN_CU=$BATS_TEST_TMPDIR/given.cu
    SOLUTION_CU=$BATS_TEST_TMPDIR/solution.cu
    printf '%s\n' '__global__ void add_up(const int *in, int *out, int n)' '{' \
        '    int row = blockIdx.x * blockDim.x + threadIdx.x;' '    int v = in[row * 4 + 1];' \
        '    out[row] = v;' '}' >"$GIVEN_CU"
    printf '%s\n' 'enum { LANES = 32 };' '__global__ void add_up(const int *in, int *out, int n)' '{' \
        '    int col = blockIdx.x * blockDim.x + threadIdx.x;' '    int v = 0;' \
        '    if (col * LANES + 1 < n)' '        v = in[row * 4 + 1] + in[col * LANES + 1];' \
        '    out[col] = v;' '}' >"$SOLUTION_CU"
    local readme=$BATS_TEST_TMPDIR/README.md
    run "$CHECK" --fragments --solution "$SOLUTION_CU" --given "$GIVEN_CU" --list
    assert_success
    assert_output "$(printf '%s\n' "$SOLUTION_CU:4: col=blockIdx.x*blockDim.x+threadIdx.x" \
        "$SOLUTION_CU:6: col*LANES+1<n" "$SOLUTION_CU:7: in[row*4+1]+in[col*LANES+1]" \
        "$SOLUTION_CU:7: v=in[row*4+1]+in[col*LANES+1]" \
        "$SOLUTION_CU:7: col*LANES+1" "$SOLUTION_CU:7: in[col*LANES+1]")"
    printf '%s\n' 'Take `row = blockIdx.x * blockDim.x + threadIdx.x`, read `in[row * 4 + 1]`,' \
        'set `v = 0` and `out[col] = v`.' >"$readme"
    run "$CHECK" --fragments --solution "$SOLUTION_CU" --given "$GIVEN_CU" "$readme"
    assert_success
    printf '%s\n' 'Read it while `n > 1 + 32 * col`.' >>"$readme"
    run "$CHECK" --fragments --solution "$SOLUTION_CU" --given "$GIVEN_CU" "$readme"
    assert_failure 1
    assert_output "$(printf '%s\n' "$readme:3: Read it while \`n > 1 + 32 * col\`." \
        "    = $SOLUTION_CU:6: col*LANES+1<n   (of: if (col * LANES + 1 < n))" \
        "    = $SOLUTION_CU:7: col*LANES+1   (of: v = in[row * 4 + 1] + in[col * LANES + 1];)")"
    printf '%s\n' 'Set `col = threadIdx.x + blockIdx.x * blockDim.x`.' >"$readme"
    run "$CHECK" --fragments --solution "$SOLUTION_CU" --given "$GIVEN_CU" "$readme"
    assert_failure 1
}
