/* host_api.c: GEMM on plain host arrays, for users who do not manage OpenCL buffers: copy the
 * spans of A and B and the m x n block of C (only when beta != 0) to the device, run the buffer
 * version on the handle's queue, copy the block of C back and return when it holds the result.
 * Only the block is ever written: the gaps of a larger ldc (where other threads may be
 * computing their own blocks of one shared array) stay untouched. Batches do the same for each
 * matrix: C's blocks travel packed, so interleaved matrices of one array (another thread's
 * between them) are never overwritten with old values. */
#include "exec/call.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static clgemm_status upload(cl_context ctx, const void *host, size_t bytes, cl_mem *out) {
    *out = NULL;
    if (bytes == 0) return CLGEMM_SUCCESS;
    cl_int err;
    /* CL_MEM_COPY_HOST_PTR copies now, so the user's array is never written through. */
    *out = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)host, &err);
    return err;
}

clgemm_status clgemm__host_gemm(clgemm_handle h, gemm_call *call, const void *a, const void *b,
                                void *c) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    /* The handle's queue, or (multi.c) another queue of its context for the whole call. */
    cl_command_queue queue = call->queue ? call->queue : h->queue;
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
        st = clEnqueueWriteBufferRect(queue, bufs[2], CL_TRUE, origin, origin, region, dev_pitch, 0,
                                      host_pitch, 0, c, 0, NULL, NULL);
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
        st = clEnqueueReadBufferRect(queue, bufs[2], CL_TRUE, origin, origin, region, dev_pitch, 0,
                                     host_pitch, 0, c, 1, &done, NULL);
    if (done) clReleaseEvent(done);
    for (int i = 0; i < 3; i++)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    return st;
}

#define HOST_PARAMS(scalar, elem)                                                                  \
    clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,     \
        size_t m, size_t n, size_t k, scalar alpha, const elem *a, size_t lda, const elem *b,      \
        size_t ldb, scalar beta, elem *c, size_t ldc

/* Typed entry points: A, B and C of one type (elem), the default compute mode. */
#define HOST_ENTRY(name, type, scalar, elem, re, im)                                               \
    clgemm_status name(HOST_PARAMS(scalar, elem)) {                                                \
        gemm_call call = {CALL_PROBLEM(type, type, 0, TYPED_SCALARS(re, im))};                     \
        return clgemm__host_gemm(h, &call, a, b, c);                                               \
    }

HOST_ENTRY(clgemm_sgemm_host, CLGEMM_SINGLE, float, float, RE, IM)
HOST_ENTRY(clgemm_dgemm_host, CLGEMM_DOUBLE, double, double, RE, IM)
HOST_ENTRY(clgemm_cgemm_host, CLGEMM_COMPLEX_SINGLE, cl_float2, cl_float2, CRE, CIM)
HOST_ENTRY(clgemm_zgemm_host, CLGEMM_COMPLEX_DOUBLE, cl_double2, cl_double2, CRE, CIM)
HOST_ENTRY(clgemm_hgemm_host, CLGEMM_HALF, float, cl_half, RE, IM)
HOST_ENTRY(clgemm_bf16gemm_host, CLGEMM_BFLOAT16, float, cl_ushort, RE, IM)

clgemm_status clgemm_i8gemm_host(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                                 clgemm_transpose trans_b, size_t m, size_t n, size_t k,
                                 cl_int alpha, const cl_char *a, size_t lda, const cl_char *b,
                                 size_t ldb, cl_int beta, cl_int *c, size_t ldc) {
    gemm_call call = {CALL_PROBLEM(CLGEMM_INT8, CLGEMM_INT32, 0, TYPED_SCALARS(RE, IM))};
    return clgemm__host_gemm(h, &call, a, b, c);
}

/* Scales folded into alpha as in clgemm_fp8gemm. */
clgemm_status clgemm_fp8gemm_host(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                                  clgemm_transpose trans_b, size_t m, size_t n, size_t k,
                                  float alpha, float scale_a, float scale_b, const cl_uchar *a,
                                  size_t lda, const cl_uchar *b, size_t ldb, float beta, void *c,
                                  size_t ldc, clgemm_precision type_ab, clgemm_precision type_c) {
    if (type_ab != CLGEMM_E4M3 && type_ab != CLGEMM_E5M2) return CLGEMM_ERR_INVALID_TYPE;
    gemm_call call = {
        CALL_PROBLEM(type_ab, type_c, 0, (double)alpha * scale_a * scale_b, 0, beta, 0)};
    return clgemm__host_gemm(h, &call, a, b, c);
}

clgemm_status clgemm_gemm_ex_host(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                                  clgemm_transpose trans_b, size_t m, size_t n, size_t k,
                                  const void *alpha, const void *a, size_t lda, const void *b,
                                  size_t ldb, const void *beta, void *c, size_t ldc,
                                  clgemm_precision type_ab, clgemm_precision type_c,
                                  clgemm_compute compute) {
    double s[4];
    clgemm_status st = clgemm__call_scalars(type_ab, alpha, beta, s);
    if (st != CLGEMM_SUCCESS) return st;
    gemm_call call = {CALL_PROBLEM(type_ab, type_c, compute, POINTER_SCALARS(s))};
    return clgemm__host_gemm(h, &call, a, b, c);
}

/* ---- Batches on host arrays ------------------------------------------------------------- */

/* Elements from the first element of matrix 0 to one past the last of matrix batch - 1. */
static clgemm_status batch_span(size_t extent, size_t stride, size_t batch, size_t *span) {
    *span = 0;
    if (extent == 0 || batch == 0) return CLGEMM_SUCCESS;
    if (__builtin_mul_overflow(batch - 1, stride, span) ||
        __builtin_add_overflow(*span, extent, span))
        return CLGEMM_ERR_OVERFLOW;
    return CLGEMM_SUCCESS;
}

/* Copies the inner x outer blocks of a batch of host matrices C (matrix i at table[i], or at
 * base + i * stride elements when table is NULL; leading dimension ld) to or from `packed`, where
 * they lie one after another without gaps. Only the blocks' own elements are touched: the gaps
 * of a larger ld, and the space between matrices, may be another thread's (interleaved
 * matrices, row blocks of one array). Towards the device, a matrix whose beta (betas[i], scalars
 * of type's arithmetic; NULL: all are non-zero) is 0 is not read: its block is zeroed. */
static void copy_blocks(char *packed, int to_host, void *const *table, char *base, size_t stride,
                        size_t batch, size_t inner, size_t outer, size_t ld, size_t size,
                        const void *betas, clgemm_precision type) {
    size_t row = inner * size;
    for (size_t i = 0; i < batch; i++) {
        char *host = table ? (char *)table[i] : base + i * stride * size;
        double re = 1, im = 0;
        if (betas && !to_host)
            clgemm__read_scalar(type, (const char *)betas + i * clgemm__scalar_size(type), &re,
                                &im);
        for (size_t o = 0; o < outer; o++, packed += row) {
            char *h = host + o * ld * size;
            if (to_host)
                memcpy(h, packed, row);
            else if (re != 0 || im != 0)
                memcpy(packed, h, row);
            else
                memset(packed, 0, row);
        }
    }
}

clgemm_status clgemm_gemm_strided_batched_host(STRIDED_HOST_PARAMS(clgemm_handle)) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    double s[4];
    clgemm_status st = clgemm__call_scalars(type_ab, alpha, beta, s);
    if (st != CLGEMM_SUCCESS) return st;
    gemm_call call = {CALL_PROBLEM(type_ab, type_c, compute, POINTER_SCALARS(s)), CALL_STRIDES};
    size_t extent[3];
    st = clgemm__check_shape(&call, extent);
    if (st != CLGEMM_SUCCESS) return st;
    if ((st = clgemm__check_types(h, &call)) != CLGEMM_SUCCESS) return st;
    if (m == 0 || n == 0 || batch_count == 0) return CLGEMM_SUCCESS;
    if (!c || (extent[0] && !a) || (extent[1] && !b)) return CLGEMM_ERR_NULL_ARGUMENT;
    /* Checked here, on the user's layout of C: the device holds C packed. */
    if ((st = clgemm__check_overlap(&call, extent[2])) != CLGEMM_SUCCESS) return st;
    const size_t strides[3] = {stride_a, stride_b, stride_c};
    size_t sizes[3] = {clgemm__type(type_ab)->size, clgemm__type(type_ab)->size,
                       clgemm__type(type_c)->size};
    size_t bytes[3];
    for (int i = 0; i < 2; i++)
        if ((st = batch_span(extent[i], strides[i], batch_count, &bytes[i])) != CLGEMM_SUCCESS ||
            __builtin_mul_overflow(bytes[i], sizes[i], &bytes[i]))
            return st ? st : CLGEMM_ERR_OVERFLOW;
    /* The span of C still has to lie in the address space, although only its blocks move. */
    size_t span_c;
    if ((st = batch_span(extent[2], stride_c, batch_count, &span_c)) != CLGEMM_SUCCESS ||
        __builtin_mul_overflow(span_c, sizes[2], &span_c))
        return st ? st : CLGEMM_ERR_OVERFLOW;
    /* On the device C is packed: matrix i at i * inner * outer, leading dimension inner. A and
     * B are only read, so their spans go up whole. */
    size_t inner = layout == CLGEMM_ROW_MAJOR ? n : m, outer = layout == CLGEMM_ROW_MAJOR ? m : n;
    if (__builtin_mul_overflow(inner * outer, sizes[2], &bytes[2]) ||
        __builtin_mul_overflow(bytes[2], batch_count, &bytes[2]))
        return CLGEMM_ERR_OVERFLOW;
    char *packed = malloc(bytes[2]);
    if (!packed) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    cl_mem bufs[3] = {NULL, NULL, NULL};
    cl_int err;
    /* With beta == 0 the kernels do not read C (NaN in it must not leak), so neither do we. */
    if (call.beta != 0 || call.beta_im != 0) {
        copy_blocks(packed, 0, NULL, c, stride_c, batch_count, inner, outer, ldc, sizes[2], NULL,
                    type_ab);
        st = upload(h->context, packed, bytes[2], &bufs[2]);
    } else {
        bufs[2] = clCreateBuffer(h->context, CL_MEM_READ_WRITE, bytes[2], NULL, &err);
        st = err;
    }
    if (st == CLGEMM_SUCCESS) st = upload(h->context, a, bytes[0], &bufs[0]);
    if (st == CLGEMM_SUCCESS) st = upload(h->context, b, bytes[1], &bufs[1]);
    cl_event done = NULL;
    if (st == CLGEMM_SUCCESS) {
        call.a = bufs[0];
        call.b = bufs[1];
        call.c = bufs[2];
        call.ldc = inner;
        call.stride_c = inner * outer;
        call.event = &done;
        st = clgemm__gemm(h, &call);
    }
    /* The read waits for the call's event: on an out-of-order queue nothing else orders it
     * after the multiply. */
    if (st == CLGEMM_SUCCESS)
        st = clEnqueueReadBuffer(h->queue, bufs[2], CL_TRUE, 0, bytes[2], packed, 1, &done, NULL);
    if (st == CLGEMM_SUCCESS)
        copy_blocks(packed, 1, NULL, c, stride_c, batch_count, inner, outer, ldc, sizes[2], NULL,
                    type_ab);
    if (done) clReleaseEvent(done);
    for (int i = 0; i < 3; i++)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    free(packed);
    return st;
}

static int compare_address(const void *x, const void *y) {
    uintptr_t a = *(const uintptr_t *)x, b = *(const uintptr_t *)y;
    return a < b ? -1 : a > b;
}

/* Whether the host matrices c[0 .. batch - 1] (extent elements of `size` bytes, inner x outer
 * stored with leading dimension ld) share an element (sorted, so each is compared only with
 * those that start inside its span). Pointers a non-multiple of `size` apart count as
 * overlapping when their spans do. */
static clgemm_status host_overlap(void *const *c, size_t batch, size_t extent, size_t size,
                                  size_t inner, size_t outer, size_t ld) {
    uintptr_t *p = malloc(batch * sizeof *p);
    if (!p) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < batch; i++)
        p[i] = (uintptr_t)c[i];
    qsort(p, batch, sizeof *p, compare_address);
    clgemm_status st = CLGEMM_SUCCESS;
    for (size_t i = 0; i < batch && st == CLGEMM_SUCCESS; i++)
        for (size_t j = i + 1; j < batch && p[j] - p[i] < extent * size; j++) {
            uintptr_t d = p[j] - p[i];
            if (d % size || clgemm__matrices_overlap(d / size, inner, outer, ld)) {
                st = CLGEMM_ERR_BATCH_OVERLAP;
                break;
            }
        }
    free(p);
    return st;
}

clgemm_status clgemm_gemm_batched_host(clgemm_handle h, clgemm_layout layout,
                                       clgemm_transpose trans_a, clgemm_transpose trans_b, size_t m,
                                       size_t n, size_t k, const void *alphas, const void *const *a,
                                       size_t lda, const void *const *b, size_t ldb,
                                       const void *betas, void *const *c, size_t ldc,
                                       size_t batch_count, clgemm_precision type_ab,
                                       clgemm_precision type_c, clgemm_compute compute) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    if (!alphas || !betas || !a || !b || !c) return CLGEMM_ERR_NULL_ARGUMENT;
    if (!clgemm__type(type_ab) || !clgemm__type(type_ab)->ab) return CLGEMM_ERR_INVALID_TYPE;
    /* alpha 1 for the extents: each matrix has its own alpha, so A and B count whenever k > 0. */
    gemm_call call = {CALL_PROBLEM(type_ab, type_c, compute, 1, 0, 0, 0)};
    size_t extent[3];
    clgemm_status st = clgemm__check_shape(&call, extent);
    if (st != CLGEMM_SUCCESS) return st;
    if ((st = clgemm__check_types(h, &call)) != CLGEMM_SUCCESS) return st;
    if (m == 0 || n == 0 || batch_count == 0) return CLGEMM_SUCCESS;
    const void *const *src[3] = {a, b, (const void *const *)c};
    for (size_t i = 0; i < batch_count; i++)
        for (int x = 0; x < 3; x++)
            if (extent[x] && !src[x][i]) return CLGEMM_ERR_NULL_ARGUMENT;
    size_t sizes[3] = {clgemm__type(type_ab)->size, clgemm__type(type_ab)->size,
                       clgemm__type(type_c)->size};
    size_t inner = layout == CLGEMM_ROW_MAJOR ? n : m, outer = layout == CLGEMM_ROW_MAJOR ? m : n;
    if ((st = host_overlap(c, batch_count, extent[2], sizes[2], inner, outer, ldc))) return st;
    /* Matrices are packed one after another into one staging array each, uploaded in one
     * copy: A and B whole (matrix i at i * extent), C only its blocks (matrix i at
     * i * inner * outer, leading dimension inner), so the gaps of ldc are neither read nor
     * written. */
    size_t packed[3] = {extent[0], extent[1], extent[2] ? inner * outer : 0};
    size_t bytes[3];
    for (int x = 0; x < 3; x++)
        if (__builtin_mul_overflow(packed[x], sizes[x], &bytes[x]) ||
            __builtin_mul_overflow(bytes[x], batch_count, &bytes[x]))
            return CLGEMM_ERR_OVERFLOW;
    size_t *offs = malloc(3 * batch_count * sizeof *offs);
    char *stage[3] = {NULL, NULL, NULL};
    for (int x = 0; x < 3; x++)
        if (bytes[x] && !(stage[x] = malloc(bytes[x]))) st = CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    if (!offs) st = CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    cl_mem bufs[3] = {NULL, NULL, NULL};
    cl_event done = NULL;
    if (st == CLGEMM_SUCCESS) {
        for (int x = 0; x < 3; x++)
            for (size_t i = 0; i < batch_count; i++) {
                offs[x * batch_count + i] = i * packed[x];
                if (x < 2 && extent[x])
                    memcpy(stage[x] + i * extent[x] * sizes[x], src[x][i], extent[x] * sizes[x]);
            }
        copy_blocks(stage[2], 0, c, NULL, 0, batch_count, inner, outer, ldc, sizes[2], betas,
                    type_ab);
        for (int x = 0; x < 3 && st == CLGEMM_SUCCESS; x++)
            st = upload(h->context, stage[x], bytes[x], &bufs[x]);
    }
    if (st == CLGEMM_SUCCESS) {
        call.a = bufs[0];
        call.b = bufs[1];
        call.c = bufs[2];
        call.event = &done;
        call.batched = true;
        call.batch = batch_count;
        call.offs_a = offs;
        call.offs_b = offs + batch_count;
        call.offs_c = offs + 2 * batch_count;
        call.ldc = inner;
        call.alphas = alphas;
        call.betas = betas;
        st = clgemm__gemm(h, &call);
    }
    if (st == CLGEMM_SUCCESS)
        st = clEnqueueReadBuffer(h->queue, bufs[2], CL_TRUE, 0, bytes[2], stage[2], 1, &done, NULL);
    if (st == CLGEMM_SUCCESS)
        copy_blocks(stage[2], 1, c, NULL, 0, batch_count, inner, outer, ldc, sizes[2], NULL,
                    type_ab);
    if (done) clReleaseEvent(done);
    for (int x = 0; x < 3; x++) {
        if (bufs[x]) clReleaseMemObject(bufs[x]);
        free(stage[x]);
    }
    free(offs);
    return st;
}
