// honest: step 07 with the kernel's instance picked from a table indexed by
// the log2 of the block size (<cmath>'s std::log2, which gcc leaves to libm)
// instead of a switch.
#include <cmath>
#include "reduction.h"

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

template <unsigned int BLOCK>
__global__ void reduce_unrolled(const int *in, int *out, unsigned int n)
{
    __shared__ int partial[BLOCK];  // BLOCK is known now: static shared memory
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * BLOCK) + tid;

    int v = (i < n) ? in[i] : 0;
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    partial[tid] = v;
    __syncthreads();

    // Each test is on a constant: the compiler keeps only the levels BLOCK has.
    if (BLOCK >= 1024) {
        if (tid < 512)
            partial[tid] += partial[tid + 512];
        __syncthreads();
    }
    if (BLOCK >= 512) {
        if (tid < 256)
            partial[tid] += partial[tid + 256];
        __syncthreads();
    }
    if (BLOCK >= 256) {
        if (tid < 128)
            partial[tid] += partial[tid + 128];
        __syncthreads();
    }
    if (BLOCK >= 128) {
        if (tid < 64)
            partial[tid] += partial[tid + 64];
        __syncthreads();
    }
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
    static const reduce_pass_kernel by_log2[] = {reduce_unrolled<32>,  reduce_unrolled<64>,  reduce_unrolled<128>,
                                                 reduce_unrolled<256>, reduce_unrolled<512>, reduce_unrolled<1024>};
    int level = (int)std::log2((double)block) - 5;  // 32 -> 0, ..., 1024 -> 5
    if (level < 0 || level > 5 || (32 << level) != block)
        die(EXIT_MISMATCH, "sum_unrolled has no kernel for block %d", block);
    reduce_in_passes(by_log2[level], 2, d_in, n, block, d_work, d_sum);
}
