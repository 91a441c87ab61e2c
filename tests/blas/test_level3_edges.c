/* test_level3_edges.c: reference BLAS's semantics at the edges for the drop-in's ?trsm, ?trmm,
 * ?symm, ?hemm, ?syr2k, ?her2k (and ?herk, which shares her2k's diagonal), linked directly, in
 * every route a call can take: blocked with its GEMM updates on the device
 * (CLGEMM_BLAS_MIN_FLOPS=0, CLGEMM_BLAS_BLOCK=8), whole on the system BLAS, whole on the built-in
 * loops (CLGEMM_BLAS_FALLBACK=none), and blocked with the built-in loops under the device's
 * updates. Each route is its own test (the settings are read once a process) and checks, for all
 * four types:
 *   - m = 0 / n = 0 and (alpha = 0 or k = 0) with beta = 1: nothing written, and with m or n 0
 *     no array or scalar read (NULL);
 *   - alpha = 0: ?trsm/?trmm set B to +0 without reading A or B (both NaN); ?symm/?hemm scale C by
 *     beta, ?syr2k/?her2k the triangle only (her2k's diagonal: beta Re(C), imaginary part +0),
 *     beta = 0 without reading C (NaN there);
 *   - values against a long-double reference with a bound scaled by the inner dimension, with
 *     NaN everywhere the routine must not read: the strictly other triangle of A, A's diagonal
 *     with diag 'U', the imaginary parts of hemm's A diagonal and of her2k's / herk's C diagonal,
 *     C with beta = 0, and the gaps of leading dimensions larger than needed; an infinite
 *     imaginary part that her2k's / herk's real beta scales;
 *   - every element the routine must not write (gaps, the other triangle of C) bit for bit.
 * Besides: several threads calling the routines at once, calls in a child forked after the parent
 * used the device, and garbage in the drop-in's environment variables. */
#include <complex.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/wait_child.h"
#define LEVEL3_RESULTS
#include "level3_fortran.h"
#include "log_capture.h"

static void (*const herk[2])(void) = {cherk_, zherk_};

/* A failed check: cr_assert on the test's own thread; elsewhere (worker threads, a forked child)
 * counted, the first message kept, for the test's thread to report. */
static _Thread_local int in_worker;
static atomic_int worker_failures;
static char first_failure[512];
static pthread_mutex_t failure_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note_failure(const char *fmt, ...) {
    pthread_mutex_lock(&failure_lock);
    if (atomic_fetch_add(&worker_failures, 1) == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(first_failure, sizeof first_failure, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&failure_lock);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) break;                                                                           \
        if (!in_worker) cr_assert(0, __VA_ARGS__);                                                 \
        note_failure(__VA_ARGS__);                                                                 \
    } while (0)

/* ---- Elements of any type -------------------------------------------------------------------- */

/* Parts set one by one: a NaN imaginary part must not spill into the real one. */
static void put(int t, void *p, size_t i, double re, double im) {
    switch (t) {
    case 0:
        ((float *)p)[i] = (float)re;
        break;
    case 1:
        ((double *)p)[i] = re;
        break;
    case 2:
        ((float *)p)[2 * i] = (float)re, ((float *)p)[2 * i + 1] = (float)im;
        break;
    default:
        ((double *)p)[2 * i] = re, ((double *)p)[2 * i + 1] = im;
    }
}

static void put_rnd(int t, void *p, size_t i, uint64_t *s, double shift) {
    double re = rnd(s) / 2 + shift;
    put(t, p, i, re, t >= 2 ? rnd(s) / 2 : 0);
}

static void *copy(int t, const void *p, size_t n) {
    void *q = alloc(t, n);
    memcpy(q, p, n * ELEM[t]);
    return q;
}

/* Whether element i of p and q has the same bits. */
static int same_bits(int t, const void *p, const void *q, size_t i) {
    return memcmp((const char *)p + i * ELEM[t], (const char *)q + i * ELEM[t], ELEM[t]) == 0;
}

/* Whether element i is exactly v, both parts, with v's signs (+0, not -0). */
static int exactly(int t, const void *p, size_t i, double re, double im) {
    char want[16];
    put(t, want, 0, re, im);
    return memcmp((const char *)p + i * ELEM[t], want, ELEM[t]) == 0;
}

/* A scalar in the layout of type t (herk's scalars and her2k's beta: t = real_type(the type)). */
static void scalar(int t, double re, double im, void *out) {
    put(t, out, 0, re, im);
}

static int real_type(int t) {
    return t & 1; /* c -> s, z -> d */
}

/* ---- Routes ---------------------------------------------------------------------------------- */

static void capture(void) {
    capture_log();
    setenv("CLGEMM_BLAS_LOG", "2", 1);
}

static void device_route(void) {
    capture();
    setenv("CLGEMM_BLAS_MIN_FLOPS", "0", 1);
    setenv("CLGEMM_BLAS_BLOCK", "8", 1);
}

static void system_route(void) {
    capture();
    setenv("CLGEMM_BLAS_MIN_FLOPS", "1e30", 1);
}

static void builtin_route(void) {
    system_route();
    setenv("CLGEMM_BLAS_FALLBACK", "none", 1);
}

static void builtin_device_route(void) {
    device_route();
    setenv("CLGEMM_BLAS_FALLBACK", "none", 1);
}

/* ---- ?trsm and ?trmm ------------------------------------------------------------------------ */

/* A na x na triangular, dominant diagonal; NaN in the other triangle, the gap rows and, for
 * diag 'U', on the diagonal. */
static void *triangle(int t, char uplo, char diag, int na, int lda, uint64_t *s) {
    void *a = alloc(t, (size_t)lda * na);
    for (int j = 0; j < na; j++)
        for (int i = 0; i < lda; i++) {
            size_t at = i + (size_t)j * lda;
            int in = i < na && (uplo == 'U' ? i <= j : i >= j);
            if (!in || (i == j && diag == 'U'))
                put(t, a, at, NAN, NAN);
            else
                put_rnd(t, a, at, s, i == j ? 3 : 0);
        }
    return a;
}

static void check_tr(int t, int solve, char side, char uplo, char trans, char diag, int m, int n,
                     uint64_t seed) {
    uint64_t s = seed;
    int na = side == 'L' ? m : n, lda = na + 3, ldb = m + 2;
    size_t bsize = (size_t)ldb * n;
    void *a = triangle(t, uplo, diag, na, lda, &s), *b = alloc(t, bsize);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldb; i++)
            if (i < m)
                put_rnd(t, b, i + (size_t)j * ldb, &s, 0);
            else
                put(t, b, i + (size_t)j * ldb, NAN, -1);
    void *b0 = copy(t, b, bsize);
    double complex alpha_v = t >= 2 ? 0.75 - 0.5 * I : 0.75;
    char alpha[16];
    scalar(t, creal(alpha_v), cimag(alpha_v), alpha);
    ((tr_fn)(solve ? trsm : trmm)[t])(&side, &uplo, &trans, &diag, &m, &n, alpha, a, &lda, b, &ldb,
                                      1, 1, 1, 1);
    /* trmm: B = alpha op(A) B0 (or B0 op(A)); trsm: the residual op(A) X - alpha B0. */
    const void *x = solve ? b : b0;
    double tol = 16.0 * na * EPS[t];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldb; i++) {
            size_t at = i + (size_t)j * ldb;
            if (i >= m) {
                CHECK(same_bits(t, b, b0, at), "%s t=%d %c%c%c%c: gap B(%d,%d) written",
                      solve ? "trsm" : "trmm", t, side, uplo, trans, diag, i, j);
                continue;
            }
            long double mag;
            lc sum = tr_product(t, a, lda, side, uplo, trans, diag, na, x, ldb, i, j, &mag);
            lc want = solve ? alpha_v * get(t, b0, at) : alpha_v * sum;
            lc have = solve ? sum : get(t, b, at);
            CHECK(cabsl(have - want) <= tol * (1 + mag),
                  "%s t=%d %c%c%c%c m=%d n=%d: (%d,%d) %Lg%+Lgi, want %Lg%+Lgi",
                  solve ? "trsm" : "trmm", t, side, uplo, trans, diag, m, n, i, j, creall(have),
                  cimagl(have), creall(want), cimagl(want));
        }
    free(a), free(b), free(b0);
}

/* alpha = 0: B = +0 (m x n), A and B never read (NaN), the gaps untouched; m = 0 or n = 0:
 * nothing read or written (A NULL). */
static void check_tr_trivial(int t, int solve, char side, char uplo, char trans, char diag) {
    int m = 19, n = 13, na = side == 'L' ? m : n, lda = na + 1, ldb = m + 3;
    size_t bsize = (size_t)ldb * n;
    void *a = alloc(t, (size_t)lda * na), *b = alloc(t, bsize);
    for (size_t i = 0; i < (size_t)lda * na; i++)
        put(t, a, i, NAN, NAN);
    for (size_t i = 0; i < bsize; i++)
        put(t, b, i, NAN, (double)i);
    void *b0 = copy(t, b, bsize);
    tr_fn f = (tr_fn)(solve ? trsm : trmm)[t];
    char zero[16], alpha[16];
    scalar(t, 0, 0, zero);
    scalar(t, 0.5, t >= 2 ? 0.25 : 0, alpha);
    f(&side, &uplo, &trans, &diag, &m, &n, zero, a, &lda, b, &ldb, 1, 1, 1, 1);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldb; i++) {
            size_t at = i + (size_t)j * ldb;
            if (i < m)
                CHECK(exactly(t, b, at, 0, 0), "%s t=%d %c%c%c%c alpha 0: B(%d,%d) not +0",
                      solve ? "trsm" : "trmm", t, side, uplo, trans, diag, i, j);
            else
                CHECK(same_bits(t, b, b0, at), "%s t=%d alpha 0: gap B(%d,%d) written",
                      solve ? "trsm" : "trmm", t, i, j);
        }
    memcpy(b, b0, bsize * ELEM[t]);
    int zero_n = 0, one = 1;
    f(&side, &uplo, &trans, &diag, &zero_n, &n, alpha, NULL, &lda, b, &ldb, 1, 1, 1, 1);
    f(&side, &uplo, &trans, &diag, &m, &zero_n, alpha, NULL, &lda, b, &ldb, 1, 1, 1, 1);
    f(&side, &uplo, &trans, &diag, &zero_n, &zero_n, alpha, NULL, &one, NULL, &one, 1, 1, 1, 1);
    /* Nor alpha (reference BLAS returns before it reads it; so does the drop-in's ?gemm). */
    f(&side, &uplo, &trans, &diag, &zero_n, &n, NULL, NULL, &lda, b, &ldb, 1, 1, 1, 1);
    f(&side, &uplo, &trans, &diag, &m, &zero_n, NULL, NULL, &lda, b, &ldb, 1, 1, 1, 1);
    CHECK(memcmp(b, b0, bsize * ELEM[t]) == 0, "%s t=%d: m or n 0 wrote B", solve ? "trsm" : "trmm",
          t);
    free(a), free(b), free(b0);
}

static void every_tr(void) {
    const char sides[] = "LR", uplos[] = "UL", transes[] = "NTC", diags[] = "NU";
    int calls = 0;
    for (int t = 0; t < 4; t++)
        for (int solve = 0; solve < 2; solve++)
            for (int si = 0; si < 2; si++)
                for (int u = 0; u < 2; u++)
                    for (int tr = 0; tr < 3; tr++)
                        for (int d = 0; d < 2; d++, calls++) {
                            check_tr(t, solve, sides[si], uplos[u], transes[tr], diags[d], 19, 13,
                                     (uint64_t)calls);
                            check_tr_trivial(t, solve, sides[si], uplos[u], transes[tr], diags[d]);
                        }
}

/* ---- ?symm and ?hemm ------------------------------------------------------------------------- */

/* A symmetric / Hermitian with NaN in the other triangle, the gaps and (hemm) the imaginary
 * parts of its diagonal; C NaN where beta == 0. alpha_zero: A and B all NaN, C = beta C
 * exactly (the data are exact in float, beta a sum of powers of two). */
static void check_symm(int t, int herm, char side, char uplo, int m, int n, double beta_re,
                       int alpha_zero, uint64_t seed) {
    uint64_t s = seed;
    int na = side == 'L' ? m : n, lda = na + 2, ldb = m + 1, ldc = m + 3;
    size_t csize = (size_t)ldc * n;
    void *a = alloc(t, (size_t)lda * na), *b = alloc(t, (size_t)ldb * n), *c = alloc(t, csize);
    for (int j = 0; j < na; j++)
        for (int i = 0; i < lda; i++) {
            size_t at = i + (size_t)j * lda;
            int in = i < na && (uplo == 'U' ? i <= j : i >= j);
            if (!in || alpha_zero)
                put(t, a, at, NAN, NAN);
            else if (herm && i == j)
                put(t, a, at, rnd(&s), NAN);
            else
                put_rnd(t, a, at, &s, 0);
        }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldb; i++)
            if (i < m && !alpha_zero)
                put_rnd(t, b, i + (size_t)j * ldb, &s, 0);
            else
                put(t, b, i + (size_t)j * ldb, NAN, NAN);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++)
            if (i >= m || beta_re == 0)
                put(t, c, i + (size_t)j * ldc, NAN, -2);
            else
                put_rnd(t, c, i + (size_t)j * ldc, &s, 0);
    void *c0 = copy(t, c, csize);
    double complex alpha_v = alpha_zero ? 0 : t >= 2 ? -0.5 + 1.25 * I : -0.5;
    double complex beta_v = beta_re == 0 ? 0 : t >= 2 ? beta_re - 0.25 * I : beta_re;
    char alpha[16], beta[16];
    scalar(t, creal(alpha_v), cimag(alpha_v), alpha);
    scalar(t, creal(beta_v), cimag(beta_v), beta);
    ((mm_fn)(herm ? hemm[t - 2] : symm[t]))(&side, &uplo, &m, &n, alpha, a, &lda, b, &ldb, beta, c,
                                            &ldc, 1, 1);
    double tol = 16.0 * na * EPS[t];
    const char *name = herm ? "hemm" : "symm";
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++) {
            size_t at = i + (size_t)j * ldc;
            if (i >= m) {
                CHECK(same_bits(t, c, c0, at), "%s t=%d: gap C(%d,%d) written", name, t, i, j);
                continue;
            }
            lc got = get(t, c, at), old = beta_re == 0 ? 0 : get(t, c0, at);
            if (alpha_zero) {
                lc want = beta_v * old;
                CHECK(exactly(t, c, at, (double)creall(want), (double)cimagl(want)),
                      "%s t=%d %c%c alpha 0 beta %g: C(%d,%d) %Lg%+Lgi, want %Lg%+Lgi", name, t,
                      side, uplo, beta_re, i, j, creall(got), cimagl(got), creall(want),
                      cimagl(want));
                continue;
            }
            long double mag;
            lc sum = sym_product(t, herm, a, lda, side, uplo, na, b, ldb, i, j, &mag);
            lc want = alpha_v * sum + beta_v * old;
            CHECK(cabsl(got - want) <= tol * (1 + mag + cabsl(old)),
                  "%s t=%d %c%c m=%d n=%d beta %g: C(%d,%d) %Lg%+Lgi, want %Lg%+Lgi", name, t, side,
                  uplo, m, n, beta_re, i, j, creall(got), cimagl(got), creall(want), cimagl(want));
        }
    if (alpha_zero) { /* with beta = 1 as well: nothing written; m or n 0: nothing read */
        memcpy(c, c0, csize * ELEM[t]);
        char one_s[16];
        scalar(t, 1, 0, one_s);
        int zero_n = 0;
        mm_fn f = (mm_fn)(herm ? hemm[t - 2] : symm[t]);
        f(&side, &uplo, &m, &n, alpha, a, &lda, b, &ldb, one_s, c, &ldc, 1, 1);
        scalar(t, 0.5, 0, alpha);
        f(&side, &uplo, &zero_n, &n, alpha, NULL, &lda, NULL, &ldb, beta, c, &ldc, 1, 1);
        f(&side, &uplo, &m, &zero_n, alpha, NULL, &lda, NULL, &ldb, beta, c, &ldc, 1, 1);
        f(&side, &uplo, &zero_n, &n, NULL, NULL, &lda, NULL, &ldb, NULL, c, &ldc, 1, 1);
        f(&side, &uplo, &m, &zero_n, NULL, NULL, &lda, NULL, &ldb, NULL, c, &ldc, 1, 1);
        CHECK(memcmp(c, c0, csize * ELEM[t]) == 0, "%s t=%d: a quick return wrote C", name, t);
    }
    free(a), free(b), free(c), free(c0);
}

static void every_symm(void) {
    const char sides[] = "LR", uplos[] = "UL";
    int calls = 0;
    for (int t = 0; t < 4; t++)
        for (int herm = 0; herm <= (t >= 2); herm++)
            for (int si = 0; si < 2; si++)
                for (int u = 0; u < 2; u++, calls += 4) {
                    check_symm(t, herm, sides[si], uplos[u], 19, 13, 1.5, 0, (uint64_t)calls);
                    check_symm(t, herm, sides[si], uplos[u], 13, 19, 0, 0, (uint64_t)calls + 1);
                    check_symm(t, herm, sides[si], uplos[u], 19, 13, 0.5, 1, (uint64_t)calls + 2);
                    check_symm(t, herm, sides[si], uplos[u], 13, 19, 0, 1, (uint64_t)calls + 3);
                }
}

/* ---- ?syr2k, ?her2k and ?herk ---------------------------------------------------------------- */

enum { FULL, ALPHA_ZERO, K_ZERO };

/* C's triangle random (her2k / herk: NaN imaginary parts on its diagonal), NaN with beta = 0;
 * the other triangle and the gaps NaN with payloads that must survive bit for bit. A and B NaN
 * in their gaps, and everywhere for alpha = 0 (NULL for k = 0). rank1: ?herk (A only). */
static void check_rank(int t, int herm, int rank1, char uplo, char trans, int n, int k,
                       double beta_re, int kind, uint64_t seed) {
    uint64_t s = seed;
    int notrans = trans == 'N', rows = notrans ? n : k, cols = notrans ? k : n;
    int lda = rows + 2, ldb = rows + 1, ldc = n + 3;
    size_t csize = (size_t)ldc * n;
    void *a = alloc(t, (size_t)lda * cols), *b = alloc(t, (size_t)ldb * cols), *c = alloc(t, csize);
    for (int j = 0; j < cols; j++) {
        for (int i = 0; i < lda; i++)
            if (i < rows && kind == FULL)
                put_rnd(t, a, i + (size_t)j * lda, &s, 0);
            else
                put(t, a, i + (size_t)j * lda, NAN, NAN);
        for (int i = 0; i < ldb; i++)
            if (i < rows && kind == FULL)
                put_rnd(t, b, i + (size_t)j * ldb, &s, 0);
            else
                put(t, b, i + (size_t)j * ldb, NAN, NAN);
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++) {
            size_t at = i + (size_t)j * ldc;
            int in = i < n && (uplo == 'U' ? i <= j : i >= j);
            if (!in || beta_re == 0)
                put(t, c, at, NAN, (double)at);
            else if (herm && i == j)
                put(t, c, at, rnd(&s), NAN);
            else
                put_rnd(t, c, at, &s, 0);
        }
    /* her2k / herk scale C by a real beta, each part on its own as reference BLAS does: an
     * infinite imaginary part stays that, its real part finite. */
    size_t inf_at = uplo == 'U' ? (size_t)(n - 1) * ldc : (size_t)(n - 1);
    if (herm && beta_re != 0 && kind != FULL) put(t, c, inf_at, rnd(&s), INFINITY);
    void *c0 = copy(t, c, csize);
    double complex alpha_v = kind == ALPHA_ZERO ? 0 : rank1 ? 0.75 : t >= 2 ? 0.5 + 0.75 * I : 0.5;
    double complex beta_v = herm || t < 2 || beta_re == 0 ? beta_re : beta_re - 0.25 * I;
    char alpha[16], beta[16];
    scalar(rank1 ? real_type(t) : t, creal(alpha_v), cimag(alpha_v), alpha);
    scalar(herm ? real_type(t) : t, creal(beta_v), cimag(beta_v), beta);
    const void *pa = kind == K_ZERO ? NULL : a, *pb = kind == K_ZERO ? NULL : b;
    if (rank1)
        ((rk_fn)herk[t - 2])(&uplo, &trans, &n, &k, alpha, pa, &lda, beta, c, &ldc, 1, 1);
    else
        ((mm_fn)(herm ? her2k[t - 2] : syr2k[t]))(&uplo, &trans, &n, &k, alpha, pa, &lda, pb, &ldb,
                                                  beta, c, &ldc, 1, 1);
    const char *name = rank1 ? "herk" : herm ? "her2k" : "syr2k";
    double tol = 16.0 * (k + 1) * EPS[t];
    lc alpha2 = herm ? conj(alpha_v) : alpha_v;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++) {
            size_t at = i + (size_t)j * ldc;
            int in = i < n && (uplo == 'U' ? i <= j : i >= j);
            if (!in) {
                CHECK(same_bits(t, c, c0, at), "%s t=%d %c%c: C(%d,%d) outside written", name, t,
                      uplo, trans, i, j);
                continue;
            }
            lc got = get(t, c, at), old = beta_re == 0 ? 0 : get(t, c0, at);
            if (herm && i == j) old = creall(old);
            if (herm && i == j)
                CHECK(cimagl(got) == 0 && !signbit((double)cimagl(got)),
                      "%s t=%d %c%c beta %g: C(%d,%d) imaginary part %Lg, not +0", name, t, uplo,
                      trans, beta_re, i, i, cimagl(got));
            if (kind != FULL) {
                lc want = herm ? (long double)beta_re * old : beta_v * old;
                CHECK(exactly(t, c, at, (double)creall(want), (double)cimagl(want)),
                      "%s t=%d %c%c %s, beta %g: C(%d,%d) %Lg%+Lgi, want %Lg%+Lgi", name, t, uplo,
                      trans, kind == K_ZERO ? "k 0" : "alpha 0", beta_re, i, j, creall(got),
                      cimagl(got), creall(want), cimagl(want));
                continue;
            }
            lc ab, ba;
            long double mag;
            rank_products(t, herm, rank1, trans, k, a, lda, b, ldb, i, j, &ab, &ba, &mag);
            lc want =
                rank1 ? alpha_v * ab + beta_v * old : alpha_v * ab + alpha2 * ba + beta_v * old;
            if (herm && i == j) want = creall(want);
            CHECK(cabsl(got - want) <= tol * (1 + mag + cabsl(old)),
                  "%s t=%d %c%c n=%d k=%d beta %g: C(%d,%d) %Lg%+Lgi, want %Lg%+Lgi", name, t, uplo,
                  trans, n, k, beta_re, i, j, creall(got), cimagl(got), creall(want), cimagl(want));
        }
    if (kind == ALPHA_ZERO) { /* beta = 1 as well: nothing written (not even herm's diagonal) */
        memcpy(c, c0, csize * ELEM[t]);
        char one_s[16];
        scalar(herm ? real_type(t) : t, 1, 0, one_s);
        int zero_n = 0, one = 1;
        if (rank1) {
            ((rk_fn)herk[t - 2])(&uplo, &trans, &n, &k, alpha, a, &lda, one_s, c, &ldc, 1, 1);
            ((rk_fn)herk[t - 2])(&uplo, &trans, &zero_n, &k, alpha, NULL, &lda, beta, NULL, &one, 1,
                                 1);
            ((rk_fn)herk[t - 2])(&uplo, &trans, &zero_n, &k, NULL, NULL, &lda, NULL, NULL, &one, 1,
                                 1);
        } else {
            mm_fn f = (mm_fn)(herm ? her2k[t - 2] : syr2k[t]);
            f(&uplo, &trans, &n, &k, alpha, a, &lda, b, &ldb, one_s, c, &ldc, 1, 1);
            scalar(t, 0.5, 0, alpha);
            f(&uplo, &trans, &n, &zero_n, alpha, NULL, &lda, NULL, &ldb, one_s, c, &ldc, 1, 1);
            f(&uplo, &trans, &zero_n, &k, alpha, NULL, &lda, NULL, &ldb, beta, NULL, &one, 1, 1);
            f(&uplo, &trans, &zero_n, &k, NULL, NULL, &lda, NULL, &ldb, NULL, NULL, &one, 1, 1);
        }
        CHECK(memcmp(c, c0, csize * ELEM[t]) == 0, "%s t=%d: a quick return wrote C", name, t);
    }
    free(a), free(b), free(c), free(c0);
}

static void every_rank(void) {
    const char uplos[] = "UL";
    int calls = 0;
    for (int t = 0; t < 4; t++)
        for (int herm = 0; herm <= (t >= 2); herm++)
            for (int u = 0; u < 2; u++)
                for (int tr = 0; tr < 2; tr++, calls += 10) {
                    char trans = tr == 0 ? 'N' : herm ? 'C' : 'T';
                    uint64_t s = (uint64_t)calls;
                    check_rank(t, herm, 0, uplos[u], trans, 19, 7, 1.25, FULL, s);
                    check_rank(t, herm, 0, uplos[u], trans, 17, 9, 0, FULL, s + 1);
                    check_rank(t, herm, 0, uplos[u], trans, 19, 7, 0.75, ALPHA_ZERO, s + 2);
                    check_rank(t, herm, 0, uplos[u], trans, 17, 9, 0, ALPHA_ZERO, s + 3);
                    check_rank(t, herm, 0, uplos[u], trans, 19, 0, 0.5, K_ZERO, s + 4);
                    check_rank(t, herm, 0, uplos[u], trans, 17, 9, 1, FULL, s + 8);
                    if (herm) {
                        check_rank(t, 1, 1, uplos[u], trans, 19, 7, 1.25, FULL, s + 5);
                        check_rank(t, 1, 1, uplos[u], trans, 19, 7, 0.75, ALPHA_ZERO, s + 6);
                        check_rank(t, 1, 1, uplos[u], trans, 19, 0, 0.5, K_ZERO, s + 7);
                        check_rank(t, 1, 1, uplos[u], trans, 17, 9, 1, FULL, s + 9);
                    }
                }
}

/* ---- Each route ------------------------------------------------------------------------------ */

static void every_routine(int blocked) {
    every_tr();
    every_symm();
    every_rank();
    /* The route each took: blocked calls log their updates, whole host calls "host". */
    int on_device = count_log_lines("updates on the device");
    if (blocked)
        cr_assert(on_device > 0 && count_log_lines(" 0 updates on the device") == 0,
                  "not every blocked call had its updates on the device");
    else
        cr_assert(on_device == 0, "%d calls blocked, not on the host", on_device);
}

Test(level3_edges, device, .init = device_route, .timeout = 900) {
    every_routine(1);
}

Test(level3_edges, system_blas, .init = system_route, .timeout = 600) {
    every_routine(0);
}

Test(level3_edges, builtin_loops, .init = builtin_route, .timeout = 600) {
    every_routine(0);
}

Test(level3_edges, builtin_loops_under_device_updates, .init = builtin_device_route,
     .timeout = 900) {
    every_routine(1);
}

/* ---- Threads --------------------------------------------------------------------------------- */

/* One type's routines, as a worker thread (or a forked child) runs them. */
static void some_of_type(int t, uint64_t seed) {
    const char sides[] = "LR", uplos[] = "UL", transes[] = "NC";
    for (int v = 0; v < 8; v++) {
        char side = sides[v & 1], uplo = uplos[(v >> 1) & 1], trans = transes[(v >> 2) & 1];
        check_tr(t, v & 1, side, uplo, trans, v & 2 ? 'U' : 'N', 19, 13, seed + (uint64_t)v);
        check_symm(t, t >= 2 && (v & 4), side, uplo, 13, 19, v & 1 ? 0 : 1.5, 0, seed + 10 + v);
        int herm = t >= 2 && (v & 1);
        check_rank(t, herm, 0, uplo,
                   trans == 'N' ? 'N'
                   : herm       ? 'C'
                                : 'T',
                   19, 7, v & 2 ? 0.75 : 0, FULL, seed + 20 + (uint64_t)v);
    }
}

static void *worker(void *arg) {
    in_worker = 1;
    int t = (int)(intptr_t)arg;
    for (int round = 0; round < 2; round++)
        some_of_type(t, 1000 * (uint64_t)t + 100 * (uint64_t)round);
    return NULL;
}

/* Four threads, one type each, every call blocked with its updates on the device at once (the
 * shared pool, handle and rule), each against the long-double reference. */
Test(level3_edges, threads_at_once, .init = device_route, .timeout = 900) {
    pthread_t tid[4];
    for (int t = 0; t < 4; t++)
        cr_assert_eq(pthread_create(&tid[t], NULL, worker, (void *)(intptr_t)t), 0);
    for (int t = 0; t < 4; t++)
        pthread_join(tid[t], NULL);
    cr_assert_eq(atomic_load(&worker_failures), 0, "%d failed checks, the first: %s",
                 atomic_load(&worker_failures), first_failure);
    cr_assert_eq(count_log_lines("updates on the device"), 4 * 2 * 8 * 3);
    cr_assert_eq(count_log_lines(" 0 updates on the device"), 0);
}

/* ---- fork() ---------------------------------------------------------------------------------- */

/* A child forked after the parent's blocked calls used the device: its calls go whole to the
 * system BLAS (the device is the parent's; touching it could hang), right, within a deadline;
 * the parent's device keeps working. */
Test(level3_edges, calls_in_a_forked_child, .init = device_route, .timeout = 600) {
    check_tr(1, 1, 'L', 'U', 'N', 'N', 19, 13, 1);
    int before = count_log_lines("updates on the device");
    cr_assert_eq(before, 1);
    fflush(stderr);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        in_worker = 1;
        some_of_type(1, 50);
        some_of_type(3, 60);
        /* exit, not _exit: the exit summary of CLGEMM_BLAS_LOG counts the child's calls. */
        exit(atomic_load(&worker_failures) == 0 ? 0 : 1);
    }
    int status = wait_child(pid, 120);
    cr_assert_neq(status, -1, "the child hung (killed after 120 s)");
    cr_assert_eq(status, 0, "the child's results were wrong (exit status %d)", status);
    cr_assert_eq(count_log_lines("updates on the device"), before, "the child blocked a call");
    cr_assert_eq(count_log_lines(": host\n"), 2 * 8 * 3, "the child's calls not whole on the host");
    /* Its own: four dtrsm calls on the system BLAS, not the parent's one on the device too. */
    cr_assert_eq(count_log_lines("dtrsm calls: device=0 system=4 builtin=0 trivial=0 error=0\n"), 1,
                 "the child's summary");
    cr_assert_eq(count_log_lines("zher2k calls: device=0 system=4 builtin=0 trivial=0 error=0\n"),
                 1, "the child's summary");
    check_symm(3, 1, 'R', 'L', 19, 13, 0.5, 0, 2);
    cr_assert_eq(count_log_lines("updates on the device"), before + 1, "the parent's device");
}

/* ---- Garbage in the environment -------------------------------------------------------------- */

/* Settings as NAME=VALUE, inline (Criterion hands the parameters to another process). */
typedef struct env_case {
    char vars[8][64];
} env_case;

ParameterizedTestParameters(level3_env, garbage) {
    static env_case cases[] = {
        {{"CLGEMM_BLAS_MIN_FLOPS=0", "CLGEMM_BLAS_BLOCK=1e10"}},
        {{"CLGEMM_BLAS_MIN_FLOPS=0", "CLGEMM_BLAS_BLOCK=inf"}},
        {{"CLGEMM_BLAS_MIN_FLOPS=0", "CLGEMM_BLAS_BLOCK=2147483648"}},
        {{"CLGEMM_BLAS_MIN_FLOPS=0", "CLGEMM_BLAS_BLOCK=2147483647"}},
        {{"CLGEMM_BLAS_MIN_FLOPS=-1", "CLGEMM_BLAS_BLOCK=-8", "CLGEMM_BLAS_POOL_MB=-5",
          "CLGEMM_BLAS_DEVICES=-2", "CLGEMM_BLAS_LAPACK_NB=-3", "CLGEMM_BLAS_LOG=-1",
          "CLGEMM_BLAS_RULE=-1"}},
        {{"CLGEMM_BLAS_MIN_FLOPS=abc", "CLGEMM_BLAS_BLOCK=abc", "CLGEMM_BLAS_POOL_MB=abc",
          "CLGEMM_BLAS_DEVICES=abc", "CLGEMM_BLAS_LAPACK_NB=abc", "CLGEMM_BLAS_LOG=abc",
          "CLGEMM_BLAS_RULE=abc", "CLGEMM_BLAS_FALLBACK=abc"}},
        {{"CLGEMM_BLAS_MIN_FLOPS=", "CLGEMM_BLAS_BLOCK=", "CLGEMM_BLAS_POOL_MB=",
          "CLGEMM_BLAS_DEVICES=", "CLGEMM_BLAS_LAPACK_NB=", "CLGEMM_BLAS_LOG=", "CLGEMM_BLAS_RULE=",
          "CLGEMM_BLAS_FALLBACK="}},
        {{"CLGEMM_BLAS_MIN_FLOPS=nan", "CLGEMM_BLAS_BLOCK=nan", "CLGEMM_BLAS_POOL_MB=nan",
          "CLGEMM_BLAS_DEVICES=nan", "CLGEMM_BLAS_LAPACK_NB=nan", "CLGEMM_BLAS_LOG=nan"}},
        {{"CLGEMM_BLAS_MIN_FLOPS=0", "CLGEMM_BLAS_BLOCK=1", "CLGEMM_BLAS_POOL_MB=1e300",
          "CLGEMM_BLAS_DEVICES=1e300", "CLGEMM_BLAS_LAPACK_NB=1e300",
          "CLGEMM_BLAS_LOG=99999999999999999999"}},
        {{"CLGEMM_BLAS_MIN_FLOPS=0", "CLGEMM_BLAS_BLOCK=0.5", "CLGEMM_BLAS_POOL_MB=1",
          "CLGEMM_BLAS_DEVICES=0", "CLGEMM_BLAS_LOG=2x"}},
        {{"CLGEMM_BLAS_MIN_FLOPS=1e-300", "CLGEMM_BLAS_BLOCK=3.9", "CLGEMM_BLAS_POOL_MB=0.5",
          "CLGEMM_BLAS_DEVICES=inf", "CLGEMM_BLAS_RULE=flops ", "CLGEMM_BLAS_LOG=2"}},
        {{"CLGEMM_BLAS_MIN_FLOPS=0", "CLGEMM_BLAS_BLOCK= 5", "CLGEMM_BLAS_POOL_MB=1e400",
          "CLGEMM_BLAS_FALLBACK=/nonexistent/libblas.so.3"}},
        {{"CLGEMM_BLAS_MIN_FLOPS=1e400", "CLGEMM_BLAS_BLOCK=-inf",
          "CLGEMM_BLAS_FALLBACK=libc.so.6"}},
    };
    return cr_make_param_array(env_case, cases, sizeof cases / sizeof cases[0]);
}

/* No crash, and every result still right (whatever route the settings leave the calls). */
ParameterizedTest(env_case *c, level3_env, garbage, .timeout = 600) {
    capture_log();
    for (int i = 0; i < 8 && c->vars[i][0]; i++) {
        char *eq = strchr(c->vars[i], '=');
        cr_assert(eq);
        *eq = 0;
        setenv(c->vars[i], eq + 1, 1);
    }
    for (int t = 0; t < 4; t++)
        some_of_type(t, 300 + (uint64_t)t);
    check_rank(3, 1, 1, 'L', 'C', 19, 7, 0.5, FULL, 7);
}

/* The drop-in runs inside others' programs: a bad setting is ignored without a word on their
 * stderr, and named only where CLGEMM_BLAS_LOG asks (it printed unasked before). */
static int bad_settings_lines(const char *log) {
    capture_log();
    if (log) setenv("CLGEMM_BLAS_LOG", log, 1);
    setenv("CLGEMM_BLAS_BLOCK", "abc", 1);
    setenv("CLGEMM_BLAS_RULE", "fastest", 1);
    setenv("CLGEMM_BLAS_LAPACK_NB", "1.5", 1);
    check_rank(1, 0, 0, 'U', 'N', 19, 7, 0.5, FULL, 11);
    return count_log_lines("ignoring");
}

Test(level3_env, bad_settings_are_quiet_unless_logged, .timeout = 300) {
    cr_expect_eq(bad_settings_lines(NULL), 0);
    fflush(stderr);
    rewind(log_file);
    cr_expect_eq(fgetc(log_file), EOF, "the drop-in wrote to the program's stderr");
}

Test(level3_env, bad_settings_named_when_logged, .timeout = 300) {
    cr_expect_eq(bad_settings_lines("1"), 3);
}
