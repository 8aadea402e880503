// 07-unrolled: the harness of this step. You do not edit it.
//
//   make && ./unrolled                                check, then time against the given kernel
//   ./unrolled --check -n 1,63,65,1000003 -b 32,64,128,256,512,1024
//   make -C .. sanitize EX=07                         racecheck your warp code
//
// Given, below: step 06's kernel -- two elements per thread, the tree in a
// loop with a barrier per level -- finishing the other way step 06 compares:
// each block writes its partial sum and another, much smaller launch adds
// those up. (Behind step 06's looped tree the atomic per block costs nothing
// measurable; behind this step's unrolled tree, with 131,072 blocks, it makes
// the kernel take 1.32x as long on an H100 and hides what this step gains.
// README.md has the figures, from make micro-atomics.) Yours, in unrolled.cu:
// reduce_last_warp_unrolled (the loop stops at 32 threads, the last warp is
// written out) and reduce_unrolled<BLOCK> (the whole tree written out, for a
// block size known at compile time). Both are timed; the second is graded.
#include "reduction.h"

__global__ void reduce_first_add(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + tid;

    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    partial[tid] = v;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

static void sum_first_add(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_first_add, 2, d_in, n, block, d_work, d_sum);
}

// Defined in unrolled.cu (yours) or in the solution. Weak: this program holds none
// of that file's host code, and runs its launches from the planner (plan.h).
void sum_last_warp_unrolled(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum) __attribute__((weak));
void sum_unrolled(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum) __attribute__((weak));

static const step_kernel yours[] = {
    {.id = "last_warp_unrolled", .label = "last warp unrolled", .run = REDUCE_FN(sum_last_warp_unrolled)},
    {.id = "unrolled", .label = "completely unrolled, templated block", .run = REDUCE_FN(sum_unrolled)},
};

// The kernel this step starts from (given above).
static const step_kernel start = {
    .id = "first_add",
    .label = "two per thread, tree in a loop",
    .run = REDUCE_FN(sum_first_add),
};

int main(int argc, char **argv)
{
    const step_spec step = {
        .name = STEP_NAME,
        .audit = STEP_AUDIT,
        .summary = "Sums n random ints with the tree unrolled (yours: last warp, then all of it) "
                   "against the looped tree.",
        .start = &start,
        .yours = yours,
        .yours_count = COUNT_OF(yours),
    };
    return reduction_main(argc, argv, &step);
}
