/* cblas_calls.c: every layout and letter value (valid, invalid, and the letters a Fortran
 * routine refuses) and the bad sizes of the drop-in's Level-3 CBLAS routines (cblas_?gemm,
 * ?syrk, ?herk, ?trsm, ?trmm, ?symm, ?hemm, ?syr2k, ?her2k), one line per call: which handler the
 * error reached (the program's own xerbla_ or cblas_xerbla), its routine, number and message,
 * and every element of C (B for ?trsm/?trmm) afterwards. Built twice, against the drop-in and
 * against reference CBLAS (LAPACK 3.11, by its path), and the two outputs must be the same
 * (cblas_against_reference.sh): what is computed, refused, with which number, by which error
 * routine. Data are small integers (and powers of two on the diagonal the triangular solves
 * divide by), so every BLAS computes the results exactly. Shapes are not square (m 3, n 2), so
 * a row-major call that forgets to swap M and N or to flip Side or Uplo computes something else
 * or reports another number. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                 float *, int);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int,
                 double, double *, int);
void cblas_cgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_zgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_ssyrk(int, int, int, int, int, float, const float *, int, float, float *, int);
void cblas_dsyrk(int, int, int, int, int, double, const double *, int, double, double *, int);
void cblas_csyrk(int, int, int, int, int, const void *, const void *, int, const void *, void *,
                 int);
void cblas_zsyrk(int, int, int, int, int, const void *, const void *, int, const void *, void *,
                 int);
void cblas_cherk(int, int, int, int, int, float, const void *, int, float, void *, int);
void cblas_zherk(int, int, int, int, int, double, const void *, int, double, void *, int);
void cblas_strsm(int, int, int, int, int, int, int, float, const float *, int, float *, int);
void cblas_dtrsm(int, int, int, int, int, int, int, double, const double *, int, double *, int);
void cblas_ctrsm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);
void cblas_ztrsm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);
void cblas_strmm(int, int, int, int, int, int, int, float, const float *, int, float *, int);
void cblas_dtrmm(int, int, int, int, int, int, int, double, const double *, int, double *, int);
void cblas_ctrmm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);
void cblas_ztrmm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);
void cblas_ssymm(int, int, int, int, int, float, const float *, int, const float *, int, float,
                 float *, int);
void cblas_dsymm(int, int, int, int, int, double, const double *, int, const double *, int, double,
                 double *, int);
void cblas_csymm(int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_zsymm(int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_chemm(int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_zhemm(int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_ssyr2k(int, int, int, int, int, float, const float *, int, const float *, int, float,
                  float *, int);
void cblas_dsyr2k(int, int, int, int, int, double, const double *, int, const double *, int, double,
                  double *, int);
void cblas_csyr2k(int, int, int, int, int, const void *, const void *, int, const void *, int,
                  const void *, void *, int);
void cblas_zsyr2k(int, int, int, int, int, const void *, const void *, int, const void *, int,
                  const void *, void *, int);
void cblas_cher2k(int, int, int, int, int, const void *, const void *, int, const void *, int,
                  float, void *, int);
void cblas_zher2k(int, int, int, int, int, const void *, const void *, int, const void *, int,
                  double, void *, int);

/* The program's own handlers, as R and Fortran codes define them: they record and return. */
static char report[160];
static int reports;

void xerbla_(const char *name, const int *info, size_t len);
void xerbla_(const char *name, const int *info, size_t len) {
    reports++;
    snprintf(report, sizeof report, "xerbla_(%.*s, %d)", (int)len, name, *info);
}

void cblas_xerbla(int info, const char *rout, const char *form, ...);
void cblas_xerbla(int info, const char *rout, const char *form, ...) {
    char msg[96];
    va_list ap;
    va_start(ap, form);
    vsnprintf(msg, sizeof msg, form, ap);
    va_end(ap);
    msg[strcspn(msg, "\n")] = 0;
    reports++;
    snprintf(report, sizeof report, "cblas_xerbla(%d, %s, \"%s\")", info, rout, msg);
}

/* Operands: A and B hold small integers (never zero), C is re-filled before each call. */
enum { SIZE = 64 };
static double a[2 * SIZE], b[2 * SIZE], c[2 * SIZE];
static float af[2 * SIZE], bf[2 * SIZE], cf[2 * SIZE];

static void fill(void) {
    for (int i = 0; i < 2 * SIZE; i++) {
        a[i] = af[i] = (float)(i % 5 - 2 ? i % 5 - 2 : 3);
        b[i] = bf[i] = (float)(i % 3 - 1 ? i % 3 - 1 : 2);
        c[i] = cf[i] = (float)(i % 7 - 3);
    }
    report[0] = 0;
    reports = 0;
}

/* The report and the first `count` elements of C (of the type: complex as pairs). */
static void line(const char *call, int single, int count) {
    printf("%s: %s%s C =", call, reports ? report : "no error", reports > 1 ? " (twice)" : "");
    for (int i = 0; i < count; i++)
        printf(" %g", single ? (double)cf[i] : c[i]);
    printf("\n");
}

static const int layouts[] = {101, 102, 100}, uplos[] = {121, 122, 120},
                 transes[] = {111, 112, 113, 110};
/* Side and Diag, each with a bad value above the valid ones (the others' are below). */
static const int sides[] = {141, 142, 143}, diags[] = {131, 132, 133};

/* One ?syrk/?herk call (r: 0 s, 1 d, 2 c, 3 z syrk, 4 c, 5 z herk). */
static void syrk(int r, int layout, int uplo, int trans, int n, int k, int lda, int ldc) {
    static const char *names[] = {"ssyrk", "dsyrk", "csyrk", "zsyrk", "cherk", "zherk"};
    const double za[2] = {2, 1}, zb[2] = {0.5, 0};
    const float ca[2] = {2, 1}, cb[2] = {0.5, 0};
    fill();
    switch (r) {
    case 0:
        cblas_ssyrk(layout, uplo, trans, n, k, 2, af, lda, 0.5f, cf, ldc);
        break;
    case 1:
        cblas_dsyrk(layout, uplo, trans, n, k, 2, a, lda, 0.5, c, ldc);
        break;
    case 2:
        cblas_csyrk(layout, uplo, trans, n, k, ca, af, lda, cb, cf, ldc);
        break;
    case 3:
        cblas_zsyrk(layout, uplo, trans, n, k, za, a, lda, zb, c, ldc);
        break;
    case 4:
        cblas_cherk(layout, uplo, trans, n, k, 2, af, lda, 0.5f, cf, ldc);
        break;
    default:
        cblas_zherk(layout, uplo, trans, n, k, 2, a, lda, 0.5, c, ldc);
        break;
    }
    char call[128];
    snprintf(call, sizeof call, "cblas_%s(%d, %d, %d, n %d, k %d, lda %d, ldc %d)", names[r],
             layout, uplo, trans, n, k, lda, ldc);
    line(call, r % 2 == 0, (r >= 2 ? 2 : 1) * 16);
}

static void gemm(int r, int layout, int ta, int tb, int m, int n, int k, int lda, int ldb,
                 int ldc) {
    static const char names[] = "sdcz";
    const double za[2] = {2, 1}, zb[2] = {0.5, -1};
    const float ca[2] = {2, 1}, cb[2] = {0.5, -1};
    fill();
    switch (r) {
    case 0:
        cblas_sgemm(layout, ta, tb, m, n, k, 2, af, lda, bf, ldb, 0.5f, cf, ldc);
        break;
    case 1:
        cblas_dgemm(layout, ta, tb, m, n, k, 2, a, lda, b, ldb, 0.5, c, ldc);
        break;
    case 2:
        cblas_cgemm(layout, ta, tb, m, n, k, ca, af, lda, bf, ldb, cb, cf, ldc);
        break;
    default:
        cblas_zgemm(layout, ta, tb, m, n, k, za, a, lda, b, ldb, zb, c, ldc);
        break;
    }
    char call[128];
    snprintf(call, sizeof call,
             "cblas_%cgemm(%d, %d, %d, m %d, n %d, k %d, lda %d, ldb %d, ldc %d)", names[r], layout,
             ta, tb, m, n, k, lda, ldb, ldc);
    line(call, r % 2 == 0, (r >= 2 ? 2 : 1) * 16);
}

/* One ?trsm/?trmm call (r: 0-3 s, d, c, z trsm, 4-7 trmm) on B = C's array. A's diagonal is
 * 1, 2, 4, 8 (real) so that a solve's divisions are exact. */
static void trsm(int r, int layout, int side, int uplo, int trans, int diag, int m, int n, int lda,
                 int ldb) {
    static const char *names[] = {"strsm", "dtrsm", "ctrsm", "ztrsm",
                                  "strmm", "dtrmm", "ctrmm", "ztrmm"};
    const double za[2] = {2, 1};
    const float ca[2] = {2, 1};
    int t = r % 4, cplx = t >= 2;
    /* Reference cblas_ctrmm (LAPACK 3.11), column-major, reports a bad Diag and then calls
     * ctrmm_ with its Diag letter unset: what follows is undefined there, nothing to compare. */
    if (r == 6 && layout == 102 && side >= 141 && side <= 142 && uplo >= 121 && uplo <= 122 &&
        trans >= 111 && trans <= 113 && (diag < 131 || diag > 132))
        return;
    fill();
    for (int i = 0; i < 4; i++) {
        int at = (i + 4 * i) * (cplx ? 2 : 1);
        a[at] = af[at] = (float)(1 << i);
        if (cplx) a[at + 1] = af[at + 1] = 0;
    }
    if (r < 4) {
        switch (t) {
        case 0:
            cblas_strsm(layout, side, uplo, trans, diag, m, n, 2, af, lda, cf, ldb);
            break;
        case 1:
            cblas_dtrsm(layout, side, uplo, trans, diag, m, n, 2, a, lda, c, ldb);
            break;
        case 2:
            cblas_ctrsm(layout, side, uplo, trans, diag, m, n, ca, af, lda, cf, ldb);
            break;
        default:
            cblas_ztrsm(layout, side, uplo, trans, diag, m, n, za, a, lda, c, ldb);
            break;
        }
    } else {
        switch (t) {
        case 0:
            cblas_strmm(layout, side, uplo, trans, diag, m, n, 2, af, lda, cf, ldb);
            break;
        case 1:
            cblas_dtrmm(layout, side, uplo, trans, diag, m, n, 2, a, lda, c, ldb);
            break;
        case 2:
            cblas_ctrmm(layout, side, uplo, trans, diag, m, n, ca, af, lda, cf, ldb);
            break;
        default:
            cblas_ztrmm(layout, side, uplo, trans, diag, m, n, za, a, lda, c, ldb);
            break;
        }
    }
    char call[128];
    snprintf(call, sizeof call, "cblas_%s(%d, %d, %d, %d, %d, m %d, n %d, lda %d, ldb %d)",
             names[r], layout, side, uplo, trans, diag, m, n, lda, ldb);
    line(call, t % 2 == 0, (cplx ? 2 : 1) * 16);
}

/* One ?symm/?hemm call (r: 0 s, 1 d, 2 c, 3 z symm, 4 c, 5 z hemm). */
static void symm(int r, int layout, int side, int uplo, int m, int n, int lda, int ldb, int ldc) {
    static const char *names[] = {"ssymm", "dsymm", "csymm", "zsymm", "chemm", "zhemm"};
    const double za[2] = {2, 1}, zb[2] = {0.5, -1};
    const float ca[2] = {2, 1}, cb[2] = {0.5, -1};
    fill();
    switch (r) {
    case 0:
        cblas_ssymm(layout, side, uplo, m, n, 2, af, lda, bf, ldb, 0.5f, cf, ldc);
        break;
    case 1:
        cblas_dsymm(layout, side, uplo, m, n, 2, a, lda, b, ldb, 0.5, c, ldc);
        break;
    case 2:
        cblas_csymm(layout, side, uplo, m, n, ca, af, lda, bf, ldb, cb, cf, ldc);
        break;
    case 3:
        cblas_zsymm(layout, side, uplo, m, n, za, a, lda, b, ldb, zb, c, ldc);
        break;
    case 4:
        cblas_chemm(layout, side, uplo, m, n, ca, af, lda, bf, ldb, cb, cf, ldc);
        break;
    default:
        cblas_zhemm(layout, side, uplo, m, n, za, a, lda, b, ldb, zb, c, ldc);
        break;
    }
    char call[128];
    snprintf(call, sizeof call, "cblas_%s(%d, %d, %d, m %d, n %d, lda %d, ldb %d, ldc %d)",
             names[r], layout, side, uplo, m, n, lda, ldb, ldc);
    line(call, r % 2 == 0, (r >= 2 ? 2 : 1) * 16);
}

/* One ?syr2k/?her2k call (r: 0 s, 1 d, 2 c, 3 z syr2k, 4 c, 5 z her2k). */
static void syr2k(int r, int layout, int uplo, int trans, int n, int k, int lda, int ldb, int ldc) {
    static const char *names[] = {"ssyr2k", "dsyr2k", "csyr2k", "zsyr2k", "cher2k", "zher2k"};
    const double za[2] = {2, 1}, zb[2] = {0.5, -1};
    const float ca[2] = {2, 1}, cb[2] = {0.5, -1};
    fill();
    switch (r) {
    case 0:
        cblas_ssyr2k(layout, uplo, trans, n, k, 2, af, lda, bf, ldb, 0.5f, cf, ldc);
        break;
    case 1:
        cblas_dsyr2k(layout, uplo, trans, n, k, 2, a, lda, b, ldb, 0.5, c, ldc);
        break;
    case 2:
        cblas_csyr2k(layout, uplo, trans, n, k, ca, af, lda, bf, ldb, cb, cf, ldc);
        break;
    case 3:
        cblas_zsyr2k(layout, uplo, trans, n, k, za, a, lda, b, ldb, zb, c, ldc);
        break;
    case 4:
        cblas_cher2k(layout, uplo, trans, n, k, ca, af, lda, bf, ldb, 0.5f, cf, ldc);
        break;
    default:
        cblas_zher2k(layout, uplo, trans, n, k, za, a, lda, b, ldb, 0.5, c, ldc);
        break;
    }
    char call[128];
    snprintf(call, sizeof call, "cblas_%s(%d, %d, %d, n %d, k %d, lda %d, ldb %d, ldc %d)",
             names[r], layout, uplo, trans, n, k, lda, ldb, ldc);
    line(call, r % 2 == 0, (r >= 2 ? 2 : 1) * 16);
}

int main(void) {
    for (int r = 0; r < 6; r++) {
        for (int l = 0; l < 3; l++)
            for (int u = 0; u < 3; u++)
                for (int t = 0; t < 4; t++)
                    syrk(r, layouts[l], uplos[u], transes[t], 3, 2, 4, 4);
        /* Bad and unusual sizes in each valid layout, uplo and transpose. */
        for (int l = 0; l < 2; l++)
            for (int u = 0; u < 2; u++)
                for (int t = 0; t < 3; t++) {
                    static const int sizes[][4] = {{-1, 2, 4, 4}, {3, -1, 4, 4}, {3, 2, 1, 4},
                                                   {3, 2, 4, 2},  {0, 2, 4, 1},  {3, 0, 1, 4},
                                                   {3, 2, 2, 4},  {2, 3, 2, 2}};
                    for (int s = 0; s < 8; s++)
                        syrk(r, layouts[l], uplos[u], transes[t], sizes[s][0], sizes[s][1],
                             sizes[s][2], sizes[s][3]);
                }
    }
    for (int r = 0; r < 4; r++) {
        for (int l = 0; l < 3; l++)
            for (int x = 0; x < 4; x++)
                for (int y = 0; y < 4; y++)
                    gemm(r, layouts[l], transes[x], transes[y], 3, 2, 2, 4, 4, 4);
        for (int l = 0; l < 2; l++)
            for (int x = 0; x < 3; x += 2) {
                static const int sizes[][6] = {{-1, 2, 2, 4, 4, 4}, {3, -1, 2, 4, 4, 4},
                                               {3, 2, -1, 4, 4, 4}, {3, 2, 2, 1, 4, 4},
                                               {3, 2, 2, 4, 1, 4},  {3, 2, 2, 4, 4, 1},
                                               {0, 2, 2, 4, 4, 4},  {3, 2, 0, 4, 4, 4}};
                for (int s = 0; s < 8; s++)
                    gemm(r, layouts[l], transes[x], transes[2 - x], sizes[s][0], sizes[s][1],
                         sizes[s][2], sizes[s][3], sizes[s][4], sizes[s][5]);
            }
    }
    for (int r = 0; r < 8; r++) {
        for (int l = 0; l < 3; l++)
            for (int sd = 0; sd < 3; sd++)
                for (int u = 0; u < 3; u++)
                    for (int t = 0; t < 4; t++)
                        for (int d = 0; d < 3; d++)
                            trsm(r, layouts[l], sides[sd], uplos[u], transes[t], diags[d], 3, 2, 4,
                                 4);
        /* Bad sizes in each valid layout and side: the row-major ones are the Fortran call's
         * with M and N swapped (ldb 2 is too small for m 3 only in column-major, ldb 1 for m 0
         * only in row-major). */
        for (int l = 0; l < 2; l++)
            for (int sd = 0; sd < 2; sd++)
                for (int u = 0; u < 2; u++) {
                    static const int sizes[][4] = {{-1, 2, 4, 4}, {3, -1, 4, 4}, {3, 2, 2, 4},
                                                   {3, 2, 4, 2},  {0, 2, 4, 1},  {3, 0, 1, 4},
                                                   {2, 3, 2, 3},  {3, 2, 3, 3}};
                    for (int s = 0; s < 8; s++)
                        trsm(r, layouts[l], sides[sd], uplos[u], transes[s % 3], diags[s % 2],
                             sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3]);
                }
    }
    for (int r = 0; r < 6; r++) {
        for (int l = 0; l < 3; l++)
            for (int sd = 0; sd < 3; sd++)
                for (int u = 0; u < 3; u++)
                    symm(r, layouts[l], sides[sd], uplos[u], 3, 2, 4, 4, 4);
        for (int l = 0; l < 2; l++)
            for (int sd = 0; sd < 2; sd++)
                for (int u = 0; u < 2; u++) {
                    static const int sizes[][5] = {
                        {-1, 2, 4, 4, 4}, {3, -1, 4, 4, 4}, {3, 2, 2, 4, 4}, {3, 2, 4, 2, 4},
                        {3, 2, 4, 4, 2},  {0, 2, 4, 1, 1},  {2, 3, 2, 3, 3}, {3, 2, 3, 3, 3}};
                    for (int s = 0; s < 8; s++)
                        symm(r, layouts[l], sides[sd], uplos[u], sizes[s][0], sizes[s][1],
                             sizes[s][2], sizes[s][3], sizes[s][4]);
                }
    }
    for (int r = 0; r < 6; r++) {
        for (int l = 0; l < 3; l++)
            for (int u = 0; u < 3; u++)
                for (int t = 0; t < 4; t++)
                    syr2k(r, layouts[l], uplos[u], transes[t], 3, 2, 4, 4, 4);
        for (int l = 0; l < 2; l++)
            for (int u = 0; u < 2; u++)
                for (int t = 0; t < 3; t++) {
                    static const int sizes[][5] = {
                        {-1, 2, 4, 4, 4}, {3, -1, 4, 4, 4}, {3, 2, 1, 4, 4}, {3, 2, 4, 1, 4},
                        {3, 2, 4, 4, 2},  {0, 2, 4, 4, 1},  {3, 0, 1, 1, 4}, {2, 3, 2, 2, 2}};
                    for (int s = 0; s < 8; s++)
                        syr2k(r, layouts[l], uplos[u], transes[t], sizes[s][0], sizes[s][1],
                              sizes[s][2], sizes[s][3], sizes[s][4]);
                }
    }
    return 0;
}
