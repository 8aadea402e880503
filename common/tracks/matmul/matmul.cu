// matmul.cu: the matrix-multiplication track's harness (see matmul.h): its
// inputs, its reference and its comparisons, plugged into the flow every step
// shares (step_main, harness.h). In this track's terms, at each size N and
// block shape:
//   1. the reference: cuBLAS SGEMM in plain fp32, itself checked against a
//      double-precision product on the host (every row for small N, a sample
//      of rows for large N);
//   2. check: every kernel runs twice on random inputs in [-1, 1), drawn
//      again on the GPU just before, C poisoned first. Once with guards after A, B and C -- NaNs after the inputs, so a
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
//      before each run. Each run is on the exact-size check's buffers, so
//      that no address tells a check from a timed run. Before each run of a
//      kernel, warm-up included, the GPU draws it an A and a B of its own
//      and poisons C, as before a check; after it, outside the timed
//      span, the GPU draws the same A and B again -- the kernel may have
//      changed its inputs -- cuBLAS multiplies them, and the product is
//      compared with that, element by element and in norm, the verdict taken
//      to the host at once. Then the exact A and B are refilled with fresh
//      values and every kernel checked once more.
// While a kernel of the learner's runs, no reference and no verdict is on
// the GPU for it to find: the checks' references are on the host, and the
// timed runs' are made after each run.
//
// Napkin math for the ceiling: C = A * B does 2 N^3 flops (a multiply and an
// add per term, N terms per element, N^2 elements) on 12 N^2 bytes: at N =
// 2048, 17.2 GFLOP on 50 MB. An H100 does about 60 TFLOP/s in fp32 and moves
// 3 TB/s, so the floor is 0.29 ms of arithmetic against 0.02 ms of memory:
// compute-bound, if the kernel reads each input element from DRAM only a few
// times. The naive kernels read each element N times.
#include "matmul.h"

#include "plan.h"

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

static void run_uncoalesced(const float *A, const float *B, float *C, int n, block_shape block)
{
    CUDA_CHECK(cudaMemsetAsync(C, 0, (size_t)n * n * sizeof(float)));  // the kernel adds onto C
    dim3 threads(block.x, block.y);
    dim3 grid(ceil_div(n, block.x), ceil_div(n, block.y));
    matmul_uncoalesced<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

const step_kernel matmul_track_first = {
    .id = "uncoalesced",
    .label = "naive, uncoalesced (row from threadIdx.x)",
    .run = MATMUL_FN(run_uncoalesced),
};

// In the later steps the track's first kernel runs as step 01 times it, with
// 16x16 blocks, whatever the step's block: wider blocks only make it slower
// (at 32x32 a warp spans 32 rows of A and of C), and the speedup over it would
// flatter every step after.
static void run_uncoalesced_as_in_step_01(const float *A, const float *B, float *C, int n, block_shape block)
{
    run_uncoalesced(A, B, C, n, (block_shape){16, 16});
}

static const step_kernel track_first_as_in_step_01 = {
    .id = "uncoalesced",
    .label = "naive, uncoalesced, 16x16 as in step 01",
    .run = MATMUL_FN(run_uncoalesced_as_in_step_01),
};

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

// How one run's product compares with the reference, added up on the GPU.
typedef struct {
    unsigned int off;     // elements off the reference by more than the bound (NaN included)
    double error, norm;   // sum (C - ref)^2 and sum ref^2: the relative error is sqrt(error / norm)
} run_error;

// Into *out (zeroed first): how C compares with ref, element by element (the
// bound factor |A| |B|) and in norm. One atomic per warp for each figure.
__global__ void compare_on_gpu(const float *C, const float *ref, const float *abs_ab, float factor, size_t count,
                               run_error *out)
{
    unsigned int off = 0;
    double error = 0, norm = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        double d = (double)C[i] - ref[i];
        off += !(fabs(d) <= factor * abs_ab[i]);
        error += d * d;
        norm += (double)ref[i] * ref[i];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        off += __shfl_down_sync(0xffffffffu, off, offset);
        error += __shfl_down_sync(0xffffffffu, error, offset);
        norm += __shfl_down_sync(0xffffffffu, norm, offset);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&out->off, off);
        atomicAdd(&out->error, error);
        atomicAdd(&out->norm, norm);
    }
}

// A fresh matrix on the GPU, drawn as fill_matrix draws one: data set `stream`.
__global__ void fill_fresh_matrix(float *M, size_t count, uint64_t seed, uint64_t stream)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        M[i] = (float)(random_u64(seed, stream, i) >> 40) * (1.0f / (1 << 23)) - 1.0f;
}

enum { HELPER_BLOCK = 256 };  // the harness's own kernels here: whole warps (compare_on_gpu adds up warps)

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
// The size at hand
// ===========================================================================

typedef struct {
    float *A, *B, *C;
    size_t guard;  // floats after each matrix (0: exact-size buffers)
} buffers;

// One timed entry: its function, its inputs and output; for a contender, the
// comparison of each run's product with the reference of its inputs.
typedef struct {
    const step_kernel *kernel;  // NULL for cuBLAS, the ceiling
    const plan *plan;           // the learner's: the plan replayed (plan.h)
    float *A, *B;               // a contender's: drawn afresh before each run
    float *C;
    int n;
    block_shape block;
    uint64_t seed;
    uint64_t stream;                // the data set of A at the run at hand (B's is the next)
    float *ref, *abs_ab, *scratch;  // the reference of each run, made after it (d_ref, d_abs_ab, d_scratch)
    run_error *d_error;             // where each run's comparison is made, before it goes to the host
    int bad, first_bad;             // runs with a wrong C, and the first of them (by call)
    run_error first_error;
} timed_run;

// What the hooks below share: one size's inputs, its reference, and the
// buffers of its runs.
static struct {
    int n;
    buffers guarded, exact;
    int set;                              // the data set in A and B: 0, then one more at each refill
    float *ref, *abs_ab;                  // the reference for them: C = A B and |A| |B|, on the host
    float *d_ref, *d_abs_ab, *d_scratch;  // the same on the GPU (while timing, each run's); d_scratch holds 2 n^2 floats
    float *hC;                            // a product copied back, its guard included
    // Timing (unless --check), on the exact buffers: where a run's comparison is made.
    timed_run *runs;
    run_error *d_error;
    int entries;
} size;

// Every fresh A and B in this program is a data set of its own.
static uint64_t next_fresh_stream = FRESH_STREAMS;

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

// Fill A and B with data set size.set, in the guarded and the exact buffers
// alike; compute the reference with cuBLAS and check it against the host.
static void load_inputs(uint64_t seed)
{
    int n = size.n;
    size_t bytes = (size_t)n * n * sizeof(float);
    float *hA = (float *)malloc(bytes), *hB = (float *)malloc(bytes);
    if (!hA || !hB)
        die(EXIT_USAGE, "cannot allocate host memory for N=%d: choose a smaller --size", n);
    set_activity("preparing the inputs and the reference for N=%d", n);
    fill_matrix(hA, n, seed, 4ull * n + 2 * size.set);
    fill_matrix(hB, n, seed, 4ull * n + 2 * size.set + 1);
    CUDA_CHECK(cudaMemcpy(size.guarded.A, hA, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(size.guarded.B, hB, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(size.exact.A, hA, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(size.exact.B, hB, bytes, cudaMemcpyHostToDevice));
    run_cublas(size.exact.A, size.exact.B, size.d_ref, n, (block_shape){1, 1});
    abs_product(size.exact.A, size.exact.B, size.d_abs_ab, size.d_scratch, n);
    CUDA_CHECK(cudaMemcpy(size.ref, size.d_ref, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(size.abs_ab, size.d_abs_ab, bytes, cudaMemcpyDeviceToHost));
    // The reference stays on the host: nothing of it on the GPU, where a kernel could copy it.
    CUDA_CHECK(cudaMemset(size.d_ref, 0, bytes));
    CUDA_CHECK(cudaMemset(size.d_abs_ab, 0, bytes));
    set_activity("checking cuBLAS against the host at N=%d", n);
    check_reference(hA, hB, size.ref, n);
    set_activity("%s", "");
    free(hA);
    free(hB);
}

static void prepare(const flow_point *at, int count)
{
    memset(&size, 0, sizeof size);
    int n = size.n = (int)at->n;
    bool timing = !at->opt->check_only;
    size_t bytes = (size_t)n * n * sizeof(float);
    size_t guard = 32 * ((size_t)n + 1);  // past the last row a block of up to 32 rows can reach
    // Guarded and exact A, B, C; the reference, |A| |B| and their scratch.
    require_device_memory(10 * bytes + 3 * guard * sizeof(float), "this size");

    size.ref = (float *)malloc(bytes);
    size.abs_ab = (float *)malloc(bytes);
    size.hC = (float *)malloc(bytes + guard * sizeof(float));
    if (!size.ref || !size.abs_ab || !size.hC)
        die(EXIT_USAGE, "cannot allocate host memory for N=%d: choose a smaller --size", n);
    alloc_buffers(&size.guarded, n, guard);
    alloc_buffers(&size.exact, n, 0);
    CUDA_CHECK(cudaMalloc(&size.d_ref, bytes));
    CUDA_CHECK(cudaMalloc(&size.d_abs_ab, bytes));
    CUDA_CHECK(cudaMalloc(&size.d_scratch, 2 * bytes));
    // A timed run's comparison, made in a check too: the same buffers in the
    // same order, so that no address tells a kernel which run it is in.
    CUDA_CHECK(cudaMalloc(&size.d_error, sizeof *size.d_error));
    load_inputs(at->opt->seed);

    if (!timing)
        return;
    size.entries = count + 1;  // cuBLAS first
    size.runs = (timed_run *)calloc(size.entries, sizeof *size.runs);
    if (!size.runs)
        die(EXIT_CUDA, "out of host memory");
}

static void release(void)
{
    free_buffers(&size.guarded);
    free_buffers(&size.exact);
    CUDA_CHECK(cudaFree(size.d_ref));
    CUDA_CHECK(cudaFree(size.d_abs_ab));
    CUDA_CHECK(cudaFree(size.d_scratch));
    free(size.ref);
    free(size.abs_ab);
    free(size.hC);
    CUDA_CHECK(cudaFree(size.d_error));
    free(size.runs);
}

// ===========================================================================
// Checking
// ===========================================================================

static bool any_block_ok(block_shape b)
{
    return b.x >= 1 && b.y >= 1 && b.x * b.y <= 1024;
}

static bool tile_block_ok(block_shape b)
{
    return b.x == b.y && (b.x == 8 || b.x == 16 || b.x == 32);
}

static const block_rule any_blocks = {
    .default_block = {16, 16},
    .two_d = true,
    .rule = "X*Y at most 1024 threads",
    .ok = any_block_ok,
};

const block_rule matmul_tile_blocks = {
    .default_block = {32, 32},
    .two_d = true,
    .rule = "TxT with T = 8, 16 or 32 (the tile)",
    .ok = tile_block_ok,
};

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

// A call's buffers, in the order of matmul_fn's pointer arguments: A, B, C.
static int region_bytes(unsigned long long n, block_shape block, size_t *bytes)
{
    bytes[0] = bytes[1] = bytes[2] = (size_t)n * n * sizeof(float);
    return 3;
}

// One call of a kernel: its own function (given), or its plan (the learner's).
static void call_multiply(const step_kernel *k, const plan *p, const float *A, const float *B, float *C, int n,
                          block_shape block)
{
    if (!p) {
        ((matmul_fn)k->run)(A, B, C, n, block);
        return;
    }
    size_t bytes = (size_t)n * n * sizeof(float);
    plan_region regions[] = {{(void *)A, bytes}, {(void *)B, bytes}, {C, bytes}};
    plan_replay(p, regions);
}

static void fill_on_gpu(float *M, size_t count, uint64_t seed, uint64_t stream)
{
    fill_fresh_matrix<<<4 * current_device()->sm_count, HELPER_BLOCK>>>(M, count, seed, stream);
    CUDA_CHECK_LAUNCH();
}

// Before every run: what the run does not use but a kernel could reach with
// an address of its own (the other set of A, B and C, the reference and its
// scratch) poisoned, so that nothing a kernel leaves there lasts to the next
// run. A timed run's comparison makes its reference again after the run.
static void poison_bystanders(const float *A)
{
    size_t bytes = (size_t)size.n * size.n * sizeof(float);
    const buffers *sets[] = {&size.guarded, &size.exact};
    for (int i = 0; i < 2; i++) {
        const buffers *other = sets[i];
        if (other->A == A)
            continue;
        size_t with_guard = bytes + other->guard * sizeof(float);
        CUDA_CHECK(cudaMemsetAsync(other->A, POISON_BYTE, with_guard));
        CUDA_CHECK(cudaMemsetAsync(other->B, POISON_BYTE, with_guard));
        CUDA_CHECK(cudaMemsetAsync(other->C, POISON_BYTE, with_guard));
    }
    CUDA_CHECK(cudaMemsetAsync(size.d_ref, POISON_BYTE, bytes));
    CUDA_CHECK(cudaMemsetAsync(size.d_abs_ab, POISON_BYTE, bytes));
    CUDA_CHECK(cudaMemsetAsync(size.d_scratch, POISON_BYTE, 2 * bytes));
    CUDA_CHECK(cudaMemsetAsync(size.d_error, POISON_BYTE, sizeof *size.d_error));  // the last run's comparison
}

// Before a checked run: A and B drawn again (a kernel may have changed them
// in the run before), the NaNs after them restored, C poisoned.
static void prepare_check(const flow_point *at, const buffers *buf)
{
    int n = size.n;
    size_t count = (size_t)n * n;
    poison_bystanders(buf->A);
    fill_on_gpu(buf->A, count, at->opt->seed, 4ull * n + 2 * size.set);
    fill_on_gpu(buf->B, count, at->opt->seed, 4ull * n + 2 * size.set + 1);
    if (buf->guard) {
        CUDA_CHECK(cudaMemset(buf->A + count, POISON_BYTE, buf->guard * sizeof(float)));
        CUDA_CHECK(cudaMemset(buf->B + count, POISON_BYTE, buf->guard * sizeof(float)));
    }
    CUDA_CHECK(cudaMemset(buf->C, POISON_BYTE, (count + buf->guard) * sizeof(float)));
}

static bool check(const flow_point *at, const contender *c, bool guarded)
{
    int n = size.n;
    block_shape block = at->block;
    const buffers *buf = guarded ? &size.guarded : &size.exact;
    const char *role = role_names[c->role];
    float *hC = size.hC;
    size_t count = (size_t)n * n;
    const char *input = buf->guard ? "guarded" : "exact";
    set_activity("checking '%s' [%s] at N=%d, block %dx%d, on the %s buffers", c->kernel->label, role, n, block.x,
                 block.y, buf->guard ? "guarded" : "exact-size");
    prepare_check(at, buf);
    const plan *p = contender_plan(c, at);
    if (p)
        module_reload();
    call_multiply(c->kernel, p, buf->A, buf->B, buf->C, n, block);
    CUDA_CHECK(cudaDeviceSynchronize());  // a fault inside the kernel is reported here
    CUDA_CHECK(cudaMemcpy(hC, buf->C, (count + buf->guard) * sizeof(float), cudaMemcpyDeviceToHost));
    set_activity("%s", "");

    comparison cmp = compare(hC, size.ref, size.abs_ab, n);
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
    if (at->opt->machine) {
        if (ok)
            print_record("check", "step=%s\tn=%d\tblock=%dx%d\tid=%s\trole=%s\tinput=%s\tresult=ok\terror=%.3e",
                         at->step, n, block.x, block.y, c->kernel->id, role, input, cmp.relative_error);
        else
            print_record("check", "step=%s\tn=%d\tblock=%dx%d\tid=%s\trole=%s\tinput=%s\tresult=mismatch\terror=%.3e"
                                  "\trow=%d\tcol=%d\texpected=%.6g\tgot=%.6g\twrong=%lld\tover_bound=%lld\twritten_past_end=%zu\thint=%s",
                         at->step, n, block.x, block.y, c->kernel->id, role, input, cmp.relative_error, cmp.first_row,
                         cmp.first_col, cmp.expected, cmp.got, cmp.wrong, cmp.over_bound, overwritten,
                         explain(&cmp, n, overwritten, hint, sizeof hint));
        return ok;
    }
    if (ok)
        return true;
    printf("MISMATCH: '%s' [%s] at N=%d, block %dx%d (%s buffers): relative error %.2e (at most %.0e allowed)\n",
           c->kernel->label, role, n, block.x, block.y, buf->guard ? "guarded" : "exact-size", cmp.relative_error,
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

static void run_task(void *arg)
{
    timed_run *r = (timed_run *)arg;
    if (r->kernel)
        call_multiply(r->kernel, r->plan, r->A, r->B, r->C, r->n, r->block);
    else
        run_cublas(r->A, r->B, r->C, r->n, r->block);
}

// Before each run of a contender, untimed: an A and a B no run has seen, C
// poisoned, the learner's module as it was loaded.
static void fresh_inputs(void *arg, int call)
{
    timed_run *r = (timed_run *)arg;
    size_t count = (size_t)r->n * r->n;
    r->stream = next_fresh_stream;
    next_fresh_stream += 2;
    poison_bystanders(r->A);
    fill_on_gpu(r->A, count, r->seed, r->stream);
    fill_on_gpu(r->B, count, r->seed, r->stream + 1);
    CUDA_CHECK(cudaMemsetAsync(r->C, POISON_BYTE, count * sizeof(float)));
    if (r->plan)
        module_reload();
}

// After each run of a contender, untimed: the same A and B drawn again (the
// run may have changed them), cuBLAS's product of them, and how the run's C
// compares with it, taken to the host at once.
static void compare_run(void *arg, int call)
{
    timed_run *r = (timed_run *)arg;
    size_t count = (size_t)r->n * r->n;
    fill_on_gpu(r->A, count, r->seed, r->stream);
    fill_on_gpu(r->B, count, r->seed, r->stream + 1);
    run_cublas(r->A, r->B, r->ref, r->n, (block_shape){1, 1});
    abs_product(r->A, r->B, r->abs_ab, r->scratch, r->n);
    CUDA_CHECK(cudaMemsetAsync(r->d_error, 0, sizeof *r->d_error));
    compare_on_gpu<<<4 * current_device()->sm_count, HELPER_BLOCK>>>(
        r->C, r->ref, r->abs_ab, (float)element_bound_factor(r->n), count, r->d_error);
    CUDA_CHECK_LAUNCH();
    run_error e;
    CUDA_CHECK(cudaMemcpy(&e, r->d_error, sizeof e, cudaMemcpyDeviceToHost));
    double relative = sqrt(e.error / e.norm);
    if ((e.off || !(relative <= MAX_RELATIVE_ERROR)) && r->bad++ == 0) {
        r->first_bad = call;
        r->first_error = e;
    }
}

static void describe(const flow_point *at, char *buf, size_t len)
{
    snprintf(buf, len, "N = %d (%.1f GFLOP)", size.n, 2.0 * size.n * (double)size.n * size.n / 1e9);
}

// The ceiling: cuBLAS, on the contenders' inputs as the last run left them.
static void timed_tasks(const flow_point *at, const contender *cs, int count, timed_entry *entries)
{
    int n = size.n;
    double flops = 2.0 * n * (double)n * n;
    timed_run first_inputs = {.A = size.exact.A, .B = size.exact.B, .C = size.exact.C, .n = n,
                              .seed = at->opt->seed};
    fresh_inputs(&first_inputs, 0);  // for the ceiling, which may run first
    entries[0].id = "cublas";
    entries[0].label = "cuBLAS SGEMM, fp32";
    for (int i = 0; i < size.entries; i++) {
        bool ceiling = i == 0;
        size.runs[i] = (timed_run){.kernel = ceiling ? NULL : cs[i - 1].kernel,
                                   .plan = ceiling ? NULL : contender_plan(&cs[i - 1], at),
                                   .A = size.exact.A,
                                   .B = size.exact.B,
                                   .C = size.exact.C,
                                   .n = n,
                                   .block = at->block,
                                   .seed = at->opt->seed,
                                   .ref = size.d_ref,
                                   .abs_ab = size.d_abs_ab,
                                   .scratch = size.d_scratch,
                                   .d_error = size.d_error};
        entries[i].work = flops;
        entries[i].task = ceiling ? (timed_task){run_task, NULL, &size.runs[i], NULL}
                                  : (timed_task){run_task, fresh_inputs, &size.runs[i], compare_run};
    }
}

// Every run must have left a right product: each element within the bound,
// and the whole within MAX_RELATIVE_ERROR.
static bool timed_right(const flow_point *at, int i, char *why, size_t len)
{
    const timed_run *r = &size.runs[i + 1];
    int calls = WARMUP_CALLS + at->opt->reps;
    if (r->bad)
        snprintf(why, len,
                 "left a wrong C in %d of %d runs of the timing, %d warm-up included (run %d: %u elements off, "
                 "relative error %.2e)",
                 r->bad, calls, WARMUP_CALLS, r->first_bad + 1, r->first_error.off,
                 sqrt(r->first_error.error / r->first_error.norm));
    return r->bad == 0;
}

// ===========================================================================
// After timing: the exact A and B refilled
// ===========================================================================

// Fresh A and B in the same buffers: the next data set.
static void refill(const flow_point *at, int block_index)
{
    size.set++;
    load_inputs(at->opt->seed);
}

// ===========================================================================
// The track
// ===========================================================================

static void open_cublas(void)
{
    set_activity("creating the cuBLAS handle");
    CUBLAS_CHECK(cublasCreate(&cublas));
    CUBLAS_CHECK(cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH));  // plain fp32: no TF32 tensor cores
}

static void close_cublas(void)
{
    CUBLAS_CHECK(cublasDestroy(cublas));
}

// The track's facts, for the scripts: PROGRAM --facts prints them as a
// `track` record, and make, the grader, bench, plot, explain and
// readme-figures read them here (common/tools/track-facts.awk), so that no script
// names a track. A fact a line, "key=value\t"; track-facts.awk says the form.
// At the timed size the four sanitizers watch every access of a 2048^3
// product: on an H100 they did not finish step 03 in 6 minutes, so memcheck
// runs there alone (the small sizes run all four).
static const char TRACK_FACTS[] =
    "name=matmul\t"
    "title=Matrix multiplication\t"
    "size_symbol=N\t"
    "size_unit=\t"
    "ceiling=cuBLAS\t"
    "ceiling_label=cuBLAS SGEMM\t"
    "plot_scale=log\t"
    "libs=-lcublas\t"
    "check_sizes=1,2,15,16,17,31,32,33,100,257,1000,1023,2048\t"
    "check_block_multiples=\t"
    "sanitize_sizes=1,17,33,100\t"
    "sanitize_blocks=8x8,16x16,32x32\t"
    "sanitize_timed_tools=memcheck\t"
    "profile_args=-n 1024 -r 1\t"
    "explain_size=256\t"
    "learner_calls=\t";

const track matmul_track = {
    .facts = TRACK_FACTS,
    .size_meaning = "rows (= columns) of the square matrices",
    .default_size = 2048,
    .max_size = MAX_N,
    .default_reps = 20,
    .blocks = &any_blocks,
    .first = &matmul_track_first,
    .first_timed = &track_first_as_in_step_01,
    .rate_unit = "GFLOP/s",
    .checks_cover = "block shapes, guarded and exact-size buffers",
    .fresh_inputs = "A and B held fresh values: does it remember a product from an earlier call?",
    .open = open_cublas,
    .close = close_cublas,
    .prepare = prepare,
    .region_bytes = region_bytes,
    .check = check,
    .describe = describe,
    .timed_tasks = timed_tasks,
    .timed_right = timed_right,
    .refill = refill,
    .release = release,
};
