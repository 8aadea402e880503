#!/usr/bin/env bats
# The CUDA toolkit's programs -- nvcc, ncu, compute-sanitizer -- are looked
# for in one order by every script that needs one (cuda_tool, in
# common/tools/options.bash): what it was told to use, CUDA_BIN, PATH, beside
# nvcc, CUDA_PATH. And `make sanitize` runs the sanitizers that the grader's
# sanitizer test runs. Needs no GPU: stand-in programs say where they are
# and what they were asked.

load helpers

setup() {
    T=$BATS_TEST_TMPDIR
    # The places in the order they are looked in: CUDA_BIN (as make passes
    # it, with its slash), PATH, beside nvcc, CUDA_PATH.
    PLACES=("$T/cuda-bin" "$T/on-path" "$T/toolkit/bin" "$T/cuda-path/bin")
    # nvcc reached through a link on PATH, as /usr/bin/nvcc may stand for a
    # toolkit elsewhere: beside it is beside the real one.
    stand_in "$T/toolkit/bin" nvcc
    mkdir -p "$T/links"
    ln -s "$T/toolkit/bin/nvcc" "$T/links/nvcc"
    export CUDA_BIN=$T/cuda-bin/ CUDA_PATH=$T/cuda-path PATH=$T/on-path:$T/links:/usr/bin:/bin
    unset NVCC
}

# stand_in DIR NAME: a program NAME in DIR that says which it is, in the
# shape compute-sanitizer gives its findings, and finds nothing.
stand_in() {
    mkdir -p "$1"
    printf '#!/bin/sh\necho "========= the %s in %s"\necho "========= ERROR SUMMARY: 0 errors"\n' "$2" "$1" >"$1/$2"
    chmod +x "$1/$2"
}

@test "every finder of a CUDA tool looks in one order: CUDA_BIN, PATH, beside nvcc, CUDA_PATH" {
    local name=workbook-probe place
    for place in "${PLACES[@]}"; do stand_in "$place" $name; done
    # The scripts' finder (need_tool, which also says what is missing) and
    # the grader's (find_cuda_tool, for ncu and compute-sanitizer).
    STEP=04-reduction-interleaved
    source "$WORKBOOK_DIR/grading/lib.bash"
    for place in "${PLACES[@]}"; do
        assert_equal "$(cuda_tool $name)" "$place/$name"
        assert_equal "$(need_tool $name "a probe")" "$place/$name"
        assert_equal "$(find_cuda_tool $name)" "$place/$name"
        rm "$place/$name"
    done
    run cuda_tool $name
    assert_failure
    assert_output ""
    assert_equal "$(find_cuda_tool $name)" ""
    run need_tool $name "a probe"
    assert_failure 1
    assert_output --partial "$name not found in $CUDA_BIN or on PATH: it is a probe, part of the CUDA toolkit"
}

@test "a tool named for a finder is that one or none, even where another is found" {
    local name=workbook-probe place
    for place in "${PLACES[@]}"; do stand_in "$place" $name; done
    stand_in "$T/chosen" $name
    STEP=04-reduction-interleaved
    source "$WORKBOOK_DIR/grading/lib.bash"
    assert_equal "$(cuda_tool $name "$T/chosen/$name")" "$T/chosen/$name"
    assert_equal "$(find_cuda_tool $name "$T/chosen/$name")" "$T/chosen/$name"
    assert_equal "$(find_cuda_tool $name "$T/none/$name")" ""
    run need_tool $name "a probe" "$T/none/$name"
    assert_failure 1
    assert_output --partial "$T/none/$name, named for it, is not a program"
}

@test "compute-sanitizer beside nvcc, and nowhere else, is found by make sanitize's script" {
    PATH=/usr/bin:/bin type -P compute-sanitizer >/dev/null &&
        skip "this machine has a compute-sanitizer in /usr/bin or /bin, which PATH finds first"
    stand_in "$T/toolkit/bin" compute-sanitizer
    export PATH=/usr/bin:/bin NVCC=$T/toolkit/bin/nvcc CUDA_PATH=$T/none
    unset CUDA_BIN COMPUTE_SANITIZER
    run "$WORKBOOK_DIR/common/tools/sanitize.sh" /bin/true --check
    assert_success
    assert_output --partial "the compute-sanitizer in $T/toolkit/bin"
}

# A stand-in compute-sanitizer that notes each tool it is asked for (with
# all its arguments when ARGS is "all", with the time it began when "when"),
# where TOOLS_ASKED says. It writes where a variable says, which the
# grader's sandbox would clear: what is tested is which tools run
# (tests/confine.bats tests the sandbox).
stand_in_sanitizer() {
    local noted='$2'
    [ "${1:-}" = all ] && noted='$2 $*'
    [ "${1:-}" = when ] && noted='$2 $(date +%s.%N)'
    cat >"$T/compute-sanitizer" <<SCRIPT
#!/bin/sh
[ "\$1" != --help ] || exit 0
echo "$noted" >>"\$TOOLS_ASKED"
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
    chmod +x "$T/compute-sanitizer"
    export COMPUTE_SANITIZER=$T/compute-sanitizer GRADE_SANDBOX=none
}

# The grader's sanitizer test on a step whose program and sanitize runs (the
# lines of SANITIZE_ARGS) a Makefile of its own gives, after a correct check;
# the tools it asked for go to $T/grader.
grade_fake_step() {
    mkdir -p "$T/fake/04-fake"
    { printf 'print-program:\n\t@echo prog\nprint-sanitize-args:\n'; printf '\t@echo %s\n' "$@"; } >"$T/fake/04-fake/Makefile"
    cp /bin/true "$T/fake/04-fake/prog"
    STEP=04-fake
    source "$WORKBOOK_DIR/grading/lib.bash"
    WORKBOOK_DIR=$T/fake GRADE_RESULTS=$T/results GRADE_SANITIZER=$COMPUTE_SANITIZER
    record check-32 pass
    TOOLS_ASKED=$T/grader run grade_sanitize
}

@test "make sanitize runs the very sanitizers that the grader's sanitizer test runs" {
    stand_in_sanitizer
    # make sanitize: its recipe (common/step.mk) runs sanitize.sh on the program.
    TOOLS_ASKED=$T/make-sanitize run "$WORKBOOK_DIR/common/tools/sanitize.sh" /bin/true --check -n 1
    assert_success
    grade_fake_step "--check -n 1 -b 32"
    assert_success
    # (The grader runs them side by side: in any order.)
    assert_equal "$(sort "$T/make-sanitize")" "$(sort "$T/grader")"
    # What the grader runs is what its verdict names, initcheck among them.
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=pass "tools=memcheck racecheck synccheck initcheck"
    assert_equal "$(sort "$T/grader" | paste -sd' ')" "initcheck memcheck racecheck synccheck"
    grep -qx initcheck "$T/grader"
}

# The grader runs each tool of a run as a run of its own (--tools TOOL),
# and asks sanitize.sh which tools a run uses, in its order: the list is
# sanitize.sh's only.
@test "sanitize.sh --print-tools names a run's tools in the order it runs them; an unknown one is refused" {
    run "$WORKBOOK_DIR/common/tools/sanitize.sh" --print-tools
    assert_success
    assert_equal "$(paste -sd' ' <<<"$output")" "memcheck racecheck synccheck initcheck"
    run "$WORKBOOK_DIR/common/tools/sanitize.sh" --print-tools --tools initcheck,memcheck
    assert_success
    assert_equal "$(paste -sd' ' <<<"$output")" "initcheck memcheck"
    run "$WORKBOOK_DIR/common/tools/sanitize.sh" --print-tools --tools leakcheck
    assert_failure 2
    assert_output --partial "not one of the four"
    run "$WORKBOOK_DIR/common/tools/sanitize.sh" --print-tools --tools
    assert_failure 2
}

@test "a sanitizer run that names its tools runs those alone, for make and the grader; an unknown tool is refused" {
    stand_in_sanitizer all
    TOOLS_ASKED=$T/asked run "$WORKBOOK_DIR/common/tools/sanitize.sh" /bin/true --tools memcheck,initcheck --check -n 9
    assert_success
    assert_equal "$(cut -d' ' -f1 "$T/asked" | paste -sd' ')" "memcheck initcheck"
    # The program is asked for its own arguments only.
    run grep -c -- '--tools' "$T/asked"
    assert_output 0
    run "$WORKBOOK_DIR/common/tools/sanitize.sh" /bin/true --tools memcheck,leakcheck --check
    assert_failure 2
    assert_output --partial "not one of the four"
    # The grader runs make's two runs, each under its tools, and names all.
    grade_fake_step "--check -n 1 -b 32" "--tools synccheck --check -n 7 -b 32"
    assert_success
    # (Both runs, and a run's tools, at once: in any order.)
    assert_equal "$(cut -d' ' -f1 "$T/grader" | sort | paste -sd' ')" "initcheck memcheck racecheck synccheck synccheck"
    assert_equal "$(grep -c -- '-n 7' "$T/grader")" 1
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=pass "tools=memcheck racecheck synccheck initcheck"
}

# The grader starts make sanitize's runs, each tool a run, side by side,
# and reads them in make's order: the verdict quotes the first run that
# reports problems, and names every tool that reported.
@test "the grader runs the sanitizers' runs at once, and judges them in make sanitize's order" {
    cat >"$T/compute-sanitizer" <<'SCRIPT'
#!/bin/sh
# Each tool takes two seconds; racecheck finds a hazard at -n 7 and -n 9, initcheck at -n 9.
[ "$1" != --help ] || exit 0
echo "$2 $*" >>"$TOOLS_ASKED"
sleep 2
case " $2 $* " in
" racecheck "*" -n 7 "* | " racecheck "*" -n 9 "* | " initcheck "*" -n 9 "*)
    echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"; exit 99 ;;
esac
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
    chmod +x "$T/compute-sanitizer"
    export COMPUTE_SANITIZER=$T/compute-sanitizer GRADE_SANDBOX=none GRADE_SANITIZE_SLOTS=24
    SECONDS=0
    grade_fake_step "--check -n 1 -b 32" "--check -n 7 -b 32" "--check -n 9 -b 32"
    local took=$SECONDS
    assert_failure
    # The first run that reports (make's second run, its racecheck), named; the third not quoted.
    assert_output --partial "compute-sanitizer reports problems in prog --check -n 7 -b 32, under racecheck, initcheck"
    refute_output --partial -- "-n 9 -b 32"
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=fail "reported=racecheck initcheck"
    # Twelve tools of two seconds each, all at once (the runs one after
    # another would take 24 s).
    assert_equal "$(wc -l <"$T/grader")" 12
    [ "$took" -lt 5 ] || fail "three runs of four tools of two seconds each took $took s"
}

# At most GRADE_SANITIZE_SLOTS of a grading's sanitizer runs at once, and
# half of them for one step (a step whose kernel hangs under the tools holds
# its slots long); the longest first: the timed size's (make's last run),
# racecheck first.
@test "the grader runs at most GRADE_SANITIZE_SLOTS sanitizer runs at once, half for a step, the timed size's racecheck first" {
    cat >"$T/compute-sanitizer" <<'SCRIPT'
#!/bin/sh
[ "$1" != --help ] || exit 0
echo "start $2 $(date +%s.%N) $*" >>"$TOOLS_ASKED"
sleep 0.5
echo "end $2 $(date +%s.%N)" >>"$TOOLS_ASKED"
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
    chmod +x "$T/compute-sanitizer"
    export COMPUTE_SANITIZER=$T/compute-sanitizer GRADE_SANDBOX=none GRADE_SANITIZE_SLOTS=4
    local workbook=$WORKBOOK_DIR
    grade_fake_step "--check -n 1 -b 32" "--check -n 2^20 -b 256"
    assert_success
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=pass "tools=memcheck racecheck synccheck initcheck"
    # Eight runs, never more than two (half the four slots) at once.
    assert_equal "$(grep -c '^start' "$T/grader")" 8
    most_at_once() {
        awk '{ print $3, ($1 == "start" ? 1 : -1) }' "$T/grader" | sort -n -k1,1 -k2,2n | awk '{ now += $2; if (now > most) most = now } END { print most }'
    }
    assert_equal "$(most_at_once)" 2
    # The first two to start: the timed size's, racecheck one of them;
    # then its other two, and the small sizes' four after.
    run bash -c "sort -n -k3,3 '$T/grader' | grep '^start' | head -n 2"
    assert_equal "$(grep -c -- '-n 2^20' <<<"$output")" 2
    assert_line --regexp '^start racecheck '
    run bash -c "sort -n -k3,3 '$T/grader' | grep '^start' | head -n 4"
    assert_equal "$(grep -c -- '-n 2^20' <<<"$output")" 4
    run bash -c "sort -n -k3,3 '$T/grader' | grep '^start' | tail -n 4 | cut -d' ' -f2 | sort | paste -sd' '"
    assert_output "initcheck memcheck racecheck synccheck"
    # Three of the four slots held by another step's runs (the fourth, the
    # first, is not one kept for the longest runs): one at a time.
    rm -f "$T/grader"
    rm -rf "$T/results/04"
    WORKBOOK_DIR=$workbook
    mkdir -p "$T/results/sanitize-slots"
    flock "$T/results/sanitize-slots/2" flock "$T/results/sanitize-slots/3" flock "$T/results/sanitize-slots/4" \
        sh -c 'touch "$1"; sleep 8' _ "$T/holding" &
    local other=$!
    while [ ! -e "$T/holding" ]; do sleep 0.05; done
    grade_fake_step "--check -n 1 -b 32" "--check -n 2^20 -b 256"
    kill "$other" 2>/dev/null || true
    assert_success
    assert_equal "$(grep -c '^start' "$T/grader")" 8
    assert_equal "$(most_at_once)" 1
}

# racecheck at the timed size, the longest run, has slots kept for it
# ((N-1)/2 of N): it starts at once where short runs hold every other slot
# (the steps whose checks end first would otherwise take them all), and the
# others wait; the slots in all stay N.
@test "the timed size's racecheck starts on a slot kept for it where short runs take every other" {
    cat >"$T/compute-sanitizer" <<'SCRIPT'
#!/bin/sh
[ "$1" != --help ] || exit 0
echo "start $2 $(date +%s.%N) $*" >>"$TOOLS_ASKED"
sleep 0.5
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
    chmod +x "$T/compute-sanitizer"
    export COMPUTE_SANITIZER=$T/compute-sanitizer GRADE_SANDBOX=none GRADE_SANITIZE_SLOTS=4
    mkdir -p "$T/results/sanitize-slots"
    flock "$T/results/sanitize-slots/1" flock "$T/results/sanitize-slots/2" flock "$T/results/sanitize-slots/3" \
        sh -c 'date +%s.%N >"$1.part"; mv "$1.part" "$1"; sleep 4; date +%s.%N >"$2"' _ "$T/holding" "$T/let-go" &
    local other=$!
    while [ ! -e "$T/holding" ]; do sleep 0.05; done
    grade_fake_step "--check -n 1 -b 32" "--check --exact -n 2^20 -b 256"
    wait "$other"
    assert_success
    # Four runs (the timed size's folded into each tool's run): racecheck's
    # while the other step held the short runs' three slots, the rest once
    # it let them go.
    assert_equal "$(grep -c '^start' "$T/grader")" 4
    local let_go
    let_go=$(cat "$T/let-go")
    run awk -v t="$let_go" '$1 == "start" && $3 < t { print $2 }' "$T/grader"
    assert_output racecheck
    grep -q -- '--tool racecheck .*--exact-at 2^20:256' "$T/grader"
    # Short runs take three of the four slots and wait for the fourth...
    local k held=()
    for k in 1 2 3; do sanitize_slot; held+=("$SLOT_FD"); done
    { sanitize_slot; : >"$T/short-got"; } &
    local short=$!
    sleep 1.5
    kill "$short" 2>/dev/null || true
    [ ! -e "$T/short-got" ] || fail "a short run took the slot kept for the longest"
    # ...which a long run takes; they may take every slot, and no more than those N.
    sanitize_slot long; held+=("$SLOT_FD")
    for k in "${held[@]}"; do exec {k}>&-; done
    held=()
    for k in 1 2 3 4; do sanitize_slot long; held+=("$SLOT_FD"); done
    assert_equal "$(ls "$T/results/sanitize-slots" | sort -n | paste -sd' ')" "1 2 3 4"
    for k in 1 2 3 4; do
        run flock --nonblock "$T/results/sanitize-slots/$k" true
        assert_failure 1
    done
}

# Runs side by side can take the GPU's memory from each other (a GPU of a
# few gigabytes): a run whose program said on its stderr that the memory was
# short, with nothing reported, runs again, alone on the GPU, once, and that
# run is its verdict. The same words where a kernel prints (stdout) are no
# such run.
@test "a sanitizer run that found the GPU's memory short runs again alone, once" {
    cat >"$T/compute-sanitizer" <<'SCRIPT'
#!/bin/sh
[ "$1" != --help ] || exit 0
echo "$2" >>"$TOOLS_ASKED"
if [ "$2" = racecheck ] && { [ -n "$ALWAYS_SHORT" ] || [ ! -e "$TOOLS_ASKED.short" ]; }; then
    : >"$TOOLS_ASKED.short"
    # As the harness says it: on stderr, then more lines; the program's
    # header on stdout, flushed at its exit; then the tool's lines.
    if [ -n "$ON_STDOUT" ]; then
        echo "prog: CUDA error cudaErrorMemoryAllocation: out of memory"
    else
        echo "prog: CUDA error cudaErrorMemoryAllocation: out of memory" >&2
    fi
    echo "  at common/core/plan.cu:1: cudaMalloc(&p, bytes)" >&2
    echo "  while allocating the inputs" >&2
    echo "  what to do: the GPU is out of memory; try a smaller --size" >&2
    echo "prog on a GPU (sm_90, 132 SMs, 62.9 MB L2, 4.0 GB), CUDA runtime 13.0, driver 13.0"
    echo "========= Error: process didn't terminate successfully"
    echo "========= Target application returned an error"
    echo "========= ERROR SUMMARY: 0 errors"
    exit 3
fi
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
    chmod +x "$T/compute-sanitizer"
    export COMPUTE_SANITIZER=$T/compute-sanitizer GRADE_SANDBOX=none ALWAYS_SHORT= ON_STDOUT=
    local workbook=$WORKBOOK_DIR
    grade_fake_step "--check -n 1 -b 32"
    assert_success
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=pass "tools=memcheck racecheck synccheck initcheck"
    assert_equal "$(grep -c '^racecheck$' "$T/grader")" 2
    # The second run held the GPU alone.
    assert_equal "$(awk -F'\t' '$3 == "alone"' "$GRADE_RESULTS/gpu-use.tsv" | wc -l)" 1
    # Short of memory again: not run, after one run more, not two.
    rm -rf "$T/results" "$T/grader" "$T/grader.short"
    WORKBOOK_DIR=$workbook ALWAYS_SHORT=1
    grade_fake_step "--check -n 1 -b 32"
    assert_failure
    assert_output --partial "not run: the GPU's memory was short"
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=fail "reason=not run"
    assert_equal "$(grep -c '^racecheck$' "$T/grader")" 2
    # The words on stdout, where a kernel prints: a failed run, run once.
    rm -rf "$T/results" "$T/grader" "$T/grader.short"
    WORKBOOK_DIR=$workbook ALWAYS_SHORT= ON_STDOUT=1
    grade_fake_step "--check -n 1 -b 32"
    assert_failure
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=fail reported=racecheck
    assert_equal "$(grep -c '^racecheck$' "$T/grader")" 1
}

# A flock that cannot wait a while (busybox's: --timeout is a usage error,
# status 1 as for a slot taken) never makes the wait for a slot a spin.
@test "the wait for a sanitizer slot sleeps where flock cannot wait a while" {
    mkdir -p "$T/bin" "$T/results/sanitize-slots"
    real=$(command -v flock)
    cat >"$T/bin/flock" <<SCRIPT
#!/bin/sh
echo . >>"$T/flock-calls"
case " \$* " in *" --timeout "*) exit 1 ;; esac
exec "$real" "\$@"
SCRIPT
    chmod +x "$T/bin/flock"
    "$real" "$T/results/sanitize-slots/1" sleep 3 &
    local holder=$!
    sleep 0.3
    PATH=$T/bin:$PATH
    STEP=04-fake GRADE_RESULTS=$T/results GRADE_SANITIZE_SLOTS=1
    source "$WORKBOOK_DIR/grading/lib.bash"
    : >"$T/flock-calls"
    SECONDS=0
    sanitize_slot
    wait "$holder"
    # About two tries a second while the slot is held (a spin: hundreds).
    [ "$(wc -l <"$T/flock-calls")" -lt 40 ] || fail "$(wc -l <"$T/flock-calls") calls of flock in $SECONDS s"
    [ "$SECONDS" -ge 2 ] || fail "the slot held for 3 s was taken after $SECONDS s"
}

# Where the slots cannot be locked (flock fails otherwise than on a slot
# taken: a file system without locks), the runs go unbounded, never waiting
# for ever.
@test "the sanitizers' runs go unbounded where their slots cannot be locked" {
    stand_in_sanitizer
    mkdir -p "$T/bin"
    printf '#!/bin/sh\necho "flock: No locks available" >&2\nexit 71\n' >"$T/bin/flock"
    chmod +x "$T/bin/flock"
    PATH=$T/bin:$PATH
    SECONDS=0
    grade_fake_step "--check -n 1 -b 32"
    assert_success
    [ "$SECONDS" -lt 20 ] || fail "took $SECONDS s"
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=pass "tools=memcheck racecheck synccheck initcheck"
}

# A step's run of every block waits for the GPU thousands of times, and
# beside the sanitizers each wait is long: their runs start once no run of
# every block holds the checks gate (checks_ready), CHECKS_WAIT seconds at most.
@test "the sanitizers' runs wait for the grading's runs of every block in progress, CHECKS_WAIT seconds at most" {
    stand_in_sanitizer when
    mkdir -p "$T/results"
    # Another step's run of every block, in progress for 2 s.
    flock --shared "$T/results/checks.gate" sh -c 'touch "$1"; sleep 2' _ "$T/holding" &
    while [ ! -e "$T/holding" ]; do sleep 0.05; done
    local released workbook=$WORKBOOK_DIR
    released=$(awk -v t="$EPOCHREALTIME" 'BEGIN { printf "%.2f", t + 1.9 }')
    grade_fake_step "--check -n 1 -b 32"
    assert_success
    run awk -v r="$released" '$2 + 0 < r + 0 { print "started before the checks ended: " $0 }' "$T/grader"
    assert_output ""
    assert_equal "$(wc -l <"$T/grader")" 4
    # A run of every block that never ends holds them CHECKS_WAIT seconds, no more.
    rm -f "$T/grader" "$T/holding"
    rm -rf "$T/results/04"
    WORKBOOK_DIR=$workbook  # (grade_fake_step moved it to the fake step's)
    flock --shared "$T/results/checks.gate" sh -c 'touch "$1"; sleep 30' _ "$T/holding" &
    local hung=$!
    while [ ! -e "$T/holding" ]; do sleep 0.05; done
    SECONDS=0
    CHECKS_WAIT=1 grade_fake_step "--check -n 1 -b 32"
    local took=$SECONDS
    kill "$hung" 2>/dev/null || true
    assert_success
    [ "$took" -lt 10 ] || fail "the sanitizers waited $took s for a run of every block that never ends"
    assert_equal "$(wc -l <"$T/grader")" 4
}

# A tool that reported what it found ran on a GPU: its findings stand, even
# where the program, asked alone beside the busy tools, finds none free.
@test "sanitize.sh reports a tool's findings, never 'no GPU', once the tool has reported" {
    cat >"$T/compute-sanitizer" <<'SCRIPT'
#!/bin/sh
echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
exit 99
SCRIPT
    printf '#!/bin/sh\nexit 77\n' >"$T/busy-program"
    chmod +x "$T/compute-sanitizer" "$T/busy-program"
    COMPUTE_SANITIZER=$T/compute-sanitizer run "$WORKBOOK_DIR/common/tools/sanitize.sh" "$T/busy-program" --tools racecheck --check -n 1
    assert_failure 1
    assert_output --partial "sanitize: racecheck reported problems"
    # Where the tool failed without a report, a program without a GPU is still a skip.
    printf '#!/bin/sh\nexit 3\n' >"$T/compute-sanitizer"
    COMPUTE_SANITIZER=$T/compute-sanitizer run "$WORKBOOK_DIR/common/tools/sanitize.sh" "$T/busy-program" --tools racecheck --check -n 1
    assert_failure 77
}

# racecheck leaves out the harness's kernels that zero shared and local
# memory between launches (most of its time at the small sizes), by their
# exact names, under the option's name of the tool at hand; every other
# tool, and every other kernel, is watched as before.
@test "racecheck leaves out the harness's scrub kernels, by exact name, under either spelling of the option" {
    local spelling
    for spelling in --kernel-name-exclude --exclude none; do
        cat >"$T/compute-sanitizer" <<SCRIPT
#!/bin/sh
if [ "\$1" = --help ]; then echo "  $spelling arg   key1=val1,key2=val2,..."; exit 0; fi
echo "\$*" >>"$T/asked.$spelling"
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
        chmod +x "$T/compute-sanitizer"
        COMPUTE_SANITIZER=$T/compute-sanitizer run "$WORKBOOK_DIR/common/tools/sanitize.sh" /bin/true --check -n 1
        assert_success
        run grep -c -- "--tool racecheck $([ $spelling = none ] || echo "$spelling kne=_Z19scrub_shared_memoryjb ")" "$T/asked.$spelling"
        assert_output 1
        # Only racecheck, and nothing by a part of a name.
        run grep -E -- '--tool (memcheck|synccheck|initcheck) .*(exclude|kne=)|kns=|regex=' "$T/asked.$spelling"
        assert_failure
    done
    # Four names, no more: the kernels that plan.cu defines, as compiled.
    local names
    names=$(sed -n 's/^HARNESS_SCRUBS="\(.*\)"$/\1/p' "$WORKBOOK_DIR/common/tools/sanitize.sh")
    assert_equal "$(wc -w <<<"$names")" 4
    assert_equal "$(grep -o 'kne=[^ ]*' "$T/asked.--exclude" | sort -u | wc -l)" 4
    # (That they are the names plan.cu's kernels compile to: tests/tools.bats.)
}

# Where the program's build left its module's table (build/PROGRAM.kernels),
# racecheck watches the kernels it lists, each by its exact name, and no
# other: the harness's own kernels are no learner's. A name that is not a
# plain identifier, and the table is not trusted: the scrubs are left out as
# without one.
@test "racecheck watches the kernels of the learner's module, each by exact name, where its table is there" {
    local spelling
    mkdir -p "$T/step/build"
    cp /bin/true "$T/step/prog"
    printf 'kernel\tname=_Z4minePKiPij\tparams=8:8\nkernel\tname=_Z5otherPf\tparams=8:8\nvariable\tname=counter\n' >"$T/step/build/prog.kernels"
    for spelling in --kernel-name --filter; do
        cat >"$T/compute-sanitizer" <<SCRIPT
#!/bin/sh
if [ "\$1" = --help ]; then echo "  $spelling arg   key1=val1"; echo "  --kernel-name-exclude arg   key1=val1"; exit 0; fi
echo "\$*" >>"$T/asked.$spelling"
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
        chmod +x "$T/compute-sanitizer"
        COMPUTE_SANITIZER=$T/compute-sanitizer run "$WORKBOOK_DIR/common/tools/sanitize.sh" "$T/step/prog" --check -n 1
        assert_success
        run grep -c -- "--tool racecheck $spelling kne=_Z4minePKiPij $spelling kne=_Z5otherPf --error-exitcode" "$T/asked.$spelling"
        assert_output 1
        run grep -E -- 'exclude|counter|--tool (memcheck|synccheck|initcheck) .*kne=' "$T/asked.$spelling"
        assert_failure
    done
    # A name no compiler makes: the table is not read; the scrubs are left out.
    printf 'kernel\tname=_Z4mine,kns=scrub\n' >"$T/step/build/prog.kernels"
    rm -f "$T/asked.--kernel-name"
    spelling=--kernel-name
    cat >"$T/compute-sanitizer" <<SCRIPT
#!/bin/sh
if [ "\$1" = --help ]; then echo "  --kernel-name arg   key1=val1"; echo "  --kernel-name-exclude arg   key1=val1"; exit 0; fi
echo "\$*" >>"$T/asked.$spelling"
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
    COMPUTE_SANITIZER=$T/compute-sanitizer run "$WORKBOOK_DIR/common/tools/sanitize.sh" "$T/step/prog" --check -n 1
    assert_success
    run grep -c -- "--tool racecheck --kernel-name-exclude kne=_Z19scrub_shared_memoryjb" "$T/asked.--kernel-name"
    assert_output 1
    run grep -- "kns=\|_Z4mine" "$T/asked.--kernel-name"
    assert_failure
}
