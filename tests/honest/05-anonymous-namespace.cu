// honest: step 05 with its kernel and a __device__ helper in an anonymous
// namespace, and a __constant__ value the kernel reads: what a thread past
// the end of the input adds.
#include "reduction.h"

namespace {

__constant__ int past_the_end = 0;

// The upper half of the live range onto the lower half, at thread tid.
__device__ int add_upper_half(const int *partial, unsigned int tid, unsigned int s)
{
    return partial[tid] + partial[tid + s];
}

__global__ void reduce_sequential(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : past_the_end;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] = add_upper_half(partial, tid, s);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

}  // namespace

void sum_sequential(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_sequential, 1, d_in, n, block, d_work, d_sum);
}
