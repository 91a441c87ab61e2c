/* tune_data.c: the data behind the tuner's correctness check, for every element type (see
 * tune_data.h). A candidate kernel is accepted only if each sampled element of C lies within the
 * bound that clgemm.h documents for its type, against a reference computed in long double from
 * the inputs as stored: so FP16 and BF16 inputs are compared after their own rounding, and only
 * the accumulation and the rounding of C are charged to the kernel. */
#include "tune/tune_data.h"
#include "core/xorshift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t clgemm__random(uint64_t *state) {
    return clgemm_xorshift64s(state);
}

void clgemm__tune_nan(clgemm_precision type, unsigned char pattern[8], size_t *size) {
    const type_desc *t = clgemm__type(type);
    if (type == CLGEMM_HALF || type == CLGEMM_BFLOAT16) {
        uint16_t v = type == CLGEMM_HALF ? 0x7e00u : 0x7fc0u;
        memcpy(pattern, &v, sizeof v);
        *size = sizeof v;
    } else if (type == CLGEMM_INT32) { /* no NaN: a value no checked result has */
        int32_t v = INT32_MIN + 0x5a5a;
        memcpy(pattern, &v, sizeof v);
        *size = sizeof v;
    } else if (t->compute == CLGEMM_DOUBLE || t->compute == CLGEMM_COMPLEX_DOUBLE) {
        double v = NAN;
        memcpy(pattern, &v, sizeof v);
        *size = sizeof v;
    } else { /* FP32 and complex FP32: every component a float NaN */
        float v = NAN;
        memcpy(pattern, &v, sizeof v);
        *size = sizeof v;
    }
}

void clgemm__tune_scalars(clgemm_precision type, unsigned char one[16], unsigned char zero[16]) {
    memset(one, 0, 16);
    memset(zero, 0, 16); /* 0.0 in every float format */
    if (clgemm__type(type)->compute == CLGEMM_DOUBLE ||
        clgemm__type(type)->compute == CLGEMM_COMPLEX_DOUBLE) {
        double v = 1.0;
        memcpy(one, &v, sizeof v);
    } else if (clgemm__type(type)->compute == CLGEMM_INT32) {
        int32_t v = 1;
        memcpy(one, &v, sizeof v);
    } else {
        float v = 1.0f;
        memcpy(one, &v, sizeof v);
    }
}

/* ---- The problem ------------------------------------------------------------------------------
 */

/* Up to 64 rows (or columns) spread over the matrix, first and last included: the edges are
 * where tiling bugs show. */
static size_t spread(size_t extent, size_t *out) {
    size_t count = extent < 64 ? extent : 64;
    for (size_t r = 0; r < count; r++)
        out[r] = count > 1 ? r * (extent - 1) / (count - 1) : 0;
    return count;
}

/* Which elements of C are checked: all of a small C, else a grid of rows x columns, so the
 * reference costs O(k) per element and stays cheap for the largest shapes. */
static bool choose_samples(tune_problem *p) {
    size_t rows[64], cols[64], nr, nc;
    bool all = p->m * p->n <= 65536;
    nr = all ? p->m : spread(p->m, rows);
    nc = all ? p->n : spread(p->n, cols);
    p->samples = malloc(nr * nc * sizeof *p->samples);
    p->ref = malloc(3 * nr * nc * sizeof *p->ref);
    if (!p->samples || !p->ref) return false;
    p->tol = p->ref + 2 * nr * nc;
    p->sample_count = 0;
    for (size_t j = 0; j < nc; j++)
        for (size_t i = 0; i < nr; i++)
            p->samples[p->sample_count++] = (all ? i : rows[i]) + (all ? j : cols[j]) * p->m;
    return true;
}

/* Element (row, col) of op(X) for a stored X with leading dimension ld: real and imaginary. */
static void op_element(clgemm_precision type, bool complex, const void *x, size_t ld,
                       clgemm_transpose trans, size_t row, size_t col, double *re, double *im) {
    size_t i = trans == CLGEMM_NO_TRANS ? row + col * ld : col + row * ld;
    *re = clgemm__element_get(type, x, i, 0);
    *im = complex ? clgemm__element_get(type, x, i, 1) : 0.0;
    if (trans == CLGEMM_CONJ_TRANS) *im = -*im;
}

/* The reference of each sample, and its bound (clgemm.h): with S = sum |a||b| and u the unit
 * roundoff of the arithmetic, (terms + 2) u S, where a complex component sums 2k real products
 * and a real one k; C stored as FP16 / BF16 adds one rounding of the result (2^-11 / 2^-8
 * relative). The reference accumulates in long double, so its own error stays far below; INT8
 * sums are exact there (64-bit mantissa), wrapped to int32 as the kernels do, with bound 0. */
static void compute_reference(tune_problem *p) {
    const type_desc *t = clgemm__type(p->key.type_ab);
    bool complex = t->complex;
    bool wide = t->compute == CLGEMM_DOUBLE || t->compute == CLGEMM_COMPLEX_DOUBLE;
    bool integer = t->compute == CLGEMM_INT32;
    double u = integer ? 0 : wide ? 0x1p-53 : 0x1p-24;
    double uc = p->key.type_c == CLGEMM_HALF       ? 0x1p-11
                : p->key.type_c == CLGEMM_BFLOAT16 ? 0x1p-8
                                                   : 0;
    double terms = (complex ? 2.0 : 1.0) * (double)p->k;
    for (size_t s = 0; s < p->sample_count; s++) {
        size_t i = p->samples[s] % p->m, j = p->samples[s] / p->m;
        long double re = 0, im = 0;
        double sum_abs = 0;
        for (size_t l = 0; l < p->k; l++) {
            double ar, ai, br, bi;
            op_element(p->key.type_ab, complex, p->host[0], p->lda, p->key.trans_a, i, l, &ar, &ai);
            op_element(p->key.type_ab, complex, p->host[1], p->ldb, p->key.trans_b, l, j, &br, &bi);
            re += (long double)ar * br - (long double)ai * bi;
            im += (long double)ar * bi + (long double)ai * br;
            sum_abs += hypot(ar, ai) * hypot(br, bi);
        }
        if (integer) re = (int32_t)(uint32_t)(uint64_t)(int64_t)re;
        p->ref[2 * s] = (double)re;
        p->ref[2 * s + 1] = (double)im;
        double e = (terms + 2) * u * sum_abs;
        p->tol[s] = e + uc * (hypot((double)re, (double)im) + e);
    }
}

clgemm_status clgemm__tune_problem_init(tune_problem *p, uint64_t *rng) {
    const type_desc *tab = clgemm__type(p->key.type_ab), *tc = clgemm__type(p->key.type_c);
    if (!tab || !tc) return CLGEMM_ERR_INVALID_TYPE;
    size_t mk, kn, mn, total;
    if (__builtin_mul_overflow(p->m, p->k, &mk) || __builtin_mul_overflow(p->k, p->n, &kn) ||
        __builtin_mul_overflow(p->m, p->n, &mn) || __builtin_add_overflow(mk, kn, &total) ||
        __builtin_add_overflow(total, mn, &total) || __builtin_mul_overflow(total, 16, &total))
        return CLGEMM_ERR_OVERFLOW;
    p->lda = p->key.trans_a == CLGEMM_NO_TRANS ? p->m : p->k;
    p->ldb = p->key.trans_b == CLGEMM_NO_TRANS ? p->k : p->n;
    p->bytes_a = mk * tab->size;
    p->bytes_b = kn * tab->size;
    p->bytes_c = mn * tc->size;
    p->host[0] = malloc(p->bytes_a);
    p->host[1] = malloc(p->bytes_b);
    p->host[2] = malloc(p->bytes_c);
    if (!p->host[0] || !p->host[1] || !p->host[2] || !choose_samples(p))
        return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    int comps = tab->complex ? 2 : 1;
    for (int which = 0; which < 2; which++) {
        void *buf = p->host[which];
        for (size_t i = 0, count = which ? kn : mk; i < count; i++)
            for (int c = 0; c < comps; c++) {
                double v = (double)(clgemm__random(rng) >> 11) * 0x1p-53 * 2.0 - 1.0; /* [-1, 1) */
                /* INT8: the whole range -128 .. 127 */
                clgemm__element_set(p->key.type_ab, buf, i, c,
                                    p->key.type_ab == CLGEMM_INT8 ? v * 128.0 : v);
            }
    }
    compute_reference(p);
    return CLGEMM_SUCCESS;
}

bool clgemm__tune_problem_check(const tune_problem *p) {
    bool complex = clgemm__type(p->key.type_c)->complex;
    for (size_t s = 0; s < p->sample_count; s++)
        for (int c = 0; c < (complex ? 2 : 1); c++) {
            double diff = fabs(clgemm__element_get(p->key.type_c, p->host[2], p->samples[s], c) -
                               p->ref[2 * s + c]);
            if (!(diff <= p->tol[s])) return false; /* NaN fails too */
        }
    return true;
}

void clgemm__tune_problem_free(tune_problem *p) {
    for (int x = 0; x < 3; x++)
        free(p->host[x]);
    free(p->samples);
    free(p->ref); /* and tol */
}
