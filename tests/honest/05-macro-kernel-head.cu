// honest: step 05 with the kernels' heads written by a macro of the file's
// own, as a file with several kernels of one signature might: the kernel is
// defined by REDUCE_PASS(reduce_sequential), not by a line that names it
// after __global__.
#include "reduction.h"

// Every pass of the tree has the signature reduce_in_passes launches.
#define REDUCE_PASS(name) __global__ void name(const int *in, int *out, unsigned int n)

REDUCE_PASS(reduce_sequential)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;  // past the end, add nothing
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();  // this level's sums are written before the next level reads them
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

// One launch per level of the tree, until one sum is left (see reduce_in_passes).
void sum_sequential(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_sequential, 1, d_in, n, block, d_work, d_sum);
}
