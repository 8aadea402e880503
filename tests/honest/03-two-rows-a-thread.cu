// honest: step 03 with each thread summing two elements of C, rows ty and
// ty + TILE of a 2*TILE x TILE tile: a block still of TILE x TILE threads
// loads two tiles of A and one of B a trip, and each value of B read from
// shared memory serves two products (register reuse on top of the tiles).
// A's tiles are padded by a column.
#include "matmul.h"

template <int TILE>
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float a_tile[2 * TILE][TILE + 1];
    __shared__ float b_tile[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * TILE + tx;
    const int row0 = blockIdx.y * 2 * TILE + ty, row1 = row0 + TILE;

    float sum0 = 0.0f, sum1 = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        a_tile[ty][tx] = (row0 < n && t + tx < n) ? A[row0 * n + t + tx] : 0.0f;
        a_tile[ty + TILE][tx] = (row1 < n && t + tx < n) ? A[row1 * n + t + tx] : 0.0f;
        b_tile[ty][tx] = (t + ty < n && col < n) ? B[(t + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++) {
            const float b = b_tile[k][tx];
            sum0 += a_tile[ty][k] * b;
            sum1 += a_tile[ty + TILE][k] * b;
        }
        __syncthreads();
    }
    if (col < n) {
        if (row0 < n) C[row0 * n + col] = sum0;
        if (row1 < n) C[row1 * n + col] = sum1;
    }
}

void run_tiled(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 threads(block.x, block.y);
    dim3 grid(ceil_div(n, block.x), ceil_div(n, 2 * block.y));
    switch (block.x) {
    case 8: matmul_tiled<8><<<grid, threads>>>(A, B, C, n); break;
    case 16: matmul_tiled<16><<<grid, threads>>>(A, B, C, n); break;
    case 32: matmul_tiled<32><<<grid, threads>>>(A, B, C, n); break;
    default: die(EXIT_USAGE, "no tiled kernel for a %dx%d block", block.x, block.y);
    }
    CUDA_CHECK_LAUNCH();
}
