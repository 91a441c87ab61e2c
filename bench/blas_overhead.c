/* blas_overhead.c: clgemm-blas-overhead, what the BLAS drop-in (libclgemm_blas) costs against
 * calling the library's host API directly, on the same host arrays (issue 13). For each size
 * N: sgemm_ through the drop-in and clgemm_sgemm_host, both on column-major N x N x N host
 * arrays, whole call (each returns with C on the host), median of `runs` after a warm-up.
 * Usage: clgemm-blas-overhead [--runs R] N ...   (default 1024 8192) */
#include <clgemm.h>

#include "core/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);

int main(int argc, char **argv) {
    int runs = 5, sizes[16], count = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
            if (runs < 1 || runs > 100) runs = 5;
        } else if (count < 16) {
            sizes[count] = atoi(argv[i]);
            if (sizes[count] < 1 || sizes[count] > 16384) {
                fprintf(stderr, "clgemm-blas-overhead: size %s out of 1..16384\n", argv[i]);
                return 2;
            }
            count++;
        }
    }
    if (!count) sizes[count++] = 1024, sizes[count++] = 8192;
    clgemm_handle h;
    clgemm_status st = clgemm_create_default(&h);
    if (st != CLGEMM_SUCCESS) {
        fprintf(stderr, "clgemm-blas-overhead: %s\n", clgemm_status_string(st));
        return 1;
    }
    setenv("CLGEMM_BLAS_MIN_FLOPS", "0", 1); /* every call to the device */
    for (int s = 0; s < count; s++) {
        int n = sizes[s];
        size_t elems = (size_t)n * (size_t)n;
        float *a = malloc(elems * sizeof *a), *b = malloc(elems * sizeof *b),
              *c = malloc(elems * sizeof *c);
        double *t = malloc(sizeof(double) * (size_t)runs * 2);
        if (!a || !b || !c || !t) return 1;
        for (size_t i = 0; i < elems; i++)
            a[i] = b[i] = (float)(i % 7) * 0.25f, c[i] = 0;
        const float one = 1, zero = 0;
        for (int r = -1; r < runs; r++) {
            double t0 = clgemm_now_seconds();
            sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
            double t1 = clgemm_now_seconds();
            st = clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, n, n, n,
                                   1.0f, a, n, b, n, 0.0f, c, n);
            double t2 = clgemm_now_seconds();
            if (st != CLGEMM_SUCCESS) {
                fprintf(stderr, "clgemm_sgemm_host: %s\n", clgemm_status_string(st));
                return 1;
            }
            if (r >= 0) t[r] = t1 - t0, t[runs + r] = t2 - t1;
        }
        qsort(t, (size_t)runs, sizeof *t, clgemm_compare_doubles);
        qsort(t + runs, (size_t)runs, sizeof *t, clgemm_compare_doubles);
        double blas = t[runs / 2], direct = t[runs + runs / 2];
        printf("sgemm %5d^3 host arrays: drop-in sgemm_ %9.3f ms, clgemm_sgemm_host %9.3f ms, "
               "ratio %.3f (median of %d)\n",
               n, blas * 1e3, direct * 1e3, blas / direct, runs);
        free(a);
        free(b);
        free(c);
        free(t);
    }
    clgemm_destroy(h);
    return 0;
}
