/* test_level3.c: the drop-in's blocked ?trsm, ?trmm, ?symm, ?hemm, ?syr2k, ?her2k linked
 * directly, all four types, every side / triangle / transpose / diagonal, on odd sizes with
 * padded leading dimensions, against a long-double host reference. CLGEMM_BLAS_BLOCK=8 and
 * CLGEMM_BLAS_MIN_FLOPS=0 make every call a recursion of several levels with its GEMM updates
 * on the device. Poison: the triangle of A a routine must not read is NaN, the gap rows of a
 * padded B or C and the triangle ?syr2k must not write hold a sentinel that must survive, C is
 * NaN when beta == 0. The route is read from CLGEMM_BLAS_LOG=2. */
#include <complex.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEVEL3_RESULTS
#include "level3_fortran.h"
#include "log_capture.h"

void cblas_dtrsm(int, int, int, int, int, int, int, double, const double *, int, double *, int);
void cblas_zhemm(int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_zher2k(int, int, int, int, int, const void *, const void *, int, const void *, int,
                  double, void *, int);

static const double SENTINEL = -12345.0;

/* ---- Elements of any type -------------------------------------------------------------------- */

static void put(int t, void *p, size_t i, double complex v) {
    switch (t) {
    case 0:
        ((float *)p)[i] = (float)creal(v);
        break;
    case 1:
        ((double *)p)[i] = creal(v);
        break;
    case 2:
        ((float complex *)p)[i] = (float complex)v;
        break;
    default:
        ((double complex *)p)[i] = v;
    }
}

static double complex rnd_elem(int t, uint64_t *s) {
    double re = rnd(s);
    return t >= 2 ? re + rnd(s) * I : re;
}

static void setup(void) {
    capture_log();
    setenv("CLGEMM_BLAS_MIN_FLOPS", "0", 1);
    setenv("CLGEMM_BLAS_BLOCK", "8", 1);
    setenv("CLGEMM_BLAS_LOG", "2", 1);
}

/* A scalar in the type's layout. */
static void scalar(int t, double complex v, void *out) {
    put(t, out, 0, v);
}

/* ---- ?trsm and ?trmm ------------------------------------------------------------------------ */

/* A n x n triangular (well conditioned: a dominant diagonal), the other triangle NaN. */
static void *triangle(int t, char uplo, int n, int lda, uint64_t *s) {
    void *a = alloc(t, (size_t)lda * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < lda; i++) {
            int in = uplo == 'U' ? i <= j : i >= j;
            double complex v = i >= n || !in ? NAN : rnd_elem(t, s) / 2;
            if (i == j) v += 3;
            put(t, a, i + (size_t)j * lda, v);
        }
    return a;
}

static void check_tr(int t, int solve, char side, char uplo, char trans, char diag, int m, int n,
                     uint64_t seed) {
    uint64_t s = seed;
    int na = side == 'L' ? m : n, lda = na + 3, ldb = m + 2;
    void *a = triangle(t, uplo, na, lda, &s), *b = alloc(t, (size_t)ldb * n),
         *b0 = alloc(t, (size_t)ldb * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldb; i++)
            put(t, b, i + (size_t)j * ldb, i < m ? rnd_elem(t, &s) : SENTINEL);
    memcpy(b0, b, (size_t)ldb * n * ELEM[t]);
    double complex alpha_v = t >= 2 ? 0.75 - 0.5 * I : 0.75;
    double alpha[2];
    scalar(t, alpha_v, alpha);
    tr_fn f = (tr_fn)(solve ? trsm : trmm)[t];
    f(&side, &uplo, &trans, &diag, &m, &n, alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
    /* trmm: B = alpha op(A) B0 (or B0 op(A)). trsm: op(A) X = alpha B0 checked as the residual. */
    const void *x = solve ? b : b0;
    double tol = 16.0 * na * EPS[t];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldb; i++) {
            lc got = get(t, b, i + (size_t)j * ldb);
            if (i >= m) {
                cr_assert(creall(got) == SENTINEL, "%d%c%c%c%c: B(%d,%d) in the gap written", t,
                          side, uplo, trans, diag, i, j);
                continue;
            }
            long double mag;
            lc sum = tr_product(t, a, lda, side, uplo, trans, diag, na, x, ldb, i, j, &mag);
            lc want = solve ? alpha_v * get(t, b0, i + (size_t)j * ldb) : alpha_v * sum;
            lc have = solve ? sum : got;
            cr_assert(cabsl(have - want) <= tol * (1 + mag),
                      "%s t=%d %c%c%c%c m=%d n=%d: (%d,%d) %Lg%+Lgi, want %Lg%+Lgi",
                      solve ? "trsm" : "trmm", t, side, uplo, trans, diag, m, n, i, j, creall(have),
                      cimagl(have), creall(want), cimagl(want));
        }
    free(a);
    free(b);
    free(b0);
}

static void every_tr(int solve) {
    const char sides[] = "LR", uplos[] = "UL", transes[] = "NTC", diags[] = "NU";
    int calls = 0;
    for (int t = 0; t < 4; t++)
        for (int si = 0; si < 2; si++)
            for (int u = 0; u < 2; u++)
                for (int tr = 0; tr < 3; tr++)
                    for (int d = 0; d < 2; d++, calls++)
                        check_tr(t, solve, sides[si], uplos[u], transes[tr], diags[d], 37, 29,
                                 (uint64_t)calls);
    char what[64];
    snprintf(what, sizeof what, "%s ", solve ? "trsm" : "trmm");
    cr_assert_eq(count_log_lines("updates on the device"), calls,
                 "every call blocked on the device");
    cr_assert(count_log_lines(" 0 updates on the device") == 0, "updates ran on the host");
}

Test(level3, trsm_every_variant, .init = setup, .timeout = 600) {
    every_tr(1);
}

Test(level3, trmm_every_variant, .init = setup, .timeout = 600) {
    every_tr(0);
}

/* ---- ?symm and ?hemm ------------------------------------------------------------------------- */

static void check_symm(int t, int herm, char side, char uplo, int m, int n, double complex beta_v,
                       uint64_t seed) {
    uint64_t s = seed;
    int na = side == 'L' ? m : n, lda = na + 1, ldb = m + 4, ldc = m + 3;
    void *a = alloc(t, (size_t)lda * na), *b = alloc(t, (size_t)ldb * n),
         *c = alloc(t, (size_t)ldc * n), *c0 = alloc(t, (size_t)ldc * n);
    for (int j = 0; j < na; j++)
        for (int i = 0; i < lda; i++) {
            int in = uplo == 'U' ? i <= j : i >= j;
            double complex v = i < na && in ? rnd_elem(t, &s) : NAN;
            put(t, a, i + (size_t)j * lda, v); /* hemm: the diagonal's imaginary part ignored */
        }
    for (size_t i = 0; i < (size_t)ldb * n; i++)
        put(t, b, i, rnd_elem(t, &s));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++)
            put(t, c, i + (size_t)j * ldc, i >= m ? SENTINEL : beta_v == 0 ? NAN : rnd_elem(t, &s));
    memcpy(c0, c, (size_t)ldc * n * ELEM[t]);
    double complex alpha_v = t >= 2 ? -0.5 + 1.25 * I : -0.5;
    double alpha[2], beta[2];
    scalar(t, alpha_v, alpha);
    scalar(t, beta_v, beta);
    mm_fn f = (mm_fn)(herm ? hemm[t - 2] : symm[t]);
    f(&side, &uplo, &m, &n, alpha, a, &lda, b, &ldb, beta, c, &ldc, 1, 1);
    double tol = 16.0 * na * EPS[t];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++) {
            lc got = get(t, c, i + (size_t)j * ldc);
            if (i >= m) {
                cr_assert(creall(got) == SENTINEL, "symm: C(%d,%d) in the gap written", i, j);
                continue;
            }
            long double mag;
            lc sum = sym_product(t, herm, a, lda, side, uplo, na, b, ldb, i, j, &mag);
            lc old = beta_v == 0 ? 0 : get(t, c0, i + (size_t)j * ldc);
            lc want = alpha_v * sum + beta_v * old;
            cr_assert(cabsl(got - want) <= tol * (1 + mag + cabsl(old)),
                      "%s t=%d %c%c m=%d n=%d: C(%d,%d) %Lg%+Lgi, want %Lg%+Lgi",
                      herm ? "hemm" : "symm", t, side, uplo, m, n, i, j, creall(got), cimagl(got),
                      creall(want), cimagl(want));
        }
    free(a);
    free(b);
    free(c);
    free(c0);
}

Test(level3, symm_hemm_every_variant, .init = setup, .timeout = 600) {
    const char sides[] = "LR", uplos[] = "UL";
    int calls = 0;
    for (int t = 0; t < 4; t++)
        for (int herm = 0; herm <= (t >= 2); herm++)
            for (int si = 0; si < 2; si++)
                for (int u = 0; u < 2; u++, calls += 2) {
                    check_symm(t, herm, sides[si], uplos[u], 35, 27, 1.5, (uint64_t)calls);
                    check_symm(t, herm, sides[si], uplos[u], 27, 35, 0, (uint64_t)calls + 1);
                }
    cr_assert_eq(count_log_lines("updates on the device"), calls,
                 "every call blocked on the device");
    cr_assert(count_log_lines(" 0 updates on the device") == 0, "updates ran on the host");
}

/* ---- ?syr2k and ?her2k ----------------------------------------------------------------------- */

static void check_syr2k(int t, int herm, char uplo, char trans, int n, int k, double beta_r,
                        uint64_t seed) {
    uint64_t s = seed;
    int notrans = trans == 'N', rows = notrans ? n : k, cols = notrans ? k : n;
    int lda = rows + 2, ldb = rows + 5, ldc = n + 3;
    void *a = alloc(t, (size_t)lda * cols), *b = alloc(t, (size_t)ldb * cols),
         *c = alloc(t, (size_t)ldc * n), *c0 = alloc(t, (size_t)ldc * n);
    for (size_t i = 0; i < (size_t)lda * cols; i++)
        put(t, a, i, rnd_elem(t, &s));
    for (size_t i = 0; i < (size_t)ldb * cols; i++)
        put(t, b, i, rnd_elem(t, &s));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++) {
            int in = i < n && (uplo == 'U' ? i <= j : i >= j);
            put(t, c, i + (size_t)j * ldc, !in ? SENTINEL : beta_r == 0 ? NAN : rnd_elem(t, &s));
        }
    memcpy(c0, c, (size_t)ldc * n * ELEM[t]);
    double complex alpha_v = t >= 2 ? 0.5 + 0.75 * I : 0.5;
    double alpha[2], beta[2];
    scalar(t, alpha_v, alpha);
    if (herm)
        scalar(t - 2, beta_r, beta);
    else
        scalar(t, t >= 2 && beta_r != 0 ? beta_r - 0.25 * I : beta_r, beta);
    lc beta_v = herm || t < 2 || beta_r == 0 ? beta_r : beta_r - 0.25 * I;
    mm_fn f = (mm_fn)(herm ? her2k[t - 2] : syr2k[t]);
    f(&uplo, &trans, &n, &k, alpha, a, &lda, b, &ldb, beta, c, &ldc, 1, 1);
    double tol = 16.0 * k * EPS[t];
    lc alpha2 = herm ? conj(alpha_v) : alpha_v;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++) {
            lc got = get(t, c, i + (size_t)j * ldc);
            int in = i < n && (uplo == 'U' ? i <= j : i >= j);
            if (!in) {
                cr_assert(creall(got) == SENTINEL, "syr2k: C(%d,%d) outside the triangle", i, j);
                continue;
            }
            lc ab, ba;
            long double mag;
            rank_products(t, herm, 0, trans, k, a, lda, b, ldb, i, j, &ab, &ba, &mag);
            lc old = beta_r == 0 ? 0 : get(t, c0, i + (size_t)j * ldc);
            if (herm && i == j) old = creall(old);
            lc want = alpha_v * ab + alpha2 * ba + beta_v * old;
            if (herm && i == j) {
                cr_assert(cimagl(got) == 0, "her2k: C(%d,%d) not real", i, i);
                want = creall(want);
            }
            cr_assert(cabsl(got - want) <= tol * (1 + mag + cabsl(old)),
                      "%s t=%d %c%c n=%d k=%d: C(%d,%d) %Lg%+Lgi, want %Lg%+Lgi",
                      herm ? "her2k" : "syr2k", t, uplo, trans, n, k, i, j, creall(got),
                      cimagl(got), creall(want), cimagl(want));
        }
    free(a);
    free(b);
    free(c);
    free(c0);
}

Test(level3, syr2k_her2k_every_variant, .init = setup, .timeout = 600) {
    const char uplos[] = "UL";
    int calls = 0;
    for (int t = 0; t < 4; t++)
        for (int herm = 0; herm <= (t >= 2); herm++)
            for (int u = 0; u < 2; u++)
                for (int tr = 0; tr < 2; tr++, calls += 2) {
                    char trans = tr == 0 ? 'N' : herm ? 'C' : 'T';
                    check_syr2k(t, herm, uplos[u], trans, 37, 13, 1.25, (uint64_t)calls);
                    check_syr2k(t, herm, uplos[u], trans, 30, 21, 0, (uint64_t)calls + 1);
                }
    cr_assert_eq(count_log_lines("updates on the device"), calls,
                 "every call blocked on the device");
    cr_assert(count_log_lines(" 0 updates on the device") == 0, "updates ran on the host");
}

/* ---- CBLAS row-major: the same result as the column-major call on the transposes ----------- */

Test(level3, cblas_row_major_matches_column_major, .init = setup, .timeout = 600) {
    enum { M = 21, N = 34, LD = 40 };
    uint64_t s = 77;
    static double a[LD * LD], b[LD * LD], bt[LD * LD];
    for (int i = 0; i < LD * LD; i++)
        a[i] = rnd(&s) / 4 + (i % (LD + 1) == 0 ? 3 : 0), b[i] = bt[i] = rnd(&s);
    /* Row-major X A^T = B (A lower, right side) is column-major A X^T = B^T (upper, left) on the
     * same storage. */
    cblas_dtrsm(101, 142, 122, 112, 131, M, N, 2.0, a, LD, b, LD);
    char side = 'L', uplo = 'U', trans = 'T', diag = 'N';
    int m = N, n = M, ld = LD;
    double alpha = 2.0;
    ((tr_fn)trsm[1])(&side, &uplo, &trans, &diag, &m, &n, &alpha, a, &ld, bt, &ld, 1, 1, 1, 1);
    for (int i = 0; i < LD * LD; i++)
        cr_assert(b[i] == bt[i], "dtrsm row-major element %d: %g vs %g", i, b[i], bt[i]);

    static double complex za[LD * LD], zb[LD * LD], zc[LD * LD], zc2[LD * LD];
    for (int i = 0; i < LD * LD; i++)
        za[i] = rnd(&s) + rnd(&s) * I, zb[i] = rnd(&s) + rnd(&s) * I,
        zc[i] = zc2[i] = rnd(&s) + rnd(&s) * I;
    double complex alpha_z = 0.5 - 1.5 * I, beta_z = 0.25 + 0.5 * I;
    /* Row-major C = A B (A Hermitian upper, left side) is column-major C^T = B^T A^T, A^T the
     * Hermitian lower triangle of the same storage (right side). */
    cblas_zhemm(101, 141, 121, M, N, &alpha_z, za, LD, zb, LD, &beta_z, zc, LD);
    side = 'R', uplo = 'L', m = N, n = M;
    ((mm_fn)hemm[1])(&side, &uplo, &m, &n, &alpha_z, za, &ld, zb, &ld, &beta_z, zc2, &ld, 1, 1);
    for (int i = 0; i < LD * LD; i++)
        cr_assert(zc[i] == zc2[i], "zhemm row-major element %d", i);

    /* Row-major her2k with NoTrans is column-major 'C' with conj(alpha), other triangle. */
    for (int i = 0; i < LD * LD; i++)
        zc2[i] = zc[i];
    cblas_zher2k(101, 121, 111, N, M, &alpha_z, za, LD, zb, LD, 0.75, zc, LD);
    double complex alpha_c = conj(alpha_z);
    double beta_r = 0.75;
    uplo = 'L', trans = 'C', n = N, m = M;
    ((mm_fn)her2k[1])(&uplo, &trans, &n, &m, &alpha_c, za, &ld, zb, &ld, &beta_r, zc2, &ld, 1, 1);
    for (int i = 0; i < LD * LD; i++)
        cr_assert(zc[i] == zc2[i], "zher2k row-major element %d", i);
}
