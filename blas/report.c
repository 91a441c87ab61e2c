/* report.c: argument errors reported as reference BLAS and CBLAS do, through the xerbla_ and
 * cblas_xerbla of the process (a program's own) or of the system BLAS. This library has no
 * handler of its own: reference BLAS's prints and stops the program, a program may define one
 * that does something else (R, LAPACK's testers and many Fortran codes do), and without any the
 * call just returns with C untouched.
 *
 * Reference CBLAS reports only the order and transpose arguments itself (cblas_xerbla); every
 * other bad argument reaches its Fortran ?gemm_, whose xerbla_ gets the Fortran routine name and
 * the Fortran parameter number, with CBLAS_CallFromC and RowMajorStrg set so that the system's
 * xerbla_ can word it as a CBLAS error. The same happens here. */
#include "blas.h"

#include <stddef.h>

typedef void (*xerbla_fn)(const char *name, const int *info, size_t len);
typedef void (*cblas_xerbla_fn)(int info, const char *rout, const char *form, ...);

/* Weak references: a program that defines these and links this library gets its definitions
 * exported (the linker exports what a shared library refers to), so they are found below even
 * in a program that does not export its symbols otherwise. */
extern void xerbla_(const char *name, const int *info, size_t len) __attribute__((weak));
extern void cblas_xerbla(int info, const char *rout, const char *form, ...) __attribute__((weak));

static xerbla_fn find_xerbla(void) {
    return xerbla_ ? xerbla_ : (xerbla_fn)clgemm__blas_system_symbol("xerbla_");
}

static cblas_xerbla_fn find_cblas_xerbla(void) {
    return cblas_xerbla ? cblas_xerbla
                        : (cblas_xerbla_fn)clgemm__blas_system_symbol("cblas_xerbla");
}

/* Sets a global int of the system CBLAS (NULL if it has none); returns its previous value. */
static int set_flag(int *flag, int value) {
    int old = flag ? *flag : 0;
    if (flag) *flag = value;
    return old;
}

void clgemm__blas_xerbla(blas_type t, int info) {
    char name[7] = "?GEMM ";
    name[0] = (char)(clgemm__blas_letter(t) - 'a' + 'A');
    clgemm__blas_xerbla_named(name, info);
}

void clgemm__blas_xerbla_named(const char *name, int info) {
    if (clgemm__blas_settings()->log >= 2) clgemm__blas_log("%.5s: bad argument %d", name, info);
    xerbla_fn f = find_xerbla();
    if (f) f(name, &info, 6);
}

void clgemm__blas_cblas_fortran_error(blas_type t, int info, int row_major) {
    char name[7] = "?GEMM ";
    name[0] = (char)(clgemm__blas_letter(t) - 'a' + 'A');
    clgemm__blas_cblas_fortran_error_named(name, info, row_major);
}

void clgemm__blas_cblas_fortran_error_named(const char *name, int info, int row_major) {
    int *from_c = (int *)clgemm__blas_system_symbol("CBLAS_CallFromC");
    int *row = (int *)clgemm__blas_system_symbol("RowMajorStrg");
    int saved_from_c = set_flag(from_c, 1), saved_row = set_flag(row, row_major);
    clgemm__blas_xerbla_named(name, info);
    set_flag(from_c, saved_from_c);
    set_flag(row, saved_row);
}

void clgemm__blas_cblas_xerbla_named(const char *rout, int info, int row_major, const char *form,
                                     int value) {
    if (clgemm__blas_settings()->log >= 2) clgemm__blas_log("%s: bad argument %d", rout, info);
    cblas_xerbla_fn f = find_cblas_xerbla();
    if (!f) return;
    /* Reference CBLAS marks a row-major call in its global RowMajorStrg, from which its
     * cblas_xerbla (and netlib's test version of it) maps the info number of the transposed
     * Fortran call back to the C argument; set it the same way around the report. */
    int *row = (int *)clgemm__blas_system_symbol("RowMajorStrg");
    int saved = set_flag(row, row_major);
    f(info, rout, form, value);
    set_flag(row, saved);
}
