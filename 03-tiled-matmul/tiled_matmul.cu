// 03-tiled-matmul: shared-memory tiles.
// This is the file you edit. README.md has the background and hints.
//
//   make && ./tiled_matmul                check your kernel, then time it against the given one
//   ./tiled_matmul --check -n 1,1000      correctness only, at the sizes you name (--help: every option)
//   make -C .. sanitize EX=03             memcheck, racecheck, synccheck, initcheck: missing barriers show here
//   make -C .. grade EX=03                what the grader says
//
// The given kernel (step 02's solution, in main.cu) reads A and B straight
// from global memory: the TILE threads of a row of the block all read the
// same row of A, and the TILE threads of a column all read the same column of
// B. Have the block load a TILE x TILE tile of A and one of B into shared
// memory -- each thread one element of each -- then every thread reads its
// row and column of the tiles from there; slide the tiles along k until the
// whole row of A and column of B have passed. Any n: where a tile sticks out
// past the matrix, load zeros, which add nothing.
#include "matmul.h"

template <int TILE>
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    // TODO: two TILE x TILE arrays of floats in shared memory: a_tile and b_tile.
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx;
    int row = blockIdx.y * TILE + ty;

    float sum = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        // TODO: copy this thread's element of A's tile and of B's tile for this
        //       trip into shared memory -- a zero where that element lies
        //       outside the matrix.
        // TODO: add this trip's TILE products, along this thread's row of A's
        //       tile and column of B's tile, into sum.
        // TODO: other threads read what you wrote and write what you read:
        //       close both hazards (README.md, "Two hazards").
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
