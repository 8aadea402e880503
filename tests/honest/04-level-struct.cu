// honest: step 04 with each level's arguments passed to the kernel in one
// struct, by value (where it reads from, where it writes, how many), and the
// learner's own loop over the levels, the grids reduce_in_passes makes. The
// kernel is the solution's, word for word but for the struct.
#include "reduction.h"

struct level {
    const int *in;   // this level's input: the data, or the partial sums of the level before
    int *out;        // one partial sum a block
    unsigned int n;  // ints in `in`
};

__global__ void reduce_interleaved_strided(level lv)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < lv.n) ? lv.in[i] : 0;  // past the end, add nothing
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;  // contiguous threads take consecutive pairs
        if (index < blockDim.x)
            partial[index] += partial[index + s];
        __syncthreads();
    }
    if (tid == 0)
        lv.out[blockIdx.x] = partial[0];
}

void sum_interleaved_strided(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    level lv = {};
    lv.in = d_in;
    lv.n = n;
    int *next = d_work;
    for (;;) {
        unsigned int grid = ceil_div(lv.n, block);
        lv.out = grid == 1 ? d_sum : next;
        reduce_interleaved_strided<<<grid, block, block * sizeof(int)>>>(lv);
        CUDA_CHECK_LAUNCH();
        if (grid == 1)
            return;
        lv.in = lv.out;  // the next level sums this level's partial sums
        next = lv.out + grid;
        lv.n = grid;
    }
}
