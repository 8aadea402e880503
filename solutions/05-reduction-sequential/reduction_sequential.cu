// 05-reduction-sequential, solution: a tree reduction without bank conflicts.
//
// Level s adds the upper half of the live range onto the lower half: thread
// tid reads partial[tid] and partial[tid + s]. The 32 threads of a warp touch
// 32 consecutive ints, one per bank, so every shared-memory access is served
// in one go. The busy threads stay contiguous (tid < s), as in step 04.
#include "reduction.h"

__global__ void reduce_sequential(const int *in, int *out, unsigned int n)
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
