// 03-tiled-matmul, solution: shared-memory tiles.
//
// A block of TILE x TILE threads computes a TILE x TILE tile of C. Per trip
// along k, each thread loads one element of A's tile and one of B's into
// shared memory -- coalesced, a warp reads consecutive columns -- and then
// every thread reads TILE values of each tile from there. Each element fetched
// from global memory is used TILE times: global traffic drops TILE-fold.
//
// Two barriers per trip, each for a different hazard: the first so that no
// thread reads a tile before all of it is written (read-after-write), the
// second so that no thread overwrites a tile on the next trip while others
// still read it (write-after-read).
//
// Past the lesson, sgemm_road/ (a file per stage, built with this solution,
// not graded) goes on towards cuBLAS, from a column of C per thread (stage 0)
// and an 8x8 patch per thread (stage 1) to split-k (stage 7).
#include "matmul.h"

template <int TILE>
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx;
    int row = blockIdx.y * TILE + ty;

    float sum = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        // Past the matrix, zeros: they add nothing, so the loop below needs no bounds check.
        a_tile[ty][tx] = (row < n && t + tx < n) ? A[row * n + t + tx] : 0.0f;
        b_tile[ty][tx] = (t + ty < n && col < n) ? B[(t + ty) * n + col] : 0.0f;
        __syncthreads();  // both tiles complete before anyone reads them
#pragma unroll
        for (int k = 0; k < TILE; k++)
            sum += a_tile[ty][k] * b_tile[k][tx];  // a_tile: one address per warp row; b_tile: consecutive banks
        __syncthreads();  // everyone done reading before the next trip overwrites the tiles
    }
    if (row < n && col < n)
        C[row * n + col] = sum;
}

void run_tiled(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 threads(block.x, block.y);
    dim3 grid(ceil_div(n, block.x), ceil_div(n, block.y));
    switch (block.x) {  // the harness only accepts square blocks of these sizes
    case 8: matmul_tiled<8><<<grid, threads>>>(A, B, C, n); break;
    case 16: matmul_tiled<16><<<grid, threads>>>(A, B, C, n); break;
    case 32: matmul_tiled<32><<<grid, threads>>>(A, B, C, n); break;
    default: die(EXIT_USAGE, "no tiled kernel for a %dx%d block", block.x, block.y);
    }
    CUDA_CHECK_LAUNCH();
}
