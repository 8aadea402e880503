#!/usr/bin/env bats
# make bench's outputs, made again from the records of a real run on an H100
# (tests/fixtures/bench-h100.log): the table, the CSV, the plot (where gnuplot
# is installed), and the figures written into the READMEs.

bats_require_minimum_version 1.5.0
load helpers

setup() {
    export BENCH_RESULTS=$BATS_TEST_TMPDIR/results
    FIXTURE=$WORKBOOK_DIR/tests/fixtures/bench-h100.log
}

@test "the progression table, from the records: every step, its ceiling, its speedups" {
    run "$WORKBOOK_DIR/common/tools/bench.sh" --from "$FIXTURE"
    assert_success
    assert_line --partial "Progression on NVIDIA H100 80GB HBM3"
    assert_line --regexp '^  cuBLAS SGEMM, fp32 \[ceiling\] +0\.3439 +49948\.4 +100\.0%'
    for step in 01 02 03 04 05 06 07 08; do
        assert_line --regexp "^  $step "
    done
    assert_line --regexp '^  08 CUB DeviceReduce::Sum \[library\] +0\.0928 +2893\.6 +94\.8% +1\.32x +7\.07x$'
    # bench.csv: a header and one row per kernel timed (35 in this run)
    assert_equal "$(wc -l <"$BENCH_RESULTS/bench.csv")" 36
    # progression.tsv: the table's rows
    assert_equal "$(awk -F'\t' 'NR > 1 { n++ } END { print n }' "$BENCH_RESULTS/progression.tsv")" 15
}

@test "the plot shows the GPU and the measured rates, or says why there is none" {
    run "$WORKBOOK_DIR/common/tools/bench.sh" --from "$FIXTURE"
    assert_success
    if ! command -v gnuplot >/dev/null; then
        assert_output --partial "no plot: gnuplot is not installed"
        skip "gnuplot is not installed here"
    fi
    grep -q "NVIDIA H100 80GB HBM3" "$BENCH_RESULTS/bench.svg"
    grep -q ">2894<" "$BENCH_RESULTS/bench.svg"   # CUB's GB/s, on its bar
    grep -q ">9201<" "$BENCH_RESULTS/bench.svg"   # step 03's GFLOP/s
}

@test "make readme-figures writes each step's table between its markers, and nothing else changes" {
    copy=$BATS_TEST_TMPDIR/wb
    mkdir -p "$copy"
    cp -r "$WORKBOOK_DIR/common" "$copy/"
    cp "$WORKBOOK_DIR/README.md" "$copy/"
    for dir in "${STEP_DIRS[@]}"; do
        mkdir -p "$copy/$(basename "$dir")"
        # the README with its figures emptied
        awk '/^<!-- bench:/ { print; skip = 1; next } /^<!-- \/bench -->$/ { skip = 0 } !skip' "$dir/README.md" \
            >"$copy/$(basename "$dir")/README.md"
    done
    run "$WORKBOOK_DIR/common/tools/readme-figures.sh" "$FIXTURE" "$copy"
    assert_success
    run grep -A4 '^<!-- bench:05 -->$' "$copy/05-reduction-sequential/README.md"
    assert_line --index 1 --partial 'Measured by `make bench` on NVIDIA H100 80GB HBM3 (CUDA 13.0), 2026-11-22: n = 67108864 ints, block 256'
    assert_line --index 2 '| kernel | ms | GB/s | % of copy | x start | x first |'
    run grep -c '^| sequential addressing \[yours\] | 0.3152 |' "$copy/05-reduction-sequential/README.md"
    assert_output 1
    # outside the markers, every README is as it was
    for dir in "${STEP_DIRS[@]}"; do
        diff <(awk '/^<!-- bench:/ { skip = 1 } /^<!-- \/bench -->$/ { skip = 0; next } !skip' "$dir/README.md") \
             <(awk '/^<!-- bench:/ { skip = 1 } /^<!-- \/bench -->$/ { skip = 0; next } !skip' "$copy/$(basename "$dir")/README.md")
    done
    grep -q '^  08 cascaded, grid sized to the GPU (block 256) ' "$copy/README.md"
}

@test "a log of one step writes that step's table, leaves the progression and the other steps as they were, and again changes nothing" {
    copy=$BATS_TEST_TMPDIR/wb
    mkdir -p "$copy"
    cp -r "$WORKBOOK_DIR/common" "$WORKBOOK_DIR/README.md" "$copy/"
    for dir in "${STEP_DIRS[@]}"; do
        mkdir -p "$copy/$(basename "$dir")"
        cp "$dir/README.md" "$copy/$(basename "$dir")/"
    done
    [ -d "$copy/03-tiled-matmul" ] || skip "no step 03 in this copy (a handout of an earlier step)"
    # What bench.sh 03-tiled-matmul writes: the run, then step 03's records only.
    awk -F'\t' '$1 == "run" || $2 == "step=03-tiled-matmul"' "$FIXTURE" >"$BATS_TEST_TMPDIR/bench.log"
    run "$WORKBOOK_DIR/common/tools/readme-figures.sh" "$BATS_TEST_TMPDIR/bench.log" "$copy"
    assert_success
    # The steps of this copy (a handout holds fewer) but 03 go untimed.
    local untimed="" dir
    for dir in "${STEP_DIRS[@]}"; do
        [ "$(basename "$dir")" = 03-tiled-matmul ] || untimed+=" $(basename "$dir" | cut -c1-2)"
    done
    assert_output --partial "times no step$untimed: the progression in $copy/README.md stays as it is"
    # Step 03's table is the log's ...
    run sed -n '/^<!-- bench:03 -->$/,/^<!-- \/bench -->$/p' "$copy/03-tiled-matmul/README.md"
    assert_line --partial 'Measured by `make bench` on NVIDIA H100 80GB HBM3 (CUDA 13.0), 2026-11-22: N = 2048'
    assert_line --regexp '^\| shared-memory tiles \[yours\] \| '
    # ... and outside it nothing changed: not the progression (no track start
    # made of step 03's, no step left out), nor another step's table.
    cmp "$WORKBOOK_DIR/README.md" "$copy/README.md"
    for dir in "${STEP_DIRS[@]}"; do
        [ "$(basename "$dir")" = 03-tiled-matmul ] && continue
        cmp "$dir/README.md" "$copy/$(basename "$dir")/README.md"
    done
    diff <(sed '/^<!-- bench:03 -->$/,/^<!-- \/bench -->$/d' "$WORKBOOK_DIR/03-tiled-matmul/README.md") \
         <(sed '/^<!-- bench:03 -->$/,/^<!-- \/bench -->$/d' "$copy/03-tiled-matmul/README.md")
    # Run again on the same log: every README stays as it is.
    cp -r "$copy" "$BATS_TEST_TMPDIR/before"
    run "$WORKBOOK_DIR/common/tools/readme-figures.sh" "$BATS_TEST_TMPDIR/bench.log" "$copy"
    assert_success
    diff -r "$BATS_TEST_TMPDIR/before" "$copy"
}

# A copy of the harness's scripts and one fake step whose solution exits with $FAKE_STATUS.
fake_bench_workbook() {
    W=$BATS_TEST_TMPDIR/wb
    mkdir -p "$W/04-fake"
    cp -r "$WORKBOOK_DIR/common" "$W/"
    printf '04-fake track=reduction program=prog\n' >"$W/steps.conf"
    printf '#!/usr/bin/env bash\necho "prog: skipped: no usable CUDA device" >&2\nexit "${FAKE_STATUS:-77}"\n' >"$W/04-fake/prog_solution"
    chmod +x "$W/04-fake/prog_solution"
}

@test "a bench run that fails, or finds no GPU, keeps the last good log" {
    fake_bench_workbook
    mkdir -p "$BENCH_RESULTS"
    cp "$FIXTURE" "$BENCH_RESULTS/bench.log"
    run "$W/common/tools/bench.sh" 04-fake
    assert_failure 77
    cmp "$FIXTURE" "$BENCH_RESULTS/bench.log"
    assert_output --partial "still holds the last good run's"
    assert [ ! -e "$BENCH_RESULTS/bench-failed.log" ]  # no GPU is no failure
    FAKE_STATUS=1 run "$W/common/tools/bench.sh" 04-fake
    assert_failure 1
    cmp "$FIXTURE" "$BENCH_RESULTS/bench.log"
    assert [ -f "$BENCH_RESULTS/bench-failed.log" ]
}

@test "readme-figures refuses a log without figures and changes no README" {
    copy=$BATS_TEST_TMPDIR/wb
    mkdir -p "$copy/05-reduction-sequential"
    cp -r "$WORKBOOK_DIR/common" "$copy/"
    cp "$WORKBOOK_DIR/README.md" "$copy/"
    cp "$WORKBOOK_DIR/05-reduction-sequential/README.md" "$copy/05-reduction-sequential/"
    printf 'run\tdate=2026-11-22\n' >"$BATS_TEST_TMPDIR/empty.log"
    run "$WORKBOOK_DIR/common/tools/readme-figures.sh" "$BATS_TEST_TMPDIR/empty.log" "$copy"
    assert_failure 1
    assert_output --partial "holds no timed kernel"
    cmp "$WORKBOOK_DIR/README.md" "$copy/README.md"
    cmp "$WORKBOOK_DIR/05-reduction-sequential/README.md" "$copy/05-reduction-sequential/README.md"
}

@test "without a GPU, make bench and make calibrate say so in one line at once, and build nothing" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy: make bench and calibrate have nothing to time (tests/handout.bats)"
    W=$BATS_TEST_TMPDIR/wb
    mkdir -p "$W"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude='./*/build' --exclude=./common/build \
        --exclude=./common/micro/build --exclude='./.tools' -cf - .) | tar -xf - -C "$W"
    local target started
    for target in bench calibrate; do
        started=$SECONDS
        # CUDA_VISIBLE_DEVICES= hides any GPU this machine has.
        run --separate-stderr timeout 20 env CUDA_VISIBLE_DEVICES= make -s -C "$W" "$target"
        [ $((SECONDS - started)) -lt 10 ] || fail "make $target took $((SECONDS - started)) s to say there is no GPU"
        assert_equal "$status" 0  # a skip, as make sanitize, profile and explain skip
        assert_equal "$output" ""
        assert_equal "${stderr_lines[0]}" "make $target: skipped: no usable CUDA device (CUDA_VISIBLE_DEVICES='' hides every GPU)"
        run find "$W" -name build -type d
        assert_output ""
        assert [ ! -e "$W/results/bench-new.log" ]
    done
}
