// honest: step 05 with its kernel in a nested namespace, written the C++17
// way (namespace workbook::reduction).
#include "reduction.h"

namespace workbook::reduction {

__global__ void reduce_sequential(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;  // past the end, add nothing
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();  // this level's sums are written before the next level reads them
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

}  // namespace workbook::reduction

// One launch per level of the tree, until one sum is left (see reduce_in_passes).
void sum_sequential(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(workbook::reduction::reduce_sequential, 1, d_in, n, block, d_work, d_sum);
}
