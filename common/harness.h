// harness.h: what every exercise program shares, whichever track it is in.
//
//   - exit codes and the one error-check macro (CUDA_CHECK) used on every CUDA call;
//   - the command line: the same options for every step (see print_usage);
//   - the device: opened once, described once, refused with exit 77 if unusable;
//   - timing: CUDA events, warm-up, every contender interleaved in each
//     repetition, the L2 cache flushed before each run, median and quartiles;
//   - output: a table for people, tab-separated key=value records for the grader.
//
// The two tracks build on it in reduction.h and matmul.h; a step's own main.cu
// only names its kernels.
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

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------
#define MAX_LIST 32  // most sizes or block shapes one run accepts

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
    bool machine;     // --machine: records for the grader instead of a table
} options;

// What one program accepts; filled in by the track (reduction.cu, matmul.cu).
typedef struct {
    const char *step;            // "04-reduction-interleaved"
    const char *summary;         // one line for --help
    const char *size_meaning;    // "ints to sum" / "rows (= columns) of the matrices"
    unsigned long long default_size, max_size;
    block_shape default_block;
    bool block_2d;               // accept "32x8" as well as "256"
    const char *block_rule;      // for --help and errors: "a power of two, 32 to 1024"
    bool (*block_ok)(block_shape b);
    int default_reps;
} option_spec;

// Parse argv. Exits 0 after --help, 2 with a one-line reason on a bad option.
// Touches no CUDA API: a bad option never waits for (or needs) a GPU.
void parse_options(int argc, char **argv, const option_spec *spec, options *opt);

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

// Open the current device and make sure this build has code for it.
// Exits 77 with one line when there is no usable device.
const device_info *open_device(void);
const device_info *current_device(void);  // after open_device()

// Exit 2 with a clear reason if `bytes` of device memory cannot be had.
void require_device_memory(size_t bytes, const char *what);

// ---------------------------------------------------------------------------
// Random inputs: a counter-based generator, so that element i of data set
// (seed, stream) is the same on every machine and in every order.
// ---------------------------------------------------------------------------
uint64_t random_u64(uint64_t seed, uint64_t stream, uint64_t index);

// ---------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------
// One thing to time. `run` enqueues one run on the default stream; `before`
// (optional) enqueues what must precede every run but not be timed, such as
// poisoning the output; `after` (optional) enqueues what must follow every
// timed run but not be timed, such as keeping its output to check it later
// (`round` counts the timed rounds from 0; warm-up runs have no `after`).
typedef struct {
    void (*run)(void *arg);
    void (*before)(void *arg);
    void *arg;
    void (*after)(void *arg, int round);
} timed_task;

typedef struct {
    double median_ms, q1_ms, q3_ms;
} timing;

// ---------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------

// One row of a timed table: what runs, and what it is called.
typedef struct {
    const char *id;     // short, stable, no spaces: what the grader matches
    const char *role;   // ceiling, first, start, given, yours, beyond, library
    const char *label;  // what a person reads
    double work;        // bytes moved or flops done per run: the rate is work / time
    timed_task task;
} timed_entry;

// Time the entries and print the table (or, with --machine, a record per row).
// `config` starts every record ("n=1024\tblock=256"); `rate_unit` is "GB/s" or
// "GFLOP/s"; `ceiling_name` heads the percentage column ("copy", "cuBLAS").
//
// First a few untimed rounds, then opt->reps rounds in which every entry runs
// once, in an order rotated each round so that none always goes first. Each
// run is preceded by a flush of the L2 cache, so that no run finds its inputs
// left in the cache by the one before, and so that the GPU is busy while the
// host enqueues the run: launch overhead on the host stays out of the figures.
//
// Entry 0 is the ceiling, entry 1 the track's first kernel, entry `start` the
// step's starting kernel. Rates are work per second (GB/s or GFLOP/s, with
// work in bytes or flops); shares are of the ceiling measured in this run;
// speedups are the median over rounds of the paired ratio of times, so that
// drift in clocks or temperature over the run cancels out.
//
// pct_ceiling (NULL: not wanted) receives each entry's rate as a percentage
// of the ceiling's, for the plausibility gate.
void time_and_report(const options *opt, const char *config, const timed_entry *entries, int count, int start,
                     const char *rate_unit, const char *ceiling_name, double *pct_ceiling);

// A graded rate above this share of the ceiling measured in the same run did
// not come from the timed call doing the work (a copy cannot be beaten by more
// than noise: a reduction reads half of what it moves, at the same rate).
#define PLAUSIBLE_PCT_CEILING 105.0

// The gate: true, after saying so, when the graded kernel (`label`) ran above
// PLAUSIBLE_PCT_CEILING of the ceiling (`ceiling_name`: "cuBLAS", "copy").
// Under ncu or compute-sanitizer (the launch audit is off then) kernels are
// replayed or instrumented: their times say nothing, so neither does the gate.
bool rate_implausible(const options *opt, const char *label, double pct_of_ceiling, const char *ceiling_name);

// Print the device header (table) or the device record (--machine).
void print_device(const options *opt, const char *step);

// Print one record line for the grader: "kind\tkey=value\tkey=value...".
// The format holds the tab-separated key=value pairs after the kind.
void print_record(const char *kind, const char *format, ...) __attribute__((format(printf, 2, 3)));

// Size in bytes, as a person reads it: "268.4 MB".
const char *human_bytes(double bytes, char *buf, size_t len);
