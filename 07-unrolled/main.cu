// 07-unrolled: the harness of this step. You do not edit it.
//
//   make && ./unrolled                                check, then time against the given kernel
//   ./unrolled --check -n 1,63,65,1000003 -b 32,64,128,256,512,1024
//   make -C .. sanitize EX=07                         racecheck your warp code
//
// Given: step 06's solution, reduce_direct, below. Yours, in unrolled.cu:
// reduce_last_warp_unrolled (the loop stops at 32 threads, the last warp is
// written out) and reduce_unrolled<BLOCK> (the whole tree written out, for a
// block size known at compile time). Both are timed; the second is graded.
#include "reduction.h"

// Step 06's solution: two elements per thread, a loop over the tree with a
// barrier at every level, one atomic per block.
__global__ void reduce_direct(const int *in, int *sum, unsigned int n)
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
        atomicAdd(sum, partial[0]);
}

static void sum_direct(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    reduce_direct<<<ceil_div(n, 2 * block), block, block * sizeof(int)>>>(d_in, d_sum, n);
    CUDA_CHECK_LAUNCH();
}

// Defined in unrolled.cu (yours) or in the solution.
void sum_last_warp_unrolled(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum);
void sum_unrolled(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum);

static const reduce_kernel yours[] = {
    {"last_warp_unrolled", "last warp unrolled", sum_last_warp_unrolled},
    {"unrolled", "completely unrolled, templated block", sum_unrolled},
};

int main(int argc, char **argv)
{
    reduce_step step = {
        "07-unrolled",
        "Sums n random ints with the tree unrolled (yours: last warp, then all of it) against the looped tree.",
        {"direct", "two per thread, one atomic per block", sum_direct},
        yours,
        2,
    };
    return reduction_main(argc, argv, &step);
}
