/* device.c: the device path of the drop-in. One clgemm handle shared by every thread (the
 * library is thread-safe), created on first use on clgemm_create_default's device, plus two
 * queues of its context for uploads and downloads. A call is cut into tiles of C (and chunks
 * of K) that fit CLGEMM_BLAS_POOL_MB; with more than one, two sets of buffers alternate so
 * the copies of the next tile overlap the multiply of this one. Copies are rectangular, so
 * only the m x n block of C is ever written: the gaps of a larger ldc (and the parts of C
 * other threads may be computing) stay untouched.
 *
 * With CLGEMM_BLAS_LOG=2 the copy queues profile their commands, and each thread adds up the
 * device time and bytes of its copies (clgemm__blas_copy_clock) for the log's call lines.
 *
 * After fork() the device is the parent's: OpenCL does not survive it (the child has none of the
 * driver's threads, its first wait would never return). A child forked once the device was
 * being opened never touches the handle, queues or pool again, and its calls go to the system
 * BLAS; a child forked before any device use opens the device itself as usual. */
#include "blas.h"

#include <clgemm.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The device function of each type, on column-major buffers at offset 0. A NULL entry would
 * send that type's calls to the system BLAS. */
typedef clgemm_status (*device_fn)(clgemm_handle h, const blas_call *call, size_t m, size_t n,
                                   size_t k, const void *beta, cl_mem a, size_t lda, cl_mem b,
                                   size_t ldb, cl_mem c, size_t ldc, cl_uint num_wait,
                                   const cl_event *wait, cl_event *event);

/* 'C' conjugates only for c/z; on s/d reference BLAS treats it as 'T'. */
static clgemm_status device_s(clgemm_handle h, const blas_call *call, size_t m, size_t n, size_t k,
                              const void *beta, cl_mem a, size_t lda, cl_mem b, size_t ldb,
                              cl_mem c, size_t ldc, cl_uint num_wait, const cl_event *wait,
                              cl_event *event) {
    return clgemm_sgemm(h, CLGEMM_COL_MAJOR, clgemm__blas_trans(call->type, call->ta),
                        clgemm__blas_trans(call->type, call->tb), m, n, k,
                        *(const float *)call->alpha, a, 0, lda, b, 0, ldb, *(const float *)beta, c,
                        0, ldc, NULL, num_wait, wait, event);
}

static clgemm_status device_d(clgemm_handle h, const blas_call *call, size_t m, size_t n, size_t k,
                              const void *beta, cl_mem a, size_t lda, cl_mem b, size_t ldb,
                              cl_mem c, size_t ldc, cl_uint num_wait, const cl_event *wait,
                              cl_event *event) {
    return clgemm_dgemm(h, CLGEMM_COL_MAJOR, clgemm__blas_trans(call->type, call->ta),
                        clgemm__blas_trans(call->type, call->tb), m, n, k,
                        *(const double *)call->alpha, a, 0, lda, b, 0, ldb, *(const double *)beta,
                        c, 0, ldc, NULL, num_wait, wait, event);
}

/* alpha and beta of c/z are two floats/doubles (re, im), the layout of cl_float2/cl_double2. */
static clgemm_status device_c(clgemm_handle h, const blas_call *call, size_t m, size_t n, size_t k,
                              const void *beta, cl_mem a, size_t lda, cl_mem b, size_t ldb,
                              cl_mem c, size_t ldc, cl_uint num_wait, const cl_event *wait,
                              cl_event *event) {
    const float *al = call->alpha, *be = beta;
    cl_float2 alpha2 = {{al[0], al[1]}}, beta2 = {{be[0], be[1]}};
    return clgemm_cgemm(h, CLGEMM_COL_MAJOR, clgemm__blas_trans(call->type, call->ta),
                        clgemm__blas_trans(call->type, call->tb), m, n, k, alpha2, a, 0, lda, b, 0,
                        ldb, beta2, c, 0, ldc, NULL, num_wait, wait, event);
}

static clgemm_status device_z(clgemm_handle h, const blas_call *call, size_t m, size_t n, size_t k,
                              const void *beta, cl_mem a, size_t lda, cl_mem b, size_t ldb,
                              cl_mem c, size_t ldc, cl_uint num_wait, const cl_event *wait,
                              cl_event *event) {
    const double *al = call->alpha, *be = beta;
    cl_double2 alpha2 = {{al[0], al[1]}}, beta2 = {{be[0], be[1]}};
    return clgemm_zgemm(h, CLGEMM_COL_MAJOR, clgemm__blas_trans(call->type, call->ta),
                        clgemm__blas_trans(call->type, call->tb), m, n, k, alpha2, a, 0, lda, b, 0,
                        ldb, beta2, c, 0, ldc, NULL, num_wait, wait, event);
}

static const device_fn device_fns[BLAS_TYPE_COUNT] = {device_s, device_d, device_c, device_z};

static struct {
    int ok;
    clgemm_handle handle;
    cl_context context;
    cl_command_queue up, down;
    int fp64;
    int gpu;     /* CL_DEVICE_TYPE_GPU or ACCELERATOR: copies cross a bus (lapack_block.c) */
    int profile; /* the copy queues profile (CLGEMM_BLAS_LOG=2) */
    size_t max_alloc;
} dev;
static pthread_once_t dev_once = PTHREAD_ONCE_INIT;
static atomic_bool dev_started; /* open_device began, here or in an ancestor process */
static atomic_bool dev_forked;  /* ... and this process was forked after that */

/* The child's calls will need the system BLAS: load it before the fork, so that the child
 * never waits on a load another thread of the parent was in the middle of. */
static void before_fork(void) {
    if (atomic_load(&dev_started)) clgemm__blas_system_gemm(BLAS_S);
}

static void in_child(void) {
    if (atomic_load(&dev_started)) atomic_store(&dev_forked, true);
}

int clgemm__blas_device_forked(void) {
    return atomic_load(&dev_forked);
}

static void open_device(void) {
    const blas_settings *s = clgemm__blas_settings();
    double t0 = clgemm__blas_seconds();
    /* The system BLAS is loaded before the fork handler is registered: a BLAS that starts
     * threads when loaded (OpenBLAS) registers its own handler to stop them before a fork, and
     * one registered later runs first. Loaded from within before_fork, its handler would miss
     * that fork and the child would wait forever for the parent's threads. */
    clgemm__blas_system_gemm(BLAS_S);
    pthread_atfork(before_fork, NULL, in_child);
    atomic_store(&dev_started, true);
    clgemm_status st = clgemm_create_default(&dev.handle);
    if (st != CLGEMM_SUCCESS) {
        if (s->log) clgemm__blas_log("no device: %s", clgemm_status_string(st));
        return;
    }
    dev.context = clgemm_context(dev.handle);
    cl_device_id device = clgemm_device(dev.handle);
    cl_device_fp_config fp64 = 0;
    cl_ulong max_alloc = 0;
    cl_device_type type = 0;
    clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    dev.gpu = (type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    dev.fp64 = fp64 != 0;
    dev.max_alloc = (size_t)max_alloc;
    cl_int e1, e2;
    dev.profile = s->log >= 2;
    cl_command_queue_properties props = dev.profile ? CL_QUEUE_PROFILING_ENABLE : 0;
    dev.up = clCreateCommandQueue(dev.context, device, props, &e1);
    dev.down = clCreateCommandQueue(dev.context, device, props, &e2);
    if (!dev.up || !dev.down || dev.max_alloc == 0) {
        if (s->log) clgemm__blas_log("no device: copy queues failed (%d, %d)", e1, e2);
        return;
    }
    if (s->log) {
        char name[256] = "";
        clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
        clgemm__blas_log("device: %s (opened in %.3f s)", name, clgemm__blas_seconds() - t0);
    }
    dev.ok = 1;
}

/* Tile sizes: the largest that fit the pool with the buffer sets they need. Each buffer
 * also stays within the device's largest allocation and 2^30 elements (clgemm's spans). */
typedef struct plan {
    size_t mb, nb, kb;
    int ab_sets, c_sets; /* 2 when there are several chunks / tiles to alternate */
} plan;

static size_t ceil_div(size_t a, size_t b) {
    return (a + b - 1) / b;
}

static int fits(const blas_call *call, plan *p, size_t budget) {
    size_t e = clgemm__blas_elem(call->type);
    size_t steps = ceil_div((size_t)call->k, p->kb);
    size_t tiles = ceil_div((size_t)call->m, p->mb) * ceil_div((size_t)call->n, p->nb);
    p->ab_sets = steps * tiles > 1 ? 2 : 1;
    p->c_sets = tiles > 1 ? 2 : 1;
    size_t sizes[3] = {p->mb * p->kb, p->kb * p->nb, p->mb * p->nb};
    for (int i = 0; i < 3; i++)
        if (sizes[i] > ((size_t)1 << 30) || sizes[i] * e > dev.max_alloc) return 0;
    return (p->ab_sets * (sizes[0] + sizes[1]) + p->c_sets * sizes[2]) * e <= budget;
}

static int make_plan(const blas_call *call, plan *p) {
    p->mb = (size_t)call->m, p->nb = (size_t)call->n, p->kb = (size_t)call->k;
    size_t budget = clgemm__blas_settings()->pool_bytes;
    while (!fits(call, p, budget)) {
        size_t *largest = p->mb >= p->nb && p->mb >= p->kb ? &p->mb
                          : p->nb >= p->kb                 ? &p->nb
                                                           : &p->kb;
        if (*largest == 1) return 0;
        *largest = ceil_div(*largest, 2);
    }
    return 1;
}

/* Copies a rows x cols block at (r0, c0) of a column-major host matrix (leading dimension ld)
 * to or from a packed device buffer (leading dimension rows). */
static cl_int copy_block(cl_command_queue q, int to_device, cl_mem buf, const void *host, size_t ld,
                         size_t r0, size_t c0, size_t rows, size_t cols, size_t e, cl_uint num_wait,
                         const cl_event *wait, cl_event *event) {
    if (num_wait == 0) wait = NULL; /* OpenCL rejects a list pointer with no events */
    size_t origin[3] = {0, 0, 0}, host_origin[3] = {r0 * e, c0, 0}, region[3] = {rows * e, cols, 1};
    if (to_device)
        return clEnqueueWriteBufferRect(q, buf, CL_FALSE, origin, host_origin, region, rows * e, 0,
                                        ld * e, 0, host, num_wait, wait, event);
    return clEnqueueReadBufferRect(q, buf, CL_FALSE, origin, host_origin, region, rows * e, 0,
                                   ld * e, 0, (void *)host, num_wait, wait, event);
}

/* This thread's copies so far: device seconds and bytes (only with CLGEMM_BLAS_LOG=2). */
static _Thread_local blas_copy_clock copies_so_far;

blas_copy_clock clgemm__blas_copy_clock(void) {
    return copies_so_far;
}

/* The copy events of one call, kept (when the queues profile) to be added up once it is done. */
typedef struct copy_log {
    cl_event *events;
    size_t count, capacity;
    double bytes;
} copy_log;

static void keep_copy(copy_log *log, cl_event ev, size_t bytes) {
    if (!log->events || log->count == log->capacity) return;
    clRetainEvent(ev);
    log->events[log->count++] = ev;
    log->bytes += (double)bytes;
}

static void add_up_copies(copy_log *log) {
    for (size_t i = 0; i < log->count; i++) {
        cl_ulong start = 0, end = 0;
        clGetEventProfilingInfo(log->events[i], CL_PROFILING_COMMAND_START, sizeof start, &start,
                                NULL);
        clGetEventProfilingInfo(log->events[i], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        if (end > start) copies_so_far.seconds += 1e-9 * (double)(end - start);
        clReleaseEvent(log->events[i]);
    }
    copies_so_far.bytes += log->bytes;
    free(log->events);
}

static void replace(cl_event *slot, cl_event ev) {
    if (*slot) clReleaseEvent(*slot);
    *slot = ev;
}

/* The sub-call of tile (i, j) of C, for the host to finish what the device did not. */
static blas_call tile_call(const blas_call *call, size_t e, size_t i0, size_t j0, size_t mb,
                           size_t nb) {
    blas_call t = *call;
    t.m = (int)mb, t.n = (int)nb;
    t.a = (const char *)call->a + (call->ta == 'N' ? i0 : i0 * (size_t)call->lda) * e;
    t.b = (const char *)call->b + (call->tb == 'N' ? j0 * (size_t)call->ldb : j0) * e;
    t.c = (char *)call->c + (i0 + j0 * (size_t)call->ldc) * e;
    return t;
}

int clgemm__blas_device_usable(blas_type t) {
    if (!device_fns[t] || atomic_load(&dev_forked)) return 0;
    pthread_once(&dev_once, open_device);
    return dev.ok && !((t == BLAS_D || t == BLAS_Z) && !dev.fp64);
}

int clgemm__blas_device_is_gpu(void) {
    if (atomic_load(&dev_forked)) return 0;
    pthread_once(&dev_once, open_device);
    return dev.ok && dev.gpu;
}

int clgemm__blas_device_gemm(const blas_call *call) {
    device_fn fn = device_fns[call->type];
    if (!fn || atomic_load(&dev_forked)) return 1; /* dev_once may be mid-call at the fork */
    if (clgemm__blas_multi_gemm(call) == 0) return 0;
    pthread_once(&dev_once, open_device);
    if (!dev.ok || ((call->type == BLAS_D || call->type == BLAS_Z) && !dev.fp64)) return 1;
    plan p;
    if (!make_plan(call, &p)) return 1;

    size_t e = clgemm__blas_elem(call->type);
    size_t m = (size_t)call->m, n = (size_t)call->n, k = (size_t)call->k;
    size_t tiles_m = ceil_div(m, p.mb), tiles_n = ceil_div(n, p.nb), chunks = ceil_div(k, p.kb);
    size_t tiles = tiles_m * tiles_n;
    /* Buffers: A, B of each A/B set, then C of each C set. */
    int count = 2 * p.ab_sets + p.c_sets, ids[6];
    size_t bytes[6];
    cl_mem bufs[6];
    for (int s = 0; s < p.ab_sets; s++)
        bytes[2 * s] = p.mb * p.kb * e, bytes[2 * s + 1] = p.kb * p.nb * e;
    for (int s = 0; s < p.c_sets; s++)
        bytes[2 * p.ab_sets + s] = p.mb * p.nb * e;
    cl_event *done = calloc(tiles, sizeof *done);
    if (!done) return 1;
    /* At most three uploads a step (A, B, C) and one download a tile. */
    copy_log copies = {NULL, 0, 3 * tiles * chunks + tiles, 0};
    if (dev.profile) copies.events = malloc(copies.capacity * sizeof *copies.events);
    if (clgemm__blas_pool_acquire(dev.context, clgemm__blas_settings()->pool_bytes, count, bytes,
                                  bufs, ids)) {
        if (clgemm__blas_settings()->log) clgemm__blas_log("no device buffers");
        free(done);
        free(copies.events);
        return 1;
    }

    static const double one[2] = {1, 0};
    static const float one_f[2] = {1, 0};
    const void *beta_one =
        call->type == BLAS_S || call->type == BLAS_C ? (const void *)one_f : (const void *)one;
    int beta_zero = clgemm__blas_scalar_is(call->type, call->beta, 0);

    cl_event ab_free[2] = {NULL, NULL}, c_free[2] = {NULL, NULL}, last = NULL;
    cl_int err = CL_SUCCESS;
    size_t step = 0, tile = 0;
    for (size_t tj = 0; tj < tiles_n && !err; tj++)
        for (size_t ti = 0; ti < tiles_m && !err; ti++, tile++) {
            size_t i0 = ti * p.mb, j0 = tj * p.nb;
            size_t mb = m - i0 < p.mb ? m - i0 : p.mb, nb = n - j0 < p.nb ? n - j0 : p.nb;
            int cs = (int)(tile % (size_t)p.c_sets);
            cl_mem cbuf = bufs[2 * p.ab_sets + cs];
            for (size_t pc = 0; pc < chunks && !err; pc++, step++) {
                size_t p0 = pc * p.kb, kb = k - p0 < p.kb ? k - p0 : p.kb;
                int s = (int)(step % (size_t)p.ab_sets);
                cl_event wait[4];
                cl_uint nw = 0, nfree = ab_free[s] ? 1 : 0;
                /* op(A)'s rows i0.., columns p0.. as stored; likewise op(B)'s p0.., j0... */
                int ta = call->ta == 'N', tb = call->tb == 'N';
                err = copy_block(dev.up, 1, bufs[2 * s], call->a, (size_t)call->lda, ta ? i0 : p0,
                                 ta ? p0 : i0, ta ? mb : kb, ta ? kb : mb, e, nfree, &ab_free[s],
                                 &wait[nw]);
                if (err) break;
                keep_copy(&copies, wait[nw++], mb * kb * e);
                err = copy_block(dev.up, 1, bufs[2 * s + 1], call->b, (size_t)call->ldb,
                                 tb ? p0 : j0, tb ? j0 : p0, tb ? kb : nb, tb ? nb : kb, e, nfree,
                                 &ab_free[s], &wait[nw]);
                if (err) break;
                keep_copy(&copies, wait[nw++], kb * nb * e);
                if (pc == 0 && !beta_zero) {
                    err = copy_block(dev.up, 1, cbuf, call->c, (size_t)call->ldc, i0, j0, mb, nb, e,
                                     c_free[cs] ? 1 : 0, &c_free[cs], &wait[nw]);
                    if (err) break;
                    keep_copy(&copies, wait[nw++], mb * nb * e);
                } else if (pc == 0 && c_free[cs]) {
                    clRetainEvent(c_free[cs]); /* the multiply overwrites what is downloading */
                    wait[nw++] = c_free[cs];
                }
                if (last) wait[nw++] = last, clRetainEvent(last);
                cl_event ev = NULL;
                clgemm_status st =
                    fn(dev.handle, call, mb, nb, kb, pc == 0 ? call->beta : beta_one, bufs[2 * s],
                       ta ? mb : kb, bufs[2 * s + 1], tb ? kb : nb, cbuf, mb, nw, wait, &ev);
                for (cl_uint w = 0; w < nw; w++)
                    clReleaseEvent(wait[w]);
                if (st != CLGEMM_SUCCESS) {
                    err = st;
                    break;
                }
                clRetainEvent(ev);
                replace(&ab_free[s], ev);
                replace(&last, ev);
            }
            if (err) break;
            cl_event down = NULL;
            err = copy_block(dev.down, 0, cbuf, call->c, (size_t)call->ldc, i0, j0, mb, nb, e, 1,
                             &last, &down);
            if (err) break;
            keep_copy(&copies, down, mb * nb * e);
            clRetainEvent(down);
            replace(&c_free[cs], down);
            done[tile] = down;
        }
    if (err && clgemm__blas_settings()->log)
        clgemm__blas_log("device call failed: %s", clgemm_status_string(err));
    /* Everything enqueued must finish before the buffers go back to the pool or the host
     * finishes tiles itself. */
    clFinish(dev.up);
    clFinish(clgemm_queue(dev.handle));
    clFinish(dev.down);
    add_up_copies(&copies);
    size_t finished = 0;
    for (size_t t = 0; t < tiles; t++) {
        cl_int status = -1;
        if (done[t])
            clGetEventInfo(done[t], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                           NULL);
        if (status != CL_COMPLETE) {
            if (done[t]) clReleaseEvent(done[t]);
            done[t] = NULL;
        }
        finished += done[t] != NULL;
    }
    if (finished > 0 && finished < tiles) {
        if (clgemm__blas_settings()->log)
            clgemm__blas_log("device stopped after %zu of %zu tiles; the host does the rest",
                             finished, tiles);
        for (size_t t = 0; t < tiles; t++) {
            if (done[t]) continue;
            size_t i0 = (t % tiles_m) * p.mb, j0 = (t / tiles_m) * p.nb;
            size_t mb = m - i0 < p.mb ? m - i0 : p.mb, nb = n - j0 < p.nb ? n - j0 : p.nb;
            blas_call sub = tile_call(call, e, i0, j0, mb, nb);
            clgemm__blas_run_host(&sub);
        }
    }
    for (size_t t = 0; t < tiles; t++)
        if (done[t]) clReleaseEvent(done[t]);
    for (int s = 0; s < 2; s++) {
        if (ab_free[s]) clReleaseEvent(ab_free[s]);
        if (c_free[s]) clReleaseEvent(c_free[s]);
    }
    if (last) clReleaseEvent(last);
    free(done);
    clgemm__blas_pool_release(count, ids);
    return finished == 0;
}
