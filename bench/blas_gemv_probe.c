/* blas_gemv_probe.c: would a device ?gemv ever win? y = A x timed two ways on the same arrays:
 * the drop-in's device path (dgemm_ with n = 1: what a device dgemv costs, A crossing to the
 * device on every call) and the system BLAS's dgemv_ (dlopen'ed libblas.so.3). Run it with
 * CLGEMM_BLAS_MIN_FLOPS=0 so that every dgemm_ goes to the device; docs/PERFORMANCE.md has the
 * figures and why the drop-in has no gemv. */
#include "core/clock.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc, size_t la, size_t lb);
typedef void (*gemv_fn)(const char *t, const int *m, const int *n, const double *alpha,
                        const double *a, const int *lda, const double *x, const int *incx,
                        const double *beta, double *y, const int *incy, size_t lt);

int main(void) {
    void *lib = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
    gemv_fn gemv = lib ? (gemv_fn)dlsym(lib, "dgemv_") : NULL;
    if (!gemv) {
        fprintf(stderr, "blas_gemv_probe: no dgemv_ in libblas.so.3\n");
        return 1;
    }
    const int sizes[] = {256, 1024, 2048, 4096, 8192};
    for (int s = 0; s < 5; s++) {
        int n = sizes[s], one = 1, reps = n <= 1024 ? 20 : 5;
        double *a = malloc(sizeof *a * (size_t)n * n), *x = malloc(sizeof *x * n),
               *y = malloc(sizeof *y * n);
        if (!a || !x || !y) return 1;
        for (size_t i = 0; i < (size_t)n * n; i++)
            a[i] = (double)(i % 7) / 7;
        for (int i = 0; i < n; i++)
            x[i] = (double)(i % 5) / 5;
        double alpha = 1, beta = 0;
        /* The first call builds the kernels: not timed. */
        dgemm_("N", "N", &n, &one, &n, &alpha, a, &n, x, &n, &beta, y, &n, 1, 1);
        double t0 = clgemm_now_seconds();
        for (int r = 0; r < reps; r++)
            dgemm_("N", "N", &n, &one, &n, &alpha, a, &n, x, &n, &beta, y, &n, 1, 1);
        double device = (clgemm_now_seconds() - t0) / reps;
        gemv("N", &n, &n, &alpha, a, &n, x, &one, &beta, y, &one, 1);
        t0 = clgemm_now_seconds();
        for (int r = 0; r < reps; r++)
            gemv("N", &n, &n, &alpha, a, &n, x, &one, &beta, y, &one, 1);
        double host = (clgemm_now_seconds() - t0) / reps;
        printf("n=%5d  device (dgemm_, n = 1) %9.3f ms  system dgemv_ %9.3f ms  device/host %.2f\n",
               n, device * 1e3, host * 1e3, device / host);
        free(a);
        free(x);
        free(y);
    }
    return 0;
}
