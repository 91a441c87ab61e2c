/* symm.c: ?symm and ?hemm (C = alpha A B + beta C or alpha B A + beta C, A symmetric or
 * Hermitian, one triangle of it stored; hemm takes the diagonal's real parts), the Fortran names
 * (ssymm_ ... zhemm_) and the CBLAS ones, with reference BLAS's checks and INFO numbers.
 *
 * One recursion on A's dimension: with A cut into [A11 A12; A21 A22] (one off-diagonal block
 * stored, the other its transpose or conjugate transpose), side L is C1 = A11 B1 + A12 B2 and
 * C2 = A21 B1 + A22 B2: the diagonal halves recursively (with beta), the off-diagonal products
 * as GEMMs (beta 1). Halves of at most CLGEMM_BLAS_BLOCK go to the system BLAS's own routine. */
#include "level3.h"

typedef struct symm_call {
    blas_type type;
    int herm;
    char side, uplo;
    int m, n;
    double alpha[2], beta[2];
    const void *a;
    int lda;
    const void *b;
    int ldb;
    void *c;
    int ldc;
} symm_call;

static l3_routine routine(const symm_call *s) {
    return s->herm ? L3_HEMM : L3_SYMM;
}

/* Reference BLAS's checks: 0 or INFO (1 SIDE, 2 UPLO, 3 M, 4 N, 7 LDA, 9 LDB, 12 LDC). */
static int check(symm_call *s) {
    s->side = clgemm__blas_l3_upper(s->side), s->uplo = clgemm__blas_l3_upper(s->uplo);
    if (s->side != 'L' && s->side != 'R') return 1;
    if (s->uplo != 'U' && s->uplo != 'L') return 2;
    if (s->m < 0) return 3;
    if (s->n < 0) return 4;
    int nrowa = s->side == 'L' ? s->m : s->n;
    if (s->lda < (nrowa > 1 ? nrowa : 1)) return 7;
    if (s->ldb < (s->m > 1 ? s->m : 1)) return 9;
    if (s->ldc < (s->m > 1 ? s->m : 1)) return 12;
    return 0;
}

/* A(i, k) from the stored triangle. */
static double complex a_at(const symm_call *s, int i, int k) {
    int stored = s->uplo == 'U' ? i <= k : i >= k;
    double complex v = clgemm__blas_l3_get(
        s->type, s->a, stored ? i + (size_t)k * s->lda : k + (size_t)i * s->lda);
    if (s->herm && i == k) return creal(v);
    return s->herm && !stored ? conj(v) : v;
}

/* C = alpha A B + beta C (side R: alpha B A + beta C) element by element; beta == 0 does not
 * read C. */
static void builtin(const symm_call *s) {
    int side_l = s->side == 'L', kdim = side_l ? s->m : s->n;
    double complex alpha = s->alpha[0] + s->alpha[1] * I, beta = s->beta[0] + s->beta[1] * I;
    for (int j = 0; j < s->n; j++)
        for (int i = 0; i < s->m; i++) {
            double complex sum = 0;
            for (int k = 0; k < kdim; k++)
                sum += side_l ? a_at(s, i, k) *
                                    clgemm__blas_l3_get(s->type, s->b, k + (size_t)j * s->ldb)
                              : clgemm__blas_l3_get(s->type, s->b, i + (size_t)k * s->ldb) *
                                    a_at(s, k, j);
            size_t at = i + (size_t)j * s->ldc;
            double complex old = beta == 0 ? 0 : clgemm__blas_l3_get(s->type, s->c, at);
            clgemm__blas_l3_put(s->type, s->c, at, alpha * sum + beta * old);
        }
}

typedef void (*symm_fn)(const char *side, const char *uplo, const int *m, const int *n,
                        const void *alpha, const void *a, const int *lda, const void *b,
                        const int *ldb, const void *beta, void *c, const int *ldc, size_t, size_t);

static void host(const symm_call *s) {
    symm_fn f = (symm_fn)clgemm__blas_l3_system(routine(s), s->type);
    if (!f) {
        builtin(s);
        return;
    }
    double alpha[2], beta[2];
    clgemm__blas_l3_pack(s->type, s->alpha, alpha);
    clgemm__blas_l3_pack(s->type, s->beta, beta);
    f(&s->side, &s->uplo, &s->m, &s->n, alpha, s->a, &s->lda, s->b, &s->ldb, beta, s->c, &s->ldc, 1,
      1);
}

/* The part of the call on A's rows and columns d0.. (len of them). */
static symm_call half(const symm_call *s, int d0, int len) {
    symm_call h = *s;
    h.a = clgemm__blas_l3_at(s->type, s->a, s->lda, d0, d0);
    int side_l = s->side == 'L';
    h.b = clgemm__blas_l3_at(s->type, s->b, s->ldb, side_l ? d0 : 0, side_l ? 0 : d0);
    h.c = (void *)clgemm__blas_l3_at(s->type, s->c, s->ldc, side_l ? d0 : 0, side_l ? 0 : d0);
    if (side_l)
        h.m = len;
    else
        h.n = len;
    return h;
}

/* C_to += alpha A(to, from) B_from (side R: B_from A(from, to)): one GEMM, A's block stored or
 * the transpose of the stored one. Returns 1 when it ran on the device. */
static int update(const symm_call *s, const symm_call *to, const symm_call *from, int to0,
                  int from0) {
    int side_l = s->side == 'L';
    int r0 = side_l ? to0 : from0, c0 = side_l ? from0 : to0; /* A's block (r0.., c0..) */
    int stored = s->uplo == 'U' ? r0 < c0 : r0 > c0;
    char t = stored ? 'N' : s->herm ? 'C' : 'T';
    const void *blk = stored ? clgemm__blas_l3_at(s->type, s->a, s->lda, r0, c0)
                             : clgemm__blas_l3_at(s->type, s->a, s->lda, c0, r0);
    static const double one[2] = {1, 0};
    double alpha[2], beta[2];
    clgemm__blas_l3_pack(s->type, s->alpha, alpha);
    clgemm__blas_l3_pack(s->type, one, beta);
    blas_call g = {.type = s->type,
                   .alpha = alpha,
                   .beta = beta,
                   .c = to->c,
                   .ldc = s->ldc,
                   .m = to->m,
                   .n = to->n};
    if (side_l)
        g.ta = t, g.tb = 'N', g.k = from->m, g.a = blk, g.lda = s->lda, g.b = from->b,
        g.ldb = s->ldb;
    else
        g.ta = 'N', g.tb = t, g.k = from->n, g.a = from->b, g.lda = s->ldb, g.b = blk,
        g.ldb = s->lda;
    return clgemm__blas_l3_gemm(&g);
}

static int recurse(const symm_call *s) {
    int dim = s->side == 'L' ? s->m : s->n;
    if (dim <= clgemm__blas_settings()->block) {
        host(s);
        return 0;
    }
    int d1 = clgemm__blas_l3_split(dim);
    symm_call h1 = half(s, 0, d1), h2 = half(s, d1, dim - d1);
    int on_device = recurse(&h1);
    on_device += update(s, &h1, &h2, 0, d1);
    on_device += recurse(&h2);
    on_device += update(s, &h2, &h1, d1, 0);
    return on_device;
}

static int blocked(const void *s) {
    return recurse(s);
}

static void host_call(const void *s) {
    host(s);
}

static void run(const symm_call *s) {
    l3_routine r = routine(s);
    int alpha_zero = s->alpha[0] == 0 && s->alpha[1] == 0;
    int beta_one = s->beta[0] == 1 && s->beta[1] == 0;
    if (s->m == 0 || s->n == 0 || (alpha_zero && beta_one)) {
        clgemm__blas_l3_count(r, s->type, ROUTE_TRIVIAL);
        return;
    }
    if (alpha_zero) { /* C = beta C, A and B never read */
        double complex beta = s->beta[0] + s->beta[1] * I;
        for (int j = 0; j < s->n; j++)
            for (int i = 0; i < s->m; i++) {
                size_t at = i + (size_t)j * s->ldc;
                clgemm__blas_l3_put(s->type, s->c, at,
                                    beta == 0 ? 0 : beta * clgemm__blas_l3_get(s->type, s->c, at));
            }
        clgemm__blas_l3_count(r, s->type, ROUTE_TRIVIAL);
        return;
    }
    int dim = s->side == 'L' ? s->m : s->n;
    const char letters[] = {s->side, s->uplo, 0};
    l3_route route = {.routine = r,
                      .type = s->type,
                      .dim = dim,
                      .flops = 2.0 * dim * s->m * s->n * (s->type >= BLAS_C ? 4 : 1),
                      .letters = letters,
                      .size1 = s->m,
                      .size2 = s->n,
                      .call = s,
                      .blocked = blocked,
                      .host = host_call};
    clgemm__blas_l3_route(&route);
}

/* ---- Fortran entry points -------------------------------------------------------------------- */

static void fortran(blas_type type, int herm, const char *side, const char *uplo, const int *m,
                    const int *n, const void *alpha, const void *a, const int *lda, const void *b,
                    const int *ldb, const void *beta, void *c, const int *ldc) {
    symm_call s = {type, herm, *side, *uplo, *m, *n, {0, 0}, {0, 0}, a, *lda, b, *ldb, c, *ldc};
    int info = check(&s);
    if (info) {
        clgemm__blas_l3_fortran_error(routine(&s), type, info);
        return;
    }
    /* Read past the quick return only, as reference BLAS (and ?gemm here) does: a call with
     * nothing to compute may pass no scalars. */
    if (s.m != 0 && s.n != 0) {
        clgemm__blas_l3_unpack(type, alpha, 0, s.alpha);
        clgemm__blas_l3_unpack(type, beta, 0, s.beta);
    }
    run(&s);
}

#define FORTRAN(name, type, herm, T)                                                               \
    BLAS_EXPORT void name(const char *side, const char *uplo, const int *m, const int *n,          \
                          const T *alpha, const T *a, const int *lda, const T *b, const int *ldb,  \
                          const T *beta, T *c, const int *ldc, size_t l1, size_t l2);              \
    void name(const char *side, const char *uplo, const int *m, const int *n, const T *alpha,      \
              const T *a, const int *lda, const T *b, const int *ldb, const T *beta, T *c,         \
              const int *ldc, size_t l1, size_t l2) {                                              \
        (void)l1, (void)l2;                                                                        \
        fortran(type, herm, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);                \
    }

FORTRAN(ssymm_, BLAS_S, 0, float)
FORTRAN(dsymm_, BLAS_D, 0, double)
FORTRAN(csymm_, BLAS_C, 0, float)
FORTRAN(zsymm_, BLAS_Z, 0, double)
FORTRAN(chemm_, BLAS_C, 1, float)
FORTRAN(zhemm_, BLAS_Z, 1, double)

/* ---- CBLAS entry points ---------------------------------------------------------------------- */

enum { ROW_MAJOR = 101 };

/* As reference CBLAS: row-major C = A B is the column-major C^T = B^T A^T, A^T being A's other
 * triangle (for hemm too: A^T = conj(A) is Hermitian with the same stored elements), so the
 * other side and triangle with M, N swapped; the C layer checks layout (1), side (2) and uplo
 * (3) in both layouts, the Fortran call everything else. */
static void cblas(blas_type type, int herm, int layout, int side, int uplo, int m, int n,
                  const void *alpha, const void *a, int lda, const void *b, int ldb,
                  const void *beta, void *c, int ldc) {
    l3_routine r = herm ? L3_HEMM : L3_SYMM;
    const cblas_letter args[2] = {{side, 141, "LR", "RL", 2, 2, "Side"},
                                  {uplo, 121, "UL", "LU", 3, 3, "Uplo"}};
    char letters[2];
    if (clgemm__blas_l3_cblas_letters(r, type, layout, 2, args, letters)) return;
    int row_major = layout == ROW_MAJOR;
    symm_call s = {
        .type = type, .herm = herm, .a = a, .lda = lda, .b = b, .ldb = ldb, .c = c, .ldc = ldc};
    s.side = letters[0], s.uplo = letters[1];
    s.m = row_major ? n : m, s.n = row_major ? m : n;
    int info = check(&s);
    if (info) {
        clgemm__blas_l3_cblas_fortran_error(r, type, info, row_major);
        return;
    }
    /* Read past the quick return only, as reference BLAS (and ?gemm here) does: a call with
     * nothing to compute may pass no scalars. */
    if (s.m != 0 && s.n != 0) {
        clgemm__blas_l3_unpack(type, alpha, 0, s.alpha);
        clgemm__blas_l3_unpack(type, beta, 0, s.beta);
    }
    run(&s);
}

#define CBLAS_REAL(name, type, T)                                                                  \
    BLAS_EXPORT void name(int layout, int side, int uplo, int m, int n, T alpha, const T *a,       \
                          int lda, const T *b, int ldb, T beta, T *c, int ldc);                    \
    void name(int layout, int side, int uplo, int m, int n, T alpha, const T *a, int lda,          \
              const T *b, int ldb, T beta, T *c, int ldc) {                                        \
        cblas(type, 0, layout, side, uplo, m, n, &alpha, a, lda, b, ldb, &beta, c, ldc);           \
    }

#define CBLAS_COMPLEX(name, type, herm)                                                            \
    BLAS_EXPORT void name(int layout, int side, int uplo, int m, int n, const void *alpha,         \
                          const void *a, int lda, const void *b, int ldb, const void *beta,        \
                          void *c, int ldc);                                                       \
    void name(int layout, int side, int uplo, int m, int n, const void *alpha, const void *a,      \
              int lda, const void *b, int ldb, const void *beta, void *c, int ldc) {               \
        cblas(type, herm, layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);          \
    }

CBLAS_REAL(cblas_ssymm, BLAS_S, float)
CBLAS_REAL(cblas_dsymm, BLAS_D, double)
CBLAS_COMPLEX(cblas_csymm, BLAS_C, 0)
CBLAS_COMPLEX(cblas_zsymm, BLAS_Z, 0)
CBLAS_COMPLEX(cblas_chemm, BLAS_C, 1)
CBLAS_COMPLEX(cblas_zhemm, BLAS_Z, 1)
