// 02-register-temp, solution: accumulate in a register, store once.
//
// `sum` is a local variable: it lives in a register, and the loop does two
// loads (A and B) and one fused multiply-add per k. C is written once, so it
// need not be cleared first. The compiler could not make this change itself:
// C, A and B are plain pointers, and for all it knows a store to C[row][col]
// could change A[row][k+1] or B[k+1][col] -- so it must store C at every k,
// and cannot start the next k's loads before that store. __restrict__ on the
// parameters grants it the freedom (main.cu times that variant); writing the
// register out says it to every reader too.
#include "matmul.h"

__global__ void matmul_register(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; k++)
            sum += A[row * n + k] * B[k * n + col];
        C[row * n + col] = sum;  // one store per element
    }
}

void run_register(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 threads(block.x, block.y);
    dim3 grid(ceil_div(n, block.x), ceil_div(n, block.y));
    matmul_register<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
