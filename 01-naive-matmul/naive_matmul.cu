// 01-naive-matmul: one thread per element of C, with coalesced memory accesses.
// This is the file you edit. README.md has the background and hints.
//
//   make && ./naive_matmul                check your kernel, then time it against the given one
//   ./naive_matmul --check -n 1,1000      correctness only, at the sizes you name (--help: every option)
//   make -C .. grade EX=01                what the grader says
//
// C = A * B, N x N, row-major: element (r, c) of A is A[r * n + c].
//
// The given kernel (matmul_uncoalesced, in ../common/tracks/matmul/matmul.cu) takes its row
// from threadIdx.x, so the 32 threads of a warp -- consecutive threadIdx.x --
// work on 32 different rows of one column, and every load of A and every
// update of C is scattered over 32 rows. Map the threads the other way round,
// launch a 2-D grid that covers C, and make it right for any n: the grid's
// last blocks stick out past the matrix when n is not a multiple of the block.
#include "matmul.h"

__global__ void matmul_naive(const float *A, const float *B, float *C, int n)
{
    // TODO: this thread's element of C, mapped so that the consecutive
    //       threads of a warp get consecutive columns of one row.
    int row = 0, col = 0;

    // TODO: only threads inside the matrix may touch it.
    for (int k = 0; k < n; k++)
        C[row * n + col] += A[row * n + k] * B[k * n + col];
}

void run_naive(const float *A, const float *B, float *C, int n, block_shape block)
{
    CUDA_CHECK(cudaMemsetAsync(C, 0, (size_t)n * n * sizeof(float)));  // the kernel adds onto C
    dim3 threads(block.x, block.y);
    // TODO: enough blocks along x and along y to cover all n columns and n rows.
    dim3 grid(1, 1);
    matmul_naive<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
