// honest: step 07's solution with its kernel templated on the element type
// as well, in the order of the CUDA samples' reduction (reduction_kernel.cu:
// template <class T, unsigned int blockSize> __global__ void reduce4(...)),
// the order a learner who read them writes: template <typename T, unsigned
// int BLOCK>, launched as reduce_unrolled<int, 256>. The launch audit's
// template check (kernel_base in common/core/audit.cu) reads the instance's
// block as strtol() of the text after the first '<' of the demangled name,
// "void reduce_unrolled<int, 256u>(...)": 0, not 256, so every plan has the
// finding "launch the instance for the block asked for, reduce_unrolled<256>"
// and the failed audit voids the step. Same kernel, same instances, same
// launches as the solution.
// 07-unrolled, solution: the loop and the barriers taken out of the tree.
//
// Once 32 or fewer threads are busy, they are all in warp 0, and a warp can
// exchange values through registers: __shfl_down_sync(mask, v, k) hands each
// lane the v of the lane k above it. Five shuffles sum 32 values, with no
// shared memory and no __syncthreads(). The mask names all 32 lanes, which
// must all reach the call -- here they do: the whole of warp 0 enters.
//
// The templated kernel goes further: with BLOCK a compile-time constant, each
// `if (BLOCK >= ...)` is decided by the compiler, the loop counter and its
// compare-and-branch vanish, and only the levels this block size has remain.
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

template <typename T, unsigned int BLOCK>
__global__ void reduce_unrolled(const T *in, T *out, unsigned int n)
{
    __shared__ T partial[BLOCK];  // BLOCK is known now: static shared memory
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * BLOCK) + tid;

    T v = (i < n) ? in[i] : 0;
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
    case 32: kernel = reduce_unrolled<int, 32>; break;
    case 64: kernel = reduce_unrolled<int, 64>; break;
    case 128: kernel = reduce_unrolled<int, 128>; break;
    case 256: kernel = reduce_unrolled<int, 256>; break;
    case 512: kernel = reduce_unrolled<int, 512>; break;
    case 1024: kernel = reduce_unrolled<int, 1024>; break;
    default: die(EXIT_MISMATCH, "sum_unrolled has no kernel for block %d", block);
    }
    reduce_in_passes(kernel, 2, d_in, n, block, d_work, d_sum);
}
