// sgemm_road.h: past step 03 -- the road from register blocking towards
// cuBLAS, a file per stage; this header holds what the stages share.
//
// Eight stages, 0 to 7, one idea each, in plain fp32 FMAs (no tensor cores,
// no TF32). All compute C = A * B for row-major n x n matrices, for every
// n >= 1. Each ignores `block` and picks its own. Stage 0 is the step from
// step 03's kernel to stage 1: a column of outputs per thread, not yet a
// patch. Stages 0 to 5 are a kernel each; stages 6 and 7 run one more,
// stage 5's made a template over its tile and a slice of k, and pick the
// tile (6) and the slices (7) by the matrices' size.
//
//   00-blocktiled-1d.cu ... 07-split-k.cu
//                                     a stage each: its kernel, its comment
//                                     (what it adds over the stage before,
//                                     and why), and the host function that
//                                     main.cu lists in `beyond`
//   sliced.cu                         stages 6 and 7's kernel and the model
//                                     that picks their tile and slices
//   sgemm_road.h                      the loads and stores of every stage,
//                                     stage 3's warp tile (stage 4's too),
//                                     and what stages 6 and 7 call in sliced.cu
//
// steps.conf's beyond_sources lists the .cu files: they are built into the
// reference solution only.
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
// Stage 0 came after this sweep: 03's README has its figures.
//
// Stage 2 is slower than stage 1 at N = 4096, and its wide loads bring bank
// conflicts (see 02-vectorized.cu), which stage 3 removes. 03's README has
// the whole sweep, and `make profile SOLUTIONS=1 EX=03` counts the conflicts.
#pragma once

#include "matmul.h"

// ===========================================================================
// Loads and stores, for every stage
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
// Stage 3's warp tile, which stage 4 keeps (03-warptiled.cu lays it out)
// ===========================================================================
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
}  // namespace warptiled

// ===========================================================================
// What stages 6 and 7 share, defined in sliced.cu
// ===========================================================================
namespace sliced {
enum {
    BK = 8,
    LANES_N = 8, LANES_M = 4,  // a warp's lanes, 4 by 8, each with sub-patches of 4x4 as in stages 3 to 5
    GROUP_M = 8,               // tile rows per group in the block order, as in stage 5
    MAX_SLICES = 16,           // the most slices of k stage 7 tries
};

typedef struct {
    int bm, bn;           // the block's tile of C
    double fmas_per_ns;   // an SM's rate with it (measured: see sliced.cu)
    void (*launch)(const float *A, const float *B, float *out, int n, int k_slice, int slices);
    int (*resident)(void);
} tile_kind;

typedef struct {
    const tile_kind *kind;
    int slices;
} plan;

// The two that stages 6 and 7 call (sliced.cu says what each does).
plan choose(int n, int most_slices);
void multiply(const float *A, const float *B, float *C, int n, plan p);
}  // namespace sliced
