// float_sum.cu: step 08's kernel summing floats, and what its atomic finish
// does to the result.
//
//   make float-sum        (from the workbook's top folder) builds and runs it
//   solutions/08-cascaded/beyond/build/float_sum [-n N] [-r REPS] [-k RUNS]
//   solutions/08-cascaded/beyond/build/float_sum --self-test   (no GPU needed)
//
// Integer addition is associative: step 08's blocks may add their sums into
// the total in any order and the total is the same. Float addition rounds
// after each add, so the order changes the last bits, and the order in which
// the blocks' atomics land changes from run to run. Three kernels, each the
// reference solution's reduce_cascaded (grid sized to the GPU, four loads per
// trip, block_sum's tree), over n random values:
//
//   int, one atomic per block     the step's kernel on ints (0 to 15): exact
//   float, one atomic per block   the same on floats (0 to 1), atomicAdd(float *)
//   float, last-block finish      each block writes its sum; the last block to
//                                 finish (a counter tells it) adds the block
//                                 sums in a fixed order: the same bits each run
//
// Each float kernel runs RUNS times: the table shows how many different
// results it gave, their largest difference relative to the exact sum, and
// its error against a double-precision sum on the host. That error is checked
// against a bound, not a tuned tolerance: a sum of positive values along a
// chain of c adds errs by at most (c - 1) u / (1 - (c - 1) u) of the sum, u =
// 2^-24 (Higham, "Accuracy and Stability of Numerical Algorithms", 4.2), and c
// is the longest chain here: a thread's own adds, the tree's levels, the
// grid's atomics. Times are medians of REPS interleaved launches between two
// CUDA events; the input (n = 2^26: 256 MiB) is larger than any L2.
//
// Exit status: 0 ok, 1 a wrong sum (int not exact, a float beyond the bound,
// the last-block finish not the same every run), 2 a bad option, 3 a CUDA
// error, 77 no usable GPU.
#include "block_sum.cuh"

#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

enum { BLOCK = 256, LOADS_PER_TRIP = 4, LOG2_BLOCK = 8, EXIT_MISMATCH = 1, EXIT_USAGE = 2, EXIT_CUDA = 3,
       EXIT_NO_DEVICE = 77 };
static const long MAX_N = 1L << 28, MAX_REPS = 10000, MAX_RUNS = 100000;

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t err_ = (call);                                                                      \
        if (err_ != cudaSuccess) {                                                                      \
            fprintf(stderr, "float_sum: %s at %s:%d: %s\n", cudaGetErrorName(err_), __FILE__, __LINE__, \
                    cudaGetErrorString(err_));                                                          \
            exit(EXIT_CUDA);                                                                            \
        }                                                                                               \
    } while (0)

// block_sum of block_sum.cuh, for floats (that one is for the int track).
__device__ __forceinline__ float block_sum_float(float v, float *partial)
{
    unsigned int tid = threadIdx.x;
    partial[tid] = v;
    __syncthreads();
#pragma unroll
    for (unsigned int s = BLOCK / 2; s >= 32; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        v = partial[tid];
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

// The grid-stride loop of reduce_cascaded, for either type.
template <class T>
__device__ __forceinline__ T thread_sum(const T *in, unsigned int n)
{
    const unsigned int stride = gridDim.x * LOADS_PER_TRIP * BLOCK;
    unsigned int i = blockIdx.x * LOADS_PER_TRIP * BLOCK + threadIdx.x;
    T v = 0;
    for (; i + (LOADS_PER_TRIP - 1) * BLOCK < n; i += stride)
        v += in[i] + in[i + BLOCK] + in[i + 2 * BLOCK] + in[i + 3 * BLOCK];
    for (; i < n; i += BLOCK)
        v += in[i];
    return v;
}

__global__ void int_atomic(const int *in, int *sum, unsigned int n)
{
    __shared__ int partial[BLOCK];
    int v = block_sum<BLOCK>(thread_sum(in, n), partial);
    if (threadIdx.x == 0)
        atomicAdd(sum, v);
}

__global__ void float_atomic(const float *in, float *sum, unsigned int n)
{
    __shared__ float partial[BLOCK];
    float v = block_sum_float(thread_sum(in, n), partial);
    if (threadIdx.x == 0)
        atomicAdd(sum, v);
}

// The last-block finish: each block stores its sum, makes it visible to the
// whole GPU (__threadfence), then takes a ticket. The block with the last
// ticket knows every sum is stored, adds them in the order of the blocks,
// and puts the counter back to 0 for the next launch.
__global__ void float_last_block(const float *in, float *sum, unsigned int n, float *block_sums,
                                 unsigned int *finished)
{
    __shared__ float partial[BLOCK];
    __shared__ bool last;
    float v = block_sum_float(thread_sum(in, n), partial);
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = v;
        __threadfence();
        last = atomicAdd(finished, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();  // the other blocks' sums, read after their tickets
    v = 0;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += BLOCK)
        v += __ldcg(&block_sums[b]);  // from L2, where the other SMs' stores are: not this SM's L1
    v = block_sum_float(v, partial);
    if (threadIdx.x == 0) {
        *sum = v;
        *finished = 0;
    }
}

// --- The host's checks (run without a GPU by --self-test) ---

// The exact sum, near enough: a double's 53 bits hold a sum of up to 2^28
// floats with 24-bit fractions in [0, 1) without rounding at all.
static double sum_double(const float *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

// The longest chain of float adds in a kernel: a thread's own (its loads),
// the block's tree, then the grid's sums one after the other (the atomics; the
// last block's chain is shorter: grid / BLOCK adds and a second tree).
static unsigned long chain_length(unsigned long n, unsigned long grid)
{
    unsigned long per_thread = (n + grid * BLOCK - 1) / (grid * BLOCK);
    return per_thread + LOG2_BLOCK + grid;
}

// The bound on |float sum - exact| / exact for positive values summed along
// chains of at most `chain` adds.
static double relative_bound(unsigned long chain)
{
    double cu = (double)(chain > 0 ? chain - 1 : 0) * ldexp(1.0, -24);
    return cu / (1 - cu);
}

// How many different values (bit for bit) the runs gave.
static int distinct(std::vector<float> v)
{
    std::vector<uint32_t> bits(v.size());
    memcpy(bits.data(), v.data(), v.size() * sizeof(float));
    std::sort(bits.begin(), bits.end());
    return (int)(std::unique(bits.begin(), bits.end()) - bits.begin());
}

// The largest difference between two runs, relative to the exact sum.
static double spread(const std::vector<float> &v, double exact)
{
    auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return exact == 0 ? (*hi == *lo ? 0 : INFINITY) : ((double)*hi - *lo) / fabs(exact);
}

// The largest error of the runs against the exact sum, relative to it.
static double worst_error(const std::vector<float> &v, double exact)
{
    double worst = 0;
    for (float x : v) {
        double e = exact == 0 ? (x == 0 ? 0 : INFINITY) : fabs(x - exact) / fabs(exact);
        worst = std::max(worst, e);
    }
    return worst;
}

static int self_test(void)
{
    int failed = 0;
#define EXPECT(cond)                                               \
    do {                                                           \
        if (!(cond)) {                                             \
            fprintf(stderr, "float_sum: self-test: %s\n", #cond);  \
            failed = 1;                                            \
        }                                                          \
    } while (0)
    const float sums[] = {1.0f, 0.1f, 1.0f, -0.0f, 0.0f};
    EXPECT(distinct(std::vector<float>(sums, sums + 3)) == 2);
    EXPECT(distinct(std::vector<float>(sums + 3, sums + 5)) == 2);  // -0 and +0: other bits
    EXPECT(distinct(std::vector<float>(4, 3.0f)) == 1);
    EXPECT(spread(std::vector<float>(4, 3.0f), 3.0) == 0);
    EXPECT(fabs(spread({1.0f, 1.5f}, 2.0) - 0.25) < 1e-15);
    EXPECT(worst_error({1.0f, 4.0f}, 2.0) == 1.0);
    EXPECT(worst_error({0.0f}, 0.0) == 0 && isinf(worst_error({1.0f}, 0.0)));
    // 2^24 + 1 is no float, but the double sum of 2^24 ones and a one is exact.
    std::vector<float> ones((1 << 24) + 1, 1.0f);
    EXPECT(sum_double(ones.data(), ones.size()) == 16777217.0);
    // n = 2^26 on 132 SMs of 8 blocks: 1,056 blocks, 249 elements a thread.
    EXPECT(chain_length(1UL << 26, 1056) == 249 + 8 + 1056);
    EXPECT(chain_length(1, 1) == 1 + 8 + 1);
    EXPECT(relative_bound(1) == 0);
    EXPECT(fabs(relative_bound(1313) - 1312 * ldexp(1.0, -24) / (1 - 1312 * ldexp(1.0, -24))) < 1e-18);
    // A float sum adding 2^24 ones one after the other stops at 2^24: its error
    // (1 in 2^24 + 1 at the next one) is inside the bound for that chain.
    EXPECT(fabs(16777216.0 - 16777217.0) / 16777217.0 <= relative_bound(16777217));
#undef EXPECT
    if (!failed)
        printf("float_sum: self-test: ok\n");
    return failed ? EXIT_MISMATCH : 0;
}

// --- Options ---

static void usage(FILE *f)
{
    fprintf(f,
            "usage: float_sum [-n N] [-r REPS] [-k RUNS] | --self-test\n"
            "Sums N ints and N floats with step 08's kernel (blocks of %d, a grid sized to the GPU):\n"
            "one atomic per block, and for floats a last-block finish too; shows each one's time,\n"
            "how many different float sums RUNS runs gave, and their error against a double sum.\n"
            "  -n N      how many values, 1 to 2^28, as a number or 2^K (default 2^26)\n"
            "  -r REPS   timed launches of each kernel, the median shown (1 to %ld, default 50)\n"
            "  -k RUNS   runs of each float kernel whose results are compared (1 to %ld, default 100)\n"
            "  --self-test   check the host's arithmetic (no GPU needed) and exit\n",
            BLOCK, MAX_REPS, MAX_RUNS);
}

// A number from 1 to max, written as digits or 2^K; -1 if it is neither.
static long parse_count(const char *s, long max)
{
    char *end;
    long v;
    if (strncmp(s, "2^", 2) == 0) {
        long k = strtol(s + 2, &end, 10);
        if (end == s + 2 || *end != '\0' || k < 0 || k > 62)
            return -1;
        v = 1L << k;
    } else {
        v = strtol(s, &end, 10);
        if (end == s || *end != '\0' || s[0] == '-' || s[0] == '+')
            return -1;
    }
    return v >= 1 && v <= max ? v : -1;
}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    long n = 1L << 26, reps = 50, runs = 100;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[a], "--self-test") == 0) {
            if (argc != 2) {
                fprintf(stderr, "float_sum: --self-test takes no other option\n");
                return EXIT_USAGE;
            }
            return self_test();
        }
        long *target = strcmp(argv[a], "-n") == 0 ? &n : strcmp(argv[a], "-r") == 0 ? &reps
                                                     : strcmp(argv[a], "-k") == 0 ? &runs : NULL;
        if (!target) {
            fprintf(stderr, "float_sum: unknown option '%s'\n", argv[a]);
            usage(stderr);
            return EXIT_USAGE;
        }
        long max = target == &n ? MAX_N : target == &reps ? MAX_REPS : MAX_RUNS;
        if (a + 1 >= argc) {
            fprintf(stderr, "float_sum: %s wants a value\n", argv[a]);
            return EXIT_USAGE;
        }
        *target = parse_count(argv[a + 1], max);
        if (*target < 0) {
            fprintf(stderr, "float_sum: %s wants a number from 1 to %ld, not '%s'\n", argv[a], max, argv[a + 1]);
            return EXIT_USAGE;
        }
        a++;
    }

    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        fprintf(stderr, "float_sum: skipped: no usable CUDA device\n");
        return EXIT_NO_DEVICE;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, float_last_block, BLOCK, 0));
    unsigned long needed = (n + LOADS_PER_TRIP * BLOCK - 1) / (LOADS_PER_TRIP * BLOCK);
    unsigned int grid = (unsigned int)std::min<unsigned long>((unsigned long)prop.multiProcessorCount * per_sm, needed);

    // Inputs drawn once, the same each run of the program: ints 0 to 15 (a
    // sum under 2^32 for any n allowed), floats k / 2^24 in [0, 1).
    std::vector<int> h_int(n);
    std::vector<float> h_float(n);
    uint64_t state = 0x9e3779b97f4a7c15ull;
    long long int_exact = 0;
    for (long i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        h_int[i] = (int)(state >> 60);
        h_float[i] = (float)((state >> 33) & 0xffffff) * 0x1p-24f;
        int_exact += h_int[i];
    }
    double exact = sum_double(h_float.data(), n);
    double bound = relative_bound(chain_length(n, grid));

    int *d_int, *d_int_sum;
    float *d_float, *d_sum, *d_block_sums;
    unsigned int *d_finished;
    CHECK(cudaMalloc(&d_int, n * sizeof(int)));
    CHECK(cudaMalloc(&d_float, n * sizeof(float)));
    CHECK(cudaMalloc(&d_int_sum, sizeof(int)));
    CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CHECK(cudaMalloc(&d_block_sums, grid * sizeof(float)));
    CHECK(cudaMalloc(&d_finished, sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_int, h_int.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_float, h_float.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_finished, 0, sizeof(unsigned int)));  // the kernel puts it back to 0 itself

    enum { INT_ATOMIC, FLOAT_ATOMIC, FLOAT_LAST, KERNELS };
    const char *const labels[KERNELS] = {"int, one atomic per block", "float, one atomic per block",
                                         "float, last-block finish"};
    // A launch, its total set to 0 first as the step's launcher does (the
    // last-block kernel writes its total: the memset is there to time alike).
    auto launch = [&](int k) {
        if (k == INT_ATOMIC) {
            CHECK(cudaMemsetAsync(d_int_sum, 0, sizeof(int)));
            int_atomic<<<grid, BLOCK>>>(d_int, d_int_sum, (unsigned int)n);
        } else {
            CHECK(cudaMemsetAsync(d_sum, 0, sizeof(float)));
            if (k == FLOAT_ATOMIC)
                float_atomic<<<grid, BLOCK>>>(d_float, d_sum, (unsigned int)n);
            else
                float_last_block<<<grid, BLOCK>>>(d_float, d_sum, (unsigned int)n, d_block_sums, d_finished);
        }
        CHECK(cudaGetLastError());
    };

    // The results of RUNS runs of each kernel.
    int status = 0;
    std::vector<float> results[KERNELS];
    for (long r = 0; r < runs; r++)
        for (int k = 0; k < KERNELS; k++) {
            launch(k);
            if (k == INT_ATOMIC) {
                int got;
                CHECK(cudaMemcpy(&got, d_int_sum, sizeof(int), cudaMemcpyDeviceToHost));
                if ((long long)(unsigned int)got != int_exact) {
                    fprintf(stderr, "float_sum: the int sum is %u, not %lld\n", (unsigned int)got, int_exact);
                    status = EXIT_MISMATCH;
                }
                float bits;  // its bits, so that distinct() counts ints apart past 2^24
                memcpy(&bits, &got, sizeof bits);
                results[k].push_back(bits);
            } else {
                float got;
                CHECK(cudaMemcpy(&got, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
                results[k].push_back(got);
            }
        }

    // The times: the kernels take turns, REPS launches each.
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    std::vector<float> ms[KERNELS];
    for (long r = 0; r < reps; r++)
        for (int k = 0; k < KERNELS; k++) {
            CHECK(cudaEventRecord(t0));
            launch(k);
            CHECK(cudaEventRecord(t1));
            CHECK(cudaEventSynchronize(t1));
            float t;
            CHECK(cudaEventElapsedTime(&t, t0, t1));
            ms[k].push_back(t);
        }

    int driver = 0, runtime = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    printf("float_sum on %s (%d SMs), CUDA runtime %d.%d, driver %d.%d\n", prop.name, prop.multiProcessorCount,
           runtime / 1000, runtime % 1000 / 10, driver / 1000, driver % 1000 / 10);
    printf("n = %ld (ints 0 to 15, floats in [0, 1)), block %d, grid %u; median of %ld launches, %ld runs compared\n",
           n, BLOCK, grid, reps, runs);
    printf("float sums against a double sum on the host, %.9g; the bound on their error: %.2e\n\n", exact, bound);
    printf("%-28s %9s %8s %9s %11s %11s\n", "kernel", "ms", "GB/s", "distinct", "max spread", "max error");
    for (int k = 0; k < KERNELS; k++) {
        float t = median(ms[k]);
        printf("%-28s %9.4f %8.1f %9d", labels[k], t, n * 4.0 / (t * 1e6), distinct(results[k]));
        if (k == INT_ATOMIC) {
            printf(" %11s %11s\n", "exact", "exact");
            continue;
        }
        double err = worst_error(results[k], exact);
        printf(" %11.2e %11.2e\n", spread(results[k], exact), err);
        if (!(err <= bound)) {
            fprintf(stderr, "float_sum: %s: an error of %.2e, beyond the bound %.2e\n", labels[k], err, bound);
            status = EXIT_MISMATCH;
        }
    }
    if (distinct(results[FLOAT_LAST]) != 1) {
        fprintf(stderr, "float_sum: the last-block finish gave %d different sums in %ld runs\n",
                distinct(results[FLOAT_LAST]), runs);
        status = EXIT_MISMATCH;
    }
    return status;
}
