/* lapack_factor_bench.c: the system LAPACK's dgetrf, dpotrf and dgeqrf timed on random n x n
 * matrices (medians of warm calls), for bench/lapack_factor.sh to run with and without
 * libclgemm_blas preloaded. One line per routine and size: seconds, GFLOPS (the usual 2/3 n^3,
 * 1/3 n^3, 4/3 n^3), a checksum of the factor (the sum of its absolute values) and a hash of
 * its bits (FNV-1a of the factor and of ipiv or tau), so that two runs can be compared for the
 * same result, or the bit-identical one, as well as for time. Each size is first factored once
 * untimed (kernels, buffers, the drop-in's measured rule) unless -w 0; -o ROUTINE times that one
 * routine alone.
 * Usage: clgemm-lapack-factor-bench [-r REPS] [-w 0|1] [-o dgetrf|dpotrf|dgeqrf] N... */
#include "core/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t lu);
void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
             const int *lwork, int *info);

static double rnd(unsigned long long *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)((*s >> 11) & 0xfffff) / 0x100000 - 0.5;
}

/* FNV-1a over bytes, continuing from h. */
static unsigned long long fnv(unsigned long long h, const void *p, size_t bytes) {
    const unsigned char *b = p;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* One factorization of a fresh copy of a0 into a; returns LAPACK's info. */
static int factor(int routine, int n, const double *a0, double *a, int *ipiv, double *tau,
                  double *work, int lwork) {
    memcpy(a, a0, sizeof *a * (size_t)n * n);
    int info = 0;
    if (routine == 0) dgetrf_(&n, &n, a, &n, ipiv, &info);
    if (routine == 1) dpotrf_("L", &n, a, &n, &info, 1);
    if (routine == 2) dgeqrf_(&n, &n, a, &n, tau, work, &lwork, &info);
    return info;
}

int main(int argc, char **argv) {
    static const char *names[3] = {"dgetrf", "dpotrf", "dgeqrf"};
    int reps = 3, warm = 1, first = 1, only = -1, bad = 0;
    while (first + 1 < argc && argv[first][0] == '-' && strchr("rwo", argv[first][1]) &&
           argv[first][2] == '\0') {
        const char *v = argv[first + 1];
        if (argv[first][1] == 'o') {
            for (int r = 0; r < 3; r++)
                if (strcmp(v, names[r]) == 0) only = r;
            bad |= only < 0;
        } else
            *(argv[first][1] == 'r' ? &reps : &warm) = atoi(v);
        first += 2;
    }
    if (bad || first >= argc || reps < 1 || reps > 99) {
        fprintf(stderr, "usage: %s [-r REPS] [-w 0|1] [-o dgetrf|dpotrf|dgeqrf] N...\n", argv[0]);
        return 2;
    }
    static const double flop_factor[3] = {2.0 / 3, 1.0 / 3, 4.0 / 3};
    printf("routine n seconds gflops checksum hash\n");
    for (int ai = first; ai < argc; ai++) {
        int n = atoi(argv[ai]);
        if (n < 1) return 2;
        size_t nn = (size_t)n * n;
        double *a0 = malloc(sizeof *a0 * nn), *spd = malloc(sizeof *spd * nn),
               *a = malloc(sizeof *a * nn), *tau = malloc(sizeof *tau * n);
        int *ipiv = malloc(sizeof *ipiv * n), lwork = -1, info;
        double query;
        if (!a0 || !spd || !a || !tau || !ipiv) return 1;
        unsigned long long s = 12345 + (unsigned long long)n;
        for (size_t i = 0; i < nn; i++)
            a0[i] = rnd(&s);
        /* Symmetric positive definite for dpotrf: (A + A^T) / 2 + n I. */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                spd[i + (size_t)j * n] =
                    (a0[i + (size_t)j * n] + a0[j + (size_t)i * n]) / 2 + (i == j ? n : 0);
        dgeqrf_(&n, &n, a, &n, tau, &query, &lwork, &info);
        lwork = (int)query;
        double *work = malloc(sizeof *work * (size_t)(lwork > 1 ? lwork : 1));
        if (!work) return 1;
        for (int r = 0; r < 3; r++) {
            if (only >= 0 && r != only) continue;
            const double *in = r == 1 ? spd : a0;
            double t[100];
            if (warm) factor(r, n, in, a, ipiv, tau, work, lwork);
            /* Marks where the timed calls begin and end in the drop-in's log (stderr). */
            fprintf(stderr, "clgemm-lapack-factor-bench: timing %s %d x %d\n", names[r], n, reps);
            for (int k = 0; k < reps; k++) {
                double t0 = clgemm_now_seconds();
                info = factor(r, n, in, a, ipiv, tau, work, lwork);
                t[k] = clgemm_now_seconds() - t0;
            }
            fprintf(stderr, "clgemm-lapack-factor-bench: timed\n");
            qsort(t, (size_t)reps, sizeof *t, cmp);
            double sum = 0;
            for (size_t i = 0; i < nn; i++)
                sum += fabs(a[i]);
            unsigned long long h = fnv(14695981039346656037ull, a, sizeof *a * nn);
            if (r == 0) h = fnv(h, ipiv, sizeof *ipiv * (size_t)n);
            if (r == 2) h = fnv(h, tau, sizeof *tau * (size_t)n);
            printf("%s %d %.4f %.2f %.10e %016llx%s\n", names[r], n, t[reps / 2],
                   flop_factor[r] * n * (double)n * n / t[reps / 2] * 1e-9, sum, h,
                   info ? " (info != 0)" : "");
            fflush(stdout);
        }
        free(a0);
        free(spd);
        free(a);
        free(tau);
        free(ipiv);
        free(work);
    }
    return 0;
}
