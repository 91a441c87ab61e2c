/* host_api.c: GEMM on plain host arrays, for users who do not manage OpenCL buffers: copy the
 * spans of A and B and the m x n block of C (only when beta != 0) to the device, run the buffer
 * version on the handle's queue, copy the block of C back and return when it holds the result.
 * Only the block is ever written: the gaps of a larger ldc (where other threads may be
 * computing their own blocks of one shared array) stay untouched. */
#include "internal.h"

static clgemm_status upload(cl_context ctx, const void *host, size_t bytes, cl_mem *out) {
    *out = NULL;
    if (bytes == 0) return CLGEMM_SUCCESS;
    cl_int err;
    /* CL_MEM_COPY_HOST_PTR copies now, so the user's array is never written through. */
    *out = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)host, &err);
    return err;
}

static clgemm_status host_gemm(clgemm_handle h, gemm_call *call, const void *a, const void *b,
                               void *c) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    size_t extent[3];
    clgemm_status st = clgemm__check_shape(call, extent);
    if (st != CLGEMM_SUCCESS) return st;
    if ((st = clgemm__check_types(h, call)) != CLGEMM_SUCCESS) return st;
    if (call->m == 0 || call->n == 0) return CLGEMM_SUCCESS;
    if (!c || (extent[0] && !a) || (extent[1] && !b)) return CLGEMM_ERR_NULL_ARGUMENT;
    size_t sizes[3] = {clgemm__type(call->precision)->size, clgemm__type(call->precision)->size,
                       clgemm__type(call->type_c)->size};
    size_t bytes[3];
    for (int i = 0; i < 3; i++)
        if (__builtin_mul_overflow(extent[i], sizes[i], &bytes[i])) return CLGEMM_ERR_OVERFLOW;

    /* On the device C is packed: its leading dimension is the block's width. */
    int row_major = call->layout == CLGEMM_ROW_MAJOR;
    size_t inner = row_major ? call->n : call->m, outer = row_major ? call->m : call->n;
    size_t host_pitch = call->ldc * sizes[2], dev_pitch = inner * sizes[2];
    size_t origin[3] = {0, 0, 0}, region[3] = {dev_pitch, outer, 1};
    cl_mem bufs[3] = {NULL, NULL, NULL};
    cl_int err;
    bufs[2] = clCreateBuffer(h->context, CL_MEM_READ_WRITE, dev_pitch * outer, NULL, &err);
    st = err;
    /* With beta == 0 the kernels do not read C (NaN in it must not leak), so neither do we. */
    if (st == CLGEMM_SUCCESS && (call->beta != 0 || call->beta_im != 0))
        st = clEnqueueWriteBufferRect(h->queue, bufs[2], CL_TRUE, origin, origin, region, dev_pitch,
                                      0, host_pitch, 0, c, 0, NULL, NULL);
    if (st == CLGEMM_SUCCESS) st = upload(h->context, a, bytes[0], &bufs[0]);
    if (st == CLGEMM_SUCCESS) st = upload(h->context, b, bytes[1], &bufs[1]);
    cl_event done = NULL;
    if (st == CLGEMM_SUCCESS) {
        call->a = bufs[0];
        call->b = bufs[1];
        call->c = bufs[2];
        call->ldc = inner;
        call->event = &done;
        st = clgemm__gemm(h, call);
    }
    /* The read waits for the call's event: on an out-of-order queue nothing else orders it
     * after the multiply. */
    if (st == CLGEMM_SUCCESS)
        st = clEnqueueReadBufferRect(h->queue, bufs[2], CL_TRUE, origin, origin, region, dev_pitch,
                                     0, host_pitch, 0, c, 1, &done, NULL);
    if (done) clReleaseEvent(done);
    for (int i = 0; i < 3; i++)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    return st;
}

/* The call of a host entry point, scalars already in (re, im) form. */
#define HOST_CALL(type_ab_, type_c_, compute_, are, aim, bre, bim)                                 \
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
                 .lda = lda,                                                                       \
                 .ldb = ldb,                                                                       \
                 .ldc = ldc})

#define HOST_PARAMS(scalar, elem)                                                                  \
    clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,     \
        size_t m, size_t n, size_t k, scalar alpha, const elem *a, size_t lda, const elem *b,      \
        size_t ldb, scalar beta, elem *c, size_t ldc

clgemm_status clgemm_sgemm_host(HOST_PARAMS(float, float)) {
    gemm_call call = HOST_CALL(CLGEMM_SINGLE, CLGEMM_SINGLE, 0, alpha, 0, beta, 0);
    return host_gemm(h, &call, a, b, c);
}

clgemm_status clgemm_dgemm_host(HOST_PARAMS(double, double)) {
    gemm_call call = HOST_CALL(CLGEMM_DOUBLE, CLGEMM_DOUBLE, 0, alpha, 0, beta, 0);
    return host_gemm(h, &call, a, b, c);
}

clgemm_status clgemm_cgemm_host(HOST_PARAMS(cl_float2, cl_float2)) {
    gemm_call call = HOST_CALL(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, 0, alpha.s[0],
                               alpha.s[1], beta.s[0], beta.s[1]);
    return host_gemm(h, &call, a, b, c);
}

clgemm_status clgemm_zgemm_host(HOST_PARAMS(cl_double2, cl_double2)) {
    gemm_call call = HOST_CALL(CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE, 0, alpha.s[0],
                               alpha.s[1], beta.s[0], beta.s[1]);
    return host_gemm(h, &call, a, b, c);
}

clgemm_status clgemm_hgemm_host(HOST_PARAMS(float, cl_half)) {
    gemm_call call = HOST_CALL(CLGEMM_HALF, CLGEMM_HALF, 0, alpha, 0, beta, 0);
    return host_gemm(h, &call, a, b, c);
}

clgemm_status clgemm_bf16gemm_host(HOST_PARAMS(float, cl_ushort)) {
    gemm_call call = HOST_CALL(CLGEMM_BFLOAT16, CLGEMM_BFLOAT16, 0, alpha, 0, beta, 0);
    return host_gemm(h, &call, a, b, c);
}

clgemm_status clgemm_gemm_ex_host(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                                  clgemm_transpose trans_b, size_t m, size_t n, size_t k,
                                  const void *alpha, const void *a, size_t lda, const void *b,
                                  size_t ldb, const void *beta, void *c, size_t ldc,
                                  clgemm_precision type_ab, clgemm_precision type_c,
                                  clgemm_compute compute) {
    if (!alpha || !beta) return CLGEMM_ERR_NULL_ARGUMENT;
    if (!clgemm__type(type_ab)) return CLGEMM_ERR_INVALID_TYPE;
    double are, aim, bre, bim;
    clgemm__read_scalar(type_ab, alpha, &are, &aim);
    clgemm__read_scalar(type_ab, beta, &bre, &bim);
    gemm_call call = HOST_CALL(type_ab, type_c, compute, are, aim, bre, bim);
    return host_gemm(h, &call, a, b, c);
}
