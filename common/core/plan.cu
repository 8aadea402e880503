// plan.cu: the program's side of plan.h -- the learner's module, loaded; the
// planner, started confined and asked once for every call of the run; the
// plans, checked for their buffers and replayed.
#include "harness.h"
#include "plan.h"

#include <cooperative_groups.h>
#include <cuda.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// How long the planner may take to answer every request, how much memory it
// may have and how much it may write: a step's function does a few divisions
// and launches, a few hundred bytes of plan a call.
static const int PLANNER_SECONDS = 30;
static const rlim_t PLANNER_MEMORY = 1ull << 30;
static const rlim_t PLANNER_IMAGE = 256ull << 20;  // its code and stack, besides its data
static const int PLANNER_EXIT_SECONDS = 5;       // to end, once it has answered
static const size_t PLANNER_OUTPUT = 64u << 20;

// A driver call: its CUresult is the runtime's error of the same number for
// every error met here, so cuda_check names it and says what to do.
#define CU_CHECK(call) cuda_check((cudaError_t)(call), #call, __FILE__, __LINE__)

// ===========================================================================
// The driver
// ===========================================================================

// The driver's calls this file makes, from the driver's own library, which
// the CUDA runtime has loaded already: found at run time, so that the program
// links where no driver is installed (and no stub of it either). Each by the
// name that cuda.h's macros give it (cuModuleGetGlobal is cuModuleGetGlobal_v2).
static struct {
    decltype(&cuModuleLoadData) module_load_data;
    decltype(&cuModuleUnload) module_unload;
    decltype(&cuModuleGetFunction) module_get_function;
    decltype(&cuModuleGetGlobal) module_get_global;
    decltype(&cuMemcpyDtoH) memcpy_dtoh;
    decltype(&cuMemsetD8Async) memset_d8_async;
    decltype(&cuFuncGetAttribute) func_get_attribute;
    decltype(&cuFuncSetAttribute) func_set_attribute;
    decltype(&cuLaunchKernel) launch_kernel;
    decltype(&cuMemGetAllocationGranularity) mem_granularity;
    decltype(&cuMemCreate) mem_create;
    decltype(&cuMemRelease) mem_release;
    decltype(&cuMemAddressReserve) mem_reserve;
    decltype(&cuMemAddressFree) mem_address_free;
    decltype(&cuMemMap) mem_map;
    decltype(&cuMemUnmap) mem_unmap;
    decltype(&cuMemSetAccess) mem_set_access;
    decltype(&cuDeviceGet) device_get;
    decltype(&cuDeviceGetAttribute) device_get_attribute;
    bool open;
} driver;

static void *driver_call(void *library, const char *name)
{
    void *call = dlsym(library, name);
    if (!call)
        die(EXIT_CUDA, "the NVIDIA driver's library has no %s: a driver older than this program's CUDA needs? (%s)",
            name, dlerror());
    return call;
}

static void open_driver(void)
{
    if (driver.open)
        return;
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!library)
        library = dlopen("libcuda.so.1", RTLD_NOW);
    if (!library)
        die(EXIT_CUDA, "cannot load the NVIDIA driver's library, libcuda.so.1: %s", dlerror());
#define DRIVER_CALL(field, name) driver.field = (decltype(driver.field))driver_call(library, name)
    DRIVER_CALL(module_load_data, "cuModuleLoadData");
    DRIVER_CALL(module_unload, "cuModuleUnload");
    DRIVER_CALL(module_get_function, "cuModuleGetFunction");
    DRIVER_CALL(module_get_global, "cuModuleGetGlobal_v2");
    DRIVER_CALL(memcpy_dtoh, "cuMemcpyDtoH_v2");
    DRIVER_CALL(memset_d8_async, "cuMemsetD8Async");
    DRIVER_CALL(func_get_attribute, "cuFuncGetAttribute");
    DRIVER_CALL(func_set_attribute, "cuFuncSetAttribute");
    DRIVER_CALL(launch_kernel, "cuLaunchKernel");
    DRIVER_CALL(mem_granularity, "cuMemGetAllocationGranularity");
    DRIVER_CALL(mem_create, "cuMemCreate");
    DRIVER_CALL(mem_release, "cuMemRelease");
    DRIVER_CALL(mem_reserve, "cuMemAddressReserve");
    DRIVER_CALL(mem_address_free, "cuMemAddressFree");
    DRIVER_CALL(mem_map, "cuMemMap");
    DRIVER_CALL(mem_unmap, "cuMemUnmap");
    DRIVER_CALL(mem_set_access, "cuMemSetAccess");
    DRIVER_CALL(device_get, "cuDeviceGet");
    DRIVER_CALL(device_get_attribute, "cuDeviceGetAttribute");
#undef DRIVER_CALL
    driver.open = true;
}

// ===========================================================================
// The harness's memory, which the learner's kernels may read and not write
// ===========================================================================

// A learner's input is const, and no other buffer of the harness's is the
// learner's to write: a kernel that stores into its input (its own elements
// written back, to hide from the census which of them it reads) or parks
// elements in a buffer it was never given (the other input, the copy's
// destination, the cache flush's buffer, reached by an address of its own)
// breaks the contract. Such memory is mapped with the driver's virtual
// memory calls, so that its access can change: read-write while the harness
// fills it, read-only while a learner's call runs, when a store to it
// faults.
// A GPU without the virtual memory calls (the device attribute says so)
// gets plain memory, which no call can make read-only: the program still
// checks and times there, with this defense off.
typedef struct {
    CUdeviceptr address;
    size_t bytes;  // as mapped: a whole number of the granularity
    CUmemGenericAllocationHandle handle;
    bool plain;  // cudaMalloc'ed: no access to change
} harness_mapping;

enum { MAX_MAPPINGS = 16 };
static harness_mapping mappings[MAX_MAPPINGS];
static bool mappings_read_only;

static void mapping_access(harness_mapping *m, bool read_only)
{
    if (m->plain)
        return;
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    CUmemAccessDesc access = {};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = read_only ? CU_MEM_ACCESS_FLAGS_PROT_READ : CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(driver.mem_set_access(m->address, m->bytes, &access, 1));
}

void *harness_alloc(size_t bytes)
{
    open_driver();
    harness_mapping *m = NULL;
    for (int i = 0; i < MAX_MAPPINGS && !m; i++)
        if (!mappings[i].address)
            m = &mappings[i];
    if (!m)
        die(EXIT_CUDA, "internal error: more than %d buffers of the harness's at once", MAX_MAPPINGS);
    int device, vmm = 0;
    CUdevice handle;
    CUDA_CHECK(cudaGetDevice(&device));
    CU_CHECK(driver.device_get(&handle, device));
    CU_CHECK(driver.device_get_attribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, handle));
    if (!vmm) {
        void *p;
        CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
        *m = (harness_mapping){.address = (CUdeviceptr)(uintptr_t)p, .bytes = bytes, .plain = true};
        return p;
    }
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t granularity;
    CU_CHECK(driver.mem_granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    m->bytes = ((bytes ? bytes : 1) + granularity - 1) / granularity * granularity;
    CU_CHECK(driver.mem_create(&m->handle, m->bytes, &prop, 0));
    CU_CHECK(driver.mem_reserve(&m->address, m->bytes, granularity, 0, 0));
    CU_CHECK(driver.mem_map(m->address, m->bytes, 0, m->handle, 0));
    mapping_access(m, mappings_read_only);
    return (void *)(uintptr_t)m->address;
}

void harness_free(void *p)
{
    if (!p)
        return;
    for (int i = 0; i < MAX_MAPPINGS; i++) {
        harness_mapping *m = &mappings[i];
        if (m->address && m->address == (CUdeviceptr)(uintptr_t)p) {
            CUDA_CHECK(cudaDeviceSynchronize());
            if (m->plain) {
                CUDA_CHECK(cudaFree(p));
                memset(m, 0, sizeof *m);
                return;
            }
            CU_CHECK(driver.mem_unmap(m->address, m->bytes));
            CU_CHECK(driver.mem_address_free(m->address, m->bytes));
            CU_CHECK(driver.mem_release(m->handle));
            memset(m, 0, sizeof *m);
            return;
        }
    }
    die(EXIT_CUDA, "internal error: %p is not a buffer of the harness's", p);
}

void harness_read_only(bool read_only)
{
    CUDA_CHECK(cudaDeviceSynchronize());  // the fills done, or the call that read them
    for (int i = 0; i < MAX_MAPPINGS; i++)
        if (mappings[i].address)
            mapping_access(&mappings[i], read_only);
    mappings_read_only = read_only;
}

// ===========================================================================
// The learner's module
// ===========================================================================

static CUmodule module;
static void *image;  // the module's file, read once: loaded again before every call
static module_kernel *kernels;
static int kernel_count;

typedef struct {
    char name[256];
    CUdeviceptr address;
    size_t bytes;
    unsigned char *initial;  // its content when the module was loaded
    void *initial_on_gpu;    // the same, on the GPU: copied back between launches
} module_global;

static module_global *globals;
static int global_count;

// The copies between launches, one launch for all the variables of up to
// RESET_KERNEL_BYTES (the rest one copy each): where each lies in the module
// as loaded now, and where its first content lies.
enum { RESET_KERNEL_BYTES = 4096, RESET_BLOCK = 128 };
typedef struct {
    unsigned long long to, from, bytes;
} reset_copy;
static reset_copy *reset_copies, *reset_copies_on_gpu;
static int reset_kernel_copies;

// What the module reads of clocks, for the record (kernels.awk's clock lines).
static char clocks[1024];

// Where this program's parts are: build/<this program's name>.<part>, beside it.
static void part_path(const char *part, char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        die(EXIT_CUDA, "cannot tell where this program is (/proc/self/exe): %s", strerror(errno));
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    snprintf(out, len, "%s/build/%s.%s", self, slash + 1, part);
}

const module_kernel *module_kernel_named(const char *name)
{
    for (int i = 0; i < kernel_count; i++)
        if (strcmp(kernels[i].name, name) == 0)
            return &kernels[i];
    return NULL;
}

// The value of key=value in a tab-separated line, into out ("" if absent).
static const char *line_field(const char *line, const char *key, char *out, size_t len)
{
    size_t k = strlen(key);
    out[0] = '\0';
    for (const char *p = line; p; p = strchr(p + 1, '\t')) {
        const char *f = *p == '\t' ? p + 1 : p;
        if (strncmp(f, key, k) == 0 && f[k] == '=') {
            size_t n = strcspn(f + k + 1, "\t\n");
            snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), f + k + 1);
            break;
        }
    }
    return out;
}

static void read_table(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die(EXIT_CUDA, "cannot read %s: %s (rebuild: make)", path, strerror(errno));
    static char line[8192];
    char value[4096];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "kernel\t", 7) == 0) {
            kernels = (module_kernel *)realloc(kernels, (kernel_count + 1) * sizeof *kernels);
            module_kernel *k = &kernels[kernel_count++];
            memset(k, 0, sizeof *k);
            snprintf(k->name, sizeof k->name, "%s", line_field(line, "name", value, sizeof value));
            unsigned end = 0;
            line_field(line, "params", value, sizeof value);
            for (char *item = strtok(value, ","); item && k->param_count < PLAN_MAX_PARAMS;
                 item = strtok(NULL, ",")) {
                unsigned size = 0, align = 1;
                sscanf(item, "%u:%u", &size, &align);
                unsigned offset = (end + align - 1) / align * align;
                k->param_size[k->param_count] = size;
                k->param_offset[k->param_count++] = offset;
                end = offset + size;
            }
            k->params_bytes = end;
            if (end > PLAN_MAX_PARAMS_BYTES)
                die(EXIT_CUDA, "%s has %u bytes of parameters, more than a plan carries", k->name, end);
        } else if (strncmp(line, "global\t", 7) == 0) {
            globals = (module_global *)realloc(globals, (global_count + 1) * sizeof *globals);
            module_global *g = &globals[global_count++];
            memset(g, 0, sizeof *g);
            snprintf(g->name, sizeof g->name, "%s", line_field(line, "name", value, sizeof value));
        } else if (strncmp(line, "hidden\t", 7) == 0) {
            // Memory that outlives a launch, which no reset between launches
            // can find: each launch must start from the module as loaded.
            char name[256], function[256];
            die(EXIT_CUDA, "%s declares a variable inside its code (.global %s, in inline PTX): memory that keeps "
                "its value from one launch to the next, which this program cannot reset between launches; "
                "a kernel of this step needs none (declare a __device__ variable at file scope if you must)",
                line_field(line, "function", function, sizeof function), line_field(line, "name", name, sizeof name));
        } else if (strncmp(line, "clock\t", 6) == 0) {
            char name[256], reg[64];
            line_field(line, "name", name, sizeof name);
            line_field(line, "register", reg, sizeof reg);
            size_t used = strlen(clocks);
            snprintf(clocks + used, sizeof clocks - used, "%s%s in %s", used ? "; " : "", reg, name);
        }
    }
    fclose(f);
    if (!kernels)
        die(EXIT_CUDA, "%s lists no kernel: does the file define none? (rebuild: make)", path);
}

// The functions and variables of the module just loaded: their handles and
// addresses, which every load gives anew.
static void module_find(void)
{
    for (int i = 0; i < kernel_count; i++)
        CU_CHECK(driver.module_get_function(&kernels[i].function, module, kernels[i].name));
    for (int i = 0; i < global_count; i++) {
        module_global *g = &globals[i];
        // The table lists the variables of every architecture's code; one
        // that this GPU's code does not declare holds nothing here.
        CUresult found = driver.module_get_global(&g->address, &g->bytes, module, g->name);
        if (found == CUDA_ERROR_NOT_FOUND) {
            g->bytes = 0;  // nothing to reset
            continue;
        }
        CU_CHECK(found);
    }
}

static void *read_whole(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die(EXIT_CUDA, "cannot read %s: %s (rebuild: make)", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    rewind(f);
    void *data = malloc(bytes > 0 ? bytes : 1);
    if (!data || bytes <= 0 || fread(data, 1, bytes, f) != (size_t)bytes)
        die(EXIT_CUDA, "cannot read %s (rebuild: make)", path);
    fclose(f);
    return data;
}

static void scrub_prepare(void);

__global__ void __launch_bounds__(RESET_BLOCK) reset_module_globals(const reset_copy *copies)
{
    reset_copy c = copies[blockIdx.x];
    for (unsigned long long b = threadIdx.x; b < c.bytes; b += blockDim.x)
        ((unsigned char *)c.to)[b] = ((const unsigned char *)c.from)[b];
}

// After every load of the module: each variable's first content put on the
// GPU again (a kernel that wrote where it lies leaves nothing there), and the
// table of the copies between launches, for the module's addresses now.
static void module_reset_prepare(void)
{
    // Every byte of the harness's copies written afresh, the table's unused
    // rows and a variable of no bytes' copy too: a kernel that writes them
    // finds its words gone at the next call, as it does everywhere else.
    CUDA_CHECK(cudaMemset(reset_copies_on_gpu, 0, (global_count ? global_count : 1) * sizeof *reset_copies));
    reset_kernel_copies = 0;
    for (int i = 0; i < global_count; i++) {
        module_global *g = &globals[i];
        if (!g->bytes) {
            CUDA_CHECK(cudaMemset(g->initial_on_gpu, 0, 1));
            continue;
        }
        CUDA_CHECK(cudaMemcpy(g->initial_on_gpu, g->initial, g->bytes, cudaMemcpyHostToDevice));
        if (g->bytes <= RESET_KERNEL_BYTES)
            reset_copies[reset_kernel_copies++] =
                (reset_copy){(unsigned long long)g->address, (unsigned long long)(uintptr_t)g->initial_on_gpu, g->bytes};
    }
    if (reset_kernel_copies)
        CUDA_CHECK(cudaMemcpy(reset_copies_on_gpu, reset_copies, reset_kernel_copies * sizeof *reset_copies,
                              cudaMemcpyHostToDevice));
}

void module_open(void)
{
    char path[PATH_MAX + 32];
    part_path("kernels", path, sizeof path);
    read_table(path);
    part_path("fatbin", path, sizeof path);
    set_activity("loading your kernels (%s)", path);
    CUDA_CHECK(cudaFree(0));  // the runtime's context is current: the module loads into it
    open_driver();
    image = read_whole(path);
    CU_CHECK(driver.module_load_data(&module, image));
    module_find();
    scrub_prepare();
    for (int i = 0; i < global_count; i++) {
        module_global *g = &globals[i];
        g->initial = (unsigned char *)malloc(g->bytes ? g->bytes : 1);
        if (!g->initial)
            die(EXIT_CUDA, "out of host memory");
        if (g->bytes)
            CU_CHECK(driver.memcpy_dtoh(g->initial, g->address, g->bytes));
        CUDA_CHECK(cudaMalloc(&g->initial_on_gpu, g->bytes ? g->bytes : 1));
    }
    reset_copies = (reset_copy *)malloc((global_count ? global_count : 1) * sizeof *reset_copies);
    if (!reset_copies)
        die(EXIT_CUDA, "out of host memory");
    CUDA_CHECK(cudaMalloc(&reset_copies_on_gpu, (global_count ? global_count : 1) * sizeof *reset_copies));
    module_reset_prepare();
    set_activity("%s", "");
}

const char *module_clocks(void) { return clocks; }

// ---------------------------------------------------------------------------
// What a launch leaves behind that no variable names
// ---------------------------------------------------------------------------
// A thread's local memory (its stack) and a block's shared memory are not
// cleared between launches: a thread that runs in the same warp slot of the
// same SM as one of an earlier launch finds that thread's stack as it was
// left, and a block the shared memory of the block before. A kernel that
// reads them before writing them can count the calls it has seen with no
// variable at all (tests/mutants/07-stack-remembers-calls,
// 07-shared-remembers-calls). So, before every call, two kernels of this
// program's overwrite both: every warp slot of every SM at once runs a
// thread whose stack frame spans the whole of a thread's local memory, and
// every SM a block that holds all the shared memory a block may have. The
// launches are cooperative, and each block waits for the grid, so that all
// of each runs at once: no slot and no SM is left out. (A GPU that cannot
// launch cooperatively gets the same grids launched plainly: they fill the
// GPU in one wave as well, without the guarantee.)
enum { SCRUB_BLOCK = 256 };

// The per-thread local memory the scrub covers; the driver gives each thread
// the stack limit (1 KB unless a program sets more), or what the largest
// kernel launched needs if that is more.
static const size_t SCRUB_FRAMES[] = {1024, 4096, 16384};
static size_t scrub_frame;
static int scrub_local_blocks, scrub_shared_bytes;
static bool scrub_cooperative;

template <int FRAME_BYTES>
__global__ void __launch_bounds__(SCRUB_BLOCK) scrub_local_memory(bool cooperative)
{
    uint4 frame[FRAME_BYTES / sizeof(uint4)];
    for (int i = 0; i < FRAME_BYTES / (int)sizeof(uint4); i++)
        frame[i] = make_uint4(0, 0, 0, 0);
    asm volatile("" : : "l"(frame) : "memory");  // the frame's address escapes: its stores stay
    if (cooperative)
        cooperative_groups::this_grid().sync();  // every slot is taken until all are written
}

__global__ void __launch_bounds__(1024) scrub_shared_memory(unsigned int bytes, bool cooperative)
{
    extern __shared__ uint4 whole_block_share[];
    for (unsigned int i = threadIdx.x; i < bytes / sizeof(uint4); i += blockDim.x)
        whole_block_share[i] = make_uint4(0, 0, 0, 0);
#if __CUDA_ARCH__ >= 800
    // And the shared memory the driver reserves below a block's own (1 KB on
    // sm_80 and later, up to %reserved_smem_offset_cap), which a kernel can
    // reach with an address of its own. On an H200 nothing written past the
    // driver's own part (from %reserved_smem_offset_end) outlived a launch;
    // zeroed all the same, for GPUs where it might.
    unsigned int begin, cap;
    asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(begin));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(cap));
    for (unsigned int at = begin + 4 * threadIdx.x; at + 4 <= cap; at += 4 * blockDim.x)
        asm volatile("st.shared.u32 [%0], 0;" : : "r"(at) : "memory");
#endif
    if (cooperative)
        cooperative_groups::this_grid().sync();  // one block on every SM, all at once
}

static const void *scrub_local_kernel(void)
{
    switch (scrub_frame) {
    case 1024: return (const void *)scrub_local_memory<1024>;
    case 4096: return (const void *)scrub_local_memory<4096>;
    default: return (const void *)scrub_local_memory<16384>;
    }
}

// After the module's first load: the frame that covers a thread's local
// memory, whatever the module's kernels need, and the grids that cover the GPU.
static void scrub_prepare(void)
{
    size_t need = 0;
    CUDA_CHECK(cudaDeviceGetLimit(&need, cudaLimitStackSize));
    for (int i = 0; i < kernel_count; i++) {
        int local = 0;
        CU_CHECK(driver.func_get_attribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, kernels[i].function));
        if ((size_t)local > need)
            need = (size_t)local;
    }
    scrub_frame = 0;
    for (int i = 0; i < COUNT_OF(SCRUB_FRAMES) && !scrub_frame; i++)
        if (SCRUB_FRAMES[i] >= need)
            scrub_frame = SCRUB_FRAMES[i];
    if (!scrub_frame)
        die(EXIT_CUDA, "a kernel of your file keeps %zu bytes a thread in local memory (its stack), more than this "
            "program can clear between calls (%zu): a kernel of this step needs a few registers a thread, no large "
            "local array", need, SCRUB_FRAMES[COUNT_OF(SCRUB_FRAMES) - 1]);
    const device_info *dev = current_device();
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scrub_local_kernel(), SCRUB_BLOCK, 0));
    scrub_local_blocks = per_sm * dev->sm_count;
    CUDA_CHECK(cudaDeviceGetAttribute(&scrub_shared_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev->ordinal));
    int cooperative = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, dev->ordinal));
    scrub_cooperative = cooperative != 0;
    CUDA_CHECK(cudaFuncSetAttribute(scrub_shared_memory, cudaFuncAttributeMaxDynamicSharedMemorySize, scrub_shared_bytes));
    CUDA_CHECK(cudaFuncSetAttribute(scrub_shared_memory, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
}

static void scrub_between_calls(void)
{
    bool cooperative = scrub_cooperative;
    unsigned int bytes = (unsigned int)scrub_shared_bytes;
    void *local_args[] = {&cooperative};
    void *shared_args[] = {&bytes, &cooperative};
    dim3 shared_grid(current_device()->sm_count);
    if (cooperative) {
        CUDA_CHECK(cudaLaunchCooperativeKernel(scrub_local_kernel(), scrub_local_blocks, SCRUB_BLOCK, local_args, 0, 0));
        CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)scrub_shared_memory, shared_grid, 1024, shared_args,
                                               (size_t)scrub_shared_bytes, 0));
    } else {
        CUDA_CHECK(cudaLaunchKernel(scrub_local_kernel(), scrub_local_blocks, SCRUB_BLOCK, local_args, 0, 0));
        CUDA_CHECK(cudaLaunchKernel((const void *)scrub_shared_memory, shared_grid, 1024, shared_args,
                                    (size_t)scrub_shared_bytes, 0));
    }
}

void module_reload(void)
{
    CUDA_CHECK(cudaDeviceSynchronize());  // nothing of the last call's still running in it
    check_flush_sink();
    CU_CHECK(driver.module_unload(module));
    CU_CHECK(driver.module_load_data(&module, image));
    module_find();
    module_reset_prepare();
    scrub_between_calls();
}

// Between the launches of one call, inside its timed span: one launch that
// copies the small variables back (libcu++'s headers alone declare ten), a
// copy each for larger ones; a module without variables costs nothing.
static void module_reset_globals_between_launches(void)
{
    if (reset_kernel_copies) {
        reset_module_globals<<<reset_kernel_copies, RESET_BLOCK>>>(reset_copies_on_gpu);
        CUDA_CHECK_LAUNCH();
    }
    for (int i = 0; i < global_count; i++)
        if (globals[i].bytes > RESET_KERNEL_BYTES)
            CUDA_CHECK(cudaMemcpyAsync((void *)(uintptr_t)globals[i].address, globals[i].initial_on_gpu,
                                       globals[i].bytes, cudaMemcpyDeviceToDevice, 0));
}

// ===========================================================================
// The planner, confined
// ===========================================================================

// What the planner may ask of the kernel: memory, its own descriptors, time,
// and to end. No file can be opened, no process started or signalled, no
// socket made; anything else fails with EPERM. Two more with arguments
// checked (confine_this_process): fcntl only to read a descriptor's flags
// (stdio's), not to have one signal another process; prlimit64 only on
// itself (the C library reads its stack's). uname stays, as older C
// libraries stop without it; execve, as the filter is set before the exec
// (the sandbox, grading/confine, leaves nothing else to start).
static const int PLANNER_SYSCALLS[] = {
    SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_close, SYS_fstat, SYS_newfstatat, SYS_lseek,
    SYS_brk, SYS_mmap, SYS_munmap, SYS_mremap, SYS_mprotect, SYS_madvise, SYS_exit, SYS_exit_group,
    SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_rt_sigreturn, SYS_sigaltstack, SYS_getpid, SYS_gettid,
    SYS_futex, SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday, SYS_nanosleep, SYS_clock_nanosleep,
    SYS_set_tid_address, SYS_set_robust_list, SYS_getrandom, SYS_uname, SYS_execve,
#ifdef SYS_arch_prctl
    SYS_arch_prctl,
#endif
#ifdef SYS_rseq
    SYS_rseq,
#endif
};

#if defined(__x86_64__)
#define PLANNER_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PLANNER_ARCH AUDIT_ARCH_AARCH64
#endif

// In the child, before exec: the filter, inherited by the planner.
static bool confine_this_process(void)
{
    enum { MAX_FILTER = 4 + 6 + 5 + 2 * COUNT_OF(PLANNER_SYSCALLS) + 1 };
    struct sock_filter filter[MAX_FILTER];
    const unsigned deny = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
    // The low word of argument i (an int: a command, a pid).
    const unsigned arg_low[2] = {(unsigned)offsetof(struct seccomp_data, args[0]),
                                 (unsigned)offsetof(struct seccomp_data, args[1])};
    int n = 0;
    filter[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    filter[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PLANNER_ARCH, 1, 0);
    filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    filter[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    // fcntl(fd, F_GETFL or F_GETFD), nothing else.
    filter[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fcntl, 0, 5);
    filter[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg_low[1]);
    filter[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_GETFL, 2, 0);
    filter[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_GETFD, 1, 0);
    filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, deny);
    filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    // prlimit64(0, ...): this process's own limits only.
    filter[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prlimit64, 0, 4);
    filter[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg_low[0]);
    filter[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);
    filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, deny);
    filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    for (int i = 0; i < COUNT_OF(PLANNER_SYSCALLS); i++) {
        filter[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)PLANNER_SYSCALLS[i], 0, 1);
        filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    }
    filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, deny);
    struct sock_fprog program = {(unsigned short)n, filter};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

// The requests, as the planner reads them on its stdin: the GPU, the module's
// kernels, then one line per call.
static FILE *write_requests(const char *const *ids, int id_count, const options *opt, bool survey)
{
    FILE *f = tmpfile();
    if (!f)
        die(EXIT_CUDA, "cannot make a file for the planner's requests: %s", strerror(errno));
    for (int i = 0; survey && i < id_count; i++)
        fprintf(f, "defines\tid=%s\n", ids[i]);
    if (!opt) {  // the survey alone: no GPU needed
        fflush(f);
        rewind(f);
        return f;
    }
    int dev;
    cudaDeviceProp props;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&props, dev));
    fprintf(f, "device\tprops=");
    for (size_t i = 0; i < sizeof props; i++)
        fprintf(f, "%02x", ((unsigned char *)&props)[i]);
    fputc('\n', f);
    // The attributes a launcher may ask of the GPU (cudaDeviceGetAttribute),
    // each known to every driver this workbook runs on: asking a driver for
    // one it does not know is an error, which compute-sanitizer reports.
    static const enum cudaDeviceAttr ATTRIBUTES[] = {
        cudaDevAttrMaxThreadsPerBlock, cudaDevAttrMaxBlockDimX, cudaDevAttrMaxBlockDimY, cudaDevAttrMaxBlockDimZ,
        cudaDevAttrMaxGridDimX, cudaDevAttrMaxGridDimY, cudaDevAttrMaxGridDimZ, cudaDevAttrMaxSharedMemoryPerBlock,
        cudaDevAttrTotalConstantMemory, cudaDevAttrWarpSize, cudaDevAttrMaxRegistersPerBlock, cudaDevAttrClockRate,
        cudaDevAttrMultiProcessorCount, cudaDevAttrConcurrentKernels, cudaDevAttrMemoryClockRate,
        cudaDevAttrGlobalMemoryBusWidth, cudaDevAttrL2CacheSize, cudaDevAttrMaxThreadsPerMultiProcessor,
        cudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMinor, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
        cudaDevAttrMaxRegistersPerMultiprocessor, cudaDevAttrCooperativeLaunch, cudaDevAttrMaxSharedMemoryPerBlockOptin,
        cudaDevAttrMaxBlocksPerMultiprocessor, cudaDevAttrReservedSharedMemoryPerBlock};
    for (int i = 0; i < COUNT_OF(ATTRIBUTES); i++) {
        int value;
        CUDA_CHECK(cudaDeviceGetAttribute(&value, ATTRIBUTES[i], dev));
        fprintf(f, "attribute\tid=%d\tvalue=%d\n", (int)ATTRIBUTES[i], value);
    }
    static const CUfunction_attribute ASKED[] = {
        CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
        CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,      CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
        CU_FUNC_ATTRIBUTE_NUM_REGS,              CU_FUNC_ATTRIBUTE_PTX_VERSION,
        CU_FUNC_ATTRIBUTE_BINARY_VERSION,        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT};
    for (int i = 0; i < kernel_count; i++) {
        const module_kernel *k = &kernels[i];
        int v[COUNT_OF(ASKED)];
        for (int a = 0; a < COUNT_OF(ASKED); a++)
            CU_CHECK(driver.func_get_attribute(&v[a], ASKED[a], k->function));
        cudaFuncAttributes attrs;
        memset(&attrs, 0, sizeof attrs);
        attrs.maxThreadsPerBlock = v[0], attrs.sharedSizeBytes = v[1], attrs.constSizeBytes = v[2];
        attrs.localSizeBytes = v[3], attrs.numRegs = v[4], attrs.ptxVersion = v[5], attrs.binaryVersion = v[6];
        attrs.maxDynamicSharedSizeBytes = v[7], attrs.preferredShmemCarveout = v[8];
        fprintf(f, "kernel\tname=%s\tparams=", k->name);
        for (int p = 0; p < k->param_count; p++)
            fprintf(f, "%s%u@%u", p ? "," : "", k->param_size[p], k->param_offset[p]);
        fprintf(f, "\tattributes=");
        for (size_t b = 0; b < sizeof attrs; b++)
            fprintf(f, "%02x", ((unsigned char *)&attrs)[b]);
        fputc('\n', f);
    }
    for (int s = 0; s < opt->size_count; s++)
        for (int b = 0; b < opt->block_count; b++)
            for (int i = 0; i < id_count; i++)
                fprintf(f, "plan\tid=%s\tn=%llu\tblock=%dx%d\n", ids[i], opt->sizes[s], opt->blocks[b].x,
                        opt->blocks[b].y);
    fflush(f);
    rewind(f);
    return f;
}

// Start the planner on the requests, confined, in a process group of its own;
// return its pid and the read end of its plans.
static pid_t start_planner(const char *path, FILE *requests, int *plans_fd)
{
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
        die(EXIT_CUDA, "cannot make a pipe for the planner: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die(EXIT_CUDA, "cannot start the planner: %s", strerror(errno));
    if (pid == 0) {
        // Only system calls from here to exec: the parent's state is not ours.
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(fileno(requests), STDIN_FILENO);
        if (pipe_fds[1] != PLAN_FD) {
            dup2(pipe_fds[1], PLAN_FD);
            close(pipe_fds[1]);
        }
        for (int fd = PLAN_FD + 1; fd < 1024; fd++)  // the records file and anything else of ours
            close(fd);
        // Memory of every kind (RLIMIT_DATA leaves out shared mappings), and
        // CPU time.
        struct rlimit memory = {PLANNER_MEMORY, PLANNER_MEMORY}, cpu = {PLANNER_SECONDS, PLANNER_SECONDS};
        struct rlimit address_space = {PLANNER_MEMORY + PLANNER_IMAGE, PLANNER_MEMORY + PLANNER_IMAGE};
        setrlimit(RLIMIT_DATA, &memory);
        setrlimit(RLIMIT_AS, &address_space);
        setrlimit(RLIMIT_CPU, &cpu);
        if (!confine_this_process()) {
            static const char msg[] = "planner: cannot confine the planner (seccomp) on this system\n";
            (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
            _exit(EXIT_CUDA);
        }
        char *argv[] = {(char *)path, NULL};
        char *envp[] = {NULL};
        execve(path, argv, envp);
        _exit(127);
    }
    close(pipe_fds[1]);
    *plans_fd = pipe_fds[0];
    return pid;
}

// Everything the planner wrote, until it closed its end or ran out of time.
static char *read_plans(int fd, pid_t pid, const char *path)
{
    size_t used = 0, size = 1 << 16;
    char *text = (char *)malloc(size);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        int left_ms = PLANNER_SECONDS * 1000 - (int)((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000);
        struct pollfd p = {fd, POLLIN, 0};
        if (left_ms <= 0 || poll(&p, 1, left_ms) == 0) {
            kill(-pid, SIGKILL);
            die(EXIT_CUDA, "your host code did not finish planning its launches within %d s (%s): a loop in the "
                           "step's function that never ends?",
                PLANNER_SECONDS, path);
        }
        if (used > PLANNER_OUTPUT) {
            kill(-pid, SIGKILL);
            die(EXIT_CUDA, "your host code made plans of more than %zu MB (%s): a loop that launches without end?",
                PLANNER_OUTPUT >> 20, path);
        }
        if (used + 4096 > size && !(text = (char *)realloc(text, size *= 2)))
            die(EXIT_CUDA, "out of host memory");
        ssize_t got = read(fd, text + used, size - used - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        used += (size_t)got;
    }
    text[used] = '\0';
    close(fd);
    return text;
}

// ===========================================================================
// The plans
// ===========================================================================

static plan *plans;
static int plan_count;

static unsigned long long hex_u64(const char *text) { return strtoull(text, NULL, 16); }

static void parse_action(plan *p, const char *line)
{
    char value[2 * PLAN_MAX_PARAMS_BYTES + 64];
    p->actions = (plan_action *)realloc(p->actions, (p->action_count + 1) * sizeof *p->actions);
    plan_action *a = &p->actions[p->action_count++];
    memset(a, 0, sizeof *a);
    if (strncmp(line, "launch\t", 7) == 0) {
        a->kind = PLAN_LAUNCH;
        snprintf(a->kernel_name, sizeof a->kernel_name, "%s", line_field(line, "kernel", value, sizeof value));
        a->kernel = module_kernel_named(a->kernel_name);
        sscanf(line_field(line, "grid", value, sizeof value), "%u,%u,%u", &a->grid[0], &a->grid[1], &a->grid[2]);
        sscanf(line_field(line, "block", value, sizeof value), "%u,%u,%u", &a->block[0], &a->block[1], &a->block[2]);
        a->smem = strtoull(line_field(line, "smem", value, sizeof value), NULL, 10);
        a->other_stream = atoi(line_field(line, "stream", value, sizeof value)) != 0;
        line_field(line, "params", value, sizeof value);
        size_t bytes = a->kernel ? a->kernel->params_bytes : 0;
        a->params = (unsigned char *)calloc(bytes ? bytes : 1, 1);
        for (size_t i = 0; i < bytes && value[2 * i] && value[2 * i + 1]; i++) {
            unsigned v;
            sscanf(value + 2 * i, "%2x", &v);
            a->params[i] = (unsigned char)v;
        }
    } else if (strncmp(line, "memset\t", 7) == 0) {
        a->kind = PLAN_MEMSET;
        a->address = hex_u64(line_field(line, "address", value, sizeof value));
        a->value = atoi(line_field(line, "value", value, sizeof value));
        a->bytes = strtoull(line_field(line, "bytes", value, sizeof value), NULL, 10);
        a->other_stream = atoi(line_field(line, "stream", value, sizeof value)) != 0;
    } else {
        a->kind = PLAN_ATTRIBUTE;
        snprintf(a->kernel_name, sizeof a->kernel_name, "%s", line_field(line, "kernel", value, sizeof value));
        a->kernel = module_kernel_named(a->kernel_name);
        a->attribute = atoi(line_field(line, "attribute", value, sizeof value));
        a->attribute_value = atoi(line_field(line, "value", value, sizeof value));
    }
}

static void parse_plans(char *text)
{
    plan *current = NULL;
    char value[256];
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "plan\t", 5) == 0 || strncmp(line, "undefined\t", 10) == 0) {
            plans = (plan *)realloc(plans, (plan_count + 1) * sizeof *plans);
            current = &plans[plan_count++];
            memset(current, 0, sizeof *current);
            snprintf(current->id, sizeof current->id, "%s", line_field(line, "id", value, sizeof value));
            current->defined = line[0] == 'p';
            current->n = strtoull(line_field(line, "n", value, sizeof value), NULL, 10);
            sscanf(line_field(line, "block", value, sizeof value), "%dx%d", &current->block.x, &current->block.y);
            current->complete = !current->defined;
        } else if (strncmp(line, "end", 3) == 0 && current) {
            current->complete = true;
        } else if (current && current->defined && !current->complete &&
                   (strncmp(line, "launch\t", 7) == 0 || strncmp(line, "memset\t", 7) == 0 ||
                    strncmp(line, "attribute\t", 10) == 0)) {
            parse_action(current, line);
        }
    }
}

// The planner's path, refused with what to do where it is missing.
static void planner_path(char *path, size_t len)
{
    part_path("plan", path, len);
    if (access(path, X_OK) != 0)
        die(EXIT_CUDA, "cannot run %s, the planner of your host code: %s (rebuild: make)", path, strerror(errno));
}

// Run the planner on the requests; its answers, once it has ended and
// everything it started with it. Exits, saying why, where it failed.
static char *ask_planner(FILE *requests)
{
    char path[PATH_MAX + 32];
    planner_path(path, sizeof path);
    int fd;
    pid_t pid = start_planner(path, requests, &fd);
    char *text = read_plans(fd, pid, path);
    // It has answered: it ends now, or is ended (sleeping takes no CPU time,
    // so RLIMIT_CPU would not end it).
    int status = 0;
    for (int waited_ms = 0; waitpid(pid, &status, WNOHANG) == 0; waited_ms += 10) {
        if (waited_ms >= PLANNER_EXIT_SECONDS * 1000) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            die(EXIT_CUDA, "your host code kept the planner (%s) running %d s after it had answered: a sleep or a "
                           "loop in a static constructor or destructor?",
                path, PLANNER_EXIT_SECONDS);
        }
        usleep(10000);
    }
    kill(-pid, SIGKILL);  // and anything it left (it may start nothing, but be sure)
    fclose(requests);
    char *failed = strstr(text, "failed\t");
    if (failed) {
        char code[16], message[1024];
        line_field(failed, "code", code, sizeof code);
        line_field(failed, "message", message, sizeof message);
        die(atoi(code) == EXIT_USAGE || atoi(code) == EXIT_CUDA ? atoi(code) : EXIT_CUDA,
            "your host code stopped while planning its launches: %s", message);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die(EXIT_CUDA, "your host code ended the planner (%s) %s %d before it had answered: a crash in the step's "
                       "function?",
            path, WIFSIGNALED(status) ? "by signal" : "with exit status",
            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    return text;
}

// Which of the step's functions the learner's file defines, by id.
static char defined_ids[4096];

// The survey's answers among the planner's lines (text is cut into lines).
static void note_defined(char *text)
{
    char id[128];
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (strncmp(line, "defined\t", 8) == 0) {
            size_t used = strlen(defined_ids);
            snprintf(defined_ids + used, sizeof defined_ids - used, " %s ", line_field(line, "id", id, sizeof id));
        }
}

void plans_survey(const char *const *ids, int id_count)
{
    FILE *requests = write_requests(ids, id_count, NULL, true);
    char *text = ask_planner(requests);
    note_defined(text);
    free(text);
}

// The plans of a grading, made by one run (plans_write) and read by every
// other (plans_read): the planner's own lines, the survey's first. Read
// before the GPU, parsed by plans_make, once the module that names their
// kernels is loaded.
static char *plans_from_file;

void plans_write(const char *const *ids, int id_count, const options *opt, const char *path)
{
    set_activity("planning your launches, for every size and block of the grading");
    char *text = ask_planner(write_requests(ids, id_count, opt, true));
    FILE *f = fopen(path, "we");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        die(EXIT_CUDA, "cannot write the plans to %s: %s", path, strerror(errno));
    parse_plans(text);  // whole, as a run that reads them will need them
    int incomplete = 0;
    for (int i = 0; i < plan_count; i++)
        incomplete += !plans[i].complete;
    if (incomplete)
        die(EXIT_CUDA, "the planner's plans stop in the middle (%d of %d)", incomplete, plan_count);
    printf("plans: %d calls planned, written to %s\n", plan_count, path);
    set_activity("%s", "");
}

void plans_read(const char *path)
{
    FILE *f = fopen(path, "re");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        die(EXIT_USAGE, "cannot read the plans in %s: %s", path, f ? "not a regular file" : strerror(errno));
    if ((size_t)st.st_size > PLANNER_OUTPUT)
        die(EXIT_USAGE, "%s is larger than any planner's answer", path);
    char *text = (char *)malloc((size_t)st.st_size + 1), *copy = (char *)malloc((size_t)st.st_size + 1);
    if (!text || !copy)
        die(EXIT_CUDA, "out of host memory");
    size_t got = fread(text, 1, (size_t)st.st_size, f);
    fclose(f);
    text[got] = '\0';
    memcpy(copy, text, got + 1);
    note_defined(copy);
    free(copy);
    plans_from_file = text;
}

bool planned(const char *id)
{
    char key[160];
    snprintf(key, sizeof key, " %s ", id);
    return strstr(defined_ids, key) != NULL;
}

void plans_make(const char *const *ids, int id_count, const options *opt, const options *also)
{
    if (plans_from_file) {  // every call this run makes must be among them
        parse_plans(plans_from_file);
        free(plans_from_file);
        plans_from_file = NULL;
        for (const options *o = opt; o; o = o == opt ? also : NULL)
            for (int s = 0; s < o->size_count; s++)
                for (int b = 0; b < o->block_count; b++)
                    for (int i = 0; i < id_count; i++)
                        if (planned(ids[i]) && !plan_for(ids[i], o->sizes[s], o->blocks[b]))
                            die(EXIT_USAGE, "the plans given have none of %s at n=%llu, block %dx%d: make them with "
                                            "--write-plans at every size and block the runs use",
                                ids[i], o->sizes[s], o->blocks[b].x, o->blocks[b].y);
        return;
    }
    // The planner plans every size at every block: `also`'s joined to opt's
    // lists (a point more planned at the other blocks costs the host only).
    options asked = *opt;
    for (int s = 0; also && s < also->size_count; s++) {
        int k = 0;
        while (k < asked.size_count && asked.sizes[k] != also->sizes[s])
            k++;
        if (k == asked.size_count && asked.size_count == MAX_LIST)
            die(EXIT_USAGE, "at most %d sizes in a run, --exact-at's counted", MAX_LIST);
        if (k == asked.size_count)
            asked.sizes[asked.size_count++] = also->sizes[s];
    }
    for (int b = 0; also && b < also->block_count; b++) {
        int k = 0;
        while (k < asked.block_count &&
               (asked.blocks[k].x != also->blocks[b].x || asked.blocks[k].y != also->blocks[b].y))
            k++;
        if (k == asked.block_count && asked.block_count == MAX_LIST)
            die(EXIT_USAGE, "at most %d blocks in a run, --exact-at's counted", MAX_LIST);
        if (k == asked.block_count)
            asked.blocks[asked.block_count++] = also->blocks[b];
    }
    set_activity("planning your launches");
    char *text = ask_planner(write_requests(ids, id_count, &asked, false));
    parse_plans(text);
    free(text);
    set_activity("%s", "");
    for (int i = 0; i < plan_count; i++)
        if (!plans[i].complete)
            die(EXIT_CUDA, "the planner's plan for %s at n=%llu stops in the middle", plans[i].id, plans[i].n);
}

const plan *plan_for(const char *id, unsigned long long n, block_shape block)
{
    for (int i = 0; i < plan_count; i++)
        if (plans[i].n == n && plans[i].block.x == block.x && plans[i].block.y == block.y &&
            strcmp(plans[i].id, id) == 0)
            return &plans[i];
    return NULL;
}


// ===========================================================================
// Mapping a plan onto buffers, and replaying it
// ===========================================================================

// The region a planner's address falls in, or -1 if it falls in none.
static int region_of(uint64_t address)
{
    if (address < PLAN_REGION_BASE || address >= PLAN_REGION_BASE + PLAN_MAX_REGIONS * PLAN_REGION_SPAN)
        return -1;
    return (int)((address - PLAN_REGION_BASE) / PLAN_REGION_SPAN);
}

static uint64_t region_offset(uint64_t address) { return (address - PLAN_REGION_BASE) % PLAN_REGION_SPAN; }

int plan_check_buffers(const plan *p, const size_t *region_bytes, int region_count, char *why, size_t len)
{
    int problems = 0;
    why[0] = '\0';
#define PROBLEM(...)                                                   \
    do {                                                               \
        if (problems++ == 0)                                           \
            snprintf(why, len, __VA_ARGS__);                           \
    } while (0)
    for (int i = 0; i < p->action_count; i++) {
        const plan_action *a = &p->actions[i];
        if (a->kind == PLAN_MEMSET) {
            int r = region_of(a->address);
            if (r < 0 || r >= region_count)
                PROBLEM("set memory at an address it was not given (%#llx)", (unsigned long long)a->address);
            else if (a->bytes > region_bytes[r] || region_offset(a->address) > region_bytes[r] - a->bytes)
                PROBLEM("set %zu bytes from byte %llu of a buffer of %zu bytes", a->bytes,
                        (unsigned long long)region_offset(a->address), region_bytes[r]);
        }
        // The attributes a step's kernel may need: more dynamic shared
        // memory, and its share of the SM's memory as shared memory; not
        // clusters or scheduling, which the launch audit does not know.
        if (a->kind == PLAN_ATTRIBUTE && a->attribute != cudaFuncAttributeMaxDynamicSharedMemorySize &&
            a->attribute != cudaFuncAttributePreferredSharedMemoryCarveout)
            PROBLEM("set attribute %d of %s: only the dynamic shared memory size and the shared-memory carveout may "
                    "be set",
                    a->attribute, a->kernel_name);
        if (a->kind != PLAN_LAUNCH || !a->kernel)
            continue;
        // An argument that is not a region's address passes as it is: a
        // kernel reaches no more through it than through its own arithmetic.
        for (unsigned off = 0; off + 8 <= a->kernel->params_bytes; off += 8) {
            uint64_t word;
            memcpy(&word, a->params + off, 8);
            int r = region_of(word);
            if (r >= 0 && (r >= region_count || region_offset(word) > region_bytes[r]))
                PROBLEM("passed %s an address past the end of the buffers it was given", a->kernel_name);
        }
    }
#undef PROBLEM
    return problems;
}

// The plan's actions in order, up to its launch number `launches` (all: INT_MAX).
static void replay(const plan *p, const plan_region *regions, int launches)
{
    unsigned char params[PLAN_MAX_PARAMS_BYTES];
    void *args[PLAN_MAX_PARAMS];
    bool launched = false;
    for (int i = 0, done = 0; i < p->action_count && done < launches; i++) {
        const plan_action *a = &p->actions[i];
        switch (a->kind) {
        case PLAN_MEMSET: {
            int r = region_of(a->address);
            CU_CHECK(driver.memset_d8_async((CUdeviceptr)regions[r].ptr + region_offset(a->address),
                                     (unsigned char)a->value, a->bytes, 0));
            break;
        }
        case PLAN_ATTRIBUTE:
            CU_CHECK(driver.func_set_attribute(a->kernel->function, (CUfunction_attribute)a->attribute, a->attribute_value));
            break;
        case PLAN_LAUNCH: {
            const module_kernel *k = a->kernel;
            // Each launch starts from the module as loaded: a level that
            // notes its arguments in a __device__ variable and leaves its
            // work to the next launch finds them gone there.
            if (launched)
                module_reset_globals_between_launches();
            launched = true;
            memcpy(params, a->params, k->params_bytes);
            for (unsigned off = 0; off + 8 <= k->params_bytes; off += 8) {
                uint64_t word;
                memcpy(&word, params + off, 8);
                int r = region_of(word);
                if (r < 0)
                    continue;
                word = (uint64_t)(uintptr_t)regions[r].ptr + region_offset(word);
                memcpy(params + off, &word, 8);
            }
            for (int q = 0; q < k->param_count; q++)
                args[q] = params + k->param_offset[q];
            cuda_check((cudaError_t)driver.launch_kernel(k->function, a->grid[0], a->grid[1], a->grid[2], a->block[0],
                                                   a->block[1], a->block[2], (unsigned)a->smem, 0, args, NULL),
                       "kernel launch", __FILE__, __LINE__);
            done++;
            break;
        }
        }
    }
}

void plan_replay(const plan *p, const plan_region *regions)
{
    replay(p, regions, INT_MAX);
}

void plan_replay_first_launch(const plan *p, const plan_region *regions)
{
    replay(p, regions, 1);
}

int plan_launch_pointers(const plan *p, int launch, const plan_region *regions, plan_region *pointers, int max)
{
    int count = 0;
    for (int i = 0, seen = 0; i < p->action_count; i++) {
        const plan_action *a = &p->actions[i];
        if (a->kind != PLAN_LAUNCH || seen++ != launch)
            continue;
        const module_kernel *k = a->kernel;
        // Every 8-byte word of the parameters, as replay maps them: a pointer
        // may be a member of a struct passed by value.
        for (unsigned off = 0; k && off + 8 <= k->params_bytes && count < max; off += 8) {
            uint64_t word;
            memcpy(&word, a->params + off, 8);
            int r = region_of(word);
            if (r < 0 || region_offset(word) > regions[r].bytes)
                continue;
            pointers[count++] = (plan_region){(char *)regions[r].ptr + region_offset(word),
                                              regions[r].bytes - region_offset(word)};
        }
        break;
    }
    return count;
}
