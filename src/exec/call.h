/* call.h: the one call builder of the public entry points, on buffers (entry.c) and on host
 * arrays (host_api.c), for one matrix and for batches. Every entry point names its parameters
 * alike (layout, trans_a, trans_b, m, n, k, alpha, a, off_a, lda, ..., queue, num_wait, wait,
 * event), so these designated initialisers turn them into a gemm_call, and a typed entry point is
 * one line (the *_ENTRY lines of entry.c and host_api.c). */
#ifndef CLGEMM_EXEC_CALL_H
#define CLGEMM_EXEC_CALL_H

#include "exec/exec.h"

/* What every call sets: its types and compute mode, layout, transposes, sizes, leading
 * dimensions, and alpha and beta as real and imaginary parts (the four values after compute_:
 * TYPED_SCALARS or POINTER_SCALARS). */
#define CALL_PROBLEM(type_ab_, type_c_, compute_, ...)                                             \
    CALL_SHAPE(type_ab_, type_c_, compute_), .lda = lda, .ldb = ldb, .ldc = ldc,                   \
                                             CALL_SCALARS_(__VA_ARGS__)
/* Its types, compute mode, layout, transposes and sizes alone (what plans a call). */
#define CALL_SHAPE(type_ab_, type_c_, compute_)                                                    \
    .precision = (type_ab_), .type_c = (type_c_), .compute = (compute_), .layout = layout,         \
    .trans_a = trans_a, .trans_b = trans_b, .m = m, .n = n, .k = k
#define CALL_SCALARS_(are, aim, bre, bim)                                                          \
    .alpha = (are), .alpha_im = (aim), .beta = (bre), .beta_im = (bim)

/* A call on buffers: the buffers, the queue and the events; then the offsets of one matrix (or
 * of matrix 0 of a strided batch), the strides, or a table of offsets and scalars. */
#define CALL_BUFFERS                                                                               \
    .a = a, .b = b, .c = c, .queue = queue, .num_wait = num_wait, .wait = wait, .event = event
#define CALL_OFFSETS .off_a = off_a, .off_b = off_b, .off_c = off_c
#define CALL_STRIDES                                                                               \
    .batched = true, .batch = batch_count, .stride_a = stride_a, .stride_b = stride_b,             \
    .stride_c = stride_c
#define CALL_TABLE(offs_a_, offs_b_, offs_c_)                                                      \
    .batched = true, .batch = batch_count, .offs_a = (offs_a_), .offs_b = (offs_b_),               \
    .offs_c = (offs_c_), .alphas = alphas, .betas = betas

/* The parameter list of the strided-batch entry points on host arrays, on the handle type of one
 * device (clgemm_handle) or of several (clgemm_multi_handle). */
#define STRIDED_HOST_PARAMS(handle_type)                                                           \
    handle_type h, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,       \
        size_t m, size_t n, size_t k, const void *alpha, const void *a, size_t lda,                \
        size_t stride_a, const void *b, size_t ldb, size_t stride_b, const void *beta, void *c,    \
        size_t ldc, size_t stride_c, size_t batch_count, clgemm_precision type_ab,                 \
        clgemm_precision type_c, clgemm_compute compute

/* Scalars of a typed entry point: real types pass alpha and beta as they are (RE, IM), complex
 * ones as cl_float2 / cl_double2 (CRE, CIM). */
#define RE(x)                 (x)
#define IM(x)                 0
#define CRE(x)                (x).s[0]
#define CIM(x)                (x).s[1]
#define TYPED_SCALARS(re, im) re(alpha), im(alpha), re(beta), im(beta)

/* Scalars of an entry point that passes pointers to the arithmetic type of type_ab: checks them
 * and the type, and reads them into s (alpha's real and imaginary part, then beta's). */
static inline clgemm_status clgemm__call_scalars(clgemm_precision type_ab, const void *alpha,
                                                 const void *beta, double s[4]) {
    if (!alpha || !beta) return CLGEMM_ERR_NULL_ARGUMENT;
    if (!clgemm__type(type_ab) || !clgemm__type(type_ab)->ab) return CLGEMM_ERR_INVALID_TYPE;
    clgemm__read_scalar(type_ab, alpha, &s[0], &s[1]);
    clgemm__read_scalar(type_ab, beta, &s[2], &s[3]);
    return CLGEMM_SUCCESS;
}
#define POINTER_SCALARS(s) (s)[0], (s)[1], (s)[2], (s)[3]

#endif /* CLGEMM_EXEC_CALL_H */
