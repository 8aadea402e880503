// honest: step 07's solution with a debugging aid kept in a __noinline__
// helper of its own: count_block(unsigned int *counter), called by thread 0 of
// every block with the address of a __device__ counter of the blocks that ran,
// one counter per kernel (an add of 1, its old value unused), kept out of line
// so that it stays one frame in cuda-gdb.
// slow: 0.91x the starting kernel on an H200, where step 07 asks 1.08x (2026-11-30).
#include "reduction.h"

static const unsigned int FULL_WARP = 0xffffffffu;

// How many blocks of each kernel ran (read with cuda-gdb).
__device__ unsigned int last_warp_blocks;
__device__ unsigned int unrolled_blocks;

// Counts one block into *counter: a counter's add of 1.
__device__ __noinline__ void count_block(unsigned int *counter)
{
    atomicAdd(counter, 1u);
}

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
    if (tid < 32) {
        v = partial[tid];
        if (blockDim.x >= 64)
            v += partial[tid + 32];
        v = warp_sum(v);
        if (tid == 0) {
            out[blockIdx.x] = v;
            count_block(&last_warp_blocks);
        }
    }
}

void sum_last_warp_unrolled(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_last_warp_unrolled, 2, d_in, n, block, d_work, d_sum);
}

template <unsigned int BLOCK>
__global__ void reduce_unrolled(const int *in, int *out, unsigned int n)
{
    __shared__ int partial[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * BLOCK) + tid;

    int v = (i < n) ? in[i] : 0;
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    partial[tid] = v;
    __syncthreads();

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
        if (tid == 0) {
            out[blockIdx.x] = v;
            count_block(&unrolled_blocks);
        }
    }
}

void sum_unrolled(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_pass_kernel kernel;
    switch (block) {
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
