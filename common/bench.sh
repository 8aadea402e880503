#!/usr/bin/env bash
# bench.sh STEP...: run each step's reference solution at its default size and
# block and print the progression: every step's kernel, its time, its rate,
# its share of the ceiling measured in the same run, and its speedup over its
# starting kernel and over its track's first kernel. Called by `make bench`.
#
# Also writes results/bench.csv (one row per kernel timed) and, where gnuplot
# is installed, results/bench.svg: each kernel's rate as a bar, the ceiling as
# a line. BENCH_ARGS adds options to every run (e.g. BENCH_ARGS="-r 50").
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
results=$root/results
mkdir -p "$results"
log=$results/bench.log
csv=$results/bench.csv
: >"$log"

status=0
for step in "$@"; do
    program=$(make -s -C "$root/$step" print-program)
    echo "running $step/${program}_solution ..." >&2
    # shellcheck disable=SC2086
    timeout -k 10 "${BENCH_TIMEOUT:-600}" "$root/$step/${program}_solution" --machine ${BENCH_ARGS:-} >>"$log"
    rc=$?
    case $rc in
    0) ;;
    77) echo "bench: skipped: no usable CUDA device" >&2; exit 77 ;;
    124 | 137) echo "bench: $step timed out" >&2; status=1 ;;
    *) echo "bench: $step failed (exit $rc)" >&2; status=1 ;;
    esac
done

# The records, as CSV: the GPU, then one row per timed kernel.
awk -F'\t' '
function field(name,    i, kv) {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return substr($i, length(name) + 2) }
    return ""
}
function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
BEGIN { print "gpu,track,step,id,role,label,n,block,ms,q1_ms,q3_ms,rate,unit,pct_ceiling,x_start,x_first" }
$1 == "device" { gpu = field("name") }
$1 == "time" {
    step = field("step")
    track = step ~ /^0[1-3]/ ? "matmul" : "reduction"
    print q(gpu) "," track "," step "," field("id") "," field("role") "," q(field("label")) "," field("n") "," \
          field("block") "," field("ms") "," field("q1_ms") "," field("q3_ms") "," field("rate") "," field("unit") "," \
          field("pct_ceiling") "," field("x_start") "," field("x_first")
}' "$log" >"$csv"

# The table people read: per step, its graded kernel and what lies past it;
# per track, the ceiling and the first kernel from the track's first step run.
awk -F'\t' '
function field(name,    i, kv) {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return substr($i, length(name) + 2) }
    return ""
}
function x(v) { return v == "" ? "" : sprintf("%.2fx", v) }
function row(label) {
    printf "  %-50s %9.4f %10.1f %8.1f%% %8s %8s\n", label, field("ms"), field("rate"), field("pct_ceiling"),
           x(field("x_start")), x(field("x_first"))
}
$1 == "device" && !shown { printf "Progression on %s (sm_%s, %s SMs), CUDA runtime %s, driver %s\n", field("name"),
                          field("cc"), field("sms"), field("runtime"), field("driver"); shown = 1 }
$1 == "time" {
    step = field("step"); role = field("role")
    track = step ~ /^0[1-3]/ ? "matmul" : "reduction"
    if (track != last_track) {
        unit = field("unit"); ceiling = track == "matmul" ? "cuBLAS" : "copy"
        printf "\n%s track, %s = %s, block %s (each step in its own run)\n", track, track == "matmul" ? "N" : "n", field("n"),
               field("block")
        printf "  %-50s %9s %10s %9s %8s %8s\n", "kernel", "ms", unit, "% " ceiling, "x start", "x first"
        last_track = track
        first_of_track = step
    }
    if (role == "ceiling" && step == first_of_track) row(field("label") " [ceiling]")
    else if (role == "start" && step == first_of_track) row(field("label") " [track start]")
    else if (role == "yours") last_yours[step] = $0
    else if (role == "beyond" || role == "library") extra[step] = extra[step] $0 "\n"
    if (role == "yours" || role == "beyond" || role == "library") steps[step] = 1
}
$1 == "summary" {
    step = field("step")
    if (step in last_yours) { $0 = last_yours[step]; row(step " " field("label")) }
    n = split(extra[step], lines, "\n")
    for (i = 1; i < n; i++) { $0 = lines[i]; row(step " " field("label") " [" field("role") "]") }
}' "$log"

if command -v gnuplot >/dev/null 2>&1; then
    "$root/common/plot.sh" "$csv" "$results/bench.svg" && echo "wrote $csv and $results/bench.svg" >&2
else
    echo "wrote $csv; no plot: gnuplot is not installed (apt-get install gnuplot-nox)" >&2
fi
exit $status
