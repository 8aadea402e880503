// honest: step 04 with its own loop over the levels of the tree instead of
// the harness's reduce_in_passes, the partial sums of each level placed one
// after another in d_work, and the checks a careful learner adds while
// debugging: the GPU named, and the default stream waited on after each level.
#include "reduction.h"

__global__ void reduce_interleaved_strided(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x)
            partial[index] += partial[index + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

void sum_interleaved_strided(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    int devices = 0;
    CUDA_CHECK(cudaGetDeviceCount(&devices));
    CUDA_CHECK(cudaSetDevice(0));
    size_t shared = (size_t)block * sizeof(int);
    const int *in = d_in;
    int *next = d_work;
    while (true) {
        unsigned int grid = (n + block - 1) / block;
        int *out = grid == 1 ? d_sum : next;
        reduce_interleaved_strided<<<grid, block, shared>>>(in, out, n);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(0));
        if (grid == 1)
            break;
        in = out;
        next = out + grid;
        n = grid;
    }
}
