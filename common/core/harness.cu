// harness.cu: the shared harness (see harness.h for what each part is for).
#include "harness.h"

#include "audit.h"
#include "plan.h"

#include <cuda_profiler_api.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *program_name = "workbook";
static char step_name[64] = "";
static char activity[256] = "";
// Where the records go: the file --records names, opened before any of the
// step's code runs; stdout without it (print_record, in the Output section).
static FILE *records_out;

// ===========================================================================
// Errors
// ===========================================================================

void die(int code, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, format, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

void set_activity(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(activity, sizeof activity, format, ap);
    va_end(ap);
}

// "make sanitize EX=04": the step number is the first two characters of the folder name.
static void print_sanitize_hint(void)
{
    if (step_name[0])
        fprintf(stderr, "  what to do: run `make sanitize EX=%.2s` (at the top of the workbook) to find the line at fault\n",
                step_name);
    else
        fprintf(stderr, "  what to do: run the program under compute-sanitizer to find the line at fault\n");
}

static void print_architecture_hint(void)
{
    int dev = 0, major = 0, minor = 0;
    cudaDeviceProp prop;
    // Plain calls, not CUDA_CHECK: we are already reporting an error.
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        fprintf(stderr, "  what to do: rebuild for this GPU's architecture: make clean && make SM=<compute capability without the dot>\n");
        return;
    }
    major = prop.major;
    minor = prop.minor;
    fprintf(stderr, "  this build has no code for %s (compute capability %d.%d, sm_%d%d)\n", prop.name, major, minor,
            major, minor);
    if (major * 10 + minor < 75)
        fprintf(stderr, "  what to do: CUDA 13 builds for sm_75 and newer only; use a CUDA 12 toolkit for this GPU\n");
    else
        fprintf(stderr, "  what to do: rebuild for it: make clean && make SM=%d%d\n", major, minor);
}

void cuda_check(cudaError_t err, const char *call, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "%s: CUDA error %s: %s\n", program_name, cudaGetErrorName(err), cudaGetErrorString(err));
    fprintf(stderr, "  at %s:%d: %s\n", file, line, call);
    if (activity[0])
        fprintf(stderr, "  while %s\n", activity);
    switch (err) {
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorUnsupportedPtxVersion:
        print_architecture_hint();
        break;
    case cudaErrorMemoryAllocation:
        fprintf(stderr, "  what to do: the GPU is out of memory; try a smaller --size\n");
        break;
    case cudaErrorInvalidConfiguration:
        fprintf(stderr, "  what to do: the launch asked for more than the GPU allows (threads per block, grid size or "
                        "shared memory); print the grid and block you launch with\n");
        break;
    case cudaErrorInvalidValue:
        if (strcmp(call, "kernel launch") == 0) {
            fprintf(stderr, "  what to do: a grid or block with a zero dimension? A grid must be rounded up "
                            "(ceil_div) so that it covers small sizes too\n");
            break;
        }
        print_sanitize_hint();
        break;
    case cudaErrorLaunchTimeout:
        fprintf(stderr, "  what to do: a kernel ran until the display watchdog stopped it; look for a loop that never "
                        "ends or a __syncthreads() that not every thread reaches\n");
        break;
    default:
        print_sanitize_hint();
        break;
    }
    exit(EXIT_CUDA);
}

// ===========================================================================
// Options
// ===========================================================================

// What one program accepts: its track's sizes, its step's or its track's blocks.
typedef struct {
    const char *step;          // "04-reduction-interleaved"
    const char *summary;       // one line for --help
    const char *size_meaning;  // "ints to sum" / "rows (= columns) of the matrices"
    unsigned long long default_size, max_size;
    const block_rule *blocks;
    int default_reps;
} option_spec;

static void print_usage(const option_spec *spec)
{
    printf("usage: %s [options]\n", program_name);
    printf("%s\n\n", spec->summary);
    printf("  -n, --size LIST    %s: a whole number, 2^k or 2^k+c, or a comma-separated list\n", spec->size_meaning);
    printf("                     (default %llu; at most %llu)\n", spec->default_size, spec->max_size);
    const block_rule *blocks = spec->blocks;
    if (blocks->two_d)
        printf("  -b, --block LIST   threads per block, XxY or X for XxX: %s\n", blocks->rule);
    else
        printf("  -b, --block LIST   threads per block: %s\n", blocks->rule);
    if (blocks->two_d)
        printf("                     (default %dx%d)\n", blocks->default_block.x, blocks->default_block.y);
    else
        printf("                     (default %d)\n", blocks->default_block.x);
    printf("  -r, --reps R       timed repetitions of each kernel (default %d)\n", spec->default_reps);
    printf("  -s, --seed S       seed of the random inputs (default 1)\n");
    printf("  -c, --check        check correctness only, at every size and block; no timing\n");
    printf("  -o, --only ROLES   run only the kernels of these roles, a comma-separated list of\n");
    printf("                     first, start, given, yours, beyond, library (the ceiling is always\n");
    printf("                     timed); --only beyond: the reference solution's kernels past the lesson\n");
    printf("  -h, --help         print this help\n\n");
    printf("What the grader and the workbook's scripts use (you need none of them):\n");
    printf("      --exact        with --check: one call of each kernel, on the exact-size input, as a\n");
    printf("                     timed run calls it (the sanitizers' run at the timed size)\n");
    printf("      --exact-at N:B with --check: once the -n and -b lists are checked in full, also size N\n");
    printf("                     (as -n takes it: 1000, 2^26) at block B, with one call of each kernel as\n");
    printf("                     --exact makes it (the sanitizers' two runs in one process)\n");
    printf("  -m, --machine      print tab-separated key=value records instead of tables\n");
    printf("      --records FILE write the records to FILE (implies --machine); stdout is left to\n");
    printf("                     what the kernels print\n");
    printf("      --facts        print the track's facts (a record for the scripts) and end; no GPU\n");
    printf("      --write-plans FILE  run your host code once for every size and block given, writing\n");
    printf("                     down what it launches, into FILE, and end; --plans FILE: launch what\n");
    printf("                     FILE says instead (the grader runs your host code once per grading)\n");
    printf("      --watch K      timed round K (modulo R) is the watched one, between cudaProfilerStart\n");
    printf("                     and Stop (the grader's profiler watches that round)\n");
    printf("      --watched-only with --watch: that round alone, untimed (the profiler's run)\n");
    printf("      --census FILE  with --check: a few more calls of your graded function, on inputs with\n");
    printf("                     elements no one wrote, so that compute-sanitizer's initcheck says which\n");
    printf("                     threads read them; where they lie goes to FILE (the grader's launch audit)\n");
    printf("      --gpu-lock FILE  hold FILE's lock (flock) shared while running, and alone while timing\n");
    printf("                     (the watched round too), so that no other run of the grader's shares the\n");
    printf("                     GPU then; prints a lock record of the wait and the hold\n");
    printf("      --time-limit S end with exit 124 after S seconds of running, waits for --gpu-lock\n");
    printf("                     not counted\n");
    printf("      --gpu-deadline T  wait for --gpu-lock until T (seconds since 1970) at most, then end\n");
    printf("                     as without a usable GPU (77)\n\n");
    printf("Every kernel is checked on fresh random inputs before it is timed.\n");
    printf("exit status: 0 correct, 1 wrong answer, 2 bad option, 3 CUDA error, 77 no usable GPU\n");
}

static void usage_error(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, format, ap);
    fprintf(stderr, " (try --help)\n");
    va_end(ap);
    exit(EXIT_USAGE);
}

// A whole number, 2^k, or 2^k+c or 2^k-c. Returns false if `text` is none of them.
static bool parse_count(const char *text, unsigned long long *value)
{
    char *end;
    if (text[0] < '0' || text[0] > '9')
        return false;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno)
        return false;
    if (end[0] == '^') {
        if (v != 2 || end[1] < '0' || end[1] > '9')
            return false;
        unsigned long long k = strtoull(end + 1, &end, 10);
        if (k > 62)
            return false;
        v = 1ull << k;
        // 2^k+c or 2^k-c: a size just past or short of a power of two, where
        // the last block is the one with a single element or one missing.
        if ((end[0] == '+' || end[0] == '-') && end[1] >= '0' && end[1] <= '9') {
            char sign = end[0];
            errno = 0;
            unsigned long long c = strtoull(end + 1, &end, 10);
            if (errno || (sign == '-' && c > v) || (sign == '+' && c > ~0ull - v))
                return false;
            v = (sign == '+') ? v + c : v - c;
        }
    }
    if (*end != '\0')
        return false;
    *value = v;
    return true;
}

// Split a comma-separated list in place into `items`; an empty item is an error.
static int split_list(char *text, char **items, const char *option)
{
    int count = 0;
    for (char *rest = text; rest;) {
        char *item = strsep(&rest, ",");
        if (*item == '\0')
            usage_error("empty value in the list given to %s", option);
        if (count == MAX_LIST)
            usage_error("at most %d values in the list given to %s", MAX_LIST, option);
        items[count++] = item;
    }
    return count;
}

static void parse_sizes(const char *arg, const option_spec *spec, options *opt)
{
    char buf[4096], *items[MAX_LIST];
    snprintf(buf, sizeof buf, "%s", arg);
    int count = split_list(buf, items, "--size");
    for (int i = 0; i < count; i++) {
        unsigned long long v;
        if (!parse_count(items[i], &v))
            usage_error("bad size '%s': expected a whole number such as 1000, 2^k such as 2^20, or 2^k+c such as 2^24+1", items[i]);
        if (v < 1 || v > spec->max_size)
            usage_error("size %s is out of range: %s must be 1 to %llu", items[i], spec->size_meaning, spec->max_size);
        opt->sizes[i] = v;
    }
    opt->size_count = count;
}

// --exact-at SIZE:BLOCK: one size and one block, each checked as the lists'
// own are, kept apart from the lists (a point, not a cross product).
static void parse_blocks(const char *arg, const option_spec *spec, options *opt);
static void parse_exact_point(const char *arg, const option_spec *spec, options *opt)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    char *colon = strchr(buf, ':');
    if (!colon || strchr(colon + 1, ':') || strchr(buf, ','))
        usage_error("bad point '%s' for --exact-at: expected one size and one block, SIZE:BLOCK, such as 2^26:256",
                    arg);
    *colon = '\0';
    options one;
    parse_sizes(buf, spec, &one);
    parse_blocks(colon + 1, spec, &one);
    opt->exact_at = true;
    opt->exact_size = one.sizes[0];
    opt->exact_block = one.blocks[0];
}

// --only: role names, into a mask of (1u << role). The ceiling is not one of
// them: every timed table has it, as what the others are a share of.
static void parse_roles(const char *arg, options *opt)
{
    char buf[4096], *items[MAX_LIST];
    snprintf(buf, sizeof buf, "%s", arg);
    int count = split_list(buf, items, "--only");
    opt->only = 0;
    for (int i = 0; i < count; i++) {
        int role = ROLE_CEILING + 1;
        while (role < ROLE_COUNT && strcmp(items[i], role_names[role]) != 0)
            role++;
        if (role == ROLE_COUNT)
            usage_error("bad role '%s' for --only: expected first, start, given, yours, beyond or library", items[i]);
        opt->only |= 1u << role;
    }
}

static void parse_blocks(const char *arg, const option_spec *spec, options *opt)
{
    const block_rule *rule = spec->blocks;
    char buf[4096], *items[MAX_LIST];
    snprintf(buf, sizeof buf, "%s", arg);
    int count = split_list(buf, items, "--block");
    for (int i = 0; i < count; i++) {
        char *x_end;
        errno = 0;
        long x = strtol(items[i], &x_end, 10), y;
        bool ok = items[i][0] >= '0' && items[i][0] <= '9' && errno == 0;
        if (ok && *x_end == 'x' && rule->two_d) {
            char *y_end;
            ok = x_end[1] >= '0' && x_end[1] <= '9';
            y = strtol(x_end + 1, &y_end, 10);
            ok = ok && *y_end == '\0' && errno == 0;
        } else {
            y = rule->two_d ? x : 1;  // "16" means 16x16 where blocks are 2-D
            ok = ok && *x_end == '\0';
        }
        block_shape b = {(int)(x > 0 && x <= 4096 ? x : 0), (int)(y > 0 && y <= 4096 ? y : 0)};
        if (!ok)
            usage_error("bad block '%s': expected %s", items[i], rule->two_d ? "XxY such as 32x8, or X" : "a number such as 256");
        if (x == 0 || y == 0)  // not "too many threads": no rule's limit says why none is wrong
            usage_error("bad block '%s': a block needs at least one thread%s", items[i], rule->two_d ? " in each dimension" : "");
        if (b.x == 0 || b.y == 0 || !rule->ok(b))
            usage_error("block %s is not supported here: %s", items[i], rule->rule);
        opt->blocks[i] = b;
    }
    opt->block_count = count;
}

// --records FILE: the records go there, and only the harness holds the file.
// Opened now, while parsing the options, before any of the step's code runs.
static void open_records(const char *path)
{
    if (records_out)
        usage_error("--records given twice");
    records_out = fopen(path, "we");  // e: not inherited by any program this one might start
    if (!records_out)
        usage_error("cannot write the records to '%s': %s", path, strerror(errno));
    setvbuf(records_out, NULL, _IOLBF, 0);  // each record whole in the file, even if the program dies next
}

// --gpu-lock FILE: the lock of the grader's that shares one GPU among its
// runs (grading/lib.bash, on_gpu). A run that measures -- the timed run, the
// profiler's -- needs the GPU alone only while it measures: its start, its
// inputs, its checks and the exact sums on the host share it with the
// others' checks and sanitizers. So the program holds the lock shared from
// the start, alone for time_interleaved, and shared again after. Opened now,
// while parsing the options: a bad FILE is a bad option.
static int gpu_lock_fd = -1;

static void open_gpu_lock(const char *path)
{
    struct stat st;
    if (gpu_lock_fd >= 0)
        usage_error("--gpu-lock given twice");
    gpu_lock_fd = open(path, O_RDONLY | O_CLOEXEC);  // flock needs no write access
    if (gpu_lock_fd < 0)
        usage_error("cannot open the GPU lock '%s': %s", path, strerror(errno));
    if (fstat(gpu_lock_fd, &st) != 0 || !S_ISREG(st.st_mode))
        usage_error("the GPU lock '%s' is not a regular file", path);
}

// --time-limit S: the program ends itself, exit 124 as timeout(1) gives,
// after S seconds of running, its waits for the GPU lock not counted: a run
// that waits its turn behind other runs is not a kernel that hangs.
// --gpu-deadline T: and it waits for the lock until T (seconds since 1970)
// at most, then ends as a run that found no usable GPU (77): the grade is
// not the learner's to lose. One deadline for every pass of a profile, each
// a run of its own. (The grader's sandbox allows the waits and the runs.)
static unsigned time_limit_s;
static unsigned long long gpu_deadline;

static void time_limit_reached(int sig)
{
    static const char message[] = "the run went past its time limit (--time-limit) and was stopped\n";
    (void)sig;
    (void)!write(STDERR_FILENO, message, sizeof message - 1);
    _exit(124);
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Take the lock LOCK_SH or LOCK_EX (a held lock is converted: flock drops it
// first, so two runs waiting to be alone never wait on each other), asking
// every 10 ms while it waits. Where the lock cannot be taken at all (flock
// on NFS wants a file open for writing for LOCK_EX), the run goes on
// without it, as the grader's own flock(1) did: a disturbed figure is
// better than a learner charged with the grader's fault.
static void gpu_lock_take(int how)
{
    if (gpu_lock_fd < 0)
        return;
    unsigned left = alarm(0);  // (the time limit stops while it waits)
    while (flock(gpu_lock_fd, how | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            fprintf(stderr, "%s: the GPU lock cannot be taken (%s): running without it\n", program_name,
                    strerror(errno));
            close(gpu_lock_fd);
            gpu_lock_fd = -1;
            break;
        }
        if (gpu_deadline && (unsigned long long)time(NULL) >= gpu_deadline)
            die(EXIT_NO_DEVICE, "skipped: the GPU was not free in time (--gpu-deadline): not graded here");
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    if (left)
        alarm(left);
}

// Parse argv. Exits 0 after --help, 2 with a one-line reason on a bad option.
// Touches no CUDA API: a bad option never waits for (or needs) a GPU.
static void parse_options(int argc, char **argv, const option_spec *spec, options *opt)
{
    char *base = strrchr(argv[0], '/');
    program_name = base ? base + 1 : argv[0];
    snprintf(step_name, sizeof step_name, "%s", spec->step);

    memset(opt, 0, sizeof *opt);
    opt->sizes[0] = spec->default_size;
    opt->size_count = 1;
    opt->blocks[0] = spec->blocks->default_block;
    opt->block_count = 1;
    opt->reps = spec->default_reps;
    opt->seed = 1;
    opt->watch = -1;

    enum { RECORDS_OPTION = 1000, FACTS_OPTION, PLANS_OPTION, WRITE_PLANS_OPTION, WATCH_OPTION, WATCHED_ONLY_OPTION, CENSUS_OPTION,
           EXACT_OPTION, EXACT_AT_OPTION, GPU_LOCK_OPTION, TIME_LIMIT_OPTION, GPU_DEADLINE_OPTION };
    static const struct option longopts[] = {
        {"size", required_argument, NULL, 'n'},  {"block", required_argument, NULL, 'b'},
        {"reps", required_argument, NULL, 'r'},  {"seed", required_argument, NULL, 's'},
        {"check", no_argument, NULL, 'c'},       {"machine", no_argument, NULL, 'm'},
        {"only", required_argument, NULL, 'o'},  {"help", no_argument, NULL, 'h'},
        {"records", required_argument, NULL, RECORDS_OPTION},
        {"facts", no_argument, NULL, FACTS_OPTION},
        {"plans", required_argument, NULL, PLANS_OPTION},
        {"write-plans", required_argument, NULL, WRITE_PLANS_OPTION},
        {"watch", required_argument, NULL, WATCH_OPTION},
        {"watched-only", no_argument, NULL, WATCHED_ONLY_OPTION},
        {"census", required_argument, NULL, CENSUS_OPTION},
        {"exact", no_argument, NULL, EXACT_OPTION},
        {"exact-at", required_argument, NULL, EXACT_AT_OPTION},
        {"gpu-lock", required_argument, NULL, GPU_LOCK_OPTION},
        {"time-limit", required_argument, NULL, TIME_LIMIT_OPTION},
        {"gpu-deadline", required_argument, NULL, GPU_DEADLINE_OPTION},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;  // we word the errors ourselves, on one line
    int c;
    while ((c = getopt_long(argc, argv, ":n:b:r:s:o:cmh", longopts, NULL)) != -1) {
        unsigned long long v;
        switch (c) {
        case 'n': parse_sizes(optarg, spec, opt); break;
        case 'b': parse_blocks(optarg, spec, opt); break;
        case 'r':
            if (!parse_count(optarg, &v) || v < 1 || v > 100000)
                usage_error("bad repetition count '%s': expected 1 to 100000", optarg);
            opt->reps = (int)v;
            break;
        case 's':
            if (!parse_count(optarg, &v))
                usage_error("bad seed '%s': expected a whole number", optarg);
            opt->seed = v;
            break;
        case 'c': opt->check_only = true; break;
        case 'm': opt->machine = true; break;
        case 'o': parse_roles(optarg, opt); break;
        case RECORDS_OPTION:
            open_records(optarg);
            opt->machine = true;
            break;
        case FACTS_OPTION: opt->facts = true; break;
        case PLANS_OPTION: opt->plans_in = optarg; break;
        case WRITE_PLANS_OPTION: opt->plans_out = optarg; break;
        case WATCH_OPTION:
            if (!parse_count(optarg, &v) || v > (1ull << 62))
                usage_error("bad round '%s' for --watch: expected a whole number below 2^62", optarg);
            opt->watch = (long long)v;
            break;
        case WATCHED_ONLY_OPTION: opt->watched_only = true; break;
        case CENSUS_OPTION: opt->census_out = optarg; break;
        case EXACT_OPTION: opt->exact_only = true; break;
        case EXACT_AT_OPTION: parse_exact_point(optarg, spec, opt); break;
        case GPU_LOCK_OPTION:
            open_gpu_lock(optarg);
            opt->gpu_lock = optarg;
            break;
        case TIME_LIMIT_OPTION:
            if (!parse_count(optarg, &v) || v < 1 || v > 100000000)
                usage_error("bad time limit '%s': expected 1 to 100000000 seconds", optarg);
            time_limit_s = (unsigned)v;
            break;
        case GPU_DEADLINE_OPTION:
            if (!parse_count(optarg, &v) || v < 1)
                usage_error("bad deadline '%s' for --gpu-deadline: expected seconds since 1970", optarg);
            gpu_deadline = v;
            break;
        case 'h': print_usage(spec); exit(EXIT_CORRECT);
        case ':': usage_error("option '%s' needs a value", argv[optind - 1]);
        default: {
            // A long option is named as it was typed: --check=1 is a known
            // option given a value it does not take, not an unknown -c.
            const char *given = argv[optind - 1];
            if (strncmp(given, "--", 2) == 0 && strchr(given, '=') && optopt)
                usage_error("option '%.*s' takes no value: '%s'", (int)(strchr(given, '=') - given), given, given);
            if (optopt && strncmp(given, "--", 2) != 0)
                usage_error("unknown option '-%c'", optopt);
            usage_error("unknown option '%s'", given);
        }
        }
    }
    if (optind < argc)
        usage_error("unexpected argument '%s'", argv[optind]);
    if (opt->watch >= 0 && opt->check_only)
        usage_error("--watch marks a round of the timing, and --check times nothing");
    if (opt->watched_only && opt->watch < 0)
        usage_error("--watched-only goes with --watch: it runs the watched round alone");
    if (opt->census_out && !opt->check_only)
        usage_error("--census goes with --check: the census is one more call after the checks");
    if (opt->exact_only && !opt->check_only)
        usage_error("--exact goes with --check: it calls each kernel once where a check calls it several times, and a timed run checks in full first");
    if (opt->exact_at && !opt->check_only)
        usage_error("--exact-at goes with --check: it adds a point checked as --exact checks, after the others");
    if (opt->exact_at && opt->exact_only)
        usage_error("--exact-at and --exact: --exact checks every point so already (give them with -n and -b)");
    if (opt->exact_at && opt->census_out)
        usage_error("--exact-at and --census: the census is a run of its own");
    if (opt->plans_in && opt->plans_out)
        usage_error("--plans and --write-plans: one run reads the plans, another writes them");
    if (gpu_deadline && !opt->gpu_lock)
        usage_error("--gpu-deadline goes with --gpu-lock: it bounds the wait for that lock");
    if (time_limit_s) {
        signal(SIGALRM, time_limit_reached);
        alarm(time_limit_s);
    }
}

// The facts this program uses itself, read once from the track's facts.
static struct {
    char name[64];          // the device record's track=
    char size_symbol[16];   // "n" or "N", in messages
    char ceiling[64];       // heads the % column: "copy", "cuBLAS"
} track_words;

// ===========================================================================
// Device
// ===========================================================================

static device_info device;
static bool device_opened = false;

// The L2 flush: a read of twice the cache's size. Reading, not writing, so the
// cache is left holding clean lines: a memset would leave dirty ones whose
// write-back the next kernel would pay for.
static int4 *flush_buffer;
static size_t flush_count;
static int *flush_sink;

// The buffer is zeroed once and only read: a bit set in it is a kernel's
// write past its own buffers (where it could keep something from one run to
// the next), and the sink says so (timed_loop fails the run).
__global__ void flush_l2_kernel(const int4 *buf, size_t count, int *sink)
{
    int acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        int4 v = buf[i];
        acc |= v.x | v.y | v.z | v.w;
    }
    if (acc != 0)  // the compiler cannot know it never is, so it keeps the loads
        *sink = 1;
}

// Open the current device and make sure this build has code for it.
// Exits 77 with one line when there is no usable device. A run that times
// nothing (blocking) waits for the GPU asleep instead of spinning a core:
// beside a grading's other runs, each waiting its turn of the GPU's time
// slices, a spinning wait takes a core that a sanitizer's analysis needs.
static const device_info *open_device(bool blocking)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        const char *why = count == 0 && err == cudaSuccess ? "no CUDA device found" : cudaGetErrorString(err);
        if (err == cudaErrorInsufficientDriver)
            why = "no NVIDIA driver, or one older than this program's CUDA runtime needs";
        fprintf(stderr, "%s: skipped: no usable CUDA device (%s)\n", program_name, why);
        exit(EXIT_NO_DEVICE);
    }
    set_activity("opening the GPU");
    CUDA_CHECK(cudaGetDevice(&device.ordinal));
    if (blocking)  // before the context is made: its flags are fixed then
        CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device.ordinal));
    snprintf(device.name, sizeof device.name, "%s", prop.name);
    device.cc_major = prop.major;
    device.cc_minor = prop.minor;
    device.sm_count = prop.multiProcessorCount;
    device.l2_bytes = (size_t)prop.l2CacheSize;
    device.global_mem_bytes = prop.totalGlobalMem;
    CUDA_CHECK(cudaDriverGetVersion(&device.driver_version));
    CUDA_CHECK(cudaRuntimeGetVersion(&device.runtime_version));

    // Does this build hold code for this GPU? Ask now, with a clear answer,
    // rather than at the first launch.
    cudaFuncAttributes attr;
    set_activity("looking for this GPU's code in the program");
    CUDA_CHECK(cudaFuncGetAttributes(&attr, flush_l2_kernel));

    set_activity("allocating the L2 flush buffer");
    size_t flush_bytes = 2 * device.l2_bytes;
    if (flush_bytes < ((size_t)8 << 20))
        flush_bytes = (size_t)8 << 20;
    flush_count = flush_bytes / sizeof(int4);
    flush_buffer = (int4 *)harness_alloc(flush_count * sizeof(int4));  // not the learner's to write
    CUDA_CHECK(cudaMemset(flush_buffer, 0, flush_count * sizeof(int4)));
    CUDA_CHECK(cudaMalloc(&flush_sink, sizeof(int)));
    CUDA_CHECK(cudaMemset(flush_sink, 0, sizeof(int)));
    device_opened = true;
    set_activity("%s", "");
    return &device;
}

const device_info *current_device(void)
{
    if (!device_opened)
        die(EXIT_CUDA, "internal error: current_device() before open_device()");
    return &device;
}

void require_device_memory(size_t bytes, const char *what)
{
    size_t free_bytes = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    char need[32], have[32];
    if (bytes > free_bytes)
        die(EXIT_USAGE, "%s needs %s of GPU memory and %s is free: choose a smaller --size", what,
            human_bytes((double)bytes, need, sizeof need), human_bytes((double)free_bytes, have, sizeof have));
}

void check_flush_sink(void)
{
    int wrote_past = 0;
    CUDA_CHECK(cudaMemcpy(&wrote_past, flush_sink, sizeof wrote_past, cudaMemcpyDeviceToHost));
    if (wrote_past)
        die(EXIT_MISMATCH, "a kernel wrote outside the buffers it was given (into the program's own memory, the L2 "
                           "flush's, which no run uses): a kernel may write only its arguments' buffers");
}

static void flush_l2(void)
{
    flush_l2_kernel<<<4 * device.sm_count, 256>>>(flush_buffer, flush_count, flush_sink);
    CUDA_CHECK_LAUNCH();
}

// ===========================================================================
// Timing
// ===========================================================================

typedef struct {
    double median_ms, q1_ms, q3_ms;
} timing;

// One row of the table; printed by print_results, in the Output section.
typedef struct {
    const char *id;     // short, stable, no spaces: what the grader matches
    kernel_role role;
    const char *label;  // what a person reads
    timing t;
    double rate;        // GB/s or GFLOP/s
    double pct_ceiling; // of the ceiling measured in the same run
    double x_start;     // speedup over the step's starting kernel (NAN: not shown)
    double x_first;     // speedup over the track's first kernel (NAN: not shown)
} result_row;

static void print_results(const options *opt, const char *config, const char *rate_unit, const char *ceiling_name,
                          const result_row *rows, int count);

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

// Linear interpolation between order statistics; `sorted` has `count` values.
static double quantile(const float *sorted, int count, double q)
{
    double pos = q * (count - 1);
    int lo = (int)pos;
    int hi = lo + 1 < count ? lo + 1 : lo;
    return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

// The watched round (--watch): what the grader's profiler looks at is a
// round of the timed run itself, drawn by the grader, so that no kernel can
// tell a watched call from a credited one by the calls before it: ncu
// profiles between cudaProfilerStart and Stop (--profile-from-start off).
static void watch_round(bool begin)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(begin ? cudaProfilerStart() : cudaProfilerStop());
}

// Times the entries as time_and_report describes; samples_ms holds count *
// reps floats, [entry][round].
static void time_interleaved(const timed_entry *entries, int count, const options *opt, float *samples_ms, timing *out)
{
    int reps = opt->reps;
    int watched = opt->watch >= 0 ? (int)(opt->watch % reps) : -1;
    cudaEvent_t *start = (cudaEvent_t *)malloc(sizeof(cudaEvent_t) * count * reps);
    cudaEvent_t *stop = (cudaEvent_t *)malloc(sizeof(cudaEvent_t) * count * reps);
    float *sorted = (float *)malloc(sizeof(float) * reps);
    if (!start || !stop || !sorted)
        die(EXIT_CUDA, "out of host memory");
    for (int i = 0; i < count * reps; i++) {
        CUDA_CHECK(cudaEventCreate(&start[i]));
        CUDA_CHECK(cudaEventCreate(&stop[i]));
    }

    // The GPU alone (--gpu-lock), from the warm-up to the last round's end:
    // nothing else of the grader's runs on it while the clocks ramp up and
    // the rounds are timed or profiled.
    CUDA_CHECK(cudaDeviceSynchronize());  // (nothing of this run's left on the GPU as it waits)
    double asked = seconds_now();
    gpu_lock_take(LOCK_EX);
    double got = seconds_now();

    // Warm-up: first launches pay for module loading and clock ramp-up. These
    // runs get fresh inputs and are checked like the timed ones.
    for (int w = 0; w < (opt->watched_only ? 0 : WARMUP_CALLS); w++)
        for (int i = 0; i < count; i++) {
            const timed_task *task = &entries[i].task;
            if (task->before)
                task->before(task->arg, w);
            task->run(task->arg);
            if (task->after)
                task->after(task->arg, w);
        }
    CUDA_CHECK(cudaDeviceSynchronize());

    for (int r = 0; r < reps; r++) {
        if (opt->watched_only && r != watched)
            continue;
        if (r == watched)
            watch_round(true);
        for (int k = 0; k < count; k++) {
            int i = (k + r) % count;
            const timed_task *task = &entries[i].task;
            if (task->before)
                task->before(task->arg, WARMUP_CALLS + r);
            flush_l2();
            CUDA_CHECK(cudaEventRecord(start[i * reps + r]));
            task->run(task->arg);
            CUDA_CHECK(cudaEventRecord(stop[i * reps + r]));
            if (task->after)
                task->after(task->arg, WARMUP_CALLS + r);
        }
        if (r == watched)
            watch_round(false);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    if (gpu_lock_fd >= 0) {
        double held = seconds_now() - got;
        gpu_lock_take(LOCK_SH);
        // The grader's log of who held the GPU alone (grading/bench reads it).
        if (opt->machine)
            print_record("lock", "waited=%.3f\theld=%.3f", got - asked, held);
        else
            printf("lock\twaited=%.3f\theld=%.3f\n", got - asked, held);
    }
    check_flush_sink();

    for (int i = 0; i < count && !opt->watched_only; i++) {
        for (int r = 0; r < reps; r++) {
            CUDA_CHECK(cudaEventElapsedTime(&samples_ms[i * reps + r], start[i * reps + r], stop[i * reps + r]));
            sorted[r] = samples_ms[i * reps + r];
        }
        qsort(sorted, reps, sizeof(float), compare_floats);
        out[i].median_ms = quantile(sorted, reps, 0.5);
        out[i].q1_ms = quantile(sorted, reps, 0.25);
        out[i].q3_ms = quantile(sorted, reps, 0.75);
    }
    for (int i = 0; i < count * reps; i++) {
        CUDA_CHECK(cudaEventDestroy(start[i]));
        CUDA_CHECK(cudaEventDestroy(stop[i]));
    }
    free(start);
    free(stop);
    free(sorted);
}

// The median over rounds of samples_a[r] / samples_b[r]: how many times faster b is than a.
static double median_ratio(const float *samples_a, const float *samples_b, int reps)
{
    float *ratios = (float *)malloc(sizeof(float) * reps);
    if (!ratios)
        die(EXIT_CUDA, "out of host memory");
    for (int r = 0; r < reps; r++)
        ratios[r] = samples_a[r] / samples_b[r];
    qsort(ratios, reps, sizeof(float), compare_floats);
    double m = quantile(ratios, reps, 0.5);
    free(ratios);
    return m;
}

// Time the entries and print the table (or, with --machine, a record per row).
// `config` starts every record ("n=1024\tblock=256"); `rate_unit` is "GB/s" or
// "GFLOP/s"; `ceiling_name` heads the percentage column ("copy", "cuBLAS").
//
// First a few untimed rounds, then opt->reps rounds in which every entry runs
// once, in an order rotated each round so that none always goes first. Each
// run is preceded by its task's `before` (fresh inputs, a poisoned output)
// and a flush of the L2 cache, so that no run finds its inputs left in the
// cache by the one before, and so that the GPU is busy while the host
// enqueues the run: launch overhead on the host stays out of the figures.
//
// Entry 0 is the ceiling, entry `first` the track's first kernel, entry
// `start` the step's starting kernel (-1: not timed in this run, under --only;
// the speedup over it is then left out). Rates are work per second (GB/s or GFLOP/s, with
// work in bytes or flops); shares are of the ceiling measured in this run;
// speedups are the median over rounds of the paired ratio of times, so that
// drift in clocks or temperature over the run cancels out.
static void time_and_report(const options *opt, const char *config, const timed_entry *entries, int count, int start,
                            int first, const char *rate_unit, const char *ceiling_name)
{
    float *samples = (float *)malloc(sizeof(float) * count * opt->reps);
    timing *t = (timing *)malloc(sizeof *t * count);
    result_row *rows = (result_row *)malloc(sizeof *rows * count);
    if (!samples || !t || !rows)
        die(EXIT_CUDA, "out of host memory");
    time_interleaved(entries, count, opt, samples, t);
    if (opt->watched_only)  // nothing was timed
        count = 0;
    for (int i = 0; i < count; i++) {
        const float *mine = &samples[i * opt->reps];
        double rate = entries[i].work / t[i].median_ms / 1e6;  // per ms -> per s, then 1e9
        bool ceiling = i == 0;
        rows[i] = (result_row){entries[i].id,
                               entries[i].role,
                               entries[i].label,
                               t[i],
                               rate,
                               ceiling ? 100.0 : 100.0 * rate / rows[0].rate,
                               ceiling || start < 0 ? NAN : median_ratio(&samples[start * opt->reps], mine, opt->reps),
                               ceiling || first < 0 ? NAN : median_ratio(&samples[first * opt->reps], mine, opt->reps)};
    }
    if (count)
        print_results(opt, config, rate_unit, ceiling_name, rows, count);
    free(samples);
    free(t);
    free(rows);
}

// ===========================================================================
// Output
// ===========================================================================

const char *human_bytes(double bytes, char *buf, size_t len)
{
    const char *units[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 4) {
        bytes /= 1000.0;
        u++;
    }
    snprintf(buf, len, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    return buf;
}

static FILE *records(void)
{
    return records_out ? records_out : stdout;
}

void print_record(const char *kind, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    fprintf(records(), "%s\t", kind);
    vfprintf(records(), format, ap);
    fputc('\n', records());
    va_end(ap);
}

// Print the device header (table) or the device record (--machine).
static void print_device(const options *opt, const char *step, const char *track_name)
{
    const device_info *d = current_device();
    char l2[32], mem[32];
    human_bytes((double)d->l2_bytes, l2, sizeof l2);
    human_bytes((double)d->global_mem_bytes, mem, sizeof mem);
    if (opt->machine) {
        print_record("device",
                     "step=%s\tname=%s\tcc=%d.%d\tsms=%d\tl2_bytes=%zu\tmemory_bytes=%zu\truntime=%d.%d\tdriver=%d.%d"
                     "\ttrack=%s",
                     step, d->name, d->cc_major, d->cc_minor, d->sm_count, d->l2_bytes, d->global_mem_bytes,
                     d->runtime_version / 1000, d->runtime_version % 1000 / 10, d->driver_version / 1000,
                     d->driver_version % 1000 / 10, track_name);
        return;
    }
    printf("%s on %s (sm_%d%d, %d SMs, %s L2, %s), CUDA runtime %d.%d, driver %d.%d\n", step, d->name, d->cc_major,
           d->cc_minor, d->sm_count, l2, mem, d->runtime_version / 1000, d->runtime_version % 1000 / 10,
           d->driver_version / 1000, d->driver_version % 1000 / 10);
}

// " 1.61x" or blanks: a speedup cell.
static const char *speedup_cell(double x, char *buf, size_t len)
{
    if (isnan(x))
        snprintf(buf, len, "%8s", "");
    else
        snprintf(buf, len, "%7.2fx", x);
    return buf;
}

static void print_results(const options *opt, const char *config, const char *rate_unit, const char *ceiling_name,
                          const result_row *rows, int count)
{
    if (opt->machine) {
        for (int i = 0; i < count; i++) {
            const result_row *row = &rows[i];
            char speedups[64] = "";
            if (!isnan(row->x_start))
                snprintf(speedups, sizeof speedups, "\tx_start=%.4f", row->x_start);
            if (!isnan(row->x_first))
                snprintf(speedups + strlen(speedups), sizeof speedups - strlen(speedups), "\tx_first=%.4f",
                         row->x_first);
            print_record("time", "%s\tid=%s\trole=%s\tlabel=%s\tms=%.5f\tq1_ms=%.5f\tq3_ms=%.5f\trate=%.2f\tunit=%s"
                                 "\tpct_ceiling=%.2f%s",
                         config, row->id, role_names[row->role], row->label, row->t.median_ms, row->t.q1_ms,
                         row->t.q3_ms, row->rate, rate_unit, row->pct_ceiling, speedups);
        }
        return;
    }
    int width = 6;
    for (int i = 0; i < count; i++) {
        int len = (int)(strlen(rows[i].label) + strlen(role_names[rows[i].role]) + 3);
        if (len > width)
            width = len;
    }
    printf("  %-*s %10s %8s %9s %9s %8s %8s\n", width, "kernel", "median ms", "spread", rate_unit, "% of", "vs",
           "vs");
    printf("  %-*s %10s %8s %9s %9s %8s %8s\n", width, "", "", "(IQR/2)", "", ceiling_name, "start", "first");
    for (int i = 0; i < count; i++) {
        const result_row *row = &rows[i];
        char name[256], xs[16], xf[16];
        snprintf(name, sizeof name, "%s [%s]", row->label, role_names[row->role]);
        double spread = 100.0 * (row->t.q3_ms - row->t.q1_ms) / (2.0 * row->t.median_ms);
        printf("  %-*s %10.4f   ±%4.1f%% %9.1f %8.1f%% %s %s\n", width, name, row->t.median_ms, spread, row->rate,
               row->pct_ceiling, speedup_cell(row->x_start, xs, sizeof xs), speedup_cell(row->x_first, xf, sizeof xf));
    }
}

// ===========================================================================
// The flow of a step
// ===========================================================================

// In the order of kernel_role (the declaration in harness.h holds ROLE_COUNT
// names: one missing here and the two do not compile together).
const char *const role_names[] = {"ceiling", "first", "start", "given", "yours", "beyond", "library"};

// "256", or "32x8" where blocks are 2-D: a block as the records write it.
static const char *block_text(const block_rule *rule, block_shape b, char *buf, size_t len)
{
    if (rule->two_d)
        snprintf(buf, len, "%dx%d", b.x, b.y);
    else
        snprintf(buf, len, "%d", b.x);
    return buf;
}

static bool same_kernel(const step_kernel *a, const step_kernel *b)
{
    return a->run == b->run;
}

// Whether this program holds the kernel's host function: the given kernels,
// and those past the lesson built into the reference solution. The learner's
// are declared weak in main.cu and stay undefined here: the planner holds them.
static bool in_program(const step_kernel *k)
{
    return k->run != NULL;
}

// The ids the planner is asked about: the learner's kernels, and those past
// the lesson that this program does not hold (the solution's file may define
// them). Returns how many.
static int learner_ids(const step_spec *s, const char **ids)
{
    int count = 0;
    for (int i = 0; i < s->yours_count; i++)
        ids[count++] = s->yours[i].id;
    for (int i = 0; i < s->beyond_count; i++)
        if (!in_program(&s->beyond[i]))
            ids[count++] = s->beyond[i].id;
    return count;
}

// Who runs, into cs: in --check mode the learner's kernels and those past the
// lesson, when timing everything that will be timed -- or, with --only, those
// of its roles. Returns how many; *graded is the index of the last of the learner's kernels (-1
// when --only leaves them out).
static int line_up(const track *t, const step_spec *s, const options *opt, contender *cs, int *graded)
{
    int count = 0;
    unsigned roles = opt->only ? opt->only : opt->check_only ? 1u << ROLE_YOURS | 1u << ROLE_BEYOND : ~0u;
#define ENLIST(kernel_ptr, role)                                                          \
    do {                                                                                  \
        if (roles & (1u << (role)))                                                       \
            cs[count++] = (contender){(kernel_ptr), (role), !in_program(kernel_ptr), false}; \
    } while (0)
    if (!same_kernel(s->start, t->first))  // the first step's start is the track's first kernel
        ENLIST(t->first_timed, ROLE_FIRST);
    ENLIST(s->start, ROLE_START);
    for (int i = 0; i < s->compare_count; i++)
        ENLIST(&s->compare[i], ROLE_GIVEN);
    *graded = -1;
    for (int i = 0; i < s->yours_count; i++) {
        if (!planned(s->yours[i].id))
            die(EXIT_USAGE, "your file does not define the host function of '%s', which main.cu lists: did you rename it?",
                s->yours[i].label);
        if (roles & (1u << ROLE_YOURS))
            *graded = count;
        ENLIST(&s->yours[i], ROLE_YOURS);
    }
    for (int i = 0; i < s->beyond_count; i++)
        if (in_program(&s->beyond[i]) || planned(s->beyond[i].id))  // only the reference solution defines them
            ENLIST(&s->beyond[i], ROLE_BEYOND);
    if (s->library && in_program(s->library))
        ENLIST(s->library, ROLE_LIBRARY);
#undef ENLIST
    if (*graded >= 0)
        cs[*graded].graded = true;
    return count;
}

const plan *contender_plan(const contender *c, const flow_point *at)
{
    if (!c->planned)
        return NULL;
    const plan *p = plan_for(c->kernel->id, at->n, at->block);
    if (!p || !p->defined)
        die(EXIT_CUDA, "internal error: no plan of '%s' at %llu", c->kernel->label, at->n);
    return p;
}

// The launch audit (audit.h), before anything runs: the graded function's
// plan at every size and block against the step's facts, and every planned
// function's use of its buffers. A plan that would write outside what it was
// given is not run at all: the program says so and exits 1.
static int audit_plans(const track *t, const options *opt, const step_spec *s, const contender *cs, int count,
                       int graded, bool module)
{
    int findings = module ? audit_module(opt, s->name) : 0, unsafe = 0;
    for (int i = 0; i < opt->size_count; i++)
        for (int b = 0; b < opt->block_count; b++) {
            flow_point at = {opt, s->name, opt->sizes[i], opt->blocks[b]};
            size_t bytes[PLAN_MAX_REGIONS];
            int regions = t->region_bytes(at.n, at.block, bytes);
            for (int c = 0; c < count; c++) {
                const plan *p = contender_plan(&cs[c], &at);
                if (p)
                    findings += audit_plan(opt, s->name, p, cs[c].kernel->label, bytes, regions, c == graded, &unsafe);
            }
        }
    if (unsafe) {
        if (opt->machine)
            print_record("summary", "step=%s\truns=0\twrong=0\taudit_findings=%d\tseed=%llu\tresult=audit", s->name,
                         findings, opt->seed);
        else
            printf("FAILED: the launch audit found %d problem(s), among them addresses outside the buffers your "
                   "function was given: nothing was run\n",
                   findings);
        exit(EXIT_MISMATCH);
    }
    return findings;
}

// Time the ceiling and every contender; print the table. Returns how many
// left a wrong result in any run.
static int time_contenders(const track *t, const flow_point *at, const char *block, const contender *cs, int count)
{
    const options *opt = at->opt;
    int entries_count = count + 1;  // the ceiling first
    timed_entry *entries = (timed_entry *)calloc(entries_count, sizeof *entries);
    if (!entries)
        die(EXIT_CUDA, "out of host memory");
    t->timed_tasks(at, cs, count, entries);
    entries[0].role = ROLE_CEILING;
    // The speedup columns: over the step's start and over the track's first
    // kernel (the start itself in the first step); absent under --only
    // without them.
    int start = -1, first = -1;
    for (int i = 0; i < count; i++) {
        entries[i + 1].id = cs[i].kernel->id;
        entries[i + 1].role = cs[i].role;
        entries[i + 1].label = cs[i].kernel->label;
        if (cs[i].role == ROLE_START)
            start = i + 1;
        if (cs[i].role == ROLE_FIRST || (cs[i].role == ROLE_START && same_kernel(cs[i].kernel, t->first)))
            first = i + 1;
    }
    char config[160];
    snprintf(config, sizeof config, "step=%s\tn=%llu\tblock=%s\treps=%d", at->step, at->n, block, opt->reps);
    set_activity("timing at %s=%llu, block %s", track_words.size_symbol, at->n, block);
    time_and_report(opt, config, entries, entries_count, start, first, t->rate_unit, track_words.ceiling);

    // Every run of each kernel must have left a right result too.
    int wrong = 0;
    for (int i = 0; i < count; i++) {
        char why[256];
        if (t->timed_right(at, i, why, sizeof why))
            continue;
        wrong++;
        fprintf(opt->machine ? stderr : stdout,
                "MISMATCH: '%s' [%s] %s: every run had inputs of its own, so a result that is right in the checks and "
                "wrong here came from an earlier run's state, or from a race\n",
                cs[i].kernel->label, role_names[cs[i].role], why);
    }
    set_activity("%s", "");
    free(entries);
    return wrong;
}

// After timing: fresh values in the exact inputs' buffers, and every kernel
// checked on them. Returns how many were wrong.
static int check_refilled(const track *t, const flow_point *at, const contender *cs, int count, int block_index)
{
    t->refill(at, block_index);
    int wrong = 0;
    for (int c = 0; c < count; c++)
        if (!t->check(at, &cs[c], false)) {
            fprintf(at->opt->machine ? stderr : stdout, "MISMATCH: '%s' [%s] was wrong once %s\n", cs[c].kernel->label,
                    role_names[cs[c].role], t->fresh_inputs);
            wrong++;
        }
    return wrong;
}

// The fact KEY of the track's facts, into out ("" where it has none).
static const char *track_fact(const track *t, const char *key, char *out, size_t len)
{
    size_t k = strlen(key);
    out[0] = '\0';
    for (const char *f = t->facts; f && *f; f += strcspn(f, "\t") + (f[strcspn(f, "\t")] ? 1 : 0))
        if (strncmp(f, key, k) == 0 && f[k] == '=') {
            snprintf(out, len, "%.*s", (int)strcspn(f + k + 1, "\t"), f + k + 1);
            break;
        }
    return out;
}

static void read_track_words(const track *t)
{
    track_fact(t, "name", track_words.name, sizeof track_words.name);
    track_fact(t, "size_symbol", track_words.size_symbol, sizeof track_words.size_symbol);
    track_fact(t, "ceiling", track_words.ceiling, sizeof track_words.ceiling);
    if (!track_words.name[0] || !track_words.size_symbol[0] || !track_words.ceiling[0])
        die(EXIT_USAGE, "the track's TRACK_FACTS lack a name, size_symbol or ceiling (common/tools/track-facts.awk)");
}

int step_main(int argc, char **argv, const track *t, track_call call, const step_spec *s)
{
    (void)call;  // the planner's (planner.cpp): this program calls only what it holds, through the track's hooks
    if (!t)
        die(EXIT_USAGE, "%s: its track's file is not linked into this program (common/step.mk links tracks/TRACK/TRACK.cu)",
            s->name);
    const block_rule *blocks = s->blocks ? s->blocks : t->blocks;
    option_spec spec = {s->name, s->summary, t->size_meaning, t->default_size, t->max_size, blocks, t->default_reps};
    options opt;
    parse_options(argc, argv, &spec, &opt);
    read_track_words(t);
    if (opt.facts) {  // as common/tools/track-facts.awk reads them from the file: no trailing tab
        printf("track\t%.*s\n", (int)strlen(t->facts) - 1, t->facts);
        return EXIT_CORRECT;
    }
    audit_set_facts(s->audit, track_words.size_symbol);  // a malformed STEP_AUDIT exits 2 here, before any CUDA call
    gpu_lock_take(LOCK_SH);  // before the first CUDA call: a run alone is not disturbed by this one's start
    if (s->yours_count == 0)
        die(EXIT_USAGE, "%s lists none of the learner's kernels: its main.cu needs at least one in `yours`", s->name);

    // The first, the start and the library besides the step's lists.
    contender *cs = (contender *)calloc(3 + s->compare_count + s->yours_count + s->beyond_count, sizeof *cs);
    const char **ids = (const char **)calloc(s->yours_count + s->beyond_count, sizeof *ids);
    if (!cs || !ids)
        die(EXIT_USAGE, "out of host memory");

    // Which of its functions the learner's file defines: before the GPU, so
    // that a bad --only is refused without one.
    int id_count = learner_ids(s, ids);
    if (opt.plans_out) {
        open_device(true);
        module_open();
        plans_write(ids, id_count, &opt, opt.plans_out);
        return EXIT_CORRECT;
    }
    if (opt.plans_in)
        plans_read(opt.plans_in);
    else
        plans_survey(ids, id_count);
    int graded;
    int count = line_up(t, s, &opt, cs, &graded);
    if (count == 0)
        usage_error("--only leaves no kernel to run here%s",
                    opt.only & (1u << ROLE_BEYOND) ? " (the kernels past the lesson are in the reference solution only)" : "");

    // The runs' points: the sizes at every block, then --exact-at's one, its
    // calls exact (passes[1]: the same options at that point alone).
    options exact = opt;
    exact.sizes[0] = opt.exact_size;
    exact.size_count = 1;
    exact.blocks[0] = opt.exact_block;
    exact.block_count = 1;
    exact.exact_only = true;
    const options *passes[2] = {&opt, &exact};
    int pass_count = opt.exact_at ? 2 : 1;

    open_device(opt.check_only);
    module_open();
    plans_make(ids, id_count, &opt, opt.exact_at ? &exact : NULL);  // before any kernel runs, and the planner is gone after it
    if (t->open)
        t->open();
    print_device(&opt, s->name, track_words.name);
    if (opt.machine)  // what the scripts know of the track, beside what they read of its runs
        print_record("track", "%.*s", (int)strlen(t->facts) - 1, t->facts);
    int findings = 0;
    for (int pass = 0; pass < pass_count; pass++)
        findings += audit_plans(t, passes[pass], s, cs, count, graded, pass == 0);

    int failures = 0, runs = 0;
    for (int pass = 0; pass < pass_count; pass++) {
        const options *o = passes[pass];
        for (int i = 0; i < o->size_count; i++) {
            flow_point at = {o, s->name, o->sizes[i], {0, 0}};  // the block is set below
            t->prepare(&at, count);
            for (int b = 0; b < o->block_count; b++) {
                at.block = o->blocks[b];
                char block[32];
                block_text(blocks, at.block, block, sizeof block);
                if (t->use_block)
                    t->use_block(&at);
                int wrong = 0;
                // The guarded call catches a read past the end by its sum; under
                // the sanitizers (--exact) memcheck sees it in the exact one. The
                // profiler's run (--watched-only) makes the watched round's calls
                // alone: the correctness tests checked the rest.
                for (int c = 0; c < count && !o->watched_only; c++) {
                    if (!o->exact_only)
                        wrong += !t->check(&at, &cs[c], true);
                    wrong += !t->check(&at, &cs[c], false);
                }
                runs += o->watched_only ? 0 : (o->exact_only ? 1 : 2) * count;
                if (!o->check_only && wrong == 0) {
                    if (!o->machine && !o->watched_only) {
                        char size[160];
                        t->describe(&at, size, sizeof size);
                        printf("\n%s, block %s, %d repetitions; all %d kernels correct\n", size, block, o->reps, count);
                    }
                    wrong += time_contenders(t, &at, block, cs, count);
                    if (graded >= 0 && !o->watched_only) {
                        wrong += check_refilled(t, &at, cs, count, b);
                        runs += count;
                    }
                }
                failures += wrong;
            }
            t->release();
        }
    }
    if (opt.machine)
        print_record("summary", "step=%s\truns=%d\twrong=%d\taudit_findings=%d\tseed=%llu\tresult=%s", s->name, runs,
                     failures, findings, opt.seed, failures ? "mismatch" : findings ? "audit" : "correct");
    else if (opt.check_only || failures)
        printf("%s: %d of %d checked runs wrong (%d sizes x %d %s%s)\n", failures ? "FAILED" : "correct", failures, runs,
               opt.size_count, opt.block_count, t->checks_cover, opt.exact_at ? ", and one point exact" : "");
    if (findings && !opt.machine)
        printf("FAILED: the launch audit found %d problem(s): see the AUDIT lines above\n", findings);
    if (t->close)
        t->close();
    free(cs);
    free(ids);
    return failures || findings ? EXIT_MISMATCH : EXIT_CORRECT;
}
