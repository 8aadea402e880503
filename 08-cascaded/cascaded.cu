// 08-cascaded: algorithm cascading -- many elements per thread, just enough threads.
// This is the file you edit. README.md has the background (Brent's theorem) and hints.
//
//   make && ./cascaded                    check your kernel, then time it against the given one and CUB
//   ./cascaded --check -n 1,1000          correctness only, at the sizes you name (--help: every option)
//   make -C .. grade EX=08                what the grader says
//
// The given kernel (step 07's solution, in main.cu) starts one thread per two
// elements: for 2^26 ints, 33 million threads, each doing two loads and then
// its share of a tree. Instead, start only as many threads as the GPU holds at
// once, and let each one walk the input in a grid-stride loop, adding into a
// register as it goes; the tree then runs once per block, not once per two
// elements.
#include "block_sum.cuh"
#include "reduction.h"

template <unsigned int BLOCK>
__global__ void reduce_cascaded(const int *in, int *sum, unsigned int n)
{
    __shared__ int partial[BLOCK];
    unsigned int tid = threadIdx.x;

    int v = 0;
    // TODO: the sequential part: a grid-stride loop (README.md, "The
    //       grid-stride loop, four loads per trip") that adds every element of
    //       the input into v exactly once, whatever n, each of a warp's loads
    //       reading consecutive ints.

    // The tree of step 07, once per block; one atomic per block into the total.
    v = block_sum<BLOCK>(v, partial);
    if (tid == 0)
        atomicAdd(sum, v);
}

void sum_cascaded(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    // TODO: as many blocks as the GPU can run at once (README.md, "How many
    //       blocks": the device attributes to ask for), but no more blocks than
    //       the input has work for.
    unsigned int grid = 1;

    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    LAUNCH_FOR_BLOCK(reduce_cascaded, block, grid, d_in, d_sum, n);
}
