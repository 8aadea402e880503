# lib.bash: the bodies of every step's grading tests. grading/grade writes a
# step's test file from its entry in steps.conf (write_step_tests, in
# common.bash); the file sets STEP (the step's folder) and loads this. What
# differs between steps -- the timed run, the lesson's metric, the audit's run
# -- comes from that entry (step_setting).
#
# Everything the learner's file starts -- its build, its program, the
# sanitizer and profiler runs of it -- runs through grading/confine: in a
# sandbox that sees only this copy of the workbook and the CUDA toolkit, and
# bounded in time and memory, so that a kernel that never ends or a build that
# eats the machine fails its test instead of hanging the grader or the
# students graded beside it. The grader reads a program's records from the
# file it names with --records, which only the program writes: the learner's
# host code runs in its planner, which can open no file (common/core/plan.h); what
# the program prints is for people, and a record-shaped line printed there --
# by a kernel's printf, say -- changes nothing. A program that finds no GPU
# (exit 77) makes its test skip with the program's own reason, or fail when
# REQUIRE_GPU=1, and leaves the mark that makes the step "not graded" (no-gpu,
# read by grading/report).
# Each test leaves its verdict in $GRADE_RESULTS/<step number>/<test>: one
# record (record, below; read by name, verdict_field in common.bash), which
# `grading/report` reads for its summary.
#
# Environment (grading/grade sets these):
#   GRADE_SOLUTIONS=1   grade the reference solutions instead of the exercises
#   REQUIRE_GPU=1       a missing GPU fails the GPU tests instead of skipping them
#   GRADE_TIMEOUT       seconds one program run may take (default 180; grading/grade
#                       --jobs N hands its tests N times the limit alone, and the
#                       same for GRADE_SANITIZE_TIMEOUT where it is set)
#   GRADE_GPU_WAIT      seconds a timed or profiled run may wait for the GPU alone
#                       (default 3600)
#   GRADE_MEMORY        megabytes of data memory one program run may take, its
#                       sanitizer or profiler included (default 8192)
#   GRADE_BUILD_TIMEOUT, GRADE_BUILD_MEMORY  the same for a step's build
#                       (default 300 s, 4096 MB)
#   GRADE_SANITIZE_TIMEOUT  seconds a sanitizer run may take (default 2 x GRADE_TIMEOUT)
#   GRADE_SANITIZE_SLOTS  how many sanitizer runs of the grading share the GPU at once (default 8;
#                       (N-1)/2 of them kept for racecheck at the timed size)
#   GRADE_SANDBOX       auto (default), bwrap or none: see grading/confine
#   GRADE_RESULTS       where verdicts go (default: a folder of this bats run)
#   GRADE_THRESHOLDS    a thresholds file to use instead of the calibrated one
#                       or the manifest's defaults
#   GRADE_NCU, GRADE_SANITIZER  ncu and compute-sanitizer to use (default: as
#                       every script finds them: cuda_tool, common/tools/options.bash)
#   GRADE_SEED          the seed of the programs' random inputs (-s); grading/grade picks one per run
#   MANIFEST            another steps.conf (the tests use one)

bats_load_library bats-support
bats_load_library bats-assert
source "$(dirname "${BASH_SOURCE[0]}")/../common/tools/options.bash"  # cuda_tool, make_value
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
source "$(dirname "${BASH_SOURCE[0]}")/explain.bash"  # explain_where: the lines a failed lesson or speed test points at

GRADING_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORKBOOK_DIR=$(cd "$GRADING_DIR/.." && pwd)
: "${GRADE_TIMEOUT:=180}"
# Seconds a timed or profiled run may wait for the GPU alone, past its own
# GRADE_TIMEOUT of running (on_gpu measure): its turn comes when no other
# run holds the GPU.
: "${GRADE_GPU_WAIT:=3600}"
: "${GRADE_MEMORY:=8192}"
: "${GRADE_BUILD_TIMEOUT:=300}"
: "${GRADE_BUILD_MEMORY:=4096}"
: "${GRADE_RESULTS:=$BATS_RUN_TMPDIR/results}"

step_number() { echo "${STEP%%-*}"; }

# step_setting KEY: a field of this step's entry in the manifest.
step_setting() { step_field "$STEP" "$1"; }

# The verdict files of this step.
verdict_dir() { echo "$GRADE_RESULTS/$(step_number)"; }

# record KEY RESULT [NAME=VALUE...]: leave this test's verdict, the file KEY:
# one record, "verdict<TAB>test=KEY<TAB>result=RESULT<TAB>NAME=VALUE...", as
# the programs' records are (common/tools/records.awk). RESULT is pass, fail or
# skip; reason= says why in words. A tab or a line break in a value becomes a
# space, so that the verdict stays one line of fields; a field with no value
# is left out.
record() {
    local key=$1 field line=verdict
    shift
    for field in "test=$key" "result=$1" "${@:2}"; do
        [[ $field =~ ^[a-z_]+= ]] || { echo "record: '$field' is not NAME=VALUE" >&2; return 2; }
        [ -n "${field#*=}" ] || continue
        line+=$'\t'${field//[$'\t\n\r']/ }
    done
    mkdir -p "$(verdict_dir)"
    printf '%s\n' "$line" >"$(verdict_dir)/$key"
}

program_name() { make_value "$WORKBOOK_DIR/$STEP" print-program; }

program_path() {
    local name
    name=$(program_name) || return 1
    if [ "${GRADE_SOLUTIONS:-0}" = 1 ]; then
        echo "$WORKBOOK_DIR/$STEP/${name}_solution"
    else
        echo "$WORKBOOK_DIR/$STEP/$name"
    fi
}

# The object the build made of the learner's file (the planner and the
# module are made from it).
learner_object() {
    local path
    path=$(program_path) || return 1
    echo "$(dirname "$path")/build/$(basename "$path").o"
}

# ---------------------------------------------------------------------------
# The tests' bodies
# ---------------------------------------------------------------------------

# confine SECONDS MEGABYTES [WRITABLE]: the command that runs what follows it
# -- a command of the learner's: its build, its program, a tool on its
# program -- through grading/confine, WRITABLE the one folder or file it may
# change (none without), into the array CONFINE; with GPU=no, without the GPU.
confine() {
    local time=$1
    # A run that waits for the GPU alone itself (on_gpu measure) counts its
    # own time without the wait (--time-limit) and bounds the wait
    # (--gpu-deadline): the sandbox's bound allows both, and a minute more.
    [ "${LOCK:-}" != measure ] || time=$((time + GRADE_GPU_WAIT + 60))
    CONFINE=("$GRADING_DIR/confine" --time "$time" --memory "$2" ${3:+--write "$3"} --step "$STEP")
    [ "${GPU:-yes}" = no ] || CONFINE+=(--gpu)
    # The plans of this grading, once made, for every run to replay.
    [ "${3:-}" = "$(plans_file)" ] || [ ! -f "$(plans_file)" ] || CONFINE+=(--read "$(plans_file)")
    # The GPU's lock, for a run that takes it itself (on_gpu measure).
    [ "${LOCK:-}" != measure ] || CONFINE+=(--read "$(measure_lock)")
    CONFINE+=(--)
}

# What a run that failed may have run into: the limit of its memory.
out_of_memory() {
    grep -qiE 'out of (host )?memory|cannot allocate memory|bad_alloc|memory exhausted' <<<"$output"
}

# Build the exercise (or the solution), confined to its step's folder. A
# compiler error fails this test with the compiler's message, less any line
# quoting a file outside the workbook; the other steps are graded all the
# same. A hand-in that was refused (grading/take-hand-in), or a file to grade
# that is not a regular one, is not built.
grade_build() {
    local target=all file why
    [ "${GRADE_SOLUTIONS:-0}" = 1 ] && target=solution
    record build "fail"  # until shown otherwise
    if [ -f "$WORKBOOK_DIR/$STEP/HAND-IN-REFUSED" ]; then
        # (The mark stays until the next hand-in is taken: said, for a
        # grading in a copy that a --hand-in once filled.)
        fail "not built: $(cat "$WORKBOOK_DIR/$STEP/HAND-IN-REFUSED") (the hand-in's mark, $STEP/HAND-IN-REFUSED: remove it to grade the file this copy holds)" || return
    fi
    file=$(learner_file) || { fail "cannot tell which file of $STEP to build"; return; }
    why=$(why_refused "$file")
    [ -z "$why" ] || { fail "not built: $(basename "$file") is $why"; return; }
    GPU=no confine "$GRADE_BUILD_TIMEOUT" "$GRADE_BUILD_MEMORY" "$WORKBOOK_DIR/$STEP"
    # (Its compiles side by side: the learner's file, the step's main; their
    # messages each in one piece.)
    run "${CONFINE[@]}" make -j4 --output-sync=target -C "$WORKBOOK_DIR/$STEP" "$target"
    if [ "$status" -ne 0 ]; then
        local limit=""
        case $status in
        124 | 137) limit=$'\n'"The build ran past its time limit, ${GRADE_BUILD_TIMEOUT} s (GRADE_BUILD_TIMEOUT), and was stopped." ;;
        *) ! out_of_memory || limit=$'\n'"The build ran out of memory: it may take ${GRADE_BUILD_MEMORY} MB (GRADE_BUILD_MEMORY)." ;;
        esac
        fail "$(printf '%s does not build (make %s, exit %d):\n%s%s' "$STEP" "$target" "$status" \
            "$(tail -n 200 <<<"$output" | "$WORKBOOK_DIR/common/tools/quote-workbook.sh" "$WORKBOOK_DIR" "$WORKBOOK_DIR/$STEP" "$STEP" | tail -n 40)" \
            "$limit")" || return
    fi
    record build "pass"
}

# A test of a step that did not build, whose file failed its integrity test,
# or whose program already hung once, fails at once, naming the reason: a
# hang costs one timeout, not one per test.
require_build() {
    # The compiler's message is the build test's, once: here one line.
    [ "$(verdict_field "$(verdict_dir)/build" result)" = fail ] && { fail "not run (the build failed)"; return; }
    # The integrity test runs first: its host code may start processes, take
    # memory or write files, and a file that does more than define and launch
    # its kernels scores nothing anyway.
    # (A file that could not be checked, for want of a tool, say, is run.)
    verdict_found "$(verdict_dir)/integrity" &&
        { fail "not run: your file's integrity test failed: a file that does more than define and launch its kernels is not run"; return; }
    [ -e "$(verdict_dir)/hung" ] && { fail "not run: $(verdict_field "$(verdict_dir)/hung" reason)"; return; }
    [ -x "$(program_path)" ] || { fail "not run: $(program_path) is missing (did the build test run?)"; return; }
}

# The GPU, when grade --jobs grades several steps at once: a program that
# checks takes it shared, beside the others' checks; the timed run and the
# profiled one take it alone, so that nothing else runs on the GPU while they
# measure. (With one step at a time the lock is never contended.)
# GRADE_GPU_LOCK names the lock where several graders share one GPU
# (tests/mutants/run --jobs); by default it is the run's own.
# (A lock that let a run waiting to be alone go before the shared runs that
# asked after it was slower: docs/grading.md, Grading faster.) The command
# runs without the lock's descriptor: nothing it leaves behind holds the GPU.
# Each use is a line of GRADE_RESULTS/gpu-use.tsv: step, test, mode, the
# seconds it waited for the GPU and held it (grading/bench reads them), and
# when it asked (seconds since 1970: a timeline of the grading).
# A timed or profiled run measures for a fraction of its run: the rest (its
# start, its inputs, its checks, the host's exact sums) may share the GPU. So
# it takes the lock itself (on_gpu measure, and the program's options from
# measure_args): shared from its start, alone only while it times the rounds
# or runs the watched one (common/core/harness.cu, time_interleaved), and
# says how long it waited and held it alone (a lock record: log_gpu_alone).
# on_gpu shared|alone|measure COMMAND...: run COMMAND holding the lock so.
on_gpu() {
    local mode=$1 lock fd asked got rc=0
    shift
    lock=$(gpu_lock)
    asked=$EPOCHREALTIME
    if [ "$mode" = measure ] || ! command -v flock >/dev/null; then
        got=$asked
        "$@" || rc=$?
    else
        exec {fd}<"$lock"
        flock "--$([ "$mode" = alone ] && echo exclusive || echo shared)" "$fd"
        got=$EPOCHREALTIME
        "$@" {fd}>&- || rc=$?
        exec {fd}>&-
    fi
    awk -v step="$STEP" -v test="${BATS_TEST_DESCRIPTION:-}" -v mode="$mode" -v a="$asked" -v g="$got" -v e="$EPOCHREALTIME" \
        'BEGIN { printf "%s\t%s\t%s\t%.2f\t%.2f\t%.2f\n", step, test, mode, g - a, e - g, a }' >>"$GRADE_RESULTS/gpu-use.tsv" 2>/dev/null
    return $rc
}

# gpu_lock: the lock's file, made where missing. (Read only: a lock that
# graders of several users share may be theirs.)
gpu_lock() {
    local lock=${GRADE_GPU_LOCK:-$GRADE_RESULTS/gpu.lock}
    [ -e "$lock" ] || : 2>/dev/null >>"$lock"
    echo "$lock"
}

# gpu_free_wait: wait, asleep, until no run holds the GPU (its lock taken
# alone, and let go at once), GRADE_GPU_WAIT seconds at most: what a
# program that takes the lock itself would wait for, without a process
# kept busy meanwhile. Returns at once without flock.
gpu_free_wait() {
    local fd
    command -v flock >/dev/null || return 0
    exec {fd}<"$(gpu_lock)" || return 0
    flock --exclusive --timeout "$GRADE_GPU_WAIT" "$fd" || true
    exec {fd}>&-
}

# measure_mode: how a timed or profiled run takes the GPU: measure, where
# its program can take the lock itself (a regular file it may read, by the
# path with no link in it that its sandbox shows it: measure_lock); alone,
# the whole run, where it cannot (the grader's fault, never the learner's).
measure_mode() {
    local lock
    lock=$(measure_lock) && [ -f "$lock" ] && [ -r "$lock" ] && echo measure || echo alone
}
measure_lock() { readlink -e "$(gpu_lock)"; }

# measure_args: the program's options of a run that takes the lock itself:
# the lock, its time limit without the waits, and when it stops waiting
# (every pass of a profile by the same deadline).
measure_args() {
    printf '%s\n' --gpu-lock "$(measure_lock)" --time-limit "$GRADE_TIMEOUT" --gpu-deadline "$((EPOCHSECONDS + GRADE_GPU_WAIT))"
}

# log_gpu_alone: a line of gpu-use.tsv, mode alone, for each lock record
# (waited=, held=) on stdin, what a run of on_gpu measure printed, when it
# asked taken as its hold and wait before now. (A log for grading/bench,
# read by no verdict.)
log_gpu_alone() {
    awk -F'\t' -v step="$STEP" -v test="${BATS_TEST_DESCRIPTION:-}" -v now="$EPOCHREALTIME" '
        $1 == "lock" {
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            if (v["waited"] ~ /^[0-9.]+$/ && v["held"] ~ /^[0-9.]+$/)
                printf "%s\t%s\talone\t%.2f\t%.2f\t%.2f\n", step, test, v["waited"], v["held"], now - v["held"] - v["waited"]
        }' >>"$GRADE_RESULTS/gpu-use.tsv" 2>/dev/null || true
}

# ---------------------------------------------------------------------------
# One plan per grading
# ---------------------------------------------------------------------------

# The learner's host code runs in its planner (common/core/plan.h), and the
# planner runs once per grading of a step, before any of the step's runs:
# for every size and block that any of its tests will use, in one process.
# Every run then replays those plans (--plans), so that what a check, the
# timed run, the profiled one or a sanitizer's replays is one answer, given
# before any of them started, whoever asks and however.
plans_file() { echo "$(verdict_dir)/plans"; }

# The sanitizers' runs of this grading, one line of options each (make
# sanitize's, SANITIZE_RUNS in common/step.mk), the first with two more of
# the correctness tests' sizes, no larger than its own, and one more of the
# step's blocks, drawn from GRADE_SEED: a file cannot tell which of its
# checked configurations will be watched. Kept for the grading, as the plans
# are made for them.
sanitize_runs() {
    local file
    file=$(verdict_dir)/sanitize-runs
    if [ ! -s "$file" ]; then
        local first rest sizes blocks block pool
        { read -r first; rest=$(cat); } < <(make_value "$WORKBOOK_DIR/$STEP" print-sanitize-args)
        [[ $first == *" -n "*" -b "* ]] || { echo "$STEP: make print-sanitize-args gave no run with -n and -b: '$first'" >&2; return 1; }
        sizes=$(option_of -n "$first")
        blocks=$(option_of -b "$first")
        pool=$(for block in $(step_setting blocks | tr ',' ' '); do check_sizes "$block"; done |
            awk -v have="$sizes" 'BEGIN { n = split(have, h, ","); for (i = 1; i <= n; i++) { seen[h[i]] = 1; if (h[i] + 0 > max) max = h[i] + 0 } }
                 $1 + 0 <= max && !seen[$1]++')
        sizes=$sizes,$(draw 2 <<<"$pool" | paste -sd, -)
        block=$(step_setting blocks | tr ',' '\n' | awk -v have="$blocks" 'BEGIN { n = split(have, h, ","); for (i = 1; i <= n; i++) seen[h[i]] = 1 }
            { b = $1; if (b !~ /x/ && have ~ /x/) b = b "x" b } !seen[b]' | draw 1)
        mkdir -p "$(verdict_dir)"
        { echo "${first%%-n *}-n ${sizes%,} -b $blocks${block:+,$block}"
            [ -z "$rest" ] || echo "$rest"; } >"$file"
    fi
    cat "$file"
}

# The watched round of this grading's timed run (the program's --watch):
# drawn from GRADE_SEED and kept for the grading. The run that is credited
# (the speed test's, timed_run) and the run that profiles it for the lesson
# are one command, so that a kernel cannot tell them apart by what it is
# asked: ncu looks at that round only (common/core/harness.cu, watch_round),
# in a run of that command cut to that round (--watched-only). The calls
# before it cannot tell either: each call starts from the module as loaded,
# with its shared and local memory scrubbed and its buffers poisoned.
watch_round() {
    local file
    file=$(verdict_dir)/watch-round
    if [ ! -s "$file" ]; then
        mkdir -p "$(verdict_dir)"
        awk -v seed="${GRADE_SEED:-$RANDOM$RANDOM}" 'BEGIN { srand(seed % 2147483647 + 1); print int(rand() * 1000000) }' >"$file"
    fi
    cat "$file"
}
timed_run() { echo "$(graded_timed "$STEP") --watch $(watch_round)"; }

# option_of OPTION ARGS: the value of OPTION (-n, -b) in a line of options.
option_of() {
    local previous="" word
    for word in $2; do
        [ "$previous" = "$1" ] && { echo "$word"; return; }
        previous=$word
    done
}

# draw K: K of the lines on stdin, picked by GRADE_SEED (the same seed, the same picks).
draw() {
    awk -v k="$1" -v seed="${GRADE_SEED:-1}" 'NF { line[n++] = $0 }
        END { srand(seed % 2147483647); for (i = 0; i < k && n > 0; i++) { j = int(rand() * n); print line[j]; line[j] = line[--n] } }'
}

# The sizes and the blocks of every run the step's tests make -- the checks,
# the timed run, the lesson, the audit, the sanitizers -- each once, as the
# options -n and -b of the one run that plans them all.
step_configurations() {
    local block args word previous
    local -a sizes=() blocks=()
    for block in $(step_setting blocks | tr ',' ' '); do
        blocks+=("$block")
        # shellcheck disable=SC2207
        sizes+=($(check_sizes "$block"))
    done
    while read -r args; do
        previous=""
        for word in $args; do
            case $previous in
            -n | --size) sizes+=(${word//,/ }) ;;
            -b | --block) blocks+=(${word//,/ }) ;;
            esac
            previous=$word
        done
    done < <(step_setting timed; step_setting audit_run; sanitize_runs)
    printf -- '-n %s -b %s\n' "$(printf '%s\n' "${sizes[@]}" | awk '!seen[$0]++' | paste -sd, -)" \
        "$(printf '%s\n' "${blocks[@]}" | awk '!seen[$0]++' | paste -sd, -)"
}

# plans_ready: the step's plans, made by its first run that needs them. Where
# the planning failed, every run fails as it did: returns 1 with status and
# output those of the planning run.
plans_ready() {
    local file failed
    file=$(plans_file)
    failed=$file.failed
    if [ ! -e "$file" ] && [ ! -e "$failed" ]; then
        mkdir -p "$(verdict_dir)"
        : >"$file"
        confine "$GRADE_TIMEOUT" "$GRADE_MEMORY" "$file"
        # shellcheck disable=SC2046
        run on_gpu shared "${CONFINE[@]}" "$(program_path)" --write-plans "$file" $(step_configurations)
        if [ "$status" -ne 0 ]; then
            { echo "$status"; printf '%s\n' "$output"; } >"$failed"
            rm -f "$file"
        fi
    fi
    [ -e "$failed" ] || return 0
    status=$(head -n 1 "$failed")
    output=$(tail -n +2 "$failed")
    return 1
}

# A line of a record: its kind, then a tab (common/tools/records.awk).
RECORD_LINE=$'^(device|track|check|time|summary|audit|launch|finding|lock)\t'

# run_program ARGS...: run the step's program under timeout, its records
# going to a file of this test's; sets status, output (what the program
# printed, stdout and stderr) and records (what the harness recorded). It
# shares the GPU with other steps' checks; LOCK=measure (a timed run) has it
# alone while it times (on_gpu).
run_program() {
    local file=${RECORDS_FILE:-}
    [ -n "$file" ] || file=$(mktemp "$BATS_TEST_TMPDIR/records.XXXXXX")
    mkdir -p "$GRADE_RESULTS"
    records=""
    plans_ready || return 0
    # It may write its records file, and nothing else of this machine's but
    # its own bounded /tmp: no run can fill the disk under the others.
    local mode=${LOCK:-shared}
    [ "$mode" != measure ] || mode=$(measure_mode)
    LOCK=$mode confine "$GRADE_TIMEOUT" "$GRADE_MEMORY" "$file"
    local -a lock=()
    [ "$mode" != measure ] || mapfile -t lock < <(measure_args)
    run on_gpu "$mode" "${CONFINE[@]}" "$(program_path)" ${GRADE_SEED:+-s "$GRADE_SEED"} --records "$file" \
        ${lock[@]+"${lock[@]}"} --plans "$(plans_file)" "$@"
    records=$(records_left "$file")
    [ "$mode" != measure ] || log_gpu_alone <<<"$records"
}

# records_left FILE: what a program left in its records file, read only as
# the regular file it was made, and no more of it than records can fill (a
# link, a FIFO or a device in its place is no record at all).
records_left() {
    if [ -f "$1" ] && [ ! -L "$1" ]; then
        head -c 4000000 "$1"
    fi
}

# Note the GPU's name from a program's device record, for the summary.
note_gpu() {
    local device
    device=$(grep -m 1 $'^device\t' <<<"$records") || return 0
    mkdir -p "$GRADE_RESULTS"
    record_field "$device" name >"$GRADE_RESULTS/gpu"
}

# triage_exit KEY: after run_program, skip (or fail) on exit 77 -- the only
# case that records KEY as skipped -- and explain timeouts and crashes.
# Returns normally only for exit 0 and 1.
triage_exit() {
    case "$status" in
    0 | 1) return 0 ;;
    77)
        # (A timed or profiled run that waited past its --gpu-deadline too.)
        # The step could not be graded here: the report reads this mark,
        # never the text of a message, which the learner's code may write,
        # and gives the step no points (a skip or not).
        mkdir -p "$(verdict_dir)" && : >"$(verdict_dir)/no-gpu"
        [ "${REQUIRE_GPU:-0}" = 1 ] || record "$1" skip
        if [ "${REQUIRE_GPU:-0}" = 1 ]; then
            fail "no GPU, and REQUIRE_GPU=1: $output" || return
        fi
        skip "$(tail -n 1 <<<"$output")"
        ;;
    124 | 137)
        record hung fail reason="an earlier run of $STEP was stopped after ${GRADE_TIMEOUT}s"
        fail "timed out after ${GRADE_TIMEOUT}s and was stopped: a kernel that never finishes -- a loop whose end is never reached, or a __syncthreads() that some threads of a block never reach?" || return
        ;;
    2) fail "$(printf 'the program refused its options (exit 2):\n%s' "$output")" ;;
    *)
        local memory=""
        ! out_of_memory || memory=$'\n'"It ran out of memory: a run may take ${GRADE_MEMORY} MB of host memory (GRADE_MEMORY)."
        if [ "$status" = 3 ]; then
            fail "$(printf 'CUDA error (exit 3):\n%s%s' "$(people_lines)" "$memory")"
        else
            fail "$(printf 'the program ended with exit status %d:\n%s%s' "$status" "$(tail -n 20 <<<"$output")" "$memory")"
        fi
        ;;
    esac
}

# What the program printed for people: its output without lines shaped as records.
people_lines() {
    grep -v -E "$RECORD_LINE" <<<"$output"
}

# The launch audit's findings among the records, each once, indented: a
# function that copies its result to the host does so in every call the
# audit traces, at every size, and one line says so with the count.
audit_findings() {
    awk -F'\t' -f "$RECORDS_READER" -f <(cat <<'AWK'
    $1 == "audit" { calls++ }
    $1 == "finding" {
        m = field("message")
        if (!(m in seen)) order[++k] = m
        seen[m]++
    }
    END {
        for (i = 1; i <= k; i++)
            print "  " order[i] (seen[order[i]] > 1 ? " -- in " seen[order[i]] " of the " calls " plans audited" : "")
    }
AWK
    ) <<<"$records"
}

# The mismatches among the check records, one readable line each (the hint
# on a line of its own), then the audit's findings, then whatever the
# program printed for people.
describe_mismatches() {
    awk -F'\t' '$1 == "check" && /result=mismatch/ {
        line = ""; hint = ""
        for (i = 2; i <= NF; i++) {
            if ($i ~ /^hint=/) hint = substr($i, 6)
            else if ($i !~ /^(step|role|result)=/) line = line (line ? " " : "") $i
        }
        if (++shown <= 12) { print "  " line; if (hint != "") print "    hint: " hint }
        total++
    }
    END { if (total > 12) print "  ... and " total - 12 " more" }' <<<"$records"
    audit_findings
    people_lines | awk 'NF > 0 { print "  " $0 }'
}

# fail_wrong_run WHAT AGAIN: fail the test for a run that ended with status
# 1: wrong results, or right ones with findings of the launch audit. WHAT
# says which run ("with block 256", "in the timed run"); AGAIN is the command
# that runs it again.
fail_wrong_run() {
    local heading="wrong results $1"
    if grep -q $'^finding\t' <<<"$records" && ! grep -q $'^check\t.*result=mismatch' <<<"$records" &&
        ! grep -q '^MISMATCH' <<<"$output"; then
        heading="right results, but the launch audit found, $1, work that is not your kernel doing the step"
    fi
    fail "$(printf '%s:\n%s\n(run it yourself: %s)' "$heading" "$(describe_mismatches)" "$2")"
}

# Every block of the step checked in one run, made by the first correctness
# test that asks (one program start, context and module load instead of one
# per block): --check at each of the step's blocks and every size that any
# of them checks (all_check_sizes), the learner's kernels (--only yours: the
# reference solution's kernels past the lesson are no hand-in's, and
# tests/gpu-exercises.bats checks them). Its status, then its records, are
# kept with the step's verdicts.
checks_file() { echo "$(verdict_dir)/checks.records"; }
all_check_sizes() {
    local block file
    file=$(verdict_dir)/sizes-checked  # (worked out once a grading: a tenth of a second each time)
    if [ ! -s "$file" ]; then
        mkdir -p "$(verdict_dir)"
        for block in $(step_setting blocks | tr ',' ' '); do check_sizes "$block"; done | sort -nu | paste -sd, - >"$file.$$"
        mv -f "$file.$$" "$file"
    fi
    cat "$file"
}
checks_ready() {
    [ ! -e "$(checks_file)" ] || return 0
    local gate
    # (Held shared while it runs: the sanitizers' runs wait for it, checks_gate.)
    mkdir -p "$GRADE_RESULTS"
    exec {gate}>>"$(checks_gate)"
    flock --shared "$gate" 2>/dev/null || true
    run_program --check --only yours -b "$(step_setting blocks)" -n "$(all_check_sizes)"
    exec {gate}>&-
    mkdir -p "$(verdict_dir)"
    { echo "$status"; printf '%s\n' "$records"; } >"$(checks_file)"
}

# The run of every block makes thousands of short calls, each waiting for
# the GPU (a module reloaded, the inputs mapped read-only, a sum read back):
# alone it takes a second (step 07 on an H200, 2026-12-01: 0.97 s), beside
# the other steps' sanitizers 38-41 s, each of its waits a turn of every busy
# context's time slice. So the runs that share the GPU for long -- the
# sanitizers, the audit's and the census -- wait, up to CHECKS_WAIT seconds,
# until no step's run of every block is in progress: that run holds the
# grading's checks gate shared, and they take it alone for a moment.
checks_gate() { echo "$GRADE_RESULTS/checks.gate"; }
: "${CHECKS_WAIT:=15}"  # (a test sets less)
wait_for_checks() {
    local gate
    command -v flock >/dev/null && exec {gate}>>"$(checks_gate)" || return 0
    flock --exclusive --timeout "$CHECKS_WAIT" "$gate" 2>/dev/null || true
    exec {gate}>&-
}

# block_checked_right BLOCK: the run of every block (checks_ready) shows BLOCK
# (a square one, NxN, where a matrix step's blocks= says N) right at every
# size: the run ended (status 0 or 1), with no finding of the launch audit,
# every check of that block right, and every size checked.
# Where it does not (a mismatch, a crash or a timeout anywhere in that block),
# the block is checked again alone, as before, and judged on that run.
block_checked_right() {
    local file
    file=$(checks_file)
    case $(head -n 1 "$file") in 0 | 1) ;; *) return 1 ;; esac
    tail -n +2 "$file" | awk -F'\t' -v block="$1" -v sizes="$(all_check_sizes)" -f "$RECORDS_READER" -f <(cat <<'AWK'
        BEGIN { n = split(sizes, want, ","); bad = n == 0 }
        $1 == "finding" { bad = 1 }
        $1 == "check" && (field("block") == block || field("block") == block "x" block) {
            if (field("result") != "ok") bad = 1
            else right[field("n")] = 1
        }
        END { for (i = 1; i <= n; i++) if (!(want[i] in right)) bad = 1; exit bad }
AWK
    )
}

# grade_check BLOCK [SIZE...]: correct at every size with this block size?
# Without sizes, those of the step's track (check_sizes), from the run of
# every block (block_checked_right) where it shows them right.
grade_check() {
    local block=$1
    shift
    require_build || return
    if [ $# -eq 0 ]; then
        checks_ready
        sanitize_early
        if block_checked_right "$block"; then
            records=$(tail -n +2 "$(checks_file)")
            note_gpu
            record "check-$block" "pass"
            return
        fi
        set -- $(check_sizes "$block")
    fi
    local sizes
    sizes=$(IFS=,; echo "$*")
    run_program --check --only yours -b "$block" -n "$sizes"
    record "check-$block" fail  # until shown otherwise
    triage_exit "check-$block" || return
    note_gpu
    if [ "$status" -ne 0 ]; then
        fail_wrong_run "with block $block" \
            "./$(basename "$(program_path)") --check -b $block -n $sizes${GRADE_SEED:+ -s $GRADE_SEED}, in $STEP" || return
    fi
    summary_from_harness || return
    record "check-$block" "pass"
}

# The timed run (the step's `timed` options), as a correctness test: every
# run of every kernel in it -- checks, warm-up, timed runs, the check after
# the refill, the audited call -- must be right. Each run there has inputs
# of its own, so a kernel that remembers a result, however it recognizes
# its input, is wrong here. The speed test reads this run's records.
grade_check_timed() {
    require_build || return
    lesson_early
    # shellcheck disable=SC2046
    LOCK=measure run_program $(timed_run)
    record check-timed fail  # until shown otherwise
    triage_exit check-timed || return
    note_gpu
    printf '%s\n' "$records" >"$(verdict_dir)/timed.records"
    if [ "$status" -ne 0 ]; then
        fail_wrong_run "in the timed run" \
            "./$(basename "$(program_path)") $(graded_timed "$STEP")${GRADE_SEED:+ -s $GRADE_SEED}, in $STEP" || return
    fi
    summary_from_harness || return
    record check-timed pass
}

# check_sizes BLOCK: the sizes a step's correctness tests check, as its track's file declares them.
check_sizes() {
    step_check_sizes "$STEP" "$1"
}

# ---------------------------------------------------------------------------
# Speed
# ---------------------------------------------------------------------------

# The graded kernel is the learner's last; its speedup over the step's
# starting kernel is measured in the same process, paired run by run, in the
# timed run of the correctness test "correct when timed".
grade_speed() {
    require_build || return
    local verdict
    for verdict in "$(verdict_dir)"/check-*; do
        [ -e "$verdict" ] || continue
        case $(verdict_field "$verdict" result) in
        fail)
            record speed fail reason="not timed"
            if [ -e "$(verdict_dir)/no-gpu" ]; then  # REQUIRE_GPU=1
                fail "not timed: no GPU, so the correctness tests did not run" || return
            fi
            fail "not timed: $STEP is not correct yet (see its correctness tests); speed counts only for a correct kernel" || return
            ;;
        skip)
            record speed skip
            skip "not timed: the correctness tests were skipped (no GPU)"
            ;;
        esac
    done
    local records
    records=$(cat "$(verdict_dir)/timed.records" 2>/dev/null)
    record speed fail reason="not timed"  # until shown otherwise
    local device graded file x_start x_min pct pct_min pct_file
    device=$(grep $'^device\t' <<<"$records")
    graded=$(grep $'^time\t' <<<"$records" | grep $'\trole=yours\t' | tail -n 1)
    [ -n "$graded" ] || { fail "no timing of the graded kernel: did the test \"correct when timed\" run?"; return; }
    file=$(thresholds_file "$(record_field "$device" name)")
    x_start=$(record_field "$graded" x_start)
    pct=$(record_field "$graded" pct_ceiling)
    # A calibrated file that lacks this step (or its pct_ceiling) falls back
    # to the defaults for it; the verdict names the file the speedup came from.
    read -r pct_min pct_file <<<"$(threshold_or_default "$file" "$(step_number)" pct_ceiling)"
    read -r x_min file <<<"$(threshold_or_default "$file" "$(step_number)" x_start)"
    [ -n "$x_min" ] || { fail "no x_start threshold for step $(step_number) in $(thresholds_file "$(record_field "$device" name)") or the defaults"; return; }
    local figures=(x_start="$x_start" x_min="$x_min" pct="$pct" pct_min="$pct_min" thresholds="$(basename "$file")")
    # Faster than the ceiling allows (a copy of the same bytes, or cuBLAS) by
    # half again: the work was not done in the timed runs, whatever their sums say.
    if [ -n "$pct" ] && ! at_least "$PCT_PLAUSIBLE" "$pct"; then
        record speed fail "${figures[@]}" reason="faster than the ceiling"
        fail "$(printf '%.0f%% of the ceiling measured in the same run: more than %s%% is not a kernel doing the work of each timed run (does it read its whole input, every run?)' "$pct" "$PCT_PLAUSIBLE")" || return
    fi
    local pct_note="" pct_hint  # below the floor on the share of the ceiling too: say so, and what it means
    if [ -n "$pct_min" ] && ! at_least "$pct" "$pct_min"; then
        pct_hint=$(step_setting pct_hint)
        pct_note=$(printf '\n%.1f%% of the ceiling measured in the same run; at least %s%% is required (%s)%s' \
            "$pct" "$pct_min" "$pct_file" "${pct_hint:+$'\n'$pct_hint}")
    fi
    if ! at_least "$x_start" "$x_min"; then
        record speed fail "${figures[@]}"
        fail "$(printf '%.2fx faster than the starting kernel; at least %sx is required (%s)%s' "$x_start" "$x_min" "$file" "$pct_note")$(explain_where)" || return
    fi
    if [ -n "$pct_note" ]; then
        record speed fail "${figures[@]}"
        fail "${pct_note#$'\n'}" || return
    fi
    record speed pass "${figures[@]}"
}

# ---------------------------------------------------------------------------
# The lesson and the sanitizers
# ---------------------------------------------------------------------------

# skip_with KEY REASON: skip this test, keeping the reason in its verdict.
skip_with() {
    record "$1" skip reason="$2"
    skip "$2"
}

# require_correct KEY WHAT: the lesson and sanitizer tests score only a
# correct kernel (an untouched exercise is clean and quick, and earns
# nothing for it). Fails KEY if a correctness test failed; skips it if they
# were skipped (no GPU). Returns normally when every one passed.
require_correct() {
    local verdict seen=0
    for verdict in "$(verdict_dir)"/check-*; do
        [ -e "$verdict" ] || continue
        seen=1
        case $(verdict_field "$verdict" result) in
        fail)
            record "$1" fail reason="not run"
            if [ -e "$(verdict_dir)/no-gpu" ]; then  # REQUIRE_GPU=1: they failed for want of a GPU
                fail "not $2: no GPU, so the correctness tests did not run"
            else
                fail "not $2: $STEP is not correct yet (see its correctness tests); this test counts only for a correct kernel"
            fi
            return 1
            ;;
        skip)
            skip_with "$1" "not $2: the correctness tests were skipped (no GPU)"
            ;;
        esac
    done
    [ "$seen" = 1 ] || { record "$1" fail reason="not run"; fail "not $2: the correctness tests have not run"; return 1; }
}

# The table of the learner's module (common/tools/kernels.awk): its kernels, its
# variables, what it reads of clocks.
module_table() {
    local path
    path=$(program_path) || return 1
    echo "$(dirname "$path")/build/$(basename "$path").kernels"
}

# forbidden_instructions "FAMILY...": the module's instructions of those
# families (kernels.awk's op records), one a line: the family, then the
# instruction, the function's name as written and the source line where the
# PTX gives it ("FILE.cu:42"). Nothing when none.
forbidden_instructions() {
    [ -n "$1" ] || return 0
    local family instruction where name
    awk -F'\t' -v families=" $1 " -f "$RECORDS_READER" -f <(echo '$1 == "op" && index(families, " " field("family") " ") { w = field("where"); print field("family"), field("instruction"), (w == "" ? "-" : w), field("name") }') \
        "$(module_table)" | while read -r family instruction where name; do
        echo "$family $instruction in $(kernel_base_name "$name")$([ "$where" = - ] || echo " ($where)")"
    done
}

# module_findings KIND FIELD: the module table's KIND records (kernels.awk),
# one a line: "  VALUE in FUNCTION", VALUE the record's FIELD.
module_findings() {
    local value name
    awk -F'\t' -v kind="$1" -v key="$2" -f "$RECORDS_READER" -f <(echo '$1 == kind { print field(key), field("name") }') \
        "$(module_table)" 2>/dev/null | while read -r value name; do
        printf '  %s in %s\n' "$value" "$(kernel_base_name "$name")"
    done
}

# family_in_cuda FAMILY: what a learner writes that compiles to it.
family_in_cuda() {
    case $1 in
    shfl) echo "a warp shuffle: __shfl_sync, __shfl_down_sync and kin" ;;
    redux) echo "a warp's sum in one instruction: __reduce_add_sync and kin, or cooperative_groups::reduce" ;;
    vote) echo "a ballot: __ballot_sync, or __activemask inside a branch" ;;
    match) echo "a match of a warp's values: __match_any_sync, __match_all_sync" ;;
    bar.red) echo "a barrier that counts: __syncthreads_count" ;;
    mma) echo "a tensor core's instruction: wmma, mma.sync, or movmatrix (a matrix moved between a warp's lanes)" ;;
    st.async | red.async) echo "an asynchronous store or add into a cluster's shared memory" ;;
    cp.async.bulk) echo "a bulk copy, or a bulk add, of the TMA (cp.async.bulk)" ;;
    cluster) echo "a cluster: __cluster_dims__, a launch with a cluster dimension, or cooperative_groups::this_cluster()" ;;
    atom.shared) echo "an atomic on shared memory (atomicAdd and kin on a __shared__ variable, or through a pointer that may point there), which the compiler may turn into a warp's sum and one thread's add" ;;
    atom.global) echo "an atomic on global memory (atomicAdd and kin of a value, on the output or another buffer; a counter's add of 1 is allowed), which the compiler may turn into a warp's sum and one thread's add" ;;
    *) echo "$1" ;;
    esac
}

# forbidden_lines LINES: forbidden_instructions' lines as a learner reads
# them, each with what in CUDA makes it.
forbidden_lines() {
    local family rest
    while read -r family rest; do
        printf '  %s: %s\n' "$rest" "$(family_in_cuda "$family")"
    done <<<"$1"
}

# taught_at FAMILY: the first step after this one whose lesson allows
# FAMILY (its lesson_forbids leaves it out; step 07 teaches the shuffles);
# nothing when no later lesson does.
taught_at() {
    local step past=0 forbids
    for step in $(manifest_steps); do
        if [ "$step" = "$STEP" ]; then past=1; continue; fi
        [ "$past" = 1 ] && [ -n "$(step_field "$step" lesson)" ] || continue
        forbids=$(step_field "$step" lesson_forbids)
        [[ " $forbids " == *" $1 "* ]] || { echo "${step%%-*}"; return; }
    done
}

# The mangled names of the module's kernels.
module_kernels() {
    awk -F'\t' -f "$RECORDS_READER" -f <(echo '$1 == "kernel" { print field("name") }') "$(module_table)"
}

# find_cuda_tool NAME [PATH]: the path of a CUDA toolkit tool (ncu,
# compute-sanitizer), looked for as every script of the workbook looks for
# it (cuda_tool, common/tools/options.bash); a PATH given (GRADE_NCU,
# GRADE_SANITIZER) is taken as it is. Prints nothing where there is none,
# and always succeeds, so that a missing tool is a skip with its reason, not
# a failed assignment under bats' errexit.
find_cuda_tool() {
    cuda_tool "$@" || true
}

# lesson_metric_here NCU METRIC [FAMILIES]: METRIC (a lesson_metric of
# steps.conf) as the profiler here can count it. A term written ?NAME counts
# work that some GPUs have no instruction for (cp.async before sm_80), and
# that most kernels never do (an atomic, a cp.async, an ldmatrix): it is kept
# where this ncu lists NAME for the GPU here (--query-metrics), and where
# FAMILIES (lesson_families: what the learner's module holds) names the
# family of instructions that feeds it (term_family, grading/lesson-terms.awk); left out
# elsewhere, where that work is not done: each counter fewer can be a pass
# fewer of the program under ncu. A term whose family is unknown, or
# FAMILIES "all" (or none given), is kept. Every other term is always asked
# for: one that ncu lacks fails the lesson with ncu's own message, never a
# silent 0.
lesson_metric_here() {
    local ncu=$1 metric=$2 families=${3-all} known waited=0
    # (Thousands of names: a file, not an argument. ncu takes 2 s to list
    # them: asked once a grading, by grading/grade while the steps build,
    # which marks it ncu-metrics.asked; else here.)
    # A listing that failed or came out empty is not kept: it is asked again.
    known=$GRADE_RESULTS/ncu-metrics
    if [[ $metric == *\?* ]] && [ ! -s "$known" ]; then
        while [ -d "$known.asked" ] && [ ! -s "$known" ] && [ "$waited" -lt 600 ]; do
            sleep 0.1
            waited=$((waited + 1))
        done
        [ -s "$known" ] || ncu_metric_names "$ncu" "$known" || true
    fi
    awk -v metric="$metric" -v known="$known" -v families=" $families " -f "$GRADING_DIR/lesson-terms.awk" -f <(cat <<'AWK'
    BEGIN {
        while ((getline name < known) > 0) have[name] = 1
        rest = metric; out = ""; carry = ""
        while (rest != "") {
            sep = ""
            if (rest ~ /^[-+\/]/) { sep = substr(rest, 1, 1); rest = substr(rest, 2) }
            match(rest, /^[^-+\/]*/); term = substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
            if (carry == "/") sep = "/"
            carry = ""
            if (sep == "/") below = 1
            if (substr(term, 1, 1) == "?") {
                term = substr(term, 2); base = term; sub(/\..*/, "", base)
                # (A divisor's term is left out only where ncu lacks it: a
                # figure's divisor is no counter of the work.)
                family = below ? "" : term_family(base)
                if (!(base in have) || (family != "" && families !~ / (all|call) / && !index(families, " " family " "))) {
                    if (sep == "/") carry = "/"
                    continue
                }
            }
            if (out == "" && sep == "+") sep = ""
            out = out sep term
        }
        print out
    }
AWK
    )
}

# lesson_families: the families of instructions (kernels.awk's feeds records:
# atomic, cp.async, cp.async.bulk, ldmatrix, stmatrix, call) that the
# learner's module holds, anywhere in it, on one line; "all" where its
# table cannot be read. The starting kernels hold none of them
# (tests/grading-manifest.bats), so what the module holds is all that the
# lesson's two kernels can do.
lesson_families() {
    local table
    table=$(module_table) && [ -r "$table" ] && grep -q '^kernel' "$table" || { echo all; return; }
    awk -F'\t' -f "$RECORDS_READER" -f <(echo '$1 == "feeds" && !seen[field("family")]++ { printf "%s%s", (n++ ? " " : ""), field("family") } END { print "" }') "$table"
}

# lesson_value CSV METRIC NAMES: from ncu's raw CSV page, METRIC over every
# launch of the kernels NAMES lists (mangled, one a line, in a file): each of
# METRIC's terms summed over those launches, then combined. METRIC is ncu
# metrics joined by + and -, optionally divided by a sum of more ("a+b/c"):
# over several launches, the sum of a over the sum of c. Prints the value and
# the number of launches; nothing where no launch of them was profiled.
# Thousands separators are dropped.
lesson_value() {
    awk -v metric="$2" -v names="$3" -f "$GRADING_DIR/../common/tools/ncu_csv.awk" -f <(cat <<'AWK'
    function number(name,    v) {
        if (!(name in col)) { bad = name; return 0 }
        v = f[col[name]]
        gsub(/,/, "", v)
        return v + 0
    }
    BEGIN {
        while ((getline line < names) > 0) if (line != "") wanted[line] = 1
        den = ""
        expr = metric
        if (index(expr, "/")) { den = substr(expr, index(expr, "/") + 1); expr = substr(expr, 1, index(expr, "/") - 1) }
        gsub(/-/, "+-", expr)
        terms = split(expr, term, "+")
        dn = den == "" ? 0 : split(den, dterm, "+")
    }
    /^"ID"/ { header = 1; n = split_csv($0, heads); for (i = 1; i <= n; i++) col[heads[i]] = i; next }
    header == 1 { header = 2; next }  # the units row
    header == 2 {
        split_csv($0, f)
        if (!(f[col["Kernel Name"]] in wanted)) next
        launches++
        for (t = 1; t <= terms; t++) {
            if (term[t] == "") continue
            if (substr(term[t], 1, 1) == "-") total -= number(substr(term[t], 2)); else total += number(term[t])
        }
        for (t = 1; t <= dn; t++) per += number(dterm[t])
    }
    END {
        if (bad != "") { print "missing metric: " bad > "/dev/stderr"; exit 1 }
        if (launches) printf "%.6g %d\n", (dn ? (per > 0 ? total / per : 0) : total), launches
    }
AWK
    ) "$1"
}

# The kernels of ncu's raw CSV page, by mangled name, one a line.
profiled_kernels() {
    awk -f "$GRADING_DIR/../common/tools/ncu_csv.awk" -f <(cat <<'AWK'
    /^"ID"/ { header = 1; n = split_csv($0, heads); for (i = 1; i <= n; i++) col[heads[i]] = i; next }
    header == 1 { header = 2; next }
    header == 2 { split_csv($0, f); if (!(f[col["Kernel Name"]] in seen)) { seen[f[col["Kernel Name"]]] = 1; print f[col["Kernel Name"]] } }
AWK
    ) "$1"
}

# The function name of a kernel, from its mangled name: "reduce_unrolled<256u>".
kernel_base_name() {
    local demangled
    demangled=$(c++filt "$1" 2>/dev/null || echo "$1")
    [[ $demangled == *")" ]] && demangled=${demangled%(*}  # the parameters: from the last "("
    echo "${demangled#void }"
}

# Its bare name, as the launch audit reads it (common/core/audit.cu): no
# namespace, nothing from the first < or ( on ("reduce_unrolled"), so that
# every overload and instance the audit takes for the graded kernel is
# counted as it (an overload with a "(" in its parameters is no other kernel).
kernel_bare_name() {
    local name head anonymous='(anonymous namespace)::' scope='[<(:]*' args='[<(]*'
    name=$(c++filt "$1" 2>/dev/null || echo "$1")
    name=${name#void }
    while :; do
        if [[ $name == "$anonymous"* ]]; then
            name=${name#"$anonymous"}
            continue
        fi
        head=${name%%$scope}
        [ "${name:${#head}:2}" = "::" ] || break
        name=${name:$((${#head} + 2))}
    done
    echo "${name%%$args}"
}

# grade_lesson: does the graded kernel show the step's idea on the counter
# that measures it? Nsight Compute profiles the timed run itself -- the
# command the speed test credits, timed_run -- in its watched round only,
# drawn per grading, in which the starting kernel and the learner's are each
# called once, and the counter is read over every launch of each call: a
# call's levels and any other launch count alike, so that no launch can
# stand in for the others. The learner's kernel
# is the one the launch audit names (audit's kernel=), among the kernels of
# the learner's module. The step's entry in the manifest sets:
#   lesson_start   the starting kernel's function name
#   lesson_metric  what is compared (see lesson_value): less is better
#   lesson_what    what the figure counts, for the message
#   lesson_fix     what to change when it has not moved enough
#   lesson         the factor: the learner's figure must be at most the
#                  starting kernel's divided by it (a calibrated thresholds
#                  file may set its own, metric "lesson")
grade_lesson() {
    require_build || return
    require_correct lesson profiled || return
    # Instructions that do the counted work where the counter cannot see it
    # (steps.conf lesson_forbids): no figure of ncu's can show the lesson then.
    local forbidden
    forbidden=$(forbidden_instructions "$(step_setting lesson_forbids)")
    if [ -n "$forbidden" ]; then
        record lesson fail reason="instructions the lesson leaves out" families="$(cut -d' ' -f1 <<<"$forbidden" | sort -u | paste -sd, -)"
        local family later=""
        for family in $(cut -d' ' -f1 <<<"$forbidden" | sort -u); do
            local at
            at=$(taught_at "$family")
            [ -z "$at" ] || later+="${later:+, }$(family_in_cuda "$family" | sed 's/:.*//') at step $at"
        done
        fail "$(printf 'your kernels use instructions that step %s'"'"'s lesson leaves out:\n%s\nThe lesson counts %s; each of these does that work where the counter cannot see it, so no figure could show the step'"'"'s idea. Write this step'"'"'s kernel without them%s.' \
            "$(step_number)" "$(forbidden_lines "$forbidden")" "$(step_setting lesson_what)" "${later:+ (a later lesson allows it: $later)}")"
        return
    fi
    local ncu metric start_kernel graded_kernel
    start_kernel=$(step_setting lesson_start)
    graded_kernel=$(step_setting audit | tr ' ' '\n' | sed -n 's/^kernel=//p')
    ncu=$(find_cuda_tool ncu "${GRADE_NCU:-}")
    if [ -z "$ncu" ]; then
        skip_with lesson "ncu (Nsight Compute) not found: it comes with the CUDA toolkit; put its bin/ on PATH to grade the lesson"
    fi
    local families
    families=$(lesson_families)
    metric=$(lesson_metric_here "$ncu" "$(step_setting lesson_metric)" "$families")
    # No metric would count nothing for either kernel, and 0 <= 0 would pass.
    [ -n "$metric" ] || { record lesson fail reason="no metric"; fail "the lesson's metric could not be read (steps.conf lesson_metric=$(step_setting lesson_metric))"; return; }
    # The second figure (steps.conf lesson_also, LEFT>=RIGHT), counted in the same profile.
    local also also_left="" also_right=""
    also=$(step_setting lesson_also)
    if [ -n "$also" ]; then
        also_left=$(lesson_metric_here "$ncu" "${also%%>=*}" "$families")
        also_right=$(lesson_metric_here "$ncu" "${also#*>=}" "$families")
        [[ $also == *">="* && -n $also_left && -n $also_right ]] ||
            { record lesson fail reason="no metric"; fail "the lesson's second figure could not be read (steps.conf lesson_also=$also: LEFT>=RIGHT)"; return; }
    fi
    local names
    names=$(tr '/+-' '\n\n\n' <<<"$metric/$also_left/$also_right" | awk 'NF && !seen[$0]++' | paste -sd, -)
    local csv
    mkdir -p "$GRADE_RESULTS"
    plans_ready || { fail "not profiled: your host code's planning failed (see the correctness tests)"; return; }
    # The profile, started by the timed test (lesson_early) or now.
    # (Its wait: the passes' time and their waits for the GPU alone.)
    if EARLY_WAIT=$((2 * GRADE_TIMEOUT + GRADE_GPU_WAIT + 60)) early_result lesson; then
        csv=$(verdict_dir)/early/lesson/lesson.csv
    else
        csv=$BATS_TEST_TMPDIR/lesson.csv
        lesson_profile "$ncu" "$names" "$start_kernel" "$graded_kernel" "$BATS_TEST_TMPDIR" "$csv"
    fi
    # What the profiled run printed (the program's heading once a pass of
    # ncu's, and whatever else it said), kept for whoever reads why.
    head -c 100000 <<<"$output" >"$(verdict_dir)/lesson.out"
    if grep -qs ERR_NVGPUCTRPERM "$csv" || grep -q ERR_NVGPUCTRPERM <<<"$output"; then
        skip_with lesson "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM), so the lesson cannot be graded here. Fix: run the grader as root, or have an administrator allow profiling for all users (options nvidia NVreg_RestrictProfilingToAdminUsers=0 in /etc/modprobe.d, then reboot; https://developer.nvidia.com/ERR_NVGPUCTRPERM)"
    fi
    # The program's own exit status says whether it found no GPU, never the
    # text of the output, which the learner's kernels may print.
    [ "$status" -ne 77 ] || output=$(grep -v '^==' <<<"$output")
    record lesson fail reason="not profiled"  # until shown otherwise
    triage_exit lesson || return
    [ "$status" -eq 0 ] || { fail "$(printf 'the profiled run failed (exit %d):\n%s' "$status" "$(tail -n 20 <<<"$output")")"; return; }
    # Whose each profiled kernel is: the learner's module's, or the program's.
    # The learner's plan launches the step's kernel and no other (the launch
    # audit fails any other), so a launch named like the starting kernel is
    # the program's, even where the file keeps a kernel of that name (the
    # last step's, carried forward, static and never launched).
    local mine=$BATS_TEST_TMPDIR/lesson.mine starts=$BATS_TEST_TMPDIR/lesson.start k
    module_kernels >"$BATS_TEST_TMPDIR/lesson.module" 2>/dev/null
    : >"$mine"
    : >"$starts"
    while read -r k; do
        [ -n "$k" ] || continue
        if [ "$(kernel_bare_name "$k")" = "$graded_kernel" ]; then
            grep -qxF -- "$k" "$BATS_TEST_TMPDIR/lesson.module" && echo "$k" >>"$mine"
        elif [ "$(kernel_bare_name "$k")" = "$start_kernel" ]; then
            echo "$k" >>"$starts"
        fi
    done < <(profiled_kernels "$csv")
    # ncu stops at LESSON_LAUNCHES: a run that reaches it was cut short, and
    # its two kernels may not have been profiled as often.
    local profiled
    profiled=$(awk '/^"ID"/ { header = 1; next } header == 1 { header = 2; next } header == 2 { n++ } END { print n + 0 }' "$csv")
    if [ "$profiled" -ge "$LESSON_LAUNCHES" ]; then
        record lesson fail reason="too many launches"
        fail "the profiled run made $profiled or more launches, as many as ncu profiles ($LESSON_LAUNCHES): the lesson cannot be counted over every launch of each kernel; a step's function launches a few kernels a call"
        return
    fi
    local yours start yours_launches start_launches
    local value
    # (A metric ncu did not give fails the test: it is never read as 0.)
    value=$(lesson_value "$csv" "$metric" "$starts" 2>&1) ||
        { record lesson fail reason="no metric"; fail "$(printf 'ncu gave no %s:\n%s' "$metric" "$value")"; return; }
    read -r start start_launches <<<"$value"
    value=$(lesson_value "$csv" "$metric" "$mine" 2>&1) ||
        { record lesson fail reason="no metric"; fail "$(printf 'ncu gave no %s:\n%s' "$metric" "$value")"; return; }
    read -r yours yours_launches <<<"$value"
    [ -n "$start" ] || { fail "$(printf 'ncu saw no launch of the starting kernel %s; it saw:\n%s' "$start_kernel" "$(profiled_kernels "$csv" | while read -r k; do kernel_base_name "$k"; done)")"; return; }
    [ -n "$yours" ] || { fail "$(printf 'ncu saw no launch of %s from your file; it saw:\n%s' "$graded_kernel" "$(profiled_kernels "$csv" | while read -r k; do kernel_base_name "$k"; done)")"; return; }
    local file factor
    file=$(thresholds_file "$(cat "$GRADE_RESULTS/gpu" 2>/dev/null)")
    read -r factor file <<<"$(threshold_or_default "$file" "$(step_number)" lesson)"
    [ -n "$factor" ] || { fail "no lesson factor for step $(step_number) in the thresholds files"; return; }
    local figures=(yours="$yours" start="$start" factor="$factor" thresholds="$(basename "$file")")
    if ! awk -v y="$yours" -v s="$start" -v f="$factor" 'BEGIN { exit !(y * f <= s) }'; then
        record lesson fail "${figures[@]}"
        fail "$(printf '%s: %s %s over its %d launches; the starting kernel %s: %s over its %d. The lesson asks for at least %sx fewer (%s).\n%s\n(see it yourself: make profile EX=%s)' \
            "$graded_kernel" "$yours" "$(step_setting lesson_what)" "$yours_launches" "$start_kernel" "$start" "$start_launches" "$factor" "$file" "$(step_setting lesson_fix)" "$(step_number)")$(explain_where)" || return
    fi
    if [ -n "$also" ]; then
        local left right
        left=$(lesson_value "$csv" "$also_left" "$mine" 2>&1) ||
            { record lesson fail reason="no metric"; fail "$(printf 'ncu gave no %s:\n%s' "$also_left" "$left")"; return; }
        right=$(lesson_value "$csv" "$also_right" "$mine" 2>&1) ||
            { record lesson fail reason="no metric"; fail "$(printf 'ncu gave no %s:\n%s' "$also_right" "$right")"; return; }
        read -r left _ <<<"$left"
        read -r right _ <<<"$right"
        figures+=(also="$left" also_against="$right")
        if ! awk -v l="$left" -v r="$right" 'BEGIN { exit !(l >= r) }'; then
            record lesson fail "${figures[@]}"
            fail "$(printf '%s: %s against %s over its %d launches. The lesson also asks for %s.\n%s\n(see it yourself: make profile EX=%s)' \
                "$graded_kernel" "$left" "$right" "$yours_launches" "$(step_setting lesson_also_what)" "$(step_setting lesson_fix)" "$(step_number)")$(explain_where)" || return
        fi
    fi
    record lesson pass "${figures[@]}"
}

# lesson_profile NCU METRICS START GRADED DIR CSV: the lesson's profile of the
# watched round (grade_lesson), NCU counting METRICS of the kernels START
# and GRADED into CSV; the one folder it may write in, DIR. Sets status and
# output.
lesson_profile() {
    local ncu=$1 names=$2 start_kernel=$3 graded_kernel=$4 csv=$6
    local mode
    mode=$(measure_mode)
    # (Its passes each a run of the program, each bounded by GRADE_TIMEOUT
    # where it takes the lock itself: all of them, by twice that.)
    local passes=1
    [ "$mode" != measure ] || passes=2
    LOCK=$mode confine "$((passes * GRADE_TIMEOUT))" "$GRADE_MEMORY" "$5"
    local -a lock=()
    [ "$mode" != measure ] || mapfile -t lock < <(measure_args)
    # An exit the program never gives (0, 1, 2, 3 or 77), and no timeout: the
    # profiler's own failure, seen once on a GPU shared by 14 graders (an
    # honest file's run ended with status 9 and no output). It is tried once
    # more: a file that fails twice fails.
    # Where ncu needs more than one pass over a kernel for these counters, it
    # runs the whole program again for each pass (--replay-mode
    # application) rather than the kernel again within one run: a kernel
    # replayed within a run finds its own shared memory as its last pass
    # left it (the scrub runs before each call, not between passes), and so
    # could count its passes and behave otherwise in all but the first
    # (tests/mutants/03-replay-pass-shared-marker.patch). A program run
    # again scrubs before the call, as every timed run does. Each pass runs
    # the watched round alone (--watched-only), not the hundred rounds
    # around it: nothing of those reaches the round's calls. ncu counts the
    # two kernels compared and no other launch of the round (the inputs',
    # the scrub's, the cache flush's, cuBLAS's): each launch it profiles
    # costs it time in every pass, and their figures are read nowhere.
    # ncu keeps a core busy while its program waits for the GPU alone: in
    # a whole grading six of them took 45-56 s of the host's time each,
    # from their start beside the sanitizers to their program's turn (H200,
    # 2026-12-01; docs/grading.md, Grading faster). So where other steps
    # (GRADE_AT_ONCE), other graders of the GPU (GRADE_GPU_LOCK) or a
    # class's other gradings on the host (grading/batch: GRADE_BATCH_JOB)
    # share them, it starts once the GPU could be had alone (gpu_free_wait).
    # One step alone leaves cores free, and its ncu starts at once, so that
    # the program's start runs beside the step's sanitizers (step 05 alone
    # on an H200, 2026-12-02: 18.7-19.1 s against 19.5-20.0 s). Its program
    # then takes the lock as before.
    if [ "$mode" = measure ] && { [ "${GRADE_AT_ONCE:-1}" -gt 1 ] || [ -n "${GRADE_GPU_LOCK:-}${GRADE_BATCH_JOB:-}" ]; }; then
        gpu_free_wait
    fi
    local try
    for try in 1 2; do
        # shellcheck disable=SC2046
        run on_gpu "$mode" "${CONFINE[@]}" "$ncu" --clock-control none --replay-mode application --print-kernel-base mangled --launch-count "$LESSON_LAUNCHES" \
            --kernel-name-base demangled --kernel-name "regex:$(lesson_kernels_regex "$start_kernel" "$graded_kernel")" \
            --profile-from-start off --metrics "$names" --csv --page raw --log-file "$csv" "$(program_path)" \
            ${GRADE_SEED:+-s "$GRADE_SEED"} ${lock[@]+"${lock[@]}"} --plans "$(plans_file)" $(timed_run) --watched-only
        [ "$mode" != measure ] || log_gpu_alone <<<"$output"
        case $status in
        0 | 1 | 77 | 124 | 137) break ;;
        2 | 3)
            # Where the program found the GPU's memory short (its start
            # beside the step's sanitizers, on a GPU of a few gigabytes:
            # GPU_MEMORY_SHORT, common/tools/options.bash): once more, once
            # the GPU is free, as a sanitizer run short of it runs again
            # alone. Any other CUDA error, or a refused size: the file's.
            [ "$try" = 1 ] && grep -qE "$GPU_MEMORY_SHORT" <<<"$output" || break
            gpu_free_wait
            ;;
        esac
    done
}

# lesson_early: from the timed test, the lesson's profile started now in the
# background (lesson_profile, its files in the step's early/lesson), where
# the lesson test will profile -- a step with a lesson, its checks of every
# block right, no instruction the lesson refuses, an ncu with its metrics --
# so that its passes wait for the GPU beside the timed run, not after it.
# The lesson test judges what it left, by its own verdict (require_correct).
lesson_early() {
    [ -n "$(step_setting lesson)" ] || return 0
    [ "$(head -n 1 "$(checks_file)" 2>/dev/null)" = 0 ] || return 0
    [ ! -e "$(verdict_dir)/early/lesson.started" ] || return 0
    [ -z "$(forbidden_instructions "$(step_setting lesson_forbids)")" ] || return 0
    local ncu families metric also also_left="" also_right="" names dir
    ncu=$(find_cuda_tool ncu "${GRADE_NCU:-}")
    [ -n "$ncu" ] || return 0
    families=$(lesson_families)
    metric=$(lesson_metric_here "$ncu" "$(step_setting lesson_metric)" "$families")
    [ -n "$metric" ] || return 0
    also=$(step_setting lesson_also)
    if [ -n "$also" ]; then
        also_left=$(lesson_metric_here "$ncu" "${also%%>=*}" "$families")
        also_right=$(lesson_metric_here "$ncu" "${also#*>=}" "$families")
        [[ $also == *">="* && -n $also_left && -n $also_right ]] || return 0
    fi
    names=$(tr '/+-' '\n\n\n' <<<"$metric/$also_left/$also_right" | awk 'NF && !seen[$0]++' | paste -sd, -)
    dir=$(verdict_dir)/early/lesson
    rm -rf "$dir"
    mkdir -p "$dir"
    BATS_TEST_DESCRIPTION="$(step_number) $(step_setting lesson_title)" early_start lesson lesson_profile "$ncu" "$names" \
        "$(step_setting lesson_start)" "$(step_setting audit | tr ' ' '\n' | sed -n 's/^kernel=//p')" "$dir" "$dir/lesson.csv"
}

# lesson_kernels_regex NAME...: a regular expression (ncu's --kernel-name
# regex:, on the demangled name) for the kernels of these names, as ncu
# spells them: "void mine<256u>(const int *, int *, unsigned int)", with a
# namespace ("ws::mine(...)", "(anonymous namespace)::mine(...)") or none
# at all (extern "C": "mine"); never another name that begins or ends so
# (mine_helper, not_mine). Names are identifiers (steps.conf), neither the
# start of the other: ncu 2025.3 on an H200 missed an extern "C" kernel
# whose name another alternative began (tests/grading-manifest.bats).
lesson_kernels_regex() {
    local IFS='|'
    echo "(^|[^A-Za-z0-9_])($*)([<(]|\$)"
}

# The most of its ceiling a graded kernel can honestly reach, in percent:
# no reduction reads faster than a copy moves bytes, and no step's kernel
# comes near cuBLAS (step 08's solution: 95% on an H100).
: "${PCT_PLAUSIBLE:=150}"

# Bytes of text (kernels.awk's text=yes: an assert's function name) that
# the launch audit's cap on __device__ memory leaves out, in all.
: "${TEXT_BYTES:=65536}"

# Launches ncu profiles in the lesson's run at most: an honest watched round
# makes about 30 (a call of each timed kernel, of a few launches each, and
# the inputs', the cache flush's and the scrub's own kernels).
: "${LESSON_LAUNCHES:=400}"

# Seconds a sanitizer run may take: they slow a kernel down 10 to 100 times.
: "${GRADE_SANITIZE_TIMEOUT:=$((2 * GRADE_TIMEOUT))}"

# grade_sanitize: what `make sanitize` runs (common/tools/sanitize.sh:
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck) on the
# learner's program at the step's small sizes (its Makefile's SANITIZE_SIZES
# and SANITIZE_BLOCKS, with more drawn: sanitize_runs) and at the timed size
# (--check: the checks' two calls). A race can give the right sum on every
# run; these tools see it anyway.
grade_sanitize() {
    require_build || return
    require_correct sanitize sanitized || return
    local sanitizer args clocks
    # A kernel that reads a clock can tell a watched run from a timed one.
    clocks=$(module_findings clock register)
    if [ -n "$clocks" ]; then
        record sanitize fail reason="reads clocks"
        fail "$(printf 'your kernels read a clock, the SM, the warp slot or the launch they run on, or keep memory between launches, so they can tell a run under the sanitizers from a timed one and behave otherwise in each; a kernel of this step has no use for it (one you did not write comes from a library: libcu++'"'"'s cuda::barrier times its wait with %%globaltimer, where __syncthreads() reads no clock):\n%s' "$clocks")"
        return
    fi
    # A race in global memory between blocks, which no tool watches: a ticket
    # taken with an atomic and no fence (kernels.awk, unfenced).
    local unfenced
    unfenced=$(module_findings unfenced instruction)
    if [ -n "$unfenced" ]; then
        record sanitize fail reason="no fence"
        fail "$(printf 'your kernels take a ticket with a global atomic (its old value used, or the count read back, as a last block learns that it is last) and have no memory fence: another block'"'"'s partial sum may not be visible yet when its ticket is, a race in global memory that none of the sanitizers watches. Put __threadfence() between a block'"'"'s store of what the last block reads and its atomic (CUDA'"'"'s threadFenceReduction sample), or make the atomic release and acquire (cuda::atomic_ref, memory_order_acq_rel):\n%s' "$unfenced")"
        return
    fi
    sanitizer=$(find_cuda_tool compute-sanitizer "${GRADE_SANITIZER:-}")
    if [ -z "$sanitizer" ]; then
        skip_with sanitize "compute-sanitizer not found: it comes with the CUDA toolkit; put its bin/ on PATH to run this test"
    fi
    record sanitize fail reason="not run"  # until shown otherwise
    mkdir -p "$GRADE_RESULTS"
    plans_ready || { fail "not run: your host code's planning failed (see the correctness tests)"; return; }
    # The runs, started by the correctness tests (sanitize_early) or now;
    # then read in make sanitize's order, as one after another: the first
    # run that did not pass is the verdict's, quoted. The verdict names every
    # tool that ran (tools=), or every one that reported problems (reported=).
    local dir
    dir=$(verdict_dir)/early/sanitize
    if ! sanitize_ended "$dir"; then
        sanitize_start "$dir" "$BATS_TEST_TMPDIR"
        sanitize_ended "$dir" || { fail "the sanitizers' runs ended without a word (see $dir)"; return; }
    fi
    [ ! -s "$dir/error" ] || { fail "the sanitizers' runs are unknown: $(cat "$dir/error")"; return; }
    sanitize_short_of_memory "$dir"
    local clean="" reported="" count=0 i first=0
    while [ -e "$dir/$((count + 1)).args" ]; do count=$((count + 1)); done
    for ((i = 1; i <= count; i++)); do
        [ "$(cat "$dir/$i.status" 2>/dev/null)" = 0 ] || [ "$first" -ne 0 ] || first=$i
        reported="$reported $(grep -o '^sanitize: .* reported problems' "$dir/$i.out" | sed 's/^sanitize: //; s/ reported problems//')"
        clean="$clean $(sed -n 's/^sanitize: \(.*\) clean for .*/\1/p' "$dir/$i.out")"
    done
    status=0 args="" output=""
    if [ "$first" -ne 0 ]; then
        args=$(cat "$dir/$first.args")
        output=$(cat "$dir/$first.out")
        status=$(cat "$dir/$first.status" 2>/dev/null) || status=1
    fi
    case $status in
    0) record sanitize pass tools="$(tr ' ' '\n' <<<"$clean" | awk 'NF && !seen[$0]++' | paste -sd' ')" ;;
    77) triage_exit sanitize ;;
    3)
        # (Run alone too: the GPU is too small for it, whatever the file.)
        fail "not run: the GPU's memory was short for the sanitizers' run at $(sed -E 's/^--tools [a-z]+ //' <<<"$args"), even alone on the GPU:
$(head -n 20 <<<"$output")" ;;
    124 | 137)
        record sanitize fail reason="timed out"
        fail "the sanitizers did not finish within ${GRADE_SANITIZE_TIMEOUT}s (GRADE_SANITIZE_TIMEOUT) at $args: a kernel that hangs under them?" ;;
    *)
        reported=$(tr ' ' '\n' <<<"$reported" | awk 'NF && !seen[$0]++' | paste -sd' ')
        record sanitize fail reported="$reported"
        # (The run's own options, less the tool it ran: the program's, as make sanitize gives them.)
        fail "$(printf 'compute-sanitizer reports problems in %s %s, under %s (run it yourself: make sanitize EX=%s):\n%s' \
            "$(basename "$(program_path)")" "$(sed -E 's/^--tools [a-z]+ //' <<<"$args")" "${reported// /, }" \
            "$(step_number)" "$(head -n 60 <<<"$output")")" ;;
    esac
}

# ---------------------------------------------------------------------------
# Integrity and the launch audit
# ---------------------------------------------------------------------------

# The one file a learner edits (or its reference solution).
learner_file() {
    local name
    name=$(program_name) || return 1
    if [ "${GRADE_SOLUTIONS:-0}" = 1 ]; then
        echo "$WORKBOOK_DIR/solutions/$STEP/$name.cu"
    else
        echo "$WORKBOOK_DIR/$STEP/$name.cu"
    fi
}

# The run ended with the program's summary of its checks, every one right.
summary_from_harness() {
    grep -q $'^summary\t.*result=correct' <<<"$records" ||
        fail "$(printf 'the program recorded no passing summary of its checks:\n%s' "$(tail -n 20 <<<"$output")")"
}

# Does that file hold only kernels and their launches? Needs no GPU: see
# grading/integrity for what it checks.
grade_integrity() {
    local file why
    file=$(learner_file) || { fail "cannot tell which file of $STEP to check"; return; }
    record integrity fail reason="not checked"  # until shown otherwise
    [ ! -f "$WORKBOOK_DIR/$STEP/HAND-IN-REFUSED" ] ||
        { fail "not checked: $(cat "$WORKBOOK_DIR/$STEP/HAND-IN-REFUSED")"; return; }
    why=$(why_refused "$file")
    [ -z "$why" ] || { fail "not checked: $(basename "$file") is $why"; return; }
    # A file that does not build is never run, and the build test quotes
    # the compiler once: the check's own compile would say it again.
    [ "$(verdict_field "$(verdict_dir)/build" result)" != fail ] || { fail "not checked (the build failed)"; return; }
    # It compiles the host code the build kept (for its assembly): confined
    # and bounded as a build is.
    GPU=no confine "$GRADE_BUILD_TIMEOUT" "$GRADE_BUILD_MEMORY"  # it writes only in its /tmp
    # What the build made, the object the program links and the host code
    # and PTX beside it, is what is checked: the file is not compiled again.
    run "${CONFINE[@]}" "$GRADING_DIR/integrity" --object "$(learner_object)" "$file"
    record integrity fail
    case $status in
    0) record integrity pass ;;
    # Its findings, each the learner's own symbol and line: shown whole.
    1) fail "$(printf '%s does more than define and launch its kernels:\n%s' "$(basename "$file")" "$(tail -n 40 <<<"$output")")" ;;
    # A check that the file kept from ending (the build ended) finds as one
    # that ended: a file clean in seconds is checked in seconds.
    124 | 137) fail "$(printf 'the check of %s did not finish within %s s (GRADE_BUILD_TIMEOUT), where a file that only defines and launches its kernels is checked in seconds: a file that keeps it from ending is not graded:\n%s' "$(basename "$file")" "$GRADE_BUILD_TIMEOUT" "$(tail -n 20 <<<"$output")")" ;;
    # A compiler's messages may quote other files: those a learner has.
    *)
        output=$(tail -n 200 <<<"$output" | "$WORKBOOK_DIR/common/tools/quote-workbook.sh" "$WORKBOOK_DIR" "$(dirname "$file")" "$STEP")
        record integrity fail reason="not checked"
        fail "$(printf 'not checked (exit %d):\n%s' "$status" "$output")"
        ;;
    esac
}

# The launch audit: the program audits the plan the learner's host code made
# for each size and block of its run (common/core/audit.h), before it runs any,
# and reports what each launches. A finding fails, and
# voids the step's points (grading/report); a kernel that is merely wrong is
# left to the correctness tests, and voids nothing.
# grade_launch_audit [BLOCK SIZE...]: by default the run of the step's
# audit_run ("-b BLOCK -n SIZE,SIZE...").
grade_launch_audit() {
    require_build || return
    local early=0
    if [ $# -eq 0 ]; then
        local audit_run
        audit_run=$(audit_run_args) ||
            { fail "$STEP: audit_run=\"$(step_setting audit_run)\" in $MANIFEST is not \"-b BLOCK -n SIZE,SIZE...\""; return; }
        set -- $audit_run
        early=1  # the step's own audit run: it may have run beside the sanitizers
    fi
    local block=$1
    shift
    local sizes
    sizes=$(IFS=,; echo "$*")
    # Read from the module itself, before any run (steps.conf audit_forbids).
    local forbidden
    forbidden=$(forbidden_instructions "$(step_setting audit_forbids)")
    if [ -n "$forbidden" ]; then
        record audit fail finding=instructions families="$(cut -d' ' -f1 <<<"$forbidden" | sort -u | paste -sd, -)"
        fail "$(printf 'the launch audit refuses instructions of your kernels at step %s:\n%s\nThe blocks of a cluster read one another'"'"'s shared memory, so that one block can sum its neighbours'"'"' shares where no count of who reads the input sees it; each block of this step sums its own share, in its own shared memory: launch your kernel without a cluster.' \
            "$(step_number)" "$(forbidden_lines "$forbidden")")"
        return
    fi
    # Memory every block can write, as large as a share of the input, is room
    # to hand elements from block to block where no census looks (steps.conf
    # audit_module_bytes): the module's __device__ variables, from its table.
    local most_bytes
    most_bytes=$(step_setting audit_module_bytes)
    if [ -n "$most_bytes" ]; then
        local module_bytes variables
        # (Text -- an assert's function name, a printf's format -- is no room
        # for data up to TEXT_BYTES in all, which asserts in every instance
        # of a template can reach.)
        module_bytes=$(awk -F'\t' -v text_free="$TEXT_BYTES" -f "$RECORDS_READER" -f <(echo '$1 == "text" { t += field("bytes") } $1 == "global" && field("space") == "global" { if (field("text") == "yes") t += field("bytes"); else n += field("bytes") } END { print n + (t > text_free ? t - text_free : 0) }') "$(module_table)")
        if [ "$module_bytes" -gt "$most_bytes" ]; then
            variables=$(awk -F'\t' -f "$RECORDS_READER" -f <(echo '$1 == "global" && field("space") == "global" { print "  " field("name") ": " field("bytes") " bytes" (field("text") == "yes" ? " of text" : "") }') "$(module_table)" | sort -t: -k2 -n -r | head -n 5)
            record audit fail finding=module_bytes bytes="$module_bytes" most="$most_bytes"
            fail "$(printf 'the launch audit refuses %s bytes of __device__ memory in your module, where step %s allows %s:\n%s\nMemory that every block can write, as large as a share of the input, is room to hand elements from block to block where no count of who reads the input sees them; this step'"'"'s kernels need a counter or a few flags at most, and keep their partial sums in the buffer they are given.' \
                "$module_bytes" "$(step_number)" "$most_bytes" "$variables")"
            return
        fi
    fi
    if [ "$early" = 1 ] && early_result audit-run; then
        records=$(records_left "$(verdict_dir)/early/audit-run.records")
    else
        run_program --check -b "$block" -n "$sizes"
    fi
    record audit fail reason="not run"  # until it has run; fail without a reason is a finding
    # The program audits every plan before any kernel runs: its findings
    # stand however the run ended after (a kernel that then fails or hangs
    # on purpose hides nothing).
    local findings audited
    findings=$(audit_findings)
    if [ -n "$findings" ]; then
        record audit fail
        fail "$(printf 'the launch audit found work that is not your kernel doing the step:\n%s\n(run it yourself: ./%s --check -b %s -n %s%s, in %s)' \
            "$findings" "$(basename "$(program_path)")" "$block" "$sizes" "${GRADE_SEED:+ -s $GRADE_SEED}" "$STEP")" || return
    fi
    triage_exit audit || return
    audited=$(grep -c $'^audit\t' <<<"$records")
    if grep -q $'^check\t.*result=mismatch' <<<"$records"; then
        record audit fail reason="not run"
        fail "not audited: $STEP is not correct yet (see its correctness tests); the audit certifies a correct kernel" || return
    fi
    [ "$audited" -ge "$#" ] || { record audit fail; fail "$(printf 'the program reported %d plans audited for %d sizes: did it end early?\n%s' "$audited" "$#" "$(tail -n 5 <<<"$output")")"; return; }
    local census="not a step of levels"
    if [[ " $(step_setting audit) " == *" launches=levels "* ]]; then
        # A finding of the census voids the step, as the audit's own do; a
        # census that could not run or be read fails the audit's point only.
        census=$(grade_census) || {
            if [ $? -eq 1 ]; then record audit fail finding=census; else record audit fail reason="census not run"; fi
            fail "$census"
            return
        }
    fi
    record audit pass census="$census"
}

# census_run SANITIZER DIR: the census's run (grade_census), its files in DIR;
# sets status and output.
census_run() {
    local timed
    timed=$(step_setting timed)
    rm -rf "$2"
    mkdir -p "$2"
    confine "$GRADE_SANITIZE_TIMEOUT" "$GRADE_MEMORY" "$2"
    # The program's own words (stderr, apart: confine --stderr) from what
    # its kernels print (stdout): only the former may say that the GPU's
    # memory ran out.
    CONFINE=("${CONFINE[@]:0:${#CONFINE[@]}-1}" --stderr "$2/stderr" --)
    run on_gpu shared "${CONFINE[@]}" "$1" --tool initcheck --print-limit 0 --show-backtrace no --log-file "$2/initcheck.log" \
        "$(program_path)" ${GRADE_SEED:+-s "$GRADE_SEED"} --plans "$(plans_file)" --check --exact --only yours \
        --census "$2/census" -n "$(option_of -n "$timed")" -b "$(option_of -b "$timed")"
    output+=$'\n'$(cat "$2/stderr")
}

# audit_run_args: the block and the sizes of the step's audit run
# (steps.conf audit_run), as words: "BLOCK SIZE SIZE..."; status 1 when
# audit_run is not "-b BLOCK -n SIZE,SIZE...".
audit_run_args() {
    local audit_run
    audit_run=$(step_setting audit_run)
    [[ $audit_run =~ ^-b\ ([0-9x]+)\ -n\ ([0-9,^]+)$ ]] || return 1
    echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]//,/ }"
}

# ---------------------------------------------------------------------------
# Runs started early
# ---------------------------------------------------------------------------

# The launch audit's GPU runs (its run of the step's plans, and the census)
# share the GPU as the sanitizers' do, and need nothing of theirs: a correct
# step starts them beside the sanitizers (start_audit_runs, from
# sanitize_start), once no step's run of every block is in progress
# (after_checks), and the audit test reads what they left (early_result).
# Each is the run the audit test would make itself, with the same command,
# confinement and lock; a step whose sanitizer test does not get that far
# has its audit make them as before. On an H200 the audit of a step took
# 5 s after the sanitizers' 10 s.

# early_start NAME COMMAND...: COMMAND, a function that sets status and
# output (bats' run), in the background, its status and output kept as
# $(verdict_dir)/early/NAME.status and NAME.out (bats' own descriptor
# closed, so that the test ends without waiting for it).
early_start() {
    local file
    file=$(verdict_dir)/early/$1
    shift
    mkdir -p "${file%/*}"
    rm -f "$file.status" "$file.out"
    : >"$file.started"
    {
        status=0 output=""
        "$@" >"$file.log" 2>&1 || true
        printf '%s' "$output" >"$file.out"
        echo "$status" >"$file.status.part"
        mv "$file.status.part" "$file.status"
    } 3>&- &
}

# early_result NAME: wait for the run early_start started and set status and
# output as it left them; status 1, with nothing set, where none was started
# or none ended in time (its run was stopped with the test that started it:
# the caller then makes the run itself).
early_result() {
    local file waited=0
    file=$(verdict_dir)/early/$1
    [ -e "$file.started" ] || return 1
    # Its runs are confined (a limit of time each), so that it ends.
    while [ ! -e "$file.status" ]; do
        [ "$waited" -lt $((10 * ${EARLY_WAIT:-$((GRADE_SANITIZE_TIMEOUT + 60))})) ] || return 1
        sleep 0.1
        waited=$((waited + 1))
    done
    status=$(cat "$file.status")
    output=$(cat "$file.out")
}

# The sanitizers' runs take seconds of CPU each (racecheck at a reduction's
# timed size: 46 s of it in 8 s on an H200) and share the GPU, while a timed
# or profiled run takes it alone and waits for every shared run to end. So
# they start as early as they can: when the correctness tests' run of every
# block (checks_ready) came out right and no other step's is in progress
# (wait_for_checks), before any step's runs alone (sanitize_early); the sanitizer
# test, in its place, judges what they left. Whether it judges them at all
# is its own verdict's (require_correct), as before. One step alone then
# overlaps its checks with its sanitizers (step 05 on an H200, 2026-12-01:
# 21 s, from 28 s with the host's sums split; docs/grading.md, Grading faster).

# sanitize_start DIR SCRATCH: every run of sanitize_runs -- the small sizes, and the
# timed one (under the tools it names, if it names some) -- each tool of a
# run a run of its own (sanitize.sh --tools TOOL), a tool's timed run in its
# run of the small sizes (exact_point), in the background, at most
# GRADE_SANITIZE_SLOTS of the grading's at once (sanitize_slot): the timed
# size's first, racecheck's first of those, the longest. For the K-th run,
# in make sanitize's order (its runs, then sanitize.sh's tools), DIR/K.args,
# K.out and K.status; DIR/error where the runs are unknown; DIR/done when all
# have ended. SCRATCH is the one folder they may write in. The launch audit's
# runs start beside them (start_audit_runs).
sanitize_start() {
    local dir=$1 scratch=$2 sanitizer runs args tool count=0 k
    sanitizer=$(find_cuda_tool compute-sanitizer "${GRADE_SANITIZER:-}")
    rm -rf "$dir"
    mkdir -p "$dir" "$scratch"
    if ! runs=$(sanitize_runs 2>&1); then
        printf '%s\n' "$runs" >"$dir/error"
        : >"$dir/done"
        return
    fi
    # Each run's options less its --tools, and its tools.
    local -a rests=() toolsets=()
    while read -r args; do
        [ -n "$args" ] || continue
        local named="" rest=$args
        if [[ $rest == "--tools "* ]]; then
            rest=${rest#--tools }
            named=${rest%% *}
            rest=${rest#* }
        fi
        local tools
        tools=$("$GRADING_DIR/../common/tools/sanitize.sh" --print-tools ${named:+--tools "$named"}) || {
            printf 'sanitize.sh --print-tools refused the run %s\n' "$args" >"$dir/error"
            : >"$dir/done"
            return
        }
        rests+=("$rest")
        toolsets+=("$(echo $tools)")
    done <<<"$runs"
    # A tool's run at one point (--exact: the timed size), where the first
    # run has that tool too, goes into the first's process as its
    # --exact-at point: the tool and the program start once for both, the
    # most of a run's time at a small size (H200, 2026-12-02: 0.7-1.4 s of
    # 0.7-1.9 s; docs/grading.md, Grading faster). The point is checked as
    # before: one exact call of each kernel, after the other sizes' checks.
    local -a order=()
    local line point folded=""
    for ((line = 1; line <= ${#rests[@]}; line++)); do
        for tool in ${toolsets[line - 1]}; do
            [[ " $folded " != *" $line:$tool "* ]] || continue
            local also="" key=$line l
            for ((l = line + 1; line == 1 && l <= ${#rests[@]}; l++)); do
                [[ " ${toolsets[l - 1]} " == *" $tool "* ]] || continue
                point=$(exact_point "${rests[l - 1]}" "${rests[0]}")
                [ -n "$point" ] || continue
                also=" --exact-at $point" key=$l folded="$folded $l:$tool"
                break
            done
            count=$((count + 1))
            printf '%s\n' "--tools $tool ${rests[line - 1]}$also" >"$dir/$count.args"
            # The order they start in: those with the timed size (the last run) first, racecheck first.
            order+=("$key $([ "$tool" = racecheck ] && echo 0 || echo 1) $count")
        done
    done
    start_audit_runs
    {
        wait_for_checks
        # (Each run may write in a folder of its own, not where its status goes.)
        confine "$GRADE_SANITIZE_TIMEOUT" "$GRADE_MEMORY" "$scratch"
        # (Where they ran from a correctness test, the GPU's log names them as theirs.)
        BATS_TEST_DESCRIPTION="$(step_number) clean under compute-sanitizer"
        local -a pids=()
        # (Half the slots at most for one step: one whose kernel hangs under
        # the tools holds its runs' slots GRADE_SANITIZE_TIMEOUT each.)
        local most=$(((GRADE_SANITIZE_SLOTS + 1) / 2))
        for k in $(printf '%s\n' "${order[@]}" | sort -k1,1nr -k2,2n -k3,3n | cut -d' ' -f3); do
            while [ "$(jobs -rp | wc -l)" -ge "$most" ]; do wait -n 2>/dev/null || true; done
            # (racecheck with the timed size, the longest, on a kept slot first)
            sanitize_slot "$([[ $(cat "$dir/$k.args") == "--tools racecheck "*" --exact"* ]] && echo long)"
            # A run's status is kept whatever it is: the graded test's errexit
            # holds in this background run too, and would end it before a
            # failed run's status is written (a report then read as "not run").
            { sanitize_run shared "$dir" "$k" "$sanitizer" {SLOT_FD}>&-; } &
            pids+=($!)
            exec {SLOT_FD}>&-  # (the run's own copy holds its slot until it ends)
        done
        [ ${#pids[@]} -eq 0 ] || wait "${pids[@]}" || true
        : >"$dir/done"
    } </dev/null >"$dir/log" 2>&1 3>&- &
    echo "$!" >"$dir/pid"
}

# sanitize_run MODE DIR K SANITIZER: the K-th run of DIR (sanitize_start),
# holding the GPU's lock so (on_gpu: shared beside the others, alone for a
# run again), confined as CONFINE says; its output in DIR/K.out, its
# status in DIR/K.status.
sanitize_run() {
    local ran=0
    # shellcheck disable=SC2046
    on_gpu "$1" "${CONFINE[@]}" env COMPUTE_SANITIZER="$4" \
        "$GRADING_DIR/../common/tools/sanitize.sh" "$(program_path)" $(cat "$2/$3.args") ${GRADE_SEED:+-s "$GRADE_SEED"} \
        --plans "$(plans_file)" >"$2/$3.out" 2>&1 || ran=$?
    echo "$ran" >"$2/$3.status"
}

# sanitize_short_of_memory DIR: run again, alone on the GPU, each run of DIR
# that ended for want of the GPU's memory (sanitize.sh's status 3: the
# program said so on its stderr, where no kernel prints, and the tool
# reported nothing), which runs side by side can take from each other on a
# GPU of a few gigabytes: the grader's doing, not the file's. Once: what
# the run says then is its verdict.
sanitize_short_of_memory() {
    local k sanitizer
    for ((k = 1; ; k++)); do
        [ -e "$1/$k.args" ] || break
        [ "$(cat "$1/$k.status" 2>/dev/null)" = 3 ] || continue
        sanitizer=$(find_cuda_tool compute-sanitizer "${GRADE_SANITIZER:-}")
        confine "$GRADE_SANITIZE_TIMEOUT" "$GRADE_MEMORY" "$BATS_TEST_TMPDIR"
        sanitize_run alone "$1" "$k" "$sanitizer"
    done
}

# exact_point RUN FIRST: SIZE:BLOCK where RUN (a line of sanitize_runs)
# checks one size at one block with --exact and is otherwise FIRST's run
# (the same options but -n, -b and --exact): the program's --exact-at then
# makes the two one run. Prints nothing otherwise.
exact_point() {
    local n b
    n=$(option_of -n "$1") b=$(option_of -b "$1")
    [[ -n $n && -n $b && $n != *,* && $b != *,* && " $1 " == *" --exact "* ]] || return 0
    [ "$(options_but_point "$1")" = "$(options_but_point "$2")" ] || return 0
    echo "$n:$b"
}
options_but_point() {
    awk '{ for (i = 1; i <= NF; i++) { if ($i == "-n" || $i == "-b") { i++; continue }; if ($i != "--exact") printf "%s ", $i } }' <<<"$1"
}

# How many sanitizer runs of a grading share the GPU at once: each takes
# seconds of the host's cores, its own context and its own memory of the
# GPU; more at once only slice the GPU and the cores finer (docs/grading.md,
# Grading faster). Of those slots, (N-1)/2 (three of eight) are kept for the
# longest runs, racecheck at the timed size (46 s of the host's cores in
# 8 s on an H200, a reduction's): the steps whose checks end first (a
# matrix product's) would otherwise take every slot with short runs, and
# the longest would start last, their end the end of the grading's
# sanitizers. A long run takes a kept slot first, then any.
: "${GRADE_SANITIZE_SLOTS:=8}"
[[ $GRADE_SANITIZE_SLOTS =~ ^[1-9][0-9]*$ ]] || GRADE_SANITIZE_SLOTS=8  # (grading/grade refuses it)

# sanitize_slot [long]: wait for one of GRADE_SANITIZE_SLOTS slots, the
# locks of the grading's sanitizer runs (in GRADE_RESULTS, the one folder of
# all its steps), and hold it open in SLOT_FD. Without flock, or where the
# folder's file system cannot lock (flock fails otherwise than on a slot
# taken, its status 1: Lustre without -o flock, NFS without a lock daemon),
# SLOT_FD is /dev/null: no bound, as on_gpu runs without its lock there.
sanitize_slot() {
    local slots=$GRADE_RESULTS/sanitize-slots k taken list kept=$(((GRADE_SANITIZE_SLOTS - 1) / 2))
    if [ "${1:-}" = long ]; then
        list=$(seq "$GRADE_SANITIZE_SLOTS" -1 1)
    else
        list=$(seq 1 $((GRADE_SANITIZE_SLOTS - kept)))
    fi
    if command -v flock >/dev/null && mkdir -p "$slots"; then
        while :; do
            for k in $list; do
                exec {SLOT_FD}>>"$slots/$k" || break 2
                taken=0
                flock --nonblock "$SLOT_FD" 2>/dev/null || taken=$?
                [ "$taken" -ne 0 ] || return 0
                exec {SLOT_FD}>&-
                [ "$taken" -eq 1 ] || break 2
            done
            # All taken: asleep on one of them, a while at most, then all
            # again; where flock cannot wait a while, asleep that while.
            if flock_waits "$slots"; then
                k=$(shuf -n 1 -e $list)
                exec {SLOT_FD}>>"$slots/$k" || break
                taken=0
                flock --timeout 0.5 "$SLOT_FD" 2>/dev/null || taken=$?
                [ "$taken" -ne 0 ] || return 0
                exec {SLOT_FD}>&-
            else
                sleep 0.5
            fi
        done
        echo "sanitizers: the slots in $slots cannot be locked here: their runs are not bounded" >&2
    fi
    exec {SLOT_FD}</dev/null
}

# flock_waits DIR: whether this flock can wait a while for a lock
# (--timeout, fractional: util-linux's; busybox's cannot), asked once.
flock_waits() {
    if [ -z "${FLOCK_WAITS:-}" ]; then
        FLOCK_WAITS=no
        flock --timeout 0.1 "$1/.waits" true 2>/dev/null && FLOCK_WAITS=yes
    fi
    [ "$FLOCK_WAITS" = yes ]
}

# sanitize_ended DIR: wait for the runs sanitize_start started in DIR, for as
# long as they run (each is confined to GRADE_SANITIZE_TIMEOUT, past its wait
# for the GPU); 1 where none were started, or they were stopped before the
# end (with the test that started them).
sanitize_ended() {
    local pid
    [ -e "$1/pid" ] || return 1
    pid=$(cat "$1/pid")
    wait "$pid" 2>/dev/null || true  # (started by this test: its child)
    while [ ! -e "$1/done" ]; do
        kill -0 "$pid" 2>/dev/null || { [ -e "$1/done" ] && break; return 1; }
        sleep 0.1
    done
}

# sanitize_early: from a correctness test, once the run of every block came
# out right: the sanitizers' runs started now (sanitize_start), where the
# sanitizer test will run them -- not where it will refuse the module before
# any run (a clock read, a ticket without a fence) or find no tool.
sanitize_early() {
    [ "$(head -n 1 "$(checks_file)" 2>/dev/null)" = 0 ] || return 0
    [ ! -e "$(verdict_dir)/early/sanitize/pid" ] || return 0
    [ -z "$(module_findings clock register)$(module_findings unfenced instruction)" ] || return 0
    [ -n "$(find_cuda_tool compute-sanitizer "${GRADE_SANITIZER:-}")" ] || return 0
    rm -rf "$(verdict_dir)/early/sanitize-scratch"
    sanitize_start "$(verdict_dir)/early/sanitize" "$(verdict_dir)/early/sanitize-scratch"
}

# start_audit_runs: the audit's runs of the step (its own audit_run, and the
# census at a step of levels), started now in the background.
start_audit_runs() {
    local args sanitizer
    args=$(audit_run_args) || return 0
    # shellcheck disable=SC2086
    set -- $args
    local block=$1
    shift
    mkdir -p "$(verdict_dir)/early"
    RECORDS_FILE=$(verdict_dir)/early/audit-run.records
    : >"$RECORDS_FILE"
    early_start audit-run after_checks run_program --check -b "$block" -n "$(IFS=,; echo "$*")"
    unset RECORDS_FILE
    if [[ " $(step_setting audit) " == *" launches=levels "* ]] && [ -n "$(option_of -n "$(step_setting timed)")" ]; then
        sanitizer=$(find_cuda_tool compute-sanitizer "${GRADE_SANITIZER:-}")
        [ -z "$sanitizer" ] || early_start census after_checks census_run "$sanitizer" "$(verdict_dir)/early/census"
    fi
}

# after_checks COMMAND...: COMMAND, once no step's run of every block is in
# progress (wait_for_checks): a run started early that shares the GPU for long.
after_checks() {
    wait_for_checks
    "$@"
}

# grade_census: who reads the input, at a step of levels. The timed size's
# plan is checked once (--exact: the correctness tests made the other
# calls) and called a few times more, each on an input with holes that nothing
# wrote (common/tracks/reduction/reduction.cu, census), under
# compute-sanitizer's initcheck, which reports each read of a hole with the
# thread that made it; common/tools/census.awk judges: no thread reads more
# of the input than the step's per_thread (a vector read's every element
# counts), no block reads in more than per_thread blocks' shares (its own, or
# one a grid apart for each element of a thread), every hole is seen read (a
# read initcheck cannot see leaves one unread), and no report was dropped. A
# block that sums its neighbours' shares as well as its own, however it
# spreads them over its threads, reads in more shares. Prints what it found,
# one line; returns 1 with the reason for a finding (any of those, or a wrong
# sum in the census run), 2 where the census could not be run or read. Without compute-sanitizer, or with a log in
# a form census.awk does not read, it says so and passes: the sanitizer test
# is skipped there too.
grade_census() {
    local sanitizer timed dir verdict why
    sanitizer=$(find_cuda_tool compute-sanitizer "${GRADE_SANITIZER:-}")
    [ -n "$sanitizer" ] || { echo "not run: compute-sanitizer not found"; return 0; }
    timed=$(step_setting timed)
    dir=$(verdict_dir)/early/census
    if early_result census; then
        :  # run beside the sanitizers (grade_sanitize)
    else
        census_run "$sanitizer" "$dir"
    fi
    # A wrong sum here, where the correctness tests found every sum right,
    # is a kernel that behaves otherwise when watched: a finding. Any other
    # failure (a timeout, the tool's, memory) is the census's, not the file's.
    # So is a run that the kernel ended -- a CUDA error, a trap, a hang --
    # where the checks' calls at that size ended well: the census hands a
    # kernel input no one wrote (its holes), which a kernel could look for
    # and stop on, to void nothing. Only the GPU's memory, short under
    # other graders' runs, is the census's own failure -- as the program
    # says it on stderr, where no kernel prints
    # (tests/mutants/04-census-oom-words.patch).
    if [ "$status" -eq 1 ]; then
        printf 'the census run (your plan at the timed size, under initcheck) gave a wrong sum, where the correctness tests found it right: a kernel that computes otherwise when watched is not graded:\n%s' "$(tail -n 10 <<<"$output")"
        return 1
    elif { [ "$status" -eq 3 ] && ! grep -qE 'CUDA error cudaErrorMemoryAllocation|out of host memory' "$dir/stderr" 2>/dev/null; } ||
        [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        printf 'the census run (your plan at the timed size, under initcheck, on an input with elements no one wrote) %s, where the correctness tests found it right: a kernel that behaves otherwise when watched is not graded (an assert on the values of the input fails there too: take it out):\n%s' \
            "$([ "$status" -eq 3 ] && echo "ended with a CUDA error" || echo "did not finish within ${GRADE_SANITIZE_TIMEOUT} s")" "$(tail -n 10 <<<"$output")"
        return 1
    elif [ "$status" -ne 0 ]; then
        printf 'the census run (your plan at the timed size, under initcheck) failed (exit %d):\n%s' "$status" "$(tail -n 10 <<<"$output")"
        return 2
    fi
    verdict=$(awk -f "$GRADING_DIR/../common/tools/census.awk" "$dir/census" "$dir/initcheck.log")
    case $? in
    0) echo "${verdict#census$'\t'}" | tr '\t' ' '; return 0 ;;
    1) ;;
    3) echo "not read: initcheck counted $(record_field "$verdict" errors) errors in a form this census does not read (compute-sanitizer $("$sanitizer" --version 2>/dev/null | awk '/Version/ { print $2; exit }'))"; return 0 ;;
    *) printf 'the census could not be read: %s' "$verdict"; return 2 ;;
    esac
    local holes read over first most per_thread
    holes=$(record_field "$verdict" holes); read=$(record_field "$verdict" read); over=$(record_field "$verdict" over)
    first=$(record_field "$verdict" first); most=$(record_field "$verdict" most)
    per_thread=$(step_setting audit | tr ' ' '\n' | sed -n 's/^per_thread=//p')
    if [ "$(record_field "$verdict" overflow)" = yes ] && [ "${over:-0}" -eq 0 ]; then
        why="initcheck dropped reports of reads of the holes (it keeps 256 a launch, several times a call's holes): your kernels read the same elements of the input many times over"
    elif [ "${over:-0}" -gt 0 ]; then
        why=$(printf '%s threads read more elements of the input than the step gives a thread (%s): thread %s of block %s read %s of the census'"'"'s %s holes' \
            "$over" "$per_thread" "${first#*/}" "${first%%/*}" "$most" "$holes")
    elif [ "$(record_field "$verdict" blocks_over)" -gt 0 ] 2>/dev/null; then
        why=$(printf '%s blocks read in more shares of the input than %s (a share: the %s elements a block of the first level sums; a block reads its own, or for each element of a thread one a grid apart): block %s read holes of %s shares' \
            "$(record_field "$verdict" blocks_over)" "$per_thread" "$(record_field "$verdict" share)" "$(record_field "$verdict" block)" "$(record_field "$verdict" slices)")
    else
        why=$(printf 'of the census'"'"'s %s holes, %s were seen read: the others were read where initcheck cannot see (bulk or tensor copies?), or not at all' "$holes" "$read")
    fi
    printf 'the census of who reads the input (your plan at %s under compute-sanitizer'"'"'s initcheck, holes in its input at random) failed: %s. Each thread of a level'"'"'s first launch reads its own %s elements of the input, as scalars or one vector, and no block its neighbours'"'"' (docs/trust.md, the launch audit'"'"'s census).' \
        "$timed" "$why" "$per_thread"
    return 1
}
