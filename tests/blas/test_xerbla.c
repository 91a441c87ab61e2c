/* test_xerbla.c: CBLAS argument errors reach the program's own handlers exactly as with
 * reference CBLAS (issue 20, item 3). The program defines xerbla_ and cblas_xerbla that record
 * their arguments and return, as R, LAPACK's testers and many Fortran codes do. Reference CBLAS
 * calls cblas_xerbla only for the order and the transposes; every other bad argument goes to
 * xerbla_ of its Fortran ?gemm_, with the Fortran routine name and the parameter number of the
 * Fortran call (for row-major, the transposed one: a bad lda is the Fortran LDB, 10). Before the
 * fix the drop-in sent those to cblas_xerbla with CBLAS numbers, and a program without its own
 * cblas_xerbla was stopped by the system's ("Parameter 9 to routine cblas_dgemm", exit 255).
 * The numbers below are reference CBLAS's as Debian 12 ships it (libblas3 3.11), checked against
 * it; after each call C must be bit for bit as before and the program must go on. */
#include <complex.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

enum { ROW = 101, COL = 102, NT = 111, TR = 112, BAD = 999 };

void cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc);
void cblas_dgemm(int layout, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                 int lda, const double *b, int ldb, double beta, double *c, int ldc);
void cblas_cgemm(int layout, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,
                 int lda, const void *b, int ldb, const void *beta, void *c, int ldc);
void cblas_zgemm(int layout, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,
                 int lda, const void *b, int ldb, const void *beta, void *c, int ldc);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc, size_t la, size_t lb);

void xerbla_(const char *name, const int *info, size_t len);
void cblas_xerbla(int info, const char *rout, const char *form, ...);

/* What the handlers saw: the number of calls, and the last one's routine and info. */
static int xerbla_calls, cblas_xerbla_calls, last_info;
static char last_name[16];

void xerbla_(const char *name, const int *info, size_t len) {
    xerbla_calls++;
    last_info = *info;
    size_t n = len < sizeof last_name - 1 ? len : sizeof last_name - 1;
    memcpy(last_name, name, n);
    last_name[n] = 0;
}

void cblas_xerbla(int info, const char *rout, const char *form, ...) {
    (void)form;
    cblas_xerbla_calls++;
    last_info = info;
    strncpy(last_name, rout, sizeof last_name - 1);
    last_name[sizeof last_name - 1] = 0;
}

static void reset(void) {
    xerbla_calls = cblas_xerbla_calls = last_info = 0;
    last_name[0] = 0;
}

/* Operands large enough for every call below (M, N, K at most 5), random-looking and never
 * zero; C is checked bit for bit against its copy. */
static double a[64], b[64], c[64], c0[64];
static double complex za[64], zb[64], zc[64], zc0[64];

static void fill(void) {
    for (int i = 0; i < 64; i++) {
        a[i] = 0.25 * (i % 7) - 0.6, b[i] = 0.5 * (i % 5) + 0.1, c[i] = c0[i] = i + 0.5;
        za[i] = CMPLX(a[i], b[i]), zb[i] = CMPLX(b[i], -a[i]), zc[i] = zc0[i] = CMPLX(i, -i);
    }
}

/* One expected report: `xerbla` (1: xerbla_, 0: cblas_xerbla), its routine name and info. */
static void expect_report(int xerbla, const char *name, int info, const char *what) {
    cr_expect_eq(xerbla_calls, xerbla ? 1 : 0, "%s: xerbla_ called %d times", what, xerbla_calls);
    cr_expect_eq(cblas_xerbla_calls, xerbla ? 0 : 1, "%s: cblas_xerbla called %d times", what,
                 cblas_xerbla_calls);
    cr_expect_str_eq(last_name, name, "%s: routine \"%s\", want \"%s\"", what, last_name, name);
    cr_expect_eq(last_info, info, "%s: info %d, want %d", what, last_info, info);
    cr_expect(memcmp(c, c0, sizeof c) == 0 && memcmp(zc, zc0, sizeof zc) == 0, "%s: C was written",
              what);
}

typedef struct dcase {
    const char *what;
    int layout, ta, tb, m, n, k, lda, ldb, ldc;
    int xerbla; /* the report: 1 xerbla_ (name "DGEMM "), 0 cblas_xerbla ("cblas_dgemm") */
    int info;
} dcase;

/* M = 4, N = 3, K = 5 unless the case changes them. */
static const dcase dcases[] = {
    {"col lda", COL, NT, NT, 4, 3, 5, 3, 5, 4, 1, 8},
    {"col ldb", COL, NT, NT, 4, 3, 5, 4, 4, 4, 1, 10},
    {"col ldc", COL, NT, NT, 4, 3, 5, 4, 5, 3, 1, 13},
    {"col M < 0", COL, NT, NT, -1, 3, 5, 4, 5, 4, 1, 3},
    {"col N < 0", COL, NT, NT, 4, -1, 5, 4, 5, 4, 1, 4},
    {"col K < 0", COL, NT, NT, 4, 3, -1, 4, 5, 4, 1, 5},
    {"row lda", ROW, NT, NT, 4, 3, 5, 4, 3, 3, 1, 10},
    {"row lda, A transposed", ROW, TR, NT, 4, 3, 5, 3, 3, 3, 1, 10},
    {"row ldb", ROW, NT, NT, 4, 3, 5, 5, 2, 3, 1, 8},
    {"row ldc", ROW, NT, NT, 4, 3, 5, 5, 3, 2, 1, 13},
    {"row M < 0", ROW, NT, NT, -1, 3, 5, 5, 3, 3, 1, 4},
    {"row N < 0", ROW, NT, NT, 4, -1, 5, 5, 3, 3, 1, 3},
    {"bad order", 99, NT, NT, 4, 3, 5, 4, 5, 4, 0, 1},
    {"col TransA", COL, BAD, NT, 4, 3, 5, 4, 5, 4, 0, 2},
    {"col TransB", COL, NT, BAD, 4, 3, 5, 4, 5, 4, 0, 3},
    {"row TransA", ROW, BAD, NT, 4, 3, 5, 5, 3, 3, 0, 2},
    {"row TransB", ROW, NT, BAD, 4, 3, 5, 5, 3, 3, 0, 2},
};

Test(xerbla, cblas_dgemm_reports_as_reference_cblas) {
    fill();
    for (size_t i = 0; i < sizeof dcases / sizeof dcases[0]; i++) {
        const dcase *t = &dcases[i];
        reset();
        cblas_dgemm(t->layout, t->ta, t->tb, t->m, t->n, t->k, 1.5, a, t->lda, b, t->ldb, 0.5, c,
                    t->ldc);
        expect_report(t->xerbla, t->xerbla ? "DGEMM " : "cblas_dgemm", t->info, t->what);
    }
}

Test(xerbla, cblas_zgemm_and_the_others) {
    fill();
    const double complex alpha = CMPLX(1, -0.5), beta = CMPLX(0.25, 2);
    reset();
    cblas_zgemm(COL, NT, NT, 4, 3, 5, &alpha, za, 3, zb, 5, &beta, zc, 4);
    expect_report(1, "ZGEMM ", 8, "zgemm col lda");
    reset();
    cblas_zgemm(ROW, NT, NT, 4, 3, 5, &alpha, za, 4, zb, 3, &beta, zc, 3);
    expect_report(1, "ZGEMM ", 10, "zgemm row lda");
    reset();
    cblas_zgemm(ROW, NT, BAD, 4, 3, 5, &alpha, za, 5, zb, 3, &beta, zc, 3);
    expect_report(0, "cblas_zgemm", 2, "zgemm row TransB");
    reset();
    cblas_zgemm(7, NT, NT, 4, 3, 5, &alpha, za, 4, zb, 5, &beta, zc, 4);
    expect_report(0, "cblas_zgemm", 1, "zgemm bad order");
    const float complex calpha = CMPLXF(1, 0), cbeta = CMPLXF(0, 1);
    float complex cc[16], cc0[16];
    for (int i = 0; i < 16; i++)
        cc[i] = cc0[i] = CMPLXF(i, 1);
    reset();
    cblas_cgemm(COL, NT, NT, 4, 3, 5, &calpha, za, 4, zb, 5, &cbeta, cc, 2);
    expect_report(1, "CGEMM ", 13, "cgemm col ldc");
    cr_expect(memcmp(cc, cc0, sizeof cc) == 0, "cgemm: C was written");
    float s[16], s0[16];
    for (int i = 0; i < 16; i++)
        s[i] = s0[i] = (float)i - 3.5f;
    reset();
    cblas_sgemm(ROW, NT, NT, 4, 3, 5, 1.0f, (const float *)a, 5, (const float *)b, 2, 0.0f, s, 3);
    expect_report(1, "SGEMM ", 8, "sgemm row ldb");
    cr_expect(memcmp(s, s0, sizeof s) == 0, "sgemm: C was written");
}

/* The Fortran entry points report through xerbla_ as they always did. */
Test(xerbla, fortran_dgemm_reports_through_xerbla) {
    fill();
    int m = 4, n = 3, k = 5, lda = 3, ldb = 5, ldc = 4;
    double alpha = 1, beta = 0;
    reset();
    dgemm_("N", "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
    expect_report(1, "DGEMM ", 8, "dgemm_ lda");
}
