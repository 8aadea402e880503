// honest (attack15): CUDA's threadFenceReduction at step 06, fenced, with the
// one-block case (grid 1: no ticket) handled after the fence, by a store and a
// return. (Once a false alarm: ticket_watch read the text in order, so the store of
// the one-block branch -- which returns before any ticket -- comes after the
// fence and 'unfenced' the ticket of the other path; a path that returns or
// jumps away now ends there.)
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

__global__ void reduce_direct(const int *in, int *sum, unsigned int n, int *work)
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
    // CUDA's threadFenceReduction sample: each block stores its partial sum,
    // fences, then takes a ticket on the count (kept after the partial sums,
    // zeroed by the call's one memset); the last block sums the partial sums.
    if (tid == 0 && gridDim.x > 1)  // (one block: its scratch may hold no int at all)
        work[blockIdx.x] = partial[0];
    __threadfence();  // the partial sum is visible before the ticket is
    if (gridDim.x == 1) {  // one block: its sum is the sum, no ticket to take
        if (tid == 0)
            *sum = partial[0];
        return;
    }
    bool last = false;
    if (tid == 0)
        last = atomicAdd((unsigned int *)&work[gridDim.x], 1u) == gridDim.x - 1;
    if (!__syncthreads_or(last))
        return;
    v = 0;
    for (unsigned int b = tid; b < gridDim.x; b += blockDim.x)
        v += __ldcg(work + b);
    partial[tid] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        *sum = partial[0];
}

void sum_direct(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    unsigned int grid = ceil_div(n, 2 * block);  // two elements per thread
    if (grid == 1)
        CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));  // (nothing to count: the one memset, harmless)
    else
        CUDA_CHECK(cudaMemsetAsync(d_work + grid, 0, sizeof(int)));  // the count of blocks done
    reduce_direct<<<grid, block, block * sizeof(int)>>>(d_in, d_sum, n, d_work);
    CUDA_CHECK_LAUNCH();
}
