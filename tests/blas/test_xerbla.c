/* test_xerbla.c: CBLAS argument errors, and those of the Fortran Level-3 entry points, reach the
 * program's own handlers exactly as with reference CBLAS (issue 20, item 3). The program defines
 * xerbla_ and cblas_xerbla that record their arguments and return, as R, LAPACK's testers and many
 * Fortran codes do. Reference CBLAS calls cblas_xerbla only for the order and the transposes; every
 * other bad argument goes to xerbla_ of its Fortran ?gemm_, with the Fortran routine name and the
 * parameter number of the Fortran call (for row-major, the transposed one: a bad lda is the Fortran
 * LDB, 10). Before the fix the drop-in sent those to cblas_xerbla with CBLAS numbers, and a program
 * without its own cblas_xerbla was stopped by the system's ("Parameter 9 to routine cblas_dgemm",
 * exit 255). The numbers below are reference CBLAS's as Debian 12 ships it (libblas3 3.11), checked
 * against it; after each call C must be bit for bit as before and the program must go on. */
#include <complex.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "level3_fortran.h"

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

/* ---- The other Level-3 routines' Fortran entry points -------------------------------------- */

typedef struct l3_routine {
    const char *name; /* the Fortran name xerbla_ gets, six characters */
    void (*fn)(void);
    char trans; /* ?syr2k / ?her2k: the transpose the routine takes besides 'N' */
} l3_routine;

static const l3_routine tr_routines[] = {
    {"STRSM ", strsm_, 0}, {"DTRSM ", dtrsm_, 0}, {"CTRSM ", ctrsm_, 0}, {"ZTRSM ", ztrsm_, 0},
    {"STRMM ", strmm_, 0}, {"DTRMM ", dtrmm_, 0}, {"CTRMM ", ctrmm_, 0}, {"ZTRMM ", ztrmm_, 0}};
static const l3_routine mm_routines[] = {{"SSYMM ", ssymm_, 0}, {"DSYMM ", dsymm_, 0},
                                         {"CSYMM ", csymm_, 0}, {"ZSYMM ", zsymm_, 0},
                                         {"CHEMM ", chemm_, 0}, {"ZHEMM ", zhemm_, 0}};
static const l3_routine r2k_routines[] = {{"SSYR2K", ssyr2k_, 'T'}, {"DSYR2K", dsyr2k_, 'T'},
                                          {"CSYR2K", csyr2k_, 'T'}, {"ZSYR2K", zsyr2k_, 'T'},
                                          {"CHER2K", cher2k_, 'C'}, {"ZHER2K", zher2k_, 'C'}};

/* One bad call: its letters (side, uplo, trans, diag for ?trsm; side, uplo for ?symm; uplo,
 * trans for ?syr2k, '*' standing for the routine's own transpose), its sizes (m, n; n, k for
 * ?syr2k), leading dimensions and the INFO reference BLAS reports. */
typedef struct l3_case {
    const char *what;
    char letters[5];
    int m, n, lda, ldb, ldc;
    int info;
} l3_case;

/* m = 4, n = 3 unless changed. */
static const l3_case tr_cases[] = {
    {"side", "XUNN", 4, 3, 4, 4, 0, 1},           {"side blank", " UNN", 4, 3, 4, 4, 0, 1},
    {"uplo", "LXNN", 4, 3, 4, 4, 0, 2},           {"transa", "LUXN", 4, 3, 4, 4, 0, 3},
    {"diag", "LUNX", 4, 3, 4, 4, 0, 4},           {"m < 0", "LUNN", -1, 3, 4, 4, 0, 5},
    {"n < 0", "LUNN", 4, -1, 4, 4, 0, 6},         {"lda, side L", "LUNN", 4, 3, 3, 4, 0, 9},
    {"lda, side R", "RUNN", 4, 3, 2, 4, 0, 9},    {"lda, side r", "rlcu", 4, 3, 2, 4, 0, 9},
    {"ldb", "RUNN", 4, 3, 3, 3, 0, 11},           {"lda 0, m 0", "LUNN", 0, 3, 0, 1, 0, 9},
    {"ldb 0, m 0", "LUNN", 0, 3, 1, 0, 0, 11},    {"side before m", "xUNN", -1, 3, 4, 4, 0, 1},
    {"diag before n", "LUTx", 4, -1, 4, 4, 0, 4}, {"m before lda", "LUNN", -1, 3, 0, 0, 0, 5},
};
static const l3_case mm_cases[] = {
    {"side", "XU", 4, 3, 4, 4, 4, 1},           {"uplo", "LX", 4, 3, 4, 4, 4, 2},
    {"m < 0", "LU", -1, 3, 4, 4, 4, 3},         {"n < 0", "LU", 4, -1, 4, 4, 4, 4},
    {"lda, side L", "LU", 4, 3, 3, 4, 4, 7},    {"lda, side R", "RU", 4, 3, 2, 4, 4, 7},
    {"lda, side r", "rl", 4, 3, 2, 4, 4, 7},    {"ldb", "RU", 4, 3, 3, 3, 4, 9},
    {"ldc", "LU", 4, 3, 4, 4, 3, 12},           {"ldc 0, m 0", "LU", 0, 3, 1, 1, 0, 12},
    {"uplo before n", "L?", 4, -1, 4, 4, 4, 2},
};
static const l3_case r2k_cases[] = {
    {"uplo", "XN", 4, 3, 4, 4, 4, 1},           {"trans", "UX", 4, 3, 4, 4, 4, 2},
    {"n < 0", "UN", -1, 3, 4, 4, 4, 3},         {"k < 0", "UN", 4, -1, 4, 4, 4, 4},
    {"lda, trans N", "UN", 4, 3, 3, 4, 4, 7},   {"lda, transposed", "U*", 4, 3, 2, 3, 4, 7},
    {"ldb, trans n", "ln", 4, 3, 4, 3, 4, 9},   {"ldb, transposed", "L*", 4, 3, 3, 2, 4, 9},
    {"ldc", "UN", 4, 3, 4, 4, 3, 12},           {"ldc 0, n 0", "UN", 0, 3, 1, 1, 0, 12},
    {"uplo before k", "?N", 4, -1, 4, 4, 4, 1},
};

/* alpha and beta (her2k's beta: the first part) in the precision of a routine's name. */
static const double scalars_d[2][2] = {{1.5, -0.5}, {0.5, 0.25}};
static const float scalars_s[2][2] = {{1.5f, -0.5f}, {0.5f, 0.25f}};

static const void *scalar(const l3_routine *r, int which) {
    return r->name[0] == 'S' || r->name[0] == 'C' ? (const void *)scalars_s[which]
                                                  : (const void *)scalars_d[which];
}

/* Every case of every routine: one report through xerbla_ with the routine's name and the
 * number, B (C) bit for bit as before, and no cblas_xerbla. */
Test(xerbla, fortran_level3_reports_through_xerbla) {
    char what[96];
    for (size_t r = 0; r < sizeof tr_routines / sizeof tr_routines[0]; r++)
        for (size_t i = 0; i < sizeof tr_cases / sizeof tr_cases[0]; i++) {
            const l3_case *t = &tr_cases[i];
            fill();
            reset();
            ((tr_fn)tr_routines[r].fn)(&t->letters[0], &t->letters[1], &t->letters[2],
                                       &t->letters[3], &t->m, &t->n, scalar(&tr_routines[r], 0), za,
                                       &t->lda, zc, &t->ldb, 1, 1, 1, 1);
            snprintf(what, sizeof what, "%s %s", tr_routines[r].name, t->what);
            expect_report(1, tr_routines[r].name, t->info, what);
        }
    for (size_t r = 0; r < sizeof mm_routines / sizeof mm_routines[0]; r++)
        for (size_t i = 0; i < sizeof mm_cases / sizeof mm_cases[0]; i++) {
            const l3_case *t = &mm_cases[i];
            fill();
            reset();
            ((mm_fn)mm_routines[r].fn)(&t->letters[0], &t->letters[1], &t->m, &t->n,
                                       scalar(&mm_routines[r], 0), za, &t->lda, zb, &t->ldb,
                                       scalar(&mm_routines[r], 1), zc, &t->ldc, 1, 1);
            snprintf(what, sizeof what, "%s %s", mm_routines[r].name, t->what);
            expect_report(1, mm_routines[r].name, t->info, what);
        }
    for (size_t r = 0; r < sizeof r2k_routines / sizeof r2k_routines[0]; r++)
        for (size_t i = 0; i < sizeof r2k_cases / sizeof r2k_cases[0]; i++) {
            const l3_case *t = &r2k_cases[i];
            char trans = t->letters[1] == '*' ? r2k_routines[r].trans : t->letters[1];
            fill();
            reset();
            ((mm_fn)r2k_routines[r].fn)(&t->letters[0], &trans, &t->m, &t->n,
                                        scalar(&r2k_routines[r], 0), za, &t->lda, zb, &t->ldb,
                                        scalar(&r2k_routines[r], 1), zc, &t->ldc, 1, 1);
            snprintf(what, sizeof what, "%s %s", r2k_routines[r].name, t->what);
            expect_report(1, r2k_routines[r].name, t->info, what);
        }
}

/* The transposes each ?syr2k / ?her2k refuses (reference: 'C' only for the real ?syr2k, 'T'
 * never for ?her2k), in either case, and the ones it takes. */
Test(xerbla, fortran_syr2k_her2k_transposes) {
    static const struct {
        int routine;
        char trans;
        int info; /* 0: taken */
    } cases[] = {{0, 'C', 0}, {1, 'c', 0}, {2, 'C', 2}, {3, 'c', 2}, {4, 'T', 2},
                 {5, 't', 2}, {4, 'c', 0}, {5, 'C', 0}, {2, 't', 0}, {3, 'T', 0}};
    int n = 4, k = 3, ld = 4;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const l3_routine *r = &r2k_routines[cases[i].routine];
        fill();
        reset();
        ((mm_fn)r->fn)("U", &cases[i].trans, &n, &k, scalar(r, 0), za, &ld, zb, &ld, scalar(r, 1),
                       zc, &ld, 1, 1);
        char what[64];
        snprintf(what, sizeof what, "%s trans %c", r->name, cases[i].trans);
        if (cases[i].info) {
            expect_report(1, r->name, cases[i].info, what);
        } else {
            cr_expect_eq(xerbla_calls + cblas_xerbla_calls, 0, "%s: refused", what);
            cr_expect(memcmp(zc, zc0, sizeof zc) != 0, "%s: C not computed", what);
        }
    }
}

/* Option letters in lower case compute exactly what the upper-case ones do (LSAME). */
Test(xerbla, fortran_level3_lower_case_letters) {
    double complex x[64], y[64];
    int m = 5, n = 4, ld = 6;
    for (int i = 0; i < 64; i++) /* a dominant diagonal for the solves */
        za[i] = CMPLX(0.25 * (i % 7) - 0.6 + (i % (ld + 1) == 0 ? 4 : 0), 0.125 * (i % 3));
    static const char *tr_letters[] = {"LUNN", "RLTU", "LLCN", "RUCU"};
    for (size_t r = 0; r < sizeof tr_routines / sizeof tr_routines[0]; r++)
        for (int l = 0; l < 4; l++) {
            char lower[4];
            for (int i = 0; i < 4; i++)
                lower[i] = (char)(tr_letters[l][i] - 'A' + 'a');
            for (int i = 0; i < 64; i++)
                x[i] = y[i] = CMPLX(0.5 * (i % 5) - 1, 0.25 * (i % 4));
            reset();
            const char *u = tr_letters[l];
            ((tr_fn)tr_routines[r].fn)(&u[0], &u[1], &u[2], &u[3], &m, &n,
                                       scalar(&tr_routines[r], 0), za, &ld, x, &ld, 1, 1, 1, 1);
            ((tr_fn)tr_routines[r].fn)(&lower[0], &lower[1], &lower[2], &lower[3], &m, &n,
                                       scalar(&tr_routines[r], 0), za, &ld, y, &ld, 1, 1, 1, 1);
            cr_expect_eq(xerbla_calls + cblas_xerbla_calls, 0, "%s %s: refused",
                         tr_routines[r].name, u);
            cr_expect(memcmp(x, y, sizeof x) == 0, "%s %.4s: lower case differs",
                      tr_routines[r].name, u);
        }
    for (size_t r = 0; r < sizeof mm_routines / sizeof mm_routines[0]; r++) {
        static const char *letters[] = {"LU", "RL"};
        for (int l = 0; l < 2; l++) {
            char lower[2] = {(char)(letters[l][0] + 32), (char)(letters[l][1] + 32)};
            for (int i = 0; i < 64; i++)
                x[i] = y[i] = CMPLX(0.5 * (i % 5) - 1, 0.25 * (i % 4));
            reset();
            ((mm_fn)mm_routines[r].fn)(&letters[l][0], &letters[l][1], &m, &n,
                                       scalar(&mm_routines[r], 0), za, &ld, zb, &ld,
                                       scalar(&mm_routines[r], 1), x, &ld, 1, 1);
            ((mm_fn)mm_routines[r].fn)(&lower[0], &lower[1], &m, &n, scalar(&mm_routines[r], 0), za,
                                       &ld, zb, &ld, scalar(&mm_routines[r], 1), y, &ld, 1, 1);
            cr_expect_eq(xerbla_calls + cblas_xerbla_calls, 0, "%s: refused", mm_routines[r].name);
            cr_expect(memcmp(x, y, sizeof x) == 0, "%s %s: lower case differs", mm_routines[r].name,
                      letters[l]);
        }
    }
    for (size_t r = 0; r < sizeof r2k_routines / sizeof r2k_routines[0]; r++)
        for (int l = 0; l < 2; l++) {
            char upper[2] = {l ? 'L' : 'U', l ? r2k_routines[r].trans : 'N'};
            char lower[2] = {(char)(upper[0] + 32), (char)(upper[1] + 32)};
            for (int i = 0; i < 64; i++)
                x[i] = y[i] = CMPLX(0.5 * (i % 5) - 1, 0.25 * (i % 4));
            reset();
            ((mm_fn)r2k_routines[r].fn)(&upper[0], &upper[1], &m, &n, scalar(&r2k_routines[r], 0),
                                        za, &ld, zb, &ld, scalar(&r2k_routines[r], 1), x, &ld, 1,
                                        1);
            ((mm_fn)r2k_routines[r].fn)(&lower[0], &lower[1], &m, &n, scalar(&r2k_routines[r], 0),
                                        za, &ld, zb, &ld, scalar(&r2k_routines[r], 1), y, &ld, 1,
                                        1);
            cr_expect_eq(xerbla_calls + cblas_xerbla_calls, 0, "%s: refused", r2k_routines[r].name);
            cr_expect(memcmp(x, y, sizeof x) == 0, "%s %.2s: lower case differs",
                      r2k_routines[r].name, upper);
        }
}
