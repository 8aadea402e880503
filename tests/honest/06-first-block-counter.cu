// honest (attack16): step 06 with debugging aids: the n of the last launch
// kept for a debugger, and the block that started first, from a counter of
// the blocks that ran (its old value used: a first-block test, then the
// input read). No block reads what another wrote. (Once a false alarm: the
// counter, after the store of last_n, was taken for a ticket, and the input
// loads after it for the others' sums.)
#include "reduction.h"
__device__ unsigned int last_n;
__device__ unsigned int blocks_run;
__device__ unsigned int first_block;

__global__ void reduce_direct(const int *in, int *sum, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    if (blockIdx.x == 0 && tid == 0)
        last_n = n;
    if (tid == 0 && atomicAdd(&blocks_run, 1u) == 0)
        first_block = blockIdx.x;
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
    if (tid == 0)
        atomicAdd(sum, partial[0]);
}

void sum_direct(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));  // the blocks add onto it
    reduce_direct<<<ceil_div(n, 2 * block), block, block * sizeof(int)>>>(d_in, d_sum, n);
    CUDA_CHECK_LAUNCH();
}
