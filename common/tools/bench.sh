#!/usr/bin/env bash
# bench.sh STEP...: run each step's reference solution at its default size and
# block, and print the progression: every step's kernel, its time, its rate,
# its share of the ceiling measured in the same run, and its speedup over its
# starting kernel and over its track's first kernel. Called by `make bench`.
#
# Writes, under results/:
#   bench.log         the programs' own records (tab-separated key=value)
#   bench.csv         every kernel every run timed, one row each
#   progression.tsv   the rows of the table below (what the plot and the
#                     READMEs' figures are made from)
#   bench.svg         the plot, where gnuplot is installed
# BENCH_ARGS adds options to every run (e.g. BENCH_ARGS="-r 50"); BENCH_RESULTS
# names another folder for these files.
#
# bench.sh --from LOG: make the table, files and plot again from a bench.log
# written elsewhere (say, on a GPU machine without gnuplot).
#
# A run that fails (no GPU: exit 77; a step that fails or times out: exit 1)
# leaves the last good bench.log and the files made from it as they were; a
# step that failed leaves its run's records in results/bench-failed.log.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
OPTIONS_NAME="bench"
source "$root/common/tools/options.bash"
case ${1:-} in
-h | --help) usage; exit 0 ;;
--from) need_value "$@"; [ -f "$2" ] || die "no such log: $2" ;;
'') die "name the steps to time, or --from LOG (try --help)" ;;
-*) die "unknown option '$1' (try --help)" ;;
esac
results=${BENCH_RESULTS:-$root/results}
mkdir -p "$results"
log=$results/bench.log
status=0
if [ "$1" = --from ]; then
    [ "$(cd "$(dirname "$2")" && pwd)/$(basename "$2")" = "$log" ] || cp "$2" "$log"
    shift 2
    new_log=$log
else
    # The new records go aside until every step has run well.
    new_log=$results/bench-new.log
    printf 'run\tdate=%s\n' "$(date -u +%Y-%m-%d)" >"$new_log"
fi

source "$root/common/tools/manifest.bash"
run_log=$(mktemp)  # one run's records, before they join the others
trap 'rm -f "$run_log"' EXIT
for step in "$@"; do
    program=$(step_field "$step" program) || die "no step $step in steps.conf"
    echo "running $step/${program}_solution ..." >&2
    # shellcheck disable=SC2086
    timeout -k 10 "${BENCH_TIMEOUT:-600}" "$root/$step/${program}_solution" --records "$run_log" ${BENCH_ARGS:-} >&2
    rc=$?
    cat "$run_log" >>"$new_log"
    case $rc in
    0) ;;
    77) status=77; say_no_gpu; break ;;
    124 | 137) echo "bench: $step timed out" >&2; status=1 ;;
    *) echo "bench: $step failed (exit $rc)" >&2; status=1 ;;
    esac
done
if [ "$new_log" != "$log" ]; then
    if [ $status -eq 77 ]; then  # nothing ran: nothing to keep
        rm -f "$new_log"
        [ -f "$log" ] && echo "bench: $log still holds the last good run's records" >&2
        exit 77
    fi
    if [ $status -ne 0 ]; then
        mv "$new_log" "$results/bench-failed.log"
        echo "bench: this run's records are in $results/bench-failed.log;" \
            "$([ -f "$log" ] && echo "$log still holds the last good run's" || echo "there is no good run yet")" >&2
        exit $status
    fi
    mv "$new_log" "$log"
fi

# From the records (the tracks' facts first, from their files: a log may be
# older than the programs' own track records): bench.csv (every row),
# progression.tsv (the table's rows), and the table. Per track (the device record names it), the ceiling and the
# first kernel come from the track's first step; per step, its graded kernel (the last of the learner's)
# and what lies past it.
awk -F'\t' -v csv="$results/bench.csv" -v tsv="$results/progression.tsv" -f "$root/common/tools/records.awk" -f <(cat <<'AWK'
function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
function x(v) { return v == "" ? "" : sprintf("%.2fx", v) }
function keep(label, kind) {   # a row of the table: print it and write it to progression.tsv
    printf "  %-66s %9.4f %10.1f %8.1f%% %8s %8s\n", label, field("ms"), field("rate"), field("pct_ceiling"),
           x(field("x_start")), x(field("x_first"))
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", gpu, date, track, field("step"), field("id"),
           kind, field("label"), field("n"), field("block"), field("ms"), field("rate"), field("unit"),
           field("pct_ceiling"), field("x_start"), field("x_first") >> tsv
}
BEGIN {
    print "gpu,date,track,step,id,role,label,n,block,ms,q1_ms,q3_ms,rate,unit,pct_ceiling,x_start,x_first" > csv
    printf "gpu\tdate\ttrack\tstep\tid\trole\tlabel\tn\tblock\tms\trate\tunit\tpct_ceiling\tx_start\tx_first\n" > tsv
}
$1 == "run" { date = field("date") }
$1 == "device" {
    gpu = field("name")
    if (!shown) printf "Progression on %s (sm_%s, %s SMs), CUDA runtime %s, driver %s, %s\n", gpu,
                      field("cc"), field("sms"), field("runtime"), field("driver"), date
    shown = 1
}
$1 == "time" {
    step = field("step"); role = field("role")
    track = track_of[step]
    print q(gpu) "," date "," track "," step "," field("id") "," role "," q(field("label")) "," field("n") "," \
          field("block") "," field("ms") "," field("q1_ms") "," field("q3_ms") "," field("rate") "," field("unit") "," \
          field("pct_ceiling") "," field("x_start") "," field("x_first") >> csv
    if (track != last_track) {
        printf "\n%s track, %s = %s (each step timed in its own run, at its default block)\n", track,
               fact(track, "size_symbol"), field("n")
        printf "  %-66s %9s %10s %9s %8s %8s\n", "kernel", "ms", field("unit"), "% " fact(track, "ceiling"),
               "x start", "x first"
        last_track = track
        first_step = step
    }
    if (step == first_step && role == "ceiling") keep(field("label") " [ceiling]", "ceiling")
    else if (step == first_step && role == "start") keep(field("label") " [track start]", "first")
    else if (role == "yours") graded[step] = $0
    else if (role == "beyond" || role == "library") extra[step] = extra[step] $0 "\n"
}
$1 == "summary" {
    step = field("step")
    if (step in graded) { $0 = graded[step]; keep(substr(step, 1, 2) " " field("label") " (block " field("block") ")", "step") }
    n = split(extra[step], lines, "\n")
    for (i = 1; i < n; i++) { $0 = lines[i]; keep(substr(step, 1, 2) " " field("label") " [" field("role") "]", field("role")) }
}
AWK
) <(track_records) "$log"

if command -v gnuplot >/dev/null 2>&1; then
    "$root/common/tools/plot.sh" "$results/progression.tsv" "$results/bench.svg" && echo "wrote $results/bench.svg" >&2
else
    echo "no plot: gnuplot is not installed here (apt-get install gnuplot-nox); results/progression.tsv has the figures" >&2
fi
echo "wrote $results/bench.csv and $results/progression.tsv" >&2
exit $status
