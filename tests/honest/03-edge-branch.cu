// honest: step 03 with the edge handled apart: trips whose tiles lie wholly
// inside the matrix load without any test, and only the last, partial trip
// (when n is not a multiple of TILE) and blocks on the matrix's edge pay for
// bounds checks. The branch is uniform over the block, so every thread
// reaches the same barriers. Same tiles, same reuse.
#include "matmul.h"

template <int TILE>
__device__ __forceinline__ void multiply_tiles(const float (&a_tile)[TILE][TILE], const float (&b_tile)[TILE][TILE],
                                               int tx, int ty, float &sum)
{
#pragma unroll
    for (int k = 0; k < TILE; k++)
        sum += a_tile[ty][k] * b_tile[k][tx];
}

template <int TILE>
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * TILE + tx;
    const int row = blockIdx.y * TILE + ty;
    // The same for every thread of the block: does its tile of C lie inside?
    const bool interior = (blockIdx.x + 1) * TILE <= n && (blockIdx.y + 1) * TILE <= n;
    const int full_trips = interior ? n / TILE : 0;  // trips that need no test at all

    float sum = 0.0f;
    int t = 0;
    for (int trip = 0; trip < full_trips; trip++, t += TILE) {
        a_tile[ty][tx] = A[row * n + t + tx];
        b_tile[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
        multiply_tiles<TILE>(a_tile, b_tile, tx, ty, sum);
        __syncthreads();
    }
    for (; t < n; t += TILE) {  // an edge block's every trip, or an interior block's last partial one
        a_tile[ty][tx] = (row < n && t + tx < n) ? A[row * n + t + tx] : 0.0f;
        b_tile[ty][tx] = (t + ty < n && col < n) ? B[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        multiply_tiles<TILE>(a_tile, b_tile, tx, ty, sum);
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
    case 8: matmul_tiled<8><<<grid, threads>>>(A, B, C, n); break;
    case 16: matmul_tiled<16><<<grid, threads>>>(A, B, C, n); break;
    case 32: matmul_tiled<32><<<grid, threads>>>(A, B, C, n); break;
    default: die(EXIT_USAGE, "no tiled kernel for a %dx%d block", block.x, block.y);
    }
    CUDA_CHECK_LAUNCH();
}
