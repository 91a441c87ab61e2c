/* typed.c: host side of the tests for every element type (see typed.h): FP16/BF16/FP8 encoding,
 * typed problem data, the long-double reference and its bound, the checks, and one problem run
 * end to end through clgemm (and CLBlast for complex). */
#include "typed.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef TC_HAVE_CLBLAST
#include <clblast_c.h>
#endif

/* ---- 16-bit formats ---------------------------------------------------------------------------
 * Both are IEEE-style: sign, exponent with `bias`, p - 1 stored mantissa bits. Rounding is done
 * on the value (frexp/ldexp, nearbyint in the default round-to-nearest-even mode), not on bits,
 * so it shares nothing with the kernels' bit tricks. */

/* |v| rounded to p significant bits, with the spacing of the smallest normal below it. */
static double round_to(double a, int p, int emin) {
    if (a == 0 || !isfinite(a)) return a;
    int e;
    frexp(a, &e); /* a in [2^(e-1), 2^e) */
    int q = (e - 1 < emin ? emin : e - 1) - (p - 1);
    return ldexp(nearbyint(ldexp(a, -q)), q);
}

static uint16_t encode16(double v, int p, int bias) {
    int mbits = p - 1;
    uint16_t sign = signbit(v) ? 0x8000u : 0;
    uint16_t inf = (uint16_t)(((1u << (15 - mbits)) - 1) << mbits);
    if (isnan(v)) return sign | inf | (uint16_t)(1u << (mbits - 1));
    double a = round_to(fabs(v), p, 1 - bias);
    if (isinf(a) || a >= ldexp(1.0, bias + 1)) return sign | inf;
    if (a < ldexp(1.0, 1 - bias)) return sign | (uint16_t)ldexp(a, bias - 1 + mbits);
    int e;
    frexp(a, &e);
    uint16_t mant = (uint16_t)(ldexp(a, mbits - (e - 1)) - ldexp(1.0, mbits));
    return sign | (uint16_t)((e - 1 + bias) << mbits) | mant;
}

static double decode16(uint16_t h, int p, int bias) {
    int mbits = p - 1, emask = (1 << (15 - mbits)) - 1;
    int e = (h >> mbits) & emask, m = h & ((1 << mbits) - 1);
    double v = e == 0       ? ldexp(m, 1 - bias - mbits)
               : e == emask ? (m ? NAN : INFINITY)
                            : ldexp(m + (1 << mbits), e - bias - mbits);
    return (h & 0x8000) ? -v : v;
}

uint16_t tt_half_from_double(double v) {
    return encode16(v, 11, 15);
}
double tt_half_to_double(uint16_t h) {
    return decode16(h, 11, 15);
}
uint16_t tt_bf16_from_float(float v) {
    return encode16(v, 8, 127);
}
double tt_bf16_to_double(uint16_t b) {
    return decode16(b, 8, 127);
}

/* ---- 8-bit floating point (OCP) ---------------------------------------------------------------
 * E4M3 (bias 7, no infinities, NaN S.1111.111) and E5M2 (bias 15, IEEE-like). Encoding rounds
 * the value as above and saturates (infinities too) to the largest finite code, as the
 * library's clgemm_fp8_from_float documents; written here on values, apart from its code. */

static double fp8_max(bool e4m3) {
    return e4m3 ? 448.0 : 57344.0;
}

uint8_t tt_fp8_from_double(clgemm_precision t, double v) {
    bool e4 = t == CLGEMM_E4M3;
    int mbits = e4 ? 3 : 2, bias = e4 ? 7 : 15;
    uint8_t sign = signbit(v) ? 0x80 : 0;
    if (isnan(v)) return sign | (e4 ? 0x7f : 0x7e);
    double a = round_to(fabs(v), mbits + 1, 1 - bias);
    if (a >= fp8_max(e4)) return sign | (e4 ? 0x7e : 0x7b);
    if (a < ldexp(1.0, 1 - bias)) return sign | (uint8_t)ldexp(a, bias - 1 + mbits);
    int e;
    frexp(a, &e);
    uint8_t mant = (uint8_t)(ldexp(a, mbits - (e - 1)) - ldexp(1.0, mbits));
    return sign | (uint8_t)((e - 1 + bias) << mbits) | mant;
}

double tt_fp8_to_double(clgemm_precision t, uint8_t x) {
    bool e4 = t == CLGEMM_E4M3;
    int mbits = e4 ? 3 : 2, bias = e4 ? 7 : 15, emask = e4 ? 15 : 31;
    int e = (x >> mbits) & emask, m = x & ((1 << mbits) - 1);
    double v;
    if (e4 && e == 15 && m == 7)
        v = NAN;
    else if (!e4 && e == 31)
        v = m ? NAN : INFINITY;
    else
        v = e == 0 ? ldexp(m, 1 - bias - mbits) : ldexp(m + (1 << mbits), e - bias - mbits);
    return (x & 0x80) ? -v : v;
}

/* ---- Elements -------------------------------------------------------------------------------- */

bool tt_is_complex(clgemm_precision t) {
    return t == CLGEMM_COMPLEX_SINGLE || t == CLGEMM_COMPLEX_DOUBLE;
}

bool tt_is_fp8(clgemm_precision t) {
    return t == CLGEMM_E4M3 || t == CLGEMM_E5M2;
}

int tt_ncomp(clgemm_precision t) {
    return tt_is_complex(t) ? 2 : 1;
}

/* Components are stored as doubles for DOUBLE / COMPLEX_DOUBLE, floats for SINGLE /
 * COMPLEX_SINGLE, 16-bit words for HALF and BFLOAT16, bytes for INT8 and FP8, int32 for INT32
 * (integer values are set as doubles that hold an integer). */
double tt_get(clgemm_precision t, const void *p, size_t i, int comp) {
    size_t at = i * (size_t)tt_ncomp(t) + (size_t)comp;
    switch (t) {
    case CLGEMM_DOUBLE:
    case CLGEMM_COMPLEX_DOUBLE:
        return ((const double *)p)[at];
    case CLGEMM_HALF:
        return tt_half_to_double(((const uint16_t *)p)[at]);
    case CLGEMM_BFLOAT16:
        return tt_bf16_to_double(((const uint16_t *)p)[at]);
    case CLGEMM_INT8:
        return ((const int8_t *)p)[at];
    case CLGEMM_INT32:
        return ((const int32_t *)p)[at];
    case CLGEMM_E4M3:
    case CLGEMM_E5M2:
        return tt_fp8_to_double(t, ((const uint8_t *)p)[at]);
    default:
        return ((const float *)p)[at];
    }
}

void tt_set(clgemm_precision t, void *p, size_t i, int comp, double v) {
    size_t at = i * (size_t)tt_ncomp(t) + (size_t)comp;
    switch (t) {
    case CLGEMM_DOUBLE:
    case CLGEMM_COMPLEX_DOUBLE:
        ((double *)p)[at] = v;
        break;
    case CLGEMM_HALF:
        ((uint16_t *)p)[at] = tt_half_from_double(v);
        break;
    case CLGEMM_BFLOAT16:
        ((uint16_t *)p)[at] = tt_bf16_from_float((float)v);
        break;
    case CLGEMM_INT8:
        ((int8_t *)p)[at] = (int8_t)v;
        break;
    case CLGEMM_INT32:
        ((int32_t *)p)[at] = (int32_t)v;
        break;
    case CLGEMM_E4M3:
    case CLGEMM_E5M2:
        ((uint8_t *)p)[at] = tt_fp8_from_double(t, v);
        break;
    default:
        ((float *)p)[at] = (float)v;
        break;
    }
}

void tt_set_nan(clgemm_precision t, void *p, size_t i) {
    /* Integers have no NaN: extreme values, so that an element read by mistake shows. */
    if (t == CLGEMM_INT8)
        ((int8_t *)p)[i] = INT8_MIN;
    else if (t == CLGEMM_INT32)
        ((int32_t *)p)[i] = INT32_MIN + 77;
    else
        for (int comp = 0; comp < tt_ncomp(t); comp++)
            tt_set(t, p, i, comp, NAN);
}

void tt_set_sentinel(clgemm_precision t, void *p, size_t i) {
    /* Exponent all ones, quiet bit clear, a payload: written as bits, never through a
     * floating-point register. */
    char *at = (char *)p + i * clgemm_type_size(t);
    for (int comp = 0; comp < tt_ncomp(t); comp++)
        switch (t) {
        case CLGEMM_DOUBLE:
        case CLGEMM_COMPLEX_DOUBLE: {
            uint64_t bits = UINT64_C(0x7ff00000c0ffee01);
            memcpy(at + comp * 8, &bits, 8);
            break;
        }
        case CLGEMM_HALF: {
            uint16_t bits = 0x7c5a;
            memcpy(at, &bits, 2);
            break;
        }
        case CLGEMM_BFLOAT16: {
            uint16_t bits = 0x7f95;
            memcpy(at, &bits, 2);
            break;
        }
        default: {
            uint32_t bits = UINT32_C(0x7f8c0ffe);
            memcpy(at + comp * 4, &bits, 4);
            break;
        }
        }
}

static const char *type_name(clgemm_precision t) {
    static const char *names[] = {"s", "d", "c", "z", "h", "bf16", "i8", "i32", "e4m3", "e5m2"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

static char trans_char(clgemm_transpose t) {
    return t == CLGEMM_NO_TRANS     ? 'N'
           : t == CLGEMM_TRANS      ? 'T'
           : t == CLGEMM_CONJ_TRANS ? 'C'
                                    : '?';
}

/* How X is stored: CONJ_TRANS is stored as TRANS (the helpers of test_common.h know only
 * those two). */
static clgemm_transpose storage(clgemm_transpose t) {
    return t == CLGEMM_NO_TRANS ? CLGEMM_NO_TRANS : CLGEMM_TRANS;
}

void tt_describe(const tt_gemm *g, char *buf, size_t size) {
    snprintf(buf, size,
             "%s->%s %s %c%c m=%zu n=%zu k=%zu alpha=(%g,%g) beta=(%g,%g) lda=%zu ldb=%zu "
             "ldc=%zu off=%zu/%zu/%zu",
             type_name(g->type_ab), type_name(g->type_c),
             g->layout == CLGEMM_ROW_MAJOR ? "row-major" : "col-major", trans_char(g->ta),
             trans_char(g->tb), g->m, g->n, g->k, g->alpha[0], g->alpha[1], g->beta[0], g->beta[1],
             g->lda, g->ldb, g->ldc, g->off_a, g->off_b, g->off_c);
}

/* ---- Problem data ---------------------------------------------------------------------------- */

/* A random value for a type: 24 bits (exact in float), 48 for the double types so that a
 * kernel computing them in float shows. Integers over their whole range (INT32 C then wraps
 * under beta); FP8 below 4 in magnitude (and down to its subnormals), so that results stay
 * inside FP16's range (saturation has tests of its own). */
static double random_for(clgemm_precision t, uint64_t *state) {
    double v = tc_random(state);
    if (t == CLGEMM_DOUBLE || t == CLGEMM_COMPLEX_DOUBLE) v += tc_random(state) * 0x1p-24;
    if (t == CLGEMM_INT8) v = floor(v * 128);
    if (t == CLGEMM_INT32) v = floor(v * 0x1p31);
    if (t == CLGEMM_E4M3 || t == CLGEMM_E5M2) v = ldexp(v, (int)((tc_random(state) + 1) * 3.5) - 5);
    return v;
}

static void set_random(clgemm_precision t, void *p, size_t i, uint64_t *state) {
    for (int comp = 0; comp < tt_ncomp(t); comp++)
        tt_set(t, p, i, comp, random_for(t, state));
}

bool tt_data_make(tt_data *d, const tt_gemm *g, uint64_t seed, unsigned flags) {
    memset(d, 0, sizeof *d);
    d->g = *g;
    tt_gemm *p = &d->g;
    clgemm_transpose sa = storage(p->ta), sb = storage(p->tb);
    if (!p->lda) p->lda = tc_min_ld(p->layout, sa, p->m, p->k);
    if (!p->ldb) p->ldb = tc_min_ld(p->layout, sb, p->k, p->n);
    if (!p->ldc) p->ldc = tc_min_ld(p->layout, CLGEMM_NO_TRANS, p->m, p->n);
    d->na = p->off_a + tc_extent(p->layout, sa, p->m, p->k, p->lda) + p->tail;
    d->nb = p->off_b + tc_extent(p->layout, sb, p->k, p->n, p->ldb) + p->tail;
    d->nc = p->off_c + tc_extent(p->layout, CLGEMM_NO_TRANS, p->m, p->n, p->ldc) + p->tail;
    size_t sab = clgemm_type_size(p->type_ab), sc = clgemm_type_size(p->type_c);
    d->a = malloc((d->na ? d->na : 1) * sab);
    d->b = malloc((d->nb ? d->nb : 1) * sab);
    d->c0 = malloc((d->nc ? d->nc : 1) * sc);
    d->c = malloc((d->nc ? d->nc : 1) * sc);
    if (!d->a || !d->b || !d->c0 || !d->c) {
        tt_data_free(d);
        return false;
    }
    uint64_t state = seed * UINT64_C(0x2545f4914f6cdd1d) + 1;
    for (size_t i = 0; i < d->na; i++)
        tt_set_nan(p->type_ab, d->a, i);
    for (size_t i = 0; i < d->nb; i++)
        tt_set_nan(p->type_ab, d->b, i);
    for (size_t i = 0; i < d->nc; i++)
        tt_set_sentinel(p->type_c, d->c0, i);
    bool ab_nan = flags & TC_AB_NAN;
    for (size_t i = 0; i < p->m; i++)
        for (size_t q = 0; q < p->k; q++) {
            size_t at = p->off_a + tc_index(p->layout, sa, i, q, p->lda);
            if (ab_nan)
                tt_set_nan(p->type_ab, d->a, at);
            else
                set_random(p->type_ab, d->a, at, &state);
        }
    for (size_t q = 0; q < p->k; q++)
        for (size_t j = 0; j < p->n; j++) {
            size_t at = p->off_b + tc_index(p->layout, sb, q, j, p->ldb);
            if (ab_nan)
                tt_set_nan(p->type_ab, d->b, at);
            else
                set_random(p->type_ab, d->b, at, &state);
        }
    bool beta_zero = p->beta[0] == 0 && p->beta[1] == 0;
    for (size_t i = 0; i < p->m; i++)
        for (size_t j = 0; j < p->n; j++) {
            size_t at = p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc);
            if (beta_zero)
                tt_set_nan(p->type_c, d->c0, at);
            else
                set_random(p->type_c, d->c0, at, &state);
        }
    memcpy(d->c, d->c0, d->nc * sc);
    return true;
}

void tt_data_free(tt_data *d) {
    free(d->a);
    free(d->b);
    free(d->c0);
    free(d->c);
    d->a = d->b = d->c0 = d->c = NULL;
}

/* ---- Reference ------------------------------------------------------------------------------- */

typedef struct cplx {
    long double re, im;
} cplx;

static cplx cmul(cplx x, cplx y) {
    return (cplx){x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
}

static long double cabs_l(cplx x) {
    return sqrtl(x.re * x.re + x.im * x.im);
}

/* Element (i, q) of op(X) as the kernels must see it: conjugated for CONJ_TRANS. */
static cplx op_elem(const tt_gemm *p, const void *x, size_t off, clgemm_transpose t, size_t ld,
                    size_t i, size_t q) {
    size_t at = off + tc_index(p->layout, storage(t), i, q, ld);
    cplx v = {tt_get(p->type_ab, x, at, 0), 0};
    if (tt_is_complex(p->type_ab)) {
        v.im = tt_get(p->type_ab, x, at, 1);
        if (t == CLGEMM_CONJ_TRANS) v.im = -v.im;
    }
    return v;
}

/* INT8: exact, modulo 2^32 as the library documents: the products summed in int64, then
 * alpha * sum + beta * C in uint32 (defined wrapping), read back as two's complement. */
static void int8_reference(const tt_data *d, double *ref, double *bound) {
    const tt_gemm *p = &d->g;
    uint32_t alpha = (uint32_t)(int32_t)p->alpha[0], beta = (uint32_t)(int32_t)p->beta[0];
    for (size_t j = 0; j < p->n; j++)
        for (size_t i = 0; i < p->m; i++) {
            int64_t sum = 0;
            for (size_t q = 0; alpha && q < p->k; q++)
                sum += (int64_t)op_elem(p, d->a, p->off_a, p->ta, p->lda, i, q).re *
                       (int64_t)op_elem(p, d->b, p->off_b, p->tb, p->ldb, q, j).re;
            uint32_t r = alpha * (uint32_t)(uint64_t)sum;
            if (beta) {
                size_t at = p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc);
                r += beta * (uint32_t)(int32_t)tt_get(CLGEMM_INT32, d->c0, at, 0);
            }
            size_t x = i + j * p->m;
            ref[2 * x] = (int32_t)r;
            ref[2 * x + 1] = 0;
            bound[x] = 0;
        }
}

/* What the reference's columns need (tt_reference below), shared by the threads that compute
 * them: each writes its own columns of ref and bound. */
typedef struct ref_columns {
    const tt_data *d;
    const cplx *opa, *opb;
    const long double *opa_abs, *opb_abs;
    cplx alpha, beta;
    long double factor, extra, eps, unit_c, tiny_c;
    bool use_ab, use_c, cx;
    double *ref, *bound;
    size_t j0, j1; /* this thread's columns */
} ref_columns;

static void reference_columns(const ref_columns *w) {
    const tt_gemm *p = &w->d->g;
    for (size_t j = w->j0; j < w->j1; j++)
        for (size_t i = 0; i < p->m; i++) {
            cplx sum = {0, 0};
            long double abs_sum = 0;
            if (w->use_ab && !w->cx) {
                const cplx *a = w->opa + i * p->k, *b = w->opb + j * p->k;
                /* Real: the complex product's imaginary parts are zero, and |a||b| = |ab|
                 * (the same sums, bit for bit, in a third of the time). */
                for (size_t q = 0; q < p->k; q++) {
                    long double xy = a[q].re * b[q].re;
                    sum.re += xy;
                    abs_sum += fabsl(xy);
                }
            } else if (w->use_ab) {
                const cplx *a = w->opa + i * p->k, *b = w->opb + j * p->k;
                const long double *aa = w->opa_abs + i * p->k, *ba = w->opb_abs + j * p->k;
                for (size_t q = 0; q < p->k; q++) {
                    cplx xy = cmul(a[q], b[q]);
                    sum.re += xy.re;
                    sum.im += xy.im;
                    abs_sum += aa[q] * ba[q];
                }
            }
            cplx r = {0, 0};
            long double mag = 0;
            if (w->use_ab) {
                r = cmul(w->alpha, sum);
                mag = cabs_l(w->alpha) * abs_sum;
            }
            if (w->use_c) {
                size_t at = p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc);
                cplx c = {tt_get(p->type_c, w->d->c0, at, 0),
                          tt_is_complex(p->type_c) ? tt_get(p->type_c, w->d->c0, at, 1) : 0};
                cplx bc = cmul(w->beta, c);
                r.re += bc.re;
                r.im += bc.im;
                mag += cabs_l(w->beta) * cabs_l(c);
            }
            long double bnd = w->factor * ((long double)p->k + w->extra) * w->eps * mag;
            if (w->unit_c > 0)
                bnd += w->unit_c * (fmaxl(fabsl(r.re), fabsl(r.im)) + bnd) + w->tiny_c;
            size_t x = i + j * p->m;
            w->ref[2 * x] = (double)r.re;
            w->ref[2 * x + 1] = (double)r.im;
            w->bound[x] = (double)bnd;
        }
}

static void *reference_columns_thread(void *arg) {
    reference_columns(arg);
    return NULL;
}

/* The columns split among the host's cores (at most 16) when the product is large enough for
 * threads to pay (a device check of 2000 x 1500 x 1000 took minutes in one); in this thread where
 * a thread cannot be made. */
static void columns_in_threads(const ref_columns *job) {
    const tt_gemm *p = &job->d->g;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t count = p->m * p->n * p->k < ((size_t)1 << 24) || cores < 2 ? 1
                   : cores > 16                                        ? 16
                                                                       : (size_t)cores;
    if (count > p->n) count = p->n ? p->n : 1;
    pthread_t threads[16];
    ref_columns parts[16];
    size_t started = 0;
    for (size_t t = 0; t < count; t++) {
        parts[t] = *job;
        parts[t].j0 = p->n * t / count;
        parts[t].j1 = p->n * (t + 1) / count;
        if (t + 1 < count &&
            pthread_create(&threads[started], NULL, reference_columns_thread, &parts[t]) == 0) {
            started++;
            continue;
        }
        /* the last part, or one no thread could take: here */
        reference_columns(&parts[t]);
    }
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
}

void tt_reference(const tt_data *d, double *ref, double *bound) {
    const tt_gemm *p = &d->g;
    if (p->type_ab == CLGEMM_INT8) {
        int8_reference(d, ref, bound);
        return;
    }
    bool dbl = p->type_ab == CLGEMM_DOUBLE || p->type_ab == CLGEMM_COMPLEX_DOUBLE;
    ref_columns job = {.d = d, .ref = ref, .bound = bound, .cx = tt_is_complex(p->type_ab)};
    /* Scalars as the device sees them: float unless the arithmetic is double. */
    job.alpha =
        (cplx){dbl ? p->alpha[0] : (float)p->alpha[0], dbl ? p->alpha[1] : (float)p->alpha[1]};
    job.beta = (cplx){dbl ? p->beta[0] : (float)p->beta[0], dbl ? p->beta[1] : (float)p->beta[1]};
    if (!job.cx) job.alpha.im = job.beta.im = 0;
    /* TF32 keeps 10 bits of each input's significand (truncated or rounded): each product is
     * within 2^-9 of its exact value, relative. */
    job.eps = dbl ? DBL_EPSILON : p->compute == CLGEMM_COMPUTE_TF32 ? 0x1p-9L : FLT_EPSILON;
    /* A complex multiply-add is several roundings, each within eps of |x||y|. */
    job.factor = job.cx ? 2 : 1;
    job.extra = job.cx ? 4 : 2;
    /* FP16/BF16 C: the FP32 result is rounded once more, by at most half its unit (2^-11,
     * 2^-8 relative), plus half the smallest subnormal. */
    job.unit_c = p->type_c == CLGEMM_HALF ? 0x1p-11L : p->type_c == CLGEMM_BFLOAT16 ? 0x1p-8L : 0;
    job.tiny_c = p->type_c == CLGEMM_HALF ? 0x1p-25L : 0x1p-134L;
    const bool use_ab = job.use_ab = (job.alpha.re != 0 || job.alpha.im != 0) && p->k > 0;
    job.use_c = job.beta.re != 0 || job.beta.im != 0;
    /* op(A) row by row and op(B) column by column, contiguous, with their magnitudes: the inner
     * loop is then a plain dot product (large cases would otherwise take most of a suite's time
     * here). */
    size_t ka = use_ab ? p->m * p->k : 0, kb = use_ab ? p->k * p->n : 0;
    cplx *opa = malloc((ka + kb) * sizeof *opa + 1), *opb = opa ? opa + ka : NULL;
    long double *opa_abs = malloc((ka + kb) * sizeof *opa_abs + 1), *opb_abs = opa_abs + ka;
    if (!opa || !opa_abs) {
        free(opa);
        free(opa_abs);
        for (size_t x = 0; x < p->m * p->n; x++)
            ref[2 * x] = ref[2 * x + 1] = bound[x] = NAN;
        return;
    }
    for (size_t i = 0; i < (use_ab ? p->m : 0); i++)
        for (size_t q = 0; q < p->k; q++) {
            opa[i * p->k + q] = op_elem(p, d->a, p->off_a, p->ta, p->lda, i, q);
            opa_abs[i * p->k + q] = cabs_l(opa[i * p->k + q]);
        }
    for (size_t j = 0; j < (use_ab ? p->n : 0); j++)
        for (size_t q = 0; q < p->k; q++) {
            opb[j * p->k + q] = op_elem(p, d->b, p->off_b, p->tb, p->ldb, q, j);
            opb_abs[j * p->k + q] = cabs_l(opb[j * p->k + q]);
        }
    job.opa = opa;
    job.opb = opb;
    job.opa_abs = opa_abs;
    job.opb_abs = opb_abs;
    columns_in_threads(&job);
    free(opa);
    free(opa_abs);
}

/* Appends to msg while there is room. */
__attribute__((format(printf, 3, 4))) static void append(char *msg, size_t size, const char *fmt,
                                                         ...) {
    size_t used = strlen(msg);
    if (used + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + used, size - used, fmt, ap);
    va_end(ap);
}

size_t tt_check(const tt_data *d, const void *c, const double *ref, const double *bound,
                double scale, char *msg, size_t size) {
    const tt_gemm *p = &d->g;
    size_t bad = 0, bad_outside = 0, sc = clgemm_type_size(p->type_c);
    int nc = tt_ncomp(p->type_c);
    if (size) msg[0] = 0;
    char *inside = calloc(d->nc ? d->nc : 1, 1);
    if (!inside) {
        snprintf(msg, size, "out of host memory");
        return 1;
    }
    for (size_t j = 0; j < p->n; j++)
        for (size_t i = 0; i < p->m; i++) {
            size_t at = p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc);
            size_t x = i + j * p->m;
            inside[at] = 1;
            double tol = bound[x] * scale;
            bool ok = true;
            for (int comp = 0; comp < nc; comp++) {
                double got = tt_get(p->type_c, c, at, comp), want = ref[2 * x + comp];
                if (!(fabs(got - want) <= tol)) ok = false; /* NaN fails too */
            }
            if (ok) continue;
            if (bad < 3)
                append(msg, size, " C(%zu,%zu)=(%.10g,%.10g) want (%.10g,%.10g) (tol %.3g);", i, j,
                       tt_get(p->type_c, c, at, 0), nc > 1 ? tt_get(p->type_c, c, at, 1) : 0.0,
                       ref[2 * x], ref[2 * x + 1], tol);
            bad++;
        }
    for (size_t x = 0; x < d->nc; x++) {
        if (inside[x] || memcmp((const char *)c + x * sc, (const char *)d->c0 + x * sc, sc) == 0)
            continue;
        if (bad_outside < 3)
            append(msg, size, " buffer element %zu (outside C) changed to %.10g;", x,
                   tt_get(p->type_c, c, x, 0));
        bad_outside++;
    }
    free(inside);
    if (bad + bad_outside)
        append(msg, size, " [%zu bad in C, %zu changed outside C]", bad, bad_outside);
    return bad + bad_outside;
}

/* ---- Calls ----------------------------------------------------------------------------------- */

void tt_pad_ld(tt_gemm *g, size_t pad_a, size_t pad_b, size_t pad_c) {
    g->lda = tc_min_ld(g->layout, g->ta, g->m, g->k) + pad_a;
    g->ldb = tc_min_ld(g->layout, g->tb, g->k, g->n) + pad_b;
    g->ldc = tc_min_ld(g->layout, CLGEMM_NO_TRANS, g->m, g->n) + pad_c;
}

tt_scalar tt_make_scalar(clgemm_precision t, const double v[2]) {
    tt_scalar s;
    memset(&s, 0, sizeof s);
    switch (t) {
    case CLGEMM_DOUBLE:
        s.d = v[0];
        break;
    case CLGEMM_COMPLEX_SINGLE:
        s.c.s[0] = (float)v[0];
        s.c.s[1] = (float)v[1];
        break;
    case CLGEMM_COMPLEX_DOUBLE:
        s.z.s[0] = v[0];
        s.z.s[1] = v[1];
        break;
    case CLGEMM_INT8:
        s.i = (cl_int)v[0];
        break;
    default:
        s.f = (float)v[0];
        break;
    }
    return s;
}

/* Whether a typed wrapper computes these types: one type throughout, INT8 into INT32, FP8 (the
 * scaled wrapper) into any of its C types. */
static bool has_wrapper(const tt_gemm *g) {
    return g->type_ab == g->type_c || g->type_ab == CLGEMM_INT8 || tt_is_fp8(g->type_ab);
}

/* The FP8 wrapper's scales: alpha / 8 times 4 times 2 (powers of two, so the folded alpha is
 * exactly the one the reference uses). */
#define TT_SCALE_A 4.0f
#define TT_SCALE_B 2.0f

clgemm_status tt_clgemm_enqueue(clgemm_handle h, const tt_gemm *g, cl_mem a, cl_mem b, cl_mem c,
                                unsigned flags, cl_command_queue queue, cl_uint num_wait,
                                const cl_event *wait, cl_event *event) {
    tt_scalar al = tt_make_scalar(g->type_ab, g->alpha), be = tt_make_scalar(g->type_ab, g->beta);
    clgemm_status st;
    bool ex = (flags & TT_RUN_EX) || !has_wrapper(g) || g->compute;
#define TT_ARGS(x)                                                                                 \
    h, g->layout, g->ta, g->tb, g->m, g->n, g->k, al.x, a, g->off_a, g->lda, b, g->off_b, g->ldb,  \
        be.x, c, g->off_c, g->ldc, queue, num_wait, wait, event
    if (ex)
        st = clgemm_gemm_ex(h, g->layout, g->ta, g->tb, g->m, g->n, g->k, &al, a, g->off_a, g->lda,
                            b, g->off_b, g->ldb, &be, c, g->off_c, g->ldc, g->type_ab, g->type_c,
                            g->compute, queue, num_wait, wait, event);
    else
        switch (g->type_ab) {
        case CLGEMM_COMPLEX_SINGLE:
            st = clgemm_cgemm(TT_ARGS(c));
            break;
        case CLGEMM_COMPLEX_DOUBLE:
            st = clgemm_zgemm(TT_ARGS(z));
            break;
        case CLGEMM_HALF:
            st = clgemm_hgemm(TT_ARGS(f));
            break;
        case CLGEMM_BFLOAT16:
            st = clgemm_bf16gemm(TT_ARGS(f));
            break;
        case CLGEMM_DOUBLE:
            st = clgemm_dgemm(TT_ARGS(d));
            break;
        case CLGEMM_INT8:
            st = clgemm_i8gemm(TT_ARGS(i));
            break;
        case CLGEMM_E4M3:
        case CLGEMM_E5M2:
            st = clgemm_fp8gemm(h, g->layout, g->ta, g->tb, g->m, g->n, g->k,
                                al.f / (TT_SCALE_A * TT_SCALE_B), TT_SCALE_A, TT_SCALE_B, a,
                                g->off_a, g->lda, b, g->off_b, g->ldb, be.f, c, g->off_c, g->ldc,
                                g->type_ab, g->type_c, queue, num_wait, wait, event);
            break;
        default:
            st = clgemm_sgemm(TT_ARGS(f));
            break;
        }
#undef TT_ARGS
    return st;
}

clgemm_status tt_clgemm(clgemm_handle h, const tt_gemm *g, cl_mem a, cl_mem b, cl_mem c,
                        unsigned flags) {
    clgemm_status st = tt_clgemm_enqueue(h, g, a, b, c, flags, NULL, 0, NULL, NULL);
    if (st == CLGEMM_SUCCESS) st = clFinish(clgemm_queue(h));
    return st;
}

/* The host-array variant on d's arrays, from the offsets. */
static clgemm_status host_call(clgemm_handle h, const tt_data *d, void *c, unsigned flags) {
    const tt_gemm *g = &d->g;
    tt_scalar al = tt_make_scalar(g->type_ab, g->alpha), be = tt_make_scalar(g->type_ab, g->beta);
    size_t sab = clgemm_type_size(g->type_ab);
    const char *a = (const char *)d->a + g->off_a * sab, *b = (const char *)d->b + g->off_b * sab;
    char *cc = (char *)c + g->off_c * clgemm_type_size(g->type_c);
#define TT_HOST(x, elem)                                                                           \
    h, g->layout, g->ta, g->tb, g->m, g->n, g->k, al.x, (const elem *)a, g->lda, (const elem *)b,  \
        g->ldb, be.x, (elem *)cc, g->ldc
    if ((flags & TT_RUN_EX) || !has_wrapper(g) || g->compute)
        return clgemm_gemm_ex_host(h, g->layout, g->ta, g->tb, g->m, g->n, g->k, &al, a, g->lda, b,
                                   g->ldb, &be, cc, g->ldc, g->type_ab, g->type_c, g->compute);
    switch (g->type_ab) {
    case CLGEMM_COMPLEX_SINGLE:
        return clgemm_cgemm_host(TT_HOST(c, cl_float2));
    case CLGEMM_COMPLEX_DOUBLE:
        return clgemm_zgemm_host(TT_HOST(z, cl_double2));
    case CLGEMM_HALF:
        return clgemm_hgemm_host(TT_HOST(f, cl_half));
    case CLGEMM_BFLOAT16:
        return clgemm_bf16gemm_host(TT_HOST(f, cl_ushort));
    case CLGEMM_DOUBLE:
        return clgemm_dgemm_host(TT_HOST(d, double));
    case CLGEMM_INT8:
        return clgemm_i8gemm_host(h, g->layout, g->ta, g->tb, g->m, g->n, g->k, al.i,
                                  (const cl_char *)a, g->lda, (const cl_char *)b, g->ldb, be.i,
                                  (cl_int *)cc, g->ldc);
    case CLGEMM_E4M3:
    case CLGEMM_E5M2:
        return clgemm_fp8gemm_host(h, g->layout, g->ta, g->tb, g->m, g->n, g->k,
                                   al.f / (TT_SCALE_A * TT_SCALE_B), TT_SCALE_A, TT_SCALE_B,
                                   (const cl_uchar *)a, g->lda, (const cl_uchar *)b, g->ldb, be.f,
                                   cc, g->ldc, g->type_ab, g->type_c);
    default:
        return clgemm_sgemm_host(TT_HOST(f, float));
    }
#undef TT_HOST
}

bool tc_have_clblast(void) {
#ifdef TC_HAVE_CLBLAST
    return true;
#else
    return false;
#endif
}

bool tt_clblast_computes(const tt_gemm *g) {
    return g->type_ab == g->type_c && (g->type_ab == CLGEMM_SINGLE || g->type_ab == CLGEMM_DOUBLE ||
                                       tt_is_complex(g->type_ab));
}

int tt_clblast(cl_command_queue queue, const tt_gemm *g, cl_mem a, cl_mem b, cl_mem c) {
#ifdef TC_HAVE_CLBLAST
    /* CLBlast's enums have BLAS's values, as clgemm's do. */
    CLBlastLayout layout = (CLBlastLayout)g->layout;
    CLBlastTranspose ta = (CLBlastTranspose)g->ta, tb = (CLBlastTranspose)g->tb;
    cl_command_queue q = queue;
    cl_event event = NULL;
    CLBlastStatusCode st;
    if (!tt_clblast_computes(g)) {
        return -1;
    } else if (g->type_ab == CLGEMM_SINGLE) {
        st = CLBlastSgemm(layout, ta, tb, g->m, g->n, g->k, (float)g->alpha[0], a, g->off_a, g->lda,
                          b, g->off_b, g->ldb, (float)g->beta[0], c, g->off_c, g->ldc, &q, &event);
    } else if (g->type_ab == CLGEMM_DOUBLE) {
        st = CLBlastDgemm(layout, ta, tb, g->m, g->n, g->k, g->alpha[0], a, g->off_a, g->lda, b,
                          g->off_b, g->ldb, g->beta[0], c, g->off_c, g->ldc, &q, &event);
    } else if (g->type_ab == CLGEMM_COMPLEX_SINGLE) {
        cl_float2 al = {{(float)g->alpha[0], (float)g->alpha[1]}};
        cl_float2 be = {{(float)g->beta[0], (float)g->beta[1]}};
        st = CLBlastCgemm(layout, ta, tb, g->m, g->n, g->k, al, a, g->off_a, g->lda, b, g->off_b,
                          g->ldb, be, c, g->off_c, g->ldc, &q, &event);
    } else {
        cl_double2 al = {{g->alpha[0], g->alpha[1]}}, be = {{g->beta[0], g->beta[1]}};
        st = CLBlastZgemm(layout, ta, tb, g->m, g->n, g->k, al, a, g->off_a, g->lda, b, g->off_b,
                          g->ldb, be, c, g->off_c, g->ldc, &q, &event);
    }
    if (st == CLBlastSuccess && event) {
        clWaitForEvents(1, &event);
        clReleaseEvent(event);
    }
    return (int)st;
#else
    (void)queue, (void)g, (void)a, (void)b, (void)c;
    return -1;
#endif
}

/* Writes "desc: what" into msg. */
__attribute__((format(printf, 4, 5))) static int fail(char *msg, size_t size, const char *desc,
                                                      const char *fmt, ...) {
    int used = snprintf(msg, size, "%s:", desc);
    if (used >= 0 && (size_t)used < size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg + used, size - (size_t)used, fmt, ap);
        va_end(ap);
    }
    return 1;
}

static bool unchanged(cl_command_queue queue, cl_mem mem, const void *host, size_t bytes) {
    if (bytes == 0) return true;
    void *now = malloc(bytes);
    bool same =
        now && tc_read(queue, mem, bytes, now) == CL_SUCCESS && memcmp(now, host, bytes) == 0;
    free(now);
    return same;
}

/* CLBlast's result on the same buffers A and B, compared with ours within 2 bounds (each is
 * within one of the exact result). */
static int against_clblast(tc_env *env, const tt_data *d, cl_mem a, cl_mem b, const double *bound,
                           const char *desc, char *msg, size_t size) {
    const tt_gemm *p = &d->g;
    size_t bytes = d->nc * clgemm_type_size(p->type_c);
    int nc = tt_ncomp(p->type_c);
    void *host = malloc(bytes ? bytes : 1);
    if (!host) return fail(msg, size, desc, " out of memory");
    /* Zeros where C holds the beta == 0 poison: how CLBlast treats NaN in C is not the point. */
    memcpy(host, d->c0, bytes);
    if (p->beta[0] == 0 && p->beta[1] == 0)
        for (size_t j = 0; j < p->n; j++)
            for (size_t i = 0; i < p->m; i++)
                for (int comp = 0; comp < nc; comp++)
                    tt_set(p->type_c, host,
                           p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc), comp, 0);
    cl_mem c2 = tc_buffer(env->context, bytes, host);
    int rc = 0, st = c2 ? tt_clblast(env->queue, p, a, b, c2) : -1;
    if (st != 0)
        rc = fail(msg, size, desc, " CLBlast failed (%d) on this problem", st);
    else if (tc_read(env->queue, c2, bytes, host) != CL_SUCCESS)
        rc = fail(msg, size, desc, " reading CLBlast's C back failed");
    for (size_t j = 0; !rc && j < p->n; j++)
        for (size_t i = 0; !rc && i < p->m; i++) {
            size_t at = p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc);
            double tol = 2 * bound[i + j * p->m];
            for (int comp = 0; comp < nc && !rc; comp++) {
                double x = tt_get(p->type_c, d->c, at, comp), y = tt_get(p->type_c, host, at, comp);
                if (!(fabs(x - y) <= tol))
                    rc = fail(msg, size, desc,
                              " differs from CLBlast: C(%zu,%zu)[%d]=%.17g, CLBlast %.17g (tol "
                              "%.3g)",
                              i, j, comp, x, y, tol);
            }
        }
    if (c2) clReleaseMemObject(c2);
    free(host);
    return rc;
}

/* How much wider than FP32's the bound is for the family the call runs on: FP8 products on
 * Hopper's tensor cores (the tma family) add into an accumulator that keeps about 14 significant
 * bits, within one wgmma as across them, as cuBLASLt's fast accumulation does
 * (bench/gpu/fp8_accuracy.py): each addition within 2^-12 of the running magnitude, which
 * sum |a||b| bounds, where FP32's is within 2^-23. The same bound for every FP8 tensor-core
 * kernel: mma.sync's m16n8k32 FP8 (the mma family) has not been measured on a device, and
 * whether its accumulator keeps FP32 (sm_89) or fewer bits (sm_90) is not documented. */
static double accumulation_scale(clgemm_handle h, const tt_gemm *p) {
    clgemm_config cfg;
    if ((p->type_ab != CLGEMM_E4M3 && p->type_ab != CLGEMM_E5M2) ||
        clgemm_get_config_ex(h, p->layout, p->ta, p->tb, p->m, p->n, p->k, p->type_ab, p->type_c,
                             p->compute, &cfg, NULL) != CLGEMM_SUCCESS)
        return 1.0;
    const bool tensor_cores = cfg.family == CLGEMM_FAMILY_TMA || cfg.family == CLGEMM_FAMILY_MMA ||
                              cfg.family == CLGEMM_FAMILY_WGMMA;
    return tensor_cores ? 0x1p-12 / FLT_EPSILON : 1.0;
}

int tt_run(tc_env *env, clgemm_handle h, const tt_gemm *g, uint64_t seed, unsigned data_flags,
           unsigned run_flags, char *msg, size_t size) {
    char desc[400];
    tt_data d;
    tt_describe(g, desc, sizeof desc);
    if (!tt_data_make(&d, g, seed, data_flags)) return fail(msg, size, desc, " out of memory");
    tt_describe(&d.g, desc, sizeof desc);
    if (run_flags & TT_RUN_HOST) {
        size_t len = strlen(desc);
        snprintf(desc + len, sizeof desc - len, " (host arrays)");
    } else if (run_flags & TT_RUN_EX) {
        size_t len = strlen(desc);
        snprintf(desc + len, sizeof desc - len, " (gemm_ex)");
    }
    const tt_gemm *p = &d.g;
    size_t sab = clgemm_type_size(p->type_ab), sc = clgemm_type_size(p->type_c),
           cells = p->m * p->n;
    int rc = 0;
    cl_mem a = NULL, b = NULL, c = NULL;
    cl_command_queue reader = NULL;
    cl_event event = NULL;
    double *ref = malloc((cells ? cells : 1) * 2 * sizeof *ref);
    double *bound = malloc((cells ? cells : 1) * sizeof *bound);
    char detail[1024];
    if (!ref || !bound) {
        rc = fail(msg, size, desc, " out of memory");
        goto done;
    }
    if (run_flags & TT_RUN_HOST) {
        /* The API takes const A and B: d.a and d.b must come back as they were. */
        void *a0 = malloc(d.na * sab + 1), *b0 = malloc(d.nb * sab + 1);
        if (a0) memcpy(a0, d.a, d.na * sab);
        if (b0) memcpy(b0, d.b, d.nb * sab);
        clgemm_status st =
            a0 && b0 ? host_call(h, &d, d.c, run_flags) : CLGEMM_ERR_OUT_OF_HOST_MEMORY;
        bool same =
            a0 && b0 && memcmp(a0, d.a, d.na * sab) == 0 && memcmp(b0, d.b, d.nb * sab) == 0;
        free(a0);
        free(b0);
        if (st != CLGEMM_SUCCESS) {
            rc = fail(msg, size, desc, " returned %d (%s)", st, clgemm_status_string(st));
            goto done;
        }
        if (!same) {
            rc = fail(msg, size, desc, " the call changed array A or B");
            goto done;
        }
    } else {
        a = tc_buffer(env->context, d.na * sab, d.na ? d.a : NULL);
        b = tc_buffer(env->context, d.nb * sab, d.nb ? d.b : NULL);
        c = tc_buffer(env->context, d.nc * sc, d.nc ? d.c0 : NULL);
        if (!a || !b || !c) {
            rc = fail(msg, size, desc, " could not allocate buffers");
            goto done;
        }
        bool by_event = run_flags & TT_RUN_EVENT;
        clgemm_status st = by_event
                               ? tt_clgemm_enqueue(h, p, a, b, c, run_flags, NULL, 0, NULL, &event)
                               : tt_clgemm(h, p, a, b, c, run_flags);
        if (st != CLGEMM_SUCCESS) {
            rc = fail(msg, size, desc, " returned %d (%s)", st, clgemm_status_string(st));
            goto done;
        }
        if (by_event) {
            /* Read on a queue of its own, so only the event orders the read after the kernel. */
            cl_int err, status = -1;
            reader = clCreateCommandQueue(env->context, env->device, 0, &err);
            if (err != CL_SUCCESS) reader = NULL;
            if (!event || !reader || clWaitForEvents(1, &event) != CL_SUCCESS ||
                clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                               NULL) != CL_SUCCESS ||
                status != CL_COMPLETE) {
                rc = fail(msg, size, desc, " output event %p missing or not complete (status %d)",
                          (void *)event, status);
                goto done;
            }
        }
        if (tc_read(reader ? reader : env->queue, c, d.nc * sc, d.c) != CL_SUCCESS) {
            rc = fail(msg, size, desc, " reading C back failed");
            goto done;
        }
        if (!unchanged(env->queue, a, d.a, d.na * sab) ||
            !unchanged(env->queue, b, d.b, d.nb * sab)) {
            rc = fail(msg, size, desc, " the call changed buffer A or B");
            goto done;
        }
    }
    tt_reference(&d, ref, bound);
    if (tt_check(&d, d.c, ref, bound, accumulation_scale(h, p), detail, sizeof detail)) {
        rc = fail(msg, size, desc, "%s", detail);
        goto done;
    }
    if ((run_flags & TT_RUN_CLBLAST) && a && tc_have_clblast() && tt_clblast_computes(p) && p->m &&
        p->n && p->k)
        rc = against_clblast(env, &d, a, b, bound, desc, msg, size);

done:
    if (event) clReleaseEvent(event);
    if (reader) clReleaseCommandQueue(reader);
    if (a) clReleaseMemObject(a);
    if (b) clReleaseMemObject(b);
    if (c) clReleaseMemObject(c);
    free(ref);
    free(bound);
    tt_data_free(&d);
    return rc;
}

/* The bytes of one alpha or beta of type_ab's arithmetic (tt_make_scalar's member). */
static size_t scalar_size(clgemm_precision t) {
    return t == CLGEMM_COMPLEX_DOUBLE                         ? 16
           : t == CLGEMM_DOUBLE || t == CLGEMM_COMPLEX_SINGLE ? 8
                                                              : 4;
}

int tt_run_batch(tc_env *env, clgemm_handle h, const tt_gemm *g, size_t batch, bool table,
                 uint64_t seed, unsigned run_flags, char *msg, size_t size) {
    char desc[460];
    tt_describe(g, desc, sizeof desc);
    size_t len = strlen(desc);
    snprintf(desc + len, sizeof desc - len, " x %zu (%s batch)", batch,
             table ? "table" : "strided");
    tt_data *d = calloc(batch, sizeof *d);
    if (!d) return fail(msg, size, desc, " out of memory");
    size_t made = 0;
    while (made < batch && tt_data_make(&d[made], g, seed + made, 0))
        made++;
    const tt_gemm *p = &d[0].g;
    const size_t sab = clgemm_type_size(p->type_ab), sc = clgemm_type_size(p->type_c),
                 cells = p->m * p->n, na = d[0].na, nb = d[0].nb, nc = d[0].nc,
                 ss = scalar_size(p->type_ab);
    int rc = 0;
    cl_mem a = NULL, b = NULL, c = NULL;
    char *ha = malloc(batch * na * sab + 1), *hb = malloc(batch * nb * sab + 1),
         *hc = malloc(batch * nc * sc + 1), *scalars = malloc(2 * batch * ss);
    size_t *offs = malloc(3 * batch * sizeof *offs);
    double *ref = malloc((cells ? cells : 1) * 2 * sizeof *ref);
    double *bound = malloc((cells ? cells : 1) * sizeof *bound);
    char detail[1024];
    if (made < batch || !ha || !hb || !hc || !scalars || !offs || !ref || !bound) {
        rc = fail(msg, size, desc, " out of memory");
        goto done;
    }
    const tt_scalar alpha = tt_make_scalar(p->type_ab, p->alpha),
                    beta = tt_make_scalar(p->type_ab, p->beta);
    for (size_t i = 0; i < batch; i++) {
        memcpy(ha + i * na * sab, d[i].a, na * sab);
        memcpy(hb + i * nb * sab, d[i].b, nb * sab);
        memcpy(hc + i * nc * sc, d[i].c0, nc * sc);
        memcpy(scalars + i * ss, &alpha, ss);
        memcpy(scalars + (batch + i) * ss, &beta, ss);
        offs[i] = i * na + p->off_a;
        offs[batch + i] = i * nb + p->off_b;
        offs[2 * batch + i] = i * nc + p->off_c;
    }
    a = tc_buffer(env->context, batch * na * sab, ha);
    b = tc_buffer(env->context, batch * nb * sab, hb);
    c = tc_buffer(env->context, batch * nc * sc, hc);
    if (!a || !b || !c) {
        rc = fail(msg, size, desc, " could not allocate buffers");
        goto done;
    }
    const bool i8 = p->type_ab == CLGEMM_INT8 && p->type_c == CLGEMM_INT32 && !p->compute &&
                    !(run_flags & TT_RUN_EX);
    clgemm_status st =
        i8 && table
            ? clgemm_i8gemm_batched(h, p->layout, p->ta, p->tb, p->m, p->n, p->k,
                                    (const cl_int *)scalars, a, offs, p->lda, b, offs + batch,
                                    p->ldb, (const cl_int *)(scalars + batch * ss), c,
                                    offs + 2 * batch, p->ldc, batch, NULL, 0, NULL, NULL)
        : i8 ? clgemm_i8gemm_strided_batched(h, p->layout, p->ta, p->tb, p->m, p->n, p->k, alpha.i,
                                             a, p->off_a, p->lda, na, b, p->off_b, p->ldb, nb,
                                             beta.i, c, p->off_c, p->ldc, nc, batch, NULL, 0, NULL,
                                             NULL)
        : table ? clgemm_gemm_batched(h, p->layout, p->ta, p->tb, p->m, p->n, p->k, scalars, a,
                                      offs, p->lda, b, offs + batch, p->ldb, scalars + batch * ss,
                                      c, offs + 2 * batch, p->ldc, batch, p->type_ab, p->type_c,
                                      p->compute, NULL, 0, NULL, NULL)
                : clgemm_gemm_strided_batched(h, p->layout, p->ta, p->tb, p->m, p->n, p->k, &alpha,
                                              a, p->off_a, p->lda, na, b, p->off_b, p->ldb, nb,
                                              &beta, c, p->off_c, p->ldc, nc, batch, p->type_ab,
                                              p->type_c, p->compute, NULL, 0, NULL, NULL);
    if (st != CLGEMM_SUCCESS) {
        rc = fail(msg, size, desc, " returned %d (%s)", st, clgemm_status_string(st));
        goto done;
    }
    if (tc_read(env->queue, c, batch * nc * sc, hc) != CL_SUCCESS) {
        rc = fail(msg, size, desc, " reading C back failed");
        goto done;
    }
    if (!unchanged(env->queue, a, ha, batch * na * sab) ||
        !unchanged(env->queue, b, hb, batch * nb * sab)) {
        rc = fail(msg, size, desc, " the call changed buffer A or B");
        goto done;
    }
    const double scale = accumulation_scale(h, p);
    for (size_t i = 0; i < batch && !rc; i++) {
        tt_reference(&d[i], ref, bound);
        if (tt_check(&d[i], hc + i * nc * sc, ref, bound, scale, detail, sizeof detail))
            rc = fail(msg, size, desc, " matrix %zu:%s", i, detail);
    }

done:
    if (a) clReleaseMemObject(a);
    if (b) clReleaseMemObject(b);
    if (c) clReleaseMemObject(c);
    for (size_t i = 0; i < made; i++)
        tt_data_free(&d[i]);
    free(d);
    free(ha);
    free(hb);
    free(hc);
    free(scalars);
    free(offs);
    free(ref);
    free(bound);
    return rc;
}
