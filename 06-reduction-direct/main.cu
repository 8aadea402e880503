// 06-reduction-direct: the harness of this step. You do not edit it.
//
//   make && ./reduction_direct                        check, then time against the given kernel
//   ./reduction_direct --check -n 1,511,513,1000003 -b 32,256,1024
//
// Given: step 05's solution, reduce_sequential, below: one launch per level of
// the tree. Yours: reduce_direct, in reduction_direct.cu: one launch in all.
#include "reduction.h"

// Step 05's solution: sequential addressing, one element per thread, partial
// sums written out and summed again by the next launch.
__global__ void reduce_sequential(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

static void sum_sequential(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_sequential, 1, d_in, n, block, d_work, d_sum);
}

// Defined in reduction_direct.cu (yours) or in the solution. Weak: this program holds none
// of that file's host code, and runs its launches from the planner (plan.h).
void sum_direct(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum) __attribute__((weak));

static const step_kernel yours[] = {
    {.id = "direct", .label = "two per thread, one atomic per block", .run = REDUCE_FN(sum_direct)},
};

// The kernel this step starts from (given above).
static const step_kernel start = {
    .id = "sequential",
    .label = "sequential addressing",
    .run = REDUCE_FN(sum_sequential),
};

int main(int argc, char **argv)
{
    const step_spec step = {
        .name = STEP_NAME,
        .audit = STEP_AUDIT,
        .summary = "Sums n random ints in one pass, each block adding into the total (yours), "
                   "against the multi-pass tree.",
        .start = &start,
        .yours = yours,
        .yours_count = COUNT_OF(yours),
    };
    return reduction_main(argc, argv, &step);
}
