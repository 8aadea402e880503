// harness.h: what every exercise program shares, whichever track it is in.
//
//   - exit codes and the one error-check macro (CUDA_CHECK) used on every CUDA call;
//   - the command line: the same options for every step (see print_usage);
//   - the device: opened once, described once, refused with exit 77 if unusable;
//   - timing: CUDA events, warm-up, every contender interleaved in each
//     repetition, fresh inputs and a poisoned output before each run and its
//     result checked after it, the L2 cache flushed before each run, median
//     and quartiles;
//   - output: a table for people on stdout; tab-separated key=value records
//     for the grader (--machine), in a file only the harness writes
//     (--records FILE);
//   - the flow of a step (step_main): the learner's launches planned and
//     audited (plan.h, audit.h); which kernels run, in which role; each
//     checked at every size and block, then timed. A track (common/tracks/<name>/:
//     its header and file) plugs its own inputs, reference and comparison into it
//     through the hooks of `track`.
//
// A step's own main.cu holds the kernels it gives (the previous step's
// answer among them) and a table, step_spec, of every kernel it runs by role.
// The learner's functions are only declared there: this program holds none
// of the learner's host code, and runs the learner's kernels from the plans
// its planner makes (plan.h).
#pragma once

#include <cuda_runtime.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// ---------------------------------------------------------------------------
// Exit codes: the contract with the grader (and with `make`).
// ---------------------------------------------------------------------------
enum {
    EXIT_CORRECT = 0,    // every check passed (and, unless --check, timed)
    EXIT_MISMATCH = 1,   // a kernel gave a wrong answer
    EXIT_USAGE = 2,      // bad option or size; nothing ran on the GPU
    EXIT_CUDA = 3,       // a CUDA call or a kernel failed
    EXIT_NO_DEVICE = 77  // no usable CUDA device: "skipped", as automake means it
};

// Wrap every CUDA runtime call. On failure: the error's name, the call, the
// file and line, what the program was doing, and what to try; then exit 3.
#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)

// After every kernel launch. A bad launch configuration is reported here at
// once; a fault inside the kernel surfaces at the next synchronizing call.
#define CUDA_CHECK_LAUNCH() cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

void cuda_check(cudaError_t err, const char *call, const char *file, int line);

// Say what the program is doing, so that an error report can name it
// ("checking 'yours' at n=33, block 32"). printf-style.
void set_activity(const char *format, ...) __attribute__((format(printf, 1, 2)));

// Print "program: message" on stderr and exit with `code`.
void die(int code, const char *format, ...) __attribute__((format(printf, 2, 3), noreturn));

static inline unsigned int ceil_div(unsigned int a, unsigned int b) { return (a + b - 1) / b; }

// The number of elements of an array (an array, not a pointer to one).
#define COUNT_OF(array) ((int)(sizeof(array) / sizeof((array)[0])))

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------
#define MAX_LIST 128  // most sizes or block shapes one run accepts (a grading's plans take them all)

typedef struct {
    int x, y;  // y is 1 for one-dimensional blocks
} block_shape;

typedef struct {
    unsigned long long sizes[MAX_LIST];
    int size_count;
    block_shape blocks[MAX_LIST];
    int block_count;
    int reps;
    unsigned long long seed;
    bool check_only;  // --check: correctness only, no timing
    bool exact_only;  // --exact: with --check, one call of each kernel, on the exact-size input
    bool exact_at;    // --exact-at N:B: with --check, one point more after the others, checked as --exact
    unsigned long long exact_size;  //   checks (the sanitizers' run at the timed size, in the process of
    block_shape exact_block;        //   their small sizes)
    bool machine;     // --machine: records for the grader instead of a table
    bool facts;       // --facts: the track's facts, then nothing else
    unsigned only;    // --only: the roles that run, bit (1u << role) each; 0: all
    const char *plans_in, *plans_out;  // --plans FILE, --write-plans FILE (plan.h)
    long long watch;  // --watch K: the timed round K % reps is the watched one (-1: none)
    bool watched_only;  // --watched-only: with --watch, that round alone runs (the lesson's profile)
    const char *census_out;  // --census FILE: the grader's census of who reads the input (a track's)
    const char *gpu_lock;    // --gpu-lock FILE: the grader's GPU lock, alone while timing, shared otherwise
} options;

// Which blocks a program accepts (-b), and the one it uses without -b.
typedef struct {
    block_shape default_block;
    bool two_d;        // "32x8" as well as "32" (which then means 32x32)
    const char *rule;  // for --help and errors: "a power of two, 32 to 1024"
    bool (*ok)(block_shape b);
} block_rule;

// ---------------------------------------------------------------------------
// Device
// ---------------------------------------------------------------------------
typedef struct {
    int ordinal;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    size_t l2_bytes;
    size_t global_mem_bytes;
    int driver_version, runtime_version;  // 13000 = 13.0
} device_info;

// The device step_main opened (it exits 77 with one line when there is none).
const device_info *current_device(void);

// Before every call (module_reload): the L2 flush's sink, the one word of
// the harness's own that a kernel could write and that no run of it reads,
// still 0. Anything there -- the flush's mark of a bit set in its buffer, or
// a kernel's count kept from call to call
// (tests/mutants/07-racy-counter-in-flush-sink.patch) -- ends the program:
// a write outside the buffers a kernel is given.
void check_flush_sink(void);

// Exit 2 with a clear reason if `bytes` of device memory cannot be had.
void require_device_memory(size_t bytes, const char *what);

// ---------------------------------------------------------------------------
// Random inputs: a counter-based generator, so that element i of data set
// (seed, stream) is the same on every machine and in every order, on the host
// and on the GPU alike. SplitMix64's finalizer over a counter: statistically
// sound, and element i needs no element before it.
// ---------------------------------------------------------------------------
static inline __host__ __device__ uint64_t random_u64(uint64_t seed, uint64_t stream, uint64_t index)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + index * 0x9E3779B97F4A7C15ull +
                 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The data sets the timed runs draw, one per run: streams from here up, never
// those of the checks' data sets (which are below 2^32).
static const uint64_t FRESH_STREAMS = 1ull << 40;

// ---------------------------------------------------------------------------
// A step: its kernels, by role
// ---------------------------------------------------------------------------

// What a kernel is in a step's run. The records and the table name each role
// by role_names[role]: "ceiling", "first", "start", "given", "yours",
// "beyond", "library".
typedef enum {
    ROLE_CEILING,  // what bounds the rate, measured in the same run: cuBLAS, a copy
    ROLE_FIRST,    // the track's first kernel, timed in every later step
    ROLE_START,    // the kernel this step starts from (given)
    ROLE_GIVEN,    // more given kernels, timed beside the start to split its gain
    ROLE_YOURS,    // the learner's kernels; the last of them is graded
    ROLE_BEYOND,   // past the lesson: only the reference solution defines them
    ROLE_LIBRARY,  // a library's, to measure against; timed only
    ROLE_COUNT
} kernel_role;

extern const char *const role_names[ROLE_COUNT];

// A kernel's host function, held untyped here: the track's header gives its
// type (matmul_fn, reduce_fn) and a macro that checks a function against it
// and makes it a host_fn, and the track's `call` (track_call) calls it.
typedef void (*host_fn)(void);

// One kernel as a step lists it, with its host function in `run`. NULL (a
// weak declaration that nothing in this program defines): the learner's file
// defines it, and the planner runs it (plan.h); or, for a kernel past the
// lesson that the reference solution alone defines, nothing does, and the
// kernel is left out.
typedef struct {
    const char *id;     // short, stable, no spaces: what the grader matches
    const char *label;  // what a person reads
    host_fn run;
} step_kernel;

// How a track calls one of its host functions: fn on the buffers `regions`,
// in the order of its pointer arguments, at size n and block `block`. The
// planner calls the learner's functions through it, on stand-in buffers.
typedef void (*track_call)(host_fn fn, void *const *regions, unsigned long long n, block_shape block);

// One step, as its main.cu describes it. The step's name and what its graded
// function must launch come from the build: step.mk compiles main.cu with
// -DSTEP_NAME='"04-reduction-interleaved"' and -DSTEP_AUDIT='"kernel=..."'
// (audit.h says what STEP_AUDIT holds). A main.cu compiled by hand, outside
// the build, gets neither a name nor launch facts.
#ifndef STEP_NAME
#define STEP_NAME ""
#endif
#ifndef STEP_AUDIT
#define STEP_AUDIT ""
#endif

typedef struct {
    const char *name;               // STEP_NAME: the step's folder, "05-reduction-sequential"
    const char *audit;              // STEP_AUDIT: the launch audit's facts ("": none)
    const char *summary;            // one line for --help
    const block_rule *blocks;       // NULL: the track's own rule
    const step_kernel *start;       // the kernel this step starts from (given)
    const step_kernel *compare;     // more given kernels, timed beside the start to split its gain
    int compare_count;
    const step_kernel *yours;       // the learner's kernels; the last one is graded
    int yours_count;
    const step_kernel *beyond;      // past the lesson, timed and checked as well
    int beyond_count;
    const step_kernel *library;     // optional: a library's, e.g. CUB (timed only)
} step_spec;

// ---------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------
// Every timed entry runs WARMUP_CALLS untimed times, then once per repetition:
// WARMUP_CALLS + reps calls in all, numbered from 0 (the warm-up first).
enum { WARMUP_CALLS = 2 };

// One thing to time. `run` enqueues one run on the default stream; `before`
// (optional) enqueues what must precede every run but not be timed: fresh
// inputs, the output poisoned; `after` (optional) enqueues what must follow
// every run but not be timed: its result checked or kept to be checked.
// `call` numbers the runs of the entry, warm-up included (see WARMUP_CALLS).
typedef struct {
    void (*run)(void *arg);
    void (*before)(void *arg, int call);
    void *arg;
    void (*after)(void *arg, int call);
} timed_task;

// One row of a timed table: what runs, and what it is called.
typedef struct {
    const char *id;     // short, stable, no spaces: what the grader matches
    kernel_role role;
    const char *label;  // what a person reads
    double work;        // bytes moved or flops done per run: the rate is work / time
    timed_task task;
} timed_entry;

// ---------------------------------------------------------------------------
// The flow of a step, and the hooks a track plugs into it
// ---------------------------------------------------------------------------

// A kernel in its role in this run.
typedef struct {
    const step_kernel *kernel;
    kernel_role role;
    bool planned;  // the learner's: run from its plans (contender_plan, plan.h), not called
    bool graded;   // the graded function (the last of the learner's): the one the audit audits
} contender;

// Where the flow is, for a track's hooks.
typedef struct {
    const options *opt;
    const char *step;         // the step's name: every record starts with it
    unsigned long long n;     // the size at hand, in the track's unit (its size_unit fact)
    block_shape block;        // the block at hand
} flow_point;

// A track: what step_main needs to know of it, and its hooks. The hooks work
// on the track's own state -- the inputs, the reference and the buffers of
// the size at hand -- which it keeps in its file.
typedef struct {
    // TRACK_FACTS of the track's file: its name, size symbol, ceiling and
    // what the scripts know of it (--facts prints them; track-facts.awk reads
    // them from the file).
    const char *facts;
    const char *size_meaning;        // for --help: "ints to sum"
    unsigned long long default_size, max_size;
    int default_reps;
    const block_rule *blocks;        // unless the step has its own
    const step_kernel *first;        // the track's first kernel, as the first step starts from it
    const step_kernel *first_timed;  // the same kernel, as the later steps time it
    const char *rate_unit;           // "GB/s" or "GFLOP/s"
    const char *checks_cover;        // ends the summary line: "block sizes, guarded and exact-size inputs"
    const char *fresh_inputs;        // after "wrong once " when the refilled check fails: "A and B held fresh
                                     // values: does it remember a product from an earlier call?"

    // Optional: once the device is open (cuBLAS's handle), and at the end.
    void (*open)(void);
    void (*close)(void);
    // One size: require its memory, fill the guarded and the exact inputs,
    // compute the reference; unless --check, the outputs timing needs for the
    // ceiling and `count` contenders.
    void (*prepare)(const flow_point *at, int count);
    // Optional: at each block, before its checks (scratch sized to the block).
    void (*use_block)(const flow_point *at);
    // The sizes of the buffers a call at (n, block) is handed, in the order
    // of the track's function's pointer arguments, into bytes; returns how
    // many (at most PLAN_MAX_REGIONS). The audit holds plans to them.
    int (*region_bytes)(unsigned long long n, block_shape block, size_t *bytes);
    // Run c once on the guarded or the exact inputs -- drawn again on the GPU
    // just before, its output poisoned -- compare with the reference, which
    // is on the host or made after the run, never on the GPU while a kernel
    // of the learner's runs; print its check record (or MISMATCH lines).
    // True if right.
    bool (*check)(const flow_point *at, const contender *c, bool guarded);
    // The size as the timed table's heading says it: "N = 2048 (17.2 GFLOP)".
    void (*describe)(const flow_point *at, char *buf, size_t len);
    // Timing: entries[0] is the ceiling (id, label, work, task), entries[i +
    // 1] the task and work of cs[i]. Each of the contenders' runs, warm-up
    // included, gets inputs no run has seen (data sets from FRESH_STREAMS
    // up, made on the GPU in its `before`) and a poisoned output, and its
    // result is checked in its `after`, against a reference made after the
    // run, the verdict taken to the host at once: a kernel that remembers a
    // result, however it recognizes the input, is wrong; one that skips work
    // it has done before has none to skip; and none finds a reference or a
    // verdict on the GPU to copy or to change.
    void (*timed_tasks)(const flow_point *at, const contender *cs, int count, timed_entry *entries);
    // After timing: did every run of cs[i] leave a right result? If not,
    // what was wrong ("gave a wrong sum in 3 of 102 runs ..."), into why.
    bool (*timed_right)(const flow_point *at, int i, char *why, size_t len);
    // Fresh values in the exact inputs' buffers, and their reference.
    void (*refill)(const flow_point *at, int block_index);
    // Free what prepare and use_block took.
    void (*release)(void);
} track;

// A step's program: parse the options, open the device, load the learner's
// kernels and have the planner plan every call of the run (plan.h); audit
// the plans (audit.h); then at every size and block, check every kernel on
// guarded and on exact-size inputs, and unless --check time them (each run
// checked too, the graded kernel checked again on refilled inputs); print
// the summary. Returns the exit code.
//
// Both programs of a step link its main.cu, which hands its step to its
// track's TRACK_main (the track's header): that calls step_main with the
// track (defined in the track's file, which only the step's program links:
// the planner gets NULL) and the track's call. The step's program
// (harness.cu) runs the flow above on the track; its planner (planner.cpp)
// plans the learner's functions through the call.
int step_main(int argc, char **argv, const track *t, track_call call, const step_spec *s);

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

// Print one record line for the grader: "kind\tkey=value\tkey=value...".
// The format holds the tab-separated key=value pairs after the kind. Records
// go to the file --records names, which the harness opens before any of the
// step's code runs and nothing else may write (the integrity test forbids
// output and files to the learner's host code; device-side printf reaches
// only stdout); without --records, to stdout, for a person to read.
void print_record(const char *kind, const char *format, ...) __attribute__((format(printf, 2, 3)));

// Size in bytes, as a person reads it: "268.4 MB".
const char *human_bytes(double bytes, char *buf, size_t len);
