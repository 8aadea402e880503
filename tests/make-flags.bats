#!/usr/bin/env bats
# tests/run: about 15 s, 20 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# The grader run by a make above it: `make -C .. grade EX=04`, from a step's
# folder as the README's learner's loop shows it, hands make's own flags down
# in MAKEFLAGS (w among them, which prints "Entering directory" lines). What
# the grader asks make for -- a step's program, its sanitizer arguments --
# must still be the value alone. Needs no GPU.

load helpers

# A folder whose Makefile runs COMMAND (one recipe line, make-quoted) for the
# goal `run`; `make -C` on it runs COMMAND as `make -C .. grade` runs grade.
make_above() {
    mkdir -p "$BATS_TEST_TMPDIR/above"
    printf 'run:\n\t%s\n' "$1" >"$BATS_TEST_TMPDIR/above/Makefile"
}

# The MAKEFLAGS that `make -C DIR ... EX=04` hands to what its recipe runs.
flags_under_make_C() {
    make_above "@printf '%s' \"\$\$MAKEFLAGS\" >$BATS_TEST_TMPDIR/flags"
    make -C "$BATS_TEST_TMPDIR/above" run EX=04 >/dev/null
    cat "$BATS_TEST_TMPDIR/flags"
}

# The step these tests grade: the first of this copy (a handout may hold only some).
first_step() { basename "${STEP_DIRS[0]}"; }

@test "under make -C, the grader's program, the learner's file and the sanitizer's arguments are make's values alone" {
    local step
    step=$(first_step)
    local dir=$WORKBOOK_DIR/$step
    local program
    program=$(step_field "$step" program)
    [ -x "$dir/$program" ] || skip "$step is not built: run make first"
    # The record of the flags the step was built with (SM=..., NVCC=..., which
    # a make -C above hands down too): asking make for values leaves it as
    # it was, or the next make would rebuild everything.
    local flags_file=$dir/build/flags before expected
    expected=$(make -s -C "$dir" print-sanitize-args)  # as this test's own make hands it, before the make -C
    before=$(stat -c '%Y %s' "$flags_file"; cat "$flags_file")
    MAKEFLAGS=$(flags_under_make_C)
    [[ $MAKEFLAGS == w* ]] || fail "make -C handed down MAKEFLAGS='$MAKEFLAGS', without w: this test would show nothing"
    export MAKEFLAGS MAKELEVEL=1
    STEP=$step
    source "$WORKBOOK_DIR/grading/lib.bash"
    GRADE_RESULTS=$BATS_TEST_TMPDIR/results
    assert_equal "$(program_path)" "$dir/$program"
    assert_equal "$(learner_file)" "$dir/$program.cu"
    # The sanitizer test hands the step's sanitize arguments to a stand-in
    # compute-sanitizer, which keeps them.
    cat >"$BATS_TEST_TMPDIR/compute-sanitizer" <<SCRIPT
#!/usr/bin/env bash
[ "\$1" != --help ] || exit 0
printf '%s\n' "\$*" >>"$BATS_TEST_TMPDIR/sanitized"
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
    chmod +x "$BATS_TEST_TMPDIR/compute-sanitizer"
    GRADE_SANITIZER=$BATS_TEST_TMPDIR/compute-sanitizer
    record check-32 pass
    : >"$(plans_file)"  # as the checks' runs leave them (planning needs the GPU)
    run grade_sanitize
    assert_success
    run cat "$BATS_TEST_TMPDIR/sanitized"
    # Each run make print-sanitize-args gives, a line each (the grader may
    # add sizes and blocks to its lists: grading/lib.bash, sanitize_runs); a
    # run that names its tools (--tools LIST) hands the program the rest; a
    # run at one point with --exact is the first run's --exact-at point
    # (exact_point), in that run's line.
    local args first="" point
    while read -r args; do
        [[ $args != --tools\ * ]] || read -r _ _ args <<<"$args"
        point=""
        [ -z "$first" ] || point=$(exact_point "$args" "$first")
        if [ -n "$point" ]; then
            grep -F -- "memcheck --error-exitcode 99 $dir/$program ${first%% -b *}" "$BATS_TEST_TMPDIR/sanitized" |
                grep -qF -- " --exact-at $point " || fail "memcheck's run of the first options has no --exact-at $point: $output"
            continue
        fi
        first=${first:-$args}
        assert_line --partial "memcheck --error-exitcode 99 $dir/$program ${args%% -b *}"
        assert_line --partial " -b ${args##* -b }"
    done <<<"$expected"
    refute_output --partial "directory"
    assert_equal "$(stat -c '%Y %s' "$flags_file"; cat "$flags_file")" "$before"
}

@test "make -C .. grade EX=NN, as a learner runs it from a step's folder, grades the step" {
    local step
    step=$(first_step)
    [ -x "$WORKBOOK_DIR/$step/$(step_field "$step" program)" ] || skip "$step is not built: run make first"
    # The workbook's own `make grade` writes to results/grade; this one, the
    # same through a make -C, writes to a folder of this test's.
    make_above "\"$WORKBOOK_DIR/grading/grade\" --step ${step%%-*} --results \"$BATS_TEST_TMPDIR/g\""
    # It runs as from a learner's shell: without this test's own bats in its
    # environment (its variables, and its libexec/ ahead on PATH), which
    # would stand in for the one grade starts.
    local outer=() v path
    for v in $(compgen -e | grep '^BATS_' | grep -vx BATS_LIB_PATH); do outer+=(-u "$v"); done
    path=$(tr ':' '\n' <<<"$PATH" | grep -vxF "$BATS_LIBEXEC" | paste -sd: -)
    run env "${outer[@]}" PATH="$path" CUDA_VISIBLE_DEVICES= make -C "$BATS_TEST_TMPDIR/above" run EX=${step%%-*}
    assert_success
    refute_output --partial "not ok"
    refute_output --regexp 'not run( \(|:)'  # a test the grader did not run (a "no GPU" line may say "could not run here")
    # Without a GPU: built, the GPU tests skipped (the lesson's where the step has one).
    assert_line --regexp "^$step +pass +no GPU +no GPU +(no GPU|-) +no GPU +no GPU +0/[0-9]+\$"
}

# A copy of the workbook whose nvcc ($NVCC_FAKE) writes empty files (and
# for the learner's file, compiled with --keep-dir, a dependency list of the
# file alone), says nothing, and for a source that holds BROKEN (or WARNED) writes the
# compiler's error (or warning) line to stderr, failing (or not) as nvcc does.
fake_nvcc_copy() {
    W=$BATS_TEST_TMPDIR/wb NVCC_FAKE=$BATS_TEST_TMPDIR/bin/nvcc
    mkdir -p "$W" "$BATS_TEST_TMPDIR/bin"
    cp -r "$WORKBOOK_DIR"/{Makefile,steps.conf,common} "${STEP_DIRS[@]}" "$W/"
    [ ! -d "$WORKBOOK_DIR/solutions" ] || cp -r "$WORKBOOK_DIR/solutions" "$W/"
    cat >"$NVCC_FAKE" <<'SCRIPT'
#!/usr/bin/env bash
for arg; do [ "$arg" = -M ] && { echo "target: ${!#}"; exit 0; }; done
for arg; do [ "$arg" = --dryrun ] && exit 0; done
source=${!#} out="" keep=""
while [ $# -gt 0 ]; do
    case $1 in -o) out=$2; shift ;; --keep-dir) keep=$2; shift ;; -MF) deps=$2; shift ;; esac
    shift
done
if [[ $source == *.cu ]] && grep -q BROKEN "$source"; then
    echo "$source(1): error: identifier \"BROKEN\" is undefined" >&2
    exit 2
fi
[[ $source == *.cu ]] && grep -q WARNED "$source" && echo "$source(1): warning: variable \"WARNED\" was declared but never referenced" >&2
: >"$out"
[ -z "$keep" ] || { : >"$keep/$(basename "$source" .cu).fatbin"; : >"$keep/none.ptx"; echo "$out: $source" >"$deps"; }
SCRIPT
    chmod +x "$NVCC_FAKE"
    make -s -C "$W" clean NVCC="$NVCC_FAKE" >/dev/null
}

# A learner's make, typed in the copy's top folder (make -C would add its own
# "Entering directory" lines): no flags from a make above.
learner_make() { (cd "$W" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make "$@" NVCC="$NVCC_FAKE" SM=90); }

@test "a build says one line per step and per file it builds; V=1 shows the commands, make -s nothing" {
    fake_nvcc_copy
    run learner_make -j2
    assert_success
    local count=${#STEP_DIRS[@]} i=0 dir program
    for dir in "${STEP_DIRS[@]}"; do
        i=$((i + 1))
        program=$(program_of "$dir")
        assert_line "[$i/$count] $(basename "$dir")"
        assert_line "  LD   $(basename "$dir")/$program"
        assert_line "  CC   $(basename "$dir")/build/$program.o"
    done
    assert_line "  CC   common/build/core/harness.o"
    refute_output --partial "$NVCC_FAKE"
    refute_output --partial "directory"
    refute_output --partial "Nothing to be done"
    # Built: the steps' lines, and nothing more (in any order: -j2).
    run learner_make -j2
    assert_success
    assert_equal "$(sort <<<"$output")" "$(i=0; for dir in "${STEP_DIRS[@]}"; do i=$((i + 1)); echo "[$i/$count] $(basename "$dir")"; done | sort)"
    learner_make -s clean >/dev/null
    run learner_make -j2 V=1
    assert_success
    assert_line --regexp "^$NVCC_FAKE .* -c -o [^ ]*/common/build/core/harness.o [^ ]*/common/core/harness.cu$"
    learner_make -s clean >/dev/null
    run learner_make -s -j2
    assert_success
    assert_output ""
}

@test "a quiet build shows the compiler's errors and warnings in full" {
    fake_nvcc_copy
    local step=${STEP_DIRS[0]} program
    program=$(program_of "$step")
    echo "int WARNED;" >>"$W/$(basename "$step")/$program.cu"
    run learner_make -C "$(basename "$step")"
    assert_success
    assert_line "$program.cu(1): warning: variable \"WARNED\" was declared but never referenced"
    echo "BROKEN" >>"$W/$(basename "$step")/$program.cu"
    run learner_make
    assert_failure
    assert_line "$program.cu(1): error: identifier \"BROKEN\" is undefined"
    refute_output --partial "$NVCC_FAKE"
}

# STEP= is make handout's option; on the command line it reaches every
# sub-make. Elsewhere at the top it is a slip for EX=, and says so; in a
# step's folder the step is the folder, whatever STEP= says.
@test "STEP= on another goal than handout says to use EX=; a step's folder keeps its own name" {
    run make -C "$WORKBOOK_DIR" grade STEP=04
    assert_failure 2
    assert_output --partial "STEP= is make handout's option"
    assert_output --partial "use EX=, e.g. make grade EX=04"
    local step
    step=$(first_step)
    run make -s --no-print-directory -C "$WORKBOOK_DIR/$step" print-program STEP=04-reduction-interleaved
    assert_success
    assert_output "$(step_field "$step" program)"
}

@test "SM= names architectures by their digits: a dot or sm_ is refused with the form to use" {
    local step
    step=$(first_step)
    local value
    for value in 9.0 sm_90 "80 9.0"; do
        run make -s --no-print-directory -C "$WORKBOOK_DIR/$step" print-program SM="$value"
        assert_failure 2
        assert_output --partial "SM=$value: name each architecture by its digits, without a dot or sm_, e.g. SM=90"
    done
    for value in 90 "80 90" 90a 100f; do
        run make -s --no-print-directory -C "$WORKBOOK_DIR/$step" print-program SM="$value"
        assert_success
        assert_output "$(step_field "$step" program)"
    done
    # One this nvcc does not build for, said so before nvcc is asked to.
    if "${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}" --list-gpu-arch >/dev/null 2>&1; then
        run make -s --no-print-directory -n -C "$WORKBOOK_DIR/$step" SM=10
        assert_failure 2
        assert_output --partial "cannot build for sm_10 (it builds for "
    fi
}

@test "slips on the command line are refused, never ignored: EX= for another step in a step's folder, SOLUTIONS=yes, Ex=" {
    local step number
    # As typed in a shell, not from a make above (make test's).
    step=$(first_step)
    number=${step%%-*}
    run env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make -s --no-print-directory -C "$WORKBOOK_DIR/$step" print-program EX=99
    assert_failure 2
    assert_output --partial "EX=99: no such step here (the steps: $number"
    # Another step: the command that acts on it, for the goal typed (at the
    # top, make grade takes EX=; make all and clean do not, and run there).
    local other
    other=$(cd "$WORKBOOK_DIR" && ls -d [0-9][0-9]-* | sed -n 2p)
    if [ -n "$other" ]; then
        run env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make -s --no-print-directory -C "$WORKBOOK_DIR/$step" clean EX="${other%%-*}"
        assert_failure 2
        assert_output --partial "names a step other than this folder's, $step: run make here without EX, or make -C ../$other clean for that step"
        run env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make -s --no-print-directory -C "$WORKBOOK_DIR/$step" grade EX="${other%%-*}"
        assert_failure 2
        assert_output --partial "or make -C .. grade EX=${other%%-*} from the top"
    fi
    # This step, however it is named, is no slip; a list with another step in it is.
    for ex in "$number" "${number#0}" "$step"; do
        run env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make -s --no-print-directory -C "$WORKBOOK_DIR/$step" print-program EX="$ex"
        assert_success
    done
    run env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make -s --no-print-directory -C "$WORKBOOK_DIR/$step" print-program EX="${number#0},99"
    assert_failure 2
    assert_output --partial "EX=${number#0},99: no such step here"
    # At the top, a step's folder is its number too.
    run make -n -C "$WORKBOOK_DIR" grade EX="$step"
    assert_success
    assert_output --partial "--step \"$number\""
    run make -n -C "$WORKBOOK_DIR" grade SOLUTIONS=yes EX="$number"
    assert_failure 2
    assert_output --partial "SOLUTIONS=yes: write SOLUTIONS=1 (or leave it out)"
    run make -n -C "$WORKBOOK_DIR" grade Ex="$number"
    assert_failure 2
    assert_output --partial "Ex=$number: the steps are picked with EX=, in capitals"
    run make -n -C "$WORKBOOK_DIR" grade SOLUTIONS=0 EX="$number"
    assert_success
    # A goal of one step, given a number no step has, names the steps.
    run make -n -C "$WORKBOOK_DIR" profile EX=99
    assert_failure 2
    assert_output --partial "EX=99 names no step here: the steps are $number"
    # A command of the workbook's top, typed in a step's folder, says where it runs.
    run make -s --no-print-directory -C "$WORKBOOK_DIR/$step" test
    assert_failure 2
    assert_output --partial "make test runs from the workbook's top folder: make -C .. test"
}

@test "make NN, the step's number, builds that step as its folder's name does; make N too" {
    local folder number
    folder=$(cd "$WORKBOOK_DIR" && ls -d [0-9][0-9]-* | head -n 1)
    number=${folder%%-*}
    run make -C "$WORKBOOK_DIR" -n "$number" SM=90
    assert_success
    assert_output --partial "-C $folder all"
    run make -C "$WORKBOOK_DIR" -n "${number#0}" SM=90
    assert_success
    assert_output --partial "-C $folder all"
    # A number of no step, and solutions/ (a folder make would call up to
    # date), are refused in words, not make's.
    run make -C "$WORKBOOK_DIR" -n 99 SM=90
    assert_failure 2
    assert_output --partial "no step 99 here: the steps are $number"
    refute_output --partial "No rule to make target"
    run make -C "$WORKBOOK_DIR" -n solutions SM=90
    assert_failure 2
    if [ -d "$WORKBOOK_DIR/solutions" ]; then
        assert_output --partial "solutions/ is a folder, not a goal"
    else
        assert_output --partial "this copy has no solutions/"
    fi
    refute_output --partial "Nothing to be done"
}

@test "a step's folder copied out of the workbook says, in one line, that it builds inside it" {
    local step
    step=$(first_step)
    cp -r "$WORKBOOK_DIR/$step" "$BATS_TEST_TMPDIR/$step"
    run make -s --no-print-directory -C "$BATS_TEST_TMPDIR/$step"
    assert_failure 2
    assert_output --partial "$step builds inside the workbook, beside its common/ and steps.conf"
    refute_output --partial "No such file"
}

# grading/ holds a script named grade: make there would call it up to date
# and exit 0, as if it had graded.
@test "make in grading/ says, with status 2, that make runs from the workbook's top folder" {
    local goal
    for goal in grade calibrate ""; do
        run make -C "$WORKBOOK_DIR/grading" $goal
        assert_failure 2
        assert_output --partial "grading/ is not where make runs: cd .. and run make ${goal:-grade} there"
    done
}
