// honest: step 07 with step 06's other pairing, which step 06's README calls
// right ("Which two elements? Any choice that covers each element once is
// right; the fast ones keep every load of a warp on consecutive ints"): the
// grid covers the input twice over, and thread t of block b adds element
// b * B + t of the first span and the element one grid further, in the
// second (a grid-stride pair). Both loads of a warp read 32 consecutive ints,
// every element is added once, each level's grid is reduce_in_passes's
// (ceil(n / 2B)), and every sum is right; only which elements a block adds
// differs from the given load line.
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
    unsigned int i = blockIdx.x * blockDim.x + tid;
    unsigned int grid_span = gridDim.x * blockDim.x;  // the second element: one grid further

    int v = (i < n) ? in[i] : 0;
    if (i + grid_span < n)
        v += in[i + grid_span];
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
    unsigned int i = blockIdx.x * BLOCK + tid;
    unsigned int grid_span = gridDim.x * BLOCK;  // the second element: one grid further

    int v = (i < n) ? in[i] : 0;
    if (i + grid_span < n)
        v += in[i + grid_span];
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
