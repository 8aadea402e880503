// matmul.h: the matrix-multiplication track (steps 01 to 03): C = A * B for
// square N x N matrices of floats, stored row-major (element (r, c) of A is
// A[r * N + c]).
//
// Every kernel of the track is called the same way, through a host function
// of type matmul_fn, so that the harness can check and time them side by
// side:
//
//     void run_something(const float *A, const float *B, float *C, int n, block_shape block);
//
// It writes C = A * B (device memory) using blocks of block.x by block.y
// threads. Before every run the harness fills C with a poison (NaN), so an
// element that was never written shows; a kernel that accumulates into C must
// clear it first itself.
//
// A step's main.cu lists its kernels in a step_spec (harness.h), each with
// its host function in `run` (MATMUL_FN), and hands it to matmul_main.
#pragma once

#include "harness.h"

typedef void (*matmul_fn)(const float *A, const float *B, float *C, int n, block_shape block);

// A host function as a step_kernel holds it: `.run = MATMUL_FN(run_tiled)`.
// A function of another type does not compile.
#define MATMUL_FN(fn) ((host_fn) static_cast<matmul_fn>(fn))

// The track's call (harness.h): A, B and C are the buffers, in that order.
static inline void matmul_call(host_fn fn, void *const *regions, unsigned long long n, block_shape block)
{
    ((matmul_fn)fn)((const float *)regions[0], (const float *)regions[1], (float *)regions[2], (int)n, block);
}

// The track (matmul.cu), which the step's program links and its planner
// does not (weak: NULL there).
extern const track matmul_track __attribute__((weak));

// The step's program, and its planner: step_main (harness.h) on this track.
static inline int matmul_main(int argc, char **argv, const step_spec *step)
{
    return step_main(argc, argv, &matmul_track, matmul_call, step);
}

// The blocks a tiled kernel accepts: TxT with T = 8, 16 or 32, the tile; 32x32
// unless -b says otherwise. Without it, a step accepts any block of at most
// 1024 threads, 16x16 unless -b says otherwise.
extern const block_rule matmul_tile_blocks __attribute__((weak));

// The track's first kernel, matmul_uncoalesced (in matmul.cu): one thread per
// element of C, but the thread's row comes from threadIdx.x, so the 32 threads
// of a warp walk down a column. Step 01 starts from it, and every later step's
// speedup is also shown against it.
extern const step_kernel matmul_track_first __attribute__((weak));
