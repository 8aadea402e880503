// honest: step 06's solution with a host-side assert in the launcher, the
// check a learner writes first (the block a whole number of warps, the grid
// not empty). glibc's assert calls __assert_fail, which grading/integrity
// once refused as ending the program, voiding the step; the host code runs
// only in the confined planner, where a failed assert now ends the planning
// with the assertion named (common/core/planner.cpp), as die() would.
// 06-reduction-direct, solution: one pass, two elements per thread, one atomic per block.
//
// Each block covers 2 * blockDim.x elements and every thread adds two of them
// while loading, so no thread idles at the first level of the tree and the
// grid is half as large. Then, instead of writing a partial sum for another
// launch to add up, thread 0 adds the block's sum into the total with one
// atomicAdd: n / (2 * block) atomics on one address. Behind this kernel's
// looped tree they cost no measurable time (make micro-atomics), and the
// whole reduction is one launch.
#include "reduction.h"

#include <assert.h>

__global__ void reduce_direct(const int *in, int *sum, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + tid;

    // The first add, during the load. Each read is checked on its own: the
    // second element can be past the end when the first is not.
    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    partial[tid] = v;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();  // this level's sums are written before the next level reads them
    }
    if (tid == 0)
        atomicAdd(sum, partial[0]);
}

void sum_direct(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    assert(block % 32 == 0 && n > 0);  // a whole number of warps, something to sum
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));  // the blocks add onto it; same stream, so it is done first
    unsigned int grid = ceil_div(n, 2 * block);          // two elements per thread
    reduce_direct<<<grid, block, block * sizeof(int)>>>(d_in, d_sum, n);
    CUDA_CHECK_LAUNCH();
}
