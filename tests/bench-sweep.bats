#!/usr/bin/env bats
# make bench-sweep's outputs, made again from the records of a real run on an
# H100 (tests/fixtures/sweep-h100.log): the CSV, the table per step, the plot
# (where gnuplot is installed), the table written into step 03's README; and
# its manners: options, no GPU, a run that fails. Needs no GPU.

load helpers

setup() {
    export BENCH_RESULTS=$BATS_TEST_TMPDIR/results
    FIXTURE=$WORKBOOK_DIR/tests/fixtures/sweep-h100.log
    SWEEP=$WORKBOOK_DIR/common/tools/bench-sweep.sh
}

@test "bench-sweep: --help, and a clear refusal of bad options" {
    run "$SWEEP" --help
    assert_success
    assert_line --partial "bench-sweep.sh: how the kernels past the lesson stand against the ceiling"
    run "$SWEEP" --bogus
    assert_failure 2
    assert_output "bench-sweep: unknown option '--bogus' (try --help)"
    run "$SWEEP" --from
    assert_failure 2
    run "$SWEEP" --from "$BATS_TEST_TMPDIR/missing.log"
    assert_failure 2
    assert_output --partial "no such log"
    run "$SWEEP" --from "$FIXTURE" stray
    assert_failure 2
}

@test "bench-sweep: a row per size, a column per stage, each a share of cuBLAS in the same run" {
    run "$SWEEP" --from "$FIXTURE"
    assert_success
    local sizes stages
    sizes=$(awk -F, '$2 == "03-tiled-matmul" && !seen[$3]++ { print $3 }' <(tail -n +2 "$BENCH_RESULTS/sweep.csv") | tr '\n' ' ')
    assert_equal "$sizes" "256 512 1024 2048 3072 4096 6144 8192 "
    stages=$(awk -F, '$5 == "beyond" && !seen[$4]++ { print $4 }' "$BENCH_RESULTS/sweep.csv" | tr '\n' ' ')
    assert_equal "$stages" "blocked vectorized warptiled double_buffered tuned "
    # One row per kernel and size: the five stages and the ceiling, at 8 sizes.
    assert_equal "$(tail -n +2 "$BENCH_RESULTS/sweep.csv" | wc -l)" 48
    # The table's shares are the records' pct_ceiling, to one decimal.
    local tuned_4096
    tuned_4096=$(awk -F'\t' '$1 == "time" && /\tn=4096\t/ && /\tid=tuned\t/ { for (i = 2; i <= NF; i++) if ($i ~ /^pct_ceiling=/) printf "%.1f%%", substr($i, 13) }' "$FIXTURE")
    assert_regex "$(grep -E '^ +4096 ' "$BENCH_RESULTS/sweep-03.txt")" " ${tuned_4096//./\\.} +[0-9]+$"
    assert_line --regexp "^Measured by .make bench-sweep. on NVIDIA H100 80GB HBM3 \(CUDA 13.0\), 2026-11-22: median of 20 interleaved runs"
    if command -v gnuplot >/dev/null; then
        assert [ -s "$BENCH_RESULTS/sweep-03.svg" ]
        grep -q "double_buffered" "$BENCH_RESULTS/sweep-03.svg"
    fi
}

@test "bench-sweep without a GPU, or with a failing run, keeps the last good files" {
    slow_test "builds for the sweep"
    local program=$WORKBOOK_DIR/03-tiled-matmul/tiled_matmul_solution
    [ -x "$program" ] || skip "the solution of 03 is not built"
    run "$SWEEP" --from "$FIXTURE"
    assert_success
    cp "$BENCH_RESULTS/sweep-03.txt" "$BATS_TEST_TMPDIR/before.txt"
    CUDA_VISIBLE_DEVICES= run "$SWEEP"
    assert_failure 77
    assert_output --partial "bench-sweep: skipped: no usable CUDA device"
    cmp "$FIXTURE" "$BENCH_RESULTS/sweep.log"
    cmp "$BATS_TEST_TMPDIR/before.txt" "$BENCH_RESULTS/sweep-03.txt"
    # A program that refuses its arguments is a failure, not a skip.
    BENCH_ARGS="--bogus" run "$SWEEP"
    assert_failure 1
    assert_output --partial "failed at N = 256"
    cmp "$FIXTURE" "$BENCH_RESULTS/sweep.log"
}

@test "make readme-figures writes the sweep's table into step 03's README, and its plot beside it" {
    local copy=$BATS_TEST_TMPDIR/wb
    mkdir -p "$copy/03-tiled-matmul"
    cp -r "$WORKBOOK_DIR/common" "$copy/"
    cp "$WORKBOOK_DIR/03-tiled-matmul/README.md" "$copy/03-tiled-matmul/"
    run "$SWEEP" --from "$FIXTURE"
    assert_success
    cp "$WORKBOOK_DIR/tests/fixtures/bench-h100.log" "$BENCH_RESULTS/bench.log"
    run "$WORKBOOK_DIR/common/tools/readme-figures.sh" "$BENCH_RESULTS/bench.log" "$copy"
    assert_success
    assert_output --partial "03-tiled-matmul/README.md (sweep)"
    diff <(awk '/^<!-- sweep:03 -->$/ { inside = 1; next } /^<!-- \/sweep -->$/ { inside = 0 } inside' "$copy/03-tiled-matmul/README.md") \
        <(echo '```'; cat "$BENCH_RESULTS/sweep-03.txt"; echo '```')
    if command -v gnuplot >/dev/null; then
        cmp "$BENCH_RESULTS/sweep-03.svg" "$copy/03-tiled-matmul/sweep.svg"
    fi
}
