// honest: step 04 written with cooperative groups: the block as a
// thread_block, its barrier as block.sync(), the thread's index as
// block.thread_rank().
#include "reduction.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void reduce_interleaved_strided(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    cg::thread_block block = cg::this_thread_block();
    unsigned int tid = block.thread_rank();
    unsigned int i = blockIdx.x * block.size() + tid;

    partial[tid] = (i < n) ? in[i] : 0;
    block.sync();
    for (unsigned int s = 1; s < block.size(); s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < block.size())
            partial[index] += partial[index + s];
        block.sync();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

void sum_interleaved_strided(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_interleaved_strided, 1, d_in, n, block, d_work, d_sum);
}
