/* gemm.c: one GEMM call on OpenCL buffers: check every argument (nothing is enqueued on an
 * error), turn the problem into the column-major form the kernels compute, pick the kernel and
 * enqueue it. A call enqueues one kernel, or two for split K (the second waits on the first);
 * the event it returns is the last kernel's, so it spans the whole call. */
#include "family.h"
#include "internal.h"

#include <limits.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>

/* The largest m, n or k: INT_MAX less the largest tile or slice (PARAM_MAX in params.c). */
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

clgemm_status clgemm__check_types(const struct clgemm_handle_s *h, const gemm_call *c) {
    if (!clgemm__types_ok(c->precision, c->type_c)) return CLGEMM_ERR_INVALID_TYPE;
    if ((unsigned)c->compute > CLGEMM_COMPUTE_FP32_3XTF32) return CLGEMM_ERR_INVALID_TYPE;
    if (clgemm__type(c->precision)->fp64 && !h->info.has_fp64) return CLGEMM_ERR_NO_FP64;
    return CLGEMM_SUCCESS;
}

static clgemm_status check_call(const struct clgemm_handle_s *h, const gemm_call *c,
                                size_t extent[3]) {
    clgemm_status st = clgemm__check_shape(c, extent);
    if (st != CLGEMM_SUCCESS) return st;
    if ((c->num_wait > 0) != (c->wait != NULL)) return CLGEMM_ERR_INVALID_EVENTS;
    for (cl_uint i = 0; i < c->num_wait; i++)
        if (!c->wait[i]) return CLGEMM_ERR_INVALID_EVENTS;
    if (c->queue && (st = check_queue(h, c->queue)) != CLGEMM_SUCCESS) return st;
    if ((st = clgemm__check_types(h, c)) != CLGEMM_SUCCESS) return st;
    if (c->m == 0 || c->n == 0) return CLGEMM_SUCCESS;
    size_t ab_size = clgemm__type(c->precision)->size, c_size = clgemm__type(c->type_c)->size;
    st = check_buffer(h, c->c, c->off_c, extent[2], c_size, CLGEMM_ERR_BUFFER_C_TOO_SMALL, true);
    if (st == CLGEMM_SUCCESS && extent[0])
        st = check_buffer(h, c->a, c->off_a, extent[0], ab_size, CLGEMM_ERR_BUFFER_A_TOO_SMALL,
                          false);
    if (st == CLGEMM_SUCCESS && extent[1])
        st = check_buffer(h, c->b, c->off_b, extent[1], ab_size, CLGEMM_ERR_BUFFER_B_TOO_SMALL,
                          false);
    return st;
}

/* Sets one kernel argument per call; stops at the first error. */
#define SET_ARG(kernel, index, value, err)                                                         \
    if ((err) == CL_SUCCESS) (err) = clSetKernelArg(kernel, index, sizeof(value), &(value))

/* Sets a scalar argument in the arithmetic type of `type` (float, double, float2, double2). */
static cl_int set_scalar_arg(cl_kernel kernel, cl_uint index, clgemm_precision type, double re,
                             double im) {
    switch (clgemm__type(type)->compute) {
    case CLGEMM_DOUBLE:
        return clSetKernelArg(kernel, index, sizeof re, &re);
    case CLGEMM_COMPLEX_SINGLE: {
        cl_float2 v = {{(float)re, (float)im}};
        return clSetKernelArg(kernel, index, sizeof v, &v);
    }
    case CLGEMM_COMPLEX_DOUBLE: {
        cl_double2 v = {{re, im}};
        return clSetKernelArg(kernel, index, sizeof v, &v);
    }
    default: {
        float f = (float)re;
        return clSetKernelArg(kernel, index, sizeof f, &f);
    }
    }
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

/* The handle's kernel for `key`, made on first use (caller holds the handle's lock). A warm
 * call only hashes the key. On a miss the lock is released while the device builds the
 * program (so other threads' warm calls go on) and `options` is asked for only then. */
typedef int (*options_fn)(const void *arg, char *buf, size_t size);

static clgemm_status kernel_for(struct clgemm_handle_s *h, const kernel_key *key, const char *name,
                                const char *file, options_fn options, const void *arg,
                                cl_kernel *out) {
    if ((*out = clgemm__kernel_find(&h->kernels, key))) return CLGEMM_SUCCESS;
    char text[1024];
    int used = options(arg, text, sizeof text);
    if (used < 0 || (size_t)used >= sizeof text) return CLGEMM_ERR_INVALID_PARAMS;
    cl_program program;
    pthread_mutex_unlock(&h->lock);
    clgemm_status st = clgemm__program(h, file, text, &program);
    pthread_mutex_lock(&h->lock);
    if (st != CLGEMM_SUCCESS) return st;
    /* Another thread of this handle may have made it meanwhile. */
    if ((*out = clgemm__kernel_find(&h->kernels, key))) {
        clReleaseProgram(program);
        return CLGEMM_SUCCESS;
    }
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    clReleaseProgram(program); /* the kernel keeps it */
    if (err != CL_SUCCESS) return err;
    if ((st = clgemm__kernel_add(&h->kernels, key, kernel)) != CLGEMM_SUCCESS) {
        clReleaseKernel(kernel);
        return st;
    }
    *out = kernel;
    return CLGEMM_SUCCESS;
}

static int type_options(const kernel_key *k, char *buf, size_t size) {
    return snprintf(buf, size, "-DTYPE_AB=%d -DTYPE_C=%d", k->type_ab, k->type_c);
}

static int type_options_fn(const void *arg, char *buf, size_t size) {
    return type_options(arg, buf, size);
}

/* The scale or reduction kernel for these types (they take no other build option). */
static clgemm_status elementwise_kernel(struct clgemm_handle_s *h, int which,
                                        clgemm_precision type_ab, clgemm_precision type_c,
                                        cl_kernel *kernel) {
    kernel_key key;
    memset(&key, 0, sizeof key);
    key.family = which;
    key.type_ab = (unsigned char)type_ab;
    key.type_c = (unsigned char)type_c;
    return which == KERNEL_SCALE
               ? kernel_for(h, &key, "clgemm_scale", "scale.cl", type_options_fn, &key, kernel)
               : kernel_for(h, &key, "clgemm_reduce", "reduce.cl", type_options_fn, &key, kernel);
}

/* C = beta * C, for k == 0 or alpha == 0; the caller holds the lock. */
static clgemm_status enqueue_scale(struct clgemm_handle_s *h, const gemm_call *c, cl_int m,
                                   cl_int n, cl_command_queue queue) {
    cl_kernel kernel;
    clgemm_status st = elementwise_kernel(h, KERNEL_SCALE, c->precision, c->type_c, &kernel);
    if (st != CLGEMM_SUCCESS) return st;
    cl_ulong off = c->off_c;
    cl_int ldc = (cl_int)c->ldc, err = CL_SUCCESS;
    SET_ARG(kernel, 0, m, err);
    SET_ARG(kernel, 1, n, err);
    if (err == CL_SUCCESS) err = set_scalar_arg(kernel, 2, c->precision, c->beta, c->beta_im);
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
    int trans_a, trans_b, conj_a, conj_b;
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
                  c->trans_a != CLGEMM_NO_TRANS,
                  c->trans_b != CLGEMM_NO_TRANS,
                  c->trans_a == CLGEMM_CONJ_TRANS && clgemm__type(c->precision)->complex,
                  c->trans_b == CLGEMM_CONJ_TRANS && clgemm__type(c->precision)->complex};
    if (c->layout == CLGEMM_ROW_MAJOR) {
        colmajor q = {.m = p.n,
                      .n = p.m,
                      .k = p.k,
                      .lda = p.ldb,
                      .ldb = p.lda,
                      .a = p.b,
                      .b = p.a,
                      .off_a = p.off_b,
                      .off_b = p.off_a,
                      .trans_a = p.trans_b,
                      .trans_b = p.trans_a,
                      .conj_a = p.conj_b,
                      .conj_b = p.conj_a};
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
    if (err == CL_SUCCESS) err = set_scalar_arg(kernel, 3, c->precision, c->beta, c->beta_im);
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

/* A GEMM kernel's key and what its build options are made from. */
typedef struct gemm_kernel {
    kernel_key key;
    const family_desc *family;
    const clgemm_config *cfg;
} gemm_kernel;

/* Build options of a GEMM kernel, from its key (only on a miss of the kernel table). */
static int gemm_options_fn(const void *arg, char *buf, size_t size) {
    const gemm_kernel *g = arg;
    const kernel_key *k = &g->key;
    int used = type_options(k, buf, size);
    if (used < 0 || (size_t)used >= size) return -1;
    int w = snprintf(buf + used, size - (size_t)used,
                     " -DTRANSA=%d -DTRANSB=%d -DCONJA=%d -DCONJB=%d", !!(k->flags & KEY_TRANSA),
                     !!(k->flags & KEY_TRANSB), !!(k->flags & KEY_CONJA), !!(k->flags & KEY_CONJB));
    if (w < 0 || (size_t)(used += w) >= size) return -1;
    if ((w = clgemm__config_options(g->cfg, buf + used, size - (size_t)used)) < 0) return -1;
    used += w;
    if (g->family->call_options) {
        kernel_call call = {k->type_ab, k->type_c, k->compute, !!(k->flags & KEY_ALIGNED_A),
                            !!(k->flags & KEY_ALIGNED_B)};
        w = g->family->call_options(&call, buf + used, size - (size_t)used);
        if (w < 0 || (size_t)(used += w) >= size) return -1;
    }
    return used;
}

static clgemm_status enqueue_gemm(struct clgemm_handle_s *h, const gemm_call *c,
                                  cl_command_queue queue) {
    colmajor p = normalise(c);
    const char *source;
    /* CLGEMM_ALLOW_TF32 turns the FP32 default into TF32, as PyTorch's allow_tf32 does. */
    clgemm_compute compute =
        c->compute == CLGEMM_COMPUTE_DEFAULT && c->precision == CLGEMM_SINGLE && h->allow_tf32
            ? CLGEMM_COMPUTE_TF32
            : c->compute;
    clgemm_config cfg = clgemm__plan_call(h, c, compute, &source);
    const family_desc *family = clgemm__family(cfg.family);
    int splits =
        clgemm__plan_splits(&cfg, &h->info, h->ksplit, (size_t)p.m, (size_t)p.n, (size_t)p.k);
    /* Kernels first: finding one may release the lock (a build), and the workspace taken below
     * must stay ours from taking to enqueueing. Partial products of a split stay in the
     * arithmetic type; the reduction rounds them to C's. */
    size_t esize = clgemm__type(c->precision)->size;
    gemm_kernel gk = {.family = family, .cfg = &cfg};
    memset(&gk.key, 0, sizeof gk.key);
    gk.key.family = cfg.family;
    for (int i = 0; i < family->num_params; i++) /* only the family's own slots */
        gk.key.params[family->params[i].slot] = cfg.params[family->params[i].slot];
    gk.key.type_ab = (unsigned char)c->precision;
    gk.key.compute = (unsigned char)(family->call_options ? compute : 0);
    gk.key.flags = (unsigned char)((p.trans_a ? KEY_TRANSA : 0) | (p.trans_b ? KEY_TRANSB : 0) |
                                   (p.conj_a ? KEY_CONJA : 0) | (p.conj_b ? KEY_CONJB : 0));
    if (family->call_options)
        gk.key.flags |=
            (unsigned char)(((p.off_a * esize) % 16 == 0 && ((size_t)p.lda * esize) % 16 == 0
                                 ? KEY_ALIGNED_A
                                 : 0) |
                            ((p.off_b * esize) % 16 == 0 && ((size_t)p.ldb * esize) % 16 == 0
                                 ? KEY_ALIGNED_B
                                 : 0));
    clgemm_precision partial_type = clgemm__type(c->precision)->compute;
    gk.key.type_c = (unsigned char)(splits > 1 ? partial_type : c->type_c);
    cl_kernel kernel, reduce = NULL;
    clgemm_status st =
        kernel_for(h, &gk.key, family->kernel, family->file, gemm_options_fn, &gk, &kernel);
    /* The reduction is built before anything is enqueued, so a failed build leaves no partial
     * products running. */
    if (st == CLGEMM_SUCCESS && splits > 1)
        st = elementwise_kernel(h, KERNEL_REDUCE, c->precision, c->type_c, &reduce);
    if (st != CLGEMM_SUCCESS) return st;
    cl_mem work = NULL;
    int slot = -1;
    if (splits > 1) {
        size_t bytes =
            (size_t)splits * (size_t)p.m * (size_t)p.n * clgemm__type(c->precision)->compute_size;
        work = workspace_acquire(h, bytes, &slot);
        if (!work) {
            /* No room for a workspace: the plain kernel still works (its C type may differ). */
            splits = 1;
            gk.key.type_c = (unsigned char)c->type_c;
            st =
                kernel_for(h, &gk.key, family->kernel, family->file, gemm_options_fn, &gk, &kernel);
            if (st != CLGEMM_SUCCESS) return st;
        }
    }
    /* With a split, the partial products go to the workspace (ldc = m, beta = 0) and the
     * reduction applies beta to C. */
    cl_mem out = work ? work : c->c;
    cl_ulong off_c = work ? 0 : c->off_c;
    cl_int ldc = work ? p.m : (cl_int)c->ldc, err = CL_SUCCESS;
    SET_ARG(kernel, 0, p.m, err);
    SET_ARG(kernel, 1, p.n, err);
    SET_ARG(kernel, 2, p.k, err);
    if (err == CL_SUCCESS) err = set_scalar_arg(kernel, 3, c->precision, c->alpha, c->alpha_im);
    if (err == CL_SUCCESS)
        err =
            set_scalar_arg(kernel, 4, c->precision, work ? 0.0 : c->beta, work ? 0.0 : c->beta_im);
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
    if (c->k == 0 || (c->alpha == 0 && c->alpha_im == 0)) {
        colmajor p = normalise(c);
        st = enqueue_scale(h, c, p.m, p.n, queue);
    } else {
        st = enqueue_gemm(h, c, queue);
    }
    pthread_mutex_unlock(&h->lock);
    return st;
}
