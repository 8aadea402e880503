#!/usr/bin/env bats
# tests/run: about 30 s, 236 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# The integrity test of the learner's file, which needs no GPU: a finding,
# with the symbol and its line, on the mutants that call a library or forge
# the records. (tests/integrity-clean.bats: no finding on good files.)

load helpers

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
    # An object named that is not there: the comparison with the build's
    # object would be skipped, so it is refused.
    run "$WORKBOOK_DIR/grading/integrity" --object "$BATS_TEST_TMPDIR/none.o" "$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved.cu"
    assert_failure 2
    assert_output --partial "no such object"
}

@test "integrity: a library doing the work fails, naming the call and its line" {
    need_solutions
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/03-library-cublas.patch")
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^cublasSgemm_v2: calls a library that does the work.*\(line [0-9]+: cublasSgemm\('
}

@test "integrity: CUB's kernels in the file fail, as does the memory they allocate" {
    slow_test "CUB compiled"
    need_solutions
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/08-library-cub.patch")
    # Its compile refuses CUB's headers first (common/tools/check-includes.sh).
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 2
    assert_output --partial "includes CUB or Thrust"
    # Should a library's kernels reach the build's object all the same (the
    # include check left out here), integrity names them, and their memory.
    local tools=$BATS_TEST_TMPDIR/tools nvcc object=$BATS_TEST_TMPDIR/object/cascaded.o
    cp -r "$WORKBOOK_DIR/common/tools" "$tools"
    printf '#!/bin/sh\nexit 0\n' >"$tools/check-includes.sh"
    nvcc=$(source "$WORKBOOK_DIR/common/tools/options.bash" && cuda_tool nvcc)
    (cd "$(dirname "$file")" && "$tools/compile-learner.sh" "$(basename "$file")" "$object" "$nvcc" -std=c++17 -O3 \
        -I"$WORKBOOK_DIR/common/core" -I"$WORKBOOK_DIR/common/tracks/reduction" -gencode arch=compute_75,code=compute_75) ||
        fail "the copy did not compile"
    run "$WORKBOOK_DIR/grading/integrity" --object "$object" "$file"
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
    assert_line --regexp '^(puts|__printf_chk): prints from the host.*\(line [0-9]+: printf\('
    assert_line --regexp '^\.init_array: 1 function\(s\) that run before or after main.*constructor'
}

@test "integrity: a constructor with a priority, which lands in .init_array.NNNNN, is a constructor too" {
    local file=$BATS_TEST_TMPDIR/reduction_interleaved.cu
    { cat "$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved.cu"
      printf 'static int profiled;\n__attribute__((constructor(101))) static void early(void) { profiled = 1; }\n'
      printf 'int was_profiled(void) { return profiled; }\n'
    } >"$file"
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^\.init_array: 1 function\(s\) that run before or after main.*\(line [0-9]+: __attribute__\(\(constructor\(101\)\)\)'
}

@test "integrity: a constructor put in .init_array by a section attribute, and machine code written as data, fail" {
    local file=$BATS_TEST_TMPDIR/reduction_interleaved.cu
    { cat "$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved.cu"
      printf 'static void early(void) {}\n'
      printf '__attribute__((section(".init_array.workbook"), used)) static void (*const early_entry)(void) = early;\n'
      printf '__attribute__((section(".text.workbook"), used)) static const unsigned char ret_code[] = {0xc3};\n'
      printf 'typedef void (*code_fn)(void);\nvoid call_it(void) { ((code_fn)(const void *)ret_code)(); }\n'
    } >"$file"
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^\.init_array: 1 function\(s\) that run before or after main.*\(line [0-9]+: __attribute__\(\(section\("\.init_array\.workbook"'
    assert_line --regexp '^_ZL8ret_code: a data object in \.text\.workbook \(machine code written as data'
}

# A folder with host compilers that fortify, as Ubuntu's do by default:
# printf becomes __printf_chk, memcpy __memcpy_chk, and so on. On PATH first,
# they are the gcc and g++ nvcc finds.
fortifying_compilers() {
    local dir=$BATS_TEST_TMPDIR/fortify cc
    mkdir -p "$dir"
    for cc in gcc g++; do
        printf '#!/bin/sh\nexec %s -D_FORTIFY_SOURCE=2 "$@"\n' "$(command -v "$cc")" >"$dir/$cc"
        chmod +x "$dir/$cc"
    done
    echo "$dir"
}

@test "integrity: a fortified call is named for what it stands for, and a fortified honest file stays clean" {
    slow_test "a fortifying build"
    need_solutions
    command -v gcc >/dev/null && command -v g++ >/dev/null || skip "no gcc and g++ here to fortify"
    compilers=$(fortifying_compilers)
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/08-forged-records.patch")
    run env PATH="$compilers:$PATH" "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^__printf_chk: prints from the host.*\(line [0-9]+: printf\('
    # The fortified forms of allowed calls are allowed: memset and memcpy, here
    # on the host. The helper has external linkage, so that -O3 keeps it, and
    # copies into an array of known size a count it does not know, so that a
    # fortifying compiler checks both calls (__memset_chk, __memcpy_chk).
    honest=$BATS_TEST_TMPDIR/copies.cu
    sed 's|^void sum_cascaded(|int copies_scratch[64];\nvoid copies_fill(const int *q, size_t n) { memset(copies_scratch, 0, n); memcpy(copies_scratch, q, n); }\n\n&|; s|^#include "reduction.h"$|&\n#include <string.h>|' \
        "$(learner_file 08-cascaded solution)" >"$honest"
    grep -q '^void copies_fill' "$honest" || fail "the test's edit did not apply"
    run env PATH="$compilers:$PATH" "$WORKBOOK_DIR/grading/integrity" "$honest"
    assert_success
    # Those two calls are in what the integrity test compiles: without memset
    # and memcpy in the allowed list, each fortified call is a finding.
    grep -v -E '^(memset|memcpy)[[:space:]]' "$WORKBOOK_DIR/grading/allowed-symbols.conf" >"$BATS_TEST_TMPDIR/allowed.conf"
    run env PATH="$compilers:$PATH" INTEGRITY_ALLOWLIST="$BATS_TEST_TMPDIR/allowed.conf" "$WORKBOOK_DIR/grading/integrity" "$honest"
    assert_failure 1
    assert_line --regexp '^__memset_chk: '
    assert_line --regexp '^__memcpy_chk: '
}

@test "integrity: a definition of a name the program calls fails, naming it, who has it and the line" {
    slow_test "copies compiled"
    need_solutions
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/04-interposed-qsort.patch")
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^qsort: defined in your file, and libc\.so\.6 defines it.*\(line [0-9]+: extern "C" void qsort\('
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/08-interposed-operator-new.patch")
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^operator new\(unsigned long\): defined in your file, and libstdc\+\+\.so\.6 defines it'
    assert_line --regexp '^operator delete\(void\*\): defined in your file'
    # Whatever the name, however it is spelled: a C library variable, a
    # function of the CUDA runtime, a name only the start-up code uses, a
    # name reserved to the compiler.
    for definition in 'int optind = 1;' 'cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) { *ms = 1; return cudaSuccess; }' \
        'void __gmon_start__(void) {}' 'int _Workbook_flag = 1;'; do
        sed "s|^#include \"reduction.h\"\$|&\nextern \"C\" $definition|" "$(learner_file 06-reduction-direct solution)" >"$BATS_TEST_TMPDIR/defines.cu"
        run "$WORKBOOK_DIR/grading/integrity" "$BATS_TEST_TMPDIR/defines.cu"
        [ "$status" -eq 1 ] || fail "$(printf 'defining %s is not a finding:\n%s' "$definition" "$output")"
        assert_output --regexp '(defined in your file|a name reserved to the compiler)'
    done
}

@test "integrity: assembly in host code fails, naming the line; assembly in device code is fine" {
    slow_test "copies compiled"
    need_solutions
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/07-host-asm-syscall.patch")
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^asm: assembly in host code.*\(line [0-9]+: asm volatile\("syscall"'
    # Read from the object's machine code too.
    assert_line --regexp '^syscall in sum_unrolled\(.*\): a system call in the machine code of your host code'
    # A top-level asm statement too.
    sed 's|^#include "reduction.h"$|&\nasm(".globl workbook_hook\\nworkbook_hook: ret");|' \
        "$(learner_file 05-reduction-sequential solution)" >"$BATS_TEST_TMPDIR/toplevel.cu"
    run "$WORKBOOK_DIR/grading/integrity" "$BATS_TEST_TMPDIR/toplevel.cu"
    assert_failure 1
    assert_line --regexp '^asm: assembly in host code'
    # PTX in a kernel is device code.
    sed 's|partial\[tid\] += partial\[tid + s\];|{ int sum; asm("add.s32 %0, %1, %2;" : "=r"(sum) : "r"(partial[tid]), "r"(partial[tid + s])); partial[tid] = sum; }|' \
        "$(learner_file 05-reduction-sequential solution)" >"$BATS_TEST_TMPDIR/ptx.cu"
    grep -q 'add.s32' "$BATS_TEST_TMPDIR/ptx.cu" || fail "the test's edit did not apply"
    run "$WORKBOOK_DIR/grading/integrity" "$BATS_TEST_TMPDIR/ptx.cu"
    assert_success
}

@test "integrity: a side stream and a host copy fail; device-side printf stays allowed" {
    slow_test "copies compiled"
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

@test "integrity: the file is checked as the build compiles it, so host code kept for other architectures is seen" {
    slow_test "a build for other architectures"
    # Host code that only a build for more than one architecture, or for a
    # newer one, compiles: __CUDA_ARCH_LIST__ differs between two compiles
    # whose -gencode lists differ.
    local step=04-reduction-interleaved copy=$BATS_TEST_TMPDIR/wb
    mkdir -p "$copy"
    (cd "$WORKBOOK_DIR" && tar -cf - --exclude='*/build' common grading steps.conf "$step") | tar -xf - -C "$copy"
    cat >>"$copy/$step/reduction_interleaved.cu" <<'CODE'
#define FIRST_(a, ...) a
#define FIRST(...) FIRST_(__VA_ARGS__, 0)
#define SECOND_(a, b, ...) b
#define SECOND(...) SECOND_(__VA_ARGS__, 0, 0)
#if !defined(__CUDA_ARCH__) && (SECOND(__CUDA_ARCH_LIST__) != 0 || FIRST(__CUDA_ARCH_LIST__) >= 800)
static volatile int touched;
__attribute__((constructor)) static void only_in_the_build(void) { touched = 1; }
#endif
CODE
    # Checked alone, for the oldest architecture, it would be clean.
    INTEGRITY_FLAGS="-std=c++17 -O3 -I$copy/common/core$(printf ' -I%s' "$copy"/common/tracks/*) -gencode arch=compute_75,code=compute_75" \
        run "$copy/grading/integrity" "$copy/$step/reduction_interleaved.cu"
    assert_success
    # In its step's folder it is checked with the build's flags: two architectures here.
    SM="75 80" run "$copy/grading/integrity" "$copy/$step/reduction_interleaved.cu"
    assert_failure 1
    assert_line --regexp '^\.init_array: .*only_in_the_build'
    # The same where the build is for one newer architecture (a GPU's own).
    SM=90 run "$copy/grading/integrity" "$copy/$step/reduction_interleaved.cu"
    assert_failure 1
}

@test "integrity: what only the build's own compile sees is checked, from the build's object and host code" {
    slow_test "a copy built twice"
    # Host code compiled only while the build's object (or its dependency
    # list) is not yet in build/: in the build's own compile of a fresh copy,
    # never in a compile after it. The build's temporary folder (where its
    # PTX is by the time the host code is compiled) is no marker: it lies
    # outside the workbook, named at random, so that a branch on where it
    # used to be is taken by no compile.
    local step=04-reduction-interleaved copy=$BATS_TEST_TMPDIR/wb wrapper=$BATS_TEST_TMPDIR/bin/nvcc file object temp temps=()
    mkdir -p "$copy" "$(dirname "$wrapper")"
    (cd "$WORKBOOK_DIR" && tar -cf - --exclude='*/build' --exclude='*_solution' common grading steps.conf "$step") | tar -xf - -C "$copy"
    file=$copy/$step/reduction_interleaved.cu
    object=$copy/$step/build/reduction_interleaved.o
    cat >>"$file" <<CODE
#if __has_include("build/reduction_interleaved.keep/reduction_interleaved.ptx") || __has_include("$copy/$step/build/reduction_interleaved.keep/reduction_interleaved.ptx")
#error the build's --keep folder is seen from the file's folder
#endif
#if !__has_include("build/reduction_interleaved.o")
#include <unistd.h>
static void in_the_build_only(void)
{
    long written;
    asm volatile("syscall" : "=a"(written) : "a"(1L), "D"(1L), "S"("x"), "d"(1L) : "rcx", "r11", "memory");
    (void)write(1, "", 0);
}
#endif
#if !__has_include("build/reduction_interleaved.d")
__attribute__((constructor)) static void before_main(void) { in_the_build_only(); }
#endif
CODE
    # A wrapper of nvcc notes where each compile writes.
    printf '#!/usr/bin/env bash\nprintf "%%s\\n" "$*" >>"%s"\nexec "%s" "$@"\n' "$BATS_TEST_TMPDIR/nvcc.log" "$(command -v nvcc)" >"$wrapper"
    chmod +x "$wrapper"
    for build in first second; do
        rm -rf "$copy/$step/build"
        SM=75 make -s -C "$copy/$step" all NVCC="$wrapper" >/dev/null
        temp=$(grep -- '--keep-dir' "$BATS_TEST_TMPDIR/nvcc.log" | tail -n 1 | sed -E 's/.*--keep-dir ([^ ]+) .*/\1/')
        [ -n "$temp" ] || fail "the build's compile named no --keep-dir"
        [[ $temp == /* ]] || temp=$copy/$step/$temp  # (make runs nvcc in the step's folder)
        [[ $temp != "$copy"/* ]] || fail "the build's --keep folder $temp lies in the workbook"
        [ ! -e "$temp" ] || fail "the build's --keep folder $temp was left behind"
        temps+=("$temp")
    done
    [ "${temps[0]}" != "${temps[1]}" ] || fail "two builds kept their files in the same folder, ${temps[0]}"
    # Checked on a compile of its own, after the build, the file is clean:
    # the object is there by now.
    SM=75 run "$copy/grading/integrity" "$file"
    assert_success
    # What the build made holds the call, the assembly (its system call) and the constructor.
    SM=75 run "$copy/grading/integrity" --object "$object" "$file"
    assert_failure 1
    assert_line --regexp '^write: prints from the host'
    assert_line --regexp '^asm: assembly in host code'
    assert_line --regexp '^syscall in .*: a system call in the machine code'
    assert_line --regexp '^\.init_array: 1 function'
    # Without the host code the build writes beside its object, nothing is checked.
    rm "$copy/$step/build/reduction_interleaved.ii"
    SM=75 run "$copy/grading/integrity" --object "$object" "$file"
    assert_failure 2
    assert_output --partial "reduction_interleaved.ii is missing"
}

# table_without_feeds PTX...: the module's table (kernels.awk) but its feeds
# records, which a test of their own reads.
table_without_feeds() {
    local table status
    table=$(awk -f "$WORKBOOK_DIR/common/tools/kernels.awk" "$@")
    status=$?
    awk '!/^feeds\t/' <<<"$table"
    return "$status"
}

# The module's table (common/tools/kernels.awk), from the PTX of every
# architecture: the program resets each variable it lists before every
# launch, and refuses a module with one it cannot reach.
@test "kernels.awk lists the variables of every architecture's PTX, each once, and a variable inside a function as hidden" {
    local a=$BATS_TEST_TMPDIR/a.compute_100.ptx b=$BATS_TEST_TMPDIR/b.compute_90.ptx
    cat >"$a" <<'PTX'
.global .align 4 .b8 table[8] = {1, 0, 0, 0, 2, 0, 0, 0};
.global .align 1 .b8 $str[4] = {104, 105, 10};
.visible .entry k(
	.param .u64 k_param_0
)
{
	{ // callseq 0, 0
	} // callseq 0
	ret;
}
PTX
    cat >"$b" <<'PTX'
.global .align 4 .b8 table[8] = {1, 0, 0, 0, 2, 0, 0, 0};
.global .align 4 .u32 only_here;
.const .align 4 .b8 lookup[64];
.global .align 1 .b8 __unnamed_1[9] = {118, 111, 105, 100, 32, 107, 40, 41};
.global .align 1 .b8 bytes[4] = {1, 0, 3, 4};
.visible .entry k(
	.param .u64 k_param_0
)
{
	// begin inline asm
	.global .u32 counter;
	ld.volatile.global.u32 %r1, [counter];
	// end inline asm
	ret;
}
PTX
    run table_without_feeds "$a" "$b"
    assert_success
    assert_output "$(printf 'global\tname=table\tbytes=8\tspace=global\ntext\tname=$str\tbytes=4\nkernel\tname=k\tparams=8:8\nglobal\tname=only_here\tbytes=4\tspace=global\nglobal\tname=lookup\tbytes=64\tspace=const\nglobal\tname=__unnamed_1\tbytes=9\tspace=global\ttext=yes\nglobal\tname=bytes\tbytes=4\tspace=global\nhidden\tname=counter\tfunction=k')"
}

# The feeds records: which instructions that only some of a lesson's
# counters see (its ?terms) each function holds, a helper's brought to its
# caller, and a call whose callee the module does not show (printf's
# vprintf, a pointer) as family call, so that the lesson keeps every term;
# inline PTX that a comment makes look like a function's start (".func */"
# after a "/*"), or an opcode split from its modifiers after a label, hides
# nothing (tests/mutants: 02-comment-func-red-hidden).
@test "kernels.awk lists each function's atomics, cp.async, bulk copies and ldmatrix, its helpers' too, a call it cannot read, and what a comment or a label splits" {
    local a=$BATS_TEST_TMPDIR/a.ptx
    cat >"$a" <<'PTX'
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.func _Z6helperPi(
	.param .b64 _Z6helperPi_param_0
)
{
	ld.param.u64 	%rd1, [_Z6helperPi_param_0];
	red.global.add.u32 	[%rd1], 3;
	ret;
}
.visible .entry _Z5outerPi(
	.param .u64 _Z5outerPi_param_0
)
{
	{ // callseq 0, 0
	.param .b64 param0;
	st.param.b64 	[param0], %rd1;
	call.uni 
	_Z6helperPi, 
	(
	param0
	);
	} // callseq 0
	ret;
}
.visible .entry _Z6printsPi(
	.param .u64 _Z6printsPi_param_0
)
{
	{ // callseq 1, 0
	.param .b64 param0;
	.param .b64 param1;
	.param .b32 retval0;
	call.uni (retval0), 
	vprintf, 
	(
	param0, 
	param1
	);
	} // callseq 1
	ret;
}
.visible .entry _Z8indirectPi(
	.param .u64 _Z8indirectPi_param_0
)
{
	call (retval0), %rd2, (param0), prototype_0;
	ret;
}
.visible .entry _Z6copiesPKf(
	.param .u64 _Z6copiesPKf_param_0
)
{
	cp.async.ca.shared.global [%r1], [%rd1], 4, 4;
	// begin inline asm
	{ ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [%r3]; cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd2, {%r5, %r6}], [%r7]; }
	// end inline asm
	atom .shared .add.u32 %r8, [%r9], 1;
	atom.shared.add.u32 %r8, [%r9], 2;
	ret;
}
.visible .entry _Z5plainPKiPi(
	.param .u64 _Z5plainPKiPi_param_0
)
{
	ld.global.u32 %r1, [%rd1];
	st.global.u32 [%rd2], %r1;
	ret;
}
.visible .entry _Z6hiddenPf(
	.param .u64 _Z6hiddenPf_param_0
)
{
	// begin inline asm
	/*
.func */ cp.async.ca.shared.global [%r1], [%rd1], 4, 4; mov.u64 %rd9, %clock64;
	// end inline asm
	// begin inline asm
	{
Lk: red
.global.add.f32 [%rd2], %f1;
}
	// end inline asm
	wmma.load.a.sync.aligned.row.m16n16k16.shared.u8 {%r1, %r2}, [%r3];
	ret;
}
.visible .entry _Z4waitv(
)
{
	mbarrier.arrive.shared.b64 %rd4, [%r5];
	ret;
}
PTX
    run awk -F'\t' '$1 == "feeds" || $1 == "clock"' <(awk -f "$WORKBOOK_DIR/common/tools/kernels.awk" "$a")
    assert_success
    assert_output "$(printf 'feeds\tname=_Z6helperPi\tfamily=atomic\tinstruction=red.global.add.u32
feeds\tname=_Z5outerPi\tfamily=atomic\tinstruction=call _Z6helperPi
feeds\tname=_Z6printsPi\tfamily=call\tinstruction=vprintf
feeds\tname=_Z8indirectPi\tfamily=call\tinstruction=rd2
feeds\tname=_Z6copiesPKf\tfamily=cp.async\tinstruction=cp.async.ca.shared.global
feeds\tname=_Z6copiesPKf\tfamily=ldmatrix\tinstruction=ldmatrix.sync.aligned.m8n8.x1.shared.b16
feeds\tname=_Z6copiesPKf\tfamily=cp.async.bulk\tinstruction=cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
feeds\tname=_Z6copiesPKf\tfamily=atomic\tinstruction=atom.shared.add.u32
feeds\tname=_Z6hiddenPf\tfamily=cp.async\tinstruction=cp.async.ca.shared.global
clock\tname=_Z6hiddenPf\tregister=%%clock64
feeds\tname=_Z6hiddenPf\tfamily=atomic\tinstruction=red.global.add.f32
feeds\tname=_Z6hiddenPf\tfamily=ldmatrix\tinstruction=wmma.load.a.sync.aligned.row.m16n16k16.shared.u8
feeds\tname=_Z4waitv\tfamily=atomic\tinstruction=mbarrier.arrive.shared.b64')"
}

# A vector's lanes and a .b128 are sized as ptxas lays them out; a type the
# table does not know names its variable as hidden (refused) instead of
# leaving it unreset; and a statement after a declaration on its line is
# read by the other rules (05-b128-counter, 04-declaration-masks-line); a
# declaration whose words go on to the next line is one; a printf's empty
# string ("", one byte of no initializer) is text.
@test "kernels.awk sizes vector and .b128 variables, refuses a type it does not know, and reads what follows a declaration" {
    local a=$BATS_TEST_TMPDIR/a.compute_90.ptx
    cat >"$a" <<'PTX'
.global .v4 .u32 quad;
.global .align 16 .b128 wide[2];
.global .b256 unknown;
.global .align 1 .b8 $str$1[1];
.visible .entry k(
	.param .u64 k_param_0
)
{
	// begin inline asm
	.global .b128 pad; red.global.add.u32 [%rd1], %r1
;
	// end inline asm
	.global .v2 .u64 pair; add.s32 %r2, %r3, %r4;
	// begin inline asm
	.global
	.align 4 .u32 stash;
	// end inline asm
	ret;
}
PTX
    run table_without_feeds "$a"
    assert_success
    assert_output "$(printf 'global\tname=quad\tbytes=16\tspace=global\nglobal\tname=wide\tbytes=32\tspace=global\nhidden\tname=unknown\tfunction=(module scope)\ntext\tname=$str$1\tbytes=1\nkernel\tname=k\tparams=8:8\nhidden\tname=pad\tfunction=k\nhidden\tname=pair\tfunction=k\nhidden\tname=stash\tfunction=k\nop\tname=k\tfamily=atom.global\tinstruction=red.global.add.u32')"
}

# Inline PTX can close its function's body with a brace and declare memory
# at the module's scope after it, on the same line or the next, named as
# nvcc names printf's strings ($str$N): each declaration is read from its
# own statement, and a $str that is not text is refused as hidden.
@test "kernels.awk finds a variable declared after a brace, and one named like printf's text that is none" {
    local a=$BATS_TEST_TMPDIR/a.compute_90.ptx
    cat >"$a" <<'PTX'
.global .align 1 .b8 $str[6] = {104, 105, 32, 37, 100, 10};
.visible .func declare_ring()
{
	// begin inline asm
	ret;
} .global .align 16 .b8 ring[4194304]; .global .align 16 .b8 $str$77[4194304];
.func spare_function()
{
	// end inline asm
	ret;
}
PTX
    run table_without_feeds "$a"
    assert_success
    assert_output "$(printf '%s\n' \
        $'text\tname=$str\tbytes=6' \
        $'global\tname=ring\tbytes=4194304\tspace=global' \
        $'hidden\tname=$str$77\tfunction=(module scope)')"
}

# Device-side malloc keeps memory for the context's life, through every
# reload of the module; %warpid tells a kernel's warp slots, which a tool's
# extra registers change. However the PTX lays a call or a declaration out
# over its lines, the name is found; a comment, a longer name or the source's
# path (a student's folder named "free") is not it.
@test "kernels.awk finds malloc however a call or declaration is laid out, and a read of %warpid" {
    local a=$BATS_TEST_TMPDIR/a.compute_90.ptx
    cat >"$a" <<'PTX'
// a comment about malloc and free is no call
.file	1 "/home/course/.work/3-free/gpu-malloc %warpid/07-unrolled/unrolled.cu"
.extern .func (.param .b64 rv) /* malloc */ vprintf (.param .b64 fmt, .param .b64 args);
.global .align 4 .u32 my_malloc_count;
.visible .entry k(
	.param .u64 k_param_0
)
{
	// begin inline asm
	ret;
}
.extern .func (.param .b64 rv)
malloc (.param .b64 sz);
.func spare()
{
	// end inline asm
	call.uni (hr0),
	malloc
	, (hp0);
	ret;
}
.visible .entry slot(
	.param .u64 slot_param_0
)
{
	.loc	1 12 3
	mov.u32 %r1, %warpid;
	ret;
}
PTX
    run table_without_feeds "$a"
    assert_success
    assert_output "$(printf 'global\tname=my_malloc_count\tbytes=4\tspace=global\nkernel\tname=k\tparams=8:8\nclock\tname=k\tregister=malloc\nclock\tname=spare\tregister=malloc\nkernel\tname=slot\tparams=8:8\nclock\tname=slot\tregister=%%warpid')"
}

# The instructions a step's lesson may leave out (steps.conf lesson_forbids),
# found however a statement starts -- a predicate, a label, braces, several
# statements on a line of inline PTX, a predicate named with a $ -- in
# kernels and in functions that return a value, each family once a function; the
# same word in a comment, a string or another instruction's name is not one,
# nor a vote or barrier of one bit (any, or), which counts nothing.
@test "kernels.awk names the shuffles, warp and block sums, ballots, matrix and bulk instructions a function uses" {
    local a=$BATS_TEST_TMPDIR/a.compute_90.ptx
    cat >"$a" <<'PTX'
// shfl.sync.down.b32 in a comment is none
.file	1 "/home/course/redux.sync/vote/04.cu"
.visible .entry k(
	.param .u64 k_param_0
)
{
	.loc	1 23 9
	.loc	2 397 9, function_name $L__info_string0, inlined_at 1 23 9
	@%p1 shfl.sync.down.b32 	%r2|%p2, %r1, 16, 31, -1;
	shfl.sync.bfly.b32 	%r3, %r1, 1, 31, -1;
	activemask.b32 	%r4;
	red.global.add.u32 	[%rd1], %r1;
	atom.shared.add.u32 	%r5, [%r6], 1;
	red.relaxed.gpu.global.add.u32 	[%rd1], %r1;
	// begin inline asm
	{ add.s32 %r7, %r7, 1; $L_x: @!%p3 redux.sync.add.s32 %r8, %r7, -1; }
	// end inline asm
$L__BB0_2:
	vote.sync.any.pred 	%p5, %p1, -1;
	bar.red.or.pred 	%p6, 0, %p1;
	vote.sync.ballot.b32 	%r9, %p1, -1;
	bar.red.popc.u32 	%r10, 0, %p1;
	ret;
}
.func helper()
{
	barrier.cta.red.popc.aligned.u32 	%r1, 0, %p1;
	wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f1}, %rd1, %rd2, 1, 1, 1;
	mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2};
	cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd3], [%r2], 64;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r3], %r4, [%r5];
	red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r3], %r4, [%r5];
	ld.global.u32 %r6, [shfl_table];
	atom.release.gpu.global.add.u32 	%r7, [%rd4], %r8;
	ret;
}
.func  (.param .b32 func_retval0) _Z4warpi(
	.param .b32 _Z4warpi_param_0
)
{
	{ .reg .pred $every; setp.eq.u32 $every, %r2, %r2; @$every shfl.sync.down.b32 %r1, %r1, 16, 31, -1; }
	match.any.sync.b32 	%r3, %r1, -1;
	ret;
}
.visible .entry counter(
	.param .u64 counter_param_0
)
{
	atom.global.add.u32 	%r1, [blocks_run], 1;
	red.global.add.u32 	[blocks_run], 0x1;
	{ .reg .pred q; setp.eq.u32 q, %r2, %r2; @
	q redux.sync.add.s32 %r8, %r7, -1; @!
	q red.global.add.u32 [%rd1], %r8; }
	ret;
}
.visible .entry planes(
	.param .u64 planes_param_0
)
{
	red .global .add .u32 	[%rd1], 2;
	ret;
}
.visible .entry hinted(
	.param .u64 hinted_param_0
)
{
	red.global.add.L2::cache_hint.u32 	[%rd1], %r1, 0;
	movmatrix.sync.aligned.m8n8.trans.b16 	%r2, %r3;
	ret;
}
.visible .entry split(
	.param .u64 split_param_0
)
{
	atom
	// a comment between
	.global.add.u32 	%r1, [%rd1], %r2;
	ret;
}
	.file	1 "/home/course/04-reduction-interleaved/reduction_interleaved.cu"
	.file	2 "/usr/local/cuda/include/sm_30_intrinsics.hpp"
PTX
    run table_without_feeds "$a"
    assert_success
    assert_output "$(printf '%s\n' \
        $'kernel\tname=k\tparams=8:8' \
        $'kernel\tname=counter\tparams=8:8' \
        $'kernel\tname=planes\tparams=8:8' \
        $'kernel\tname=hinted\tparams=8:8' \
        $'kernel\tname=split\tparams=8:8' \
        $'op\tname=k\tfamily=shfl\tinstruction=shfl.sync.down.b32\twhere=reduction_interleaved.cu:23' \
        $'op\tname=k\tfamily=vote\tinstruction=activemask.b32\twhere=reduction_interleaved.cu:23' \
        $'op\tname=k\tfamily=atom.global\tinstruction=red.global.add.u32\twhere=reduction_interleaved.cu:23' \
        $'op\tname=k\tfamily=atom.shared\tinstruction=atom.shared.add.u32\twhere=reduction_interleaved.cu:23' \
        $'op\tname=k\tfamily=redux\tinstruction=redux.sync.add.s32\twhere=reduction_interleaved.cu:23' \
        $'op\tname=k\tfamily=bar.red\tinstruction=bar.red.popc.u32\twhere=reduction_interleaved.cu:23' \
        $'op\tname=helper\tfamily=bar.red\tinstruction=barrier.cta.red.popc.aligned.u32' \
        $'op\tname=helper\tfamily=mma\tinstruction=wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32' \
        $'op\tname=helper\tfamily=cp.async.bulk\tinstruction=cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32' \
        $'op\tname=helper\tfamily=st.async\tinstruction=st.async.shared::cluster.mbarrier::complete_tx::bytes.u32' \
        $'op\tname=helper\tfamily=cluster\tinstruction=st.async.shared::cluster.mbarrier::complete_tx::bytes.u32' \
        $'op\tname=helper\tfamily=red.async\tinstruction=red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32' \
        $'op\tname=helper\tfamily=atom.global\tinstruction=atom.release.gpu.global.add.u32' \
        $'op\tname=_Z4warpi\tfamily=shfl\tinstruction=shfl.sync.down.b32' \
        $'op\tname=_Z4warpi\tfamily=match\tinstruction=match.any.sync.b32' \
        $'op\tname=counter\tfamily=redux\tinstruction=redux.sync.add.s32' \
        $'op\tname=counter\tfamily=atom.global\tinstruction=red.global.add.u32' \
        $'op\tname=planes\tfamily=atom.global\tinstruction=red.global.add.u32' \
        $'op\tname=hinted\tfamily=atom.global\tinstruction=red.global.add.L2::cache_hint.u32' \
        $'op\tname=hinted\tfamily=mma\tinstruction=movmatrix.sync.aligned.m8n8.trans.b16' \
        $'op\tname=split\tfamily=atom.global\tinstruction=atom.global.add.u32')"
}

# ptxas reads a line left to right: a quote inside a comment opens no
# string, so code between two such comments is code (a clock read hidden
# there was missed); a block comment spans lines, and a brace in it closes
# no function (the code after it was once read as outside any); a
# comment's mark inside a string is text. A kernel declared for clusters, and the cluster's
# registers and shared memory, are named too.
@test "kernels.awk reads comments and strings as ptxas does, and names a kernel of a cluster" {
    local a=$BATS_TEST_TMPDIR/a.compute_90.ptx
    cat >"$a" <<'PTX'
.file	1 "/home/course/a/*b/\"x.cu"
.visible .entry k(
	.param .u64 k_param_0
)
{
	// begin inline asm
	/* " */ mov.u64 %rd1, %clock64; /* " */
	/* a comment over lines:
	shfl.sync.down.b32 %r1, %r2, 1, 31, -1;
	}
	mov.u32 %r3, %smid; */ add.s32 %r4, %r4, 1;
	redux.sync.add.s32 %r5, %r4, -1;
	// end inline asm
	ret;
}
.visible .entry c(
	.param .u64 c_param_0
)
.explicitcluster
.reqnctapercluster 4, 1, 1
{
	mapa.u64 	%rd7, %rd6, %r28;
	ret;
}
.visible .entry r(
	.param .u64 r_param_0
)
{
	mov.u32 %r8, %cluster_ctarank;
	ld.shared::cluster.u32 %r9, [%r8];
	ret;
}
PTX
    run table_without_feeds "$a"
    assert_success
    assert_output "$(printf '%s\n' \
        $'kernel\tname=k\tparams=8:8' \
        $'clock\tname=k\tregister=%clock64' \
        $'kernel\tname=c\tparams=8:8' \
        $'kernel\tname=r\tparams=8:8' \
        $'op\tname=k\tfamily=redux\tinstruction=redux.sync.add.s32' \
        $'op\tname=c\tfamily=cluster\tinstruction=.explicitcluster' \
        $'op\tname=r\tfamily=cluster\tinstruction=%cluster_ctarank')"
}

# A last block that learns it is last from a global atomic's old value must
# have a fence between the blocks' stores and their tickets (or an atomic
# that releases and acquires); so must one that counts itself in without
# the old value and reads the count back with a load that sees other
# blocks' writes (volatile, .cg); a shared-memory atomic is no race between
# blocks, and a counter that hands out work before anything is stored needs
# no fence.
@test "kernels.awk names a kernel that takes a ticket with a global atomic and has no fence" {
    local a=$BATS_TEST_TMPDIR/a.compute_90.ptx
    cat >"$a" <<'PTX'
.visible .entry bare(
	.param .u64 bare_param_0
)
{
	atom.global.add.u32 	%r1, [%rd1], %r2;
	st.global.u32 	[%rd2], %r3;
	atom.global.inc.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry queue(
	.param .u64 queue_param_0
)
{
	ld.param.u64 	%rd1, [queue_param_0];
$L__BB0_1:
	atom.global.add.u32 	%r37, [next], 256;
	setp.ge.u32 	%p1, %r37, %r9;
	mul.wide.u32 	%rd3, %r37, 4;
	add.s64 	%rd15, %rd1, %rd3;
	ld.global.u32 	%r40, [%rd15];
	@!%p1 bra 	$L__BB0_1;
	st.global.u32 	[%rd2], %r3;
	ret;
}
.visible .entry fenced(
	.param .u64 fenced_param_0
)
{
	membar.gl;
	atom.global.add.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ret;
}
.visible .entry ordered(
	.param .u64 ordered_param_0
)
{
	atom.acq_rel.gpu.global.add.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ret;
}
.visible .entry unused(
	.param .u64 unused_param_0
)
{
	atom.global.add.u32 	%r26, [%rd8], %r25;
	atom.shared.add.u32 	%r27, [%r8], 1;
	setp.eq.s32 	%p1, %r27, %r9;
	ret;
}
.visible .entry late(
	.param .u64 late_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	atom.global.inc.u32 	%r37, [%rd14], 1;
	membar.gl;
	setp.eq.s32 	%p1, %r37, %r9;
	ld.global.u32 	%r40, [%rd15];
	ret;
}
.visible .entry exchanged(
	.param .u64 exchanged_param_0
)
{
	atom.global.exch.b32 	%r1, [%rd2], %r3;
	atom.global.inc.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ld.global.u32 	%r40, [%rd15];
	ret;
}
.visible .entry sample(
	.param .u64 sample_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	membar.gl;
	atom.global.inc.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ld.volatile.global.u32 	%r40, [%rd15];
	ret;
}
.visible .entry reread(
	.param .u64 reread_param_0
)
{
	st.global.u32 	[%rd12], %r36;
	atom.global.add.u32 	%r37, [%rd14], 1;
	ld.volatile.global.u32 	%r38, [%rd14];
	setp.eq.s32 	%p1, %r38, %r9;
	ld.global.cg.s32 	%r42, [%rd15];
	ret;
}
.visible .entry atomread(
	.param .u64 atomread_param_0
)
{
	st.global.u32 	[%rd12], %r36;
	atom.global.add.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	atom.global.add.u32 	%r42, [%rd15], 0;
	add.s32 	%r43, %r42, %r9;
	ret;
}
.visible .entry counted(
	.param .u64 counted_param_0
)
{
	st.global.u32 	[%rd12], %r36;
	red.global.add.u32 	[%rd14], %r3;
	ld.global.nc.u32 	%r42, [%rd15];
	ret;
}
.visible .entry blockfence(
	.param .u64 blockfence_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	membar.cta;
	atom.global.inc.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ld.global.u32 	%r40, [%rd15];
	ret;
}
.visible .entry acquired(
	.param .u64 acquired_param_0
)
{
	st.release.gpu.global.u32 	[%rd2], %r3;
	atom.acquire.gpu.global.inc.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ld.global.u32 	%r40, [%rd15];
	ret;
}
.visible .entry named(
	.param .u64 named_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	{ .reg .u32 t; atom.global.add.u32 t, [%rd14], 1; setp.eq.s32 %p1, t, %r9; }
	ld.global.u32 	%r40, [%rd15];
	ret;
}
.visible .entry noalloc(
	.param .u64 noalloc_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	atom.global.add.u32 	%r37, [%rd14], 1;
	ld.global.L1::no_allocate.u32 	%r38, [%rd14];
	ret;
}
.visible .entry copied(
	.param .u64 copied_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	atom.global.inc.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	cp.async.cg.shared.global [%r1], [%rd15], 16;
	ret;
}
.visible .entry blockscope(
	.param .u64 blockscope_param_0
)
{
	st.relaxed.cta.u32 	[%rd2], 0;
	atom.relaxed.cta.add.u32 	%r5, [%rd2], %r6;
	ld.relaxed.cta.u32 	%r7, [%rd2];
	red.global.add.u32 	[%rd3], %r7;
	ret;
}
.visible .entry debugcount(
	.param .u64 debugcount_param_0
)
{
	st.global.u32 	[last_n], %r3;
	atom.global.add.u32 	%r1, [blocks_run], 1;
	atom.global.add.u32 	%r2, [%rd3], %r4;
	ret;
}
.visible .entry released(
	.param .u64 released_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	fence.release.gpu;
	atom.global.inc.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry alone(
	.param .u64 alone_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	membar.gl;
	@%p9 bra 	$L__BB0_2;
	st.global.u32 	[%rd1], %r4;
	bra.uni 	$L__BB0_9;
$L__BB0_2:
	atom.global.inc.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
$L__BB0_9:
	ret;
}
.visible .entry partials(
	.param .u64 partials_param_0
)
{
	atom.global.add.u32 	%r1, [%rd2], %r3;
	atom .global .inc .u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ldu.global.u32 	%r40, [%rd15];
	ret;
}
.visible .entry scoped(
	.param .u64 scoped_param_0
)
{
	cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 	[%rd2], [%r2], 16;
	atom.relaxed.cta.global.add.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry plainreread(
	.param .u64 plainreread_param_0
)
{
	ld.param.u64 	%rd1, [plainreread_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	st.global.u32 	[%rd5], %r3;
	mul.wide.u32 	%rd13, %r14, 4;
	add.s64 	%rd14, %rd2, %rd13;
	atom.global.add.u32 	%r34, [%rd14], 1;
	mul.wide.u32 	%rd15, %r14, 4;
	add.s64 	%rd16, %rd2, %rd15;
	ld.global.u32 	%r35, [%rd16];
	ld.global.u32 	%r40, [%rd18];
	ret;
}
.visible .entry plaincount(
	.param .u64 plaincount_param_0
)
{
	ld.param.u64 	%rd1, [plaincount_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	st.global.u32 	[%rd5], %r3;
	mul.wide.u32 	%rd13, %r14, 4;
	add.s64 	%rd14, %rd2, %rd13;
	atom.global.add.u32 	%r34, [%rd14], 1;
	ld.global.u32 	%r40, [%rd18];
	ld.global.u32 	%r14, [%rd18];
	mul.wide.u32 	%rd15, %r14, 4;
	add.s64 	%rd16, %rd2, %rd15;
	ld.global.u32 	%r35, [%rd16];
	ret;
}
.visible .entry ctareads(
	.param .u64 ctareads_param_0
)
{
	ld.param.u64 	%rd3, [ctareads_param_0];
	st.global.u32 	[%rd5], %r3;
	atom.global.add.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	add.s64 	%rd15, %rd3, %rd16;
	ld.relaxed.cta.b32 %r42,[%rd15];
	ret;
}
.visible .entry deadfence(
	.param .u64 deadfence_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	@%p1 bra 	$L__BB0_3;
	membar.gl;
$L__BB0_3:
	atom.global.add.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p2, %r37, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry guardedfence(
	.param .u64 guardedfence_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	@%p1 membar.gl;
	atom.global.add.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p2, %r37, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry bothpaths(
	.param .u64 bothpaths_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	@%p1 bra 	$L__BB0_1;
	membar.gl;
	bra.uni 	$L__BB0_2;
$L__BB0_1:
	membar.gl;
$L__BB0_2:
	atom.global.add.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p2, %r37, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry firstblock(
	.param .u64 firstblock_param_0
)
{
	ld.param.u64 	%rd1, [firstblock_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	st.global.u32 	[last_n], %r1;
	atom.global.add.u32 	%r2, [blocks_run], 1;
	setp.ne.s32 	%p1, %r2, 0;
	ld.global.u32 	%r3, [%rd2];
	ret;
}
.visible .entry tilequeue(
	.param .u64 tilequeue_param_0,
	.param .u64 tilequeue_param_1
)
{
	ld.param.u64 	%rd1, [tilequeue_param_0];
	ld.param.u64 	%rd5, [tilequeue_param_1];
	atom.global.add.u32 	%r3, [%rd5], %r2;
	atom.global.add.u32 	%r1, [tiles], 1;
	setp.lt.u32 	%p1, %r1, %r9;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.u32 	%r4, [%rd4];
	ret;
}
.visible .entry streamcount(
	.param .u64 streamcount_param_0
)
{
	ld.param.u64 	%rd1, [streamcount_param_0];
	st.global.u32 	[debug_n], %r1;
	red.global.add.u32 	[counter], 1;
	ld.global.cs.u32 	%r3, [%rd1];
	ld.global.cs.u32 	%r4, [%rd1+4];
	ret;
}
.visible .entry clustered(
	.param .u64 clustered_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	atom.acq_rel.cluster.global.add.u32 	%r5, [%rd7], 0;
	atom.global.add.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry ctaselp(
	.param .u64 ctaselp_param_0,
	.param .u64 ctaselp_param_1
)
{
	ld.param.u64 	%rd1, [ctaselp_param_0];
	ld.param.u64 	%rd2, [ctaselp_param_1];
	st.global.u32 	[%rd5], %r3;
	selp.b64 	%rd9, %rd1, %rd2, %p3;
	atom.relaxed.cta.add.u32 	%r37, [%rd9], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry movreread(
	.param .u64 movreread_param_0
)
{
	ld.param.u64 	%rd4, [movreread_param_0];
	cvta.to.global.u64 	%rd1, %rd4;
	st.global.u32 	[%rd13], %r36;
	mul.wide.u32 	%rd14, %r37, 4;
	add.s64 	%rd15, %rd1, %rd14;
	atom.global.add.u32 	%r38, [%rd15], 1;
	add.s64 	%rd11, %rd4, %rd14;
	mov.b64 	%rd10, %rd11;
	ld.u32 	%r39, [%rd10];
	ld.global.u32 	%r43, [%rd17];
	ret;
}
.visible .entry ctashared(
	.param .u64 ctashared_param_0
)
{
	ld.param.u64 	%rd3, [ctashared_param_0];
	st.global.u32 	[%rd5], %r3;
	atom.global.add.u32 	%r37, [%rd14], 1;
	setp.eq.s32 	%p1, %r37, %r9;
	mov.u32 	%r18, block_sum;
	{ .reg .b64 %tmp;
	  cvt.u64.u32 	%tmp, %r18;
	  cvta.shared.u64 	%rd9, %tmp; }
	add.s64 	%rd15, %rd9, %rd16;
	ld.relaxed.cta.b32 %r42,[%rd15];
	ret;
}
.visible .entry loopticket(
	.param .u64 loopticket_param_0
)
{
	ld.param.u64 	%rd1, [loopticket_param_0];
$L__BB9_1:
	atom.global.add.u32 	%r5, [count], 1;
	setp.eq.s32 	%p1, %r5, %r9;
	@%p1 ld.global.u32 	%r6, [%rd1];
	st.global.u32 	[%rd1], %r3;
	@%p2 bra 	$L__BB9_1;
	ret;
}
.visible .entry loopfenced(
	.param .u64 loopfenced_param_0
)
{
	ld.param.u64 	%rd1, [loopfenced_param_0];
$L__BB10_1:
	atom.global.add.u32 	%r5, [count], 1;
	setp.eq.s32 	%p1, %r5, %r9;
	@%p1 ld.global.u32 	%r6, [%rd1];
	st.global.u32 	[%rd1], %r3;
	membar.gl;
	@%p2 bra 	$L__BB10_1;
	ret;
}
.visible .entry loopafter(
	.param .u64 loopafter_param_0
)
{
	ld.param.u64 	%rd1, [loopafter_param_0];
$L__BB11_1:
	@%p3 bra 	$L__BB11_2;
	st.global.u32 	[%rd1], %r3;
	bra.uni 	$L__BB11_3;
$L__BB11_2:
	atom.global.add.u32 	%r5, [count], 1;
	setp.eq.s32 	%p1, %r5, %r9;
$L__BB11_3:
	@%p2 bra 	$L__BB11_1;
	@!%p1 bra 	$L__BB11_4;
	ld.volatile.global.u32 	%r6, [%rd1];
$L__BB11_4:
	ret;
}
.visible .entry minclamp(
	.param .u64 minclamp_param_0,
	.param .u32 minclamp_param_1
)
{
	ld.param.u64 	%rd10, [minclamp_param_0];
	ld.param.u32 	%r13, [minclamp_param_1];
	st.global.u32 	[last_grid], %r15;
	mov.u64 	%rd12, blocks_done;
	atom.global.add.u32 	%r16, [%rd12], 1;
	mul.wide.u32 	%rd13, %r13, 4;
	add.s64 	%rd14, %rd10, %rd13;
	add.s64 	%rd15, %rd10, 15;
	and.b64 	%rd16, %rd15, -16;
	min.u64 	%rd1, %rd14, %rd16;
	add.s64 	%rd19, %rd1, %rd20;
	ld.global.cs.v4.s32 {%r20,%r21,%r22,%r23}, [%rd19];
	ret;
}
.visible .entry queuelast(
	.param .u64 queuelast_param_0,
	.param .u64 queuelast_param_1
)
{
	ld.param.u64 	%rd1, [queuelast_param_0];
	ld.param.u64 	%rd2, [queuelast_param_1];
$L__BB0_1:
	atom.global.add.u32 	%r1, [next], 1;
	setp.ge.u32 	%p1, %r1, %r9;
	@%p1 bra 	$L__BB0_2;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.u32 	%r4, [%rd4];
	st.global.u32 	[%rd2], %r4;
	bra.uni 	$L__BB0_1;
$L__BB0_2:
	membar.gl;
	atom.global.inc.u32 	%r5, [count], %r9;
	setp.eq.s32 	%p2, %r5, %r9;
	@!%p2 bra 	$L__BB0_3;
	ld.volatile.global.u32 	%r6, [%rd2];
$L__BB0_3:
	ret;
}
PTX
    run table_without_feeds "$a"
    assert_success
    # (Every global atomic is also an op of family atom.global, which the
    # lessons of steps 04, 05 and 07 refuse: the test above.)
    output=$(grep -v $'\tfamily=atom.global\t' <<<"$output")
    # A fence after the ticket orders nothing before it (late), and a
    # partial sum put in place by an atomic is written as a store is
    # (exchanged); the fence of CUDA's threadFenceReduction sample is
    # between the store and the ticket (sample). A count read back
    # (reread, noalloc) or the others' sums read by atomics (atomread) or
    # copied (copied) make a ticket; a count with only read-only loads
    # after it does not (counted), nor a counter's add and a sum's, their
    # old values unused (debugcount). Only a fence of the GPU orders the
    # blocks (blockfence), only an atomic that releases is one (acquired),
    # a register may be named without % (named), and what a block does at
    # its own scope is no ticket (blockscope). A fence that releases is one
    # (released); a block alone that stores the sum and leaves after the
    # fence takes no ticket on that path (alone); partial sums added into
    # place or reduced by the TMA are writes, a ticket's modifiers may
    # stand apart, and a block's scope on global memory orders nothing
    # between blocks (partials, scoped). A count read back by a plain load
    # of its own address, then the others' sums, is a ticket (plainreread);
    # a plain load of another address is no read-back, though it holds the
    # same register, written anew (plaincount). A block-scoped load through
    # a kernel's pointer argument reads global memory (ctareads); through a
    # shared variable's generic address, the block's own (ctashared), and
    # so is one through an address picked by selp from arguments (ctaselp).
    # A read after a ticket counts where it may be of a buffer written
    # before: not the input, read after a first-block test of a debugging
    # counter (firstblock), a work queue's next tile (tilequeue) or a counter
    # whose old value is unused (streamcount). A release at a cluster's
    # scope orders nothing between clusters (clustered); a count read back
    # through a copy of a generic address is read back (movreread). A
    # fence that a branch jumps over, or one under a guard, may not run
    # (deadfence, guardedfence); one on each path does (bothpaths). A loop
    # that stores on one pass and takes its ticket on the next is read a
    # second time (loopticket), on to the text after the loop where the
    # last block reads the others' sums (loopafter), and is clean with a
    # fence before its way back (loopfenced); a work queue's atomic in a
    # loop is no ticket of the input it hands out (queue), nor of the
    # partial sums it stores on each pass, where the last block is found
    # after the loop by a ticket taken behind a fence (queuelast). The input read
    # through a pointer clamped to its end (min) is still the input, after
    # a debugging store and a count (minclamp).
    assert_output "$(printf '%s\n' \
        $'kernel\tname=bare\tparams=8:8' \
        $'unfenced\tname=bare\tinstruction=atom.global.inc.u32' \
        $'kernel\tname=queue\tparams=8:8' \
        $'kernel\tname=fenced\tparams=8:8' \
        $'kernel\tname=ordered\tparams=8:8' \
        $'kernel\tname=unused\tparams=8:8' \
        $'kernel\tname=late\tparams=8:8' \
        $'unfenced\tname=late\tinstruction=atom.global.inc.u32' \
        $'kernel\tname=exchanged\tparams=8:8' \
        $'unfenced\tname=exchanged\tinstruction=atom.global.inc.u32' \
        $'kernel\tname=sample\tparams=8:8' \
        $'kernel\tname=reread\tparams=8:8' \
        $'unfenced\tname=reread\tinstruction=atom.global.add.u32' \
        $'kernel\tname=atomread\tparams=8:8' \
        $'unfenced\tname=atomread\tinstruction=atom.global.add.u32' \
        $'kernel\tname=counted\tparams=8:8' \
        $'kernel\tname=blockfence\tparams=8:8' \
        $'unfenced\tname=blockfence\tinstruction=atom.global.inc.u32' \
        $'kernel\tname=acquired\tparams=8:8' \
        $'unfenced\tname=acquired\tinstruction=atom.acquire.gpu.global.inc.u32' \
        $'kernel\tname=named\tparams=8:8' \
        $'unfenced\tname=named\tinstruction=atom.global.add.u32' \
        $'kernel\tname=noalloc\tparams=8:8' \
        $'unfenced\tname=noalloc\tinstruction=atom.global.add.u32' \
        $'kernel\tname=copied\tparams=8:8' \
        $'unfenced\tname=copied\tinstruction=atom.global.inc.u32' \
        $'kernel\tname=blockscope\tparams=8:8' \
        $'kernel\tname=debugcount\tparams=8:8' \
        $'kernel\tname=released\tparams=8:8' \
        $'kernel\tname=alone\tparams=8:8' \
        $'kernel\tname=partials\tparams=8:8' \
        $'unfenced\tname=partials\tinstruction=atom.global.inc.u32' \
        $'kernel\tname=scoped\tparams=8:8' \
        $'unfenced\tname=scoped\tinstruction=atom.relaxed.cta.global.add.u32' \
        $'kernel\tname=plainreread\tparams=8:8' \
        $'unfenced\tname=plainreread\tinstruction=atom.global.add.u32' \
        $'kernel\tname=plaincount\tparams=8:8' \
        $'kernel\tname=ctareads\tparams=8:8' \
        $'unfenced\tname=ctareads\tinstruction=atom.global.add.u32' \
        $'kernel\tname=deadfence\tparams=8:8' \
        $'unfenced\tname=deadfence\tinstruction=atom.global.add.u32' \
        $'kernel\tname=guardedfence\tparams=8:8' \
        $'unfenced\tname=guardedfence\tinstruction=atom.global.add.u32' \
        $'kernel\tname=bothpaths\tparams=8:8' \
        $'kernel\tname=firstblock\tparams=8:8' \
        $'kernel\tname=tilequeue\tparams=8:8,8:8' \
        $'kernel\tname=streamcount\tparams=8:8' \
        $'kernel\tname=clustered\tparams=8:8' \
        $'unfenced\tname=clustered\tinstruction=atom.global.add.u32' \
        $'kernel\tname=ctaselp\tparams=8:8,8:8' \
        $'unfenced\tname=ctaselp\tinstruction=atom.relaxed.cta.add.u32' \
        $'kernel\tname=movreread\tparams=8:8' \
        $'unfenced\tname=movreread\tinstruction=atom.global.add.u32' \
        $'kernel\tname=ctashared\tparams=8:8' \
        $'kernel\tname=loopticket\tparams=8:8' \
        $'unfenced\tname=loopticket\tinstruction=atom.global.add.u32' \
        $'kernel\tname=loopfenced\tparams=8:8' \
        $'kernel\tname=loopafter\tparams=8:8' \
        $'unfenced\tname=loopafter\tinstruction=atom.global.add.u32' \
        $'kernel\tname=minclamp\tparams=8:8,4:4' \
        $'kernel\tname=queuelast\tparams=8:8,8:8' \
        $'op\tname=unused\tfamily=atom.shared\tinstruction=atom.shared.add.u32' \
        $'op\tname=blockscope\tfamily=atom.shared\tinstruction=atom.relaxed.cta.add.u32' \
        $'op\tname=scoped\tfamily=cp.async.bulk\tinstruction=cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32')"
}

# A __noinline__ helper is a function of its own in the PTX, called: its
# body counts where it is called, so a store, a fence or a ticket moved
# into one is seen as in the kernel (06-last-block-noinline-store,
# -noinline-ticket), and a fence a helper makes is a fence.
@test "kernels.awk reads a device function's body where a kernel calls it" {
    local a=$BATS_TEST_TMPDIR/a.compute_90.ptx
    cat >"$a" <<'PTX'
.func _Z3putPii(
	.param .b64 _Z3putPii_param_0,
	.param .b32 _Z3putPii_param_1
)
{
	ld.param.u64 	%rd1, [_Z3putPii_param_0];
	ld.param.u32 	%r1, [_Z3putPii_param_1];
	st.global.u32 	[%rd1], %r1;
	ret;
}
.func _Z9fence_allv()
{
	membar.gl;
	ret;
}
.func _Z11maybe_fenceb(
	.param .b32 _Z11maybe_fenceb_param_0
)
{
	@%p1 bra 	$L__BB2_2;
	membar.gl;
$L__BB2_2:
	ret;
}
.func  (.param .b32 func_retval0) _Z11take_ticketPj(
	.param .b64 _Z11take_ticketPj_param_0
)
{
	ld.param.u64 	%rd1, [_Z11take_ticketPj_param_0];
	atom.global.add.u32 	%r1, [%rd1], 1;
	st.param.b32 	[func_retval0+0], %r1;
	ret;
}
.visible .entry stored(
	.param .u64 stored_param_0
)
{
	{ // callseq 0, 0
	call.uni 
	_Z3putPii, 
	(
	param0, 
	param1
	);
	} // callseq 0
	atom.global.add.u32 	%r4, [%rd5], 1;
	setp.eq.s32 	%p1, %r4, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry helperfence(
	.param .u64 helperfence_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	{ // callseq 1, 0
	call.uni 
	_Z9fence_allv, 
	(
	);
	} // callseq 1
	atom.global.add.u32 	%r4, [%rd5], 1;
	setp.eq.s32 	%p1, %r4, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry maybe(
	.param .u64 maybe_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	{ // callseq 2, 0
	call.uni 
	_Z11maybe_fenceb, 
	(
	param0
	);
	} // callseq 2
	atom.global.add.u32 	%r4, [%rd5], 1;
	setp.eq.s32 	%p1, %r4, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry ticketed(
	.param .u64 ticketed_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	{ // callseq 3, 0
	.param .b32 retval0;
	call.uni (retval0), 
	_Z11take_ticketPj, 
	(
	param0
	);
	ld.param.b32 	%r37, [retval0+0];
	} // callseq 3
	setp.eq.s32 	%p8, %r37, %r38;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry guardcall(
	.param .u64 guardcall_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	@%p4 call.uni 	_Z9fence_allv, ();
	atom.global.add.u32 	%r4, [%rd5], 1;
	setp.eq.s32 	%p1, %r4, %r9;
	ld.global.cg.u32 	%r40, [%rd15];
	ret;
}
.visible .entry untaken(
	.param .u64 untaken_param_0
)
{
	st.global.u32 	[%rd2], %r3;
	{ // callseq 4, 0
	.param .b32 retval0;
	call.uni (retval0), 
	_Z11take_ticketPj, 
	(
	param0
	);
	ld.param.b32 	%r37, [retval0+0];
	} // callseq 4
	ld.global.u32 	%r40, [%rd15];
	ret;
}
PTX
    run table_without_feeds "$a"
    assert_success
    output=$(grep -v $'\tfamily=atom.global\t' <<<"$output")
    # A store in a helper, then the ticket (stored); a helper's fence
    # (helperfence), one it may skip (maybe), and one a guarded call may
    # skip (guardcall); a ticket a helper takes and returns, used
    # (ticketed) or not (untaken).
    assert_output "$(printf '%s\n' \
        $'kernel\tname=stored\tparams=8:8' \
        $'unfenced\tname=stored\tinstruction=atom.global.add.u32' \
        $'kernel\tname=helperfence\tparams=8:8' \
        $'kernel\tname=maybe\tparams=8:8' \
        $'unfenced\tname=maybe\tinstruction=atom.global.add.u32' \
        $'kernel\tname=ticketed\tparams=8:8' \
        $'unfenced\tname=ticketed\tinstruction=atom.global.add.u32' \
        $'kernel\tname=guardcall\tparams=8:8' \
        $'unfenced\tname=guardcall\tinstruction=atom.global.add.u32' \
        $'kernel\tname=untaken\tparams=8:8')"
}

# Honest kernels once flagged (a helper hunting false alarms): a flag stored
# after the fence, before the ticket, leaves the fenced partial sums
# fenced (flagafter); a struct's pointers are buffers of their own
# (structargs); a cp.async of the input after a counter reads no written
# buffer (staged); libcu++'s device-scope counter is a generic atomic on a
# module variable, adding a 1 held in a register (libcucount), and
# atomicInc's operand is where it wraps (wraps): neither is a sum.
@test "kernels.awk leaves honest debugging aids alone: a flag after the fence, a struct's pointers, a staged input, libcu++ and atomicInc counters" {
    local a=$BATS_TEST_TMPDIR/a.compute_90.ptx
    cat >"$a" <<'PTX'
.global .align 4 .u32 blocks_seen;
.visible .entry flagafter(
	.param .u64 flagafter_param_0,
	.param .u64 flagafter_param_1
)
{
	ld.param.u64 	%rd1, [flagafter_param_0];
	ld.param.u64 	%rd2, [flagafter_param_1];
	st.global.u32 	[%rd1], %r1;
	membar.gl;
	st.global.u32 	[%rd2], %r2;
	atom.global.add.u32 	%r3, [%rd1+4], 1;
	setp.eq.s32 	%p1, %r3, %r9;
	ld.global.cg.u32 	%r4, [%rd1];
	ret;
}
.visible .entry structargs(
	.param .align 8 .b8 structargs_param_0[40]
)
{
	ld.param.u64 	%rd4, [structargs_param_0+8];
	ld.param.u64 	%rd5, [structargs_param_0+16];
	ld.param.u64 	%rd6, [structargs_param_0];
	st.global.u32 	[%rd5], %r1;
	atom.global.add.u32 	%r3, [blocks_seen], 1;
	setp.eq.s32 	%p1, %r3, 0;
	ld.global.u32 	%r4, [%rd6];
	ret;
}
.visible .entry staged(
	.param .u64 staged_param_0
)
{
	ld.param.u64 	%rd3, [staged_param_0];
	cvta.to.global.u64 	%rd4, %rd3;
	st.global.u32 	[blocks_seen], %r1;
	atom.global.add.u32 	%r3, [blocks_seen], 1;
	setp.eq.s32 	%p1, %r3, 0;
	cp.async.ca.shared.global [%r5], [%rd4], 4, 4;
	ret;
}
.visible .entry libcucount(
	.param .u64 libcucount_param_0
)
{
	mov.u64 	%rd10, blocks_seen;
	cvta.global.u64 	%rd6, %rd10;
	mov.u32 	%r26, 1;
	atom.add.relaxed.gpu.u32 %r25,[%rd6],%r26;
	ret;
}
.visible .entry wraps(
	.param .u64 wraps_param_0
)
{
	atom.global.inc.u32 	%r25, [blocks_seen], %r9;
	ret;
}
PTX
    run table_without_feeds "$a"
    assert_success
    assert_output "$(printf '%s\n' \
        $'global\tname=blocks_seen\tbytes=4\tspace=global' \
        $'kernel\tname=flagafter\tparams=8:8,8:8' \
        $'kernel\tname=structargs\tparams=40:8' \
        $'kernel\tname=staged\tparams=8:8' \
        $'kernel\tname=libcucount\tparams=8:8' \
        $'kernel\tname=wraps\tparams=8:8')"
}

@test "kernels.awk reads a carriage return, form feed or vertical tab as a space, and a predicate spaced out" {
    local a=$BATS_TEST_TMPDIR/a.compute_90.ptx
    {
        printf '.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n'
        # A variable hidden behind a carriage return, as in asm("{ \r.global ...").
        printf '\t{ \r.global .align 16 .b8 ring[4194304]; .reg .u64 a; mov.u64 a, ring; }\n'
        printf '\t@ %%p1 shfl.sync.down.b32 \t%%r2, %%r1, 16, 31, -1;\n'
        printf '\t@! %%p2\fredux.sync.add.s32 %%r8, %%r7, -1;\n'
        printf '\t%%r9 = 0;\v%%r10 = %%total_smem_size;\n'
        printf '\tret;\n}\n'
    } >"$a"
    run table_without_feeds "$a"
    assert_success
    assert_line --regexp $'^hidden\tname=ring\tfunction=k$'
    assert_line $'op\tname=k\tfamily=shfl\tinstruction=shfl.sync.down.b32'
    assert_line $'op\tname=k\tfamily=redux\tinstruction=redux.sync.add.s32'
    assert_line --regexp $'^clock\tname=k\tregister=%total_smem_size$'
}

@test "integrity: a variable declared inside a kernel's inline PTX fails, naming it" {
    slow_test "a copy compiled"
    need_solutions
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/07-hidden-launch-counter.patch")
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^\.global launches in void reduce_unrolled<[0-9]+u>\(int const\*, int\*, unsigned int\): a variable declared inside a kernel.s inline PTX'
}

# A file that names a file that never ends (/dev/ptmx), where no nvcc pass
# reads it (#ifndef __CUDACC__) and in each spelling of an include, does not
# keep the check from ending: it finds what it finds, in seconds
# (tests/mutants/06-integrity-hung-by-ptmx-import.patch).
@test "integrity: an include of a file that never ends, in any spelling, does not hang the check" {
    slow_test "a copy compiled"
    need_solutions
    local file spelling
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/06-integrity-hung-by-ptmx-import.patch")
    for spelling in '#import "/dev/ptmx"' '%:include "/dev/ptmx"' '#  include_next "/dev/ptmx"' $'#inc\\\nlude "/dev/ptmx"'; do
        sed -i '/ptmx/d; /^#inc\\$/d' "$file"
        sed -i "s|^#ifndef __CUDACC__\$|#ifndef __CUDACC__\n$spelling|" "$file"
        grep -q ptmx "$file" || fail "the test's edit did not apply: $spelling"
        SECONDS=0
        run timeout 60 "$WORKBOOK_DIR/grading/integrity" "$file"
        assert_failure 1
        assert_line --partial "printf: prints from the host"
        [ "$SECONDS" -lt 15 ] || fail "the check took $SECONDS s with $spelling"
    done
}

# Host code that the build compiled and that the check's copy of it cannot
# compile again -- a string literal that reads like nvcc's stand-in for a
# __device__ function, which the check rewrites -- is a finding: the file
# keeps the check from running (tests/mutants/07-integrity-not-compiled.patch).
@test "integrity: a build's host code that its copy cannot compile again is a finding, not a check left undone" {
    slow_test "a copy built"
    need_solutions
    local step=07-unrolled copy=$BATS_TEST_TMPDIR/wb file
    mkdir -p "$copy"
    (cd "$WORKBOOK_DIR" && tar -cf - --exclude='*/build' --exclude='*_solution' common grading steps.conf "$step") | tar -xf - -C "$copy"
    file=$copy/$step/unrolled.cu
    echo 'static_assert(sizeof("{int volatile ___ = 1;::exit(___);}") == 36, "as the build compiles it");' >>"$file"
    make -s -C "$copy/$step" all SM=90 >/dev/null 2>&1 || fail "the copy does not build"
    run "$WORKBOOK_DIR/grading/integrity" --object "$copy/$step/build/unrolled.o" "$file"
    assert_failure 1
    assert_line --partial "unrolled.cu: the host code the build compiled does not compile again as this check reads it"
}

# The toolkit's headers define inline variables in every file that includes
# them (nm's "u", unique symbols the linker makes one): data of the headers,
# which the harness's own includes define too, never a finding.
# A kernel's head however it is written is the file's own: CUDA's
# __maxnreg__ where __launch_bounds__ goes, a comment with a "(" between
# the return type and the name, a nested namespace (namespace a::b).
@test "integrity: a kernel's head with __maxnreg__, a comment or a nested namespace is the file's own" {
    slow_test "a copy compiled"
    need_solutions
    local copy=$BATS_TEST_TMPDIR/heads file version
    mkdir -p "$copy"
    cp -r "$WORKBOOK_DIR/solutions" "$copy/"
    file=$copy/solutions/05-reduction-sequential/reduction_sequential.cu
    version=$("$(cuda_tool nvcc)" --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
    local maxnreg=""
    read -r major minor <<<"$version"
    [ "$major" -gt 12 ] || { [ "$major" -eq 12 ] && [ "$minor" -ge 4 ]; } && maxnreg="__maxnreg__(32)"
    sed -i "s|^__global__ void reduce_sequential(|namespace workbook::reduction {\n__global__ void $maxnreg  // one level (of the tree)\nreduce_sequential(|" "$file"
    sed -i 's|^void sum_sequential|}  // namespace workbook::reduction\nusing workbook::reduction::reduce_sequential;\nvoid sum_sequential|' "$file"
    grep -q '^reduce_sequential(' "$file" && grep -q 'namespace workbook::reduction' "$file" || fail "the test's edit did not apply"
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_success
}

@test "integrity: libcu++ headers included in an honest file are clean" {
    slow_test "a copy compiled"
    need_solutions
    file=$(mutant_file "$WORKBOOK_DIR/tests/mutants/07-honest-libcuxx-include.patch")
    sed -i 's|^#include <cuda/std/utility>.*|&\n#include <cuda/std/array>\n#include <cuda/std/tuple>\n#include <cuda/std/span>\n#include <cuda/std/functional>|' "$file"
    grep -q '<cuda/std/span>' "$file" || fail "the test's edit did not apply"
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_success
}

@test "integrity: <iostream> included is clean, though libstdc++ before GCC 13 makes a global object of it; a global object of the file's own beside it is not" {
    need_solutions
    local file=$BATS_TEST_TMPDIR/reduction_direct.cu
    { echo '#include <iostream>  // for the debugging a learner did, and undid'
      cat "$WORKBOOK_DIR/solutions/06-reduction-direct/reduction_direct.cu"; } >"$file"
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_success
    # libstdc++ 13 and later put a directive in its place, which links the
    # library's own set-up: the header's line, here whatever the compiler.
    sed -i '1a __extension__ __asm (".globl _ZSt21ios_base_library_initv");' "$file"
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_success
    # Where the host compiler still puts <iostream>'s object into the file
    # (GCC 12 and older), the same file with one more global object fails,
    # naming what that object leaves: the constructor and its registration.
    printf 'struct counter { counter() { static volatile int calls; calls = 1; } ~counter() {} };\nstatic counter calls;\n' >>"$file"
    run "$WORKBOOK_DIR/grading/integrity" "$file"
    assert_failure 1
    assert_line --regexp '^\.init_array: 1 function\(s\) that run before or after main'
    assert_line --regexp '^__cxa_atexit: '
}
