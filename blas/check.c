/* check.c: reference BLAS's argument checks for ?GEMM, in its order and with its INFO
 * numbers (1 TRANSA, 2 TRANSB, 3 M, 4 N, 5 K, 8 LDA, 10 LDB, 13 LDC). */
#include "blas.h"

/* LSAME: case-insensitive; returns the upper-case letter, or 0 for anything else. */
static char trans_letter(char t) {
    if (t >= 'a' && t <= 'z') t = (char)(t - 'a' + 'A');
    return t == 'N' || t == 'T' || t == 'C' ? t : 0;
}

static int max1(int x) {
    return x > 1 ? x : 1;
}

int clgemm__blas_check(blas_call *call) {
    char ta = trans_letter(call->ta), tb = trans_letter(call->tb);
    if (!ta) return 1;
    if (!tb) return 2;
    call->ta = ta;
    call->tb = tb;
    if (call->m < 0) return 3;
    if (call->n < 0) return 4;
    if (call->k < 0) return 5;
    int nrowa = ta == 'N' ? call->m : call->k;
    int nrowb = tb == 'N' ? call->k : call->n;
    if (call->lda < max1(nrowa)) return 8;
    if (call->ldb < max1(nrowb)) return 10;
    if (call->ldc < max1(call->m)) return 13;
    return 0;
}
