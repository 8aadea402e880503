// plan.h: a step's two programs, and the plans of launches they trade.
//
// The learner's file is built twice. Its device code -- kernels, __device__
// helpers and variables -- becomes a module (build/PROGRAM.fatbin) that the
// step's program loads and launches itself. Its host code -- the step's
// function, e.g. sum_interleaved_strided -- runs only in a program of its
// own, the planner (build/PROGRAM.plan), linked with a stand-in for the CUDA
// runtime (planner.cpp) that reaches no GPU: there, a launch or a memset is
// written down, not run. For each size and block the program will use, the
// planner calls the function once, on stand-in buffers, and answers with its
// plan: the launches it made (kernel, grid, block, shared memory, arguments),
// its memsets and the function attributes it set, in order.
//
//     PROGRAM (checks, times, audits, records)      PROGRAM.plan (your host code)
//       loads build/PROGRAM.fatbin (your kernels)
//       starts the planner, confined  ---- sizes, blocks, the GPU's facts --->
//                                     <--- one plan per size and block ------
//       audits each plan, then replays it on its own buffers, for every check
//       and every timed run
//
// So what is timed is what was checked and audited, whatever the host code
// does; the program that grades it holds none of that code (`nm` shows it).
// The planner runs before any check or timing, with no access to files, the
// network or the GPU (plan.cu confines it), and everything it started ends
// before the GPU is used.
//
// The buffers the planner hands the function are fake addresses, one region
// each: region k spans [PLAN_REGION_BASE + k * PLAN_REGION_SPAN, + SPAN).
// The program maps every 8-byte argument that falls in a region, and every
// memset, onto its own buffer of that call, and refuses one that falls
// outside what that buffer holds.
#pragma once

#include <stdint.h>

static const uint64_t PLAN_REGION_BASE = 0x00007a0000000000ull;
static const uint64_t PLAN_REGION_SPAN = 1ull << 36;  // 64 GB: far more than any buffer here

enum {
    PLAN_MAX_REGIONS = 4,  // buffers a step's function is handed
    PLAN_FD = 3,           // the planner writes its plans to this descriptor
};

// The lines of the two directions: "kind\tkey=value\t...", as the records
// are (records.awk reads both).
//   to the planner:    defines (id): does the file define it? answered defined
//                      or undefined (id);
//                      device (props=hex of cudaDeviceProp), attribute (id, value),
//                      kernel (name, params=size@offset,..., attributes=hex of
//                      cudaFuncAttributes), plan (id, n, block=XxY)
//   from the planner:  plan (id, n, block) then launch (kernel, grid=x,y,z,
//                      block=x,y,z, smem, stream, params=hex), memset (address,
//                      value, bytes, stream), attribute (kernel, attribute, value)
//                      and end; or undefined (id): no such function here;
//                      failed (code, message): the function stopped the program

// ===========================================================================
// The program's side (plan.cu)
// ===========================================================================
#include "harness.h"

enum { PLAN_MAX_PARAMS = 64, PLAN_MAX_PARAMS_BYTES = 4096 };

// A kernel of the learner's module, and its parameters as the module lays them out.
typedef struct {
    char name[256];  // mangled
    struct CUfunc_st *function;
    int param_count;
    unsigned param_offset[PLAN_MAX_PARAMS], param_size[PLAN_MAX_PARAMS], params_bytes;
} module_kernel;

// Load build/PROGRAM.fatbin and its table (build/PROGRAM.kernels), and note
// the initial content of its __device__ and __constant__ variables. After
// open_device. Exits 3, with what to do, if the module does not load.
void module_open(void);

// The module loaded again, as the driver first loaded it, and every
// thread's stack and every block's shared memory on the GPU zeroed: before
// every call, outside any timed span, so that no call leaves work or state
// to the next in any memory of the module's, whatever declares it (a
// __device__ or __constant__ variable, a .global of inline PTX, printf's
// strings), nor in the memory a launch leaves behind without a variable. Its
// kernels' handles and variables' addresses change; the plans refer to the
// kernels, not to the handles. (plan_replay resets the listed variables
// between the launches of a call.)
void module_reload(void);

// The harness's own memory -- a learner's input (a const argument), and
// every buffer no learner's call is given to write (another input, a
// copy's destination, the cache flush's): device memory of at least BYTES,
// read-write for the harness to fill, until harness_read_only(true) maps
// all of it read-only -- for a learner's call, outside any timed span: a
// kernel's store to any of it then faults -- and harness_read_only(false)
// back. Each waits for the GPU first. On a GPU without the driver's virtual
// memory calls the memory is plain, and stays writable.
void *harness_alloc(size_t bytes);
void harness_free(void *p);
void harness_read_only(bool read_only);

// "%clock64 in _Z6reduce...; ...": what the module's code reads of clocks or
// of the SM it runs on; "" when nothing.
const char *module_clocks(void);

const module_kernel *module_kernel_named(const char *name);

typedef enum { PLAN_LAUNCH, PLAN_MEMSET, PLAN_ATTRIBUTE } plan_action_kind;

// One thing a call puts on the GPU, as the planner wrote it down. Addresses
// are the planner's (regions of PLAN_REGION_BASE).
typedef struct {
    plan_action_kind kind;
    char kernel_name[256];        // launch, attribute: as the planner named it
    const module_kernel *kernel;  // NULL: no kernel of the learner's module
    unsigned grid[3], block[3];
    size_t smem;
    bool other_stream;            // launch, memset: on a stream other than the default one
    unsigned char *params;        // launch: kernel->params_bytes of arguments
    uint64_t address;             // memset
    size_t bytes;
    int value;
    int attribute, attribute_value;
} plan_action;

// One call of a step's function, planned: (id, n, block) and what it launches.
typedef struct plan {
    char id[64];
    unsigned long long n;
    block_shape block;
    bool defined;   // false: the learner's file does not define this function
    bool complete;  // the planner wrote its end
    plan_action *actions;
    int action_count;
} plan;

// Ask the planner (build/PROGRAM.plan), confined, which of `ids` the
// learner's file defines (no GPU needed). Exits 3 if the planner fails,
// hangs or crashes, with what it said.
void plans_survey(const char *const *ids, int id_count);

// Whether the learner's file defines the function of step kernel `id` (plans_survey).
bool planned(const char *id);

// Ask the planner, as plans_survey does, for every call this run will make:
// each of `ids` at every size and block of opt, and of `also` where it is
// not NULL (--exact-at's point). After module_open. Where the plans were
// read (plans_read), check instead that they hold every such call: exits 2
// naming one they lack.
void plans_make(const char *const *ids, int id_count, const options *opt, const options *also);

// One plan per grading. The grader has one run ask the planner, once, for
// the survey and for every size and block of every run its tests will make
// (--write-plans FILE, with every size and block in -n and -b): written to
// path, after module_open. Every other run reads them (--plans FILE) instead
// of starting the planner: so what a run replays cannot depend on which
// test, tool or surroundings asked for it. plans_read stands for
// plans_survey, before the GPU.
void plans_write(const char *const *ids, int id_count, const options *opt, const char *path);
void plans_read(const char *path);

// The plan of one call; NULL if it was never asked for.
const plan *plan_for(const char *id, unsigned long long n, block_shape block);

// A buffer a call is handed, as the step's function receives them, in order.
typedef struct {
    void *ptr;
    size_t bytes;
} plan_region;

// The plan's use of buffers, against their sizes for this call: the number
// of problems, the first described in why (an address past a buffer's end).
int plan_check_buffers(const plan *p, const size_t *region_bytes, int region_count, char *why, size_t len);

// Run the call: its memsets and launches in order, on the default stream, on
// these buffers, the module's variables reset before each launch after the
// first. (The caller loads the module again before the first, outside any
// timed span: module_reload.)
void plan_replay(const plan *p, const plan_region *regions);

// The call's actions up to its first launch, that launch included, as
// plan_replay runs them.
void plan_replay_first_launch(const plan *p, const plan_region *regions);

// The arguments of the call's launch number `launch` (0 the first) that point
// into its buffers -- every 8-byte word of its parameters, a pointer's or a
// struct member's -- mapped onto `regions` as plan_replay maps them: each an
// address and the bytes of its buffer from there on, in the order of the
// kernel's parameters, at most max. Returns how many.
int plan_launch_pointers(const plan *p, int launch, const plan_region *regions, plan_region *pointers, int max);

// The plan of contender c at the size and block at hand; NULL for a kernel
// this program holds (harness.cu).
const plan *contender_plan(const contender *c, const flow_point *at);
