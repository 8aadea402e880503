// 04-reduction-interleaved: a tree reduction without divergent branches.
// This is the file you edit. README.md has the background and hints.
//
//   make && ./reduction_interleaved       check your kernel, then time it against the given one
//   make -C .. grade EX=04                what the grader says
//
// The given kernel (reduce_interleaved_divergent, in ../common/tracks/reduction/reduction.cu)
// sums each block's elements in a tree held in shared memory. At level s it
// keeps thread tid busy when tid % (2*s) == 0, so the busy threads are spread
// over every warp of the block. Keep its tree -- the same pairs, the same
// order -- but hand the pairs of level s to threads 0, 1, 2, ... so that whole
// warps are either busy or idle.
#include "reduction.h"

__global__ void reduce_interleaved_strided(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;  // past the end, add nothing
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        // TODO: thread tid takes the tid-th pair of level s (README.md, "Renumber
        //       the work"), if that pair lies inside the block, and adds its
        //       second element into its first.
        // TODO: wait until every thread of the block has finished this level.
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

// One launch per level of the tree, until one sum is left (see reduce_in_passes).
void sum_interleaved_strided(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_interleaved_strided, 1, d_in, n, block, d_work, d_sum);
}
