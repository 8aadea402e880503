#!/usr/bin/env bash
# sanitize.sh PROGRAM [--tools LIST] ARGS...: run PROGRAM ARGS under compute-sanitizer's
# memcheck (out-of-bounds and misaligned accesses), racecheck (shared-memory
# data races), synccheck (barriers not every thread reaches) and initcheck
# (reads of global memory that nothing wrote), one after another, and pass
# only if none of them reports anything: an error, a hazard or a warning.
# Called by `make sanitize` and by the grader's sanitizer test, so that a
# file clean under the one is clean under the other: the tools are listed
# here only. ARGS are small sizes in --check mode. --tools names some of
# them (comma-separated) for a run where all four would take too long: the
# timed size of a matrix product (common/step.mk); the grader runs each tool
# of a run as a run of its own (--tools TOOL), side by side with others.
#
#   sanitize.sh --print-tools [--tools LIST]   the tools such a run uses, in
#                                              the order it runs them, one a line
#
# compute-sanitizer is looked for as every tool of the toolkit is (cuda_tool
# in common/tools/options.bash: first the toolkit make chose, CUDA_BIN, then PATH);
# COMPUTE_SANITIZER names the one to use (the grader's choice). Exit status:
# 0 clean, 1 problems found or no compute-sanitizer, 2 bad arguments, 3 a
# run that the GPU's memory was too short for (and nothing reported), 77 no
# usable GPU.
set -u
OPTIONS_NAME="sanitize"
source "$(dirname "$0")/options.bash"
tools="memcheck racecheck synccheck initcheck"
# pick_tools LIST: the tools --tools LIST names, each one of the four.
pick_tools() {
    local tool
    for tool in ${1//,/ }; do
        [[ " $tools " == *" $tool "* ]] || die "--tools: not one of the four ($tools): $tool"
    done
    tools=${1//,/ }
}
case ${1:-} in
-h | --help) usage; exit 0 ;;
--print-tools)
    if [ "${2:-}" = --tools ]; then
        [ $# -ge 3 ] || die "--tools needs a list, such as memcheck,initcheck"
        pick_tools "$3"
    fi
    printf '%s\n' $tools
    exit 0 ;;
'') die "name the program to run (try --help)" ;;
esac
program=$1
shift

# Without the tool, a program that finds no GPU is skipped as it is with it.
cuda_tool compute-sanitizer "${COMPUTE_SANITIZER:-}" >/dev/null || skip_without_gpu "$program"
sanitizer=$(need_tool compute-sanitizer "NVIDIA's checker of memory accesses, races and barriers (package cuda-sanitizer-X-Y)" \
    "${COMPUTE_SANITIZER:-}") || exit 1
if [ "${1:-}" = --tools ]; then
    [ $# -ge 2 ] || die "--tools needs a list, such as memcheck,initcheck"
    pick_tools "$2"
    shift 2
fi


logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# racecheck watches the learner's kernels only: those of the module its
# file built (build/PROGRAM.kernels, the table kernels.awk made of the very
# compile, which lists every kernel of it), by their exact mangled names
# (--kernel-name, each one more). The harness's own kernels are no
# learner's: the shared-memory scrubs before each call, the matrix track's
# comparison and fills. Watching them cost more than the learner's: on an
# H200 (2026-11-30), racecheck at step 03's small sizes took 14.5 s watching
# every kernel but the scrubs, and 3.2 s watching the learner's; at step 04's
# timed size 7.6 s either way. Without a table (a program built otherwise),
# every kernel but the scrubs is watched, by their exact names. A name that
# is not a plain identifier, or a tool with no such option, and every kernel
# is watched. The options' names changed in CUDA 12 (--filter and --exclude
# before).
HARNESS_SCRUBS="_Z19scrub_shared_memoryjb _Z18scrub_local_memoryILi1024EEvb _Z18scrub_local_memoryILi4096EEvb _Z18scrub_local_memoryILi16384EEvb"
racecheck_filters=()
if [[ " $tools " == *" racecheck "* ]]; then
    help=$("$sanitizer" --help 2>/dev/null)
    include="" exclude=""
    case $help in *"--kernel-name "*) include=--kernel-name ;; *"--filter "*) include=--filter ;; esac
    case $help in *--kernel-name-exclude*) exclude=--kernel-name-exclude ;; *"--exclude "*) exclude=--exclude ;; esac
    table=$(dirname "$program")/build/$(basename "$program").kernels
    learners=""
    [ ! -f "$table" ] || learners=$(awk -F'\t' '$1 == "kernel" { for (i = 2; i <= NF; i++) if ($i ~ /^name=/) print substr($i, 6) }' "$table")
    if [ -n "$learners" ] && [ -n "$include" ] && ! grep -qvE '^[A-Za-z_$][A-Za-z0-9_$]*$' <<<"$learners"; then
        for kernel in $learners; do racecheck_filters+=("$include" "kne=$kernel"); done
    elif [ -n "$exclude" ]; then
        for kernel in $HARNESS_SCRUBS; do racecheck_filters+=("$exclude" "kne=$kernel"); done
    fi
fi

# run_tool TOOL: PROGRAM under TOOL, the tool's report and the program's
# output (where its kernels print) in $logs/TOOL, the program's stderr
# (where it alone says why it stopped) in $logs/TOOL.err, its status in
# $logs/TOOL.status.
run_tool() {
    local filters=()
    [ "$1" != racecheck ] || filters=(${racecheck_filters[@]+"${racecheck_filters[@]}"})
    "$sanitizer" --tool "$1" ${filters[@]+"${filters[@]}"} --error-exitcode 99 "$program" "${args[@]}" >"$logs/$1" 2>"$logs/$1.err"
    echo $? >"$logs/$1.status"
}
args=("$@")
failed=()
short=()
for tool in $tools; do
    echo "== $tool: $program $*"
    run_tool "$tool"
    log=$logs/$tool
    status=$(cat "$logs/$tool.status")
    grep -E '^=========' "$log" "$log.err" -h | grep -vE 'COMPUTE-SANITIZER|^========= *$' | head -40
    # What the program said as it ended: its last lines, then its stderr's.
    grep -v '^=========' "$log" | tail -n 3 || true
    grep -v '^=========' "$log.err" | tail -n 4 || true
    # A program that found no GPU: 77 through the tool, or, where the tool
    # calls a program that ends before its first CUDA call an error of its
    # own, 77 when the program is asked alone. Never when the tool reported
    # what it found (its error exit code, 99): the GPU ran, and a program run
    # alone beside the grader's other busy runs may find none free.
    if [ "$status" -eq 77 ] || { [ "$status" -ne 0 ] && [ "$status" -ne 99 ] &&
        { "$program" --check -n 1 >/dev/null 2>&1; [ $? -eq 77 ]; }; }; then
        say_no_gpu
        exit 77
    fi
    # memcheck and synccheck end with "ERROR SUMMARY: N errors"; racecheck
    # with "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
    if grep -qE 'ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [1-9]|\(([1-9][0-9]*) errors|, [1-9][0-9]* warnings' "$log" "$log.err"; then
        failed+=("$tool")
        echo "   -> $tool: FAILED (exit $status)"
    elif [ "$status" -ne 0 ] && [ "$status" -ne 99 ] &&
        grep -qE "$GPU_MEMORY_SHORT" "$log.err"; then
        # The program found the GPU's memory short (on its stderr, where no
        # kernel prints), and the tool reported nothing: not the file's doing.
        short+=("$tool")
        echo "   -> $tool: NOT RUN (the GPU's memory was short)"
    elif [ "$status" -ne 0 ]; then
        failed+=("$tool")
        echo "   -> $tool: FAILED (exit $status)"
    else
        echo "   -> $tool: clean"
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "sanitize: ${failed[*]} reported problems in $program" >&2
    exit 1
fi
if [ ${#short[@]} -gt 0 ]; then
    echo "sanitize: ${short[*]} not run to the end: the GPU's memory was short for $program (run it with less on the GPU)" >&2
    exit 3
fi
echo "sanitize: $tools clean for $program"
