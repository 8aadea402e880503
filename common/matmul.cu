// matmul.cu: the matrix-multiplication track's harness (see matmul.h).
//
// For each size N and block shape it asks for:
//   1. the reference: cuBLAS SGEMM in plain fp32, itself checked against a
//      double-precision product on the host (every row for small N, a sample
//      of rows for large N);
//   2. check: every kernel runs twice on random inputs in [-1, 1), C poisoned
//      first. Once with guards after A, B and C -- NaNs after the inputs, so a
//      read past the end spoils a result; a poison after C, which must come
//      back untouched -- and once on buffers of exactly N*N floats, where
//      compute-sanitizer's memcheck sees any access out of bounds. The error
//      allowed is a relative Frobenius norm of 1e-4: fp32 products of any order
//      land near 1e-6, while a dropped term, a wrong index or TF32 arithmetic
//      (about 3e-4) land above. And each element on its own must lie within
//      the bound of fp32 error analysis (element_bound_factor), so that one
//      element that lost a term cannot hide in the norm of a million;
//   3. time (unless --check): cuBLAS (the ceiling), the track's first kernel,
//      the step's starting kernel, the learner's, interleaved, the L2 flushed
//      before each run. The product of every timed run is compared with the
//      reference on the GPU, element by element, outside the timed span; a
//      graded rate above PLAUSIBLE_PCT_CEILING of cuBLAS's fails; then A and B
//      are refilled with fresh values, in the same buffers, and the graded
//      kernel checked once more;
//   4. audit (audit.h): one call of the graded kernel, traced with CUPTI,
//      checked against what the step must launch.
//
// Napkin math for the ceiling: C = A * B does 2 N^3 flops (a multiply and an
// add per term, N terms per element, N^2 elements) on 12 N^2 bytes: at N =
// 2048, 17.2 GFLOP on 50 MB. An H100 does about 60 TFLOP/s in fp32 and moves
// 3 TB/s, so the floor is 0.29 ms of arithmetic against 0.02 ms of memory:
// compute-bound, if the kernel reads each input element from DRAM only a few
// times. The naive kernels read each element N times.
#include "matmul.h"

#include "audit.h"

#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double MAX_RELATIVE_ERROR = 1e-4;
enum {
    POISON_BYTE = 0xFF,  // 0xFFFFFFFF is a NaN: an element nobody wrote stays NaN
    MAX_N = 16384,
    SAMPLED_ROWS = 16,   // rows of cuBLAS's result checked on the host when N is large
};

#define CUBLAS_CHECK(call) cublas_check((call), #call, __FILE__, __LINE__)

static void cublas_check(cublasStatus_t status, const char *call, const char *file, int line)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    fprintf(stderr, "cuBLAS error %s: %s\n  at %s:%d: %s\n", cublasGetStatusName(status),
            cublasGetStatusString(status), file, line, call);
    exit(EXIT_CUDA);
}

// ===========================================================================
// The track's first kernel: naive, uncoalesced, accumulating in global memory
// ===========================================================================

__global__ void matmul_uncoalesced(const float *A, const float *B, float *C, int n)
{
    // threadIdx.x picks the row: the threads of a warp read rows of A N floats
    // apart -- a separate 32-byte sector each -- and update elements of C a row
    // apart. With 16x16 blocks a warp is 16 rows by 2 columns: 16 sectors for A
    // and for C, one for the 2 floats of B.
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n)
        for (int k = 0; k < n; k++)
            C[row * n + col] += A[row * n + k] * B[k * n + col];
}

void run_uncoalesced(const float *A, const float *B, float *C, int n, block_shape block)
{
    CUDA_CHECK(cudaMemsetAsync(C, 0, (size_t)n * n * sizeof(float)));  // the kernel adds onto C
    dim3 threads(block.x, block.y);
    dim3 grid(ceil_div(n, block.x), ceil_div(n, block.y));
    matmul_uncoalesced<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

const matmul_kernel matmul_track_first = {"uncoalesced", "naive, uncoalesced (row from threadIdx.x)",
                                          run_uncoalesced};

// In the later steps the track's first kernel runs as step 01 times it, with
// 16x16 blocks, whatever the step's block: wider blocks only make it slower
// (at 32x32 a warp spans 32 rows of A and of C), and the speedup over it would
// flatter every step after.
static void run_uncoalesced_as_in_step_01(const float *A, const float *B, float *C, int n, block_shape block)
{
    run_uncoalesced(A, B, C, n, (block_shape){16, 16});
}

static const matmul_kernel track_first_as_in_step_01 = {"uncoalesced", "naive, uncoalesced, 16x16 as in step 01",
                                                        run_uncoalesced_as_in_step_01};

// ===========================================================================
// cuBLAS: the reference and the ceiling
// ===========================================================================

static cublasHandle_t cublas;

// Row-major C = A * B is column-major C^T = B^T * A^T: the same call with the
// operands swapped, and no transposition at all.
static void run_cublas(const float *A, const float *B, float *C, int n, block_shape block)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n));
}

static const matmul_kernel cublas_kernel = {"cublas", "cuBLAS SGEMM, fp32", run_cublas};

// ===========================================================================
// The bound on each element
// ===========================================================================
// fp32 error analysis: a dot product of n terms, computed in any order with
// each product and sum rounded to unit roundoff u = 2^-24, is off from the
// exact one by at most gamma_n * sum_k |a_k| |b_k|, gamma_n = n u / (1 - n u).
// The learner's kernel and cuBLAS each are, so they differ by at most twice
// that; |A| |B| is itself computed in fp32, low by at most gamma_n, which the
// last factor covers.
static double element_bound_factor(int n)
{
    double u = ldexp(1.0, -24), gamma = n * u / (1.0 - n * u);
    return 2.0 * gamma * (1.0 + 2.0 * gamma);
}

__global__ void abs_copy(const float *in, float *out, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        out[i] = fabsf(in[i]);
}

// abs_ab = |A| |B|, with cuBLAS; scratch holds 2 n^2 floats.
static void abs_product(const float *A, const float *B, float *abs_ab, float *scratch, int n)
{
    size_t count = (size_t)n * n;
    abs_copy<<<4 * current_device()->sm_count, 256>>>(A, scratch, count);
    CUDA_CHECK_LAUNCH();
    abs_copy<<<4 * current_device()->sm_count, 256>>>(B, scratch + count, count);
    CUDA_CHECK_LAUNCH();
    run_cublas(scratch, scratch + count, abs_ab, n, (block_shape){1, 1});
}

// Counts into *off the elements of C off the reference by more than the bound (NaN included).
__global__ void count_off_elements(const float *C, const float *ref, const float *abs_ab, float factor, size_t count,
                                   unsigned int *off)
{
    unsigned int mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        if (!(fabsf(C[i] - ref[i]) <= factor * abs_ab[i]))
            mine++;
    if (mine)
        atomicAdd(off, mine);
}

// ===========================================================================
// Inputs, the host check of cuBLAS, the comparison
// ===========================================================================

static void fill_matrix(float *h, int n, uint64_t seed, uint64_t stream)
{
    for (size_t i = 0; i < (size_t)n * n; i++)  // [-1, 1) in steps of 2^-23
        h[i] = (float)(random_u64(seed, stream, i) >> 40) * (1.0f / (1 << 23)) - 1.0f;
}

// Compare cuBLAS's C with a double-precision product on some rows.
static void check_reference(const float *hA, const float *hB, const float *hC, int n)
{
    int rows = n <= 64 ? n : SAMPLED_ROWS;
    double err = 0, norm = 0;
    double *row_out = (double *)malloc(sizeof(double) * n);
    if (!row_out)
        die(EXIT_CUDA, "out of host memory");
    for (int s = 0; s < rows; s++) {
        int r = rows == n ? s : (int)((long long)s * (n - 1) / (rows - 1));  // spread, first and last included
        for (int c = 0; c < n; c++)
            row_out[c] = 0;
        for (int k = 0; k < n; k++) {
            double a = hA[(size_t)r * n + k];
            for (int c = 0; c < n; c++)
                row_out[c] += a * hB[(size_t)k * n + c];
        }
        for (int c = 0; c < n; c++) {
            double d = hC[(size_t)r * n + c] - row_out[c];
            err += d * d;
            norm += row_out[c] * row_out[c];
        }
    }
    free(row_out);
    double rel = sqrt(err / norm);
    if (!(rel <= MAX_RELATIVE_ERROR))
        die(EXIT_CUDA,
            "the reference itself is off: cuBLAS's product differs from the host's by %.2e (relative) at N=%d. "
            "Is NVIDIA_TF32_OVERRIDE set?",
            rel, n);
}

typedef struct {
    double relative_error;
    long long over_bound;            // elements off by more than fp32 error analysis allows, or NaN
    long long wrong;                 // elements off by more than a thousandth of the typical size, or NaN
    int first_row, first_col;        // the first of them in memory order (or the worst, if none)
    float expected, got;
    int row_min, row_max, col_min, col_max;  // where the wrong ones are
} comparison;

// abs_ab: |A| |B|, for the bound on each element.
static comparison compare(const float *C, const float *ref, const float *abs_ab, int n)
{
    comparison cmp = {0, 0, 0, -1, -1, 0, 0, n, -1, n, -1};
    double factor = element_bound_factor(n);
    double err = 0, norm = 0;
    size_t count = (size_t)n * n;
    for (size_t i = 0; i < count; i++)
        norm += (double)ref[i] * ref[i];
    double element_limit = 1e-3 * sqrt(norm / count);
    double worst = -1;
    size_t worst_at = 0;
    for (size_t i = 0; i < count; i++) {
        double d = (double)C[i] - ref[i];
        err += d * d;
        bool over_bound = !(fabs(d) <= factor * abs_ab[i]);
        cmp.over_bound += over_bound;
        bool wrong = isnan(C[i]) || fabs(d) > element_limit || over_bound;
        if (isnan(d) || fabs(d) > worst) {
            worst = isnan(d) ? INFINITY : fabs(d);
            worst_at = i;
        }
        if (!wrong)
            continue;
        int r = (int)(i / n), c = (int)(i % n);
        if (cmp.wrong++ == 0) {
            cmp.first_row = r;
            cmp.first_col = c;
        }
        cmp.row_min = r < cmp.row_min ? r : cmp.row_min;
        cmp.row_max = r > cmp.row_max ? r : cmp.row_max;
        cmp.col_min = c < cmp.col_min ? c : cmp.col_min;
        cmp.col_max = c > cmp.col_max ? c : cmp.col_max;
    }
    cmp.relative_error = sqrt(err / norm);
    if (cmp.first_row < 0) {  // nothing far off: show the worst
        cmp.first_row = (int)(worst_at / n);
        cmp.first_col = (int)(worst_at % n);
    }
    size_t at = (size_t)cmp.first_row * n + cmp.first_col;
    cmp.expected = ref[at];
    cmp.got = C[at];
    return cmp;
}

// ===========================================================================
// Checking
// ===========================================================================

typedef struct {
    const matmul_kernel *kernel;
    const char *role;
} contender;

typedef struct {
    float *A, *B, *C;
    size_t guard;  // floats after each matrix (0: exact-size buffers)
} buffers;

// What a wrong product suggests, for the learner: a sentence (into buf), or "".
static const char *explain(const comparison *cmp, int n, size_t written_past_end, char *buf, size_t len)
{
    buf[0] = '\0';
    if (written_past_end)
        snprintf(buf, len, "threads outside the matrix wrote past the end of C: a missing bounds check?");
    else if (isnan(cmp->got))
        snprintf(buf, len, "NaN: the poison C is filled with, so nothing wrote it -- or a read past the end of A or "
                           "B, which are followed by NaNs");
    else if (cmp->col_min > 0 && cmp->col_max == n - 1 && cmp->row_min == 0 && cmp->row_max == n - 1)
        snprintf(buf, len, "only columns %d..%d are wrong: look at the blocks on the right edge (a bounds check?)",
                 cmp->col_min, cmp->col_max);
    else if (cmp->row_min > 0 && cmp->row_max == n - 1 && cmp->col_min == 0 && cmp->col_max == n - 1)
        snprintf(buf, len, "only rows %d..%d are wrong: look at the blocks on the bottom edge (a bounds check?)",
                 cmp->row_min, cmp->row_max);
    else if (cmp->wrong == 0)
        snprintf(buf, len, "no element far off, but all a little: reduced precision (TF32, half)?");
    return buf;
}

static bool check_run(const options *opt, const char *step, const contender *c, const buffers *buf, const float *ref,
                      const float *abs_ab, float *hC, int n, block_shape block)
{
    size_t count = (size_t)n * n;
    const char *input = buf->guard ? "guarded" : "exact";
    set_activity("checking '%s' [%s] at N=%d, block %dx%d, on the %s buffers", c->kernel->label, c->role, n, block.x,
                 block.y, buf->guard ? "guarded" : "exact-size");
    CUDA_CHECK(cudaMemset(buf->C, POISON_BYTE, (count + buf->guard) * sizeof(float)));
    c->kernel->run(buf->A, buf->B, buf->C, n, block);
    CUDA_CHECK(cudaDeviceSynchronize());  // a fault inside the kernel is reported here
    CUDA_CHECK(cudaMemcpy(hC, buf->C, (count + buf->guard) * sizeof(float), cudaMemcpyDeviceToHost));
    set_activity("%s", "");

    comparison cmp = compare(hC, ref, abs_ab, n);
    bool ok = cmp.relative_error <= MAX_RELATIVE_ERROR && cmp.over_bound == 0;  // false for NaN
    size_t overwritten = 0, first_over = 0;
    for (size_t i = 0; i < buf->guard; i++) {
        uint32_t bits;
        memcpy(&bits, &hC[count + i], sizeof bits);
        if (bits != 0xFFFFFFFFu && overwritten++ == 0)
            first_over = i;
    }
    ok = ok && overwritten == 0;

    char hint[256];
    if (opt->machine) {
        if (ok)
            print_record("check", "step=%s\tn=%d\tblock=%dx%d\tid=%s\trole=%s\tinput=%s\tresult=ok\terror=%.3e", step, n,
                         block.x, block.y, c->kernel->id, c->role, input, cmp.relative_error);
        else
            print_record("check", "step=%s\tn=%d\tblock=%dx%d\tid=%s\trole=%s\tinput=%s\tresult=mismatch\terror=%.3e"
                                  "\trow=%d\tcol=%d\texpected=%.6g\tgot=%.6g\twrong=%lld\tover_bound=%lld\twritten_past_end=%zu\thint=%s",
                         step, n, block.x, block.y, c->kernel->id, c->role, input, cmp.relative_error, cmp.first_row,
                         cmp.first_col, cmp.expected, cmp.got, cmp.wrong, cmp.over_bound, overwritten,
                         explain(&cmp, n, overwritten, hint, sizeof hint));
        return ok;
    }
    if (ok)
        return true;
    printf("MISMATCH: '%s' [%s] at N=%d, block %dx%d (%s buffers): relative error %.2e (at most %.0e allowed)\n",
           c->kernel->label, c->role, n, block.x, block.y, buf->guard ? "guarded" : "exact-size", cmp.relative_error,
           MAX_RELATIVE_ERROR);
    if (cmp.wrong)
        printf("    %lld of %zu elements wrong, in rows %d..%d and columns %d..%d; the first: C[%d][%d] expected %.6g, "
               "got %.6g\n",
               cmp.wrong, count, cmp.row_min, cmp.row_max, cmp.col_min, cmp.col_max, cmp.first_row, cmp.first_col,
               cmp.expected, cmp.got);
    else if (cmp.relative_error > MAX_RELATIVE_ERROR)
        printf("    no element far off, but all a little: the worst, C[%d][%d], expected %.8g, got %.8g\n",
               cmp.first_row, cmp.first_col, cmp.expected, cmp.got);
    if (cmp.over_bound)
        printf("    %lld elements off by more than fp32 rounding allows (%.1e x sum |a||b| each)\n", cmp.over_bound,
               element_bound_factor(n));
    if (overwritten)
        printf("    %zu floats written past the end of C (the first %zu past it)\n", overwritten, first_over);
    if (*explain(&cmp, n, overwritten, hint, sizeof hint))
        printf("    hint: %s\n", hint);
    return false;
}

// ===========================================================================
// Timing
// ===========================================================================

// The reference on the GPU as well, so that every timed run can be checked
// there, outside the timed span, without a copy of C to the host each time.
typedef struct {
    const float *ref, *abs_ab;  // the product and |A| |B|, in device memory
    float factor;               // element_bound_factor(n)
} device_reference;

typedef struct {
    matmul_fn run;
    const float *A, *B;
    float *C;
    int n;
    block_shape block;
    const device_reference *check;
    unsigned int *off;  // NULL (the ceiling), or a count per timed round: elements off the bound
} timed_run;

static void run_task(void *arg)
{
    timed_run *r = (timed_run *)arg;
    r->run(r->A, r->B, r->C, r->n, r->block);
}

static void poison_task(void *arg)
{
    timed_run *r = (timed_run *)arg;
    CUDA_CHECK(cudaMemsetAsync(r->C, POISON_BYTE, (size_t)r->n * r->n * sizeof(float)));
}

static void check_round(void *arg, int round)
{
    timed_run *r = (timed_run *)arg;
    count_off_elements<<<4 * current_device()->sm_count, 256>>>(r->C, r->check->ref, r->check->abs_ab, r->check->factor,
                                                                (size_t)r->n * r->n, r->off + round);
    CUDA_CHECK_LAUNCH();
}

// Time cuBLAS and every contender; print the table. Returns how many left a
// wrong C in any timed run, plus one if the graded kernel (the last of the
// learner's) is implausibly fast.
static int time_contenders(const options *opt, const matmul_step *step, const contender *cs, int count,
                           const buffers *buf, const float *ref, const float *abs_ab, const device_reference *check,
                           float *hC, int n, block_shape block)
{
    int entries_count = count + 1;  // cuBLAS first
    timed_entry *entries = (timed_entry *)calloc(entries_count, sizeof *entries);
    timed_run *runs = (timed_run *)calloc(entries_count, sizeof *runs);
    float **outputs = (float **)calloc(entries_count, sizeof *outputs);
    double *pct = (double *)calloc(entries_count, sizeof *pct);
    unsigned int *off = (unsigned int *)calloc((size_t)count * opt->reps, sizeof *off), *d_off;
    if (!entries || !runs || !outputs || !pct || !off)
        die(EXIT_CUDA, "out of host memory");
    size_t bytes = (size_t)n * n * sizeof(float);
    double flops = 2.0 * n * (double)n * n;
    int start = 0;
    set_activity("allocating an output per kernel for timing at N=%d", n);
    CUDA_CHECK(cudaMalloc(&d_off, sizeof *d_off * count * opt->reps));
    CUDA_CHECK(cudaMemset(d_off, 0, sizeof *d_off * count * opt->reps));
    for (int i = 0; i < entries_count; i++) {
        CUDA_CHECK(cudaMalloc(&outputs[i], bytes));
        const matmul_kernel *k = i == 0 ? &cublas_kernel : cs[i - 1].kernel;
        runs[i] = (timed_run){k->run, buf->A, buf->B, outputs[i], n, block, check,
                              i == 0 ? NULL : d_off + (size_t)(i - 1) * opt->reps};
        entries[i] = (timed_entry){k->id, i == 0 ? "ceiling" : cs[i - 1].role, k->label, flops,
                                   {run_task, poison_task, &runs[i], i == 0 ? NULL : check_round}};
        if (i > 0 && strcmp(cs[i - 1].role, "start") == 0)
            start = i;
    }
    char config[160];
    snprintf(config, sizeof config, "step=%s\tn=%d\tblock=%dx%d\treps=%d", step->step, n, block.x, block.y, opt->reps);
    set_activity("timing at N=%d, block %dx%d", n, block.x, block.y);
    time_and_report(opt, config, entries, entries_count, start, "GFLOP/s", "cuBLAS", pct);

    // Every timed run must have left a right product: each element within the
    // bound (counted on the GPU after each run), and the last run's C within
    // the norm too.
    int wrong = 0;
    CUDA_CHECK(cudaMemcpy(off, d_off, sizeof *off * count * opt->reps, cudaMemcpyDeviceToHost));
    for (int i = 1; i < entries_count; i++) {
        int bad = 0, first = -1;
        for (int r = 0; r < opt->reps; r++)
            if (off[(size_t)(i - 1) * opt->reps + r] && bad++ == 0)
                first = r;
        CUDA_CHECK(cudaMemcpy(hC, outputs[i], bytes, cudaMemcpyDeviceToHost));
        comparison cmp = compare(hC, ref, abs_ab, n);
        if (bad || !(cmp.relative_error <= MAX_RELATIVE_ERROR)) {
            wrong++;
            fprintf(opt->machine ? stderr : stdout,
                    "MISMATCH: '%s' [%s] left a wrong C in %d of %d timed runs (run %d: %u elements off), relative "
                    "error %.2e after the last: it depends on state an earlier run left behind\n",
                    cs[i - 1].kernel->label, cs[i - 1].role, bad, opt->reps, first + 1,
                    first < 0 ? 0 : off[(size_t)(i - 1) * opt->reps + first], cmp.relative_error);
        }
    }
    int graded = count;  // entry of the last of the learner's kernels
    while (graded > 0 && strcmp(cs[graded - 1].role, "yours") != 0)
        graded--;
    if (graded > 0 && rate_implausible(opt, cs[graded - 1].kernel->label, pct[graded], "cuBLAS"))
        wrong++;
    set_activity("%s", "");

    for (int i = 0; i < entries_count; i++)
        CUDA_CHECK(cudaFree(outputs[i]));
    CUDA_CHECK(cudaFree(d_off));
    free(outputs);
    free(entries);
    free(runs);
    free(pct);
    free(off);
    return wrong;
}

// ===========================================================================
// main
// ===========================================================================

static bool any_block_ok(block_shape b)
{
    return b.x >= 1 && b.y >= 1 && b.x * b.y <= 1024;
}

static bool tile_block_ok(block_shape b)
{
    return b.x == b.y && (b.x == 8 || b.x == 16 || b.x == 32);
}

static void alloc_buffers(buffers *buf, int n, size_t guard)
{
    size_t count = (size_t)n * n + guard;
    buf->guard = guard;
    CUDA_CHECK(cudaMalloc(&buf->A, count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&buf->B, count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&buf->C, count * sizeof(float)));
    if (guard) {  // NaNs after the inputs
        CUDA_CHECK(cudaMemset(buf->A + (size_t)n * n, POISON_BYTE, guard * sizeof(float)));
        CUDA_CHECK(cudaMemset(buf->B + (size_t)n * n, POISON_BYTE, guard * sizeof(float)));
    }
}

static void free_buffers(buffers *buf)
{
    CUDA_CHECK(cudaFree(buf->A));
    CUDA_CHECK(cudaFree(buf->B));
    CUDA_CHECK(cudaFree(buf->C));
}

// The reference for one pair of inputs: C = A B and |A| |B|, on the host and on the GPU.
typedef struct {
    float *ref, *abs_ab;                 // host
    float *d_ref, *d_abs_ab, *d_scratch; // device; d_scratch holds 2 n^2 floats
} reference;

// Fill A and B with data set `set` (0, then 1, 2, ... for fresh values in the
// same buffers), in the guarded and the exact buffers alike; compute the
// reference with cuBLAS and check it against the host.
static void load_inputs(const options *opt, int n, int set, buffers *guarded, buffers *exact, reference *r)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    float *hA = (float *)malloc(bytes), *hB = (float *)malloc(bytes);
    if (!hA || !hB)
        die(EXIT_USAGE, "cannot allocate host memory for N=%d: choose a smaller --size", n);
    set_activity("preparing the inputs and the reference for N=%d", n);
    fill_matrix(hA, n, opt->seed, 4ull * n + 2 * set);
    fill_matrix(hB, n, opt->seed, 4ull * n + 2 * set + 1);
    CUDA_CHECK(cudaMemcpy(guarded->A, hA, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(guarded->B, hB, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(exact->A, hA, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(exact->B, hB, bytes, cudaMemcpyHostToDevice));
    run_cublas(exact->A, exact->B, r->d_ref, n, (block_shape){1, 1});
    abs_product(exact->A, exact->B, r->d_abs_ab, r->d_scratch, n);
    CUDA_CHECK(cudaMemcpy(r->ref, r->d_ref, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(r->abs_ab, r->d_abs_ab, bytes, cudaMemcpyDeviceToHost));
    set_activity("checking cuBLAS against the host at N=%d", n);
    check_reference(hA, hB, r->ref, n);
    set_activity("%s", "");
    free(hA);
    free(hB);
}

// One traced call of the graded kernel (audit.h). Returns the findings, plus
// one if that call's product is wrong.
static int audit_graded(const options *opt, const char *step, const contender *graded, const buffers *buf,
                        const reference *r, float *hC, int n, block_shape block)
{
    if (!audit_available())
        return 0;
    set_activity("auditing the launches of '%s' at N=%d, block %dx%d", graded->kernel->label, n, block.x, block.y);
    CUDA_CHECK(cudaMemset(buf->C, POISON_BYTE, (size_t)n * n * sizeof(float)));
    static audit_trace trace;  // large: kept off the stack
    audit_begin();
    graded->kernel->run(buf->A, buf->B, buf->C, n, block);
    audit_end(&trace);
    CUDA_CHECK(cudaMemcpy(hC, buf->C, (size_t)n * n * sizeof(float), cudaMemcpyDeviceToHost));
    set_activity("%s", "");
    audit_call call = {step, (unsigned long long)n, block};
    int findings = audit_report(opt, &call, &trace);
    comparison cmp = compare(hC, r->ref, r->abs_ab, n);
    if (!(cmp.relative_error <= MAX_RELATIVE_ERROR) || cmp.over_bound) {
        findings++;
        fprintf(opt->machine ? stderr : stdout, "MISMATCH: the audited call of '%s' left a wrong C (relative error %.2e)\n",
                graded->kernel->label, cmp.relative_error);
    }
    return findings;
}

int matmul_main(int argc, char **argv, const matmul_step *step)
{
    option_spec spec = {step->step,
                        step->summary,
                        "rows (= columns) of the square matrices",
                        2048,
                        MAX_N,
                        step->default_block,
                        true,
                        step->square_tiles ? "TxT with T = 8, 16 or 32 (the tile)" : "X*Y at most 1024 threads",
                        step->square_tiles ? tile_block_ok : any_block_ok,
                        20};
    options opt;
    parse_options(argc, argv, &spec, &opt);
    open_device();
    set_activity("creating the cuBLAS handle");
    CUBLAS_CHECK(cublasCreate(&cublas));
    CUBLAS_CHECK(cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH));  // plain fp32: no TF32 tensor cores
    print_device(&opt, step->step);

    contender cs[16];
    int count = 0;
    if (!opt.check_only) {
        if (step->start.run != matmul_track_first.run)
            cs[count++] = (contender){&track_first_as_in_step_01, "first"};
        cs[count++] = (contender){&step->start, "start"};
        for (int i = 0; i < step->compare_count; i++)
            cs[count++] = (contender){&step->compare[i], "given"};
    }
    for (int i = 0; i < step->yours_count; i++)
        cs[count++] = (contender){&step->yours[i], "yours"};
    if (step->beyond.run)
        cs[count++] = (contender){&step->beyond, "beyond"};

    const contender *graded = &cs[count - 1];  // the last of the learner's kernels
    while (strcmp(graded->role, "yours") != 0)
        graded--;

    int failures = 0, runs = 0, findings = 0;
    for (int s = 0; s < opt.size_count; s++) {
        int n = (int)opt.sizes[s];
        size_t count_nn = (size_t)n * n, bytes = count_nn * sizeof(float);
        size_t guard = 32 * ((size_t)n + 1);  // past the last row a block of up to 32 rows can reach
        // Guarded and exact A, B, C; the reference, |A| |B| and their scratch;
        // when timing, an output per kernel.
        require_device_memory(10 * bytes + 3 * guard * sizeof(float) + (opt.check_only ? 0 : (count + 1) * bytes),
                              "this size");

        reference r;
        r.ref = (float *)malloc(bytes);
        r.abs_ab = (float *)malloc(bytes);
        float *hC = (float *)malloc(bytes + guard * sizeof(float));
        if (!r.ref || !r.abs_ab || !hC)
            die(EXIT_USAGE, "cannot allocate host memory for N=%d: choose a smaller --size", n);
        buffers guarded, exact;
        alloc_buffers(&guarded, n, guard);
        alloc_buffers(&exact, n, 0);
        CUDA_CHECK(cudaMalloc(&r.d_ref, bytes));
        CUDA_CHECK(cudaMalloc(&r.d_abs_ab, bytes));
        CUDA_CHECK(cudaMalloc(&r.d_scratch, 2 * bytes));
        int set = 0;
        load_inputs(&opt, n, set, &guarded, &exact, &r);

        for (int b = 0; b < opt.block_count; b++) {
            block_shape block = opt.blocks[b];
            int wrong = 0;
            for (int i = 0; i < count; i++) {
                wrong += !check_run(&opt, step->step, &cs[i], &guarded, r.ref, r.abs_ab, hC, n, block);
                wrong += !check_run(&opt, step->step, &cs[i], &exact, r.ref, r.abs_ab, hC, n, block);
            }
            runs += 2 * count;
            failures += wrong;
            if (!opt.check_only && wrong == 0) {
                if (!opt.machine)
                    printf("\nN = %d (%.1f GFLOP), block %dx%d, %d repetitions; all %d kernels correct\n", n,
                           2.0 * n * (double)n * n / 1e9, block.x, block.y, opt.reps, count);
                device_reference check = {r.d_ref, r.d_abs_ab, (float)element_bound_factor(n)};
                failures += time_contenders(&opt, step, cs, count, &exact, r.ref, r.abs_ab, &check, hC, n, block);
                // Fresh A and B in the same buffers: a product remembered from an earlier call shows.
                load_inputs(&opt, n, ++set, &guarded, &exact, &r);
                if (!check_run(&opt, step->step, graded, &exact, r.ref, r.abs_ab, hC, n, block)) {
                    failures++;
                    fprintf(opt.machine ? stderr : stdout,
                            "MISMATCH: '%s' [yours] was wrong once A and B held fresh values: does it remember a "
                            "product from an earlier call?\n",
                            graded->kernel->label);
                }
            }
            if (wrong == 0)
                findings += audit_graded(&opt, step->step, graded, &exact, &r, hC, n, block);
        }
        free_buffers(&guarded);
        free_buffers(&exact);
        CUDA_CHECK(cudaFree(r.d_ref));
        CUDA_CHECK(cudaFree(r.d_abs_ab));
        CUDA_CHECK(cudaFree(r.d_scratch));
        free(r.ref);
        free(r.abs_ab);
        free(hC);
    }

    if (opt.machine)
        print_record("summary", "step=%s\truns=%d\twrong=%d\taudit_findings=%d\tseed=%llu\tresult=%s", step->step, runs,
                     failures, findings, opt.seed, failures ? "mismatch" : findings ? "audit" : "correct");
    else if (opt.check_only || failures)
        printf("%s: %d of %d checked runs wrong (%d sizes x %d block shapes, guarded and exact-size buffers)\n",
               failures ? "FAILED" : "correct", failures, runs, opt.size_count, opt.block_count);
    if (findings && !opt.machine)
        printf("FAILED: the launch audit found %d problem(s): see the AUDIT lines above\n", findings);
    CUBLAS_CHECK(cublasDestroy(cublas));
    return failures || findings ? EXIT_MISMATCH : EXIT_CORRECT;
}
