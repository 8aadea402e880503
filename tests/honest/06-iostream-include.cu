// honest: step 06's solution with #include <iostream> at its top, left from
// debugging (a std::cout of the grid, since commented out) -- the include a
// C++ programmer writes by habit. Nothing of it is used. With libstdc++
// before GCC 13 (GCC 11 on Ubuntu 22.04, GCC 12 on Debian 12), <iostream>
// defines a static std::ios_base::Init object in every file that includes
// it: a static constructor (.init_array), __cxa_atexit, __dso_handle and
// std::ios_base::Init::Init()/~Init() in the object. grading/integrity reads
// that as "prints from the host" and "a global object with a constructor",
// 5 findings, and the failed integrity test voids every point of the step.
// With GCC 13 and later the object lives in libstdc++.so and the same file
// is clean: the verdict depends on the grading machine's host compiler.
// 06-reduction-direct, solution: one pass, two elements per thread, one atomic per block.
//
// Each block covers 2 * blockDim.x elements and every thread adds two of them
// while loading, so no thread idles at the first level of the tree and the
// grid is half as large. Then, instead of writing a partial sum for another
// launch to add up, thread 0 adds the block's sum into the total with one
// atomicAdd: n / (2 * block) atomics on one address. Behind this kernel's
// looped tree they cost no measurable time (make micro-atomics), and the
// whole reduction is one launch.
#include "reduction.h"

#include <iostream>

__global__ void reduce_direct(const int *in, int *sum, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + tid;

    // The first add, during the load. Each read is checked on its own: the
    // second element can be past the end when the first is not.
    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    partial[tid] = v;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();  // this level's sums are written before the next level reads them
    }
    if (tid == 0)
        atomicAdd(sum, partial[0]);
}

void sum_direct(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));  // the blocks add onto it; same stream, so it is done first
    unsigned int grid = ceil_div(n, 2 * block);          // two elements per thread
    // std::cout << "grid " << grid << std::endl;
    reduce_direct<<<grid, block, block * sizeof(int)>>>(d_in, d_sum, n);
    CUDA_CHECK_LAUNCH();
}
