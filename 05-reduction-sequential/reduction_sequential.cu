// 05-reduction-sequential: a tree reduction without bank conflicts.
// This is the file you edit. README.md has the background and hints.
//
//   make && ./reduction_sequential        check your kernel, then time it against the given one
//   ./reduction_sequential --check -n 1,1000  correctness only, at the sizes you name (--help: every option)
//   make -C .. grade EX=05                what the grader says
//   make -C .. profile EX=05              count the bank conflicts of both kernels
//
// The given kernel (step 04's solution, in main.cu) pairs neighbours first
// (stride 1, 2, 4, ...) and has thread tid work at partial[2*s*tid]: the
// threads of one warp land on the same few shared-memory banks. Turn the tree
// around: pair elements far apart first and neighbours last, so that the
// threads of a warp always touch consecutive ints.
#include "reduction.h"

__global__ void reduce_sequential(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;  // past the end, add nothing
    __syncthreads();

    // TODO: the levels of the sequential tree (README.md, "Sequential
    //       addressing"): at each, the upper half of the values still live is
    //       folded onto the lower half, and the whole block finishes a level
    //       before any thread starts the next.

    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

// One launch per level of the tree, until one sum is left (see reduce_in_passes).
void sum_sequential(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_sequential, 1, d_in, n, block, d_work, d_sum);
}
