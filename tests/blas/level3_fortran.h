/* level3_fortran.h: the Fortran Level-3 entry points beyond ?gemm as the drop-in's tests call
 * them: every array and scalar a void pointer, so one table of each kind serves all four types
 * (the trailing size_t arguments are the character lengths gfortran passes); and, for the tests
 * that check their results (test_level3.c, test_level3_edges.c), the routines by type (0 s,
 * 1 d, 2 c, 3 z), the elements of each type read as long double complex, random values exact
 * in every type, arrays, and each routine's product entry by entry in long double. Header-only. */
#ifndef CLGEMM_TESTS_BLAS_LEVEL3_FORTRAN_H
#define CLGEMM_TESTS_BLAS_LEVEL3_FORTRAN_H

#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* ?trsm / ?trmm: side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb. */
typedef void (*tr_fn)(const char *, const char *, const char *, const char *, const int *,
                      const int *, const void *, const void *, const int *, void *, const int *,
                      size_t, size_t, size_t, size_t);
/* ?symm / ?hemm: side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc; ?syr2k / ?her2k: uplo,
 * trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc. */
typedef void (*mm_fn)(const char *, const char *, const int *, const int *, const void *,
                      const void *, const int *, const void *, const int *, const void *, void *,
                      const int *, size_t, size_t);
/* ?syrk / ?herk: uplo, trans, n, k, alpha, A, lda, beta, C, ldc. */
typedef void (*rk_fn)(const char *, const char *, const int *, const int *, const void *,
                      const void *, const int *, const void *, void *, const int *, size_t, size_t);

void strsm_(void), dtrsm_(void), ctrsm_(void), ztrsm_(void);
void strmm_(void), dtrmm_(void), ctrmm_(void), ztrmm_(void);
void ssymm_(void), dsymm_(void), csymm_(void), zsymm_(void), chemm_(void), zhemm_(void);
void ssyr2k_(void), dsyr2k_(void), csyr2k_(void), zsyr2k_(void), cher2k_(void), zher2k_(void);
void cherk_(void), zherk_(void);

#ifdef LEVEL3_RESULTS
#include <criterion/criterion.h>

typedef long double complex lc;

static void (*const trsm[4])(void) = {strsm_, dtrsm_, ctrsm_, ztrsm_};
static void (*const trmm[4])(void) = {strmm_, dtrmm_, ctrmm_, ztrmm_};
static void (*const symm[4])(void) = {ssymm_, dsymm_, csymm_, zsymm_};
static void (*const syr2k[4])(void) = {ssyr2k_, dsyr2k_, csyr2k_, zsyr2k_};
static void (*const hemm[2])(void) = {chemm_, zhemm_};
static void (*const her2k[2])(void) = {cher2k_, zher2k_};

static const size_t ELEM[4] = {4, 8, 8, 16};
static const double EPS[4] = {6e-8, 1.1e-16, 6e-8, 1.1e-16};

/* Element i of an array of type t. */
static lc get(int t, const void *p, size_t i) {
    switch (t) {
    case 0:
        return ((const float *)p)[i];
    case 1:
        return ((const double *)p)[i];
    case 2:
        return ((const float complex *)p)[i];
    default:
        return ((const double complex *)p)[i];
    }
}

/* A value in [-1, 1) of 16 bits: exact in every type. */
static double rnd(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(int)((*s >> 40) & 0xffff) / 32768.0 - 1.0;
}

/* n elements of type t (at least one, so that an empty array is a pointer too). */
static void *alloc(int t, size_t n) {
    void *p = malloc((n ? n : 1) * ELEM[t]);
    cr_assert(p);
    return p;
}

/* ---- The reference products, each entry in long double; *mag: the sum of the magnitudes of
 * its terms, which scales the tolerance ---- */

/* op(A)(i, k) of a triangular A as ?trsm / ?trmm must see it: the other triangle 0 (never
 * read), a unit diagonal 1 (never read either). */
static lc tr_at(int t, const void *a, int lda, char uplo, char trans, char diag, int i, int k) {
    int r = trans == 'N' ? i : k, c = trans == 'N' ? k : i;
    if (r == c && diag == 'U') return 1;
    if (uplo == 'U' ? r > c : r < c) return 0;
    lc v = get(t, a, r + (size_t)c * lda);
    return trans == 'C' ? conjl(v) : v;
}

/* Entry (i, j) of op(A) X (side 'L') or X op(A) (side 'R'), A triangular of order na. */
static lc tr_product(int t, const void *a, int lda, char side, char uplo, char trans, char diag,
                     int na, const void *x, int ldx, int i, int j, long double *mag) {
    lc sum = 0;
    *mag = 0;
    for (int k = 0; k < na; k++) {
        lc p = side == 'L'
                   ? tr_at(t, a, lda, uplo, trans, diag, i, k) * get(t, x, k + (size_t)j * ldx)
                   : get(t, x, i + (size_t)k * ldx) * tr_at(t, a, lda, uplo, trans, diag, k, j);
        sum += p;
        *mag += cabsl(p);
    }
    return sum;
}

/* A(i, k) of a symmetric (herm: Hermitian) A stored in its uplo triangle: the diagonal of a
 * Hermitian A real whatever its imaginary parts hold. */
static lc sym_at(int t, int herm, const void *a, int lda, char uplo, int i, int k) {
    int stored = uplo == 'U' ? i <= k : i >= k;
    lc v = stored ? get(t, a, i + (size_t)k * lda) : get(t, a, k + (size_t)i * lda);
    if (herm && i == k) return creall(v);
    return herm && !stored ? conjl(v) : v;
}

/* Entry (i, j) of A B (side 'L') or B A (side 'R'), A symmetric / Hermitian of order na. */
static lc sym_product(int t, int herm, const void *a, int lda, char side, char uplo, int na,
                      const void *b, int ldb, int i, int j, long double *mag) {
    lc sum = 0;
    *mag = 0;
    for (int k = 0; k < na; k++) {
        lc p = side == 'L' ? sym_at(t, herm, a, lda, uplo, i, k) * get(t, b, k + (size_t)j * ldb)
                           : get(t, b, i + (size_t)k * ldb) * sym_at(t, herm, a, lda, uplo, k, j);
        sum += p;
        *mag += cabsl(p);
    }
    return sum;
}

/* Entry (i, j) of op(A) op(B)^T (*ab) and op(B) op(A)^T (*ba) over k steps, ^H for herm: the
 * two products of ?syr2k / ?her2k (rank1: B is A, ?syrk / ?herk's one product in both). op(X)
 * is X for trans 'N', else X^T (X^H for herm). */
static void rank_products(int t, int herm, int rank1, char trans, int k, const void *a, int lda,
                          const void *b, int ldb, int i, int j, lc *ab, lc *ba, long double *mag) {
    int notrans = trans == 'N';
    *ab = *ba = 0;
    *mag = 0;
    for (int l = 0; l < k; l++) {
        lc ai = notrans ? get(t, a, i + (size_t)l * lda) : get(t, a, l + (size_t)i * lda);
        lc aj = notrans ? get(t, a, j + (size_t)l * lda) : get(t, a, l + (size_t)j * lda);
        lc bi = ai, bj = aj;
        if (!rank1) {
            bi = notrans ? get(t, b, i + (size_t)l * ldb) : get(t, b, l + (size_t)i * ldb);
            bj = notrans ? get(t, b, j + (size_t)l * ldb) : get(t, b, l + (size_t)j * ldb);
        }
        if (herm && !notrans) ai = conjl(ai), aj = conjl(aj), bi = conjl(bi), bj = conjl(bj);
        if (herm) aj = conjl(aj), bj = conjl(bj);
        *ab += ai * bj;
        *ba += bi * aj;
        *mag += cabsl(ai * bj) + cabsl(bi * aj);
    }
}
#endif

#endif /* CLGEMM_TESTS_BLAS_LEVEL3_FORTRAN_H */
