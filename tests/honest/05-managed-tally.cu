// honest: step 05 with module state of the kinds the program must find in
// the cubin and reset without harm: a __managed__ tally of the launches, and
// a __device__ pointer to another variable, which the driver fills in when
// it loads the module (its first content is an address, not the cubin's bytes).
#include "reduction.h"

__managed__ unsigned int launches_seen;
__device__ int nothing = 0;
__device__ const int *past_the_end = &nothing;  // what a thread past the end adds

__global__ void reduce_sequential(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    if (blockIdx.x == 0 && tid == 0)
        atomicAdd(&launches_seen, 1u);
    partial[tid] = (i < n) ? in[i] : *past_the_end;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

void sum_sequential(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_sequential, 1, d_in, n, block, d_work, d_sum);
}
