// 01-naive-matmul, solution: one thread per element of C, coalesced.
//
// The column comes from threadIdx.x, so the 32 threads of a warp take 32
// consecutive columns of one row. At each k they all read the same A[row][k]
// (one address: a broadcast), 32 consecutive floats of row k of B (128 bytes:
// four 32-byte sectors, all of them used), and update 32 consecutive floats
// of C. The given kernel needed a sector per thread for A and for C: 32
// sectors, 32 bytes fetched for every 4 used.
#include "matmul.h"

__global__ void matmul_naive(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // consecutive threads, consecutive columns
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n)  // the last blocks may stick out past the matrix
        for (int k = 0; k < n; k++)
            C[row * n + col] += A[row * n + k] * B[k * n + col];
}

void run_naive(const float *A, const float *B, float *C, int n, block_shape block)
{
    CUDA_CHECK(cudaMemsetAsync(C, 0, (size_t)n * n * sizeof(float)));  // the kernel adds onto C
    dim3 threads(block.x, block.y);
    dim3 grid(ceil_div(n, block.x), ceil_div(n, block.y));  // rounded up: partial blocks at the edges
    matmul_naive<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
