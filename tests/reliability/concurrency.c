/* concurrency.c: clgemm from many threads at once. Phase 1: 8 threads x 200 calls of mixed
 * shapes, precisions, layouts, transposes, offsets, alpha/beta (k == 0 and alpha == 0 included)
 * and entry points (buffers on the handle's queue, buffers with an output event, host arrays),
 * all on one shared handle while the threads also force and clear configurations on it. Phase
 * 2: the same with one handle per thread, each created in its thread. Phase 3: phase 1 again
 * with K split across work-group layers (CLGEMM_KSPLIT=3, set before the threads start), so
 * the threads share the handle's split-K workspace. Every result is checked
 * against a host reference, and every element of C outside the matrix must be unchanged. Plain C
 * with pthreads, so that it also runs under ThreadSanitizer (tests/reliability/tsan.sh).
 *
 * Usage: concurrency [THREADS [CALLS]]   (defaults 8 and 200; exit 0 when every result is right)
 * REL_TSAN_CANARY=1: the workers also bump a shared counter without a lock, a data race on
 * purpose, so that tsan.sh can check that ThreadSanitizer and tsan_check.py report one. */
#include "configs.h"
#include "rel_common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct worker {
    int id, calls;
    clgemm_handle h; /* shared handle, or NULL: the worker creates its own */
    bool has_fp64;
    int runs, failures;
    char msg[512];
} worker;

/* Configurations the shared-handle workers force while the others compute; NULL is "auto". */
static const clgemm_config forced[] = {
    {.family = CLGEMM_FAMILY_TILED, .ts = 4},
    {.family = CLGEMM_FAMILY_NAIVE, .mdimc = 4, .ndimc = 2},
    REGBLOCK(8, 8, 4, 2, 4, 2, 2, 2),
};
#define NFORCED (sizeof forced / sizeof forced[0])

static size_t pick(uint64_t *state, size_t n) {
    return (size_t)(rel_rand(state) % n);
}

static rel_problem random_problem(uint64_t *state, bool fp64) {
    static const double alphas[] = {1.0, -0.5, 2.0, 0.0};
    static const double betas[] = {0.0, 1.0, 0.25, -1.5};
    /* Few distinct sizes: PoCL compiles a work-group function per launch geometry, and a cold
     * cache must not dominate the run. k: 0 (scale path), short, one slice, several slices. */
    static const size_t mn[] = {1, 3, 8, 13, 24};
    static const size_t ks[] = {0, 1, 5, 16, 33, 70};
    rel_problem p = {
        .prec = fp64 && pick(state, 3) == 0 ? CLGEMM_DOUBLE : CLGEMM_SINGLE,
        .layout = pick(state, 2) ? CLGEMM_ROW_MAJOR : CLGEMM_COL_MAJOR,
        .ta = pick(state, 2) ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
        .tb = pick(state, 2) ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
        .m = mn[pick(state, 5)],
        .n = mn[pick(state, 5)],
        .k = ks[pick(state, 6)],
        .alpha = alphas[pick(state, 10) == 0 ? 3 : pick(state, 3)],
        .beta = betas[pick(state, 4)],
    };
    if (pick(state, 2)) {
        p.off_a = pick(state, 5);
        p.off_b = pick(state, 5);
        p.off_c = pick(state, 5);
        p.lda = tc_min_ld(p.layout, p.ta, p.m, p.k) + pick(state, 3);
        p.ldb = tc_min_ld(p.layout, p.tb, p.k, p.n) + pick(state, 3);
        p.ldc = tc_min_ld(p.layout, CLGEMM_NO_TRANS, p.m, p.n) + pick(state, 3);
    }
    return p;
}

/* The host-array entry points, on the arrays of d (C is computed into d->c). */
static clgemm_status host_call(clgemm_handle h, rel_data *d) {
    const rel_problem *p = &d->p;
    size_t rs = clgemm_type_size(p->prec);
    const char *a = (const char *)d->a + p->off_a * rs, *b = (const char *)d->b + p->off_b * rs;
    char *c = (char *)d->c + p->off_c * rs;
    if (p->prec == CLGEMM_DOUBLE)
        return clgemm_dgemm_host(h, p->layout, p->ta, p->tb, p->m, p->n, p->k, p->alpha,
                                 (const double *)a, p->lda, (const double *)b, p->ldb, p->beta,
                                 (double *)c, p->ldc);
    return clgemm_sgemm_host(h, p->layout, p->ta, p->tb, p->m, p->n, p->k, (float)p->alpha,
                             (const float *)a, p->lda, (const float *)b, p->ldb, (float)p->beta,
                             (float *)c, p->ldc);
}

/* One call through one of the three entry points; the result lands in d->c. */
static int one_call(worker *w, clgemm_handle h, rel_data *d, int api) {
    clgemm_status st;
    cl_int err = CL_SUCCESS;
    if (api == 2) {
        st = host_call(h, d);
    } else {
        cl_mem mem[3];
        err = rel_upload(clgemm_context(h), d, mem);
        if (err != CL_SUCCESS) {
            snprintf(w->msg, sizeof w->msg, "%s: clCreateBuffer: %d", rel_describe(&d->p), err);
            return 1;
        }
        cl_event ev = NULL;
        st = rel_gemm(h, &d->p, mem[0], mem[1], mem[2], NULL, api == 1 ? &ev : NULL);
        size_t bytes = d->nc * clgemm_type_size(d->p.prec);
        if (st == CLGEMM_SUCCESS && api == 1) {
            /* Read after the call's event, without blocking, then wait for the read. */
            cl_event read_ev = NULL;
            err = ev ? clEnqueueReadBuffer(clgemm_queue(h), mem[2], CL_FALSE, 0, bytes, d->c, 1,
                                           &ev, &read_ev)
                     : CL_INVALID_EVENT;
            if (err == CL_SUCCESS) err = clWaitForEvents(1, &read_ev);
            if (read_ev) clReleaseEvent(read_ev);
        } else if (st == CLGEMM_SUCCESS) {
            err = clEnqueueReadBuffer(clgemm_queue(h), mem[2], CL_TRUE, 0, bytes, d->c, 0, NULL,
                                      NULL);
        }
        if (ev) clReleaseEvent(ev);
        rel_release(mem);
    }
    if (st != CLGEMM_SUCCESS || err != CL_SUCCESS) {
        snprintf(w->msg, sizeof w->msg, "%s (api %d): status %d (%s), OpenCL %d",
                 rel_describe(&d->p), api, st, clgemm_status_string(st), err);
        return 1;
    }
    return rel_check(d, w->msg, sizeof w->msg) != 0;
}

static int canary_counter; /* written without a lock only when REL_TSAN_CANARY=1 */
static bool canary;

static void *work(void *arg) {
    worker *w = arg;
    if (canary) canary_counter++;
    clgemm_handle h = w->h;
    if (!h) {
        clgemm_status st = clgemm_create_default(&h);
        if (st != CLGEMM_SUCCESS) {
            snprintf(w->msg, sizeof w->msg, "clgemm_create_default: %s", clgemm_status_string(st));
            w->failures++;
            return NULL;
        }
    }
    uint64_t state = 0x1234567ull + (uint64_t)w->id * 7919u;
    for (int i = 0; i < w->calls; i++) {
        if (w->h && i % 20 == w->id % 20) {
            /* Shared handle: change what the other threads' calls use, mid-flight. */
            size_t f = pick(&state, NFORCED + 1);
            clgemm_precision prec = pick(&state, 2) && w->has_fp64 ? CLGEMM_DOUBLE : CLGEMM_SINGLE;
            clgemm_status st = clgemm_set_config(h, prec, f < NFORCED ? &forced[f] : NULL);
            clgemm_config now;
            if (st == CLGEMM_SUCCESS) st = clgemm_get_config(h, prec, 9, 9, 9, &now, NULL);
            if (st != CLGEMM_SUCCESS) {
                snprintf(w->msg, sizeof w->msg, "set/get_config: %s", clgemm_status_string(st));
                w->failures++;
            }
        }
        rel_problem p = random_problem(&state, w->has_fp64);
        rel_data d;
        w->runs++;
        if (!rel_make(&d, &p, (uint64_t)w->id * 100003u + (uint64_t)i)) {
            snprintf(w->msg, sizeof w->msg, "out of host memory");
            w->failures++;
            continue;
        }
        if (one_call(w, h, &d, (int)pick(&state, 3)) != 0) w->failures++;
        rel_free(&d);
    }
    char log[64];
    (void)clgemm_build_log(h, log, sizeof log);
    if (!w->h) clgemm_destroy(h);
    return NULL;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int phase(const char *name, clgemm_handle shared, int threads, int calls, bool fp64) {
    worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    if (!w || !t) {
        free(w);
        free(t);
        printf("FAIL %s: out of host memory\n", name);
        return 1;
    }
    double t0 = now_s();
    int started = 0;
    for (int i = 0; i < threads; i++) {
        w[i] = (worker){.id = i, .calls = calls, .h = shared, .has_fp64 = fp64};
        if (pthread_create(&t[i], NULL, work, &w[i]) != 0) break;
        started++;
    }
    int runs = 0, failures = started == threads ? 0 : 1;
    for (int i = 0; i < started; i++) {
        pthread_join(t[i], NULL);
        runs += w[i].runs;
        failures += w[i].failures;
        if (w[i].failures)
            printf("FAIL %s, thread %d: %d failure(s), first: %s\n", name, i, w[i].failures,
                   w[i].msg);
    }
    printf("%s: %d threads x %d calls = %d calls checked, %d failed, %.1f s\n", name, started,
           calls, runs, failures, now_s() - t0);
    fflush(stdout);
    free(w);
    free(t);
    return failures != 0;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 8, calls = argc > 2 ? atoi(argv[2]) : 200;
    if (threads < 1 || calls < 1) {
        fprintf(stderr, "usage: %s [THREADS [CALLS]]\n", argv[0]);
        return 2;
    }
    const char *c = getenv("REL_TSAN_CANARY");
    canary = c && strcmp(c, "1") == 0;
    clgemm_handle h;
    clgemm_status st = clgemm_create_default(&h);
    if (st == CLGEMM_ERR_NO_DEVICE) {
        printf("no OpenCL device: skipped\n");
        return 77;
    }
    if (st != CLGEMM_SUCCESS) {
        printf("FAIL clgemm_create_default: %s\n", clgemm_status_string(st));
        return 1;
    }
    char name[128] = "", ext[4096] = "";
    clGetDeviceInfo(clgemm_device(h), CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(clgemm_device(h), CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    name[sizeof name - 1] = ext[sizeof ext - 1] = 0;
    bool fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    printf("device: %s%s\n", name, fp64 ? "" : " (no fp64: sgemm only)");
    unsetenv("CLGEMM_KSPLIT");
    int failed = phase("one shared handle", h, threads, calls, fp64);
    failed |= phase("one handle per thread", NULL, threads, calls, fp64);
    /* A handle reads CLGEMM_KSPLIT when it is made: a new shared handle with it set. */
    setenv("CLGEMM_KSPLIT", "3", 1);
    clgemm_destroy(h);
    if ((st = clgemm_create_default(&h)) != CLGEMM_SUCCESS) {
        printf("FAIL clgemm_create_default with CLGEMM_KSPLIT: %s\n", clgemm_status_string(st));
        return 1;
    }
    char msg[512] = "";
    if (!rel_split_taken(h, "reduce.cl", NULL, msg, sizeof msg)) {
        printf("FAIL %s\n", msg);
        failed = 1;
    }
    failed |= phase("one shared handle, K split in 3", h, threads, calls, fp64);
    unsetenv("CLGEMM_KSPLIT");
    clgemm_destroy(h);
    return failed;
}
