// passes.cu: reduce_in_passes (reduction.h), the multi-pass driver that the
// given kernels and the learner's functions of steps 04, 05 and 07 call.
// Linked into both programs of a step (plan.h): in the step's program it
// launches, in the planner it writes the launches down.
#include "reduction.h"

void reduce_in_passes(reduce_pass_kernel kernel, int per_thread, const int *d_in, unsigned int n, int block,
                      int *d_work, int *d_sum)
{
    const int *in = d_in;
    int *out = d_work;
    for (;;) {
        unsigned int grid = ceil_div(n, per_thread * block);
        int *dst = (grid == 1) ? d_sum : out;
        kernel<<<grid, block, block * sizeof(int)>>>(in, dst, n);
        CUDA_CHECK_LAUNCH();
        if (grid == 1)
            return;
        in = dst;  // the next level sums this level's partial sums
        out = dst + grid;
        n = grid;
    }
}

unsigned int reduce_work_ints(unsigned int n, int block)
{
    unsigned int total = 0;
    for (unsigned int m = ceil_div(n, block); m > 1; m = ceil_div(m, block))
        total += m;
    return total;
}
