/* host.c: the host side of the drop-in, below both the dispatcher and the device path (which
 * sends the tiles the device could not finish here): a call on the system BLAS, else on plain
 * GEMM loops, the last resort when neither the device nor a system BLAS can take it; C = beta *
 * C (reference BLAS's path for alpha == 0 or k == 0, which never reads A or B); the test of a
 * scalar against 0 or 1; and a BLAS transpose letter as clgemm's value (both device paths). */
#include "blas.h"

#include <complex.h>

/* Element (i, j) of op(X) for X stored column-major with leading dimension ld. */
#define OP(X, t, ld, i, j)                                                                         \
    ((t) == 'N' ? (X)[(i) + (size_t)(j) * (ld)] : (X)[(j) + (size_t)(i) * (ld)])

#define DEFINE_REAL(name, T)                                                                       \
    static void name(const blas_call *c) {                                                         \
        const T *a = c->a, *b = c->b, alpha = *(const T *)c->alpha, beta = *(const T *)c->beta;    \
        T *cc = c->c;                                                                              \
        for (int j = 0; j < c->n; j++)                                                             \
            for (int i = 0; i < c->m; i++) {                                                       \
                T sum = 0;                                                                         \
                for (int p = 0; p < c->k; p++)                                                     \
                    sum += OP(a, c->ta, c->lda, i, p) * OP(b, c->tb, c->ldb, p, j);                \
                T *out = &cc[i + (size_t)j * c->ldc];                                              \
                /* beta == 0: C is not read, as in reference BLAS (NaN there is overwritten). */   \
                *out = beta == 0 ? alpha * sum : alpha * sum + beta * *out;                        \
            }                                                                                      \
    }

#define DEFINE_COMPLEX(name, T)                                                                    \
    static void name(const blas_call *c) {                                                         \
        const T *a = c->a, *b = c->b, alpha = *(const T *)c->alpha, beta = *(const T *)c->beta;    \
        T *cc = c->c;                                                                              \
        for (int j = 0; j < c->n; j++)                                                             \
            for (int i = 0; i < c->m; i++) {                                                       \
                T sum = 0;                                                                         \
                for (int p = 0; p < c->k; p++) {                                                   \
                    T x = OP(a, c->ta, c->lda, i, p), y = OP(b, c->tb, c->ldb, p, j);              \
                    if (c->ta == 'C') x = conj(x);                                                 \
                    if (c->tb == 'C') y = conj(y);                                                 \
                    sum += x * y;                                                                  \
                }                                                                                  \
                T *out = &cc[i + (size_t)j * c->ldc];                                              \
                *out = beta == 0 ? alpha * sum : alpha * sum + beta * *out;                        \
            }                                                                                      \
    }

DEFINE_REAL(gemm_s, float)
DEFINE_REAL(gemm_d, double)
DEFINE_COMPLEX(gemm_c, float complex)
DEFINE_COMPLEX(gemm_z, double complex)

void clgemm__blas_host_gemm(const blas_call *call) {
    static void (*const fns[BLAS_TYPE_COUNT])(const blas_call *) = {gemm_s, gemm_d, gemm_c, gemm_z};
    fns[call->type](call);
}

#define DEFINE_SCALE(name, T)                                                                      \
    static void name(const blas_call *c) {                                                         \
        T beta = *(const T *)c->beta, *cc = c->c;                                                  \
        for (int j = 0; j < c->n; j++)                                                             \
            for (int i = 0; i < c->m; i++) {                                                       \
                T *out = &cc[i + (size_t)j * c->ldc];                                              \
                *out = beta == 0 ? 0 : beta * *out;                                                \
            }                                                                                      \
    }

DEFINE_SCALE(scale_s, float)
DEFINE_SCALE(scale_d, double)
DEFINE_SCALE(scale_c, float complex)
DEFINE_SCALE(scale_z, double complex)

void clgemm__blas_scale_c(const blas_call *call) {
    static void (*const fns[BLAS_TYPE_COUNT])(const blas_call *) = {scale_s, scale_d, scale_c,
                                                                    scale_z};
    fns[call->type](call);
}

int clgemm__blas_scalar_is(blas_type t, const void *x, double v) {
    switch (t) {
    case BLAS_S:
        return *(const float *)x == v;
    case BLAS_D:
        return *(const double *)x == v;
    case BLAS_C:
        return ((const float *)x)[0] == v && ((const float *)x)[1] == 0;
    default:
        return ((const double *)x)[0] == v && ((const double *)x)[1] == 0;
    }
}

/* The system BLAS if one was loaded, else the built-in loops. */
void clgemm__blas_run_host(const blas_call *call) {
    blas_gemm_fn f = clgemm__blas_system_gemm(call->type);
    if (!f) {
        clgemm__blas_count(call->type, ROUTE_BUILTIN);
        clgemm__blas_host_gemm(call);
        return;
    }
    clgemm__blas_count(call->type, ROUTE_SYSTEM);
    f(&call->ta, &call->tb, &call->m, &call->n, &call->k, call->alpha, call->a, &call->lda, call->b,
      &call->ldb, call->beta, call->c, &call->ldc, 1, 1);
}

clgemm_transpose clgemm__blas_trans(blas_type t, char c) {
    if (c == 'N') return CLGEMM_NO_TRANS;
    return c == 'C' && (t == BLAS_C || t == BLAS_Z) ? CLGEMM_CONJ_TRANS : CLGEMM_TRANS;
}
