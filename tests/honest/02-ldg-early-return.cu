// honest: step 02 with an early return for the threads outside C (this kernel
// has no barrier), `const` everywhere, __ldg read-only loads, the k loop
// unrolled by 8 (#pragma unroll 8), the sum in a local variable
// stored once, and a launch through a small inline helper.
#include "matmul.h"

__global__ void matmul_register(const float *A, const float *B, float *C, int n)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n)
        return;
    float acc = 0.0f;
#pragma unroll 8
    for (int k = 0; k < n; ++k)
        acc += __ldg(A + row * n + k) * __ldg(B + k * n + col);
    C[row * n + col] = acc;
}

static inline void launch_register(const float *A, const float *B, float *C, int n, dim3 grid, dim3 threads)
{
    matmul_register<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

void run_register(const float *A, const float *B, float *C, int n, block_shape block)
{
    const dim3 threads(block.x, block.y);
    const dim3 grid((n - 1) / block.x + 1, (n - 1) / block.y + 1);  // n >= 1: rounds up
    launch_register(A, B, C, n, grid, threads);
}
