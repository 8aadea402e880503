// honest: step 01 with a flat index: the block's threads, numbered in
// order, take consecutive elements of C in row-major order, so that a warp
// takes 32 consecutive columns whatever the block's shape.
#include "matmul.h"

__global__ void matmul_naive(const float *A, const float *B, float *C, int n)
{
    size_t threads = (size_t)blockDim.x * blockDim.y;
    size_t i = blockIdx.x * threads + threadIdx.y * blockDim.x + threadIdx.x;
    if (i >= (size_t)n * n)
        return;
    size_t row = i / n, col = i % n;
    float sum = 0.0f;
    for (int k = 0; k < n; k++)
        sum += A[row * n + k] * B[(size_t)k * n + col];
    C[i] = sum;
}

void run_naive(const float *A, const float *B, float *C, int n, block_shape block)
{
    unsigned threads = block.x * block.y;
    unsigned blocks = (unsigned)(((size_t)n * n + threads - 1) / threads);
    matmul_naive<<<blocks, dim3(block.x, block.y)>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
