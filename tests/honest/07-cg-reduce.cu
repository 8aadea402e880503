// honest: step 07 with the warp's sum written with cooperative groups,
// cg::reduce over a tile of 32 (step 08's README shows it), in place of the
// shuffles.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "reduction.h"

namespace cg = cooperative_groups;

// Sums v over the 32 lanes of a warp (warp 0, whole); every lane gets the total.
__device__ __forceinline__ int warp_sum(int v)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    return cg::reduce(warp, v, cg::plus<int>());
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
