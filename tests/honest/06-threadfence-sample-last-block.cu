// honest: step 06 finished as CUDA's threadFenceReduction sample does: thread
// 0 of each block stores the block's sum in d_work[blockIdx.x], calls
// __threadfence(), and takes a ticket with atomicInc on a __device__ count;
// the block that draws the last ticket sums the partial sums (a strided loop,
// then the tree again), stores the total and resets the count. One launch of
// ceil(n / 2B) blocks, one memset (the total, as the step asks).
// slow: 0.76x the starting kernel on an H200, where step 06 asks 1.20x (2026-11-30).
#include "reduction.h"

__device__ unsigned int retirement_count = 0;

// The tree of step 05 over blockDim.x ints of shared memory; thread 0 gets the sum.
__device__ __forceinline__ int tree_sum(int *partial, unsigned int tid)
{
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    return partial[0];
}

__global__ void reduce_direct(const int *in, int *sum, unsigned int n, int *block_sums)
{
    extern __shared__ int partial[];
    __shared__ bool am_last;
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + tid;

    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    partial[tid] = v;
    __syncthreads();
    int block_total = tree_sum(partial, tid);

    if (gridDim.x == 1) {  // a single block: its sum is the total (d_work may be empty)
        if (tid == 0)
            *sum = block_total;
        return;
    }

    if (tid == 0) {
        block_sums[blockIdx.x] = block_total;
        // Make this block's partial sum visible to every block before the
        // ticket says it is there.
        __threadfence();
        unsigned int ticket = atomicInc(&retirement_count, gridDim.x);
        am_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();

    if (am_last) {  // every other block's partial sum is in block_sums
        int t = 0;
        for (unsigned int b = tid; b < gridDim.x; b += blockDim.x)
            t += block_sums[b];
        partial[tid] = t;
        __syncthreads();
        int total = tree_sum(partial, tid);
        if (tid == 0) {
            *sum = total;
            retirement_count = 0;  // ready for the next launch
        }
    }
}

void sum_direct(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    unsigned int grid = ceil_div(n, 2 * block);  // two elements per thread
    reduce_direct<<<grid, block, block * sizeof(int)>>>(d_in, d_sum, n, d_work);
    CUDA_CHECK_LAUNCH();
}
