// module_state.cu: module_state.h -- the fatbin's cubin for a GPU, and the
// memory of it that outlives a launch. Host code alone, no CUDA call: it
// builds with any C++ compiler (the tool common/tools/module-state.cpp).
//
// The fatbin container, as nvcc's fatbinary writes it (little-endian):
//   a header: magic 0xBA55ED50, version (2 bytes), header size (2), size of
//   what follows (8); then images, each a header and its bytes:
//     kind (2: 1 PTX, 2 cubin), version (2), header size (4, 64 or more), bytes (8),
//     compressed bytes (4), ..., architecture (4 at 28: 90 for sm_90), ...,
//     flags (8 at 40), ..., bytes once uncompressed (8 at 56)
//   the flags tell an image compressed (0x2000: LZ4, as older toolkits and
//   --compress-mode=speed do; 0x8000: zstd) and one for a single
//   architecture (0x100000: sm_90a) or a family (0x200000: sm_100f). nvcc
//   compresses no cubin unless asked (-Xfatbin -compress-all); LZ4 is read
//   here, zstd refused.
// A cubin is an ELF file: <elf.h> reads it.
#include "module_state.h"

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t FATBIN_MAGIC = 0xBA55ED50;
enum {
    FATBIN_CUBIN = 2,
    FATBIN_IMAGE_HEADER = 64,  // at least: 80 for PTX, 112 for sm_100's cubins
    FATBIN_LZ4 = 0x2000,
    FATBIN_ZSTD = 0x8000,
    FATBIN_ARCH_SPECIFIC = 0x100000,
    FATBIN_FAMILY = 0x200000,
    EM_CUDA_MACHINE = 190,  // EM_CUDA, which an older <elf.h> lacks
    STO_CUDA_MANAGED = 0x4, // st_other of a __managed__ variable, as ptxas marks it
};

static bool refuse(char *why, size_t len, const char *format, ...) __attribute__((format(printf, 3, 4)));
static bool refuse(char *why, size_t len, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(why, len, format, args);
    va_end(args);
    return false;
}

static uint64_t read_le(const unsigned char *at, int bytes)
{
    uint64_t value = 0;
    for (int i = bytes - 1; i >= 0; i--)
        value = value << 8 | at[i];
    return value;
}

// Where a GPU of `device` can run a cubin of `arch`: its own, or an older
// one of its major version, unless the cubin is for one architecture alone.
// Higher is better; 0: it cannot.
static unsigned fit(unsigned arch, bool arch_specific, unsigned device)
{
    if (arch == device)
        return 1000;
    if (arch_specific || arch / 10 != device / 10 || arch % 10 > device % 10)
        return 0;
    return arch;
}

// An LZ4 block (lz4's block format: sequences of a token, literals, and a
// match at an offset back) into out, exactly out_bytes of it; false where the
// block is not one.
static bool lz4_block(const unsigned char *in, size_t in_bytes, unsigned char *out, size_t out_bytes)
{
    const unsigned char *in_end = in + in_bytes;
    size_t made = 0;
    while (in < in_end) {
        unsigned token = *in++;
        size_t literals = token >> 4;
        for (unsigned more = 255; literals >= 15 && more == 255 && in < in_end; literals += more = *in++)
            ;
        if (literals > (size_t)(in_end - in) || literals > out_bytes - made)
            return false;
        memcpy(out + made, in, literals);
        in += literals;
        made += literals;
        if (in == in_end)  // the last sequence has literals alone
            break;
        if (in_end - in < 2)
            return false;
        size_t back = in[0] | in[1] << 8, match = (token & 15) + 4;
        in += 2;
        for (unsigned more = 255; (token & 15) == 15 && more == 255 && in < in_end; match += more = *in++)
            ;
        if (back == 0 || back > made || match > out_bytes - made)
            return false;
        for (size_t k = 0; k < match; k++, made++)  // byte by byte: the match may overlap what it writes
            out[made] = out[made - back];
    }
    return made == out_bytes;
}

// The cubin a GPU of `device` runs, chosen among the fatbin's images; notes
// every image in state->images.
static bool choose_cubin(module_state *state, const unsigned char *file, size_t file_bytes, unsigned device,
                         const char *path, char *why, size_t len)
{
    const unsigned char *end = file + file_bytes, *at = file, *chosen = NULL;
    unsigned best = 0;
    uint64_t best_flags = 0, packed_bytes = 0, image_bytes = 0;
    size_t used = 0;
    state->images[0] = '\0';
    while (at < end) {
        if (end - at < 16 || read_le(at, 4) != FATBIN_MAGIC)
            return refuse(why, len, "%s is no fatbin nvcc wrote (at byte %zu): rebuild: make", path, (size_t)(at - file));
        uint64_t header = read_le(at + 6, 2), size = read_le(at + 8, 8);
        if (header < 16 || header > (uint64_t)(end - at) || size > (uint64_t)(end - at) - header)
            return refuse(why, len, "%s is cut short: rebuild: make", path);
        const unsigned char *image = at + header, *images_end = image + size;
        while (image < images_end) {
            if (images_end - image < FATBIN_IMAGE_HEADER)
                return refuse(why, len, "%s is cut short: rebuild: make", path);
            unsigned kind = read_le(image, 2), arch = read_le(image + 28, 4);
            uint64_t image_header = read_le(image + 4, 4), bytes = read_le(image + 8, 8), flags = read_le(image + 40, 8);
            if (image_header < FATBIN_IMAGE_HEADER || image_header > (uint64_t)(images_end - image) ||
                bytes > (uint64_t)(images_end - image) - image_header)
                return refuse(why, len, "%s is cut short: rebuild: make", path);
            bool specific = flags & FATBIN_ARCH_SPECIFIC;
            char name[16];
            snprintf(name, sizeof name, "%s_%u%s", kind == FATBIN_CUBIN ? "sm" : "compute", arch,
                     specific ? "a" : flags & FATBIN_FAMILY ? "f" : "");
            used += snprintf(state->images + used, used < sizeof state->images ? sizeof state->images - used : 0,
                             "%s%s", used ? " " : "", name);
            unsigned score = kind == FATBIN_CUBIN ? fit(arch, specific, device) : 0;
            if (score > best) {
                best = score;
                best_flags = flags;
                chosen = image + image_header;
                image_bytes = bytes;
                packed_bytes = flags & FATBIN_LZ4 ? read_le(image + 16, 4) : bytes;
                state->cubin_bytes = flags & FATBIN_LZ4 ? read_le(image + 56, 8) : bytes;
                snprintf(state->arch, sizeof state->arch, "%s", name);
            }
            image += image_header + bytes;
        }
        at = images_end;
    }
    if (!best)
        return refuse(why, len,
                      "%s holds no code for this GPU's architecture, sm_%u (it holds %s): the driver would compile "
                      "the PTX as it loads it, and what that code keeps between launches cannot be read; build for "
                      "this GPU: make SM=%u",
                      path, device, state->images[0] ? state->images : "nothing", device);
    if (best_flags & FATBIN_ZSTD)
        return refuse(why, len, "%s holds %s's code compressed with zstd, which this program does not read: rebuild "
                      "with the workbook's make, which leaves it whole", path, state->arch);
    // A copy of its own, aligned as the ELF's structures and the driver want.
    unsigned char *cubin = (unsigned char *)malloc(state->cubin_bytes ? state->cubin_bytes : 1);
    if (!cubin)
        return refuse(why, len, "out of host memory");
    state->cubin = cubin;
    if (!(best_flags & FATBIN_LZ4))
        memcpy(cubin, chosen, state->cubin_bytes);
    else if (packed_bytes > image_bytes ||
             !lz4_block(chosen, packed_bytes, cubin, state->cubin_bytes))
        return refuse(why, len, "%s: its %s code does not uncompress: rebuild: make", path, state->arch);
    return true;
}

// The cubin's section `index`, bounds checked.
static const Elf64_Shdr *section_at(const module_state *state, unsigned index)
{
    const Elf64_Ehdr *elf = (const Elf64_Ehdr *)state->cubin;
    if (index >= elf->e_shnum)
        return NULL;
    return (const Elf64_Shdr *)(state->cubin + elf->e_shoff + (uint64_t)index * sizeof(Elf64_Shdr));
}

// A string of a string table section, or NULL where it is not one.
static const char *string_at(const module_state *state, const Elf64_Shdr *table, uint64_t offset)
{
    if (!table || table->sh_type != SHT_STRTAB || offset >= table->sh_size)
        return NULL;
    const char *s = (const char *)state->cubin + table->sh_offset + offset;
    return memchr(s, '\0', table->sh_size - offset) ? s : NULL;
}

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

// Does the section keep what a launch writes? Memory the driver allocates
// holds bytes from the cubin (PROGBITS) or zeros (NOBITS); sections of the
// processor's own types describe the code (.nv.info) or, from sm_100 on,
// mirror the others for the driver's own use (.nv.merc.*: the same
// variables, the same offsets, a symbol table of their own). Of that
// memory: what is writable, but shared and local memory (a block's and a
// thread's, gone with the launch), and a constant bank that holds a
// variable, but the parameters' (bank 0, written by each launch). A bank of
// the compiler's own, with no variable, has no address the code could write to.
static bool holds_state(const Elf64_Shdr *s, const char *name, bool has_variables)
{
    if ((s->sh_type != SHT_PROGBITS && s->sh_type != SHT_NOBITS) || !(s->sh_flags & SHF_ALLOC) ||
        (s->sh_flags & SHF_EXECINSTR) || s->sh_size == 0)
        return false;
    if (starts_with(name, ".nv.shared") || starts_with(name, ".nv.local") || starts_with(name, ".nv.constant0"))
        return false;
    return (s->sh_flags & SHF_WRITE) || (starts_with(name, ".nv.constant") && has_variables);
}

static bool read_cubin(module_state *state, const char *path, char *why, size_t len)
{
    const unsigned char *c = state->cubin;
    size_t size = state->cubin_bytes;
    const Elf64_Ehdr *elf = (const Elf64_Ehdr *)c;
    if (size < sizeof *elf || memcmp(c, ELFMAG, SELFMAG) != 0 || c[EI_CLASS] != ELFCLASS64 ||
        c[EI_DATA] != ELFDATA2LSB || elf->e_machine != EM_CUDA_MACHINE)
        return refuse(why, len, "%s: its %s code is no CUDA cubin: rebuild: make", path, state->arch);
    if (elf->e_shentsize != sizeof(Elf64_Shdr) || elf->e_shnum == 0 || elf->e_shoff > size ||
        (uint64_t)elf->e_shnum * sizeof(Elf64_Shdr) > size - elf->e_shoff)
        return refuse(why, len, "%s: the sections of its %s code are not where its header says: rebuild: make",
                      path, state->arch);
    const Elf64_Shdr *names = section_at(state, elf->e_shstrndx), *symtab = NULL;
    for (unsigned i = 0; i < elf->e_shnum; i++) {
        const Elf64_Shdr *s = section_at(state, i);
        if (s->sh_type != SHT_NOBITS && (s->sh_offset > size || s->sh_size > size - s->sh_offset))
            return refuse(why, len, "%s: a section of its %s code lies past its end: rebuild: make", path, state->arch);
        if (s->sh_type == SHT_SYMTAB)
            symtab = s;
    }
    if (!symtab || symtab->sh_entsize != sizeof(Elf64_Sym))
        return refuse(why, len, "%s: its %s code has no table of symbols: rebuild: make", path, state->arch);
    const Elf64_Shdr *symbol_names = section_at(state, symtab->sh_link);
    const Elf64_Sym *symbols = (const Elf64_Sym *)(c + symtab->sh_offset);
    size_t symbol_count = symtab->sh_size / sizeof(Elf64_Sym);

    // Each section's variables, counted first: a constant bank is state when it holds one.
    int *variables = (int *)calloc(elf->e_shnum, sizeof *variables);
    state->ranges = (module_state_range *)calloc(elf->e_shnum + symbol_count, sizeof *state->ranges);
    module_state_symbol *slots = (module_state_symbol *)calloc(symbol_count + 1, sizeof *slots);
    if (!variables || !state->ranges || !slots)
        return refuse(why, len, "out of host memory");
    for (size_t j = 0; j < symbol_count; j++) {
        const Elf64_Sym *y = &symbols[j];
        if (ELF64_ST_TYPE(y->st_info) != STT_OBJECT)
            continue;
        if (y->st_shndx == SHN_XINDEX)
            return refuse(why, len, "%s: its %s code has more sections than this program reads", path, state->arch);
        if (y->st_shndx > SHN_UNDEF && y->st_shndx < elf->e_shnum && !(y->st_other & STO_CUDA_MANAGED))
            variables[y->st_shndx]++;
    }
    int used_slots = 0;
    for (unsigned i = 0; i < elf->e_shnum; i++) {
        const Elf64_Shdr *s = section_at(state, i);
        const char *name = string_at(state, names, s->sh_name);
        if (!name)
            return refuse(why, len, "%s: a section of its %s code has no name: rebuild: make", path, state->arch);
        bool managed_only = false;
        for (size_t j = 0; j < symbol_count && !variables[i]; j++)
            managed_only |= symbols[j].st_shndx == i && (symbols[j].st_other & STO_CUDA_MANAGED);
        if (!holds_state(s, name, variables[i]) || managed_only)
            continue;
        if (!variables[i])
            return refuse(why, len,
                          "%s: its %s code keeps %llu bytes between launches (%s) that no variable names, so "
                          "this program cannot find them to reset them before each run; a step's kernels need no "
                          "such memory",
                          path, state->arch, (unsigned long long)s->sh_size, name);
        module_state_range *r = &state->ranges[state->range_count++];
        r->section = name;
        r->zero = s->sh_type == SHT_NOBITS;
        r->bytes = s->sh_size;
        r->symbols = &slots[used_slots];
        for (size_t j = 0; j < symbol_count; j++) {
            const Elf64_Sym *y = &symbols[j];
            if (ELF64_ST_TYPE(y->st_info) != STT_OBJECT || y->st_shndx != i || (y->st_other & STO_CUDA_MANAGED))
                continue;
            const char *symbol = string_at(state, symbol_names, y->st_name);
            uint64_t offset = y->st_value - s->sh_addr;
            if (!symbol || offset > s->sh_size || y->st_size > s->sh_size - offset)
                return refuse(why, len, "%s: a variable of its %s code lies outside %s: rebuild: make", path,
                              state->arch, name);
            slots[used_slots++] = (module_state_symbol){symbol, offset, y->st_size};
            r->symbol_count++;
        }
    }
    // A __managed__ variable: memory of its own, found by its name.
    for (size_t j = 0; j < symbol_count; j++) {
        const Elf64_Sym *y = &symbols[j];
        if (ELF64_ST_TYPE(y->st_info) != STT_OBJECT || !(y->st_other & STO_CUDA_MANAGED))
            continue;
        const Elf64_Shdr *s = section_at(state, y->st_shndx);
        const char *symbol = string_at(state, symbol_names, y->st_name);
        if (!s || !symbol)
            return refuse(why, len, "%s: a __managed__ variable of its %s code lies nowhere: rebuild: make", path,
                          state->arch);
        module_state_range *r = &state->ranges[state->range_count++];
        r->section = string_at(state, names, s->sh_name);
        r->managed = true;
        r->zero = s->sh_type == SHT_NOBITS;
        r->bytes = y->st_size;
        r->symbols = &slots[used_slots];
        slots[used_slots++] = (module_state_symbol){symbol, 0, y->st_size};
        r->symbol_count = 1;
    }
    free(variables);
    return true;
}

bool module_state_read(const char *path, unsigned device_arch, module_state *state, char *why, size_t why_len)
{
    memset(state, 0, sizeof *state);
    FILE *f = fopen(path, "rb");
    if (!f)
        return refuse(why, why_len, "cannot read %s: %s (rebuild: make)", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *file = (unsigned char *)malloc(size > 0 ? size : 1);
    bool read = file && size > 0 && fread(file, 1, size, f) == (size_t)size;
    fclose(f);
    bool chosen = read && choose_cubin(state, file, size, device_arch, path, why, why_len);
    free(file);
    if (!read)
        return refuse(why, why_len, "cannot read %s whole (rebuild: make)", path);
    return chosen && read_cubin(state, path, why, why_len);
}
