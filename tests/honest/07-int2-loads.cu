// honest: step 07 with each thread's two elements loaded as one int2: thread
// t of block b reads elements 2t and 2t + 1 of the block's 2B, neighbours,
// in one 8-byte load where the input is 8-byte aligned and both lie inside
// it, else one at a time. Two elements a thread, every element once, each
// level's grid reduce_in_passes's; only which two elements differs from the
// given load line (step 06's README: any choice that covers each element
// once is right).
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

// Elements i and i + 1 of in (i even), 0 for those past n: one int2 where
// the pair is 8-byte aligned and whole, else each alone.
__device__ __forceinline__ int pair_sum(const int *in, unsigned int i, unsigned int n)
{
    if (i + 1 < n && ((uintptr_t)(in + i) & 7) == 0) {
        int2 two = *reinterpret_cast<const int2 *>(in + i);
        return two.x + two.y;
    }
    int v = (i < n) ? in[i] : 0;
    if (i + 1 < n)
        v += in[i + 1];
    return v;
}

template <unsigned int BLOCK>
__global__ void reduce_unrolled(const int *in, int *out, unsigned int n)
{
    __shared__ int partial[BLOCK];  // BLOCK is known now: static shared memory
    unsigned int tid = threadIdx.x;

    partial[tid] = pair_sum(in, blockIdx.x * (2 * BLOCK) + 2 * tid, n);
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
        int v = partial[tid];
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
