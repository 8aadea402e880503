// 05-reduction-sequential: the harness of this step. You do not edit it.
//
//   make && ./reduction_sequential                    check, then time against the given kernel
//   ./reduction_sequential --check -n 1,33,1000003 -b 32,256,1024
//   make -C .. profile EX=05                          bank conflicts, given kernel against yours
//
// Given: step 04's solution, reduce_interleaved_strided, below. Yours:
// reduce_sequential, in reduction_sequential.cu.
#include "reduction.h"

// Step 04's solution: contiguous threads, but thread tid works on
// partial[2*s*tid], so the threads of a warp land in the same banks.
__global__ void reduce_interleaved_strided(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x)
            partial[index] += partial[index + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

static void sum_interleaved_strided(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_interleaved_strided, 1, d_in, n, block, d_work, d_sum);
}

// Defined in reduction_sequential.cu (yours) or in the solution. Weak: this program holds none
// of that file's host code, and runs its launches from the planner (plan.h).
void sum_sequential(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum) __attribute__((weak));

static const step_kernel yours[] = {
    {.id = "sequential", .label = "sequential addressing", .run = REDUCE_FN(sum_sequential)},
};

// The kernel this step starts from (given above).
static const step_kernel start = {
    .id = "interleaved_strided",
    .label = "interleaved, strided index",
    .run = REDUCE_FN(sum_interleaved_strided),
};

int main(int argc, char **argv)
{
    const step_spec step = {
        .name = STEP_NAME,
        .audit = STEP_AUDIT,
        .summary = "Sums n random ints with sequential addressing (yours) and times it against the strided-index tree.",
        .start = &start,
        .yours = yours,
        .yours_count = COUNT_OF(yours),
    };
    return reduction_main(argc, argv, &step);
}
