/* cblas_args.c: the CBLAS layer's own argument step, one for every Level-3 CBLAS routine of the
 * drop-in (cblas_?gemm, ?syrk, ?herk, ?trsm, ?trmm, ?symm, ?hemm, ?syr2k, ?her2k). Reference
 * CBLAS (LAPACK 3.11, as Debian 12 ships it) checks only the layout and the letter arguments
 * (side, uplo, transposes, diagonal) itself: each layout maps every CBLAS value it knows to the
 * letter of the column-major Fortran call (row-major: the other side, the other triangle, for
 * ?gemm/?syrk/?herk/?syr2k/?her2k the other transpose), and a value it does not know goes to
 * cblas_xerbla with the number that layout's code uses (row-major ?syrk/?herk/?syr2k say 3 for
 * a bad Uplo, as there). A letter the map gives is passed on even where the Fortran routine
 * refuses it (column-major zsyrk 'C', zherk 'T', csyr2k 'C', cher2k 'T'): the Fortran check then
 * reports it through xerbla_, as reference CBLAS's call of that routine does, so a program's own
 * xerbla_ sees it and the program goes on. */
#include "blas.h"

#include <stdio.h>
#include <string.h>

enum { ROW_MAJOR = 101, COL_MAJOR = 102 };

int clgemm__blas_cblas_letters(const char *rout, int layout, int count, const cblas_letter *args,
                               char *out) {
    int row_major = layout == ROW_MAJOR;
    if (!row_major && layout != COL_MAJOR) {
        clgemm__blas_cblas_xerbla_named(rout, 1, 0, "Illegal layout setting, %d\n", layout);
        return 1;
    }
    for (int i = 0; i < count; i++) {
        const cblas_letter *a = &args[i];
        const char *map = row_major ? a->row : a->col;
        int at = a->value - a->first;
        out[i] = at >= 0 && at < (int)strlen(map) ? map[at] : 0;
        if (!out[i]) {
            char form[64];
            snprintf(form, sizeof form, "Illegal %s setting, %%d\n", a->name);
            int info = row_major ? a->info_row : a->info_col;
            clgemm__blas_cblas_xerbla_named(rout, info, row_major, form, a->value);
            return info;
        }
    }
    return 0;
}
