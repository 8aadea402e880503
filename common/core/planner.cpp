// planner.cpp: the planner (plan.h), the program that runs the learner's host
// code and nothing else. Linked with the learner's file, the step's main.cu
// and its track's launch helpers (passes.cu), instead of the CUDA runtime:
// the runtime's calls a step's function may make are defined here, and they
// write a launch down instead of running it. A call that is not here (a
// copy, an allocation, a stream, a library) does not link: the build says
// which, and that a step's function only launches kernels.
//
// What the planner is told and answers is in plan.h. It runs confined (no
// files, no network, no GPU, no new processes; plan.cu), so whatever the host
// code does, all it can hand back is a plan, and the plan is audited.
#include "harness.h"
#include "plan.h"

#include <cuda_occupancy.h>
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ===========================================================================
// What the program told the planner: the GPU, and the learner's kernels
// ===========================================================================

static cudaDeviceProp device_props;
enum { MAX_ATTRIBUTES = 256, MAX_KERNELS = 128, MAX_PARAMS = 64, MAX_LINE = 1 << 16 };
static int attributes[MAX_ATTRIBUTES];
static bool attribute_known[MAX_ATTRIBUTES];

typedef struct {
    char name[256];                 // mangled, as the module names it
    int param_count;
    unsigned param_size[MAX_PARAMS], param_offset[MAX_PARAMS];
    unsigned params_bytes;
    cudaFuncAttributes attributes;  // as the GPU reports them for the module's kernel
    const void *stub;               // the host stub that launches it here, once registered
} kernel_info;

static kernel_info kernels[MAX_KERNELS];
static int kernel_count;

// The plans go here (PLAN_FD); what the host code prints goes where it always does.
static FILE *plans;

static const char *program_name = "planner";

// ===========================================================================
// What a step's function may use of the harness
// ===========================================================================

// The function stopped the program: say so in the plans, then stop.
void die(int code, const char *format, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    for (char *c = message; *c; c++)
        if (*c == '\t' || *c == '\n')
            *c = ' ';
    if (plans) {
        fprintf(plans, "failed\tcode=%d\tmessage=%s\n", code, message);
        fflush(plans);
    }
    fprintf(stderr, "%s: %s\n", program_name, message);
    exit(code);
}

void set_activity(const char *format, ...) { (void)format; }

// A failed assert() in a step's function (glibc's, which the planner's own
// stands in for): the function stopped, as die() would have said.
extern "C" void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function)
{
    die(EXIT_USAGE, "%s:%u: %s: assertion '%s' failed", file, line, function, assertion);
}

void cuda_check(cudaError_t err, const char *call, const char *file, int line)
{
    if (err != cudaSuccess)
        die(EXIT_CUDA, "CUDA error %s at %s:%d: %s", cudaGetErrorName(err), file, line, call);
}

static device_info device;

const device_info *current_device(void) { return &device; }

// ===========================================================================
// The kernels this program registered, by host stub
// ===========================================================================

static kernel_info *kernel_named(const char *name)
{
    for (int i = 0; i < kernel_count; i++)
        if (strcmp(kernels[i].name, name) == 0)
            return &kernels[i];
    return NULL;
}

enum { MAX_STUBS = 512 };
static struct {
    const void *stub;
    const char *name;
} stubs[MAX_STUBS];
static int stub_count;

static const char *stub_name(const void *stub)
{
    for (int i = 0; i < stub_count; i++)
        if (stubs[i].stub == stub)
            return stubs[i].name;
    return NULL;
}

extern "C" {

void **__cudaRegisterFatBinary(void *fat_cubin)
{
    static void *handle;
    handle = fat_cubin;
    return &handle;
}

void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }

void __cudaUnregisterFatBinary(void **handle) { (void)handle; }

char __cudaInitModule(void **handle)
{
    (void)handle;
    return 1;
}

void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun, const char *device_name,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *block, dim3 *grid, int *warp_size)
{
    (void)handle, (void)device_fun, (void)thread_limit, (void)tid, (void)bid, (void)block, (void)grid,
        (void)warp_size;
    if (stub_count < MAX_STUBS)
        stubs[stub_count++] = {host_fun, device_name};
}

// __device__ variables live in the program's copy of the module; here they
// are never touched (the host code may not copy to or from them).
void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *device_name, int ext,
                       size_t size, int constant, int global)
{
    (void)handle, (void)host_var, (void)device_address, (void)device_name, (void)ext, (void)size, (void)constant,
        (void)global;
}

}  // extern "C"

// ===========================================================================
// Writing a plan down
// ===========================================================================

static cudaError_t last_error = cudaSuccess;

static cudaError_t fail_call(cudaError_t err)
{
    last_error = err;
    return err;
}

static void write_hex(const unsigned char *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++)
        fprintf(plans, "%02x", bytes[i]);
}

// Another stream than the default one: the three names of the default
// stream (0, cudaStreamLegacy, and cudaStreamPerThread: one thread's default
// stream, this planner's only thread) are one stream here, as the program
// replays every plan on the default stream, in order.
static int other_stream(cudaStream_t stream)
{
    return stream != 0 && stream != cudaStreamLegacy && stream != cudaStreamPerThread;
}

// One launch: its kernel by the name the module gives it, its shape, and its
// arguments laid out as the kernel's parameters are (the sizes and offsets
// the program read from the module).
static cudaError_t write_launch(const void *stub, dim3 grid, dim3 block, void **args, size_t smem,
                                cudaStream_t stream)
{
    const char *name = stub_name(stub);
    kernel_info *k = name ? kernel_named(name) : NULL;
    if (!name)
        return fail_call(cudaErrorInvalidDeviceFunction);
    if (!k) {
        // A kernel of the workbook's, not of the learner's file: the program
        // refuses it by name.
        fprintf(plans, "launch\tkernel=%s\tgrid=%u,%u,%u\tblock=%u,%u,%u\tsmem=%zu\tstream=%d\tparams=\n", name,
                grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, other_stream(stream));
        return cudaSuccess;
    }
    unsigned char buffer[4096];
    if (k->params_bytes > sizeof buffer)
        die(EXIT_CUDA, "%s has %u bytes of parameters, more than a plan carries", name, k->params_bytes);
    memset(buffer, 0, sizeof buffer);
    for (int i = 0; i < k->param_count; i++)
        memcpy(buffer + k->param_offset[i], args[i], k->param_size[i]);
    fprintf(plans, "launch\tkernel=%s\tgrid=%u,%u,%u\tblock=%u,%u,%u\tsmem=%zu\tstream=%d\tparams=", name, grid.x,
            grid.y, grid.z, block.x, block.y, block.z, smem, other_stream(stream));
    write_hex(buffer, k->params_bytes);
    fputc('\n', plans);
    return cudaSuccess;
}

// ===========================================================================
// The runtime's calls a step's function may make
// ===========================================================================

static struct {
    dim3 grid, block;
    size_t smem;
    cudaStream_t stream;
} pushed;

extern "C" {

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem, struct CUstream_st *stream)
{
    pushed.grid = grid, pushed.block = block, pushed.smem = smem, pushed.stream = stream;
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *smem, void *stream)
{
    *grid = pushed.grid, *block = pushed.block, *smem = pushed.smem;
    *(cudaStream_t *)stream = pushed.stream;
    return cudaSuccess;
}

#if CUDART_VERSION >= 12000
// nvcc 12.8 and newer launch through a kernel handle: here, the stub itself.
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *stub)
{
    *kernel = (cudaKernel_t)stub;
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t smem,
                               cudaStream_t stream)
{
    return write_launch((const void *)kernel, grid, block, args, smem, stream);
}

cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    if (config->numAttrs != 0)
        return fail_call(cudaErrorNotSupported);  // clusters and the like: none of this workbook's steps
    return write_launch(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream);
}
#endif

cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                                       cudaStream_t stream)
{
    return write_launch(func, grid, block, args, smem, stream);
}

static cudaError_t write_memset(void *to, int value, size_t bytes, cudaStream_t stream)
{
    fprintf(plans, "memset\taddress=%llx\tvalue=%d\tbytes=%zu\tstream=%d\n", (unsigned long long)(uintptr_t)to,
            value & 0xff, bytes, other_stream(stream));
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemset(void *to, int value, size_t bytes) { return write_memset(to, value, bytes, 0); }

cudaError_t CUDARTAPI cudaMemsetAsync(void *to, int value, size_t bytes, cudaStream_t stream)
{
    return write_memset(to, value, bytes, stream);
}

cudaError_t CUDARTAPI cudaGetLastError(void)
{
    cudaError_t err = last_error;
    last_error = cudaSuccess;
    return err;
}

cudaError_t CUDARTAPI cudaPeekAtLastError(void) { return last_error; }

// Nothing runs here, so there is nothing to wait for: the program waits
// after each replayed call, and reports a fault there.
cudaError_t CUDARTAPI cudaDeviceSynchronize(void) { return cudaSuccess; }

cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream)
{
    return other_stream(stream) ? fail_call(cudaErrorInvalidResourceHandle) : cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDevice(int *device_ordinal)
{
    *device_ordinal = 0;  // the program's device, whichever it is there
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaSetDevice(int device_ordinal)
{
    return device_ordinal == 0 ? cudaSuccess : fail_call(cudaErrorInvalidDevice);
}

cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device_ordinal)
{
    if (device_ordinal != 0)
        return fail_call(cudaErrorInvalidDevice);
    if ((int)attr < 0 || (int)attr >= MAX_ATTRIBUTES || !attribute_known[attr])
        return fail_call(cudaErrorInvalidValue);
    *value = attributes[attr];
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device_ordinal)
{
    if (device_ordinal != 0)
        return fail_call(cudaErrorInvalidDevice);
    *prop = device_props;
    return cudaSuccess;
}

static kernel_info *kernel_of(const void *func)
{
    const char *name = stub_name(func);
    return name ? kernel_named(name) : NULL;
}

cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    kernel_info *k = kernel_of(func);
    if (!k)
        return fail_call(cudaErrorInvalidDeviceFunction);
    *attr = k->attributes;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    kernel_info *k = kernel_of(func);
    if (!k)
        return fail_call(cudaErrorInvalidDeviceFunction);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize)
        k->attributes.maxDynamicSharedSizeBytes = value;
    fprintf(plans, "attribute\tkernel=%s\tattribute=%d\tvalue=%d\n", k->name, (int)attr, value);
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config)
{
    (void)config;
    return kernel_of(func) ? cudaSuccess : fail_call(cudaErrorInvalidDeviceFunction);
}

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func,
                                                                             int block_size, size_t smem,
                                                                             unsigned int flags)
{
    kernel_info *k = kernel_of(func);
    if (!k)
        return fail_call(cudaErrorInvalidDeviceFunction);
    cudaOccDeviceProp props(device_props);
    cudaOccFuncAttributes attrs(k->attributes);
    cudaOccDeviceState state;
    cudaOccResult result;
    (void)flags;
    if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &props, &attrs, &state, block_size, smem) !=
        CUDA_OCC_SUCCESS)
        return fail_call(cudaErrorInvalidValue);
    *blocks = result.activeBlocksPerMultiprocessor;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size,
                                                                    size_t smem)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size, smem, 0);
}

const char *CUDARTAPI cudaGetErrorName(cudaError_t err)
{
    switch (err) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "cudaError";
    }
}

const char *CUDARTAPI cudaGetErrorString(cudaError_t err)
{
    switch (err) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidDeviceFunction: return "not a kernel of this file";
    case cudaErrorInvalidResourceHandle: return "only the default stream is used here";
    case cudaErrorNotSupported: return "launch attributes are not used in this workbook";
    default: return "invalid argument";
    }
}

}  // extern "C"

// ===========================================================================
// Serving the program
// ===========================================================================

// The value of key=value in a line of tab-separated fields, into out.
static bool field(const char *line, const char *key, char *out, size_t len)
{
    size_t k = strlen(key);
    for (const char *p = line; p; p = strchr(p, '\t')) {
        if (*p == '\t')
            p++;
        if (strncmp(p, key, k) == 0 && p[k] == '=') {
            size_t n = strcspn(p + k + 1, "\t\n");
            if (n >= len)
                return false;
            memcpy(out, p + k + 1, n);
            out[n] = '\0';
            return true;
        }
    }
    return false;
}

static void from_hex(const char *hex, void *out, size_t len)
{
    unsigned char *bytes = (unsigned char *)out;
    for (size_t i = 0; i < len && hex[2 * i] && hex[2 * i + 1]; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        bytes[i] = (unsigned char)v;
    }
}

static void take_kernel(const char *line, char *value)
{
    if (kernel_count == MAX_KERNELS || !field(line, "name", value, MAX_LINE))
        die(EXIT_USAGE, "bad kernel line from the program");
    kernel_info *k = &kernels[kernel_count++];
    snprintf(k->name, sizeof k->name, "%.255s", value);
    if (field(line, "params", value, MAX_LINE)) {
        for (char *item = strtok(value, ","); item && k->param_count < MAX_PARAMS; item = strtok(NULL, ",")) {
            unsigned size = 0, offset = 0;
            sscanf(item, "%u@%u", &size, &offset);
            k->param_size[k->param_count] = size;
            k->param_offset[k->param_count++] = offset;
            if (offset + size > k->params_bytes)
                k->params_bytes = offset + size;
        }
    }
    if (field(line, "attributes", value, MAX_LINE))
        from_hex(value, &k->attributes, sizeof k->attributes);
}

// The step's kernel with this id, whichever of its lists the program asks
// about it is in (never the start: it is given, and the program's).
static const step_kernel *kernel_by_id(const step_spec *s, const char *id)
{
    const step_kernel *lists[] = {s->compare, s->yours, s->beyond};
    int counts[] = {s->compare_count, s->yours_count, s->beyond_count};
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < counts[l]; i++)
            if (strcmp(lists[l][i].id, id) == 0)
                return &lists[l][i];
    return NULL;
}

static void *region(int k) { return (void *)(uintptr_t)(PLAN_REGION_BASE + (uint64_t)k * PLAN_REGION_SPAN); }

// One call of the function, on the stand-in buffers, through the track's
// call, in the order of its pointer arguments. The program maps them back in
// the same order.
static void plan_one(const step_spec *s, track_call call, const char *line)
{
    char id[128], size[64], block_text[64];
    if (!field(line, "id", id, sizeof id) || !field(line, "n", size, sizeof size) ||
        !field(line, "block", block_text, sizeof block_text))
        die(EXIT_USAGE, "bad plan request from the program");
    unsigned long long n = strtoull(size, NULL, 10);
    block_shape block = {1, 1};
    sscanf(block_text, "%dx%d", &block.x, &block.y);
    const step_kernel *k = kernel_by_id(s, id);
    if (!k || !k->run) {
        fprintf(plans, "undefined\tid=%s\n", id);
        return;
    }
    fprintf(plans, "plan\tid=%s\tn=%llu\tblock=%dx%d\n", id, n, block.x, block.y);
    last_error = cudaSuccess;
    void *regions[PLAN_MAX_REGIONS];
    for (int r = 0; r < PLAN_MAX_REGIONS; r++)
        regions[r] = region(r);
    call(k->run, regions, n, block);
    fprintf(plans, "end\n");
}

static int serve(const step_spec *s, track_call call)
{
    plans = fdopen(PLAN_FD, "w");
    if (!plans) {
        fprintf(stderr, "%s: run by the step's program only (it hands this program descriptor %d)\n", program_name,
                PLAN_FD);
        return EXIT_USAGE;
    }
    static char line[MAX_LINE], value[MAX_LINE];
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "device\t", 7) == 0 && field(line, "props", value, sizeof value)) {
            from_hex(value, &device_props, sizeof device_props);
            snprintf(device.name, sizeof device.name, "%s", device_props.name);
            device.cc_major = device_props.major, device.cc_minor = device_props.minor;
            device.sm_count = device_props.multiProcessorCount;
            device.l2_bytes = device_props.l2CacheSize;
            device.global_mem_bytes = device_props.totalGlobalMem;
        } else if (strncmp(line, "attribute\t", 10) == 0) {
            char id[32], v[32];
            if (field(line, "id", id, sizeof id) && field(line, "value", v, sizeof v) && atoi(id) >= 0 &&
                atoi(id) < MAX_ATTRIBUTES) {
                attributes[atoi(id)] = atoi(v);
                attribute_known[atoi(id)] = true;
            }
        } else if (strncmp(line, "kernel\t", 7) == 0) {
            take_kernel(line, value);
        } else if (strncmp(line, "plan\t", 5) == 0) {
            plan_one(s, call, line);
        } else if (strncmp(line, "defines\t", 8) == 0) {
            char id[128];
            field(line, "id", id, sizeof id);
            const step_kernel *k = kernel_by_id(s, id);
            fprintf(plans, "%s\tid=%s\n", k && k->run ? "defined" : "undefined", id);
        }
    }
    fclose(plans);
    return 0;
}

// The planner's side of step_main (harness.h): the track itself is the
// program's (NULL here); its call is what this program needs of it. The
// tracks' given kernels, their block rules and their libraries are the
// program's too: main.cu refers to them weakly, and they are NULL here.
int step_main(int argc, char **argv, const track *t, track_call call, const step_spec *s)
{
    (void)t;
    program_name = argc > 0 ? argv[0] : "planner";
    return serve(s, call);
}
