/* multi.c: one host-array GEMM across several devices. The handle holds one ordinary handle per
 * device; a call cuts C into 2-D tiles, and two host threads per device (each on its own queue:
 * one's copies overlap the other's multiply) take the next tile from a shared counter and
 * compute it with the handle's host-array call on sub-matrices (pointer offsets and the user's
 * leading dimensions), so every type, layout and transpose is the single-device code's. A failed
 * tile goes to the devices still working, in a new round.
 *
 * Test-only hooks, read when the handle is created (never by users): CLGEMM_MULTI_TEST_DELAY_MS
 * ("i:ms,...": device i sleeps ms before each tile) and CLGEMM_MULTI_TEST_FAIL ("i:n,...":
 * device i computes each tile it begins after its first n of a call, then reports
 * CL_OUT_OF_RESOURCES as a failed copy back would: the result must not reach C). */
#include "exec/call.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DEVICES 64
#define STREAMS     2 /* workers per device, each on its own queue */

struct clgemm_multi_handle_s {
    int count;
    clgemm_handle handles[MAX_DEVICES];
    /* A second queue per device (same context): a second worker's copies overlap the first's
     * multiply. */
    cl_command_queue second[MAX_DEVICES];
    int delay_ms[MAX_DEVICES];   /* test hook; 0: none */
    int fail_after[MAX_DEVICES]; /* test hook; -1: none */
    atomic_ullong tiles[MAX_DEVICES];
    atomic_ullong failed[MAX_DEVICES];
    atomic_int last_error[MAX_DEVICES];
    atomic_size_t tile_rows, tile_cols; /* 0: automatic */
};

/* ---- Creation ----------------------------------------------------------------------------- */

/* Reads "i:v,i:v" into values[i] (other entries unchanged); garbage is ignored. */
static void read_hook(const char *name, int *values, int count) {
    const char *s = getenv(name);
    while (s && *s) {
        char *end;
        long i = strtol(s, &end, 10);
        if (end != s && *end == ':') {
            const char *v = end + 1;
            long x = strtol(v, &end, 10);
            if (end != v && i >= 0 && i < count && x >= 0 && x <= 100000) values[i] = (int)x;
        }
        s = strchr(s, ',');
        if (s) s++;
    }
}

static bool listed(const cl_device_id *list, int n, cl_device_id d) {
    for (int i = 0; i < n; i++)
        if (list[i] == d) return true;
    return false;
}

/* Appends to out[*n] the devices CLGEMM_DEVICES names, or the default set (every GPU of the
 * first platform with one, else every device of the first platform). */
static clgemm_status find_devices(cl_device_id *out, int *n) {
    cl_platform_id platforms[16];
    cl_uint np = 0;
    *n = 0;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0) return CLGEMM_ERR_NO_DEVICE;
    if (np > 16) np = 16;
    const char *env = getenv("CLGEMM_DEVICES");
    if (env && *env) {
        for (const char *spec = env; spec;
             spec = strchr(spec, ',') ? strchr(spec, ',') + 1 : NULL) {
            size_t len = strcspn(spec, ",");
            if (len == 0) return CLGEMM_ERR_NO_DEVICE; /* "a,,b" or a trailing comma */
            const char *colon = memchr(spec, ':', len);
            size_t plen = colon ? (size_t)(colon - spec) : len;
            const char *dspec = colon ? colon + 1 : spec + len;
            size_t dlen = colon ? len - plen - 1 : 0;
            int before = *n;
            for (cl_uint p = 0; p < np; p++) {
                char pname[128] = "";
                clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
                pname[sizeof pname - 1] = 0;
                if (!clgemm__spec_matches(spec, plen, p, pname)) continue;
                cl_device_id devices[MAX_DEVICES];
                cl_uint nd = 0;
                if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &nd) !=
                    CL_SUCCESS)
                    continue;
                if (nd > MAX_DEVICES) nd = MAX_DEVICES;
                for (cl_uint d = 0; d < nd; d++) {
                    char dname[128] = "";
                    clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof dname, dname, NULL);
                    dname[sizeof dname - 1] = 0;
                    if (clgemm__spec_matches(dspec, dlen, d, dname) && *n < MAX_DEVICES &&
                        !listed(out, *n, devices[d]))
                        out[(*n)++] = devices[d];
                }
            }
            /* A spec that adds nothing new matched nothing, or repeats one: both mistakes. */
            if (*n == before) return CLGEMM_ERR_NO_DEVICE;
        }
        return CLGEMM_SUCCESS;
    }
    for (int want_gpu = 1; want_gpu >= 0; want_gpu--)
        for (cl_uint p = 0; p < np; p++) {
            cl_uint nd = 0;
            cl_device_type type = want_gpu ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL;
            if (clGetDeviceIDs(platforms[p], type, MAX_DEVICES, out, &nd) != CL_SUCCESS || nd == 0)
                continue;
            *n = nd > MAX_DEVICES ? MAX_DEVICES : (int)nd;
            return CLGEMM_SUCCESS;
        }
    return CLGEMM_ERR_NO_DEVICE;
}

/* One context per platform over its devices of the list, then a queue and handle per device. */
static clgemm_status create_handles(clgemm_multi_handle h, const cl_device_id *devices) {
    cl_platform_id plat[MAX_DEVICES];
    for (int i = 0; i < h->count; i++) {
        cl_int err =
            clGetDeviceInfo(devices[i], CL_DEVICE_PLATFORM, sizeof plat[i], &plat[i], NULL);
        if (err != CL_SUCCESS) return CLGEMM_ERR_NO_DEVICE;
    }
    for (int i = 0; i < h->count; i++) {
        bool first = true;
        for (int j = 0; j < i; j++)
            if (plat[j] == plat[i]) first = false;
        if (!first) continue;
        cl_device_id group[MAX_DEVICES];
        int gi[MAX_DEVICES], ng = 0;
        for (int j = i; j < h->count; j++)
            if (plat[j] == plat[i]) {
                group[ng] = devices[j];
                gi[ng++] = j;
            }
        cl_int err;
        cl_context ctx = clCreateContext(NULL, (cl_uint)ng, group, NULL, NULL, &err);
        if (err != CL_SUCCESS) return err;
        clgemm_status st = CLGEMM_SUCCESS;
        for (int g = 0; g < ng && st == CLGEMM_SUCCESS; g++) {
            cl_command_queue q = clCreateCommandQueue(ctx, group[g], 0, &err);
            if (err != CL_SUCCESS) {
                st = err;
                break;
            }
            st = clgemm_create(&h->handles[gi[g]], q); /* the handle retains q and ctx */
            clReleaseCommandQueue(q);
            if (st == CLGEMM_SUCCESS) {
                h->second[gi[g]] = clCreateCommandQueue(ctx, group[g], 0, &err);
                if (err != CL_SUCCESS) st = err;
            }
        }
        clReleaseContext(ctx);
        if (st != CLGEMM_SUCCESS) return st;
    }
    return CLGEMM_SUCCESS;
}

clgemm_status clgemm_create_multi(clgemm_multi_handle *handle, const cl_device_id *devices,
                                  int count) {
    if (!handle) return CLGEMM_ERR_NULL_ARGUMENT;
    *handle = NULL;
    if (count < 0 || count > MAX_DEVICES || (devices && count == 0))
        return CLGEMM_ERR_INVALID_ARGUMENT;
    if (!devices && count > 0) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    clgemm__fork_mark_used();
    cl_device_id list[MAX_DEVICES];
    int n = count;
    clgemm_status st = CLGEMM_SUCCESS;
    if (devices) {
        for (int i = 0; i < count; i++) {
            if (!devices[i]) return CLGEMM_ERR_NULL_ARGUMENT;
            if (listed(devices, i, devices[i])) return CLGEMM_ERR_INVALID_ARGUMENT;
            list[i] = devices[i];
        }
    } else {
        pthread_mutex_lock(&clgemm__enumeration_lock);
        st = find_devices(list, &n);
        pthread_mutex_unlock(&clgemm__enumeration_lock);
        if (st != CLGEMM_SUCCESS) return st;
    }
    clgemm_multi_handle h = calloc(1, sizeof *h);
    if (!h) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    h->count = n;
    for (int i = 0; i < n; i++)
        h->fail_after[i] = -1;
    read_hook("CLGEMM_MULTI_TEST_DELAY_MS", h->delay_ms, n);
    read_hook("CLGEMM_MULTI_TEST_FAIL", h->fail_after, n);
    st = create_handles(h, list);
    if (st != CLGEMM_SUCCESS) {
        clgemm_multi_destroy(h);
        return st;
    }
    *handle = h;
    return CLGEMM_SUCCESS;
}

void clgemm_multi_destroy(clgemm_multi_handle h) {
    if (!h) return;
    for (int i = 0; i < h->count; i++)
        clgemm_destroy(h->handles[i]);
    /* A forked child may not touch OpenCL objects (clgemm_destroy frees only memory there). */
    for (int i = 0; i < h->count && !clgemm__forked(); i++)
        if (h->second[i]) clReleaseCommandQueue(h->second[i]);
    free(h);
}

int clgemm_multi_device_count(clgemm_multi_handle h) {
    return h ? h->count : 0;
}

clgemm_handle clgemm_multi_handle_at(clgemm_multi_handle h, int i) {
    return h && i >= 0 && i < h->count ? h->handles[i] : NULL;
}

clgemm_status clgemm_multi_set_tile(clgemm_multi_handle h, size_t rows, size_t cols) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    if ((rows == 0) != (cols == 0)) return CLGEMM_ERR_INVALID_ARGUMENT;
    atomic_store(&h->tile_rows, rows);
    atomic_store(&h->tile_cols, cols);
    return CLGEMM_SUCCESS;
}

clgemm_status clgemm_multi_stats(clgemm_multi_handle h, int i, clgemm_multi_device_stats *stats) {
    if (!h || !stats) return CLGEMM_ERR_NULL_ARGUMENT;
    if (i < 0 || i >= h->count) return CLGEMM_ERR_INVALID_ARGUMENT;
    stats->tiles = atomic_load(&h->tiles[i]);
    stats->failed_tiles = atomic_load(&h->failed[i]);
    stats->last_error = atomic_load(&h->last_error[i]);
    return CLGEMM_SUCCESS;
}

/* ---- One call ----------------------------------------------------------------------------- */

typedef struct {
    clgemm_multi_handle h;
    const gemm_call *call; /* the user's arguments */
    const void *alpha, *beta, *a, *b;
    char *c;
    bool reads_c;           /* beta != 0 */
    bool stage;             /* results through a private buffer (a failed tile may be retried) */
    size_t mb, nb, tiles_n; /* tile rows and columns; tiles along n */
    /* Strided batches: unit t is matrices t * chunk .. of the batch; extent_c is one matrix's
     * span in C's elements. */
    bool batched;
    size_t chunk, extent_c;
    size_t size_ab, size_c;
    /* This round's tiles: order[0 .. count), taken through next; failures appended to retry. */
    const size_t *order;
    size_t count;
    atomic_size_t next;
    pthread_mutex_t lock;
    size_t *retry;
    size_t retried;
    atomic_int started_by[MAX_DEVICES]; /* tiles each device began in this call (test hook) */
    atomic_bool failed_in[MAX_DEVICES]; /* a worker of the device failed: its others stop */
} job;

typedef struct {
    job *j;
    int device;
    cl_command_queue queue; /* NULL: the handle's */
    bool started;           /* on its own thread */
    clgemm_status status;   /* the first error of this device in this call */
} worker;

/* Held around a tile's call on PoCL's CPU devices (device_info.pocl_cpu): they share the host's
 * cores, so taking turns costs nothing, and it keeps two tiles of different sizes from running
 * one kernel at once, which aborts PoCL 3.1 (its cache of loaded kernels). */
static pthread_mutex_t pocl_turns = PTHREAD_MUTEX_INITIALIZER;

static void take_turn(clgemm_handle dev) {
    if (dev->info.pocl_cpu) pthread_mutex_lock(&pocl_turns);
}

static void end_turn(clgemm_handle dev) {
    if (dev->info.pocl_cpu) pthread_mutex_unlock(&pocl_turns);
}

static const char *panel(const void *base, size_t index, size_t step, size_t size) {
    return base ? (const char *)base + index * step * size : NULL;
}

/* Tile t: rows i0 .. of C from the row panel of op(A), columns j0 .. from op(B)'s column panel. */
static clgemm_status run_tile(const job *j, clgemm_handle dev, cl_command_queue queue, size_t t,
                              void *stage, bool fail) {
    const gemm_call *c = j->call;
    size_t i0 = t / j->tiles_n * j->mb, j0 = t % j->tiles_n * j->nb;
    size_t rows = c->m - i0 < j->mb ? c->m - i0 : j->mb;
    size_t cols = c->n - j0 < j->nb ? c->n - j0 : j->nb;
    bool row_major = c->layout == CLGEMM_ROW_MAJOR;
    /* Row i of op(A) is a stored row (step lda) when row-major and not transposed, or
     * column-major and transposed; else it is one element along. Likewise columns of op(B). */
    const char *a =
        panel(j->a, i0, row_major == (c->trans_a == CLGEMM_NO_TRANS) ? c->lda : 1, j->size_ab);
    const char *b =
        panel(j->b, j0, row_major == (c->trans_b == CLGEMM_NO_TRANS) ? 1 : c->ldb, j->size_ab);
    size_t inner = row_major ? cols : rows, outer = row_major ? rows : cols;
    char *cblock = j->c + (row_major ? i0 * c->ldc + j0 : j0 * c->ldc + i0) * j->size_c;
    char *out = cblock;
    size_t ldc = c->ldc;
    if (stage) {
        out = stage;
        ldc = inner;
        if (j->reads_c)
            for (size_t o = 0; o < outer; o++)
                memcpy(out + o * inner * j->size_c, cblock + o * c->ldc * j->size_c,
                       inner * j->size_c);
    }
    gemm_call sub = *c; /* the user's call on the panels, on this worker's queue */
    sub.m = rows;
    sub.n = cols;
    sub.ldc = ldc;
    sub.queue = queue;
    take_turn(dev);
    clgemm_status st = clgemm__host_gemm(dev, &sub, a, b, out);
    end_turn(dev);
    /* The test hook fails a tile whose result exists (as a failed copy back would). */
    if (st == CLGEMM_SUCCESS && fail) st = CL_OUT_OF_RESOURCES;
    if (st == CLGEMM_SUCCESS && stage)
        for (size_t o = 0; o < outer; o++)
            memcpy(cblock + o * c->ldc * j->size_c, out + o * inner * j->size_c, inner * j->size_c);
    return st;
}

/* Chunk t of a strided batch. Staged, the chunk's matrices are packed one after another (C's
 * gaps inside each as they were) and only each matrix's own elements go back: chunks of
 * interleaved matrices then never write each other's elements. */
static clgemm_status run_chunk(const job *j, clgemm_handle dev, size_t t, char *stage, bool fail) {
    const gemm_call *c = j->call;
    size_t b0 = t * j->chunk, count = c->batch - b0 < j->chunk ? c->batch - b0 : j->chunk;
    const char *a = panel(j->a, b0, c->stride_a, j->size_ab);
    const char *b = panel(j->b, b0, c->stride_b, j->size_ab);
    char *cu = j->c + b0 * c->stride_c * j->size_c, *out = cu;
    size_t stride_out = c->stride_c, sc = j->size_c;
    bool row_major = c->layout == CLGEMM_ROW_MAJOR;
    size_t inner = row_major ? c->n : c->m, outer = row_major ? c->m : c->n;
    if (stage) {
        out = stage;
        stride_out = j->extent_c;
        if (j->reads_c) /* each matrix's own elements: the gaps may be another chunk's */
            for (size_t q = 0; q < count; q++)
                for (size_t o = 0; o < outer; o++)
                    memcpy(stage + (q * j->extent_c + o * c->ldc) * sc,
                           cu + (q * c->stride_c + o * c->ldc) * sc, inner * sc);
    }
    take_turn(dev);
    clgemm_status st = clgemm_gemm_strided_batched_host(
        dev, c->layout, c->trans_a, c->trans_b, c->m, c->n, c->k, j->alpha, a, c->lda, c->stride_a,
        b, c->ldb, c->stride_b, j->beta, out, c->ldc, stride_out, count, c->precision, c->type_c,
        c->compute);
    end_turn(dev);
    if (st == CLGEMM_SUCCESS && fail) st = CL_OUT_OF_RESOURCES; /* the test hook */
    if (st == CLGEMM_SUCCESS && stage)
        for (size_t q = 0; q < count; q++)
            for (size_t o = 0; o < outer; o++)
                memcpy(cu + (q * c->stride_c + o * c->ldc) * sc,
                       stage + (q * j->extent_c + o * c->ldc) * sc, inner * sc);
    return st;
}

static void *work(void *arg) {
    worker *w = arg;
    job *j = w->j;
    clgemm_multi_handle h = j->h;
    int d = w->device;
    void *stage = NULL;
    size_t stage_bytes = (j->batched ? j->chunk * j->extent_c : j->mb * j->nb) * j->size_c;
    if (j->stage && !(stage = malloc(stage_bytes))) {
        w->status = CLGEMM_ERR_OUT_OF_HOST_MEMORY;
        return NULL; /* took no tile: the others do them all */
    }
    for (;;) {
        if (atomic_load(&j->failed_in[d])) break;
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->count) break;
        size_t t = j->order[i];
        if (h->delay_ms[d]) {
            struct timespec ts = {h->delay_ms[d] / 1000, (long)(h->delay_ms[d] % 1000) * 1000000};
            nanosleep(&ts, NULL);
        }
        int began = atomic_fetch_add(&j->started_by[d], 1);
        bool fail = h->fail_after[d] >= 0 && began >= h->fail_after[d];
        clgemm_status st = j->batched ? run_chunk(j, h->handles[d], t, stage, fail)
                                      : run_tile(j, h->handles[d], w->queue, t, stage, fail);
        if (st != CLGEMM_SUCCESS) {
            w->status = st;
            atomic_store(&j->failed_in[d], true);
            atomic_fetch_add(&h->failed[d], 1);
            atomic_store(&h->last_error[d], st);
            pthread_mutex_lock(&j->lock);
            j->retry[j->retried++] = t;
            pthread_mutex_unlock(&j->lock);
            break;
        }
        atomic_fetch_add(&h->tiles[d], 1);
    }
    free(stage);
    return NULL;
}

/* Tile edges: about four tiles per worker, at least 256 (multiples of 256), unless forced. */
static void tile_shape(clgemm_multi_handle h, size_t m, size_t n, int workers, size_t *mb,
                       size_t *nb) {
    size_t r = atomic_load(&h->tile_rows), c = atomic_load(&h->tile_cols);
    if (r == 0 || c == 0) { /* (0, 0), or a clgemm_multi_set_tile racing this read */
        double area = (double)m * (double)n / (4.0 * workers);
        size_t e = (size_t)(__builtin_sqrt(area) / 256.0 + 0.5) * 256;
        r = e < 256 ? 256 : e;
        double cols = area / (double)(r < m ? r : m);
        c = (size_t)(cols / 256.0 + 0.5) * 256;
        if (c < 256) c = 256;
    }
    *mb = r < m ? r : m;
    *nb = c < n ? c : n;
}

static clgemm_status multi_gemm(clgemm_multi_handle h, gemm_call *call, const void *alpha,
                                const void *beta, const void *a, const void *b, void *c) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    size_t extent[3];
    clgemm_status st = clgemm__check_shape(call, extent);
    if (st != CLGEMM_SUCCESS) return st;
    /* Devices that cannot compute these types are left out; with none left, the first's status. */
    int active[MAX_DEVICES], na = 0;
    clgemm_status first_refusal = CLGEMM_SUCCESS;
    for (int i = 0; i < h->count; i++) {
        clgemm_status s = clgemm__check_types(h->handles[i], call);
        if (s == CLGEMM_SUCCESS)
            active[na++] = i;
        else if (first_refusal == CLGEMM_SUCCESS)
            first_refusal = s;
    }
    if (na == 0) return first_refusal;
    if (call->m == 0 || call->n == 0 || (call->batched && call->batch == 0)) return CLGEMM_SUCCESS;
    if (!c || (extent[0] && !a) || (extent[1] && !b)) return CLGEMM_ERR_NULL_ARGUMENT;
    if (call->batched) {
        /* As the one-device call checks them, but for the whole batch before any chunk runs. */
        const size_t strides[3] = {call->stride_a, call->stride_b, call->stride_c};
        for (int x = 0; x < 3; x++) {
            size_t span;
            if (extent[x] && (__builtin_mul_overflow(call->batch - 1, strides[x], &span) ||
                              __builtin_add_overflow(span, extent[x], &span)))
                return CLGEMM_ERR_OVERFLOW;
        }
        if ((st = clgemm__check_overlap(call, extent[2])) != CLGEMM_SUCCESS) return st;
    }

    job j = {.h = h, .call = call, .alpha = alpha, .beta = beta, .a = a, .b = b, .c = c};
    j.reads_c = call->beta != 0 || call->beta_im != 0;
    j.size_ab = clgemm__type(call->precision)->size;
    j.size_c = clgemm__type(call->type_c)->size;
    size_t tiles, stage_bytes;
    if (call->batched) {
        /* Chunks of the batch, about four per device (one chunk on one device). */
        j.batched = true;
        j.extent_c = extent[2];
        size_t units = na == 1 ? 1 : 4 * (size_t)na; /* batches keep one queue per device */
        j.chunk = (call->batch + units - 1) / units;
        tiles = (call->batch + j.chunk - 1) / j.chunk;
        if (__builtin_mul_overflow(j.chunk * j.extent_c, j.size_c, &stage_bytes))
            return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    } else {
        tile_shape(h, call->m, call->n, STREAMS * na, &j.mb, &j.nb);
        j.tiles_n = (call->n + j.nb - 1) / j.nb;
        tiles = (call->m + j.mb - 1) / j.mb * j.tiles_n;
        if (__builtin_mul_overflow(j.mb * j.nb, j.size_c, &stage_bytes))
            return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    }
    if (tiles > SIZE_MAX / sizeof(size_t)) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    /* With one device there is nobody to retry on: its tiles go straight into C. */
    j.stage = na > 1 || j.batched; /* batches: so that only matrices' elements are written */
    size_t *order = malloc(tiles * sizeof *order), *retry = malloc(tiles * sizeof *retry);
    worker *workers = malloc((size_t)(STREAMS * na) * sizeof *workers);
    pthread_t *threads = malloc((size_t)(STREAMS * na) * sizeof *threads);
    if (!order || !retry || !workers || !threads || pthread_mutex_init(&j.lock, NULL) != 0) {
        free(order);
        free(retry);
        free(workers);
        free(threads);
        return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    }
    for (size_t t = 0; t < tiles; t++)
        order[t] = t;
    j.order = order;
    j.count = tiles;
    j.retry = retry;
    clgemm_status first_error = CLGEMM_SUCCESS;
    /* Rounds: every working device pulls from this round's tiles; the tiles that failed make
     * the next round, on the devices that did not fail. */
    while (j.count > 0 && na > 0) {
        atomic_store(&j.next, 0);
        j.retried = 0;
        int nw = STREAMS * na;
        for (int w = 0; w < nw; w++) {
            int d = active[w / STREAMS];
            /* Batches run on the handle's queue alone (one worker a device). */
            bool idle = j.batched && w % STREAMS != 0;
            workers[w] = (worker){.j = &j, .device = d, .queue = w % STREAMS ? h->second[d] : NULL};
            /* The last worker runs on the calling thread; one that fails to start takes no
             * tile and takes its device out of the call (the others take its tiles). */
            if (w == nw - 1 || idle) continue;
            if (pthread_create(&threads[w], NULL, work, &workers[w]) == 0)
                workers[w].started = true;
            else
                workers[w].status = CLGEMM_ERR_OUT_OF_HOST_MEMORY;
        }
        if (!(j.batched && (nw - 1) % STREAMS != 0)) work(&workers[nw - 1]);
        for (int w = 0; w < nw; w++)
            if (workers[w].started) pthread_join(threads[w], NULL);
        /* A device stays for the next round when none of its workers failed. */
        int still = 0;
        for (int x = 0; x < na; x++) {
            clgemm_status ds = CLGEMM_SUCCESS;
            for (int w = x * STREAMS; w < (x + 1) * STREAMS; w++)
                if (ds == CLGEMM_SUCCESS) ds = workers[w].status;
            if (ds == CLGEMM_SUCCESS)
                active[still++] = active[x];
            else if (first_error == CLGEMM_SUCCESS)
                first_error = ds;
        }
        na = still;
        /* This round's failed tiles and those nobody took (every thread stopped early) make
         * the next round. Failed ones were taken, so retried <= taken and nothing is overwritten.
         */
        size_t taken = atomic_load(&j.next) < j.count ? atomic_load(&j.next) : j.count;
        memmove(order + j.retried, order + taken, (j.count - taken) * sizeof *order);
        memcpy(order, retry, j.retried * sizeof *order);
        j.count = j.retried + (j.count - taken);
    }
    if (j.count > 0) clgemm__log("multi: %zu tiles of C not computed", j.count);
    pthread_mutex_destroy(&j.lock);
    free(order);
    free(retry);
    free(workers);
    free(threads);
    return j.count > 0 ? (first_error ? first_error : CLGEMM_ERR_OUT_OF_HOST_MEMORY)
                       : CLGEMM_SUCCESS;
}

clgemm_status clgemm_multi_gemm_ex_host(clgemm_multi_handle h, clgemm_layout layout,
                                        clgemm_transpose trans_a, clgemm_transpose trans_b,
                                        size_t m, size_t n, size_t k, const void *alpha,
                                        const void *a, size_t lda, const void *b, size_t ldb,
                                        const void *beta, void *c, size_t ldc,
                                        clgemm_precision type_ab, clgemm_precision type_c,
                                        clgemm_compute compute) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    double sc[4]; /* checked and read as clgemm_gemm_ex_host does */
    clgemm_status st = clgemm__call_scalars(type_ab, alpha, beta, sc);
    if (st != CLGEMM_SUCCESS) return st;
    gemm_call call = {CALL_PROBLEM(type_ab, type_c, compute, POINTER_SCALARS(sc))};
    return multi_gemm(h, &call, alpha, beta, a, b, c);
}

/* Typed entry points: A, B and C of one real type, the default compute mode. */
#define MULTI_HOST_ENTRY(name, type, scalar)                                                       \
    clgemm_status name(clgemm_multi_handle h, clgemm_layout layout, clgemm_transpose trans_a,      \
                       clgemm_transpose trans_b, size_t m, size_t n, size_t k, scalar alpha,       \
                       const scalar *a, size_t lda, const scalar *b, size_t ldb, scalar beta,      \
                       scalar *c, size_t ldc) {                                                    \
        return clgemm_multi_gemm_ex_host(h, layout, trans_a, trans_b, m, n, k, &alpha, a, lda, b,  \
                                         ldb, &beta, c, ldc, type, type, CLGEMM_COMPUTE_DEFAULT);  \
    }

MULTI_HOST_ENTRY(clgemm_multi_sgemm_host, CLGEMM_SINGLE, float)
MULTI_HOST_ENTRY(clgemm_multi_dgemm_host, CLGEMM_DOUBLE, double)

clgemm_status clgemm_multi_gemm_strided_batched_host(STRIDED_HOST_PARAMS(clgemm_multi_handle)) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    double sc[4]; /* checked and read as clgemm_gemm_ex_host does */
    clgemm_status st = clgemm__call_scalars(type_ab, alpha, beta, sc);
    if (st != CLGEMM_SUCCESS) return st;
    gemm_call call = {CALL_PROBLEM(type_ab, type_c, compute, POINTER_SCALARS(sc)), CALL_STRIDES};
    return multi_gemm(h, &call, alpha, beta, a, b, c);
}
