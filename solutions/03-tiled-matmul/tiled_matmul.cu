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
// Past the lesson, matmul_blocked (below, not graded) gives each thread an
// 8x8 patch of C instead of one element.
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

// ===========================================================================
// Beyond the lesson: register blocking
// ===========================================================================
// In the tiled kernel each thread does one multiply-add per two shared-memory
// loads, and shared memory, not arithmetic, sets the pace. Give each thread an
// 8x8 patch of C instead: per step along k it loads 8 values of A's tile and
// 8 of B's into registers and does 64 multiply-adds with them -- eight times
// the arithmetic per load. A block of 256 threads covers a 128x128 tile of C.
//
// Each thread's patch is spread out: rows tr, tr+16, ..., columns tc, tc+16,
// ..., so that at each load the 16 threads of a half-warp read 16 consecutive
// words of shared memory (no bank conflicts) and each store to C writes runs
// of 16 consecutive floats.

enum {
    BM = 128, BN = 128,  // the block's tile of C
    BK = 8,              // the depth of the tiles of A and B per trip
    TM = 8, TN = 8,      // each thread's patch of C
    SPREAD_M = BM / TM, SPREAD_N = BN / TN,  // 16: the stride between a thread's rows, and columns
    BLOCKED_THREADS = SPREAD_M * SPREAD_N,   // 256
};

// Four consecutive floats of row r of the n x n matrix M, from column c on;
// zeros past its edges. One 16-byte load where the row allows it.
__device__ __forceinline__ float4 load4(const float *M, int r, int c, int n, bool rows_aligned)
{
    if (rows_aligned && r < n && c < n)  // c is a multiple of 4, and so is n: c + 3 < n too
        return *reinterpret_cast<const float4 *>(&M[r * n + c]);
    float4 v;
    v.x = (r < n && c + 0 < n) ? M[r * n + c + 0] : 0.0f;
    v.y = (r < n && c + 1 < n) ? M[r * n + c + 1] : 0.0f;
    v.z = (r < n && c + 2 < n) ? M[r * n + c + 2] : 0.0f;
    v.w = (r < n && c + 3 < n) ? M[r * n + c + 3] : 0.0f;
    return v;
}

__global__ void __launch_bounds__(BLOCKED_THREADS) matmul_blocked(const float *A, const float *B, float *C, int n)
{
    __shared__ float a_tile[BK][BM];  // transposed, a_tile[k][m]: a thread's 8 values of A are in one row
    __shared__ __align__(16) float b_tile[BK][BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int tr = tid / SPREAD_N, tc = tid % SPREAD_N;  // this thread's first row and column in the tile

    // Loading: each tile holds 1024 floats, four consecutive ones per thread.
    const int a_row = tid / (BK / 4), a_k = (tid % (BK / 4)) * 4;
    const int b_k = tid / (BN / 4), b_col = (tid % (BN / 4)) * 4;
    const bool rows_aligned = n % 4 == 0;  // every row starts on 16 bytes

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < n; k0 += BK) {
        float4 a = load4(A, row0 + a_row, k0 + a_k, n, rows_aligned);
        a_tile[a_k + 0][a_row] = a.x;
        a_tile[a_k + 1][a_row] = a.y;
        a_tile[a_k + 2][a_row] = a.z;
        a_tile[a_k + 3][a_row] = a.w;
        *reinterpret_cast<float4 *>(&b_tile[b_k][b_col]) = load4(B, k0 + b_k, col0 + b_col, n, rows_aligned);
        __syncthreads();  // both tiles complete before anyone reads them

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a_frag[TM], b_frag[TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
                a_frag[i] = a_tile[k][tr + SPREAD_M * i];
#pragma unroll
            for (int j = 0; j < TN; j++)
                b_frag[j] = b_tile[k][tc + SPREAD_N * j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a_frag[i] * b_frag[j];
        }
        __syncthreads();  // everyone done reading before the next trip overwrites the tiles
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        int r = row0 + tr + SPREAD_M * i;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int c = col0 + tc + SPREAD_N * j;
            if (r < n && c < n)
                C[r * n + c] = acc[i][j];
        }
    }
}

void run_blocked(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 grid(ceil_div(n, BN), ceil_div(n, BM));  // its own block shape, whatever `block` says
    matmul_blocked<<<grid, BLOCKED_THREADS>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
