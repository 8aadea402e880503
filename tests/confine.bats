#!/usr/bin/env bats
# tests/run: about 67 s, 84 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# What a learner hands in reads nothing outside the workbook and cannot take
# the grading machine down: hand-ins are regular files only
# (grading/take-hand-in), a file may include only the workbook's, the
# toolkit's and the system's headers (common/tools/check-includes.sh), every build
# and run of it is confined and bounded (grading/confine), and no result file
# quotes what was not handed in. Needs no GPU.

bats_require_minimum_version 1.5.0
load helpers

SECRET_TEXT=TOP-SECRET-INSTRUCTOR-KEY-12345

# One copy of the workbook for the file, its harness built once; a secret
# outside it, as an instructor's key would be.
setup_file() {
    export W=$BATS_FILE_TMPDIR/w SECRET=$BATS_FILE_TMPDIR/outside/key.txt
    mkdir -p "$W" "$(dirname "$SECRET")"
    echo "$SECRET_TEXT" >"$SECRET"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude='./*/build' --exclude='./.tools' \
        --exclude=./common/build --exclude='./solutions' -cf - .) | tar -xf - -C "$W"
    one_architecture_without_gpu
    make -s -C "$W" harness >/dev/null
    export STEP_DIR
    STEP_DIR=$(basename "${STEP_DIRS[0]}")  # the copy's first step
}

setup() {
    export MANIFEST=$W/steps.conf
    PROGRAM=$(step_field "$STEP_DIR" program)
    EXERCISE=$W/$STEP_DIR/$PROGRAM.cu
    [ -f "$EXERCISE.orig" ] || cp "$EXERCISE" "$EXERCISE.orig"
    rm -f "$EXERCISE" "$W/$STEP_DIR/HAND-IN-REFUSED"
    cp "$EXERCISE.orig" "$EXERCISE"
    R=$BATS_TEST_TMPDIR/results
}

# grade_step [ARGS...]: grade the copy's first step without a GPU, every result file written.
grade_step() {
    run env CUDA_VISIBLE_DEVICES= "$W/grading/grade" --step "${STEP_DIR%%-*}" --results "$R" \
        --junit "$R/junit.xml" --gradescope "$R/gradescope.json" --classroom "$R/classroom.json" "$@"
}

# The secret in none of what the run printed, nor in any file it wrote, in
# any case (an assembler quotes a line with its first letter lowered).
# Not through `run`, which would leave grep's output in $output for the
# next call to check; grep's errors (status 2) fail it too.
refute_secret_anywhere() {
    local text=${1:-$SECRET_TEXT} found status=0
    [[ ${output,,} != *"${text,,}"* ]] || fail "the output holds $text: $output"
    found=$(grep -rli -- "$text" "$R" 2>&1) || status=$?
    [ "$status" -eq 1 ] || fail "grep for $text in $R: status $status: $found"
}

@test "a symbolic link handed in is refused, the step's build test says why, and nothing of its target shows" {
    H=$BATS_TEST_TMPDIR/hand-in
    mkdir -p "$H/$STEP_DIR"
    ln -s "$SECRET" "$H/$STEP_DIR/$PROGRAM.cu"
    run "$W/grading/take-hand-in" --steps "${STEP_DIR%%-*}" "$H" "$W"
    assert_failure 1
    assert_output --partial "$STEP_DIR/$PROGRAM.cu refused: $STEP_DIR/$PROGRAM.cu is a symbolic link"
    grade_step
    assert_failure 1
    assert_output --partial "not built: your $PROGRAM.cu was refused"
    assert_line --regexp "^$STEP_DIR +fail "
    refute_secret_anywhere
}

@test "grade --hand-in takes regular files only, and names what it refused" {
    H=$BATS_TEST_TMPDIR/uploads
    mkdir -p "$H"
    mkfifo "$H/$PROGRAM.cu"  # uploaded without its folder, as Gradescope keeps them
    # Refused before any build: in the sandbox where bubblewrap runs, and
    # where it does not, without (a hand-in otherwise asks for bubblewrap).
    GRADE_SANDBOX=auto grade_step --hand-in "$H"
    assert_failure 1
    assert_output --partial "grade: hand-in: $STEP_DIR/$PROGRAM.cu refused: $PROGRAM.cu is a FIFO"
    assert_output --partial "not built: your $PROGRAM.cu was refused"
}

# What the workbook holds in the step is no one's work: a step not handed in
# scores nothing (not the exercise's build points), and a file refused leaves
# the workbook's own file where it was (grade --hand-in may run in a
# learner's clone: nothing of it is deleted).
@test "a step not handed in is not graded, and a refused hand-in deletes nothing of the workbook" {
    H=$BATS_TEST_TMPDIR/empty-hand-in
    mkdir -p "$H"
    run "$W/grading/take-hand-in" --steps "${STEP_DIR%%-*}" "$H" "$W"
    assert_failure 1
    assert_output "$STEP_DIR/$PROGRAM.cu not handed in: the step is not graded"
    cmp "$EXERCISE" "$EXERCISE.orig"
    grade_step
    assert_failure 1
    assert_output --partial "not built: your $PROGRAM.cu was not handed in"
    assert_line --regexp "^$STEP_DIR +fail "
    assert_equal "$(awk -F'\t' '{ s += $4 } END { print s + 0 }' "$R/tests.tsv")" 0
    # Refused (a FIFO): the workbook's file stays, untouched.
    mkdir -p "$H/$STEP_DIR"
    mkfifo "$H/$STEP_DIR/$PROGRAM.cu"
    run "$W/grading/take-hand-in" --steps "${STEP_DIR%%-*}" "$H" "$W"
    assert_failure 1
    assert_output --partial "refused: $STEP_DIR/$PROGRAM.cu is a FIFO"
    cmp "$EXERCISE" "$EXERCISE.orig"
}

# At the limit to the byte, and one byte past it: the exercise, padded with
# spaces to the limit a whole number of kilobytes above its size.
@test "a hand-in over the size limit is refused, and one of the limit is taken" {
    H=$BATS_TEST_TMPDIR/hand-in
    mkdir -p "$H/$STEP_DIR"
    local kb
    kb=$(( $(stat -c %s "$EXERCISE.orig") / 1024 + 1 ))
    pad_to() { cp "$EXERCISE.orig" "$H/$STEP_DIR/$PROGRAM.cu" && truncate -s "$1" "$H/$STEP_DIR/$PROGRAM.cu"; }
    pad_to $((kb * 1024 + 1))
    sed -i 's/\x0/ /g' "$H/$STEP_DIR/$PROGRAM.cu"
    GRADE_HAND_IN_KB=$kb run "$W/grading/take-hand-in" --steps "${STEP_DIR%%-*}" "$H" "$W"
    assert_failure 1
    assert_output --partial "$STEP_DIR/$PROGRAM.cu refused: $STEP_DIR/$PROGRAM.cu is $kb KB, over the limit of $kb KB (GRADE_HAND_IN_KB)"
    rm -f "$W/$STEP_DIR/HAND-IN-REFUSED"
    pad_to $((kb * 1024))
    sed -i 's/\x0/ /g' "$H/$STEP_DIR/$PROGRAM.cu"
    GRADE_HAND_IN_KB=$kb run "$W/grading/take-hand-in" --steps "${STEP_DIR%%-*}" "$H" "$W"
    assert_success
    assert_equal "$(stat -c %s "$EXERCISE")" $((kb * 1024))
    cmp "$H/$STEP_DIR/$PROGRAM.cu" "$EXERCISE"
    [ ! -L "$EXERCISE" ]
}

@test "a file to grade that is a symbolic link where it lies is not built" {
    rm "$EXERCISE"
    ln -s "$SECRET" "$EXERCISE"
    grade_step
    assert_failure 1
    assert_output --partial "not built: $PROGRAM.cu is a symbolic link"
    refute_secret_anywhere
}

@test "an #include of a file outside the workbook fails the build, naming the file and quoting none of it" {
    { echo "#include \"$SECRET\""; cat "$EXERCISE.orig"; } >"$EXERCISE"
    grade_step
    assert_failure 1
    assert_output --partial "$PROGRAM.cu includes what is not part of a hand-in, so it was not compiled:"
    assert_output --partial "  $SECRET"
    refute_secret_anywhere
}

@test "an #include through a macro, or of another step's file, is refused as well, as is one of a solution" {
    { echo '#define OUTSIDE(x) #x'; echo '#define PATH(x) OUTSIDE(x)'; echo "#include PATH($SECRET)"; cat "$EXERCISE.orig"; } >"$EXERCISE"
    grade_step
    assert_output --partial "$PROGRAM.cu includes what is not part of a hand-in"
    refute_secret_anywhere
    local other
    other=$(basename "${STEP_DIRS[1]}")
    { echo "#include \"../$other/main.cu\""; cat "$EXERCISE.orig"; } >"$EXERCISE"
    grade_step
    assert_output --partial "$PROGRAM.cu includes what is not part of a hand-in"
    assert_output --partial "$other/main.cu"
    # Nor the step's reference solution, where the workbook has one.
    mkdir -p "$W/solutions/$STEP_DIR"
    cp "$EXERCISE.orig" "$W/solutions/$STEP_DIR/answer.cuh"
    { echo "#include \"../solutions/$STEP_DIR/answer.cuh\""; echo 'static int unused_answer;'; } >"$EXERCISE"
    grade_step
    rm -r "$W/solutions"
    assert_output --partial "$PROGRAM.cu includes what is not part of a hand-in"
    assert_output --partial "solutions/$STEP_DIR/answer.cuh"
}

# The include check that judges is the one of the build's own compile: its
# dependency list (nvcc -MD), for the host and the device passes, system
# headers and all. Here nvcc's -M, the check before the compile, is blinded
# (it answers the file alone), as a branch taken in the build's compile
# alone would blind it; the compile's own list still names the header: one
# only the device's pass reads, one after a line marker that calls the file
# a system header (which -MMD's list would leave out), another step's
# main.cu. Nothing the compiler said of the header is shown.
@test "an #include that only the build's own compile reads is refused from that compile's dependency list, quoting none of it" {
    local blind=$BATS_TEST_TMPDIR/bin/nvcc other flags include
    mkdir -p "$(dirname "$blind")"
    cat >"$blind" <<SCRIPT
#!/usr/bin/env bash
for arg; do [ "\$arg" = -M ] && { echo "target: \${!#}"; exit 0; }; done
exec "$(command -v nvcc)" "\$@"
SCRIPT
    chmod +x "$blind"
    other=$(basename "${STEP_DIRS[1]}")
    read -r -a flags <<<"$(make -s -C "$W/$STEP_DIR" print-learner-flags)"
    for include in "#include \"$SECRET\"" \
        "$(printf '#ifdef __CUDA_ARCH__\n#include "%s"\n#endif' "$SECRET")" \
        "$(printf '# 1 "%s.cu" 3\n#include "%s"' "$PROGRAM" "$SECRET")" \
        "#include \"../$other/main.cu\""; do
        { printf '%s\n' "$include"; cat "$EXERCISE.orig"; } >"$EXERCISE"
        run bash -c 'cd "$1" && shift && exec "$@"' - "$W/$STEP_DIR" "$W/common/tools/compile-learner.sh" \
            "$PROGRAM.cu" "$BATS_TEST_TMPDIR/build/$PROGRAM.o" "$blind" "${flags[@]}"
        assert_failure 1
        assert_output --partial "$PROGRAM.cu includes what is not part of a hand-in, so it was not built:"
        refute_output --partial "$SECRET_TEXT"
        [ ! -e "$BATS_TEST_TMPDIR/build/$PROGRAM.o" ] || fail "an object was kept of: $include"
    done
    assert_output --partial "$other/main.cu"
}

@test "a message is quoted only about a file the learner's step has; any other, or of unknown form, is left out" {
    local later
    later=$(basename "${STEP_DIRS[1]}")
    {
        printf '%s:3:1: error: expected something\n  3 | %s\n    | ^\n' "$SECRET" "$SECRET_TEXT"
        # A path with a colon in it, as /sys has: still a place, still outside.
        printf '/sys/devices/pci0000:00/../../..%s:1: Error: no such instruction: `%s'"'"'\n' "$SECRET" "$SECRET_TEXT"
        printf '{standard input}: Assembler messages:\n'
        # The workbook's answers: the honest variants, a later step's main.cu.
        printf '../tests/honest/01-any.cu:3: Error: `honest line'"'"'\n'
        printf '../%s/main.cu:4: Error: `later line'"'"'\n' "$later"
        printf '../solutions/%s/%s.cu:2: Error: `solution line'"'"'\n' "$STEP_DIR" "$PROGRAM"
        printf 'an unknown line\n'
        printf 'make: *** [x] Error 1\n'
        printf '%s(12): error: quoted\n  %s\n' "$W/common/core/harness.h" "harness line"
        printf '%s.cu(7): error: mine\n  %s\n' "$PROGRAM" "my line"
    } >"$BATS_TEST_TMPDIR/messages"
    run "$W/common/tools/quote-workbook.sh" "$W" "$W/$STEP_DIR" "$STEP_DIR" <"$BATS_TEST_TMPDIR/messages"
    assert_success
    refute_output --partial "$SECRET_TEXT"
    refute_output --partial "honest line"
    refute_output --partial "later line"
    refute_output --partial "solution line"
    refute_output --partial "an unknown line"
    # The secret's message (3 lines), the colon's, the assembler's heading, the
    # honest variant's, the later step's, the solution's and the unknown line:
    # 9 in a row.
    assert_line "[9 line(s) about other files, or of unknown form, left out: make in the step's folder shows them]"
    assert_line "make: *** [x] Error 1"
    assert_line "  harness line"
    assert_line "  my line"
    # The later step's file is one a learner of that step has.
    run "$W/common/tools/quote-workbook.sh" "$W" "$W/$STEP_DIR" "$later" <"$BATS_TEST_TMPDIR/messages"
    assert_output --partial "later line"
    refute_output --partial "honest line"
}

@test "an assembler's .include in host code quotes nothing of the file it names, with or without the sandbox" {
    slow_test "a build with and without the sandbox"
    # An answer among the workbook's tests, as tests/honest holds them, and
    # the secret: lines the assembler quotes whole ("no such instruction:
    # `__global__ void ...'"), so that only the message filter
    # (common/tools/quote-workbook.sh) or the sandbox keeps them out.
    local answer=$W/tests/honest/99-planted.cu token=planted_answer_token_777 sandbox target
    mkdir -p "$W/tests/honest"  # a handout has none of its own
    echo "__global__ void $token() {}" >"$answer"
    for sandbox in none auto; do
        for target in "$SECRET" "/sys/devices/pci0000:00/../../..$SECRET" "$answer"; do
            { cat "$EXERCISE.orig"; printf '#ifndef __CUDA_ARCH__\n__asm__(".include \\"%s\\"");\n#endif\n' "$target"; } >"$EXERCISE"
            GRADE_SANDBOX=$sandbox grade_step
            assert_line --regexp "^$STEP_DIR +fail "
            refute_secret_anywhere
            refute_secret_anywhere "$token"
        done
    done
    rm "$answer"
}

@test "with --step, a confined command sees none of what a learner of that step lacks: later steps, answers among the tests" {
    "$W/grading/confine" --check >/dev/null || skip "no sandbox here: $("$W/grading/confine" --check)"
    local later honest=$W/tests/honest/99-planted.cu
    later=$(basename "${STEP_DIRS[1]}")
    mkdir -p "$W/tests/honest"  # a handout has none of its own
    echo "__global__ void planted() {}" >"$honest"
    run "$W/grading/confine" --step "$STEP_DIR" -- cat "$W/$later/main.cu"
    assert_failure
    refute_output --partial "__global__"
    run "$W/grading/confine" --step "$STEP_DIR" -- cat "$honest"
    assert_failure
    refute_output --partial "__global__"
    run "$W/grading/confine" -- cat "$honest"
    assert_failure
    refute_output --partial "__global__"
    # What the step has, it sees: its own folder, the shared harness.
    run "$W/grading/confine" --step "$STEP_DIR" -- cat "$W/$STEP_DIR/main.cu" "$W/common/core/harness.h"
    assert_success
    [ -n "$output" ]
    # A learner of the later step sees it.
    run "$W/grading/confine" --step "$later" -- cat "$W/$later/main.cu"
    assert_success
    assert_output --partial "__global__"
    rm "$honest"
}

@test "#include \"/dev/zero\" stops at the build's memory limit, with a message naming it" {
    { echo '#include "/dev/zero"'; cat "$EXERCISE.orig"; } >"$EXERCISE"
    SECONDS=0
    GRADE_BUILD_MEMORY=512 grade_step
    [ "$SECONDS" -lt 120 ]
    assert_failure 1
    assert_output --partial "The build ran out of memory: it may take 512 MB (GRADE_BUILD_MEMORY)."
}

@test "a build that runs past its time limit is stopped, with a message naming it" {
    # A constant the compiler would spend years on: 2^30 templates to instantiate.
    { cat "$EXERCISE.orig"; cat <<'EOF'
template <unsigned N, unsigned long long M> struct grow {
    static constexpr unsigned long long value = grow<N - 1, 2 * M>::value + grow<N - 1, 2 * M + 1>::value;
};
template <unsigned long long M> struct grow<0, M> { static constexpr unsigned long long value = M; };
static_assert(grow<30, 1>::value != 1, "never true");
EOF
    } >"$EXERCISE"
    SECONDS=0
    GRADE_BUILD_TIMEOUT=5 grade_step
    [ "$SECONDS" -lt 60 ]
    assert_failure 1
    assert_output --partial "The build ran past its time limit, 5 s (GRADE_BUILD_TIMEOUT), and was stopped."
}

@test "confine bounds time and memory, with or without a sandbox" {
    local printed
    for sandbox in auto none; do
        GRADE_SANDBOX=$sandbox run "$W/grading/confine" --time 1 -- sleep 30
        assert_failure 124
        # No file past 1 GB (bash's ulimit -f counts kilobytes), and no more
        # than 64 MB printed: past it, the command is stopped.
        GRADE_SANDBOX=$sandbox run "$W/grading/confine" -- bash -c 'ulimit -f'
        assert_output 1048576
        printed=$(GRADE_SANDBOX=$sandbox "$W/grading/confine" --time 20 -- yes 2>/dev/null | wc -c)
        assert_equal "$printed" $((64 << 20))
        GRADE_SANDBOX=$sandbox run "$W/grading/confine" --memory 64 -- bash -c 'x=$(head -c 200000000 /dev/zero | tr "\0" a); echo ${#x}'
        assert_failure
        refute_output 200000000
    done
    run "$W/grading/confine" --time 5 --memory 64 -- true
    assert_success
}

@test "the sandbox shows the workbook, read-only, and neither the files beside it nor the network" {
    "$W/grading/confine" --check >/dev/null || skip "no sandbox here: $("$W/grading/confine" --check)"
    run "$W/grading/confine" -- cat "$SECRET"
    assert_failure
    refute_output --partial "$SECRET_TEXT"
    run "$W/grading/confine" -- ls "$HOME"
    assert_failure
    run "$W/grading/confine" -- cat "$W/steps.conf"
    assert_success
    run "$W/grading/confine" -- touch "$W/steps.conf"
    assert_failure
    run "$W/grading/confine" --write "$W/$STEP_DIR" -- touch "$W/$STEP_DIR/written"
    assert_success
    rm "$W/$STEP_DIR/written"
    # A server on this machine's loopback: reachable here, not from inside.
    local port=$((20000 + RANDOM % 20000))
    python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(5); time.sleep(30)' "$port" &
    local server=$! tries=0
    # (Until it listens: python's start took more than a second on two busy cores.)
    until bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null || [ "$tries" -ge 100 ]; do
        sleep 0.1
        tries=$((tries + 1))
    done
    run bash -c "exec 3<>/dev/tcp/127.0.0.1/$port"
    assert_success
    run "$W/grading/confine" -- bash -c "exec 3<>/dev/tcp/127.0.0.1/$port"
    kill "$server"
    assert_failure
    GRADE_SANDBOX=bogus run "$W/grading/confine" -- true
    assert_failure 2
}

@test "the history is hidden whether .git is a folder or, in a git worktree, a file; what confine runs runs either way" {
    "$W/grading/confine" --check >/dev/null || skip "no sandbox here: $("$W/grading/confine" --check)"
    local kind
    for kind in file folder; do
        rm -rf "$W/.git"
        if [ $kind = file ]; then
            echo "gitdir: $BATS_TEST_TMPDIR/main/.git/worktrees/w" >"$W/.git"
        else
            mkdir "$W/.git" && echo "$SECRET_TEXT" >"$W/.git/config"
        fi
        run "$W/grading/confine" -- cat "$W/.git" "$W/.git/config"
        refute_output --partial gitdir
        refute_output --partial "$SECRET_TEXT"
        run "$W/grading/confine" --write "$W/$STEP_DIR" -- touch "$W/$STEP_DIR/written"
        assert_success
        rm "$W/$STEP_DIR/written"
    done
    rm -rf "$W/.git"
}

@test "a run given one file to write writes that file and no other: no run can fill the disk beside it" {
    "$W/grading/confine" --check >/dev/null || skip "no sandbox here: $("$W/grading/confine" --check)"
    local records=$BATS_TEST_TMPDIR/records.txt
    : >"$records"
    # Beside it (here under /tmp) it writes into its own /tmp, bounded and
    # gone when it ends; nothing reaches this machine's folder.
    run "$W/grading/confine" --write "$records" -- sh -c "echo record >'$records'; echo more >'$BATS_TEST_TMPDIR/other'"
    assert_equal "$(cat "$records")" record
    assert [ ! -e "$BATS_TEST_TMPDIR/other" ]
    run "$W/grading/confine" --write "$records" -- sh -c "echo more >'$W/$STEP_DIR/other'"
    assert_failure
    assert [ ! -e "$W/$STEP_DIR/other" ]
    # A link is no file to write.
    ln -s "$records" "$BATS_TEST_TMPDIR/link"
    run "$W/grading/confine" --write "$BATS_TEST_TMPDIR/link" -- true
    assert_failure 2
    assert_output --partial "no such folder or regular file"
}

@test "GRADE_SANDBOX=bwrap where bubblewrap cannot run fails with a clear message, not without a sandbox" {
    # A bwrap that cannot make a sandbox, as where user namespaces are off.
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' >"$BATS_TEST_TMPDIR/bin/bwrap"
    chmod +x "$BATS_TEST_TMPDIR/bin/bwrap"
    PATH=$BATS_TEST_TMPDIR/bin:$PATH GRADE_SANDBOX=bwrap run "$W/grading/confine" -- true
    assert_failure 125
    assert_output --partial "GRADE_SANDBOX=bwrap, but bubblewrap cannot make a sandbox here"
    PATH=$BATS_TEST_TMPDIR/bin:$PATH GRADE_SANDBOX=auto run "$W/grading/confine" --check
    assert_failure 1
    assert_output --partial "install bubblewrap"
}

@test "a hand-in reached through a folder link, or a second name of another file, is refused" {
    H=$BATS_TEST_TMPDIR/hand-in
    mkdir -p "$H" "$BATS_TEST_TMPDIR/elsewhere"
    cp "$EXERCISE.orig" "$BATS_TEST_TMPDIR/elsewhere/$PROGRAM.cu"
    ln -s "$BATS_TEST_TMPDIR/elsewhere" "$H/$STEP_DIR"
    run "$W/grading/take-hand-in" --steps "${STEP_DIR%%-*}" "$H" "$W"
    assert_failure 1
    assert_output --partial "is reached through a link to outside the hand-in"
    rm "$H/$STEP_DIR"
    mkdir -p "$H/$STEP_DIR"
    ln "$SECRET" "$H/$STEP_DIR/$PROGRAM.cu"
    run "$W/grading/take-hand-in" --steps "${STEP_DIR%%-*}" "$H" "$W"
    assert_failure 1
    assert_output --partial "is a second name (a hard link) of another file"
    refute_output --partial "$SECRET_TEXT"
}

@test "an include whose path make cannot read back (a ':' in it) is refused before it breaks the step's later builds" {
    # A folder with a ':' in its name, through which the system's stdio.h is named.
    mkdir -p "$BATS_TEST_TMPDIR/x:y"
    { echo "#include \"$BATS_TEST_TMPDIR/x:y/$(realpath --relative-to="$BATS_TEST_TMPDIR/x:y" /usr/include/stdio.h)\""; cat "$EXERCISE.orig"; } >"$EXERCISE"
    run "$W/common/tools/check-includes.sh" "$EXERCISE" nvcc -I"$W/common/core" -I"$W/common/tracks/$(step_field "$STEP_DIR" track)"
    assert_failure 1
    assert_output --partial "includes what is not part of a hand-in"
}

# The exact set: descriptors 0, 1 and 2 and no other (bats' own output, 3,
# is one a forged "ok" line would reach), in each mode this machine runs;
# in the sandbox, only the environment it lets through, named here apart
# from grading/confine, and no solutions.
@test "what confine runs inherits no open file of the grader's but 0, 1 and 2, none of its environment, and no solutions" {
    local sandbox name allowed
    exec 7>"$BATS_TEST_TMPDIR/grader-output"
    for sandbox in none auto; do
        # bash lists its own descriptors through a child (ls), which opens
        # none of them; `; true` keeps bash from becoming ls.
        GRADE_SANDBOX=$sandbox run "$W/grading/confine" -- bash -c 'ls /proc/$$/fd; true'
        assert_success
        assert_output "$(printf '0\n1\n2')"
    done
    exec 7>&-
    "$W/grading/confine" --check >/dev/null || return 0  # the environment and the solutions only in the sandbox
    allowed=$( {
        echo HOME; echo PATH; echo PWD  # PWD: bubblewrap sets it where it starts the command
        for name in LANG LC_ALL TERM TMPDIR CUDA_VISIBLE_DEVICES CUDA_PATH CUDA_BIN NVCC CCBIN SM SOLUTION SOLUTIONS \
            MAKEFLAGS MAKELEVEL LD_LIBRARY_PATH; do
            [ -z "${!name+set}" ] || echo "$name"
        done
    } | sort)
    # The grader's own variables (its results, its seed) and any other.
    GRADER_TOKEN=token-of-the-grader GRADE_RESULTS=$BATS_TEST_TMPDIR/results GRADE_SEED=1234 \
        run "$W/grading/confine" -- env
    assert_success
    assert_equal "$(cut -d= -f1 <<<"$output" | sort)" "$allowed"
    assert_line HOME=/tmp
    # Nor by way of another process it can see: bubblewrap's own, pid 1 in
    # its namespace, whose environment /proc shows.
    GRADER_TOKEN=token-of-the-grader run "$W/grading/confine" -- \
        bash -c 'for f in /proc/[0-9]*/environ; do tr "\0" "\n" <"$f"; done 2>/dev/null; true'
    assert_success
    refute_output --partial token-of-the-grader
    mkdir -p "$W/solutions/x"
    echo answer >"$W/solutions/x/answer.cu"
    run "$W/grading/confine" -- cat "$W/solutions/x/answer.cu"
    assert_failure
    refute_line answer
    GRADE_SOLUTIONS=1 run "$W/grading/confine" -- cat "$W/solutions/x/answer.cu"
    assert_output answer
    rm -r "$W/solutions"
}

# --stderr keeps what the command itself says apart from what it prints on
# stdout (where a program's kernels print): the census's excuse of an
# exhausted GPU memory is read there only (tests/mutants/04-census-oom-words.patch).
@test "confine --stderr keeps the command's stderr apart from its stdout, sandbox or not; a bad path is refused" {
    local sandbox
    for sandbox in none auto; do
        rm -f "$BATS_TEST_TMPDIR/err"
        run env GRADE_SANDBOX=$sandbox "$W/grading/confine" --stderr "$BATS_TEST_TMPDIR/err" -- bash -c 'echo said; echo own words >&2; exit 3'
        assert_equal "$status" 3
        assert_output said
        assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" "own words"
    done
    ln -s "$SECRET" "$BATS_TEST_TMPDIR/link"
    run "$W/grading/confine" --stderr "$BATS_TEST_TMPDIR/link" -- true
    assert_equal "$status" 2
    run "$W/grading/confine" --stderr "$BATS_TEST_TMPDIR/no/such/err" -- true
    assert_equal "$status" 2
}
