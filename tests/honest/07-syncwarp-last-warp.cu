// honest: step 07 with the last warp's six levels kept in shared memory, each
// level's read and write separated by __syncwarp() (the README's other
// correct form, no shuffles), in a __device__ helper shared by both kernels;
// the templated kernel's levels above the warp written out under tests of
// BLOCK, and the launcher's switch over the six block sizes.
#include "reduction.h"

// Warp 0 sums partial[0 .. 2 * width) into lane 0's return value; width is 32,
// or 16 when the block has only 32 threads (partial then holds 32 ints).
// Every lane of warp 0 calls it; each level reads, waits for the whole warp,
// then writes, and waits again, so no lane reads a slot another is writing.
__device__ __forceinline__ int last_warp_sum(int *partial, unsigned int tid, unsigned int block_threads)
{
    int v = partial[tid];
    if (block_threads >= 64)
        v += partial[tid + 32];
    __syncwarp();
    partial[tid] = v;
    __syncwarp();
#pragma unroll
    for (unsigned int s = 16; s > 0; s >>= 1) {
        if (tid < s)
            v += partial[tid + s];
        __syncwarp();
        if (tid < s)
            partial[tid] = v;
        __syncwarp();
    }
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
        v = last_warp_sum(partial, tid, blockDim.x);
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
    __shared__ int partial[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * BLOCK) + tid;

    int v = (i < n) ? in[i] : 0;
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    partial[tid] = v;
    __syncthreads();

    if (BLOCK >= 1024) { if (tid < 512) partial[tid] += partial[tid + 512]; __syncthreads(); }
    if (BLOCK >= 512) { if (tid < 256) partial[tid] += partial[tid + 256]; __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) partial[tid] += partial[tid + 128]; __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) partial[tid] += partial[tid + 64]; __syncthreads(); }
    if (tid < 32) {
        v = last_warp_sum(partial, tid, BLOCK);
        if (tid == 0)
            out[blockIdx.x] = v;
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
