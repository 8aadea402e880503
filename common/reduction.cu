// reduction.cu: the reduction track's harness (see reduction.h).
//
// For each size and block size it asks for:
//   1. check: every kernel runs twice on fresh random ints, its output poisoned
//      first. Once on an input followed by a guard of large values, so that a
//      read past the end changes the sum; once on an input allocated to the
//      exact size, so that compute-sanitizer's memcheck sees such a read.
//   2. time (unless --check): a device-to-device copy of the same bytes (the
//      ceiling), the track's first kernel, the step's starting kernel and the
//      learner's (and any given kernel the step compares them with),
//      interleaved, the L2 flushed before each run. The sum of
//      every timed run is kept and checked; a graded rate above
//      PLAUSIBLE_PCT_CEILING of the copy's fails; then the input is refilled
//      with fresh values, in the same buffer, and the graded kernel checked
//      once more (a sum remembered from an earlier call shows here);
//   3. audit (audit.h): one call of the graded kernel, traced with CUPTI,
//      checked against what the step must launch.
//
// Napkin math for the ceiling: a reduction reads 4n bytes and writes nothing
// worth counting, so its best time is 4n bytes over the memory bandwidth. The
// copy moves 8n bytes (read + write) and shows what that bandwidth is on this
// GPU, in this run: on an H100, 2^26 ints (268 MB) copy in about 0.18 ms, so a
// perfect reduction of them takes about 0.09 ms.
#include "reduction.h"

#include "audit.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    POISON_BYTE = 0xAB,         // outputs start as 0xABABABAB (-1414812757) before every run
    GUARD_BYTE = 0x01,          // the guard past the input holds 0x01010101 (16843009) in every int
    GUARD_INTS = 1 << 16,       // ints of guard: more than any plausible overrun
    MAX_VALUE = 1000,           // inputs are 1..MAX_VALUE, less where n is large (see input_bound)
    MIN_BLOCK = 32,
    MAX_BLOCK = 1024,
};
static const int POISON_INT = (int)0xABABABABu;
static const int GUARD_INT = 0x01010101;

// ===========================================================================
// The track's first kernel: interleaved addressing, divergent branching
// ===========================================================================

__global__ void reduce_interleaved_divergent(const int *in, int *out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    partial[tid] = (i < n) ? in[i] : 0;  // past the end, add nothing
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        // Active threads are scattered (every 2s-th): each warp is split by the
        // branch, and % is a slow instruction.
        if (tid % (2 * s) == 0)
            partial[tid] += partial[tid + s];
        __syncthreads();  // this level's sums are written before the next level reads them
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

void sum_interleaved_divergent(const int *d_in, unsigned int n, int block, int *d_work, int *d_sum)
{
    reduce_in_passes(reduce_interleaved_divergent, 1, d_in, n, block, d_work, d_sum);
}

const reduce_kernel track_first_kernel = {"interleaved_divergent", "interleaved, divergent branches",
                                          sum_interleaved_divergent};

// ===========================================================================
// Multi-pass driver
// ===========================================================================

void reduce_in_passes(reduce_pass_kernel kernel, int per_thread, const int *d_in, unsigned int n, int block,
                      int *d_work, int *d_sum)
{
    const int *in = d_in;
    int *out = d_work;
    for (;;) {
        unsigned int grid = ceil_div(n, per_thread * block);
        int *dst = (grid == 1) ? d_sum : out;
        kernel<<<grid, block, block * sizeof(int)>>>(in, dst, n);
        CUDA_CHECK_LAUNCH();
        if (grid == 1)
            return;
        in = dst;  // the next level sums this level's partial sums
        out = dst + grid;
        n = grid;
    }
}

unsigned int reduce_work_ints(unsigned int n, int block)
{
    unsigned int total = 0;
    for (unsigned int m = ceil_div(n, block); m > 1; m = ceil_div(m, block))
        total += m;
    return total;
}

// ===========================================================================
// Inputs and the reference
// ===========================================================================

// Inputs are drawn from 1..bound with n * bound <= INT_MAX, so no partial sum,
// in any order, can overflow an int. All positive: a dropped or doubled
// element always changes the sum.
static int input_bound(unsigned int n)
{
    unsigned int b = INT_MAX / n;
    return b > MAX_VALUE ? MAX_VALUE : (int)b;
}

// Fill h[0..n) for data set `set` of size n; return the exact sum.
static long long fill_input(int *h, unsigned int n, uint64_t seed, int set)
{
    int bound = input_bound(n);
    long long sum = 0;
    for (unsigned int i = 0; i < n; i++) {
        h[i] = 1 + (int)(random_u64(seed, 2ull * n + set, i) % (uint64_t)bound);
        sum += h[i];
    }
    return sum;
}

// ===========================================================================
// Options
// ===========================================================================

static bool block_ok(block_shape b)
{
    return b.y == 1 && b.x >= MIN_BLOCK && b.x <= MAX_BLOCK && (b.x & (b.x - 1)) == 0;
}

// ===========================================================================
// Checking
// ===========================================================================

typedef struct {
    const reduce_kernel *kernel;
    const char *role;
} contender;

typedef struct {
    unsigned int n;
    int block;
    int *d_work;
    unsigned int work_ints;
    int *d_sum;
} run_buffers;

// What a wrong sum suggests, for the learner: a sentence (into buf).
static const char *explain_mismatch(long long expected, int got, bool guarded, unsigned int n, char *buf,
                                    size_t len)
{
    if (got == POISON_INT) {
        snprintf(buf, len, "the result is the poison value 0x%08X: nothing wrote the sum", (unsigned)POISON_INT);
        return buf;
    }
    // A read of the guard adds 16843009 each time (modulo 2^32).
    uint32_t excess = (uint32_t)got - (uint32_t)(int)expected;
    uint32_t reads = (excess + GUARD_INT / 2) / GUARD_INT;
    int32_t rest = (int32_t)(excess - reads * (uint32_t)GUARD_INT);
    if (guarded && reads >= 1 && reads <= GUARD_INTS && (rest < 0 ? -(int64_t)rest : rest) < GUARD_INT / 4)
        snprintf(buf, len,
                 "too large by about %u x %d, the value just past the end of the input: the kernel reads past "
                 "element n-1 = %u",
                 reads, GUARD_INT, n - 1);
    else if (got < expected)
        snprintf(buf, len,
                 "short by %lld: some elements were never added (those past the last full block are a usual "
                 "suspect)",
                 expected - got);
    else
        snprintf(buf, len,
                 "too large by %lld: some elements or partial sums were added twice, or a slot was read before it "
                 "was written",
                 (long long)got - expected);
    return buf;
}

// Run one kernel once on d_in and compare. Returns true if the sum is right.
static bool check_run(const options *opt, const char *step, const contender *c, const int *d_in, long long expected,
                      bool guarded, const run_buffers *buf)
{
    set_activity("checking '%s' [%s] at n=%u, block %d, on the %s input", c->kernel->label, c->role, buf->n,
                 buf->block, guarded ? "guarded" : "exact-size");
    CUDA_CHECK(cudaMemset(buf->d_sum, POISON_BYTE, sizeof(int)));
    if (buf->work_ints)
        CUDA_CHECK(cudaMemset(buf->d_work, POISON_BYTE, buf->work_ints * sizeof(int)));
    c->kernel->sum(d_in, buf->n, buf->block, buf->d_work, buf->d_sum);
    CUDA_CHECK(cudaDeviceSynchronize());  // a fault inside the kernel is reported here
    int got;
    CUDA_CHECK(cudaMemcpy(&got, buf->d_sum, sizeof got, cudaMemcpyDeviceToHost));
    set_activity("%s", "");

    bool ok = (long long)got == expected;
    char hint[256];
    if (opt->machine) {
        if (ok)
            print_record("check", "step=%s\tn=%u\tblock=%d\tid=%s\trole=%s\tinput=%s\tresult=ok", step, buf->n,
                         buf->block, c->kernel->id, c->role, guarded ? "guarded" : "exact");
        else
            print_record("check", "step=%s\tn=%u\tblock=%d\tid=%s\trole=%s\tinput=%s\tresult=mismatch\texpected=%lld"
                                  "\tgot=%d\thint=%s",
                         step, buf->n, buf->block, c->kernel->id, c->role, guarded ? "guarded" : "exact", expected,
                         got, explain_mismatch(expected, got, guarded, buf->n, hint, sizeof hint));
    } else if (!ok) {
        printf("MISMATCH: '%s' [%s] at n=%u, block %d (%s input): sum expected %lld, got %d\n", c->kernel->label,
               c->role, buf->n, buf->block, guarded ? "guarded" : "exact-size", expected, got);
        printf("    hint: %s\n", explain_mismatch(expected, got, guarded, buf->n, hint, sizeof hint));
    }
    return ok;
}

// ===========================================================================
// Timing
// ===========================================================================

typedef struct {
    reduce_fn sum;  // NULL for the copy
    const int *d_in;
    int *d_out;     // the sum, or the copy's destination
    unsigned int n;
    int block;
    int *d_work;
    int *d_kept;    // the sum of each timed round, kept to be checked after timing
} timed_run;

static void run_sum(void *arg)
{
    timed_run *r = (timed_run *)arg;
    r->sum(r->d_in, r->n, r->block, r->d_work, r->d_out);
}

static void poison_sum(void *arg)
{
    timed_run *r = (timed_run *)arg;
    CUDA_CHECK(cudaMemsetAsync(r->d_out, POISON_BYTE, sizeof(int)));
}

// On the GPU, outside the timed span: the sum of this round, kept.
static void keep_sum(void *arg, int round)
{
    timed_run *r = (timed_run *)arg;
    CUDA_CHECK(cudaMemcpyAsync(r->d_kept + round, r->d_out, sizeof(int), cudaMemcpyDeviceToDevice));
}

static void run_copy(void *arg)
{
    timed_run *r = (timed_run *)arg;
    CUDA_CHECK(cudaMemcpyAsync(r->d_out, r->d_in, (size_t)r->n * sizeof(int), cudaMemcpyDeviceToDevice));
}

// Time the copy and every contender on d_in; print the table. Returns the
// number of contenders with a wrong sum in any timed run, plus one if the
// graded kernel (the last of the learner's) is implausibly fast.
static int time_contenders(const options *opt, const reduce_step *step, const contender *cs, int count,
                           const int *d_in, long long expected, const run_buffers *buf)
{
    int entries_count = count + 1;  // the copy comes first
    timed_entry *entries = (timed_entry *)calloc(entries_count, sizeof *entries);
    timed_run *runs = (timed_run *)calloc(entries_count, sizeof *runs);
    int *d_outs, *d_copy, *d_kept;
    double *pct = (double *)calloc(entries_count, sizeof *pct);
    int *kept = (int *)malloc(sizeof(int) * count * opt->reps);
    if (!entries || !runs || !pct || !kept)
        die(EXIT_CUDA, "out of host memory");
    set_activity("allocating buffers for timing at n=%u", buf->n);
    CUDA_CHECK(cudaMalloc(&d_copy, (size_t)buf->n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_outs, sizeof(int) * count));
    CUDA_CHECK(cudaMalloc(&d_kept, sizeof(int) * count * opt->reps));

    double bytes = (double)buf->n * sizeof(int);
    int start = 0;
    runs[0] = (timed_run){NULL, d_in, d_copy, buf->n, buf->block, NULL, NULL};
    entries[0] = (timed_entry){"copy", "ceiling", "device-to-device copy", 2 * bytes, {run_copy, NULL, &runs[0]}};
    for (int i = 0; i < count; i++) {
        runs[i + 1] = (timed_run){cs[i].kernel->sum, d_in, d_outs + i, buf->n, buf->block, buf->d_work,
                                  d_kept + i * opt->reps};
        entries[i + 1] = (timed_entry){cs[i].kernel->id, cs[i].role, cs[i].kernel->label, bytes,
                                       {run_sum, poison_sum, &runs[i + 1], keep_sum}};
        if (strcmp(cs[i].role, "start") == 0)
            start = i + 1;
    }
    char config[160];
    snprintf(config, sizeof config, "step=%s\tn=%u\tblock=%d\treps=%d", step->step, buf->n, buf->block, opt->reps);
    set_activity("timing at n=%u, block %d", buf->n, buf->block);
    time_and_report(opt, config, entries, entries_count, start, "GB/s", "copy", pct);

    // Every timed run of each kernel must have left the right sum too.
    int wrong = 0;
    CUDA_CHECK(cudaMemcpy(kept, d_kept, sizeof(int) * count * opt->reps, cudaMemcpyDeviceToHost));
    for (int i = 0; i < count; i++) {
        int bad = 0, first = -1;
        for (int r = 0; r < opt->reps; r++)
            if ((long long)kept[i * opt->reps + r] != expected && bad++ == 0)
                first = r;
        if (bad) {
            wrong++;
            fprintf(opt->machine ? stderr : stdout,
                    "MISMATCH: '%s' [%s] gave a wrong sum in %d of %d timed runs (run %d: %d instead of %lld): it "
                    "depends on state an earlier run left behind\n",
                    cs[i].kernel->label, cs[i].role, bad, opt->reps, first + 1, kept[i * opt->reps + first], expected);
        }
    }
    // A graded rate beyond the copy's: the timed call did not read the input.
    int graded = count;  // entry of the last of the learner's kernels
    while (graded > 0 && strcmp(cs[graded - 1].role, "yours") != 0)
        graded--;
    if (graded > 0 && rate_implausible(opt, cs[graded - 1].kernel->label, pct[graded], "copy"))
        wrong++;
    set_activity("%s", "");

    CUDA_CHECK(cudaFree(d_copy));
    CUDA_CHECK(cudaFree(d_outs));
    CUDA_CHECK(cudaFree(d_kept));
    free(kept);
    free(pct);
    free(entries);
    free(runs);
    return wrong;
}

// ===========================================================================
// After timing: fresh inputs, and the audit
// ===========================================================================

// Refill d_in (n ints) with data set `set`, in place, and check the graded
// kernel on it: a kernel that remembers a sum from an earlier call on the same
// buffer gives the old one. Updates *expected to the new sum; returns 1 if wrong.
static int check_refilled(const options *opt, const char *step, const contender *graded, int *d_in, int set,
                          long long *expected, const run_buffers *buf)
{
    int *h = (int *)malloc((size_t)buf->n * sizeof(int));
    if (!h)
        die(EXIT_USAGE, "cannot allocate %zu bytes of host memory for n=%u", (size_t)buf->n * sizeof(int), buf->n);
    set_activity("refilling the input at n=%u", buf->n);
    *expected = fill_input(h, buf->n, opt->seed, set);
    CUDA_CHECK(cudaMemcpy(d_in, h, (size_t)buf->n * sizeof(int), cudaMemcpyHostToDevice));
    free(h);
    if (check_run(opt, step, graded, d_in, *expected, false, buf))
        return 0;
    fprintf(opt->machine ? stderr : stdout,
            "MISMATCH: '%s' [yours] was wrong once the input buffer held fresh values: does it remember a sum from an "
            "earlier call?\n",
            graded->kernel->label);
    return 1;
}

// One traced call of the graded kernel (audit.h). Returns the findings, plus
// one if that call's sum is wrong.
static int audit_graded(const options *opt, const char *step, const contender *graded, const int *d_in,
                        long long expected, const run_buffers *buf)
{
    if (!audit_available())
        return 0;
    set_activity("auditing the launches of '%s' at n=%u, block %d", graded->kernel->label, buf->n, buf->block);
    CUDA_CHECK(cudaMemset(buf->d_sum, POISON_BYTE, sizeof(int)));
    if (buf->work_ints)
        CUDA_CHECK(cudaMemset(buf->d_work, POISON_BYTE, buf->work_ints * sizeof(int)));
    static audit_trace trace;  // large: kept off the stack
    audit_begin();
    graded->kernel->sum(d_in, buf->n, buf->block, buf->d_work, buf->d_sum);
    audit_end(&trace);
    int got;
    CUDA_CHECK(cudaMemcpy(&got, buf->d_sum, sizeof got, cudaMemcpyDeviceToHost));
    set_activity("%s", "");
    audit_call call = {step, buf->n, {buf->block, 1}};
    int findings = audit_report(opt, &call, &trace);
    if ((long long)got != expected) {
        findings++;
        fprintf(opt->machine ? stderr : stdout, "MISMATCH: the audited call of '%s' gave %d instead of %lld\n",
                graded->kernel->label, got, expected);
    }
    return findings;
}

// ===========================================================================
// main
// ===========================================================================

int reduction_main(int argc, char **argv, const reduce_step *step)
{
    option_spec spec = {step->step,
                        step->summary,
                        "ints to sum",
                        1ull << 26,
                        1ull << 30,
                        {256, 1},
                        false,
                        "a power of two, 32 to 1024",
                        block_ok,
                        100};
    options opt;
    parse_options(argc, argv, &spec, &opt);
    const device_info *dev = open_device();
    print_device(&opt, step->step);

    // Who runs: in --check mode only the learner's kernels (and the variant
    // past the lesson); when timing, everything that will be timed.
    contender cs[16];
    int count = 0;
    if (!opt.check_only) {
        if (step->start.sum != track_first_kernel.sum)
            cs[count++] = (contender){&track_first_kernel, "first"};
        cs[count++] = (contender){&step->start, "start"};
        for (int i = 0; i < step->compare_count; i++)
            cs[count++] = (contender){&step->compare[i], "given"};
    }
    for (int i = 0; i < step->yours_count; i++)
        cs[count++] = (contender){&step->yours[i], "yours"};
    if (step->beyond.sum)
        cs[count++] = (contender){&step->beyond, "beyond"};
    if (step->library.sum && !opt.check_only)
        cs[count++] = (contender){&step->library, "library"};

    const contender *graded = &cs[count - 1];  // the last of the learner's kernels
    while (strcmp(graded->role, "yours") != 0)
        graded--;

    int failures = 0, runs = 0, findings = 0;
    for (int s = 0; s < opt.size_count; s++) {
        unsigned int n = (unsigned int)opt.sizes[s];
        size_t bytes = (size_t)n * sizeof(int);
        // Exact + guarded inputs, the copy's destination, partial sums.
        require_device_memory(3 * bytes + GUARD_INTS * sizeof(int) + bytes / 16, "this size");

        int *h_in = (int *)malloc(bytes);
        if (!h_in)
            die(EXIT_USAGE, "cannot allocate %zu bytes of host memory for n=%u: choose a smaller --size", bytes, n);
        int *d_guarded, *d_exact, *d_sum;
        set_activity("preparing the inputs for n=%u", n);
        CUDA_CHECK(cudaMalloc(&d_guarded, bytes + GUARD_INTS * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_exact, bytes));
        CUDA_CHECK(cudaMalloc(&d_sum, sizeof(int)));
        long long expected_guarded = fill_input(h_in, n, opt.seed, 0);
        CUDA_CHECK(cudaMemcpy(d_guarded, h_in, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_guarded + n, GUARD_BYTE, GUARD_INTS * sizeof(int)));
        long long expected_exact = fill_input(h_in, n, opt.seed, 1);
        CUDA_CHECK(cudaMemcpy(d_exact, h_in, bytes, cudaMemcpyHostToDevice));
        free(h_in);

        for (int b = 0; b < opt.block_count; b++) {
            int block = opt.blocks[b].x;
            run_buffers buf = {n, block, NULL, reduce_work_ints(n, block), d_sum};
            if (buf.work_ints)
                CUDA_CHECK(cudaMalloc(&buf.d_work, buf.work_ints * sizeof(int)));

            int wrong = 0;
            for (int i = 0; i < count; i++) {
                wrong += !check_run(&opt, step->step, &cs[i], d_guarded, expected_guarded, true, &buf);
                wrong += !check_run(&opt, step->step, &cs[i], d_exact, expected_exact, false, &buf);
            }
            runs += 2 * count;
            failures += wrong;

            if (!opt.check_only && wrong == 0) {
                if (!opt.machine) {
                    char size[32], l2[32];
                    human_bytes((double)bytes, size, sizeof size);
                    human_bytes((double)dev->l2_bytes, l2, sizeof l2);
                    printf("\nn = %u ints (%s, %.1fx the %s L2), block %d, %d repetitions; all %d kernels correct\n",
                           n, size, (double)bytes / dev->l2_bytes, l2, block, opt.reps, count);
                }
                failures += time_contenders(&opt, step, cs, count, d_exact, expected_exact, &buf);
                failures += check_refilled(&opt, step->step, graded, d_exact, 2 + b, &expected_exact, &buf);
            }
            if (wrong == 0)
                findings += audit_graded(&opt, step->step, graded, d_exact, expected_exact, &buf);
            if (buf.d_work)
                CUDA_CHECK(cudaFree(buf.d_work));
        }
        CUDA_CHECK(cudaFree(d_guarded));
        CUDA_CHECK(cudaFree(d_exact));
        CUDA_CHECK(cudaFree(d_sum));
    }

    if (opt.machine)
        print_record("summary", "step=%s\truns=%d\twrong=%d\taudit_findings=%d\tseed=%llu\tresult=%s", step->step, runs,
                     failures, findings, opt.seed, failures ? "mismatch" : findings ? "audit" : "correct");
    else if (opt.check_only || failures)
        printf("%s: %d of %d checked runs wrong (%d sizes x %d block sizes, guarded and exact-size inputs)\n",
               failures ? "FAILED" : "correct", failures, runs, opt.size_count, opt.block_count);
    if (findings && !opt.machine)
        printf("FAILED: the launch audit found %d problem(s): see the AUDIT lines above\n", findings);
    return failures || findings ? EXIT_MISMATCH : EXIT_CORRECT;
}
