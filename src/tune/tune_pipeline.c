/* tune_pipeline.c: compile-ahead for the tuner. Measured on an H200, a 150 s tune spent most of
 * its 2.2 s per candidate compiling; on PoCL a cold candidate costs 10-17 s, of which the
 * program build (clBuildProgram, plus the binary the disk cache asks for) is one part and the
 * work-group function PoCL generates at the first launch of each work-group size the other.
 * So a thread here does not only build the program: it runs the candidate once on a tiny
 * problem through the public API, on its own handle of the same context and device. That goes
 * through the very path the timed call takes (kernel_for, the device's shared program cache,
 * the disk cache) with the same build options (types, transposes, alignment of the leading
 * dimensions), and leaves PoCL's kernel for that work-group size compiled too; the timing
 * thread then finds everything built. Device programs are shared per (context, device), and
 * builds of different programs run concurrently (program.c).
 *
 * Threads take queued candidates in order, only when the build would end before the deadline
 * at the pace measured so far (a build under way cannot be interrupted safely: stopping waits
 * for it, so never starting one that cannot finish keeps the budget). */
#include "tune/tune_pipeline.h"
#include "exec/exec.h"
#include "tune/tune_data.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16
/* A build under this fraction of the prior came from a cache (the kernel cache, or the
 * driver's own: PoCL keeps one) and tells nothing about a cold build's time. */
#define CACHED_FRACTION 0.25
/* The tiny problem a thread runs: small enough to cost nothing next to its build. */
#define TINY 32

/* QUEUED items wait for a thread, the lowest seq first; DROPPED ones were queued and are no
 * longer wanted (a later plan may want them again); TAKEN ones the timing thread has. */
typedef enum item_state {
    ITEM_QUEUED,
    ITEM_DROPPED,
    ITEM_BUILDING,
    ITEM_DONE,
    ITEM_TAKEN
} item_state;

typedef struct item {
    clgemm_config config;
    item_state state;
    clgemm_status status;
    size_t seq; /* 0: the timing thread waits for it, so it goes first, deadline or not */
} item;

struct tune_pipeline {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* an item's state, the pace or stop changed */
    item *items;
    size_t count, cap, seq;
    bool stop;
    double deadline, estimate;
    double slowest; /* the longest preparation so far; negative: none finished */
    cl_context context;
    cl_device_id device;
    tune_call call;
    int started, alive; /* threads started, and still running */
    pthread_t threads[MAX_THREADS];
    pipeline_stats stats;
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int clgemm__pipeline_threads(const device_info *info) {
    const char *env = getenv("CLGEMM_TUNE_THREADS");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end == 0 && v >= 0 && v <= MAX_THREADS) return (int)v;
        clgemm__log("CLGEMM_TUNE_THREADS=%s ignored: not a number from 0 to %d", env, MAX_THREADS);
    }
    /* A CPU device compiles on the cores it computes on, and PoCL builds one program at a time
     * per context: one thread overlaps the builds with the timing, more would only queue. */
    if (info->cls == DEVICE_CPU) return 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > 4 ? 4 : (int)cores;
}

/* ---- One thread ----------------------------------------------------------------------------- */

typedef struct worker {
    clgemm_handle h;
    cl_mem a, b, c;
    size_t m, n, k;
} worker;

static cl_mem zeroed(cl_context ctx, cl_command_queue q, size_t bytes) {
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) return NULL;
    unsigned char zero = 0;
    if (clEnqueueFillBuffer(q, m, &zero, 1, 0, bytes, 0, NULL, NULL) != CL_SUCCESS) {
        clReleaseMemObject(m);
        return NULL;
    }
    return m;
}

/* Its handle (own queue) and the tiny problem's buffers: the timed call's leading dimensions
 * (they decide the aligned-load build options), at most TINY rows and columns. */
static bool worker_init(const tune_pipeline *p, worker *w) {
    const tune_call *t = &p->call;
    w->m = t->m < TINY ? t->m : TINY;
    w->n = t->n < TINY ? t->n : TINY;
    w->k = t->k < TINY ? t->k : TINY;
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(p->context, p->device, 0, &err);
    if (err != CL_SUCCESS) return false;
    clgemm_status st = clgemm_create(&w->h, q);
    clReleaseCommandQueue(q); /* the handle keeps it */
    if (st != CLGEMM_SUCCESS) return false;
    size_t ab = clgemm__type(t->key.type_ab)->size, c = clgemm__type(t->key.type_c)->size;
    bool ta = t->key.trans_a != CLGEMM_NO_TRANS, tb = t->key.trans_b != CLGEMM_NO_TRANS;
    w->a = zeroed(p->context, q, t->lda * (ta ? w->m : w->k) * ab);
    w->b = zeroed(p->context, q, t->ldb * (tb ? w->k : w->n) * ab);
    w->c = zeroed(p->context, q, w->m * w->n * c);
    return w->a && w->b && w->c && clFinish(q) == CL_SUCCESS;
}

static void worker_free(worker *w) {
    if (w->a) clReleaseMemObject(w->a);
    if (w->b) clReleaseMemObject(w->b);
    if (w->c) clReleaseMemObject(w->c);
    if (w->h) clgemm_destroy(w->h);
}

/* Forces the candidate on the thread's handle and runs it once: kernels built, launched. */
static clgemm_status prepare(const tune_pipeline *p, const worker *w, const clgemm_config *c) {
    const tune_call *t = &p->call;
    clgemm_status st = clgemm_set_config(w->h, t->precision, c);
    if (st != CLGEMM_SUCCESS) return st;
    unsigned char one[16], zero[16];
    clgemm__tune_scalars(t->key.type_ab, one, zero);
    st = clgemm_gemm_ex(w->h, CLGEMM_COL_MAJOR, t->key.trans_a, t->key.trans_b, w->m, w->n, w->k,
                        one, w->a, 0, t->lda, w->b, 0, t->ldb, zero, w->c, 0, w->m, t->key.type_ab,
                        t->key.type_c, CLGEMM_COMPUTE_DEFAULT, NULL, 0, NULL, NULL);
    return st == CLGEMM_SUCCESS ? clFinish(clgemm_queue(w->h)) : st;
}

/* The next queued item this thread may start (caller holds the lock), or NULL. */
static item *next_item(tune_pipeline *p) {
    item *best = NULL;
    size_t building = 0;
    for (size_t i = 0; i < p->count; i++) {
        building += p->items[i].state == ITEM_BUILDING;
        if (p->items[i].state == ITEM_QUEUED && (!best || p->items[i].seq < best->seq))
            best = &p->items[i];
    }
    /* A compiler that builds one program at a time (PoCL) ends this build after the ones under
     * way: assumed so, since the budget is a promise. */
    double ends = now_s() + p->estimate * (double)(building + 1);
    bool in_time = p->estimate >= 0 && (p->deadline <= 0 || ends < p->deadline);
    return best && (best->seq == 0 || in_time) ? best : NULL;
}

static void *worker_main(void *arg) {
    tune_pipeline *p = arg;
    worker w = {0};
    bool ok = worker_init(p, &w);
    if (!ok) clgemm__log("tuner: a compile-ahead thread could not start");
    pthread_mutex_lock(&p->lock);
    while (ok && !p->stop) {
        item *it = next_item(p);
        if (!it) {
            pthread_cond_wait(&p->changed, &p->lock);
            continue;
        }
        it->state = ITEM_BUILDING;
        size_t index = (size_t)(it - p->items); /* items may move when the queue grows */
        clgemm_config c = it->config;
        pthread_mutex_unlock(&p->lock);
        double t0 = now_s();
        clgemm_status st = prepare(p, &w, &c);
        double spent = now_s() - t0;
        pthread_mutex_lock(&p->lock);
        p->items[index].state = ITEM_DONE;
        p->items[index].status = st;
        p->stats.built++;
        p->stats.compile_s += spent;
        if (spent > p->slowest) p->slowest = spent;
        pthread_cond_broadcast(&p->changed);
    }
    p->alive--;
    pthread_cond_broadcast(&p->changed); /* a timing thread waiting on it builds itself */
    pthread_mutex_unlock(&p->lock);
    worker_free(&w);
    return NULL;
}

/* ---- The timing thread's side --------------------------------------------------------------- */

double clgemm__build_estimate(double slowest, double prior) {
    return slowest >= CACHED_FRACTION * prior ? slowest : prior;
}

tune_pipeline *clgemm__pipeline_start(clgemm_handle h, const tune_call *call, int threads) {
    if (threads <= 0) return NULL;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    tune_pipeline *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        return NULL;
    }
    if (pthread_cond_init(&p->changed, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
    }
    p->context = clgemm_context(h);
    p->device = h->device;
    p->call = *call;
    p->estimate = -1;
    p->slowest = -1;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&p->threads[p->started], NULL, worker_main, p) == 0) p->started++;
    pthread_mutex_lock(&p->lock);
    p->alive += p->started;
    pthread_mutex_unlock(&p->lock);
    if (p->started == 0) {
        clgemm__pipeline_stop(p, NULL);
        return NULL;
    }
    return p;
}

void clgemm__pipeline_pace(tune_pipeline *p, double deadline, double estimate) {
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->deadline = deadline;
    p->estimate = estimate;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

static item *find(tune_pipeline *p, const clgemm_config *c) {
    for (size_t i = 0; i < p->count; i++)
        if (clgemm__config_equal(&p->items[i].config, c)) return &p->items[i];
    return NULL;
}

bool clgemm__pipeline_plan(tune_pipeline *p, const clgemm_config *next, size_t count) {
    if (!p) return true;
    pthread_mutex_lock(&p->lock);
    for (size_t i = 0; i < p->count; i++)
        if (p->items[i].state == ITEM_QUEUED) p->items[i].state = ITEM_DROPPED;
    bool ok = true;
    for (size_t j = 0; j < count && ok; j++) {
        item *it = find(p, &next[j]);
        if (!it) {
            if (p->count == p->cap) {
                size_t cap = p->cap ? 2 * p->cap : 32;
                item *items = realloc(p->items, cap * sizeof *items);
                if (!items) {
                    ok = false;
                    break;
                }
                p->items = items;
                p->cap = cap;
            }
            it = &p->items[p->count++];
            *it = (item){next[j], ITEM_DROPPED, CLGEMM_SUCCESS, 0};
        }
        if (it->state == ITEM_DROPPED) {
            it->state = ITEM_QUEUED;
            it->seq = ++p->seq;
        }
    }
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    return ok;
}

take_result clgemm__pipeline_take(tune_pipeline *p, const clgemm_config *c, clgemm_status *status,
                                  double *waited) {
    if (!p) return TAKE_SELF;
    double t0 = now_s();
    pthread_mutex_lock(&p->lock);
    item *it = find(p, c);
    take_result result = TAKE_READY;
    if (!it || it->state == ITEM_QUEUED || it->state == ITEM_DROPPED) {
        result = TAKE_WAITED;
        /* Not started: it goes first, for a thread to build (so that builds never run on more
         * threads than asked: PoCL, for one, compiles one program at a time per context). */
        if (!it && p->count == p->cap) {
            size_t cap = p->cap ? 2 * p->cap : 32;
            item *items = realloc(p->items, cap * sizeof *items);
            if (items) {
                p->items = items;
                p->cap = cap;
            }
        }
        if (!it && p->count < p->cap) it = &p->items[p->count++];
        if (it) {
            *it = (item){*c, ITEM_QUEUED, CLGEMM_SUCCESS, 0};
            pthread_cond_broadcast(&p->changed);
        }
    } else if (it->state == ITEM_BUILDING)
        result = TAKE_WAITED;
    while (it && p->alive > 0 && (it->state == ITEM_QUEUED || it->state == ITEM_BUILDING)) {
        pthread_cond_wait(&p->changed, &p->lock);
        it = find(p, c); /* the queue may have grown (moved) meanwhile */
    }
    if (!it || it->state != ITEM_DONE)
        result = TAKE_SELF; /* no thread left to build it (or out of memory) */
    else
        *status = it->status;
    if (it) it->state = ITEM_TAKEN;
    pthread_mutex_unlock(&p->lock);
    *waited += now_s() - t0;
    return result;
}

double clgemm__pipeline_build_s(tune_pipeline *p, double prior) {
    if (!p) return prior;
    pthread_mutex_lock(&p->lock);
    double s = clgemm__build_estimate(p->slowest, prior);
    pthread_mutex_unlock(&p->lock);
    return s;
}

size_t clgemm__pipeline_building(tune_pipeline *p, const clgemm_config *c) {
    if (!p) return 0;
    pthread_mutex_lock(&p->lock);
    size_t n = 0;
    for (size_t i = 0; i < p->count; i++)
        n += p->items[i].state == ITEM_BUILDING && !clgemm__config_equal(&p->items[i].config, c);
    pthread_mutex_unlock(&p->lock);
    return n;
}

bool clgemm__pipeline_ready(tune_pipeline *p, const clgemm_config *c) {
    if (!p) return false;
    pthread_mutex_lock(&p->lock);
    const item *it = find(p, c);
    bool ready = it && it->state == ITEM_DONE;
    pthread_mutex_unlock(&p->lock);
    return ready;
}

void clgemm__pipeline_stop(tune_pipeline *p, pipeline_stats *stats) {
    if (!p) return;
    double t0 = now_s();
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    if (stats) {
        stats->built += p->stats.built;
        stats->compile_s += p->stats.compile_s;
        stats->abandon_s += now_s() - t0;
    }
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->lock);
    free(p->items);
    free(p);
}
