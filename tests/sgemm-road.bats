#!/usr/bin/env bats
# The kernels past the lesson, as the steps list them: each one a step's
# main.cu names in `beyond` is built into its reference solution (a weak
# symbol that no file defines is NULL, and the harness would leave the kernel
# out without a word); step 03's road is numbered from stage 0, a file per
# stage in order; and what 03's README says of stage 0's compiled code -- its
# registers, the occupancy they allow, its shared loads -- is what the
# compiler makes of the file. Needs no GPU; a copy without solutions/ (a
# handout) has nothing to check.

load helpers

setup() {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy (a handout)"
    README=$WORKBOOK_DIR/03-tiled-matmul/README.md
    STAGE0=$WORKBOOK_DIR/solutions/03-tiled-matmul/sgemm_road/00-blocktiled-1d.cu
}

# beyond_functions STEP: the host functions of the kernels STEP's main.cu
# lists in `beyond`, in order.
beyond_functions() {
    sed -n '/^static const step_kernel beyond\[\] = {$/,/^};$/p' "$WORKBOOK_DIR/$1/main.cu" |
        grep -oP '\.run = [A-Z]+_FN\(\K[a-z_0-9]+'
}

# defined_in STEP FUNCTION: the files of STEP's solution (its program's file
# and its beyond_sources) that define FUNCTION, one a line.
defined_in() {
    local dir=$WORKBOOK_DIR/solutions/$1 file
    for file in "$(program_of "$WORKBOOK_DIR/$1").cu" $(step_field "$1" beyond_sources); do
        grep -qE "^void $2\(" "$dir/$file" && echo "$file"
    done
    return 0
}

@test "every kernel a step lists past the lesson is built into its solution, by one file" {
    local step function files count=0
    for step in $(manifest_steps); do
        [ -n "$(step_field "$step" beyond_sources)" ] || continue
        for function in $(beyond_functions "$step"); do
            files=$(defined_in "$step" "$function")
            [ "$(grep -c . <<<"$files")" -eq 1 ] ||
                fail "$step: $function, in main.cu's beyond, is defined by ${files:-no file} of its solution and beyond_sources (one expected)"
            count=$((count + 1))
        done
    done
    # Steps 03 and 08 list them today: the search itself must find them.
    [ "$count" -ge 9 ] || fail "only $count kernels past the lesson found: the search is broken"
}

@test "step 03's road starts at stage 0: label N. is the stage of file 0N-*.cu, in order" {
    local -a functions
    local i label file
    mapfile -t functions < <(beyond_functions 03-tiled-matmul)
    [ "${#functions[@]}" -ge 8 ] || fail "03's main.cu lists ${#functions[@]} stages"
    for i in "${!functions[@]}"; do
        label=$(grep -F "MATMUL_FN(${functions[i]})" "$WORKBOOK_DIR/03-tiled-matmul/main.cu" | grep -oP '\.label = "\K[^"]*')
        [[ $label == "$i. "* ]] || fail "stage $i of main.cu's beyond is labelled '$label'"
        file=$(defined_in 03-tiled-matmul "${functions[i]}")
        [[ $file == sgemm_road/0$i-*.cu ]] || fail "stage $i (${functions[i]}) is defined in '$file', not sgemm_road/0$i-*.cu"
    done
}

# ptxas_line: what the README's own -Xptxas -v command for stage 0 prints
# for it, run from the step's folder, into $PTXAS: "Used R registers, ...,
# S bytes smem". Skips where this nvcc is not the one the README's figures
# are from. (Not in a $(...): a skip there would end only the subshell.)
ptxas_line() {
    local command version have
    command=$(sed -n 's/^    \(nvcc .*-Xptxas -v .*sgemm_road\/00-blocktiled-1d\.cu .*\)$/\1/p' "$README")
    [ -n "$command" ] || fail "03's README shows no nvcc -Xptxas -v command for stage 0"
    version=$(sed -n 's/^For stage 0, CUDA \([0-9.]*\) and sm_90 print$/\1/p' "$README")
    [ -n "$version" ] || fail "03's README does not say which CUDA its ptxas figures are from"
    have=$("${NVCC:-nvcc}" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
    [ "$have" = "$version" ] || skip "03's README gives CUDA $version's figures; this nvcc is ${have:-missing}"
    # The README's command, with the nvcc of this test.
    (cd "$WORKBOOK_DIR/03-tiled-matmul" && eval "\"${NVCC:-nvcc}\" ${command#nvcc }") >"$BATS_TEST_TMPDIR/ptxas" 2>&1 ||
        fail "the README's command failed: $(cat "$BATS_TEST_TMPDIR/ptxas")"
    PTXAS=$(grep -oP 'Used \d+ registers, .*bytes smem' "$BATS_TEST_TMPDIR/ptxas")
}

@test "03's README: stage 0's registers are what ptxas prints, and its occupancy follows from them" {
    local used registers smem allocated threads per_block by_registers by_threads by_shared least limit warps percent
    ptxas_line
    used=$PTXAS
    [ -n "$used" ] || fail "the README's nvcc command printed no 'Used N registers' line"
    grep -qxF "    ptxas info    : $used" "$README" || fail "ptxas prints '$used'; 03's README shows: $(grep 'ptxas info' "$README")"
    registers=$(grep -oP 'Used \K\d+' <<<"$used")
    smem=$(grep -oP '\d+(?= bytes smem)' <<<"$used")
    # An SM of compute capability 9.0, as the README gives it: registers
    # handed out 8 a thread, 65,536 of them, 2,048 threads, 32 blocks, 228 KB
    # of shared memory of which 1 KB a block is the system's.
    allocated=$(((registers + 7) / 8 * 8))
    threads=$(grep -oP '^    registers +\d+ x \K\d+(?= threads)' "$README")
    [ -n "$threads" ] || fail "03's README has no line of the registers' limit"
    per_block=$((allocated * threads))
    by_registers=$((65536 / per_block))
    by_threads=$((2048 / threads))
    by_shared=$((228 * 1024 / (smem + 1024)))
    least=$by_registers
    for limit in $by_threads $by_shared 32; do [ "$limit" -lt "$least" ] && least=$limit; done
    warps=$((least * threads / 32))
    percent=$((warps * 100 / 64))
    comma() { sed -E ':a; s/([0-9])([0-9]{3})($|[^0-9])/\1,\2\3/; ta' <<<"$1"; }
    grep -qF "$registers are allocated as $allocated." "$README" || fail "03's README does not say '$registers are allocated as $allocated.'"
    grep -qE "^    registers +$allocated x $threads threads = $(comma $per_block) a block: 65,536 / $(comma $per_block) +-> +$by_registers blocks$" "$README" ||
        fail "03's README's registers line is not $allocated x $threads = $per_block, $by_registers blocks: $(grep '^    registers ' "$README")"
    grep -qE "^    threads +2,048 / $threads +-> +$by_threads blocks$" "$README" || fail "03's README's threads line is not $by_threads blocks"
    grep -qE "^    shared +\($((smem / 1024)) KB \+ 1 KB\) a block: 228 KB / $((smem / 1024 + 1)) KB at most +-> +$by_shared blocks$" "$README" ||
        fail "03's README's shared-memory line is not $smem bytes, $by_shared blocks: $(grep '^    shared ' "$README")"
    grep -qE "^    the least: +$least blocks of $((threads / 32)) warps, $warps of 64 warps: a theoretical occupancy of $percent%$" "$README" ||
        fail "03's README's occupancy is not $least blocks, $warps warps, $percent%: $(grep '^    the least:' "$README")"
}

@test "03's README: stage 0's shared loads and multiply-adds are those of its compiled code" {
    command -v cuobjdump >/dev/null || skip "no cuobjdump on PATH"
    local cubin=$BATS_TEST_TMPDIR/stage0.cubin prose lds lds128 ffma
    "${NVCC:-nvcc}" -arch=sm_90 -O3 -std=c++17 -cubin -I"$WORKBOOK_DIR/common/core" \
        -I"$WORKBOOK_DIR/common/tracks/matmul" -o "$cubin" "$STAGE0"
    count() { cuobjdump -sass "$cubin" | grep -cP "^\s+/\*[0-9a-f]{4}\*/\s+$1 "; }
    lds=$(count 'LDS'); lds128=$(count 'LDS\.128'); ffma=$(count 'FFMA')
    # The paragraph "What the compiler made of it", as one line.
    prose=$(awk '/^\*\*What the compiler made of it\.\*\*/ { on = 1 } on && /^$/ { exit } on' "$README" | tr '\n' ' ')
    [ -n "$prose" ] || fail "03's README has no paragraph 'What the compiler made of it'"
    [[ $prose =~ holds,\ per\ trip,\ ([0-9]+)\ \`LDS\`.*\ ([0-9]+)\ +\`LDS\.128\`.*\ for\ ([0-9]+)\ \`FFMA\` ]] ||
        fail "the paragraph gives no counts of LDS, LDS.128 and FFMA: $prose"
    assert_equal "${BASH_REMATCH[1]} LDS, ${BASH_REMATCH[2]} LDS.128, ${BASH_REMATCH[3]} FFMA" \
        "$lds LDS, $lds128 LDS.128, $ffma FFMA"
}
