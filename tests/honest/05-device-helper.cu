// honest: step 05 with the addition in a plain (non-static) __device__
// helper: nvcc gives it a host stand-in that calls exit and is never called.
#include "reduction.h"

__device__ int add_pair(int a, int b)
{
    return a + b;
}

__global__ void reduce_sequential(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] = add_pair(partial[tid], partial[tid + s]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

void sum_sequential(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_sequential, 1, d_in, n, block, d_work, d_sum);
}
