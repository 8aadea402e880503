// audit.cu: the launch audit (see audit.h).
#include "audit.h"

#include <cuda.h>
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

// template=no: any kernel of that name; yes: the instance of its template
// for the block asked for (07, 08: the unrolled tree needs the block at
// compile time); or-block: that, or a launch with the block asked for (03:
// a tile sized from blockDim, in dynamic shared memory, is the same lesson).
typedef enum { TEMPLATE_ANY, TEMPLATE_BLOCK, TEMPLATE_OR_BLOCK } template_rule;

typedef struct {
    bool given;                           // false: STEP_AUDIT is empty, no structure is checked
    char function[AUDIT_NAME_LEN];        // the graded host function, as the learner knows it
    char kernel[AUDIT_NAME_LEN];          // the kernel it must launch (its name without template arguments)
    launch_shape shape;
    int per_thread;                       // LEVELS and ONE_PASS: elements each thread loads (0: any)
    template_rule block_template;         // is the kernel launched the instance for the block asked for?
    bool fills_gpu;
    int min_memsets, max_memsets;         // 06, 08: the total is zeroed by one memset before the one launch
} step_facts;

static step_facts facts;
static char size_name[16] = "n";  // the track's size_symbol, in messages

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

void audit_set_facts(const char *text, const char *size_symbol)
{
    snprintf(size_name, sizeof size_name, "%s", size_symbol);
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
            if (strcmp(value, "no") == 0)
                facts.block_template = TEMPLATE_ANY;
            else if (strcmp(value, "yes") == 0)
                facts.block_template = TEMPLATE_BLOCK;
            else if (strcmp(value, "or-block") == 0)
                facts.block_template = TEMPLATE_OR_BLOCK;
            else
                bad_fact(key, value, "expected yes, no or or-block");
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

int audit_levels_per_thread(void)
{
    return facts.given && facts.shape == LEVELS ? facts.per_thread : 0;
}

enum { MIN_PER_THREAD = 8 };                          // 08: elements per thread at least, at large n
static const unsigned long long LARGE_N = 1ull << 26;  // 08: where MIN_PER_THREAD applies

// ===========================================================================
// Checking a plan against the step's facts
// ===========================================================================

// A call's findings, each message once, with how many times the call made
// it: a function that copies its result to the host at every level of the
// tree makes the same finding at every level, and says so in one line. A
// call makes at most two findings per activity (its stream, and what it is)
// and a few of its own.
enum { MAX_FINDINGS = 64, FINDING_LEN = 1024 };
static char found[MAX_FINDINGS][FINDING_LEN];
static int found_times[MAX_FINDINGS];

typedef struct {
    const options *opt;
    const char *step;
    const plan *call;
    char block[32];
    int findings;  // distinct messages, in found[] up to MAX_FINDINGS
} audit_context;

static void print_finding(const audit_context *ctx, const char *message, int times)
{
    char count[48] = "";
    if (times > 1)
        snprintf(count, sizeof count, " (%d times in the call)", times);
    if (ctx->opt->machine)
        print_record("finding", "step=%s\tn=%llu\tblock=%s\tmessage=%s%s", ctx->step, ctx->call->n, ctx->block,
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

static void demangle(const char *mangled, char *out, size_t len)
{
    int status = 0;
    char *plain = abi::__cxa_demangle(mangled, NULL, NULL, &status);
    snprintf(out, len, "%s", status == 0 && plain ? plain : mangled);
    free(plain);
}

// "void ns::reduce_unrolled<256u>(int const*, int*, unsigned int)" -> "reduce_unrolled"; returns
// where its template arguments start ("<256u>(...": '<'), or its parameters
// where it has none. A learner's namespaces, named or anonymous, are no part
// of the name the step asks for.
static const char *kernel_base(const char *name, char *base, size_t len)
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
    return name + n;
}

// Is one of the template arguments at ARGS ("<int, 256u>(...") the whole
// number VALUE, at any depth? The block size may stand anywhere in the list
// (NVIDIA's reduction sample puts the element type first: reduce<int, 256u>)
// or inside an argument of its own (a struct of the tile's sizes:
// matmul_tiled<tile<32> >), as the demangler writes it: 256, 256u, 256ul,
// (unsigned short)256.
static bool template_args_hold(const char *args, long value)
{
    if (*args != '<')
        return false;
    int depth = 0;
    for (const char *p = args; *p; p++) {
        if (*p == '<') {
            depth++;
        } else if (*p == '>') {
            if (--depth == 0)
                return false;  // the end of the list
        } else if (*p >= '0' && *p <= '9' && (p[-1] == '<' || p[-1] == ',' || p[-1] == ' ' || p[-1] == ')')) {
            // A number that begins an argument (after a cast the demangler
            // writes for a type without a suffix) and ends it.
            char *stop;
            long v = strtol(p, &stop, 10);
            while (*stop == 'u' || *stop == 'l' || *stop == 'U' || *stop == 'L')
                stop++;
            if ((*stop == ',' || *stop == '>') && v == value)
                return true;
            p = stop - 1;
        }
    }
    return false;
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

static void check_facts(audit_context *ctx, const step_facts *f)
{
    const plan *call = ctx->call;
    int block = call->block.x;
    enum { MAX_LEVELS = 16 };
    unsigned int grids[MAX_LEVELS];
    int kernels = 0, memsets = 0;
    for (int i = 0; i < call->action_count; i++) {
        const plan_action *a = &call->actions[i];
        if (a->kind == PLAN_MEMSET)
            memsets++;
        if (a->kind != PLAN_LAUNCH)
            continue;
        char name[AUDIT_NAME_LEN], base[AUDIT_NAME_LEN];
        demangle(a->kernel_name, name, sizeof name);
        const char *args = kernel_base(name, base, sizeof base);
        if (strcmp(base, f->kernel) != 0) {
            finding(ctx, "your %s launched %s, not %s: this step is about writing that kernel yourself and launching it",
                    f->function, name, f->kernel);
            continue;
        }
        bool asked_block = a->block[0] == (unsigned)call->block.x && a->block[1] == (unsigned)call->block.y &&
                           a->block[2] == 1;
        if (f->block_template == TEMPLATE_OR_BLOCK && !template_args_hold(args, block) && !asked_block)
            finding(ctx, "your %s launched %s with blocks of %ux%ux%u threads where %dx%d were asked for: launch "
                         "the instance for the block asked for, %s<%d>, or a kernel sized from its block, with that block",
                    f->function, name, a->block[0], a->block[1], a->block[2], call->block.x, call->block.y, f->kernel,
                    block);
        else if (f->block_template == TEMPLATE_BLOCK && !template_args_hold(args, block))
            finding(ctx, "your %s launched %s for a block of %d threads: launch the instance for the block asked for, "
                         "%s<%d>",
                    f->function, name, block, f->kernel, block);
        // A grid of levels or of one pass is one row of blocks of the threads
        // asked for: rows of a second dimension would hide blocks from the
        // grid's count.
        if (f->shape != ONE_LAUNCH && (a->grid[1] != 1 || a->grid[2] != 1 || a->block[0] != (unsigned)block ||
                                       a->block[1] != 1 || a->block[2] != 1))
            finding(ctx, "your %s launched %s as a grid of %ux%ux%u blocks of %ux%ux%u threads: this step's grid is one "
                         "row of blocks of the %d threads asked for",
                    f->function, name, a->grid[0], a->grid[1], a->grid[2], a->block[0], a->block[1], a->block[2], block);
        if (kernels < MAX_LEVELS)
            grids[kernels] = a->grid[0];
        kernels++;
    }
    if (memsets > f->max_memsets)
        finding(ctx, "your %s issued %d memsets; this step needs at most %d", f->function, memsets, f->max_memsets);
    if (memsets < f->min_memsets)
        finding(ctx, "your %s issued no memset: zero the output with cudaMemsetAsync before the kernel, on the same "
                     "stream; zeroing it inside the kernel races with the blocks that add to it first",
                f->function);

    char seen[256], want[256];
    list_grids(grids, kernels < MAX_LEVELS ? kernels : MAX_LEVELS, seen, sizeof seen);
    switch (f->shape) {
    case ONE_LAUNCH:
        if (kernels != 1)
            finding(ctx, "your %s launched %s %d times at %s=%llu; one launch covers all of it", f->function,
                    f->kernel, kernels, size_name, call->n);
        break;
    case LEVELS: {
        unsigned int expect[MAX_LEVELS];
        int levels = level_grids(call->n, f->per_thread, block, expect, MAX_LEVELS);
        bool same = levels == kernels;
        for (int i = 0; same && i < levels && i < MAX_LEVELS; i++)
            same = expect[i] == grids[i];
        list_grids(expect, levels < MAX_LEVELS ? levels : MAX_LEVELS, want, sizeof want);
        if (!same)
            finding(ctx, "your %s launched %s %d times (grids of %s blocks) at %s=%llu, block %d; a kernel in passes "
                         "is launched once per level of the tree: %d launches here (grids of %s blocks)",
                    f->function, f->kernel, kernels, kernels ? seen : "no", size_name, call->n, block, levels, want);
        break;
    }
    case ONE_PASS:
        if (kernels != 1) {
            finding(ctx, "your %s launched %s %d times at %s=%llu: this step's kernel is one launch in all", f->function,
                    f->kernel, kernels, size_name, call->n);
            break;
        }
        if (f->per_thread && grids[0] != ceil_div((unsigned int)call->n, f->per_thread * block))
            finding(ctx, "your %s launched %u blocks at %s=%llu, block %d; %d elements per thread make %u", f->function,
                    grids[0], size_name, call->n, block, f->per_thread,
                    ceil_div((unsigned int)call->n, f->per_thread * block));
        if (f->fills_gpu) {
            unsigned int resident = resident_blocks(block);
            double per_thread = (double)call->n / ((double)grids[0] * block);
            if (grids[0] > resident)
                finding(ctx, "your %s launched %u blocks of %d threads; this GPU holds %u such blocks at once: size "
                             "the grid to the GPU and let each thread walk the input",
                        f->function, grids[0], block, resident);
            else if (call->n >= LARGE_N && per_thread < MIN_PER_THREAD)
                finding(ctx, "your %s gave each thread %.1f elements at %s=%llu; a grid sized to the GPU gives each at "
                             "least %d",
                        f->function, per_thread, size_name, call->n, MIN_PER_THREAD);
        }
        break;
    }
}

// How many times the launches and memsets of a plan say `what`, for the
// audit record; a launch record per action.
static void print_plan(const audit_context *ctx, const char *label)
{
    const plan *p = ctx->call;
    int kernels = 0, memsets = 0;
    for (int i = 0; i < p->action_count; i++) {
        kernels += p->actions[i].kind == PLAN_LAUNCH;
        memsets += p->actions[i].kind == PLAN_MEMSET;
    }
    print_record("audit", "step=%s\tn=%llu\tblock=%s\tfunction=%s\tkernels=%d\tmemsets=%d", ctx->step, p->n, ctx->block,
                 facts.function, kernels, memsets);
    for (int i = 0; i < p->action_count; i++) {
        const plan_action *a = &p->actions[i];
        char name[AUDIT_NAME_LEN];
        demangle(a->kernel_name, name, sizeof name);
        if (a->kind == PLAN_LAUNCH)
            print_record("launch", "step=%s\tn=%llu\tkind=kernel\tname=%s\tgrid=%ux%ux%u\tblock=%ux%ux%u\tsmem=%zu",
                         ctx->step, p->n, name, a->grid[0], a->grid[1], a->grid[2], a->block[0], a->block[1],
                         a->block[2], a->smem);
        else if (a->kind == PLAN_MEMSET)
            print_record("launch", "step=%s\tn=%llu\tkind=memset\tbytes=%zu", ctx->step, p->n, a->bytes);
    }
    (void)label;
}

int audit_plan(const options *opt, const char *step, const plan *p, const char *label, const size_t *region_bytes,
               int region_count, bool graded, int *unsafe)
{
    audit_context ctx = {opt, step, p, "", 0};
    if (p->block.y == 1)
        snprintf(ctx.block, sizeof ctx.block, "%d", p->block.x);
    else
        snprintf(ctx.block, sizeof ctx.block, "%dx%d", p->block.x, p->block.y);
    const char *function = graded ? facts.function : label;
    if (graded && opt->machine)
        print_plan(&ctx, label);

    // What every step must respect: its own kernels, the default stream, its buffers.
    char why[512];
    int problems = plan_check_buffers(p, region_bytes, region_count, why, sizeof why);
    if (problems) {
        *unsafe += problems;
        finding(&ctx, "your %s %s%s: a step's function hands its kernels the buffers it is given, and nothing else",
                function, why, problems > 1 ? " (and more)" : "");
    }
    int foreign = 0, other_stream = 0;
    for (int i = 0; i < p->action_count; i++) {
        const plan_action *a = &p->actions[i];
        if (a->kind != PLAN_MEMSET && !a->kernel && foreign++ == 0) {
            char name[AUDIT_NAME_LEN];
            demangle(a->kernel_name, name, sizeof name);
            *unsafe += 1;
            finding(&ctx, "your %s launched %s, which is not a kernel of your file: a step's function launches its own "
                          "kernels",
                    function, name);
        }
        if (a->other_stream && other_stream++ == 0)
            finding(&ctx, "your %s put work on another stream than the default one, where the harness times it: "
                          "launch on the default stream (no stream argument)",
                    function);
    }
    if (graded && facts.given)
        check_facts(&ctx, &facts);
    for (int i = 0; i < ctx.findings && i < MAX_FINDINGS; i++)
        print_finding(&ctx, found[i], found_times[i]);
    return ctx.findings;
}

int audit_module(const options *opt, const char *step)
{
    const char *clocks = module_clocks();
    if (!clocks[0])
        return 0;
    char message[FINDING_LEN];
    snprintf(message, sizeof message,
             "your kernels read a clock, the SM, the warp slot or the launch they run on, or keep memory between launches (%s): "
             "a kernel that can tell one run from another can behave otherwise when watched and when timed; a "
             "step's kernel has no use for it",
             clocks);
    if (opt->machine)
        print_record("finding", "step=%s\tn=0\tblock=0\tmessage=%s", step, message);
    else
        printf("AUDIT: %s\n", message);
    return 1;
}
