/* fortran.c: the Fortran 77 entry points sgemm_, dgemm_, cgemm_, zgemm_ (gfortran's calling
 * convention: every argument by reference, the lengths of the character arguments last). */
#include "blas.h"

static void gemm(blas_type type, const char *ta, const char *tb, const int *m, const int *n,
                 const int *k, const void *alpha, const void *a, const int *lda, const void *b,
                 const int *ldb, const void *beta, void *c, const int *ldc) {
    blas_call call = {.type = type,
                      .ta = *ta,
                      .tb = *tb,
                      .m = *m,
                      .n = *n,
                      .k = *k,
                      .alpha = alpha,
                      .a = a,
                      .lda = *lda,
                      .b = b,
                      .ldb = *ldb,
                      .beta = beta,
                      .c = c,
                      .ldc = *ldc};
    int info = clgemm__blas_check(&call);
    if (info) {
        clgemm__blas_count(type, ROUTE_ERROR);
        clgemm__blas_xerbla(type, info);
        return;
    }
    clgemm__blas_run(&call);
}

#define FORTRAN_GEMM(name, type, T)                                                                \
    BLAS_EXPORT void name(const char *ta, const char *tb, const int *m, const int *n,              \
                          const int *k, const T *alpha, const T *a, const int *lda, const T *b,    \
                          const int *ldb, const T *beta, T *c, const int *ldc, size_t la,          \
                          size_t lb);                                                              \
    void name(const char *ta, const char *tb, const int *m, const int *n, const int *k,            \
              const T *alpha, const T *a, const int *lda, const T *b, const int *ldb,              \
              const T *beta, T *c, const int *ldc, size_t la, size_t lb) {                         \
        (void)la;                                                                                  \
        (void)lb;                                                                                  \
        gemm(type, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                          \
    }

/* Complex arrays are pairs (real, imaginary) of the real type. */
FORTRAN_GEMM(sgemm_, BLAS_S, float)
FORTRAN_GEMM(dgemm_, BLAS_D, double)
FORTRAN_GEMM(cgemm_, BLAS_C, float)
FORTRAN_GEMM(zgemm_, BLAS_Z, double)
