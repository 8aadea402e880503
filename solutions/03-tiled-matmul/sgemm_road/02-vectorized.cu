// Stage 2, 16-byte loads everywhere: stage 1 spends an instruction per
// float it moves; a float4 moves four. It also brings bank conflicts, which
// stage 3 removes.
//
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
#include "sgemm_road.h"

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
