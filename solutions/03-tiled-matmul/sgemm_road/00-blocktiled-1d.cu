// Stage 0, 1D blocktiling: the step from the tiled kernel of step 03 to
// stage 1. Each thread computes a column of TM = 8 elements of C instead of
// one, so that a value it reads from B's tile feeds 8 multiply-adds.
//
// In the tiled kernel a thread reads, per step along k, one value of A's
// tile and one of B's for a single FMA. Here, per step along k, it reads one
// value of B's tile into a register and the 8 values of A's tile that its 8
// rows need, and does 8 FMAs: the B value serves 8 times from the register.
// The 8 values of A are the same for every thread of a warp (a broadcast),
// and lie next to each other along k, where the unrolled loop over k lets
// the compiler read them four at a time (LDS.128). So, in instructions per
// FMA, the tiled kernel's 1 (B) + 1/4 (A) becomes 1/8 (B) + 1/4 (A): 1.25
// down to 0.375 -- this file's SASS for sm_90 (CUDA 13.0) holds 8 LDS and
// 16 LDS.128 per trip of 64 FMAs, where matmul_tiled<32> holds 32 LDS and
// 8 LDS.128 per trip of 32.
//
// The block's tile of C is 64x64, 8 deep along k per trip: 512 threads, 8
// rows of 64 threads, each row of threads covering 8 rows of C. Each thread
// copies one float of A's 64x8 tile and one of B's 8x64 tile per trip:
// 4 KB of shared memory per block. A warp (32 consecutive threads, all in
// one row of threads) reads 32 consecutive words of b_tile -- all 32 banks
// once -- and the same 16 bytes of a_tile in every lane, a broadcast: no
// conflicts. Its stores to the tiles are 32 consecutive words too.
//
// What it costs: registers. Eight accumulators and the values of A in
// flight are more than the tiled kernel's one sum, and a block of 512
// threads holds 512 times whatever ptxas gives each thread (build with
// -Xptxas -v). 03's README does the occupancy arithmetic from that figure,
// and its profile checks it. Stage 1 goes on to two dimensions: an 8x8 patch
// per thread, where each value of A is reused 8 times too.
#include "sgemm_road.h"

namespace blocktiled_1d {
enum {
    BM = 64, BN = 64,         // the block's tile of C
    BK = 8,                   // the depth of the tiles of A and B per trip
    TM = 8,                   // each thread's column of C: TM consecutive rows
    THREADS = BM / TM * BN,   // 512: a thread per column of the tile, per group of TM rows
};
static_assert(BM * BK == THREADS && BK * BN == THREADS, "each thread copies one float of each tile");

__global__ void __launch_bounds__(THREADS) sgemm_blocktiled_1d(const float *A, const float *B, float *C, int n)
{
    __shared__ float a_tile[BM][BK];  // as A is laid out: a row of the tile is 8 consecutive k
    __shared__ float b_tile[BK][BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int my_col = tid % BN;        // this thread's column of the tile
    const int my_rows = tid / BN * TM;  // and the first of its TM rows

    // Loading: the 512 floats of each tile, one per thread, consecutive
    // threads on consecutive floats of a row (8 along k in A, 64 along n in B).
    const int a_row = tid / BK, a_k = tid % BK;
    const int b_k = tid / BN, b_col = tid % BN;

    float acc[TM] = {};
    for (int k0 = 0; k0 < n; k0 += BK) {
        // Past the matrix, zeros: they add nothing, and the FMAs below need no bounds check.
        const int ar = row0 + a_row, ak = k0 + a_k, bk = k0 + b_k, bc = col0 + b_col;
        a_tile[a_row][a_k] = (ar < n && ak < n) ? A[ar * n + ak] : 0.0f;
        b_tile[b_k][b_col] = (bk < n && bc < n) ? B[bk * n + bc] : 0.0f;
        __syncthreads();  // both tiles complete before anyone reads them

#pragma unroll
        for (int k = 0; k < BK; k++) {
            const float b = b_tile[k][my_col];  // one shared load, TM FMAs
#pragma unroll
            for (int i = 0; i < TM; i++)
                acc[i] += a_tile[my_rows + i][k] * b;
        }
        __syncthreads();  // everyone done reading before the next trip overwrites the tiles
    }

    const int c = col0 + my_col;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int r = row0 + my_rows + i;
        if (r < n && c < n)
            C[r * n + c] = acc[i];
    }
}
}  // namespace blocktiled_1d

void run_sgemm_blocktiled_1d(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 grid(ceil_div(n, blocktiled_1d::BN), ceil_div(n, blocktiled_1d::BM));  // its own block, whatever `block` says
    blocktiled_1d::sgemm_blocktiled_1d<<<grid, blocktiled_1d::THREADS>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
