/* multiply.c: clgemm's main job in one program: multiply two random N x N matrices on the
 * default device with whatever configuration the library picks (the tuned one after
 * `clgemm-tune`), and print the configuration, the GFLOPS (median of warm whole calls) and the
 * largest error against CLBlast and against a double-precision host reference.
 * Usage: clgemm-multiply [N] (default 512). */
#include <clblast_c.h>
#include <clgemm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RUNS 10

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int fail(const char *what, int status) {
    fprintf(stderr, "clgemm-multiply: %s failed: %s (%d)\n", what, clgemm_status_string(status),
            status);
    return 1;
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 512;
    if (n == 0 || n > 16384) {
        fprintf(stderr, "usage: clgemm-multiply [N], 1 <= N <= 16384\n");
        return 2;
    }
    clgemm_handle h;
    clgemm_status st = clgemm_create_default(&h);
    if (st != CLGEMM_SUCCESS) return fail("creating a handle on the default device", st);
    char name[256] = "";
    clGetDeviceInfo(clgemm_device(h), CL_DEVICE_NAME, sizeof name, name, NULL);
    clgemm_config cfg;
    const char *source;
    clgemm_get_config(h, CLGEMM_SINGLE, n, n, n, &cfg, &source);
    printf("device: %s\nproblem: sgemm %zu x %zu x %zu, row-major\n", name, n, n, n);
    char kernel[256];
    clgemm_config_string(&cfg, kernel, sizeof kernel);
    printf("kernel: %s (%s)\n", kernel, source);

    size_t count = n * n, bytes = count * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *ref = malloc(bytes);
    if (!a || !b || !c || !ref)
        return fail("allocating host memory", CLGEMM_ERR_OUT_OF_HOST_MEMORY);
    srand(1);
    for (size_t i = 0; i < count; i++) {
        a[i] = 2.0f * rand() / RAND_MAX - 1.0f;
        b[i] = 2.0f * rand() / RAND_MAX - 1.0f;
    }
    cl_context ctx = clgemm_context(h);
    cl_command_queue q = clgemm_queue(h);
    cl_int err;
    cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a, &err);
    cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b, &err);
    cl_mem dc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) return fail("allocating device memory", err);

    double times[RUNS];
    for (int r = -2; r < RUNS; r++) { /* two warm-up calls: the first one builds the kernel */
        double t0 = now();
        st = clgemm_sgemm(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, n, n, n, 1.0f, da,
                          0, n, db, 0, n, 0.0f, dc, 0, n, NULL, 0, NULL, NULL);
        if (st == CLGEMM_SUCCESS) st = clFinish(q);
        if (st != CLGEMM_SUCCESS) return fail("clgemm_sgemm", st);
        if (r >= 0) times[r] = now() - t0;
    }
    qsort(times, RUNS, sizeof times[0], compare_doubles);
    double median = (times[RUNS / 2 - 1] + times[RUNS / 2]) / 2;
    printf("clgemm: %.3f ms, %.1f GFLOPS (median of %d warm calls)\n", median * 1e3,
           2.0 * n * n * n / median * 1e-9, RUNS);
    clEnqueueReadBuffer(q, dc, CL_TRUE, 0, bytes, c, 0, NULL, NULL);

    /* CLBlast on the same inputs, into a C cleared first (so a silent failure shows). */
    const float nan_pattern = NAN;
    clEnqueueFillBuffer(q, dc, &nan_pattern, sizeof nan_pattern, 0, bytes, 0, NULL, NULL);
    cl_event ev = NULL;
    CLBlastStatusCode cs =
        CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0f,
                     da, 0, n, db, 0, n, 0.0f, dc, 0, n, &q, &ev);
    if (cs == CLBlastSuccess) {
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
        clEnqueueReadBuffer(q, dc, CL_TRUE, 0, bytes, ref, 0, NULL, NULL);
        double max_diff = 0;
        for (size_t i = 0; i < count; i++) {
            double d = fabs(c[i] - ref[i]);
            if (!(d <= max_diff)) max_diff = d; /* NaN wins */
        }
        printf("max |clgemm - CLBlast|: %.3g\n", max_diff);
    } else {
        printf("CLBlast: error %d\n", (int)cs);
    }

    /* Double-precision reference on a sample of rows (all of them up to N = 1024). */
    size_t step = n <= 1024 ? 1 : n / 256;
    double max_err = 0;
    size_t bad = 0;
    for (size_t i = 0; i < n; i += step) {
        for (size_t j = 0; j < n; j++) {
            double s = 0, mag = 0;
            for (size_t p = 0; p < n; p++) {
                s += (double)a[i * n + p] * b[p * n + j];
                mag += fabs((double)a[i * n + p] * b[p * n + j]);
            }
            double e = fabs(c[i * n + j] - s);
            max_err = fmax(max_err, e);
            bad += !(e <= (n + 2) * 0x1p-24 * mag); /* rounding bound of a length-n dot product */
        }
    }
    printf("max |clgemm - double reference|: %.3g, %zu elements above the rounding bound: %s\n",
           max_err, bad, bad == 0 ? "ok" : "WRONG");

    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    free(a);
    free(b);
    free(c);
    free(ref);
    clgemm_destroy(h);
    return bad == 0 ? 0 : 1;
}
