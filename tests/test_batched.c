/* test_batched.c: batched and strided-batched GEMM (clgemm_gemm_strided_batched,
 * clgemm_gemm_batched, their typed and host forms) on the device, against a double-precision
 * host reference of every matrix and against CLBlast's GemmStridedBatched / GemmBatched (s, d,
 * c, z). Every type, both layouts, transposes (conjugate ones for complex), strides larger than
 * the matrix, stride 0 broadcasts, interleaved matrices of C, batch 1 and a large batch, the
 * last matrix ending exactly at the buffer's end, per-matrix alpha / beta (alpha 0 with NaN in
 * its A), split K over a batch, launches cut into chunks; and the refusals: offsets + strides
 * past the buffer or overflowing, overlapping matrices of C, each before anything is enqueued
 * (C untouched, no event). Every element outside the matrices is a sentinel that must survive
 * bit for bit. PoCL builds every kernel variant for seconds, so the variants are few and
 * shared by the cases: most use one small forced configuration, the shapes test the planner's. */
#include "configs.h"
#include "typed.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef TC_HAVE_CLBLAST
#include <clblast_c.h>
#endif

/* ---- Elements of every type as (re, im) doubles --------------------------------------------- */

/* Unit roundoff of a stored C of type t (FP16 / BF16 results are rounded when stored). */
static double eps_of(clgemm_precision t) {
    switch (t) {
    case CLGEMM_DOUBLE:
    case CLGEMM_COMPLEX_DOUBLE:
        return ldexp(1, -53);
    case CLGEMM_HALF:
        return ldexp(1, -11);
    case CLGEMM_BFLOAT16:
        return ldexp(1, -8);
    default:
        return ldexp(1, -24);
    }
}

/* Element i of an array of type t as (re, im), and back (typed.h's encodings). */
static void get(clgemm_precision t, const void *p, size_t i, double *re, double *im) {
    *re = tt_get(t, p, i, 0);
    *im = tt_is_complex(t) ? tt_get(t, p, i, 1) : 0;
}

static void set(clgemm_precision t, void *p, size_t i, double re, double im) {
    tt_set(t, p, i, 0, re);
    if (tt_is_complex(t)) tt_set(t, p, i, 1, im);
}

/* The sentinel outside every matrix: a recognisable byte pattern no arithmetic produces. */
static void fill_sentinel(void *p, size_t bytes) {
    memset(p, 0x5b, bytes);
}

/* Scalars of the arithmetic type (float for s, h, bf16), as alpha / beta arguments. */
typedef union scalar {
    float f;
    double d;
    cl_float2 c;
    cl_double2 z;
} scalar;
static scalar make_scalar(clgemm_precision t, double re, double im) {
    scalar s;
    memset(&s, 0, sizeof s);
    switch (t) {
    case CLGEMM_DOUBLE:
        s.d = re;
        break;
    case CLGEMM_COMPLEX_SINGLE:
        s.c.s[0] = (float)re, s.c.s[1] = (float)im;
        break;
    case CLGEMM_COMPLEX_DOUBLE:
        s.z.s[0] = re, s.z.s[1] = im;
        break;
    default:
        s.f = (float)re;
    }
    return s;
}
static size_t scalar_size(clgemm_precision t) {
    return t == CLGEMM_DOUBLE || t == CLGEMM_COMPLEX_SINGLE ? 8
           : t == CLGEMM_COMPLEX_DOUBLE                     ? 16
                                                            : 4;
}

/* ---- One batched problem -------------------------------------------------------------------- */

typedef struct bcase {
    clgemm_precision t;
    clgemm_layout layout;
    clgemm_transpose ta, tb;
    size_t m, n, k, batch;
    size_t pad_ld;                 /* added to each smallest leading dimension */
    size_t gap;                    /* elements between consecutive matrices (strided) */
    bool broadcast_a, broadcast_b; /* stride 0 */
    bool interleave_c;             /* C's matrices in each other's ldc gaps */
    bool table;                    /* clgemm_gemm_batched, matrices in reverse order */
    size_t off;                    /* first offset of each buffer */
    double alpha[2], beta[2];      /* of matrix 0; a table varies them per matrix */
    bool zero_alpha_odd;           /* table: alpha 0 for odd matrices, whose A is NaN */
    size_t tail;                   /* elements after the last matrix */
} bcase;

typedef struct bdata {
    bcase g;
    size_t lda, ldb, ldc, ext[3], stride[3], len[3];
    size_t *offs[3];              /* offset of matrix i of each operand */
    void *buf[3], *c0;            /* A, B, C contents; C before the call */
    bool *inside;                 /* element of C inside some matrix */
    scalar *alphas, *betas;       /* per matrix */
    void *alphas_raw, *betas_raw; /* the same, packed as the API takes them */
} bdata;

static size_t stored_rows(clgemm_layout l, clgemm_transpose tr, size_t r, size_t c) {
    bool t = tr != CLGEMM_NO_TRANS;
    size_t sr = t ? c : r, sc = t ? r : c;
    return l == CLGEMM_COL_MAJOR ? sr : sc; /* the contiguous extent */
}
static size_t stored_outer(clgemm_layout l, clgemm_transpose tr, size_t r, size_t c) {
    bool t = tr != CLGEMM_NO_TRANS;
    size_t sr = t ? c : r, sc = t ? r : c;
    return l == CLGEMM_COL_MAJOR ? sc : sr;
}
/* Index of op(X)(i, j) from the matrix start. */
static size_t at(clgemm_layout l, clgemm_transpose tr, size_t i, size_t j, size_t ld) {
    bool t = tr != CLGEMM_NO_TRANS;
    size_t r = t ? j : i, c = t ? i : j;
    return l == CLGEMM_COL_MAJOR ? r + c * ld : r * ld + c;
}

static uint64_t rng_state;
static double small_random(void) { /* a multiple of 1/8 in [-1, 1]: exact in every type */
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)((int)((rng_state >> 33) % 17) - 8) / 8.0;
}

static void bdata_make(bdata *d, const bcase *g, uint64_t seed) {
    memset(d, 0, sizeof *d);
    d->g = *g;
    rng_state = seed;
    clgemm_transpose none = CLGEMM_NO_TRANS;
    size_t inner[3] = {stored_rows(g->layout, g->ta, g->m, g->k),
                       stored_rows(g->layout, g->tb, g->k, g->n),
                       stored_rows(g->layout, none, g->m, g->n)};
    size_t outer[3] = {stored_outer(g->layout, g->ta, g->m, g->k),
                       stored_outer(g->layout, g->tb, g->k, g->n),
                       stored_outer(g->layout, none, g->m, g->n)};
    size_t ld[3];
    for (int x = 0; x < 3; x++) {
        ld[x] = (inner[x] ? inner[x] : 1) + g->pad_ld;
        d->ext[x] = inner[x] && outer[x] ? (outer[x] - 1) * ld[x] + inner[x] : 0;
    }
    if (g->interleave_c) ld[2] = inner[2] * g->batch; /* matrix i at i * inner */
    if (g->interleave_c) d->ext[2] = (outer[2] - 1) * ld[2] + inner[2];
    d->lda = ld[0], d->ldb = ld[1], d->ldc = ld[2];
    d->stride[0] = g->broadcast_a ? 0 : d->ext[0] + g->gap;
    d->stride[1] = g->broadcast_b ? 0 : d->ext[1] + g->gap;
    d->stride[2] = g->interleave_c ? inner[2] : d->ext[2] + g->gap;
    for (int x = 0; x < 3; x++) {
        d->offs[x] = calloc(g->batch ? g->batch : 1, sizeof(size_t));
        size_t last = 0;
        for (size_t b = 0; b < g->batch; b++) {
            size_t slot = g->table ? g->batch - 1 - b : b; /* a table reverses the order */
            d->offs[x][b] = g->off + slot * d->stride[x];
            if (d->offs[x][b] > last) last = d->offs[x][b];
        }
        d->len[x] = last + d->ext[x] + g->tail + 1;
        d->buf[x] = malloc(d->len[x] * clgemm_type_size(g->t));
    }
    /* A and B: NaN outside their matrices (never read into a result); C: the sentinel. */
    for (int x = 0; x < 2; x++)
        for (size_t i = 0; i < d->len[x]; i++)
            set(g->t, d->buf[x], i, NAN, NAN);
    fill_sentinel(d->buf[2], d->len[2] * clgemm_type_size(g->t));
    d->inside = calloc(d->len[2], sizeof(bool));
    d->alphas = calloc(g->batch + 1, sizeof(scalar));
    d->betas = calloc(g->batch + 1, sizeof(scalar));
    bool cplx = tt_is_complex(g->t);
    for (size_t b = 0; b < g->batch; b++) {
        double f = g->table ? 1.0 + 0.25 * (double)(b % 3) : 1.0;
        double ar = g->alpha[0] * f, ai = cplx ? g->alpha[1] * f : 0;
        if (g->zero_alpha_odd && b % 2) ar = ai = 0;
        double br = g->table ? g->beta[0] - 0.5 * (double)(b % 2) : g->beta[0];
        d->alphas[b] = make_scalar(g->t, ar, ai);
        d->betas[b] = make_scalar(g->t, br, cplx ? g->beta[1] : 0);
        for (int x = 0; x < 3; x++) {
            size_t rows = x == 0 ? g->m : x == 1 ? g->k : g->m;
            size_t cols = x == 0 ? g->k : g->n;
            clgemm_transpose tr = x == 0 ? g->ta : x == 1 ? g->tb : none;
            for (size_t i = 0; i < rows; i++)
                for (size_t j = 0; j < cols; j++) {
                    size_t e = d->offs[x][b] + at(g->layout, tr, i, j, ld[x]);
                    bool nan = (x == 0 && g->zero_alpha_odd && b % 2) ||
                               (x == 2 && g->beta[0] == 0 && g->beta[1] == 0 && !g->table);
                    set(g->t, d->buf[x], e, nan ? NAN : small_random(),
                        nan    ? NAN
                        : cplx ? small_random()
                               : 0);
                    if (x == 2) d->inside[e] = true;
                }
        }
    }
    size_t ss = scalar_size(g->t);
    d->alphas_raw = calloc(g->batch + 1, ss);
    d->betas_raw = calloc(g->batch + 1, ss);
    for (size_t b = 0; b < g->batch; b++) {
        memcpy((char *)d->alphas_raw + b * ss, &d->alphas[b], ss);
        memcpy((char *)d->betas_raw + b * ss, &d->betas[b], ss);
    }
    d->c0 = malloc(d->len[2] * clgemm_type_size(g->t));
    memcpy(d->c0, d->buf[2], d->len[2] * clgemm_type_size(g->t));
}

static void bdata_free(bdata *d) {
    for (int x = 0; x < 3; x++) {
        free(d->buf[x]);
        free(d->offs[x]);
    }
    free(d->c0);
    free(d->inside);
    free(d->alphas);
    free(d->betas);
    free(d->alphas_raw);
    free(d->betas_raw);
}

/* Checks result c against the reference: every matrix element within the bound, every element
 * outside them bit for bit as before. Returns the number of bad elements (first few in msg). */
static size_t bdata_check(const bdata *d, const void *c, const char *who, char *msg, size_t size) {
    const bcase *g = &d->g;
    size_t bad = 0;
    clgemm_transpose none = CLGEMM_NO_TRANS;
    double eps = eps_of(g->t);
    for (size_t b = 0; b < g->batch; b++) {
        double ar, ai, br, bi;
        const void *pa = &d->alphas[b], *pb = &d->betas[b];
        get(g->t == CLGEMM_HALF || g->t == CLGEMM_BFLOAT16 ? CLGEMM_SINGLE : g->t, pa, 0, &ar, &ai);
        get(g->t == CLGEMM_HALF || g->t == CLGEMM_BFLOAT16 ? CLGEMM_SINGLE : g->t, pb, 0, &br, &bi);
        for (size_t i = 0; i < g->m; i++)
            for (size_t j = 0; j < g->n; j++) {
                double sr = 0, si = 0, mag = 0;
                if (ar != 0 || ai != 0)
                    for (size_t p = 0; p < g->k; p++) {
                        double xr, xi, yr, yi;
                        get(g->t, d->buf[0], d->offs[0][b] + at(g->layout, g->ta, i, p, d->lda),
                            &xr, &xi);
                        get(g->t, d->buf[1], d->offs[1][b] + at(g->layout, g->tb, p, j, d->ldb),
                            &yr, &yi);
                        if (g->ta == CLGEMM_CONJ_TRANS) xi = -xi;
                        if (g->tb == CLGEMM_CONJ_TRANS) yi = -yi;
                        sr += xr * yr - xi * yi;
                        si += xr * yi + xi * yr;
                        mag += hypot(xr, xi) * hypot(yr, yi);
                    }
                size_t e = d->offs[2][b] + at(g->layout, none, i, j, d->ldc);
                double cr = 0, ci = 0;
                if (br != 0 || bi != 0) get(g->t, d->c0, e, &cr, &ci);
                double rr = ar * sr - ai * si + br * cr - bi * ci;
                double ri = ar * si + ai * sr + br * ci + bi * cr;
                double bound =
                    4 * (g->k + 2) * eps * (hypot(ar, ai) * mag + hypot(br, bi) * hypot(cr, ci)) +
                    1e-300;
                double vr, vi;
                get(g->t, c, e, &vr, &vi);
                if (!(fabs(vr - rr) <= bound && fabs(vi - ri) <= bound)) {
                    if (bad++ < 3) {
                        size_t used = strlen(msg);
                        snprintf(msg + used, size - used,
                                 " [%s: matrix %zu (%zu,%zu) = %g%+gi, want %g%+gi]", who, b, i, j,
                                 vr, vi, rr, ri);
                    }
                }
            }
    }
    for (size_t e = 0; e < d->len[2]; e++)
        if (!d->inside[e] &&
            memcmp((const char *)c + e * clgemm_type_size(g->t),
                   (const char *)d->c0 + e * clgemm_type_size(g->t), clgemm_type_size(g->t)) != 0) {
            if (bad++ < 3) {
                size_t used = strlen(msg);
                snprintf(msg + used, size - used, " [%s: element %zu outside C written]", who, e);
            }
        }
    return bad;
}

static void describe(const bcase *g, char *buf, size_t size) {
    static const char *names[] = {"s", "d", "c", "z", "h", "bf16"};
    snprintf(buf, size,
             "%s%s %s %c%c m=%zu n=%zu k=%zu batch=%zu pad=%zu gap=%zu bcast=%d%d inter=%d "
             "off=%zu alpha=%g%+gi beta=%g%+gi zero_odd=%d:",
             names[g->t], g->table ? "gemm_batched" : "gemm_strided_batched",
             g->layout == CLGEMM_ROW_MAJOR ? "row" : "col", "NTC"[g->ta - CLGEMM_NO_TRANS],
             "NTC"[g->tb - CLGEMM_NO_TRANS], g -> m, g -> n, g -> k, g -> batch, g -> pad_ld,
             g -> gap, g -> broadcast_a, g -> broadcast_b, g -> interleave_c, g -> off,
             g -> alpha[0], g -> alpha[1], g -> beta[0], g -> beta[1], g -> zero_alpha_odd);
}

static clgemm_status call_clgemm(clgemm_handle h, const bdata *d, cl_mem a, cl_mem b, cl_mem c,
                                 cl_event *event) {
    const bcase *g = &d->g;
    if (g->table)
        return clgemm_gemm_batched(h, g->layout, g->ta, g->tb, g->m, g->n, g->k, d->alphas_raw, a,
                                   d->offs[0], d->lda, b, d->offs[1], d->ldb, d->betas_raw, c,
                                   d->offs[2], d->ldc, g->batch, g->t, g->t, 0, NULL, 0, NULL,
                                   event);
    return clgemm_gemm_strided_batched(h, g->layout, g->ta, g->tb, g->m, g->n, g->k, &d->alphas[0],
                                       a, d->offs[0][0], d->lda, d->stride[0], b, d->offs[1][0],
                                       d->ldb, d->stride[1], &d->betas[0], c, d->offs[2][0], d->ldc,
                                       d->stride[2], g->batch, g->t, g->t, 0, NULL, 0, NULL, event);
}

#ifdef TC_HAVE_CLBLAST
/* The same batch through CLBlast (s, d, c, z), waited for. Its status (0: success). */
static int call_clblast(cl_command_queue queue, const bdata *d, cl_mem a, cl_mem b, cl_mem c) {
    const bcase *g = &d->g;
    CLBlastLayout l = (CLBlastLayout)g->layout;
    CLBlastTranspose ta = (CLBlastTranspose)g->ta, tb = (CLBlastTranspose)g->tb;
    cl_event ev = NULL;
    CLBlastStatusCode st = CLBlastNotImplemented;
    const size_t *oa = d->offs[0], *ob = d->offs[1], *oc = d->offs[2];
    size_t m = g->m, n = g->n, k = g->k, B = g->batch;
    const size_t *s = d->stride;
/* The table form, or the strided one with matrix 0's offsets and scalars, of type X (S, D,
 * C, Z), whose scalars are the field f of the scalar union. */
#define CLBLAST_BATCH(X, f)                                                                        \
    (g->table ? CLBlast##X##gemmBatched(l, ta, tb, m, n, k, d->alphas_raw, a, oa, d->lda, b, ob,   \
                                        d->ldb, d->betas_raw, c, oc, d->ldc, B, &queue, &ev)       \
              : CLBlast##X##gemmStridedBatched(                                                    \
                    l, ta, tb, m, n, k, d->alphas[0].f, a, oa[0], d->lda, s[0], b, ob[0], d->ldb,  \
                    s[1], d->betas[0].f, c, oc[0], d->ldc, s[2], B, &queue, &ev))
    switch (g->t) {
    case CLGEMM_SINGLE:
        st = CLBLAST_BATCH(S, f);
        break;
    case CLGEMM_DOUBLE:
        st = CLBLAST_BATCH(D, d);
        break;
    case CLGEMM_COMPLEX_SINGLE:
        st = CLBLAST_BATCH(C, c);
        break;
    case CLGEMM_COMPLEX_DOUBLE:
        st = CLBLAST_BATCH(Z, z);
        break;
    default:
        break;
    }
#undef CLBLAST_BATCH
    if (st == CLBlastSuccess && ev) {
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
    }
    return (int)st;
}
#endif

/* Runs one case through clgemm (waiting on its event) and, for s/d/c/z when asked, CLBlast;
 * checks both. 0 on success, else the case and its failures in msg. */
static int run_case(tc_env *env, clgemm_handle h, const bcase *g, uint64_t seed, bool clblast,
                    char *msg, size_t size) {
    bdata d;
    bdata_make(&d, g, seed);
    describe(g, msg, size);
    if (getenv("TEST_BATCHED_TRACE")) fprintf(stderr, "%s\n", msg);
    size_t es = clgemm_type_size(g->t);
    cl_mem a = tc_buffer(env->context, d.len[0] * es, d.buf[0]);
    cl_mem b = tc_buffer(env->context, d.len[1] * es, d.buf[1]);
    cl_mem c = tc_buffer(env->context, d.len[2] * es, d.buf[2]);
    void *out = malloc(d.len[2] * es);
    int fails = 0;
    cl_event ev = NULL;
    clgemm_status st = call_clgemm(h, &d, a, b, c, &ev);
    if (st != CLGEMM_SUCCESS) {
        size_t used = strlen(msg);
        snprintf(msg + used, size - used, " clgemm: %s", clgemm_status_string(st));
        fails++;
    } else {
        cr_assert_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
        clReleaseEvent(ev);
        cr_assert_eq(tc_read(env->queue, c, d.len[2] * es, out), CL_SUCCESS);
        fails += bdata_check(&d, out, "clgemm", msg, size) != 0;
    }
#ifdef TC_HAVE_CLBLAST
    bool types = g->t <= CLGEMM_COMPLEX_DOUBLE && !g->zero_alpha_odd && !g->interleave_c;
    if (clblast && types && g->m && g->n && g->k && g->batch) {
        cr_assert_eq(tc_write(env->queue, c, d.len[2] * es, d.c0), CL_SUCCESS);
        int cs = call_clblast(env->queue, &d, a, b, c);
        if (cs != 0) {
            size_t used = strlen(msg);
            snprintf(msg + used, size - used, " CLBlast status %d", cs);
            fails++;
        } else {
            cr_assert_eq(tc_read(env->queue, c, d.len[2] * es, out), CL_SUCCESS);
            fails += bdata_check(&d, out, "CLBlast", msg, size) != 0;
        }
    }
#else
    (void)clblast;
#endif
    free(out);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    bdata_free(&d);
    return fails;
}

/* A handle on a fresh environment, or the test is skipped. */
#define SETUP(env, h)                                                                              \
    tc_env env;                                                                                    \
    TC_OPEN_OR_SKIP(&env);                                                                         \
    clgemm_handle h = NULL;                                                                        \
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS)

#define EXPECT_CASE(env, h, g, seed, clblast)                                                      \
    do {                                                                                           \
        char msg_[2048];                                                                           \
        bcase g_ = (g);                                                                            \
        if (!(g_.t == CLGEMM_DOUBLE || g_.t == CLGEMM_COMPLEX_DOUBLE) || (env).has_fp64)           \
            cr_expect(run_case(&(env), h, &g_, seed, clblast, msg_, sizeof msg_) == 0, "%s",       \
                      msg_);                                                                       \
    } while (0)

/* A small register-blocked configuration: PoCL builds it in a fraction of the time of the CPU
 * default, so the cases that vary types, transposes and split K use it (the shapes, scalars and
 * refusals keep the planner's own choice). */
static const clgemm_config small_tiles = SMALL_REGBLOCK;

static void use_small_tiles(clgemm_handle h, bool has_fp64) {
    for (clgemm_precision t = CLGEMM_SINGLE; t < CLGEMM_PRECISION_COUNT; t++)
        if (t != CLGEMM_INT32 && /* only ever C */
            (has_fp64 || !(t == CLGEMM_DOUBLE || t == CLGEMM_COMPLEX_DOUBLE)))
            cr_assert_eq(clgemm_set_config(h, t, &small_tiles), CLGEMM_SUCCESS);
}

static const bcase base = {.t = CLGEMM_SINGLE,
                           .layout = CLGEMM_COL_MAJOR,
                           .ta = CLGEMM_NO_TRANS,
                           .tb = CLGEMM_NO_TRANS,
                           .m = 7,
                           .n = 5,
                           .k = 9,
                           .batch = 3,
                           .pad_ld = 2,
                           .gap = 3,
                           .off = 4,
                           .alpha = {1.5, 0.5},
                           .beta = {-0.5, 0.25},
                           .tail = 2};

/* ---- Every type, strided and table --------------------------------------------------------- */

Test(batched, every_type, .timeout = 600) {
    SETUP(env, h);
    use_small_tiles(h, env.has_fp64);
    static const clgemm_precision types[] = {CLGEMM_SINGLE,         CLGEMM_DOUBLE,
                                             CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_DOUBLE,
                                             CLGEMM_HALF,           CLGEMM_BFLOAT16};
    for (int i = 0; i < 6; i++)
        for (int table = 0; table < 2; table++) {
            bcase g = base;
            g.t = types[i];
            g.table = table;
            g.layout = table ? CLGEMM_ROW_MAJOR : CLGEMM_COL_MAJOR;
            EXPECT_CASE(env, h, g, 1 + (uint64_t)i, true);
        }
    clgemm_destroy(h);
    tc_close(&env);
}

/* Both layouts and every transpose (single; conjugate transposes in complex), strided and
 * table, compared with CLBlast. */
Test(batched, layouts_transposes, .timeout = 600) {
    SETUP(env, h);
    use_small_tiles(h, env.has_fp64);
    static const clgemm_transpose tr[] = {CLGEMM_NO_TRANS, CLGEMM_TRANS};
    for (int l = 0; l < 2; l++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                bcase g = base;
                g.layout = l ? CLGEMM_ROW_MAJOR : CLGEMM_COL_MAJOR;
                g.ta = tr[ta];
                g.tb = tr[tb];
                g.table = (ta + tb + l) % 2;
                EXPECT_CASE(env, h, g, 10 + (uint64_t)(l * 4 + ta * 2 + tb), true);
            }
    bcase g = base;
    g.t = CLGEMM_COMPLEX_SINGLE;
    g.ta = CLGEMM_CONJ_TRANS;
    g.tb = CLGEMM_TRANS;
    EXPECT_CASE(env, h, g, 20, true);
    g.layout = CLGEMM_ROW_MAJOR;
    g.ta = CLGEMM_NO_TRANS;
    g.tb = CLGEMM_CONJ_TRANS;
    g.table = true;
    EXPECT_CASE(env, h, g, 21, true);
    clgemm_destroy(h);
    tc_close(&env);
}

/* Strides and shapes: strides far beyond the matrix, broadcast A or B (stride 0), C interleaved
 * in the gaps of ldc, batch 1, a large batch of small matrices, beta 0 over NaN, sizes that
 * straddle the tiles, no gap at all (the last matrix ends where the buffer ends: tail 0 less
 * the one spare element is exercised by the bounds test). */
Test(batched, strides_and_shapes, .timeout = 600) {
    SETUP(env, h);
    bcase g = base;
    g.gap = 1000;
    EXPECT_CASE(env, h, g, 30, true);
    g = base;
    g.broadcast_a = true;
    EXPECT_CASE(env, h, g, 31, true);
    g = base;
    g.broadcast_b = true;
    g.layout = CLGEMM_ROW_MAJOR;
    EXPECT_CASE(env, h, g, 32, true);
    g = base;
    g.interleave_c = true;
    g.batch = 4;
    EXPECT_CASE(env, h, g, 33, false);
    g = base;
    g.batch = 1;
    EXPECT_CASE(env, h, g, 34, true);
    g = base;
    g.batch = 1500;
    g.m = g.n = g.k = 4;
    g.gap = 0;
    g.pad_ld = 0;
    EXPECT_CASE(env, h, g, 35, true);
    g.table = true;
    EXPECT_CASE(env, h, g, 36, true);
    g = base;
    g.beta[0] = g.beta[1] = 0;
    g.m = 37, g.n = 33, g.k = 40;
    EXPECT_CASE(env, h, g, 37, true);
    clgemm_destroy(h);
    tc_close(&env);
}

/* Per-matrix scalars: alpha 0 for every other matrix of a table batch, whose A is all NaN
 * (it must not reach C); all alphas 0 and k = 0 (only beta * C, A and B never read). */
Test(batched, scalars_and_empty, .timeout = 600) {
    SETUP(env, h);
    bcase g = base;
    g.table = true;
    g.batch = 5;
    g.zero_alpha_odd = true;
    EXPECT_CASE(env, h, g, 40, false);
    g = base;
    g.alpha[0] = g.alpha[1] = 0;
    EXPECT_CASE(env, h, g, 41, true);
    g.table = true;
    EXPECT_CASE(env, h, g, 42, true);
    g = base;
    g.k = 0;
    EXPECT_CASE(env, h, g, 43, false);
    g.table = true;
    EXPECT_CASE(env, h, g, 44, false);
    clgemm_destroy(h);
    tc_close(&env);
}

/* Split K over a batch (forced layers: batch and layers share the third grid dimension, and
 * the reduction runs per matrix), strided and table; and launches cut into chunks. */
Test(batched, split_and_chunks, .timeout = 600) {
    /* A handle reads CLGEMM_KSPLIT and CLGEMM_BATCH_CHUNK when it is made. */
    setenv("CLGEMM_KSPLIT", "3", 1);
    SETUP(env, h);
    use_small_tiles(h, env.has_fp64);
    bcase g = base;
    g.k = 100;
    EXPECT_CASE(env, h, g, 50, true);
    g.table = true;
    g.layout = CLGEMM_ROW_MAJOR;
    EXPECT_CASE(env, h, g, 51, true);
    setenv("CLGEMM_BATCH_CHUNK", "2", 1);
    clgemm_destroy(h);
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
    use_small_tiles(h, env.has_fp64);
    g = base;
    g.batch = 7;
    g.k = 100;
    EXPECT_CASE(env, h, g, 52, true); /* 21 layers in 11 launches, then the reduction in 4 */
    unsetenv("CLGEMM_KSPLIT");
    clgemm_destroy(h);
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
    use_small_tiles(h, env.has_fp64);
    g.table = true;
    EXPECT_CASE(env, h, g, 53, true);
    g.k = 0;
    EXPECT_CASE(env, h, g, 54, false);
    unsetenv("CLGEMM_BATCH_CHUNK");
    clgemm_destroy(h);
    tc_close(&env);
}

/* The tensor-core family split over a batch, strided and table, FP64 and FP16, and FP64 in the
 * 32 x 32 tiles of four warps that small batches take (NVIDIA sm_90 only: skipped elsewhere,
 * PoCL in CI included). */
Test(batched, mma_split, .timeout = 600) {
    setenv("CLGEMM_KSPLIT", "3", 1);
    SETUP(env, h);
    unsetenv("CLGEMM_KSPLIT");
    static const struct {
        clgemm_precision t;
        clgemm_config c;
    } runs[] = {{CLGEMM_DOUBLE, {.family = CLGEMM_FAMILY_MMA, .params = {64, 64, 16, 32, 32, 2}}},
                {CLGEMM_HALF, {.family = CLGEMM_FAMILY_MMA, .params = {64, 64, 16, 32, 32, 2}}},
                {CLGEMM_DOUBLE, {.family = CLGEMM_FAMILY_MMA, .params = {32, 32, 16, 16, 16, 2}}}};
    int ran = 0;
    for (int i = 0; i < 3; i++) {
        if (clgemm_check_config(h, runs[i].t, &runs[i].c) != CLGEMM_SUCCESS) continue;
        cr_assert_eq(clgemm_set_config(h, runs[i].t, &runs[i].c), CLGEMM_SUCCESS);
        bcase g = base;
        g.t = runs[i].t;
        g.k = 100;
        const bool clblast = runs[i].t == CLGEMM_DOUBLE; /* CLBlast: no FP16 on the H200 */
        EXPECT_CASE(env, h, g, 60 + 2 * (uint64_t)i, clblast);
        g.table = true;
        g.layout = CLGEMM_ROW_MAJOR;
        EXPECT_CASE(env, h, g, 61 + 2 * (uint64_t)i, clblast);
        ran++;
    }
    clgemm_destroy(h);
    tc_close(&env);
    if (!ran) cr_skip_test("no tensor-core family on this device");
}

/* ---- Refusals: a status, nothing enqueued, C untouched ------------------------------------- */

/* Runs a strided call that must fail with `want`: the event stays NULL (nothing enqueued) and
 * C keeps its contents. */
static void expect_refused(tc_env *env, clgemm_handle h, cl_mem a, cl_mem b, cl_mem c,
                           size_t c_elems, size_t off_a, size_t stride_a, size_t off_b,
                           size_t stride_b, size_t off_c, size_t ldc, size_t stride_c, size_t batch,
                           clgemm_status want, const char *what) {
    float before[256], after[256];
    cr_assert_leq(c_elems, 256u);
    cr_assert_eq(tc_read(env->queue, c, c_elems * 4, before), CL_SUCCESS);
    float alpha = 1, beta = 1;
    cl_event ev = NULL;
    clgemm_status st = clgemm_sgemm_strided_batched(
        h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4, 4, 4, alpha, a, off_a, 4,
        stride_a, b, off_b, 4, stride_b, beta, c, off_c, ldc, stride_c, batch, NULL, 0, NULL, &ev);
    cr_expect_eq(st, want, "%s: got %s, want %s", what, clgemm_status_string(st),
                 clgemm_status_string(want));
    cr_expect_null(ev, "%s: an event came back", what);
    clFinish(env->queue);
    cr_assert_eq(tc_read(env->queue, c, c_elems * 4, after), CL_SUCCESS);
    cr_expect(memcmp(before, after, c_elems * 4) == 0, "%s: C changed", what);
}

Test(batched, bounds_and_overlap, .timeout = 300) {
    SETUP(env, h);
    /* Three 4 x 4 matrices with stride 16 from offset 2: 2 + 2 * 16 + 16 = 50 elements. */
    float init[64];
    for (int i = 0; i < 64; i++)
        init[i] = (float)(i % 7) - 3;
    cl_mem a = tc_buffer(env.context, 50 * 4, init), b = tc_buffer(env.context, 50 * 4, init);
    cl_mem c = tc_buffer(env.context, 50 * 4, init), c49 = tc_buffer(env.context, 49 * 4, init);
    /* Ends exactly at the end: accepted, and correct (checked against the host). */
    float alpha = 1, beta = 0, out[50];
    cr_assert_eq(clgemm_sgemm_strided_batched(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS,
                                              4, 4, 4, alpha, a, 2, 4, 16, b, 2, 4, 16, beta, c, 2,
                                              4, 16, 3, NULL, 0, NULL, NULL),
                 CLGEMM_SUCCESS);
    cr_assert_eq(tc_read(env.queue, c, sizeof out, out), CL_SUCCESS);
    for (int bi = 0; bi < 3; bi++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                double s = 0;
                for (int p = 0; p < 4; p++)
                    s += (double)init[2 + bi * 16 + i + p * 4] * init[2 + bi * 16 + p + j * 4];
                cr_expect_eq(out[2 + bi * 16 + i + j * 4], (float)s, "matrix %d (%d,%d)", bi, i, j);
            }
    cr_expect_eq(out[0], init[0]);
    cr_expect_eq(out[1], init[1]);
    /* One element short, for each operand. */
    expect_refused(&env, h, a, b, c49, 49, 2, 16, 2, 16, 2, 4, 16, 3, CLGEMM_ERR_BUFFER_C_TOO_SMALL,
                   "C one short");
    expect_refused(&env, h, a, b, c, 50, 3, 16, 2, 16, 2, 4, 16, 3, CLGEMM_ERR_BUFFER_A_TOO_SMALL,
                   "A one short");
    expect_refused(&env, h, a, b, c, 50, 2, 16, 2, 17, 2, 4, 16, 3, CLGEMM_ERR_BUFFER_B_TOO_SMALL,
                   "B one short");
    /* Offsets + strides past size_t. */
    expect_refused(&env, h, a, b, c, 50, 2, SIZE_MAX / 2, 2, 16, 2, 4, 16, 3, CLGEMM_ERR_OVERFLOW,
                   "A stride overflows");
    expect_refused(&env, h, a, b, c, 50, 2, 16, 2, 16, SIZE_MAX - 8, 4, 16, 3, CLGEMM_ERR_OVERFLOW,
                   "C offset near SIZE_MAX");
    expect_refused(&env, h, a, b, c, 50, 2, 16, 2, 16, 2, 4, SIZE_MAX / 2, 3, CLGEMM_ERR_OVERFLOW,
                   "C stride overflows");
    /* Overlapping C: stride 0, a stride inside the matrix, and a huge batch that wraps. */
    expect_refused(&env, h, a, b, c, 50, 2, 16, 2, 16, 2, 4, 0, 2, CLGEMM_ERR_BATCH_OVERLAP,
                   "C stride 0");
    expect_refused(&env, h, a, b, c, 50, 2, 16, 2, 16, 2, 4, 5, 2, CLGEMM_ERR_BATCH_OVERLAP,
                   "C stride 5 < 16");
    expect_refused(&env, h, a, b, c, 50, 2, 16, 2, 16, 2, 8, 1, 2, CLGEMM_ERR_BATCH_OVERLAP,
                   "C stride 1 with ldc 8");
    /* Broadcast A and B (stride 0) are fine; C stride 4 with ldc 8 interleaves: fine too. */
    cr_expect_eq(clgemm_sgemm_strided_batched(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS,
                                              4, 4, 4, alpha, a, 0, 4, 0, b, 0, 4, 0, beta, c, 0, 8,
                                              4, 2, NULL, 0, NULL, NULL),
                 CLGEMM_SUCCESS);
    /* Batch 0: arguments still checked, nothing computed; a marker event. */
    cl_event ev = NULL;
    cr_expect_eq(clgemm_sgemm_strided_batched(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS,
                                              4, 4, 4, alpha, a, 0, 3, 0, b, 0, 4, 0, beta, c, 0, 8,
                                              4, 0, NULL, 0, NULL, &ev),
                 CLGEMM_ERR_INVALID_LD_A);
    cr_expect_eq(clgemm_sgemm_strided_batched(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS,
                                              4, 4, 4, alpha, a, 0, 4, 0, b, 0, 4, 0, beta, c, 0, 8,
                                              4, 0, NULL, 0, NULL, &ev),
                 CLGEMM_SUCCESS);
    cr_expect_not_null(ev);
    if (ev) {
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
    }
    /* Table: duplicate C offsets, NULL arrays, an offset past the end. */
    size_t oa[3] = {2, 18, 34}, ob[3] = {34, 2, 18}, oc_dup[3] = {2, 34, 2},
           oc_far[3] = {2, 18, 35};
    float alphas[3] = {1, 2, 3}, betas[3] = {0, 0, 0};
    float before[50], after[50];
    cr_assert_eq(tc_read(env.queue, c, sizeof before, before), CL_SUCCESS);
    ev = NULL;
    cr_expect_eq(clgemm_sgemm_batched(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4, 4,
                                      4, alphas, a, oa, 4, b, ob, 4, betas, c, oc_dup, 4, 3, NULL,
                                      0, NULL, &ev),
                 CLGEMM_ERR_BATCH_OVERLAP);
    cr_expect_eq(clgemm_sgemm_batched(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4, 4,
                                      4, alphas, a, oa, 4, b, ob, 4, betas, c, oc_far, 4, 3, NULL,
                                      0, NULL, &ev),
                 CLGEMM_ERR_BUFFER_C_TOO_SMALL);
    cr_expect_eq(clgemm_sgemm_batched(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4, 4,
                                      4, alphas, a, NULL, 4, b, ob, 4, betas, c, oa, 4, 3, NULL, 0,
                                      NULL, &ev),
                 CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_eq(clgemm_sgemm_batched(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4, 4,
                                      4, NULL, a, oa, 4, b, ob, 4, betas, c, oa, 4, 3, NULL, 0,
                                      NULL, &ev),
                 CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_null(ev);
    clFinish(env.queue);
    cr_assert_eq(tc_read(env.queue, c, sizeof after, after), CL_SUCCESS);
    cr_expect(memcmp(before, after, sizeof before) == 0, "a refused table call changed C");
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    clReleaseMemObject(c49);
    clgemm_destroy(h);
    tc_close(&env);
}

/* ---- Host forms ---------------------------------------------------------------------------- */

Test(batched, host_forms, .timeout = 300) {
    SETUP(env, h);
    enum { M = 5, N = 3, K = 4, B = 3, LD = 6, SA = LD * K + 2, SB = LD * N + 1, SC = LD * N + 3 };
    float a[B * SA], b[B * SB], c[B * SC], c0[B * SC];
    for (int i = 0; i < B * SA; i++)
        a[i] = (float)((i * 7) % 11) / 4 - 1;
    for (int i = 0; i < B * SB; i++)
        b[i] = (float)((i * 5) % 13) / 4 - 1;
    for (int i = 0; i < B * SC; i++)
        c[i] = c0[i] = (float)((i * 3) % 7) / 2 - 1;
    float alpha = 0.5f, beta = -1;
    cr_assert_eq(clgemm_gemm_strided_batched_host(
                     h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K, &alpha, a, LD,
                     SA, b, LD, SB, &beta, c, LD, SC, B, CLGEMM_SINGLE, CLGEMM_SINGLE, 0),
                 CLGEMM_SUCCESS);
    for (int bi = 0; bi < B; bi++)
        for (int i = 0; i < LD; i++)
            for (int j = 0; j < N; j++) {
                int e = bi * SC + i + j * LD;
                double want = c0[e];
                if (i < M) {
                    double s = 0;
                    for (int p = 0; p < K; p++)
                        s += (double)a[bi * SA + i + p * LD] * b[bi * SB + p + j * LD];
                    want = alpha * s + beta * c0[e];
                }
                cr_expect(fabs(c[e] - want) <= 1e-5, "strided host: matrix %d (%d,%d) %g, want %g",
                          bi, i, j, c[e], want);
            }
    /* Batched host: pointers in any order, C interleaved (matrix i at column offset i of ldc
     * 2 * M... here rows: ldc = B * M, matrix i at i * M). */
    float cc[B * M * N], cc0[B * M * N], alphas[B] = {1, 0, -2}, betas[B] = {0.5f, 1, 0};
    for (int i = 0; i < B * M * N; i++)
        cc[i] = cc0[i] = (float)(i % 5) - 2;
    const void *pa[B], *pb[B];
    void *pc[B];
    for (int bi = 0; bi < B; bi++) {
        pa[bi] = a + (B - 1 - bi) * SA;
        pb[bi] = b + bi * SB;
        pc[bi] = cc + bi * M;
    }
    cr_assert_eq(clgemm_gemm_batched_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M,
                                          N, K, alphas, pa, LD, pb, LD, betas, pc, B * M, B,
                                          CLGEMM_SINGLE, CLGEMM_SINGLE, 0),
                 CLGEMM_SUCCESS);
    for (int bi = 0; bi < B; bi++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double s = 0;
                for (int p = 0; p < K; p++)
                    s += (double)((const float *)pa[bi])[i + p * LD] *
                         ((const float *)pb[bi])[p + j * LD];
                int e = bi * M + i + j * B * M;
                double want = alphas[bi] * s + betas[bi] * cc0[e];
                cr_expect(fabs(cc[e] - want) <= 1e-5, "batched host: matrix %d (%d,%d) %g, want %g",
                          bi, i, j, cc[e], want);
            }
    /* Overlapping host C pointers are refused, and nothing is written. */
    pc[1] = cc + 1;
    memcpy(cc0, cc, sizeof cc);
    cr_expect_eq(clgemm_gemm_batched_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M,
                                          N, K, alphas, pa, LD, pb, LD, betas, pc, B * M, B,
                                          CLGEMM_SINGLE, CLGEMM_SINGLE, 0),
                 CLGEMM_ERR_BATCH_OVERLAP);
    cr_expect(memcmp(cc, cc0, sizeof cc) == 0);
    clgemm_destroy(h);
    tc_close(&env);
}
