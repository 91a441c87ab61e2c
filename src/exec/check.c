/* check.c: every argument of a GEMM call checked before anything is enqueued: layout,
 * transposes, leading dimensions, size_t overflow, the kernels' int range, the buffers (context,
 * CL_MEM_SIZE), the queue, the wait list, the types against the device, batch bounds and
 * overlap. A failure is a status; the user's buffers are never touched. */
#include "exec/exec.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The largest m, n or k: INT_MAX less the largest tile or slice (PARAM_MAX in families/registry.c).
 */
#define MAX_DIM (INT_MAX - 1024)

static bool layout_ok(clgemm_layout l) {
    return l == CLGEMM_ROW_MAJOR || l == CLGEMM_COL_MAJOR;
}

static bool trans_ok(clgemm_transpose t) {
    return t == CLGEMM_NO_TRANS || t == CLGEMM_TRANS || t == CLGEMM_CONJ_TRANS;
}

/* A matrix stored as rows x cols in `layout` with leading dimension ld: checks ld and returns
 * the number of elements from the first to one past the last (0 for an empty matrix). */
static clgemm_status stored_extent(clgemm_layout layout, size_t rows, size_t cols, size_t ld,
                                   clgemm_status bad_ld, size_t *extent) {
    size_t inner = layout == CLGEMM_ROW_MAJOR ? cols : rows;
    size_t outer = layout == CLGEMM_ROW_MAJOR ? rows : cols;
    if (ld < (inner > 1 ? inner : 1)) return bad_ld;
    *extent = 0;
    if (rows == 0 || cols == 0) return CLGEMM_SUCCESS;
    size_t span;
    if (__builtin_mul_overflow(outer - 1, ld, &span) || __builtin_add_overflow(span, inner, extent))
        return CLGEMM_ERR_OVERFLOW;
    return CLGEMM_SUCCESS;
}

clgemm_status clgemm__check_shape(const gemm_call *c, size_t extent[3]) {
    if (!layout_ok(c->layout)) return CLGEMM_ERR_INVALID_LAYOUT;
    if (!trans_ok(c->trans_a) || !trans_ok(c->trans_b)) return CLGEMM_ERR_INVALID_TRANSPOSE;
    bool ta = c->trans_a != CLGEMM_NO_TRANS, tb = c->trans_b != CLGEMM_NO_TRANS;
    /* BLAS checks leading dimensions even when there is nothing to compute. */
    clgemm_status st = stored_extent(c->layout, ta ? c->k : c->m, ta ? c->m : c->k, c->lda,
                                     CLGEMM_ERR_INVALID_LD_A, &extent[0]);
    if (st == CLGEMM_SUCCESS)
        st = stored_extent(c->layout, tb ? c->n : c->k, tb ? c->k : c->n, c->ldb,
                           CLGEMM_ERR_INVALID_LD_B, &extent[1]);
    if (st == CLGEMM_SUCCESS)
        st = stored_extent(c->layout, c->m, c->n, c->ldc, CLGEMM_ERR_INVALID_LD_C, &extent[2]);
    if (st != CLGEMM_SUCCESS) return st;
    if (c->m == 0 || c->n == 0 || c->k == 0 || (c->alpha == 0 && c->alpha_im == 0))
        extent[0] = extent[1] = 0;
    /* The kernels index with int: every span must fit, and every dimension with room for one
     * more tile or slice past its end (loop bounds step past the last index). */
    if (c->m > MAX_DIM || c->n > MAX_DIM || c->k > MAX_DIM) return CLGEMM_ERR_TOO_LARGE;
    for (int i = 0; i < 3; i++)
        if (extent[i] > INT_MAX) return CLGEMM_ERR_TOO_LARGE;
    if ((extent[0] && c->lda > INT_MAX) || (extent[1] && c->ldb > INT_MAX) ||
        (extent[2] && c->ldc > INT_MAX))
        return CLGEMM_ERR_TOO_LARGE;
    return CLGEMM_SUCCESS;
}

/* Checks that buffer `mem` exists, belongs to the handle's context and holds `extent`
 * elements from `offset`. Asked every call, never remembered: a buffer the caller released may
 * come back at the same address as another one. Only C's flags matter (it is written), so A's
 * and B's are not asked for (each query is a call into the driver on every GEMM). */
static clgemm_status check_buffer(const struct clgemm_handle_s *h, cl_mem mem, size_t offset,
                                  size_t extent, size_t real_size, clgemm_status too_small,
                                  bool written) {
    if (!mem) return CLGEMM_ERR_NULL_ARGUMENT;
    cl_context ctx;
    size_t size;
    cl_mem_object_type type;
    cl_mem_flags flags = 0;
    cl_int err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, NULL);
    if (err == CL_SUCCESS && written)
        err = clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
    if (err != CL_SUCCESS) return err;
    if (ctx != h->context) return CLGEMM_ERR_WRONG_CONTEXT;
    /* Kernels take plain buffers; writing a read-only one is undefined in OpenCL. */
    if (type != CL_MEM_OBJECT_BUFFER || (written && (flags & CL_MEM_READ_ONLY)))
        return CLGEMM_ERR_INVALID_BUFFER;
    size_t end, bytes;
    if (__builtin_add_overflow(offset, extent, &end) ||
        __builtin_mul_overflow(end, real_size, &bytes))
        return CLGEMM_ERR_OVERFLOW;
    return bytes <= size ? CLGEMM_SUCCESS : too_small;
}

static clgemm_status check_queue(const struct clgemm_handle_s *h, cl_command_queue queue) {
    cl_context ctx;
    cl_device_id dev;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    if (err != CL_SUCCESS) return err;
    return ctx == h->context && dev == h->device ? CLGEMM_SUCCESS : CLGEMM_ERR_WRONG_CONTEXT;
}

clgemm_status clgemm__check_types(const struct clgemm_handle_s *h, const gemm_call *c) {
    if (!clgemm__types_ok(c->precision, c->type_c)) return CLGEMM_ERR_INVALID_TYPE;
    if ((unsigned)c->compute > CLGEMM_COMPUTE_FP32_3XTF32) return CLGEMM_ERR_INVALID_TYPE;
    /* TF32 modes round FP32 inputs; 8-bit inputs have nothing to round (clgemm.h). */
    if (c->compute != CLGEMM_COMPUTE_DEFAULT && clgemm__type(c->precision)->size == 1)
        return CLGEMM_ERR_INVALID_TYPE;
    if (clgemm__type(c->precision)->fp64 && !h->info.has_fp64) return CLGEMM_ERR_NO_FP64;
    return CLGEMM_SUCCESS;
}

bool clgemm__matrices_overlap(size_t d, size_t inner, size_t outer, size_t ld) {
    /* Element (i1, j1) of the first is (i2, j2) of the second when (i1 - i2) + (j1 - j2) ld = d,
     * with |i1 - i2| < inner <= ld: so i1 - i2 is d mod ld, or that less ld. */
    size_t q = d / ld, r = d % ld;
    return (q < outer && r < inner) || (r > 0 && ld - r < inner && q + 1 < outer);
}

/* The stored shape of C: inner (contiguous) and outer extent. */
static void c_shape(const gemm_call *c, size_t *inner, size_t *outer) {
    *inner = c->layout == CLGEMM_ROW_MAJOR ? c->n : c->m;
    *outer = c->layout == CLGEMM_ROW_MAJOR ? c->m : c->n;
}

static int compare_size(const void *x, const void *y) {
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

/* Whether two matrices of C in the batch share an element: each would be written by one
 * work-group and read by another, in no defined order. Interleaved matrices (stride below the
 * extent, in the gaps that ldc leaves) are fine. */
clgemm_status clgemm__check_overlap(const gemm_call *c, size_t extent_c) {
    size_t inner, outer;
    c_shape(c, &inner, &outer);
    if (c->batch < 2 || extent_c == 0) return CLGEMM_SUCCESS;
    if (!c->offs_c) {
        size_t d = 0;
        for (size_t b = 1; b < c->batch; b++) {
            if (__builtin_add_overflow(d, c->stride_c, &d) || d >= extent_c) break;
            if (clgemm__matrices_overlap(d, inner, outer, c->ldc)) return CLGEMM_ERR_BATCH_OVERLAP;
        }
        return CLGEMM_SUCCESS;
    }
    size_t *sorted = malloc(c->batch * sizeof *sorted);
    if (!sorted) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    memcpy(sorted, c->offs_c, c->batch * sizeof *sorted);
    qsort(sorted, c->batch, sizeof *sorted, compare_size);
    clgemm_status st = CLGEMM_SUCCESS;
    for (size_t i = 0; i + 1 < c->batch && st == CLGEMM_SUCCESS; i++)
        for (size_t j = i + 1; j < c->batch && sorted[j] - sorted[i] < extent_c; j++)
            if (clgemm__matrices_overlap(sorted[j] - sorted[i], inner, outer, c->ldc)) {
                st = CLGEMM_ERR_BATCH_OVERLAP;
                break;
            }
    free(sorted);
    return st;
}

/* The offset of the last-starting matrix of operand x (0 A, 1 B, 2 C) of the batch. */
static clgemm_status last_offset(const gemm_call *c, int x, size_t *last) {
    const size_t off[3] = {c->off_a, c->off_b, c->off_c};
    const size_t stride[3] = {c->stride_a, c->stride_b, c->stride_c};
    const size_t *offs[3] = {c->offs_a, c->offs_b, c->offs_c};
    *last = off[x];
    if (!c->batched) return CLGEMM_SUCCESS;
    if (c->offs_a || c->offs_b || c->offs_c) {
        if (!offs[x]) return CLGEMM_ERR_NULL_ARGUMENT;
        for (size_t b = 0; b < c->batch; b++)
            if (offs[x][b] > *last) *last = offs[x][b];
        return CLGEMM_SUCCESS;
    }
    size_t span;
    if (__builtin_mul_overflow(c->batch - 1, stride[x], &span) ||
        __builtin_add_overflow(*last, span, last))
        return CLGEMM_ERR_OVERFLOW;
    return CLGEMM_SUCCESS;
}

clgemm_status clgemm__check_call(const struct clgemm_handle_s *h, const gemm_call *c,
                                 size_t extent[3]) {
    clgemm_status st = clgemm__check_shape(c, extent);
    if (st != CLGEMM_SUCCESS) return st;
    if ((c->num_wait > 0) != (c->wait != NULL)) return CLGEMM_ERR_INVALID_EVENTS;
    for (cl_uint i = 0; i < c->num_wait; i++)
        if (!c->wait[i]) return CLGEMM_ERR_INVALID_EVENTS;
    if (c->queue && (st = check_queue(h, c->queue)) != CLGEMM_SUCCESS) return st;
    if ((st = clgemm__check_types(h, c)) != CLGEMM_SUCCESS) return st;
    if (c->m == 0 || c->n == 0 || (c->batched && c->batch == 0)) return CLGEMM_SUCCESS;
    bool table = c->batched && (c->offs_a || c->offs_b || c->offs_c);
    if (table) {
        if (!c->offs_a || !c->offs_b || !c->offs_c || !c->alphas || !c->betas)
            return CLGEMM_ERR_NULL_ARGUMENT;
        /* Each matrix has its own alpha: A and B are read (and checked) for every matrix unless
         * all of them are 0 or k is, which clgemm__check_shape could not see. */
        if (c->k > 0 && c->m > 0 && c->n > 0) {
            const gemm_call one = {.layout = c->layout,
                                   .trans_a = c->trans_a,
                                   .trans_b = c->trans_b,
                                   .m = c->m,
                                   .n = c->n,
                                   .k = c->k,
                                   .alpha = 1,
                                   .lda = c->lda,
                                   .ldb = c->ldb,
                                   .ldc = c->ldc};
            size_t all[3];
            if ((st = clgemm__check_shape(&one, all)) != CLGEMM_SUCCESS) return st;
            extent[0] = all[0];
            extent[1] = all[1];
        }
    }
    if ((st = clgemm__check_overlap(c, extent[2])) != CLGEMM_SUCCESS) return st;
    size_t ab_size = clgemm__type(c->precision)->size, c_size = clgemm__type(c->type_c)->size;
    size_t last[3] = {0, 0, 0};
    for (int x = 0; x < 3; x++) /* an operand that is not read (alpha 0) is not checked */
        if (extent[x] && (st = last_offset(c, x, &last[x])) != CLGEMM_SUCCESS) return st;
    st = check_buffer(h, c->c, last[2], extent[2], c_size, CLGEMM_ERR_BUFFER_C_TOO_SMALL, true);
    if (st == CLGEMM_SUCCESS && extent[0])
        st = check_buffer(h, c->a, last[0], extent[0], ab_size, CLGEMM_ERR_BUFFER_A_TOO_SMALL,
                          false);
    if (st == CLGEMM_SUCCESS && extent[1])
        st = check_buffer(h, c->b, last[1], extent[1], ab_size, CLGEMM_ERR_BUFFER_B_TOO_SMALL,
                          false);
    return st;
}
