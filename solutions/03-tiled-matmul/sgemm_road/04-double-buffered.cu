// Stage 4, double buffering: stage 3's warps wait at every trip for its
// tiles to arrive; with two buffers the next trip's tiles arrive while they
// compute.
//
// Until now each trip loads its tiles, waits for them at a barrier, computes,
// and waits again: while the loads travel (several hundred cycles from L2 or
// DRAM) a block's warps have nothing to do. Give the tiles two buffers: while
// the block computes on one, the next trip's tiles land in the other. One
// barrier per trip is then enough: the buffer written in trip t was last
// read in trip t - 1, before that trip's barrier.
//
// On sm_80 and newer the copy is cp.async, straight from global to shared
// memory: the thread issues it, computes, and waits for it only at the end of
// the trip. A's tile is transposed as it lands, one 4-byte copy per element;
// the 32 lanes of a warp copy 4 rows by 8 k -- four 32-byte sectors from
// global memory, and 32 different banks of the padded a_tile. Before sm_80
// the next tiles go through registers: loaded before the FMAs, stored to
// shared memory after them.
//
// Registers: the second buffer's addresses and the copies in flight cost
// some, and left alone ptxas takes over 150 per thread -- one block of 256
// threads per SM (65,536 registers), half stage 3's occupancy. A first
// version ran so at 68% of cuBLAS at N = 4096, below stage 3's 73.5%.
// __launch_bounds__(THREADS, 2) asks for two blocks per SM: at most 128
// registers, which it fits without spilling (125).
//
// On the H100 the register-staged path, built for sm_90 in a test copy, ran
// faster than cp.async at this tile: 81.5% of cuBLAS against 78.5% at N =
// 4096. Stage 5 comes back to this.
#include "sgemm_road.h"

namespace double_buffered {
using namespace warptiled;  // the same tiles, warp tiles and patches as stage 3
enum { MIN_BLOCKS_PER_SM = 2 };

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS_PER_SM)
    sgemm_double_buffered(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float a_tile[2][BK][BM + A_PAD];
    __shared__ __align__(16) float b_tile[2][BK][BN];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int a_m = warp / WARPS_N * WM + lane / LANES_N * 4;
    const int b_n = warp % WARPS_N * WN + lane % LANES_N * 4;
    const bool rows_aligned = n % 4 == 0;
    const int trips = (n + BK - 1) / BK;

#if __CUDA_ARCH__ >= 800
    // This thread's copies: of A, rows m, m + 32, m + 64, m + 96 at column k
    // (a warp: 4 rows by 8 k); of B, one float4.
    enum { A_COPIES = BM * BK / THREADS, A_ROW_STEP = THREADS / BK };
    const int m = tid / BK, k = tid % BK;
    const int b_k = tid / (BN / 4), b_col = tid % (BN / 4) * 4;
    // Start copying the tiles at k0 into buffer `buf`.
    auto copy_tiles = [&](int k0, int buf) {
#pragma unroll
        for (int i = 0; i < A_COPIES; i++) {
            const int r = row0 + m + i * A_ROW_STEP, c = k0 + k;
            const bool in = r < n && c < n;
            cp_async4(&a_tile[buf][k][m + i * A_ROW_STEP], A + (in ? r * n + c : 0), in);
        }
        const int r = k0 + b_k, c = col0 + b_col;
        if (rows_aligned) {
            const bool in = r < n && c < n;
            cp_async16(&b_tile[buf][b_k][b_col], B + (in ? r * n + c : 0), in);
        } else {  // rows not on 16 bytes: four 4-byte copies
            for (int j = 0; j < 4; j++) {
                const bool in = r < n && c + j < n;
                cp_async4(&b_tile[buf][b_k][b_col + j], B + (in ? r * n + c + j : 0), in);
            }
        }
    };
    copy_tiles(0, 0);
    cp_async_wait_all();
#else
    const int a_row = tid / (BK / 4), a_k = (tid % (BK / 4)) * 4;
    const int b_k = tid / (BN / 4), b_col = (tid % (BN / 4)) * 4;
    float4 a_next, b_next;  // the next trip's share of the tiles, in registers
    auto load_tiles = [&](int k0) {
        a_next = load4(A, row0 + a_row, k0 + a_k, n, rows_aligned);
        b_next = load4(B, k0 + b_k, col0 + b_col, n, rows_aligned);
    };
    auto store_tiles = [&](int buf) {
        a_tile[buf][a_k + 0][a_row] = a_next.x;
        a_tile[buf][a_k + 1][a_row] = a_next.y;
        a_tile[buf][a_k + 2][a_row] = a_next.z;
        a_tile[buf][a_k + 3][a_row] = a_next.w;
        *reinterpret_cast<float4 *>(&b_tile[buf][b_k][b_col]) = b_next;
    };
    load_tiles(0);
    store_tiles(0);
#endif
    __syncthreads();

    float acc[TM][TN] = {};
    for (int t = 0; t < trips; t++) {
        const int buf = t % 2;
        const bool more = t + 1 < trips;
#if __CUDA_ARCH__ >= 800
        if (more)
            copy_tiles((t + 1) * BK, buf ^ 1);  // lands while we compute
        warp_tile_step(a_tile[buf], b_tile[buf], a_m, b_n, acc);
        cp_async_wait_all();  // this thread's copies have landed; the barrier makes everyone's visible
#else
        if (more)
            load_tiles((t + 1) * BK);  // in flight during the FMAs
        warp_tile_step(a_tile[buf], b_tile[buf], a_m, b_n, acc);
        if (more)
            store_tiles(buf ^ 1);
#endif
        __syncthreads();  // the next tiles complete; and everyone done with `buf` before trip t + 1 refills it
    }
    store_patch(C, n, row0 + a_m, col0 + b_n, acc);
}
}  // namespace double_buffered

void run_sgemm_double_buffered(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 grid(ceil_div(n, double_buffered::BN), ceil_div(n, double_buffered::BM));
    double_buffered::sgemm_double_buffered<<<grid, double_buffered::THREADS>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
