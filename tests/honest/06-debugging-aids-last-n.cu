// honest: step 06 with what a learner leaves in while debugging: a printf
// from the GPU on the smallest input, a device-side assert, a __device__
// counter of the blocks that ran, and a __constant__ value. (attack14: and
// the size of the last launch, kept in a __device__ variable by block 0 --
// a plain store, before the counter's atomicAdd and the total's.)
#include "reduction.h"

#include <assert.h>
#include <stdio.h>

__constant__ int ELEMENTS_PER_THREAD = 2;
__device__ unsigned int blocks_run;
__device__ unsigned int last_n;  // the n of the last launch, for a debugger to read

__global__ void reduce_direct(const int *in, int *sum, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    if (blockIdx.x == 0 && tid == 0)
        last_n = n;
    unsigned int i = blockIdx.x * (ELEMENTS_PER_THREAD * blockDim.x) + tid;

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
        assert(partial[0] >= 0);  // the inputs are positive
        atomicAdd(&blocks_run, 1u);
        if (n == 1)
            printf("debug: n=1, the one block's sum is %d\n", partial[0]);
        atomicAdd(sum, partial[0]);
    }
}

void sum_direct(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    reduce_direct<<<ceil_div(n, 2 * block), block, block * sizeof(int)>>>(d_in, d_sum, n);
    CUDA_CHECK_LAUNCH();
}
