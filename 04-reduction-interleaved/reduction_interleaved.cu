// 04-reduction-interleaved: a tree reduction with its busy threads packed into few warps.
// This is the file you edit. README.md has the background and hints.
//
//   make && ./reduction_interleaved       check your kernel, then time it against the given one
//   ./reduction_interleaved --check -n 1,1000  correctness only, at the sizes you name (--help: every option)
//   make -C .. grade EX=04                what the grader says
//
// The given kernel (reduce_interleaved_divergent, in ../common/tracks/reduction/reduction.cu)
// sums each block's elements in a tree held in shared memory. At level s it
// keeps thread tid busy when tid % (2*s) == 0, so the busy threads are spread
// over every warp of the block. Keep its tree -- the same pairs, the same
// order -- but hand the pairs of level s to threads 0, 1, 2, ... in order, so
// that the busy threads fill as few warps as they can and the other warps skip
// the add as a whole. (In the last five levels, 16, 8, 4, 2 and then 1
// threads work: lanes of warp 0 only, which runs the add with its other lanes
// masked off.)
#include "reduction.h"

__global__ void reduce_interleaved_strided(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;  // past the end, add nothing
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        // TODO: hand the pairs of level s to the lowest threads, in order
        //       (README.md, "Pack the busy threads"): thread tid works out
        //       which pair is its own and, if it has one at this level, adds
        //       the pair's second element into its first.
        // TODO: the whole block finishes this level before any thread starts
        //       the next.
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

// One launch per level of the tree, until one sum is left (see reduce_in_passes).
void sum_interleaved_strided(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_interleaved_strided, 1, d_in, n, block, d_work, d_sum);
}
