// honest: step 08 written with pointers: the 8-byte-aligned body of the input
// found by rounding the pointer up (and clamping it to the end), walked as
// int2 with a pointer and a size_t stride, two accumulators, a scalar head and
// tail of at most one int each; plus the debugging aids a learner keeps: the
// n of the last launch, and the block that started first (from a counter).
#include "block_sum.cuh"
#include "reduction.h"

#include <stdint.h>

__device__ unsigned int last_n;          // for cuda-gdb
__device__ unsigned int blocks_started;  // a counter of the blocks that ran
__device__ unsigned int first_block;     // which block got there first

template <unsigned int BLOCK>
__global__ void reduce_cascaded(const int *in, int *sum, unsigned int n)
{
    __shared__ int partial[BLOCK];
    const unsigned int tid = threadIdx.x;

    if (blockIdx.x == 0 && tid == 0)
        last_n = n;
    if (tid == 0 && atomicAdd(&blocks_started, 1u) == 0)
        first_block = blockIdx.x;

    const int *end = in + n;
    // The first 8-byte boundary at or after in, but not past the end.
    const int *body = reinterpret_cast<const int *>((reinterpret_cast<uintptr_t>(in) + 7) & ~(uintptr_t)7);
    if (body > end)
        body = end;
    const int2 *vec = reinterpret_cast<const int2 *>(body);
    const int2 *vec_end = vec + (end - body) / 2;  // whole int2s only

    int a = 0, b = 0;
    const size_t stride = (size_t)gridDim.x * BLOCK;
    for (const int2 *p = vec + (size_t)blockIdx.x * BLOCK + tid; p < vec_end; p += stride) {
        const int2 x = *p;
        a += x.x;
        b += x.y;
    }
    if (blockIdx.x == 0 && tid == 0) {
        for (const int *q = in; q < body; ++q)  // the head: 0 or 1 int
            a += *q;
        for (const int *q = reinterpret_cast<const int *>(vec_end); q < end; ++q)  // the tail: 0 or 1 int
            a += *q;
    }

    const int v = block_sum<BLOCK>(a + b, partial);
    if (tid == 0)
        atomicAdd(sum, v);
}

void sum_cascaded(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    int device = 0, sms = 0, threads_per_sm = 0, blocks_per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device));
    int per_sm = threads_per_sm / block;
    if (per_sm > blocks_per_sm)
        per_sm = blocks_per_sm;
    unsigned int grid = (unsigned int)(sms * per_sm);
    unsigned int needed = ceil_div(n / 2, block);  // one int2 a thread at least
    if (needed == 0)
        needed = 1;
    if (grid > needed)
        grid = needed;

    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    LAUNCH_FOR_BLOCK(reduce_cascaded, block, grid, d_in, d_sum, n);
}
