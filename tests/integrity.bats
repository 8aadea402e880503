#!/usr/bin/env bats
# The integrity test of the learner's file, which needs no GPU: clean on every
# reference solution and every untouched exercise; a finding, with the symbol
# and its line, on the mutants that call a library or forge the records.

load helpers

# The learner's file of a step: the exercise, or with "solution" its solution.
learner_file() {
    local dir=$WORKBOOK_DIR/$1 name
    name=$(make -s -C "$dir" print-program)
    if [ "${2:-}" = solution ]; then
        echo "$WORKBOOK_DIR/solutions/$1/$name.cu"
    else
        echo "$dir/$name.cu"
    fi
}

# mutant_file PATCH: the solution the patch breaks, broken, in the test's folder.
# The mutants patch the reference solutions: a copy handed out without
# solutions/ has none to check.
need_solutions() {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ here: the mutants are patches of the reference solutions"
}

mutant_file() {
    local copy=$BATS_TEST_TMPDIR/$(basename "$1" .patch)
    mkdir -p "$copy"
    cp -r "$WORKBOOK_DIR/solutions" "$copy/"
    (cd "$copy" && patch -s -p1 <"$1") || return 1
    sed -n 's|^+++ b/||p' "$1" | head -n 1 | sed "s|^|$copy/|"
}

@test "integrity: --help, and a clear refusal of no file or a missing one" {
    run "$WORKBOOK_DIR/grading/integrity" --help
    assert_success
    assert_output --partial "allowed-symbols.conf"
    run "$WORKBOOK_DIR/grading/integrity"
    assert_failure 2
    run "$WORKBOOK_DIR/grading/integrity" "$BATS_TEST_TMPDIR/none.cu"
    assert_failure 2
    assert_output --partial "no such file"
}

@test "integrity: every reference solution and every untouched exercise is clean" {
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        for which in exercise solution; do
            file=$(learner_file "$step" "$which")
            [ -f "$file" ] || continue
            run "$WORKBOOK_DIR/grading/integrity" "$file"
            [ "$status" -eq 0 ] || fail "$(printf '%s (%s) is not clean:\n%s' "$step" "$which" "$output")"
        done
    done
}

@test "integrity: a library doing the work fails, naming the call and its line" {
    need_solutions
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/03-library-cublas.patch")
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^cublasSgemm_v2: calls a library that does the work.*\(line [0-9]+: cublasSgemm\('
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/08-library-cub.patch")
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^kernel void cub::.*DeviceReduceKernel.*a kernel your file does not write itself'
    assert_line --regexp '^cudaMalloc: allocates memory'
}

@test "integrity: forged records from a static constructor fail: the output, the exit and the constructor" {
    need_solutions
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/08-forged-records.patch")
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^_exit: ends the program.*\(line [0-9]+: _exit\(0\);\)'
    assert_line --regexp '^puts: prints from the host.*\(line [0-9]+: printf\('
    assert_line --regexp '^\.init_array: 1 function\(s\) that run before or after main.*constructor'
}

@test "integrity: a side stream and a host copy fail; device-side printf stays allowed" {
    need_solutions
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/08-side-stream.patch")
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^cudaStreamCreateWithFlags: streams, events or graphs'
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/06-host-sum.patch")
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^cudaMemcpy: copies memory'
    # A learner's debugging printf inside a kernel is no host call.
    debug=$BATS_TEST_TMPDIR/debug.cu
    sed 's|^    if (tid == 0)$|    if (tid == 0 \&\& blockIdx.x == 0) printf("block 0: %d\\n", partial[0]);\n    if (tid == 0)|; s|^#include "reduction.h"$|&\n#include <stdio.h>|' \
        "$(learner_file 06-reduction-direct solution)" >"$debug"
    grep -q 'printf("block 0' "$debug" || fail "the test's edit did not apply"
    run "$WORKBOOK_DIR/grading/integrity" "$debug"
    assert_success
}
