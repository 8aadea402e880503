// Stage 6, the tile chosen by N: stage 5's single tile leaves most SMs idle
// where N is small, or a last wave nearly empty; smaller tiles make more
// blocks. sliced.cu has the kernel and the model that picks the tile.
//
// The tile of the least modeled time, k whole. At N = 1024 the 64x64 tile
// makes 256 blocks where stage 5's makes 32: 129 us against 187 in the
// model; 78 against 190 by ncu (03's README has the command), and 79.2% of
// cuBLAS against 33.3% in make bench-sweep. At N = 3072 the 64x128 tile
// makes 1,152 blocks, 2.9 waves of 3 x 132, the last one nearly full: 88.1%
// against 77.6%. At N = 2048 (128 blocks, 0.97 of a wave) and from 4096 on,
// stage 5's tile.
#include "sgemm_road.h"

void run_sgemm_shaped(const float *A, const float *B, float *C, int n, block_shape block)
{
    sliced::multiply(A, B, C, n, sliced::choose(n, 1));
}
