/* program.c: kernel sources, program builds and the two program caches.
 *
 * A program is identified by its source file and build options. Per handle, built programs
 * stay in memory, so a repeated call does not rebuild. Across processes, binaries are kept on
 * disk under a key made of everything that could change the binary (source text, options,
 * device, driver, clgemm version); a cached file is used only if its stored key matches exactly
 * and its checksum holds, so a corrupt or colliding file is rebuilt from source, never trusted.
 * The folder is bounded (CLGEMM_CACHE_MAX_MB, least recently used entries removed) and written
 * only through fileutil.c, which never follows a planted symlink or blocks on a FIFO. Processes
 * that miss the same entry build it once between them (build_lock.c). */
#include "build/build.h"
#include "build/embedded_kernels.h"
#include "build/ptx_patch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct program_entry {
    char *key;          /* file name + options */
    cl_program program; /* NULL while its first caller builds it */
    struct program_entry *next;
} program_entry;

struct program_cache {
    program_entry *head;
    pthread_cond_t built; /* broadcast when a build ends (with or without a program) */
};

static const char BINARY_MAGIC[8] = {'C', 'L', 'G', 'E', 'M', 'M', 'B', '1'};

/* ---- Sources --------------------------------------------------------------------------------- */

/* Kernel sources are a few tens of KiB; a larger file in CLGEMM_KERNEL_DIR is a mistake. */
#define SOURCE_MAX ((size_t)4 << 20)

/* One kernel file: from $CLGEMM_KERNEL_DIR when set (kernel development without rebuilding),
 * else the copy embedded at build time. */
static char *load_one(const char *name) {
    const char *dir = getenv("CLGEMM_KERNEL_DIR");
    if (dir && *dir) {
        char path[4096], *text;
        if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return NULL;
        file_status st = clgemm__read_file(path, SOURCE_MAX, true, &text, NULL);
        if (st != FILE_OK)
            clgemm__log("kernel source %s: %s", path, clgemm__file_status_string(st));
        return text;
    }
    for (const struct embedded_kernel *k = clgemm__embedded_kernels; k->name; k++)
        if (strcmp(k->name, name) == 0) return strdup(k->text);
    return NULL;
}

/* The parts every kernel source starts with: the element types, the GEMM argument list (the
 * host includes it too, src/exec/gemm.c) and what every kernel shares. */
static const char *const COMMON_PARTS[] = {"types.cl", "gemm_args.h", "common.cl"};
#define COMMON_PARTS_N ((int)(sizeof COMMON_PARTS / sizeof *COMMON_PARTS))

int clgemm__kernel_source_parts(const char *file_name, const char *parts[KERNEL_PARTS_MAX]) {
    /* The common parts, then what the family's kernel shares with a few others (its parts),
     * then the family's own code. */
    int n = 0;
    for (; n < COMMON_PARTS_N; n++)
        parts[n] = COMMON_PARTS[n];
    if (!file_name) return n;
    const char *const *extra = clgemm__kernel_parts(file_name);
    for (; extra && *extra; extra++) {
        if (n == KERNEL_PARTS_MAX - 1) return -1;
        parts[n++] = *extra;
    }
    parts[n++] = file_name;
    return n;
}

char *clgemm__kernel_source(const char *file_name) {
    const char *parts[KERNEL_PARTS_MAX];
    const int n = clgemm__kernel_source_parts(file_name, parts);
    if (n < 0) return NULL;
    char *text[KERNEL_PARTS_MAX] = {NULL}, *all = NULL;
    size_t total = 1;
    bool ok = true;
    for (int i = 0; i < n; i++) {
        text[i] = load_one(parts[i]);
        if (!text[i])
            ok = false;
        else
            total += strlen(text[i]) + 1;
    }
    if (ok && (all = malloc(total))) {
        char *end = all;
        for (int i = 0; i < n; i++)
            end += sprintf(end, "%s\n", text[i]);
    }
    for (int i = 0; i < n; i++)
        free(text[i]);
    return all;
}

/* ---- Disk cache ------------------------------------------------------------------------------ */

/* A binary larger than this is not read back (PoCL's are about 0.5 MiB). */
#define ENTRY_MAX ((size_t)64 << 20)
/* Default bound of the whole cache folder (CLGEMM_CACHE_MAX_MB): a full tuning run on PoCL
 * writes about 0.5 MiB per candidate. */
#define DEFAULT_CACHE_MAX_MB 256
/* Temporaries older than this are a killed writer's leftovers. */
#define STALE_TEMP_S 3600

static uint64_t fnv1a(const void *data, size_t size, uint64_t h) {
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}
#define FNV_SEED 14695981039346656037ull

/* The cache folder, or 0 if disk caching is off (CLGEMM_CACHE_DIR=off): CLGEMM_CACHE_DIR, else
 * the kernels folder under the library's cache root (the same rule as the tuning database). */
static int cache_dir(char *buf, size_t size) {
    const char *env = getenv("CLGEMM_CACHE_DIR");
    if (env && strcmp(env, "off") == 0) return 0;
    if (env && *env) {
        int n = snprintf(buf, size, "%s", env);
        return n > 0 && (size_t)n < size;
    }
    char root[4096];
    if (!clgemm__cache_root(root, sizeof root)) return 0;
    int n = snprintf(buf, size, "%s/kernels", root);
    return n > 0 && (size_t)n < size;
}

/* The disk-cache key: everything the binary depends on, as one string; a file whose family
 * patches its PTX adds the patch's version (ptx_patch.c). */
char *clgemm__program_key(const device_info *info, const char *file_name, const char *source,
                          const char *options) {
    const char *patch = clgemm__ptx_patch_need(file_name) ? "sm_90a patch 1" : "";
    size_t size = strlen(source) + strlen(options) + 1024;
    char *key = malloc(size);
    if (key)
        snprintf(key, size, "clgemm %s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s", CLGEMM_VERSION,
                 info->platform_name, info->platform_version, info->name, info->driver_version,
                 info->vendor, options, patch, source);
    return key;
}

static int cache_path(const char *key, char *buf, size_t size, char *dir, size_t dir_size) {
    if (!cache_dir(dir, dir_size)) return 0;
    uint64_t h = fnv1a(key, strlen(key), FNV_SEED);
    int n =
        snprintf(buf, size, "%s/" CLGEMM__CACHE_PREFIX "%016llx.bin", dir, (unsigned long long)h);
    return n > 0 && (size_t)n < size;
}

/* Reads a binary whose stored key is exactly `key` and whose checksum holds, else NULL. A
 * symlink, FIFO or other non-regular file at the path is never opened for reading. */
static unsigned char *disk_read(const char *path, const char *key, size_t *bin_size) {
    size_t size = 0;
    char *file;
    file_status fs = clgemm__read_file(path, ENTRY_MAX, false, &file, &size);
    if (fs != FILE_OK) {
        if (fs != FILE_MISSING)
            clgemm__log("cached binary %s: %s", path, clgemm__file_status_string(fs));
        return NULL;
    }
    size_t key_len = strlen(key);
    uint64_t stored_key_len, stored_bin_len, stored_sum;
    size_t head = sizeof BINARY_MAGIC + 3 * sizeof(uint64_t);
    unsigned char *bin = NULL;
    if (size >= head && memcmp(file, BINARY_MAGIC, sizeof BINARY_MAGIC) == 0) {
        memcpy(&stored_key_len, file + 8, 8);
        memcpy(&stored_bin_len, file + 16, 8);
        memcpy(&stored_sum, file + 24, 8);
        const char *stored_key = file + head;
        const unsigned char *stored_bin = (const unsigned char *)stored_key + key_len;
        if (stored_key_len == key_len && size - head >= key_len &&
            stored_bin_len == size - head - key_len && memcmp(stored_key, key, key_len) == 0 &&
            fnv1a(stored_bin, stored_bin_len, FNV_SEED) == stored_sum &&
            (bin = malloc(stored_bin_len ? stored_bin_len : 1))) {
            memcpy(bin, stored_bin, stored_bin_len);
            *bin_size = stored_bin_len;
            /* A hit makes the entry the newest, so eviction removes the least recently used. */
            utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW);
        }
    }
    free(file);
    return bin;
}

/* The cache's bound in bytes: CLGEMM_CACHE_MAX_MB (a positive number of MiB), else the default. */
static uint64_t cache_max_bytes(void) {
    const char *env = getenv("CLGEMM_CACHE_MAX_MB");
    uint64_t mb = DEFAULT_CACHE_MAX_MB;
    if (env && *env) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(env, &end, 10);
        if (errno || *end || v == 0 || v > (1ull << 40) || *env == '-')
            clgemm__log("CLGEMM_CACHE_MAX_MB=%s ignored: not a positive number of MiB", env);
        else
            mb = v;
    }
    return mb << 20;
}

typedef struct cache_file {
    char name[32];
    struct timespec mtime;
    uint64_t size;
} cache_file;

static int older_first(const void *a, const void *b) {
    const cache_file *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec) return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    return (x->mtime.tv_nsec > y->mtime.tv_nsec) - (x->mtime.tv_nsec < y->mtime.tv_nsec);
}

/* Keeps the folder under its bound by removing the least recently used entries (never `keep`,
 * the one just written), and removes stale temporaries and locks: only files of the cache's own
 * names (clgemm__is_cache_name), since the folder may hold the user's files too. Runs after a
 * write, that is after a build from source, which costs far more than this scan. */
static void evict(const char *dir, const char *keep) {
    clgemm__remove_temps(dir, NULL, ".bin", STALE_TEMP_S);
    clgemm__remove_stale_locks(dir, STALE_TEMP_S);
    DIR *d = opendir(dir);
    if (!d) return;
    cache_file *files = NULL;
    size_t count = 0, cap = 0;
    uint64_t total = 0;
    for (struct dirent *e; (e = readdir(d));) {
        struct stat st;
        if (!clgemm__is_cache_name(e->d_name, strlen(e->d_name), ".bin") ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        total += (uint64_t)st.st_size;
        if (strcmp(e->d_name, keep) == 0) continue;
        if (count == cap) {
            cache_file *grown = realloc(files, (cap = cap ? 2 * cap : 64) * sizeof *files);
            if (!grown) break;
            files = grown;
        }
        cache_file *f = &files[count++];
        snprintf(f->name, sizeof f->name, "%s", e->d_name);
        f->mtime = st.st_mtim;
        f->size = (uint64_t)st.st_size;
    }
    uint64_t max = cache_max_bytes();
    if (total > max && count > 0) {
        qsort(files, count, sizeof *files, older_first);
        for (size_t i = 0; i < count && total > max; i++)
            if (unlinkat(dirfd(d), files[i].name, 0) == 0 || errno == ENOENT)
                total -= files[i].size;
    }
    free(files);
    closedir(d);
}

/* Writes atomically (exclusive temporary of unpredictable name, fsync, rename), so a reader
 * never sees half a file and a symlink planted in the folder is never followed. */
static void disk_write(const char *path, const char *dir, const char *key, const unsigned char *bin,
                       size_t bin_size) {
    if (clgemm__mkdir_p(dir) != 0) return;
    uint64_t key_len = strlen(key), bin_len = bin_size, sum = fnv1a(bin, bin_size, FNV_SEED);
    size_t head = sizeof BINARY_MAGIC + 3 * sizeof(uint64_t), size = head + key_len + bin_size;
    unsigned char *file = malloc(size);
    if (!file) return;
    memcpy(file, BINARY_MAGIC, 8);
    memcpy(file + 8, &key_len, 8);
    memcpy(file + 16, &bin_len, 8);
    memcpy(file + 24, &sum, 8);
    memcpy(file + head, key, key_len);
    memcpy(file + head + key_len, bin, bin_size);
    int err = clgemm__write_atomic(path, file, size);
    free(file);
    if (err == 0) evict(dir, strrchr(path, '/') + 1);
}

/* ---- Builds ---------------------------------------------------------------------------------- */

static cl_program build_from_binary(cl_context context, cl_device_id device,
                                    const unsigned char *bin, size_t size, const char *options) {
    cl_int err, bin_status;
    cl_program program =
        clCreateProgramWithBinary(context, 1, &device, &size, &bin, &bin_status, &err);
    if (err != CL_SUCCESS || bin_status != CL_SUCCESS) {
        if (err == CL_SUCCESS) clReleaseProgram(program);
        return NULL;
    }
    if (clBuildProgram(program, 1, &device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(program);
        return NULL;
    }
    return program;
}

/* A program's binary (PTX text on NVIDIA), NUL-terminated; NULL if the driver gives none. */
static unsigned char *program_binary(cl_program program, size_t *size) {
    *size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL) !=
            CL_SUCCESS ||
        *size == 0)
        return NULL;
    unsigned char *bin = malloc(*size + 1);
    if (bin &&
        clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
        free(bin);
        return NULL;
    }
    if (bin) bin[*size] = 0;
    return bin;
}

/* The program of a cache entry, or NULL when there is none or it does not load. */
static cl_program load_cached(const program_device *d, const char *path, const char *key,
                              const char *options) {
    size_t size;
    unsigned char *bin = disk_read(path, key, &size);
    cl_program program = bin ? build_from_binary(d->context, d->device, bin, size, options) : NULL;
    if (bin && !program) clgemm__log("cached binary %s unusable: rebuilding", path);
    free(bin);
    return program;
}

static void save_binary(cl_program program, const char *path, const char *dir, const char *key) {
    size_t size;
    unsigned char *bin = program_binary(program, &size);
    if (bin) disk_write(path, dir, key, bin, size);
    free(bin);
}

/* A program's build log, or NULL. */
static char *build_log(cl_program program, cl_device_id device) {
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS ||
        size == 0)
        return NULL;
    char *log = malloc(size + 1);
    if (log && clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
                   CL_SUCCESS) {
        free(log);
        return NULL;
    }
    if (log) log[size] = 0;
    return log;
}

/* "first\n--- stage ---\nsecond": the log of a two-stage build shows both stages. */
static char *join_logs(char *first, const char *stage, char *second) {
    size_t size = (first ? strlen(first) : 0) + strlen(stage) + (second ? strlen(second) : 0) + 16;
    char *log = malloc(size);
    if (log)
        snprintf(log, size, "%s\n--- %s ---\n%s", first ? first : "", stage, second ? second : "");
    free(first);
    free(second);
    return log;
}

/* The program of `source` built from source; for a family whose kernels carry sm_90a
 * instructions behind markers (patch), then patched (ptx_patch.c) and built again from the
 * patched PTX. *log gets the build log (both stages where there are two). */
static cl_program build_from_source(cl_context context, cl_device_id device, const char *source,
                                    const char *options, const ptx_patch_need *patch, char **log,
                                    clgemm_status *st) {
    cl_int err;
    *log = NULL;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS) {
        *st = err;
        return NULL;
    }
    err = clBuildProgram(program, 1, &device, options, NULL, NULL);
    *log = build_log(program, device);
    if (err != CL_SUCCESS || !patch) {
        if (err != CL_SUCCESS) {
            clReleaseProgram(program);
            program = NULL;
            *st = CLGEMM_ERR_BUILD_FAILED;
        }
        return program;
    }
    size_t size;
    unsigned char *ptx = program_binary(program, &size);
    clReleaseProgram(program);
    program = NULL;
    char *patched = NULL;
    int markers = 0;
    ptx_patch_result r =
        ptx ? clgemm__ptx_patch((const char *)ptx, patch->maxnreg, &patched, &markers)
            : PTX_PATCH_NO_TARGET;
    free(ptx);
    if (r != PTX_PATCH_OK) {
        char *why = strdup(clgemm__ptx_patch_string(r));
        *log = join_logs(*log, "sm_90a patch refused", why);
        *st = r == PTX_PATCH_NO_MEMORY ? CLGEMM_ERR_OUT_OF_HOST_MEMORY : CLGEMM_ERR_BUILD_FAILED;
        return NULL;
    }
    program = build_from_binary(context, device, (const unsigned char *)patched, strlen(patched),
                                options);
    free(patched);
    if (!program) {
        *log = join_logs(*log, "build of the patched sm_90a PTX failed", NULL);
        *st = CLGEMM_ERR_BUILD_FAILED;
        return NULL;
    }
    char *second = build_log(program, device);
    *log = join_logs(*log, "patched sm_90a PTX", second);
    return program;
}

static void keep_build_log(const build_log_sink *sink, char *log) {
    if (log && sink && sink->keep)
        sink->keep(sink->owner, log);
    else
        free(log);
}

static clgemm_status build_program(const program_device *d, const build_log_sink *sink,
                                   const char *file_name, const char *options, cl_program *out) {
    char *source = clgemm__kernel_source(file_name);
    if (!source) return CLGEMM_ERR_KERNEL_SOURCE;
    const ptx_patch_need *patch = clgemm__ptx_patch_need(file_name);
    char *key = clgemm__program_key(&d->info, file_name, source, options);
    char path[4200], dir[4096];
    bool cached = key && cache_path(key, path, sizeof path, dir, sizeof dir);
    cl_program program = cached ? load_cached(d, path, key, options) : NULL;
    /* A miss: one process of the host builds it, the others wait and read what it wrote
     * (build_lock.c). Read again whatever the lock says: another process may have written the
     * entry between the first read and the lock. */
    build_lock lock = {.fd = -1};
    if (cached && !program) {
        clgemm__build_lock(path, &lock);
        program = load_cached(d, path, key, options);
    }
    clgemm_status st = CLGEMM_SUCCESS;
    if (!program) {
        /* The one line per build from source: tests count them (one build per host). */
        clgemm__log("building %s from source (%s)", file_name,
                    cached ? strrchr(path, '/') + 1 : "not cached");
        char *log;
        program = build_from_source(d->context, d->device, source, options, patch, &log, &st);
        if (!program)
            clgemm__log("build of %s failed (%s):\n%s", file_name, options, log ? log : "");
        else if (log && log[strspn(log, " \t\r\n")]) /* e.g. -cl-nv-verbose's registers */
            clgemm__log("build log of %s (%s):\n%s", file_name, options, log);
        if (program && cached) save_binary(program, path, dir, key);
        keep_build_log(sink, log);
    }
    clgemm__build_unlock(&lock);
    free(key);
    free(source);
    *out = program;
    return st;
}

/* Whether this device's driver runs patched sm_90a PTX: one tiny kernel with one marker through
 * the same two-stage build (*log: both stages' logs). Asked once per device (device_state.c),
 * and only of NVIDIA devices of compute capability 9.0: elsewhere the answer is no without a
 * build. Without with_asm the kernel has no inline PTX, so that any device's compiler takes it
 * and the patch step meets that device's binary (the tests' simulated failure). */
bool clgemm__sm90a_probe(cl_context context, cl_device_id device, bool with_asm, char **log) {
    static const char probe[] =
        "__kernel void clgemm_sm90a_probe(__global int *x) {\n"
        "#if PROBE_ASM\n"
        "    asm volatile(\"// @fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
        "#endif\n"
        "    x[get_global_id(0)] = 1;\n"
        "}\n";
    static const ptx_patch_need need = {0};
    clgemm_status st;
    cl_program p = build_from_source(context, device, probe,
                                     with_asm ? "-DPROBE_ASM=1" : "-DPROBE_ASM=0", &need, log, &st);
    if (p) clReleaseProgram(p);
    return p != NULL;
}

bool clgemm__sm90a_usable(cl_context context, cl_device_id device, const device_info *info) {
    if (info->cls != DEVICE_NVIDIA_GPU || info->nv_compute_capability != 90) return false;
    char *log = NULL;
    bool ok = clgemm__sm90a_probe(context, device, true, &log);
    if (!ok) clgemm__log("sm_90a kernels unavailable on this device:\n%s", log ? log : "");
    free(log);
    return ok;
}

bool clgemm__fp8_mma_usable(cl_context context, cl_device_id device, const device_info *info) {
    if (info->cls != DEVICE_NVIDIA_GPU || info->nv_compute_capability < 89) return false;
    static const char probe[] =
        "__kernel void clgemm_fp8_mma_probe(__global float *x) {\n"
        "    float d0 = x[0], d1 = x[1], d2 = x[2], d3 = x[3];\n"
        "    const uint a = as_uint(x[4]);\n"
        "    asm volatile(\"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, \"\n"
        "                 \"{%4,%4,%4,%4}, {%4,%4}, {%0,%1,%2,%3};\"\n"
        "                 : \"+f\"(d0), \"+f\"(d1), \"+f\"(d2), \"+f\"(d3) : \"r\"(a));\n"
        "    asm volatile(\"mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {%0,%1,%2,%3}, \"\n"
        "                 \"{%4,%4,%4,%4}, {%4,%4}, {%0,%1,%2,%3};\"\n"
        "                 : \"+f\"(d0), \"+f\"(d1), \"+f\"(d2), \"+f\"(d3) : \"r\"(a));\n"
        "    x[get_global_id(0)] = d0 + d1 + d2 + d3;\n"
        "}\n";
    char *log = NULL;
    clgemm_status st;
    cl_program p = build_from_source(context, device, probe, "", NULL, &log, &st);
    if (p)
        clReleaseProgram(p);
    else
        clgemm__log("FP8 mma.sync unavailable on this device:\n%s", log ? log : "");
    free(log);
    return p != NULL;
}

/* Whether static __local arrays of `bytes` build on the device: one kernel whose array is
 * written and read, so that no compiler drops it (*log: the build log). NVIDIA's compiler refuses
 * an array past the hardware's limit at build time ("uses too much shared data"). */
bool clgemm__static_local_probe(cl_context context, cl_device_id device, cl_ulong bytes,
                                char **log) {
    static const char probe[] =
        "__kernel void clgemm_static_local_probe(__global uint *x) {\n"
        "    __local uint a[PROBE_WORDS];\n"
        "    const uint i = get_local_id(0);\n"
        "    for (uint j = i; j < PROBE_WORDS; j += get_local_size(0)) a[j] = j ^ x[0];\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    x[get_global_id(0) + 1] = a[(PROBE_WORDS - 1 - i) % PROBE_WORDS];\n"
        "}\n";
    char options[64];
    snprintf(options, sizeof options, "-DPROBE_WORDS=%llu", (unsigned long long)(bytes / 4));
    clgemm_status st;
    cl_program p = build_from_source(context, device, probe, options, NULL, log, &st);
    if (p) clReleaseProgram(p);
    return p != NULL;
}

cl_ulong clgemm__static_local_pick(const device_info *info,
                                   bool (*probe)(void *arg, cl_ulong bytes), void *arg) {
    cl_ulong want = info->cls == DEVICE_NVIDIA_GPU
                        ? clgemm__nv_static_local_max(info->nv_compute_capability)
                        : 0;
    if (want <= info->local_mem_size) return 0; /* nothing above what OpenCL reports */
    if (probe(arg, want)) return want;
    /* NVIDIA's OpenCL compiler adds a few bytes of its own to every kernel's shared data (4 on
     * the H200: "0x38c04 bytes, 0x38c00 max" for an array of exactly the table's figure), so the
     * figure itself never builds; 1 KiB less leaves that room and a kernel's own barriers. */
    want -= 1024;
    return want > info->local_mem_size && probe(arg, want) ? want : 0;
}

typedef struct probe_device {
    cl_context context;
    cl_device_id device;
} probe_device;

static bool probe_on_device(void *arg, cl_ulong bytes) {
    const probe_device *d = arg;
    char *log = NULL;
    bool ok = clgemm__static_local_probe(d->context, d->device, bytes, &log);
    if (!ok)
        clgemm__log("static local arrays of %llu bytes do not build:\n%s",
                    (unsigned long long)bytes, log ? log : "");
    free(log);
    return ok;
}

cl_ulong clgemm__static_local_usable(cl_context context, cl_device_id device,
                                     const device_info *info) {
    probe_device d = {context, device};
    cl_ulong bytes = clgemm__static_local_pick(info, probe_on_device, &d);
    if (bytes) clgemm__log("static local arrays of %llu bytes build", (unsigned long long)bytes);
    return bytes;
}

clgemm_status clgemm__program_device_init(program_device *d, cl_context context,
                                          cl_device_id device) {
    memset(d, 0, sizeof *d);
    clgemm_status st = clgemm__device_query(device, &d->info);
    if (st != CLGEMM_SUCCESS) return st;
    if (pthread_mutex_init(&d->lock, NULL) != 0) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    d->context = context;
    d->device = device;
    d->info.nv_sm90a = clgemm__sm90a_usable(context, device, &d->info);
    d->info.nv_fp8_mma = clgemm__fp8_mma_usable(context, device, &d->info);
    d->info.local_mem_static = clgemm__static_local_usable(context, device, &d->info);
    /* Read once: the warm call path reads no environment. */
    const char *extra = getenv("CLGEMM_BUILD_OPTIONS");
    /* Whole or not at all: options cut at the buffer's end could build a different kernel. */
    if (extra && strlen(extra) >= sizeof d->extra_options) {
        clgemm__log("CLGEMM_BUILD_OPTIONS ignored: longer than %zu bytes",
                    sizeof d->extra_options - 1);
        extra = NULL;
    }
    snprintf(d->extra_options, sizeof d->extra_options, "%s", extra ? extra : "");
    return CLGEMM_SUCCESS;
}

static void program_cache_free(program_cache *cache) {
    if (!cache) return;
    for (program_entry *e = cache->head, *next; e; e = next) {
        next = e->next;
        if (e->program) clReleaseProgram(e->program);
        free(e->key);
        free(e);
    }
    pthread_cond_destroy(&cache->built);
    free(cache);
}

void clgemm__program_device_free(program_device *d) {
    program_cache_free(d->programs);
    d->programs = NULL;
    pthread_mutex_destroy(&d->lock);
}

clgemm_status clgemm__program(program_device *d, const build_log_sink *sink, const char *file_name,
                              const char *options, cl_program *out) {
    /* CLGEMM_BUILD_OPTIONS (read when the device state was made) adds options for kernel
     * development (-cl-nv-verbose, say). */
    size_t key_size = strlen(file_name) + strlen(options) + strlen(d->extra_options) + 3;
    char *key = malloc(key_size);
    if (!key) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    snprintf(key, key_size, "%s %s %s", file_name, options, d->extra_options);
    options = key + strlen(file_name) + 1; /* the options proper, extra ones included */
    /* Builds of different programs run concurrently (the tuner compiles candidates ahead on
     * several threads; a runtime that serialises its compiler still overlaps them with the
     * timing): the first caller of a key inserts a placeholder and builds without the device's
     * lock; a caller of the same key waits for it and finds it built. Warm calls never take
     * this lock. */
    pthread_mutex_lock(&d->lock);
    clgemm_status st = CLGEMM_SUCCESS;
    if (!d->programs && (d->programs = calloc(1, sizeof *d->programs)) &&
        pthread_cond_init(&d->programs->built, NULL) != 0) {
        free(d->programs);
        d->programs = NULL;
    }
    if (!d->programs) st = CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    program_entry *e = NULL;
    while (st == CLGEMM_SUCCESS) {
        e = d->programs->head;
        while (e && strcmp(e->key, key) != 0)
            e = e->next;
        if (!e || e->program) break;
        pthread_cond_wait(&d->programs->built, &d->lock); /* a build of it is under way */
    }
    bool fresh = st == CLGEMM_SUCCESS && !e;
    if (fresh && !(e = malloc(sizeof *e))) st = CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    if (st == CLGEMM_SUCCESS && fresh) { /* a new placeholder: this caller builds it */
        *e = (program_entry){key, NULL, d->programs->head};
        d->programs->head = e;
        key = NULL; /* the entry owns it */
        pthread_mutex_unlock(&d->lock);
        cl_program program = NULL;
        st = build_program(d, sink, file_name, options, &program);
        pthread_mutex_lock(&d->lock);
        if (st == CLGEMM_SUCCESS) {
            e->program = program;
        } else { /* removed, so that a later call tries again, as before */
            program_entry **p = &d->programs->head;
            while (*p != e)
                p = &(*p)->next;
            *p = e->next;
            free(e->key);
            free(e);
        }
        pthread_cond_broadcast(&d->programs->built);
    }
    if (st == CLGEMM_SUCCESS) {
        clRetainProgram(e->program);
        *out = e->program;
    }
    pthread_mutex_unlock(&d->lock);
    free(key);
    return st;
}
