/* test_syrk.c: the drop-in's ?syrk/?herk linked directly, on sizes netlib's testers do not reach:
 * n above 512, where the triangle is computed in four column panels on the device. Every call's
 * triangle against a long-double host reference (tolerance scaled by k); the other triangle and
 * the gap rows of a padded ldc hold a sentinel that must survive; beta == 0 over NaN; herk's
 * diagonal exactly real; a row-major CBLAS call. The route is read from CLGEMM_BLAS_LOG=2. */
#include <complex.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_capture.h"

void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *beta, double *c, const int *ldc,
            size_t lu, size_t lt);
void zherk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
            const double complex *a, const int *lda, const double *beta, double complex *c,
            const int *ldc, size_t lu, size_t lt);
void cblas_ssyrk(int layout, int uplo, int trans, int n, int k, float alpha, const float *a,
                 int lda, float beta, float *c, int ldc);

static const double SENTINEL = -12345.0;

static double rnd(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(int)((*s >> 40) & 0xffff) / 32768.0 - 1.0; /* exact in float */
}

static int in_triangle(char uplo, int i, int j) {
    return uplo == 'U' || uplo == 'u' ? i <= j : i >= j;
}

static void capture_stderr(void) {
    capture_log();
    setenv("CLGEMM_BLAS_MIN_FLOPS", "0", 1);
    setenv("CLGEMM_BLAS_LOG", "2", 1);
}

/* One dsyrk_ call: A random (padded lda), C's triangle random (NaN when beta == 0), the rest of
 * C the sentinel; checked element by element. */
static void run_d(char uplo, char trans, int n, int k, double alpha, double beta, uint64_t seed) {
    uint64_t s = seed;
    int notrans = trans == 'N' || trans == 'n';
    int rows = notrans ? n : k, cols = notrans ? k : n, lda = rows + 3, ldc = n + 5;
    double *a = malloc(sizeof *a * (size_t)lda * cols);
    double *c = malloc(sizeof *c * (size_t)ldc * n), *c0 = malloc(sizeof *c0 * (size_t)ldc * n);
    for (size_t i = 0; i < (size_t)lda * cols; i++)
        a[i] = rnd(&s);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++)
            c[i + (size_t)j * ldc] = i >= n || !in_triangle(uplo, i, j) ? SENTINEL
                                     : beta == 0                        ? NAN
                                                                        : rnd(&s);
    memcpy(c0, c, sizeof *c * (size_t)ldc * n);
    dsyrk_(&uplo, &trans, &n, &k, &alpha, a, &lda, &beta, c, &ldc, 1, 1);
    double tol = 4.0 * k * 1.1e-16 * (fabs(alpha) + 1) + 1e-15;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++) {
            double got = c[i + (size_t)j * ldc];
            if (i >= n || !in_triangle(uplo, i, j)) {
                cr_assert(got == SENTINEL, "%c%c n=%d: C(%d,%d) outside the triangle written", uplo,
                          trans, n, i, j);
                continue;
            }
            long double sum = 0;
            for (int p = 0; p < k; p++)
                sum += trans == 'N' || trans == 'n'
                           ? (long double)a[i + (size_t)p * lda] * a[j + (size_t)p * lda]
                           : (long double)a[p + (size_t)i * lda] * a[p + (size_t)j * lda];
            long double want =
                alpha * sum + (beta == 0 ? 0 : beta * (long double)c0[i + (size_t)j * ldc]);
            cr_assert(fabsl(got - want) <= tol * (1 + fabsl(want)),
                      "%c%c n=%d k=%d: C(%d,%d) = %.17g, want %.17Lg", uplo, trans, n, k, i, j, got,
                      want);
        }
    free(a);
    free(c);
    free(c0);
}

Test(syrk, dsyrk_panels_every_triangle_and_transpose, .init = capture_stderr, .timeout = 600) {
    const char uplo[] = {'U', 'L'}, trans[] = {'N', 'T'};
    for (int u = 0; u < 2; u++)
        for (int t = 0; t < 2; t++)
            run_d(uplo[u], trans[t], 600, 37, 0.75, 1.25, 10 + 2 * u + t);
    run_d('L', 'N', 600, 37, -1.0, 0.0, 99); /* beta 0: the NaN in C is never read */
    run_d('u', 'c', 7, 5, 0.5, 2.0, 98);     /* lower case; 'C' means 'T' for real types */
    cr_assert_eq(count_log_lines(": device\n"), 6, "every call on the device");
}

/* zherk_ 'C' (C = alpha A^H A + beta C) in panels: the diagonal must come out exactly real
 * although C's diagonal starts with an imaginary part. */
Test(syrk, zherk_panels_real_diagonal, .init = capture_stderr, .timeout = 600) {
    uint64_t s = 5;
    int n = 520, k = 19, lda = k + 2, ldc = n + 3;
    double alpha = 0.5, beta = -1.5;
    double complex *a = malloc(sizeof *a * (size_t)lda * n);
    double complex *c = malloc(sizeof *c * (size_t)ldc * n),
                   *c0 = malloc(sizeof *c0 * (size_t)ldc * n);
    for (size_t i = 0; i < (size_t)lda * n; i++)
        a[i] = rnd(&s) + rnd(&s) * I;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++)
            c[i + (size_t)j * ldc] = i < n && i >= j ? rnd(&s) + rnd(&s) * I : SENTINEL;
    memcpy(c0, c, sizeof *c * (size_t)ldc * n);
    zherk_("L", "C", &n, &k, &alpha, a, &lda, &beta, c, &ldc, 1, 1);
    double tol = 8.0 * k * 1.1e-16 + 1e-15;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++) {
            double complex got = c[i + (size_t)j * ldc];
            if (i >= n || i < j) {
                cr_assert(got == SENTINEL, "C(%d,%d) outside the lower triangle written", i, j);
                continue;
            }
            long double complex sum = 0;
            for (int p = 0; p < k; p++)
                sum += conj(a[p + (size_t)i * lda]) * (long double complex)a[p + (size_t)j * lda];
            long double complex old = c0[i + (size_t)j * ldc];
            if (i == j) old = creall(old);
            long double complex want = alpha * sum + beta * old;
            if (i == j) cr_assert(cimag(got) == 0, "C(%d,%d) has an imaginary part", i, i);
            cr_assert(cabsl(got - (i == j ? creall(want) : want)) <= tol * (1 + cabsl(want)),
                      "C(%d,%d) = %g%+gi, want %Lg%+Lgi", i, j, creal(got), cimag(got),
                      creall(want), cimagl(want));
        }
    cr_assert_eq(count_log_lines("zherk LC 520 19 in "), 1);
    cr_assert_eq(count_log_lines(": device\n"), 1, "the call ran on the device");
    free(a);
    free(c);
    free(c0);
}

/* Row-major upper C = A A^T is, in column-major terms, the lower triangle of A^T A. */
Test(syrk, cblas_row_major, .init = capture_stderr, .timeout = 600) {
    enum { N = 40, K = 23, LDA = K + 1, LDC = N + 2 };
    uint64_t s = 3;
    static float a[N * LDA], c[N * LDC];
    for (int i = 0; i < N * LDA; i++)
        a[i] = (float)rnd(&s);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < LDC; j++)
            c[i * LDC + j] = j >= N || j < i ? (float)SENTINEL : NAN;
    cblas_ssyrk(101 /* row major */, 121 /* upper */, 111 /* no trans */, N, K, 2.0f, a, LDA, 0.0f,
                c, LDC);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < LDC; j++) {
            float got = c[i * LDC + j];
            if (j >= N || j < i) {
                cr_assert(got == (float)SENTINEL, "C[%d][%d] outside the upper triangle", i, j);
                continue;
            }
            double want = 0;
            for (int p = 0; p < K; p++)
                want += 2.0 * a[i * LDA + p] * a[j * LDA + p];
            cr_assert(fabs(got - want) <= 4.0 * K * 1.2e-7 * (1 + fabs(want)),
                      "C[%d][%d] = %g, want %g", i, j, got, want);
        }
    cr_assert_eq(count_log_lines("ssyrk LT 40 23 in "), 1);
    cr_assert_eq(count_log_lines(": device\n"), 1, "the call ran on the device");
}
