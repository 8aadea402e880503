// honest: step 07's solution with device-side assert()s as debugging aids,
// the style tests/honest/06-debugging-aids.cu establishes: one in the
// template kernel (the instance launched is the block's: blockDim.x ==
// BLOCK) and one in a templated helper that runs one unrolled level,
// level<BLOCK, S>. Nothing else changes: the same loads, levels, last warp
// and launches as the reference solution. Each assert keeps its function's
// name as text (a .global .b8 __unnamed_N of about 88 bytes, one per
// template instance that asserts: 1,407 bytes here), which the launch
// audit's cap on __device__ memory (1,024 bytes at steps 04-08) must leave
// out: kernels.awk marks it text=yes.
#include "reduction.h"

#include <assert.h>

static const unsigned int FULL_WARP = 0xffffffffu;  // every lane of the warp takes part

// Sums v over the 32 lanes of a warp; lane 0 gets the total.
__device__ __forceinline__ int warp_sum(int v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_WARP, v, offset);
    return v;
}

__global__ void reduce_last_warp_unrolled(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + tid;

    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    partial[tid] = v;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid < 32) {  // warp 0, whole
        v = partial[tid];
        if (blockDim.x >= 64)
            v += partial[tid + 32];
        v = warp_sum(v);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

void sum_last_warp_unrolled(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_last_warp_unrolled, 2, d_in, n, block, d_work, d_sum);
}

// One level of the unrolled tree: the lower S slots take the upper S, where
// the block has them. The assert is a debugging aid (S < BLOCK).
template <unsigned int BLOCK, unsigned int S>
__device__ __forceinline__ void level(int *partial, unsigned int tid)
{
    if (BLOCK >= 2 * S) {
        assert(tid < BLOCK);
        if (tid < S)
            partial[tid] += partial[tid + S];
        __syncthreads();
    }
}

template <unsigned int BLOCK>
__global__ void reduce_unrolled(const int *in, int *out, unsigned int n)
{
    __shared__ int partial[BLOCK];  // BLOCK is known now: static shared memory
    assert(blockDim.x == BLOCK);    // the instance launched is the block's (debugging aid)
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * BLOCK) + tid;

    int v = (i < n) ? in[i] : 0;
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    partial[tid] = v;
    __syncthreads();

    // Each level a helper, each test on a constant: the compiler keeps only
    // the levels BLOCK has.
    level<BLOCK, 512>(partial, tid);
    level<BLOCK, 256>(partial, tid);
    level<BLOCK, 128>(partial, tid);
    level<BLOCK, 64>(partial, tid);
    if (tid < 32) {
        v = partial[tid];
        if (BLOCK >= 64)
            v += partial[tid + 32];
        v = warp_sum(v);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

void sum_unrolled(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_pass_kernel kernel;
    switch (block) {  // a kernel for each block size the program accepts
    case 32: kernel = reduce_unrolled<32>; break;
    case 64: kernel = reduce_unrolled<64>; break;
    case 128: kernel = reduce_unrolled<128>; break;
    case 256: kernel = reduce_unrolled<256>; break;
    case 512: kernel = reduce_unrolled<512>; break;
    case 1024: kernel = reduce_unrolled<1024>; break;
    default: die(EXIT_MISMATCH, "sum_unrolled has no kernel for block %d", block);
    }
    reduce_in_passes(kernel, 2, d_in, n, block, d_work, d_sum);
}
