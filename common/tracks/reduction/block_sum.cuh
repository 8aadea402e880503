// block_sum.cuh: step 07's solution as two device functions, for step 08,
// which starts from it. (Step 07 is where you write them yourself; this file
// is not included there.)
#pragma once

// Sums v over the 32 lanes of a warp; lane 0 gets the total. All 32 lanes
// must take part: the mask names them all.
__device__ __forceinline__ int warp_sum(int v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// The last warp's sum of block_sum, as a type: the shuffles of warp_sum.
struct shuffle_warp_sum {
    static __device__ __forceinline__ int of(int v) { return warp_sum(v); }
};

// Sums the v of the BLOCK threads of a block; thread 0 gets the total. The
// tree is unrolled for a block size known at compile time, its last warp
// summed by WARP_SUM::of (the shuffles, unless a kernel past the lesson
// names another). `partial` is BLOCK ints of shared memory. Every thread of
// the block must call it: it holds __syncthreads().
template <unsigned int BLOCK, class WARP_SUM = shuffle_warp_sum>
__device__ __forceinline__ int block_sum(int v, int *partial)
{
    unsigned int tid = threadIdx.x;
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
        v = WARP_SUM::of(v);
    }
    return v;
}
