// matmul.h: the matrix-multiplication track (steps 01 to 03): C = A * B for
// square N x N matrices of floats, stored row-major (element (r, c) of A is
// A[r * N + c]).
//
// Every kernel of the track is called the same way, through a host function
// of type matmul_fn, so that the harness can check and time them side by side:
//
//     void run_something(const float *A, const float *B, float *C, int n, block_shape block);
//
// It writes C = A * B (device memory) using blocks of block.x by block.y
// threads. Before every run the harness fills C with a poison (NaN), so an
// element that was never written shows; a kernel that accumulates into C must
// clear it first itself.
#pragma once

#include "harness.h"

typedef void (*matmul_fn)(const float *A, const float *B, float *C, int n, block_shape block);

typedef struct {
    const char *id;     // short and stable: the grader's name for it
    const char *label;  // what the table shows
    matmul_fn run;
} matmul_kernel;

typedef struct {
    const char *step;                // the folder: "02-register-temp"
    const char *summary;             // one line for --help
    matmul_kernel start;             // the kernel this step starts from (given)
    const matmul_kernel *compare;    // more given kernels, timed for comparison only
    int compare_count;
    const matmul_kernel *yours;      // the learner's kernels; the last one is graded
    int yours_count;
    matmul_kernel beyond;            // optional: past the lesson (run == NULL: none)
    bool square_tiles;               // blocks must be TxT with T = 8, 16 or 32 (tiled kernels)
    block_shape default_block;
} matmul_step;

// Parse the options, check every kernel, time them, print; returns the exit code.
int matmul_main(int argc, char **argv, const matmul_step *step);

// The track's first kernel: one thread per element of C, but the thread's row
// comes from threadIdx.x, so the 32 threads of a warp walk down a column.
__global__ void matmul_uncoalesced(const float *A, const float *B, float *C, int n);
void run_uncoalesced(const float *A, const float *B, float *C, int n, block_shape block);
extern const matmul_kernel matmul_track_first;
