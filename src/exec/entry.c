/* entry.c: the public GEMM entry points on OpenCL buffers. Each builds one gemm_call from its
 * parameters (call.h) and hands it to clgemm__gemm. */
#include "exec/call.h"

/* The parameter list every buffer entry point shares, with its scalar type. */
#define BUFFER_PARAMS(scalar)                                                                      \
    clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,     \
        size_t m, size_t n, size_t k, scalar alpha, cl_mem a, size_t off_a, size_t lda, cl_mem b,  \
        size_t off_b, size_t ldb, scalar beta, cl_mem c, size_t off_c, size_t ldc,                 \
        cl_command_queue queue, cl_uint num_wait, const cl_event *wait, cl_event *event

/* Typed entry points: A and B of one type, C of its default C type (the type itself, INT32 for
 * INT8), the default compute mode. */
#define BUFFER_ENTRY(name, type, scalar, re, im)                                                   \
    clgemm_status name(BUFFER_PARAMS(scalar)) {                                                    \
        gemm_call call = {CALL_PROBLEM(type, clgemm__type(type)->c, 0, TYPED_SCALARS(re, im)),     \
                          CALL_BUFFERS, CALL_OFFSETS};                                             \
        return clgemm__gemm(h, &call);                                                             \
    }
#define STRIDED_ENTRY(name, type, scalar, re, im)                                                  \
    clgemm_status name(CLGEMM_STRIDED_BATCHED_PARAMS(scalar)) {                                    \
        gemm_call call = {CALL_PROBLEM(type, clgemm__type(type)->c, 0, TYPED_SCALARS(re, im)),     \
                          CALL_BUFFERS, CALL_OFFSETS, CALL_STRIDES};                               \
        return clgemm__gemm(handle, &call);                                                        \
    }
#define BATCHED_ENTRY(name, type, scalar)                                                          \
    clgemm_status name(CLGEMM_BATCHED_PARAMS(scalar)) {                                            \
        return clgemm_gemm_batched(handle, layout, trans_a, trans_b, m, n, k, alphas, a, off_a,    \
                                   lda, b, off_b, ldb, betas, c, off_c, ldc, batch_count, type,    \
                                   clgemm__type(type)->c, CLGEMM_COMPUTE_DEFAULT, queue, num_wait, \
                                   wait, event);                                                   \
    }

/* The scales fold into alpha (clgemm.h, CLGEMM_E4M3): computed in double, rounded once when the
 * kernel gets its FP32 alpha. */
clgemm_status clgemm_fp8gemm(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                             clgemm_transpose trans_b, size_t m, size_t n, size_t k, float alpha,
                             float scale_a, float scale_b, cl_mem a, size_t off_a, size_t lda,
                             cl_mem b, size_t off_b, size_t ldb, float beta, cl_mem c, size_t off_c,
                             size_t ldc, clgemm_precision type_ab, clgemm_precision type_c,
                             cl_command_queue queue, cl_uint num_wait, const cl_event *wait,
                             cl_event *event) {
    if (type_ab != CLGEMM_E4M3 && type_ab != CLGEMM_E5M2) return CLGEMM_ERR_INVALID_TYPE;
    gemm_call call = {
        CALL_PROBLEM(type_ab, type_c, 0, (double)alpha * scale_a * scale_b, 0, beta, 0),
        CALL_BUFFERS, CALL_OFFSETS};
    return clgemm__gemm(h, &call);
}

clgemm_status clgemm_gemm_ex(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                             clgemm_transpose trans_b, size_t m, size_t n, size_t k,
                             const void *alpha, cl_mem a, size_t off_a, size_t lda, cl_mem b,
                             size_t off_b, size_t ldb, const void *beta, cl_mem c, size_t off_c,
                             size_t ldc, clgemm_precision type_ab, clgemm_precision type_c,
                             clgemm_compute compute, cl_command_queue queue, cl_uint num_wait,
                             const cl_event *wait, cl_event *event) {
    double s[4];
    clgemm_status st = clgemm__call_scalars(type_ab, alpha, beta, s);
    if (st != CLGEMM_SUCCESS) return st;
    gemm_call call = {CALL_PROBLEM(type_ab, type_c, compute, POINTER_SCALARS(s)), CALL_BUFFERS,
                      CALL_OFFSETS};
    return clgemm__gemm(h, &call);
}

/* ---- Batches ----------------------------------------------------------------------------- */

clgemm_status clgemm_gemm_strided_batched(
    clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,
    size_t m, size_t n, size_t k, const void *alpha, cl_mem a, size_t off_a, size_t lda,
    size_t stride_a, cl_mem b, size_t off_b, size_t ldb, size_t stride_b, const void *beta,
    cl_mem c, size_t off_c, size_t ldc, size_t stride_c, size_t batch_count,
    clgemm_precision type_ab, clgemm_precision type_c, clgemm_compute compute,
    cl_command_queue queue, cl_uint num_wait, const cl_event *wait, cl_event *event) {
    double s[4];
    clgemm_status st = clgemm__call_scalars(type_ab, alpha, beta, s);
    if (st != CLGEMM_SUCCESS) return st;
    gemm_call call = {CALL_PROBLEM(type_ab, type_c, compute, POINTER_SCALARS(s)), CALL_BUFFERS,
                      CALL_OFFSETS, CALL_STRIDES};
    return clgemm__gemm(h, &call);
}

/* A batch with per-matrix offsets and scalars (the scalars of CALL_PROBLEM are unused). */
clgemm_status clgemm_gemm_batched(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                                  clgemm_transpose trans_b, size_t m, size_t n, size_t k,
                                  const void *alphas, cl_mem a, const size_t *offs_a, size_t lda,
                                  cl_mem b, const size_t *offs_b, size_t ldb, const void *betas,
                                  cl_mem c, const size_t *offs_c, size_t ldc, size_t batch_count,
                                  clgemm_precision type_ab, clgemm_precision type_c,
                                  clgemm_compute compute, cl_command_queue queue, cl_uint num_wait,
                                  const cl_event *wait, cl_event *event) {
    if (!clgemm__type(type_ab) || !clgemm__type(type_ab)->ab) return CLGEMM_ERR_INVALID_TYPE;
    /* Every pointer is needed, even for an empty batch (BLAS checks arguments first). */
    if (!offs_a || !offs_b || !offs_c || !alphas || !betas) return CLGEMM_ERR_NULL_ARGUMENT;
    gemm_call call = {CALL_PROBLEM(type_ab, type_c, compute, 0, 0, 0, 0), CALL_BUFFERS,
                      CALL_TABLE(offs_a, offs_b, offs_c)};
    return clgemm__gemm(h, &call);
}

/* The typed entry points of one type: one matrix, a strided batch and a batch with a table. */
#define TYPED_ENTRIES(prefix, type, scalar, re, im)                                                \
    BUFFER_ENTRY(prefix, type, scalar, re, im)                                                     \
    STRIDED_ENTRY(prefix##_strided_batched, type, scalar, re, im)                                  \
    BATCHED_ENTRY(prefix##_batched, type, scalar)

TYPED_ENTRIES(clgemm_sgemm, CLGEMM_SINGLE, float, RE, IM)
TYPED_ENTRIES(clgemm_dgemm, CLGEMM_DOUBLE, double, RE, IM)
TYPED_ENTRIES(clgemm_cgemm, CLGEMM_COMPLEX_SINGLE, cl_float2, CRE, CIM)
TYPED_ENTRIES(clgemm_zgemm, CLGEMM_COMPLEX_DOUBLE, cl_double2, CRE, CIM)
TYPED_ENTRIES(clgemm_hgemm, CLGEMM_HALF, float, RE, IM)
TYPED_ENTRIES(clgemm_i8gemm, CLGEMM_INT8, cl_int, RE, IM)
BUFFER_ENTRY(clgemm_bf16gemm, CLGEMM_BFLOAT16, float, RE, IM) /* BF16 has no typed batches */
