/* level3_fortran.h: the Fortran Level-3 entry points beyond ?gemm as the drop-in's tests call
 * them: every array and scalar a void pointer, so one table of each kind serves all four types
 * (the trailing size_t arguments are the character lengths gfortran passes). */
#ifndef CLGEMM_TESTS_BLAS_LEVEL3_FORTRAN_H
#define CLGEMM_TESTS_BLAS_LEVEL3_FORTRAN_H

#include <stddef.h>

/* ?trsm / ?trmm: side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb. */
typedef void (*tr_fn)(const char *, const char *, const char *, const char *, const int *,
                      const int *, const void *, const void *, const int *, void *, const int *,
                      size_t, size_t, size_t, size_t);
/* ?symm / ?hemm: side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc; ?syr2k / ?her2k: uplo,
 * trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc. */
typedef void (*mm_fn)(const char *, const char *, const int *, const int *, const void *,
                      const void *, const int *, const void *, const int *, const void *, void *,
                      const int *, size_t, size_t);
/* ?syrk / ?herk: uplo, trans, n, k, alpha, A, lda, beta, C, ldc. */
typedef void (*rk_fn)(const char *, const char *, const int *, const int *, const void *,
                      const void *, const int *, const void *, void *, const int *, size_t, size_t);

void strsm_(void), dtrsm_(void), ctrsm_(void), ztrsm_(void);
void strmm_(void), dtrmm_(void), ctrmm_(void), ztrmm_(void);
void ssymm_(void), dsymm_(void), csymm_(void), zsymm_(void), chemm_(void), zhemm_(void);
void ssyr2k_(void), dsyr2k_(void), csyr2k_(void), zsyr2k_(void), cher2k_(void), zher2k_(void);
void cherk_(void), zherk_(void);

#endif /* CLGEMM_TESTS_BLAS_LEVEL3_FORTRAN_H */
