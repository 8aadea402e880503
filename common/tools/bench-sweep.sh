#!/usr/bin/env bash
# bench-sweep.sh: how the kernels past the lesson stand against the ceiling as
# the size grows. For every step whose entry in steps.conf sets sweep= (a list
# of sizes), its reference solution times the ceiling (cuBLAS, in the matmul
# track) and its [beyond] kernels, interleaved, at each size: one run of
# `PROGRAM_solution --records FILE --only beyond -n N` per size. Called by
# `make bench-sweep`, which builds the solutions first.
#
# Writes, under results/ (BENCH_RESULTS names another folder):
#   sweep.log      the programs' records
#   sweep.csv      gpu, step, n, id, role, label, ms, rate, unit, pct_ceiling:
#                  a row per kernel and size
#   sweep-NN.txt   step NN's table: a row per size, a column per kernel, the
#                  share of the ceiling; make readme-figures copies it into
#                  the step's README
#   sweep-NN.svg   the same as a plot, where gnuplot is installed
# BENCH_ARGS adds options to every run (e.g. BENCH_ARGS="-r 10").
# bench-sweep.sh --from LOG: the CSV, tables and plots again from a sweep.log.
# Exit status: 0; 1 a run failed or is not built; 2 bad option; 77 no GPU
# (the files of the last good run are kept).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
OPTIONS_NAME="bench-sweep"
source "$root/common/tools/options.bash"
source "$root/common/tools/manifest.bash"
results=${BENCH_RESULTS:-$root/results}
log=$results/sweep.log
from=""
case ${1:-} in
-h | --help) usage; exit 0 ;;
--from) need_value "$@"; [ -f "$2" ] || die "no such log: $2"; from=$2; shift 2 ;;
'') ;;
*) die "unknown option '$1' (try --help)" ;;
esac
[ $# -eq 0 ] || die "unexpected argument '$1' (try --help)"
mkdir -p "$results"

if [ -z "$from" ]; then
    run_log=$(mktemp)  # one run's records, before they join the others
    trap 'rm -f "$run_log"' EXIT
    new_log=$results/sweep-new.log
    printf 'run\tdate=%s\n' "$(date -u +%Y-%m-%d)" >"$new_log"
    swept=0
    for step in $(manifest_steps); do
        sizes=$(step_field "$step" sweep)
        [ -n "$sizes" ] || continue
        program=$root/$step/$(step_field "$step" program)_solution
        if [ ! -x "$program" ]; then
            echo "bench-sweep: $program is not built (make bench-sweep builds it)" >&2
            rm -f "$new_log"
            exit 1
        fi
        swept=1
        for n in ${sizes//,/ }; do
            echo "timing $step's kernels past the lesson at N = $n ..." >&2
            # shellcheck disable=SC2086
            timeout -k 10 "${BENCH_TIMEOUT:-600}" "$program" --records "$run_log" --only beyond -n "$n" ${BENCH_ARGS:-} >&2
            rc=$?
            cat "$run_log" >>"$new_log"
            case $rc in
            0) ;;
            77) say_no_gpu; mv "$new_log" "$results/sweep-failed.log"; exit 77 ;;
            *) echo "bench-sweep: $step failed at N = $n; its records are in $results/sweep-failed.log" >&2
               mv "$new_log" "$results/sweep-failed.log"; exit 1 ;;
            esac
        done
    done
    [ $swept = 1 ] || { rm -f "$new_log"; echo "bench-sweep: no step of steps.conf sets sweep=: nothing to time" >&2; exit 1; }
    mv "$new_log" "$log"
elif [ "$(cd "$(dirname "$from")" && pwd)/$(basename "$from")" != "$log" ]; then
    cp "$from" "$log"
fi
grep -q $'^time\t' "$log" || { echo "bench-sweep: $log holds no timed kernel" >&2; exit 1; }

awk -F'\t' -f "$root/common/tools/records.awk" -f <(cat <<'AWK'
function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
BEGIN { print "gpu,step,n,id,role,label,ms,rate,unit,pct_ceiling" }
$1 == "device" { gpu = field("name") }
$1 == "time" {
    print q(gpu) "," field("step") "," field("n") "," field("id") "," field("role") "," q(field("label")) "," \
          field("ms") "," field("rate") "," field("unit") "," field("pct_ceiling")
}
AWK
) "$log" >"$results/sweep.csv"
echo "wrote $results/sweep.csv" >&2

# Each step's table: a row per size, a column per kernel past the lesson,
# its rate as a share of the ceiling's in the same run; the ceiling's rate last.
steps=$(awk -F'\t' -f "$root/common/tools/records.awk" -f <(echo '$1 == "time" && !seen[field("step")]++ { print field("step") }') "$log")
for step in $steps; do
    number=${step%%-*}
    awk -F'\t' -v step="$step" -f "$root/common/tools/records.awk" -f <(cat <<'AWK'
    $1 == "run" { date = field("date") }
    $1 == "device" && field("step") == step { gpu = field("name"); runtime = field("runtime") }
    $1 == "time" && field("step") == step {
        n = field("n"); id = field("role") == "ceiling" ? "ceiling" : field("id")
        if (!(n in seen_n)) { seen_n[n] = 1; ns[++count_n] = n }
        if (id != "ceiling" && !(id in seen_id)) { seen_id[id] = 1; ids[++count_id] = id; labels[count_id] = field("label") }
        if (id == "ceiling") { ceiling_rate[n] = field("rate"); unit = field("unit"); ceiling = field("label") }
        else share[n, id] = field("pct_ceiling")
        reps = field("reps")
    }
    END {
        printf "Measured by `make bench-sweep` on %s (CUDA %s), %s: median of %s interleaved runs at each N.\n", gpu, runtime, date, reps
        printf "Each kernel's rate as a share of the ceiling's (%s) in the same run:\n\n", ceiling
        for (j = 1; j <= count_id; j++) printf "  %-16s %s\n", ids[j], labels[j]
        printf "\n%6s", "N"
        for (j = 1; j <= count_id; j++) printf " %16s", ids[j]
        printf " %12s\n", "ceiling " unit
        for (i = 1; i <= count_n; i++) {
            printf "%6s", ns[i]
            for (j = 1; j <= count_id; j++)
                printf " %15s%%", (ns[i], ids[j]) in share ? sprintf("%.1f", share[ns[i], ids[j]]) : "-"
            printf " %12.0f\n", ceiling_rate[ns[i]]
        }
    }
AWK
    ) "$log" >"$results/sweep-$number.txt"
    cat "$results/sweep-$number.txt"
    echo "wrote $results/sweep-$number.txt" >&2

    if command -v gnuplot >/dev/null 2>&1; then
        data=$results/sweep-$number.dat
        # gnuplot's input: N, then each kernel's share, in the table's columns.
        awk 'f { print } /^ +N / { f = 1 }' "$results/sweep-$number.txt" | tr -d '%' >"$data"
        ids=$(awk '/^ +N / { for (i = 2; i < NF - 1; i++) print $i; exit }' "$results/sweep-$number.txt")
        ceiling=$(sed -n "s/.*share of the ceiling's (\(.*\)) in the same run.*/\1/p" "$results/sweep-$number.txt")
        {
            echo "set terminal svg size 720,420 font 'sans,12' noenhanced; set output '$results/sweep-$number.svg'"
            echo "set logscale x 2; set key left top; set grid"
            echo "set xlabel 'N (N x N matrices)'; set ylabel '% of the rate of $ceiling'; set yrange [0:110]"
            printf "plot"
            column=2 sep=""
            for id in $ids; do
                printf "%s '%s' using 1:%d with linespoints lw 2 pt 7 ps 0.6 title '%s'" "$sep" "$data" "$column" "$id"
                column=$((column + 1)) sep=","
            done
            echo
        } | gnuplot && echo "wrote $results/sweep-$number.svg" >&2
        rm -f "$data"
    else
        echo "bench-sweep: no plot: gnuplot is not installed here (apt-get install gnuplot-nox)" >&2
    fi
done
