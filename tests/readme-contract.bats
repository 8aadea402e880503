#!/usr/bin/env bats
# tests/run: about 76 s, 107 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# The READMEs' commands, as a contract kept without a GPU. Every `make ...` and
# `grading/...` line of a code block in the top README, in the pages of docs/
# (the instructor's guide) and in each step's README is run as written, from
# the folder it is shown in: a step README's from its step's folder ("From
# this folder"), the top README's and docs/'s from the top,
# or from where a `cd` earlier in the block went (the learner's loop). The
# commands are read from the README text, so a command added there is run
# here too, and a kind of command this file does not know fails the test.
#
# They run in a copy of the workbook, built once for one architecture (SM=90),
# as a learner's shell runs them: no MAKEFLAGS from a make above, and no GPU
# (CUDA_VISIBLE_DEVICES=). Each must end as the README says it does there:
#
#   build      make, make solution, make -C STEP        exit 0
#   program    ... && ./PROGRAM                         exit 77, "no usable CUDA device"
#   grade      make grade, make -C .. grade, grading/grade
#                                                       exit 0 (1 with --require-gpu, 0 after
#                                                       || true); a TAP plan of 1 or more tests,
#                                                       each of them reported; no `not ok`
#                                                       (with --require-gpu: the step's row says
#                                                       "no GPU"); no summary row reads pass or
#                                                       skipped for a step with a `not ok`; the
#                                                       result files it names written
#   gpu-tool   make sanitize, profile, explain          the no-GPU skip (no_gpu_skip, below),
#                                                       with their tool installed and without
#   gpu-run    make bench, bench-sweep, micro-atomics, float-sum, calibrate, test-mutants
#                                                       the same no-GPU skip; without
#                                                       solutions/ (a handout), exit 0, "skipped"
#   doctor     make doctor                              0, 1 or 77, as the README says (never make's 2)
#   handout    make handout STEP=NN DEST=DIR            exit 0, DIR with steps 01 to NN, no solutions/
#
# Grading every step would take minutes: a grading command without a step
# (an instructor's CI job) runs in a handout of the first step alone, a
# workbook of one step; of the steps' own grading commands, the same but for
# the step's number, one runs. Not run: `make test` (this suite itself; in a
# handout, see the last test), grading/batch (a class of repositories, GPUs
# and a Slurm launcher: tests/batch.bats), and what a block runs in another
# machine's folder (Gradescope's /autograder).

bats_require_minimum_version 1.5.0
load helpers
load readme-pages

setup_file() {
    # The tests share one built copy, and grading writes its results into it.
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
    export COPY=$BATS_FILE_TMPDIR/wb
    mkdir -p "$COPY"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude='./*/build' --exclude=./common/micro/build -cf - .) |
        tar -xf - -C "$COPY"
    learner_shell make -s -C "$COPY" clean >/dev/null
    learner_shell make -s -C "$COPY" -j"$(nproc)" >/dev/null
}

# learner_shell COMMAND...: as typed in a shell with no GPU and one
# architecture. (make test in a handout: tests/handout.bats.)
learner_shell() {
    env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u MAKEOVERRIDES -u GNUMAKEFLAGS -u WORKBOOK_TEST_ALL \
        CUDA_VISIBLE_DEVICES= SM=90 "$@"
}

# readme_commands ROOT: "README<TAB>LINE<TAB>FOLDER<TAB>COMMAND" for each make
# or grading/ command in a code block (fenced, or indented four spaces) of
# ROOT's READMEs (readme_pages). FOLDER is relative to ROOT ("." the top), or an absolute
# path where the block went to another machine's folder. A Colab cell's "!",
# a prompt's "$ ", a YAML step's "- run: ", a trailing "# comment" and a
# line's "\" are taken off; a `cd` (or Colab's %cd) moves the block's folder,
# a clone's own name being the workbook's top.
readme_commands() {
    local root=$1
    (cd "$root" && awk '
    function reset() { folder = home; pending = "" }
    FNR == 1 {
        fenced = 0
        home = FILENAME ~ /^[0-9][0-9]-[^\/]+\/README\.md$/ ? substr(FILENAME, 1, index(FILENAME, "/") - 1) : "."
        reset()
    }
    /^```/ { fenced = !fenced; reset(); next }
    !fenced && !/^    / { if ($0 !~ /^[ \t]*$/) reset(); next }
    {
        line = $0
        sub(/^[ \t]+/, "", line); sub(/^(!|\$ )/, "", line); sub(/^- (run: )?/, "", line)
        if (pending != "") { line = pending " " line; pending = "" } else at = FNR
        if (line ~ /\\$/) { sub(/[ \t]*\\$/, "", line); pending = line; next }
        if (line ~ /git clone /) { n = split(line, w, " "); for (i = 1; i <= n; i++) if (w[i] ~ /:\/\//) { c = w[i]; sub(/.*\//, "", c); sub(/\.git$/, "", c); clone[c] = 1 } }
        sub(/[ \t]+#.*$/, "", line)
        if (line ~ /^%?cd [^ ]+$/) {
            target = line; sub(/^%?cd /, "", target)
            if (target ~ /^\//) folder = target
            else if (target in clone) folder = "."
            else if (target == "..") folder = "."
            else folder = (folder == "." ? "" : folder "/") target
            next
        }
        if (line ~ /^make([ \t]|$)/ || line ~ /^grading\/[a-z]/) print FILENAME "\t" at "\t" folder "\t" line
    }' $(readme_pages .))
}

# kind_of COMMAND: its kind (above), or "unknown".
kind_of() {
    local command=$1 last goals="" word previous=""
    last=${command##*&& }
    case $last in ./* | ../*) echo program; return ;; esac
    case $command in
    grading/grade*) echo grade; return ;;
    grading/batch*) echo batch; return ;;
    make | make\ *) ;;
    *) echo unknown; return ;;
    esac
    for word in ${command%% &&*}; do
        case $previous in -C | -f | -j) previous=""; continue ;; esac
        previous=$word
        case $word in make | -* | *=*) ;; *) goals+=" $word" ;; esac
    done
    case ${goals# } in
    "" | all | solution | [0-9][0-9]-*) echo build ;;
    grade) echo grade ;;
    sanitize | profile | explain) echo gpu-tool ;;
    bench | bench-sweep | micro-atomics | float-sum | calibrate | test-mutants) echo gpu-run ;;
    doctor) echo doctor ;;
    handout) echo handout ;;
    test) echo suite ;;
    *) echo unknown ;;
    esac
}

# commands_of KIND...: the READMEs' commands of those kinds, in the READMEs'
# order: "README:LINE<TAB>FOLDER<TAB>COMMAND".
commands_of() {
    local readme at folder command kind
    while IFS=$'\t' read -r readme at folder command; do
        kind=$(kind_of "$command")
        [[ " $* " == *" $kind "* ]] || continue
        printf '%s:%s\t%s\t%s\n' "$readme" "$at" "$folder" "$command"
    done < <(readme_commands "$COPY")
}

# first_time FOLDER COMMAND: true the first time a test asks: a command shown
# twice from one folder (the learner's loop and step 04's README) runs once.
declare -gA asked
first_time() {
    [ -z "${asked[$1$'\t'$2]:-}" ] || return 1
    asked[$1$'\t'$2]=1
}

# same_grading FOLDER COMMAND: first_time, for one grading however it is
# written: `make -C .. grade EX=04` from a step's folder is `make grade EX=04`
# from the top, and the same command for another step grades the same way
# (each step's is checked to be the chosen one's but for its number).
same_grading() {
    local folder=$1 command=$2
    if [[ $folder != */* && $folder != . && $command == "make -C .. "* ]]; then
        folder=. command="make ${command#make -C .. }"
    fi
    local number=""
    [[ $command =~ (EX=|--step )([0-9][0-9])($|\ ) ]] && number=${BASH_REMATCH[2]}
    # a number that names no step stays: that command must run, and fail
    if [ -n "$number" ] && compgen -G "$COPY/$number-*/" >/dev/null; then
        command=${command//${BASH_REMATCH[1]}$number/${BASH_REMATCH[1]}NN}
    fi
    first_time "$folder" "$command"
}

# run_in ROOT FOLDER COMMAND: run it there, as a learner would (sets status and output).
run_in() {
    run learner_shell timeout 900 bash -c "cd \"\$1\" && $3" _ "$1/$2"
}

# Problems are collected, so that one run reports every command that broke
# its promise; report fails with them, or when no command of the kind ran.
problems=""
problem() {
    local text=$*
    problems+=$'\n'"${text//$'\n'/ | }"
}
report() {
    local ran=$1 what=$2
    [ "$ran" -ge 1 ] || fail "no $what in the READMEs' code blocks: the extraction found none"
    [ -z "$problems" ] || fail "$(grep -c . <<<"$problems") problem(s) with the $what:$problems"
}

# no_gpu_skip: whether the command just run ($status, $output) ended as make
# sanitize, profile, explain, bench and the other GPU goals end on a machine
# without a GPU: asked before anything is built (ask_for_gpu, common/cuda.mk),
# one line "make GOAL: skipped: no usable CUDA device (why)", exit 0, and no
# error line of make's. The one place this file says so: where that outcome
# changes, change it here.
no_gpu_skip() {
    [ "$status" -eq 0 ] && grep -qE '^make [a-z-]+: skipped: no usable CUDA device' <<<"$output" &&
        ! grep -qE '^make(\[[0-9]+\])?: \*\*\*|Error [0-9]' <<<"$output"
}

# grading_problems COMMAND: what is wrong with a grading run's $output, a line each.
grading_problems() {
    local command=$1 plan tests step row
    plan=$(grep -m 1 -E '^1\.\.[0-9]+$' <<<"$output")
    [ "${plan#1..}" -ge 1 ] 2>/dev/null || { echo "no test ran (TAP plan: '${plan:-none}')"; return; }
    tests=$(grep -cE '^(not )?ok [0-9]+ ' <<<"$output")
    [ "$tests" -eq "${plan#1..}" ] || echo "$tests tests reported of the $plan planned"
    [[ $command == *--require-gpu* ]] || grep -E '^not ok ' <<<"$output"
    # A step with a test not ok: its summary row must not read pass or
    # skipped, and with --require-gpu it says "no GPU".
    for step in $(sed -nE 's/^not ok [0-9]+ ([0-9][0-9]) .*/\1/p' <<<"$output" | sort -u); do
        row=$(grep -m 1 -E "^$step-[^ ]+ " <<<"$output")
        if [[ $command == *--require-gpu* ]]; then
            [[ $row =~ \ no\ GPU\ +[0-9]+/[0-9]+$ ]] || echo "step $step failed tests, and its summary row does not say no GPU: ${row:-none}"
        else
            [[ ! $row =~ \ (pass|skipped)\ +[0-9]+/[0-9]+$ ]] || echo "step $step failed tests, and its summary row hides it: $row"
        fi
    done
}

# results_problems FOLDER COMMAND: the result files COMMAND names, missing or unreadable.
results_problems() {
    local folder=$1 flag file words i
    read -r -a words <<<"$2"
    for ((i = 0; i < ${#words[@]}; i++)); do
        flag=${words[i]}
        case $flag in
        --junit | --gradescope | --classroom) file=${words[i + 1]} ;;
        JUNIT=* | GRADESCOPE=* | CLASSROOM=*) file=${flag#*=} ;;
        *) continue ;;
        esac
        [[ $file == /* ]] || file=$folder/$file
        if [ ! -s "$file" ]; then
            echo "wrote no $file"
        elif command -v python3 >/dev/null; then
            case $file in
            *.xml) python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$file" 2>/dev/null || echo "$file is not XML" ;;
            *.json) python3 -c 'import sys, json; json.load(open(sys.argv[1]))' "$file" 2>/dev/null || echo "$file is not JSON" ;;
            esac
        fi
    done
}

# expected_grade_status COMMAND: what the README says a grading command exits with here.
expected_grade_status() {
    case $1 in
    *"|| true") echo 0 ;;
    make\ *--require-gpu* | make\ *REQUIRE_GPU=1*) echo 2 ;;  # make's own status for a recipe that failed
    *--require-gpu* | *REQUIRE_GPU=1*) echo 1 ;;
    *) echo 0 ;;
    esac
}

# grade_in ROOT WHERE FOLDER COMMAND: run a grading command and note its problems.
grade_in() {
    local root=$1 where=$2 folder=$3 command=$4 expected found
    run_in "$root" "$folder" "$command"
    expected=$(expected_grade_status "$command")
    [ "$status" -eq "$expected" ] || problem "$where: $command (in $folder): exit $status, the README's is $expected: $(tail -n 3 <<<"$output")"
    while read -r found; do
        [ -z "$found" ] || problem "$where: $command (in $folder): $found"
    done < <(grading_problems "$command"; results_problems "$root/$folder" "$command")
}

@test "the READMEs' code blocks show the learner's and the instructor's commands, each of a kind this contract runs" {
    run readme_commands "$COPY"
    assert_success
    local all=$output readme at folder command kind count=0
    # The top README: the learner's loop (from a step's folder: 04's, or in a
    # handout, which may stop before 04, the first step's) and make doctor;
    # in the whole workbook, docs/ shows a handout and an instructor's grading
    # job too (a handout leaves the instructor's part out).
    local loop=04-reduction-interleaved
    [ -d "$COPY/solutions" ] || loop=$(basename "${STEP_DIRS[0]}")
    assert_line --regexp $'^README\\.md\t[0-9]+\t'"$loop"$'\tmake -C \\.\\. grade EX='"${loop%%-*}$"
    assert_line --regexp $'^README\\.md\t[0-9]+\t\\.\tmake doctor$'
    if [ -d "$COPY/solutions" ]; then
        assert_line --regexp $'^docs/[a-z-]+\\.md\t[0-9]+\t\\.\tmake handout STEP=[0-9]+ DEST=[^ ]+$'
        assert_line --regexp $'^docs/[a-z-]+\\.md\t[0-9]+\t\\.\tgrading/grade '
    fi
    # Each step's README: its build, its solution, and its grading, sanitizer
    # and profiler commands, from its own folder.
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        [ "$(grep -c "^$step/README.md"$'\t[0-9]*\t'"$step"$'\t' <<<"$all")" -ge 5 ] ||
            fail "$step/README.md shows fewer than 5 commands from its folder: $(grep "^$step/" <<<"$all")"
    done
    while IFS=$'\t' read -r readme at folder command; do
        count=$((count + 1))
        kind=$(kind_of "$command")
        [ "$kind" != unknown ] || problem "$readme:$at: $command: a kind of command this test does not know: say in tests/readme-contract.bats what it must do without a GPU"
        [[ $folder == /* ]] || [ -d "$COPY/$folder" ] || problem "$readme:$at: $command: runs in $folder, which this copy has no folder for"
    done <<<"$all"
    # The top README and docs/ show 15 commands or more; a handout's, the
    # learner's part, 8 or more.
    local least=15
    [ -d "$COPY/solutions" ] || least=8
    [ "$(grep -cE '^(README|docs/[a-z-]+)\.md'$'\t' <<<"$all")" -ge $least ] || fail "fewer than $least commands found in README.md and docs/: the extraction is broken"
    report "$count" "commands"
}

@test "the reading of a grading run finds a 'not ok' behind the summary, a short count, and no tests at all" {
    local row='04-reduction-interleaved   pass   -        -                              -       -         skipped           1/17'
    output=$(printf '1..3\nok 1 04 builds\nnot ok 2 04 correct with block 32\n\nstep  build  correct\n%s\n' "$row")
    found=$(grading_problems "make -C .. grade EX=04")
    [[ $found == *"not ok 2 04 correct with block 32"* ]] || fail "a not ok is not a problem: $found"
    [[ $found == *"step 04 failed tests, and its summary row hides it"* ]] || fail "the hiding row is not a problem: $found"
    [[ $found == *"2 tests reported of the 1..3 planned"* ]] || fail "a short count is not a problem: $found"
    # With --require-gpu the failures are the point: the row must say so.
    found=$(grading_problems "grading/grade --require-gpu")
    [[ $found != *"not ok 2"* && $found == *"does not say no GPU"* ]] || fail "$found"
    output=$(printf 'make: Nothing to be done\n%s\n' "$row")
    assert_equal "$(grading_problems "make grade EX=04")" "no test ran (TAP plan: 'none')"
}

@test "the build commands build, and a program run after one says it has no GPU (77)" {
    local where folder command ran=0
    while IFS=$'\t' read -r where folder command; do
        [[ $folder != /* ]] && first_time "$folder" "$command" || continue
        ran=$((ran + 1))
        run_in "$COPY" "$folder" "$command"
        case $(kind_of "$command") in
        build) [ "$status" -eq 0 ] || problem "$where: $command (in $folder): exit $status: $(tail -n 3 <<<"$output")" ;;
        program)
            [ "$status" -eq 77 ] && [[ $output == *"no usable CUDA device"* ]] ||
                problem "$where: $command (in $folder): exit $status, not 77 for no GPU: $(tail -n 3 <<<"$output")" ;;
        esac
    done < <(commands_of build program)
    report "$ran" "build and program commands"
}

@test "the grading commands for one step exit 0 without a GPU, run their tests, and hide no 'not ok' behind the summary" {
    local where folder command ran=0 number chosen shown=()
    # Every step's README shows the same grading commands but for its number:
    # each must name its own step and be the chosen step's otherwise; the
    # chosen step's run (04, or the first step of a copy without it).
    chosen=$(basename "${STEP_DIRS[0]}"); chosen=${chosen%%-*}
    [ ! -d "$COPY/04-reduction-interleaved" ] || chosen=04
    mapfile -t shown < <(commands_of grade | awk -F'\t' -v c="$chosen" 'index($1, c "-") == 1 { print $3 }' | sed "s/$chosen/NN/g")
    [ ${#shown[@]} -ge 1 ] || problem "step $chosen's README shows no grading command"
    while IFS=$'\t' read -r where folder command; do
        [[ $folder != /* ]] || continue
        [[ $command == *EX=* || $command == *--step* ]] || continue  # every step: in the next test
        if [[ $where == [0-9][0-9]-*/README.md:* ]]; then
            number=${where%%-*}
            [[ $command =~ (EX=|--step )$number($|\ ) ]] || problem "$where: $command grades another step than $number"
            [[ " ${shown[*]} " == *" ${command//$number/NN} "* ]] || problem "$where: $command is not one of step $chosen's grading commands for its own step"
            [ "$number" = "$chosen" ] || continue
        fi
        same_grading "$folder" "$command" || continue
        ran=$((ran + 1))
        grade_in "$COPY" "$where" "$folder" "$command"
    done < <(commands_of grade)
    report "$ran" "grading commands for one step"
}

@test "the instructor's grading commands for every step: their status, their tests, their result files (in a handout of one step)" {
    slow_test "a handout built and graded"
    local where folder command ran=0 handout=$BATS_TEST_TMPDIR/one-step first
    first=$(basename "${STEP_DIRS[0]}")
    learner_shell make -s -C "$COPY" handout STEP="${first%%-*}" DEST="$handout" 2>/dev/null
    learner_shell make -s -C "$handout" -j"$(nproc)" >/dev/null
    while IFS=$'\t' read -r where folder command; do
        [[ $folder != /* ]] || continue
        [[ $command != *EX=* && $command != *--step* ]] || continue
        first_time "$folder" "$command" || continue
        ran=$((ran + 1))
        grade_in "$handout" "$where" "$folder" "$command"
    done < <(commands_of grade)
    [ "$ran" -ge 1 ] || [ -d "$COPY/solutions" ] || skip "this copy is a handout: its README shows no instructor's grading command"
    report "$ran" "grading commands for every step"
}

# fake_toolkit DIR: a CUDA toolkit at DIR made of this machine's: bin/nvcc runs
# the real nvcc (a script, not a link, so that nothing looks beside the real
# one), lib64 is the real one's. Where compute-sanitizer and ncu are found is
# then up to the test: in DIR/bin, or nowhere.
fake_toolkit() {
    local dir=$1 nvcc root
    nvcc=$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")
    root=$(dirname "$(dirname "$nvcc")")
    mkdir -p "$dir/bin"
    printf '#!/bin/sh\nexec %s "$@"\n' "$nvcc" >"$dir/bin/nvcc"
    chmod +x "$dir/bin/nvcc"
    [ ! -d "$root/lib64" ] || ln -s "$root/lib64" "$dir/lib64"
}

# install_fake_tools DIR MARKS: a compute-sanitizer and an ncu in DIR that note
# each call in MARKS and run the program they are given, as the real ones do
# (a program that finds no GPU then exits 77 under them).
install_fake_tools() {
    local tool
    for tool in compute-sanitizer ncu; do
        printf '%s\n' '#!/bin/bash' \
            "echo \"$tool \$*\" >>'$2'" \
            'while [ $# -gt 0 ] && [[ $1 == -* ]]; do' \
            '    case $1 in --*=* | --csv) shift ;; --*) shift 2 ;; *) shift ;; esac' \
            'done' \
            'exec "$@"' >"$1/$tool"
        chmod +x "$1/$tool"
    done
}

@test "make sanitize, profile and explain end in the no-GPU outcome, whether their tool is installed or not" {
    slow_test "every tool command run with its tools and without"
    # Without a GPU each skips (skip_without_gpu, common/tools/options.bash)
    # before its tool could say anything. Every command shown runs once in the
    # workbook as it is; those of one step run again in a copy built with a
    # toolkit of this test's (fake_toolkit), once with a compute-sanitizer and
    # an ncu in it and once with neither there nor on PATH, so that both cases
    # run on every machine, whatever it has installed.
    local where folder command ran=0 chosen toolkit=$BATS_TEST_TMPDIR/cuda copy=$BATS_TEST_TMPDIR/wb
    local marks=$BATS_TEST_TMPDIR/calls hidden_path env_path case
    while IFS=$'\t' read -r where folder command; do
        first_time "$folder" "$command" || continue
        ran=$((ran + 1))
        run_in "$COPY" "$folder" "$command"
        no_gpu_skip || problem "$where: $command (in $folder): exit $status, not the no-GPU skip: $(tail -n 3 <<<"$output")"
    done < <(commands_of gpu-tool)
    # One step's commands (the learner's loop's step: 04, or the first step of
    # a copy without it), in a copy built with the test's toolkit.
    chosen=$(basename "${STEP_DIRS[0]}")
    [ ! -d "$COPY/04-reduction-interleaved" ] || chosen=04-reduction-interleaved
    fake_toolkit "$toolkit"
    mkdir -p "$copy"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude='./*/build' --exclude=./common/micro/build -cf - .) |
        tar -xf - -C "$copy"
    learner_shell env CUDA_PATH="$toolkit" make -s -C "$copy/$chosen" >/dev/null
    hidden_path=$(path_without compute-sanitizer ncu nvcc)
    for case in installed missing; do
        rm -f "$marks" "$toolkit/bin/compute-sanitizer" "$toolkit/bin/ncu"
        if [ $case = installed ]; then
            install_fake_tools "$toolkit/bin" "$marks"
            env_path=$PATH
        else
            env_path=$hidden_path
            # Nothing may find a tool: not the toolkit's bin/, not PATH, not
            # beside nvcc, not CUDA_PATH (cuda_tool's whole order).
            run learner_shell env PATH="$env_path" CUDA_PATH="$toolkit" NVCC="$toolkit/bin/nvcc" CUDA_BIN="$toolkit/bin/" \
                bash -c 'source "$1"; cuda_tool compute-sanitizer || cuda_tool ncu' _ "$WORKBOOK_DIR/common/tools/options.bash"
            [ "$status" -ne 0 ] || fail "the test's toolkit does not hide the tools: $output"
        fi
        while IFS=$'\t' read -r where folder command; do
            [ "$folder" = "$chosen" ] || continue
            run learner_shell env PATH="$env_path" CUDA_PATH="$toolkit" timeout 900 bash -c "cd \"\$1\" && $command" _ "$copy/$folder"
            no_gpu_skip || problem "$where: $command (in $folder), tools $case: exit $status, not the no-GPU skip: $(tail -n 3 <<<"$output")"
        done < <(commands_of gpu-tool)
        # The GPU is asked for first: with the tools installed, none of them
        # ran (the fakes mark each run), nothing having anything to watch.
        [ $case = missing ] || [ ! -s "$marks" ] ||
            problem "with the tools installed, $(head -n 1 "$marks" | cut -d' ' -f1) ran without a GPU: make must ask for the GPU before it builds or runs anything"
    done
    report "$ran" "sanitizer and profiler commands"
}

@test "make bench ends in the no-GPU outcome: the programs' 77 through make, or in a handout the skip it says" {
    local where folder command ran=0
    while IFS=$'\t' read -r where folder command; do
        first_time "$folder" "$command" || continue
        ran=$((ran + 1))
        run_in "$COPY" "$folder" "$command"
        if [ -d "$COPY/solutions" ]; then
            no_gpu_skip ||
                problem "$where: $command (in $folder): exit $status, not the no-GPU skip: $(tail -n 3 <<<"$output")"
        else
            # "make bench, make calibrate and make test-mutants need the
            # solutions, and say that they skipped."
            [ "$status" -eq 0 ] && [[ $output == *skipped* ]] ||
                problem "$where: $command (in $folder): exit $status, not the skip without solutions/: $(tail -n 3 <<<"$output")"
        fi
    done < <(commands_of gpu-run)
    [ "$ran" -ge 1 ] || [ -d "$COPY/solutions" ] ||
        skip "this copy is a handout: its README shows no command that times on the GPU (make bench needs the solutions)"
    report "$ran" "commands that time on the GPU"
}

@test "make doctor exits with the README's status through make, and its script with the script's own" {
    # "make doctor exits 0 when everything grading needs is here, a GPU
    # included, and 2 ... otherwise. ... common/tools/doctor.sh itself exits 0 ready
    # to grade, 1 something missing (with a GPU or without; ...), 77 no
    # usable GPU and nothing else missing that a machine without one can use."
    local words
    words=$(cd "$COPY" && cat $(readme_pages .) | tr '\n' ' ' | tr -s ' ')
    [[ $words == *"exits 0 when everything grading needs is here, a GPU included, and 2 (make's status for any command that failed) otherwise"* ]] ||
        fail "the README no longer words make doctor's exit status as this test knows it"
    # The script's own statuses are the instructor's page's (docs/ci.md),
    # which a handout leaves out.
    [ ! -d "$COPY/solutions" ] || [[ $words == *"itself exits 0 ready to grade, 1 something missing (with a GPU or without; "* &&
        $words == *"77 no usable GPU and nothing else missing that a machine without one can use"* ]] ||
        fail "docs/ci.md no longer words doctor.sh's exit status as this test knows it"
    local where folder command ran=0 own
    run_in "$COPY" . common/tools/doctor.sh
    own=$status
    [[ " 0 1 77 " == *" $own "* ]] || fail "common/tools/doctor.sh exits $own, none of the README's 0, 1 or 77: $output"
    while IFS=$'\t' read -r where folder command; do
        first_time "$folder" "$command" || continue
        ran=$((ran + 1))
        run_in "$COPY" "$folder" "$command"
        if [ "$own" -eq 0 ]; then
            [ "$status" -eq 0 ] || problem "$where: $command (in $folder): exit $status; the doctor's own was 0, and the README says make doctor is 0 then"
        else
            [ "$status" -eq 2 ] || problem "$where: $command (in $folder): exit $status; the doctor's own was $own, and the README says make doctor is 2 then"
        fi
        # Its own last line (before make's error line) names what is missing.
        [ "$(grep -v '^make' <<<"$output" | tail -n 1 | grep -c '^doctor: ')" -eq 1 ] || [ "$own" -eq 0 ] ||
            problem "$where: $command: its last line names nothing: $(grep -v '^make' <<<"$output" | tail -n 1)"
    done < <(commands_of doctor)
    report "$ran" "make doctor commands"
}

@test "make handout writes the copy the README describes: the steps up to STEP, no solutions" {
    local where folder command ran=0 step dest
    while IFS=$'\t' read -r where folder command; do
        first_time "$folder" "$command" || continue
        ran=$((ran + 1))
        step=$(sed -nE 's/.*STEP=([0-9]+).*/\1/p' <<<"$command")
        dest=$(sed -nE 's/.*DEST=([^ ]+).*/\1/p' <<<"$command")
        [[ $dest != /* ]] || { problem "$where: $command writes outside the copy ($dest): not run"; continue; }
        dest=$COPY/$folder/$dest
        run_in "$COPY" "$folder" "$command"
        [ "$status" -eq 0 ] || { problem "$where: $command: exit $status: $output"; continue; }
        [ -d "$dest" ] && [ ! -e "$dest/solutions" ] || problem "$where: $command: no $dest, or one with solutions/"
        for dir in "${STEP_DIRS[@]}"; do
            number=$(basename "$dir"); number=${number%%-*}
            if [ ! "$number" \> "$step" ]; then
                [ -d "$dest/$(basename "$dir")" ] || problem "$where: $command: no $(basename "$dir") in the handout"
            else
                [ ! -e "$dest/$(basename "$dir")" ] || problem "$where: $command: $(basename "$dir") handed out"
            fi
        done
        # Its README and pages of docs/ link to no file it left out (the
        # instructor's pages of docs/ among them), and hold no marker.
        while read -r found; do
            problem "$where: $command: $found"
        done < <(cd "$dest" && for page in $(readme_pages .); do
            grep -oE '\]\([^):#]+[)#]' "$page" | sed -E 's/^\]\(//; s/[)#]$//' | while read -r target; do
                [ -e "$(dirname "$page")/$target" ] || echo "$page links to $target, which the handout does not hold"
            done
            grep -nE 'full copy only|<!-- in a handout' "$page" | sed "s|^|$page: a marker left: |"
        done)
    done < <(commands_of handout)
    [ "$ran" -ge 1 ] || [ -d "$COPY/solutions" ] || skip "this copy is a handout: its README shows no make handout"
    report "$ran" "make handout commands"
}
