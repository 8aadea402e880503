// Stage 5, tuned on Hopper: stage 4's kernel with a larger tile (more FMAs
// per load), the next tiles staged through registers, and a block order --
// each kept because it measured faster on an H100.
//
// Stage 4 with what measurably paid, tuned on an H100 (N = 4096, % of cuBLAS
// in the same run; each change measured against the kernel without it):
//
//   - a 128x256 tile for the block, 64x64 for each of its 8 warps, 16x8 of C
//     for each thread (4 x 2 sub-patches of 4x4). Per step of k a thread
//     makes 6 shared loads for 128 FMAs, 21 FMAs a load instead of 16; per
//     trip the block fetches 3,072 floats for 262,144 FMAs, 1/85 float per
//     FMA instead of 1/64. It takes 215 registers a thread, so one block of 8
//     warps per SM: the FMA units are kept busy by the 128 independent
//     accumulators of each thread rather than by many warps. With cp.async
//     as in stage 4: 84.8%, against 76.4% for the 128x128 tile;
//   - the next tiles through registers again, on every GPU: at this tile the
//     register-staged copy beats cp.async on the H100, 88.8% against 84.8%
//     (and three cp.async buffers, 86.0%). cp.async saves registers, which no
//     longer limit anything here, and A's tile, transposed as it lands,
//     costs one 4-byte cp.async per float where the registers take one
//     16-byte load for four;
//   - the block order, in groups of GROUP_M tile rows (below): 2.95 ms
//     against 3.01 at N = 4096 (+1.9%), 0.376 against 0.381 at N = 2048.
//
// Tried and dropped (N = 4096, points of cuBLAS): 16 deep along k (-1.2),
// 32 deep (with cp.async, -0.5 to -1.7), three or four cp.async buffers
// instead of registers (-2.8 to -4), a 256x128 tile (-0.7 to -3.3), 8x16 per
// thread instead of 16x8 (-0.2 to -2.2), 512-thread blocks with 8x8 per
// thread (-7.7), cp.async for B alone (-1.6).
#include "sgemm_road.h"

namespace tuned {
enum {
    BM = 128, BN = 256, BK = 8,
    WM = 64, WN = 64,                          // a warp's tile of C
    WARPS_N = BN / WN,                         // 4 warps across, 2 down
    THREADS = (BM / WM) * WARPS_N * 32,        // 256
    LANES_N = 8, LANES_M = 32 / LANES_N,       // a warp's lanes, 4 by 8
    TM = WM / LANES_M, TN = WN / LANES_N,      // 16 x 8 per thread
    A_STRIDE = BM + 4,                         // a_tile's rows, padded as in stage 3
    B_LOADS = BK * BN / 4 / THREADS,           // float4 of B per thread and trip: 2 (and 1 of A)
    B_ROW_STEP = THREADS / (BN / 4),           // 4: the rows between a thread's two
    GROUP_M = 8,                               // tile rows per group in the block order
};

static __device__ __forceinline__ void warp_tile_step(const float (*a_tile)[A_STRIDE], const float (*b_tile)[BN],
                                                      int a_m, int b_n, float (&acc)[TM][TN])
{
#pragma unroll
    for (int k = 0; k < BK; k++) {
        float a_frag[TM], b_frag[TN];
#pragma unroll
        for (int i = 0; i < TM; i += 4)
            lds4(&a_frag[i], &a_tile[k][a_m + i / 4 * (LANES_M * 4)]);
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            lds4(&b_frag[j], &b_tile[k][b_n + j / 4 * (LANES_N * 4)]);
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j++)
                acc[i][j] += a_frag[i] * b_frag[j];
    }
}

// The block order: the grid is one-dimensional, and consecutive blocks go
// down a group of GROUP_M tile rows before they move one tile right -- the
// usual "swizzle" that keeps the blocks running at one time on few panels of
// A and B, for the L2 cache. It measured 1.6 to 1.9% faster than the plain
// two-dimensional grid, but not for the usual reason: groups of 2 or 8 rows,
// or of 4 or 8 columns, all gave the same time, the plain column-by-column
// order did not help, and ncu showed no better L2 hit rate (80% against
// 83%) and as many bytes from DRAM. Kept because it measured; why, the
// measurements leave open.
static __device__ __forceinline__ void tile_origin(int n, int &row0, int &col0)
{
    const int tiles_m = (n + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int first_m = blockIdx.x / (GROUP_M * tiles_n) * GROUP_M;  // this group's first tile row
    const int group_rows = min(GROUP_M, tiles_m - first_m);          // fewer in the last group
    const int in_group = blockIdx.x % (GROUP_M * tiles_n);
    row0 = (first_m + in_group % group_rows) * BM;
    col0 = in_group / group_rows * BN;
}

__global__ void __launch_bounds__(THREADS) sgemm_tuned(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float a_tile[2][BK][A_STRIDE];  // 24.8 KB in all
    __shared__ __align__(16) float b_tile[2][BK][BN];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int row0, col0;
    tile_origin(n, row0, col0);
    const int a_m = warp / WARPS_N * WM + lane / LANES_N * 4;
    const int b_n = warp % WARPS_N * WN + lane % LANES_N * 4;
    const bool rows_aligned = n % 4 == 0;
    const int trips = (n + BK - 1) / BK;

    const int a_row = tid / (BK / 4), a_k = (tid % (BK / 4)) * 4;
    const int b_k = tid / (BN / 4), b_col = (tid % (BN / 4)) * 4;
    float4 a_next, b_next[B_LOADS];  // the next trip's share of the tiles
    auto load_tiles = [&](int k0) {
        a_next = load4(A, row0 + a_row, k0 + a_k, n, rows_aligned);
#pragma unroll
        for (int i = 0; i < B_LOADS; i++)
            b_next[i] = load4(B, k0 + b_k + i * B_ROW_STEP, col0 + b_col, n, rows_aligned);
    };
    auto store_tiles = [&](int buf) {
        a_tile[buf][a_k + 0][a_row] = a_next.x;
        a_tile[buf][a_k + 1][a_row] = a_next.y;
        a_tile[buf][a_k + 2][a_row] = a_next.z;
        a_tile[buf][a_k + 3][a_row] = a_next.w;
#pragma unroll
        for (int i = 0; i < B_LOADS; i++)
            *reinterpret_cast<float4 *>(&b_tile[buf][b_k + i * B_ROW_STEP][b_col]) = b_next[i];
    };
    load_tiles(0);
    store_tiles(0);
    __syncthreads();

    float acc[TM][TN] = {};
    for (int t = 0; t < trips; t++) {
        const int buf = t % 2;
        const bool more = t + 1 < trips;
        if (more)
            load_tiles((t + 1) * BK);  // in flight during the FMAs
        warp_tile_step(a_tile[buf], b_tile[buf], a_m, b_n, acc);
        if (more)
            store_tiles(buf ^ 1);
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            store4(C, row0 + a_m + i / 4 * (LANES_M * 4) + i % 4, col0 + b_n + j / 4 * (LANES_N * 4), n,
                   rows_aligned, &acc[i][j]);
}
}  // namespace tuned

void run_sgemm_tuned(const float *A, const float *B, float *C, int n, block_shape block)
{
    unsigned int blocks = ceil_div(n, tuned::BM) * ceil_div(n, tuned::BN);  // one-dimensional: see tile_origin
    tuned::sgemm_tuned<<<blocks, tuned::THREADS>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
