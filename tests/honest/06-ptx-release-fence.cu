// honest (attack15): CUDA's threadFenceReduction at step 06 (the fenced form of
// tests/mutants/06-last-block-no-fence), its fences spelled with cuda::ptx: a
// release fence of the GPU's scope after the store, an acquire fence before the
// last block reads -- fence.release.gpu / fence.acquire.gpu, a release pattern
// by the PTX memory model (a release fence then a strong write, the count).
// FALSE ALARM: ticket_watch knows membar.gl/sys and fence.sc|acq_rel.gpu|sys
// only, so the ticket after fence.release.gpu is 'unfenced'.
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

#include <cuda/ptx>

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
    // The last block to finish sums the blocks' partial sums (CUDA's
    // threadFenceReduction sample), one atomic a block: on the count, kept
    // after the partial sums and zeroed by the call's one memset. Between
    // the store and the count a release fence of the GPU's scope (PTX ISA
    // 8.6, sm_90: lighter than the sample's __threadfence(), which is
    // sequentially consistent); the last block acquires before it reads.
    bool last = false;
    if (tid == 0) {
        work[blockIdx.x] = partial[0];
        cuda::ptx::fence(cuda::ptx::sem_release, cuda::ptx::scope_gpu);  // fence.release.gpu
        last = atomicAdd((unsigned int *)&work[gridDim.x], 1u) == gridDim.x - 1;
    }
    if (!__syncthreads_or(last))
        return;
    cuda::ptx::fence(cuda::ptx::sem_acquire, cuda::ptx::scope_gpu);  // fence.acquire.gpu
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
