// honest: step 03 that reads its row of A's tile from shared memory four
// floats at a time (a float4 broadcast to the warp's row), B's tile a float
// at a time as usual; the tiles 16-byte aligned (__align__), TILE a multiple
// of 4. Same tiles and reuse as the solution; fewer shared-load instructions.
#include "matmul.h"

template <int TILE>
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    static_assert(TILE % 4 == 0, "rows of A's tile are read as float4");
    __shared__ __align__(16) float a_tile[TILE][TILE];
    __shared__ __align__(16) float b_tile[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * TILE + tx;
    const int row = blockIdx.y * TILE + ty;

    float sum = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        a_tile[ty][tx] = (row < n && t + tx < n) ? A[row * n + t + tx] : 0.0f;
        b_tile[ty][tx] = (t + ty < n && col < n) ? B[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        const float4 *a_row = reinterpret_cast<const float4 *>(&a_tile[ty][0]);
#pragma unroll
        for (int k4 = 0; k4 < TILE / 4; k4++) {
            const float4 a = a_row[k4];
            sum += a.x * b_tile[4 * k4 + 0][tx];
            sum += a.y * b_tile[4 * k4 + 1][tx];
            sum += a.z * b_tile[4 * k4 + 2][tx];
            sum += a.w * b_tile[4 * k4 + 3][tx];
        }
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = sum;
}

void run_tiled(const float *A, const float *B, float *C, int n, block_shape block)
{
    dim3 threads(block.x, block.y);
    dim3 grid(ceil_div(n, block.x), ceil_div(n, block.y));
    switch (block.x) {
    case 8: matmul_tiled<8><<<grid, threads>>>(A, B, C, n); break;
    case 16: matmul_tiled<16><<<grid, threads>>>(A, B, C, n); break;
    case 32: matmul_tiled<32><<<grid, threads>>>(A, B, C, n); break;
    default: die(EXIT_USAGE, "no tiled kernel for a %dx%d block", block.x, block.y);
    }
    CUDA_CHECK_LAUNCH();
}
