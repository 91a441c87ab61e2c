/* overhead.c: clgemm-overhead, the host cost of one warm call (issue 8: the warm call path; issue
 * 10 item 4: beside CLBlast's). For each size N given (default 32 and 128): warms up, then times
 * `calls` column-major SGEMM calls on device buffers, each on its own, and reports the median and
 * the mean in microseconds of the call alone (enqueue, without waiting; clFinish every 64 calls
 * outside the clock) and of call + clFinish; the same for CLBlastSgemm on the same buffers when
 * built with CLBlast (--no-clblast: clgemm only).
 * Usage: clgemm-overhead [--calls N] [--no-clblast] [SIZE ...] */
#include <clgemm.h>

#include "core/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_CLBLAST
#include <clblast_c.h>
#endif

typedef struct problem {
    clgemm_handle h;
    cl_command_queue queue;
    size_t n;
    cl_mem a, b, c;
} problem;

/* One call of library lib (0 clgemm, 1 CLBlast), not waited for; 0 on success. */
static int call(const problem *p, int lib) {
    size_t n = p->n;
    if (lib == 0)
        return clgemm_sgemm(p->h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, n, n, n, 1.0f,
                            p->a, 0, n, p->b, 0, n, 0.0f, p->c, 0, n, NULL, 0, NULL, NULL);
#ifdef HAVE_CLBLAST
    cl_command_queue q = p->queue;
    return CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n,
                        1.0f, p->a, 0, n, p->b, 0, n, 0.0f, p->c, 0, n, &q, NULL);
#else
    return -1;
#endif
}

/* Median and mean of t[0..count) in microseconds (sorts t). */
static void summary(double *t, int count, double *median, double *mean) {
    double sum = 0;
    for (int i = 0; i < count; i++)
        sum += t[i];
    qsort(t, (size_t)count, sizeof *t, clgemm_compare_doubles);
    *median = t[count / 2] * 1e6;
    *mean = sum / count * 1e6;
}

static int measure(const problem *p, int lib, int calls, double *t) {
    for (int i = 0; i < 20; i++)
        if (call(p, lib) != 0) return 1;
    clFinish(p->queue);
    double call_med, call_mean, whole_med, whole_mean;
    for (int i = 0; i < calls; i++) {
        double t0 = clgemm_now_seconds();
        call(p, lib);
        t[i] = clgemm_now_seconds() - t0;
        if (i % 64 == 63) clFinish(p->queue);
    }
    clFinish(p->queue);
    summary(t, calls, &call_med, &call_mean);
    for (int i = 0; i < calls; i++) {
        double t0 = clgemm_now_seconds();
        call(p, lib);
        clFinish(p->queue);
        t[i] = clgemm_now_seconds() - t0;
    }
    summary(t, calls, &whole_med, &whole_mean);
    printf("sgemm %4zu^3 %-7s: call median %7.2f us (mean %7.2f), call + clFinish median %8.2f us "
           "(mean %8.2f); %d warm calls\n",
           p->n, lib ? "CLBlast" : "clgemm", call_med, call_mean, whole_med, whole_mean, calls);
    return 0;
}

static int measure_size(clgemm_handle h, size_t n, int calls, int clblast) {
    cl_context ctx = clgemm_context(h);
    cl_int err;
    size_t bytes = n * n * sizeof(float);
    float *zero = calloc(n * n, sizeof(float));
    double *t = malloc((size_t)calls * sizeof *t);
    problem p = {h, clgemm_queue(h), n, NULL, NULL, NULL};
    p.a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zero, &err);
    p.b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zero, &err);
    p.c = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zero, &err);
    free(zero);
    int status = measure(&p, 0, calls, t);
#ifdef HAVE_CLBLAST
    if (clblast && measure(&p, 1, calls, t) != 0) printf("sgemm %4zu^3 CLBlast: failed\n", n);
#else
    (void)clblast;
#endif
    free(t);
    clReleaseMemObject(p.a);
    clReleaseMemObject(p.b);
    clReleaseMemObject(p.c);
    return status;
}

int main(int argc, char **argv) {
    int calls = 2000, status = 0, sizes = 0, clblast = 1;
    clgemm_handle h;
    clgemm_status st = clgemm_create_default(&h);
    if (st != CLGEMM_SUCCESS) {
        fprintf(stderr, "clgemm-overhead: %s\n", clgemm_status_string(st));
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc) {
            calls = atoi(argv[++i]);
            if (calls < 1 || calls > 10000000) calls = 2000;
            continue;
        }
        if (strcmp(argv[i], "--no-clblast") == 0) {
            clblast = 0;
            continue;
        }
        long n = atol(argv[i]);
        if (n < 1 || n > 16384) {
            fprintf(stderr, "clgemm-overhead: size %s out of 1..16384\n", argv[i]);
            return 2;
        }
        status |= measure_size(h, (size_t)n, calls, clblast);
        sizes++;
    }
    if (!sizes) status = measure_size(h, 32, calls, clblast) | measure_size(h, 128, calls, clblast);
    clgemm_destroy(h);
    return status;
}
