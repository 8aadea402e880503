// honest: step 01 coalesced (the column from threadIdx.x), the sum kept in a
// register, and the row of A read four floats at a time as a float4 where
// rows are 16-byte aligned (n a multiple of 4): every lane of a row reads
// the same float4, a broadcast.
#include "matmul.h"

__global__ void matmul_naive(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n)
        return;
    float sum = 0.0f;
    int k = 0;
    if (n % 4 == 0) {
        const float4 *a_row = reinterpret_cast<const float4 *>(A + (size_t)row * n);
        for (; k < n; k += 4) {
            float4 a = a_row[k / 4];
            sum += a.x * B[(size_t)k * n + col];
            sum += a.y * B[(size_t)(k + 1) * n + col];
            sum += a.z * B[(size_t)(k + 2) * n + col];
            sum += a.w * B[(size_t)(k + 3) * n + col];
        }
    }
    for (; k < n; k++)
        sum += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    C[(size_t)row * n + col] = sum;
}

void run_naive(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 threads(block.x, block.y);
    dim3 grid(ceil_div(n, block.x), ceil_div(n, block.y));
    matmul_naive<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
