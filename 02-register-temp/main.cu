// 02-register-temp: the harness of this step. You do not edit it.
//
//   make && ./register_temp                           check, then time against the given kernels and cuBLAS
//   ./register_temp --check -n 1,17,33,1000 -b 16x16,32x8,8x32
//
// Given: step 01's solution, matmul_naive, below, and the same kernel with
// its pointers declared __restrict__ (timed for comparison: see README.md).
// Yours: matmul_register, in register_temp.cu.
#include "matmul.h"

// Step 01's solution: coalesced, but C[row * n + col] is stored at every k --
// n stores to global memory where one would do -- and, since each store might
// change A or B for all the compiler knows, the next k's loads must wait for it.
__global__ void matmul_naive(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n)
        for (int k = 0; k < n; k++)
            C[row * n + col] += A[row * n + k] * B[k * n + col];
}

static void run_naive(const float *A, const float *B, float *C, int n, block_shape block)
{
    CUDA_CHECK(cudaMemsetAsync(C, 0, (size_t)n * n * sizeof(float)));
    matmul_naive<<<dim3(ceil_div(n, block.x), ceil_div(n, block.y)), dim3(block.x, block.y)>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

// The same source with one promise added: __restrict__ says that C shares no
// memory with A or B, so a store to C cannot change what A or B hold -- and
// the compiler is free to keep C[row * n + col] in a register for the loop.
__global__ void matmul_naive_restrict(const float *__restrict__ A, const float *__restrict__ B,
                                      float *__restrict__ C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n)
        for (int k = 0; k < n; k++)
            C[row * n + col] += A[row * n + k] * B[k * n + col];
}

static void run_naive_restrict(const float *A, const float *B, float *C, int n, block_shape block)
{
    CUDA_CHECK(cudaMemsetAsync(C, 0, (size_t)n * n * sizeof(float)));
    matmul_naive_restrict<<<dim3(ceil_div(n, block.x), ceil_div(n, block.y)), dim3(block.x, block.y)>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

static const step_kernel given[] = {
    {.id = "naive_restrict", .label = "naive, C += with __restrict__", .run = MATMUL_FN(run_naive_restrict)},
};

// Defined in register_temp.cu (yours) or in the solution. Weak: this program holds none
// of that file's host code, and runs its launches from the planner (plan.h).
void run_register(const float *A, const float *B, float *C, int n, block_shape block) __attribute__((weak));

static const step_kernel yours[] = {
    {.id = "register", .label = "register accumulator, one store", .run = MATMUL_FN(run_register)},
};

// The kernel this step starts from (given above).
static const step_kernel start = {
    .id = "naive",
    .label = "naive, coalesced, C += in global memory",
    .run = MATMUL_FN(run_naive),
};

int main(int argc, char **argv)
{
    const step_spec step = {
        .name = STEP_NAME,
        .audit = STEP_AUDIT,
        .summary = "Multiplies two random N x N matrices accumulating in a register (yours) against accumulating in C.",
        .start = &start,
        .compare = given,  // checked, then timed when timing; --check runs only yours
        .compare_count = COUNT_OF(given),
        .yours = yours,
        .yours_count = COUNT_OF(yours),
    };
    return matmul_main(argc, argv, &step);
}
