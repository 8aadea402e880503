// honest: step 06 as CUDA's threadFenceReduction sample does it -- each
// block stores its partial sum, takes a ticket with one atomic, and the last
// block sums the partial sums -- with the sample's __threadfence() between
// the store and the ticket, which makes the partial sums visible before the
// count that says they are there. One launch, one memset, two elements a
// thread. kernels.awk's unfenced record (the same kernel without the fence:
// tests/mutants/06-last-block-no-fence.patch) must not fire here.
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
    if (gridDim.x == 1) {  // one block: its sum is the sum
        if (tid == 0)
            *sum = partial[0];
        return;
    }
    // The last block to finish sums the blocks' partial sums, one atomic a
    // block: on the count, kept after the partial sums and zeroed by the
    // call's one memset. The fence orders this block's partial sum before
    // its count, for every other block.
    bool last = false;
    if (tid == 0) {
        work[blockIdx.x] = partial[0];
        __threadfence();
        last = atomicAdd((unsigned int *)&work[gridDim.x], 1u) == gridDim.x - 1;
    }
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
