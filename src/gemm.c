/* gemm.c: one GEMM call on OpenCL buffers: check every argument (nothing is enqueued on an
 * error), turn the problem into the column-major form the kernels compute, pick the kernel and
 * enqueue it. A call enqueues one kernel, or two for split K (the second waits on the first);
 * the event it returns is the last kernel's, so it spans the whole call. */
#include "internal.h"

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>

/* The largest m, n or k: INT_MAX less the largest tile or slice (PARAM_MAX in params.c). */
#define MAX_DIM (INT_MAX - 1024)

static bool layout_ok(clgemm_layout l) {
    return l == CLGEMM_ROW_MAJOR || l == CLGEMM_COL_MAJOR;
}

static bool trans_ok(clgemm_transpose t) {
    return t == CLGEMM_NO_TRANS || t == CLGEMM_TRANS;
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
    bool ta = c->trans_a == CLGEMM_TRANS, tb = c->trans_b == CLGEMM_TRANS;
    /* BLAS checks leading dimensions even when there is nothing to compute. */
    clgemm_status st = stored_extent(c->layout, ta ? c->k : c->m, ta ? c->m : c->k, c->lda,
                                     CLGEMM_ERR_INVALID_LD_A, &extent[0]);
    if (st == CLGEMM_SUCCESS)
        st = stored_extent(c->layout, tb ? c->n : c->k, tb ? c->k : c->n, c->ldb,
                           CLGEMM_ERR_INVALID_LD_B, &extent[1]);
    if (st == CLGEMM_SUCCESS)
        st = stored_extent(c->layout, c->m, c->n, c->ldc, CLGEMM_ERR_INVALID_LD_C, &extent[2]);
    if (st != CLGEMM_SUCCESS) return st;
    if (c->m == 0 || c->n == 0 || c->k == 0 || c->alpha == 0) extent[0] = extent[1] = 0;
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
 * elements from `offset`. */
static clgemm_status check_buffer(const struct clgemm_handle_s *h, cl_mem mem, size_t offset,
                                  size_t extent, size_t real_size, clgemm_status too_small,
                                  bool written) {
    if (!mem) return CLGEMM_ERR_NULL_ARGUMENT;
    cl_context ctx;
    size_t size;
    cl_mem_object_type type;
    cl_mem_flags flags;
    cl_int err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
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

static clgemm_status check_call(const struct clgemm_handle_s *h, const gemm_call *c,
                                size_t extent[3]) {
    clgemm_status st = clgemm__check_shape(c, extent);
    if (st != CLGEMM_SUCCESS) return st;
    if ((c->num_wait > 0) != (c->wait != NULL)) return CLGEMM_ERR_INVALID_EVENTS;
    for (cl_uint i = 0; i < c->num_wait; i++)
        if (!c->wait[i]) return CLGEMM_ERR_INVALID_EVENTS;
    if (c->queue && (st = check_queue(h, c->queue)) != CLGEMM_SUCCESS) return st;
    if (c->precision == CLGEMM_DOUBLE && !h->info.has_fp64) return CLGEMM_ERR_NO_FP64;
    if (c->m == 0 || c->n == 0) return CLGEMM_SUCCESS;
    size_t real_size = clgemm__real_size(c->precision);
    st = check_buffer(h, c->c, c->off_c, extent[2], real_size, CLGEMM_ERR_BUFFER_C_TOO_SMALL, true);
    if (st == CLGEMM_SUCCESS && extent[0])
        st = check_buffer(h, c->a, c->off_a, extent[0], real_size, CLGEMM_ERR_BUFFER_A_TOO_SMALL,
                          false);
    if (st == CLGEMM_SUCCESS && extent[1])
        st = check_buffer(h, c->b, c->off_b, extent[1], real_size, CLGEMM_ERR_BUFFER_B_TOO_SMALL,
                          false);
    return st;
}

/* Sets one kernel argument per call; stops at the first error. */
#define SET_ARG(kernel, index, value, err)                                                         \
    if ((err) == CL_SUCCESS) (err) = clSetKernelArg(kernel, index, sizeof(value), &(value))

static cl_int set_real_arg(cl_kernel kernel, cl_uint index, clgemm_precision precision, double v) {
    float f = (float)v;
    return precision == CLGEMM_DOUBLE ? clSetKernelArg(kernel, index, sizeof v, &v)
                                      : clSetKernelArg(kernel, index, sizeof f, &f);
}

/* Launch geometry of the one-work-item-per-element kernels (scale, reduce): a fixed 8 x 8
 * work-group, so a runtime that compiles per work-group size (PoCL) builds them once, not once
 * per shape; the kernels skip the work-items past m or n. */
static void elementwise_launch(const struct clgemm_handle_s *h, cl_int m, cl_int n, size_t local[2],
                               size_t global[2]) {
    size_t side = h->info.max_work_group_size >= 64 && h->info.max_work_item_sizes[0] >= 8 &&
                          h->info.max_work_item_sizes[1] >= 8
                      ? 8
                      : 1;
    local[0] = local[1] = side;
    global[0] = ((size_t)m + side - 1) / side * side;
    global[1] = ((size_t)n + side - 1) / side * side;
}

/* The scale or reduction kernel for this precision (they take no other build option). */
static clgemm_status elementwise_kernel(struct clgemm_handle_s *h, const char *name,
                                        const char *file, clgemm_precision precision,
                                        cl_kernel *kernel) {
    return clgemm__get_kernel(h, name, file, precision == CLGEMM_DOUBLE ? "-DUSE_FP64" : "",
                              kernel);
}

/* C = beta * C, for k == 0 or alpha == 0; the caller holds the lock. */
static clgemm_status enqueue_scale(struct clgemm_handle_s *h, const gemm_call *c, cl_int m,
                                   cl_int n, cl_command_queue queue) {
    cl_kernel kernel;
    clgemm_status st = elementwise_kernel(h, "clgemm_scale", "scale.cl", c->precision, &kernel);
    if (st != CLGEMM_SUCCESS) return st;
    cl_ulong off = c->off_c;
    cl_int ldc = (cl_int)c->ldc, err = CL_SUCCESS;
    SET_ARG(kernel, 0, m, err);
    SET_ARG(kernel, 1, n, err);
    if (err == CL_SUCCESS) err = set_real_arg(kernel, 2, c->precision, c->beta);
    SET_ARG(kernel, 3, c->c, err);
    SET_ARG(kernel, 4, off, err);
    SET_ARG(kernel, 5, ldc, err);
    size_t local[2], global[2];
    elementwise_launch(h, m, n, local, global);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, local, c->num_wait, c->wait,
                                     c->event);
    return err;
}

/* The column-major problem the kernels compute: a row-major C = op(A) op(B) is the column-major
 * C^T = op(B)^T op(A)^T over the same memory, so A and B (and m and n) swap while each keeps its
 * transpose flag. */
typedef struct colmajor {
    cl_int m, n, k, lda, ldb;
    cl_mem a, b;
    cl_ulong off_a, off_b;
    int trans_a, trans_b;
} colmajor;

static colmajor normalise(const gemm_call *c) {
    colmajor p = {(cl_int)c->m,
                  (cl_int)c->n,
                  (cl_int)c->k,
                  (cl_int)c->lda,
                  (cl_int)c->ldb,
                  c->a,
                  c->b,
                  c->off_a,
                  c->off_b,
                  c->trans_a == CLGEMM_TRANS,
                  c->trans_b == CLGEMM_TRANS};
    if (c->layout == CLGEMM_ROW_MAJOR) {
        colmajor q = {p.n, p.m,     p.k,     p.ldb,     p.lda,    p.b,
                      p.a, p.off_b, p.off_a, p.trans_b, p.trans_a};
        p = q;
    }
    return p;
}

/* Whether no enqueued command still uses a workspace (an error status counts as done). */
static bool workspace_idle(const split_workspace *w) {
    cl_int status;
    if (!w->busy) return true;
    return clGetEventInfo(w->busy, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                          NULL) == CL_SUCCESS &&
           status <= CL_COMPLETE;
}

/* A workspace of at least `bytes` that no call in flight uses: an idle one of the handle's
 * (grown if needed), else a temporary buffer (*slot = -1). NULL if no memory can be had. */
static cl_mem workspace_acquire(struct clgemm_handle_s *h, size_t bytes, int *slot) {
    int pick = -1;
    for (int i = 0; i < CLGEMM__WORKSPACES && pick < 0; i++)
        if (h->work[i].mem && h->work[i].bytes >= bytes && workspace_idle(&h->work[i])) pick = i;
    for (int i = 0; i < CLGEMM__WORKSPACES && pick < 0; i++)
        if (workspace_idle(&h->work[i])) pick = i;
    cl_int err;
    *slot = pick;
    if (pick >= 0 && h->work[pick].mem && h->work[pick].bytes >= bytes) return h->work[pick].mem;
    cl_mem mem = clCreateBuffer(h->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) return NULL;
    if (pick >= 0) {
        split_workspace *w = &h->work[pick];
        if (w->mem) clReleaseMemObject(w->mem);
        if (w->busy) clReleaseEvent(w->busy);
        *w = (split_workspace){mem, bytes, NULL};
    }
    return mem;
}

/* Records that the workspace is in use until `until` completes (or frees a temporary one). */
static void workspace_release(struct clgemm_handle_s *h, int slot, cl_mem mem, cl_event until) {
    if (slot < 0) {
        clReleaseMemObject(mem);
        return;
    }
    split_workspace *w = &h->work[slot];
    if (w->busy) clReleaseEvent(w->busy);
    w->busy = until;
    if (until) clRetainEvent(until);
}

/* Second step of a split-K call: C = sum of the partial products + beta * C. Waits for the
 * partial products' event even on an out-of-order queue; its own event is the call's. */
static clgemm_status enqueue_reduce(struct clgemm_handle_s *h, cl_kernel kernel, const gemm_call *c,
                                    const colmajor *p, cl_int splits, cl_mem work,
                                    cl_command_queue queue, cl_event partial, cl_event *done) {
    cl_ulong off = c->off_c;
    cl_int ldc = (cl_int)c->ldc, err = CL_SUCCESS;
    SET_ARG(kernel, 0, p->m, err);
    SET_ARG(kernel, 1, p->n, err);
    SET_ARG(kernel, 2, splits, err);
    if (err == CL_SUCCESS) err = set_real_arg(kernel, 3, c->precision, c->beta);
    SET_ARG(kernel, 4, work, err);
    SET_ARG(kernel, 5, c->c, err);
    SET_ARG(kernel, 6, off, err);
    SET_ARG(kernel, 7, ldc, err);
    size_t local[2], global[2];
    elementwise_launch(h, p->m, p->n, local, global);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, local, 1, &partial, done);
    return err;
}

static clgemm_status enqueue_gemm(struct clgemm_handle_s *h, const gemm_call *c,
                                  cl_command_queue queue) {
    colmajor p = normalise(c);
    const char *source;
    clgemm_config cfg = clgemm__plan(h, c->precision, c->m, c->n, c->k, &source);
    char options[512];
    int used = snprintf(options, sizeof options, "-DTRANSA=%d -DTRANSB=%d%s", p.trans_a, p.trans_b,
                        c->precision == CLGEMM_DOUBLE ? " -DUSE_FP64" : "");
    if (clgemm__config_options(&cfg, options + used, sizeof options - (size_t)used) < 0)
        return CLGEMM_ERR_INVALID_PARAMS;
    static const char *const files[] = {NULL, "naive.cl", "tiled.cl", "regblock.cl"};
    static const char *const kernels[] = {NULL, "clgemm_naive", "clgemm_tiled", "clgemm_regblock"};
    cl_kernel kernel;
    clgemm_status st =
        clgemm__get_kernel(h, kernels[cfg.family], files[cfg.family], options, &kernel);
    if (st != CLGEMM_SUCCESS) return st;
    int splits = clgemm__plan_splits(&cfg, &h->info, (size_t)p.m, (size_t)p.n, (size_t)p.k);
    cl_mem work = NULL;
    cl_kernel reduce = NULL;
    /* The reduction is built before anything is enqueued, so a failed build leaves no partial
     * products running. */
    if (splits > 1 && (st = elementwise_kernel(h, "clgemm_reduce", "reduce.cl", c->precision,
                                               &reduce)) != CLGEMM_SUCCESS)
        return st;
    int slot = -1;
    if (splits > 1) {
        size_t bytes = (size_t)splits * (size_t)p.m * (size_t)p.n * clgemm__real_size(c->precision);
        work = workspace_acquire(h, bytes, &slot);
        if (!work) splits = 1; /* no room for the workspace: the plain kernel still works */
    }
    /* With a split, the partial products go to the workspace (ldc = m, beta = 0) and the
     * reduction applies beta to C. */
    cl_mem out = work ? work : c->c;
    cl_ulong off_c = work ? 0 : c->off_c;
    cl_int ldc = work ? p.m : (cl_int)c->ldc, err = CL_SUCCESS;
    SET_ARG(kernel, 0, p.m, err);
    SET_ARG(kernel, 1, p.n, err);
    SET_ARG(kernel, 2, p.k, err);
    if (err == CL_SUCCESS) err = set_real_arg(kernel, 3, c->precision, c->alpha);
    if (err == CL_SUCCESS) err = set_real_arg(kernel, 4, c->precision, work ? 0.0 : c->beta);
    SET_ARG(kernel, 5, p.a, err);
    SET_ARG(kernel, 6, p.off_a, err);
    SET_ARG(kernel, 7, p.lda, err);
    SET_ARG(kernel, 8, p.b, err);
    SET_ARG(kernel, 9, p.off_b, err);
    SET_ARG(kernel, 10, p.ldb, err);
    SET_ARG(kernel, 11, out, err);
    SET_ARG(kernel, 12, off_c, err);
    SET_ARG(kernel, 13, ldc, err);
    size_t local[3] = {1, 1, 1}, global[3] = {1, 1, (size_t)splits};
    clgemm__config_launch(&cfg, (size_t)p.m, (size_t)p.n, local, global);
    if (!work) {
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(queue, kernel, 3, NULL, global, local, c->num_wait,
                                         c->wait, c->event);
        return err;
    }
    /* The workspace is used by no call in flight, so only the caller's events gate this one. */
    cl_event partial = NULL, done = NULL;
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(queue, kernel, 3, NULL, global, local, c->num_wait, c->wait,
                                     &partial);
    if (err == CL_SUCCESS)
        err = enqueue_reduce(h, reduce, c, &p, splits, work, queue, partial, &done);
    /* Busy until the reduction is done, or (if it failed to enqueue) the partial products. */
    workspace_release(h, slot, work, done ? done : partial);
    if (err == CL_SUCCESS && c->event) {
        *c->event = done;
        done = NULL;
    }
    if (done) clReleaseEvent(done);
    if (partial) clReleaseEvent(partial);
    return err;
}

clgemm_status clgemm__gemm(struct clgemm_handle_s *h, const gemm_call *c) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    size_t extent[3];
    clgemm_status st = check_call(h, c, extent);
    if (st != CLGEMM_SUCCESS) return st;
    cl_command_queue queue = c->queue ? c->queue : h->queue;
    if (c->m == 0 || c->n == 0) {
        /* Nothing to compute; the event still completes after the wait list, as a kernel's
         * would. */
        if (c->event) return clEnqueueMarkerWithWaitList(queue, c->num_wait, c->wait, c->event);
        return CLGEMM_SUCCESS;
    }
    /* One kernel object per program is shared by all threads: setting its arguments and
     * enqueueing it must not interleave with another call's. */
    pthread_mutex_lock(&h->lock);
    if (c->k == 0 || c->alpha == 0) {
        colmajor p = normalise(c);
        st = enqueue_scale(h, c, p.m, p.n, queue);
    } else {
        st = enqueue_gemm(h, c, queue);
    }
    pthread_mutex_unlock(&h->lock);
    return st;
}

clgemm_status clgemm_sgemm(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                           clgemm_transpose trans_b, size_t m, size_t n, size_t k, float alpha,
                           cl_mem a, size_t off_a, size_t lda, cl_mem b, size_t off_b, size_t ldb,
                           float beta, cl_mem c, size_t off_c, size_t ldc, cl_command_queue queue,
                           cl_uint num_wait, const cl_event *wait, cl_event *event) {
    gemm_call call = {CLGEMM_SINGLE, layout, trans_a, trans_b,  m,     n,     k,     alpha,
                      beta,          a,      b,       c,        off_a, off_b, off_c, lda,
                      ldb,           ldc,    queue,   num_wait, wait,  event};
    return clgemm__gemm(h, &call);
}

clgemm_status clgemm_dgemm(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                           clgemm_transpose trans_b, size_t m, size_t n, size_t k, double alpha,
                           cl_mem a, size_t off_a, size_t lda, cl_mem b, size_t off_b, size_t ldb,
                           double beta, cl_mem c, size_t off_c, size_t ldc, cl_command_queue queue,
                           cl_uint num_wait, const cl_event *wait, cl_event *event) {
    gemm_call call = {CLGEMM_DOUBLE, layout, trans_a, trans_b,  m,     n,     k,     alpha,
                      beta,          a,      b,       c,        off_a, off_b, off_c, lda,
                      ldb,           ldc,    queue,   num_wait, wait,  event};
    return clgemm__gemm(h, &call);
}
