// honest: step 08 with its grid sized by the occupancy calculator: the
// blocks of the kernel's instance that one SM holds at once
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor, which also counts its
// registers and shared memory) times the SMs (cudaGetDeviceProperties'
// multiProcessorCount). Templated on the block size, launched through a
// switch of the file's own.
#include "block_sum.cuh"
#include "reduction.h"

enum { LOADS_PER_TRIP = 4 };  // independent loads each thread has in flight per trip

template <unsigned int BLOCK>
__global__ void reduce_cascaded(const int *in, int *sum, unsigned int n)
{
    __shared__ int partial[BLOCK];
    unsigned int tid = threadIdx.x;

    const unsigned int stride = gridDim.x * LOADS_PER_TRIP * BLOCK;
    unsigned int i = blockIdx.x * LOADS_PER_TRIP * BLOCK + tid;
    int v = 0;
    for (; i + (LOADS_PER_TRIP - 1) * BLOCK < n; i += stride)
        v += in[i] + in[i + BLOCK] + in[i + 2 * BLOCK] + in[i + 3 * BLOCK];
    for (; i < n; i += BLOCK)  // the last trip's tail
        v += in[i];

    v = block_sum<BLOCK>(v, partial);
    if (tid == 0)
        atomicAdd(sum, v);
}

// As many blocks as the GPU runs at once, or fewer if the input needs fewer.
template <unsigned int BLOCK>
static unsigned int cascade_grid(unsigned int n)
{
    int device, blocks_per_sm = 0;
    cudaDeviceProp props;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaGetDeviceProperties(&props, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, reduce_cascaded<BLOCK>, BLOCK, 0));
    if (blocks_per_sm < 1)
        blocks_per_sm = 1;
    unsigned int grid = (unsigned int)(props.multiProcessorCount * blocks_per_sm);
    unsigned int needed = ceil_div(n, LOADS_PER_TRIP * BLOCK);
    return grid < needed ? grid : needed;
}

template <unsigned int BLOCK>
static void launch_cascaded(const int *d_in, unsigned int n, int *d_sum)
{
    reduce_cascaded<BLOCK><<<cascade_grid<BLOCK>(n), BLOCK>>>(d_in, d_sum, n);
    CUDA_CHECK_LAUNCH();
}

void sum_cascaded(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int)));
    switch (block) {
    case 32: launch_cascaded<32>(d_in, n, d_sum); break;
    case 64: launch_cascaded<64>(d_in, n, d_sum); break;
    case 128: launch_cascaded<128>(d_in, n, d_sum); break;
    case 256: launch_cascaded<256>(d_in, n, d_sum); break;
    case 512: launch_cascaded<512>(d_in, n, d_sum); break;
    case 1024: launch_cascaded<1024>(d_in, n, d_sum); break;
    default: die(EXIT_USAGE, "no reduce_cascaded for block %d", block);
    }
}
