// Stage 1, register blocking: step 03's tiled kernel is held by its shared
// loads, two per FMA (03's README: the roofline), so each value a thread
// reads from shared memory now feeds 8 FMAs from registers.
//
// Each thread computes an 8x8 patch of C: per step along k it reads 8 values
// of A's tile and 8 of B's from shared memory and does 64 FMAs with them, 4
// FMAs per shared load instead of the tiled kernel's 1 per 2. A block of 256
// threads covers a 128x128 tile of C, 8 deep along k per trip: from global
// memory, 2,048 floats per 131,072 FMAs.
//
// A thread's patch is spread out -- rows tr, tr+16, ..., columns tc, tc+16,
// ... -- so that at each load the 16 threads of a half-warp read 16
// consecutive words of b_tile (no bank conflict) and one of a_tile (a
// broadcast). A's tile is stored transposed, a_tile[k][m], so that a
// thread's values of A for one k lie along a row, as B's do.
#include "sgemm_road.h"

namespace blocked {
enum {
    BM = 128, BN = 128,  // the block's tile of C
    BK = 8,              // the depth of the tiles of A and B per trip
    TM = 8, TN = 8,      // each thread's patch of C
    SPREAD_M = BM / TM, SPREAD_N = BN / TN,  // 16: the stride between a thread's rows, and columns
    THREADS = SPREAD_M * SPREAD_N,           // 256
};

__global__ void __launch_bounds__(THREADS) sgemm_blocked(const float *A, const float *B, float *C, int n)
{
    __shared__ float a_tile[BK][BM];  // transposed: a_tile[k][m]
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
}  // namespace blocked

void run_sgemm_blocked(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 grid(ceil_div(n, blocked::BN), ceil_div(n, blocked::BM));  // its own block shape, whatever `block` says
    blocked::sgemm_blocked<<<grid, blocked::THREADS>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
