/* cblas_loader.c: opens a CBLAS library by path for the benchmarks' reference timings
 * (cblas_loader.h). */
#include "cblas_loader.h"

#include <dlfcn.h>
#include <stdio.h>

static const char *const default_paths[] = {
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3",
    "/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
};

typedef int (*threads_fn)(void);

bool cblas_lib_open(cblas_lib *lib, const char *path, const char *tool, char *describe,
                    size_t size) {
    size_t count = path ? 1 : sizeof default_paths / sizeof default_paths[0];
    const char *tried = NULL;
    void *handle = NULL;
    for (size_t i = 0; i < count && !handle; i++) {
        tried = path ? path : default_paths[i];
        handle = dlopen(tried, RTLD_NOW | RTLD_LOCAL);
    }
    if (!handle) {
        fprintf(stderr, "%s: no CBLAS reference: %s (give one with --reference-lib PATH)\n", tool,
                path ? dlerror()
                     : "OpenBLAS is not installed at "
                       "/usr/lib/x86_64-linux-gnu/openblas-pthread/ (Debian: "
                       "libopenblas0-pthread)");
        return false;
    }
    *lib = (cblas_lib){
        .sgemm = (cblas_sgemm_fn)(uintptr_t)dlsym(handle, "cblas_sgemm"),
        .dgemm = (cblas_dgemm_fn)(uintptr_t)dlsym(handle, "cblas_dgemm"),
        .cgemm = (cblas_xgemm_fn)(uintptr_t)dlsym(handle, "cblas_cgemm"),
        .zgemm = (cblas_xgemm_fn)(uintptr_t)dlsym(handle, "cblas_zgemm"),
        .sbgemm = (cblas_sbgemm_fn)(uintptr_t)dlsym(handle, "cblas_sbgemm"),
        .path = tried,
    };
    if (!lib->sgemm || !lib->dgemm) {
        fprintf(stderr, "%s: %s has no cblas_sgemm/cblas_dgemm\n", tool, tried);
        dlclose(handle);
        *lib = (cblas_lib){0};
        return false;
    }
    threads_fn threads = (threads_fn)(uintptr_t)dlsym(handle, "openblas_get_num_threads");
    if (threads)
        snprintf(describe, size, "%s, %d threads", tried, threads());
    else
        snprintf(describe, size, "%s", tried);
    return true; /* the library stays open for the process's life */
}
