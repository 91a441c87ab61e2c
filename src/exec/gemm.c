/* gemm.c: one GEMM call on OpenCL buffers, of one matrix or a batch: check every argument
 * (check.c; nothing is enqueued on an error), turn the problem into the column-major form the
 * kernels compute, pick the kernel and enqueue it. A call enqueues one kernel for the whole batch
 * (the batch is the third grid dimension), or two for split K (the second waits on the first); the
 * event it returns is the last kernel's, so it spans the whole call. Only a batch deeper than
 * the grid's third dimension allows (65535 on NVIDIA) is cut into several launches, joined by a
 * marker. */
#include "exec/exec.h"
#include "../../cl/gemm_args.h" /* GEMM_ARG_LIST: the GEMM kernels' arguments */

#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>

/* Sets one kernel argument per call; stops at the first error. */
#define SET_ARG(kernel, index, value, err)                                                         \
    if ((err) == CL_SUCCESS) (err) = clSetKernelArg(kernel, index, sizeof(value), &(value))

/* Sets a scalar argument in the arithmetic type of `type` (float, double, float2, double2), with
 * `set` (clSetKernelArg's signature). */
typedef cl_int (*arg_setter)(struct clgemm_handle_s *h, cl_kernel kernel, cl_uint index,
                             size_t size, const void *value);

static cl_int scalar_arg(struct clgemm_handle_s *h, arg_setter set, cl_kernel kernel, cl_uint index,
                         clgemm_precision type, double re, double im) {
    switch (clgemm__type(type)->compute) {
    case CLGEMM_DOUBLE:
        return set(h, kernel, index, sizeof re, &re);
    case CLGEMM_COMPLEX_SINGLE: {
        cl_float2 v = {{(float)re, (float)im}};
        return set(h, kernel, index, sizeof v, &v);
    }
    case CLGEMM_COMPLEX_DOUBLE: {
        cl_double2 v = {{re, im}};
        return set(h, kernel, index, sizeof v, &v);
    }
    case CLGEMM_INT32: { /* the kernels' uint holds the same bits */
        cl_int v = (cl_int)re;
        return set(h, kernel, index, sizeof v, &v);
    }
    default: {
        float f = (float)re;
        return set(h, kernel, index, sizeof f, &f);
    }
    }
}

static cl_int plain_arg(struct clgemm_handle_s *h, cl_kernel kernel, cl_uint index, size_t size,
                        const void *value) {
    (void)h;
    return clSetKernelArg(kernel, index, size, value);
}

static cl_int set_scalar_arg(cl_kernel kernel, cl_uint index, clgemm_precision type, double re,
                             double im) {
    return scalar_arg(NULL, plain_arg, kernel, index, type, re, im);
}

/* Sets a scalar argument of a GEMM kernel unless the handle knows that it holds this value
 * already. An argument keeps its value from launch to launch, and the handle's kernels get
 * arguments only under its lock, here alone for GEMM kernels. On PoCL the 19 clSetKernelArg of
 * a call were a tenth of its host time; warm calls of one shape now set only the buffers. */
static cl_int cached_arg(struct clgemm_handle_s *h, cl_kernel kernel, cl_uint index, size_t size,
                         const void *value) {
    arg_cache *a = &h->args;
    if (a->kernel != kernel) {
        memset(a, 0, sizeof *a);
        a->kernel = kernel;
    }
    bool kept = index < CLGEMM__CACHED_ARGS && size <= sizeof a->value[0];
    if (kept && a->size[index] == size && memcmp(a->value[index], value, size) == 0)
        return CL_SUCCESS;
    cl_int err = clSetKernelArg(kernel, index, size, value);
    if (kept) {
        a->size[index] = err == CL_SUCCESS ? (unsigned char)size : 0;
        memcpy(a->value[index], value, size);
    }
    return err;
}

/* A scalar of a GEMM kernel, through the cache (never a buffer: a released buffer's address
 * may come back as another buffer, which the kernel must be told). */
#define SET_SCALAR(kernel, index, value, err)                                                      \
    if ((err) == CL_SUCCESS) (err) = cached_arg(h, kernel, index, sizeof(value), &(value))

/* Whether the device takes a work-group of x by y work-items. */
static bool group_fits(const struct clgemm_handle_s *h, size_t x, size_t y) {
    const size_t *items = h->info.max_work_item_sizes;
    return h->info.max_work_group_size >= x * y && items[0] >= x && items[1] >= y;
}

/* The side of a square work-group: `want` where the device takes want x want work-items, else 1. */
static size_t square_side(const struct clgemm_handle_s *h, size_t want) {
    return group_fits(h, want, want) ? want : 1;
}

/* Launch geometry of the one-work-item-per-element kernels (scale, reduce): a fixed work-group,
 * so a runtime that compiles per work-group size (PoCL) builds them once, not once per shape; the
 * kernels skip the work-items past m or n. 8 x 8 in general; on NVIDIA 32 x 8, so that a warp
 * reads 32 consecutive elements of a column (128 bytes of FP32) where 8 x 8 gave it four 32-byte
 * pieces of four columns, a request each (the split-K sum's reads come from L2). H100, the sum's
 * own time (bench/results/h100-fp32-narrow-sum-rows-persistent-short-m.log): FP32 16384 x 64 x
 * 4096 14 us to 8, 8192 x 64 x 8192 and 64 x 8192 x 8192 9 to 6; FP64 16384 x 64 x 4096 14 to 10.
 */
static void elementwise_launch(const struct clgemm_handle_s *h, cl_int m, cl_int n, size_t local[2],
                               size_t global[2]) {
    const bool rows_of_32 = h->info.cls == DEVICE_NVIDIA_GPU && group_fits(h, 32, 8);
    local[0] = rows_of_32 ? 32 : square_side(h, 8);
    local[1] = rows_of_32 ? 8 : local[0];
    global[0] = ((size_t)m + local[0] - 1) / local[0] * local[0];
    global[1] = ((size_t)n + local[1] - 1) / local[1] * local[1];
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
    build_log_sink sink = clgemm__handle_log_sink(h);
    clgemm_status st = clgemm__program(&h->dev->build, &sink, file, text, &program);
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

static int text_options_fn(const void *arg, char *buf, size_t size) {
    return snprintf(buf, size, "%s", (const char *)arg);
}

/* The type options of a kernel: A and B of type_ab, C of type_c, and where a batch's offsets
 * and scalars come from (common.cl: BATCH_TABLE, TABLE_C). */
static int type_options(const kernel_key *k, char *buf, size_t size) {
    int w = snprintf(buf, size, "-DTYPE_AB=%d -DTYPE_C=%d", k->type_ab, k->type_c);
    if (w < 0 || (size_t)w >= size || !(k->flags & KEY_TABLE)) return w;
    int t = snprintf(buf + w, size - (size_t)w, " -DBATCH_TABLE=1 -DTABLE_C=%d",
                     !!(k->flags & KEY_TABLE_C));
    return t < 0 ? t : w + t;
}

/* The element-wise kernels convert FP16 C by integer operations on every device (types.cl:
 * faster on PoCL; the same values, and memory-bound anywhere). */
static int type_options_fn(const void *arg, char *buf, size_t size) {
    int w = type_options(arg, buf, size);
    if (w < 0 || (size_t)w >= size) return w;
    int t = snprintf(buf + w, size - (size_t)w, " -DHALF_BY_INTEGERS=1");
    return t < 0 ? t : w + t;
}

/* The scale or reduction kernel for these types (they take no other build option); with a
 * batch table they read C's offsets and beta from it. */
static clgemm_status elementwise_kernel(struct clgemm_handle_s *h, int which,
                                        clgemm_precision type_ab, clgemm_precision type_c,
                                        bool table, cl_kernel *kernel) {
    kernel_key key;
    memset(&key, 0, sizeof key);
    key.family = which;
    key.type_ab = (unsigned char)type_ab;
    key.type_c = (unsigned char)type_c;
    if (table) key.flags = KEY_TABLE | KEY_TABLE_C;
    if (which == KERNEL_SCALE)
        return kernel_for(h, &key, "clgemm_scale", "scale.cl", type_options_fn, &key, kernel);
    if (which == KERNEL_REDUCE)
        return kernel_for(h, &key, "clgemm_reduce", "reduce.cl", type_options_fn, &key, kernel);
    return kernel_for(h, &key, "clgemm_streamk_fixup", "streamk.cl", type_options_fn, &key, kernel);
}

/* The largest third grid dimension one launch uses: CUDA's grid limit, which NVIDIA's OpenCL
 * keeps; CLGEMM_BATCH_CHUNK=<n> when the handle was made lowers it (tests of the chunked
 * path). */
#define MAX_GRID_Z 65535

static size_t grid_z_limit(const struct clgemm_handle_s *h) {
    return h->batch_chunk >= 1 && h->batch_chunk < MAX_GRID_Z ? (size_t)h->batch_chunk : MAX_GRID_Z;
}

/* Enqueues `kernel` over global[0..1] x depth work-group layers (work-group depth 1), in
 * launches of at most grid_z_limit() layers, each after the wait list; the kernels number the
 * layers with get_global_id(2), which the global offset carries across launches. *event (if
 * not NULL) completes when all of them have: the one launch's event, or a marker after all. */
static cl_int enqueue_layers(const struct clgemm_handle_s *h, cl_command_queue queue,
                             cl_kernel kernel, const size_t global2[2], const size_t local2[2],
                             size_t depth, cl_uint num_wait, const cl_event *wait,
                             cl_event *event) {
    size_t chunk = grid_z_limit(h);
    size_t local[3] = {local2[0], local2[1], 1};
    size_t global[3] = {global2[0], global2[1], depth};
    if (depth <= chunk)
        return clEnqueueNDRangeKernel(queue, kernel, 3, NULL, global, local, num_wait, wait, event);
    size_t launches = (depth + chunk - 1) / chunk;
    cl_event *done = event ? calloc(launches, sizeof *done) : NULL;
    if (event && !done) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    cl_int err = CL_SUCCESS;
    size_t issued = 0;
    for (size_t l = 0; l < launches && err == CL_SUCCESS; l++, issued++) {
        size_t offset[3] = {0, 0, l * chunk};
        global[2] = depth - l * chunk < chunk ? depth - l * chunk : chunk;
        err = clEnqueueNDRangeKernel(queue, kernel, 3, offset, global, local, num_wait, wait,
                                     done ? &done[l] : NULL);
    }
    if (err == CL_SUCCESS && event)
        err = clEnqueueMarkerWithWaitList(queue, (cl_uint)launches, done, event);
    for (size_t l = 0; done && l < issued; l++)
        if (done[l]) clReleaseEvent(done[l]);
    free(done);
    return err;
}

/* How many matrices a call computes (a plain call: one). */
static size_t batch_of(const gemm_call *c) {
    return c->batched ? c->batch : 1;
}

static bool has_table(const gemm_call *c) {
    return c->batched && c->offs_a;
}

/* Whether nothing of op(A) op(B) reaches C: k is 0, or alpha is 0 (for every matrix). */
static bool scale_only(const gemm_call *c) {
    if (c->k == 0) return true;
    if (!has_table(c)) return c->alpha == 0 && c->alpha_im == 0;
    size_t size = clgemm__scalar_size(c->precision);
    for (size_t b = 0; b < c->batch; b++) {
        double re, im;
        clgemm__read_scalar(c->precision, (const char *)c->alphas + b * size, &re, &im);
        if (re != 0 || im != 0) return false;
    }
    return true;
}

/* Batch table records (common.cl): 8 ulongs per matrix. */
#define RECORD_WORDS 8

/* Writes a scalar of the arithmetic type of `type` at p. */
static void put_scalar(void *p, clgemm_precision type, double re, double im) {
    switch (clgemm__type(type)->compute) {
    case CLGEMM_DOUBLE:
        memcpy(p, &re, sizeof re);
        break;
    case CLGEMM_COMPLEX_SINGLE: {
        cl_float2 v = {{(float)re, (float)im}};
        memcpy(p, &v, sizeof v);
        break;
    }
    case CLGEMM_COMPLEX_DOUBLE: {
        cl_double2 v = {{re, im}};
        memcpy(p, &v, sizeof v);
        break;
    }
    case CLGEMM_INT32: {
        cl_int v = (cl_int)re;
        memcpy(p, &v, sizeof v);
        break;
    }
    default: {
        float f = (float)re;
        memcpy(p, &f, sizeof f);
        break;
    }
    }
}

/* The batch table of a call, in the kernels' column-major terms (a row-major call swaps A and
 * B), as a buffer of its own: it is copied when made, so the caller's arrays may change as soon
 * as the call returns, and it is released once enqueued (OpenCL frees it after the kernels). */
static clgemm_status make_table(const struct clgemm_handle_s *h, const gemm_call *c, cl_mem *out) {
    *out = NULL;
    size_t words;
    if (__builtin_mul_overflow(c->batch, (size_t)RECORD_WORDS, &words) || words > SIZE_MAX / 8)
        return CLGEMM_ERR_OVERFLOW;
    cl_ulong *rec = calloc(words, sizeof *rec);
    if (!rec) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    bool swap = c->layout == CLGEMM_ROW_MAJOR;
    size_t size = clgemm__scalar_size(c->precision);
    for (size_t b = 0; b < c->batch; b++) {
        cl_ulong *r = rec + b * RECORD_WORDS;
        double re, im;
        r[0] = (swap ? c->offs_b : c->offs_a)[b];
        r[1] = (swap ? c->offs_a : c->offs_b)[b];
        r[2] = c->offs_c[b];
        clgemm__read_scalar(c->precision, (const char *)c->alphas + b * size, &re, &im);
        put_scalar(r + 4, c->precision, re, im);
        clgemm__read_scalar(c->precision, (const char *)c->betas + b * size, &re, &im);
        put_scalar(r + 6, c->precision, re, im);
    }
    cl_int err;
    *out = clCreateBuffer(h->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, words * sizeof *rec,
                          rec, &err);
    free(rec);
    return err;
}

/* The elementwise kernels' (scale, reduce) last arguments from index `first` on: C, its offset
 * off, ldc, the batch stride of C and the batch table (cl/scale.cl, cl/reduce.cl). */
static cl_int set_c_args(cl_kernel kernel, cl_uint first, const gemm_call *c, cl_ulong off,
                         cl_mem table, cl_int err) {
    cl_ulong stride = c->stride_c;
    cl_int ldc = (cl_int)c->ldc;
    SET_ARG(kernel, first, c->c, err);
    SET_ARG(kernel, first + 1, off, err);
    SET_ARG(kernel, first + 2, ldc, err);
    SET_ARG(kernel, first + 3, stride, err);
    SET_ARG(kernel, first + 4, table, err);
    return err;
}

/* C = beta * C, for k == 0 or alpha == 0; the caller holds the lock. */
static clgemm_status enqueue_scale(struct clgemm_handle_s *h, const gemm_call *c, cl_int m,
                                   cl_int n, cl_mem table, cl_command_queue queue) {
    cl_kernel kernel;
    clgemm_status st =
        elementwise_kernel(h, KERNEL_SCALE, c->precision, c->type_c, table != NULL, &kernel);
    if (st != CLGEMM_SUCCESS) return st;
    cl_int err = CL_SUCCESS;
    SET_ARG(kernel, 0, m, err);
    SET_ARG(kernel, 1, n, err);
    if (err == CL_SUCCESS) err = set_scalar_arg(kernel, 2, c->precision, c->beta, c->beta_im);
    err = set_c_args(kernel, 3, c, c->off_c, table, err);
    size_t local[2], global[2];
    elementwise_launch(h, m, n, local, global);
    if (err == CL_SUCCESS)
        err = enqueue_layers(h, queue, kernel, global, local, batch_of(c), c->num_wait, c->wait,
                             c->event);
    return err;
}

/* One operand of the column-major problem the kernels compute. */
typedef struct colmajor_operand {
    cl_mem mem;
    cl_int ld;
    cl_ulong off, stride; /* stride 0 outside a strided batch */
    int trans, conj;
} colmajor_operand;

typedef struct colmajor {
    cl_int m, n, k;
    colmajor_operand a, b;
    bool swapped; /* a is the call's B (a row-major call) */
} colmajor;

/* The call's A (second false) or B, as the call gives it. */
static colmajor_operand call_operand(const gemm_call *c, bool second) {
    clgemm_transpose t = second ? c->trans_b : c->trans_a;
    colmajor_operand o = {.mem = second ? c->b : c->a,
                          .ld = (cl_int)(second ? c->ldb : c->lda),
                          .off = second ? c->off_b : c->off_a,
                          .stride = c->batched ? (second ? c->stride_b : c->stride_a) : 0,
                          .trans = t != CLGEMM_NO_TRANS,
                          .conj = t == CLGEMM_CONJ_TRANS && clgemm__type(c->precision)->complex};
    return o;
}

/* The kernels' column-major problem of the call's shape s (clgemm__colmajor_shape: the swap of
 * a row-major call), with its operands; the checks keep sizes in int range. */
static colmajor normalise(const gemm_call *c, const colmajor_shape *s) {
    colmajor p = {.m = (cl_int)s->m,
                  .n = (cl_int)s->n,
                  .k = (cl_int)s->k,
                  .a = call_operand(c, s->swapped),
                  .b = call_operand(c, !s->swapped),
                  .swapped = s->swapped};
    return p;
}

/* The tensor maps of the call's operands for configuration cfg (operand_maps.c); false: none can
 * be made. */
static bool call_maps(struct clgemm_handle_s *h, const gemm_call *c, const colmajor_shape *shape,
                      const clgemm_config *cfg, size_t batch,
                      unsigned char maps[CLGEMM__MAPS_BYTES]) {
    map_operand a, b, ra, rb;
    const bool split = c->residual.on; /* the 3xTF32 mode: big parts, then small ones */
    if (split) {
        clgemm__map_parts(c, shape, false, &a, &b);
        clgemm__map_parts(c, shape, true, &ra, &rb);
    } else {
        clgemm__map_operands(c, shape, &a, &b);
    }
    /* A whole operand (its kernel splits it) has no small part. */
    const bool whole_a = c->residual.whole[shape->swapped],
               whole_b = c->residual.whole[!shape->swapped];
    return clgemm__operand_maps(h, c->precision, cfg, shape->k, batch, &a, &b,
                                split && !whole_a ? &ra : NULL, split && !whole_b ? &rb : NULL,
                                maps);
}

/* Whether no enqueued command still uses a workspace (an error status counts as done). */
static bool workspace_idle(const split_workspace *w) {
    cl_int status;
    if (w->held) return false;
    if (!w->busy) return true;
    return clGetEventInfo(w->busy, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                          NULL) == CL_SUCCESS &&
           status <= CL_COMPLETE;
}

/* A workspace of at least `bytes` that no call in flight uses: an idle one of the handle's
 * (grown if needed), else a temporary buffer (*slot = -1). NULL if no memory can be had.
 * *zeroed (if not NULL): how many bytes from its start are zero (split_workspace.zeroed); the
 * caller may write anything, so the handle's record of them drops to none. */
static cl_mem workspace_acquire(struct clgemm_handle_s *h, size_t bytes, int *slot,
                                size_t *zeroed) {
    int pick = -1;
    for (int i = 0; i < CLGEMM__WORKSPACES && pick < 0; i++)
        if (h->work[i].mem && h->work[i].bytes >= bytes && workspace_idle(&h->work[i])) pick = i;
    for (int i = 0; i < CLGEMM__WORKSPACES && pick < 0; i++)
        if (workspace_idle(&h->work[i])) pick = i;
    cl_int err;
    *slot = pick;
    if (zeroed) *zeroed = 0;
    if (pick >= 0 && h->work[pick].mem && h->work[pick].bytes >= bytes) {
        if (zeroed) *zeroed = h->work[pick].zeroed;
        h->work[pick].zeroed = 0;
        return h->work[pick].mem;
    }
    cl_mem mem = clCreateBuffer(h->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) return NULL;
    if (pick >= 0) {
        split_workspace *w = &h->work[pick];
        if (w->mem) clReleaseMemObject(w->mem);
        if (w->busy) clReleaseEvent(w->busy);
        *w = (split_workspace){mem, bytes, NULL, false, 0};
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

/* Gives up a workspace that commands still use but whose end no event tells (a marker that could
 * not be enqueued; waiting on the host instead could hang on the caller's events): the handle
 * forgets it and drops its reference, OpenCL keeps the memory until those commands are done, and
 * a later call makes another. */
static void workspace_abandon(struct clgemm_handle_s *h, int slot, cl_mem mem) {
    if (slot >= 0) {
        split_workspace *w = &h->work[slot];
        if (w->busy) clReleaseEvent(w->busy);
        *w = (split_workspace){NULL, 0, NULL, false, 0};
    }
    clReleaseMemObject(mem);
}

/* The workspace back to the handle, busy until the commands enqueued so far on the in-order queue
 * are done (launched without asking for their events): by a marker after them, whose event is
 * returned (the caller's to release), or, where none can be had, given up (NULL). */
static cl_event workspace_release_in_order(struct clgemm_handle_s *h, int slot, cl_mem mem,
                                           cl_command_queue queue) {
    cl_event mark = NULL;
    if (clEnqueueMarkerWithWaitList(queue, 0, NULL, &mark) != CL_SUCCESS) {
        workspace_abandon(h, slot, mem);
        return NULL;
    }
    workspace_release(h, slot, mem, mark);
    return mark;
}

/* Whether the queue runs its commands in order (a launch then follows the one before it without
 * naming its event; an unanswered query counts as out of order). */
static bool in_order(cl_command_queue queue) {
    cl_command_queue_properties props = 0;
    return clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL) ==
               CL_SUCCESS &&
           !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}

/* One launch after another: each waits for the one before (the first for the caller's wait
 * list), so the last one's event covers the call on any queue. */
typedef struct launch_chain {
    cl_uint num_wait;
    const cl_event *wait;
    cl_event last;
} launch_chain;

static cl_int chain_launch(const struct clgemm_handle_s *h, cl_command_queue queue,
                           cl_kernel kernel, const size_t global[2], const size_t local[2],
                           size_t depth, launch_chain *ch) {
    cl_event ev = NULL;
    cl_int err =
        ch->last
            ? enqueue_layers(h, queue, kernel, global, local, depth, 1, &ch->last, &ev)
            : enqueue_layers(h, queue, kernel, global, local, depth, ch->num_wait, ch->wait, &ev);
    if (err == CL_SUCCESS) {
        if (ch->last) clReleaseEvent(ch->last);
        ch->last = ev;
    }
    return err;
}

/* Second step of a split-K launch (C at off): C = sum of the partial products + beta * C, after
 * the chain's last launch (the partial products) even on an out-of-order queue. */
static cl_int enqueue_reduce(struct clgemm_handle_s *h, cl_kernel kernel, const gemm_call *c,
                             const colmajor *p, cl_ulong off, cl_int splits, cl_mem work,
                             cl_mem table, size_t batch, cl_command_queue queue, launch_chain *ch) {
    cl_int err = CL_SUCCESS;
    SET_ARG(kernel, 0, p->m, err);
    SET_ARG(kernel, 1, p->n, err);
    SET_ARG(kernel, 2, splits, err);
    if (err == CL_SUCCESS) err = set_scalar_arg(kernel, 3, c->precision, c->beta, c->beta_im);
    SET_ARG(kernel, 4, work, err);
    err = set_c_args(kernel, 5, c, off, table, err);
    size_t local[2], global[2];
    elementwise_launch(h, p->m, p->n, local, global);
    if (err == CL_SUCCESS) err = chain_launch(h, queue, kernel, global, local, batch, ch);
    return err;
}

/* Second step of a stream-K launch over the sub-problem p (C at off): the tiles that range
 * boundaries cut are summed from the workspace and stored (cl/streamk.cl), a few work-groups
 * per boundary. */
static cl_int enqueue_fixup(struct clgemm_handle_s *h, cl_kernel kernel, const gemm_call *c,
                            const colmajor *p, cl_ulong off, const clgemm_config *cfg,
                            cl_int groups, cl_mem work, cl_command_queue queue, launch_chain *ch) {
    size_t mt, nt, kt;
    clgemm__family(cfg->family)->tile(cfg, &mt, &nt, &kt);
    cl_int tile_m = (cl_int)mt, tile_n = (cl_int)nt, tile_k = (cl_int)kt, ldc = (cl_int)c->ldc;
    cl_int err = CL_SUCCESS;
    SET_ARG(kernel, 0, p->m, err);
    SET_ARG(kernel, 1, p->n, err);
    SET_ARG(kernel, 2, p->k, err);
    SET_ARG(kernel, 3, tile_m, err);
    SET_ARG(kernel, 4, tile_n, err);
    SET_ARG(kernel, 5, tile_k, err);
    SET_ARG(kernel, 6, groups, err);
    if (err == CL_SUCCESS) err = set_scalar_arg(kernel, 7, c->precision, c->alpha, c->alpha_im);
    if (err == CL_SUCCESS) err = set_scalar_arg(kernel, 8, c->precision, c->beta, c->beta_im);
    SET_ARG(kernel, 9, work, err);
    SET_ARG(kernel, 10, c->c, err);
    SET_ARG(kernel, 11, off, err);
    SET_ARG(kernel, 12, ldc, err);
    /* Per boundary, work-groups of 16 x 16 where the device allows it (else the elementwise
     * kernels' 8 x 8 or 1 x 1), one per 16 columns of the tile up to FIXUP_GROUPS (cl/streamk.cl
     * says why). */
    enum { FIXUP_GROUPS = 8 };
    const size_t side = square_side(h, 16) > 1 ? 16 : square_side(h, 8);
    size_t per_tile = (nt + side - 1) / side;
    if (per_tile > FIXUP_GROUPS) per_tile = FIXUP_GROUPS;
    const size_t local[2] = {side, side}, global[2] = {side, side * per_tile};
    if (err == CL_SUCCESS)
        err = chain_launch(h, queue, kernel, global, local, (size_t)groups - 1, ch);
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
    if (k->flags & (KEY_STREAMK | KEY_PACKED)) {
        /* Panels of another size than the stored elements hold them widened (pack.c). */
        const clgemm_precision t = (clgemm_precision)k->type_ab;
        const bool wide = (k->flags & KEY_PACKED) && clgemm__panel_size(t) != clgemm__type(t)->size;
        w = snprintf(buf + used, size - (size_t)used, "%s%s",
                     k->flags & KEY_STREAMK ? " -DSTREAMK=1"
                     : wide                 ? " -DPACKED=1 -DPANEL_WIDE=1"
                                            : " -DPACKED=1",
                     k->flags & KEY_STAGED_LAST ? " -DSTAGED_LAST=1" : "");
        if (w < 0 || (size_t)(used += w) >= size) return -1;
    }
    if (k->flags & KEY_LINEAR_TILES) {
        w = snprintf(buf + used, size - (size_t)used, " -DLINEAR_TILES=1");
        if (w < 0 || (size_t)(used += w) >= size) return -1;
    }
    if ((w = clgemm__config_options(g->cfg, buf + used, size - (size_t)used)) < 0) return -1;
    used += w;
    if (g->family->call_options) {
        kernel_call call = {k->type_ab,
                            k->type_c,
                            k->compute,
                            !!(k->flags & KEY_ALIGNED_A),
                            !!(k->flags & KEY_ALIGNED_B),
                            !!(k->flags & KEY_PACK_SMALL)};
        w = g->family->call_options(&call, buf + used, size - (size_t)used);
        if (w < 0 || (size_t)(used += w) >= size) return -1;
    }
    return used;
}

/* The GEMM kernels' argument numbers, GEMM_ARG_<name>, in the order of GEMM_ARG_LIST (the list
 * the kernels' GEMM_ARGS is made of, cl/common.cl). */
enum gemm_arg {
#define GEMM_ARG_NUMBER_(name, kind) GEMM_ARG_##name,
    GEMM_ARG_LIST(GEMM_ARG_NUMBER_)
#undef GEMM_ARG_NUMBER_
        GEMM_ARG_COUNT
};
/* Every argument of the list can be kept in the handle's argument cache. */
_Static_assert(GEMM_ARG_COUNT <= CLGEMM__CACHED_ARGS, "the GEMM arguments outgrow the cache");
/* A kernel's own argument after the list, the one each of these kernels adds: regblock's
 * stream-K workspace (STREAMK_ARGS, cl/regblock.cl) and tma's tensor maps (cl/tma.cl). */
#define GEMM_ARG_STREAMK_WORK GEMM_ARG_COUNT
#define GEMM_ARG_TMA_MAPS     GEMM_ARG_COUNT
#define GEMM_ARG_TMA_DEPTH    (GEMM_ARG_COUNT + 1)
#define GEMM_ARG_TMA_SK_WORK  (GEMM_ARG_COUNT + 2) /* built with STREAMK */
/* The micro-kernel's last K-block over a staged C (STAGED_LAST, cl/microkernel.cl): the staged
 * copy, its offset and its leading dimension. */
#define GEMM_ARG_STAGED     GEMM_ARG_COUNT
#define GEMM_ARG_STAGED_OFF (GEMM_ARG_COUNT + 1)
#define GEMM_ARG_STAGED_LD  (GEMM_ARG_COUNT + 2)

/* A tensor-map kernel's arguments after the common ones: the call's maps, in a buffer of the
 * handle's (operand_maps.c), and the depth of its units (matrices times split layers). */
static cl_int set_map_args(struct clgemm_handle_s *h, cl_kernel kernel,
                           const unsigned char maps[CLGEMM__MAPS_BYTES], cl_ulong depth) {
    cl_mem map_buf = NULL;
    cl_int err = clgemm__maps_buffer(h, maps, &map_buf);
    SET_ARG(kernel, GEMM_ARG_TMA_MAPS, map_buf, err);
    SET_ARG(kernel, GEMM_ARG_TMA_DEPTH, depth, err);
    return err;
}

/* The value of each argument, a field per argument named as in the list, in the host type of
 * its kind; SCALAR (alpha, beta) is a complex pair, set in the call's arithmetic type. */
typedef struct gemm_scalar {
    double re, im;
} gemm_scalar;
#define GEMM_HOST_TYPE_INT    cl_int
#define GEMM_HOST_TYPE_ULONG  cl_ulong
#define GEMM_HOST_TYPE_SCALAR gemm_scalar
#define GEMM_HOST_TYPE_AB     cl_mem
#define GEMM_HOST_TYPE_C      cl_mem
#define GEMM_HOST_TYPE_TABLE  cl_mem
typedef struct gemm_arg_values {
#define GEMM_ARG_FIELD_(name, kind) GEMM_HOST_TYPE_##kind name;
    GEMM_ARG_LIST(GEMM_ARG_FIELD_)
#undef GEMM_ARG_FIELD_
} gemm_arg_values;

/* How each kind is set: numbers through the argument cache, buffers always (SET_SCALAR says
 * why). */
#define GEMM_SET_INT(kernel, index, v, err)   SET_SCALAR(kernel, index, v, err)
#define GEMM_SET_ULONG(kernel, index, v, err) SET_SCALAR(kernel, index, v, err)
#define GEMM_SET_SCALAR(kernel, index, v, err)                                                     \
    if ((err) == CL_SUCCESS)                                                                       \
    (err) = scalar_arg(h, cached_arg, kernel, index, c->precision, (v).re, (v).im)
#define GEMM_SET_AB(kernel, index, v, err)    SET_ARG(kernel, index, v, err)
#define GEMM_SET_C(kernel, index, v, err)     SET_ARG(kernel, index, v, err)
#define GEMM_SET_TABLE(kernel, index, v, err) SET_ARG(kernel, index, v, err)

/* Sets a GEMM kernel's arguments (all of GEMM_ARG_LIST, in its order) for the (column-major)
 * problem p: C is `out` at off_c with leading dimension ldc and batch stride stride_c;
 * with_beta false gives beta 0 (a workspace). Every argument of a GEMM kernel is set here, so
 * the handle's argument cache stays true. */
static cl_int set_gemm_args(struct clgemm_handle_s *h, cl_kernel kernel, const gemm_call *c,
                            const colmajor *p, cl_mem out, cl_ulong off_c, cl_int ldc,
                            cl_ulong stride_c, bool with_beta, cl_int layers, cl_mem table) {
    const gemm_arg_values v = {
        .M = p->m,
        .N = p->n,
        .K = p->k,
        .alpha_arg = {c->alpha, c->alpha_im},
        .beta_arg = {with_beta ? c->beta : 0.0, with_beta ? c->beta_im : 0.0},
        .A = p->a.mem,
        .offA = p->a.off,
        .lda = p->a.ld,
        .B = p->b.mem,
        .offB = p->b.off,
        .ldb = p->b.ld,
        .C = out,
        .offC = off_c,
        .ldc = ldc,
        .strideA = p->a.stride,
        .strideB = p->b.stride,
        .strideC = stride_c,
        .layers = layers,
        .table = table,
    };
    cl_int err = CL_SUCCESS;
#define GEMM_SET_ONE_(name, kind) GEMM_SET_##kind(kernel, GEMM_ARG_##name, v.name, err);
    GEMM_ARG_LIST(GEMM_SET_ONE_)
#undef GEMM_SET_ONE_
    return err;
}

/* The kernel key of configuration cfg for call c (column-major p): its parameters, types,
 * transposes, alignment and, with a batch table, the table flags. */
static void gemm_kernel_key(kernel_key *key, const clgemm_config *cfg, const gemm_call *c,
                            const colmajor *p, clgemm_compute compute, cl_mem table) {
    const family_desc *family = clgemm__family(cfg->family);
    memset(key, 0, sizeof *key);
    key->family = cfg->family;
    for (int i = 0; i < family->num_params; i++) /* only the family's own slots */
        key->params[family->params[i].slot] = clgemm__param_value(family, i, cfg);
    key->type_ab = (unsigned char)c->precision;
    key->type_c = (unsigned char)c->type_c;
    key->compute = (unsigned char)(family->call_options ? compute : 0);
    key->flags = (unsigned)((p->a.trans ? KEY_TRANSA : 0) | (p->b.trans ? KEY_TRANSB : 0) |
                            (p->a.conj ? KEY_CONJA : 0) | (p->b.conj ? KEY_CONJB : 0) |
                            (table ? KEY_TABLE | KEY_TABLE_C : 0));
    if (family->call_options && (!family->uses_alignment || family->uses_alignment(cfg))) {
        bool swap = p->swapped;
        key->flags |= (unsigned)((clgemm__operand_on16(c, swap) ? KEY_ALIGNED_A : 0) |
                                 (clgemm__operand_on16(c, !swap) ? KEY_ALIGNED_B : 0));
    }
}

/* The sub-problem of C's rows i0 .. i0 + m - 1 and columns j0 .. j0 + n - 1: op(A)'s rows and
 * op(B)'s columns move with them; *off_c is where it starts in C. */
static colmajor sub_problem(const colmajor *p, const gemm_call *c, size_t i0, size_t j0, size_t m,
                            size_t n, cl_ulong *off_c) {
    colmajor q = *p;
    q.m = (cl_int)m;
    q.n = (cl_int)n;
    q.a.off += (cl_ulong)i0 * (p->a.trans ? (cl_ulong)p->a.ld : 1);
    q.b.off += (cl_ulong)j0 * (p->b.trans ? 1 : (cl_ulong)p->b.ld);
    *off_c = c->off_c + (cl_ulong)i0 + (cl_ulong)j0 * (cl_ulong)c->ldc;
    return q;
}

/* The plain data-parallel kernel of configuration cfg over the sub-problem q (C at off_c). */
static cl_int launch_plain(struct clgemm_handle_s *h, const gemm_call *c, const colmajor *q,
                           cl_ulong off_c, const clgemm_config *cfg, cl_kernel kernel,
                           cl_command_queue queue, launch_chain *ch) {
    size_t local[2], global[2];
    cl_int err = set_gemm_args(h, kernel, c, q, c->c, off_c, (cl_int)c->ldc, 0, true, 1, NULL);
    clgemm__config_launch(cfg, (size_t)q->m, (size_t)q->n, local, global);
    return err == CL_SUCCESS ? chain_launch(h, queue, kernel, global, local, 1, ch) : err;
}

/* One matrix (no table, no split K) by its schedule: the main part, main_m x main_n from the
 * top left, in cfg's tiles, data-parallel or (groups > 0) stream-K; the peeled rows and columns
 * beyond it in the small configuration, K split strip_splits ways (reduce: their sum); with the
 * kernels and the workspace they run with. */
typedef struct single_plan {
    const gemm_schedule *sched;
    cl_kernel plain, sk, fixup, strips, reduce;
    cl_mem work;
    cl_kernel linear, tail; /* the head along a 1-D grid; the tail's split (arithmetic-type C) */
} single_plan;

/* Waves' worth of tiles stream-K shares out unless CLGEMM_STREAMK says otherwise: one (H200
 * 4097^2: 40.4 TFLOPS with one, 39.2 with two). */
#define STREAMK_TAIL_WAVES 1

/* Stream-K over the main part: the whole waves of tiles run as a plain launch over its first
 * columns of tiles and the stream-K kernel shares out the rest (one or two waves' worth) among
 * the work-groups; the fix-up adds the parts of cut tiles. (On the H200 the persistent loop ran
 * 7% slower per tile than the device's own grid, 41.4 against 44.6 TFLOPS at 4096^2 with no tile
 * cut, so only the tail runs in it.) */
static cl_int launch_streamk(struct clgemm_handle_s *h, const gemm_call *c, const colmajor *p,
                             const single_plan *one, cl_command_queue queue, launch_chain *ch) {
    const gemm_schedule *s = one->sched;
    size_t mt, nt, kt, local[2], global[2];
    clgemm__family(s->cfg.family)->tile(&s->cfg, &mt, &nt, &kt);
    size_t tiles_m = (s->main_m + mt - 1) / mt, tiles_n = (s->main_n + nt - 1) / nt;
    size_t full = tiles_m * tiles_n / (size_t)s->groups;
    size_t tail = h->streamk_tail ? (size_t)h->streamk_tail : STREAMK_TAIL_WAVES;
    size_t dp_cols = full >= tail ? (full - (tail - 1)) * (size_t)s->groups / tiles_m : 0;
    if (dp_cols >= tiles_n) dp_cols = tiles_n - 1;
    size_t head_n = dp_cols * nt;
    cl_ulong off;
    cl_int err = CL_SUCCESS;
    if (head_n > 0) {
        colmajor head = sub_problem(p, c, 0, 0, s->main_m, head_n, &off);
        err = launch_plain(h, c, &head, off, &s->cfg, one->plain, queue, ch);
    }
    colmajor rest = sub_problem(p, c, 0, head_n, s->main_m, s->main_n - head_n, &off);
    if (err == CL_SUCCESS)
        err = set_gemm_args(h, one->sk, c, &rest, c->c, off, (cl_int)c->ldc, 0, true, 1, NULL);
    SET_ARG(one->sk, GEMM_ARG_STREAMK_WORK, one->work, err);
    clgemm__config_launch(&s->cfg, (size_t)rest.m, (size_t)rest.n, local, global);
    global[0] = (size_t)s->groups * local[0]; /* `groups` work-groups along the first dimension */
    global[1] = local[1];
    if (err == CL_SUCCESS) err = chain_launch(h, queue, one->sk, global, local, 1, ch);
    /* One work-group cuts no tile and needs no fix-up. */
    if (err == CL_SUCCESS && s->groups > 1)
        err = enqueue_fixup(h, one->fixup, c, &rest, off, &s->cfg, s->groups, one->work, queue, ch);
    return err;
}

/* A peeled strip q (C at off): a few rows or columns of C with all of K, so K is split across
 * work-group layers into the workspace (each strip after the one before, so they share it) and
 * reduced into C; without the split its work-groups walk K one slice at a time (H200 4097^2:
 * two such strips took 0.4 ms beside 3.06 ms for the 4096^2 rest). */
static cl_int launch_split_part(struct clgemm_handle_s *h, const gemm_call *c, const colmajor *q,
                                cl_ulong off, const clgemm_config *cfg, cl_kernel kernel,
                                cl_int splits, const single_plan *one, cl_command_queue queue,
                                launch_chain *ch) {
    size_t local[2], global[2];
    cl_int err =
        set_gemm_args(h, kernel, c, q, one->work, 0, q->m,
                      (cl_ulong)splits * (cl_ulong)q->m * (cl_ulong)q->n, false, splits, NULL);
    clgemm__config_launch(cfg, (size_t)q->m, (size_t)q->n, local, global);
    if (err == CL_SUCCESS) err = chain_launch(h, queue, kernel, global, local, (size_t)splits, ch);
    if (err == CL_SUCCESS)
        err = enqueue_reduce(h, one->reduce, c, q, off, splits, one->work, NULL, 1, queue, ch);
    return err;
}

static cl_int launch_strip(struct clgemm_handle_s *h, const gemm_call *c, const colmajor *q,
                           cl_ulong off, const single_plan *one, cl_command_queue queue,
                           launch_chain *ch) {
    return launch_split_part(h, c, q, off, &one->sched->small, one->strips,
                             one->sched->strip_splits, one, queue, ch);
}

/* A partial last wave shared out (head_tiles > 0, clgemm__plan_tail): the first head_tiles tiles
 * of the main part, whole waves, in one launch along a 1-D grid (LINEAR_TILES: the tiles in the
 * order the 2-D grid would run them), then what is left of the last column of tiles they reach
 * and the columns after it, each K split into the workspace and reduced, one after the other. */
static cl_int launch_head_and_tail(struct clgemm_handle_s *h, const gemm_call *c, const colmajor *p,
                                   const single_plan *one, cl_command_queue queue,
                                   launch_chain *ch) {
    const gemm_schedule *s = one->sched;
    size_t mt, nt, kt, local[2], global[2];
    clgemm__family(s->cfg.family)->tile(&s->cfg, &mt, &nt, &kt);
    cl_ulong off;
    colmajor whole = sub_problem(p, c, 0, 0, s->main_m, s->main_n, &off);
    cl_int err =
        set_gemm_args(h, one->linear, c, &whole, c->c, off, (cl_int)c->ldc, 0, true, 1, NULL);
    clgemm__config_launch(&s->cfg, mt, nt, local, global); /* (one tile: its work-group's size) */
    global[0] = s->head_tiles * local[0];
    global[1] = local[1];
    if (err == CL_SUCCESS) err = chain_launch(h, queue, one->linear, global, local, 1, ch);
    tile_rect rest[2];
    clgemm__tail_rects(s->main_m, s->main_n, mt, nt, s->head_tiles, rest);
    for (int r = 0; r < 2 && err == CL_SUCCESS; r++) {
        if (rest[r].m == 0 || rest[r].n == 0) continue;
        colmajor q = sub_problem(p, c, rest[r].i0, rest[r].j0, rest[r].m, rest[r].n, &off);
        err =
            launch_split_part(h, c, &q, off, &s->cfg, one->tail, s->tail_splits[r], one, queue, ch);
    }
    return err;
}

/* One matrix by its single_plan; *done is the last launch's event (NULL if none was made). */
static cl_int enqueue_single(struct clgemm_handle_s *h, const gemm_call *c, const colmajor *p,
                             const single_plan *one, cl_command_queue queue, cl_event *done) {
    const gemm_schedule *s = one->sched;
    launch_chain ch = {c->num_wait, c->wait, NULL};
    cl_ulong off;
    cl_int err;
    if (s->groups > 0) {
        err = launch_streamk(h, c, p, one, queue, &ch);
    } else if (s->head_tiles > 0) {
        err = launch_head_and_tail(h, c, p, one, queue, &ch);
    } else {
        colmajor whole = sub_problem(p, c, 0, 0, s->main_m, s->main_n, &off);
        err = launch_plain(h, c, &whole, off, &s->cfg, one->plain, queue, &ch);
    }
    if (err == CL_SUCCESS && s->main_n < (size_t)p->n) { /* the columns past the main part */
        colmajor right = sub_problem(p, c, 0, s->main_n, (size_t)p->m, p->n - s->main_n, &off);
        err = launch_strip(h, c, &right, off, one, queue, &ch);
    }
    if (err == CL_SUCCESS && s->main_m < (size_t)p->m) { /* the rows below it */
        colmajor below = sub_problem(p, c, s->main_m, 0, p->m - s->main_m, s->main_n, &off);
        err = launch_strip(h, c, &below, off, one, queue, &ch);
    }
    *done = ch.last;
    return err;
}

/* The blocked schedule (s->pack_kc > 0), BLIS's loops over K-blocks and, within each, over blocks
 * of op(A): for each block of pack_kc steps, op(B)'s columns of the block are packed into
 * micro-panels in the workspace (`pack`: cl/pack.cl's clgemm_pack_panels, or
 * clgemm_pack_panel_runs where pack.c says so), then op(A)'s rows pack_mc at a time, each block
 * packed over the last and at once multiplied by the micro-kernel built with PACKED (`kernel`),
 * which adds its product to its rows of C, beta applied by the first K-block only. Each launch
 * waits for the one before: the next block's panels overwrite the last's. Packing op(A) a block at
 * a time (where the family says so: a C a few columns wide) keeps the panels just written in the
 * caches for the multiply (packing a whole K-block of a tall op(A) sent its panels to memory and
 * read them back); pack_mc = m packs all of it at once. The grid of micro-kernels is the
 * loops over M and N (in blocks of A, cl/microkernel.cl); a block's panels stream contiguously
 * whatever C's or the operands' layout. C of another type than the arithmetic one (FP16, BF16)
 * is staged: the blocks but the last add into a column-major copy in the arithmetic type at the
 * workspace's start (the first with beta 0), and the last block's kernel (`last`, built with
 * STAGED_LAST) adds that copy to its product and rounds the sum into C once, applying beta. */
/* One operand's panels (src) to work at `offset` elements, by the kernel its runs take. */
static cl_int launch_panels(struct clgemm_handle_s *h, cl_command_queue queue,
                            const cl_kernel pack[3], const panel_source *src, int run, cl_mem work,
                            size_t offset, launch_chain *ch) {
    size_t global[2], local[2];
    const cl_kernel kernel = pack[run > 1 ? PANELS_RUNS : PANELS_ONE];
    cl_int err = clgemm__pack_panels_args(kernel, src, run, work, offset, global, local);
    return err == CL_SUCCESS ? chain_launch(h, queue, kernel, global, local, 1, ch) : err;
}

static cl_int enqueue_blocked(struct clgemm_handle_s *h, const gemm_call *c, const colmajor *p,
                              const gemm_schedule *s, cl_kernel kernel, const cl_kernel pack[3],
                              cl_kernel last, cl_mem work, cl_command_queue queue, cl_event *done) {
    size_t mt, nt, kt, b_offset, total, local[2], global[2];
    clgemm__family(s->cfg.family)->tile(&s->cfg, &mt, &nt, &kt);
    clgemm__pack_panels_layout(&s->cfg, c->precision, s->pack_mc, (size_t)p->n, (size_t)s->pack_kc,
                               &b_offset, &total);
    const size_t esize = clgemm__type(c->precision)->size, mc = s->pack_mc;
    const size_t psize = clgemm__panel_size(c->precision);
    const cl_ulong widen = psize / esize;
    /* The panels after the staged C, in panel elements: A's block first, then B's K-block. */
    const size_t a_offset = clgemm__pack_panels_base(s, c->precision) / psize;
    b_offset += a_offset;
    const bool staged = s->pack_stage > 0;
    gemm_call added = *c; /* the blocks after the first add to C */
    added.beta = 1;
    added.beta_im = 0;
    launch_chain ch = {c->num_wait, c->wait, NULL};
    cl_int err = CL_SUCCESS;
    /* (k0 advances by the block just done, so it never passes k: k0 + pack_kc would overflow
     * an int for K within a block of INT_MAX) */
    for (cl_int k0 = 0, depth = 0; k0 < p->k && err == CL_SUCCESS; k0 += depth) {
        depth = p->k - k0 < s->pack_kc ? p->k - k0 : s->pack_kc;
        /* op(A) is m x k: column-major A holds (i, k0 + q) at i + q lda, a transposed one at
         * q + i lda; op(B) is k x n: (k0 + q, j) at q + j ldb, transposed at j + q ldb. */
        const cl_ulong lda = (cl_ulong)p->a.ld, ldb = (cl_ulong)p->b.ld;
        const panel_source b = {p->b.mem,
                                p->b.off + (cl_ulong)k0 * (p->b.trans ? ldb : 1),
                                p->b.trans ? 1 : ldb,
                                p->b.trans ? ldb : 1,
                                p->n,
                                depth,
                                (cl_int)nt};
        const int run_b = clgemm__pack_panels_run(&b, esize);
        bool b_packed = false;
        for (size_t i0 = 0; i0 < (size_t)p->m && err == CL_SUCCESS; i0 += mc) {
            const cl_int rows = (cl_int)((size_t)p->m - i0 < mc ? (size_t)p->m - i0 : mc);
            const panel_source a = {p->a.mem,
                                    p->a.off + (cl_ulong)k0 * (p->a.trans ? 1 : lda) +
                                        (cl_ulong)i0 * (p->a.trans ? lda : 1),
                                    p->a.trans ? lda : 1,
                                    p->a.trans ? 1 : lda,
                                    rows,
                                    depth,
                                    (cl_int)mt};
            const int run_a = clgemm__pack_panels_run(&a, esize);
            if (!b_packed && run_b == 1 && run_a == 1) { /* both in one launch */
                err = clgemm__pack_panel_pair_args(pack[PANELS_PAIR], &b, b_offset, &a, a_offset,
                                                   work, global, local);
                if (err == CL_SUCCESS)
                    err = chain_launch(h, queue, pack[PANELS_PAIR], global, local, 1, &ch);
            } else {
                if (!b_packed) err = launch_panels(h, queue, pack, &b, run_b, work, b_offset, &ch);
                if (err == CL_SUCCESS)
                    err = launch_panels(h, queue, pack, &a, run_a, work, a_offset, &ch);
            }
            b_packed = true;
            colmajor q = *p;
            q.m = rows;
            q.k = depth;
            /* (in stored elements: widened panels' offsets scale by the sizes' ratio) */
            q.a = (colmajor_operand){.mem = work, .ld = depth, .off = a_offset * widen};
            q.b = (colmajor_operand){.mem = work, .ld = depth, .off = b_offset * widen};
            const bool to_c = staged && k0 + depth >= p->k; /* the last block, into C */
            const cl_kernel run_kernel = to_c ? last : kernel;
            if (err == CL_SUCCESS && to_c) {
                err = set_gemm_args(h, last, c, &q, c->c, c->off_c + i0, (cl_int)c->ldc, 0, true, 1,
                                    NULL);
                const cl_ulong staged_off = i0;
                SET_ARG(last, GEMM_ARG_STAGED, work, err);
                SET_ARG(last, GEMM_ARG_STAGED_OFF, staged_off, err);
                SET_ARG(last, GEMM_ARG_STAGED_LD, p->m, err);
            } else if (err == CL_SUCCESS && staged) {
                err = set_gemm_args(h, kernel, &added, &q, work, i0, p->m, 0, k0 > 0, 1, NULL);
            } else if (err == CL_SUCCESS) {
                err = set_gemm_args(h, kernel, k0 ? &added : c, &q, c->c, c->off_c + i0,
                                    (cl_int)c->ldc, 0, true, 1, NULL);
            }
            clgemm__config_launch(&s->cfg, (size_t)rows, (size_t)p->n, local, global);
            if (err == CL_SUCCESS) err = chain_launch(h, queue, run_kernel, global, local, 1, &ch);
        }
    }
    *done = ch.last;
    return err;
}

/* The call's compute mode: CLGEMM_ALLOW_TF32 turns the FP32 default into TF32, as PyTorch's
 * allow_tf32 does. */
static clgemm_compute call_compute(const struct clgemm_handle_s *h, const gemm_call *c) {
    return c->compute == CLGEMM_COMPUTE_DEFAULT && c->precision == CLGEMM_SINGLE && h->allow_tf32
               ? CLGEMM_COMPUTE_TF32
               : c->compute;
}

/* A persistent stream-K launch's workspace (cl/tma.cl, STREAMK): set as the kernel's argument,
 * its counters zeroed first unless the last call over it left them so (each tile's last part
 * resets its own, so a warm call makes no extra command); the kernel then waits for the zeroing
 * instead of the caller's list, which the zeroing waits for. */
static cl_int sk_workspace(struct clgemm_handle_s *h, cl_kernel kernel, int slot, cl_mem work,
                           size_t zeroed, int groups, cl_command_queue queue, cl_uint *num_wait,
                           const cl_event **wait, cl_event *zeroing) {
    const size_t counters = CLGEMM__SK_COUNTERS(groups) * 4;
    cl_int err = clSetKernelArg(kernel, GEMM_ARG_TMA_SK_WORK, sizeof work, &work);
    if (err == CL_SUCCESS && zeroed < counters) {
        const cl_uint zero = 0;
        err = clEnqueueFillBuffer(queue, work, &zero, sizeof zero, 0, counters, *num_wait, *wait,
                                  zeroing);
        if (err == CL_SUCCESS) {
            *num_wait = 1;
            *wait = zeroing;
        }
    }
    if (err == CL_SUCCESS && slot >= 0) h->work[slot].zeroed = counters;
    return err;
}

/* Commands a call runs before its product (an operand's copies, pack.c), enqueued by enqueue_gemm
 * only once everything of its first launch but the launch itself is ready (kernels, tensor maps,
 * workspace, arguments): the host work between the two launches is time the device waits, since a
 * copy takes a few microseconds. `enqueue` enqueues them after the call's wait list and gives the
 * product its new one (their events); on an error nothing of the product has been enqueued. */
typedef struct launch_hook {
    cl_int (*enqueue)(void *ctx, cl_uint *num_wait, const cl_event **wait);
    void *ctx;
} launch_hook;

/* The call with its wait list after the hook's commands (c itself where there is no hook). */
static cl_int run_hook(const launch_hook *hook, const gemm_call *c, gemm_call *after) {
    *after = *c;
    return hook ? hook->enqueue(hook->ctx, &after->num_wait, &after->wait) : CL_SUCCESS;
}

/* Elements of the arithmetic type a call's workspace holds (0 on overflow): a split's batch *
 * splits blocks of m x n; stream-K's two tile-sized slots per work-group; peeled strips'
 * strip_splits blocks of the larger strip (strips and stream-K run one after the other, so
 * they share one workspace). `planned`: the call's schedule where the caller has planned it
 * (a call over copies, pack.c), else NULL; `hook`: the commands to run first (NULL: none). */
static clgemm_status enqueue_gemm(struct clgemm_handle_s *h, const gemm_call *c, cl_mem table,
                                  cl_command_queue queue, const gemm_schedule *planned,
                                  const launch_hook *hook) {
    colmajor_shape shape = clgemm__colmajor_shape(c);
    colmajor p = normalise(c, &shape);
    const char *source;
    size_t batch = batch_of(c);
    clgemm_compute compute = call_compute(h, c);
    /* The whole schedule at once: configuration, split, peeling, stream-K, workspace. */
    gemm_schedule s =
        planned ? *planned
                : clgemm__plan_call(h, c, &shape, compute, batch, table != NULL, true, &source);
    /* A tensor-map family needs the maps of this call's operands. The planner offered it only
     * where they can describe them (clgemm__plan_call); where the driver still refuses one (a
     * device address or an encoding that fails), the call is planned again without such
     * families: the one second question for the same problem, a failure's. */
    unsigned char maps[CLGEMM__MAPS_BYTES] __attribute__((aligned(64)));
    bool mapped = false;
    if (clgemm__family(s.cfg.family)->tensor_maps &&
        !(mapped = call_maps(h, c, &shape, &s.cfg, batch, maps)))
        s = clgemm__plan_call(h, c, &shape, compute, batch, table != NULL, false, &source);
    const clgemm_config cfg = s.cfg;
    const family_desc *family = clgemm__family(cfg.family);
    /* Kernels first: finding one may release the lock (a build), and the workspace taken below
     * must stay ours from taking to enqueueing. Partial products of a split stay in the
     * arithmetic type; the reduction rounds them to C's. */
    gemm_kernel gk = {.family = family, .cfg = &cfg};
    gemm_kernel_key(&gk.key, &cfg, c, &p, compute, table);
    if (s.pack_kc > 0) gk.key.flags |= KEY_PACKED | (h->pack_kc > 0 ? KEY_PACK_SMALL : 0);
    /* A split's workspace is strided: C's table offsets and beta then serve the reduction. A
     * blocked schedule's staged C is the arithmetic type. */
    if (s.splits > 1 || s.pack_stage > 0) {
        gk.key.type_c = (unsigned char)clgemm__type(c->precision)->compute;
        gk.key.flags &= ~(unsigned)KEY_TABLE_C;
    }
    cl_kernel kernel, second = NULL, sk = NULL, strips = NULL;
    clgemm_status st =
        kernel_for(h, &gk.key, family->kernel, family->file, gemm_options_fn, &gk, &kernel);
    /* The second step is built before anything is enqueued, so a failed build leaves no partial
     * products running. */
    /* (A persistent stream-K kernel adds its cut tiles' parts itself.) */
    bool sk_persistent = s.groups > 0 && mapped;
    if (st == CLGEMM_SUCCESS && s.pack_stage > 0) {
        /* (a staged C's last K-block: into C's own type, the staged copy added) */
        gemm_kernel into_c = gk;
        into_c.key.type_c = (unsigned char)c->type_c;
        into_c.key.flags |= KEY_STAGED_LAST;
        st = kernel_for(h, &into_c.key, family->kernel, family->file, gemm_options_fn, &into_c,
                        &second);
    } else if (st == CLGEMM_SUCCESS && (s.splits > 1 || (s.groups > 0 && !sk_persistent))) {
        st = elementwise_kernel(h, s.splits > 1 ? KERNEL_REDUCE : KERNEL_FIXUP, c->precision,
                                c->type_c, table != NULL, &second);
    }
    cl_kernel pack[3] = {NULL, NULL, NULL}; /* by panel_copy (pack.c) */
    for (int r = PANELS_ONE; r <= PANELS_PAIR && st == CLGEMM_SUCCESS && s.pack_kc > 0; r++) {
        kernel_key key;
        const char *options;
        const char *name = clgemm__pack_panels_kernel(c->precision, (panel_copy)r, &key, &options);
        st = kernel_for(h, &key, name, "pack.cl", text_options_fn, (const void *)options, &pack[r]);
    }
    if (st == CLGEMM_SUCCESS && s.groups > 0) {
        gemm_kernel streamk = gk;
        streamk.key.flags |= KEY_STREAMK;
        st = kernel_for(h, &streamk.key, family->kernel, family->file, gemm_options_fn, &streamk,
                        &sk);
    }
    /* Peeled strips: the family's smallest tiles, K split (their partial products in the
     * arithmetic type). */
    cl_kernel reduce = NULL;
    if (st == CLGEMM_SUCCESS && s.peeled) {
        gemm_kernel edge = {.family = clgemm__family(s.small.family), .cfg = &s.small};
        gemm_kernel_key(&edge.key, &s.small, c, &p, compute, table);
        edge.key.type_c = (unsigned char)clgemm__type(c->precision)->compute;
        st = kernel_for(h, &edge.key, edge.family->kernel, edge.family->file, gemm_options_fn,
                        &edge, &strips);
    }
    /* A partial last wave shared out: the head along a 1-D grid, the tail's K split (partial
     * products in the arithmetic type), the reduction. */
    cl_kernel linear = NULL, tail = NULL;
    if (st == CLGEMM_SUCCESS && s.head_tiles > 0) {
        gemm_kernel head = gk;
        head.key.flags |= KEY_LINEAR_TILES;
        st =
            kernel_for(h, &head.key, family->kernel, family->file, gemm_options_fn, &head, &linear);
        gemm_kernel split = gk;
        split.key.type_c = (unsigned char)clgemm__type(c->precision)->compute;
        if (st == CLGEMM_SUCCESS)
            st = kernel_for(h, &split.key, family->kernel, family->file, gemm_options_fn, &split,
                            &tail);
    }
    /* (the strips' and the tail's split layers, added up into C) */
    if (st == CLGEMM_SUCCESS && (s.peeled || s.head_tiles > 0))
        st = elementwise_kernel(h, KERNEL_REDUCE, c->precision, c->type_c, false, &reduce);
    if (st != CLGEMM_SUCCESS) return st;
    cl_mem work = NULL;
    int slot = -1;
    size_t zeroed = 0;
    if (s.workspace) work = workspace_acquire(h, s.workspace, &slot, &zeroed);
    if (s.workspace && !work) {
        /* No room for a workspace: the schedule's fallback, one plain launch (whose C type a
         * split changed, and which a blocked schedule built with PACKED). */
        bool rekey = s.splits > 1 || s.pack_kc > 0;
        s = clgemm__schedule_without_workspace(&s, (size_t)p.m, (size_t)p.n);
        if (rekey) {
            gemm_kernel_key(&gk.key, &cfg, c, &p, compute, table);
            st =
                kernel_for(h, &gk.key, family->kernel, family->file, gemm_options_fn, &gk, &kernel);
            if (st != CLGEMM_SUCCESS) return st;
        }
    }
    sk_persistent = sk_persistent && s.groups > 0; /* (not without its workspace) */
    const int splits = s.splits;
    size_t layers_total = splits > 1 ? batch * (size_t)splits : batch;
    cl_event partial = NULL, done = NULL;
    cl_int err;
    bool unmarked = false; /* launches use the workspace, none of them with an event */
    gemm_call after = *c;  /* c with the hook's commands before it */
    if (s.pack_kc > 0) {
        err = run_hook(hook, c, &after);
        if (err == CL_SUCCESS)
            err = enqueue_blocked(h, &after, &p, &s, kernel, pack, second, work, queue, &done);
    } else if ((s.groups > 0 && !sk_persistent) || s.peeled || s.head_tiles > 0) {
        /* (a tensor-map family's main part, peeled, is its one launch: it starts at the corners
         * its maps start at, and reads them as the whole call would) */
        single_plan one = {&s, kernel, sk, second, strips, reduce, work, linear, tail};
        err = mapped ? set_map_args(h, kernel, maps, 1) : CL_SUCCESS;
        if (err == CL_SUCCESS) err = run_hook(hook, c, &after);
        if (err == CL_SUCCESS) err = enqueue_single(h, &after, &p, &one, queue, &done);
    } else {
        /* With a split, the partial products go to the workspace (ldc = m, beta = 0; matrix b's
         * layers from b * splits * m * n) and the reduction applies beta to C. */
        bool split = splits > 1;
        if (sk_persistent) kernel = sk;
        err = set_gemm_args(h, kernel, c, &p, split ? work : c->c, split ? 0 : c->off_c,
                            split ? p.m : (cl_int)c->ldc,
                            split ? (cl_ulong)splits * (cl_ulong)p.m * (cl_ulong)p.n
                                  : (c->batched ? c->stride_c : 0),
                            !split, splits, table);
        /* The maps' buffer is the handle's (operand_maps.c); the kernel's units: the grid's
         * tiles times layers_total, or the same looped over by persistent work-groups. */
        size_t local[2], global[2], depth = layers_total;
        clgemm__config_launch(&cfg, (size_t)p.m, (size_t)p.n, local, global);
        if (mapped && err == CL_SUCCESS &&
            (err = set_map_args(h, kernel, maps, layers_total)) == CL_SUCCESS) {
            size_t groups = sk_persistent               ? (size_t)s.groups
                            : family->persistent_groups ? family->persistent_groups(&cfg, &h->info)
                                                        : 0;
            if (groups > 0) {
                /* No more work-groups than units, but stream-K's count is its schedule's. */
                size_t units = global[0] / local[0] * global[1] * layers_total;
                global[0] = (sk_persistent || groups < units ? groups : units) * local[0];
                global[1] = local[1];
                depth = 1;
            }
        }
        if (err == CL_SUCCESS) err = run_hook(hook, c, &after);
        cl_uint num_wait = after.num_wait;
        const cl_event *wait = after.wait;
        cl_event zeroing = NULL;
        if (sk_persistent && err == CL_SUCCESS) /* its workspace, the counters zero */
            err = sk_workspace(h, sk, slot, work, zeroed, s.groups, queue, &num_wait, &wait,
                               &zeroing);
        /* On an in-order queue the sum follows the partial products without their event (on
         * NVIDIA a launch that asks for one takes about 3 us more host time). */
        const bool follows = work && !sk_persistent && in_order(queue);
        bool launched = false;
        if (err == CL_SUCCESS)
            launched = (err = enqueue_layers(h, queue, kernel, global, local, depth, num_wait, wait,
                                             !work     ? c->event
                                             : follows ? NULL
                                                       : &partial)) == CL_SUCCESS;
        if (zeroing) clReleaseEvent(zeroing);
        if (!work) return err;
        if (sk_persistent) { /* one launch, which adds its parts itself: its event is the call's */
            done = partial;
            partial = NULL;
        } else {
            /* The workspace is used by no call in flight, so only the caller's events gate this
             * one. */
            launch_chain ch = {follows ? 0 : 1, follows ? NULL : &partial, NULL};
            if (err == CL_SUCCESS)
                err = enqueue_reduce(h, second, c, &p, c->off_c, splits, work, table, batch, queue,
                                     &ch);
            done = ch.last;
            /* (the partial products, launched without their event, where the sum could not be
             * enqueued) */
            unmarked = follows && launched && !done;
        }
    }
    /* Busy until the last launch is done, or (if it failed to enqueue) the first. */
    if (work && unmarked)
        partial = workspace_release_in_order(h, slot, work, queue);
    else if (work)
        workspace_release(h, slot, work, done ? done : partial);
    if (err == CL_SUCCESS && c->event) {
        *c->event = done;
        done = NULL;
    }
    if (done) clReleaseEvent(done);
    if (partial) clReleaseEvent(partial);
    return err;
}

/* One event for the enqueued copies (their events released), NULL for none; never a wait on the
 * host, since they may wait on an event the caller sets after the call returns. */
static cl_event copies_done(cl_command_queue queue, cl_uint copies, cl_event *copied) {
    cl_event all = NULL;
    if (copies && clEnqueueMarkerWithWaitList(queue, copies, copied, &all) != CL_SUCCESS) {
        all = copied[copies - 1]; /* the last one (an in-order queue's last) kept instead */
        copies--;
    }
    for (cl_uint i = 0; i < copies; i++)
        clReleaseEvent(copied[i]);
    return all;
}

/* The copies of a call over copies (enqueue_packed), enqueued as its product's launch hook. */
typedef struct packed_copies {
    const gemm_call *c, *q; /* the call as given; as it reads the copies */
    const pack_choice *pack;
    cl_command_queue queue;
    cl_mem work;
    cl_kernel kernel[2], residual; /* each operand's copy; the 3xTF32 split */
    cl_event copied[4];            /* their events, where the queue runs out of order */
    cl_uint copies;                /* enqueued so far */
    bool in_order;                 /* the product follows them without their events */
    bool failed;
} packed_copies;

static cl_event *copy_event(packed_copies *pc) {
    return pc->in_order ? NULL : &pc->copied[pc->copies];
}

static cl_int enqueue_copies(void *ctx, cl_uint *num_wait, const cl_event **wait) {
    packed_copies *pc = ctx;
    const gemm_call *c = pc->c;
    const pack_choice *pack = pc->pack;
    cl_int err = CL_SUCCESS;
    for (int x = 0; x < 2 && err == CL_SUCCESS; x++)
        if (pack->pack[x] &&
            (err = clgemm__enqueue_pack(pc->kernel[x], pc->queue, c, x == 1, pack->keep_layout[x],
                                        pc->work, pack->offset[x], c->num_wait, c->wait,
                                        copy_event(pc))) == CL_SUCCESS)
            pc->copies++;
    /* The split of each operand the product reads: of its copy once that is made (on an
     * in-order queue, after it without its event). */
    if (pack->residual) {
        const cl_uint made = pc->copies;
        const bool after = made > 0;
        const cl_uint split_wait = !after ? c->num_wait : pc->in_order ? 0 : made;
        const cl_event *split_list = !after ? c->wait : pc->in_order ? NULL : pc->copied;
        for (int x = 0; x < 2 && err == CL_SUCCESS; x++) {
            if (pack->whole[x]) continue; /* split by the kernel */
            if ((err = clgemm__enqueue_residual(pc->residual, pc->queue, pc->q, x == 1, split_wait,
                                                split_list, copy_event(pc))) == CL_SUCCESS)
                pc->copies++;
        }
    }
    pc->failed = err != CL_SUCCESS;
    /* The product after the copies: on an in-order queue it follows them (they waited for the
     * caller's list); with none made, it waits for the caller's list itself. */
    *num_wait = pc->copies == 0 ? c->num_wait : pc->in_order ? 0 : pc->copies;
    *wait = pc->copies == 0 ? c->wait : pc->in_order ? NULL : pc->copied;
    return err;
}

/* The copies' workspace back to the handle, busy until the copies enqueued so far are done; their
 * event (NULL for none), the caller's to release. */
static cl_event copies_release(struct clgemm_handle_s *h, int slot, packed_copies *pc) {
    if (slot >= 0) h->work[slot].held = false;
    if (pc->in_order && pc->copies) return workspace_release_in_order(h, slot, pc->work, pc->queue);
    cl_event all = pc->in_order ? NULL : copies_done(pc->queue, pc->copies, pc->copied);
    workspace_release(h, slot, pc->work, all);
    return all;
}

/* A call whose operands the planner's tensor-map family can read only as copies (pack.c), or
 * only split in two (the 3xTF32 mode), or whose family reads them faster on 16-byte lines (the
 * alignment copies): the copies, then the splits, go to a
 * workspace, held from its taking until the product that reads them is enqueued and busy until
 * that product is done; the product waits for them, the copies for the caller's wait list. They
 * are enqueued as the product's launch hook, right before its first launch. Where the copies
 * cannot be had (the workspace's memory, a build, an enqueue) the call runs as it stands. */
static clgemm_status enqueue_packed(struct clgemm_handle_s *h, const gemm_call *c,
                                    const pack_choice *pack, cl_mem table, cl_command_queue queue) {
    int slot;
    cl_mem work = workspace_acquire(h, pack->bytes, &slot, NULL);
    if (!work) return enqueue_gemm(h, c, table, queue, NULL, NULL);
    if (slot >= 0) h->work[slot].held = true;
    gemm_call q = clgemm__packed_call(c, pack, work);
    packed_copies pc = {
        .c = c, .q = &q, .pack = pack, .queue = queue, .work = work, .in_order = in_order(queue)};
    kernel_key key;
    const char *options;
    cl_int err = CL_SUCCESS;
    for (int x = 0; x < 2 && err == CL_SUCCESS; x++) {
        if (!pack->pack[x]) continue;
        const char *name = clgemm__pack_kernel(c, pack->keep_layout[x], &key, &options);
        err = kernel_for(h, &key, name, "pack.cl", text_options_fn, (const void *)options,
                         &pc.kernel[x]);
    }
    if (err == CL_SUCCESS && pack->residual) {
        clgemm__residual_kernel(&key, &options);
        err = kernel_for(h, &key, "clgemm_pack_split", "pack.cl", text_options_fn,
                         (const void *)options, &pc.residual);
    }
    cl_event done = NULL;
    clgemm_status st = (clgemm_status)err;
    if (err == CL_SUCCESS) {
        const launch_hook hook = {enqueue_copies, &pc};
        q.event = &done;
        st = enqueue_gemm(h, &q, table, queue, &pack->schedule, &hook);
    }
    if (err != CL_SUCCESS || pc.failed) {
        /* No copy to run on (a build, an enqueue): nothing reads the workspace, which the copies
         * made so far still write until they are done; the call runs as it stands. */
        cl_event copying = copies_release(h, slot, &pc);
        if (copying) clReleaseEvent(copying);
        return enqueue_gemm(h, c, table, queue, NULL, NULL);
    }
    /* If nothing that reads it was enqueued, the copies still write it until they are done. */
    if (!done) {
        done = copies_release(h, slot, &pc);
    } else {
        for (cl_uint i = 0; !pc.in_order && i < pc.copies; i++)
            clReleaseEvent(pc.copied[i]);
        if (slot >= 0) h->work[slot].held = false;
        workspace_release(h, slot, work, done);
    }
    if (st == CLGEMM_SUCCESS && c->event)
        *c->event = done;
    else if (done)
        clReleaseEvent(done);
    return st;
}

clgemm_status clgemm__gemm(struct clgemm_handle_s *h, const gemm_call *c) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    clgemm__device_address_sweep(); /* buffers the caller has released since the last call */
    size_t extent[3];
    clgemm_status st = clgemm__check_call(h, c, extent);
    if (st != CLGEMM_SUCCESS) return st;
    cl_command_queue queue = c->queue ? c->queue : h->queue;
    if (c->m == 0 || c->n == 0 || batch_of(c) == 0) {
        /* Nothing to compute; the event still completes after the wait list, as a kernel's
         * would. */
        if (c->event) return clEnqueueMarkerWithWaitList(queue, c->num_wait, c->wait, c->event);
        return CLGEMM_SUCCESS;
    }
    /* The table is made outside the lock (it is the caller's own upload). */
    cl_mem table = NULL;
    if (has_table(c) && (st = make_table(h, c, &table)) != CLGEMM_SUCCESS) return st;
    /* One kernel object per program is shared by all threads: setting its arguments and
     * enqueueing it must not interleave with another call's. */
    pthread_mutex_lock(&h->lock);
    if (scale_only(c)) {
        colmajor_shape shape = clgemm__colmajor_shape(c);
        st = enqueue_scale(h, c, (cl_int)shape.m, (cl_int)shape.n, table, queue);
    } else {
        pack_choice pack;
        st = clgemm__pack_choose(h, c, call_compute(h, c), &pack)
                 ? enqueue_packed(h, c, &pack, table, queue)
                 : enqueue_gemm(h, c, table, queue, NULL, NULL);
    }
    pthread_mutex_unlock(&h->lock);
    if (table) clReleaseMemObject(table);
    return st;
}
