// honest: step 08 with 16-byte loads: each thread's grid-stride loop reads
// int4 (four ints an instruction, two int4 a trip), after a scalar head that
// brings the pointer to a 16-byte boundary and before a scalar tail for the
// last n % 4; the tree and the atomic are the given block_sum. Grid: SMs x
// resident blocks per SM, capped by the int4s there are to read.
#include "block_sum.cuh"
#include "reduction.h"

#include <stdint.h>

enum { VEC_PER_TRIP = 2 };  // int4 loads in flight per thread per trip

template <unsigned int BLOCK>
__global__ void reduce_cascaded(const int *__restrict__ in, int *__restrict__ sum, unsigned int n)
{
    __shared__ int partial[BLOCK];
    const unsigned int tid = threadIdx.x;

    // Elements before the first 16-byte boundary (0 for cudaMalloc's pointers).
    unsigned int head = (unsigned int)((16 - ((uintptr_t)in & 15)) & 15) / sizeof(int);
    if (head > n)
        head = n;
    const int4 *vec = reinterpret_cast<const int4 *>(in + head);
    const unsigned int n4 = (n - head) / 4;  // whole int4s after the head

    int v = 0;
    const unsigned int stride = gridDim.x * VEC_PER_TRIP * BLOCK;
    unsigned int i = blockIdx.x * VEC_PER_TRIP * BLOCK + tid;
    for (; i + BLOCK < n4; i += stride) {  // both int4 of this trip inside
        const int4 a = vec[i], b = vec[i + BLOCK];
        v += (a.x + a.y) + (a.z + a.w) + (b.x + b.y) + (b.z + b.w);
    }
    if (i < n4) {  // the last trip's first int4, when its second is past the end
        const int4 a = vec[i];
        v += (a.x + a.y) + (a.z + a.w);
    }
    if (blockIdx.x == 0) {
        if (tid < head)  // the head: at most three ints
            v += in[tid];
        const unsigned int tail = head + 4 * n4;  // the ints past the last whole int4: at most three
        if (tail + tid < n && tid < 4)
            v += in[tail + tid];
    }

    v = block_sum<BLOCK>(v, partial);
    if (tid == 0)
        atomicAdd(sum, v);
}

static unsigned int blocks_the_gpu_holds(int block)
{
    int device = 0, sms = 0, threads_per_sm = 0, blocks_per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device));
    const int per_sm = threads_per_sm / block < blocks_per_sm ? threads_per_sm / block : blocks_per_sm;
    return (unsigned int)(sms * per_sm);
}

void sum_cascaded(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    unsigned int grid = blocks_the_gpu_holds(block);
    const unsigned int needed = ceil_div(n / 4, VEC_PER_TRIP * block);  // 0 for n < 4
    if (grid > needed)
        grid = needed > 0 ? needed : 1;

    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    LAUNCH_FOR_BLOCK(reduce_cascaded, block, grid, d_in, d_sum, n);
}
