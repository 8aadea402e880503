#!/usr/bin/env bats
# tests/run: about 17 s, 57 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# Every program's command line: --help, bad options (exit 2, one line, before
# any CUDA call), and no usable GPU (exit 77, one line). Runs with or without
# a GPU: CUDA_VISIBLE_DEVICES="" hides any GPU from the program.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
    BUILT_PROGRAMS=$(all_programs)
    export BUILT_PROGRAMS
}

setup() {
    [ -n "$BUILT_PROGRAMS" ] || skip "nothing built: run make first"
}

@test "every program prints its usage for --help and exits 0" {
    while read -r program; do
        run "$program" --help
        assert_success
        assert_line --partial "usage: $(basename "$program")"
        assert_line --partial "exit status: 0 correct, 1 wrong answer, 2 bad option, 3 CUDA error, 77 no usable GPU"
    done < <(all_programs)
}

# Options that every program must refuse: unknown, malformed, out of range, missing values.
bad_options=(
    "--bogus" "-x" "-n" "-n 0" "-n abc" "-n -5" "-n 1,,2" "-n 1," "-n 2^99" "-n 7 -z" "-n 99999999999" "-n 2^3-9" "-n 2^20+" "-n 2^20+x" "-n 2^4*2"
    "-b" "-b 0" "-b abc" "-b 100000" "-r 0" "-r many" "-s x" "stray" "--watch" "--watch -1" "--watch x" "--check --watch 3"
    "--watched-only" "--check --watched-only" "--watch 3 --watched-only=1"
    "--census" "--census f" "--exact" "--exact=1" "-n 5 --exact" "--exact-at 5:32" "--check --exact-at"
    "--check --exact-at 5" "--check --exact-at 5:32,64" "--check --exact-at 5,6:32" "--check --exact-at 0:32" "--check --exact-at 5:0"
    "--check --exact-at :32" "--check --exact --exact-at 5:32" "--check --census f --exact-at 5:32" "--gpu-lock" "--gpu-lock /no-such-lock" "--gpu-lock /"
    "--time-limit" "--time-limit 0" "--time-limit x" "--time-limit 100000001" "--gpu-deadline 5" "--gpu-deadline"
    "--only" "--only bogus" "--only ceiling" "--only yours,,beyond" "-o Yours"
)

@test "every program refuses bad options with exit 2 and one line on stderr, before touching the GPU" {
    # Every bad option for the first step's exercise of each track: the
    # options are read by the harness and its track's code, which every step
    # of the track shares (common/core/harness.cu, common/tracks/TRACK). Each
    # other program, a step's own main.cu over that code, gets a few: a matmul
    # program takes 150 ms to start (cuBLAS loading), and all of them on all
    # 16 programs took half a minute, in each of CI's six runs of this file.
    # Each run straight into two files, not through bats' run.
    local out=$BATS_TEST_TMPDIR/out err=$BATS_TEST_TMPDIR/err code lines program args track
    local -a options
    local -A whole=()
    while read -r program; do
        track=$(source "$WORKBOOK_DIR/common/tools/manifest.bash" && step_field "$(basename "$(dirname "$program")")" track)
        [ -n "$track" ] || fail "steps.conf gives $program's step no track"
        options=("--bogus" "-n 2^20+x" "-b 0" "--only bogus")
        if [[ $program != *_solution ]] && [ -z "${whole[$track]:-}" ]; then
            options=("${bad_options[@]}")
            whole[$track]=$program
        fi
        for args in "${options[@]}"; do
            # No visible GPU: a program that reached for CUDA before checking
            # its options would answer 77 instead of 2.
            code=0
            # shellcheck disable=SC2086
            CUDA_VISIBLE_DEVICES= "$program" $args >"$out" 2>"$err" </dev/null || code=$?
            lines=$(grep -c "" "$err")
            [ "$code" -eq 2 ] || fail "$(basename "$program") $args: exit $code, expected 2 (stderr: $(cat "$err"))"
            [ ! -s "$out" ] || fail "$(basename "$program") $args: wrote to stdout: $(cat "$out")"
            [ "$lines" -eq 1 ] || fail "$(basename "$program") $args: $lines lines on stderr: $(cat "$err")"
            [[ $(head -c 200 "$err") == "$(basename "$program"): "* ]] || fail "$(basename "$program") $args: message does not name the program: $(cat "$err")"
        done
    done < <(all_programs)
    # (Each track's first exercise, where its step is built: the whole list.)
    [ ${#whole[@]} -ge 1 ] || fail "no exercise was given every bad option"
}

@test "a long option given a value it does not take is named as it was typed, not as an unknown short one" {
    local program
    program=$(all_programs | grep -v _solution | head -n 1)
    for args in --check=1 --machine=yes --help=1; do
        run env CUDA_VISIBLE_DEVICES= "$program" "$args"
        assert_failure 2
        assert_output "$(basename "$program"): option '${args%%=*}' takes no value: '$args' (try --help)"
    done
    run env CUDA_VISIBLE_DEVICES= "$program" --bogus=1
    assert_failure 2
    assert_output "$(basename "$program"): unknown option '--bogus=1' (try --help)"
}

@test "--only runs the kernels of the roles it names; the kernels past the lesson are the solution's" {
    local exercise=$WORKBOOK_DIR/03-tiled-matmul/tiled_matmul
    [ -x "$exercise" ] || skip "03 is not built"
    run --separate-stderr env CUDA_VISIBLE_DEVICES= "$exercise" --only beyond
    assert_failure 2
    assert_equal "$stderr" "tiled_matmul: --only leaves no kernel to run here (the kernels past the lesson are in the reference solution only) (try --help)"
    # Roles that the exercise has pass the options, and reach for the GPU.
    run env CUDA_VISIBLE_DEVICES= "$exercise" --only yours,start -n 100
    assert_failure 77
    [ -x "${exercise}_solution" ] || skip "the solution of 03 is not built"
    run env CUDA_VISIBLE_DEVICES= "${exercise}_solution" --only beyond -n 8192
    assert_failure 77
}

@test "each track refuses the block sizes it cannot run" {
    local program
    for program in 04-reduction-interleaved/reduction_interleaved 03-tiled-matmul/tiled_matmul 01-naive-matmul/naive_matmul; do
        [ -x "$WORKBOOK_DIR/$program" ] || skip "$(dirname "$program") is not built"
    done
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved" -b 48
    assert_failure 2
    assert_output --partial "a power of two, 32 to 1024"
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/03-tiled-matmul/tiled_matmul" -b 32x16
    assert_failure 2
    assert_output --partial "TxT with T = 8, 16 or 32"
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/01-naive-matmul/naive_matmul" -b 64x32
    assert_failure 2
    assert_output --partial "at most 1024 threads"
}

@test "a block with no thread in a dimension, or a negative one, is refused for what it is, not for a limit" {
    # Without a GPU: the options are checked before anything touches it.
    local matmul=$WORKBOOK_DIR/01-naive-matmul/naive_matmul reduction=$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved
    local missing
    missing=$(for p in "$matmul" "$reduction"; do [ -x "$p" ] || basename "$(dirname "$p")"; done | paste -sd' ' -)
    [ -z "$missing" ] || skip "not built: $missing (this test needs 01 and 04)"
    for block in 0x0 0x32 32x0 0; do
        run --separate-stderr env CUDA_VISIBLE_DEVICES= "$matmul" -b "$block"
        assert_failure 2
        assert_equal "$stderr" "naive_matmul: bad block '$block': a block needs at least one thread in each dimension (try --help)"
    done
    run --separate-stderr env CUDA_VISIBLE_DEVICES= "$reduction" --block 0
    assert_failure 2
    assert_equal "$stderr" "reduction_interleaved: bad block '0': a block needs at least one thread (try --help)"
    for block in -32 32x-1 -0x4; do
        run --separate-stderr env CUDA_VISIBLE_DEVICES= "$matmul" -b "$block"
        assert_failure 2
        assert_equal "$stderr" "naive_matmul: bad block '$block': expected XxY such as 32x8, or X (try --help)"
    done
    run --separate-stderr env CUDA_VISIBLE_DEVICES= "$reduction" -b -256
    assert_failure 2
    assert_equal "$stderr" "reduction_interleaved: bad block '-256': expected a number such as 256 (try --help)"
}

@test "every program exits 77 with one line when no GPU can be used" {
    while read -r program; do
        run --separate-stderr env CUDA_VISIBLE_DEVICES= "$program" --check -n 1
        [ "$status" -eq 77 ] || fail "$(basename "$program"): exit $status, expected 77 ($stderr)"
        [ "${#stderr_lines[@]}" -eq 1 ] || fail "$(basename "$program"): ${#stderr_lines[@]} lines on stderr: $stderr"
        assert_equal "${stderr_lines[0]%% (*}" "$(basename "$program"): skipped: no usable CUDA device"
    done < <(all_programs)
}

@test "every source compiles without a warning" {
    slow_test "every source compiled again, one at a time"
    # Each file on its own, for one architecture, into a scratch folder: the
    # build folders are left alone.
    local nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
    local includes=(-I"$WORKBOOK_DIR/common/core")
    for dir in "$WORKBOOK_DIR"/common/tracks/*/; do includes+=(-I"${dir%/}"); done
    for source in "$WORKBOOK_DIR"/common/core/*.cu "$WORKBOOK_DIR"/common/tracks/*/*.cu "$WORKBOOK_DIR"/[0-9][0-9]-*/*.cu "$WORKBOOK_DIR"/solutions/*/*.cu \
        "$WORKBOOK_DIR"/solutions/*/*/*.cu; do
        [ -e "$source" ] || continue
        run "$nvcc" -std=c++17 -O3 -arch=sm_90 -Xcompiler -Wall ${CCBIN:+-ccbin "$CCBIN"} "${includes[@]}" -c -o "$BATS_TEST_TMPDIR/x.o" "$source"
        [ "$status" -eq 0 ] || fail "$source does not compile: $output"
        [[ $output != *warning* ]] || fail "$source: $output"
    done
}

@test "sizes may be written 2^k+c and 2^k-c, and mean what they say" {
    local program=$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved
    run env CUDA_VISIBLE_DEVICES= "$program" --check -n 2^24+1,2^20-1,2^0+0
    assert_failure 77
    # Out of range after the offset: refused with the range, not as a bad number.
    run env CUDA_VISIBLE_DEVICES= "$program" -n 2^30+1
    assert_failure 2
    assert_output --partial "out of range"
    run env CUDA_VISIBLE_DEVICES= "$program" -n 2^3-8
    assert_failure 2
    assert_output --partial "out of range"
}

@test "--gpu-lock waits for a run alone to end before the program starts, and --time-limit does not count the wait" {
    local program lock=$BATS_TEST_TMPDIR/gpu.lock started
    program=$(all_programs | grep -v _solution | head -n 1)
    : >"$lock"
    CUDA_VISIBLE_DEVICES= "$program" -n 5 >/dev/null 2>&1 || true
    flock --exclusive "$lock" sh -c 'touch "$1"; sleep 4' _ "$BATS_TEST_TMPDIR/alone" &
    while [ ! -e "$BATS_TEST_TMPDIR/alone" ]; do sleep 0.05; done
    started=$EPOCHREALTIME
    # (No GPU here: once it has the lock, it ends at its first CUDA call.
    # A program's first start from a cold disk took 1.2-2 s on two cores,
    # where it takes 0.13 s once read: it is started once before, and given
    # 2 s, half the wait.)
    run env CUDA_VISIBLE_DEVICES= "$program" --gpu-lock "$lock" --time-limit 2 -n 5
    wait
    assert_failure 77
    assert_equal "$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { print (b - a >= 3) }')" 1
    # ... until --gpu-deadline at most: then it is not graded here (77).
    flock --exclusive "$lock" sh -c 'touch "$1"; sleep 4' _ "$BATS_TEST_TMPDIR/alone-long" &
    while [ ! -e "$BATS_TEST_TMPDIR/alone-long" ]; do sleep 0.05; done
    started=$EPOCHREALTIME
    run env CUDA_VISIBLE_DEVICES= "$program" --gpu-lock "$lock" --gpu-deadline "$(($(date +%s) + 1))" -n 5
    assert_failure 77
    assert_output "$(basename "$program"): skipped: the GPU was not free in time (--gpu-deadline): not graded here"
    assert_equal "$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { print (b - a < 3) }')" 1
    wait
}
