// honest: step 02 with a launcher that checks all it can after the launch --
// cudaGetLastError, cudaPeekAtLastError and cudaDeviceSynchronize, each
// through CUDA_CHECK -- and a kernel declared with __launch_bounds__(1024),
// the most threads a block of this step may have.
#include "matmul.h"

__global__ void __launch_bounds__(1024) matmul_register(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; k++)
            sum += A[row * n + k] * B[k * n + col];
        C[row * n + col] = sum;
    }
}

void run_register(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 threads(block.x, block.y);
    dim3 grid(ceil_div(n, block.x), ceil_div(n, block.y));
    matmul_register<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK(cudaGetLastError());       // a launch refused: a bad configuration, at once
    CUDA_CHECK(cudaPeekAtLastError());    // nothing left behind (and nothing cleared)
    CUDA_CHECK(cudaDeviceSynchronize());  // a fault inside the kernel, reported here
}
