// module_state.h: what of the learner's module outlives a launch, read from
// the very code the driver loads. No GPU needed (common/tools/module-state.cpp
// prints it for any architecture).
//
// build/PROGRAM.fatbin is a container of images, one per architecture the
// build names: machine code (a cubin, an ELF file) for each real one, PTX for
// the newest virtual one. A GPU runs the cubin of its own architecture, or of
// an older one of the same major version (sm_80's code runs on an sm_86);
// only where there is none does the driver compile the PTX as it loads it.
// The cubins need not agree: `#if __CUDA_ARCH__ == 900` gives sm_90's code a
// variable the others lack. So the program chooses the cubin itself, and
// loads that one (cuModuleLoadData), never the fatbin: what it reads here is
// what runs. No cubin for the GPU: the module is refused (build for it: make
// SM=90), since the PTX's compiled state cannot be read.
//
// In the cubin, memory that keeps what a launch writes lies in sections:
//   .nv.global        __device__ variables without an initial value (zeros)
//   .nv.global.init   those with one, and device printf's strings
//   .nv.constant3     __constant__ variables (the bank number may differ)
// and each variable is a symbol of its section at an offset: every variable,
// also one no PTX file lists -- one declared inside inline PTX (`.global .u32
// n;`), one that only this architecture's branch declares, one ptxas made.
// Every writable section but shared and local memory (gone with the launch),
// and every constant bank that holds a variable, is state; the program resets
// each whole, from its first byte to its last, from the content the driver
// gave it at load: where the driver put the section is where one variable of
// it lies (cuModuleGetGlobal), less the variable's offset. A __managed__
// variable has memory of its own: it is a range of its own.
#pragma once

#include <stddef.h>
#include <stdint.h>

// A variable of a range, where it lies in it.
typedef struct {
    const char *name;  // as the driver names it (cuModuleGetGlobal)
    uint64_t offset, bytes;
} module_state_symbol;

// Memory of the module that outlives a launch, reset whole before each.
typedef struct {
    const char *section;  // ".nv.global", ...
    bool managed;         // one __managed__ variable, its own allocation
    bool zero;            // no initial bytes in the cubin (NOBITS): zeros
    uint64_t bytes;
    module_state_symbol *symbols;  // every variable in it (its base is any one's address, less its offset)
    int symbol_count;
} module_state_range;

typedef struct {
    const unsigned char *cubin;  // the image to load (its names below point into it)
    size_t cubin_bytes;
    char arch[16];               // that image's: sm_90, sm_90a (that architecture alone), sm_100f (a family)
    char images[256];            // what the fatbin holds: "sm_75 sm_90 compute_90"
    module_state_range *ranges;
    int range_count;
} module_state;

// Read the fatbin at `path`, choose the cubin a GPU of architecture
// `device_arch` (major * 10 + minor, e.g. 90) runs, and list its state.
// False, with why (a sentence that says what to do), where the module
// cannot be run with its state covered: no cubin for that GPU, a cubin this
// reader does not follow, or a state section without a variable to find it by.
bool module_state_read(const char *path, unsigned device_arch, module_state *state, char *why, size_t why_len);
