/* leak.c: creates and destroys a handle and runs calls on it ITERATIONS times (default 1000):
 * sgemm and dgemm on buffers (with and without an output event), the host-array API, the scale
 * path (k == 0), split K (its workspace), the empty path (m == 0, a marker event), a rejected call,
 * configuration get/set/check, the build log, a tuning database load, and (every 100th time) a
 * kernel that fails to build. Every result is checked against a host reference. Leaks are judged by
 * LeakSanitizer in the sanitizer build (tests/reliability/sanitize.sh, with lsan.supp for
 * third-party leaks only) or by valgrind; in a plain build this program checks what it can
 * itself: the user's queue and context end with the reference counts they started with, and the
 * resident set stops growing after a warm-up.
 *
 * Usage: leak [ITERATIONS]   (exit 0: every result right, no growth seen)
 * REL_LEAK_CANARY=1: also leak one handle on purpose, so that sanitize.sh can check that a leak
 * from clgemm is reported (lsan_check.py --expect-clgemm-leak). */
#include "rel_common.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define REL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REL_ASAN 1
#endif
#endif

static long rss_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static cl_uint refcount_queue(cl_command_queue q) {
    cl_uint n = 0;
    clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL);
    return n;
}

static cl_uint refcount_context(cl_context c) {
    cl_uint n = 0;
    clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL);
    return n;
}

static int failures;
static char first_failure[512];

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    if (failures++) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(first_failure, sizeof first_failure, fmt, ap);
    va_end(ap);
}

static void check_run(clgemm_handle h, const rel_problem *p, uint64_t seed) {
    char msg[512];
    if (rel_run(h, p, seed, msg, sizeof msg) != 0) fail("%s", msg);
}

/* A copy of the kernels' folder (every kernel source of $REL_KERNEL_SRC) with a syntax error in
 * tiled.cl, for the build-failure path. */
static int make_broken_dir(char *dir, size_t size) {
    const char *src = getenv("REL_KERNEL_SRC");
    DIR *d = src ? opendir(src) : NULL;
    if (!d) return 0;
    snprintf(dir, size, "/tmp/clgemm-leak-XXXXXX");
    int ok = mkdtemp(dir) != NULL;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (!rel_is_kernel_file(e->d_name)) continue;
        char in[512], out[512], line[1024];
        snprintf(in, sizeof in, "%s/%s", src, e->d_name);
        snprintf(out, sizeof out, "%s/%s", dir, e->d_name);
        FILE *fi = fopen(in, "r"), *fo = fopen(out, "w");
        ok = fi && fo;
        while (ok && fgets(line, sizeof line, fi))
            fputs(line, fo);
        if (ok && strcmp(e->d_name, "tiled.cl") == 0) fputs("\nthis is not OpenCL C\n", fo);
        if (fi) fclose(fi);
        if (fo) fclose(fo);
    }
    closedir(d);
    return ok;
}

static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            char path[512];
            if (e->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

static void iteration(int i, cl_command_queue queue, const char *db, const char *broken_dir,
                      bool fp64) {
    static const clgemm_config configs[] = {
        {.family = CLGEMM_FAMILY_TILED, .ts = 4},
        {.family = CLGEMM_FAMILY_NAIVE, .mdimc = 2, .ndimc = 4},
        {.family = CLGEMM_FAMILY_AUTO},
    };
    clgemm_handle h;
    /* Most handles on the user's queue; every 10th owns a context and queue of its own. */
    clgemm_status st = i % 10 == 0 ? clgemm_create_default(&h) : clgemm_create(&h, queue);
    if (st != CLGEMM_SUCCESS) {
        fail("create: %s (%d)", clgemm_status_string(st), st);
        return;
    }
    const clgemm_config *cfg = &configs[i % 3];
    if ((st = clgemm_set_config(h, CLGEMM_SINGLE, cfg)) != CLGEMM_SUCCESS ||
        (fp64 && (st = clgemm_set_config(h, CLGEMM_DOUBLE, cfg)) != CLGEMM_SUCCESS) ||
        (st = clgemm_load_tuning(h, db)) != CLGEMM_SUCCESS)
        fail("config/tuning: %s (%d)", clgemm_status_string(st), st);
    clgemm_config got;
    const char *source;
    if (clgemm_get_config(h, CLGEMM_SINGLE, 40, 40, 40, &got, &source) != CLGEMM_SUCCESS ||
        clgemm_check_config(h, CLGEMM_SINGLE, &configs[0]) != CLGEMM_SUCCESS)
        fail("get/check config");

    rel_problem p = {.prec = CLGEMM_SINGLE,
                     .layout = i % 2 ? CLGEMM_ROW_MAJOR : CLGEMM_COL_MAJOR,
                     .ta = (i / 2) % 2 ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                     .tb = (i / 4) % 2 ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                     .m = 5,
                     .n = 3,
                     .k = 4,
                     .alpha = 1.0,
                     .beta = 0.5,
                     .off_c = 1};
    check_run(h, &p, (uint64_t)i);
    if (fp64) {
        p.prec = CLGEMM_DOUBLE;
        check_run(h, &p, (uint64_t)i + 1);
        p.prec = CLGEMM_SINGLE;
    }
    p.k = 0; /* the scale kernel */
    check_run(h, &p, (uint64_t)i + 2);
    if (i % 3 == 2) {
        /* Split K (regblock, the default here): the handle's workspace and its event. */
        /* A handle reads CLGEMM_KSPLIT when it is made. */
        setenv("CLGEMM_KSPLIT", "2", 1);
        clgemm_handle split;
        if (clgemm_create(&split, queue) == CLGEMM_SUCCESS) {
            p.k = 9;
            check_run(split, &p, (uint64_t)i + 5);
            clgemm_destroy(split);
        } else {
            fail("create with CLGEMM_KSPLIT");
        }
        unsetenv("CLGEMM_KSPLIT");
    }

    /* With an output event, and the empty problem's marker event. */
    rel_data d;
    p.k = 4;
    if (rel_make(&d, &p, (uint64_t)i + 3)) {
        cl_mem mem[3];
        if (rel_upload(clgemm_context(h), &d, mem) == CL_SUCCESS) {
            cl_event ev = NULL, ev0 = NULL;
            st = rel_gemm(h, &d.p, mem[0], mem[1], mem[2], NULL, &ev);
            if (st != CLGEMM_SUCCESS || !ev || clWaitForEvents(1, &ev) != CL_SUCCESS)
                fail("call with event: %s (%d)", clgemm_status_string(st), st);
            rel_problem empty = d.p;
            empty.m = 0;
            st = rel_gemm(h, &empty, mem[0], mem[1], mem[2], NULL, &ev0);
            if (st != CLGEMM_SUCCESS || !ev0 || clWaitForEvents(1, &ev0) != CL_SUCCESS)
                fail("m == 0 with event: %s (%d)", clgemm_status_string(st), st);
            if (ev) clReleaseEvent(ev);
            if (ev0) clReleaseEvent(ev0);
            /* A rejected call (ldc too small). */
            rel_problem bad = d.p;
            bad.ldc = 1;
            if (rel_gemm(h, &bad, mem[0], mem[1], mem[2], NULL, NULL) != CLGEMM_ERR_INVALID_LD_C)
                fail("rejected call: wrong status");
            rel_release(mem);
        } else {
            fail("upload");
        }
        rel_free(&d);
    }

    /* The host-array API. */
    float a[20], b[12], c[15];
    for (int j = 0; j < 20; j++)
        a[j] = (float)(j % 5) - 2.0f;
    for (int j = 0; j < 12; j++)
        b[j] = (float)(j % 3) * 0.5f;
    for (int j = 0; j < 15; j++)
        c[j] = 1.0f;
    st = clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 5, 3, 4, 1.0f, a,
                           5, b, 4, 2.0f, c, 5);
    /* C(0, 0) = sum_p a(0, p) b(p, 0) + 2 = a[0]b[0] + a[5]b[1] + a[10]b[2] + a[15]b[3] + 2 */
    float want = a[0] * b[0] + a[5] * b[1] + a[10] * b[2] + a[15] * b[3] + 2.0f;
    if (st != CLGEMM_SUCCESS || c[0] != want)
        fail("host API: %s (%d)", clgemm_status_string(st), st);

    if (broken_dir && i % 100 == 50) {
        /* A failed build (its log kept and freed), then valid kernels again. */
        clgemm_config tiled = {.family = CLGEMM_FAMILY_TILED, .ts = 2};
        clgemm_set_config(h, CLGEMM_SINGLE, &tiled);
        setenv("CLGEMM_KERNEL_DIR", broken_dir, 1);
        st = clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 5, 3, 4, 1.0f,
                               a, 5, b, 4, 2.0f, c, 5);
        unsetenv("CLGEMM_KERNEL_DIR");
        if (st != CLGEMM_ERR_BUILD_FAILED || clgemm_build_log(h, NULL, 0) == 0)
            fail("broken kernels: %s (%d)", clgemm_status_string(st), st);
    }
    char log[16];
    (void)clgemm_build_log(h, log, sizeof log);
    clgemm_destroy(h);
}

int main(int argc, char **argv) {
    int iterations = argc > 1 ? atoi(argv[1]) : 1000;
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) {
        printf("no OpenCL device (%d): skipped\n", err);
        return 77;
    }
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = err == CL_SUCCESS ? clCreateCommandQueue(ctx, device, 0, &err) : NULL;
    if (err != CL_SUCCESS) {
        printf("FAIL context/queue: %d\n", err);
        return 1;
    }
    char ext[4096] = "";
    clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    ext[sizeof ext - 1] = 0;
    bool fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    cl_uint q0 = refcount_queue(queue), c0 = refcount_context(ctx);

    /* A tuning database with one entry for this device, read by every handle. */
    char db[] = "/tmp/clgemm-leak-db-XXXXXX.json";
    int fd = mkstemps(db, 5);
    if (fd < 0) {
        printf("FAIL mkstemps\n");
        return 1;
    }
    close(fd);
    unlink(db);
    clgemm_handle h;
    if (clgemm_create(&h, queue) != CLGEMM_SUCCESS) {
        printf("FAIL clgemm_create\n");
        return 1;
    }
    clgemm_tune_result r = {.precision = CLGEMM_SINGLE,
                            .shape = {64, 64, 64},
                            .status = CLGEMM_SUCCESS,
                            .complete = 1,
                            .config = {.family = CLGEMM_FAMILY_TILED, .ts = 8},
                            .gflops = 1.0,
                            .seconds = 1.0};
    clgemm_status st = clgemm_tune_save(h, db, &r, 1);
    clgemm_destroy(h);
    if (st != CLGEMM_SUCCESS) {
        printf("FAIL clgemm_tune_save: %s\n", clgemm_status_string(st));
        return 1;
    }
    char broken[64];
    int have_broken = make_broken_dir(broken, sizeof broken);
    if (!have_broken) printf("REL_KERNEL_SRC not set: the build-failure path is not exercised\n");

    long rss_warm = 0;
    int warm = iterations / 10 > 20 ? iterations / 10 : 20;
    for (int i = 0; i < iterations; i++) {
        iteration(i, queue, db, have_broken ? broken : NULL, fp64);
        if (i + 1 == warm) rss_warm = rss_kib();
    }
    long rss_end = rss_kib();
    /* A command still retiring holds its queue until the driver's own thread lets go (PoCL,
     * under load, just after a blocking call returned): not a reference the handles kept, which
     * would never go. So finish the queue and give the counts up to two seconds to come back. */
    clFinish(queue);
    cl_uint q1 = refcount_queue(queue), c1 = refcount_context(ctx);
    for (int wait = 0; wait < 100 && (q1 != q0 || c1 != c0); wait++) {
        usleep(20000);
        q1 = refcount_queue(queue), c1 = refcount_context(ctx);
    }
    printf("%d iterations: %d failure(s)%s%s; queue references %u -> %u, context %u -> %u; "
           "resident %ld KiB after %d, %ld KiB at the end\n",
           iterations, failures, failures ? ", first: " : "", first_failure, q0, q1, c0, c1,
           rss_warm, warm, rss_end);
    if (q1 != q0 || c1 != c0) {
        printf("FAIL the handles kept references to the user's queue or context\n");
        failures++;
    }
#ifndef REL_ASAN
    /* A leak per iteration of even one small program or buffer (tens of KiB) shows here. */
    long growth = rss_end - rss_warm, limit = 8192 + 4L * (iterations - warm);
    if (iterations >= 100 && growth > limit) {
        printf("FAIL the resident set grew by %ld KiB over %d iterations (limit %ld KiB)\n", growth,
               iterations - warm, limit);
        failures++;
    }
#endif
    if (have_broken) remove_dir(broken);
    unlink(db);
    char lock[64];
    snprintf(lock, sizeof lock, "%s.lock", db);
    unlink(lock);
    const char *canary = getenv("REL_LEAK_CANARY");
    if (canary && strcmp(canary, "1") == 0) {
        static clgemm_handle leaked;
        if (clgemm_create(&leaked, queue) == CLGEMM_SUCCESS) leaked = NULL; /* lost on purpose */
        printf("REL_LEAK_CANARY: one handle leaked on purpose\n");
    }
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    return failures ? 1 : 0;
}
