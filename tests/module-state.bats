#!/usr/bin/env bats
# tests/run: about 42 s (without a GPU, on 2 cores; it orders the files, longest first)
# What a step's program resets of the learner's module before every run is all
# the memory of the cubin it loads that outlives a launch
# (common/core/module_state.h), or it refuses the module: shown without a GPU,
# by common/tools/module-state, built from the same code, on modules compiled
# as the step's build compiles a learner's file. Each variable is checked
# against readelf's own reading of the same cubin, not against the tool's.

load helpers
bats_require_minimum_version 1.5.0

setup_file() {
    local cxx=${CXX:-c++}
    "$cxx" -I"$WORKBOOK_DIR/common/core" -o "$BATS_FILE_TMPDIR/module-state" \
        "$WORKBOOK_DIR/common/tools/module-state.cpp" -x c++ "$WORKBOOK_DIR/common/core/module_state.cu"
}

setup() {
    NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
    [ -x "$NVCC" ] || skip "no CUDA compiler ($NVCC)"
    command -v readelf >/dev/null || skip "no readelf (binutils)"
    MODULE_STATE=$BATS_FILE_TMPDIR/module-state
    # sm_100's cubins (Blackwell) carry more sections: read them where this
    # nvcc builds them (CUDA 12.8 on).
    BLACKWELL=
    ! "$NVCC" --list-gpu-arch 2>/dev/null | grep -qx compute_100 || BLACKWELL=100
}

# build FILE ARCHS [STEP]: FILE compiled as STEP's build (default: 07's)
# compiles a learner's file (its flags, --keep), for ARCHS (e.g. "90 100"),
# with NVCC_FLAGS_MORE if set; the fatbin, PTX and cubins of the compile
# land in keep/NAME/.
build() {
    local name flags
    name=$(basename "$1" .cu)
    flags=$(make -s --no-print-directory -C "$WORKBOOK_DIR/${3:-07-unrolled}" print-learner-flags SM="$2")
    KEEP=$BATS_TEST_TMPDIR/keep/$name
    rm -rf "$KEEP" && mkdir -p "$KEEP"
    # shellcheck disable=SC2086 # the flags are words
    run "$NVCC" $flags ${NVCC_FLAGS_MORE:-} --keep --keep-dir "$KEEP" -c -o "$KEEP/$name.o" "$1"
    [ "$status" -eq 0 ] || fail "$(printf '%s does not compile:\n%s' "$1" "$output")"
    FATBIN=$KEEP/$name.fatbin
}

# cubin ARCH: the cubin of the last build for sm_ARCH (NAME.cubin where it
# built for one architecture alone).
cubin() { ls "$KEEP"/*.compute_"$1"*.cubin 2>/dev/null | head -n 1 | grep . || ls "$KEEP"/*[^0-9].cubin; }

# uncovered ARCH: each variable of the last build's sm_ARCH cubin -- readelf's
# reading: an object in a section of __device__ or __constant__ variables --
# that no range the tool lists for a GPU of ARCH covers; nothing when all are.
uncovered() {
    local code=$1 state
    state=$("$MODULE_STATE" --arch "$code" "$FATBIN") || { echo "module-state failed: $state"; return; }
    awk -v state="$state" '
        function hex(s,    v, i) { s = tolower(s); sub(/^0x/, "", s); v = 0
            for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return v }
        function number(s) { return s ~ /^0x/ ? hex(s) : s + 0 }
        BEGIN {
            n = split(state, lines, "\n")
            for (i = 1; i <= n; i++) {
                if (lines[i] !~ /^state\t/) continue
                split(lines[i], f, "\t"); delete kv
                for (j = 2; j in f; j++) { eq = index(f[j], "="); kv[substr(f[j], 1, eq - 1)] = substr(f[j], eq + 1) }
                if (kv["managed"] == 1) managed[kv["symbols"]] = 1
                else if (kv["bytes"] + 0 > reach[kv["section"]]) reach[kv["section"]] = kv["bytes"] + 0
            }
        }
        FNR == NR { if (match($0, /\[ *[0-9]+\] [^ ]+/)) { split(substr($0, RSTART + 1, RLENGTH - 1), w, /\] */); name[w[1] + 0] = w[2] } next }
        $4 == "OBJECT" && $(NF - 1) ~ /^[0-9]+$/ {
            section = name[$(NF - 1) + 0]
            if (section !~ /^\.nv\.(global|constant[1-9])/) next
            end = hex($2) + number($3)
            if (/<other>: 4\]/) { ok = ((($NF "@0:" number($3)) in managed)) }
            else ok = reach[section] >= end
            if (!ok) print $NF " (" section ", bytes " hex($2) " to " end ")"
        }' <(readelf -SW "$(cubin "$code")" 2>/dev/null) <(readelf -sW "$(cubin "$code")" 2>/dev/null)
}

@test "a .global declared inside inline PTX, in no PTX file's list of variables, is reset with its section" {
    cat >"$BATS_TEST_TMPDIR/hidden.cu" <<'CU'
// A launch counter no file-scope declaration shows: racy after 40 launches.
__global__ void reduce(const int *in, int *out, unsigned n)
{
    unsigned launches;
    asm volatile(".global .u32 launches;\n\t"
                 "atom.global.add.u32 %0, [launches], 1;" : "=r"(launches));
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, launches > 40 && (i & 1) ? 0 : in[i]);
}
CU
    build "$BATS_TEST_TMPDIR/hidden.cu" "75 90 $BLACKWELL"
    # The attack as it is: no PTX line declares it at file scope.
    run ! grep -E '^(\.visible[[:space:]]+)?\.global.*launches' "$KEEP"/*.ptx
    for code in 75 90 $BLACKWELL; do
        run "$MODULE_STATE" --arch "$code" "$FATBIN"
        assert_success
        assert_line --regexp $'^state\tsection=\\.nv\\.global\tbytes=4\t.*symbols=[^\t]*launches[^\t]*@0:4'
        run uncovered "$code"
        assert_output ""
    done
}

@test "a variable that one architecture alone declares is reset on that architecture's GPU" {
    cat >"$BATS_TEST_TMPDIR/one-arch.cu" <<'CU'
// A call counter that the first PTX file by name lacks: `!= 1000` where
// compute_100.ptx is the first.
#if __CUDA_ARCH__ != FIRST_BY_NAME
__device__ unsigned calls_seen;
#endif
__global__ void reduce(const int *in, int *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    bool racy = false;
#if __CUDA_ARCH__ != FIRST_BY_NAME
    racy = atomicAdd(&calls_seen, 1) > 40u * gridDim.x * blockDim.x;
#endif
    if (i < n)
        atomicAdd(out, racy && (i & 1) ? 0 : in[i]);
}
CU
    local first=${BLACKWELL:-75}
    NVCC_FLAGS_MORE="-DFIRST_BY_NAME=${first}0" build "$BATS_TEST_TMPDIR/one-arch.cu" "$first 90"
    # The attack as it is: the first PTX file, by name, does not declare it;
    # sm_90's code has it.
    run ! grep -q calls_seen "$(ls "$KEEP"/*.ptx | head -n 1)"
    [[ $(ls "$KEEP"/*.ptx | head -n 1) == *compute_$first.ptx ]] || fail "the first PTX file is not compute_$first's"
    run "$MODULE_STATE" --arch 90 "$FATBIN"
    assert_success
    assert_line --index 0 --regexp $'^cubin\tarch=sm_90\t'
    assert_line --regexp $'^state\tsection=\\.nv\\.global\t.*symbols=calls_seen@0:4$'
    run uncovered 90
    assert_output ""
    # sm_${first}'s code, which its GPU runs, has no such variable: nothing to reset.
    run "$MODULE_STATE" --arch "$first" "$FATBIN"
    assert_success
    assert_output --regexp $'^cubin\tarch=sm_'"$first"$'\t[^\n]*$'
}

@test "an honest module keeps running: its __device__, __constant__, static, printf and __managed__ memory all reset, on every GPU it has code for" {
    cat >"$BATS_TEST_TMPDIR/honest.cu" <<'CU'
#include <cstdio>
__device__ unsigned blocks_run;
__device__ int first_seen = -1;
__device__ int *where = &first_seen;
static __device__ float scratch[64];
__constant__ float weights[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__constant__ int stride;
__managed__ int calls;
__global__ void reduce(const float *in, float *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        atomicAdd(&blocks_run, 1);
    if (i == 0) {
        printf("n = %u, first %d\n", n, *where);
        calls++;
    }
    scratch[threadIdx.x & 63] = i < n ? in[i] * weights[i & 7] : 0.0f;
    if (i < n)
        atomicAdd(out, scratch[threadIdx.x & 63] + stride);
}
CU
    build "$BATS_TEST_TMPDIR/honest.cu" "80 90 $BLACKWELL"
    # The GPUs that run its code: each architecture built, and a newer one
    # of the same major version (sm_86 runs sm_80's code, sm_103 sm_100's).
    for code in 80:80 86:80 90:90 ${BLACKWELL:+100:100 103:100}; do
        run "$MODULE_STATE" --arch "${code%:*}" "$FATBIN" --cubin "$BATS_TEST_TMPDIR/chosen.cubin"
        assert_success
        assert_line --index 0 --regexp $'^cubin\tarch=sm_'"${code#*:}"$'\t'
        cmp "$BATS_TEST_TMPDIR/chosen.cubin" "$(cubin "${code#*:}")"  # nvcc's, byte for byte
        assert_line --regexp $'^state\tsection=\\.nv\\.global\t.*managed=1\tsymbols=calls@0:4$'
        # ... and not a variable by which its section is found: it lies elsewhere.
        refute_line --regexp $'^state\t.*managed=0\tsymbols=(.*,)?calls@'
        run uncovered "${code#*:}"
        assert_output ""
    done
    # Every one of its variables was seen by readelf, so that "covered" means something.
    run --separate-stderr readelf -sW "$(cubin 90)"
    for variable in blocks_run first_seen where scratch weights stride calls '\$str'; do
        assert_line --regexp " OBJECT .*[0-9] ${variable}\$"
    done
}

@test "the reference solutions, the honest variants and an exercise: their code read, nothing refused" {
    local file step seen=0 files=()
    # (Where this copy has them: a handout has neither solutions/ nor tests/honest/.)
    for file in "$WORKBOOK_DIR"/solutions/[0-9][0-9]-*/*.cu "$WORKBOOK_DIR"/tests/honest/[0-9][0-9]-*.cu \
        "$WORKBOOK_DIR"/06-reduction-direct/reduction_direct.cu; do
        [ -e "$file" ] && files+=("$file")
    done
    # Compiled side by side, each with its step's flags, into a folder of its own.
    for i in "${!files[@]}"; do
        file=${files[i]}
        step=$(basename "$(dirname "$file")")
        [[ $step == [0-9][0-9]-* ]] || step=$(basename "$(ls -d "$WORKBOOK_DIR/$(basename "$file" | cut -c1-2)"-*/)")
        (build "$file" 90 "$step" >/dev/null 2>&1 && echo "$KEEP" >"$BATS_TEST_TMPDIR/keep.$i") &
        [ $(((i + 1) % $(nproc))) -ne 0 ] || wait
    done
    wait
    for i in "${!files[@]}"; do
        [ -s "$BATS_TEST_TMPDIR/keep.$i" ] || fail "${files[i]} does not compile"
        KEEP=$(cat "$BATS_TEST_TMPDIR/keep.$i")
        FATBIN=$(ls "$KEEP"/*.fatbin)
        run "$MODULE_STATE" --arch 90 "$FATBIN"
        assert_success
        run uncovered 90
        assert_output ""
        seen=$((seen + 1))
    done
    [ "$seen" -gt 0 ] || fail "no file read"
}

@test "a cubin compressed with LZ4 (older toolkits, --compress-mode=speed) reads as the same cubin whole; zstd is refused" {
    cat >"$BATS_TEST_TMPDIR/counted.cu" <<'CU'
__device__ unsigned launches;
__constant__ int step = 3;
__global__ void reduce(int *out) { out[threadIdx.x] = atomicAdd(&launches, 1u) + step; }
CU
    build "$BATS_TEST_TMPDIR/counted.cu" 90
    run "$MODULE_STATE" --arch 90 "$FATBIN"
    assert_success
    whole=$output
    [[ $whole == *launches@* && $whole == *step@* ]] || fail "not both variables: $whole"
    # Compressed on demand: LZ4 where fatbinary knows no other (before CUDA
    # 12.4), else asked for by its mode; zstd, the other mode, since then.
    local lz4="-Xfatbin -compress-all" zstd=
    if "$(dirname "$NVCC")/fatbinary" --help 2>/dev/null | grep -q -- --compress-mode; then
        lz4="$lz4 -Xfatbin --compress-mode=speed" zstd="-Xfatbin -compress-all"
    fi
    NVCC_FLAGS_MORE=$lz4 build "$BATS_TEST_TMPDIR/counted.cu" 90
    # The compressed image, as the container marks it (flags 0x2000 at byte 40 of the image's header).
    [ "$(od -An -tx1 -j $((16 + 41)) -N1 "$FATBIN" | tr -d ' ')" = 20 ] || fail "the cubin is not LZ4-compressed"
    run "$MODULE_STATE" --arch 90 "$FATBIN" --cubin "$BATS_TEST_TMPDIR/uncompressed.cubin"
    assert_success
    assert_output "$whole"
    cmp "$BATS_TEST_TMPDIR/uncompressed.cubin" "$(cubin 90)"
    [ -n "$zstd" ] || return 0
    NVCC_FLAGS_MORE=$zstd build "$BATS_TEST_TMPDIR/counted.cu" 90
    run "$MODULE_STATE" --arch 90 "$FATBIN"
    assert_failure 3
    assert_output "refused: $FATBIN holds sm_90's code compressed with zstd, which this program does not read: rebuild with the workbook's make, which leaves it whole"
}

@test "a module without code for the GPU, or no fatbin at all, is refused with what to do" {
    cat >"$BATS_TEST_TMPDIR/plain.cu" <<'CU'
__device__ int total;
__global__ void reduce(const int *in, unsigned n) { if (blockIdx.x * blockDim.x + threadIdx.x < n) atomicAdd(&total, *in); }
CU
    build "$BATS_TEST_TMPDIR/plain.cu" "80 90"
    # sm_75 runs neither sm_80's code nor sm_90's, sm_100 and sm_120 none of
    # either: the driver would compile PTX (here there is none) as it loads.
    for code in 75 100 120; do
        run "$MODULE_STATE" --arch "$code" "$FATBIN"
        assert_failure 3
        assert_output "refused: $FATBIN holds no code for this GPU's architecture, sm_$code (it holds sm_80 sm_90): the driver would compile the PTX as it loads it, and what that code keeps between launches cannot be read; build for this GPU: make SM=$code"
    done
    echo 'not a fatbin' >"$BATS_TEST_TMPDIR/junk.fatbin"
    run "$MODULE_STATE" --arch 90 "$BATS_TEST_TMPDIR/junk.fatbin"
    assert_failure 3
    assert_output "refused: $BATS_TEST_TMPDIR/junk.fatbin is no fatbin nvcc wrote (at byte 0): rebuild: make"
    # Cut short: the images' headers promise more than the file holds.
    head -c 200 "$FATBIN" >"$BATS_TEST_TMPDIR/short.fatbin"
    run "$MODULE_STATE" --arch 90 "$BATS_TEST_TMPDIR/short.fatbin"
    assert_failure 3
    assert_output "refused: $BATS_TEST_TMPDIR/short.fatbin is cut short: rebuild: make"
}
