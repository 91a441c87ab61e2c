/* report.c: argument errors reported as reference BLAS and CBLAS do, through the xerbla_ and
 * cblas_xerbla of the process (a test program's own) or of the system BLAS. This library has
 * no handler of its own: reference BLAS's prints and stops the program, a program may define
 * one that does something else, and without any the call just returns with C untouched. */
#include "blas.h"

#include <stddef.h>

typedef void (*xerbla_fn)(const char *name, const int *info, size_t len);
typedef void (*cblas_xerbla_fn)(int info, const char *rout, const char *form, ...);

void clgemm__blas_xerbla(blas_type t, int info) {
    char name[7] = "?GEMM ";
    name[0] = (char)(clgemm__blas_letter(t) - 'a' + 'A');
    clgemm__blas_xerbla_named(name, info);
}

void clgemm__blas_xerbla_named(const char *name, int info) {
    if (clgemm__blas_settings()->log >= 2) clgemm__blas_log("%.5s: bad argument %d", name, info);
    xerbla_fn f = (xerbla_fn)clgemm__blas_system_symbol("xerbla_");
    if (f) f(name, &info, 6);
}

void clgemm__blas_cblas_xerbla(blas_type t, int info, int row_major) {
    char rout[] = "cblas_?gemm";
    rout[6] = clgemm__blas_letter(t);
    clgemm__blas_cblas_xerbla_named(rout, info, row_major);
}

void clgemm__blas_cblas_xerbla_named(const char *rout, int info, int row_major) {
    if (clgemm__blas_settings()->log >= 2) clgemm__blas_log("%s: bad argument %d", rout, info);
    cblas_xerbla_fn f = (cblas_xerbla_fn)clgemm__blas_system_symbol("cblas_xerbla");
    if (!f) return;
    /* Reference CBLAS marks a row-major call in its global RowMajorStrg, from which its
     * cblas_xerbla (and netlib's test version of it) maps the info number of the transposed
     * Fortran call back to the C argument; set it the same way around the report. */
    int *row_major_flag = (int *)clgemm__blas_system_symbol("RowMajorStrg");
    int saved = row_major_flag ? *row_major_flag : 0;
    if (row_major_flag) *row_major_flag = row_major;
    f(info, rout, "");
    if (row_major_flag) *row_major_flag = saved;
}
