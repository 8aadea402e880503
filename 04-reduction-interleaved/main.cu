// 04-reduction-interleaved: the harness of this step. You do not edit it.
//
//   make && ./reduction_interleaved                    check, then time against the given kernel
//   ./reduction_interleaved --check -n 1,33,1000003 -b 32,256,1024
//   ./reduction_interleaved --help
//
// Given: the track's first kernel, reduce_interleaved_divergent (in
// ../common/reduction.cu). Yours: reduce_interleaved_strided, in
// reduction_interleaved.cu.
#include "reduction.h"

// Defined in reduction_interleaved.cu (yours) or in the solution.
void sum_interleaved_strided(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum);

static const reduce_kernel yours[] = {
    {"interleaved_strided", "interleaved, strided index", sum_interleaved_strided},
};

int main(int argc, char **argv)
{
    reduce_step step = {
        "04-reduction-interleaved",
        "Sums n random ints with the interleaved, strided-index tree (yours) and times it against the divergent one.",
        track_first_kernel,
        yours,
        1,
    };
    return reduction_main(argc, argv, &step);
}
