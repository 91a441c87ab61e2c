/* tuner.c: the autotuner's search engine, behind the public clgemm_tune* API so that the CLI
 * stays thin. For each shape it times candidate configurations of the families that compute the
 * type (their supported() accepts it with the default compute mode) through the library's own
 * public GEMM call, clgemm_gemm_ex with the asked types and transposes, or for a batch
 * clgemm_gemm_strided_batched of that many packed matrices (so it measures exactly what users
 * get), after checking each one's result against a host reference within the type's error bound
 * (tune_data.c). A cost model (tune_model.c) orders the candidates and drops clear losers before
 * anything is compiled; threads compile the next candidates ahead while this one is timed
 * (tune_pipeline.c). The search is exhaustive when the kept space fits the budget, else the
 * model's order followed by a local search (one parameter doubled or halved) around the best so
 * far. Each candidate gets a short timing; the few fastest are then re-timed with more runs, once
 * no build competes with them, and the best median wins. */
#include "core/clock.h"
#include "exec/exec.h"
#include "tune/tune_data.h"
#include "tune/tune_model.h"
#include "tune/tune_pipeline.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Parameters: from the family registry (family.h) --------------------------------------- */

static bool config_equal(const clgemm_config *a, const clgemm_config *b) {
    return clgemm__config_equal(a, b);
}

/* ---- Candidate lists ------------------------------------------------------------------------ */

typedef struct config_list {
    clgemm_config *items;
    size_t count, cap;
} config_list;

static bool list_contains(const config_list *l, const clgemm_config *c) {
    for (size_t i = 0; i < l->count; i++)
        if (config_equal(&l->items[i], c)) return true;
    return false;
}

static bool list_push(config_list *l, const clgemm_config *c) {
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        clgemm_config *items = realloc(l->items, cap * sizeof *items);
        if (!items) return false;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->count++] = *c;
    return true;
}

typedef struct space_ctx {
    const device_info *info;
    clgemm_precision precision;
    config_list *out;
    bool ok;
} space_ctx;

/* Every combination of the family's searched parameters (powers of two in their search range;
 * the others keep the default's value), kept if the library would run it. */
static void enumerate(space_ctx *s, const family_desc *f, clgemm_config *c, int p) {
    if (!s->ok) return;
    if (p == f->num_params) {
        if (clgemm__config_check(c, s->info, s->precision) == CLGEMM_SUCCESS)
            s->ok = list_push(s->out, c);
        return;
    }
    const family_param *param = &f->params[p];
    int lo, hi;
    clgemm__param_search(f, p, s->info, &lo, &hi);
    if (lo < 1) {
        enumerate(s, f, c, p + 1);
        return;
    }
    for (int v = lo; v <= hi; v *= 2) {
        c->params[param->slot] = v;
        enumerate(s, f, c, p + 1);
    }
}

/* --quick: each family's handful of tile shapes known to do well somewhere, so a first tuning
 * takes seconds rather than the hours a full search can take. CPUs have their own, shorter
 * lists per vector tier and type (regblock_defaults.c): a cold PoCL build costs 10 s or more,
 * so a 45 s budget covers only a few. */
static bool quick_space(space_ctx *s, clgemm_family only) {
    for (const family_desc *const *f = clgemm__families; *f; f++) {
        /* (a family the tuner does not search keeps its list for the device tests alone) */
        if (!(*f)->searched || !(*f)->quick || (only != CLGEMM_FAMILY_AUTO && only != (*f)->id))
            continue;
        if ((*f)->supported && !(*f)->supported(s->info, s->precision, CLGEMM_COMPUTE_DEFAULT))
            continue;
        const clgemm_config *list = s->info->cls == DEVICE_CPU && (*f)->quick_cpu
                                        ? (*f)->quick_cpu(s->info, s->precision)
                                        : (*f)->quick;
        for (const clgemm_config *c = list; c->family; c++)
            if (clgemm__config_check(c, s->info, s->precision) == CLGEMM_SUCCESS &&
                !list_push(s->out, c))
                return false;
    }
    return true;
}

static clgemm_status build_space(const device_info *info, clgemm_precision precision, bool quick,
                                 clgemm_family only, config_list *out) {
    space_ctx s = {info, precision, out, true};
    if (quick) return quick_space(&s, only) ? CLGEMM_SUCCESS : CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    for (const family_desc *const *f = clgemm__families; *f; f++) {
        if (!(*f)->searched || (only != CLGEMM_FAMILY_AUTO && only != (*f)->id)) continue;
        if ((*f)->supported && !(*f)->supported(info, precision, CLGEMM_COMPUTE_DEFAULT)) continue;
        /* Parameters without a search range keep the default's value. */
        clgemm_config c = clgemm__config_default(info, precision);
        if (c.family != (*f)->id) memset(c.params, 0, sizeof c.params);
        c.family = (*f)->id;
        enumerate(&s, *f, &c, 0);
    }
    return s.ok ? CLGEMM_SUCCESS : CLGEMM_ERR_OUT_OF_HOST_MEMORY;
}

/* ---- Small helpers -------------------------------------------------------------------------- */

static bool cancelled(const clgemm_tune_options *o) {
    return o->cancel && *o->cancel;
}

/* Timed runs of one candidate (odd, so the median is one of them): a first, short timing of
 * every candidate (about SHORT_S of runs), then FINAL_S for each finalist. */
#define SHORT_S    0.03
#define SHORT_REPS 3, 7
#define FINAL_S    0.3
#define FINAL_REPS 7, 31
#define MAX_REPS   31
/* How many of the fastest are re-timed (with the baseline and the stored configuration). */
#define FINALISTS 3
/* Before anything is measured, a build is assumed to take this long: the compile-ahead threads
 * start only when the budget covers it (a cold PoCL build took 10-17 s, a GPU's about 2). */
#define PRIOR_BUILD_CPU_S 20.0
#define PRIOR_BUILD_S     5.0

/* ---- One shape: data, reference, evaluation ------------------------------------------------- */

typedef struct shape_ctx {
    clgemm_handle h;
    const clgemm_tune_options *opt;
    size_t m, n, k;
    size_t batch;   /* matrices per call: 1, or strided-batched calls of this many */
    tune_problem p; /* data, reference and bounds (tune_data.c) */
    cl_mem a, b, c;
    config_list seen;
} shape_ctx;

/* A buffer of `batch` copies of one matrix (each matrix of a batch reads its own, as in real
 * use: one shared copy would sit in cache). The first copy is written once and then doubled on
 * the device (copies 0..n-1 to n..2n-1, and so on): about log2(batch) commands, where a write per
 * matrix made hundreds of thousands of them for a large batch of small matrices (seconds of
 * enqueueing and hundreds of MB of command records). */
static cl_mem copies(const shape_ctx *s, cl_mem_flags flags, size_t bytes, void *host,
                     cl_int *err) {
    cl_context ctx = clgemm_context(s->h);
    if (s->batch == 1)
        return clCreateBuffer(ctx, host ? flags | CL_MEM_COPY_HOST_PTR : flags, bytes, host, err);
    cl_command_queue q = clgemm_queue(s->h);
    cl_mem m = clCreateBuffer(ctx, flags, bytes * s->batch, NULL, err);
    if (*err != CL_SUCCESS || !host) return m;
    *err = clEnqueueWriteBuffer(q, m, CL_FALSE, 0, bytes, host, 0, NULL, NULL);
    for (size_t have = 1; *err == CL_SUCCESS && have < s->batch; have *= 2) {
        size_t more = have < s->batch - have ? have : s->batch - have;
        *err = clEnqueueCopyBuffer(q, m, m, 0, have * bytes, more * bytes, 0, NULL, NULL);
    }
    if (*err == CL_SUCCESS) *err = clFinish(q);
    return m;
}

static clgemm_status create_buffers(shape_ctx *s) {
    size_t most = s->p.bytes_a > s->p.bytes_b ? s->p.bytes_a : s->p.bytes_b, all;
    if (most < s->p.bytes_c) most = s->p.bytes_c;
    if (__builtin_mul_overflow(most, s->batch, &all)) return CLGEMM_ERR_OVERFLOW;
    cl_int err;
    s->a = copies(s, CL_MEM_READ_ONLY, s->p.bytes_a, s->p.host[0], &err);
    if (err == CL_SUCCESS) s->b = copies(s, CL_MEM_READ_ONLY, s->p.bytes_b, s->p.host[1], &err);
    if (err == CL_SUCCESS) s->c = copies(s, CL_MEM_READ_WRITE, s->p.bytes_c, NULL, &err);
    return err;
}

static void shape_free(shape_ctx *s) {
    if (s->a) clReleaseMemObject(s->a);
    if (s->b) clReleaseMemObject(s->b);
    if (s->c) clReleaseMemObject(s->c);
    clgemm__tune_problem_free(&s->p);
    free(s->seen.items);
}

static clgemm_status shape_init(shape_ctx *s, const tuning_key *key, uint64_t *rng) {
    s->p.key = *key;
    s->p.m = s->m;
    s->p.n = s->n;
    s->p.k = s->k;
    clgemm_status st = clgemm__tune_problem_init(&s->p, rng);
    return st == CLGEMM_SUCCESS ? create_buffers(s) : st;
}

/* One column-major C = op(A) op(B) (a packed strided batch of them) through the public API,
 * waited for. Strides are in elements: a matrix's bytes over its type's size. */
static clgemm_status run_once(const shape_ctx *s) {
    unsigned char one[16], zero[16];
    const tuning_key *key = &s->p.key;
    clgemm__tune_scalars(key->type_ab, one, zero);
    size_t size_ab = clgemm__type(key->type_ab)->size, size_c = clgemm__type(key->type_c)->size;
    clgemm_status st =
        s->batch == 1
            ? clgemm_gemm_ex(s->h, CLGEMM_COL_MAJOR, key->trans_a, key->trans_b, s->m, s->n, s->k,
                             one, s->a, 0, s->p.lda, s->b, 0, s->p.ldb, zero, s->c, 0, s->m,
                             key->type_ab, key->type_c, CLGEMM_COMPUTE_DEFAULT, NULL, 0, NULL, NULL)
            : clgemm_gemm_strided_batched(
                  s->h, CLGEMM_COL_MAJOR, key->trans_a, key->trans_b, s->m, s->n, s->k, one, s->a,
                  0, s->p.lda, s->p.bytes_a / size_ab, s->b, 0, s->p.ldb, s->p.bytes_b / size_ab,
                  zero, s->c, 0, s->m, s->p.bytes_c / size_c, s->batch, key->type_ab, key->type_c,
                  CLGEMM_COMPUTE_DEFAULT, NULL, 0, NULL, NULL);
    return st == CLGEMM_SUCCESS ? clFinish(clgemm_queue(s->h)) : st;
}

/* Fills C with NaN first, so an element the kernel never writes cannot pass the check. Of a
 * batch, the first and the last matrix are checked (a wrong batch index misses one of them). */
static clgemm_status run_checked(const shape_ctx *s, bool *correct) {
    unsigned char pattern[8];
    size_t pattern_size;
    clgemm__tune_nan(s->p.key.type_c, pattern, &pattern_size);
    cl_command_queue q = clgemm_queue(s->h);
    cl_int err = clEnqueueFillBuffer(q, s->c, pattern, pattern_size, 0, s->p.bytes_c * s->batch, 0,
                                     NULL, NULL);
    if (err != CL_SUCCESS) return err;
    clgemm_status st = run_once(s);
    if (st != CLGEMM_SUCCESS) return st;
    *correct = true;
    size_t last = s->batch - 1;
    for (size_t i = 0; *correct && i <= last; i += last > 0 ? last : 1) {
        err = clEnqueueReadBuffer(q, s->c, CL_TRUE, i * s->p.bytes_c, s->p.bytes_c, s->p.host[2], 0,
                                  NULL, NULL);
        if (err != CL_SUCCESS) return err;
        *correct = clgemm__tune_problem_check(&s->p);
    }
    return CLGEMM_SUCCESS;
}

/* Median wall time of several whole calls after a warm-up; negative on an error. Runs for
 * about `target` seconds in all, between min_reps and max_reps runs (cheap calls get more,
 * since their times are the noisiest). */
static double time_calls(const shape_ctx *s, double target, int min_reps, int max_reps) {
    double t0 = clgemm_now_seconds();
    if (run_once(s) != CLGEMM_SUCCESS) return -1;
    double warm = clgemm_now_seconds() - t0;
    double want = warm > 0 ? target / warm : max_reps;
    int reps = want >= max_reps ? max_reps : want <= min_reps ? min_reps : (int)want | 1;
    double times[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        t0 = clgemm_now_seconds();
        if (run_once(s) != CLGEMM_SUCCESS) return -1;
        times[r] = clgemm_now_seconds() - t0;
    }
    qsort(times, (size_t)reps, sizeof times[0], clgemm_compare_doubles);
    return times[reps / 2];
}

typedef enum outcome { OUTCOME_TIMED, OUTCOME_FAILED, OUTCOME_WRONG } outcome;

static void log_config(const char *what, const clgemm_config *c, const char *why) {
    char options[256] = "";
    clgemm__config_options(c, options, sizeof options);
    clgemm__log("tuner: %s %s%s: %s", what, clgemm_family_name(c->family), options, why);
}

/* Forces the candidate on the handle, checks its result, then times it briefly. *first is the
 * checked run's time: with the build and the first launch when nothing was prepared ahead. */
static outcome evaluate(const shape_ctx *s, const clgemm_config *c, clgemm_precision precision,
                        double *seconds, double *first) {
    double t0 = clgemm_now_seconds();
    clgemm_status st = clgemm_set_config(s->h, precision, c);
    bool correct = false;
    if (st == CLGEMM_SUCCESS) st = run_checked(s, &correct);
    *first = clgemm_now_seconds() - t0;
    if (st != CLGEMM_SUCCESS) {
        log_config("skipped", c, clgemm_status_string(st));
        return OUTCOME_FAILED;
    }
    if (!correct) {
        log_config("skipped", c, "wrong result");
        return OUTCOME_WRONG;
    }
    *seconds = time_calls(s, SHORT_S, SHORT_REPS);
    if (*seconds < 0) {
        log_config("skipped", c, "a timed run failed");
        return OUTCOME_FAILED;
    }
    return OUTCOME_TIMED;
}

/* ---- The search ----------------------------------------------------------------------------- */

/* What a search learned about one shape, kept on the handle for clgemm_tune_save. */
typedef struct tune_memo_entry {
    tuning_record record; /* key, config, search, beat */
    clgemm_tune_shape shape;
    size_t evaluated;
} tune_memo_entry;

struct tune_memo {
    clgemm_tune_stats stats; /* of the whole call, for clgemm_tune_stats_get */
    size_t count;
    tune_memo_entry entries[];
};
typedef struct tune_memo tune_memo;

/* A candidate that ran correctly, and its short timing. */
typedef struct timed_entry {
    clgemm_config config;
    double seconds;
} timed_entry;

typedef struct search {
    shape_ctx *s;
    clgemm_tune_result *r;
    const config_list *space;
    size_t *order;          /* the order in which the space is visited */
    size_t kept;            /* the model's kept prefix of order */
    size_t next;            /* next index into order */
    size_t limit;           /* most evaluations for this shape */
    size_t shapes_left;     /* shapes after this one */
    double start, deadline; /* of this shape; deadline 0: none */
    double tune_start;      /* of the whole call */
    bool planned;           /* the baseline ran and the strategy is chosen */
    bool sampling;          /* model order then local search, rather than exhaustive */
    bool out_of_memory;
    bool exhausted;                           /* every kept candidate was visited */
    double slowest_cold, slowest_warm;        /* slowest evaluation that built / found its build */
    size_t *evaluated_total, *total_estimate; /* over all shapes, for progress */
    tune_pipeline *pipe;                      /* NULL: no compile-ahead threads */
    const clgemm_config *base;                /* the baseline, timed first */
    const clgemm_config *stored;              /* the tuning table's entry for the shape */
    int threads;
    timed_entry *timed; /* this shape's correct candidates */
    size_t num_timed, cap_timed;
    clgemm_tune_stats *stats;
} search;

/* Seconds the finalists' re-timing will take, kept out of the search's time: each of the
 * FINALISTS fastest so far, and the baseline, gets FINAL_S or its 8 runs, whichever is longer
 * (the stored configuration, when timed, is among the fastest or costs about as much). */
static double finalist_reserve(const search *x) {
    if (x->num_timed < 2) return 0;
    double fastest[FINALISTS + 1];
    size_t n = 0;
    for (size_t i = 0; i < x->num_timed; i++) { /* insertion into the FINALISTS + 1 smallest */
        double t = x->timed[i].seconds;
        size_t j = n < FINALISTS + 1 ? n++ : n;
        if (j == FINALISTS + 1 && t >= fastest[FINALISTS]) continue;
        if (j == FINALISTS + 1) j = FINALISTS;
        while (j > 0 && fastest[j - 1] > t) {
            fastest[j] = fastest[j - 1];
            j--;
        }
        fastest[j] = t;
    }
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += 8 * fastest[i] > FINAL_S ? 8 * fastest[i] : FINAL_S;
    return total;
}

/* When the search (not the finalists) must end; 0: no deadline. */
static double search_deadline(const search *x) {
    return x->deadline > 0 ? x->deadline - finalist_reserve(x) : 0;
}

static bool prepared(const search *x, const clgemm_config *c) {
    return clgemm__pipeline_ready(x->pipe, c);
}

/* What a candidate not yet prepared may cost. Its build is assumed as long as the longest
 * made so far, or as a cold build of the device class while none has finished or all of them
 * came from a cache (clgemm__build_estimate): a fast first evaluation (a cached baseline) says
 * nothing about the builds to come, and a build once started cannot be interrupted. */
static double cold_cost(const search *x) {
    double prior = x->s->h->info.cls == DEVICE_CPU ? PRIOR_BUILD_CPU_S : PRIOR_BUILD_S;
    if (!x->pipe) return clgemm__build_estimate(x->slowest_cold, prior);
    double build = clgemm__pipeline_build_s(x->pipe, prior) + x->slowest_warm;
    return build > x->slowest_cold ? build : x->slowest_cold;
}

static bool out_of_evaluations(const search *x) {
    return cancelled(x->s->opt) || x->out_of_memory || x->r->evaluated >= x->limit;
}

/* A candidate is not started if one as slow as the slowest of its kind so far, over all shapes
 * (cold builds dominate; a candidate the threads have prepared costs only its timing), would
 * end past the deadline: the budget is a promise, not a hint. Only the run's very first
 * evaluation starts with nothing measured, so a run ends within its budget plus about one
 * evaluation. */
static bool should_stop_for(const search *x, const clgemm_config *next) {
    if (out_of_evaluations(x)) return true;
    double end = search_deadline(x);
    double cost = x->slowest_warm;
    /* Not prepared: its build may have to wait for the ones under way (a compiler that builds
     * one program at a time, PoCL's, is assumed). */
    if (!next || !prepared(x, next))
        cost =
            cold_cost(x) * (double)(1 + clgemm__pipeline_building(x->pipe, next ? next : x->base));
    return end > 0 && clgemm_now_seconds() + cost >= end;
}

/* Once the search is planned, what is left of this shape is bounded by the space, the limit
 * and the time left at the pace so far; the shapes after it are assumed to cost the same. */
static void update_estimate(const search *x) {
    size_t done = x->r->evaluated;
    if (!x->planned || done == 0) return;
    size_t left = 0; /* the baseline and stored configuration may be among them, already timed */
    for (size_t i = x->next; i < x->kept; i++)
        left += !list_contains(&x->s->seen, &x->space->items[x->order[i]]);
    if (x->limit - done < left) left = x->limit - done;
    if (x->deadline > 0) {
        double now = clgemm_now_seconds(),
               by_time = (x->deadline - now) / ((now - x->start) / (double)done);
        if (by_time < (double)left) left = by_time > 0 ? (size_t)by_time : 0;
    }
    *x->total_estimate = *x->evaluated_total + left + x->shapes_left * (done + left);
}

static void report(const search *x) {
    const clgemm_tune_options *o = x->s->opt;
    update_estimate(x);
    if (*x->total_estimate < *x->evaluated_total) *x->total_estimate = *x->evaluated_total;
    if (o->progress)
        o->progress(*x->evaluated_total, *x->total_estimate, x->r->gflops,
                    clgemm_now_seconds() - x->tune_start, o->user);
}

/* GFLOPS of one timed call: the whole batch's flops. */
static double gflops_of(const search *x, double seconds) {
    return 2.0 * (double)x->s->m * (double)x->s->n * (double)x->s->k * (double)x->s->batch /
           seconds * 1e-9;
}

static void keep_timed(search *x, const clgemm_config *c, double seconds) {
    if (x->num_timed == x->cap_timed) {
        size_t cap = x->cap_timed ? 2 * x->cap_timed : 32;
        timed_entry *t = realloc(x->timed, cap * sizeof *t);
        if (!t) {
            x->out_of_memory = true;
            return;
        }
        x->timed = t;
        x->cap_timed = cap;
    }
    x->timed[x->num_timed++] = (timed_entry){*c, seconds};
}

static void plan_ahead(search *x);

static void try_candidate(search *x, const clgemm_config *c) {
    clgemm_tune_result *r = x->r;
    if (!list_push(&x->s->seen, c)) {
        x->out_of_memory = true;
        return;
    }
    /* A build the threads found failing is not repeated: it fails the same way here. */
    clgemm_status built = CLGEMM_SUCCESS;
    double t0 = clgemm_now_seconds(), waited = 0;
    take_result took = clgemm__pipeline_take(x->pipe, c, &built, &waited);
    x->stats->wait_s += waited;
    plan_ahead(x);
    double seconds = 0, first = 0, t1 = clgemm_now_seconds();
    outcome o = OUTCOME_FAILED;
    if (took != TAKE_SELF && built == CLGEMM_ERR_BUILD_FAILED)
        log_config("skipped", c, clgemm_status_string(built));
    else
        o = evaluate(x->s, c, r->precision, &seconds, &first);
    double spent = clgemm_now_seconds() - t0, evaluating = clgemm_now_seconds() - t1;
    /* What the next candidate may cost: one found prepared costs its timing, one waited for
     * or built here its build too. */
    if (took == TAKE_READY) {
        if (spent > x->slowest_warm) x->slowest_warm = spent;
        x->stats->timing_s += evaluating;
    } else if (took == TAKE_WAITED) {
        if (spent > x->slowest_cold) x->slowest_cold = spent;
        x->stats->timing_s += evaluating;
    } else {
        if (spent > x->slowest_cold) x->slowest_cold = spent;
        x->stats->compile_s += first; /* the build and first launch, with one checked run */
        x->stats->timing_s += evaluating - first;
        x->stats->compiled++;
    }
    if (x->slowest_warm > x->slowest_cold) x->slowest_cold = x->slowest_warm;
    clgemm__pipeline_pace(x->pipe, search_deadline(x), cold_cost(x) - x->slowest_warm);
    r->evaluated++;
    x->stats->timed++;
    (*x->evaluated_total)++;
    if (o == OUTCOME_FAILED) r->failed++;
    if (o == OUTCOME_WRONG) r->wrong++;
    if (o == OUTCOME_TIMED) keep_timed(x, c, seconds);
    if (o == OUTCOME_TIMED && (r->status != CLGEMM_SUCCESS || seconds < r->seconds)) {
        r->status = CLGEMM_SUCCESS;
        r->config = *c;
        r->seconds = seconds;
        r->gflops = gflops_of(x, seconds);
    }
    report(x);
}

/* Up to max unseen configurations one step (one parameter doubled or halved) from the best. */
static size_t neighbours(const search *x, clgemm_config *out, size_t max) {
    if (x->r->status != CLGEMM_SUCCESS) return 0;
    const clgemm_config *best = &x->r->config;
    const family_desc *f = clgemm__family(best->family);
    size_t n = 0;
    for (int p = 0; f && p < f->num_params && n < max; p++) {
        const family_param *param = &f->params[p];
        int lo, hi;
        clgemm__param_search(f, p, &x->s->h->info, &lo, &hi);
        if (lo < 1) continue;
        for (int up = 1; up >= 0 && n < max; up--) {
            clgemm_config c = *best;
            int *v = &c.params[param->slot];
            if (*v == 0) *v = 1; /* an optional parameter left 0: its first value */
            *v = up ? *v * 2 : *v / 2;
            if (*v < lo || *v > hi || list_contains(&x->s->seen, &c)) continue;
            if (clgemm__config_check(&c, &x->s->h->info, x->r->precision) != CLGEMM_SUCCESS)
                continue;
            out[n++] = c;
        }
    }
    return n;
}

/* Model order then local search: sampling uses the first half of the evaluations or of the
 * time; after that the unseen neighbours of the best come first, and sampling resumes when
 * there are none. */
static bool sampling_over(const search *x) {
    if (x->s->opt->quick) return false; /* --quick is its curated set, no more */
    if (x->limit != SIZE_MAX && x->r->evaluated >= x->limit / 2) return true;
    return x->deadline > 0 && clgemm_now_seconds() - x->start >= (x->deadline - x->start) / 2;
}

/* Up to max candidates to visit next, in order, from x->next on (x unchanged). */
static size_t upcoming(const search *x, clgemm_config *out, size_t max) {
    size_t n = 0;
    if (x->planned && x->sampling && sampling_over(x)) n = neighbours(x, out, max);
    for (size_t i = x->next; i < x->kept && n < max; i++) {
        const clgemm_config *c = &x->space->items[x->order[i]];
        if (!list_contains(&x->s->seen, c)) out[n++] = *c;
    }
    return n;
}

/* Tells the compile-ahead threads what comes next: two candidates per thread, the baseline
 * and the stored configuration first while they are not timed (so the builds a thread starts
 * are in the order of their use, and its pacing sees the baseline's build under way). */
static void plan_ahead(search *x) {
    if (!x->pipe) return;
    clgemm_config next[2 * 16];
    size_t want = 2 * (size_t)x->threads, n = 0;
    if (want > sizeof next / sizeof next[0]) want = sizeof next / sizeof next[0];
    /* Never more than the evaluations left (max_evals): a build nobody times is wasted. */
    size_t left = x->limit > x->r->evaluated ? x->limit - x->r->evaluated : 0;
    if (want > left) want = left;
    if (x->base && n < want && !list_contains(&x->s->seen, x->base)) next[n++] = *x->base;
    if (x->stored && n < want && !list_contains(&x->s->seen, x->stored)) next[n++] = *x->stored;
    if (n > want) n = want;
    n += upcoming(x, next + n, want - n);
    if (!clgemm__pipeline_plan(x->pipe, next, n)) x->out_of_memory = true;
}

static bool next_candidate(search *x, clgemm_config *c) {
    if (x->sampling && sampling_over(x) && neighbours(x, c, 1)) return true;
    while (x->next < x->kept) {
        const clgemm_config *n = &x->space->items[x->order[x->next++]];
        if (!list_contains(&x->s->seen, n)) {
            *c = *n;
            return true;
        }
    }
    return false;
}

static void run_search(search *x) {
    clgemm_config c;
    x->exhausted = false;
    while (!out_of_evaluations(x)) {
        if (!next_candidate(x, &c)) {
            x->exhausted = true;
            return;
        }
        if (should_stop_for(x, &c)) return;
        try_candidate(x, &c);
    }
}

/* The model's order of the space for this shape, ties broken at random, and its kept prefix.
 * Everything the threads build ahead comes from it. */
static void order_space(search *x, uint64_t *rng) {
    size_t n = x->space->count;
    for (size_t i = 0; i < n; i++)
        x->order[i] = i;
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)(clgemm__random(rng) % i), t = x->order[i - 1];
        x->order[i - 1] = x->order[j];
        x->order[j] = t;
    }
    x->kept = clgemm__tune_model_order(x->space->items, x->order, n, &x->s->h->info,
                                       x->r->precision, x->s->m, x->s->n, x->s->k);
    x->stats->considered += n;
    x->stats->pruned += n - x->kept;
}

/* Exhaustive when the kept space fits the evaluation limit and (at the cost measured for the
 * first candidate) the time budget; otherwise the model's order, then local search. */
static void plan_search(search *x) {
    size_t unseen = 0;
    for (size_t i = 0; i < x->kept; i++)
        unseen += !list_contains(&x->s->seen, &x->space->items[x->order[i]]);
    double per_eval = clgemm_now_seconds() - x->start;
    size_t fits = x->limit;
    if (x->deadline > 0 && per_eval > 0) {
        double f = (x->deadline - x->start) / per_eval;
        if (f < (double)fits) fits = f < 1 ? 1 : (size_t)f;
    }
    size_t planned = x->r->evaluated + unseen;
    x->sampling = planned > fits;
    if (x->sampling) planned = fits;
    *x->total_estimate = *x->evaluated_total - x->r->evaluated + planned * (1 + x->shapes_left);
    x->planned = true;
}

/* Whether c is in the model's kept part of the space. */
static bool in_kept(const search *x, const clgemm_config *c) {
    for (size_t i = 0; i < x->kept; i++)
        if (config_equal(&x->space->items[x->order[i]], c)) return true;
    return false;
}

/* Before anything is timed: this shape's distinct candidates (the baseline and the stored
 * configuration count once, whether or not the space holds them), so the progress total is
 * right from the first report; the shapes after it are assumed alike. The baseline and stored
 * configuration outside the space count as considered. */
static void first_estimate(search *x) {
    size_t extra = 0;
    const clgemm_config *own[] = {x->base, x->stored};
    for (size_t i = 0; i < 2; i++) {
        if (!own[i] || in_kept(x, own[i])) continue;
        extra++;
        if (!list_contains(x->space, own[i])) x->stats->considered++;
    }
    size_t count = x->kept + extra;
    if (count > x->limit) count = x->limit;
    *x->total_estimate = *x->evaluated_total + count * (1 + x->shapes_left);
}

/* The baseline first: the library's own choice for this shape without tuning, so tuning never
 * loses to it, and its speed tells what tuning gained. */
static clgemm_config baseline(const struct clgemm_handle_s *h, clgemm_precision precision,
                              const tuning_key *key, size_t m, size_t n, size_t k, size_t batch) {
    /* The tuner's operands are packed (leading dimensions m, n or k): 16-byte chunks where each
     * side is a whole number of them. */
    const size_t e = clgemm__type(precision)->size;
    const gemm_dims dims = {m,
                            n,
                            k,
                            batch,
                            (m * e) % 16 == 0 && (n * e) % 16 == 0 && (k * e) % 16 == 0,
                            key->trans_a != CLGEMM_NO_TRANS,
                            key->trans_b != CLGEMM_NO_TRANS};
    clgemm_config c =
        clgemm__config_default_for_dims(&h->info, precision, CLGEMM_COMPUTE_DEFAULT, &dims);
    return clgemm__config_check(&c, &h->info, precision) == CLGEMM_SUCCESS
               ? c
               : clgemm__config_fallback();
}

/* The configuration the handle's tuning table holds for exactly this shape, if any. */
static bool stored_config(const search *x, clgemm_config *c) {
    struct clgemm_handle_s *h = x->s->h;
    pthread_mutex_lock(&h->lock);
    bool found = clgemm__tuning_exact(h->tuning, &x->s->p.key, x->s->m, x->s->n, x->s->k, c);
    pthread_mutex_unlock(&h->lock);
    return found;
}

static int by_seconds(const void *a, const void *b) {
    return clgemm_compare_doubles(&((const timed_entry *)a)->seconds,
                                  &((const timed_entry *)b)->seconds);
}

/* Re-times the FINALISTS fastest (and the baseline and the stored configuration, so the gain
 * over them is measured alike) with more runs, now that no build competes, and keeps the best
 * median. Nothing to choose among one candidate; a cancelled search keeps its short timings. */
static void finalists(search *x, const clgemm_config *base, const clgemm_config *stored) {
    if (x->num_timed < 2 || cancelled(x->s->opt)) return;
    double t0 = clgemm_now_seconds();
    qsort(x->timed, x->num_timed, sizeof *x->timed, by_seconds);
    clgemm_tune_result *r = x->r;
    bool first = true;
    for (size_t i = 0; i < x->num_timed; i++) {
        const clgemm_config *c = &x->timed[i].config;
        bool is_base = config_equal(c, base);
        if (i >= FINALISTS && !is_base && !(stored && config_equal(c, stored))) continue;
        double seconds = -1;
        if (clgemm_set_config(x->s->h, r->precision, c) == CLGEMM_SUCCESS)
            seconds = time_calls(x->s, FINAL_S, FINAL_REPS);
        x->stats->finalists++;
        if (seconds <= 0) continue;
        if (is_base) r->default_gflops = gflops_of(x, seconds);
        if (first || seconds < r->seconds) {
            r->config = *c;
            r->seconds = seconds;
            r->gflops = gflops_of(x, seconds);
            first = false;
        }
    }
    x->stats->finalist_s += clgemm_now_seconds() - t0;
}

/* The baseline, then the stored entry's configuration (so that a result measured faster than
 * it in this run may replace it), then the search, then the finalists. The first evaluation of
 * the run always starts; every later one only if the budget can still cover it. */
static void tune_shape(search *x, uint64_t *rng, tune_memo_entry *memo) {
    x->start = clgemm_now_seconds();
    x->planned = x->sampling = false;
    x->num_timed = 0;
    clgemm_config base = baseline(x->s->h, x->r->precision, &x->s->p.key, x->s->m, x->s->n, x->s->k,
                                  x->s->batch),
                  stored;
    bool has_stored = stored_config(x, &stored);
    order_space(x, rng);
    /* The threads start on the stored configuration and the model's first choices while the
     * baseline is timed; before anything is measured only if the budget covers a cold build. */
    const tune_problem *p = &x->s->p;
    tune_call call = {x->r->precision, p->key, x->s->m, x->s->n, x->s->k, p->lda, p->ldb};
    x->pipe = x->threads > 0 ? clgemm__pipeline_start(x->s->h, &call, x->threads) : NULL;
    clgemm__pipeline_pace(x->pipe, search_deadline(x), cold_cost(x));
    x->base = &base;
    x->stored = has_stored && !config_equal(&stored, &base) ? &stored : NULL;
    first_estimate(x);
    plan_ahead(x);
    bool first_eval = *x->evaluated_total == 0;
    if (!cancelled(x->s->opt) && (first_eval || !should_stop_for(x, &base)))
        try_candidate(x, &base);
    if (x->r->status == CLGEMM_SUCCESS) x->r->default_gflops = x->r->gflops;
    if (has_stored) {
        memo->record.beat = stored;
        if (config_equal(&stored, &base))
            memo->record.beat_valid = x->r->evaluated > 0;
        else if (!should_stop_for(x, &stored)) {
            try_candidate(x, &stored);
            memo->record.beat_valid = true;
        }
    }
    plan_search(x);
    plan_ahead(x);
    run_search(x);
    /* Builds under way finish (one cannot be interrupted safely); queued ones never start. */
    pipeline_stats ps = {0};
    clgemm__pipeline_stop(x->pipe, &ps);
    x->pipe = NULL;
    x->base = x->stored = NULL;
    x->stats->compiled_ahead += ps.built;
    x->stats->compile_s += ps.compile_s;
    x->stats->wait_s += ps.abandon_s;
    finalists(x, &base, has_stored ? &stored : NULL);
    /* The result is the fastest of all it timed, the stored configuration included. */
    memo->record.beat_valid = memo->record.beat_valid && x->r->status == CLGEMM_SUCCESS;
}

/* ---- Public API ----------------------------------------------------------------------------- */

void clgemm_tune_options_init(clgemm_tune_options *options) {
    if (!options) return;
    memset(options, 0, sizeof *options);
    options->precision = CLGEMM_SINGLE;
    options->budget_s = 600;
}

size_t clgemm_tune_default_shapes(clgemm_handle h, int quick, clgemm_tune_shape *shapes,
                                  size_t max) {
    if (!h) return 0;
    static const size_t cpu[] = {128, 256, 512}, gpu[] = {256, 1024, 4096}, small[] = {256};
    const size_t *sizes = quick ? small : h->info.cls == DEVICE_CPU ? cpu : gpu;
    size_t count = quick ? 1 : 3;
    for (size_t i = 0; shapes && i < count && i < max; i++)
        shapes[i] = (clgemm_tune_shape){sizes[i], sizes[i], sizes[i]};
    return count;
}

clgemm_status clgemm_tune_space(clgemm_handle h, clgemm_precision precision, int quick,
                                clgemm_family family, size_t *count) {
    if (!h || !count) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    if (!clgemm__type(precision) || !clgemm__type(precision)->ab)
        return CLGEMM_ERR_INVALID_ARGUMENT;
    if (family < CLGEMM_FAMILY_AUTO || family > CLGEMM_FAMILY_COUNT)
        return CLGEMM_ERR_INVALID_FAMILY;
    if (clgemm__type(precision)->fp64 && !h->info.has_fp64) return CLGEMM_ERR_NO_FP64;
    config_list l = {0};
    clgemm_status st = build_space(&h->info, precision, quick, family, &l);
    if (quick && family != CLGEMM_FAMILY_AUTO) {
        size_t n = 0;
        for (size_t i = 0; i < l.count; i++)
            n += l.items[i].family == family;
        l.count = n;
    }
    *count = l.count;
    free(l.items);
    return st;
}

static bool trans_valid(clgemm_transpose t) {
    return t == 0 || t == CLGEMM_NO_TRANS || t == CLGEMM_TRANS || t == CLGEMM_CONJ_TRANS;
}

/* The tuning key of options or a result: precision is the A/B type, with its default C type
 * (type_desc.c); wide_c asks for its second C type (FP32 for FP16 / BF16, BF16 for FP8), which
 * other types lack (CLGEMM_ERR_INVALID_TYPE); batch the matrices per call (its class is part of
 * the key). */
static clgemm_status options_key(clgemm_precision precision, int wide_c, clgemm_transpose trans_a,
                                 clgemm_transpose trans_b, size_t batch, tuning_key *key) {
    const type_desc *t = clgemm__type(precision);
    if (!t || !t->ab || !trans_valid(trans_a) || !trans_valid(trans_b))
        return CLGEMM_ERR_INVALID_ARGUMENT;
    if (wide_c && t->wide_c == t->c) return CLGEMM_ERR_INVALID_TYPE;
    *key = clgemm__tuning_key(precision, wide_c ? t->wide_c : t->c, trans_a, trans_b);
    key->batch_class = clgemm__batch_class(batch);
    return CLGEMM_SUCCESS;
}

static clgemm_status check_options(clgemm_handle h, const clgemm_tune_options *o,
                                   const clgemm_tune_result *results) {
    if (!h || !o || !results || !o->shapes) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    tuning_key key;
    clgemm_status st = options_key(o->precision, o->wide_c, o->trans_a, o->trans_b, o->batch, &key);
    if (st != CLGEMM_SUCCESS) return st;
    if (o->num_shapes == 0 || !(o->budget_s >= 0)) return CLGEMM_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < o->num_shapes; i++)
        if (o->shapes[i].m == 0 || o->shapes[i].n == 0 || o->shapes[i].k == 0)
            return CLGEMM_ERR_INVALID_ARGUMENT;
    if (clgemm__type(o->precision)->fp64 && !h->info.has_fp64) return CLGEMM_ERR_NO_FP64;
    return CLGEMM_SUCCESS;
}

static void init_results(const clgemm_tune_options *o, const tuning_key *key,
                         clgemm_tune_result *results) {
    for (size_t i = 0; i < o->num_shapes; i++) {
        memset(&results[i], 0, sizeof results[i]);
        results[i].precision = o->precision;
        results[i].wide_c = key->type_c != clgemm__type(key->type_ab)->c;
        results[i].trans_a = key->trans_a;
        results[i].trans_b = key->trans_b;
        results[i].shape = o->shapes[i];
        results[i].batch = o->batch > 1 ? o->batch : 1;
        results[i].status = CLGEMM_ERR_TUNE_NONE_VALID;
    }
}

/* Tunes one shape; the budget left is shared evenly by the shapes left. */
static void tune_one(clgemm_handle h, const clgemm_tune_options *o, const tuning_key *key, size_t i,
                     search *x, uint64_t *rng, tune_memo_entry *memo) {
    clgemm_tune_result *r = x->r;
    shape_ctx s = {.h = h,
                   .opt = o,
                   .m = r->shape.m,
                   .n = r->shape.n,
                   .k = r->shape.k,
                   .batch = o->batch > 1 ? o->batch : 1};
    x->s = &s;
    x->deadline = 0;
    if (o->budget_s > 0) {
        double left = o->budget_s - (clgemm_now_seconds() - x->tune_start);
        x->deadline = clgemm_now_seconds() + (left > 0 ? left : 0) / (double)(o->num_shapes - i);
    }
    clgemm_status st = shape_init(&s, key, rng);
    x->shapes_left = o->num_shapes - i - 1;
    if (st == CLGEMM_SUCCESS)
        tune_shape(x, rng, memo);
    else
        r->status = st;
    r->complete = st == CLGEMM_SUCCESS && !cancelled(o);
    memo->record.config = r->config;
    memo->evaluated = r->evaluated;
    memo->record.search = (tuning_search){.evaluated = r->evaluated,
                                          .exhaustive = x->exhausted && !o->quick,
                                          .budget_s = o->budget_s,
                                          .max_evals = o->max_evals,
                                          .quick = o->quick != 0};
    shape_free(&s);
}

clgemm_status clgemm_tune(clgemm_handle h, const clgemm_tune_options *o,
                          clgemm_tune_result *results) {
    clgemm_status st = check_options(h, o, results);
    if (st != CLGEMM_SUCCESS) return st;
    tuning_key key;
    options_key(o->precision, o->wide_c, o->trans_a, o->trans_b, o->batch, &key);
    init_results(o, &key, results);
    config_list space = {0};
    st = build_space(&h->info, o->precision, o->quick, CLGEMM_FAMILY_AUTO, &space);
    size_t *order = malloc((space.count ? space.count : 1) * sizeof *order);
    tune_memo *memo = calloc(1, sizeof *memo + o->num_shapes * sizeof memo->entries[0]);
    if (st != CLGEMM_SUCCESS || !order || !memo) {
        free(space.items);
        free(order);
        free(memo);
        return st != CLGEMM_SUCCESS ? st : CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    }
    memo->count = o->num_shapes;
    /* Remember the user's forced configuration: the tuner forces its candidates. */
    pthread_mutex_lock(&h->lock);
    bool had_override = h->has_override[o->precision];
    clgemm_config saved = h->override[o->precision];
    pthread_mutex_unlock(&h->lock);

    uint64_t rng = o->seed ? o->seed : 0x9E3779B97F4A7C15ull;
    size_t evaluated_total = 0, per_shape = space.count + 1;
    if (o->max_evals && o->max_evals < per_shape) per_shape = o->max_evals;
    size_t total_estimate = per_shape * o->num_shapes; /* refined once timings are known */
    search x = {.space = &space,
                .order = order,
                .limit = o->max_evals ? o->max_evals : SIZE_MAX,
                .tune_start = clgemm_now_seconds(),
                .evaluated_total = &evaluated_total,
                .total_estimate = &total_estimate,
                .threads = clgemm__pipeline_threads(&h->info),
                .stats = &memo->stats};
    memo->stats.build_threads = x.threads;
    for (size_t i = 0; i < o->num_shapes && !cancelled(o); i++) {
        x.r = &results[i];
        x.next = 0;
        memo->entries[i].record.key = key;
        memo->entries[i].shape = o->shapes[i];
        tune_one(h, o, &key, i, &x, &rng, &memo->entries[i]);
    }

    free(x.timed);
    memo->stats.wall_s = clgemm_now_seconds() - x.tune_start;
    pthread_mutex_lock(&h->lock);
    h->has_override[o->precision] = had_override;
    h->override[o->precision] = saved;
    free(h->last_tune);
    h->last_tune = memo;
    pthread_mutex_unlock(&h->lock);
    free(space.items);
    free(order);
    for (size_t i = 0; i < o->num_shapes; i++)
        if (results[i].status == CLGEMM_SUCCESS) return CLGEMM_SUCCESS;
    return results[0].status;
}

/* What the handle's last search learned about a result: how much it searched, and whether it
 * beat the stored configuration in the same run. A result the handle did not produce (or one
 * changed since) counts only its evaluated candidates. */
static tuning_record record_of(clgemm_handle h, const clgemm_tune_result *r,
                               const tuning_key *key) {
    tuning_record rec = {.key = *key,
                         .shape = {r->shape.m, r->shape.n, r->shape.k},
                         .problem = {r->shape.m, r->shape.n, r->shape.k},
                         .batch = r->batch > 1 ? r->batch : 1,
                         .config = r->config,
                         .gflops = r->gflops,
                         .search = {.evaluated = r->evaluated}};
    const tune_memo *memo = h->last_tune;
    for (size_t i = 0; memo && i < memo->count; i++) {
        const tune_memo_entry *e = &memo->entries[i];
        if (memcmp(&e->record.key, key, sizeof *key) == 0 && e->evaluated == r->evaluated &&
            e->shape.m == r->shape.m && e->shape.n == r->shape.n && e->shape.k == r->shape.k &&
            config_equal(&e->record.config, &r->config)) {
            rec.search = e->record.search;
            rec.beat_valid = e->record.beat_valid;
            rec.beat = e->record.beat;
            break;
        }
    }
    return rec;
}

clgemm_status clgemm_tune_save(clgemm_handle h, const char *path, const clgemm_tune_result *results,
                               size_t count) {
    if (!h || (!results && count > 0)) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    tuning_key *keys = malloc((count ? count : 1) * sizeof *keys);
    tuning_record *records = malloc((count ? count : 1) * sizeof *records);
    clgemm_status st = keys && records ? CLGEMM_SUCCESS : CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < count && st == CLGEMM_SUCCESS; i++) {
        const clgemm_tune_result *r = &results[i];
        st = options_key(r->precision, r->wide_c, r->trans_a, r->trans_b, r->batch, &keys[i]);
        if (st == CLGEMM_ERR_INVALID_TYPE) st = CLGEMM_ERR_INVALID_ARGUMENT;
    }
    if (st != CLGEMM_SUCCESS) {
        free(keys);
        free(records);
        return st;
    }
    size_t n = 0;
    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < count; i++) {
        /* A cancelled search is not saved; a budget-limited one is, with its extent, and only
         * replaces a stored entry it beat in the same run or a less searched one. */
        if (results[i].status != CLGEMM_SUCCESS || !results[i].complete) continue;
        records[n++] = record_of(h, &results[i], &keys[i]);
    }
    pthread_mutex_unlock(&h->lock);
    st = clgemm__tuning_save(path, &h->info, records, n);
    free(keys);
    free(records);
    return st;
}

clgemm_status clgemm_tune_stats_get(clgemm_handle h, clgemm_tune_stats *stats) {
    if (!h || !stats) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    pthread_mutex_lock(&h->lock);
    const tune_memo *memo = h->last_tune;
    if (memo) *stats = memo->stats;
    pthread_mutex_unlock(&h->lock);
    return memo ? CLGEMM_SUCCESS : CLGEMM_ERR_INVALID_ARGUMENT;
}

clgemm_status clgemm_tuning_path(const char *path, char *buf, size_t size) {
    return clgemm__tuning_path(path, buf, size);
}
