// reduction.cu: the reduction track's harness (see reduction.h): its inputs,
// its reference and its comparisons, plugged into the flow every step shares
// (step_main, harness.h). In this track's terms, at each size and block size:
//   1. check: every kernel runs twice on random ints, drawn again on the GPU
//      just before, its output poisoned first. Once on an input followed by a
//      guard of large values, so that a read past the end changes the sum;
//      once on an input allocated to the exact size, so that
//      compute-sanitizer's memcheck sees such a read. The exact sums are
//      added up on the host, where no kernel reaches them.
//   2. time (unless --check): a device-to-device copy of the same bytes (the
//      ceiling), the track's first kernel, the step's starting kernel and the
//      learner's (and any given kernel the step compares them with),
//      interleaved, the L2 flushed before each run. Each run is on the
//      exact-size check's buffers -- its input, its partial sums, its sum --
//      so that no address tells a check from a timed run. Before each run of
//      a kernel, warm-up included, the GPU draws it an input of its own and
//      poisons its sum and partial sums, as before a check; after
//      it, the GPU adds up that data set afresh, exactly, in 64 bits, from
//      the generator, not from the buffer the kernel could change, and the
//      two sums go to the host at once. Then the exact input is refilled with
//      fresh values and every kernel checked once more.
//
// Napkin math for the ceiling: a reduction reads 4n bytes and writes nothing
// worth counting, so its best time is 4n bytes over the memory bandwidth. The
// copy moves 8n bytes (read + write) and shows what that bandwidth is on this
// GPU, in this run: on an H100, 2^26 ints (268 MB) copy in about 0.18 ms, so a
// perfect reduction of them takes about 0.09 ms.
#include "reduction.h"

#include "audit.h"
#include "plan.h"

// The one CUB header it needs: <cub/cub.cuh> pulls in all of CUB, and with
// CUDA 11.8 its <map> does not compile under g++ 12.
#include <cub/device/device_reduce.cuh>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    .run = REDUCE_FN(sum_interleaved_divergent),
};

// ===========================================================================
// The library to measure against: CUB
// ===========================================================================

// CUB picks its own block size and grid, and finishes in a second, tiny
// launch over the partial sums. Its scratch memory is allocated on the first
// call, which is a correctness check, never a timed run.
static void sum_cub(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    static void *scratch = NULL;
    static size_t scratch_bytes = 0;
    size_t need = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(NULL, need, d_in, d_sum, (int)n));  // asks the size only
    if (need > scratch_bytes) {
        CUDA_CHECK(cudaFree(scratch));
        CUDA_CHECK(cudaMalloc(&scratch, need));
        scratch_bytes = need;
    }
    CUDA_CHECK(cub::DeviceReduce::Sum(scratch, scratch_bytes, d_in, d_sum, (int)n));
}

const step_kernel reduction_cub = {.id = "cub", .label = "CUB DeviceReduce::Sum", .run = REDUCE_FN(sum_cub)};

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

// Element i of data set `stream` of size n: 1..bound, the same on the host and the GPU.
static inline __host__ __device__ int input_value(uint64_t seed, uint64_t stream, unsigned int i, int bound)
{
    return 1 + (int)(random_u64(seed, stream, i) % (uint64_t)bound);
}

// The exact sum of data set `stream` of size n, on the host, where no kernel
// reaches it: split over the host's cores, a thread for about every
// SUM_SLICE elements. Every run at the timed size makes two of these before
// its first call -- a timed run, each pass of the lesson's profile, each
// sanitizer. On an H200's host (2026-12-01) step 04's check at 2^26
// (--check --exact) took 1.01 s with both sums on one core, 0.53 s split.
enum { SUM_SLICE = 1 << 20, MAX_SUM_THREADS = 16 };

typedef struct {
    unsigned int begin, end;
    uint64_t seed, stream;
    int bound;
    long long sum;
} sum_slice;

static void *sum_slice_run(void *arg)
{
    sum_slice *s = (sum_slice *)arg;
    long long sum = 0;
    for (unsigned int i = s->begin; i < s->end; i++)
        sum += input_value(s->seed, s->stream, i, s->bound);
    s->sum = sum;
    return NULL;
}

static long long input_sum(unsigned int n, uint64_t seed, uint64_t stream)
{
    sum_slice slices[MAX_SUM_THREADS];
    pthread_t threads[MAX_SUM_THREADS];
    bool started[MAX_SUM_THREADS] = {false};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int count = (int)(n / SUM_SLICE) + 1;
    if (count > MAX_SUM_THREADS)
        count = MAX_SUM_THREADS;
    if (cores >= 1 && count > cores)
        count = (int)cores;
    for (int t = 0; t < count; t++)
        slices[t] = (sum_slice){.begin = (unsigned int)((uint64_t)n * t / count),
                                .end = (unsigned int)((uint64_t)n * (t + 1) / count),
                                .seed = seed,
                                .stream = stream,
                                .bound = input_bound(n)};
    // A thread that cannot start (a limit on threads or memory) leaves its slice to this one.
    for (int t = 1; t < count; t++)
        started[t] = pthread_create(&threads[t], NULL, sum_slice_run, &slices[t]) == 0;
    long long sum = 0;
    for (int t = 0; t < count; t++) {
        if (started[t])
            pthread_join(threads[t], NULL);
        else
            sum_slice_run(&slices[t]);
        sum += slices[t].sum;
    }
    return sum;
}

// Data set `stream` of size n into in[0..n), on the GPU.
__global__ void fill_input(int *in, unsigned int n, uint64_t seed, uint64_t stream, int bound)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        in[i] = input_value(seed, stream, i, bound);
}

// The exact sum of data set `stream` of size n, added into *sum (zeroed
// first), on the GPU, from the generator: a kernel that changed its input
// changes nothing here. Each block adds its share with one 64-bit atomic.
__global__ void sum_input(unsigned int n, uint64_t seed, uint64_t stream, int bound, unsigned long long *sum)
{
    __shared__ unsigned long long warp_sums[32];
    unsigned long long mine = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        mine += input_value(seed, stream, i, bound);
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

enum { FILL_BLOCK = 256 };  // a multiple of 32: sum_input adds up whole warps

// Data set `stream` with every element one up, the largest wrapping to 1:
// element i is input_value's mod bound, plus 1. A data set like any other,
// drawn from the same range (wrong_slices says what it is for).
__global__ void fill_input_next(int *in, unsigned int n, uint64_t seed, uint64_t stream, int bound)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        in[i] = input_value(seed, stream, i, bound) % bound + 1;
}

// The data set of the checks' inputs: the guarded one, the exact one, then
// one more for the exact input at each refill.
static uint64_t check_stream(unsigned int n, int set)
{
    return 2ull * n + set;
}

// ===========================================================================
// The size at hand
// ===========================================================================

// One timed entry: what it runs, on what, and how each of its runs went.
typedef struct {
    const step_kernel *kernel;  // NULL for the copy
    const plan *plan;           // the learner's: the plan replayed (plan.h)
    int *d_in;                  // a contender's: drawn afresh before each run
    int *d_out;                 // the sum, or the copy's destination
    unsigned int n;
    int block;
    int *d_work;
    unsigned int work_ints;
    uint64_t seed;
    uint64_t stream;            // the data set of the run at hand
    int bad, first_bad;         // runs with a wrong sum, and the first of them (by call)
    int first_got;
    unsigned long long first_expected;
} timed_run;

// What the hooks below share: one size's inputs and the buffers of its runs.
static struct {
    unsigned int n;
    int *d_guarded, *d_exact;                    // the input followed by a guard, and one of the exact size
    int exact_set;                               // the data set of the exact input (check_stream)
    long long expected_guarded, expected_exact;  // their sums, on the host
    int *d_sum;                                  // where each checked run leaves its sum
    int *d_work;                                 // partial sums, sized to the block at hand
    unsigned int work_ints;
    // Timing (unless --check), on the exact input and d_sum: the copy's
    // destination; the exact sum of the run at hand's input, made after it.
    timed_run *runs;
    int *d_copy;
    unsigned long long *d_expected;
} size;

// Every fresh input in this program is a data set of its own.
static uint64_t next_fresh_stream = FRESH_STREAMS;

static int helper_grid(void)
{
    return 4 * current_device()->sm_count;
}

static void prepare(const flow_point *at, int count)
{
    memset(&size, 0, sizeof size);
    unsigned int n = size.n = (unsigned int)at->n;
    size_t bytes = (size_t)n * sizeof(int);
    bool timing = !at->opt->check_only;
    // Exact + guarded inputs, the copy's destination, partial sums.
    require_device_memory(3 * bytes + GUARD_INTS * sizeof(int) + bytes / 16, "this size");

    set_activity("preparing the inputs for n=%u", n);
    // The inputs are const to the learner's kernels, and the copy's
    // destination is not theirs: all three mapped read-only for each of the
    // learner's calls (harness_read_only), so that no kernel can write its
    // own elements back, or park them where no census looks.
    size.d_guarded = (int *)harness_alloc(bytes + GUARD_INTS * sizeof(int));
    size.d_exact = (int *)harness_alloc(bytes);
    CUDA_CHECK(cudaMalloc(&size.d_sum, sizeof(int)));
    // What a timed run uses besides, in a check too: the same buffers in the
    // same order, so that where the partial sums lie from the input (both a
    // kernel's arguments) tells a check from a timed run of the same size
    // nothing.
    size.d_copy = (int *)harness_alloc(bytes);
    CUDA_CHECK(cudaMalloc(&size.d_expected, sizeof *size.d_expected));
    size.exact_set = 1;
    size.expected_guarded = input_sum(n, at->opt->seed, check_stream(n, 0));
    size.expected_exact = input_sum(n, at->opt->seed, check_stream(n, size.exact_set));
    if (!timing)
        return;
    size.runs = (timed_run *)calloc(count + 1, sizeof *size.runs);
    if (!size.runs)
        die(EXIT_CUDA, "out of host memory");
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

// The elements each block of the first level sums, per_thread * block, where
// the call is the learner's plan at a step of levels, has more than one level
// (a single level writes the sum itself) and n is a whole number of them (so
// that every block has as many, however the step's blocks share the input
// out); else 0.
static unsigned int level_slice(const plan *p, unsigned int n, int block)
{
    unsigned int slice = (unsigned int)(audit_levels_per_thread() * block);
    if (!p || !slice || n <= slice || n % slice)
        return 0;
    // Where slice is 0 or 1 modulo the inputs' bound, a block that sums
    // nothing, or a copy of the input, would move as a block's sum does
    // (wrong_slices): such sizes are not read so. The timed size is: 2^26
    // ints are drawn from 1..31, and 256 and 512 are 8 and 16 modulo 31.
    if (slice % input_bound(n) <= 1)
        return 0;
    return slice;
}

// A call's buffers, in the order of reduce_fn's pointer arguments: the input
// (n ints), the partial sums, the sum.
static int region_bytes(unsigned long long n, block_shape block, size_t *bytes)
{
    bytes[0] = (size_t)n * sizeof(int);
    bytes[1] = (size_t)reduce_work_ints((unsigned int)n, block.x) * sizeof(int);
    bytes[2] = sizeof(int);
    return 3;
}

// One call of a kernel: its own function (given), or its plan (the learner's).
static void call_sum(const step_kernel *k, const plan *p, const int *in, unsigned int n, int block, int *work,
                     unsigned int work_ints, int *sum)
{
    if (!p) {
        ((reduce_fn)k->run)(in, n, block, work, sum);
        return;
    }
    plan_region regions[] = {{(void *)in, (size_t)n * sizeof(int)}, {work, work_ints * sizeof(int)}, {sum, sizeof(int)}};
    plan_replay(p, regions);
}

static void release(void)
{
    harness_free(size.d_guarded);
    harness_free(size.d_exact);
    CUDA_CHECK(cudaFree(size.d_sum));
    CUDA_CHECK(cudaFree(size.d_work));
    harness_free(size.d_copy);
    CUDA_CHECK(cudaFree(size.d_expected));
    free(size.runs);
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

// Before every run: what the run does not use but a kernel could reach with
// an address of its own (the other input and its guard, the copy's
// destination, the expected sum of a timed run) poisoned, so that nothing a
// kernel leaves there lasts to the next run, and nothing the harness leaves
// there (a timed run's sum, which no check makes) tells a check from a
// timed run.
static void poison_bystanders(const int *in)
{
    size_t bytes = (size_t)size.n * sizeof(int);
    if (in != size.d_guarded)
        CUDA_CHECK(cudaMemsetAsync(size.d_guarded, POISON_BYTE, bytes + GUARD_INTS * sizeof(int)));
    if (in != size.d_exact)
        CUDA_CHECK(cudaMemsetAsync(size.d_exact, POISON_BYTE, bytes));
    CUDA_CHECK(cudaMemsetAsync(size.d_copy, POISON_BYTE, bytes));
    CUDA_CHECK(cudaMemsetAsync(size.d_expected, POISON_BYTE, sizeof *size.d_expected));
}

// Before a checked run: its input drawn again (a kernel may have changed it
// in the run before), the guard after it restored, the outputs poisoned, so
// that a sum or a partial sum nobody wrote shows.
static void prepare_check(const flow_point *at, bool guarded)
{
    unsigned int n = size.n;
    int *in = guarded ? size.d_guarded : size.d_exact;
    poison_bystanders(in);
    fill_input<<<helper_grid(), FILL_BLOCK>>>(in, n, at->opt->seed, check_stream(n, guarded ? 0 : size.exact_set),
                                             input_bound(n));
    CUDA_CHECK_LAUNCH();
    if (guarded)
        CUDA_CHECK(cudaMemset(size.d_guarded + n, GUARD_BYTE, GUARD_INTS * sizeof(int)));
    CUDA_CHECK(cudaMemset(size.d_sum, POISON_BYTE, sizeof(int)));
    if (size.work_ints)
        CUDA_CHECK(cudaMemset(size.d_work, POISON_BYTE, size.work_ints * sizeof(int)));
}

// Where the work of a level lies. At a step of levels each block of the first
// level sums per_thread * block elements of the input -- which ones, the step
// leaves to the kernel: a slice, or pairs a grid apart -- and writes their
// sum to out[b]. A kernel whose blocks sum their neighbours' elements too, in
// registers, while the neighbours write 0, gives the right total with a
// fraction of the tree's work, which no counter summed over the launches
// tells from the step's idea. So after the exact input's check, the call's
// first launch runs alone twice, as any call starts: on the exact input, then
// on the same data set with every element one up (the largest wrapping to
// 1, so that it is drawn from the same range). A block that sums k elements
// sees its partial sum move by k, less bound for each of them that wrapped:
// by k modulo bound, whichever elements they are; one that sums none, by 0.
// Where the partial sums lie is read from the plan: the first launch's
// arguments that point into the partial sums' buffer, and the second's
// (which reads them). Returns how many blocks moved otherwise than by slice at the
// place that fits best (0 where one fits), the first in *first and its move
// in *moved; all of them where no argument points to room for a partial sum
// a block.
static unsigned int wrong_slices(const flow_point *at, const plan *p, unsigned int slice, unsigned int *first,
                                 long long *moved)
{
    enum { MAX_PLACES = 2 * PLAN_MAX_PARAMS };
    unsigned int n = size.n, blocks = n / slice, best = blocks;
    int bound = input_bound(n), places = 0;
    plan_region regions[] = {{size.d_exact, (size_t)n * sizeof(int)},
                             {size.d_work, size.work_ints * sizeof(int)},
                             {size.d_sum, sizeof(int)}};
    plan_region candidates[MAX_PLACES], place[MAX_PLACES];
    int found = plan_launch_pointers(p, 0, regions, candidates, PLAN_MAX_PARAMS);
    found += plan_launch_pointers(p, 1, regions, candidates + found, PLAN_MAX_PARAMS);
    for (int k = 0; k < found; k++)  // in the partial sums' buffer, with room for a partial sum a block
        if ((int *)candidates[k].ptr >= size.d_work && (int *)candidates[k].ptr < size.d_work + size.work_ints &&
            candidates[k].bytes >= blocks * sizeof(int))
            place[places++] = candidates[k];
    *first = 0;
    *moved = 0;
    if (!places)
        return blocks;
    int *sums = (int *)malloc(2 * (size_t)places * blocks * sizeof(int));
    if (!sums)
        die(EXIT_CUDA, "out of host memory");
    for (int round = 0; round < 2; round++) {
        prepare_check(at, false);
        if (round == 1) {
            fill_input_next<<<helper_grid(), FILL_BLOCK>>>(size.d_exact, n, at->opt->seed,
                                                           check_stream(n, size.exact_set), bound);
            CUDA_CHECK_LAUNCH();
        }
        module_reload();
        harness_read_only(true);
        plan_replay_first_launch(p, regions);
        harness_read_only(false);
        for (int k = 0; k < places; k++)
            CUDA_CHECK(cudaMemcpy(sums + ((size_t)round * places + k) * blocks, place[k].ptr, blocks * sizeof(int),
                                  cudaMemcpyDeviceToHost));
    }
    long long want = slice % bound;
    for (int k = 0; k < places && best; k++) {
        const int *before = sums + (size_t)k * blocks, *after = sums + ((size_t)places + k) * blocks;
        unsigned int wrong = 0, at_first = 0;
        long long first_move = 0;
        for (unsigned int b = 0; b < blocks; b++) {
            long long move = (long long)after[b] - before[b];
            if (((move % bound) + bound) % bound != want && wrong++ == 0) {
                at_first = b;
                first_move = move;
            }
        }
        if (wrong < best) {
            best = wrong;
            *first = at_first;
            *moved = first_move;
        }
    }
    free(sums);
    return best;
}

// The census (--census FILE, the grader's launch audit, under
// compute-sanitizer's initcheck): who reads the input. Sums cannot say which
// block made them -- a block may sum its neighbours' slices too, on vector
// lanes, write each sum where its neighbour would have, and leave the
// neighbours idle: every partial sum right, every counter summed over the
// launches divided. So after the exact input's check, the plan is called a
// few times more, each time on an input in a fresh allocation written
// everywhere but at a few holes drawn from the seed: initcheck reports each
// read of a hole with the thread and block that made it. A thread of the
// first level reads per_thread elements of the input, whichever they are;
// one that sums its neighbours' too reads more, and the holes come in
// ladders of CENSUS_RUNG holes at the distances where a thread's
// neighbours' elements lie: next to its own (the lanes of one vector read),
// a block apart, a block's share apart (the neighbouring slices), and an
// eighth of the input apart (the neighbouring strides of a grid), so that
// such a thread reads several holes of one. The grader
// (common/tools/census.awk) counts, per thread, the holes it read, and that
// every hole was read: a read initcheck does not see leaves a hole unread.
// A kernel cannot tell the holes from input: it sees them only by reading
// them, which is reported.
enum {
    CENSUS_ROUNDS = 8,   // calls, each with holes of its own
    CENSUS_LADDERS = 7,  // ladders a call: 56 holes, where initcheck keeps 256 reports a launch (2025.3),
                         // so that a kernel may read each hole 4 times before a report is dropped
    CENSUS_RUNG = 8,     // holes a ladder
};
static const uint64_t HOLE_STREAM = FRESH_STREAMS - 1;

// Data set `stream` into in[0..n), but at holes[0..count), sorted, which nothing writes.
__global__ void fill_input_except(int *in, unsigned int n, uint64_t seed, uint64_t stream, int bound,
                                  const unsigned int *holes, int count)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int lo = 0, hi = count;  // the first hole >= i
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (holes[mid] < i)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == count || holes[lo] != i)
            in[i] = input_value(seed, stream, i, bound);
    }
}

static int compare_uint(const void *a, const void *b)
{
    unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
    return (x > y) - (x < y);
}

// Round `round`'s holes into holes[], sorted, each once; returns how many.
static int census_holes(uint64_t seed, int round, unsigned int n, unsigned int block, unsigned int *holes)
{
    unsigned int share = (unsigned int)audit_levels_per_thread() * block;
    unsigned int spacings[] = {1, block, share, n / CENSUS_RUNG};
    int count = 0;
    for (int l = 0; l < CENSUS_LADDERS; l++) {
        unsigned int spacing = spacings[(round * CENSUS_LADDERS + l) % 4];
        unsigned long long span = (unsigned long long)spacing * (CENSUS_RUNG - 1);
        if (spacing == 0 || span >= n)
            continue;
        unsigned int first = (unsigned int)(random_u64(seed, HOLE_STREAM, (uint64_t)round * CENSUS_LADDERS + l) %
                                            (n - span));
        for (int r = 0; r < CENSUS_RUNG; r++)
            holes[count++] = first + r * spacing;
    }
    qsort(holes, count, sizeof *holes, compare_uint);
    int unique = 0;
    for (int k = 0; k < count; k++)
        if (unique == 0 || holes[k] != holes[unique - 1])
            holes[unique++] = holes[k];
    return unique;
}

static void census(const flow_point *at, const plan *p)
{
    unsigned int n = size.n, holes[CENSUS_LADDERS * CENSUS_RUNG], *d_holes;
    FILE *f = fopen(at->opt->census_out, "a");
    if (!f)
        die(EXIT_CUDA, "cannot write the census to %s", at->opt->census_out);
    CUDA_CHECK(cudaMalloc(&d_holes, sizeof holes));
    for (int round = 0; round < CENSUS_ROUNDS; round++) {
        int count = census_holes(at->opt->seed, round, n, at->block.x, holes);
        prepare_check(at, false);  // the bystanders and the outputs, as before a check
        // A fresh allocation: initcheck counts its bytes unwritten until the fill.
        harness_free(size.d_exact);
        size.d_exact = (int *)harness_alloc((size_t)n * sizeof(int));
        CUDA_CHECK(cudaMemcpy(d_holes, holes, count * sizeof *holes, cudaMemcpyHostToDevice));
        fill_input_except<<<helper_grid(), FILL_BLOCK>>>(size.d_exact, n, at->opt->seed,
                                                         check_stream(n, size.exact_set), input_bound(n), d_holes,
                                                         count);
        CUDA_CHECK_LAUNCH();
        module_reload();
        harness_read_only(true);
        call_sum(NULL, p, size.d_exact, n, at->block.x, size.d_work, size.work_ints, size.d_sum);
        harness_read_only(false);
        // The round's record, then each hole's index: a vector read reports
        // its whole width, and only the holes in it count.
        fprintf(f, "census\tround=%d\tn=%u\tblock=%d\tbase=0x%llx\tholes=%d\tper_thread=%d\n", round, n,
                at->block.x, (unsigned long long)(uintptr_t)size.d_exact, count, audit_levels_per_thread());
        for (int k = 0; k < count; k++)
            fprintf(f, "hole\t%u\n", holes[k]);
    }
    CUDA_CHECK(cudaFree(d_holes));
    fclose(f);
}

static bool check(const flow_point *at, const contender *c, bool guarded)
{
    unsigned int n = size.n;
    int block = at->block.x;
    const char *role = role_names[c->role];
    long long expected = guarded ? size.expected_guarded : size.expected_exact;
    const plan *p = contender_plan(c, at);
    const int *in = guarded ? size.d_guarded : size.d_exact;
    set_activity("checking '%s' [%s] at n=%u, block %d, on the %s input%s", c->kernel->label, role, n, block,
                 guarded ? "guarded" : "exact-size", p ? " (read-only: a store into it faults)" : "");
    prepare_check(at, guarded);
    if (p) {
        module_reload();
        harness_read_only(true);
    }
    call_sum(c->kernel, p, in, n, block, size.d_work, size.work_ints, size.d_sum);
    CUDA_CHECK(cudaDeviceSynchronize());  // a fault inside the kernel is reported here
    if (p)
        harness_read_only(false);
    int got;
    CUDA_CHECK(cudaMemcpy(&got, size.d_sum, sizeof got, cudaMemcpyDeviceToHost));
    bool ok = (long long)got == expected;
    unsigned int slice = level_slice(p, n, block), first = 0, misplaced = 0;
    long long moved = 0;
    if (ok && slice && !guarded && !at->opt->exact_only)  // the replays are the correctness tests' business
        misplaced = wrong_slices(at, p, slice, &first, &moved);
    if (ok && p && c->graded && !guarded && !misplaced && at->opt->census_out && audit_levels_per_thread())
        census(at, p);
    set_activity("%s", "");

    char hint[640];
    if (misplaced) {
        int bound = input_bound(n);
        snprintf(hint, sizeof hint,
                 "the sum is right, but block %u of the first level did not sum %u elements of the input itself "
                 "(%u of %u blocks): with every element one up (the largest, %d, wrapping to 1), its partial sum "
                 "moved by %lld, %lld modulo %d, where %u elements of its own move it by %u modulo %d. Each block "
                 "of a level sums per_thread x block elements, and no block its neighbours'",
                 first, slice, misplaced, n / slice, bound, moved, ((moved % bound) + bound) % bound, bound, slice,
                 slice % bound, bound);
        ok = false;
        if (at->opt->machine)
            print_record("check", "step=%s\tn=%u\tblock=%d\tid=%s\trole=%s\tinput=exact\tresult=mismatch"
                                  "\tlevel_block=%u\thint=%s",
                         at->step, n, block, c->kernel->id, role, first, hint);
        else
            printf("MISMATCH: '%s' [%s] at n=%u, block %d (exact-size input): %s\n", c->kernel->label, role, n,
                   block, hint);
    } else if (at->opt->machine) {
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
    call_sum(r->kernel, r->plan, r->d_in, r->n, r->block, r->d_work, r->work_ints, r->d_out);
}

// Before each run, untimed: an input no run has seen, the sum and the
// partial sums poisoned (as before a check), and the learner's module as it
// was loaded.
static void fresh_input(void *arg, int call)
{
    timed_run *r = (timed_run *)arg;
    r->stream = next_fresh_stream++;
    poison_bystanders(r->d_in);
    fill_input<<<helper_grid(), FILL_BLOCK>>>(r->d_in, r->n, r->seed, r->stream, input_bound(r->n));
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemsetAsync(r->d_out, POISON_BYTE, sizeof(int)));
    if (r->work_ints)
        CUDA_CHECK(cudaMemsetAsync(r->d_work, POISON_BYTE, r->work_ints * sizeof(int)));
    if (r->plan) {
        module_reload();
        harness_read_only(true);
    }
}

// After each run, untimed: the exact sum of the run's data set, made now on
// the GPU from the generator, and the run's sum; both to the host at once,
// where no later run can reach them.
static void check_sum(void *arg, int call)
{
    timed_run *r = (timed_run *)arg;
    CUDA_CHECK(cudaMemsetAsync(size.d_expected, 0, sizeof *size.d_expected));
    sum_input<<<helper_grid(), FILL_BLOCK>>>(r->n, r->seed, r->stream, input_bound(r->n), size.d_expected);
    CUDA_CHECK_LAUNCH();
    int got;
    unsigned long long expected;
    CUDA_CHECK(cudaMemcpy(&got, r->d_out, sizeof got, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&expected, size.d_expected, sizeof expected, cudaMemcpyDeviceToHost));
    if (r->plan)
        harness_read_only(false);
    if ((long long)got != (long long)expected && r->bad++ == 0) {
        r->first_bad = call;
        r->first_got = got;
        r->first_expected = expected;
    }
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
    int block = at->block.x;
    double bytes = (double)size.n * sizeof(int);
    size.runs[0] = (timed_run){.d_in = size.d_exact, .d_out = size.d_copy, .n = size.n, .block = block};
    entries[0] = (timed_entry){.id = "copy",
                               .label = "device-to-device copy",
                               .work = 2 * bytes,
                               .task = {run_copy, NULL, &size.runs[0], NULL}};
    for (int i = 0; i < count; i++) {
        timed_run *r = &size.runs[i + 1];
        *r = (timed_run){.kernel = cs[i].kernel,
                         .plan = contender_plan(&cs[i], at),
                         .d_in = size.d_exact,
                         .d_out = size.d_sum,
                         .n = size.n,
                         .block = block,
                         .d_work = size.d_work,
                         .work_ints = size.work_ints,
                         .seed = at->opt->seed};
        entries[i + 1].work = bytes;
        entries[i + 1].task = (timed_task){run_sum, fresh_input, r, check_sum};
    }
}

static bool timed_right(const flow_point *at, int i, char *why, size_t len)
{
    const timed_run *r = &size.runs[i + 1];
    int calls = WARMUP_CALLS + at->opt->reps;
    if (r->bad)
        snprintf(why, len, "gave a wrong sum in %d of %d runs of the timing, %d warm-up included (run %d: %d instead "
                 "of %llu)", r->bad, calls, WARMUP_CALLS, r->first_bad + 1, r->first_got, r->first_expected);
    return r->bad == 0;
}

// ===========================================================================
// After timing: the exact input refilled
// ===========================================================================

// Data set 2 + block_index (0 and 1 are the guarded and the exact input);
// the next check draws it into the exact input's buffer.
static void refill(const flow_point *at, int block_index)
{
    set_activity("refilling the input at n=%u", size.n);
    size.exact_set = 2 + block_index;
    size.expected_exact = input_sum(size.n, at->opt->seed, check_stream(size.n, size.exact_set));
}

// ===========================================================================
// The track
// ===========================================================================

// The track's facts, for the scripts: PROGRAM --facts prints them as a
// `track` record, and make, the grader, bench, plot, explain and
// readme-figures read them here (common/tools/track-facts.awk), so that no script
// names a track. A fact a line, "key=value\t"; track-facts.awk says the form.
// learner_calls: the track's host functions a learner's file may call
// (passes.cu), which grading/integrity allows besides allowed-symbols.conf.
static const char TRACK_FACTS[] =
    "name=reduction\t"
    "title=Reduction\t"
    "size_symbol=n\t"
    "size_unit=ints\t"
    "ceiling=copy\t"
    "ceiling_label=device-to-device copy\t"
    "plot_scale=linear\t"
    "libs=-lpthread\t"
    "check_sizes=1,2,31,32,33,255,256,257,511,512,513,1000,65537,1000003,16777217,67108864\t"
    "check_block_multiples=1,2,4\t"
    "sanitize_sizes=1,33,1000,65537\t"
    "sanitize_blocks=32,256,1024\t"
    "sanitize_timed_tools=\t"
    "profile_args=-n 2^20 -b 256 -r 1\t"
    "explain_size=2^20\t"
    "learner_calls=reduce_in_passes,reduce_work_ints\t";

const track reduction_track = {
    .facts = TRACK_FACTS,
    .size_meaning = "ints to sum",
    .default_size = 1ull << 26,
    .max_size = 1ull << 30,
    .default_reps = 100,
    .blocks = &blocks,
    .first = &reduction_track_first,
    .first_timed = &reduction_track_first,
    .rate_unit = "GB/s",
    .checks_cover = "block sizes, guarded and exact-size inputs",
    .fresh_inputs = "the input buffer held fresh values: does it remember a sum from an earlier call?",
    .prepare = prepare,
    .use_block = use_block,
    .region_bytes = region_bytes,
    .check = check,
    .describe = describe,
    .timed_tasks = timed_tasks,
    .timed_right = timed_right,
    .refill = refill,
    .release = release,
};
