// honest: step 06 with the memset and the launch issued on the per-thread
// default stream (cudaStreamPerThread), as code written for a host program
// of several threads often does: one stream, so the memset is done before
// the blocks add onto the total, as on the legacy default stream. The
// planner reads 0, cudaStreamLegacy and cudaStreamPerThread as the one
// default stream (common/core/planner.cpp, other_stream).
#include "reduction.h"

__global__ void reduce_direct(const int *in, int *sum, unsigned int n)
{
    extern __shared__ int partial[];
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
    if (tid == 0)
        atomicAdd(sum, partial[0]);
}

void sum_direct(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    cudaStream_t stream = cudaStreamPerThread;  // one stream for the memset and the launch: in order
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int), stream));
    unsigned int grid = ceil_div(n, 2 * block);
    reduce_direct<<<grid, block, block * sizeof(int), stream>>>(d_in, d_sum, n);
    CUDA_CHECK_LAUNCH();
}
