// honest: step 06 finished with a last block, written the C++ memory model's
// way instead of with __threadfence(): thread 0 stores the block's sum in
// d_work, then takes its ticket with cuda::atomic_ref<unsigned int,
// cuda::thread_scope_device>::fetch_add(1, memory_order_acq_rel) -- the
// release orders the store before the ticket, the acquire the others' stores
// before the last block's reads (the barrier hands that on to its threads).
// slow: 0.76x the starting kernel on an H200, where step 06 asks 1.20x (2026-11-30).
#include "reduction.h"

#include <cuda/atomic>

__device__ unsigned int blocks_done;

__global__ void reduce_direct(const int *in, int *sum, unsigned int n, int *block_sums)
{
    extern __shared__ int partial[];
    __shared__ unsigned int last;
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + tid;

    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    partial[tid] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }

    if (tid == 0) {
        if (gridDim.x == 1) {
            *sum = partial[0];
            last = 0;
        } else {
            block_sums[blockIdx.x] = partial[0];
            cuda::atomic_ref<unsigned int, cuda::thread_scope_device> done(blocks_done);
            unsigned int before = done.fetch_add(1, cuda::memory_order_acq_rel);
            last = (before + 1 == gridDim.x);
            if (last)
                done.store(0, cuda::memory_order_relaxed);  // for the next launch
        }
    }
    __syncthreads();
    if (!last)
        return;

    // The last block: every partial sum is written and visible.
    int t = 0;
    for (unsigned int b = tid; b < gridDim.x; b += blockDim.x)
        t += block_sums[b];
    partial[tid] = t;
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
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    unsigned int grid = ceil_div(n, 2 * block);
    reduce_direct<<<grid, block, block * sizeof(int)>>>(d_in, d_sum, n, d_work);
    CUDA_CHECK_LAUNCH();
}
