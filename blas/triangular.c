/* triangular.c: ?trsm (solve op(A) X = alpha B or X op(A) = alpha B) and ?trmm (B = alpha op(A) B
 * or alpha B op(A)), A triangular, every side, uplo, transpose and diagonal; the Fortran names
 * (strsm_ ... ztrmm_) and the CBLAS ones, with reference BLAS's checks and INFO numbers.
 *
 * Both are one recursion on A's dimension. Write the call as M x = alpha b on the vectors of B
 * (its columns for side L, M = op(A); its rows for side R, M = op(A)^T). Cut into halves, the
 * off-diagonal block of M maps the "source" half (the first when M is lower) to the other: trsm
 * solves the source half, updates the other with one GEMM (B2 = alpha B2 - M21 X1) and solves
 * it; trmm multiplies the other half, adds the GEMM of the source half (B2 += alpha M21 B1)
 * and multiplies the source half last. Halves of at most CLGEMM_BLAS_BLOCK go to the system
 * BLAS's own routine; only B's m x n block is ever written. */
#include "level3.h"

#include <stdlib.h>

typedef struct tri_call {
    blas_type type;
    l3_routine routine; /* L3_TRSM or L3_TRMM */
    char side, uplo, trans, diag;
    int m, n;
    double alpha[2];
    const void *a;
    int lda;
    void *b;
    int ldb;
} tri_call;

/* Reference BLAS's checks: 0 or INFO (1 SIDE, 2 UPLO, 3 TRANSA, 4 DIAG, 5 M, 6 N, 9 LDA, 11 LDB).
 */
static int check(tri_call *s) {
    s->side = clgemm__blas_l3_upper(s->side), s->uplo = clgemm__blas_l3_upper(s->uplo);
    s->trans = clgemm__blas_l3_upper(s->trans), s->diag = clgemm__blas_l3_upper(s->diag);
    if (s->side != 'L' && s->side != 'R') return 1;
    if (s->uplo != 'U' && s->uplo != 'L') return 2;
    if (s->trans != 'N' && s->trans != 'T' && s->trans != 'C') return 3;
    if (s->diag != 'U' && s->diag != 'N') return 4;
    if (s->m < 0) return 5;
    if (s->n < 0) return 6;
    int nrowa = s->side == 'L' ? s->m : s->n;
    if (s->lda < (nrowa > 1 ? nrowa : 1)) return 9;
    if (s->ldb < (s->m > 1 ? s->m : 1)) return 11;
    return 0;
}

/* Whether M (op(A) for side L, op(A)^T for side R) is lower triangular. */
static int m_lower(const tri_call *s) {
    int op_lower = (s->uplo == 'L') == (s->trans == 'N');
    return s->side == 'L' ? op_lower : !op_lower;
}

/* ---- The built-in loops ---------------------------------------------------------------------- */

/* M(i, k), reading only A's stored triangle (the other may hold anything). */
static double complex m_at(const tri_call *s, int lower, int i, int k) {
    if (lower ? k > i : k < i) return 0;
    if (i == k && s->diag == 'U') return 1;
    int side_l = s->side == 'L';
    int r = side_l ? i : k, c = side_l ? k : i; /* op(A)(r, c) */
    double complex v = s->trans == 'N' ? clgemm__blas_l3_get(s->type, s->a, r + (size_t)c * s->lda)
                                       : clgemm__blas_l3_get(s->type, s->a, c + (size_t)r * s->lda);
    return s->trans == 'C' ? conj(v) : v;
}

/* Each vector of B in turn (columns for side L, rows for side R), in double complex. */
static void builtin(const tri_call *s) {
    int side_l = s->side == 'L', lower = m_lower(s);
    int len = side_l ? s->m : s->n, count = side_l ? s->n : s->m;
    size_t step = side_l ? 1 : (size_t)s->ldb, next = side_l ? (size_t)s->ldb : 1;
    double complex alpha = s->alpha[0] + s->alpha[1] * I;
    double complex *x = malloc((size_t)len * sizeof *x);
    if (!x) return; /* no memory for one vector: nothing is written */
    for (int v = 0; v < count; v++) {
        size_t base = (size_t)v * next;
        for (int i = 0; i < len; i++)
            x[i] = alpha * clgemm__blas_l3_get(s->type, s->b, base + (size_t)i * step);
        if (s->routine == L3_TRSM) {
            for (int t = 0; t < len; t++) {
                int i = lower ? t : len - 1 - t;
                double complex sum = x[i];
                for (int k = lower ? 0 : i + 1; k < (lower ? i : len); k++)
                    sum -= m_at(s, lower, i, k) * x[k];
                x[i] = sum / m_at(s, lower, i, i);
            }
        } else {
            for (int t = 0; t < len; t++) { /* lower: from the end, so x[k < i] is still old */
                int i = lower ? len - 1 - t : t;
                double complex sum = 0;
                for (int k = lower ? 0 : i; k <= (lower ? i : len - 1); k++)
                    sum += m_at(s, lower, i, k) * x[k];
                x[i] = sum;
            }
        }
        for (int i = 0; i < len; i++)
            clgemm__blas_l3_put(s->type, s->b, base + (size_t)i * step, x[i]);
    }
    free(x);
}

/* ---- Host blocks and the recursion ----------------------------------------------------------- */

typedef void (*tri_fn)(const char *side, const char *uplo, const char *trans, const char *diag,
                       const int *m, const int *n, const void *alpha, const void *a, const int *lda,
                       void *b, const int *ldb, size_t, size_t, size_t, size_t);

/* A diagonal block, or a whole call below the threshold: the system BLAS, else the loops. */
static void host(const tri_call *s) {
    tri_fn f = (tri_fn)clgemm__blas_l3_system(s->routine, s->type);
    if (!f) {
        builtin(s);
        return;
    }
    double alpha[2];
    clgemm__blas_l3_pack(s->type, s->alpha, alpha);
    f(&s->side, &s->uplo, &s->trans, &s->diag, &s->m, &s->n, alpha, s->a, &s->lda, s->b, &s->ldb, 1,
      1, 1, 1);
}

/* The part of the call on A's rows and columns d0.. (len of them), with alpha. */
static tri_call half(const tri_call *s, int d0, int len, const double alpha[2]) {
    tri_call h = *s;
    h.a = clgemm__blas_l3_at(s->type, s->a, s->lda, d0, d0);
    if (s->side == 'L')
        h.m = len, h.b = (void *)clgemm__blas_l3_at(s->type, s->b, s->ldb, d0, 0);
    else
        h.n = len, h.b = (void *)clgemm__blas_l3_at(s->type, s->b, s->ldb, 0, d0);
    h.alpha[0] = alpha[0], h.alpha[1] = alpha[1];
    return h;
}

/* Returns the number of updates that ran on the device. */
static int recurse(const tri_call *s) {
    int dim = s->side == 'L' ? s->m : s->n;
    if (dim <= clgemm__blas_settings()->block) {
        host(s);
        return 0;
    }
    int d1 = clgemm__blas_l3_split(dim), lower = m_lower(s);
    /* src: the half the off-diagonal block reads; dst: the half it updates. */
    int src0 = lower ? 0 : d1, src_len = lower ? d1 : dim - d1;
    int dst0 = lower ? d1 : 0, dst_len = lower ? dim - d1 : d1;
    static const double one[2] = {1, 0}, minus_one[2] = {-1, 0};
    int solve = s->routine == L3_TRSM;
    tri_call src = half(s, src0, src_len, s->alpha),
             dst = half(s, dst0, dst_len, solve ? one : s->alpha);
    /* op(A)'s block of rows r0 (rows of it) and columns c0 (cols): side L (dst, src), side R
     * (src, dst); stored at (r0, c0) or, transposed, at (c0, r0). */
    int side_l = s->side == 'L';
    int r0 = side_l ? dst0 : src0, c0 = side_l ? src0 : dst0;
    const void *off = s->trans == 'N' ? clgemm__blas_l3_at(s->type, s->a, s->lda, r0, c0)
                                      : clgemm__blas_l3_at(s->type, s->a, s->lda, c0, r0);
    double alpha[2], beta[2]; /* room for one complex double each */
    clgemm__blas_l3_pack(s->type, solve ? minus_one : s->alpha, alpha);
    clgemm__blas_l3_pack(s->type, solve ? s->alpha : one, beta);
    blas_call g = {.type = s->type, .alpha = alpha, .beta = beta, .c = dst.b, .ldc = s->ldb};
    if (side_l) { /* B_dst (dst x n) op= op(A)(dst, src) B_src */
        g.ta = s->trans, g.tb = 'N', g.m = dst_len, g.n = s->n, g.k = src_len;
        g.a = off, g.lda = s->lda, g.b = src.b, g.ldb = s->ldb;
    } else { /* B_dst (m x dst) op= B_src op(A)(src, dst) */
        g.ta = 'N', g.tb = s->trans, g.m = s->m, g.n = dst_len, g.k = src_len;
        g.a = src.b, g.lda = s->ldb, g.b = off, g.ldb = s->lda;
    }
    int on_device = 0;
    if (solve) {
        on_device += recurse(&src);
        on_device += clgemm__blas_l3_gemm(&g);
        on_device += recurse(&dst);
    } else {
        on_device += recurse(&dst);
        on_device += clgemm__blas_l3_gemm(&g);
        on_device += recurse(&src);
    }
    return on_device;
}

/* ---- A checked call ------------------------------------------------------------------------ */

static int blocked(const void *s) {
    return recurse(s);
}

static void host_call(const void *s) {
    host(s);
}

static void run(const tri_call *s) {
    if (s->m == 0 || s->n == 0) {
        clgemm__blas_l3_count(s->routine, s->type, ROUTE_TRIVIAL);
        return;
    }
    if (s->alpha[0] == 0 && s->alpha[1] == 0) { /* B = 0, A never read */
        for (int j = 0; j < s->n; j++)
            for (int i = 0; i < s->m; i++)
                clgemm__blas_l3_put(s->type, s->b, i + (size_t)j * s->ldb, 0);
        clgemm__blas_l3_count(s->routine, s->type, ROUTE_TRIVIAL);
        return;
    }
    int dim = s->side == 'L' ? s->m : s->n;
    const char letters[] = {s->side, s->uplo, s->trans, s->diag, 0};
    l3_route route = {.routine = s->routine,
                      .type = s->type,
                      .dim = dim,
                      .flops = (double)dim * s->m * s->n * (s->type >= BLAS_C ? 4 : 1),
                      .letters = letters,
                      .size1 = s->m,
                      .size2 = s->n,
                      .call = s,
                      .blocked = blocked,
                      .host = host_call};
    clgemm__blas_l3_route(&route);
}

/* ---- Fortran entry points -------------------------------------------------------------------- */

static void fortran(blas_type type, l3_routine routine, const char *side, const char *uplo,
                    const char *trans, const char *diag, const int *m, const int *n,
                    const void *alpha, const void *a, const int *lda, void *b, const int *ldb) {
    tri_call s = {type, routine, *side, *uplo, *trans, *diag, *m, *n, {0, 0}, a, *lda, b, *ldb};
    int info = check(&s);
    if (info) {
        clgemm__blas_l3_fortran_error(routine, type, info);
        return;
    }
    /* Read past the quick return only, as reference BLAS (and ?gemm here) does: a call with
     * nothing to compute may pass no scalars. */
    if (s.m != 0 && s.n != 0) {
        clgemm__blas_l3_unpack(type, alpha, 0, s.alpha);
    }
    run(&s);
}

#define FORTRAN(name, type, routine, T)                                                            \
    BLAS_EXPORT void name(const char *side, const char *uplo, const char *trans, const char *diag, \
                          const int *m, const int *n, const T *alpha, const T *a, const int *lda,  \
                          T *b, const int *ldb, size_t l1, size_t l2, size_t l3, size_t l4);       \
    void name(const char *side, const char *uplo, const char *trans, const char *diag,             \
              const int *m, const int *n, const T *alpha, const T *a, const int *lda, T *b,        \
              const int *ldb, size_t l1, size_t l2, size_t l3, size_t l4) {                        \
        (void)l1, (void)l2, (void)l3, (void)l4;                                                    \
        fortran(type, routine, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb);              \
    }

/* Complex arrays and scalars are pairs (real, imaginary) of the real type. */
FORTRAN(strsm_, BLAS_S, L3_TRSM, float)
FORTRAN(dtrsm_, BLAS_D, L3_TRSM, double)
FORTRAN(ctrsm_, BLAS_C, L3_TRSM, float)
FORTRAN(ztrsm_, BLAS_Z, L3_TRSM, double)
FORTRAN(strmm_, BLAS_S, L3_TRMM, float)
FORTRAN(dtrmm_, BLAS_D, L3_TRMM, double)
FORTRAN(ctrmm_, BLAS_C, L3_TRMM, float)
FORTRAN(ztrmm_, BLAS_Z, L3_TRMM, double)

/* ---- CBLAS entry points ---------------------------------------------------------------------- */

enum { ROW_MAJOR = 101 };

/* As reference CBLAS: row-major B is the column-major B^T, so the call is the column-major one
 * with the other side, the other triangle and M, N swapped (the transpose and the diagonal
 * stay). The C layer checks the layout (1), side (2), uplo (3), transpose (4) and diagonal (5)
 * in both layouts, the Fortran call everything else. */
static void cblas(blas_type type, l3_routine routine, int layout, int side, int uplo, int trans,
                  int diag, int m, int n, const void *alpha, const void *a, int lda, void *b,
                  int ldb) {
    const cblas_letter args[4] = {{side, 141, "LR", "RL", 2, 2, "Side"},
                                  {uplo, 121, "UL", "LU", 3, 3, "Uplo"},
                                  {trans, 111, "NTC", "NTC", 4, 4, "Trans"},
                                  {diag, 131, "NU", "NU", 5, 5, "Diag"}};
    char letters[4];
    if (clgemm__blas_l3_cblas_letters(routine, type, layout, 4, args, letters)) return;
    int row_major = layout == ROW_MAJOR;
    tri_call s = {.type = type, .routine = routine, .a = a, .lda = lda, .b = b, .ldb = ldb};
    s.side = letters[0], s.uplo = letters[1], s.trans = letters[2], s.diag = letters[3];
    s.m = row_major ? n : m, s.n = row_major ? m : n;
    int info = check(&s);
    if (info) {
        clgemm__blas_l3_cblas_fortran_error(routine, type, info, row_major);
        return;
    }
    /* Read past the quick return only, as reference BLAS (and ?gemm here) does: a call with
     * nothing to compute may pass no scalars. */
    if (s.m != 0 && s.n != 0) {
        clgemm__blas_l3_unpack(type, alpha, 0, s.alpha);
    }
    run(&s);
}

#define CBLAS_REAL(name, type, routine, T)                                                         \
    BLAS_EXPORT void name(int layout, int side, int uplo, int trans, int diag, int m, int n,       \
                          T alpha, const T *a, int lda, T *b, int ldb);                            \
    void name(int layout, int side, int uplo, int trans, int diag, int m, int n, T alpha,          \
              const T *a, int lda, T *b, int ldb) {                                                \
        cblas(type, routine, layout, side, uplo, trans, diag, m, n, &alpha, a, lda, b, ldb);       \
    }

/* CBLAS passes complex alpha by pointer. */
#define CBLAS_COMPLEX(name, type, routine)                                                         \
    BLAS_EXPORT void name(int layout, int side, int uplo, int trans, int diag, int m, int n,       \
                          const void *alpha, const void *a, int lda, void *b, int ldb);            \
    void name(int layout, int side, int uplo, int trans, int diag, int m, int n,                   \
              const void *alpha, const void *a, int lda, void *b, int ldb) {                       \
        cblas(type, routine, layout, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb);        \
    }

CBLAS_REAL(cblas_strsm, BLAS_S, L3_TRSM, float)
CBLAS_REAL(cblas_dtrsm, BLAS_D, L3_TRSM, double)
CBLAS_COMPLEX(cblas_ctrsm, BLAS_C, L3_TRSM)
CBLAS_COMPLEX(cblas_ztrsm, BLAS_Z, L3_TRSM)
CBLAS_REAL(cblas_strmm, BLAS_S, L3_TRMM, float)
CBLAS_REAL(cblas_dtrmm, BLAS_D, L3_TRMM, double)
CBLAS_COMPLEX(cblas_ctrmm, BLAS_C, L3_TRMM)
CBLAS_COMPLEX(cblas_ztrmm, BLAS_Z, L3_TRMM)
