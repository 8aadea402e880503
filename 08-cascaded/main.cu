// 08-cascaded: the harness of this step. You do not edit it.
//
//   make && ./cascaded                                check, then time against the given kernel and CUB
//   ./cascaded --check -n 1,1000,1000003,2^24+1 -b 32,256,1024
//
// Given: step 07's solution, reduce_unrolled<BLOCK>, below; and CUB's
// DeviceReduce::Sum (reduction_cub, in ../common/tracks/reduction/reduction.cu), the library
// to measure against. Yours, in cascaded.cu:
// reduce_cascaded<BLOCK>, a grid sized to the GPU and many elements per thread,
// each block adding its sum into the total with one atomic, as in step 06:
// with a thousand blocks rather than a hundred thousand, that finish is cheap.
#include "block_sum.cuh"
#include "reduction.h"

// Step 07's solution: two elements per thread, the tree unrolled for a
// block size known at compile time (block_sum, in ../common/tracks/reduction/block_sum.cuh);
// a partial sum per block, added up by further, smaller launches.
template <unsigned int BLOCK>
__global__ void reduce_unrolled(const int *in, int *out, unsigned int n)
{
    __shared__ int partial[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * BLOCK) + tid;

    int v = (i < n) ? in[i] : 0;
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    v = block_sum<BLOCK>(v, partial);
    if (tid == 0)
        out[blockIdx.x] = v;
}

// Step 07's launcher, as its solution has it (solutions/07-unrolled/unrolled.cu),
// its switch over block sizes and all.
static void sum_unrolled(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_pass_kernel kernel;
    switch (block) {  // a kernel for each block size the program accepts
    case 32: kernel = reduce_unrolled<32>; break;
    case 64: kernel = reduce_unrolled<64>; break;
    case 128: kernel = reduce_unrolled<128>; break;
    case 256: kernel = reduce_unrolled<256>; break;
    case 512: kernel = reduce_unrolled<512>; break;
    case 1024: kernel = reduce_unrolled<1024>; break;
    default: die(EXIT_MISMATCH, "sum_unrolled has no kernel for block %d", block);
    }
    reduce_in_passes(kernel, 2, d_in, n, block, d_work, d_sum);
}

// Defined in cascaded.cu (yours) or in the solution. Weak: this program holds none
// of that file's host code, and runs its launches from the planner (plan.h).
void sum_cascaded(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum) __attribute__((weak));

// Past the lesson: only the reference solution's file defines it, and the
// planner runs it as it runs yours; where nothing defines it (the
// exercise), the harness leaves it out.
void sum_vectorized(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum) __attribute__((weak));
// The solution's kernel with its warp's last sum in one instruction
// (__reduce_add_sync) or written with cooperative groups (cg::reduce), in the
// reference solution's beyond/warp_reduce.cu, linked into its program only:
// where nothing defines them (the exercise), the pointers are NULL and the
// harness leaves them out.
void sum_redux(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum) __attribute__((weak));
void sum_cg_reduce(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum) __attribute__((weak));

static const step_kernel yours[] = {
    {.id = "cascaded", .label = "cascaded, grid sized to the GPU", .run = REDUCE_FN(sum_cascaded)},
};

static const step_kernel beyond[] = {
    {.id = "vectorized", .label = "16-byte loads, warp shuffles", .run = REDUCE_FN(sum_vectorized)},
    {.id = "redux", .label = "cascaded, warp sum __reduce_add_sync", .run = REDUCE_FN(sum_redux)},
    {.id = "cg_reduce", .label = "cascaded, warp sum cg::reduce", .run = REDUCE_FN(sum_cg_reduce)},
};

// The kernel this step starts from (given above).
static const step_kernel start = {
    .id = "unrolled",
    .label = "completely unrolled, templated block",
    .run = REDUCE_FN(sum_unrolled),
};

int main(int argc, char **argv)
{
    const step_spec step = {
        .name = STEP_NAME,
        .audit = STEP_AUDIT,
        .summary = "Sums n random ints with a grid-stride, cascaded kernel (yours) against the unrolled tree and CUB.",
        .start = &start,
        .yours = yours,
        .yours_count = COUNT_OF(yours),
        .beyond = beyond,
        .beyond_count = COUNT_OF(beyond),
        .library = &reduction_cub,
    };
    return reduction_main(argc, argv, &step);
}
