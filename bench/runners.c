/* runners.c: what clgemm-bench runs: one problem's buffers with random data in [-1, 1], the
 * clgemm and CLBlast calls on them, and the checks of the results against each other and
 * against a sample recomputed on the host. */
#include "bench.h"
#include "bf16.h"
#include "core/xorshift.h"

#include <clblast_c.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of an element of A and B, and of C (FP32 for BF16 A and B). */
static size_t elem_size(const problem *p) {
    return precision_bytes(p->precision);
}
static size_t c_size(const problem *p) {
    return precision_c_bytes(p->precision);
}

static bool bf16(const problem *p) {
    return p->precision == CLGEMM_BFLOAT16;
}

/* Components per element: 2 for the complex types, which are stored as (re, im) pairs. */
static size_t components(const problem *p) {
    return precision_complex(p->precision) ? 2 : 1;
}

/* Leading dimension of a stored rows x cols matrix (tightly packed). */
static size_t leading(const problem *p, size_t rows, size_t cols) {
    return p->layout == CLGEMM_ROW_MAJOR ? cols : rows;
}

static size_t index_of(const problem *p, size_t r, size_t c, size_t ld) {
    return p->layout == CLGEMM_ROW_MAJOR ? r * ld + c : r + c * ld;
}

static double next_uniform(unsigned long long *state) { /* in [-1, 1) */
    uint64_t s = *state;
    uint64_t x = clgemm_xorshift64s(&s);
    *state = s;
    return (double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static void *random_matrix(const problem *p, size_t count, unsigned long long *state) {
    void *h = malloc(count * elem_size(p));
    if (!h) return NULL;
    count *= components(p);
    for (size_t i = 0; i < count; i++) {
        double v = next_uniform(state);
        if (bf16(p))
            ((uint16_t *)h)[i] = bench_bf16_from_float((float)v);
        else if (precision_double(p->precision))
            ((double *)h)[i] = v;
        else
            ((float *)h)[i] = (float)v;
    }
    return h;
}

static int upload(const bench_ctx *bc, size_t size, void *host, size_t count, cl_mem *buf) {
    cl_int err;
    *buf = clCreateBuffer(bc->context, CL_MEM_READ_WRITE, count * size, NULL, &err);
    if (err != CL_SUCCESS) return err;
    if (!host) return CL_SUCCESS;
    return clEnqueueWriteBuffer(bc->queue, *buf, CL_TRUE, 0, count * size, host, 0, NULL, NULL);
}

void problem_leading(const problem *p, size_t *lda, size_t *ldb, size_t *ldc) {
    bool na = p->trans_a == CLGEMM_NO_TRANS, nb = p->trans_b == CLGEMM_NO_TRANS;
    *lda = na ? leading(p, p->m, p->k) : leading(p, p->k, p->m);
    *ldb = nb ? leading(p, p->k, p->n) : leading(p, p->n, p->k);
    *ldc = leading(p, p->m, p->n);
}

int buffers_create(const bench_ctx *bc, const problem *p, buffers *b, unsigned long long seed) {
    memset(b, 0, sizeof *b);
    problem_leading(p, &b->lda, &b->ldb, &b->ldc);
    b->a_elems = p->m * p->k;
    b->b_elems = p->k * p->n;
    b->c_elems = p->m * p->n;
    unsigned long long state = seed | 1;
    b->host_a = random_matrix(p, b->a_elems, &state);
    b->host_b = random_matrix(p, b->b_elems, &state);
    if (!b->host_a || !b->host_b) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    int err = upload(bc, elem_size(p), b->host_a, b->a_elems, &b->a);
    if (err == CL_SUCCESS) err = upload(bc, elem_size(p), b->host_b, b->b_elems, &b->b);
    if (err == CL_SUCCESS) err = upload(bc, c_size(p), NULL, b->c_elems, &b->c);
    return err;
}

void buffers_free(buffers *b) {
    if (b->a) clReleaseMemObject(b->a);
    if (b->b) clReleaseMemObject(b->b);
    if (b->c) clReleaseMemObject(b->c);
    free(b->host_a);
    free(b->host_b);
    memset(b, 0, sizeof *b);
}

/* C := NaN, so a library that does not write C cannot pass for one that does. */
static int poison_c(const bench_ctx *bc, const problem *p, const buffers *b) {
    double dn[2] = {NAN, NAN};
    float fn[2] = {NAN, NAN};
    const void *pattern = precision_double(p->precision) ? (const void *)dn : (const void *)fn;
    int err = clEnqueueFillBuffer(bc->queue, b->c, pattern, c_size(p), 0, b->c_elems * c_size(p), 0,
                                  NULL, NULL);
    return err == CL_SUCCESS ? clFinish(bc->queue) : err;
}

static int read_c(const bench_ctx *bc, const problem *p, const buffers *b, void *host_c) {
    return clEnqueueReadBuffer(bc->queue, b->c, CL_TRUE, 0, b->c_elems * c_size(p), host_c, 0, NULL,
                               NULL);
}

typedef struct call_ctx {
    const bench_ctx *bc;
    const problem *p;
    const buffers *b;
    cl_command_queue queue; /* CLBlast takes a pointer to it */
} call_ctx;

static int clgemm_call(void *ctx) {
    call_ctx *c = ctx;
    const problem *p = c->p;
    const buffers *b = c->b;
    if (p->precision == CLGEMM_COMPLEX_SINGLE) {
        const cl_float2 one = {{1.0f, 0.0f}}, zero = {{0.0f, 0.0f}};
        return clgemm_cgemm(c->bc->handle, p->layout, p->trans_a, p->trans_b, p->m, p->n, p->k, one,
                            b->a, 0, b->lda, b->b, 0, b->ldb, zero, b->c, 0, b->ldc, NULL, 0, NULL,
                            NULL);
    }
    if (p->precision == CLGEMM_COMPLEX_DOUBLE) {
        const cl_double2 one = {{1.0, 0.0}}, zero = {{0.0, 0.0}};
        return clgemm_zgemm(c->bc->handle, p->layout, p->trans_a, p->trans_b, p->m, p->n, p->k, one,
                            b->a, 0, b->lda, b->b, 0, b->ldb, zero, b->c, 0, b->ldc, NULL, 0, NULL,
                            NULL);
    }
    if (bf16(p)) { /* alpha and beta in FP32, C's type */
        const float one = 1.0f, zero = 0.0f;
        return clgemm_gemm_ex(c->bc->handle, p->layout, p->trans_a, p->trans_b, p->m, p->n, p->k,
                              &one, b->a, 0, b->lda, b->b, 0, b->ldb, &zero, b->c, 0, b->ldc,
                              CLGEMM_BFLOAT16, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, NULL, 0, NULL,
                              NULL);
    }
    if (p->precision == CLGEMM_DOUBLE)
        return clgemm_dgemm(c->bc->handle, p->layout, p->trans_a, p->trans_b, p->m, p->n, p->k, 1.0,
                            b->a, 0, b->lda, b->b, 0, b->ldb, 0.0, b->c, 0, b->ldc, NULL, 0, NULL,
                            NULL);
    return clgemm_sgemm(c->bc->handle, p->layout, p->trans_a, p->trans_b, p->m, p->n, p->k, 1.0f,
                        b->a, 0, b->lda, b->b, 0, b->ldb, 0.0f, b->c, 0, b->ldc, NULL, 0, NULL,
                        NULL);
}

static int clblast_call(void *ctx) {
    call_ctx *c = ctx;
    const problem *p = c->p;
    const buffers *b = c->b;
    CLBlastLayout layout = (CLBlastLayout)p->layout; /* both use the CBLAS values */
    CLBlastTranspose ta = (CLBlastTranspose)p->trans_a, tb = (CLBlastTranspose)p->trans_b;
    if (p->precision == CLGEMM_COMPLEX_SINGLE) {
        const cl_float2 one = {{1.0f, 0.0f}}, zero = {{0.0f, 0.0f}};
        return CLBlastCgemm(layout, ta, tb, p->m, p->n, p->k, one, b->a, 0, b->lda, b->b, 0, b->ldb,
                            zero, b->c, 0, b->ldc, &c->queue, NULL);
    }
    if (p->precision == CLGEMM_COMPLEX_DOUBLE) {
        const cl_double2 one = {{1.0, 0.0}}, zero = {{0.0, 0.0}};
        return CLBlastZgemm(layout, ta, tb, p->m, p->n, p->k, one, b->a, 0, b->lda, b->b, 0, b->ldb,
                            zero, b->c, 0, b->ldc, &c->queue, NULL);
    }
    if (p->precision == CLGEMM_DOUBLE)
        return CLBlastDgemm(layout, ta, tb, p->m, p->n, p->k, 1.0, b->a, 0, b->lda, b->b, 0, b->ldb,
                            0.0, b->c, 0, b->ldc, &c->queue, NULL);
    return CLBlastSgemm(layout, ta, tb, p->m, p->n, p->k, 1.0f, b->a, 0, b->lda, b->b, 0, b->ldb,
                        0.0f, b->c, 0, b->ldc, &c->queue, NULL);
}

double problem_flops(const problem *p) {
    const double per = precision_complex(p->precision) ? 8.0 : 2.0; /* a complex multiply-add: 8 */
    return per * (double)p->m * (double)p->n * (double)p->k;
}

static measurement run(const bench_ctx *bc, const problem *p, const buffers *b, int runs,
                       gemm_call call, void *host_c) {
    call_ctx ctx = {bc, p, b, bc->queue};
    measurement m = {.ran = true};
    if ((m.status = poison_c(bc, p, b)) != 0) return m;
    m = time_calls(call, &ctx, bc->queue, runs, problem_flops(p));
    if (m.status == 0) m.status = read_c(bc, p, b, host_c);
    return m;
}

measurement run_clgemm(const bench_ctx *bc, const problem *p, const buffers *b, int runs,
                       void *host_c) {
    return run(bc, p, b, runs, clgemm_call, host_c);
}

measurement run_clblast(const bench_ctx *bc, const problem *p, const buffers *b, int runs,
                        const name_values *overrides, void *host_c) {
    static const CLBlastPrecision precs[] = {CLBlastPrecisionSingle, CLBlastPrecisionDouble,
                                             CLBlastPrecisionComplexSingle,
                                             CLBlastPrecisionComplexDouble};
    if (bf16(p)) /* CLBlast has no BF16 */
        return (measurement){.ran = true, .status = CLGEMM_ERR_INVALID_TYPE};
    CLBlastPrecision prec = precs[p->precision];
    if (overrides) {
        CLBlastStatusCode st =
            CLBlastOverrideParameters(bc->device, "Xgemm", prec, overrides->count,
                                      (const char **)overrides->names, overrides->values);
        if (st != CLBlastSuccess) return (measurement){.ran = true, .status = st};
    }
    measurement m = run(bc, p, b, runs, clblast_call, host_c);
    if (overrides) CLBlastClearCache(); /* drops the override: CLBlast's defaults again */
    return m;
}

/* Component i of C (complex elements: 2 i is the real part, 2 i + 1 the imaginary), and of A
 * or B (BF16 decoded). */
static double value(const problem *p, const void *base, size_t i) {
    return precision_double(p->precision) ? ((const double *)base)[i]
                                          : (double)((const float *)base)[i];
}
static double value_ab(const problem *p, const void *base, size_t i) {
    return bf16(p) ? (double)bench_bf16_to_float(((const uint16_t *)base)[i]) : value(p, base, i);
}

double max_rel_diff(const problem *p, const void *x, const void *ref, size_t count) {
    double max_diff = 0, max_ref = 0;
    count *= components(p);
    for (size_t i = 0; i < count; i++) {
        double a = value(p, x, i), r = value(p, ref, i);
        if (!isfinite(a) || !isfinite(r)) return INFINITY;
        double d = fabs(a - r);
        if (d > max_diff) max_diff = d;
        if (fabs(r) > max_ref) max_ref = fabs(r);
    }
    return max_ref > 0 ? max_diff / max_ref : max_diff;
}

#define HOST_SAMPLES 256

double host_sample_diff(const problem *p, const buffers *b, const void *host_c) {
    unsigned long long state = 0x9E3779B97F4A7C15ull;
    double max_diff = 0, max_ref = 0;
    bool na = p->trans_a == CLGEMM_NO_TRANS, nb = p->trans_b == CLGEMM_NO_TRANS;
    for (int s = 0; s < HOST_SAMPLES; s++) {
        size_t i = (size_t)((next_uniform(&state) + 1.0) * 0.5 * (double)p->m);
        size_t j = (size_t)((next_uniform(&state) + 1.0) * 0.5 * (double)p->n);
        if (i >= p->m) i = p->m - 1;
        if (j >= p->n) j = p->n - 1;
        const size_t nc = components(p); /* the bench's complex problems have no conjugates */
        long double re = 0, im = 0;
        for (size_t q = 0; q < p->k; q++) {
            size_t ia = nc * (na ? index_of(p, i, q, b->lda) : index_of(p, q, i, b->lda));
            size_t ib = nc * (nb ? index_of(p, q, j, b->ldb) : index_of(p, j, q, b->ldb));
            long double ar = value_ab(p, b->host_a, ia), br = value_ab(p, b->host_b, ib);
            long double ai = nc == 2 ? value_ab(p, b->host_a, ia + 1) : 0;
            long double bi = nc == 2 ? value_ab(p, b->host_b, ib + 1) : 0;
            re += ar * br - ai * bi;
            im += ar * bi + ai * br;
        }
        for (size_t x = 0; x < nc; x++) {
            const long double sum = x ? im : re;
            double got = value(p, host_c, nc * index_of(p, i, j, b->ldc) + x);
            if (!isfinite(got)) return INFINITY;
            double d = fabs(got - (double)sum);
            if (d > max_diff) max_diff = d;
            if (fabsl(sum) > max_ref) max_ref = (double)fabsl(sum);
        }
    }
    return max_ref > 0 ? max_diff / max_ref : max_diff;
}

double tolerance(const problem *p) {
    double eps = precision_double(p->precision) ? DBL_EPSILON : FLT_EPSILON;
    return (precision_complex(p->precision) ? 4.0 : 2.0) * (double)p->k * eps;
}
