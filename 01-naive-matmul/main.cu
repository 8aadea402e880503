// 01-naive-matmul: the harness of this step. You do not edit it.
//
//   make && ./naive_matmul                            check, then time against the given kernel and cuBLAS
//   ./naive_matmul --check -n 1,17,33,1000 -b 16x16,32x8,8x32
//   make -C .. profile EX=01                          sectors per request, given kernel against yours
//
// Given: the track's first kernel, matmul_uncoalesced (in
// ../common/matmul.cu). Yours: matmul_naive, in naive_matmul.cu.
#include "matmul.h"

// Defined in naive_matmul.cu (yours) or in the solution.
void run_naive(const float *A, const float *B, float *C, int n, block_shape block);

static const matmul_kernel yours[] = {
    {"naive", "naive, coalesced (column from threadIdx.x)", run_naive},
};

int main(int argc, char **argv)
{
    matmul_step step = {
        "01-naive-matmul",
        "Multiplies two random N x N matrices with a coalesced naive kernel (yours) against an uncoalesced one.",
        matmul_track_first,
        NULL,
        0,
        yours,
        1,
        {NULL, NULL, NULL},
        false,
        {16, 16},
    };
    return matmul_main(argc, argv, &step);
}
