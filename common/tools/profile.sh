#!/usr/bin/env bash
# profile.sh METRICS PROGRAM ARGS...: run PROGRAM ARGS under Nsight Compute
# and print, for the first launch of each kernel, the metrics (comma-separated)
# that show a step's lesson. Called by `make profile`. The GPU's clocks are
# left as they are (--clock-control none).
# ncu is taken from the toolkit make chose (CUDA_BIN), else from PATH.
# Exit status: 0 done, 1 ncu failed or is missing, 2 bad arguments, 77 no
# usable GPU (or no access to its performance counters).
set -u
OPTIONS_NAME="profile"
source "$(dirname "$0")/options.bash"
case ${1:-} in -h | --help) usage; exit 0 ;; esac
[ $# -ge 2 ] || die "name the metrics and the program to run (try --help)"
metrics=$1
program=$2
shift 2

# Without a GPU, ncu has nothing to profile: ask the program itself first
# (whether ncu is installed or not), and skip as make sanitize does.
skip_without_gpu "$program"
ncu=$(need_tool ncu "Nsight Compute, NVIDIA's kernel profiler (package cuda-nsight-compute-X-Y)") || exit 1

csv=$(mktemp)
out=$(mktemp)
trap 'rm -f "$csv" "$out"' EXIT
echo "== ncu --metrics $metrics $program $*"
"$ncu" --clock-control none --metrics "$metrics" --csv --page raw --log-file "$csv" "$program" "$@" >"$out" 2>&1
status=$?
if grep -q ERR_NVGPUCTRPERM "$csv" "$out" 2>/dev/null; then
    echo "profile: ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM)." >&2
    echo "  An administrator can allow it (see https://developer.nvidia.com/ERR_NVGPUCTRPERM), or run as root." >&2
    exit 77
fi
if [ "$status" -ne 0 ] || ! grep -q '"Kernel Name"' "$csv"; then
    cat "$out" "$csv" >&2
    echo "profile: ncu failed (exit $status)" >&2
    exit 1
fi

# The raw page is CSV with quoted fields: a header, a row of units, then a row
# per launch. Print the first launch of each kernel (not the harness's own),
# and the metric columns. A warp-stall metric's name says little to a reader,
# so its heading is followed by what it counts, in words; what each reason
# means is Nsight Compute's (its Profiling Guide, "Warp Stall Reasons").
awk -v metrics="$metrics" -f "$(dirname "$0")/ncu_csv.awk" -f <(cat <<'AWK'
# in_words(METRIC): what a warp-state metric counts, or "" for any other.
# A stall reason's figure is the cycles a warp waits for that reason per
# instruction it issues, averaged over the warps; all the reasons and the
# issue itself add up to the cycles between two of its instructions.
function in_words(metric,    reason, words) {
    if (metric == "smsp__average_warp_latency_per_inst_issued.ratio")
        return "(cycles from one instruction of a warp to its next, on average: every stall reason and the issue itself, added up)"
    if (metric !~ /^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$/) return ""
    reason = metric
    sub(/^smsp__average_warps_issue_stalled_/, "", reason)
    sub(/_per_issue_active\.ratio$/, "", reason)
    words = reason
    gsub(/_/, " ", words)
    return "(stall reason \"" words "\", cycles per issued instruction" (reason in meaning ? ": " meaning[reason] : "") ")"
}
BEGIN {
    meaning["long_scoreboard"] = "waiting for the data of a global or local memory access (L1TEX)"
    meaning["short_scoreboard"] = "waiting for the data of a shared-memory access or another MIO operation"
    meaning["mio_throttle"] = "its next shared-memory (MIO) instruction waits for room in the full MIO queue"
    meaning["lg_throttle"] = "its next global or local memory instruction waits for room in the full LG queue"
    meaning["barrier"] = "waiting at __syncthreads() for the other warps of its block"
    meaning["wait"] = "waiting the fixed number of cycles an earlier instruction takes (arithmetic, mostly)"
    meaning["not_selected"] = "ready, but the scheduler issued another warp's instruction: no cycle lost"
}
/^"ID"/ { header = 1; n = split_csv($0, names); for (i = 1; i <= n; i++) col[names[i]] = i; next }
header == 1 { header = 2; next }   # the units row
header == 2 {
    split_csv($0, f)
    name = f[col["Kernel Name"]]
    sub(/\(.*/, "", name)
    # kernels of the harness itself (the inputs drawn and summed, the L2
    # flush, the checks, the audit marker, the scrub of stacks and shared
    # memory between calls) are no lesson
    if (name ~ /^(void )?(fill_input|sum_input|fill_fresh_matrix|compare_on_gpu|flush_l2|abs_copy|count_off_elements|audit_marker|scrub_(local|shared)_memory|reset_module_globals)/ || (name in seen)) next
    seen[name] = 1
    order[++kernels] = name
    m = split(metrics, wanted, ",")
    for (i = 1; i <= m; i++) value[name, i] = f[col[wanted[i]]]
}
END {
    m = split(metrics, wanted, ",")
    for (i = 1; i <= m; i++) {
        printf "\n%s\n", wanted[i]
        if (in_words(wanted[i]) != "") printf "  %s\n", in_words(wanted[i])
        for (k = 1; k <= kernels; k++) printf "  %-48s %20s\n", order[k], value[order[k], i]
    }
}
AWK
) "$csv"
