/* syrk.c: ?syrk and ?herk (C = alpha op(A) op(A)^T + beta C, one triangle of C; ^H and real
 * alpha, beta for herk), the Fortran names (ssyrk_ ... zherk_) and the CBLAS ones, with reference
 * BLAS's checks, error numbers and special cases (beta == 0 sets C without reading it, herk's
 * diagonal has no imaginary part).
 *
 * On the device the triangle is computed in column panels: each panel is one GEMM of the rows
 * the triangle has in it (a trapezoid, so four panels do 5/8 of a full product) into a host
 * scratch, and only the triangle's elements of the panel are merged into C, so the other
 * triangle of the user's C is never written. Small calls go to the system BLAS's own ?syrk_ /
 * ?herk_, and without one to the same panels on the built-in host loops. */
#include "blas.h"

#include <complex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct syrk_call {
    blas_type type;
    int herm;   /* herk: A^H, real alpha and beta, a real diagonal */
    char uplo;  /* 'U' or 'L' */
    char trans; /* 'N': C = A op(A); 'T' (herk: 'C'): C = op(A) A */
    int n, k;
    const void *alpha; /* herk: a float/double; else one element of the type */
    const void *a;
    int lda;
    const void *beta;
    void *c;
    int ldc;
} syrk_call;

/* ---- Where calls went (CLGEMM_BLAS_LOG's summary) ------------------------------------------- */

static atomic_ulong counts[2][BLAS_TYPE_COUNT][BLAS_ROUTE_COUNT];
static pthread_once_t summary_once = PTHREAD_ONCE_INIT;

static const char *routine(int herm) {
    return herm ? "herk" : "syrk";
}

static void summary(void) {
    for (int h = 0; h < 2; h++)
        for (int t = 0; t < BLAS_TYPE_COUNT; t++)
            clgemm__blas_log_routes((blas_type)t, routine(h), counts[h][t]);
}

static void counts_reset(void) {
    for (int h = 0; h < 2; h++)
        for (int t = 0; t < BLAS_TYPE_COUNT; t++)
            for (int r = 0; r < BLAS_ROUTE_COUNT; r++)
                atomic_store(&counts[h][t][r], 0);
}

static void register_summary(void) {
    clgemm__blas_summary_at_exit(summary, counts_reset);
}

static void count(const syrk_call *s, blas_route r) {
    pthread_once(&summary_once, register_summary);
    atomic_fetch_add(&counts[s->herm][s->type][r], 1);
}

/* ---- Checks ---------------------------------------------------------------------------------- */

static char upper_case(char c) {
    return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* Reference BLAS's checks: 0 or INFO (1 UPLO, 2 TRANS, 3 N, 4 K, 7 LDA, 10 LDC). ?syrk takes
 * 'N', 'T' and, for s/d, 'C' (meaning 'T'); ?herk takes 'N' and 'C'. Normalises uplo/trans. */
static int check(syrk_call *s) {
    char uplo = upper_case(s->uplo), trans = upper_case(s->trans);
    int complex_type = s->type == BLAS_C || s->type == BLAS_Z;
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
    if (s->ldc < (s->n > 1 ? s->n : 1)) return 10;
    return 0;
}

/* ---- Scalars --------------------------------------------------------------------------------- */

/* alpha or beta as one element of the type (herk's real ones with a zero imaginary part). */
static void as_element(const syrk_call *s, const void *x, double out[2]) {
    out[0] = out[1] = 0;
    int single = s->type == BLAS_S || s->type == BLAS_C;
    int parts = s->type >= BLAS_C && !s->herm ? 2 : 1;
    for (int i = 0; i < parts; i++)
        out[i] = single ? ((const float *)x)[i] : ((const double *)x)[i];
}

static int is_value(const syrk_call *s, const void *x, double re) {
    double v[2];
    as_element(s, x, v);
    return v[0] == re && v[1] == 0;
}

/* The scalar in the layout of the type, for a blas_call (complex: two parts). */
static void pack(blas_type t, const double v[2], void *out) {
    if (t == BLAS_S || t == BLAS_C) {
        ((float *)out)[0] = (float)v[0];
        if (t == BLAS_C) ((float *)out)[1] = (float)v[1];
    } else {
        ((double *)out)[0] = v[0];
        if (t == BLAS_Z) ((double *)out)[1] = v[1];
    }
}

/* ---- The triangle ---------------------------------------------------------------------------- */

/* C(i, j) = w + beta C(i, j) for the elements of a block (rows i0.., columns j0.., w with
 * leading dimension ldw) that lie in the triangle; w == NULL: C(i, j) = beta C(i, j). beta == 0
 * writes w (or 0) without reading C, as reference BLAS does; herk's diagonal keeps real parts
 * only. */
#define DEFINE_MERGE(name, T, R)                                                                   \
    static void name(const syrk_call *s, const void *wv, int ldw, int i0, int j0, int rows,        \
                     int cols) {                                                                   \
        const T *w = wv;                                                                           \
        T *c = s->c;                                                                               \
        double bv[2];                                                                              \
        as_element(s, s->beta, bv);                                                                \
        T beta = (T)bv[0];                                                                         \
        if (bv[1] != 0) beta += (T)(bv[1] * I);                                                    \
        int beta_zero = bv[0] == 0 && bv[1] == 0;                                                  \
        for (int jj = 0; jj < cols; jj++) {                                                        \
            int j = j0 + jj;                                                                       \
            int lo = s->uplo == 'U' ? i0 : (j > i0 ? j : i0);                                      \
            int hi = s->uplo == 'U' ? (j + 1 < i0 + rows ? j + 1 : i0 + rows) : i0 + rows;         \
            for (int i = lo; i < hi; i++) {                                                        \
                T *out = &c[i + (size_t)j * s->ldc];                                               \
                T add = w ? w[(i - i0) + (size_t)jj * ldw] : 0;                                    \
                T old = beta_zero ? 0 : *out;                                                      \
                if (s->herm && i == j) {                                                           \
                    *out = (R)creal(add) + (beta_zero ? 0 : (R)bv[0] * (R)creal(old));             \
                } else if (s->herm) { /* a real beta on each part: no 0 * Inf from its 0i */       \
                    *out = beta_zero ? add : add + (R)bv[0] * old;                                 \
                } else {                                                                           \
                    *out = beta_zero ? add : add + beta * old;                                     \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_MERGE(merge_s, float, float)
DEFINE_MERGE(merge_d, double, double)
DEFINE_MERGE(merge_c, float complex, float)
DEFINE_MERGE(merge_z, double complex, double)

static void merge(const syrk_call *s, const void *w, int ldw, int i0, int j0, int rows, int cols) {
    static void (*const fns[BLAS_TYPE_COUNT])(const syrk_call *, const void *, int, int, int, int,
                                              int) = {merge_s, merge_d, merge_c, merge_z};
    fns[s->type](s, w, ldw, i0, j0, rows, cols);
}

/* ---- Panels ---------------------------------------------------------------------------------- */

/* Panels wider than this many scratch bytes are cut narrower. */
#define SCRATCH_MAX ((size_t)256 << 20)

/* The GEMM of the panel of columns j0..j0+cols: the rows *i0.. (*rows of them) that the
 * triangle has there, alpha times, into w (leading dimension *rows, beta = 0). */
static blas_call panel_call(const syrk_call *s, const void *alpha, const void *zero, void *w,
                            int j0, int cols, int *i0, int *rows) {
    *i0 = s->uplo == 'U' ? 0 : j0;
    *rows = s->uplo == 'U' ? j0 + cols : s->n - j0;
    size_t e = clgemm__blas_elem(s->type);
    const char *a = s->a;
    char t = s->herm ? 'C' : 'T';
    int notrans = s->trans == 'N';
    /* 'N': rows of A; otherwise columns of A (C = op(A) A). */
    size_t row_step = notrans ? e : (size_t)s->lda * e;
    blas_call g = {.type = s->type,
                   .ta = notrans ? 'N' : t,
                   .tb = notrans ? t : 'N',
                   .m = *rows,
                   .n = cols,
                   .k = s->k,
                   .alpha = alpha,
                   .a = a + (size_t)*i0 * row_step,
                   .lda = s->lda,
                   .b = a + (size_t)j0 * row_step,
                   .ldb = s->lda,
                   .beta = zero,
                   .c = w,
                   .ldc = *rows};
    return g;
}

/* Computes the triangle panel by panel; device: on the device while it takes them (a panel it
 * refuses, and every later one, runs on the host). 0 on success; 1 when the device took none of
 * it (C untouched) or there was no scratch memory. */
static int run_panels(const syrk_call *s, int device) {
    size_t e = clgemm__blas_elem(s->type);
    int n = s->n;
    int width = n <= 512 ? n : (n + 3) / 4; /* four panels: 5/8 of the full product's work */
    while (width > 1 && (size_t)n * (size_t)width * e > SCRATCH_MAX)
        width = (width + 1) / 2;
    void *w = NULL;
    while (!(w = malloc((size_t)n * (size_t)width * e)) && width > 1)
        width = (width + 1) / 2;
    if (!w) return 1;
    double av[2], zv[2] = {0, 0};
    as_element(s, s->alpha, av);
    double alpha[2], zero[2]; /* room for one complex double */
    pack(s->type, av, alpha);
    pack(s->type, zv, zero);
    int on_device = device;
    for (int j0 = 0; j0 < n; j0 += width) {
        int cols = n - j0 < width ? n - j0 : width, i0, rows;
        blas_call g = panel_call(s, alpha, zero, w, j0, cols, &i0, &rows);
        if (on_device && clgemm__blas_device_gemm(&g) != 0) {
            if (j0 == 0) {
                free(w);
                return 1;
            }
            on_device = 0;
        }
        if (!on_device) clgemm__blas_host_gemm(&g);
        merge(s, w, rows, i0, j0, rows, cols);
    }
    free(w);
    return 0;
}

/* ---- The system BLAS's own routine ----------------------------------------------------------- */

typedef void (*syrk_fn)(const char *uplo, const char *trans, const int *n, const int *k,
                        const void *alpha, const void *a, const int *lda, const void *beta, void *c,
                        const int *ldc, size_t lu, size_t lt);

/* Looked up once: dpotrf's recursive panels make about n calls of a few microseconds each, and a
 * lookup (dlsym through the process's libraries, dladdr over their symbols) cost about 2 us, so
 * looked up per call it made LAPACK's dpotrf 2048 on OpenBLAS 10-20 % slower. */
static syrk_fn system_fns[2][BLAS_TYPE_COUNT];
static pthread_once_t system_once = PTHREAD_ONCE_INIT;

static void look_up(void) {
    for (int h = 0; h < 2; h++)
        for (int t = 0; t < BLAS_TYPE_COUNT; t++) {
            char name[] = "?syrk_";
            name[0] = clgemm__blas_letter((blas_type)t);
            if (h) name[1] = 'h', name[2] = 'e';
            system_fns[h][t] = (syrk_fn)clgemm__blas_system_symbol(name);
        }
}

static syrk_fn system_fn(const syrk_call *s) {
    pthread_once(&system_once, look_up);
    return system_fns[s->herm][s->type];
}

/* ---- A checked call ------------------------------------------------------------------------ */

/* The whole call on the host: the system BLAS's own routine, else panels of the built-in loops. */
static void run_host(const syrk_call *s) {
    syrk_fn f = system_fn(s);
    if (f) {
        count(s, ROUTE_SYSTEM);
        f(&s->uplo, &s->trans, &s->n, &s->k, s->alpha, s->a, &s->lda, s->beta, s->c, &s->ldc, 1, 1);
        return;
    }
    count(s, ROUTE_BUILTIN);
    if (run_panels(s, 0) != 0) /* no scratch memory: element by element */
        for (int j = 0; j < s->n; j++)
            for (int i = s->uplo == 'U' ? 0 : j; i < (s->uplo == 'U' ? j + 1 : s->n); i++) {
                double w[4], av[2], zv[2] = {0, 0}, alpha[2], zero[2];
                as_element(s, s->alpha, av);
                pack(s->type, av, alpha);
                pack(s->type, zv, zero);
                int i0, rows;
                syrk_call one = *s;
                blas_call g = panel_call(&one, alpha, zero, w, j, 1, &i0, &rows);
                g.a = (const char *)s->a + (size_t)i * (s->trans == 'N' ? 1 : (size_t)s->lda) *
                                               clgemm__blas_elem(s->type);
                g.m = 1, g.ldc = 1;
                clgemm__blas_host_gemm(&g);
                merge(s, w, 1, i, j, 1, 1);
            }
}

/* The two sides for the measured rule (rule_run.c). */
static int panels_on_device(const void *s) {
    return run_panels(s, 1);
}

static void whole_on_host(const void *s) {
    run_host(s);
}

static void run(const syrk_call *s) {
    const blas_settings *st = clgemm__blas_settings();
    /* n == 0 first: reference BLAS returns before it reads alpha or beta (which may be NULL). */
    if (s->n == 0) {
        count(s, ROUTE_TRIVIAL);
        return;
    }
    int alpha_zero = is_value(s, s->alpha, 0);
    if ((alpha_zero || s->k == 0) && is_value(s, s->beta, 1)) {
        count(s, ROUTE_TRIVIAL); /* reference BLAS's quick return */
        return;
    }
    if (alpha_zero || s->k == 0) { /* C = beta C on the triangle, A never read */
        merge(s, NULL, 0, 0, 0, s->n, s->n);
        count(s, ROUTE_TRIVIAL);
        return;
    }
    /* The device runs full GEMMs of the panels: compared with the threshold as one GEMM; to
     * the rule, what it copies is A (twice: both operands of a panel are slices of it) and the
     * panels of the triangle back. */
    double flops = 2.0 * s->n * s->n * s->k * (s->type >= BLAS_C ? 4 : 1);
    const char *why = "below CLGEMM_BLAS_MIN_FLOPS";
    double seconds;
    int on_device = 0;
    blas_copy_clock c0 = clgemm__blas_copy_clock();
    if (flops >= st->min_flops) {
        double bytes = (double)clgemm__blas_elem(s->type) * s->n * (2.0 * s->k + s->n);
        /* As the GEMM of A and its transpose that it is. */
        int notrans = s->trans == 'N';
        rule_call r = {.kind = RULE_SYRK,
                       .type = s->type,
                       .shape = clgemm__blas_rule_shape(notrans ? 'N' : 'T', notrans ? 'T' : 'N',
                                                        s->n, s->n, s->k),
                       .flops = flops,
                       .bytes = bytes,
                       .device = panels_on_device,
                       .host = whole_on_host,
                       .arg = s};
        on_device = clgemm__blas_rule_run(&r, &why, &seconds);
    } else {
        /* Timed only for the log line: LAPACK makes thousands of these small calls. */
        double t0 = st->log >= 2 ? clgemm__blas_seconds() : 0;
        run_host(s);
        seconds = st->log >= 2 ? clgemm__blas_seconds() - t0 : 0;
    }
    if (on_device) {
        count(s, ROUTE_DEVICE);
        blas_copy_clock c1 = clgemm__blas_copy_clock();
        if (st->log >= 2)
            clgemm__blas_log("%c%s %c%c %d %d in %.6f s, copies %.6f s %.0f bytes: device",
                             clgemm__blas_letter(s->type), routine(s->herm), s->uplo, s->trans,
                             s->n, s->k, seconds, c1.seconds - c0.seconds, c1.bytes - c0.bytes);
        return;
    }
    if (st->log >= 2)
        clgemm__blas_log("%c%s %c%c %d %d in %.6f s: host (%s)", clgemm__blas_letter(s->type),
                         routine(s->herm), s->uplo, s->trans, s->n, s->k, seconds, why);
}

/* ---- Fortran entry points -------------------------------------------------------------------- */

/* The routine's Fortran name for xerbla_: "SSYRK " ... "ZHERK ". */
static void fortran_name(blas_type type, int herm, char name[7]) {
    memcpy(name, herm ? "?HERK " : "?SYRK ", 7);
    name[0] = (char)(clgemm__blas_letter(type) - 'a' + 'A');
}

static void fortran(blas_type type, int herm, const char *uplo, const char *trans, const int *n,
                    const int *k, const void *alpha, const void *a, const int *lda,
                    const void *beta, void *c, const int *ldc) {
    syrk_call s = {type, herm, *uplo, *trans, *n, *k, alpha, a, *lda, beta, c, *ldc};
    int info = check(&s);
    if (info) {
        count(&s, ROUTE_ERROR);
        char name[7];
        fortran_name(type, herm, name);
        clgemm__blas_xerbla_named(name, info);
        return;
    }
    run(&s);
}

#define FORTRAN(name, type, herm, T, S)                                                            \
    BLAS_EXPORT void name(const char *uplo, const char *trans, const int *n, const int *k,         \
                          const S *alpha, const T *a, const int *lda, const S *beta, T *c,         \
                          const int *ldc, size_t lu, size_t lt);                                   \
    void name(const char *uplo, const char *trans, const int *n, const int *k, const S *alpha,     \
              const T *a, const int *lda, const S *beta, T *c, const int *ldc, size_t lu,          \
              size_t lt) {                                                                         \
        (void)lu;                                                                                  \
        (void)lt;                                                                                  \
        fortran(type, herm, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);                       \
    }

/* Complex arrays (and csyrk's alpha, beta) are pairs (real, imaginary) of the real type. */
FORTRAN(ssyrk_, BLAS_S, 0, float, float)
FORTRAN(dsyrk_, BLAS_D, 0, double, double)
FORTRAN(csyrk_, BLAS_C, 0, float, float)
FORTRAN(zsyrk_, BLAS_Z, 0, double, double)
FORTRAN(cherk_, BLAS_C, 1, float, float)
FORTRAN(zherk_, BLAS_Z, 1, double, double)

/* ---- CBLAS entry points ---------------------------------------------------------------------- */

enum { ROW_MAJOR = 101 };

/* As reference CBLAS (LAPACK 3.11): row-major C is the column-major call on C^T, that is the
 * other triangle and the other transpose (Trans and ConjTrans both 'N'); the C layer refuses
 * only what its map lacks (cblas_args.c), every other bad argument is the Fortran routine's,
 * reported through xerbla_ with its own number. */
static void cblas(blas_type type, int herm, int layout, int uplo, int trans, int n, int k,
                  const void *alpha, const void *a, int lda, const void *beta, void *c, int ldc) {
    syrk_call s = {type, herm, 0, 0, n, k, alpha, a, lda, beta, c, ldc};
    char rout[] = "cblas_?syrk", letters[2];
    rout[6] = clgemm__blas_letter(type);
    if (herm) rout[7] = 'h', rout[8] = 'e';
    const cblas_letter args[2] = {{uplo, 121, "UL", "LU", 2, 3, "Uplo"},
                                  {trans, 111, "NTC", herm ? "CNN" : "TNN", 3, 3, "Trans"}};
    if (clgemm__blas_cblas_letters(rout, layout, 2, args, letters)) {
        count(&s, ROUTE_ERROR);
        return;
    }
    s.uplo = letters[0], s.trans = letters[1];
    int info = check(&s);
    if (info) {
        count(&s, ROUTE_ERROR);
        char name[7];
        fortran_name(type, herm, name);
        clgemm__blas_cblas_fortran_error_named(name, info, layout == ROW_MAJOR);
        return;
    }
    run(&s);
}

#define CBLAS_REAL(name, type, T)                                                                  \
    BLAS_EXPORT void name(int layout, int uplo, int trans, int n, int k, T alpha, const T *a,      \
                          int lda, T beta, T *c, int ldc);                                         \
    void name(int layout, int uplo, int trans, int n, int k, T alpha, const T *a, int lda, T beta, \
              T *c, int ldc) {                                                                     \
        cblas(type, 0, layout, uplo, trans, n, k, &alpha, a, lda, &beta, c, ldc);                  \
    }

/* csyrk's complex alpha and beta by pointer; herk's real ones by value. */
#define CBLAS_COMPLEX(name, type)                                                                  \
    BLAS_EXPORT void name(int layout, int uplo, int trans, int n, int k, const void *alpha,        \
                          const void *a, int lda, const void *beta, void *c, int ldc);             \
    void name(int layout, int uplo, int trans, int n, int k, const void *alpha, const void *a,     \
              int lda, const void *beta, void *c, int ldc) {                                       \
        cblas(type, 0, layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);                    \
    }

#define CBLAS_HERK(name, type, R)                                                                  \
    BLAS_EXPORT void name(int layout, int uplo, int trans, int n, int k, R alpha, const void *a,   \
                          int lda, R beta, void *c, int ldc);                                      \
    void name(int layout, int uplo, int trans, int n, int k, R alpha, const void *a, int lda,      \
              R beta, void *c, int ldc) {                                                          \
        cblas(type, 1, layout, uplo, trans, n, k, &alpha, a, lda, &beta, c, ldc);                  \
    }

CBLAS_REAL(cblas_ssyrk, BLAS_S, float)
CBLAS_REAL(cblas_dsyrk, BLAS_D, double)
CBLAS_COMPLEX(cblas_csyrk, BLAS_C)
CBLAS_COMPLEX(cblas_zsyrk, BLAS_Z)
CBLAS_HERK(cblas_cherk, BLAS_C, float)
CBLAS_HERK(cblas_zherk, BLAS_Z, double)
