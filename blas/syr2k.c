/* syr2k.c: ?syr2k and ?her2k (C = alpha op(A) op(B)^T + alpha op(B) op(A)^T + beta C on one
 * triangle; her2k: ^H, conj(alpha) on the second term, a real beta and a real diagonal), the
 * Fortran names (ssyr2k_ ... zher2k_) and the CBLAS ones, with reference BLAS's checks and INFO
 * numbers.
 *
 * One recursion on n: the two diagonal triangles recursively, the off-diagonal block of the
 * stored triangle (C21 for lower, C12 for upper) as two GEMMs, the first with beta, the second
 * adding to it. Triangles of at most CLGEMM_BLAS_BLOCK go to the system BLAS's own routine, so
 * only the stored triangle is ever written. */
#include "level3.h"

typedef struct syr2k_call {
    blas_type type;
    int herm;
    char uplo, trans; /* trans 'N', or 'T' (syr2k) / 'C' (her2k): C = op(A)^T op(B) + ... */
    int n, k;
    double alpha[2], beta[2]; /* her2k: beta[1] == 0 */
    const void *a;
    int lda;
    const void *b;
    int ldb;
    void *c;
    int ldc;
} syr2k_call;

static l3_routine routine(const syr2k_call *s) {
    return s->herm ? L3_HER2K : L3_SYR2K;
}

/* Reference BLAS's checks: 0 or INFO (1 UPLO, 2 TRANS, 3 N, 4 K, 7 LDA, 9 LDB, 12 LDC). ?syr2k
 * takes 'N', 'T' and, for s/d, 'C' (meaning 'T'); ?her2k 'N' and 'C'. */
static int check(syr2k_call *s) {
    char uplo = clgemm__blas_l3_upper(s->uplo), trans = clgemm__blas_l3_upper(s->trans);
    int complex_type = s->type >= BLAS_C;
    if (uplo != 'U' && uplo != 'L') return 1;
    int trans_ok =
        trans == 'N' || (s->herm ? trans == 'C' : trans == 'T' || (trans == 'C' && !complex_type));
    if (!trans_ok) return 2;
    s->uplo = uplo;
    s->trans = trans == 'N' ? 'N' : s->herm ? 'C' : 'T';
    if (s->n < 0) return 3;
    if (s->k < 0) return 4;
    int nrowa = s->trans == 'N' ? s->n : s->k;
    if (s->lda < (nrowa > 1 ? nrowa : 1)) return 7;
    if (s->ldb < (nrowa > 1 ? nrowa : 1)) return 9;
    if (s->ldc < (s->n > 1 ? s->n : 1)) return 12;
    return 0;
}

/* Row i, column l of op(X) (n x k); her2k's 'C' conjugates. */
static double complex op_at(const syr2k_call *s, const void *x, int ldx, int i, int l) {
    if (s->trans == 'N') return clgemm__blas_l3_get(s->type, x, i + (size_t)l * ldx);
    double complex v = clgemm__blas_l3_get(s->type, x, l + (size_t)i * ldx);
    return s->herm ? conj(v) : v;
}

/* The triangle element by element; beta == 0 does not read C; her2k's diagonal is real. */
static void builtin(const syr2k_call *s) {
    double complex alpha = s->alpha[0] + s->alpha[1] * I, beta = s->beta[0] + s->beta[1] * I;
    double complex alpha2 = s->herm ? conj(alpha) : alpha;
    for (int j = 0; j < s->n; j++)
        for (int i = s->uplo == 'U' ? 0 : j; i < (s->uplo == 'U' ? j + 1 : s->n); i++) {
            double complex ab = 0, ba = 0;
            for (int l = 0; l < s->k; l++) {
                double complex aj = op_at(s, s->a, s->lda, j, l), bj = op_at(s, s->b, s->ldb, j, l);
                if (s->herm) aj = conj(aj), bj = conj(bj);
                ab += op_at(s, s->a, s->lda, i, l) * bj;
                ba += op_at(s, s->b, s->ldb, i, l) * aj;
            }
            size_t at = i + (size_t)j * s->ldc;
            double complex old = beta == 0 ? 0 : clgemm__blas_l3_get(s->type, s->c, at);
            /* her2k as reference: the diagonal's imaginary part is not read (it need not be set:
             * NaN there must not reach the real part), and the real beta scales each part on its
             * own (a complex product's 0 * Inf would make NaN of an infinite other part). */
            if (s->herm && i == j) old = creal(old);
            double complex scaled = s->herm ? s->beta[0] * old : beta * old;
            double complex v = alpha * ab + alpha2 * ba + scaled;
            clgemm__blas_l3_put(s->type, s->c, at, s->herm && i == j ? creal(v) : v);
        }
}

typedef void (*syr2k_fn)(const char *uplo, const char *trans, const int *n, const int *k,
                         const void *alpha, const void *a, const int *lda, const void *b,
                         const int *ldb, const void *beta, void *c, const int *ldc, size_t, size_t);

static void host(const syr2k_call *s) {
    syr2k_fn f = (syr2k_fn)clgemm__blas_l3_system(routine(s), s->type);
    if (!f) {
        builtin(s);
        return;
    }
    double alpha[2], beta[2];
    clgemm__blas_l3_pack(s->type, s->alpha, alpha);
    clgemm__blas_l3_pack(s->herm ? (s->type == BLAS_C ? BLAS_S : BLAS_D) : s->type, s->beta, beta);
    f(&s->uplo, &s->trans, &s->n, &s->k, alpha, s->a, &s->lda, s->b, &s->ldb, beta, s->c, &s->ldc,
      1, 1);
}

/* Rows i0.. of op(X) as a GEMM operand (first: as op(A); else transposed, as op(B)^T). */
static void operand(const syr2k_call *s, const void *x, int ldx, int i0, int first, const void **p,
                    char *t) {
    int notrans = s->trans == 'N';
    *p = notrans ? clgemm__blas_l3_at(s->type, x, ldx, i0, 0)
                 : clgemm__blas_l3_at(s->type, x, ldx, 0, i0);
    char conj_t = s->herm ? 'C' : 'T';
    *t = notrans == first ? 'N' : conj_t;
}

/* C(r0.., c0..) (rows x cols) = alpha X_r Y_c^T + alpha2 Y_r X_c^T + beta C: two GEMMs. */
static int off_diagonal(const syr2k_call *s, int r0, int rows, int c0, int cols) {
    double alpha[2], alpha2[2], beta[2], one_p[2],
        av2[2] = {s->alpha[0], s->herm ? -s->alpha[1] : s->alpha[1]};
    static const double one[2] = {1, 0};
    clgemm__blas_l3_pack(s->type, s->alpha, alpha);
    clgemm__blas_l3_pack(s->type, av2, alpha2);
    clgemm__blas_l3_pack(s->type, s->beta, beta);
    clgemm__blas_l3_pack(s->type, one, one_p);
    int on_device = 0;
    for (int term = 0; term < 2; term++) {
        const void *x = term == 0 ? s->a : s->b, *y = term == 0 ? s->b : s->a;
        int ldx = term == 0 ? s->lda : s->ldb, ldy = term == 0 ? s->ldb : s->lda;
        blas_call g = {.type = s->type,
                       .m = rows,
                       .n = cols,
                       .k = s->k,
                       .alpha = term == 0 ? alpha : alpha2,
                       .lda = ldx,
                       .ldb = ldy,
                       .beta = term == 0 ? beta : one_p,
                       .c = (void *)clgemm__blas_l3_at(s->type, s->c, s->ldc, r0, c0),
                       .ldc = s->ldc};
        operand(s, x, ldx, r0, 1, &g.a, &g.ta);
        operand(s, y, ldy, c0, 0, &g.b, &g.tb);
        on_device += clgemm__blas_l3_gemm(&g);
    }
    return on_device;
}

static syr2k_call half(const syr2k_call *s, int i0, int len) {
    syr2k_call h = *s;
    int notrans = s->trans == 'N';
    h.n = len;
    h.a = clgemm__blas_l3_at(s->type, s->a, s->lda, notrans ? i0 : 0, notrans ? 0 : i0);
    h.b = clgemm__blas_l3_at(s->type, s->b, s->ldb, notrans ? i0 : 0, notrans ? 0 : i0);
    h.c = (void *)clgemm__blas_l3_at(s->type, s->c, s->ldc, i0, i0);
    return h;
}

static int recurse(const syr2k_call *s) {
    if (s->n <= clgemm__blas_settings()->block) {
        host(s);
        return 0;
    }
    int d1 = clgemm__blas_l3_split(s->n), d2 = s->n - d1;
    syr2k_call h1 = half(s, 0, d1), h2 = half(s, d1, d2);
    int on_device = recurse(&h1) + recurse(&h2);
    if (s->uplo == 'L')
        on_device += off_diagonal(s, d1, d2, 0, d1);
    else
        on_device += off_diagonal(s, 0, d1, d1, d2);
    return on_device;
}

static int blocked(const void *s) {
    return recurse(s);
}

static void host_call(const void *s) {
    host(s);
}

static void run(const syr2k_call *s) {
    l3_routine r = routine(s);
    int alpha_zero = s->alpha[0] == 0 && s->alpha[1] == 0;
    int beta_one = s->beta[0] == 1 && s->beta[1] == 0;
    if (s->n == 0 || ((alpha_zero || s->k == 0) && beta_one)) {
        clgemm__blas_l3_count(r, s->type, ROUTE_TRIVIAL);
        return;
    }
    if (alpha_zero || s->k == 0) { /* C = beta C on the triangle, A and B never read */
        syr2k_call z = *s;
        z.k = 0;
        builtin(&z);
        clgemm__blas_l3_count(r, s->type, ROUTE_TRIVIAL);
        return;
    }
    const char letters[] = {s->uplo, s->trans, 0};
    l3_route route = {.routine = r,
                      .type = s->type,
                      .dim = s->n,
                      .flops = 2.0 * s->n * s->n * s->k * (s->type >= BLAS_C ? 4 : 1),
                      .letters = letters,
                      .size1 = s->n,
                      .size2 = s->k,
                      .call = s,
                      .blocked = blocked,
                      .host = host_call};
    clgemm__blas_l3_route(&route);
}

/* ---- Fortran entry points -------------------------------------------------------------------- */

static void fortran(blas_type type, int herm, const char *uplo, const char *trans, const int *n,
                    const int *k, const void *alpha, const void *a, const int *lda, const void *b,
                    const int *ldb, const void *beta, void *c, const int *ldc) {
    syr2k_call s = {type, herm, *uplo, *trans, *n, *k, {0, 0}, {0, 0}, a, *lda, b, *ldb, c, *ldc};
    int info = check(&s);
    if (info) {
        clgemm__blas_l3_fortran_error(routine(&s), type, info);
        return;
    }
    /* Read past the quick return only, as reference BLAS (and ?gemm here) does: a call with
     * nothing to compute may pass no scalars. */
    if (s.n != 0) {
        clgemm__blas_l3_unpack(type, alpha, 0, s.alpha);
        clgemm__blas_l3_unpack(type, beta, herm, s.beta);
    }
    run(&s);
}

#define FORTRAN(name, type, herm, T, S)                                                            \
    BLAS_EXPORT void name(const char *uplo, const char *trans, const int *n, const int *k,         \
                          const T *alpha, const T *a, const int *lda, const T *b, const int *ldb,  \
                          const S *beta, T *c, const int *ldc, size_t l1, size_t l2);              \
    void name(const char *uplo, const char *trans, const int *n, const int *k, const T *alpha,     \
              const T *a, const int *lda, const T *b, const int *ldb, const S *beta, T *c,         \
              const int *ldc, size_t l1, size_t l2) {                                              \
        (void)l1, (void)l2;                                                                        \
        fortran(type, herm, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc);               \
    }

/* Complex arrays and scalars are pairs (real, imaginary) of the real type; her2k's beta is real. */
FORTRAN(ssyr2k_, BLAS_S, 0, float, float)
FORTRAN(dsyr2k_, BLAS_D, 0, double, double)
FORTRAN(csyr2k_, BLAS_C, 0, float, float)
FORTRAN(zsyr2k_, BLAS_Z, 0, double, double)
FORTRAN(cher2k_, BLAS_C, 1, float, float)
FORTRAN(zher2k_, BLAS_Z, 1, double, double)

/* ---- CBLAS entry points ---------------------------------------------------------------------- */

enum { ROW_MAJOR = 101 };

/* As reference CBLAS (LAPACK 3.11): row-major C is the column-major C^T, so the other triangle
 * and the other transpose (Trans and ConjTrans both 'N', NoTrans 'T', her2k's 'C'); her2k's
 * row-major call takes conj(alpha) (C^T = conj(C) swaps the roles of alpha and conj(alpha)).
 * The C layer refuses only what its map lacks (a bad Uplo is 3 in row-major ?syr2k, 2 in
 * her2k, as there); a letter the Fortran routine refuses (column-major csyr2k 'C', cher2k 'T')
 * is its check's to report through xerbla_, with every other bad argument. */
static void cblas(blas_type type, int herm, int layout, int uplo, int trans, int n, int k,
                  const void *alpha, const void *a, int lda, const void *b, int ldb,
                  const void *beta, void *c, int ldc) {
    l3_routine r = herm ? L3_HER2K : L3_SYR2K;
    const cblas_letter args[2] = {{uplo, 121, "UL", "LU", 2, herm ? 2 : 3, "Uplo"},
                                  {trans, 111, "NTC", herm ? "CNN" : "TNN", 3, 3, "Trans"}};
    char letters[2];
    if (clgemm__blas_l3_cblas_letters(r, type, layout, 2, args, letters)) return;
    int row_major = layout == ROW_MAJOR;
    syr2k_call s = {.type = type,
                    .herm = herm,
                    .uplo = letters[0],
                    .trans = letters[1],
                    .n = n,
                    .k = k,
                    .a = a,
                    .lda = lda,
                    .b = b,
                    .ldb = ldb,
                    .c = c,
                    .ldc = ldc};
    int info = check(&s);
    if (info) {
        clgemm__blas_l3_cblas_fortran_error(r, type, info, row_major);
        return;
    }
    /* Read past the quick return only, as reference BLAS (and ?gemm here) does: a call with
     * nothing to compute may pass no scalars. */
    if (s.n != 0) {
        clgemm__blas_l3_unpack(type, alpha, 0, s.alpha);
        clgemm__blas_l3_unpack(type, beta, herm, s.beta);
    }
    if (herm && row_major) s.alpha[1] = -s.alpha[1];
    run(&s);
}

#define CBLAS_REAL(name, type, T)                                                                  \
    BLAS_EXPORT void name(int layout, int uplo, int trans, int n, int k, T alpha, const T *a,      \
                          int lda, const T *b, int ldb, T beta, T *c, int ldc);                    \
    void name(int layout, int uplo, int trans, int n, int k, T alpha, const T *a, int lda,         \
              const T *b, int ldb, T beta, T *c, int ldc) {                                        \
        cblas(type, 0, layout, uplo, trans, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);          \
    }

#define CBLAS_COMPLEX(name, type)                                                                  \
    BLAS_EXPORT void name(int layout, int uplo, int trans, int n, int k, const void *alpha,        \
                          const void *a, int lda, const void *b, int ldb, const void *beta,        \
                          void *c, int ldc);                                                       \
    void name(int layout, int uplo, int trans, int n, int k, const void *alpha, const void *a,     \
              int lda, const void *b, int ldb, const void *beta, void *c, int ldc) {               \
        cblas(type, 0, layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc);            \
    }

/* her2k's complex alpha by pointer, its real beta by value. */
#define CBLAS_HER2K(name, type, R)                                                                 \
    BLAS_EXPORT void name(int layout, int uplo, int trans, int n, int k, const void *alpha,        \
                          const void *a, int lda, const void *b, int ldb, R beta, void *c,         \
                          int ldc);                                                                \
    void name(int layout, int uplo, int trans, int n, int k, const void *alpha, const void *a,     \
              int lda, const void *b, int ldb, R beta, void *c, int ldc) {                         \
        cblas(type, 1, layout, uplo, trans, n, k, alpha, a, lda, b, ldb, &beta, c, ldc);           \
    }

CBLAS_REAL(cblas_ssyr2k, BLAS_S, float)
CBLAS_REAL(cblas_dsyr2k, BLAS_D, double)
CBLAS_COMPLEX(cblas_csyr2k, BLAS_C)
CBLAS_COMPLEX(cblas_zsyr2k, BLAS_Z)
CBLAS_HER2K(cblas_cher2k, BLAS_C, float)
CBLAS_HER2K(cblas_zher2k, BLAS_Z, double)
