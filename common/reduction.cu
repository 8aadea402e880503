// reduction.cu: the reduction track's harness (see reduction.h): its inputs,
// its reference and its comparisons, plugged into the flow every step shares
// (run_step, harness.h). In this track's terms, at each size and block size:
//   1. check: every kernel runs twice on fresh random ints, its output poisoned
//      first. Once on an input followed by a guard of large values, so that a
//      read past the end changes the sum; once on an input allocated to the
//      exact size, so that compute-sanitizer's memcheck sees such a read.
//   2. time (unless --check): a device-to-device copy of the same bytes (the
//      ceiling), the track's first kernel, the step's starting kernel and the
//      learner's (and any given kernel the step compares them with),
//      interleaved, the L2 flushed before each run. Before each run of a
//      kernel, warm-up included, the GPU draws it an input of its own (and
//      adds it up, exactly, in 64 bits); the sum of every run is kept and
//      checked against it. A graded rate above PLAUSIBLE_PCT_CEILING of the
//      copy's fails; then the exact input is refilled with fresh values and
//      the graded kernel checked once more;
//   3. audit (audit.h): one of the graded kernel's checks, drawn at random,
//      traced with CUPTI and checked against what the step must launch.
//
// Napkin math for the ceiling: a reduction reads 4n bytes and writes nothing
// worth counting, so its best time is 4n bytes over the memory bandwidth. The
// copy moves 8n bytes (read + write) and shows what that bandwidth is on this
// GPU, in this run: on an H100, 2^26 ints (268 MB) copy in about 0.18 ms, so a
// perfect reduction of them takes about 0.09 ms.
#include "reduction.h"

#include "audit.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    POISON_BYTE = 0xAB,         // outputs start as 0xABABABAB (-1414812757) before every run
    GUARD_BYTE = 0x01,          // the guard past the input holds 0x01010101 (16843009) in every int
    GUARD_INTS = 1 << 16,       // ints of guard: more than any plausible overrun
    MAX_VALUE = 1000,           // inputs are 1..MAX_VALUE, less where n is large (see input_bound)
    MIN_BLOCK = 32,
    MAX_BLOCK = 1024,
};
static const int POISON_INT = (int)0xABABABABu;
static const int GUARD_INT = 0x01010101;

// ===========================================================================
// The track's first kernel: interleaved addressing, divergent branching
// ===========================================================================

__global__ void reduce_interleaved_divergent(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;  // past the end, add nothing
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        // Active threads are scattered (every 2s-th): each warp is split by the
        // branch, and % is a slow instruction.
        if (tid % (2 * s) == 0)
            partial[tid] += partial[tid + s];
        __syncthreads();  // this level's sums are written before the next level reads them
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

static void sum_interleaved_divergent(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_interleaved_divergent, 1, d_in, n, block, d_work, d_sum);
}

const step_kernel reduction_track_first = {
    .id = "interleaved_divergent",
    .label = "interleaved, divergent branches",
    .sum = sum_interleaved_divergent,
};

// ===========================================================================
// Multi-pass driver
// ===========================================================================

void reduce_in_passes(reduce_pass_kernel kernel, int per_thread, const int *d_in, unsigned int n, int block,
                      int *d_work, int *d_sum)
{
    const int *in = d_in;
    int *out = d_work;
    for (;;) {
        unsigned int grid = ceil_div(n, per_thread * block);
        int *dst = (grid == 1) ? d_sum : out;
        kernel<<<grid, block, block * sizeof(int)>>>(in, dst, n);
        CUDA_CHECK_LAUNCH();
        if (grid == 1)
            return;
        in = dst;  // the next level sums this level's partial sums
        out = dst + grid;
        n = grid;
    }
}

unsigned int reduce_work_ints(unsigned int n, int block)
{
    unsigned int total = 0;
    for (unsigned int m = ceil_div(n, block); m > 1; m = ceil_div(m, block))
        total += m;
    return total;
}

// ===========================================================================
// Inputs and the reference
// ===========================================================================

// Inputs are drawn from 1..bound with n * bound <= INT_MAX, so no partial sum,
// in any order, can overflow an int. All positive: a dropped or doubled
// element always changes the sum.
static int input_bound(unsigned int n)
{
    unsigned int b = INT_MAX / n;
    return b > MAX_VALUE ? MAX_VALUE : (int)b;
}

// Fill h[0..n) for data set `set` of size n; return the exact sum.
static long long fill_input(int *h, unsigned int n, uint64_t seed, int set)
{
    int bound = input_bound(n);
    long long sum = 0;
    for (unsigned int i = 0; i < n; i++) {
        h[i] = 1 + (int)(random_u64(seed, 2ull * n + set, i) % (uint64_t)bound);
        sum += h[i];
    }
    return sum;
}

// A fresh input on the GPU, for one timed run: data set `stream` of size n,
// drawn as fill_input draws it, and its exact sum added into *sum (zeroed
// first). Each block adds its share with one 64-bit atomic.
__global__ void fill_fresh_input(int *in, unsigned int n, uint64_t seed, uint64_t stream, int bound,
                                 unsigned long long *sum)
{
    __shared__ unsigned long long warp_sums[32];
    unsigned long long mine = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int v = 1 + (int)(random_u64(seed, stream, i) % (uint64_t)bound);
        in[i] = v;
        mine += v;
    }
    for (int offset = 16; offset > 0; offset /= 2)
        mine += __shfl_down_sync(0xffffffffu, mine, offset);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (unsigned int w = 0; w < blockDim.x / 32; w++)
            total += warp_sums[w];
        atomicAdd(sum, total);
    }
}

enum { FILL_BLOCK = 256 };  // a multiple of 32: fill_fresh_input adds up whole warps

// ===========================================================================
// The size at hand
// ===========================================================================

typedef struct {
    reduce_fn sum;  // NULL for the copy
    int *d_in;      // a contender's: refilled before each run
    int *d_out;     // the sum, or the copy's destination
    unsigned int n;
    int block;
    int *d_work;
    uint64_t seed;
    int *d_kept;                     // the sum each run left, by call, to be checked after timing
    unsigned long long *d_expected;  // the sum of the input each run had, by call
} timed_run;

// What the hooks below share: one size's inputs and the buffers of its runs.
static struct {
    unsigned int n;
    int *d_guarded, *d_exact;                    // the input followed by a guard, and one of the exact size
    long long expected_guarded, expected_exact;  // their sums
    int *d_sum;                                  // where each checked run leaves its sum
    int *d_work;                                 // partial sums, sized to the block at hand
    unsigned int work_ints;
    // Timing (unless --check): the contenders' input, drawn afresh for every
    // run; the copy's destination; each contender's sum; by contender and
    // call, the sum each run left and the sum of its input (on the GPU, then
    // one contender's on the host).
    timed_run *runs;
    int calls;  // WARMUP_CALLS + reps
    int *d_fresh, *d_copy, *d_outs, *d_kept, *kept;
    unsigned long long *d_expected, *expected;
} size;

// Every fresh input in this program is a data set of its own.
static uint64_t next_fresh_stream = FRESH_STREAMS;

static void prepare(const flow_point *at, int count)
{
    memset(&size, 0, sizeof size);
    unsigned int n = size.n = (unsigned int)at->n;
    size_t bytes = (size_t)n * sizeof(int);
    bool timing = !at->opt->check_only;
    // Exact + guarded inputs, partial sums; when timing, the fresh input and the copy's destination.
    require_device_memory((timing ? 4 : 2) * bytes + GUARD_INTS * sizeof(int) + bytes / 16, "this size");

    int *h_in = (int *)malloc(bytes);
    if (!h_in)
        die(EXIT_USAGE, "cannot allocate %zu bytes of host memory for n=%u: choose a smaller --size", bytes, n);
    set_activity("preparing the inputs for n=%u", n);
    CUDA_CHECK(cudaMalloc(&size.d_guarded, bytes + GUARD_INTS * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&size.d_exact, bytes));
    CUDA_CHECK(cudaMalloc(&size.d_sum, sizeof(int)));
    size.expected_guarded = fill_input(h_in, n, at->opt->seed, 0);
    CUDA_CHECK(cudaMemcpy(size.d_guarded, h_in, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(size.d_guarded + n, GUARD_BYTE, GUARD_INTS * sizeof(int)));
    size.expected_exact = fill_input(h_in, n, at->opt->seed, 1);
    CUDA_CHECK(cudaMemcpy(size.d_exact, h_in, bytes, cudaMemcpyHostToDevice));
    free(h_in);

    if (!timing)
        return;
    int calls = size.calls = WARMUP_CALLS + at->opt->reps;
    size.runs = (timed_run *)calloc(count + 1, sizeof *size.runs);
    size.kept = (int *)malloc(sizeof(int) * calls);
    size.expected = (unsigned long long *)malloc(sizeof(unsigned long long) * calls);
    if (!size.runs || !size.kept || !size.expected)
        die(EXIT_CUDA, "out of host memory");
    CUDA_CHECK(cudaMalloc(&size.d_fresh, bytes));
    CUDA_CHECK(cudaMalloc(&size.d_copy, bytes));
    CUDA_CHECK(cudaMalloc(&size.d_outs, sizeof(int) * count));
    CUDA_CHECK(cudaMalloc(&size.d_kept, sizeof(int) * count * calls));
    CUDA_CHECK(cudaMalloc(&size.d_expected, sizeof(unsigned long long) * count * calls));
}

// Partial sums: as many as reduce_in_passes needs at this block size, and no
// more, so that compute-sanitizer sees a kernel that writes past them.
static void use_block(const flow_point *at)
{
    CUDA_CHECK(cudaFree(size.d_work));
    size.d_work = NULL;
    size.work_ints = reduce_work_ints(size.n, at->block.x);
    if (size.work_ints)
        CUDA_CHECK(cudaMalloc(&size.d_work, size.work_ints * sizeof(int)));
}

static void release(void)
{
    CUDA_CHECK(cudaFree(size.d_guarded));
    CUDA_CHECK(cudaFree(size.d_exact));
    CUDA_CHECK(cudaFree(size.d_sum));
    CUDA_CHECK(cudaFree(size.d_work));
    CUDA_CHECK(cudaFree(size.d_fresh));
    CUDA_CHECK(cudaFree(size.d_copy));
    CUDA_CHECK(cudaFree(size.d_outs));
    CUDA_CHECK(cudaFree(size.d_kept));
    CUDA_CHECK(cudaFree(size.d_expected));
    free(size.runs);
    free(size.kept);
    free(size.expected);
}

// ===========================================================================
// Checking
// ===========================================================================

static bool block_ok(block_shape b)
{
    return b.y == 1 && b.x >= MIN_BLOCK && b.x <= MAX_BLOCK && (b.x & (b.x - 1)) == 0;
}

static const block_rule blocks = {
    .default_block = {256, 1},
    .two_d = false,
    .rule = "a power of two, 32 to 1024",
    .ok = block_ok,
};

// What a wrong sum suggests, for the learner: a sentence (into buf).
static const char *explain_mismatch(long long expected, int got, bool guarded, unsigned int n, char *buf,
                                    size_t len)
{
    if (got == POISON_INT) {
        snprintf(buf, len, "the result is the poison value 0x%08X: nothing wrote the sum", (unsigned)POISON_INT);
        return buf;
    }
    // A read of the guard adds 16843009 each time (modulo 2^32).
    uint32_t excess = (uint32_t)got - (uint32_t)(int)expected;
    uint32_t reads = (excess + GUARD_INT / 2) / GUARD_INT;
    int32_t rest = (int32_t)(excess - reads * (uint32_t)GUARD_INT);
    if (guarded && reads >= 1 && reads <= GUARD_INTS && (rest < 0 ? -(int64_t)rest : rest) < GUARD_INT / 4)
        snprintf(buf, len,
                 "too large by about %u x %d, the value just past the end of the input: the kernel reads past "
                 "element n-1 = %u",
                 reads, GUARD_INT, n - 1);
    else if (got < expected)
        snprintf(buf, len,
                 "short by %lld: some elements were never added (those past the last full block are a usual "
                 "suspect)",
                 expected - got);
    else
        snprintf(buf, len,
                 "too large by %lld: some elements or partial sums were added twice, or a slot was read before it "
                 "was written",
                 (long long)got - expected);
    return buf;
}

// The outputs of a run poisoned: a sum or a partial sum nobody wrote shows.
static void poison_outputs(void)
{
    CUDA_CHECK(cudaMemset(size.d_sum, POISON_BYTE, sizeof(int)));
    if (size.work_ints)
        CUDA_CHECK(cudaMemset(size.d_work, POISON_BYTE, size.work_ints * sizeof(int)));
}

static bool check(const flow_point *at, const contender *c, bool guarded, bool audited)
{
    unsigned int n = size.n;
    int block = at->block.x;
    const char *role = role_names[c->role];
    long long expected = guarded ? size.expected_guarded : size.expected_exact;
    set_activity("checking '%s' [%s] at n=%u, block %d, on the %s input", c->kernel->label, role, n, block,
                 guarded ? "guarded" : "exact-size");
    poison_outputs();
    if (audited)
        audit_begin();
    c->kernel->sum(guarded ? size.d_guarded : size.d_exact, n, block, size.d_work, size.d_sum);
    if (audited)
        audit_end();
    CUDA_CHECK(cudaDeviceSynchronize());  // a fault inside the kernel is reported here
    int got;
    CUDA_CHECK(cudaMemcpy(&got, size.d_sum, sizeof got, cudaMemcpyDeviceToHost));
    set_activity("%s", "");

    bool ok = (long long)got == expected;
    char hint[256];
    if (at->opt->machine) {
        if (ok)
            print_record("check", "step=%s\tn=%u\tblock=%d\tid=%s\trole=%s\tinput=%s\tresult=ok", at->step, n, block,
                         c->kernel->id, role, guarded ? "guarded" : "exact");
        else
            print_record("check", "step=%s\tn=%u\tblock=%d\tid=%s\trole=%s\tinput=%s\tresult=mismatch\texpected=%lld"
                                  "\tgot=%d\thint=%s",
                         at->step, n, block, c->kernel->id, role, guarded ? "guarded" : "exact", expected, got,
                         explain_mismatch(expected, got, guarded, n, hint, sizeof hint));
    } else if (!ok) {
        printf("MISMATCH: '%s' [%s] at n=%u, block %d (%s input): sum expected %lld, got %d\n", c->kernel->label,
               role, n, block, guarded ? "guarded" : "exact-size", expected, got);
        printf("    hint: %s\n", explain_mismatch(expected, got, guarded, n, hint, sizeof hint));
    }
    return ok;
}

// ===========================================================================
// Timing
// ===========================================================================

static void run_sum(void *arg)
{
    timed_run *r = (timed_run *)arg;
    r->sum(r->d_in, r->n, r->block, r->d_work, r->d_out);
}

// Before each run, untimed: an input no run has seen, its sum, and the
// output poisoned.
static void fresh_input(void *arg, int call)
{
    timed_run *r = (timed_run *)arg;
    CUDA_CHECK(cudaMemsetAsync(r->d_expected + call, 0, sizeof *r->d_expected));
    fill_fresh_input<<<4 * current_device()->sm_count, FILL_BLOCK>>>(r->d_in, r->n, r->seed, next_fresh_stream++,
                                                                     input_bound(r->n), r->d_expected + call);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemsetAsync(r->d_out, POISON_BYTE, sizeof(int)));
}

// On the GPU, after each run, untimed: the sum it left, kept.
static void keep_sum(void *arg, int call)
{
    timed_run *r = (timed_run *)arg;
    CUDA_CHECK(cudaMemcpyAsync(r->d_kept + call, r->d_out, sizeof(int), cudaMemcpyDeviceToDevice));
}

static void run_copy(void *arg)
{
    timed_run *r = (timed_run *)arg;
    CUDA_CHECK(cudaMemcpyAsync(r->d_out, r->d_in, (size_t)r->n * sizeof(int), cudaMemcpyDeviceToDevice));
}

static void describe(const flow_point *at, char *buf, size_t len)
{
    size_t bytes = (size_t)size.n * sizeof(int), l2_bytes = current_device()->l2_bytes;
    char in[32], l2[32];
    snprintf(buf, len, "n = %u ints (%s, %.1fx the %s L2)", size.n, human_bytes((double)bytes, in, sizeof in),
             (double)bytes / l2_bytes, human_bytes((double)l2_bytes, l2, sizeof l2));
}

// The ceiling: a copy of the same bytes, which moves twice what a reduction reads.
static void timed_tasks(const flow_point *at, const contender *cs, int count, timed_entry *entries)
{
    int block = at->block.x, calls = size.calls;
    double bytes = (double)size.n * sizeof(int);
    size.runs[0] = (timed_run){.d_in = size.d_exact, .d_out = size.d_copy, .n = size.n, .block = block};
    entries[0] = (timed_entry){.id = "copy",
                               .label = "device-to-device copy",
                               .work = 2 * bytes,
                               .task = {run_copy, NULL, &size.runs[0], NULL}};
    for (int i = 0; i < count; i++) {
        timed_run *r = &size.runs[i + 1];
        *r = (timed_run){cs[i].kernel->sum,         size.d_fresh,           size.d_outs + i,
                         size.n,                    block,                  size.d_work,
                         at->opt->seed,             size.d_kept + i * calls, size.d_expected + i * calls};
        entries[i + 1].work = bytes;
        entries[i + 1].task = (timed_task){run_sum, fresh_input, r, keep_sum};
    }
}

static bool timed_right(const flow_point *at, int i, char *why, size_t len)
{
    int calls = size.calls, bad = 0, first = -1;
    CUDA_CHECK(cudaMemcpy(size.kept, size.d_kept + i * calls, sizeof(int) * calls, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(size.expected, size.d_expected + i * calls, sizeof *size.expected * calls,
                          cudaMemcpyDeviceToHost));
    for (int c = 0; c < calls; c++)
        if ((long long)size.kept[c] != (long long)size.expected[c] && bad++ == 0)
            first = c;
    if (bad)
        snprintf(why, len, "gave a wrong sum in %d of %d runs of the timing, %d warm-up included (run %d: %d instead "
                 "of %llu)", bad, calls, WARMUP_CALLS, first + 1, size.kept[first], size.expected[first]);
    return bad == 0;
}

// ===========================================================================
// After timing: the exact input refilled
// ===========================================================================

// Data set 2 + block_index (0 and 1 are the guarded and the exact input).
static void refill(const flow_point *at, int block_index)
{
    int *h = (int *)malloc((size_t)size.n * sizeof(int));
    if (!h)
        die(EXIT_USAGE, "cannot allocate %zu bytes of host memory for n=%u", (size_t)size.n * sizeof(int), size.n);
    set_activity("refilling the input at n=%u", size.n);
    size.expected_exact = fill_input(h, size.n, at->opt->seed, 2 + block_index);
    CUDA_CHECK(cudaMemcpy(size.d_exact, h, (size_t)size.n * sizeof(int), cudaMemcpyHostToDevice));
    free(h);
}

// ===========================================================================
// The track
// ===========================================================================

static const track reduction = {
    .name = "reduction",
    .size_meaning = "ints to sum",
    .size_symbol = "n",
    .default_size = 1ull << 26,
    .max_size = 1ull << 30,
    .default_reps = 100,
    .blocks = &blocks,
    .first = &reduction_track_first,
    .first_timed = &reduction_track_first,
    .rate_unit = "GB/s",
    .ceiling_name = "copy",
    .checks_cover = "block sizes, guarded and exact-size inputs",
    .fresh_inputs = "the input buffer held fresh values: does it remember a sum from an earlier call?",
    .prepare = prepare,
    .use_block = use_block,
    .check = check,
    .describe = describe,
    .timed_tasks = timed_tasks,
    .timed_right = timed_right,
    .refill = refill,
    .release = release,
};

int reduction_main(int argc, char **argv, const step_spec *step)
{
    return run_step(argc, argv, &reduction, step);
}
