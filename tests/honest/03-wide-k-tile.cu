// honest: step 03 with rectangular tiles: a TILE x 2*TILE strip of A and a
// 2*TILE x TILE strip of B a trip (template <int TILE, int DEPTH>), each
// thread loading two elements of each, so half as many trips and barriers.
// Launched as matmul_tiled<TILE, 2 * TILE>: the block size is the template's
// first argument. Zeros past the matrix, as in the README.
#include "matmul.h"

template <int TILE, int DEPTH>
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    static_assert(DEPTH % TILE == 0, "each thread loads DEPTH / TILE elements of each strip");
    __shared__ float a_tile[TILE][DEPTH];  // TILE rows of A, DEPTH columns along k
    __shared__ float b_tile[DEPTH][TILE];  // DEPTH rows of B along k, TILE columns
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * TILE + tx;
    const int row = blockIdx.y * TILE + ty;

    float sum = 0.0f;
    for (int t = 0; t < n; t += DEPTH) {
#pragma unroll
        for (int part = 0; part < DEPTH / TILE; part++) {
            const int a_col = t + part * TILE + tx;
            const int b_row = t + part * TILE + ty;
            a_tile[ty][part * TILE + tx] = (row < n && a_col < n) ? A[row * n + a_col] : 0.0f;
            b_tile[part * TILE + ty][tx] = (b_row < n && col < n) ? B[b_row * n + col] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < DEPTH; k++)
            sum += a_tile[ty][k] * b_tile[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = sum;
}

void run_tiled(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 threads(block.x, block.y);
    dim3 grid(ceil_div(n, block.x), ceil_div(n, block.y));
    switch (block.x) {
    case 8: matmul_tiled<8, 16><<<grid, threads>>>(A, B, C, n); break;
    case 16: matmul_tiled<16, 32><<<grid, threads>>>(A, B, C, n); break;
    case 32: matmul_tiled<32, 64><<<grid, threads>>>(A, B, C, n); break;
    default: die(EXIT_USAGE, "no tiled kernel for a %dx%d block", block.x, block.y);
    }
    CUDA_CHECK_LAUNCH();
}
