// 08-cascaded, solution: algorithm cascading -- many elements per thread, just enough threads.
//
// Brent's theorem, for this case: summing n values with p threads takes about
// n/p + log2(p) steps, and the total work stays about n as long as p is no
// more than n / log2(n). So launch only as many threads as the GPU holds at
// once (p: the SM count times what one SM holds), let each add n/p elements
// sequentially in a register, and run the tree once per block. Each thread
// issues four independent loads per trip round its loop before it needs the
// first: more bytes in flight per SM, which is what a memory-bound kernel
// needs to approach the bandwidth limit.
//
// Past the lesson, reduce_vectorized (below, and not graded) loads 16 bytes
// per instruction and sums each warp with shuffles instead of a shared-memory
// tree.
#include "block_sum.cuh"
#include "reduction.h"

#include <stdint.h>

enum { LOADS_PER_TRIP = 4 };  // independent loads each thread has in flight per trip

template <unsigned int BLOCK>
__global__ void reduce_cascaded(const int *in, int *sum, unsigned int n)
{
    __shared__ int partial[BLOCK];
    unsigned int tid = threadIdx.x;

    // Sequential part. Each block owns LOADS_PER_TRIP * BLOCK consecutive
    // elements per trip -- for each load, a warp reads 32 consecutive ints --
    // and the whole grid moves on by its own width.
    const unsigned int stride = gridDim.x * LOADS_PER_TRIP * BLOCK;
    unsigned int i = blockIdx.x * LOADS_PER_TRIP * BLOCK + tid;
    int v = 0;
    for (; i + (LOADS_PER_TRIP - 1) * BLOCK < n; i += stride)  // all four loads inside the input
        v += in[i] + in[i + BLOCK] + in[i + 2 * BLOCK] + in[i + 3 * BLOCK];
    for (; i < n; i += BLOCK)  // the tail: up to three of this thread's elements, the last trip's
        v += in[i];

    // The tree of step 07, once per block; one atomic per block into the total.
    v = block_sum<BLOCK>(v, partial);
    if (tid == 0)
        atomicAdd(sum, v);
}

// How many blocks of `block` threads the GPU runs at once: p of Brent's theorem.
static unsigned int resident_blocks(int block)
{
    int device, sms, threads_per_sm, blocks_per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device));
    int per_sm = threads_per_sm / block;
    if (per_sm > blocks_per_sm)
        per_sm = blocks_per_sm;
    return (unsigned int)(sms * per_sm);
}

void sum_cascaded(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    unsigned int grid = resident_blocks(block);
    unsigned int needed = ceil_div(n, LOADS_PER_TRIP * block);  // a small input needs fewer
    if (grid > needed)
        grid = needed;

    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    LAUNCH_FOR_BLOCK(reduce_cascaded, block, grid, d_in, d_sum, n);
}

// ===========================================================================
// Beyond the lesson: 16-byte loads and a block sum made of warp shuffles
// ===========================================================================
// Two changes, each worth a few percent of bandwidth:
//  - int4 loads: one instruction fetches 16 bytes, four ints, so a thread has
//    more bytes in flight for the same number of instructions;
//  - no shared-memory tree: each warp sums its 32 values with five shuffles,
//    warp 0 sums the warps' totals, and one __syncthreads() is left.

template <unsigned int BLOCK>
__global__ void reduce_vectorized(const int *in, int *sum, unsigned int n)
{
    __shared__ int warp_totals[BLOCK / 32];
    const int4 *in4 = reinterpret_cast<const int4 *>(in);  // 16-byte aligned: see sum_vectorized
    unsigned int n4 = n / 4;
    unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;

    const unsigned int stride = gridDim.x * 2 * BLOCK;
    unsigned int i = blockIdx.x * 2 * BLOCK + tid;
    int v = 0;
    for (; i + BLOCK < n4; i += stride) {  // two int4 per trip, both inside the input
        int4 a = in4[i], b = in4[i + BLOCK];
        v += (a.x + a.y) + (a.z + a.w) + (b.x + b.y) + (b.z + b.w);
    }
    if (i < n4) {
        int4 a = in4[i];
        v += (a.x + a.y) + (a.z + a.w);
    }
    if (blockIdx.x == 0 && tid < n % 4)  // the last n % 4 ints fill no int4
        v += in[4 * n4 + tid];

    v = warp_sum(v);
    if (lane == 0)
        warp_totals[warp] = v;
    __syncthreads();  // every warp's total is written before warp 0 reads them
    if (warp == 0) {
        v = (lane < BLOCK / 32) ? warp_totals[lane] : 0;
        v = warp_sum(v);
        if (lane == 0)
            atomicAdd(sum, v);
    }
}

void sum_vectorized(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    if ((uintptr_t)d_in % sizeof(int4) != 0)
        die(EXIT_CUDA, "sum_vectorized needs a 16-byte aligned input (cudaMalloc's pointers are)");
    unsigned int grid = resident_blocks(block);
    unsigned int needed = ceil_div(n / 4, 2 * block);
    if (grid > needed)
        grid = needed > 0 ? needed : 1;

    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    LAUNCH_FOR_BLOCK(reduce_vectorized, block, grid, d_in, d_sum, n);
}
