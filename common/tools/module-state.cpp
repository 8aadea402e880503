// module-state: what a step's program resets of a module before every run,
// for a GPU of one architecture, with no GPU: the cubin it would load and the
// memory of it that outlives a launch (common/core/module_state.h), or why
// it would refuse the module.
//
//   c++ -I common/core -o module-state common/tools/module-state.cpp -x c++ common/core/module_state.cu
//   ./module-state --arch 90 07-unrolled/build/unrolled.fatbin [--cubin FILE]
//
// --cubin FILE: the cubin chosen, as the program would load it, into FILE
// (readelf -sW FILE shows its symbols).
//
// One line for the cubin, then one for each range of memory, tab-separated:
//   cubin  arch=sm_90  images=sm_75 sm_90 compute_90
//   state  section=.nv.global  bytes=24  zero=1  managed=0  symbols=NAME@OFFSET:BYTES,...
// Refused: "refused: WHY" on stderr, exit 3 (as the program exits: EXIT_CUDA).
// Bad usage: exit 2; FILE not written: exit 1.
#include "module_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if ((argc != 4 && !(argc == 6 && strcmp(argv[4], "--cubin") == 0)) || strcmp(argv[1], "--arch") != 0 ||
        atoi(argv[2]) <= 0) {
        fprintf(stderr, "usage: %s --arch SM FATBIN [--cubin FILE]   (SM without the dot, e.g. 90)\n", argv[0]);
        return 2;
    }
    module_state state;
    char why[1024];
    if (!module_state_read(argv[3], (unsigned)atoi(argv[2]), &state, why, sizeof why)) {
        fprintf(stderr, "refused: %s\n", why);
        return 3;
    }
    FILE *out = argc == 6 ? fopen(argv[5], "wb") : NULL;
    if (argc == 6 && (!out || fwrite(state.cubin, 1, state.cubin_bytes, out) != state.cubin_bytes || fclose(out) != 0)) {
        perror(argv[5]);
        return 1;
    }
    printf("cubin\tarch=%s\timages=%s\n", state.arch, state.images);
    for (int i = 0; i < state.range_count; i++) {
        const module_state_range *r = &state.ranges[i];
        printf("state\tsection=%s\tbytes=%llu\tzero=%d\tmanaged=%d\tsymbols=", r->section, (unsigned long long)r->bytes,
               r->zero, r->managed);
        for (int j = 0; j < r->symbol_count; j++)
            printf("%s%s@%llu:%llu", j ? "," : "", r->symbols[j].name, (unsigned long long)r->symbols[j].offset,
                   (unsigned long long)r->symbols[j].bytes);
        printf("\n");
    }
    return 0;
}
