/* reference.c: host side of the tests: arrays of either precision, poison and sentinel fills,
 * matrix geometry, the long-double reference GEMM with its error bound, and the comparisons. */
#include "test_common.h"
#include "core/xorshift.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tc_real_size(clgemm_precision prec) {
    return prec == CLGEMM_DOUBLE ? sizeof(double) : sizeof(float);
}

double tc_get(clgemm_precision prec, const void *p, size_t i) {
    return prec == CLGEMM_DOUBLE ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

void tc_set(clgemm_precision prec, void *p, size_t i, double v) {
    if (prec == CLGEMM_DOUBLE)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

void tc_set_nan(clgemm_precision prec, void *p, size_t i) {
    if (prec == CLGEMM_DOUBLE)
        ((double *)p)[i] = NAN;
    else
        ((float *)p)[i] = NAN;
}

void tc_set_sentinel(clgemm_precision prec, void *p, size_t i) {
    /* Exponent all ones, quiet bit clear, a recognisable payload. Written as bits, never
     * through a floating-point register, so the pattern stays signalling. */
    if (prec == CLGEMM_DOUBLE) {
        uint64_t bits = UINT64_C(0x7ff00000c0ffee01);
        memcpy((char *)p + i * sizeof bits, &bits, sizeof bits);
    } else {
        uint32_t bits = UINT32_C(0x7f8c0ffe);
        memcpy((char *)p + i * sizeof bits, &bits, sizeof bits);
    }
}

double tc_random(uint64_t *state) {
    /* 24 random bits, so the value is exact in float. */
    uint64_t r = clgemm_xorshift64s(state) >> 40;
    return (double)r / (double)(1u << 23) - 1.0;
}

/* ---- Geometry -------------------------------------------------------------------------------- */

/* Stored rows and columns of op(X) = rows x cols. */
static void stored(clgemm_transpose trans, size_t rows, size_t cols, size_t *sr, size_t *sc) {
    *sr = trans == CLGEMM_TRANS ? cols : rows;
    *sc = trans == CLGEMM_TRANS ? rows : cols;
}

size_t tc_min_ld(clgemm_layout layout, clgemm_transpose trans, size_t rows, size_t cols) {
    size_t sr, sc;
    stored(trans, rows, cols, &sr, &sc);
    size_t v = layout == CLGEMM_ROW_MAJOR ? sc : sr;
    return v > 1 ? v : 1;
}

size_t tc_index(clgemm_layout layout, clgemm_transpose trans, size_t i, size_t j, size_t ld) {
    size_t si = trans == CLGEMM_TRANS ? j : i, sj = trans == CLGEMM_TRANS ? i : j;
    return layout == CLGEMM_ROW_MAJOR ? si * ld + sj : si + sj * ld;
}

size_t tc_extent(clgemm_layout layout, clgemm_transpose trans, size_t rows, size_t cols,
                 size_t ld) {
    /* The last element of op(X) is also the last one stored. */
    if (rows == 0 || cols == 0) return 0;
    return tc_index(layout, trans, rows - 1, cols - 1, ld) + 1;
}

void tc_describe(const tc_gemm *g, char *buf, size_t size) {
    snprintf(buf, size,
             "%cgemm %s %c%c m=%zu n=%zu k=%zu alpha=%g beta=%g lda=%zu ldb=%zu ldc=%zu "
             "off=%zu/%zu/%zu",
             g->prec == CLGEMM_DOUBLE ? 'd' : 's',
             g->layout == CLGEMM_ROW_MAJOR   ? "row-major"
             : g->layout == CLGEMM_COL_MAJOR ? "col-major"
                                             : "bad-layout",
             g->ta == CLGEMM_TRANS ? 'T' : 'N', g->tb == CLGEMM_TRANS ? 'T' : 'N', g->m, g->n, g->k,
             g->alpha, g->beta, g->lda, g->ldb, g->ldc, g->off_a, g->off_b, g->off_c);
}

/* ---- Problem data ---------------------------------------------------------------------------- */

bool tc_data_make(tc_data *d, const tc_gemm *g, uint64_t seed, unsigned flags) {
    memset(d, 0, sizeof *d);
    d->g = *g;
    tc_gemm *p = &d->g;
    if (!p->lda) p->lda = tc_min_ld(p->layout, p->ta, p->m, p->k);
    if (!p->ldb) p->ldb = tc_min_ld(p->layout, p->tb, p->k, p->n);
    if (!p->ldc) p->ldc = tc_min_ld(p->layout, CLGEMM_NO_TRANS, p->m, p->n);
    d->na = p->off_a + tc_extent(p->layout, p->ta, p->m, p->k, p->lda) + p->tail;
    d->nb = p->off_b + tc_extent(p->layout, p->tb, p->k, p->n, p->ldb) + p->tail;
    d->nc = p->off_c + tc_extent(p->layout, CLGEMM_NO_TRANS, p->m, p->n, p->ldc) + p->tail;
    size_t rs = tc_real_size(p->prec);
    d->a = malloc((d->na ? d->na : 1) * rs);
    d->b = malloc((d->nb ? d->nb : 1) * rs);
    d->c0 = malloc((d->nc ? d->nc : 1) * rs);
    d->c = malloc((d->nc ? d->nc : 1) * rs);
    if (!d->a || !d->b || !d->c0 || !d->c) {
        tc_data_free(d);
        return false;
    }
    uint64_t state = seed * UINT64_C(0x2545f4914f6cdd1d) + 1;
    for (size_t i = 0; i < d->na; i++)
        tc_set_nan(p->prec, d->a, i);
    for (size_t i = 0; i < d->nb; i++)
        tc_set_nan(p->prec, d->b, i);
    for (size_t i = 0; i < d->nc; i++)
        tc_set_sentinel(p->prec, d->c0, i);
    bool ab_nan = flags & TC_AB_NAN;
    for (size_t i = 0; i < p->m; i++)
        for (size_t q = 0; q < p->k; q++) {
            size_t at = p->off_a + tc_index(p->layout, p->ta, i, q, p->lda);
            if (ab_nan)
                tc_set_nan(p->prec, d->a, at);
            else
                tc_set(p->prec, d->a, at, tc_random(&state));
        }
    for (size_t q = 0; q < p->k; q++)
        for (size_t j = 0; j < p->n; j++) {
            size_t at = p->off_b + tc_index(p->layout, p->tb, q, j, p->ldb);
            if (ab_nan)
                tc_set_nan(p->prec, d->b, at);
            else
                tc_set(p->prec, d->b, at, tc_random(&state));
        }
    for (size_t i = 0; i < p->m; i++)
        for (size_t j = 0; j < p->n; j++) {
            size_t at = p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc);
            if (p->beta == 0)
                tc_set_nan(p->prec, d->c0, at);
            else
                tc_set(p->prec, d->c0, at, tc_random(&state));
        }
    memcpy(d->c, d->c0, d->nc * rs);
    return true;
}

void tc_data_free(tc_data *d) {
    free(d->a);
    free(d->b);
    free(d->c0);
    free(d->c);
    d->a = d->b = d->c0 = d->c = NULL;
}

void tc_reference(const tc_data *d, double *ref, double *bound) {
    const tc_gemm *p = &d->g;
    clgemm_precision prec = p->prec;
    /* sgemm sees alpha and beta rounded to float. */
    long double alpha = prec == CLGEMM_DOUBLE ? p->alpha : (float)p->alpha;
    long double beta = prec == CLGEMM_DOUBLE ? p->beta : (float)p->beta;
    long double eps = prec == CLGEMM_DOUBLE ? DBL_EPSILON : FLT_EPSILON;
    /* BLAS: alpha == 0 or k == 0 reads neither A nor B. */
    bool use_ab = alpha != 0 && p->k > 0;
    /* op(A) row by row and op(B) column by column, contiguous: the inner loop is then a plain
     * dot product (large cases would otherwise take most of the suite's time here). */
    double *at = use_ab ? malloc(p->m * p->k * sizeof *at) : NULL;
    double *bt = use_ab ? malloc(p->k * p->n * sizeof *bt) : NULL;
    if (use_ab && (!at || !bt)) {
        free(at);
        free(bt);
        for (size_t x = 0; x < p->m * p->n; x++)
            ref[x] = bound[x] = NAN;
        return;
    }
    if (use_ab) {
        for (size_t i = 0; i < p->m; i++)
            for (size_t q = 0; q < p->k; q++)
                at[i * p->k + q] =
                    tc_get(prec, d->a, p->off_a + tc_index(p->layout, p->ta, i, q, p->lda));
        for (size_t j = 0; j < p->n; j++)
            for (size_t q = 0; q < p->k; q++)
                bt[j * p->k + q] =
                    tc_get(prec, d->b, p->off_b + tc_index(p->layout, p->tb, q, j, p->ldb));
    }
    for (size_t j = 0; j < p->n; j++)
        for (size_t i = 0; i < p->m; i++) {
            long double sum = 0, abs_sum = 0;
            if (use_ab) {
                const double *ar = at + i * p->k, *bc = bt + j * p->k;
                for (size_t q = 0; q < p->k; q++) {
                    long double prod = (long double)ar[q] * bc[q];
                    sum += prod;
                    abs_sum += fabsl(prod);
                }
            }
            long double r = use_ab ? alpha * sum : 0, mag = use_ab ? fabsl(alpha) * abs_sum : 0;
            if (beta != 0) {
                long double c = tc_get(
                    prec, d->c0, p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc));
                r += beta * c;
                mag += fabsl(beta * c);
            }
            ref[i + j * p->m] = (double)r;
            bound[i + j * p->m] = (double)((long double)(p->k + 2) * eps * mag);
        }
    free(at);
    free(bt);
}

static bool same_bits(clgemm_precision prec, const void *x, const void *y, size_t i) {
    size_t rs = tc_real_size(prec);
    return memcmp((const char *)x + i * rs, (const char *)y + i * rs, rs) == 0;
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

size_t tc_check(const tc_data *d, const void *c, const double *ref, const double *bound,
                double scale, char *msg, size_t size) {
    const tc_gemm *p = &d->g;
    size_t bad = 0, bad_outside = 0;
    if (size) msg[0] = 0;
    char *inside = calloc(d->nc ? d->nc : 1, 1);
    if (!inside) {
        snprintf(msg, size, "out of host memory");
        return 1;
    }
    for (size_t j = 0; j < p->n; j++)
        for (size_t i = 0; i < p->m; i++) {
            size_t at = p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc);
            inside[at] = 1;
            double got = tc_get(p->prec, c, at), want = ref[i + j * p->m];
            double tol = bound[i + j * p->m] * scale;
            if (!(fabs(got - want) <= tol)) { /* NaN fails too */
                if (bad < 3)
                    append(msg, size, " C(%zu,%zu)=%.17g want %.17g (tol %.3g);", i, j, got, want,
                           tol);
                bad++;
            }
        }
    for (size_t x = 0; x < d->nc; x++) {
        if (inside[x] || same_bits(p->prec, c, d->c0, x)) continue;
        if (bad_outside < 3)
            append(msg, size, " buffer element %zu (outside C) changed to %.17g;", x,
                   tc_get(p->prec, c, x));
        bad_outside++;
    }
    free(inside);
    if (bad + bad_outside) {
        append(msg, size, " [%zu bad in C, %zu changed outside C]", bad, bad_outside);
    }
    return bad + bad_outside;
}

size_t tc_compare(const tc_data *d, const void *c1, const void *c2, const double *bound,
                  double scale, char *msg, size_t size) {
    const tc_gemm *p = &d->g;
    size_t bad = 0;
    if (size) msg[0] = 0;
    for (size_t j = 0; j < p->n; j++)
        for (size_t i = 0; i < p->m; i++) {
            size_t at = p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc);
            double x = tc_get(p->prec, c1, at), y = tc_get(p->prec, c2, at);
            double tol = bound[i + j * p->m] * scale;
            if (!(fabs(x - y) <= tol)) {
                if (bad < 3)
                    append(msg, size, " C(%zu,%zu)=%.17g, CLBlast %.17g (tol %.3g);", i, j, x, y,
                           tol);
                bad++;
            }
        }
    if (bad) append(msg, size, " [%zu differ]", bad);
    return bad;
}
