#!/usr/bin/env bats
# make explain (common/tools/explain.sh, its reader common/tools/ncu_source.awk) and the
# grader's pointers to a line (grading/explain.bash), without a GPU: ncu's
# pages recorded on an H100 for each planted mistake of tests/explain/*.patch
# and each reference solution (tests/fixtures/explain, by tests/explain/run
# --keep) stand in for a profiled run, and a fake ncu for the profiler.
# (tests/explain/run itself, on a GPU, is part of make test-mutants.) A copy
# handed out to a class has neither: those pages hold the solutions' source.

bats_require_minimum_version 1.5.0
load helpers

# The fake programs here are steered by variables that the grader's sandbox
# would clear: what is tested is the grading (tests/confine.bats tests the sandbox).
export GRADE_SANDBOX=none

FIXTURES=$WORKBOOK_DIR/tests/fixtures/explain
EXPLAIN=$WORKBOOK_DIR/common/tools/explain.sh

# pages NAME: ncu's recorded pages of a run, unpacked; sets PAGE and RAW.
pages() {
    [ -d "$FIXTURES" ] || skip "no recorded pages here (a copy handed out leaves them out: they hold the solutions)"
    [ -f "$FIXTURES/$1.page.csv.gz" ] || fail "no recorded pages $FIXTURES/$1.*"
    PAGE=$BATS_TEST_TMPDIR/$1.page.csv
    RAW=$BATS_TEST_TMPDIR/$1.raw.csv
    gzip -dc "$FIXTURES/$1.page.csv.gz" >"$PAGE"
    gzip -dc "$FIXTURES/$1.raw.csv.gz" >"$RAW"
}

# planted: skips where a copy handed out left tests/explain/ out (its patches
# break the solutions); the tests that loop over its patches count them.
planted() {
    [ -d "$WORKBOOK_DIR/tests/explain" ] || skip "no tests/explain/ here (a copy handed out leaves the planted mistakes out)"
}

# patch_field PATCH KEY: a field of a planted mistake's header (line, kind).
patch_field() {
    sed -n "s/^# $2: //p" "$1"
}

# named PROGRAM: the problems explain.sh's output names, "LINE<TAB>KINDS",
# worst first.
named() {
    sed -n "s/^$1\\.cu:\\([0-9][0-9]*\\): \\(.*\\)\$/\\1\t\\2/p" <<<"$output"
}

@test "explain.sh prints its usage for --help, and refuses bad arguments with one line and exit 2" {
    run --separate-stderr "$EXPLAIN" --help
    assert_success
    assert_output --partial "usage: explain.sh"
    assert_output --partial "Exit status"
    pages 03-transposed-tile
    for args in "" "--bogus 03" "--brief" "--brief x 03" "--brief 0 03" "--page $PAGE 03" "--raw $RAW 03" \
        "--page /no/such --raw $RAW 03" "99" "03 04" "--run"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$EXPLAIN" $args
        [ "$status" -eq 2 ] || fail "explain.sh $args: exit $status, expected 2 ($stderr)"
        [ "${#stderr_lines[@]}" -eq 1 ] || fail "explain.sh $args: ${#stderr_lines[@]} lines on stderr: $stderr"
        [[ $stderr == "explain: "* ]] || fail "explain.sh $args: $stderr"
    done
}

@test "each planted mistake's culprit line comes first, with its kind of problem first, and only the learner's file" {
    local patch count=0
    planted
    for patch in "$WORKBOOK_DIR"/tests/explain/*.patch; do
        name=$(basename "$patch" .patch)
        step=${name%%-*}
        program=$(step_field "$step" program)
        pages "$name"
        run --separate-stderr "$EXPLAIN" --page "$PAGE" --raw "$RAW" "$step"
        assert_success
        IFS=$'\t' read -r line kinds <<<"$(named "$program" | head -n 1)"
        [ "$line" = "$(patch_field "$patch" line)" ] || fail "$name: first named line $line, expected $(patch_field "$patch" line): $output"
        [[ ${kinds%%;*} == *"$(patch_field "$patch" kind)"* ]] || fail "$name: first named $kinds: $output"
        # Its text, its figures, and what they mean, under it.
        grep -A3 "^$program\\.cu:$line: " <<<"$output" | tail -n 3 | grep -qv '^    [^ ]' && fail "$name: $output"
        # Every line named is one of the learner's file: never main.cu's or common/'s.
        refute_output --regexp '(main\.cu|\.cuh|harness|common/)'
        [ -z "$(grep -E '^[^ ].*\.cu:[0-9]+:' <<<"$output" | grep -v "^$program\\.cu:")" ] || fail "$name: $output"
        count=$((count + 1))
    done
    [ "$count" -ge 5 ] || fail "only $count planted mistakes in tests/explain"
}

@test "the reference solutions name no line of the kind of problem their lesson removes" {
    local patch step kind count=0
    planted
    for patch in "$WORKBOOK_DIR"/tests/explain/*.patch; do
        step=$(basename "$patch" | cut -c1-2)
        kind=$(patch_field "$patch" kind)
        pages "$step-solution"
        run --separate-stderr "$EXPLAIN" --solution --page "$PAGE" --raw "$RAW" "$step"
        assert_success
        assert_output --partial "(the reference solution)"
        if named "$(step_field "$step" program)" | cut -f2 | grep -qF "$kind"; then
            fail "the solution of $step names a line with $kind: $output"
        fi
        count=$((count + 1))
    done
    [ "$count" -ge 5 ] || fail "only $count planted mistakes in tests/explain"
    # The solutions of 02, 03 and 05 name no line at all; 04's has the bank
    # conflicts that step 05 removes, and 01's the stores that 02 removes.
    for step in 02 03 05; do
        pages "$step-solution"
        run "$EXPLAIN" --solution --page "$PAGE" --raw "$RAW" "$step"
        assert_output --partial "No line of $(step_field "$step" program).cu shows"
    done
    pages 04-solution
    run "$EXPLAIN" --solution --page "$PAGE" --raw "$RAW" 04
    assert_line --regexp '^reduction_interleaved\.cu:23: shared-memory bank conflicts$'
}

@test "the reader's per-line sums give back the lesson test's own figures" {
    # Step 04's counter, warp-level loads and stores per block (shared and
    # global), summed over the lines: the input's 8 loads and 8 stores, the
    # levels' 2 loads and 1 store in each warp with a busy thread (47 in the
    # % tree, 12 in the solution), thread 0's load of the sum and its store:
    # 8 + 8 + 141 + 2 = 159 and 8 + 8 + 36 + 2 = 54 (steps.conf).
    for run in 04-modulo-tree:159 04-mask-tree:159 04-solution:54; do
        pages "${run%%:*}"
        blocks=$(awk -f "$WORKBOOK_DIR/common/tools/ncu_csv.awk" -f <(echo '/^"ID"/ { split_csv($0, h); for (i in h) c[h[i]] = i; n = 1; next }
            n == 1 { n = 2; next } n == 2 { split_csv($0, f); v = f[c["launch__grid_size"]]; gsub(/,/, "", v); s += v } END { print s }') "$RAW")
        run awk -v file=reduction_interleaved.cu -v lesson="$(step_field 04 lesson_metric)" \
            -f "$WORKBOOK_DIR/common/tools/ncu_csv.awk" -f "$WORKBOOK_DIR/common/tools/ncu_source.awk" "$PAGE"
        assert_success
        total=$(grep '^total' <<<"$output" | tr '\t' '\n' | sed -n 's/^lesson=//p')
        mine=$(grep '^line' <<<"$output" | tr '\t' '\n' | sed -n 's/^lesson=//p' | awk '{ s += $1 } END { print s }')
        assert_equal "$mine" "$total"
        assert_equal "$((total / blocks)).$((total % blocks))" "${run#*:}.0"
    done
    # Step 02's: global store requests, one per warp in the solution (two
    # launches of 2,048 warps: N = 256, 16x16 blocks), 256 per warp before.
    pages 02-solution
    run awk -v file=register_temp.cu -v lesson="$(step_field 02 lesson_metric)" \
        -f "$WORKBOOK_DIR/common/tools/ncu_csv.awk" -f "$WORKBOOK_DIR/common/tools/ncu_source.awk" "$PAGE"
    assert_line --regexp $'^total\t.*\tlesson=4096$'
    # Each instruction counts once, though ncu lists it twice.
    assert_line --regexp $'^line\t21\tinst=16384\t.*\tg_st=4096\t'
}

@test "the reader reports only the learner's file, matched by its path, else its name" {
    pages 03-transposed-tile
    # The same launch again, as if its kernel ran lines of a header too.
    sed 's#^"File Path","[^"]*"#"File Path","/elsewhere/common/tracks/reduction/block_sum.cuh"#' "$PAGE" >"$BATS_TEST_TMPDIR/two.csv"
    cat "$PAGE" >>"$BATS_TEST_TMPDIR/two.csv"
    run awk -v file=/not/here/tiled_matmul.cu -f "$WORKBOOK_DIR/common/tools/ncu_csv.awk" -f "$WORKBOOK_DIR/common/tools/ncu_source.awk" \
        "$BATS_TEST_TMPDIR/two.csv"
    assert_success
    assert_line --regexp $'^line\t36\t'
    [ "$(grep -c $'^line\t36\t' <<<"$output")" -eq 1 ] || fail "$output"
    path=$(sed -n '1s/^"File Path","\(.*\)"$/\1/p' "$PAGE")
    run awk -v file="$path" -f "$WORKBOOK_DIR/common/tools/ncu_csv.awk" -f "$WORKBOOK_DIR/common/tools/ncu_source.awk" "$BATS_TEST_TMPDIR/two.csv"
    assert_line --regexp $'^line\t36\t.*\twavefronts=8912896\t'
    run awk -v file=main.cu -f "$WORKBOOK_DIR/common/tools/ncu_csv.awk" -f "$WORKBOOK_DIR/common/tools/ncu_source.awk" "$BATS_TEST_TMPDIR/two.csv"
    refute_line --regexp '^line'
    assert_line --regexp '^total'
}

@test "a line that one warp of each block must run (if (tid == 0) ...) is no divergence, however little else the kernel does" {
    # Step 04's solution without its tree (lines 20 to 26), as an exercise
    # with the tree still to write runs it: the store of the block's sum is
    # then a large share of what the kernel does, one busy thread per access.
    pages 04-solution
    awk '/^"(File Path|Function Name|Line No)"/ { print; next } /^"[0-9]+",/ { keep = ($0 !~ /^"2[0-6]",/) } keep' \
        "$PAGE" >"$BATS_TEST_TMPDIR/no-tree.csv"
    run awk -v file=reduction_interleaved.cu -f "$WORKBOOK_DIR/common/tools/ncu_csv.awk" -f "$WORKBOOK_DIR/common/tools/ncu_source.awk" \
        "$BATS_TEST_TMPDIR/no-tree.csv"
    assert_line --regexp $'^line\t27\t.*\tmem_req=16452\tmem_busy=16452\t.*\tmem_instr=2\t'
    refute_line --regexp $'^line\t2[0-6]\t'
    run "$EXPLAIN" --solution --page "$BATS_TEST_TMPDIR/no-tree.csv" --raw "$RAW" 04
    assert_success
    assert_output --partial "No line of reduction_interleaved.cu shows"
}

@test "--brief gives at most N lines, one each, for the grader's messages" {
    pages 03-transposed-tile
    run --separate-stderr "$EXPLAIN" --brief 2 --page "$PAGE" --raw "$RAW" 03
    assert_success
    assert_equal "${#lines[@]}" 2
    assert_line --index 0 --regexp '^  tiled_matmul\.cu:36: shared-memory bank conflicts, 5\.7x the wavefronts needed, up to 32-way: sum \+= a_tile\[ty\]\[k\] \* b_tile\[tx\]\[k\];'
    assert_line --index 1 --regexp '^  tiled_matmul\.cu:32: shared-memory bank conflicts'
    run "$EXPLAIN" --brief 1 --page "$PAGE" --raw "$RAW" 03
    assert_equal "${#lines[@]}" 1
    # Nothing stands out: the lines behind the lesson's counter instead.
    pages 02-solution
    run "$EXPLAIN" --solution --brief 2 --page "$PAGE" --raw "$RAW" 02
    assert_output "  register_temp.cu:21: 100% of the global store requests, atomics included: C[row * n + col] = sum;  // one store per element"
}

# A copy of the workbook's scripts with step 03 built by no compiler: its
# program and object are fakes, and so is ncu, which serves the recorded
# pages and keeps its arguments in $W/ncu.args.
fake_profiler() {
    W=$BATS_TEST_TMPDIR/wb
    mkdir -p "$W/03-tiled-matmul/build" "$W/tools"
    cp -r "$WORKBOOK_DIR/common" "$WORKBOOK_DIR/steps.conf" "$W/"
    printf '#!/usr/bin/env bash\nexit "${FAKE_PROGRAM_STATUS:-0}"\n' >"$W/03-tiled-matmul/tiled_matmul"
    printf 'template <int T> void matmul_tiled(const float *, const float *, float *, int) {}\n
        template void matmul_tiled<32>(const float *, const float *, float *, int);\n
        void run_tiled(int) {}\n' | g++ -x c++ -c -o "$W/03-tiled-matmul/build/tiled_matmul.o" - ||
        skip "no g++ to build a fake object"
    pages 03-transposed-tile
    cat >"$W/tools/ncu" <<SCRIPT
#!/usr/bin/env bash
[ "\$1" = --help ] && { echo "\${FAKE_NCU_HELP:---print-source arg  sass ptx cuda cuda,sass}"; exit 0; }
[ "\$1" = --version ] && { echo "Version 2099.1.0"; exit 0; }
if [ "\$1" = --import ]; then
    case "\$*" in *"--page source"*) cat "$PAGE" ;; *"--page raw"*) cat "$RAW" ;; esac
    exit 0
fi
echo "\$*" >"$W/ncu.args"
printf '%b' "\${FAKE_NCU_SAYS:-}"
[ "\${FAKE_NCU_STATUS:-0}" = 0 ] || exit "\$FAKE_NCU_STATUS"
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && touch "\$2.ncu-rep"; shift; done
exit "\${FAKE_PROGRAM_END:-0}"  # ncu ends as the program it ran did
SCRIPT
    chmod +x "$W/tools/ncu" "$W/03-tiled-matmul/tiled_matmul"
    export EXPLAIN_NCU=$W/tools/ncu
}

@test "a profiled run: ncu gets the learner's kernels and the clocks as they are, and its pages are read" {
    fake_profiler
    run --separate-stderr "$W/common/tools/explain.sh" --keep "$BATS_TEST_TMPDIR/kept" 03
    assert_success
    assert_line --index 0 --partial "explain: step 03, tiled_matmul.cu (yours): 2 launches of matmul_tiled, profiled in ./tiled_matmul --check -n 256 -b 32"
    assert_line "tiled_matmul.cu:36: shared-memory bank conflicts"
    args=$(cat "$W/ncu.args")
    [[ $args == *"--clock-control none"* ]] || fail "$args"
    [[ $args == *"--section SourceCounters"* ]] || fail "$args"
    [[ $args == *"regex:^(.*::)?(matmul_tiled|run_tiled)([<(].*)?\$"* ]] || fail "$args"
    [[ $args == *"/03-tiled-matmul/tiled_matmul --check -n 256 -b 32" ]] || fail "$args"
    cmp "$BATS_TEST_TMPDIR/kept/page.csv" "$PAGE"
    # Another run's options.
    run "$W/common/tools/explain.sh" --run "-n 512 -b 16" 03
    assert_success
    [[ $(cat "$W/ncu.args") == *"tiled_matmul -n 512 -b 16" ]] || fail "$(cat "$W/ncu.args")"
    # A kernel that gives wrong results is explained all the same, with a note.
    FAKE_PROGRAM_END=1 run --separate-stderr "$W/common/tools/explain.sh" 03
    assert_success
    assert_line "tiled_matmul.cu:36: shared-memory bank conflicts"
    [[ $stderr == *"ended with exit 1 (1: wrong results)"* ]] || fail "$stderr"
}

@test "explain.sh says why it cannot profile, with the fix, and a distinct exit status for each reason" {
    fake_profiler
    FAKE_NCU_SAYS="==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters\n" \
        FAKE_NCU_STATUS=1 run --separate-stderr "$W/common/tools/explain.sh" 03
    assert_equal "$status" 4
    [[ $stderr == *"ERR_NVGPUCTRPERM"*"NVreg_RestrictProfilingToAdminUsers=0"* ]] || fail "$stderr"
    FAKE_PROGRAM_STATUS=77 run --separate-stderr "$W/common/tools/explain.sh" 03
    assert_equal "$status" 77
    [[ $stderr == *"no usable CUDA device"* ]] || fail "$stderr"
    FAKE_NCU_HELP="--print-source arg  sass" run --separate-stderr "$W/common/tools/explain.sh" 03
    assert_equal "$status" 5
    [[ $stderr == *"2099.1.0"*"cuda,sass"* ]] || fail "$stderr"
    EXPLAIN_NCU=$W/no/ncu run --separate-stderr "$W/common/tools/explain.sh" 03
    assert_equal "$status" 3
    FAKE_NCU_SAYS="==WARNING== No kernels were profiled.\n" FAKE_NCU_STATUS=1 run --separate-stderr "$W/common/tools/explain.sh" 03
    assert_equal "$status" 1
    [[ $stderr == *"ncu saw no launch of a kernel of tiled_matmul.cu"* ]] || fail "$stderr"
    rm "$W/03-tiled-matmul/tiled_matmul"
    run --separate-stderr "$W/common/tools/explain.sh" 03
    assert_equal "$status" 1
    [[ $stderr == *"is not built"* ]] || fail "$stderr"
}

# use_grader STEP PROGRAM: the grader's library for a real step, its
# program a script in a fake workbook that prints $FAKE_OUTPUT (as
# tests/grading-helpers.bash does): here the records of a correct timed
# run, 0.27x the starting kernel.
use_grader() {
    STEP=$1
    source "$WORKBOOK_DIR/grading/lib.bash"
    WORKBOOK_DIR=$BATS_TEST_TMPDIR/workbook
    mkdir -p "$WORKBOOK_DIR/$STEP"
    printf 'print-program:\n\t@echo %s\nprint-sanitize-args:\n\t@echo --check -n 1 -b 32\n' "$2" >"$WORKBOOK_DIR/$STEP/Makefile"
    # Its records go to the file --records names.
    printf '#!/usr/bin/env bash\nwhile [ $# -gt 0 ]; do [ "$1" = --records ] && exec >"$2"; shift; done\nprintf "%%b" "$FAKE_OUTPUT"\n' \
        >"$WORKBOOK_DIR/$STEP/$2"
    chmod +x "$WORKBOOK_DIR/$STEP/$2"
    GRADE_RESULTS=$BATS_TEST_TMPDIR/results
    GRADE_THRESHOLDS=$BATS_TEST_TMPDIR/thresholds.conf
    printf '%s x_start 1.15\n' "${STEP%%-*}" >"$GRADE_THRESHOLDS"
    export FAKE_OUTPUT
    FAKE_OUTPUT=$(printf 'device\\tstep=%s\\tname=Fake GPU\\tcc=9.0\\n' "$STEP"
        printf 'time\\tstep=%s\\tid=mine\\trole=yours\\tx_start=0.2700\\tpct_ceiling=5.00\\n' "$STEP"
        printf 'summary\\tstep=%s\\tresult=correct\\n' "$STEP")
}

@test "a correct but slow kernel's speed test ends with the lines that make it slow" {
    use_grader 03-tiled-matmul tiled_matmul
    pages 03-transposed-tile
    GRADE_EXPLAIN_PAGES="$PAGE $RAW"
    run grade_check_timed  # the timed run, whose records the speed test reads
    assert_success
    run grade_speed
    assert_failure
    assert_output --partial "0.27x faster than the starting kernel; at least 1.15x is required"
    assert_output --partial "Where, in one profiled run (make explain EX=03 shows more):"
    assert_output --partial "  tiled_matmul.cu:36: shared-memory bank conflicts, 5.7x the wavefronts needed, up to 32-way: sum += a_tile[ty][k] * b_tile[tx][k];"
    assert_output --partial "  tiled_matmul.cu:32: shared-memory bank conflicts"
    # Where it cannot profile (here: a page that is not one), or is told not
    # to, the command that shows them instead.
    GRADE_EXPLAIN_PAGES="/no/such/page /no/such/raw"
    run grade_speed
    assert_failure
    assert_output --partial "(where in your file: make explain EX=03)"
    refute_output --partial "Where, in one profiled run"
    GRADE_EXPLAIN=0 GRADE_SOLUTIONS=1
    run explain_where
    assert_success
    assert_output $'\n(where in your file: make explain EX=03 SOLUTIONS=1)'
}

@test "the lesson test's failure ends with the culprit line" {
    use_grader 04-reduction-interleaved reduction_interleaved
    # ncu's raw page for the lesson test (as tests/grading-helpers.bash fakes
    # it): the mask tree handed in, as many warp-level shared loads and
    # stores (95 and 55 per block) and global ones (the input's 8 loads, its
    # partial sum) as the given kernel; and the learner's kernel, as the table of its module
    # (build/PROGRAM.kernels, common/tools/kernels.awk) names it.
    mkdir -p "$BATS_TEST_TMPDIR/tools"
    cat >"$BATS_TEST_TMPDIR/tools/ncu" <<'SCRIPT'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do [ "$1" = --log-file ] && { printf '%b' "$FAKE_CSV" >"$2"; shift; }; shift; done
SCRIPT
    mkdir -p "$WORKBOOK_DIR/$STEP/build"
    printf 'kernel\tname=_Z26reduce_interleaved_stridedPKiPij\n' >"$WORKBOOK_DIR/$STEP/build/reduction_interleaved.kernels"
    chmod +x "$BATS_TEST_TMPDIR/tools"/*
    PATH=$BATS_TEST_TMPDIR/tools:$PATH
    GRADE_NCU=$BATS_TEST_TMPDIR/tools/ncu
    export FAKE_CSV
    FAKE_CSV=$(printf '"ID","Kernel Name","launch__grid_size","smsp__sass_inst_executed_op_shared_ld.sum","smsp__sass_inst_executed_op_shared_st.sum","smsp__sass_inst_executed_op_global_ld.sum","smsp__sass_inst_executed_op_global_st.sum"\n"","","","","","",""\n'
        printf '"0","_Z28reduce_interleaved_divergentPKiPij","4,096","389,120","225,280","32,768","4,096"\n"1","_Z26reduce_interleaved_stridedPKiPij","4,096","389,120","225,280","32,768","4,096"\n')
    printf '04 lesson 2.0\n' >>"$GRADE_THRESHOLDS"
    record check-256 pass
    pages 04-mask-tree
    GRADE_EXPLAIN_PAGES="$PAGE $RAW"
    run grade_lesson
    assert_failure
    assert_output --partial "reduce_interleaved_strided: 651264 $(step_field 04 lesson_what) over its 1 launches"
    assert_output --partial "(see it yourself: make profile EX=04)"$'\n'"Where, in one profiled run (make explain EX=04 shows more):"
    assert_line --index $((${#lines[@]} - 1)) --partial "  reduction_interleaved.cu:22: divergent warps, 5.4 of 32 threads busy per warp: partial[tid] += partial[tid + s];"
}
