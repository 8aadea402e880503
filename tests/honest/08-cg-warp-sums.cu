// honest: step 08 written with cooperative groups: the block and its warps as
// cg::thread_block and cg::thread_block_tile<32>, each warp summed with
// cg::reduce, the warps' totals through shared memory; a grid-stride loop of
// four loads a trip (an unrolled inner loop over a small array) and a tail.
// Grid from cudaGetDeviceProperties: SMs x resident blocks, capped by the work.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "reduction.h"

namespace cg = cooperative_groups;

constexpr unsigned int LOADS = 4;

template <unsigned int BLOCK>
__global__ void reduce_cascaded(const int *in, int *sum, unsigned int n)
{
    __shared__ int warp_totals[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const unsigned int tid = block.thread_rank();

    const unsigned int stride = gridDim.x * LOADS * BLOCK;
    unsigned int i = blockIdx.x * LOADS * BLOCK + tid;
    int v = 0;
    for (; i + (LOADS - 1) * BLOCK < n; i += stride) {  // all LOADS loads inside
        int x[LOADS];
#pragma unroll
        for (unsigned int k = 0; k < LOADS; k++)
            x[k] = in[i + k * BLOCK];
#pragma unroll
        for (unsigned int k = 0; k < LOADS; k++)
            v += x[k];
    }
    for (; i < n; i += BLOCK)  // the last trip's tail: fewer than LOADS elements
        v += in[i];

    v = cg::reduce(warp, v, cg::plus<int>());
    if (warp.thread_rank() == 0)
        warp_totals[warp.meta_group_rank()] = v;
    block.sync();  // every warp's total written before warp 0 reads them
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < BLOCK / 32 ? warp_totals[warp.thread_rank()] : 0;
        v = cg::reduce(warp, v, cg::plus<int>());
        if (warp.thread_rank() == 0)
            atomicAdd(sum, v);
    }
}

void sum_cascaded(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    int device;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    int per_sm = prop.maxThreadsPerMultiProcessor / block;
    if (per_sm > prop.maxBlocksPerMultiProcessor)
        per_sm = prop.maxBlocksPerMultiProcessor;
    unsigned int grid = (unsigned int)(prop.multiProcessorCount * per_sm);
    const unsigned int needed = (n + LOADS * block - 1) / (LOADS * block);
    grid = grid < needed ? grid : needed;

    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    LAUNCH_FOR_BLOCK(reduce_cascaded, block, grid, d_in, d_sum, n);
}
