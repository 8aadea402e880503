// 07-unrolled: take the loop and the barriers out of the tree.
// This is the file you edit. README.md has the background, the hints, and the
// story of the 2007 `volatile` trick (do not use it: it is a data race now).
//
//   make && ./unrolled                    check your kernels, then time them against the given one
//   ./unrolled --check -n 1,1000          correctness only, at the sizes you name (--help: every option)
//   make -C .. sanitize EX=07             memcheck, racecheck, synccheck, initcheck on your kernels
//   make -C .. grade EX=07                what the grader says
//
// Start from the given kernel (reduce_first_add, in main.cu). Two kernels:
//
//  1. reduce_last_warp_unrolled: run the loop only while more than 32 threads
//     are busy. The last six levels are then the work of one warp: write them
//     out without __syncthreads(), correctly for Volta and newer GPUs, whose
//     threads in a warp are not in lockstep: __shfl_down_sync (or __syncwarp()
//     between the steps).
//  2. reduce_unrolled<BLOCK>: with the block size a template parameter, write
//     the whole tree out, one test of BLOCK per level, and let the compiler
//     drop the levels this block size does not have.
//
// Both must be right for every block size from 32 to 1024. Each block writes
// its sum to out[blockIdx.x]; reduce_in_passes adds those up.
#include "reduction.h"

__global__ void reduce_last_warp_unrolled(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + tid;

    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    partial[tid] = v;
    __syncthreads();

    // TODO: the loop of the given kernel, but only while more than one warp's
    //       worth of threads is busy.
    // TODO: then warp 0 alone sums the values still live (README.md, "Two
    //       correct forms"), and thread 0 writes the result to out[blockIdx.x].
}

void sum_last_warp_unrolled(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_last_warp_unrolled, 2, d_in, n, block, d_work, d_sum);
}

template <unsigned int BLOCK>
__global__ void reduce_unrolled(const int *in, int *out, unsigned int n)
{
    __shared__ int partial[BLOCK];  // BLOCK is known now: static shared memory
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * BLOCK) + tid;

    int v = (i < n) ? in[i] : 0;
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    partial[tid] = v;
    __syncthreads();

    // TODO: the levels of the loop above the last warp, written out, each
    //       under a test of BLOCK; then the last warp as in the kernel above.
}

void sum_unrolled(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_pass_kernel kernel;
    switch (block) {  // a kernel for each block size the program accepts
    case 256: kernel = reduce_unrolled<256>; break;
    // TODO: the other block sizes: 32, 64, 128, 512 and 1024.
    default: die(EXIT_MISMATCH, "sum_unrolled has no kernel for block %d yet: add its case to the switch", block);
    }
    reduce_in_passes(kernel, 2, d_in, n, block, d_work, d_sum);
}
