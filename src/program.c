/* program.c: kernel sources, program builds and the two program caches.
 *
 * A program is identified by its source file and build options. Per handle, built programs
 * stay in memory, so a repeated call does not rebuild. Across processes, binaries are kept on
 * disk under a key made of everything that could change the binary (source text, options,
 * device, driver, clgemm version); a cached file is used only if its stored key matches exactly
 * and its checksum holds, so a corrupt or colliding file is rebuilt from source, never trusted. */
#include "embedded_kernels.h"
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct program_entry {
    char *key; /* file name + options */
    cl_program program;
    cl_kernel kernel;
    struct program_entry *next;
} program_entry;

struct program_cache {
    program_entry *head;
};

static const char BINARY_MAGIC[8] = {'C', 'L', 'G', 'E', 'M', 'M', 'B', '1'};

/* ---- Sources --------------------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *size_out) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size + 1))) {
            if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
                free(buf);
                buf = NULL;
            } else {
                buf[size] = 0;
                if (size_out) *size_out = (size_t)size;
            }
        }
    }
    fclose(f);
    return buf;
}

/* One kernel file: from $CLGEMM_KERNEL_DIR when set (kernel development without rebuilding),
 * else the copy embedded at build time. */
static char *load_one(const char *name) {
    const char *dir = getenv("CLGEMM_KERNEL_DIR");
    if (dir && *dir) {
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return NULL;
        return read_file(path, NULL);
    }
    for (const struct embedded_kernel *k = clgemm__embedded_kernels; k->name; k++)
        if (strcmp(k->name, name) == 0) return strdup(k->text);
    return NULL;
}

char *clgemm__kernel_source(const char *file_name) {
    char *common = load_one("common.cl");
    char *body = load_one(file_name);
    char *all = NULL;
    if (common && body && (all = malloc(strlen(common) + strlen(body) + 2)))
        sprintf(all, "%s\n%s", common, body);
    free(common);
    free(body);
    return all;
}

/* ---- Disk cache ------------------------------------------------------------------------------ */

static uint64_t fnv1a(const void *data, size_t size, uint64_t h) {
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}
#define FNV_SEED 14695981039346656037ull

/* The cache folder, or 0 if disk caching is off (CLGEMM_CACHE_DIR=off). */
static int cache_dir(char *buf, size_t size) {
    const char *env = getenv("CLGEMM_CACHE_DIR");
    if (env && strcmp(env, "off") == 0) return 0;
    int n;
    if (env && *env) {
        n = snprintf(buf, size, "%s", env);
    } else if (getenv("XDG_CACHE_HOME") && *getenv("XDG_CACHE_HOME")) {
        n = snprintf(buf, size, "%s/clgemm/kernels", getenv("XDG_CACHE_HOME"));
    } else if (getenv("HOME") && *getenv("HOME")) {
        n = snprintf(buf, size, "%s/.cache/clgemm/kernels", getenv("HOME"));
    } else {
        return 0;
    }
    return n > 0 && (size_t)n < size;
}

static void make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        mkdir(path, 0755);
        *p = '/';
    }
    mkdir(path, 0755);
}

/* The disk-cache key: everything the binary depends on, as one string. */
static char *disk_key(const device_info *info, const char *source, const char *options) {
    size_t size = strlen(source) + strlen(options) + 1024;
    char *key = malloc(size);
    if (key)
        snprintf(key, size, "clgemm %s\n%s\n%s\n%s\n%s\n%s\n%s\n%s", CLGEMM_VERSION,
                 info->platform_name, info->platform_version, info->name, info->driver_version,
                 info->vendor, options, source);
    return key;
}

static int cache_path(const char *key, char *buf, size_t size, char *dir, size_t dir_size) {
    if (!cache_dir(dir, dir_size)) return 0;
    uint64_t h = fnv1a(key, strlen(key), FNV_SEED);
    int n = snprintf(buf, size, "%s/%016llx.bin", dir, (unsigned long long)h);
    return n > 0 && (size_t)n < size;
}

/* Reads a binary whose stored key is exactly `key` and whose checksum holds, else NULL. */
static unsigned char *disk_read(const char *path, const char *key, size_t *bin_size) {
    size_t size = 0;
    char *file = read_file(path, &size);
    if (!file) return NULL;
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
        }
    }
    free(file);
    return bin;
}

/* Writes atomically (temporary file + rename), so a reader never sees half a file. */
static void disk_write(const char *path, char *dir, const char *key, const unsigned char *bin,
                       size_t bin_size) {
    make_dirs(dir);
    char tmp[4300];
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof tmp) return;
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    uint64_t key_len = strlen(key), bin_len = bin_size, sum = fnv1a(bin, bin_size, FNV_SEED);
    bool ok = fwrite(BINARY_MAGIC, 1, 8, f) == 8 && fwrite(&key_len, 8, 1, f) == 1 &&
              fwrite(&bin_len, 8, 1, f) == 1 && fwrite(&sum, 8, 1, f) == 1 &&
              fwrite(key, 1, key_len, f) == key_len && fwrite(bin, 1, bin_size, f) == bin_size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

/* ---- Builds ---------------------------------------------------------------------------------- */

static void keep_build_log(struct clgemm_handle_s *h, cl_program program) {
    size_t size = 0;
    if (clGetProgramBuildInfo(program, h->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS ||
        size == 0)
        return;
    char *log = malloc(size + 1);
    if (!log) return;
    if (clGetProgramBuildInfo(program, h->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
        CL_SUCCESS) {
        free(log);
        return;
    }
    log[size] = 0;
    free(h->build_log);
    h->build_log = log;
}

static cl_program build_from_binary(struct clgemm_handle_s *h, const unsigned char *bin,
                                    size_t size, const char *options) {
    cl_int err, bin_status;
    cl_program program =
        clCreateProgramWithBinary(h->context, 1, &h->device, &size, &bin, &bin_status, &err);
    if (err != CL_SUCCESS || bin_status != CL_SUCCESS) {
        if (err == CL_SUCCESS) clReleaseProgram(program);
        return NULL;
    }
    if (clBuildProgram(program, 1, &h->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(program);
        return NULL;
    }
    return program;
}

static void save_binary(struct clgemm_handle_s *h, cl_program program, const char *path, char *dir,
                        const char *key) {
    size_t size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) !=
            CL_SUCCESS ||
        size == 0)
        return;
    unsigned char *bin = malloc(size);
    if (bin && clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS)
        disk_write(path, dir, key, bin, size);
    free(bin);
}

static clgemm_status build_program(struct clgemm_handle_s *h, const char *file_name,
                                   const char *options, cl_program *out) {
    char *source = clgemm__kernel_source(file_name);
    if (!source) return CLGEMM_ERR_KERNEL_SOURCE;
    char *key = disk_key(&h->info, source, options);
    char path[4200], dir[4096];
    bool cached = key && cache_path(key, path, sizeof path, dir, sizeof dir);
    cl_program program = NULL;
    if (cached) {
        size_t size;
        unsigned char *bin = disk_read(path, key, &size);
        if (bin) program = build_from_binary(h, bin, size, options);
        if (bin && !program) clgemm__log("cached binary %s unusable: rebuilding", path);
        free(bin);
    }
    clgemm_status st = CLGEMM_SUCCESS;
    if (!program) {
        cl_int err;
        const char *src = source;
        program = clCreateProgramWithSource(h->context, 1, &src, NULL, &err);
        if (err != CL_SUCCESS) {
            st = err;
            program = NULL;
        } else {
            err = clBuildProgram(program, 1, &h->device, options, NULL, NULL);
            keep_build_log(h, program);
            if (err != CL_SUCCESS) {
                clgemm__log("build of %s failed (%s):\n%s", file_name, options,
                            h->build_log ? h->build_log : "");
                clReleaseProgram(program);
                program = NULL;
                st = CLGEMM_ERR_BUILD_FAILED;
            } else if (cached) {
                save_binary(h, program, path, dir, key);
            }
        }
    }
    free(key);
    free(source);
    *out = program;
    return st;
}

clgemm_status clgemm__get_kernel(struct clgemm_handle_s *h, const char *kernel_name,
                                 const char *file_name, const char *options, cl_kernel *kernel) {
    if (!h->programs && !(h->programs = calloc(1, sizeof *h->programs)))
        return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    /* CLGEMM_BUILD_OPTIONS adds options for kernel development (-cl-nv-verbose, say). */
    const char *extra = getenv("CLGEMM_BUILD_OPTIONS");
    if (!extra) extra = "";
    size_t key_size = strlen(file_name) + strlen(options) + strlen(extra) + 3;
    char *key = malloc(key_size);
    if (!key) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    snprintf(key, key_size, "%s %s %s", file_name, options, extra);
    options = key + strlen(file_name) + 1; /* the options proper, extra ones included */
    for (program_entry *e = h->programs->head; e; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            free(key);
            *kernel = e->kernel;
            return CLGEMM_SUCCESS;
        }
    }
    cl_program program;
    clgemm_status st = build_program(h, file_name, options, &program);
    if (st != CLGEMM_SUCCESS) {
        free(key);
        return st;
    }
    cl_int err;
    cl_kernel k = clCreateKernel(program, kernel_name, &err);
    program_entry *e = err == CL_SUCCESS ? malloc(sizeof *e) : NULL;
    if (!e) {
        if (err == CL_SUCCESS) clReleaseKernel(k);
        clReleaseProgram(program);
        free(key);
        return err != CL_SUCCESS ? err : CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    }
    *e = (program_entry){key, program, k, h->programs->head};
    h->programs->head = e;
    *kernel = k;
    return CLGEMM_SUCCESS;
}

void clgemm__program_cache_free(program_cache *cache) {
    if (!cache) return;
    for (program_entry *e = cache->head, *next; e; e = next) {
        next = e->next;
        clReleaseKernel(e->kernel);
        clReleaseProgram(e->program);
        free(e->key);
        free(e);
    }
    free(cache);
}
