// 04-reduction-interleaved: the harness of this step. You do not edit it.
//
//   make && ./reduction_interleaved                    check, then time against the given kernel
//   ./reduction_interleaved --check -n 1,33,1000003 -b 32,256,1024
//   ./reduction_interleaved --help
//
// Given: the track's first kernel, reduce_interleaved_divergent (in
// ../common/tracks/reduction/reduction.cu), and below, for comparison only, the same divergent
// tree with its `%` replaced by a mask. Yours: reduce_interleaved_strided, in
// reduction_interleaved.cu. The three rows of the table split your gain: from
// the given kernel to the masked one is what the `%` cost; from the masked one
// to yours is what packing the busy threads into the fewest warps gained,
// less what the bank conflicts of the strided index cost (step 05).
#include "reduction.h"

// The given tree, the same threads busy at every level, but `tid % (2*s) == 0`
// written as a mask: 2*s is a power of two, so tid is a multiple of it exactly
// when its low log2(2s) bits are zero. One AND instead of a division sequence.
__global__ void reduce_interleaved_masked(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if ((tid & (2 * s - 1)) == 0)  // still every 2s-th thread: the warps stay split
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

static void sum_interleaved_masked(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_interleaved_masked, 1, d_in, n, block, d_work, d_sum);
}

static const step_kernel given[] = {
    {.id = "interleaved_masked",
     .label = "interleaved, divergent, mask for %",
     .run = REDUCE_FN(sum_interleaved_masked)},
};

// Defined in reduction_interleaved.cu (yours) or in the solution. Weak: this program holds none
// of that file's host code, and runs its launches from the planner (plan.h).
void sum_interleaved_strided(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum) __attribute__((weak));

static const step_kernel yours[] = {
    {.id = "interleaved_strided", .label = "interleaved, strided index", .run = REDUCE_FN(sum_interleaved_strided)},
};

int main(int argc, char **argv)
{
    const step_spec step = {
        .name = STEP_NAME,
        .audit = STEP_AUDIT,
        .summary = "Sums n random ints with the interleaved, strided-index tree (yours) "
                   "and times it against the divergent one.",
        .start = &reduction_track_first,
        .compare = given,  // checked, then timed when timing; --check runs only yours
        .compare_count = COUNT_OF(given),
        .yours = yours,
        .yours_count = COUNT_OF(yours),
    };
    return reduction_main(argc, argv, &step);
}
