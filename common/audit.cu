// audit.cu: the launch audit (see audit.h).
#include "audit.h"

#include <cupti.h>
#include <cxxabi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// ===========================================================================
// What the step's graded function must launch: STEP_AUDIT (audit.h)
// ===========================================================================

enum { AUDIT_NAME_LEN = 256 };

typedef enum { ONE_LAUNCH, LEVELS, ONE_PASS } launch_shape;

typedef struct {
    bool given;                           // false: STEP_AUDIT is empty, no structure is checked
    char function[AUDIT_NAME_LEN];        // the graded host function, as the learner knows it
    char kernel[AUDIT_NAME_LEN];          // the kernel it must launch (its name without template arguments)
    launch_shape shape;
    int per_thread;                       // LEVELS and ONE_PASS: elements each thread loads (0: any)
    bool block_template;
    bool fills_gpu;
    int min_memsets, max_memsets;         // 06, 08: the total is zeroed by one memset before the one launch
} step_facts;

static step_facts facts;

// What the messages about a malformed STEP_AUDIT call it.
static const char FACTS[] = "STEP_AUDIT (the launch audit's facts, from the build)";

// Exit 2, naming the field of STEP_AUDIT at fault and what it should be.
static void bad_fact(const char *key, const char *value, const char *why) __attribute__((noreturn));
static void bad_fact(const char *key, const char *value, const char *why)
{
    die(EXIT_USAGE, "%s has a bad field '%s=%s': %s", FACTS, key, value, why);
}

// A whole number from 0 to 1024 at the start of `text`; *end is what follows it.
static bool parse_small(const char *text, const char **end, int *value)
{
    char *stop;
    if (text[0] < '0' || text[0] > '9')
        return false;
    long v = strtol(text, &stop, 10);
    *end = stop;
    *value = (int)v;
    return v <= 1024;
}

static bool parse_yes_no(const char *key, const char *value)
{
    if (strcmp(value, "yes") != 0 && strcmp(value, "no") != 0)
        bad_fact(key, value, "expected yes or no");
    return strcmp(value, "yes") == 0;
}

static void parse_name(const char *key, const char *value, char *name)
{
    if (!value[0] || strlen(value) >= AUDIT_NAME_LEN)
        bad_fact(key, value, "expected a name");
    snprintf(name, AUDIT_NAME_LEN, "%s", value);
}

void audit_set_facts(const char *text)
{
    memset(&facts, 0, sizeof facts);
    snprintf(facts.function, sizeof facts.function, "graded function");  // in messages, when no facts name it
    facts.max_memsets = 1;
    char copy[1024];
    if (snprintf(copy, sizeof copy, "%s", text) >= (int)sizeof copy)
        die(EXIT_USAGE, "%s is longer than %zu characters", FACTS, sizeof copy - 1);
    bool have_kernel = false, have_function = false, have_launches = false;
    for (char *rest = copy, *key; (key = strsep(&rest, " \t")) != NULL;) {
        if (!key[0])
            continue;  // more than one space between two fields
        char *value = strchr(key, '=');
        if (!value)
            die(EXIT_USAGE, "%s has a bad field '%s': expected key=value", FACTS, key);
        *value++ = '\0';
        const char *end = value;
        if (strcmp(key, "kernel") == 0) {
            parse_name(key, value, facts.kernel);
            have_kernel = true;
        } else if (strcmp(key, "function") == 0) {
            parse_name(key, value, facts.function);
            have_function = true;
        } else if (strcmp(key, "launches") == 0) {
            if (strcmp(value, "one-launch") == 0)
                facts.shape = ONE_LAUNCH;
            else if (strcmp(value, "levels") == 0)
                facts.shape = LEVELS;
            else if (strcmp(value, "one-pass") == 0)
                facts.shape = ONE_PASS;
            else
                bad_fact(key, value, "expected one-launch, levels or one-pass");
            have_launches = true;
        } else if (strcmp(key, "per_thread") == 0) {
            if (!parse_small(value, &end, &facts.per_thread) || *end)
                bad_fact(key, value, "expected a whole number, 0 (any) to 1024");
        } else if (strcmp(key, "template") == 0) {
            facts.block_template = parse_yes_no(key, value);
        } else if (strcmp(key, "fills_gpu") == 0) {
            facts.fills_gpu = parse_yes_no(key, value);
        } else if (strcmp(key, "memsets") == 0) {
            bool ok = parse_small(value, &end, &facts.min_memsets);
            facts.max_memsets = facts.min_memsets;
            if (ok && *end == '-')
                ok = parse_small(end + 1, &end, &facts.max_memsets);
            if (!ok || *end || facts.min_memsets > facts.max_memsets)
                bad_fact(key, value, "expected a count N or a range MIN-MAX, up to 1024");
        } else {
            bad_fact(key, value, "no such key: kernel, function, launches, per_thread, template, fills_gpu or memsets");
        }
        facts.given = true;
    }
    if (facts.given && !(have_kernel && have_function && have_launches))
        die(EXIT_USAGE, "%s needs kernel=, function= and launches=: '%s'", FACTS, text);
    if (facts.shape == LEVELS && facts.per_thread == 0)
        die(EXIT_USAGE, "%s has launches=levels but no per_thread=N: the elements each thread loads make the levels",
            FACTS);
}

enum { MIN_PER_THREAD = 8 };                          // 08: elements per thread at least, at large n
static const unsigned long long LARGE_N = 1ull << 26;  // 08: where MIN_PER_THREAD applies

// A call whose GPU work outlasts its event-timed span by more than this ran
// work the timing events did not wait for.
static const double SPAN_SLACK_RATIO = 1.25;
static const double SPAN_SLACK_MS = 0.02;

// ===========================================================================
// Tracing
// ===========================================================================

typedef enum { AUDIT_KERNEL, AUDIT_MEMSET, AUDIT_COPY } audit_kind;

// One thing the traced call put on the GPU.
typedef struct {
    audit_kind kind;
    char name[AUDIT_NAME_LEN];  // a kernel's demangled name; a copy's direction ("host to device")
    unsigned int grid[3], block[3];
    unsigned int stream;        // CUPTI's id of the stream it ran on
    bool host_copy;             // a copy from or to host memory
    unsigned long long start_ns, end_ns;
} audit_activity;

enum { AUDIT_MAX_ACTIVITIES = 64 };

// One traced call.
typedef struct {
    audit_activity items[AUDIT_MAX_ACTIVITIES];
    int count;                  // items recorded (the call's own; the harness's marker left out)
    int dropped;                // more than AUDIT_MAX_ACTIVITIES, or records CUPTI lost
    unsigned int timed_stream;  // the stream the harness times: the legacy default stream
    double span_ms;             // GPU time from the call's start to the end of its last activity
    double event_ms;            // the same call timed as the timed repetitions are, with events
    double audit_ms;            // host time the audit took, tracing set-up included
} audit_trace;

static audit_trace last_trace;  // the last call traced, for audit_report (large: kept off the stack)

// Each CUPTI names its newest record layouts; the fields read here are in all of them.
#if CUPTI_API_VERSION >= 130000  // CUDA 13
typedef CUpti_ActivityKernel10 kernel_record;
typedef CUpti_ActivityMemcpy6 copy_record;
#elif CUPTI_API_VERSION >= 19    // CUDA 12
typedef CUpti_ActivityKernel9 kernel_record;
typedef CUpti_ActivityMemcpy5 copy_record;
#else                            // CUDA 11.8
typedef CUpti_ActivityKernel8 kernel_record;
typedef CUpti_ActivityMemcpy5 copy_record;
#endif
typedef CUpti_ActivityMemset4 fill_record;

enum { RECORD_BUFFER_BYTES = 1 << 20, RAW_MAX = 4 * AUDIT_MAX_ACTIVITIES };

static audit_activity raw[RAW_MAX];  // everything traced, the marker included
static int raw_count, raw_dropped;
static bool tracing_ready;
static cudaEvent_t audit_start, audit_stop;
static struct timespec wall_start;

// An empty kernel launched on the timed stream just before the call: its
// record says which stream id that is, and where the call's time starts.
__global__ void audit_marker(void) {}
static const char MARKER_NAME[] = "audit_marker()";

#define CUPTI_CHECK(call) cupti_check((call), #call, __FILE__, __LINE__)

static void cupti_check(CUptiResult result, const char *call, const char *file, int line)
{
    if (result == CUPTI_SUCCESS)
        return;
    const char *text = "unknown error";
    cuptiGetResultString(result, &text);
    die(EXIT_CUDA,
        "the launch audit cannot trace: %s\n  at %s:%d: %s\n  what to do: CUPTI (libcupti, part of the CUDA toolkit) "
        "must match the driver; is another profiler attached?",
        text, file, line, call);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = (uint8_t *)aligned_alloc(8, RECORD_BUFFER_BYTES);
    *size = *buffer ? RECORD_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void add_raw(const audit_activity *a)
{
    if (raw_count < RAW_MAX)
        raw[raw_count++] = *a;
    else
        raw_dropped++;
}

static void demangle(const char *mangled, char *out, size_t len)
{
    int status = 0;
    char *plain = abi::__cxa_demangle(mangled, NULL, NULL, &status);
    snprintf(out, len, "%s", status == 0 && plain ? plain : mangled);
    free(plain);
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer, size_t size,
                                     size_t valid)
{
    CUpti_Activity *record = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        audit_activity a;
        memset(&a, 0, sizeof a);
        switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const kernel_record *k = (const kernel_record *)record;
            a.kind = AUDIT_KERNEL;
            demangle(k->name ? k->name : "?", a.name, sizeof a.name);
            a.grid[0] = k->gridX, a.grid[1] = k->gridY, a.grid[2] = k->gridZ;
            a.block[0] = k->blockX, a.block[1] = k->blockY, a.block[2] = k->blockZ;
            a.stream = k->streamId, a.start_ns = k->start, a.end_ns = k->end;
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const fill_record *m = (const fill_record *)record;
            a.kind = AUDIT_MEMSET;
            snprintf(a.name, sizeof a.name, "memset of %llu bytes", (unsigned long long)m->bytes);
            a.stream = m->streamId, a.start_ns = m->start, a.end_ns = m->end;
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const copy_record *c = (const copy_record *)record;
            a.kind = AUDIT_COPY;
            a.host_copy = c->copyKind != CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
            snprintf(a.name, sizeof a.name, "copy of %llu bytes, %s", (unsigned long long)c->bytes,
                     c->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD   ? "host to device"
                     : c->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ? "device to host"
                     : c->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOD ? "device to device"
                                                                      : "through host memory");
            a.stream = c->streamId, a.start_ns = c->start, a.end_ns = c->end;
            break;
        }
        default: continue;
        }
        add_raw(&a);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS)
        raw_dropped += (int)dropped;
    free(buffer);
}

static const CUpti_ActivityKind TRACED[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMSET,
                                            CUPTI_ACTIVITY_KIND_MEMCPY};

bool audit_available(void)
{
    static bool refused;
    if (!tracing_ready && !refused) {
        CUptiResult result = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
        if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
            // ncu or compute-sanitizer holds the tracing interface: their runs
            // check and measure, they do not grade, so they go on unaudited.
            fprintf(stderr, "launch audit: off in this run: another tool (a profiler or compute-sanitizer) traces the program\n");
            refused = true;
            return false;
        }
        CUPTI_CHECK(result);
        CUDA_CHECK(cudaEventCreate(&audit_start));
        CUDA_CHECK(cudaEventCreate(&audit_stop));
        tracing_ready = true;
    }
    return tracing_ready;
}

void audit_begin(void)
{
    clock_gettime(CLOCK_MONOTONIC, &wall_start);
    CUDA_CHECK(cudaDeviceSynchronize());  // nothing from before the call lands in its trace
    if (!audit_available())
        die(EXIT_CUDA, "the launch audit cannot trace: another tool holds CUPTI");
    raw_count = raw_dropped = 0;
    for (int i = 0; i < COUNT_OF(TRACED); i++)
        CUPTI_CHECK(cuptiActivityEnable(TRACED[i]));
    CUDA_CHECK(cudaEventRecord(audit_start));
    audit_marker<<<1, 1>>>();
    CUDA_CHECK_LAUNCH();
}

void audit_end(void)
{
    audit_trace *trace = &last_trace;
    CUDA_CHECK(cudaEventRecord(audit_stop));
    CUDA_CHECK(cudaDeviceSynchronize());  // and so every stream's work is done, not only the timed one's
    CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    for (int i = 0; i < COUNT_OF(TRACED); i++)
        CUPTI_CHECK(cuptiActivityDisable(TRACED[i]));
    float event_ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&event_ms, audit_start, audit_stop));

    memset(trace, 0, sizeof *trace);
    trace->event_ms = event_ms;
    trace->dropped = raw_dropped;
    int marker = -1;
    for (int i = 0; i < raw_count; i++)  // the earliest marker: a learner's kernel could share its name
        if (raw[i].kind == AUDIT_KERNEL && strcmp(raw[i].name, MARKER_NAME) == 0 &&
            (marker < 0 || raw[i].start_ns < raw[marker].start_ns))
            marker = i;
    if (marker < 0)
        die(EXIT_CUDA, "the launch audit saw no trace of its own marker kernel: CUPTI recorded nothing");
    trace->timed_stream = raw[marker].stream;
    unsigned long long last_end = raw[marker].end_ns;
    for (int i = 0; i < raw_count; i++) {
        if (i == marker)
            continue;
        if (trace->count == AUDIT_MAX_ACTIVITIES) {
            trace->dropped++;
            continue;
        }
        trace->items[trace->count++] = raw[i];
        if (raw[i].end_ns > last_end)
            last_end = raw[i].end_ns;
    }
    trace->span_ms = (last_end - raw[marker].start_ns) / 1e6;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    trace->audit_ms = (now.tv_sec - wall_start.tv_sec) * 1e3 + (now.tv_nsec - wall_start.tv_nsec) / 1e6;
}

// ===========================================================================
// Checking a trace against the step's facts
// ===========================================================================

// A call's findings, each message once, with how many times the call made
// it: a function that copies its result to the host at every level of the
// tree makes the same finding at every level, and says so in one line. A
// call makes at most two findings per activity (its stream, and what it is)
// and a few of its own.
enum { MAX_FINDINGS = 2 * AUDIT_MAX_ACTIVITIES + 8, FINDING_LEN = 1024 };
static char found[MAX_FINDINGS][FINDING_LEN];
static int found_times[MAX_FINDINGS];

typedef struct {
    const options *opt;
    const audit_call *call;
    char block[32];
    int findings;  // distinct messages, in found[] up to MAX_FINDINGS
} audit_context;

static void print_finding(const audit_context *ctx, const char *message, int times)
{
    char count[48] = "";
    if (times > 1)
        snprintf(count, sizeof count, " (%d times in the call)", times);
    if (ctx->opt->machine)
        print_record("finding", "step=%s\tn=%llu\tblock=%s\tmessage=%s%s", ctx->call->step, ctx->call->n, ctx->block,
                     message, count);
    else
        printf("AUDIT: %s%s\n", message, count);
}

static void finding(audit_context *ctx, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void finding(audit_context *ctx, const char *format, ...)
{
    char message[FINDING_LEN];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    for (int i = 0; i < ctx->findings && i < MAX_FINDINGS; i++)
        if (strcmp(found[i], message) == 0) {
            found_times[i]++;
            return;
        }
    if (ctx->findings < MAX_FINDINGS) {
        snprintf(found[ctx->findings], FINDING_LEN, "%s", message);
        found_times[ctx->findings] = 1;
    } else {
        print_finding(ctx, message, 1);  // past the table (more findings than the bound above): said at once
    }
    ctx->findings++;
}

// "void ns::reduce_unrolled<256u>(int const*, int*, unsigned int)" -> "reduce_unrolled", and its
// template argument (256), or -1 if it has none. A learner's namespaces,
// named or anonymous, are no part of the name the step asks for.
static void kernel_base(const char *name, char *base, size_t len, long *template_arg)
{
    static const char ANONYMOUS[] = "(anonymous namespace)::";
    if (strncmp(name, "void ", 5) == 0)
        name += 5;
    for (;;) {
        size_t scope = strcspn(name, "<(:");
        if (strncmp(name, ANONYMOUS, sizeof ANONYMOUS - 1) == 0)
            name += sizeof ANONYMOUS - 1;
        else if (name[scope] == ':' && name[scope + 1] == ':')
            name += scope + 2;
        else
            break;
    }
    size_t n = strcspn(name, "<(");
    snprintf(base, len, "%.*s", (int)n, name);
    *template_arg = name[n] == '<' ? strtol(name + n + 1, NULL, 10) : -1;
}

// The grids of reduce_in_passes's levels, into grids; returns how many.
static int level_grids(unsigned long long n, int per_thread, int block, unsigned int *grids, int max)
{
    int count = 0;
    for (;;) {
        unsigned int grid = ceil_div((unsigned int)n, per_thread * block);
        if (count < max)
            grids[count] = grid;
        count++;
        if (grid <= 1)
            return count;
        n = grid;
    }
}

static void list_grids(const unsigned int *grids, int count, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < count && used < len; i++)
        used += snprintf(out + used, len - used, "%s%u", i ? ", " : "", grids[i]);
}

static unsigned int resident_blocks(int block)
{
    int device, sms, threads_per_sm, blocks_per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device));
    int per_sm = threads_per_sm / block < blocks_per_sm ? threads_per_sm / block : blocks_per_sm;
    return (unsigned int)(sms * per_sm);
}

static void check_facts(audit_context *ctx, const step_facts *f, const audit_trace *t)
{
    const audit_call *call = ctx->call;
    int block = call->block.x;
    enum { MAX_LEVELS = 16 };
    unsigned int grids[MAX_LEVELS];
    int kernels = 0, memsets = 0;
    for (int i = 0; i < t->count; i++) {
        const audit_activity *a = &t->items[i];
        if (a->kind == AUDIT_MEMSET)
            memsets++;
        if (a->kind != AUDIT_KERNEL)
            continue;
        char base[AUDIT_NAME_LEN];
        long arg;
        kernel_base(a->name, base, sizeof base, &arg);
        if (strcmp(base, f->kernel) != 0) {
            finding(ctx, "your %s launched %s, not %s: this step is about writing that kernel yourself and launching it",
                    f->function, a->name, f->kernel);
            continue;
        }
        if (f->block_template && arg != block)
            finding(ctx, "your %s launched %s for a block of %d threads: launch the instance for the block asked for, "
                         "%s<%d>",
                    f->function, a->name, block, f->kernel, block);
        if (kernels < MAX_LEVELS)
            grids[kernels] = a->grid[0];
        kernels++;
    }
    if (memsets > f->max_memsets)
        finding(ctx, "your %s issued %d memsets; this step needs at most %d", f->function, memsets, f->max_memsets);
    if (memsets < f->min_memsets)
        finding(ctx, "your %s issued no memset: zero the total with cudaMemsetAsync before the kernel, on the same "
                     "stream; zeroing it inside the kernel races with the blocks that add to it first",
                f->function);

    char seen[256], want[256];
    list_grids(grids, kernels < MAX_LEVELS ? kernels : MAX_LEVELS, seen, sizeof seen);
    switch (f->shape) {
    case ONE_LAUNCH:
        if (kernels != 1)
            finding(ctx, "your %s launched %s %d times at N=%llu; one launch covers the whole matrix", f->function,
                    f->kernel, kernels, call->n);
        break;
    case LEVELS: {
        unsigned int expect[MAX_LEVELS];
        int levels = level_grids(call->n, f->per_thread, block, expect, MAX_LEVELS);
        bool same = levels == kernels;
        for (int i = 0; same && i < levels && i < MAX_LEVELS; i++)
            same = expect[i] == grids[i];
        list_grids(expect, levels < MAX_LEVELS ? levels : MAX_LEVELS, want, sizeof want);
        if (!same)
            finding(ctx, "your %s launched %s %d times (grids of %s blocks) at n=%llu, block %d; a multi-pass "
                         "reduction launches it once per level of the tree: %d launches here (grids of %s blocks)",
                    f->function, f->kernel, kernels, kernels ? seen : "no", call->n, block, levels, want);
        break;
    }
    case ONE_PASS:
        if (kernels != 1) {
            finding(ctx, "your %s launched %s %d times at n=%llu: this step's reduction is one kernel launch in all "
                         "(and one memset, of the total)",
                    f->function, f->kernel, kernels, call->n);
            break;
        }
        if (f->per_thread && grids[0] != ceil_div((unsigned int)call->n, f->per_thread * block))
            finding(ctx, "your %s launched %u blocks at n=%llu, block %d; %d elements per thread make %u", f->function,
                    grids[0], call->n, block, f->per_thread, ceil_div((unsigned int)call->n, f->per_thread * block));
        if (f->fills_gpu) {
            unsigned int resident = resident_blocks(block);
            double per_thread = (double)call->n / ((double)grids[0] * block);
            if (grids[0] > resident)
                finding(ctx, "your %s launched %u blocks of %d threads; this GPU holds %u such blocks at once: size "
                             "the grid to the GPU and let each thread walk the input",
                        f->function, grids[0], block, resident);
            else if (call->n >= LARGE_N && per_thread < MIN_PER_THREAD)
                finding(ctx, "your %s gave each thread %.1f elements at n=%llu; the cascade needs at least %d",
                        f->function, per_thread, call->n, MIN_PER_THREAD);
        }
        break;
    }
}

int audit_report(const options *opt, const audit_call *call)
{
    const audit_trace *t = &last_trace;
    audit_context ctx = {opt, call, "", 0};
    if (call->block.y == 1)
        snprintf(ctx.block, sizeof ctx.block, "%d", call->block.x);
    else
        snprintf(ctx.block, sizeof ctx.block, "%dx%d", call->block.x, call->block.y);
    const char *function = facts.function;
    int kernels = 0, memsets = 0, copies = 0;
    for (int i = 0; i < t->count; i++) {
        const audit_activity *a = &t->items[i];
        kernels += a->kind == AUDIT_KERNEL;
        memsets += a->kind == AUDIT_MEMSET;
        copies += a->kind == AUDIT_COPY;
    }
    if (opt->machine) {
        print_record("audit",
                     "step=%s\tn=%llu\tblock=%s\tcall=%s\tfunction=%s\tkernels=%d\tmemsets=%d\tcopies=%d\tdropped=%d"
                     "\tspan_ms=%.4f\tevent_ms=%.4f\taudit_ms=%.3f",
                     call->step, call->n, ctx.block, call->when, function, kernels, memsets, copies, t->dropped,
                     t->span_ms, t->event_ms, t->audit_ms);
        for (int i = 0; i < t->count; i++) {
            const audit_activity *a = &t->items[i];
            print_record("launch",
                         "step=%s\tn=%llu\tkind=%s\tname=%s\tgrid=%ux%ux%u\tblock=%ux%ux%u\tstream=%u\ttimed_stream=%u"
                         "\tstart_ns=%llu\tend_ns=%llu",
                         call->step, call->n, a->kind == AUDIT_KERNEL ? "kernel" : a->kind == AUDIT_MEMSET ? "memset" : "copy",
                         a->name, a->grid[0], a->grid[1], a->grid[2], a->block[0], a->block[1], a->block[2], a->stream,
                         t->timed_stream, a->start_ns, a->end_ns);
        }
    }

    if (t->dropped)
        finding(&ctx, "your %s put more on the GPU than the audit can hold (%d activities lost)", function, t->dropped);
    for (int i = 0; i < t->count; i++) {
        const audit_activity *a = &t->items[i];
        if (a->stream != t->timed_stream)
            finding(&ctx, "your %s ran %s on another stream than the default one, where the harness times it: launch "
                          "on the default stream (no stream argument)",
                    function, a->name);
        if (a->kind == AUDIT_COPY)
            finding(&ctx, "your %s made a %s: %s", function, a->name,
                    a->host_copy ? "the result must be computed on the GPU, by your kernel, not through the host"
                                 : "the result must come from your kernel, not from a copy");
    }
    if (t->span_ms > SPAN_SLACK_RATIO * t->event_ms + SPAN_SLACK_MS)
        finding(&ctx, "your %s kept the GPU busy for %.3f ms, but the timing events saw only %.3f ms: work outside the "
                      "timed stream is not allowed",
                function, t->span_ms, t->event_ms);
    if (facts.given)
        check_facts(&ctx, &facts, t);
    for (int i = 0; i < ctx.findings && i < MAX_FINDINGS; i++)
        print_finding(&ctx, found[i], found_times[i]);
    return ctx.findings;
}
