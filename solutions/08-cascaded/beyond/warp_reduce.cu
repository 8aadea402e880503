// Past step 08: the warp's last sum in one instruction.
//
// Two kernels, each the reference solution's reduce_cascaded (cascaded.cu)
// with one thing changed: how the last warp of the block tree sums its 32
// values. The solution does it with block_sum's shuffle tree, five
// __shfl_down_sync and five adds, one level after the other. Here:
//
//  - reduce_redux: __reduce_add_sync(mask, v), which sm_80 and newer run as
//    one instruction, REDUX.SUM, for 32-bit ints: every lane gets the sum of
//    the v of the lanes in the mask. Older GPUs have no such instruction, so
//    there it is the shuffle tree again (the build makes code for them too).
//  - reduce_cg: cooperative_groups::reduce over a thread_block_tile<32>, the
//    same sum written for any group and any operator. For ints and plus on
//    sm_80 and newer the library itself calls __reduce_add_sync; for other
//    types, or on older GPUs, it runs a shuffle tree of its own.
//
// In this kernel the warp stage runs once per block, in warp 0, after each
// thread has added some 250 elements (2^26 ints, block 256, on an H100): what
// the instruction saves is a few warp-instructions per block. The step's
// README asks how much that is worth before it says.
//
// steps.conf's beyond_sources lists this file: it is built into the
// reference solution only, linked into ./cascaded_solution, whose main.cu
// lists sum_redux and sum_cg_reduce in `beyond`.
#include "block_sum.cuh"
#include "reduction.h"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// The warp stages: the 32 lanes of a warp each hold a v; lane 0 gets their
// sum (these two give it to every lane), as block_sum's WARP_SUM. All 32
// lanes must call them.
struct redux_sum {
    static __device__ __forceinline__ int of(int v)
    {
#if __CUDA_ARCH__ >= 800
        return __reduce_add_sync(0xffffffffu, v);
#else
        return warp_sum(v);  // no REDUX before sm_80: block_sum.cuh's shuffle tree
#endif
    }
};

struct cg_sum {
    static __device__ __forceinline__ int of(int v)
    {
        cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
        return cg::reduce(warp, v, cg::plus<int>());
    }
};

enum { LOADS_PER_TRIP = 4 };  // as in cascaded.cu

// reduce_cascaded of cascaded.cu, line for line, but for the block's sum.
template <unsigned int BLOCK, class WARP_SUM>
__device__ __forceinline__ void cascaded_with(const int *in, int *sum, unsigned int n, int *partial)
{
    unsigned int tid = threadIdx.x;
    const unsigned int stride = gridDim.x * LOADS_PER_TRIP * BLOCK;
    unsigned int i = blockIdx.x * LOADS_PER_TRIP * BLOCK + tid;
    int v = 0;
    for (; i + (LOADS_PER_TRIP - 1) * BLOCK < n; i += stride)
        v += in[i] + in[i + BLOCK] + in[i + 2 * BLOCK] + in[i + 3 * BLOCK];
    for (; i < n; i += BLOCK)
        v += in[i];

    v = block_sum<BLOCK, WARP_SUM>(v, partial);  // block_sum.cuh, its last warp summed by WARP_SUM::of
    if (tid == 0)
        atomicAdd(sum, v);
}

// A kernel each, so that the profiler names them apart.
template <unsigned int BLOCK>
__global__ void reduce_redux(const int *in, int *sum, unsigned int n)
{
    __shared__ int partial[BLOCK];
    cascaded_with<BLOCK, redux_sum>(in, sum, n, partial);
}

template <unsigned int BLOCK>
__global__ void reduce_cg(const int *in, int *sum, unsigned int n)
{
    __shared__ int partial[BLOCK];
    cascaded_with<BLOCK, cg_sum>(in, sum, n, partial);
}

// The grid of cascaded.cu's sum_cascaded: as many blocks as the GPU runs at
// once, no more than the input has work for. (That file's helper is its own:
// the learner's file, and so the solution's, is compiled apart.)
static unsigned int cascaded_grid(unsigned int n, int block)
{
    int device, sms, threads_per_sm, blocks_per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device));
    int per_sm = threads_per_sm / block;
    if (per_sm > blocks_per_sm)
        per_sm = blocks_per_sm;
    unsigned int grid = (unsigned int)(sms * per_sm);
    unsigned int needed = ceil_div(n, LOADS_PER_TRIP * block);
    return grid < needed ? grid : needed;
}

void sum_redux(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    unsigned int grid = cascaded_grid(n, block);
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    LAUNCH_FOR_BLOCK(reduce_redux, block, grid, d_in, d_sum, n);
}

void sum_cg_reduce(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    unsigned int grid = cascaded_grid(n, block);
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    LAUNCH_FOR_BLOCK(reduce_cg, block, grid, d_in, d_sum, n);
}
