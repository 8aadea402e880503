# explain.bash: the lines of the learner's file that a failed lesson or speed
# test points at, for the end of its message. grading/lib.bash sources this
# and appends $(explain_where) to those two failure messages; it defines
# functions only.
#
# On an H100 (ncu 2025.3) explain_where took 6.0 seconds for step 03 with
# its tile stored transposed, and the lesson test of step 04 with the % tree
# 9.7 seconds in all; make explain 5 to 8 seconds a step. It runs only when
# one of the two tests has failed: a passing step pays nothing.
#
# Environment:
#   GRADE_EXPLAIN=0          leave the lines out: the message only says to run
#                            make explain EX=NN
#   GRADE_EXPLAIN_TIMEOUT    seconds the profiled run may take (default 60);
#                            past it, the message says to run make explain
#   GRADE_EXPLAIN_PAGES      "PAGE RAW": ncu's recorded pages to read instead
#                            of profiling (the workbook's own tests)
# and those of lib.bash: STEP, GRADE_SOLUTIONS, GRADE_NCU, GRADE_MEMORY. The
# profiled run has the GPU to itself (on_gpu alone, lib.bash), as the lesson
# test's has, and is confined as every run of the learner's file is (confine).

EXPLAIN_LINES=2  # how many lines a message ends with

# explain_where: a newline, then either a heading and the top lines of make
# explain (the worst problems of the learner's file; where it has none, the
# lines behind the lesson's counter), or, where that cannot be had here (no
# ncu, no access to the counters, no GPU, too slow), the command that shows
# them. Always succeeds, so a failure message is never lost to it.
explain_where() {
    local out status ncu args=(--brief "$EXPLAIN_LINES") command="make explain EX=${STEP%%-*}"
    if [ "${GRADE_SOLUTIONS:-0}" = 1 ]; then
        args+=(--solution)
        command+=" SOLUTIONS=1"
    fi
    if [ "${GRADE_EXPLAIN:-1}" = 0 ]; then
        printf '\n(where in your file: %s)' "$command"
        return 0
    fi
    if [ -n "${GRADE_EXPLAIN_PAGES:-}" ]; then
        local pages
        read -r -a pages <<<"$GRADE_EXPLAIN_PAGES"
        args+=(--page "${pages[0]}" --raw "${pages[1]:-}")
    fi
    ncu=$(find_cuda_tool ncu "${GRADE_NCU:-}")
    mkdir -p "$GRADE_RESULTS"
    confine "${GRADE_EXPLAIN_TIMEOUT:-60}" "${GRADE_MEMORY:-8192}" "${BATS_TEST_TMPDIR:-/tmp}"
    out=$(on_gpu alone "${CONFINE[@]}" env EXPLAIN_NCU="$ncu" "$GRADING_DIR/../common/tools/explain.sh" "${args[@]}" "$STEP" \
        2>/dev/null)
    status=$?
    if [ "$status" -eq 0 ] && [ -n "$out" ]; then
        printf '\nWhere, in one profiled run (%s shows more):\n%s' "$command" "$out"
    else
        printf '\n(where in your file: %s)' "$command"
    fi
    return 0
}
