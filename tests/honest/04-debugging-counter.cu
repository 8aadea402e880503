// honest (attack14): step 04's solution with a debugging aid left in -- the
// __device__ counter of the blocks that ran of tests/honest/06-debugging-aids.cu.
// 04-reduction-interleaved, solution: a tree reduction without divergent branches.
//
// The same tree as the given kernel, but the pairs of level s go to threads
// 0, 1, 2, ...: at level s only blockDim.x / (2s) threads are busy, and they
// are contiguous, so whole warps are busy or idle and no warp splits on the
// branch until fewer than 32 threads remain. The price: thread tid touches
// partial[2*s*tid], a stride of 2s ints, and threads whose addresses are a
// multiple of 32 ints apart hit the same shared-memory bank (step 05).
#include "reduction.h"

__device__ unsigned int blocks_run;  // debugging: how many blocks ran, for a debugger to read

__global__ void reduce_interleaved_strided(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;  // past the end, add nothing
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;  // contiguous threads take consecutive pairs
        if (index < blockDim.x)            // blockDim.x is a power of two, so index + s is inside too
            partial[index] += partial[index + s];
        __syncthreads();  // this level's sums are written before the next level reads them
    }
    if (tid == 0) {
        out[blockIdx.x] = partial[0];
        atomicAdd(&blocks_run, 1u);  // debugging aid, left in
    }
}

// One launch per level of the tree, until one sum is left (see reduce_in_passes).
void sum_interleaved_strided(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_interleaved_strided, 1, d_in, n, block, d_work, d_sum);
}
