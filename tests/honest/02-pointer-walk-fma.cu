// honest: step 02 in a pointer-walking style: a pointer along the row of A and
// one down the column of B, advanced each k, the running sum kept in a
// register with fmaf, and __restrict__ on all three matrices. One store of
// C per element, after the loop; the launcher as given.
#include "matmul.h"

__global__ void matmul_register(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                                int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) {
        const float *a = A + (size_t)row * n;  // walks right along row `row` of A
        const float *b = B + col;              // walks down column `col` of B
        const float *a_end = a + n;
        float sum = 0.0f;
        while (a != a_end) {
            sum = fmaf(*a, *b, sum);
            ++a;
            b += n;
        }
        C[(size_t)row * n + col] = sum;  // the only store of this element
    }
}

void run_register(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 threads(block.x, block.y);
    dim3 grid(ceil_div(n, block.x), ceil_div(n, block.y));
    matmul_register<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
