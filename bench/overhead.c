/* overhead.c: clgemm-overhead, the host cost of one warm call (issue 8: the warm call path).
 * For each size N given (default 32 and 128): warms up, then times `calls` clgemm_sgemm calls
 * on device buffers, reporting the mean wall time of the call alone (enqueue, without waiting;
 * clFinish every 64 calls outside the clock) and of call + clFinish, in microseconds.
 * Usage: clgemm-overhead [--calls N] [SIZE ...] */
#include <clgemm.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int measure(clgemm_handle h, size_t n, int calls) {
    cl_context ctx = clgemm_context(h);
    cl_command_queue q = clgemm_queue(h);
    cl_int err;
    size_t bytes = n * n * sizeof(float);
    float *zero = calloc(n * n, sizeof(float));
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zero, &err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zero, &err);
    cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zero, &err);
    free(zero);
#define CALL                                                                                       \
    clgemm_sgemm(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, n, n, n, 1.0f, a, 0, n, b, \
                 0, n, 0.0f, c, 0, n, NULL, 0, NULL, NULL)
    for (int i = 0; i < 20; i++)
        if (CALL != CLGEMM_SUCCESS) return 1;
    clFinish(q);
    double enqueue = 0;
    for (int i = 0; i < calls; i++) {
        double t0 = now();
        CALL;
        enqueue += now() - t0;
        if (i % 64 == 63) clFinish(q);
    }
    clFinish(q);
    double t0 = now();
    for (int i = 0; i < calls; i++) {
        CALL;
        clFinish(q);
    }
    double whole = now() - t0;
    printf("sgemm %4zu^3: call %8.2f us, call + clFinish %8.2f us (mean of %d warm calls)\n", n,
           enqueue / calls * 1e6, whole / calls * 1e6, calls);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    return 0;
}

int main(int argc, char **argv) {
    int calls = 2000, status = 0, sizes = 0;
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
        long n = atol(argv[i]);
        if (n < 1 || n > 16384) {
            fprintf(stderr, "clgemm-overhead: size %s out of 1..16384\n", argv[i]);
            return 2;
        }
        status |= measure(h, (size_t)n, calls);
        sizes++;
    }
    if (!sizes) status = measure(h, 32, calls) | measure(h, 128, calls);
    clgemm_destroy(h);
    return status;
}
