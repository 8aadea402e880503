// sgemm_road.cu: past step 03 -- the road from register blocking towards cuBLAS.
//
// Seven stages, one idea each, in plain fp32 FMAs (no tensor cores, no
// TF32). All compute C = A * B for row-major n x n matrices, for every n >= 1.
// Each ignores `block` and picks its own. Stages 1 to 5 are a kernel each;
// stages 6 and 7 run one more, stage 5's made a template over its tile and
// a slice of k, and pick the tile (6) and the slices (7) by the matrices' size.
//
// `make bench-sweep` times them against cuBLAS SGEMM (default math mode) from
// N = 256 to 8192; on an NVIDIA H100 80GB HBM3 (CUDA 13.0), 2026-11-24, median
// of 20 interleaved runs, L2 flushed before each, % of cuBLAS in the same run:
//
//                                           N = 256    1024    2048    3072    4096
//   1. register blocking, 8x8 per thread       20.3    28.9    65.0    60.6    67.4
//   2. 16-byte loads everywhere                20.2    29.3    66.7    52.2    62.9
//   3. warp tiling                             21.5    30.9    75.2    64.8    72.0
//   4. double buffering (cp.async)             36.5    51.5    77.1    78.9    77.0
//   5. tuned: 128x256 tiles, block order       24.1    33.3    91.0    77.6    90.1
//   6. the tile chosen by N                    56.4    79.2    91.6    88.1    90.7
//   7. split-k where the tiles are few        106.2   103.8    91.7    96.2    90.7
//
// Stage 2 is slower than stage 1 at N = 4096, and its wide loads bring bank
// conflicts (see stage 2's comment), which stage 3 removes. 03's README has the whole sweep, and
// `make profile SOLUTIONS=1 EX=03` counts the conflicts.
#include "matmul.h"

// ===========================================================================
// Shared by the stages
// ===========================================================================

// Four consecutive floats of row r of the n x n matrix M, from column c on;
// zeros past its edges. One 16-byte load where the row allows it.
static __device__ __forceinline__ float4 load4(const float *M, int r, int c, int n, bool rows_aligned)
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

// Four floats of shared memory (16-byte aligned) into frag[0..3]: one 16-byte load.
static __device__ __forceinline__ void lds4(float *frag, const float *p)
{
    float4 v = *reinterpret_cast<const float4 *>(p);
    frag[0] = v.x, frag[1] = v.y, frag[2] = v.z, frag[3] = v.w;
}

// v[0..3] into C[r][c..c+3]: one 16-byte store where the row allows it, else
// element by element, leaving out what lies past the edges.
static __device__ __forceinline__ void store4(float *C, int r, int c, int n, bool rows_aligned, const float *v)
{
    if (r >= n)
        return;
    if (rows_aligned && c < n) {
        *reinterpret_cast<float4 *>(&C[r * n + c]) = make_float4(v[0], v[1], v[2], v[3]);
        return;
    }
    for (int j = 0; j < 4; j++)
        if (c + j < n)
            C[r * n + c + j] = v[j];
}

#if __CUDA_ARCH__ >= 800
// cp.async (sm_80 and newer): a copy from global to shared memory that does
// not pass through registers and does not stall the thread -- it lands while
// the thread computes. With a source size of 0 it reads nothing and writes
// zeros: the zeros past the matrix's edges (there the source is the
// matrix's first element, so that no address past its end is even formed).
static __device__ __forceinline__ void cp_async4(float *dst, const float *src, bool in_bounds)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(__cvta_generic_to_global(src)), "r"(in_bounds ? 4 : 0)
                 : "memory");
}

static __device__ __forceinline__ void cp_async16(float *dst, const float *src, bool in_bounds)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(__cvta_generic_to_global(src)), "r"(in_bounds ? 16 : 0)
                 : "memory");
}

// Wait until every cp.async this thread issued has landed (other threads'
// copies become visible to it only after a barrier).
static __device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
#endif

// ===========================================================================
// Stage 1: register blocking
// ===========================================================================
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

// ===========================================================================
// Stage 2: 16-byte loads everywhere
// ===========================================================================
// Stage 1 reads its 16 fragment values with 16 four-byte shared loads per
// step of k, and writes C four bytes at a time. One 16-byte load moves four
// floats for the price of one instruction: make each thread's patch 8
// consecutive rows by 8 consecutive columns, so that its 8 values of A (a
// row of the transposed a_tile) and its 8 of B are two float4 each: 4 shared
// loads per 64 FMAs instead of 16, and C written as float4.
//
// The cost shows in the banks. A warp's 16-byte loads are served a quarter
// of a warp (8 lanes, 128 bytes) at a time, in one pass -- a wavefront --
// when those 8 lanes hit each bank at most once. Here a warp is 2 rows of 16
// threads, and at each k the 8 lanes of a quarter read b_tile at columns 0,
// 8, ..., 56: float4 32 bytes apart, so lanes 0 and 4 land in the same four
// banks -- a 2-way conflict, 8 wavefronts per load of B instead of 4. ncu
// at N = 2048: 33.6 million bank conflicts (stage 1: 6,096), 83.9 million
// shared-load wavefronts against stage 1's 67.1 million, despite 4 times
// fewer load instructions. Stage 3 fixes the layout.
namespace vectorized {
enum {
    BM = 128, BN = 128, BK = 8,
    TM = 8, TN = 8,                       // each thread's patch: 8 consecutive rows by 8 consecutive columns
    THREADS = (BM / TM) * (BN / TN),      // 256
};

__global__ void __launch_bounds__(THREADS) sgemm_vectorized(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float a_tile[BK][BM];  // transposed: a_tile[k][m]
    __shared__ __align__(16) float b_tile[BK][BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int tr = tid / (BN / TN) * TM, tc = tid % (BN / TN) * TN;  // this thread's patch starts at (tr, tc)

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

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a_frag[TM], b_frag[TN];
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                lds4(&a_frag[i], &a_tile[k][tr + i]);
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                lds4(&b_frag[j], &b_tile[k][tc + j]);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a_frag[i] * b_frag[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            store4(C, row0 + tr + i, col0 + tc + j, n, rows_aligned, &acc[i][j]);
}
}  // namespace vectorized

void run_sgemm_vectorized(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 grid(ceil_div(n, vectorized::BN), ceil_div(n, vectorized::BM));
    vectorized::sgemm_vectorized<<<grid, vectorized::THREADS>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

// ===========================================================================
// Stage 3: warp tiling
// ===========================================================================
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
namespace warptiled {
enum {
    BM = 128, BN = 128, BK = 8,
    WM = 32, WN = 64,                          // a warp's tile of C
    WARPS_N = BN / WN,                         // 2 warps across, 4 down
    THREADS = (BM / WM) * WARPS_N * 32,        // 256
    LANES_N = 8, LANES_M = 32 / LANES_N,       // a warp's lanes, 4 by 8
    TM = WM / LANES_M, TN = WN / LANES_N,      // 8 x 8 per thread
    A_PAD = 4,                                 // floats after each row of a_tile: keeps 16-byte alignment
};

// One trip's FMAs: BK steps of an outer product of this thread's fragments.
static __device__ __forceinline__ void warp_tile_step(const float (*a_tile)[BM + A_PAD], const float (*b_tile)[BN],
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

// The thread's 2 x 2 sub-patches of 4x4 into C, a float4 per row of each.
static __device__ __forceinline__ void store_patch(float *C, int n, int r0, int c0, const float (&acc)[TM][TN])
{
    const bool rows_aligned = n % 4 == 0;
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            store4(C, r0 + i / 4 * (LANES_M * 4) + i % 4, c0 + j / 4 * (LANES_N * 4), n, rows_aligned, &acc[i][j]);
}

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

// ===========================================================================
// Stage 4: double buffering
// ===========================================================================
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

// ===========================================================================
// Stage 5: tuned on Hopper
// ===========================================================================
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


// ===========================================================================
// Stages 6 and 7: the problem's shape picks the kernel
// ===========================================================================
// Stage 5 has one tile, 128x256, and an H100 holds one such block per SM
// (215 registers a thread): its grid runs in waves of 132 blocks, and a
// wave takes as long whether it has 132 blocks or 1. At N = 4096 the grid
// is 32 x 16 = 512 blocks, 3.9 waves: 4 waves, nearly all SMs busy. At
// N = 3072 it is 288 blocks, 2.2 waves: the third wave runs 24 blocks while
// 108 SMs wait, 73% of the SMs' time used. At N = 1024 it is 32 blocks: 100
// SMs idle, and each of the 32 walks all 1024 of k.
//
// Both stages below run one kernel: stage 5's, as a template over its tile,
// which also takes a slice of k. A host function picks the tile (stage 6),
// and the slices (stage 7), by a napkin model of the time: an SM holds
// `resident` blocks of the tile at once (as
// cudaOccupancyMaxActiveBlocksPerMultiprocessor says) and shares its rate
// among them, so a grid of `blocks` takes
//
//     waves = ceil(blocks / (SMs x resident))
//     time  = waves x resident x BM x BN x k_slice / rate
//
// where `rate` is the SM's rate in FMAs per ns with that tile, measured
// with each tile alone at N = 8192 on an H100 (a test copy, median of 7
// runs, L2 flushed): 179 for 128x256, 156 for 64x128, 130 for 64x64; the
// peak is 128 FMAs a clock at 1.98 GHz, 253. Smaller tiles fill more SMs
// but fetch more per FMA (64x64: 1/32 float per FMA, against 1/85 for
// 128x256) and a thread's 8x4 patch makes a shared load per 10.7 FMAs
// (against 21): they win only where the big tile leaves SMs idle. The
// model ignores what a small grid gains from having an SM less shared, and
// the latencies that dominate at N = 256; it is meant to rank the choices.
// The test copy also timed each of the three tiles with 1 to 32 slices at
// the sweep's sizes (unsplit only, where the tiles alone made 4 waves or
// more): the model's pick was the fastest of them from N = 1024 up, and
// within 7 points of cuBLAS's rate of the fastest at 256 and 512.
namespace sliced {
enum {
    BK = 8,
    LANES_N = 8, LANES_M = 4,  // a warp's lanes, 4 by 8, each with sub-patches of 4x4 as in stages 3 to 5
    GROUP_M = 8,               // tile rows per group in the block order, as in stage 5
    MAX_SLICES = 16,           // the most slices of k stage 7 tries
};

// Block (x, z) computes tile x of C over k = z * k_slice .. (z + 1) *
// k_slice - 1 and writes it to out + z * n * n: into C itself when there
// is one slice, else into a buffer of partial products. k_slice is a
// multiple of BK, so that no trip's tile straddles two slices.
template <int BM, int BN, int WM, int WN, int MIN_BLOCKS>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MIN_BLOCKS)
    sgemm_slice(const float *A, const float *B, float *out, int n, int k_slice)
{
    constexpr int WARPS_N = BN / WN, THREADS = (BM / WM) * WARPS_N * 32;
    constexpr int TM = WM / LANES_M, TN = WN / LANES_N;  // each thread's patch
    constexpr int A_STRIDE = BM + 4;                     // a_tile's rows, padded as in stage 3
    constexpr int A_LOADS = BM * BK / 4 / THREADS, A_ROW_STEP = THREADS / (BK / 4);  // float4 of A per thread and trip
    constexpr int B_LOADS = BK * BN / 4 / THREADS, B_ROW_STEP = THREADS / (BN / 4);  // and of B
    static_assert(A_LOADS * THREADS * 4 == BM * BK && B_LOADS * THREADS * 4 == BK * BN, "whole float4 per thread");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "sub-patches of 4x4");
    __shared__ __align__(16) float a_tile[2][BK][A_STRIDE];  // transposed: a_tile[k][m]
    __shared__ __align__(16) float b_tile[2][BK][BN];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

    // The tile, in stage 5's block order (see tuned::tile_origin); the slice.
    const int tiles_m = (n + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int first_m = blockIdx.x / (GROUP_M * tiles_n) * GROUP_M;
    const int group_rows = min(GROUP_M, tiles_m - first_m);
    const int in_group = blockIdx.x % (GROUP_M * tiles_n);
    const int row0 = (first_m + in_group % group_rows) * BM, col0 = in_group / group_rows * BN;
    const int k_begin = blockIdx.z * k_slice, k_end = min(n, k_begin + k_slice);
    const int trips = (k_end - k_begin + BK - 1) / BK;
    out += (size_t)blockIdx.z * n * n;

    const int a_m = warp / WARPS_N * WM + lane / LANES_N * 4;
    const int b_n = warp % WARPS_N * WN + lane % LANES_N * 4;
    const bool rows_aligned = n % 4 == 0;
    const int a_row = tid / (BK / 4), a_k = (tid % (BK / 4)) * 4;
    const int b_k = tid / (BN / 4), b_col = (tid % (BN / 4)) * 4;
    float4 a_next[A_LOADS], b_next[B_LOADS];  // the next trip's share of the tiles
    auto load_tiles = [&](int k0) {
#pragma unroll
        for (int i = 0; i < A_LOADS; i++)
            a_next[i] = load4(A, row0 + a_row + i * A_ROW_STEP, k0 + a_k, n, rows_aligned);
#pragma unroll
        for (int i = 0; i < B_LOADS; i++)
            b_next[i] = load4(B, k0 + b_k + i * B_ROW_STEP, col0 + b_col, n, rows_aligned);
    };
    auto store_tiles = [&](int buf) {
#pragma unroll
        for (int i = 0; i < A_LOADS; i++) {
            a_tile[buf][a_k + 0][a_row + i * A_ROW_STEP] = a_next[i].x;
            a_tile[buf][a_k + 1][a_row + i * A_ROW_STEP] = a_next[i].y;
            a_tile[buf][a_k + 2][a_row + i * A_ROW_STEP] = a_next[i].z;
            a_tile[buf][a_k + 3][a_row + i * A_ROW_STEP] = a_next[i].w;
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; i++)
            *reinterpret_cast<float4 *>(&b_tile[buf][b_k + i * B_ROW_STEP][b_col]) = b_next[i];
    };
    load_tiles(k_begin);
    store_tiles(0);
    __syncthreads();

    float acc[TM][TN] = {};
    for (int t = 0; t < trips; t++) {
        const int buf = t % 2;
        const bool more = t + 1 < trips;
        if (more)
            load_tiles(k_begin + (t + 1) * BK);  // in flight during the FMAs
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a_frag[TM], b_frag[TN];
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                lds4(&a_frag[i], &a_tile[buf][k][a_m + i / 4 * (LANES_M * 4)]);
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                lds4(&b_frag[j], &b_tile[buf][k][b_n + j / 4 * (LANES_N * 4)]);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a_frag[i] * b_frag[j];
        }
        if (more)
            store_tiles(buf ^ 1);
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            store4(out, row0 + a_m + i / 4 * (LANES_M * 4) + i % 4, col0 + b_n + j / 4 * (LANES_N * 4), n,
                   rows_aligned, &acc[i][j]);
}

// C = the sum of the slices' partial products: the reduction track's sum,
// `slices` terms per element, a float4 per thread where the count allows.
// Always slice 0 first, then 1, ...: the same rounding in every run. (With
// atomicAdd onto a cleared C the order would change from run to run, and so
// would the last bits of C whenever there are more than two slices.) Each
// order is a valid fp32 dot product, within the bound the harness checks.
__global__ void sum_slices(const float *partial, float *C, size_t count, int slices)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    if (count % 4 == 0) {  // then every slice starts on 16 bytes too
        const float4 *p = reinterpret_cast<const float4 *>(partial);
        const size_t count4 = count / 4;
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count4; i += stride) {
            float4 sum = p[i];
            for (int z = 1; z < slices; z++) {
                const float4 v = p[z * count4 + i];
                sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
            }
            reinterpret_cast<float4 *>(C)[i] = sum;
        }
    } else {
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += stride) {
            float sum = partial[i];
            for (int z = 1; z < slices; z++)
                sum += partial[z * count + i];
            C[i] = sum;
        }
    }
}

template <int BM, int BN, int WM, int WN, int MIN_BLOCKS>
static void launch_slices(const float *A, const float *B, float *out, int n, int k_slice, int slices)
{
    dim3 grid(ceil_div(n, BM) * ceil_div(n, BN), 1, slices);  // x: the tiles, one-dimensional as in stage 5
    sgemm_slice<BM, BN, WM, WN, MIN_BLOCKS><<<grid, (BM / WM) * (BN / WN) * 32>>>(A, B, out, n, k_slice);
    CUDA_CHECK_LAUNCH();
}

// Blocks of this tile an SM holds at once (registers and shared memory
// decide): asked once.
template <int BM, int BN, int WM, int WN, int MIN_BLOCKS>
static int resident_blocks()
{
    static int blocks;
    if (!blocks)
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, sgemm_slice<BM, BN, WM, WN, MIN_BLOCKS>,
                                                                 (BM / WM) * (BN / WN) * 32, 0));
    return blocks;
}

typedef struct {
    int bm, bn;           // the block's tile of C
    double fmas_per_ns;   // an SM's rate with it (measured: see above)
    void (*launch)(const float *A, const float *B, float *out, int n, int k_slice, int slices);
    int (*resident)(void);
} tile_kind;

#define TILE_KIND(BM, BN, WM, WN, MIN_BLOCKS, RATE)                                                                 \
    {BM, BN, RATE, launch_slices<BM, BN, WM, WN, MIN_BLOCKS>, resident_blocks<BM, BN, WM, WN, MIN_BLOCKS>}
// Largest first: where the model ties, the larger tile wins. Registers a
// thread and blocks an SM holds, on the H100: 225 and 1; 153 and 3; 103 and 4.
static const tile_kind kinds[] = {
    TILE_KIND(128, 256, 64, 64, 1, 179.0),  // stage 5's: 8 warps of 64x64, 16x8 per thread
    TILE_KIND(64, 128, 32, 64, 2, 156.0),   // 4 warps of 32x64, 8x8 per thread
    TILE_KIND(64, 64, 32, 32, 4, 130.0),    // 4 warps of 32x32, 8x4 per thread
};

// The reduction's cost in the model: 3 us to start it, and the partial
// products written and read once each and C written once, at 3 TB/s (about
// an H100's device-to-device copy). Napkin figures, on the safe side: the
// sums measured at N = 1024 and 3072 took less (03's README).
static const double REDUCE_START_NS = 3000.0, BYTES_PER_NS = 3000.0;

// The depth of each of `slices` slices of k: whole trips of BK.
static int slice_depth(int n, int slices) { return (int)ceil_div(ceil_div(n, slices), BK) * BK; }

// The model's time (ns) of C = A * B with `kind`, k cut into `slices`.
static double modeled_ns(const tile_kind *kind, int n, int slices)
{
    const int k_slice = slice_depth(n, slices);
    slices = (int)ceil_div(n, k_slice);  // rounding up k_slice may leave fewer
    const int resident = kind->resident();
    const double blocks = (double)ceil_div(n, kind->bm) * ceil_div(n, kind->bn) * slices;
    const double waves = ceil(blocks / ((double)current_device()->sm_count * resident));
    double ns = waves * resident * kind->bm * kind->bn * (double)k_slice / kind->fmas_per_ns;
    if (slices > 1)
        ns += REDUCE_START_NS + (2.0 * slices + 1.0) * n * (double)n * sizeof(float) / BYTES_PER_NS;
    return ns;
}

typedef struct {
    const tile_kind *kind;
    int slices;
} plan;

// The tile and the slices (1 to most_slices) of the least modeled time.
static plan choose(int n, int most_slices)
{
    plan best = {&kinds[0], 1};
    double best_ns = modeled_ns(best.kind, n, 1);
    for (const tile_kind &kind : kinds)
        for (int slices = 1; slices <= most_slices; slices++) {
            double ns = modeled_ns(&kind, n, slices);
            if (ns < best_ns)
                best.kind = &kind, best.slices = slices, best_ns = ns;
        }
    return best;
}

// The partial products' buffer: allocated at the first call that needs it,
// grown when a later one needs more, and kept. The harness checks each
// kernel at a size before it times it there, so no timed run allocates.
static float *partial_buffer(size_t floats)
{
    static float *buffer;
    static size_t size;
    if (floats > size) {
        if (buffer)
            CUDA_CHECK(cudaFree(buffer));
        CUDA_CHECK(cudaMalloc(&buffer, floats * sizeof(float)));
        size = floats;
    }
    return buffer;
}

static void multiply(const float *A, const float *B, float *C, int n, plan p)
{
    const int k_slice = slice_depth(n, p.slices), slices = (int)ceil_div(n, k_slice);
    if (slices == 1) {
        p.kind->launch(A, B, C, n, k_slice, 1);
        return;
    }
    const size_t count = (size_t)n * n;
    float *partial = partial_buffer(count * slices);
    p.kind->launch(A, B, partial, n, k_slice, slices);
    const unsigned int threads = count % 4 == 0 ? count / 4 : count, most = 16 * current_device()->sm_count;
    sum_slices<<<ceil_div(threads, 256) < most ? ceil_div(threads, 256) : most, 256>>>(partial, C, count, slices);
    CUDA_CHECK_LAUNCH();
}
}  // namespace sliced

// ===========================================================================
// Stage 6: the tile chosen by N
// ===========================================================================
// The tile of the least modeled time, k whole. At N = 1024 the 64x64 tile
// makes 256 blocks where stage 5's makes 32: 129 us against 187 in the
// model; 78 against 190 by ncu (03's README has the command), and 79.2% of
// cuBLAS against 33.3% in make bench-sweep. At N = 3072 the 64x128 tile
// makes 1,152 blocks, 2.9 waves of 3 x 132, the last one nearly full: 88.1%
// against 77.6%. At N = 2048 (128 blocks, 0.97 of a wave) and from 4096 on,
// stage 5's tile.
void run_sgemm_shaped(const float *A, const float *B, float *C, int n, block_shape block)
{
    sliced::multiply(A, B, C, n, sliced::choose(n, 1));
}

// ===========================================================================
// Stage 7: split-k
// ===========================================================================
// Where even small tiles leave SMs idle, or a last wave mostly empty, cut k
// too: block (x, z) multiplies tile x over the z-th slice of k, the grid
// has `slices` times the blocks, each does 1/slices of the trips -- and a
// second kernel adds the slices' partial products. The price: each slice
// writes a whole n x n buffer, which sum_slices reads back, (2 x slices + 1)
// x n^2 floats of traffic, and a second launch. At N = 1024, stage 5's tile
// in 4 slices is 128 blocks, one wave, 256 of k each: the slices took 53.5
// us by ncu, the sum and its launch about 8 more, against 189.5 for stage
// 5's kernel (103.8% of cuBLAS in make bench-sweep, against 33.3%). At N =
// 3072, 4 slices make 1,152 blocks, 8.7 waves of 132 instead of 2.2: 1,268
// us, and about 71 for the sum, against 1,660 (96.2% against 77.6%). The
// model picks the slices with the tile, 1 to MAX_SLICES: one at N = 2048
// and from 4096 on. The partial buffer takes slices x n^2 floats: at N =
// 3072, 151 MB.
void run_sgemm_split_k(const float *A, const float *B, float *C, int n, block_shape block)
{
    sliced::multiply(A, B, C, n, sliced::choose(n, sliced::MAX_SLICES));
}
