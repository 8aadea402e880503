#!/usr/bin/env bats
# Step 08 on floats (solutions/08-cascaded/beyond/float_sum.cu, make
# float-sum): it builds, it refuses bad options with a message and status 2,
# its host-side checks (distinct results, spread, error, the bound) pass their
# self-test, it skips with 77 where there is no GPU, and make readme-figures
# copies its table into step 08's README. Needs no GPU.

load helpers

setup_file() {
    [ -f "$WORKBOOK_DIR/solutions/08-cascaded/beyond/float_sum.cu" ] || return 0
    export FLOAT_SUM_BIN=$BATS_FILE_TMPDIR/float_sum
    nvcc -O1 -std=c++17 -gencode arch=compute_75,code=sm_75 -Wno-deprecated-gpu-targets \
        -I"$WORKBOOK_DIR/common/tracks/reduction" -o "$FLOAT_SUM_BIN" \
        "$WORKBOOK_DIR/solutions/08-cascaded/beyond/float_sum.cu"
}

setup() {
    [ -f "$WORKBOOK_DIR/solutions/08-cascaded/beyond/float_sum.cu" ] || skip "no reference solutions in this copy"
}

@test "float_sum: the host's checks pass their self-test" {
    run "$FLOAT_SUM_BIN" --self-test
    assert_success
    assert_output 'float_sum: self-test: ok'
}

@test "float_sum: a bad option, a value out of range or a missing value exits 2 and says which" {
    local -a bad=("-n 0" "-n 2^29" "-n 268435457" "-n 12x" "-n -5" "-r 0" "-r 10001" "-k" "-k 0" "-x" "--self-test -n 4")
    local args
    for args in "${bad[@]}"; do
        run $FLOAT_SUM_BIN $args
        assert_failure 2
        assert_output --partial 'float_sum: '
    done
    run "$FLOAT_SUM_BIN" -n 2^28 -k 1
    refute [ "$status" -eq 2 ]
}

@test "float_sum: --help exits 0 and shows the options" {
    run "$FLOAT_SUM_BIN" --help
    assert_success
    assert_line --partial 'usage: float_sum'
}

@test "float_sum: without a GPU it skips with 77" {
    command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && skip "a GPU is here"
    run "$FLOAT_SUM_BIN" -n 1000
    assert_failure 77
    assert_output --partial 'skipped: no usable CUDA device'
}

@test "make readme-figures copies the float sums into step 08's README, and nothing else there" {
    local copy=$BATS_TEST_TMPDIR/workbook
    mkdir -p "$copy" "$BATS_TEST_TMPDIR/results"
    cp -r "$WORKBOOK_DIR"/[0-9][0-9]-* "$WORKBOOK_DIR/README.md" "$WORKBOOK_DIR/common" "$copy/"
    cp "$WORKBOOK_DIR/tests/fixtures/bench-h100.log" "$BATS_TEST_TMPDIR/results/bench.log"
    printf 'float_sum on a fake GPU\nfloat, one atomic per block   9.8765\n' >"$BATS_TEST_TMPDIR/results/float-sum.txt"
    run "$copy/common/tools/readme-figures.sh" "$BATS_TEST_TMPDIR/results/bench.log" "$copy"
    assert_success
    run sed -n '/^<!-- float:sum -->$/,/^<!-- \/float -->$/p' "$copy/08-cascaded/README.md"
    assert_line 'float_sum on a fake GPU'
    assert_line 'float, one atomic per block   9.8765'
    refute_line --partial 'filled by make readme-figures'
    diff <(sed '/^<!-- float:sum -->$/,/^<!-- \/float -->$/d; /^<!-- bench:08 -->$/,/^<!-- \/bench -->$/d' \
        "$WORKBOOK_DIR/08-cascaded/README.md") \
        <(sed '/^<!-- float:sum -->$/,/^<!-- \/float -->$/d; /^<!-- bench:08 -->$/,/^<!-- \/bench -->$/d' \
        "$copy/08-cascaded/README.md")
}
