/* multiply.c: clgemm's main job in one program: multiply two random N x N matrices on the
 * default device with whatever configuration the library picks (the tuned one after
 * `clgemm-tune --shape N`), and print the configuration, the GFLOPS (median of warm whole
 * calls) and the largest error against CLBlast and against a double-precision host reference.
 * When a tuned entry was used, it and the built-in default are timed in alternation and the
 * gain is the median ratio of adjacent timings ("the same kernel" when the tuner chose the
 * default's configuration).
 * Usage: clgemm-multiply [N] (default 512). */
#include <clgemm.h> /* first: it sets the OpenCL version CLBlast's header would warn about */

#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* Median seconds of RUNS warm row-major N x N x N calls (after two warm-up calls: the first
 * builds the kernel). */
static clgemm_status time_sgemm(clgemm_handle h, size_t n, cl_mem da, cl_mem db, cl_mem dc,
                                double *median) {
    double times[RUNS];
    for (int r = -2; r < RUNS; r++) {
        double t0 = now();
        clgemm_status st =
            clgemm_sgemm(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, n, n, n, 1.0f, da,
                         0, n, db, 0, n, 0.0f, dc, 0, n, NULL, 0, NULL, NULL);
        if (st == CLGEMM_SUCCESS) st = clFinish(clgemm_queue(h));
        if (st != CLGEMM_SUCCESS) return st;
        if (r >= 0) times[r] = now() - t0;
    }
    qsort(times, RUNS, sizeof times[0], compare_doubles);
    *median = (times[RUNS / 2 - 1] + times[RUNS / 2]) / 2;
    return CLGEMM_SUCCESS;
}

/* A handle on the same queue that sees no tuning database (an empty folder's missing file: the
 * variable is read when a handle is made), so it runs the built-in default. */
static clgemm_status default_handle(cl_command_queue q, clgemm_handle *d) {
    char dir[] = "/tmp/clgemm-multiply-XXXXXX", path[64];
    if (!mkdtemp(dir)) return CLGEMM_ERR_DB_IO;
    snprintf(path, sizeof path, "%s/none.json", dir);
    const char *was = getenv("CLGEMM_TUNING_DB");
    char *saved = was ? strdup(was) : NULL;
    setenv("CLGEMM_TUNING_DB", path, 1);
    clgemm_status st = clgemm_create(d, q);
    if (saved)
        setenv("CLGEMM_TUNING_DB", saved, 1);
    else
        unsetenv("CLGEMM_TUNING_DB");
    free(saved);
    rmdir(dir);
    return st;
}

/* Rounds of the tuned-against-default comparison: each round times both (RUNS warm calls each,
 * median), in alternating order, so that the two timings of a round are minutes apart at most
 * and the machine's swings (2x between minutes on a loaded host) cancel in their ratio. */
#define ROUNDS 5

/* With a tuned entry: the built-in default on the same data, and the tuned entry's gain as the
 * median of the ratios of adjacent timings. When the tuner chose the default's configuration,
 * both are the same kernel and no gain is claimed. */
static int compare_default(clgemm_handle h, size_t n, cl_mem da, cl_mem db, cl_mem dc,
                           const clgemm_config *tuned_cfg) {
    clgemm_handle d;
    clgemm_status st = default_handle(clgemm_queue(h), &d);
    if (st != CLGEMM_SUCCESS) return fail("creating a handle without the tuning database", st);
    clgemm_config cfg;
    char kernel[256];
    st = clgemm_get_config(d, CLGEMM_SINGLE, n, n, n, &cfg, NULL);
    if (st != CLGEMM_SUCCESS) {
        clgemm_destroy(d);
        return fail("reading the built-in default", st);
    }
    clgemm_config_string(&cfg, kernel, sizeof kernel);
    if (memcmp(&cfg, tuned_cfg, sizeof cfg) == 0) {
        clgemm_destroy(d);
        printf("built-in default: %s: the same kernel as the tuned entry (the tuner found the "
               "default's configuration best), so there is no gain to measure\n",
               kernel);
        return 0;
    }
    double ratio[ROUNDS], tuned_s[ROUNDS], default_s[ROUNDS];
    for (int r = 0; r < ROUNDS && st == CLGEMM_SUCCESS; r++) {
        clgemm_handle first = r % 2 ? d : h, second = r % 2 ? h : d;
        double t_first, t_second;
        st = time_sgemm(first, n, da, db, dc, &t_first);
        if (st == CLGEMM_SUCCESS) st = time_sgemm(second, n, da, db, dc, &t_second);
        tuned_s[r] = r % 2 ? t_second : t_first;
        default_s[r] = r % 2 ? t_first : t_second;
        ratio[r] = default_s[r] / tuned_s[r];
    }
    clgemm_destroy(d);
    if (st != CLGEMM_SUCCESS)
        return fail("timing the tuned entry against the built-in default", st);
    double flops = 2.0 * n * n * n;
    qsort(ratio, ROUNDS, sizeof ratio[0], compare_doubles);
    qsort(tuned_s, ROUNDS, sizeof tuned_s[0], compare_doubles);
    qsort(default_s, ROUNDS, sizeof default_s[0], compare_doubles);
    printf("built-in default: %s, %.1f GFLOPS (median of %d rounds)\n", kernel,
           flops / default_s[ROUNDS / 2] * 1e-9, ROUNDS);
    printf("the tuned entry was used: %.1f GFLOPS, x%.2f the built-in default (median ratio of "
           "%d adjacent tuned/default timings in alternating order, from x%.2f to x%.2f)\n",
           flops / tuned_s[ROUNDS / 2] * 1e-9, ratio[ROUNDS / 2], ROUNDS, ratio[0],
           ratio[ROUNDS - 1]);
    return 0;
}

int main(int argc, char **argv) {
    char *end = "";
    size_t n = argc > 1 ? strtoul(argv[1], &end, 10) : 512;
    if (argc > 2 || *end || n == 0 || n > 16384 || (argc > 1 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: clgemm-multiply [N]: N an integer from 1 to 16384, not '%s'\n",
                argc > 2 ? argv[2] : argv[1]);
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

    double median;
    st = time_sgemm(h, n, da, db, dc, &median);
    if (st != CLGEMM_SUCCESS) return fail("clgemm_sgemm", st);
    printf("clgemm: %.3f ms, %.1f GFLOPS (median of %d warm calls)\n", median * 1e3,
           2.0 * n * n * n / median * 1e-9, RUNS);
    clEnqueueReadBuffer(q, dc, CL_TRUE, 0, bytes, c, 0, NULL, NULL);
    if (strcmp(source, "tuned") == 0) {
        if (compare_default(h, n, da, db, dc, &cfg) != 0) return 1;
    } else {
        printf("no tuned entry for %zu x %zu x %zu on this device (clgemm-tune --shape %zu "
               "makes one)\n",
               n, n, n, n);
    }

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
