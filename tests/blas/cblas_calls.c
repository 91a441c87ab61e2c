/* cblas_calls.c: every layout, uplo and transpose value (valid, invalid, and the letters a
 * Fortran routine refuses) and the bad sizes of cblas_?gemm, cblas_?syrk and cblas_?herk, one
 * line per call: which handler the error reached (the program's own xerbla_ or cblas_xerbla),
 * its routine, number and message, and every element of C afterwards. Built twice, against the
 * drop-in and against reference CBLAS (LAPACK 3.11, by its path), and the two outputs must be
 * the same (cblas_against_reference.sh): what is computed, refused, with which number, by which
 * error routine. Data are small integers, so every BLAS computes the results exactly. */
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
    return 0;
}
