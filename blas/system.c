/* system.c: the system BLAS that small calls (and every call without a usable device) go to,
 * loaded with dlopen so that libclgemm_blas works both by LD_PRELOAD in front of it and when
 * linked instead of it. */
#include "blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

static void *system_lib;
static blas_gemm_fn system_gemm[BLAS_TYPE_COUNT];
static pthread_once_t system_once = PTHREAD_ONCE_INIT;

/* True when addr lies in this library: the fallback must never be ourselves (say
 * CLGEMM_BLAS_FALLBACK names this file, or it was installed as the libblas.so.3 alternative),
 * or a fallback call would come straight back here. */
static int is_self(void *addr) {
    Dl_info mine, theirs;
    if (!dladdr((void *)&is_self, &mine) || !dladdr(addr, &theirs)) return 0;
    return mine.dli_fbase == theirs.dli_fbase;
}

static void load(void) {
    const blas_settings *s = clgemm__blas_settings();
    if (!s->fallback) return;
    system_lib = dlopen(s->fallback, RTLD_NOW | RTLD_LOCAL);
    if (!system_lib) {
        if (s->log) clgemm__blas_log("no system BLAS: %s", dlerror());
        return;
    }
    static const char *names[BLAS_TYPE_COUNT] = {"sgemm_", "dgemm_", "cgemm_", "zgemm_"};
    for (int t = 0; t < BLAS_TYPE_COUNT; t++) {
        /* dlsym on the handle looks in that library first, also when the preloaded copy of
         * the same name comes first in the global scope. */
        void *f = dlsym(system_lib, names[t]);
        if (f && is_self(f)) {
            if (s->log)
                clgemm__blas_log("%s is this library; using the built-in loops", s->fallback);
            memset(system_gemm, 0, sizeof system_gemm);
            return;
        }
        system_gemm[t] = (blas_gemm_fn)f;
    }
}

blas_gemm_fn clgemm__blas_system_gemm(blas_type t) {
    pthread_once(&system_once, load);
    return system_gemm[t];
}

void *clgemm__blas_system_symbol(const char *name) {
    /* The process's own definition first (a test program's xerbla_, the libblas the program
     * linked), then the one of the library we loaded. */
    void *f = dlsym(RTLD_DEFAULT, name);
    if (f && !is_self(f)) return f;
    pthread_once(&system_once, load);
    if (!system_lib || !system_gemm[BLAS_D]) return NULL;
    f = dlsym(system_lib, name);
    return f && !is_self(f) ? f : NULL;
}
