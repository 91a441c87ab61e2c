/* batched.c: strided-batched GEMM through clgemm_gemm_strided_batched beside CLBlast's
 * XgemmStridedBatched on the same buffers (issue 10), for clgemm-bench --batched and
 * clgemm-batched-bench: BATCH products of N x N x N packed one after another, the median of warm
 * whole calls, and a sampled check against the host. Built with or without CLBlast
 * (HAVE_CLBLAST). */
#include "batched.h"
#include "bf16.h"
#include "core/clock.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_CLBLAST
#include <clblast_c.h>
#endif

static uint16_t to_half(float f) { /* inputs are multiples of 1/8 in [-1, 1]: exact */
    if (f == 0) return 0;
    uint32_t x;
    memcpy(&x, &f, 4);
    return (uint16_t)(((x >> 16) & 0x8000u) | (uint32_t)((int)((x >> 23) & 0xff) - 112) << 10 |
                      (x & 0x7fffffu) >> 13);
}
static double from_half(uint16_t h) {
    int e = (h >> 10) & 31;
    double m = (h & 1023) / 1024.0, v = e ? ldexp(1 + m, e - 15) : ldexp(m, -14);
    return h & 0x8000 ? -v : v;
}

/* E4M3 of a multiple of 1/8 in [-1, 1] (exact: three mantissa bits, exponent bias 7). */
static uint8_t to_e4m3(float f) {
    if (f == 0) return 0;
    int e;
    float m = frexpf(fabsf(f), &e); /* |f| = m 2^e, m in [0.5, 1) */
    return (uint8_t)((f < 0) << 7 | (e - 1 + 7) << 3 | (int)((m * 2 - 1) * 8));
}
static double from_e4m3(uint8_t x) {
    int e = (x >> 3) & 15;
    double v = e ? ldexp(1 + (x & 7) / 8.0, e - 7) : ldexp((x & 7) / 8.0, -6);
    return x & 0x80 ? -v : v;
}

/* Modes: s FP32, d FP64, h FP16, b BF16 (A, B and C of the mode's type); i INT8 into INT32, e
 * E4M3 into FP32. */
static size_t elem_size(char mode) { /* of A and B */
    return mode == 'd' ? 8 : mode == 'h' || mode == 'b' ? 2 : mode == 'i' || mode == 'e' ? 1 : 4;
}
static size_t c_size(char mode) {
    return mode == 'i' || mode == 'e' ? 4 : elem_size(mode);
}

bool batched_parse(const char *arg, char mode, batched_problem *out) {
    char tail;
    *out = (batched_problem){.mode = mode, .layout = CLGEMM_ROW_MAJOR};
    if (strchr(arg, ':')) {
        if (sscanf(arg, "%c:%zu,%zu%c", &out->mode, &out->batch, &out->n, &tail) != 3) return false;
    } else if (sscanf(arg, "%zu,%zu%c", &out->batch, &out->n, &tail) != 2) {
        return false;
    }
    size_t count, bytes;
    return strchr("sdhbie", out->mode) && out->mode && out->batch && out->n &&
           out->n < (1u << 20) && !__builtin_mul_overflow(out->batch, out->n * out->n, &count) &&
           !__builtin_mul_overflow(count, c_size(out->mode), &bytes);
}

void batched_header(FILE *f, clgemm_handle h) {
    char dev[256] = "";
    clGetDeviceInfo(clgemm_device(h), CL_DEVICE_NAME, sizeof dev, dev, NULL);
    fprintf(f, "# device: %s; NN, alpha 1, beta 0, stride n*n; median of warm calls\n", dev);
    fprintf(f, "%-4s %-6s %7s %6s %-8s %12s %9s %10s\n", "mode", "layout", "batch", "n", "library",
            "us/call", "TFLOPS", "max_err");
}

typedef struct job {
    const batched_problem *p;
    cl_mem a, b, c;
    cl_command_queue queue;
    clgemm_handle h;
} job;

/* One call of library lib (0 clgemm, 1 CLBlast); 0 on success. */
static int call(const job *j, int lib) {
    size_t n = j->p->n, s = n * n, batch = j->p->batch;
    char mode = j->p->mode;
    float f1 = 1, f0 = 0;
    double d1 = 1, d0 = 0;
    if (lib == 0) {
        clgemm_precision t = mode == 'd'   ? CLGEMM_DOUBLE
                             : mode == 'h' ? CLGEMM_HALF
                             : mode == 'b' ? CLGEMM_BFLOAT16
                             : mode == 'i' ? CLGEMM_INT8
                             : mode == 'e' ? CLGEMM_E4M3
                                           : CLGEMM_SINGLE;
        clgemm_precision tc = mode == 'i' ? CLGEMM_INT32 : mode == 'e' ? CLGEMM_SINGLE : t;
        cl_int i1 = 1, i0 = 0;
        const void *one = mode == 'd' ? (const void *)&d1 : mode == 'i' ? (const void *)&i1 : &f1;
        const void *zero = mode == 'd' ? (const void *)&d0 : mode == 'i' ? (const void *)&i0 : &f0;
        return clgemm_gemm_strided_batched(j->h, j->p->layout, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, n,
                                           n, n, one, j->a, 0, n, s, j->b, 0, n, s, zero, j->c, 0,
                                           n, s, batch, t, tc, CLGEMM_COMPUTE_DEFAULT, NULL, 0,
                                           NULL, NULL);
    }
#ifdef HAVE_CLBLAST
    cl_command_queue q = j->queue;
    CLBlastLayout l =
        j->p->layout == CLGEMM_COL_MAJOR ? CLBlastLayoutColMajor : CLBlastLayoutRowMajor;
    CLBlastTranspose t = CLBlastTransposeNo;
    switch (mode) {
    case 'd':
        return CLBlastDgemmStridedBatched(l, t, t, n, n, n, 1, j->a, 0, n, s, j->b, 0, n, s, 0,
                                          j->c, 0, n, s, batch, &q, NULL);
    case 'b':
    case 'i':
    case 'e':
        return -1; /* CLBlast has no BF16 and no 8-bit types */
    case 'h':
        return CLBlastHgemmStridedBatched(l, t, t, n, n, n, 0x3c00, j->a, 0, n, s, j->b, 0, n, s, 0,
                                          j->c, 0, n, s, batch, &q, NULL);
    default:
        return CLBlastSgemmStridedBatched(l, t, t, n, n, n, 1, j->a, 0, n, s, j->b, 0, n, s, 0,
                                          j->c, 0, n, s, batch, &q, NULL);
    }
#else
    return -1;
#endif
}

/* Element i of A or B (c false) or of C (c true). */
static double get(char mode, bool c, const void *p, size_t i) {
    if (mode == 'd') return ((const double *)p)[i];
    if (mode == 'h') return from_half(((const uint16_t *)p)[i]);
    if (mode == 'b') return bench_bf16_to_float(((const uint16_t *)p)[i]);
    if (mode == 'i') return c ? ((const int32_t *)p)[i] : ((const int8_t *)p)[i];
    if (mode == 'e' && !c) return from_e4m3(((const uint8_t *)p)[i]);
    return ((const float *)p)[i];
}

static void fill(char mode, char *ha, char *hb, size_t count) {
    uint64_t r = 88172645463325252ull;
    for (size_t e = 0; e < count; e++)
        for (int x = 0; x < 2; x++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            float v = (float)((int)(r % 17) - 8) / 8;
            char *p = x ? hb : ha;
            if (mode == 'd')
                ((double *)p)[e] = v;
            else if (mode == 'h')
                ((uint16_t *)p)[e] = to_half(v);
            else if (mode == 'b')
                ((uint16_t *)p)[e] = bench_bf16_from_float(v); /* exact: multiples of 1/8 */
            else if (mode == 'i')
                ((int8_t *)p)[e] = (int8_t)(v * 8);
            else if (mode == 'e')
                ((uint8_t *)p)[e] = to_e4m3(v);
            else
                ((float *)p)[e] = v;
        }
}

/* The largest of 64 sampled errors of C (element (row, col) of matrix bi, in the problem's
 * layout) against the host product, relative to sum |a||b|; NaN sticks. */
static double sampled_error(const batched_problem *p, const char *ha, const char *hb,
                            const char *hc) {
    size_t n = p->n;
    bool row_major = p->layout == CLGEMM_ROW_MAJOR;
    double worst = 0;
    for (int smp = 0; smp < 64; smp++) {
        size_t bi = (size_t)smp * 7919 % p->batch, row = (size_t)smp * 31 % n,
               col = (size_t)smp * 17 % n, base = bi * n * n;
        double s = 0, mag = 0;
        for (size_t q = 0; q < n; q++) {
            double x = get(p->mode, false, ha, base + (row_major ? row * n + q : row + q * n)),
                   y = get(p->mode, false, hb, base + (row_major ? q * n + col : q + col * n));
            s += x * y;
            mag += fabs(x * y);
        }
        size_t at = base + (row_major ? row * n + col : row + col * n);
        double e = fabs(get(p->mode, true, hc, at) - s) / (mag > 0 ? mag : 1);
        if (!(e <= worst)) worst = e;
    }
    return worst;
}

int batched_run(FILE *f, clgemm_handle h, const batched_problem *p, int runs, bool clblast) {
    job j = {.p = p, .queue = clgemm_queue(h), .h = h};
    size_t count = p->batch * p->n * p->n, bytes = count * elem_size(p->mode),
           c_bytes = count * c_size(p->mode);
    char *ha = malloc(bytes), *hb = malloc(bytes), *hc = malloc(c_bytes);
    double *t = malloc((size_t)(runs > 0 ? runs : 1) * sizeof *t);
    cl_context ctx = clgemm_context(h);
    cl_int err = ha && hb && hc && t ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS) {
        fill(p->mode, ha, hb, count);
        j.a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, ha, &err);
    }
    if (err == CL_SUCCESS)
        j.b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, hb, &err);
    if (err == CL_SUCCESS) j.c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, c_bytes, NULL, &err);
    const char *layout = p->layout == CLGEMM_COL_MAJOR ? "col" : "row";
    if (err != CL_SUCCESS)
        fprintf(f, "%-4c %-6s %7zu %6zu buffers failed: %d\n", p->mode, layout, p->batch, p->n,
                err);
    double flops = 2.0 * (double)p->batch * (double)p->n * (double)p->n * (double)p->n;
    for (int lib = 0; err == CL_SUCCESS && lib < 1 + (clblast && strchr("sdh", p->mode)); lib++) {
        const char *name = lib ? "CLBlast" : "clgemm";
        int st = call(&j, lib); /* warm-up: builds the kernels */
        if (st || clFinish(j.queue)) {
            fprintf(f, "%-4c %-6s %7zu %6zu %-8s failed (%d)\n", p->mode, layout, p->batch, p->n,
                    name, st);
            continue;
        }
        for (int k = 0; k < runs; k++) {
            double t0 = clgemm_now_seconds();
            call(&j, lib);
            clFinish(j.queue);
            t[k] = clgemm_now_seconds() - t0;
        }
        qsort(t, (size_t)runs, sizeof *t, clgemm_compare_doubles);
        double med = t[runs / 2];
        clEnqueueReadBuffer(j.queue, j.c, CL_TRUE, 0, c_bytes, hc, 0, NULL, NULL);
        fprintf(f, "%-4c %-6s %7zu %6zu %-8s %12.1f %9.3f %10.2e\n", p->mode, layout, p->batch,
                p->n, name, med * 1e6, flops / med * 1e-12, sampled_error(p, ha, hb, hc));
        fflush(f);
    }
    if (j.a) clReleaseMemObject(j.a);
    if (j.b) clReleaseMemObject(j.b);
    if (j.c) clReleaseMemObject(j.c);
    free(ha);
    free(hb);
    free(hc);
    free(t);
    return err == CL_SUCCESS ? 0 : 1;
}
