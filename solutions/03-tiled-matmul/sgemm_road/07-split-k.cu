// Stage 7, split-k: where even stage 6's smallest tile leaves SMs idle,
// cutting k as well makes more blocks, at the price of a sum of the slices.
// sliced.cu has the kernels and the model that picks the slices.
//
// Where even small tiles leave SMs idle, or a last wave mostly empty, cut k
// too: block (x, z) multiplies tile x over the z-th slice of k, the grid
// has `slices` times the blocks, each does 1/slices of the trips -- and a
// second kernel adds the slices' partial products. The price: each slice
// writes a whole n x n buffer, which sum_slices reads back, (2 x slices + 1)
// x n^2 floats of traffic, and a second launch. At N = 1024, stage 5's tile
// in 4 slices is 128 blocks, one wave, 256 of k each: the slices took 53.5
// us by ncu, the sum and its launch about 8 more, against 189.5 for stage
// 5's kernel (103.8% of cuBLAS in make bench-sweep, against 33.3%). At N =
// 3072, 4 slices make 1,152 blocks, 8.7 waves of 132 instead of 2.2: 1,268
// us, and about 71 for the sum, against 1,660 (96.2% against 77.6%). The
// model picks the slices with the tile, 1 to MAX_SLICES: one at N = 2048
// and from 4096 on. The partial buffer takes slices x n^2 floats: at N =
// 3072, 151 MB.
#include "sgemm_road.h"

void run_sgemm_split_k(const float *A, const float *B, float *C, int n, block_shape block)
{
    sliced::multiply(A, B, C, n, sliced::choose(n, sliced::MAX_SLICES));
}
