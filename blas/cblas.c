/* cblas.c: the CBLAS entry points cblas_sgemm ... cblas_zgemm, with reference CBLAS's checks
 * and error numbers. A row-major call is the column-major call of the transposed problem
 * (C^T = op(B)^T op(A)^T), exactly as reference CBLAS forwards it to Fortran, so its error
 * numbers are those of that call plus one (see report.c for how they are mapped back). */
#include "blas.h"

enum { ROW_MAJOR = 101, COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113 };

static char trans_char(int t) {
    return t == NO_TRANS ? 'N' : t == TRANS ? 'T' : t == CONJ_TRANS ? 'C' : 0;
}

static void gemm(blas_type type, int layout, int trans_a, int trans_b, int m, int n, int k,
                 const void *alpha, const void *a, int lda, const void *b, int ldb,
                 const void *beta, void *c, int ldc) {
    int row_major = layout == ROW_MAJOR;
    int info = 0;
    char ta = trans_char(trans_a), tb = trans_char(trans_b);
    if (layout != ROW_MAJOR && layout != COL_MAJOR)
        info = 1;
    else if (!ta)
        info = 2;
    else if (!tb)
        info = 3;
    blas_call call = {.type = type, .alpha = alpha, .beta = beta, .c = c, .ldc = ldc, .k = k};
    if (!info && !row_major) {
        call.ta = ta, call.tb = tb, call.m = m, call.n = n;
        call.a = a, call.lda = lda, call.b = b, call.ldb = ldb;
    } else if (!info) {
        call.ta = tb, call.tb = ta, call.m = n, call.n = m;
        call.a = b, call.lda = ldb, call.b = a, call.ldb = lda;
    }
    if (!info) {
        info = clgemm__blas_check(&call);
        if (info) info++; /* the order argument comes first */
    }
    if (info) {
        clgemm__blas_count(type, ROUTE_ERROR);
        clgemm__blas_cblas_xerbla(type, info, row_major && info > 1);
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
