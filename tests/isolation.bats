#!/usr/bin/env bats
# tests/run: about 2 s, 37 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# The learner's code never runs in the program that checks and times it
# (common/core/plan.h): no function the learner's file defines is linked into
# ./PROGRAM, the program that takes --records; its planner, build/PROGRAM.plan,
# holds them. Needs no GPU: nm reads the programs the build made.

load helpers
bats_require_minimum_version 1.5.0

# global_text FILE: the global functions FILE defines, one a line, sorted.
global_text() { nm --defined-only "$1" | awk '$2 == "T" { print $3 }' | sort -u; }
# defined FILE: every symbol FILE defines, sorted.
defined() { nm --defined-only "$1" | awk '{ print $3 }' | sort -u; }

@test "no function of the learner's file is linked into the program that takes --records, for every step" {
    command -v nm >/dev/null || skip "no nm here"
    local dir name program object checked=0 learner linked
    for dir in "${STEP_DIRS[@]}"; do
        name=$(program_of "$dir")
        for program in "$name" "${name}_solution"; do
            [ -x "$dir$program" ] || continue
            object=$dir/build/$program.o
            [ -f "$object" ] || fail "$program was built without its learner object $object"
            learner=$(global_text "$object")
            [ -n "$learner" ] || fail "$object defines no function: nothing to check"
            linked=$(comm -12 <(echo "$learner") <(defined "$dir$program"))
            [ -z "$linked" ] || fail "$(basename "$dir")/$program links the learner's $(echo $linked)"
            # They are in the planner, where the learner's host code runs.
            [ -z "$(comm -23 <(echo "$learner") <(defined "$dir/build/$program.plan"))" ] ||
                fail "$(basename "$dir")/build/$program.plan lacks some of the learner's functions"
            checked=$((checked + 1))
        done
    done
    [ "$checked" -ge "${#STEP_DIRS[@]}" ] || fail "only $checked programs were built to check"
}

# A copy of step 04 whose exercise adds PROBE (C++ at file scope) to the
# reference solution, built; sets W. The planner runs the file's host code,
# static constructors first, when the program surveys the file: before it
# opens a GPU, so this needs none.
probe_build() {
    command -v nvcc >/dev/null || skip "no nvcc"
    [ -d "$WORKBOOK_DIR/solutions/04-reduction-interleaved" ] || skip "no solutions/ here"
    one_architecture_without_gpu
    W=$BATS_TEST_TMPDIR/wb
    mkdir -p "$W"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude=./tests --exclude='./0[1-35-8]-*' -cf - .) | tar -xf - -C "$W"
    { cat "$W/solutions/04-reduction-interleaved/reduction_interleaved.cu"; printf '%s\n' "$1"; } \
        >"$W/04-reduction-interleaved/reduction_interleaved.cu"
    make -s -C "$W/04-reduction-interleaved" all >"$BATS_TEST_TMPDIR/build.log" 2>&1 || fail "$(tail -n 20 "$BATS_TEST_TMPDIR/build.log")"
}

@test "the planner cannot signal, limit or outgrow others: fcntl, prlimit64 and shared memory are refused it" {
    slow_test "a copy of the workbook built, its planner run"
    probe_build '#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
__attribute__((constructor)) static void probe(void)
{
    struct rlimit old;
    int own = fcntl(3, F_SETOWN, getppid());
    int limit = prlimit(getppid(), RLIMIT_NOFILE, NULL, &old);
    int own_limit = prlimit(0, RLIMIT_NOFILE, NULL, &old);
    void *shared = mmap(NULL, 2ull << 30, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    fprintf(stderr, "probe: F_SETOWN %d, prlimit of the program %d, its own %d, 2 GB shared %s\n", own, limit,
            own_limit, shared == MAP_FAILED ? "refused" : "mapped");
}'
    run --separate-stderr "$W/04-reduction-interleaved/reduction_interleaved" --check -n 1000
    [[ $stderr == *"probe: F_SETOWN -1, prlimit of the program -1, its own 0, 2 GB shared refused"* ]] || fail "$stderr"
}

@test "a planner that lingers after it has answered is ended, and the program says why" {
    slow_test "a planner waited out"
    probe_build '#include <stdlib.h>
#include <unistd.h>
static void linger(void) { sleep(600); }
__attribute__((constructor)) static void probe(void) { atexit(linger); }'
    SECONDS=0
    run --separate-stderr timeout 60 "$W/04-reduction-interleaved/reduction_interleaved" --check -n 1000
    assert_failure 3
    [ "$SECONDS" -lt 30 ] || fail "it took ${SECONDS}s"
    [[ $stderr == *"kept the planner"*"running 5 s after it had answered"* ]] || fail "$stderr"
}

# The planner of step 06 built from FILE (the learner's file) in a copy, asked
# for one call at n=1000000, block 256, as plan-probe asks (tests/toolkits):
# the lines it writes down.
plan_of_06() {
    command -v nvcc >/dev/null || skip "no nvcc"
    one_architecture_without_gpu
    W=$BATS_TEST_TMPDIR/wb
    mkdir -p "$W"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude=./tests --exclude='./0[1-57-8]-*' -cf - .) | tar -xf - -C "$W"
    cp "$1" "$W/06-reduction-direct/reduction_direct.cu"
    make -s -C "$W/06-reduction-direct" all >"$BATS_TEST_TMPDIR/build.log" 2>&1 || fail "$(tail -n 20 "$BATS_TEST_TMPDIR/build.log")"
    local build=$W/06-reduction-direct/build
    {
        awk -F'\t' '$1 == "kernel" {
            line = "kernel\t" $2 "\tparams="; split($3, p, "="); n = split(p[2], items, ","); end = 0
            for (i = 1; i <= n; i++) { split(items[i], sa, ":"); off = int((end + sa[2] - 1) / sa[2]) * sa[2]
                line = line (i > 1 ? "," : "") sa[1] "@" off; end = off + sa[1] }
            print line }' "$build/reduction_direct.kernels"
        printf 'plan\tid=direct\tn=1000000\tblock=256x1\n'
    } | "$build/reduction_direct.plan" 3>&1 1>/dev/null 2>&1
}

@test "the planner writes work on cudaStreamPerThread or cudaStreamLegacy down as on the default stream, and a stream of its own as another" {
    slow_test "a copy of step 06 built, its planner run"
    [ -f "$WORKBOOK_DIR/tests/honest/06-per-thread-default-stream.cu" ] || skip "no tests/honest/ here"
    run plan_of_06 "$WORKBOOK_DIR/tests/honest/06-per-thread-default-stream.cu"
    assert_line --regexp $'^memset\t.*\tstream=0$'
    assert_line --regexp $'^launch\tkernel=[^\t]*reduce_direct.*\tstream=0\tparams='
    sed 's/cudaStreamPerThread/cudaStreamLegacy/g' "$WORKBOOK_DIR/tests/honest/06-per-thread-default-stream.cu" >"$BATS_TEST_TMPDIR/legacy.cu"
    run plan_of_06 "$BATS_TEST_TMPDIR/legacy.cu"
    assert_line --regexp $'^launch\tkernel=[^\t]*reduce_direct.*\tstream=0\tparams='
    # Any other handle is another stream: the audit refuses it.
    sed 's/cudaStreamPerThread/(cudaStream_t)0x10/g' "$WORKBOOK_DIR/tests/honest/06-per-thread-default-stream.cu" >"$BATS_TEST_TMPDIR/other.cu"
    run plan_of_06 "$BATS_TEST_TMPDIR/other.cu"
    assert_line --regexp $'^launch\tkernel=[^\t]*reduce_direct.*\tstream=1\tparams='
}
