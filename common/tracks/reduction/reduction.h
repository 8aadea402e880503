// reduction.h: the reduction track (steps 04 to 08): sum n 32-bit ints exactly.
//
// Every kernel of the track is called the same way, through a host function of
// type reduce_fn, so the harness can check and time them side by side:
//
//     void sum_something(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum);
//
// It adds d_in[0..n) and leaves the total in *d_sum (device memory), using
// `block` threads per block. d_work holds reduce_work_ints(n, block) ints of
// scratch for partial sums. Before every run the harness fills *d_sum and
// d_work with a poison value, so a result that was never written shows.
//
// A step's main.cu lists its kernels in a step_spec (harness.h), each with
// its host function in `run` (REDUCE_FN), and hands it to reduction_main.
#pragma once

#include "harness.h"

typedef void (*reduce_fn)(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum);

// A host function as a step_kernel holds it: `.run = REDUCE_FN(sum_direct)`.
// A function of another type does not compile.
#define REDUCE_FN(fn) ((host_fn) static_cast<reduce_fn>(fn))

// The track's call (harness.h): the input, the partial sums, the sum, in that
// order.
static inline void reduction_call(host_fn fn, void *const *regions, unsigned long long n, block_shape block)
{
    ((reduce_fn)fn)((const int *)regions[0], (unsigned int)n, block.x, (int *)regions[1], (int *)regions[2]);
}

// The track (reduction.cu), which the step's program links and its planner
// does not (weak: NULL there).
extern const track reduction_track __attribute__((weak));

// The step's program, and its planner: step_main (harness.h) on this track.
static inline int reduction_main(int argc, char **argv, const step_spec *step)
{
    return step_main(argc, argv, &reduction_track, reduction_call, step);
}

// ---------------------------------------------------------------------------
// Multi-pass reductions: the track's first kernel, the kernels of steps 04,
// 05 and 07, and the given kernels of steps 05 to 08 (the previous step's);
// in passes.cu
// ---------------------------------------------------------------------------
// A kernel in which each block sums per_thread * blockDim.x consecutive
// elements of in[0..n) into out[blockIdx.x]. It gets blockDim.x ints of
// dynamic shared memory (a kernel with static shared memory, like step 07's
// templated one, leaves them unused).
typedef void (*reduce_pass_kernel)(const int *in, int *out, unsigned int n);

// One launch per level of the tree, each thread loading per_thread elements:
// n values become ceil(n / (per_thread * block)) partial sums, those become
// fewer again, and so on until one is left in *d_sum. The partial sums of
// each level go to d_work, one level after the other.
void reduce_in_passes(reduce_pass_kernel kernel, int per_thread, const int *d_in, unsigned int n, int block,
                      int *d_work, int *d_sum);

// How many ints of d_work reduce_in_passes needs (for any per_thread): the
// partial sums of every level but the last.
unsigned int reduce_work_ints(unsigned int n, int block);

// The track's first kernel, reduce_interleaved_divergent (in reduction.cu):
// step 04 starts from it, and every later step's speedup is also shown against it.
extern const step_kernel reduction_track_first __attribute__((weak));

// CUB's DeviceReduce::Sum, the library step 08 measures against (reduction.cu).
extern const step_kernel reduction_cub __attribute__((weak));

// ---------------------------------------------------------------------------
// Launching a kernel templated on the block size (step 08)
// ---------------------------------------------------------------------------
// Step 07's switch over block sizes, folded into one line that also launches:
// kernel<block><<<grid, block>>>(...) for every block size the track accepts,
// 32 to 1024. The harness has already refused any other block size.
#define LAUNCH_FOR_BLOCK(kernel, block, grid, ...)                                  \
    do {                                                                            \
        switch (block) {                                                            \
        case 32: kernel<32><<<(grid), 32>>>(__VA_ARGS__); break;                    \
        case 64: kernel<64><<<(grid), 64>>>(__VA_ARGS__); break;                    \
        case 128: kernel<128><<<(grid), 128>>>(__VA_ARGS__); break;                 \
        case 256: kernel<256><<<(grid), 256>>>(__VA_ARGS__); break;                 \
        case 512: kernel<512><<<(grid), 512>>>(__VA_ARGS__); break;                 \
        case 1024: kernel<1024><<<(grid), 1024>>>(__VA_ARGS__); break;              \
        default: die(EXIT_USAGE, "no " #kernel " for block %d", (int)(block));      \
        }                                                                           \
        CUDA_CHECK_LAUNCH();                                                        \
    } while (0)
