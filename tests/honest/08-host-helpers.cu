// honest: step 08 with host helpers of its own (one of them extern "C"), a
// struct for the launch's shape, __restrict__, its loads in flight written as
// an unrolled inner loop, and its own block sum made of warp shuffles instead
// of block_sum.cuh.
#include "reduction.h"

enum { LOADS = 4 };  // loads each thread has in flight per trip

struct launch_shape {
    unsigned int grid;
    int block;
};

extern "C" int cascade_blocks_per_sm(int block)
{
    int device, threads_per_sm, blocks_per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device));
    return threads_per_sm / block < blocks_per_sm ? threads_per_sm / block : blocks_per_sm;
}

launch_shape cascade_shape(unsigned int n, int block)
{
    launch_shape shape = {(unsigned int)(current_device()->sm_count * cascade_blocks_per_sm(block)), block};
    unsigned int needed = ceil_div(n, LOADS * block);
    if (shape.grid > needed)
        shape.grid = needed;
    return shape;
}

template <unsigned int BLOCK>
__global__ void reduce_cascaded(const int *__restrict__ in, int *__restrict__ sum, unsigned int n)
{
    __shared__ int warp_totals[BLOCK / 32];
    unsigned int tid = threadIdx.x;
    int v = 0;
    for (unsigned int base = blockIdx.x * LOADS * BLOCK + tid; base < n; base += gridDim.x * LOADS * BLOCK) {
        int part[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; k++) {
            unsigned int j = base + k * BLOCK;
            part[k] = j < n ? in[j] : 0;
        }
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            v += part[k];
    }
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid % 32 == 0)
        warp_totals[tid / 32] = v;
    __syncthreads();
    if (tid < 32) {
        v = tid < BLOCK / 32 ? warp_totals[tid] : 0;
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (tid == 0)
            atomicAdd(sum, v);
    }
}

void sum_cascaded(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    launch_shape shape = cascade_shape(n, block);
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    LAUNCH_FOR_BLOCK(reduce_cascaded, shape.block, shape.grid, d_in, d_sum, n);
}
