/* cblas_reference.c: a CBLAS library (OpenBLAS by default) as clgemm-bench's reference, loaded
 * with dlopen by path so that the bench needs no link-time BLAS and the system's libblas.so.3
 * alternative stays whatever it is. It times cblas_sgemm/cblas_dgemm on the host copies of the
 * same A and B, in the same process, right after clgemm's call on that problem; cblas_cgemm and
 * cblas_zgemm (alpha and beta by pointer) for the complex types, cblas_sbgemm (BF16 A and B,
 * FP32 C: OpenBLAS 0.3.10 and later) for BF16. */
#include "bench.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* CBLAS's enum values (cblas.h): the same numbers clgemm's enums use. */
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *,
                         int, double, double *, int);
/* cgemm and zgemm: alpha, beta, A, B and C by pointer (CBLAS's complex calls). */
typedef void (*xgemm_fn)(int, int, int, int, int, int, const void *, const void *, int,
                         const void *, int, const void *, void *, int);
/* sbgemm: A and B of BF16 (OpenBLAS's bfloat16, the 16 bits), alpha, beta and C of FP32. */
typedef void (*sbgemm_fn)(int, int, int, int, int, int, float, const uint16_t *, int,
                          const uint16_t *, int, float, float *, int);
typedef int (*threads_fn)(void);

static const char *const default_paths[] = {
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3",
    "/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
};

static struct {
    void *lib;
    sgemm_fn sgemm;
    dgemm_fn dgemm;
    xgemm_fn cgemm, zgemm; /* NULL where the library has none: complex problems fail */
    sbgemm_fn sbgemm;      /* ... and BF16 ones */
    const char *path;
    threads_fn threads;
} cblas;

bool cblas_reference_open(const char *path, char *describe, size_t size) {
    size_t count = path ? 1 : sizeof default_paths / sizeof default_paths[0];
    const char *tried = NULL;
    for (size_t i = 0; i < count && !cblas.lib; i++) {
        tried = path ? path : default_paths[i];
        cblas.lib = dlopen(tried, RTLD_NOW | RTLD_LOCAL);
    }
    if (!cblas.lib) {
        fprintf(stderr,
                "clgemm-bench: no CBLAS reference: %s (give one with --reference-lib PATH)\n",
                path ? dlerror()
                     : "OpenBLAS is not installed at "
                       "/usr/lib/x86_64-linux-gnu/openblas-pthread/ (Debian: "
                       "libopenblas0-pthread)");
        return false;
    }
    cblas.sgemm = (sgemm_fn)(uintptr_t)dlsym(cblas.lib, "cblas_sgemm");
    cblas.dgemm = (dgemm_fn)(uintptr_t)dlsym(cblas.lib, "cblas_dgemm");
    cblas.cgemm = (xgemm_fn)(uintptr_t)dlsym(cblas.lib, "cblas_cgemm");
    cblas.zgemm = (xgemm_fn)(uintptr_t)dlsym(cblas.lib, "cblas_zgemm");
    cblas.sbgemm = (sbgemm_fn)(uintptr_t)dlsym(cblas.lib, "cblas_sbgemm");
    cblas.path = tried;
    cblas.threads = (threads_fn)(uintptr_t)dlsym(cblas.lib, "openblas_get_num_threads");
    if (!cblas.sgemm || !cblas.dgemm) {
        fprintf(stderr, "clgemm-bench: %s has no cblas_sgemm/cblas_dgemm\n", tried);
        dlclose(cblas.lib);
        cblas.lib = NULL;
        return false;
    }
    if (cblas.threads)
        snprintf(describe, size, "%s, %d threads", tried, cblas.threads());
    else
        snprintf(describe, size, "%s", tried);
    return true;
}

typedef struct cblas_ctx {
    const problem *p;
    const buffers *b;
    void *c;
} cblas_ctx;

static int cblas_call(void *ctx) {
    cblas_ctx *x = ctx;
    const problem *p = x->p;
    const buffers *b = x->b;
    int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    static const double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
    static const float onef[2] = {1.0f, 0.0f}, zerof[2] = {0.0f, 0.0f};
    if (p->precision == CLGEMM_COMPLEX_SINGLE)
        cblas.cgemm((int)p->layout, (int)p->trans_a, (int)p->trans_b, m, n, k, onef, b->host_a,
                    (int)b->lda, b->host_b, (int)b->ldb, zerof, x->c, (int)b->ldc);
    else if (p->precision == CLGEMM_COMPLEX_DOUBLE)
        cblas.zgemm((int)p->layout, (int)p->trans_a, (int)p->trans_b, m, n, k, one, b->host_a,
                    (int)b->lda, b->host_b, (int)b->ldb, zero, x->c, (int)b->ldc);
    else if (p->precision == CLGEMM_BFLOAT16)
        cblas.sbgemm((int)p->layout, (int)p->trans_a, (int)p->trans_b, m, n, k, 1.0f, b->host_a,
                     (int)b->lda, b->host_b, (int)b->ldb, 0.0f, x->c, (int)b->ldc);
    else if (p->precision == CLGEMM_DOUBLE)
        cblas.dgemm((int)p->layout, (int)p->trans_a, (int)p->trans_b, m, n, k, 1.0, b->host_a,
                    (int)b->lda, b->host_b, (int)b->ldb, 0.0, x->c, (int)b->ldc);
    else
        cblas.sgemm((int)p->layout, (int)p->trans_a, (int)p->trans_b, m, n, k, 1.0f, b->host_a,
                    (int)b->lda, b->host_b, (int)b->ldb, 0.0f, x->c, (int)b->ldc);
    return 0;
}

measurement run_cblas(const bench_ctx *bc, const problem *p, const buffers *b, int runs,
                      void *host_c) {
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX || b->lda > INT32_MAX ||
        b->ldb > INT32_MAX || b->ldc > INT32_MAX)
        return (measurement){.ran = true, .status = CLGEMM_ERR_TOO_LARGE};
    if ((p->precision == CLGEMM_COMPLEX_SINGLE && !cblas.cgemm) ||
        (p->precision == CLGEMM_COMPLEX_DOUBLE && !cblas.zgemm))
        return (measurement){.ran = true, .status = CLGEMM_ERR_INVALID_ARGUMENT};
    if (p->precision == CLGEMM_BFLOAT16 && !cblas.sbgemm) {
        static bool said;
        if (!said)
            fprintf(stderr,
                    "clgemm-bench: %s has no cblas_sbgemm (BF16: OpenBLAS 0.3.10 and later): BF16 "
                    "rows have no reference\n",
                    cblas.path);
        said = true;
        return (measurement){.ran = true, .status = CLGEMM_ERR_INVALID_TYPE};
    }
    const bool dbl = precision_double(p->precision);
    const size_t components =
        precision_c_bytes(p->precision) / (dbl ? sizeof(double) : sizeof(float));
    for (size_t i = 0; i < b->c_elems * components; i++) /* poison: one that writes nothing fails */
        if (dbl)
            ((double *)host_c)[i] = NAN;
        else
            ((float *)host_c)[i] = NAN;
    cblas_ctx ctx = {p, b, host_c};
    return time_calls(cblas_call, &ctx, bc->queue, runs,
                      problem_flops(p)); /* clFinish of an idle queue */
}
