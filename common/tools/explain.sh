#!/usr/bin/env bash
# explain.sh [options] STEP: which lines of your file the profiler blames.
# Runs the step's program once, small, under Nsight Compute with its source
# counters (the kernels of your file only), and prints the lines of your file
# -- STEP/PROGRAM.cu, or solutions/STEP/PROGRAM.cu with --solution -- with
#   - shared-memory bank conflicts (wavefronts beyond the ideal),
#   - uncoalesced global accesses (32-byte sectors per request beyond the ideal),
#   - divergent warps (few threads of each warp doing a line's memory accesses),
#   - repeated global stores (a line that loads and stores global memory many
#     times per warp: a += on global memory inside a loop),
# worst first, each with its text, its figures and what they mean; then the
# lines that account for most of the step's lesson counter (steps.conf
# lesson_metric). The harness's lines (main.cu, common/) never appear. Called
# by `make explain` (EX=NN at the top; SOLUTIONS=1 for the solution) and, with
# --brief, by the grader's lesson and speed tests (grading/explain.bash).
#
# usage: explain.sh [--solution] [--brief N] [--run "ARGS"] [--keep DIR] STEP
#        explain.sh [--solution] [--brief N] --page FILE --raw FILE STEP
#
#   STEP          the step's folder or number (04, 04-reduction-interleaved)
#   --solution    explain the reference solution (PROGRAM_solution)
#   --brief N     at most N lines, one line each (the problems; where there
#                 are none, the lines that account for the lesson counter)
#   --run "ARGS"  the program's options for the profiled run; default
#                 --check -n SIZE -b BLOCK: SIZE its track's explain_size
#                 (256 for matmul, 2^20 for reduction), BLOCK from its timed
#                 run
#   --keep DIR    also keep ncu's two pages of the run there, as page.csv and
#                 raw.csv (what --page and --raw read back)
#   --page FILE, --raw FILE   read ncu's recorded source page (--page source
#                 --csv --print-source cuda,sass) and raw page (--page raw
#                 --csv) of such a run instead of profiling: no GPU needed
#   -h, --help    this text
#
# ncu comes from the toolkit make chose (CUDA_BIN), else PATH; EXPLAIN_NCU
# names another. The GPU's clocks are left as they are (--clock-control none).
# Exit status: 0 explained (a line stands out or not), 1 the profiled run or
# ncu failed, 2 bad arguments, 3 ncu (or nm) is missing, 4 ncu may not read
# this GPU's performance counters (ERR_NVGPUCTRPERM), 5 this ncu cannot give
# per-line figures (its --help lists no --print-source cuda,sass, which
# ncu 2025.3 of CUDA 13.0 has), 77 no usable GPU. make explain fails whenever
# this script does (make's own status is 2): the message says why. (Without
# a GPU, make explain asks first and skips, exit 0, before this script runs.)
set -u
OPTIONS_NAME="explain"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/options.bash"
source "$here/manifest.bash"

solution=0 brief=0 run_args="" keep="" page="" raw="" step=""
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --solution) solution=1 ;;
    --brief) need_value "$@"; [[ $2 =~ ^[1-9][0-9]*$ ]] || die "--brief needs a number of lines, not '$2'"; brief=$2; shift ;;
    --run) need_value "$@"; run_args=$2; shift ;;
    --keep) need_value "$@"; keep=$2; shift ;;
    --page) need_value "$@"; page=$2; shift ;;
    --raw) need_value "$@"; raw=$2; shift ;;
    -*) die "unknown option '$1' (try --help)" ;;
    *) [ -z "$step" ] || die "name one step, not '$step' and '$1'"; step=$1 ;;
    esac
    shift
done
[ -n "$step" ] || die "name the step (try --help)"
[ -n "$page" ] && [ -z "$raw" ] && die "--page needs --raw too"
[ -n "$raw" ] && [ -z "$page" ] && die "--raw needs --page too"
for f in $page $raw; do [ -f "$f" ] || die "no such file: $f"; done
folder=$(step_folder "$step") || die "no step '$step' in $MANIFEST"

WORKBOOK_DIR=$(cd "$here/../.." && pwd)
program=$(step_field "$folder" program)
if [ "$solution" = 1 ]; then
    source_file=$WORKBOOK_DIR/solutions/$folder/$program.cu
    binary=$WORKBOOK_DIR/$folder/${program}_solution
    object=$WORKBOOK_DIR/$folder/build/${program}_solution.o
else
    source_file=$WORKBOOK_DIR/$folder/$program.cu
    binary=$WORKBOOK_DIR/$folder/$program
    object=$WORKBOOK_DIR/$folder/build/$program.o
fi
number=${folder%%-*}
lesson_metric=$(step_field "$folder" lesson_metric)
lesson_what=$(step_field "$folder" lesson_what)

# The profiled run's options: small, at the timed run's block, checking only
# (so that only the learner's kernels run).
if [ -z "$run_args" ]; then
    size=$(step_fact "$folder" explain_size)
    block=$(sed -n 's/.*-b \([^ ]*\).*/\1/p' <<<"$(step_field "$folder" timed)")
    run_args="--check -n $size${block:+ -b $block}"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# profile: one run of the program under ncu, its source and raw pages into
# $tmp/page.csv and $tmp/raw.csv; exits with the script's status on failure.
profile() {
    local ncu names log=$tmp/ncu.log
    [ -x "$binary" ] || { echo "explain: $binary is not built (make$([ "$solution" = 1 ] && echo " solution") in $folder)" >&2; exit 1; }
    # Without a GPU, ncu has nothing to profile: ask the program first
    # (whether ncu is installed or not).
    skip_without_gpu "$binary"
    ncu=${EXPLAIN_NCU:-$(need_tool ncu "Nsight Compute, NVIDIA's kernel profiler (package cuda-nsight-compute-X-Y)")} || exit 3
    [ -x "$ncu" ] || { echo "explain: EXPLAIN_NCU=$ncu is not a program" >&2; exit 3; }
    if ! "$ncu" --help 2>&1 | grep -q 'cuda,sass'; then
        echo "explain: this ncu ($("$ncu" --version 2>/dev/null | sed -n 's/^Version //p' | head -n 1)) cannot attribute its counters to lines of CUDA C on the command line (it has no --print-source cuda,sass)." >&2
        echo "  Use the ncu of a newer CUDA toolkit (CUDA_PATH=/path/to/it make explain), or open a report of ncu --section SourceCounters in ncu-ui, on its Source page." >&2
        exit 5
    fi
    command -v nm >/dev/null || { echo "explain: nm not found (binutils): it tells the kernels of your file from the harness's" >&2; exit 3; }
    # The kernels your file defines (their host stubs carry their names).
    names=$(nm --defined-only "$object" 2>/dev/null | awk '{ print $NF }' | c++filt 2>/dev/null |
        sed 's/(anonymous namespace):://g' |
        sed -n 's/^\(void \)\{0,1\}\([A-Za-z_][A-Za-z0-9_]*\)\(<.*>\)\{0,1\}(.*)$/\2/p' | grep -v '^__' | sort -u | paste -sd'|' -)
    [ -n "$names" ] || { echo "explain: no function defined in $object (is $folder built?)" >&2; exit 1; }
    echo "== ncu --section SourceCounters $(basename "$binary") $run_args" >&2
    # shellcheck disable=SC2086
    "$ncu" --clock-control none --section SourceCounters --metrics launch__grid_size,launch__block_size \
        -k "regex:^(.*::)?($names)([<(].*)?\$" --launch-count 10 -f -o "$tmp/report" "$binary" $run_args >"$log" 2>&1
    local status=$?
    if grep -q ERR_NVGPUCTRPERM "$log"; then
        echo "explain: ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM)." >&2
        echo "  Fix: run as root, or have an administrator allow profiling for all users (options nvidia NVreg_RestrictProfilingToAdminUsers=0 in /etc/modprobe.d, then reboot; https://developer.nvidia.com/ERR_NVGPUCTRPERM)." >&2
        exit 4
    fi
    if [ ! -f "$tmp/report.ncu-rep" ] || grep -q 'No kernels were profiled' "$log"; then
        tail -n 20 "$log" >&2
        if grep -q 'No kernels were profiled' "$log"; then
            echo "explain: ncu saw no launch of a kernel of $(basename "$source_file") ($names) in: $(basename "$binary") $run_args" >&2
        else
            echo "explain: the profiled run failed (ncu exit $status)" >&2
        fi
        exit 1
    fi
    # ncu ends as the program did: a kernel that gives wrong results is
    # profiled all the same, and said to be wrong.
    [ "$status" -eq 0 ] || echo "explain: note: $(basename "$binary") $run_args ended with exit $status (1: wrong results): these are the figures of that run" >&2
    "$ncu" --import "$tmp/report.ncu-rep" --page source --csv --print-source cuda,sass >"$tmp/page.csv" 2>"$tmp/page.err" &&
        "$ncu" --import "$tmp/report.ncu-rep" --page raw --csv >"$tmp/raw.csv" 2>>"$tmp/page.err" ||
        { cat "$tmp/page.err" >&2; echo "explain: ncu could not print the report's pages" >&2; exit 1; }
    page=$tmp/page.csv raw=$tmp/raw.csv
    if [ -n "$keep" ]; then
        mkdir -p "$keep" && cp "$page" "$raw" "$keep/" || { echo "explain: cannot keep the pages in $keep" >&2; exit 1; }
    fi
}

[ -n "$page" ] || profile

# The raw page: the launches profiled, their kernels, and their warps.
launches=$(awk -f "$here/ncu_csv.awk" -f <(cat <<'AWK'
/^"ID"/ { n = split_csv($0, names); for (i = 1; i <= n; i++) col[names[i]] = i; header = 1; next }
header == 1 { header = 2; next }  # the units row
header == 2 {
    split_csv($0, f)
    grid = f[col["launch__grid_size"]]; block = f[col["launch__block_size"]]
    gsub(/,/, "", grid); gsub(/,/, "", block)
    warps += grid * int((block + 31) / 32)
    blocks += grid
    name = f[col["Kernel Name"]]
    sub(/\(.*/, "", name); sub(/^void /, "", name); sub(/<.*/, "", name)
    if (!(name in seen)) { seen[name] = 1; kernels = kernels (kernels ? ", " : "") name }
    count++
}
END { printf "%d\t%d\t%d\t%s\n", count, warps, blocks, kernels }
AWK
) "$raw")
IFS=$'\t' read -r launch_count warps blocks kernels <<<"$launches"
[ "${launch_count:-0}" -gt 0 ] || { echo "explain: the raw page $raw lists no launch" >&2; exit 1; }

# The per-line figures (ncu_source.awk), then the verdicts.
awk -v file="$source_file" -v lesson="$lesson_metric" -f "$here/ncu_csv.awk" -f "$here/ncu_source.awk" "$page" |
    awk -F'\t' -v brief="$brief" -v warps="$warps" -v blocks="$blocks" -v name="$(basename "$source_file")" -v source_file="$source_file" \
        -v lesson_what="$lesson_what" -v number="$number" -v launches="$launch_count" -v kernels="$kernels" \
        -v program="$(basename "$binary")" -v run_args="$run_args" -f <(cat <<'AWK'
# What makes a line stand out. Each problem is also a share of the kernel's
# own total of what it wastes, and a line is named only when that share is
# at least SHARE_MIN (DIVERGENT_SHARE_MIN): the reference solutions stay
# quiet, and the rare waste of a line that runs once per block does not
# count. Figures seen on an H100 (ncu 2025.3; the pages that
# tests/explain/run --keep recorded, in tests/fixtures/explain):
#   bank conflicts: step 03's tile stored transposed 5.7x on its read line
#     (73% of the kernel's wavefronts beyond the ideal), 32x on its store
#     (10%); step 05 kept at 04's strided index 3.9x (70%); the solutions
#     of 03 and 05 1.0x.
#   uncoalesced: step 01 with its row from threadIdx.x 16 sectors per
#     request where 4 would do (3.7x over its line, 73%); the solutions 1.0x.
#   divergent: 04's % tree and mask tree 5.4 busy threads per warp-level
#     access, 5.9 times the accesses the same threads packed into whole
#     warps would make (74% of the kernel's accesses); the solutions of 04
#     and 05 21.3 (no line below 16). A line that one warp per block runs
#     (if (tid == 0) ...) makes the fewest accesses it can: 1.0 busy thread
#     each, and 11% of the accesses of the untouched exercise of 04, which
#     does little else, yet none to spare.
#   repeated stores: 02 storing inside its loop 256 stores per warp (n);
#     its solution 1.
BEGIN {
    RATIO_MIN = 1.5            # wavefronts or sectors over the ideal
    SHARE_MIN = 0.05
    BUSY_MAX = 16              # busy threads of 32, per warp-level access
    DIVERGENT_SHARE_MIN = 0.10
    STORES_PER_WARP_MIN = 2
    LESSON_SHARE_MIN = 0.05
    LESSON_LINES = 3
}

# value(record, key): a figure of a record, as a number (the text as text).
function value(record, key,    i, n, kv) {
    n = split(record, kv, "\t")
    for (i = 2; i <= n; i++) if (index(kv[i], key "=") == 1)
        return key == "text" ? substr(kv[i], length(key) + 2) : substr(kv[i], length(key) + 2) + 0
    return key == "text" ? "" : 0
}

function commas(x,    s, sign) {
    s = sprintf("%.0f", x)
    sign = ""
    if (substr(s, 1, 1) == "-") { sign = "-"; s = substr(s, 2) }
    while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s)
    return sign s
}

function pct(x) { return sprintf("%d%%", x * 100 + 0.5) }

# note(line, score, kind, short, long, meaning): one problem of a line.
function note(l, score, kind, short, long, meaning,    k) {
    k = ++problems[l]
    p_score[l, k] = score; p_kind[l, k] = kind; p_short[l, k] = short; p_long[l, k] = long; p_meaning[l, k] = meaning
    if (score > line_score[l]) line_score[l] = score
}

$1 == "total" { total = $0; next }
$1 == "lesson_unmapped" { unmapped = 1; next }
$1 == "line" { rec[$2] = $0; lines[++nlines] = $2; next }

END {
    t_wf = value(total, "wavefronts"); t_sec = value(total, "sectors")
    t_req = value(total, "mem_req"); t_g = value(total, "g_ld") + value(total, "g_st"); t_lesson = value(total, "lesson")
    for (i = 1; i <= nlines; i++) {
        l = lines[i]; r = rec[l]
        wf = value(r, "wavefronts"); wfi = value(r, "wavefronts_ideal")
        if (wfi > 0 && wf >= RATIO_MIN * wfi && (wf - wfi) >= SHARE_MIN * t_wf) {
            nway = value(r, "nway")
            note(l, (wf - wfi) / t_wf, "shared-memory bank conflicts",
                sprintf("%.1fx the wavefronts needed%s", wf / wfi, nway > 1 ? sprintf(", up to %d-way", nway) : ""),
                sprintf("%s shared-memory wavefronts where %s would do (%.1fx%s): %s of the kernel's shared-memory wavefronts are this line's extra ones.",
                    commas(wf), commas(wfi), wf / wfi, nway > 1 ? sprintf(", up to %d-way", nway) : "", pct((wf - wfi) / t_wf)),
                "The threads of a warp reach different words of the same bank, so the access is served in several rounds, one per word: let consecutive threads (threadIdx.x) use consecutive words.")
        }
        sec = value(r, "sectors"); seci = value(r, "sectors_ideal")
        if (seci > 0 && sec >= RATIO_MIN * seci && (sec - seci) >= SHARE_MIN * t_sec) {
            spr = value(r, "worst_spr"); ispr = value(r, "worst_ideal_spr")
            note(l, (sec - seci) / t_sec, "uncoalesced global accesses",
                sprintf("%.0f sectors per request where %.0f would do", spr, ispr),
                sprintf("Up to %.0f sectors of 32 bytes per request where %.0f would do; %s sectors where %s would do (%.1fx): %s of the kernel's sectors are this line's extra ones.",
                    spr, ispr, commas(sec), commas(seci), sec / seci, pct((sec - seci) / t_sec)),
                "The 32 threads of a warp touch addresses far apart, so each request fetches many 32-byte sectors and uses a few bytes of each: give consecutive threads (threadIdx.x) consecutive addresses.")
        }
        # The fewest warp-level accesses the line's busy threads could make:
        # packed into whole warps, and at least one per memory instruction
        # in each block.
        req = value(r, "mem_req"); busy = value(r, "mem_busy")
        packed = busy / 32
        if (blocks * value(r, "mem_instr") > packed) packed = blocks * value(r, "mem_instr")
        if (req > 0 && t_req > 0 && busy / req < BUSY_MAX && req - packed >= DIVERGENT_SHARE_MIN * t_req) {
            db = value(r, "div_branches")
            note(l, (req - packed) / t_req, "divergent warps",
                sprintf("%.1f of 32 threads busy per warp", busy / req),
                sprintf("On average %.1f of the 32 threads of each warp that makes this line's memory accesses take part%s: %s warp-level accesses where the same threads in whole warps would make %s (%.1fx); %s of the kernel's accesses are this line's extra ones.",
                    busy / req, db > 0 ? sprintf(" (%s divergent branches)", commas(db)) : "", commas(req), commas(packed), req / packed, pct((req - packed) / t_req)),
                "The threads that do this line are spread over every warp, so every warp runs it for a few of its threads: hand the work to consecutive threads, so that the warps past them have none at all.")
        }
        st = value(r, "g_st"); ld = value(r, "g_ld")
        if (warps > 0 && st > 0 && ld > 0 && st / warps >= STORES_PER_WARP_MIN && (st - warps) >= SHARE_MIN * t_g) {
            note(l, (st - warps) / t_g, "repeated stores to global memory",
                sprintf("%.0f stores per warp", st / warps),
                sprintf("%s global stores, %.0f per warp, on a line that loads global memory too: %s of the kernel's global loads and stores.",
                    commas(st), st / warps, pct(st / t_g)),
                "Each thread reads and writes its element of global memory again on every trip of a loop: add into a local variable (a register) and store once, after the loop.")
        }
    }
    # The lines with problems, worst first; each line's problems, worst first.
    n = 0
    for (i = 1; i <= nlines; i++) if (problems[lines[i]] > 0) order[++n] = lines[i]
    for (i = 2; i <= n; i++) for (j = i; j > 1 && line_score[order[j]] > line_score[order[j - 1]]; j--) {
        x = order[j]; order[j] = order[j - 1]; order[j - 1] = x
    }
    for (i = 1; i <= n; i++) {
        l = order[i]
        for (a = 2; a <= problems[l]; a++) for (b = a; b > 1 && p_score[l, b] > p_score[l, b - 1]; b--) {
            x = p_score[l, b]; p_score[l, b] = p_score[l, b - 1]; p_score[l, b - 1] = x
            x = p_kind[l, b]; p_kind[l, b] = p_kind[l, b - 1]; p_kind[l, b - 1] = x
            x = p_short[l, b]; p_short[l, b] = p_short[l, b - 1]; p_short[l, b - 1] = x
            x = p_long[l, b]; p_long[l, b] = p_long[l, b - 1]; p_long[l, b - 1] = x
            x = p_meaning[l, b]; p_meaning[l, b] = p_meaning[l, b - 1]; p_meaning[l, b - 1] = x
        }
    }
    # The lines that account for the lesson counter, most first.
    m = 0
    if (!unmapped && t_lesson > 0) {
        for (i = 1; i <= nlines; i++) if (value(rec[lines[i]], "lesson") >= LESSON_SHARE_MIN * t_lesson) top[++m] = lines[i]
        for (i = 2; i <= m; i++) for (j = i; j > 1 && value(rec[top[j]], "lesson") + 0 > value(rec[top[j - 1]], "lesson") + 0; j--) {
            x = top[j]; top[j] = top[j - 1]; top[j - 1] = x
        }
        if (m > LESSON_LINES) m = LESSON_LINES
    }

    if (brief > 0) {
        for (i = 1; i <= n && i <= brief; i++) {
            l = order[i]; kinds = ""
            for (k = 1; k <= problems[l]; k++) kinds = kinds (k > 1 ? "; " : "") p_kind[l, k] ", " p_short[l, k]
            printf "  %s:%d: %s: %s\n", name, l, kinds, text(l)
        }
        if (n == 0) for (i = 1; i <= m && i <= brief; i++)
            printf "  %s:%d: %s of the %s: %s\n", name, top[i], pct(value(rec[top[i]], "lesson") / t_lesson), lesson_what, text(top[i])
        exit
    }
    printf "explain: step %s, %s (%s): %d launch%s of %s, profiled in ./%s %s\n", number, name,
        program ~ /_solution$/ ? "the reference solution" : "yours", launches, launches == 1 ? "" : "es", kernels, program, run_args
    if (n == 0)
        printf "\nNo line of %s shows shared-memory bank conflicts, uncoalesced global accesses, divergent warps or repeated stores to global memory.\n", name
    for (i = 1; i <= n; i++) {
        l = order[i]; kinds = ""
        for (k = 1; k <= problems[l]; k++) kinds = kinds (k > 1 ? "; " : "") p_kind[l, k]
        printf "\n%s:%d: %s\n    %s\n", name, l, kinds, text(l)
        for (k = 1; k <= problems[l]; k++) printf "    %s\n    %s\n", p_long[l, k], p_meaning[l, k]
    }
    if (m > 0) {
        printf "\nThe lesson test counts %s; they come from:\n", lesson_what
        for (i = 1; i <= m; i++)
            printf "  %s:%-4d %14s %4s  %s\n", name, top[i], commas(value(rec[top[i]], "lesson")), pct(value(rec[top[i]], "lesson") / t_lesson), text(top[i])
    }
}

# text(line): the line of the source, as ncu read it, else from the file.
function text(l,    t, s, i) {
    t = value(rec[l], "text")
    if (t == "" && !read_source) {
        read_source = 1
        i = 0
        while ((getline s < source_file) > 0) source_text[++i] = s
        close(source_file)
    }
    if (t == "") t = source_text[l]
    sub(/^[ \t]+/, "", t)
    return t
}
AWK
)
