/* tuner.c: the autotuner's search engine, behind the public clgemm_tune* API so that the CLI
 * stays thin. For each shape it times candidate configurations of the families that compute the
 * type (their supported() accepts it with the default compute mode) through the library's own
 * public GEMM call, clgemm_gemm_ex with the asked types and transposes, or for a batch
 * clgemm_gemm_strided_batched of that many packed matrices (so it measures exactly what users
 * get), after checking each one's result against a host reference within the type's
 * error bound (tune_data.c). The search is exhaustive when the space fits the budget, else
 * random sampling followed by a local search (one parameter doubled or halved) around the best
 * so far. */
#include "family.h"
#include "internal.h"
#include "tune_data.h"

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
    if (param->search_lo < 1) {
        enumerate(s, f, c, p + 1);
        return;
    }
    for (int v = param->search_lo; v <= param->search_hi; v *= 2) {
        c->params[param->slot] = v;
        enumerate(s, f, c, p + 1);
    }
}

/* --quick: each family's handful of tile shapes known to do well somewhere, so a first tuning
 * takes seconds rather than the hours a full search can take. CPUs have their own, shorter
 * lists: a cold PoCL build costs 10 s or more, so a 45 s budget covers only a few. */
static bool quick_space(space_ctx *s, clgemm_family only) {
    for (const family_desc *const *f = clgemm__families; *f; f++) {
        if (!(*f)->quick || (only != CLGEMM_FAMILY_AUTO && only != (*f)->id)) continue;
        if ((*f)->supported && !(*f)->supported(s->info, s->precision, CLGEMM_COMPUTE_DEFAULT))
            continue;
        const clgemm_config *list =
            s->info->cls == DEVICE_CPU && (*f)->quick_cpu ? (*f)->quick_cpu : (*f)->quick;
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

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool cancelled(const clgemm_tune_options *o) {
    return o->cancel && *o->cancel;
}

/* Timed runs of one candidate (odd, so the median is one of them). */
#define MIN_REPS 3
#define MAX_REPS 15

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
 * use: one shared copy would sit in cache). */
static cl_mem copies(const shape_ctx *s, cl_mem_flags flags, size_t bytes, void *host,
                     cl_int *err) {
    cl_context ctx = clgemm_context(s->h);
    if (s->batch == 1)
        return clCreateBuffer(ctx, host ? flags | CL_MEM_COPY_HOST_PTR : flags, bytes, host, err);
    cl_mem m = clCreateBuffer(ctx, flags, bytes * s->batch, NULL, err);
    for (size_t i = 0; host && *err == CL_SUCCESS && i < s->batch; i++)
        *err = clEnqueueWriteBuffer(clgemm_queue(s->h), m, CL_FALSE, i * bytes, bytes, host, 0,
                                    NULL, NULL);
    if (*err == CL_SUCCESS) *err = clFinish(clgemm_queue(s->h));
    return m;
}

static clgemm_status create_buffers(shape_ctx *s) {
    size_t most = s->p.bytes_a > s->p.bytes_b ? s->p.bytes_a : s->p.bytes_b, all;
    if (most < s->p.bytes_c) most = s->p.bytes_c;
    if (__builtin_mul_overflow(most, s->batch, &all)) return CLGEMM_ERR_OVERFLOW;
    cl_int err;
    s->a = copies(s, CL_MEM_READ_ONLY, s->p.bytes_a, s->p.host_a, &err);
    if (err == CL_SUCCESS) s->b = copies(s, CL_MEM_READ_ONLY, s->p.bytes_b, s->p.host_b, &err);
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
        err = clEnqueueReadBuffer(q, s->c, CL_TRUE, i * s->p.bytes_c, s->p.bytes_c, s->p.host_c, 0,
                                  NULL, NULL);
        if (err != CL_SUCCESS) return err;
        *correct = clgemm__tune_problem_check(&s->p);
    }
    return CLGEMM_SUCCESS;
}

/* Median wall time of several whole calls after a warm-up; negative on an error. Cheap calls
 * get more runs (about 0.1 s in all), since their times are the noisiest. */
static double time_calls(const shape_ctx *s) {
    double t0 = now_s();
    if (run_once(s) != CLGEMM_SUCCESS) return -1;
    double warm = now_s() - t0;
    double want = warm > 0 ? 0.1 / warm : MAX_REPS;
    int reps = want >= MAX_REPS ? MAX_REPS : want <= MIN_REPS ? MIN_REPS : (int)want | 1;
    double times[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        t0 = now_s();
        if (run_once(s) != CLGEMM_SUCCESS) return -1;
        times[r] = now_s() - t0;
    }
    qsort(times, (size_t)reps, sizeof times[0], compare_double);
    return times[reps / 2];
}

typedef enum outcome { OUTCOME_TIMED, OUTCOME_FAILED, OUTCOME_WRONG } outcome;

static void log_config(const char *what, const clgemm_config *c, const char *why) {
    char options[256] = "";
    clgemm__config_options(c, options, sizeof options);
    clgemm__log("tuner: %s %s%s: %s", what, clgemm_family_name(c->family), options, why);
}

/* Forces the candidate on the handle, checks its result, then times it. */
static outcome evaluate(const shape_ctx *s, const clgemm_config *c, clgemm_precision precision,
                        double *seconds) {
    clgemm_status st = clgemm_set_config(s->h, precision, c);
    bool correct = false;
    if (st == CLGEMM_SUCCESS) st = run_checked(s, &correct);
    if (st != CLGEMM_SUCCESS) {
        log_config("skipped", c, clgemm_status_string(st));
        return OUTCOME_FAILED;
    }
    if (!correct) {
        log_config("skipped", c, "wrong result");
        return OUTCOME_WRONG;
    }
    *seconds = time_calls(s);
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
    size_t count;
    tune_memo_entry entries[];
};
typedef struct tune_memo tune_memo;

typedef struct search {
    shape_ctx *s;
    clgemm_tune_result *r;
    const config_list *space;
    size_t *order;          /* the order in which the space is visited */
    size_t next;            /* next index into order */
    size_t limit;           /* most evaluations for this shape */
    size_t shapes_left;     /* shapes after this one */
    double start, deadline; /* of this shape; deadline 0: none */
    double tune_start;      /* of the whole call */
    bool planned;           /* the baseline ran and the strategy is chosen */
    bool sampling;          /* random order then local search, rather than exhaustive */
    bool out_of_memory;
    bool exhausted;                           /* every candidate of the space was visited */
    double slowest;                           /* seconds of the slowest evaluation so far */
    size_t *evaluated_total, *total_estimate; /* over all shapes, for progress */
} search;

/* A candidate is not started if one as slow as the slowest so far, over all shapes (cold
 * builds dominate), would end past the deadline: the budget is a promise, not a hint. Only the
 * run's very first evaluation starts with nothing measured, so a run ends within its budget plus
 * about one evaluation. */
static bool should_stop(const search *x) {
    return cancelled(x->s->opt) || x->out_of_memory || x->r->evaluated >= x->limit ||
           (x->deadline > 0 && now_s() + x->slowest >= x->deadline);
}

/* Once the search is planned, what is left of this shape is bounded by the space, the limit
 * and the time left at the pace so far; the shapes after it are assumed to cost the same. */
static void update_estimate(const search *x) {
    size_t done = x->r->evaluated;
    if (!x->planned || done == 0) return;
    size_t left = x->space->count > x->next ? x->space->count - x->next : 0;
    if (x->limit - done < left) left = x->limit - done;
    if (x->deadline > 0) {
        double now = now_s(), by_time = (x->deadline - now) / ((now - x->start) / (double)done);
        if (by_time < (double)left) left = by_time > 0 ? (size_t)by_time : 0;
    }
    *x->total_estimate = *x->evaluated_total + left + x->shapes_left * (done + left);
}

static void report(const search *x) {
    const clgemm_tune_options *o = x->s->opt;
    update_estimate(x);
    if (*x->total_estimate < *x->evaluated_total) *x->total_estimate = *x->evaluated_total;
    if (o->progress)
        o->progress(*x->evaluated_total, *x->total_estimate, x->r->gflops, now_s() - x->tune_start,
                    o->user);
}

static void try_candidate(search *x, const clgemm_config *c) {
    clgemm_tune_result *r = x->r;
    if (!list_push(&x->s->seen, c)) {
        x->out_of_memory = true;
        return;
    }
    double seconds = 0, t0 = now_s();
    outcome o = evaluate(x->s, c, r->precision, &seconds);
    if (now_s() - t0 > x->slowest) x->slowest = now_s() - t0;
    r->evaluated++;
    (*x->evaluated_total)++;
    if (o == OUTCOME_FAILED) r->failed++;
    if (o == OUTCOME_WRONG) r->wrong++;
    if (o == OUTCOME_TIMED && (r->status != CLGEMM_SUCCESS || seconds < r->seconds)) {
        r->status = CLGEMM_SUCCESS;
        r->config = *c;
        r->seconds = seconds;
        r->gflops = 2.0 * (double)x->s->m * (double)x->s->n * (double)x->s->k *
                    (double)x->s->batch / seconds * 1e-9;
    }
    report(x);
}

/* An unseen configuration one step (one parameter doubled or halved) from the best. */
static bool next_neighbour(search *x, clgemm_config *out) {
    if (x->r->status != CLGEMM_SUCCESS) return false;
    const clgemm_config *best = &x->r->config;
    const family_desc *f = clgemm__family(best->family);
    for (int p = 0; f && p < f->num_params; p++) {
        const family_param *param = &f->params[p];
        if (param->search_lo < 1) continue;
        for (int up = 1; up >= 0; up--) {
            clgemm_config c = *best;
            int *v = &c.params[param->slot];
            *v = up ? *v * 2 : *v / 2;
            if (*v < param->search_lo || *v > param->search_hi || list_contains(&x->s->seen, &c))
                continue;
            if (clgemm__config_check(&c, &x->s->h->info, x->r->precision) != CLGEMM_SUCCESS)
                continue;
            *out = c;
            return true;
        }
    }
    return false;
}

static bool next_in_order(search *x, clgemm_config *out) {
    while (x->next < x->space->count) {
        const clgemm_config *c = &x->space->items[x->order[x->next++]];
        if (!list_contains(&x->s->seen, c)) {
            *out = *c;
            return true;
        }
    }
    return false;
}

/* Random sampling uses the first half of the evaluations or of the time; after that the
 * unseen neighbours of the best come first, and sampling resumes when there are none. */
static bool sampling_over(const search *x) {
    if (x->limit != SIZE_MAX && x->r->evaluated >= x->limit / 2) return true;
    return x->deadline > 0 && now_s() - x->start >= (x->deadline - x->start) / 2;
}

static bool next_candidate(search *x, clgemm_config *c) {
    if (x->sampling && sampling_over(x) && next_neighbour(x, c)) return true;
    return next_in_order(x, c);
}

static void run_search(search *x) {
    clgemm_config c;
    x->exhausted = false;
    while (!should_stop(x)) {
        if (!next_candidate(x, &c)) {
            x->exhausted = true;
            return;
        }
        try_candidate(x, &c);
    }
}

/* Exhaustive when the whole space fits the evaluation limit and (at the cost measured for the
 * first candidate) the time budget; otherwise sampling in a random order, then local search. */
static void plan_search(search *x, uint64_t *rng) {
    size_t n = x->space->count, unseen = 0;
    for (size_t i = 0; i < n; i++) {
        x->order[i] = i;
        unseen += !list_contains(&x->s->seen, &x->space->items[i]);
    }
    double per_eval = now_s() - x->start;
    size_t fits = x->limit;
    if (x->deadline > 0 && per_eval > 0) {
        double f = (x->deadline - x->start) / per_eval;
        if (f < (double)fits) fits = f < 1 ? 1 : (size_t)f;
    }
    size_t planned = x->r->evaluated + unseen;
    x->sampling = planned > fits;
    if (x->sampling) {
        planned = fits;
        for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
            size_t j = (size_t)(clgemm__random(rng) % i), t = x->order[i - 1];
            x->order[i - 1] = x->order[j];
            x->order[j] = t;
        }
    }
    *x->total_estimate = *x->evaluated_total - x->r->evaluated + planned * (1 + x->shapes_left);
    x->planned = true;
}

/* The baseline first: the library's own choice for this shape without tuning, so tuning never
 * loses to it, and its speed tells what tuning gained. */
static clgemm_config baseline(const struct clgemm_handle_s *h, clgemm_precision precision, size_t m,
                              size_t n, size_t k, size_t batch) {
    clgemm_config c =
        clgemm__config_default_for(&h->info, precision, CLGEMM_COMPUTE_DEFAULT, m, n, k, batch);
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

/* The baseline, then the stored entry's configuration (so that a result measured faster than
 * it in this run may replace it), then the search. The first evaluation of the run always
 * starts; every later one only if the budget can still cover it. */
static void tune_shape(search *x, uint64_t *rng, tune_memo_entry *memo) {
    x->start = now_s();
    x->planned = false;
    clgemm_config base = baseline(x->s->h, x->r->precision, x->s->m, x->s->n, x->s->k, x->s->batch);
    bool first = *x->evaluated_total == 0;
    if (!cancelled(x->s->opt) && (first || !should_stop(x))) try_candidate(x, &base);
    if (x->r->status == CLGEMM_SUCCESS) x->r->default_gflops = x->r->gflops;
    if (stored_config(x, &memo->record.beat)) {
        if (config_equal(&memo->record.beat, &base))
            memo->record.beat_valid = x->r->evaluated > 0;
        else if (!should_stop(x)) {
            try_candidate(x, &memo->record.beat);
            memo->record.beat_valid = true;
        }
    }
    plan_search(x, rng);
    run_search(x);
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
    if (!clgemm__type(precision)) return CLGEMM_ERR_INVALID_ARGUMENT;
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

/* The tuning key of options or a result: precision is the A/B type; wide_c asks for its wider
 * C type (FP32 for FP16 / BF16), which other types lack (CLGEMM_ERR_INVALID_TYPE); batch the
 * matrices per call (its class is part of the key). */
static clgemm_status options_key(clgemm_precision precision, int wide_c, clgemm_transpose trans_a,
                                 clgemm_transpose trans_b, size_t batch, tuning_key *key) {
    const type_desc *t = clgemm__type(precision);
    if (!t || !trans_valid(trans_a) || !trans_valid(trans_b)) return CLGEMM_ERR_INVALID_ARGUMENT;
    if (wide_c && t->wide_c == precision) return CLGEMM_ERR_INVALID_TYPE;
    *key = clgemm__tuning_key(precision, wide_c ? t->wide_c : precision, trans_a, trans_b);
    key->batch_class = clgemm__batch_class(batch);
    return CLGEMM_SUCCESS;
}

static clgemm_status check_options(clgemm_handle h, const clgemm_tune_options *o,
                                   const clgemm_tune_result *results) {
    if (!h || !o || !results || !o->shapes) return CLGEMM_ERR_NULL_ARGUMENT;
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
        results[i].wide_c = key->type_c != key->type_ab;
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
        double left = o->budget_s - (now_s() - x->tune_start);
        x->deadline = now_s() + (left > 0 ? left : 0) / (double)(o->num_shapes - i);
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
                .tune_start = now_s(),
                .evaluated_total = &evaluated_total,
                .total_estimate = &total_estimate};
    for (size_t i = 0; i < o->num_shapes && !cancelled(o); i++) {
        x.r = &results[i];
        x.next = 0;
        memo->entries[i].record.key = key;
        memo->entries[i].shape = o->shapes[i];
        tune_one(h, o, &key, i, &x, &rng, &memo->entries[i]);
    }

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

clgemm_status clgemm_tuning_path(const char *path, char *buf, size_t size) {
    return clgemm__tuning_path(path, buf, size);
}
