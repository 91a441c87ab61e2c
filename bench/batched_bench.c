/* batched_bench.c: clgemm-batched-bench, whole-call speed of strided-batched GEMM through
 * clgemm_gemm_strided_batched beside CLBlast's XgemmStridedBatched on the same buffers (issue 10).
 * Usage: clgemm-batched-bench [--runs N] [--no-clblast] MODE:BATCH,N ...   MODE: s d h
 * Each problem is BATCH row-major N x N x N products, no transposes, alpha 1, beta 0, packed
 * (stride N * N). Prints per problem and library: the median of N warm calls (host clock around
 * the call and clFinish) in microseconds and TFLOPS, and for clgemm the largest sampled error
 * against a double-precision host product relative to sum |a||b|. BATCH 1 gives the fixed cost
 * of one small call (issue 10 item 4). */
#include <clgemm.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_CLBLAST
#include <clblast_c.h>
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

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

typedef struct job {
    char mode;
    size_t batch, n, elem;
    cl_mem a, b, c;
    cl_command_queue queue;
    clgemm_handle h;
} job;

/* One call of library lib (0 clgemm, 1 CLBlast); 0 on success. */
static int call(const job *j, int lib) {
    size_t n = j->n, s = n * n;
    float f1 = 1, f0 = 0;
    double d1 = 1, d0 = 0;
    if (lib == 0) {
        clgemm_precision t = j->mode == 'd'   ? CLGEMM_DOUBLE
                             : j->mode == 'h' ? CLGEMM_HALF
                                              : CLGEMM_SINGLE;
        const void *one = j->mode == 'd' ? (const void *)&d1 : &f1;
        const void *zero = j->mode == 'd' ? (const void *)&d0 : &f0;
        return clgemm_gemm_strided_batched(j->h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS,
                                           n, n, n, one, j->a, 0, n, s, j->b, 0, n, s, zero, j->c,
                                           0, n, s, j->batch, t, t, CLGEMM_COMPUTE_DEFAULT, NULL, 0,
                                           NULL, NULL);
    }
#ifdef HAVE_CLBLAST
    cl_command_queue q = j->queue;
    CLBlastLayout l = CLBlastLayoutRowMajor;
    CLBlastTranspose t = CLBlastTransposeNo;
    switch (j->mode) {
    case 'd':
        return CLBlastDgemmStridedBatched(l, t, t, n, n, n, 1, j->a, 0, n, s, j->b, 0, n, s, 0,
                                          j->c, 0, n, s, j->batch, &q, NULL);
    case 'h':
        return CLBlastHgemmStridedBatched(l, t, t, n, n, n, 0x3c00, j->a, 0, n, s, j->b, 0, n, s, 0,
                                          j->c, 0, n, s, j->batch, &q, NULL);
    default:
        return CLBlastSgemmStridedBatched(l, t, t, n, n, n, 1, j->a, 0, n, s, j->b, 0, n, s, 0,
                                          j->c, 0, n, s, j->batch, &q, NULL);
    }
#else
    return -1;
#endif
}

static double get(const job *j, const void *p, size_t i) {
    if (j->mode == 'd') return ((const double *)p)[i];
    if (j->mode == 'h') return from_half(((const uint16_t *)p)[i]);
    return ((const float *)p)[i];
}

int main(int argc, char **argv) {
    int runs = 10, clblast = 1;
    clgemm_handle h;
    int st = clgemm_create_default(&h);
    if (st) {
        fprintf(stderr, "clgemm_create_default: %s\n", clgemm_status_string(st));
        return 1;
    }
    cl_command_queue queue = clgemm_queue(h);
    char dev[256] = "";
    clGetDeviceInfo(clgemm_device(h), CL_DEVICE_NAME, sizeof dev, dev, NULL);
    printf("# device: %s; row-major NN, alpha 1, beta 0, stride n*n; median of warm calls\n", dev);
    printf("%-4s %7s %6s %-8s %12s %9s %10s\n", "mode", "batch", "n", "library", "us/call",
           "TFLOPS", "max_err");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = atoi(argv[++i]);
            continue;
        }
        if (!strcmp(argv[i], "--no-clblast")) {
            clblast = 0;
            continue;
        }
        job j = {.queue = queue, .h = h};
        if (sscanf(argv[i], "%c:%zu,%zu", &j.mode, &j.batch, &j.n) != 3 || !strchr("sdh", j.mode) ||
            !j.batch || !j.n) {
            fprintf(stderr, "bad problem %s (MODE:BATCH,N, MODE s d h)\n", argv[i]);
            return 2;
        }
        j.elem = j.mode == 'd' ? 8 : j.mode == 'h' ? 2 : 4;
        size_t count = j.batch * j.n * j.n, bytes = count * j.elem;
        char *ha = malloc(bytes), *hb = malloc(bytes), *hc = malloc(bytes);
        uint64_t r = 88172645463325252ull;
        for (size_t e = 0; e < count; e++)
            for (int x = 0; x < 2; x++) {
                r ^= r << 13, r ^= r >> 7, r ^= r << 17;
                float v = (float)((int)(r % 17) - 8) / 8;
                char *p = x ? hb : ha;
                if (j.mode == 'd')
                    ((double *)p)[e] = v;
                else if (j.mode == 'h')
                    ((uint16_t *)p)[e] = to_half(v);
                else
                    ((float *)p)[e] = v;
            }
        cl_context ctx = clgemm_context(h);
        cl_int err;
        j.a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, ha, &err);
        j.b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, hb, &err);
        j.c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
        double flops = 2.0 * (double)j.batch * (double)j.n * (double)j.n * (double)j.n;
        for (int lib = 0; lib < 1 + clblast; lib++) {
            if (call(&j, lib) || clFinish(queue)) { /* warm-up: builds the kernels */
                printf("%-4c %7zu %6zu %-8s failed\n", j.mode, j.batch, j.n,
                       lib ? "CLBlast" : "clgemm");
                continue;
            }
            double *t = malloc((size_t)runs * sizeof *t);
            for (int k = 0; k < runs; k++) {
                double t0 = now();
                call(&j, lib);
                clFinish(queue);
                t[k] = now() - t0;
            }
            qsort(t, (size_t)runs, sizeof *t, cmp);
            double med = t[runs / 2], worst = 0;
            free(t);
            clEnqueueReadBuffer(queue, j.c, CL_TRUE, 0, bytes, hc, 0, NULL, NULL);
            for (int smp = 0; smp < 64; smp++) { /* sampled check against the host */
                size_t bi = (size_t)smp * 7919 % j.batch, row = (size_t)smp * 31 % j.n,
                       col = (size_t)smp * 17 % j.n, base = bi * j.n * j.n;
                double s = 0, mag = 0;
                for (size_t p = 0; p < j.n; p++) {
                    double x = get(&j, ha, base + row * j.n + p),
                           y = get(&j, hb, base + p * j.n + col);
                    s += x * y;
                    mag += fabs(x * y);
                }
                double e = fabs(get(&j, hc, base + row * j.n + col) - s) / (mag > 0 ? mag : 1);
                if (!(e <= worst)) worst = e; /* NaN sticks */
            }
            printf("%-4c %7zu %6zu %-8s %12.1f %9.3f %10.2e\n", j.mode, j.batch, j.n,
                   lib ? "CLBlast" : "clgemm", med * 1e6, flops / med * 1e-12, worst);
            fflush(stdout);
        }
        clReleaseMemObject(j.a);
        clReleaseMemObject(j.b);
        clReleaseMemObject(j.c);
        free(ha);
        free(hb);
        free(hc);
    }
    clgemm_destroy(h);
    return 0;
}
