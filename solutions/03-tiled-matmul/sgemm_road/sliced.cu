// sliced.cu: what stages 6 and 7 both run (06-shaped.cu and 07-split-k.cu
// call choose() and multiply()): one kernel, the sum of its slices' partial
// products, and the napkin model that picks the tile and the slices.
//
// Stage 5 has one tile, 128x256, and an H100 holds one such block per SM
// (215 registers a thread): its grid runs in waves of 132 blocks, and a
// wave takes as long whether it has 132 blocks or 1. At N = 4096 the grid
// is 32 x 16 = 512 blocks, 3.9 waves: 4 waves, nearly all SMs busy. At
// N = 3072 it is 288 blocks, 2.2 waves: the third wave runs 24 blocks while
// 108 SMs wait, 73% of the SMs' time used. At N = 1024 it is 32 blocks: 100
// SMs idle, and each of the 32 walks all 1024 of k.
//
// Stages 6 and 7 run one kernel: stage 5's, as a template over its tile,
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
#include "sgemm_road.h"

namespace sliced {
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

    // The tile, in stage 5's block order (see tile_origin in 05-tuned.cu); the slice.
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

// The tile and the slices (1 to most_slices) of the least modeled time.
plan choose(int n, int most_slices)
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

void multiply(const float *A, const float *B, float *C, int n, plan p)
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
