// honest: step 04's solution with a debugging census of the lesson itself: a
// __device__ table of how many warps had a busy thread at each level (lane 0
// of such a warp adds 1 to its level's slot: a counter's add), read with
// cuda-gdb to see whole warps fall idle; the levels counted by a loop index.
// slow: 0.27x the starting kernel on an H200, where step 04 asks 1.06x (2026-11-30).
#include "reduction.h"

__device__ unsigned int busy_warps[11];  // levels s = 512 .. 1 and the load (a counter each)

__global__ void reduce_interleaved_strided(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;
    __syncthreads();

    unsigned int level = 0;
    for (unsigned int s = 1; s < blockDim.x; s *= 2, ++level) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x) {
            partial[index] += partial[index + s];
            if (tid % 32 == 0)  // this warp has a busy thread at this level
                atomicAdd(&busy_warps[level], 1u);
        }
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

void sum_interleaved_strided(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_interleaved_strided, 1, d_in, n, block, d_work, d_sum);
}
