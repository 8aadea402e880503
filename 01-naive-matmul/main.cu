// 01-naive-matmul: the harness of this step. You do not edit it.
//
//   make && ./naive_matmul                            check, then time against the given kernel and cuBLAS
//   ./naive_matmul --check -n 1,17,33,1000 -b 16x16,32x8,8x32
//   make -C .. profile EX=01                          sectors per request, given kernel against yours
//
// Given: the track's first kernel, matmul_uncoalesced (in
// ../common/tracks/matmul/matmul.cu). Yours: matmul_naive, in naive_matmul.cu.
#include "matmul.h"

// Defined in naive_matmul.cu (yours) or in the solution. Weak: this program holds none
// of that file's host code, and runs its launches from the planner (plan.h).
void run_naive(const float *A, const float *B, float *C, int n, block_shape block) __attribute__((weak));

static const step_kernel yours[] = {
    {.id = "naive", .label = "naive, coalesced (column from threadIdx.x)", .run = MATMUL_FN(run_naive)},
};

int main(int argc, char **argv)
{
    const step_spec step = {
        .name = STEP_NAME,
        .audit = STEP_AUDIT,
        .summary = "Multiplies two random N x N matrices with a coalesced naive kernel (yours) "
                   "against an uncoalesced one.",
        .start = &matmul_track_first,
        .yours = yours,
        .yours_count = COUNT_OF(yours),
    };
    return matmul_main(argc, argv, &step);
}
