// atomics.cu: what one atomicAdd per block costs, against what a block costs.
//
//   make micro-atomics              (from the workbook's top folder) builds and runs it
//   common/micro/build/atomics [-r REPS]  REPS timed runs of each kernel, median shown (default 50)
//
// Steps 06 to 08 finish a reduction with one atomicAdd per block on one int.
// Dividing a kernel's time by its number of atomics gives "about 1 ns per
// atomic", but that only says the kernel is no faster than that; it does not
// say the atomics are what it waits for. This program times, for several grid
// sizes (blocks of 256 threads):
//
//   empty             a kernel that does nothing: the cost of the blocks alone
//   + atomic          thread 0 of each block adds 1 to one int (same address)
//   + store           thread 0 of each block writes its own int (no contention)
//   06, atomic        step 06's kernel over 512 ints per block: the tree in a
//                     loop, then one atomicAdd per block
//   06, store         the same kernel writing its block sum instead (the first
//                     pass of step 07's given kernel)
//   unrolled, atomic  step 07's unrolled tree (block_sum), one atomicAdd per block
//   unrolled, store   the same, writing its block sum
//
// Each timed run is one launch between two CUDA events, after a write of twice
// the L2's size that evicts the previous run's data; the kernels take turns.
// The "atomic - empty" column is what the atomics add per block; the "finish"
// columns what the atomic adds over a store in a real kernel. Exit status: 0
// ok, 1 a wrong sum, 2 a bad option, 3 a CUDA error, 77 no usable GPU.
#include "block_sum.cuh"

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

enum { BLOCK = 256, DEFAULT_REPS = 50, MAX_REPS = 10000, EXIT_MISMATCH = 1, EXIT_USAGE = 2, EXIT_CUDA = 3,
       EXIT_NO_DEVICE = 77 };

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        cudaError_t err_ = (call);                                                                    \
        if (err_ != cudaSuccess) {                                                                    \
            fprintf(stderr, "atomics: %s at %s:%d: %s\n", cudaGetErrorName(err_), __FILE__, __LINE__, \
                    cudaGetErrorString(err_));                                                        \
            exit(EXIT_CUDA);                                                                          \
        }                                                                                             \
    } while (0)

__global__ void empty_kernel(int *)
{
}

__global__ void atomic_kernel(int *sum)
{
    if (threadIdx.x == 0)
        atomicAdd(sum, 1);
}

__global__ void store_kernel(int *out)
{
    if (threadIdx.x == 0)
        out[blockIdx.x] = 1;
}

// Step 06's kernel (its solution), the finish chosen by ATOMIC: into *dst with
// atomicAdd, or to dst[blockIdx.x].
template <bool ATOMIC>
__global__ void direct_kernel(const int *in, int *dst, unsigned int n)
{
    __shared__ int partial[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * BLOCK) + tid;
    int v = (i < n) ? in[i] : 0;
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    partial[tid] = v;
    __syncthreads();
    for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) {
        if (ATOMIC)
            atomicAdd(dst, partial[0]);
        else
            dst[blockIdx.x] = partial[0];
    }
}

// Step 07's solution: the same loads, the tree unrolled (block_sum).
template <bool ATOMIC>
__global__ void unrolled_kernel(const int *in, int *dst, unsigned int n)
{
    __shared__ int partial[BLOCK];
    unsigned int i = blockIdx.x * (2 * BLOCK) + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    v = block_sum<BLOCK>(v, partial);
    if (threadIdx.x == 0) {
        if (ATOMIC)
            atomicAdd(dst, v);
        else
            dst[blockIdx.x] = v;
    }
}

typedef enum { EMPTY, ATOMIC_ONLY, STORE_ONLY, DIRECT_ATOMIC, DIRECT_STORE, UNROLLED_ATOMIC, UNROLLED_STORE, KINDS } kind;
static const char *const kind_names[KINDS] = {"empty",    "+ atomic",         "+ store",        "06, atomic",
                                              "06, store", "unrolled, atomic", "unrolled, store"};

static void launch(kind k, unsigned int grid, const int *in, int *sum, int *out, unsigned int n)
{
    switch (k) {
    case EMPTY: empty_kernel<<<grid, BLOCK>>>(sum); break;
    case ATOMIC_ONLY: atomic_kernel<<<grid, BLOCK>>>(sum); break;
    case STORE_ONLY: store_kernel<<<grid, BLOCK>>>(out); break;
    case DIRECT_ATOMIC: direct_kernel<true><<<grid, BLOCK>>>(in, sum, n); break;
    case DIRECT_STORE: direct_kernel<false><<<grid, BLOCK>>>(in, out, n); break;
    case UNROLLED_ATOMIC: unrolled_kernel<true><<<grid, BLOCK>>>(in, sum, n); break;
    case UNROLLED_STORE: unrolled_kernel<false><<<grid, BLOCK>>>(in, out, n); break;
    default: break;
    }
    CHECK(cudaGetLastError());
}

static void usage(FILE *f)
{
    fprintf(f, "usage: atomics [-r REPS]\n"
               "Times empty blocks, one same-address atomicAdd per block, and step 06's and 07's kernels\n"
               "finished with an atomic or a store, at several grid sizes of %d-thread blocks.\n"
               "  -r REPS   timed runs of each kernel (1 to %d, default %d); the median is shown\n",
            BLOCK, MAX_REPS, DEFAULT_REPS);
}

int main(int argc, char **argv)
{
    int reps = DEFAULT_REPS;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        char *end;
        if (strcmp(argv[a], "-r") == 0 && a + 1 < argc) {
            long r = strtol(argv[++a], &end, 10);
            if (*end == '\0' && end != argv[a] && r >= 1 && r <= MAX_REPS) {
                reps = (int)r;
                continue;
            }
            fprintf(stderr, "atomics: -r wants a number from 1 to %d, not '%s'\n", MAX_REPS, argv[a]);
            return EXIT_USAGE;
        }
        fprintf(stderr, "atomics: unknown option '%s'\n", argv[a]);
        usage(stderr);
        return EXIT_USAGE;
    }

    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        fprintf(stderr, "atomics: skipped: no usable CUDA device\n");
        return EXIT_NO_DEVICE;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, direct_kernel<true>, BLOCK, 0));

    // The grids: as many blocks as the GPU holds at once (step 08's grid), then
    // up to step 06's at n = 2^26 (131,072) and twice that (step 05's).
    std::vector<unsigned int> grids = {(unsigned int)(prop.multiProcessorCount * per_sm), 16384, 65536, 131072,
                                       262144};
    unsigned int max_n = 2u * BLOCK * grids.back();
    int *d_in, *d_sum, *d_out, *d_flush;
    size_t flush_bytes = 2 * (size_t)prop.l2CacheSize;
    CHECK(cudaMalloc(&d_in, (size_t)max_n * sizeof(int)));
    CHECK(cudaMalloc(&d_sum, sizeof(int)));
    CHECK(cudaMalloc(&d_out, grids.back() * sizeof(int)));
    CHECK(cudaMalloc(&d_flush, flush_bytes));
    std::vector<int> ones(max_n, 1);  // every sum is then the element count
    CHECK(cudaMemcpy(d_in, ones.data(), (size_t)max_n * sizeof(int), cudaMemcpyHostToDevice));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));

    int driver = 0, runtime = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    printf("atomics on %s (%d SMs, %d blocks of %d resident per SM), CUDA runtime %d.%d, driver %d.%d\n", prop.name,
           prop.multiProcessorCount, per_sm, BLOCK, runtime / 1000, runtime % 1000 / 10, driver / 1000,
           driver % 1000 / 10);
    printf("blocks of %d threads; median ms of %d runs, each one launch, L2 evicted before it\n\n", BLOCK, reps);
    printf("%8s %10s %8s %8s %8s %10s %8s %8s %9s %9s %10s\n", "blocks", "n (06)", "empty", "+atomic", "+store",
           "atomic", "06", "06", "unrolled", "unrolled", "unrolled");
    printf("%8s %10s %8s %8s %8s %10s %8s %8s %9s %9s %10s\n", "", "", "ms", "ms", "ms", "-empty ns", "atomic",
           "store", "atomic", "store", "atom/store");

    int status = 0;
    std::vector<float> ms[KINDS];
    for (unsigned int grid : grids) {
        unsigned int n = 2u * BLOCK * grid;
        for (int k = 0; k < KINDS; k++)
            ms[k].assign(reps, 0.0f);
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < KINDS; k++) {
                CHECK(cudaMemsetAsync(d_flush, r & 0xff, flush_bytes));
                CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
                CHECK(cudaEventRecord(t0));
                launch((kind)k, grid, d_in, d_sum, d_out, n);
                CHECK(cudaEventRecord(t1));
                CHECK(cudaEventSynchronize(t1));
                CHECK(cudaEventElapsedTime(&ms[k][r], t0, t1));
                // The atomics must have added what they were given, or the timing means nothing.
                int got = 0, want = (k == ATOMIC_ONLY) ? (int)grid : (k == DIRECT_ATOMIC || k == UNROLLED_ATOMIC) ? (int)n : 0;
                CHECK(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
                if (got != want) {
                    fprintf(stderr, "atomics: %s at %u blocks: sum %d, expected %d\n", kind_names[k], grid, got, want);
                    status = EXIT_MISMATCH;
                }
            }
        float med[KINDS];
        for (int k = 0; k < KINDS; k++) {
            std::sort(ms[k].begin(), ms[k].end());
            med[k] = ms[k][reps / 2];
        }
        printf("%8u %10u %8.4f %8.4f %8.4f %10.2f %8.4f %8.4f %9.4f %9.4f %9.2fx\n", grid, n, med[EMPTY],
               med[ATOMIC_ONLY], med[STORE_ONLY], 1e6 * (med[ATOMIC_ONLY] - med[EMPTY]) / grid, med[DIRECT_ATOMIC],
               med[DIRECT_STORE], med[UNROLLED_ATOMIC], med[UNROLLED_STORE], med[UNROLLED_ATOMIC] / med[UNROLLED_STORE]);
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_sum));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_flush));
    return status;
}
