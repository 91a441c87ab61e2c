/* entry.c: the public GEMM entry points on OpenCL buffers. Each fills one gemm_call (the types,
 * and alpha / beta as double real and imaginary parts) and hands it to clgemm__gemm. */
#include "exec/exec.h"

/* The call of a buffer entry point, scalars already in (re, im) form. */
#define BUFFER_CALL(type_ab_, type_c_, compute_, are, aim, bre, bim)                               \
    ((gemm_call){.precision = (type_ab_),                                                          \
                 .type_c = (type_c_),                                                              \
                 .compute = (compute_),                                                            \
                 .layout = layout,                                                                 \
                 .trans_a = trans_a,                                                               \
                 .trans_b = trans_b,                                                               \
                 .m = m,                                                                           \
                 .n = n,                                                                           \
                 .k = k,                                                                           \
                 .alpha = (are),                                                                   \
                 .alpha_im = (aim),                                                                \
                 .beta = (bre),                                                                    \
                 .beta_im = (bim),                                                                 \
                 .a = a,                                                                           \
                 .b = b,                                                                           \
                 .c = c,                                                                           \
                 .off_a = off_a,                                                                   \
                 .off_b = off_b,                                                                   \
                 .off_c = off_c,                                                                   \
                 .lda = lda,                                                                       \
                 .ldb = ldb,                                                                       \
                 .ldc = ldc,                                                                       \
                 .queue = queue,                                                                   \
                 .num_wait = num_wait,                                                             \
                 .wait = wait,                                                                     \
                 .event = event})

/* The parameter list every buffer entry point shares, with its scalar type. */
#define BUFFER_PARAMS(scalar)                                                                      \
    clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,     \
        size_t m, size_t n, size_t k, scalar alpha, cl_mem a, size_t off_a, size_t lda, cl_mem b,  \
        size_t off_b, size_t ldb, scalar beta, cl_mem c, size_t off_c, size_t ldc,                 \
        cl_command_queue queue, cl_uint num_wait, const cl_event *wait, cl_event *event

clgemm_status clgemm_sgemm(BUFFER_PARAMS(float)) {
    gemm_call call = BUFFER_CALL(CLGEMM_SINGLE, CLGEMM_SINGLE, 0, alpha, 0, beta, 0);
    return clgemm__gemm(h, &call);
}

clgemm_status clgemm_dgemm(BUFFER_PARAMS(double)) {
    gemm_call call = BUFFER_CALL(CLGEMM_DOUBLE, CLGEMM_DOUBLE, 0, alpha, 0, beta, 0);
    return clgemm__gemm(h, &call);
}

clgemm_status clgemm_cgemm(BUFFER_PARAMS(cl_float2)) {
    gemm_call call = BUFFER_CALL(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, 0, alpha.s[0],
                                 alpha.s[1], beta.s[0], beta.s[1]);
    return clgemm__gemm(h, &call);
}

clgemm_status clgemm_zgemm(BUFFER_PARAMS(cl_double2)) {
    gemm_call call = BUFFER_CALL(CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE, 0, alpha.s[0],
                                 alpha.s[1], beta.s[0], beta.s[1]);
    return clgemm__gemm(h, &call);
}

clgemm_status clgemm_hgemm(BUFFER_PARAMS(float)) {
    gemm_call call = BUFFER_CALL(CLGEMM_HALF, CLGEMM_HALF, 0, alpha, 0, beta, 0);
    return clgemm__gemm(h, &call);
}

clgemm_status clgemm_bf16gemm(BUFFER_PARAMS(float)) {
    gemm_call call = BUFFER_CALL(CLGEMM_BFLOAT16, CLGEMM_BFLOAT16, 0, alpha, 0, beta, 0);
    return clgemm__gemm(h, &call);
}

clgemm_status clgemm_gemm_ex(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                             clgemm_transpose trans_b, size_t m, size_t n, size_t k,
                             const void *alpha, cl_mem a, size_t off_a, size_t lda, cl_mem b,
                             size_t off_b, size_t ldb, const void *beta, cl_mem c, size_t off_c,
                             size_t ldc, clgemm_precision type_ab, clgemm_precision type_c,
                             clgemm_compute compute, cl_command_queue queue, cl_uint num_wait,
                             const cl_event *wait, cl_event *event) {
    if (!alpha || !beta) return CLGEMM_ERR_NULL_ARGUMENT;
    if (!clgemm__type(type_ab)) return CLGEMM_ERR_INVALID_TYPE;
    double are, aim, bre, bim;
    clgemm__read_scalar(type_ab, alpha, &are, &aim);
    clgemm__read_scalar(type_ab, beta, &bre, &bim);
    gemm_call call = BUFFER_CALL(type_ab, type_c, compute, are, aim, bre, bim);
    return clgemm__gemm(h, &call);
}

/* ---- Batches ----------------------------------------------------------------------------- */

/* A strided batch: the buffer call plus the strides. */
#define STRIDED_CALL(type_ab_, type_c_, compute_, are, aim, bre, bim)                              \
    gemm_call call = BUFFER_CALL(type_ab_, type_c_, compute_, are, aim, bre, bim);                 \
    call.batched = true;                                                                           \
    call.batch = batch_count;                                                                      \
    call.stride_a = stride_a;                                                                      \
    call.stride_b = stride_b;                                                                      \
    call.stride_c = stride_c

clgemm_status clgemm_gemm_strided_batched(
    clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,
    size_t m, size_t n, size_t k, const void *alpha, cl_mem a, size_t off_a, size_t lda,
    size_t stride_a, cl_mem b, size_t off_b, size_t ldb, size_t stride_b, const void *beta,
    cl_mem c, size_t off_c, size_t ldc, size_t stride_c, size_t batch_count,
    clgemm_precision type_ab, clgemm_precision type_c, clgemm_compute compute,
    cl_command_queue queue, cl_uint num_wait, const cl_event *wait, cl_event *event) {
    if (!alpha || !beta) return CLGEMM_ERR_NULL_ARGUMENT;
    if (!clgemm__type(type_ab)) return CLGEMM_ERR_INVALID_TYPE;
    double are, aim, bre, bim;
    clgemm__read_scalar(type_ab, alpha, &are, &aim);
    clgemm__read_scalar(type_ab, beta, &bre, &bim);
    STRIDED_CALL(type_ab, type_c, compute, are, aim, bre, bim);
    return clgemm__gemm(h, &call);
}

/* A batch with per-matrix offsets and scalars (the offsets of BUFFER_CALL are 0). */
static clgemm_status table_call(clgemm_handle h, gemm_call *call, const size_t *off_a,
                                const size_t *off_b, const size_t *off_c, const void *alphas,
                                const void *betas, size_t batch_count) {
    call->batched = true;
    call->batch = batch_count;
    call->offs_a = off_a;
    call->offs_b = off_b;
    call->offs_c = off_c;
    call->alphas = alphas;
    call->betas = betas;
    /* Every pointer is needed, even for an empty batch (BLAS checks arguments first). */
    if (!off_a || !off_b || !off_c || !alphas || !betas) return CLGEMM_ERR_NULL_ARGUMENT;
    return clgemm__gemm(h, call);
}

clgemm_status clgemm_gemm_batched(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                                  clgemm_transpose trans_b, size_t m, size_t n, size_t k,
                                  const void *alphas, cl_mem a, const size_t *offs_a, size_t lda,
                                  cl_mem b, const size_t *offs_b, size_t ldb, const void *betas,
                                  cl_mem c, const size_t *offs_c, size_t ldc, size_t batch_count,
                                  clgemm_precision type_ab, clgemm_precision type_c,
                                  clgemm_compute compute, cl_command_queue queue, cl_uint num_wait,
                                  const cl_event *wait, cl_event *event) {
    if (!clgemm__type(type_ab)) return CLGEMM_ERR_INVALID_TYPE;
    const size_t off_a = 0, off_b = 0, off_c = 0;
    gemm_call call = BUFFER_CALL(type_ab, type_c, compute, 0, 0, 0, 0);
    return table_call(h, &call, offs_a, offs_b, offs_c, alphas, betas, batch_count);
}

#define STRIDED_TYPED(name, type, scalar, re, im)                                                  \
    clgemm_status name(CLGEMM_STRIDED_BATCHED_PARAMS(scalar)) {                                    \
        clgemm_handle h = handle;                                                                  \
        STRIDED_CALL(type, type, 0, re(alpha), im(alpha), re(beta), im(beta));                     \
        return clgemm__gemm(h, &call);                                                             \
    }
#define BATCHED_TYPED(name, type, scalar)                                                          \
    clgemm_status name(CLGEMM_BATCHED_PARAMS(scalar)) {                                            \
        return clgemm_gemm_batched(handle, layout, trans_a, trans_b, m, n, k, alphas, a, off_a,    \
                                   lda, b, off_b, ldb, betas, c, off_c, ldc, batch_count, type,    \
                                   type, CLGEMM_COMPUTE_DEFAULT, queue, num_wait, wait, event);    \
    }
#define RE(x)  (x)
#define IM(x)  0
#define CRE(x) (x).s[0]
#define CIM(x) (x).s[1]

STRIDED_TYPED(clgemm_sgemm_strided_batched, CLGEMM_SINGLE, float, RE, IM)
STRIDED_TYPED(clgemm_dgemm_strided_batched, CLGEMM_DOUBLE, double, RE, IM)
STRIDED_TYPED(clgemm_cgemm_strided_batched, CLGEMM_COMPLEX_SINGLE, cl_float2, CRE, CIM)
STRIDED_TYPED(clgemm_zgemm_strided_batched, CLGEMM_COMPLEX_DOUBLE, cl_double2, CRE, CIM)
STRIDED_TYPED(clgemm_hgemm_strided_batched, CLGEMM_HALF, float, RE, IM)
BATCHED_TYPED(clgemm_sgemm_batched, CLGEMM_SINGLE, float)
BATCHED_TYPED(clgemm_dgemm_batched, CLGEMM_DOUBLE, double)
BATCHED_TYPED(clgemm_cgemm_batched, CLGEMM_COMPLEX_SINGLE, cl_float2)
BATCHED_TYPED(clgemm_zgemm_batched, CLGEMM_COMPLEX_DOUBLE, cl_double2)
BATCHED_TYPED(clgemm_hgemm_batched, CLGEMM_HALF, float)
