// Stage 3, warp tiling: stage 2's 16-byte loads without its bank
// conflicts, by where each lane of a warp sits over the tile.
//
// Arrange the threads by warp. The 8 warps of a block split its 128x128
// tile into 4 x 2 warp tiles of 32x64; a warp's 32 lanes stand 4 by 8 over
// its tile, and each lane owns 2 x 2 sub-patches of 4x4, 16 rows and 32
// columns apart:
//
//     rows    warp_m*32 + {0, 16} + lane_m*4 + {0..3}      (lane_m = 0..3)
//     columns warp_n*64 + {0, 32} + lane_n*4 + {0..3}      (lane_n = 0..7)
//
// At each k the 8 lanes of each quarter-warp load 8 consecutive float4 of
// b_tile -- 128 bytes, all 32 banks once: one wavefront each, 4 for the
// warp, the least that 512 bytes can take -- and a warp's loads of a_tile
// ask for 4 consecutive float4, each shared by 8 lanes (a broadcast: 2
// wavefronts). The 16-byte loads stay, the conflicts go: ncu at N = 2048
// counts 5,378 of them (stage 2: 33.6 million) and 50.3 million wavefronts
// (stage 1: 67.1 million). The rows of a_tile are padded by 4 floats so
// that the transposing stores, 16 rows by 2 k per warp, fall in 32
// different banks too: 0.34 million store conflicts instead of 2.3 million.
//
// The warp tile's constants and its two helpers, warp_tile_step and
// store_patch, are in sgemm_road.h: stage 4 uses them too.
#include "sgemm_road.h"

namespace warptiled {
__global__ void __launch_bounds__(THREADS) sgemm_warptiled(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float a_tile[BK][BM + A_PAD];  // transposed: a_tile[k][m]
    __shared__ __align__(16) float b_tile[BK][BN];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    // This thread's first row and column within the block's tile.
    const int a_m = warp / WARPS_N * WM + lane / LANES_N * 4;
    const int b_n = warp % WARPS_N * WN + lane % LANES_N * 4;

    const int a_row = tid / (BK / 4), a_k = (tid % (BK / 4)) * 4;
    const int b_k = tid / (BN / 4), b_col = (tid % (BN / 4)) * 4;
    const bool rows_aligned = n % 4 == 0;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < n; k0 += BK) {
        float4 a = load4(A, row0 + a_row, k0 + a_k, n, rows_aligned);
        a_tile[a_k + 0][a_row] = a.x;
        a_tile[a_k + 1][a_row] = a.y;
        a_tile[a_k + 2][a_row] = a.z;
        a_tile[a_k + 3][a_row] = a.w;
        *reinterpret_cast<float4 *>(&b_tile[b_k][b_col]) = load4(B, k0 + b_k, col0 + b_col, n, rows_aligned);
        __syncthreads();
        warp_tile_step(a_tile, b_tile, a_m, b_n, acc);
        __syncthreads();
    }
    store_patch(C, n, row0 + a_m, col0 + b_n, acc);
}
}  // namespace warptiled

void run_sgemm_warptiled(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 grid(ceil_div(n, warptiled::BN), ceil_div(n, warptiled::BM));
    warptiled::sgemm_warptiled<<<grid, warptiled::THREADS>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
