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
# all its arguments when ARGS is "all"), where TOOLS_ASKED says. It writes
# where a variable says, which the grader's sandbox would clear: what is
# tested is which tools run (tests/confine.bats tests the sandbox).
stand_in_sanitizer() {
    local noted='$2'
    [ "${1:-}" = all ] && noted='$2 $*'
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
    # (The grader runs them --together: in any order.)
    assert_equal "$(sort "$T/make-sanitize")" "$(sort "$T/grader")"
    # What the grader runs is what its verdict names, initcheck among them.
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=pass "tools=memcheck racecheck synccheck initcheck"
    assert_equal "$(sort "$T/grader" | paste -sd' ')" "initcheck memcheck racecheck synccheck"
    grep -qx initcheck "$T/grader"
}

# The grader runs the four at once (--together); what it reports, and its
# verdict, are those of the four one after another, a failure included.
@test "sanitize.sh --together runs the tools at once and reports as one after another would" {
    cat >"$T/compute-sanitizer" <<'SCRIPT'
#!/bin/sh
# Each tool takes a second; racecheck finds a hazard.
[ "$1" != --help ] || exit 0
echo "$2 start $(date +%s.%N)" >>"$TOOLS_ASKED"
sleep 1
if [ "$2" = racecheck ]; then echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"; exit 99; fi
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
    chmod +x "$T/compute-sanitizer"
    export COMPUTE_SANITIZER=$T/compute-sanitizer
    TOOLS_ASKED=$T/one run "$WORKBOOK_DIR/common/tools/sanitize.sh" /bin/true --check -n 1
    assert_failure 1
    local one=$output
    SECONDS=0
    TOOLS_ASKED=$T/together run "$WORKBOOK_DIR/common/tools/sanitize.sh" /bin/true --together --check -n 1
    local took=$SECONDS
    assert_failure 1
    assert_equal "$output" "$one"
    assert_output --partial "-> racecheck: FAILED (exit 99)"
    assert_output --partial "sanitize: racecheck reported problems"
    # At once: the four began within a second of each other.
    run awk '{ t[NR] = $3 } END { min = max = t[1]; for (i in t) { if (t[i] < min) min = t[i]; if (t[i] > max) max = t[i] } exit !(NR == 4 && max - min < 0.9) }' "$T/together"
    assert_success
    [ "$took" -lt 4 ] || fail "four tools of a second each took $took s together"
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

# The grader starts make sanitize's runs all at once, and reads them in
# make's order: the verdict is that of the first run that reports problems.
@test "the grader runs the sanitizers' runs at once, and judges them in make sanitize's order" {
    cat >"$T/compute-sanitizer" <<'SCRIPT'
#!/bin/sh
# Each tool takes two seconds; racecheck finds a hazard at -n 7 and -n 9.
[ "$1" != --help ] || exit 0
echo "$2 $*" >>"$TOOLS_ASKED"
sleep 2
case " $* " in
*" -n 7 "* | *" -n 9 "*) [ "$2" = racecheck ] && { echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"; exit 99; } ;;
esac
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
    chmod +x "$T/compute-sanitizer"
    export COMPUTE_SANITIZER=$T/compute-sanitizer GRADE_SANDBOX=none
    SECONDS=0
    grade_fake_step "--check -n 1 -b 32" "--check -n 7 -b 32" "--check -n 9 -b 32"
    local took=$SECONDS
    assert_failure
    # The first run that reports (make's second), named; the third not quoted.
    assert_output --partial "compute-sanitizer reports problems in prog --check -n 7 -b 32"
    refute_output --partial -- "-n 9 -b 32"
    assert_verdict "$GRADE_RESULTS/04/sanitize" test=sanitize result=fail reported=racecheck
    # Twelve tools of two seconds each, all at once (the runs one after
    # another would take 6 s).
    assert_equal "$(wc -l <"$T/grader")" 12
    [ "$took" -lt 5 ] || fail "three runs of four tools of two seconds each took $took s"
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
