// honest: step 04 with its input read through the read-only path: the
// input's pointer __restrict__, each element loaded with __ldg (the
// non-coherent load the compiler may pick for const __restrict__ data
// anyway). One element a thread, as the step gives; the tree is the step's.
#include "reduction.h"

__global__ void reduce_interleaved_strided(const int *__restrict__ in, int *__restrict__ out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? __ldg(&in[i]) : 0;
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
    reduce_in_passes(reduce_interleaved_strided, 1, d_in, n, block, d_work, d_sum);
}
