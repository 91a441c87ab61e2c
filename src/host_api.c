/* host_api.c: GEMM on plain host arrays, for users who do not manage OpenCL buffers: copy the
 * spans of A, B and C to the device, run the buffer version on the handle's queue, copy C back
 * and return when it holds the result. */
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
    if (call->precision == CLGEMM_DOUBLE && !h->info.has_fp64) return CLGEMM_ERR_NO_FP64;
    if (call->m == 0 || call->n == 0) return CLGEMM_SUCCESS;
    if (!c || (extent[0] && !a) || (extent[1] && !b)) return CLGEMM_ERR_NULL_ARGUMENT;
    size_t real = clgemm__real_size(call->precision);
    size_t bytes[3];
    for (int i = 0; i < 3; i++)
        if (__builtin_mul_overflow(extent[i], real, &bytes[i])) return CLGEMM_ERR_OVERFLOW;

    cl_mem bufs[3] = {NULL, NULL, NULL};
    /* C is uploaded even when beta == 0: the copy back covers the gaps between columns (ldc
     * larger than needed), which must come back as they were. */
    st = upload(h->context, c, bytes[2], &bufs[2]);
    if (st == CLGEMM_SUCCESS) st = upload(h->context, a, bytes[0], &bufs[0]);
    if (st == CLGEMM_SUCCESS) st = upload(h->context, b, bytes[1], &bufs[1]);
    cl_event done = NULL;
    if (st == CLGEMM_SUCCESS) {
        call->a = bufs[0];
        call->b = bufs[1];
        call->c = bufs[2];
        call->event = &done;
        st = clgemm__gemm(h, call);
    }
    /* The read waits for the call's event: on an out-of-order queue nothing else orders it
     * after the multiply. */
    if (st == CLGEMM_SUCCESS)
        st = clEnqueueReadBuffer(h->queue, bufs[2], CL_TRUE, 0, bytes[2], c, 1, &done, NULL);
    if (done) clReleaseEvent(done);
    for (int i = 0; i < 3; i++)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    return st;
}

clgemm_status clgemm_sgemm_host(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                                clgemm_transpose trans_b, size_t m, size_t n, size_t k, float alpha,
                                const float *a, size_t lda, const float *b, size_t ldb, float beta,
                                float *c, size_t ldc) {
    gemm_call call = {.precision = CLGEMM_SINGLE,
                      .layout = layout,
                      .trans_a = trans_a,
                      .trans_b = trans_b,
                      .m = m,
                      .n = n,
                      .k = k,
                      .alpha = alpha,
                      .beta = beta,
                      .lda = lda,
                      .ldb = ldb,
                      .ldc = ldc};
    return host_gemm(h, &call, a, b, c);
}

clgemm_status clgemm_dgemm_host(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                                clgemm_transpose trans_b, size_t m, size_t n, size_t k,
                                double alpha, const double *a, size_t lda, const double *b,
                                size_t ldb, double beta, double *c, size_t ldc) {
    gemm_call call = {.precision = CLGEMM_DOUBLE,
                      .layout = layout,
                      .trans_a = trans_a,
                      .trans_b = trans_b,
                      .m = m,
                      .n = n,
                      .k = k,
                      .alpha = alpha,
                      .beta = beta,
                      .lda = lda,
                      .ldb = ldb,
                      .ldc = ldc};
    return host_gemm(h, &call, a, b, c);
}
