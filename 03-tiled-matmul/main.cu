// 03-tiled-matmul: the harness of this step. You do not edit it.
//
//   make && ./tiled_matmul                            check, then time against the given kernel and cuBLAS
//   ./tiled_matmul --check -n 1,15,16,17,33,1000 -b 8,16,32
//
// Given: step 02's solution, matmul_register, below. Yours: matmul_tiled<TILE>,
// in tiled_matmul.cu. The block is TILE x TILE threads (-b 16 means 16x16).
#include "matmul.h"

// Step 02's solution: a register accumulator, but every thread still reads a
// whole row of A and a whole column of B from global memory: each element of
// A and B is read n times over, by different threads.
__global__ void matmul_register(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; k++)
            sum += A[row * n + k] * B[k * n + col];
        C[row * n + col] = sum;
    }
}

static void run_register(const float *A, const float *B, float *C, int n, block_shape block)
{
    matmul_register<<<dim3(ceil_div(n, block.x), ceil_div(n, block.y)), dim3(block.x, block.y)>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

// Defined in tiled_matmul.cu (yours) or in the solution. Weak: this program holds none
// of that file's host code, and runs its launches from the planner (plan.h).
void run_tiled(const float *A, const float *B, float *C, int n, block_shape block) __attribute__((weak));

static const step_kernel yours[] = {
    {.id = "tiled", .label = "shared-memory tiles", .run = MATMUL_FN(run_tiled)},
};

// Past the lesson: the road towards cuBLAS, in the reference solution's
// sgemm_road/ (a file per stage; its README section says what each adds),
// from stage 0, a column of C per thread, the step between yours and stage 1.
// Only the reference solution defines them. The weak declarations let this
// harness link without them: the pointers are then NULL, and the harness
// leaves them out.
void run_sgemm_blocktiled_1d(const float *A, const float *B, float *C, int n, block_shape block) __attribute__((weak));
void run_sgemm_blocked(const float *A, const float *B, float *C, int n, block_shape block) __attribute__((weak));
void run_sgemm_vectorized(const float *A, const float *B, float *C, int n, block_shape block) __attribute__((weak));
void run_sgemm_warptiled(const float *A, const float *B, float *C, int n, block_shape block) __attribute__((weak));
void run_sgemm_double_buffered(const float *A, const float *B, float *C, int n, block_shape block)
    __attribute__((weak));
void run_sgemm_tuned(const float *A, const float *B, float *C, int n, block_shape block) __attribute__((weak));
void run_sgemm_shaped(const float *A, const float *B, float *C, int n, block_shape block) __attribute__((weak));
void run_sgemm_split_k(const float *A, const float *B, float *C, int n, block_shape block) __attribute__((weak));

static const step_kernel beyond[] = {
    {.id = "blocktiled_1d", .label = "0. 1D blocktiling, 8 per thread", .run = MATMUL_FN(run_sgemm_blocktiled_1d)},
    {.id = "blocked", .label = "1. register blocking, 8x8 per thread", .run = MATMUL_FN(run_sgemm_blocked)},
    {.id = "vectorized", .label = "2. 16-byte loads", .run = MATMUL_FN(run_sgemm_vectorized)},
    {.id = "warptiled", .label = "3. warp tiling", .run = MATMUL_FN(run_sgemm_warptiled)},
    {.id = "double_buffered", .label = "4. double buffering (cp.async)", .run = MATMUL_FN(run_sgemm_double_buffered)},
    {.id = "tuned", .label = "5. tuned: 128x256 tiles, block order", .run = MATMUL_FN(run_sgemm_tuned)},
    {.id = "shaped", .label = "6. the tile chosen by N", .run = MATMUL_FN(run_sgemm_shaped)},
    {.id = "split_k", .label = "7. split-k where the tiles are few", .run = MATMUL_FN(run_sgemm_split_k)},
};

// The kernel this step starts from (given above).
static const step_kernel start = {
    .id = "register",
    .label = "register accumulator, one store",
    .run = MATMUL_FN(run_register),
};

int main(int argc, char **argv)
{
    const step_spec step = {
        .name = STEP_NAME,
        .audit = STEP_AUDIT,
        .summary = "Multiplies two random N x N matrices through shared-memory tiles (yours) "
                   "against the register kernel.",
        .blocks = &matmul_tile_blocks,
        .start = &start,
        .yours = yours,
        .yours_count = COUNT_OF(yours),
        .beyond = beyond,
        .beyond_count = COUNT_OF(beyond),
    };
    return matmul_main(argc, argv, &step);
}
