/* cblas.c: the CBLAS entry points cblas_sgemm ... cblas_zgemm, with reference CBLAS's checks
 * and error reports. A row-major call is the column-major call of the transposed problem
 * (C^T = op(B)^T op(A)^T), exactly as reference CBLAS forwards it to Fortran, so its errors
 * past the transposes are that call's, reported through xerbla_ (see report.c). */
#include "blas.h"

enum { ROW_MAJOR = 101 };

static void gemm(blas_type type, int layout, int trans_a, int trans_b, int m, int n, int k,
                 const void *alpha, const void *a, int lda, const void *b, int ldb,
                 const void *beta, void *c, int ldc) {
    int row_major = layout == ROW_MAJOR;
    char rout[] = "cblas_?gemm", t[2];
    rout[6] = clgemm__blas_letter(type);
    /* Reference CBLAS's map (LAPACK 3.11): a row-major call with a bad TransB reports 2, as its
     * row-major branch passes 2 for both transposes. */
    const cblas_letter args[2] = {{trans_a, 111, "NTC", "NTC", 2, 2, "TransA"},
                                  {trans_b, 111, "NTC", "NTC", 3, 2, "TransB"}};
    if (clgemm__blas_cblas_letters(rout, layout, 2, args, t)) {
        clgemm__blas_count(type, ROUTE_ERROR);
        return;
    }
    char ta = t[0], tb = t[1];
    blas_call call = {.type = type, .alpha = alpha, .beta = beta, .c = c, .ldc = ldc, .k = k};
    if (!row_major) {
        call.ta = ta, call.tb = tb, call.m = m, call.n = n;
        call.a = a, call.lda = lda, call.b = b, call.ldb = ldb;
    } else {
        call.ta = tb, call.tb = ta, call.m = n, call.n = m;
        call.a = b, call.lda = ldb, call.b = a, call.ldb = lda;
    }
    /* Everything else is the Fortran call's to report, as in reference CBLAS. */
    int info = clgemm__blas_check(&call);
    if (info) {
        clgemm__blas_count(type, ROUTE_ERROR);
        clgemm__blas_cblas_fortran_error(type, info, row_major);
        return;
    }
    clgemm__blas_run(&call);
}

#define CBLAS_REAL(name, type, T)                                                                  \
    BLAS_EXPORT void name(int layout, int ta, int tb, int m, int n, int k, T alpha, const T *a,    \
                          int lda, const T *b, int ldb, T beta, T *c, int ldc);                    \
    void name(int layout, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda,       \
              const T *b, int ldb, T beta, T *c, int ldc) {                                        \
        gemm(type, layout, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);                \
    }

/* CBLAS passes complex alpha and beta by pointer. */
#define CBLAS_COMPLEX(name, type)                                                                  \
    BLAS_EXPORT void name(int layout, int ta, int tb, int m, int n, int k, const void *alpha,      \
                          const void *a, int lda, const void *b, int ldb, const void *beta,        \
                          void *c, int ldc);                                                       \
    void name(int layout, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,   \
              int lda, const void *b, int ldb, const void *beta, void *c, int ldc) {               \
        gemm(type, layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                  \
    }

CBLAS_REAL(cblas_sgemm, BLAS_S, float)
CBLAS_REAL(cblas_dgemm, BLAS_D, double)
CBLAS_COMPLEX(cblas_cgemm, BLAS_C)
CBLAS_COMPLEX(cblas_zgemm, BLAS_Z)
