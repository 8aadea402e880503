#!/usr/bin/env bats
# The instructor's tools as commands: every script's --help and bad options,
# the make variables (EX, SOLUTIONS/SOLUTION), a broken or partial CUDA
# toolkit, and no GPU where a tool needs one. No GPU needed: fake programs and
# fake toolkits stand in, in copies of the workbook, so the user's own build
# is never touched.

bats_require_minimum_version 1.5.0
load helpers

# Every script, and arguments that are valid up to a missing option value.
# (A copy handed out has no tests/mutants/: its patches break the solutions.)
SCRIPTS=(grading/grade grading/batch grading/calibrate grading/report common/tools/bench.sh
         common/tools/readme-figures.sh common/tools/sanitize.sh common/tools/profile.sh)
[ ! -d "$WORKBOOK_DIR/tests/mutants" ] || SCRIPTS+=(tests/mutants/run)

@test "every script prints its usage for --help and exits 0" {
    for script in "${SCRIPTS[@]}"; do
        run --separate-stderr "$WORKBOOK_DIR/$script" --help
        [ "$status" -eq 0 ] || fail "$script --help: exit $status ($stderr)"
        [ "${#lines[@]}" -ge 3 ] || fail "$script --help: ${#lines[@]} lines: $output"
        [[ $output != *"set -u"* && $output != *'#!'* ]] || fail "$script --help prints code: $output"
    done
}

@test "an option without its value exits 2 and says which" {
    for args in "grading/grade --results" "grading/grade --step" "grading/batch --out" "grading/batch --list" \
        "grading/batch --timeout" "grading/batch --launcher" "grading/calibrate --runs" "grading/calibrate --step" \
        "grading/report /tmp --gradescope" "common/tools/bench.sh --from"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$WORKBOOK_DIR/"$args
        [ "$status" -eq 2 ] || fail "$args: exit $status, expected 2 ($stderr)"
        [[ $stderr == *"${args##* } needs a value"* ]] || fail "$args: $stderr"
        [[ $stderr != *"unbound variable"* ]] || fail "$args: $stderr"
    done
    refused=("grading/calibrate --bogus" "grading/batch --bogus x" "common/tools/bench.sh --bogus"
        "common/tools/sanitize.sh" "common/tools/profile.sh metrics" "common/tools/readme-figures.sh --bogus")
    [ ! -d "$WORKBOOK_DIR/tests/mutants" ] || refused+=("tests/mutants/run --bogus" "tests/mutants/run --jobs 0")
    for args in "${refused[@]}"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$WORKBOOK_DIR/"$args
        [ "$status" -eq 2 ] || fail "$args: exit $status, expected 2 ($stderr)"
        [ "${#stderr_lines[@]}" -eq 1 ] || fail "$args: ${#stderr_lines[@]} lines on stderr: $stderr"
    done
}

# A copy of the workbook's scripts and make files with one fake step, 04, whose
# build is a fake nvcc in a fake toolkit ($TOOLKIT/bin): it makes every
# program a script that exits with $FAKE_STATUS (default 77: no GPU).
fake_toolkit_workbook() {
    W=$BATS_TEST_TMPDIR/wb
    TOOLKIT=$BATS_TEST_TMPDIR/toolkit
    mkdir -p "$W/04-reduction-interleaved" "$TOOLKIT/bin"
    cp -r "$WORKBOOK_DIR/common" "$WORKBOOK_DIR/grading" "$WORKBOOK_DIR/Makefile" "$W/"
    cp "$WORKBOOK_DIR/04-reduction-interleaved/"{Makefile,*.cu} "$W/04-reduction-interleaved/"
    awk '/^[0-9][0-9]-/ { inside = ($1 == "04-reduction-interleaved") } inside' "$WORKBOOK_DIR/steps.conf" >"$W/steps.conf"
    # A solution to build (the fake nvcc reads no source): the reference one, or
    # in a copy handed out without solutions/, the exercise standing in for it.
    mkdir -p "$W/solutions/04-reduction-interleaved"
    if [ -d "$WORKBOOK_DIR/solutions/04-reduction-interleaved" ]; then
        cp -r "$WORKBOOK_DIR/solutions/04-reduction-interleaved" "$W/solutions/"
    else
        cp "$WORKBOOK_DIR/04-reduction-interleaved/"*.cu "$W/solutions/04-reduction-interleaved/"
    fi
    cat >"$TOOLKIT/bin/nvcc" <<'SCRIPT'
#!/usr/bin/env bash
# -M (what a learner's file includes, checked before it is compiled): nothing.
for arg; do [ "$arg" = -M ] && { echo "target: ${!#}"; exit 0; }; done
# --dryrun (what check-includes asks of its include folders): none.
for arg; do [ "$arg" = --dryrun ] && exit 0; done
# --keep-dir (the learner's file, kept for its module and PTX): empty ones,
# and its dependency list (-MF): the file alone.
keep="" source=${!#}
while [ $# -gt 0 ]; do
    [ "$1" = -o ] && out=$2
    [ "$1" = --keep-dir ] && keep=$2
    [ "$1" = -MF ] && deps=$2
    shift
done
[ -z "$keep" ] || { : >"$keep/$(basename "$source" .cu).fatbin"; : >"$keep/none.ptx"; echo "$out: $source" >"$deps"; }
printf '#!/usr/bin/env bash\necho "$(basename "$0"): skipped: no usable CUDA device" >&2\nexit "${FAKE_STATUS:-77}"\n' >"$out"
chmod +x "$out"
SCRIPT
    chmod +x "$TOOLKIT/bin/nvcc"
}

@test "the sanitizer and ncu come from the toolkit make chose, and say what is missing" {
    fake_toolkit_workbook
    printf '#!/usr/bin/env bash\necho "the toolkit'"'"'s own $(basename "$0")"\necho "ERROR SUMMARY: 0 errors"\n' >"$TOOLKIT/bin/compute-sanitizer"
    chmod +x "$TOOLKIT/bin/compute-sanitizer"
    # WORKBOOK_GPU=usable: make asks for no GPU (ask_for_gpu, common/cuda.mk);
    # the fake program, which finds one, answers.
    FAKE_STATUS=0 WORKBOOK_GPU=usable run make -C "$W/04-reduction-interleaved" sanitize NVCC="$TOOLKIT/bin/nvcc" SM=90
    assert_success
    assert_output --partial "the toolkit's own compute-sanitizer"
    # No ncu in that toolkit, nor on PATH: the message names it and what to install.
    PATH=/usr/bin:/bin command -v ncu >/dev/null && skip "ncu is in /usr/bin here"
    # (A program that finds a GPU: without one, profile skips before it looks for ncu.)
    FAKE_STATUS=0 WORKBOOK_GPU=usable run env PATH=/usr/bin:/bin CUDA_PATH="$BATS_TEST_TMPDIR/none" make -C "$W/04-reduction-interleaved" profile NVCC="$TOOLKIT/bin/nvcc" SM=90
    assert_failure
    assert_output --partial "ncu not found in $TOOLKIT/bin/ or on PATH: it is Nsight Compute"
    assert_output --partial "Error 1"
    PATH=/usr/bin:/bin command -v compute-sanitizer >/dev/null && skip "compute-sanitizer is in /usr/bin here"
    # Nor beside the nvcc that make exported for these tests (a GPU machine's has one).
    run env -u NVCC PATH=/usr/bin:/bin CUDA_BIN=$BATS_TEST_TMPDIR CUDA_PATH=$BATS_TEST_TMPDIR "$W/common/tools/sanitize.sh" /bin/true
    assert_failure 1
    assert_output --partial "compute-sanitizer not found in $BATS_TEST_TMPDIR or on PATH"
}

@test "without a GPU, make sanitize and make profile skip (77) whether their tool is installed or not" {
    printf '#!/bin/sh\nexit 77\n' >"$BATS_TEST_TMPDIR/no-gpu"
    chmod +x "$BATS_TEST_TMPDIR/no-gpu"
    local tools=$BATS_TEST_TMPDIR/no-tools
    mkdir -p "$tools"
    run env -u NVCC PATH=/usr/bin:/bin CUDA_BIN=$tools CUDA_PATH=$tools COMPUTE_SANITIZER= \
        "$WORKBOOK_DIR/common/tools/sanitize.sh" "$BATS_TEST_TMPDIR/no-gpu" --check -n 1
    assert_failure 77
    assert_output --partial "skipped: no usable CUDA device"
    run env -u NVCC PATH=/usr/bin:/bin CUDA_BIN=$tools CUDA_PATH=$tools \
        "$WORKBOOK_DIR/common/tools/profile.sh" smsp__inst_executed.sum "$BATS_TEST_TMPDIR/no-gpu"
    assert_failure 77
    assert_output --partial "skipped: no usable CUDA device"
    refute_output --partial "not found"
}

@test "with nothing built, the GPU is asked of the driver: no only where it is sure, else the program decides" {
    local options=$WORKBOOK_DIR/common/tools/options.bash bin=$BATS_TEST_TMPDIR/bin
    # CUDA_VISIBLE_DEVICES= hides every GPU: a skip, with the reason.
    run env CUDA_VISIBLE_DEVICES= OPTIONS_NAME="make profile" bash -c 'source "$1" && skip_without_gpu' _ "$options"
    assert_failure 77
    assert_output "make profile: skipped: no usable CUDA device (CUDA_VISIBLE_DEVICES='' hides every GPU)"
    # A driver that lists one GPU: asked no further here (the build and the
    # program go ahead), unless CUDA_VISIBLE_DEVICES names one past it.
    mkdir -p "$bin"
    printf '#!/bin/sh\necho "GPU 0: A Fake GPU (UUID: GPU-0)"\n' >"$bin/nvidia-smi"
    chmod +x "$bin/nvidia-smi"
    run env -u CUDA_VISIBLE_DEVICES PATH="$bin:$PATH" bash -c 'source "$1" && skip_without_gpu && echo asked' _ "$options"
    assert_success
    assert_output asked
    run env CUDA_VISIBLE_DEVICES=GPU-0 PATH="$bin:$PATH" bash -c 'source "$1" && skip_without_gpu && echo asked' _ "$options"
    assert_output asked
    run env CUDA_VISIBLE_DEVICES=1 PATH="$bin:$PATH" OPTIONS_NAME=x bash -c 'source "$1" && skip_without_gpu' _ "$options"
    assert_failure 77
    assert_output "x: skipped: no usable CUDA device (CUDA_VISIBLE_DEVICES='1' names GPU 1, and nvidia-smi lists 1)"
}

@test "without a GPU, make sanitize, profile and explain say so on one line before building anything, and succeed" {
    fake_toolkit_workbook
    printf '#!/usr/bin/env bash\necho "ncu ran"\n' >"$TOOLKIT/bin/ncu"
    chmod +x "$TOOLKIT/bin/ncu"
    rm -rf "$W/common/build"  # (copied from this workbook's build)
    # As typed in the step's folder and at the top (make -C adds lines of its
    # own), with any GPU of this machine hidden.
    export CUDA_VISIBLE_DEVICES=
    for goal in sanitize profile explain; do
        run bash -c 'cd "$1/04-reduction-interleaved" && make "$2" NVCC="$3" SM=90' _ "$W" "$goal" "$TOOLKIT/bin/nvcc"
        assert_success
        assert_output --regexp "^make $goal: skipped: no usable CUDA device \(.+\)\$"
        run bash -c 'cd "$1" && make "$2" EX=04 NVCC="$3" SM=90' _ "$W" "$goal" "$TOOLKIT/bin/nvcc"
        assert_success
        assert_output --regexp "^make $goal: skipped: no usable CUDA device \(.+\)\$"
    done
    # Nothing was built, and make profile wrote no results.
    run find "$W" -name '*.o' -o -name reduction_interleaved -type f
    assert_output ""
    [ ! -e "$W/results" ] || fail "make profile without a GPU wrote $(ls "$W/results")"
}

# A driver that lists a GPU the CUDA runtime cannot use (one older than the
# toolkit): only the built program can tell, and its 77 is a skip as well,
# said with the program's reason, unless REQUIRE_GPU=1 asks for a failure.
@test "with a GPU listed that the programs cannot use, make sanitize, profile and explain skip with exit 0, and fail under REQUIRE_GPU=1" {
    fake_toolkit_workbook
    local bin=$BATS_TEST_TMPDIR/driver
    mkdir -p "$bin"
    printf '#!/bin/sh\ncase "$*" in *-L*) echo "GPU 0: A Fake GPU (UUID: GPU-0)" ;; *) echo "A Fake GPU" ;; esac\n' >"$bin/nvidia-smi"
    chmod +x "$bin/nvidia-smi"
    rm -rf "$W/common/build"
    for goal in sanitize profile explain; do
        run env -u CUDA_VISIBLE_DEVICES PATH="$bin:$PATH" make -C "$W" "$goal" EX=04 NVCC="$TOOLKIT/bin/nvcc" SM=90
        assert_success
        assert_output --partial "skipped: no usable CUDA device"
        refute_output --partial "Error 77"
        run env -u CUDA_VISIBLE_DEVICES PATH="$bin:$PATH" REQUIRE_GPU=1 make -C "$W" "$goal" EX=04 NVCC="$TOOLKIT/bin/nvcc" SM=90
        assert_failure
        assert_output --partial "REQUIRE_GPU=1 asks for one"
    done
    # Where compute-sanitizer is there (a GPU machine's toolkit), the program
    # ends under it before its first call (exit 77): said as a skip, or under
    # REQUIRE_GPU=1 as the reason of the failure, as without the tool.
    printf '#!/bin/sh\n[ "$1" = --help ] && exit 0\necho "========= Error: Target application terminated before first instrumented API call"\nexit 77\n' >"$bin/compute-sanitizer"
    chmod +x "$bin/compute-sanitizer"
    run env -u CUDA_VISIBLE_DEVICES PATH="$bin:$PATH" make -C "$W" sanitize EX=04 NVCC="$TOOLKIT/bin/nvcc" SM=90
    assert_success
    assert_output --partial "sanitize: skipped: no usable CUDA device"
    run env -u CUDA_VISIBLE_DEVICES PATH="$bin:$PATH" REQUIRE_GPU=1 make -C "$W" sanitize EX=04 NVCC="$TOOLKIT/bin/nvcc" SM=90
    assert_failure
    assert_output --partial "sanitize: no usable CUDA device, and REQUIRE_GPU=1 asks for one"
    refute_output --partial "skipped"
    # make profile wrote no results for a run that did not happen.
    [ ! -e "$W/results/profile-04.txt" ] || fail "make profile wrote $(cat "$W/results/profile-04.txt")"
    # Where no GPU is sure before the build (every GPU hidden), REQUIRE_GPU=1 fails as well.
    run env CUDA_VISIBLE_DEVICES= REQUIRE_GPU=1 make -C "$W" sanitize EX=04 NVCC="$TOOLKIT/bin/nvcc" SM=90
    assert_failure
    assert_output --partial "no usable CUDA device (CUDA_VISIBLE_DEVICES='' hides every GPU), and REQUIRE_GPU=1 asks for one"
    refute_output --partial "skipped"
}

@test "a missing compiler is named as missing, for every goal that builds" {
    fake_toolkit_workbook
    for dir in "$W" "$W/04-reduction-interleaved"; do
        run env NVCC=/nonexistent/nvcc make -C "$dir"
        assert_failure
        assert_output --partial "the CUDA compiler /nonexistent/nvcc was not found: install the CUDA toolkit"
        refute_output --partial "SM=90"
        # Goals that build nothing still work.
        run env NVCC=/nonexistent/nvcc make -s -C "$dir" help
        assert_success
    done
    run env NVCC=/nonexistent/nvcc make -s --no-print-directory -C "$W/04-reduction-interleaved" print-program
    assert_output reduction_interleaved
}

@test "EX=4 is step 04, and SOLUTION=1 and SOLUTIONS=1 are one switch, at the top and in a step" {
    fake_toolkit_workbook
    for ex in 4 04; do
        run make -n -C "$W" sanitize EX=$ex SM=90 NVCC="$TOOLKIT/bin/nvcc"
        assert_success
        assert_output --partial "make -C 04-reduction-interleaved sanitize"
        run make -n -C "$W" grade EX=$ex
        assert_output --partial 'grading/grade --step "04"'
    done
    for flag in SOLUTION SOLUTIONS; do
        run make -n -C "$W" sanitize EX=4 $flag=1 SM=90 NVCC="$TOOLKIT/bin/nvcc"
        assert_output --partial "sanitize.sh ./reduction_interleaved_solution"
        run make -n -C "$W" grade $flag=1
        assert_output --partial "--solutions"
        run make -n -C "$W/04-reduction-interleaved" sanitize $flag=1 SM=90 NVCC="$TOOLKIT/bin/nvcc"
        assert_output --partial "sanitize.sh ./reduction_interleaved_solution"
        run make -n -C "$W/04-reduction-interleaved" grade $flag=1
        assert_output --partial "grading/grade --step 04 --solutions"
    done
    run make -s -C "$W/04-reduction-interleaved" help
    assert_success
    assert_output --partial "make grade"
}

@test "tests/mutants/run says it needs a GPU, and exits 77 without one, before building anything" {
    [ -d "$WORKBOOK_DIR/tests/mutants" ] || skip "no tests/mutants/ here (a copy handed out leaves it out)"
    run --separate-stderr env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/tests/mutants/run"
    if [ "$status" -eq 1 ] && [[ $stderr == *"nothing is built"* ]]; then
        skip "nothing built: run make first"
    fi
    assert_equal "$status" 77
    [[ $stderr == *"no usable CUDA device"* ]] || fail "$stderr"
    refute_output --partial "caught"
}

@test "print-program, help and clean leave a build's record of its flags alone" {
    # In a copy, built with the fake toolkit, so that clean can run.
    fake_toolkit_workbook
    dir=$W/04-reduction-interleaved
    make -s -C "$dir" NVCC="$TOOLKIT/bin/nvcc" SM=90 >/dev/null
    # The record and the file itself: a record rewritten is a new file (mv).
    record() { [ -f "$1" ] && echo "$(stat -c '%i %s %Y' "$1") $(cat "$1")"; }
    step_flags=$(record "$dir/build/flags") || fail "the build wrote no build/flags"
    harness_flags=$(record "$W/common/build/flags") || fail "the build wrote no common/build/flags"
    for sm in 75 "80 90" ""; do
        run env SM="$sm" make -s --no-print-directory -C "$dir" NVCC="$TOOLKIT/bin/nvcc" print-program
        assert_output reduction_interleaved
        run env SM="$sm" make -s -C "$dir" NVCC="$TOOLKIT/bin/nvcc" help
        assert_success
    done
    assert_equal "$(record "$dir/build/flags")" "$step_flags"
    assert_equal "$(record "$W/common/build/flags")" "$harness_flags"
    # clean takes the step's build away, and leaves the harness's, which every
    # step shares, as it was, whatever SM it is given.
    run env SM=75 make -s -C "$dir" NVCC="$TOOLKIT/bin/nvcc" clean
    assert_success
    [ ! -e "$dir/build" ] || fail "clean left $(ls "$dir/build")"
    assert_equal "$(record "$W/common/build/flags")" "$harness_flags"
}

@test "tests/options.bats skips, rather than fails, where nothing is built" {
    copy=$BATS_TEST_TMPDIR/bare
    mkdir -p "$copy/tests" "$copy/04-reduction-interleaved"
    cp -r "$WORKBOOK_DIR/common" "$copy/"
    cp "$WORKBOOK_DIR/tests/options.bats" "$WORKBOOK_DIR/tests/helpers.bash" "$copy/tests/"
    cp "$WORKBOOK_DIR/04-reduction-interleaved/Makefile" "$copy/04-reduction-interleaved/"
    cp "$WORKBOOK_DIR/steps.conf" "$copy/"
    run bats --tap "$copy/tests/options.bats"
    assert_success
    refute_output --partial "not ok"
    assert_output --partial "# skip"
}

@test "the README names the bats version the tests need, and .ci/run checks for it" {
    version=$(sed -n 's/^bats_min_version=//p' "$WORKBOOK_DIR/.ci/run")
    [ -n "$version" ] || fail ".ci/run sets no bats_min_version"
    grep -q "bats $version or newer" "$WORKBOOK_DIR/README.md" || fail "README.md does not say bats $version or newer"
    # An older bats: .ci/run refuses it, before running anything.
    mkdir -p "$BATS_TEST_TMPDIR/old"
    printf '#!/bin/sh\necho "Bats 1.2.1"\n' >"$BATS_TEST_TMPDIR/old/bats"
    chmod +x "$BATS_TEST_TMPDIR/old/bats"
    run env PATH="$BATS_TEST_TMPDIR/old:$PATH" bash "$WORKBOOK_DIR/.ci/run" --check-tools
    assert_failure
    assert_output --partial "bats 1.2.1 is too old: the tests need bats $version or newer"
    run env bash "$WORKBOOK_DIR/.ci/run" --check-tools
    assert_success
}

@test "make profile's table shows each kernel's first launch, without the harness's own kernels" {
    bin=$BATS_TEST_TMPDIR/bin
    mkdir -p "$bin"
    # An ncu that writes a raw page as Nsight Compute does: a header, a units row, a row per launch.
    cat >"$bin/ncu" <<'FAKE'
#!/bin/bash
while [ $# -gt 0 ]; do case $1 in --log-file) log=$2; shift 2 ;; *) shift ;; esac; done
{
    echo '"ID","Process ID","Kernel Name","m1"'
    echo '"","","","sectors"'
    echo '"0","1","flush_l2_kernel(const int4 *, unsigned long, int *)","5"'
    echo '"1","1","abs_copy(const float *, float *, unsigned long)","7"'
    echo '"2","1","matmul_uncoalesced(const float *, const float *, float *, int)","570"'
    echo '"3","1","matmul_naive(const float *, const float *, float *, int)","134"'
    echo '"4","1","matmul_naive(const float *, const float *, float *, int)","999"'
    echo '"5","1","count_off_elements(const float *, const float *, const float *, float, unsigned long, int *)","1"'
    echo '"6","1","void audit_marker()","1"'
    echo '"7","1","void scrub_local_memory<1024>()","1"'
    echo '"8","1","scrub_shared_memory(unsigned int)","1"'
    echo '"9","1","fill_fresh_matrix(float *, unsigned long, unsigned long, unsigned long)","1"'
    echo '"10","1","compare_on_gpu(const float *, const float *, const float *, float, unsigned long, int *)","1"'
    echo '"11","1","fill_input(int *, unsigned int, unsigned long, unsigned long, int)","1"'
    echo '"12","1","sum_input(unsigned int, unsigned long, unsigned long, int, unsigned long long *)","1"'
} >"$log"
FAKE
    chmod +x "$bin/ncu"
    run env CUDA_BIN="$bin/" "$WORKBOOK_DIR/common/tools/profile.sh" m1 /bin/true
    assert_success
    assert_line --regexp '^  matmul_uncoalesced +570$'
    assert_line --regexp '^  matmul_naive +134$'
    refute_output --regexp 'flush_l2|abs_copy|count_off_elements|audit_marker|scrub|fill_|compare_on_gpu|sum_input|999'
}

@test "make profile heads each warp-stall metric with what it counts, in words, and no other metric" {
    fake_ncu_for_metrics "$BATS_TEST_TMPDIR/bin"
    local stall=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
    local unknown=smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio
    local table
    run env CUDA_BIN="$BATS_TEST_TMPDIR/bin/" "$WORKBOOK_DIR/common/tools/profile.sh" \
        "smsp__inst_executed.sum,$stall,smsp__average_warp_latency_per_inst_issued.ratio,$unknown" /bin/true
    assert_success
    table=$output
    # The heading, its words, then a row per kernel with the metric's own figure.
    run grep -A3 -x "$stall" <<<"$table"
    assert_line --index 1 '  (stall reason "long scoreboard", cycles per issued instruction: waiting for the data of a global or local memory access (L1TEX))'
    assert_line --index 2 --regexp '^  reduce_direct +2\.73$'
    assert_line --index 3 --regexp '^  void matmul_tiled<32> +2\.73$'
    run grep -A2 -x smsp__average_warp_latency_per_inst_issued.ratio <<<"$table"
    assert_line --index 1 --partial '  (cycles from one instruction of a warp to its next'
    assert_line --index 2 --regexp '^  reduce_direct +3\.73$'
    # A reason without words of its own is still named as one, and said no more of.
    run grep -A1 -x "$unknown" <<<"$table"
    assert_line --index 1 '  (stall reason "tex throttle", cycles per issued instruction)'
    # Any other metric: its name, then its rows at once.
    run env CUDA_BIN="$BATS_TEST_TMPDIR/bin/" "$WORKBOOK_DIR/common/tools/profile.sh" smsp__inst_executed.sum /bin/true
    run grep -A1 -x smsp__inst_executed.sum <<<"$output"
    assert_line --index 1 --regexp '^  reduce_direct +1\.73$'
}

@test "every stall reason that a step's make profile shows is said in words, beside the total it is part of" {
    fake_ncu_for_metrics "$BATS_TEST_TMPDIR/bin"
    local step metrics stalls total=smsp__average_warp_latency_per_inst_issued.ratio metric shown=""
    for step in $(manifest_steps); do
        metrics=$(step_field "$step" profile)
        stalls=$(tr , '\n' <<<"$metrics" | grep '^smsp__average_warps_issue_stalled_') || continue
        shown+=" ${step%%-*}"
        [[ ,$metrics, == *,$total,* ]] || fail "$step: its profile shows stall reasons without $total, the cycles they add up to"
        [ "$(wc -l <<<"$stalls")" -le 5 ] || fail "$step: more than five stall reasons: pick those that matter"
        run env CUDA_BIN="$BATS_TEST_TMPDIR/bin/" "$WORKBOOK_DIR/common/tools/profile.sh" "$metrics" /bin/true
        assert_success
        for metric in $stalls; do
            grep -A1 -x "$metric" <<<"$output" | grep -q '^  (stall reason "[a-z ]*", cycles per issued instruction: [a-z]' ||
                fail "$step: make profile names $metric, but not what it means"
        done
    done
    # The steps whose READMEs read the stall reasons (those of them this copy holds).
    local expected="" number
    for step in $(manifest_steps); do
        number=${step%%-*}
        [[ " 03 06 07 08 " != *" $number "* ]] || expected+=" $number"
    done
    assert_equal "$shown" "$expected"
}

@test "make -n profile shows the step's commands and writes no results file" {
    local file=$WORKBOOK_DIR/results/profile-04.txt before
    before=$(cat "$file" 2>/dev/null || echo absent)
    run make -n -C "$WORKBOOK_DIR" profile EX=04
    assert_success
    assert_output --partial "profile.sh"
    assert_equal "$(cat "$file" 2>/dev/null || echo absent)" "$before"
    [ ! -e "$file.new" ] || fail "a dry run left $file.new"
}

# sanitize.sh leaves the harness's scrub kernels out of racecheck by their
# exact mangled names (tests/cuda-tools.bats): names that must be those the
# kernels compile to, or racecheck would watch them again, at 15 s a step.
@test "the kernels racecheck leaves out are the names plan.cu's scrub kernels compile to" {
    local names name
    names=$(sed -n 's/^HARNESS_SCRUBS="\(.*\)"$/\1/p' "$WORKBOOK_DIR/common/tools/sanitize.sh")
    [ -n "$names" ] || fail "no HARNESS_SCRUBS in sanitize.sh"
    command -v nvcc >/dev/null || skip "no nvcc to compile common/core/plan.cu"
    nvcc -arch=sm_90 -c -o "$BATS_TEST_TMPDIR/plan.o" -I "$WORKBOOK_DIR/common/core" "$WORKBOOK_DIR/common/core/plan.cu" \
        2>"$BATS_TEST_TMPDIR/nvcc.log" || fail "$(cat "$BATS_TEST_TMPDIR/nvcc.log")"
    for name in $names; do
        nm "$BATS_TEST_TMPDIR/plan.o" | grep -q " $name\$" || fail "plan.cu compiles to no kernel $name"
    done
    # And every scrub kernel plan.cu has is among them.
    assert_equal "$(nm "$BATS_TEST_TMPDIR/plan.o" | grep -oE ' _Z[0-9]+scrub_[a-z_]+[A-Za-z0-9_]*$' | tr -d ' ' | sort -u | paste -sd' ')" \
        "$(tr ' ' '\n' <<<"$names" | sort | paste -sd' ')"
}

# The toolkit's libraries of whole algorithms would do a step's work inside
# the learner's own kernel (cub::BlockReduce: tests/mutants/07-cub-block-reduce.patch,
# 17 of 17 on an H200 before): the include check refuses CUB and Thrust,
# named, and leaves libcu++ and cooperative groups to the learner.
@test "the include check refuses CUB and Thrust in a learner's file, and allows libcu++ and cooperative groups" {
    local nvcc dir=$BATS_TEST_TMPDIR/step
    nvcc=$(source "$WORKBOOK_DIR/common/tools/options.bash" && cuda_tool nvcc) || skip "no nvcc here"
    mkdir -p "$dir"
    printf '#include "reduction.h"\n#include <cub/block/block_reduce.cuh>\n' >"$dir/cub.cu"
    run "$WORKBOOK_DIR/common/tools/check-includes.sh" "$dir/cub.cu" "$nvcc" -std=c++17 -I"$WORKBOOK_DIR/common/core" -I"$WORKBOOK_DIR/common/tracks/reduction"
    assert_failure 1
    assert_output --partial "cub.cu includes CUB or Thrust, libraries whose algorithms would do the step's work in your kernel"
    assert_output --regexp "cub/block/block_reduce.cuh"
    printf '#include "reduction.h"\n#include <thrust/reduce.h>\n' >"$dir/thrust.cu"
    run "$WORKBOOK_DIR/common/tools/check-includes.sh" "$dir/thrust.cu" "$nvcc" -std=c++17 -I"$WORKBOOK_DIR/common/core" -I"$WORKBOOK_DIR/common/tracks/reduction"
    assert_failure 1
    assert_output --partial "includes CUB or Thrust"
    printf '#include "reduction.h"\n#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n#include <cuda/atomic>\n#include <cuda/barrier>\n' >"$dir/allowed.cu"
    run "$WORKBOOK_DIR/common/tools/check-includes.sh" "$dir/allowed.cu" "$nvcc" -std=c++17 -I"$WORKBOOK_DIR/common/core" -I"$WORKBOOK_DIR/common/tracks/reduction"
    assert_success
}
