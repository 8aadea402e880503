// 06-reduction-direct: one pass, two elements per thread, one atomic per block.
// This is the file you edit. README.md has the background and hints.
//
//   make && ./reduction_direct            check your kernel, then time it against the given one
//   ./reduction_direct --check -n 1,1000  correctness only, at the sizes you name (--help: every option)
//   make -C .. grade EX=06                what the grader says
//
// The given kernel (step 05's solution, in main.cu) loads one element per
// thread, so half its threads idle from the first level of the tree on, and
// it writes a partial sum per block that another launch must sum again,
// level after level. Make each thread add two elements as it loads them, and
// let each block add its sum straight into the total: one launch in all.
#include "reduction.h"

__global__ void reduce_direct(const int *in, int *sum, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;

    // TODO: each block covers a span of twice its threads, and each thread
    //       adds two elements of its block's span (README.md, "The first add
    //       during the load"), each only if it is inside the input.
    partial[tid] = 0;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }

    // TODO: add the block's sum into *sum with one atomic, from one thread.
}

void sum_direct(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    // TODO: the blocks add onto *sum, which holds whatever was there before:
    //       set it to zero first (cudaMemsetAsync, on the same stream as the kernel).
    unsigned int grid = ceil_div(n, 2 * block);  // two elements per thread
    reduce_direct<<<grid, block, block * sizeof(int)>>>(d_in, d_sum, n);
    CUDA_CHECK_LAUNCH();
}
