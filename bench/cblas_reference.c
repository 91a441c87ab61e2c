/* cblas_reference.c: a CBLAS library (OpenBLAS by default, opened by cblas_loader.c) as
 * clgemm-bench's reference. It times cblas_sgemm/cblas_dgemm on the host copies of the same A
 * and B, in the same process, right after clgemm's call on that problem; cblas_cgemm and
 * cblas_zgemm (alpha and beta by pointer) for the complex types, cblas_sbgemm (BF16 A and B,
 * FP32 C: OpenBLAS 0.3.10 and later) for BF16. */
#include "bench.h"
#include "cblas_loader.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static cblas_lib cblas;

bool cblas_reference_open(const char *path, char *describe, size_t size) {
    return cblas_lib_open(&cblas, path, "clgemm-bench", describe, size);
}

typedef struct cblas_ctx {
    const problem *p;
    const buffers *b;
    void *c;
} cblas_ctx;

static int cblas_call(void *ctx) {
    cblas_ctx *x = ctx;
    const problem *p = x->p;
    const buffers *b = x->b;
    int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    static const double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
    static const float onef[2] = {1.0f, 0.0f}, zerof[2] = {0.0f, 0.0f};
    if (p->precision == CLGEMM_COMPLEX_SINGLE)
        cblas.cgemm((int)p->layout, (int)p->trans_a, (int)p->trans_b, m, n, k, onef, b->host_a,
                    (int)b->lda, b->host_b, (int)b->ldb, zerof, x->c, (int)b->ldc);
    else if (p->precision == CLGEMM_COMPLEX_DOUBLE)
        cblas.zgemm((int)p->layout, (int)p->trans_a, (int)p->trans_b, m, n, k, one, b->host_a,
                    (int)b->lda, b->host_b, (int)b->ldb, zero, x->c, (int)b->ldc);
    else if (p->precision == CLGEMM_BFLOAT16)
        cblas.sbgemm((int)p->layout, (int)p->trans_a, (int)p->trans_b, m, n, k, 1.0f, b->host_a,
                     (int)b->lda, b->host_b, (int)b->ldb, 0.0f, x->c, (int)b->ldc);
    else if (p->precision == CLGEMM_DOUBLE)
        cblas.dgemm((int)p->layout, (int)p->trans_a, (int)p->trans_b, m, n, k, 1.0, b->host_a,
                    (int)b->lda, b->host_b, (int)b->ldb, 0.0, x->c, (int)b->ldc);
    else
        cblas.sgemm((int)p->layout, (int)p->trans_a, (int)p->trans_b, m, n, k, 1.0f, b->host_a,
                    (int)b->lda, b->host_b, (int)b->ldb, 0.0f, x->c, (int)b->ldc);
    return 0;
}

measurement run_cblas(const bench_ctx *bc, const problem *p, const buffers *b, int runs,
                      void *host_c) {
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX || b->lda > INT32_MAX ||
        b->ldb > INT32_MAX || b->ldc > INT32_MAX)
        return (measurement){.ran = true, .status = CLGEMM_ERR_TOO_LARGE};
    if ((p->precision == CLGEMM_COMPLEX_SINGLE && !cblas.cgemm) ||
        (p->precision == CLGEMM_COMPLEX_DOUBLE && !cblas.zgemm))
        return (measurement){.ran = true, .status = CLGEMM_ERR_INVALID_ARGUMENT};
    if (p->precision == CLGEMM_BFLOAT16 && !cblas.sbgemm) {
        static bool said;
        if (!said)
            fprintf(stderr,
                    "clgemm-bench: %s has no cblas_sbgemm (BF16: OpenBLAS 0.3.10 and later): BF16 "
                    "rows have no reference\n",
                    cblas.path);
        said = true;
        return (measurement){.ran = true, .status = CLGEMM_ERR_INVALID_TYPE};
    }
    const bool dbl = precision_double(p->precision);
    const size_t components =
        precision_c_bytes(p->precision) / (dbl ? sizeof(double) : sizeof(float));
    for (size_t i = 0; i < b->c_elems * components; i++) /* poison: one that writes nothing fails */
        if (dbl)
            ((double *)host_c)[i] = NAN;
        else
            ((float *)host_c)[i] = NAN;
    cblas_ctx ctx = {p, b, host_c};
    return time_calls(cblas_call, &ctx, bc->queue, runs,
                      problem_flops(p)); /* clFinish of an idle queue */
}
