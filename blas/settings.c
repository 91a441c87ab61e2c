/* settings.c: libclgemm_blas's environment settings, its optional log and the per-route call
 * counters behind CLGEMM_BLAS_LOG's summary.
 *
 *   CLGEMM_BLAS_MIN_FLOPS  calls with fewer flops (2mnk, 8mnk for complex) go to the system
 *                          BLAS; default 1e8 (about 370^3); 0 sends every call to the device
 *   CLGEMM_BLAS_RULE       where calls at or above the threshold go: "measured" (default), the
 *                          side that has been faster for calls like it (rule.c); "flops", the
 *                          device always
 *   CLGEMM_BLAS_FALLBACK   the system BLAS to dlopen (default libblas.so.3, the Debian
 *                          alternative); "none": the built-in host loops instead
 *   CLGEMM_BLAS_LOG        1: a summary of where calls went, at exit; 2: also one line a call
 *                          (?gemm, ?syrk/?herk and the blocked Level-3 routines with their
 *                          seconds, and the seconds their copies to and from the device took)
 *   CLGEMM_BLAS_POOL_MB    bound of the reused device-buffer pool in MiB (default 1024)
 *   CLGEMM_BLAS_DEVICES    devices one call spreads over: 1 (default), N, or "all" (the
 *                          devices of clgemm_create_multi, CLGEMM_DEVICES included)
 *   CLGEMM_BLAS_BLOCK      the largest diagonal block ?trsm, ?trmm, ?symm, ?syr2k ... leave to
 *                          the system BLAS's own routine (default 256)
 *   CLGEMM_BLAS_LAPACK_NB  LAPACK's block size for its blocked routines while a device is
 *                          usable (2 ... 4096; 0: LAPACK's own; unset: 512 with a GPU, LAPACK's
 *                          own with a CPU device; lapack_block.c) */
#include "blas.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static blas_settings settings;
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;
static atomic_ulong counters[BLAS_TYPE_COUNT][BLAS_ROUTE_COUNT];

size_t clgemm__blas_elem(blas_type t) {
    static const size_t size[BLAS_TYPE_COUNT] = {4, 8, 8, 16};
    return size[t];
}

char clgemm__blas_letter(blas_type t) {
    return "sdcz"[t];
}

void clgemm__blas_log(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    /* One fprintf per line keeps lines of several threads whole. */
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "clgemm_blas: %s\n", line);
}

void clgemm__blas_log_routes(blas_type t, const char *routine,
                             atomic_ulong counts[BLAS_ROUTE_COUNT]) {
    static const char *names[BLAS_ROUTE_COUNT] = {"device", "system", "builtin", "trivial",
                                                  "error"};
    char line[256];
    int len = 0, any = 0;
    for (int r = 0; r < BLAS_ROUTE_COUNT; r++) {
        unsigned long n = atomic_load(&counts[r]);
        any |= n != 0;
        len += snprintf(line + len, sizeof line - (size_t)len, " %s=%lu", names[r], n);
    }
    if (any) clgemm__blas_log("%c%s calls:%s", clgemm__blas_letter(t), routine, line);
}

/* (read_settings calls it directly: the settings are not read yet) */
static void register_summary(int log, void (*summary)(void), void (*reset)(void)) {
    if (log < 1) return;
    atexit(summary);
    pthread_atfork(NULL, NULL, reset);
}

void clgemm__blas_summary_at_exit(void (*summary)(void), void (*reset)(void)) {
    register_summary(clgemm__blas_settings()->log, summary, reset);
}

static void summary(void) {
    for (int t = 0; t < BLAS_TYPE_COUNT; t++)
        clgemm__blas_log_routes((blas_type)t, "gemm", counters[t]);
}

static void counts_reset(void) {
    for (int t = 0; t < BLAS_TYPE_COUNT; t++)
        for (int r = 0; r < BLAS_ROUTE_COUNT; r++)
            atomic_store(&counters[t][r], 0);
}

double clgemm__blas_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double env_double(const char *name, double fallback, double min) {
    const char *s = getenv(name);
    if (!s || !*s) return fallback;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v >= min)) {
        /* Said only where logging was asked for: the drop-in runs inside others' programs,
         * whose output it must not add to. */
        if (settings.log >= 1)
            clgemm__blas_log("ignoring %s=%s (not a number >= %g)", name, s, min);
        return fallback;
    }
    return v;
}

static void read_settings(void) {
    const char *log = getenv("CLGEMM_BLAS_LOG");
    settings.log = log && *log ? atoi(log) : 0;
    settings.min_flops = env_double("CLGEMM_BLAS_MIN_FLOPS", 1e8, 0);
    const char *rule = getenv("CLGEMM_BLAS_RULE");
    settings.measured = !(rule && strcmp(rule, "flops") == 0) && settings.min_flops > 0;
    if (settings.log >= 1 && rule && *rule && strcmp(rule, "flops") != 0 &&
        strcmp(rule, "measured") != 0)
        clgemm__blas_log("ignoring CLGEMM_BLAS_RULE=%s (flops or measured)", rule);
    double mb = env_double("CLGEMM_BLAS_POOL_MB", 1024, 1);
    if (mb > 1e9) mb = 1e9; /* a petabyte is no bound, and keeps the product below */
    settings.pool_bytes = (size_t)(mb * 1024 * 1024);
    const char *devices = getenv("CLGEMM_BLAS_DEVICES");
    settings.devices = 1;
    if (devices && strcmp(devices, "all") == 0)
        settings.devices = 0;
    else if (devices && *devices) {
        double d = env_double("CLGEMM_BLAS_DEVICES", 1, 1);
        settings.devices = d > 64 ? 64 : (int)d;
    }
    /* Clamped before the conversion: a double beyond int (1e10, inf) converted to int is
     * undefined, and x86 gives INT_MIN, a block no dimension is within, so the recursion never
     * reached a diagonal block and overflowed the stack. Any block of INT_MAX leaves every call
     * whole to the system BLAS, which is what so large a setting asks for. */
    double block = env_double("CLGEMM_BLAS_BLOCK", 256, 1);
    settings.block = block >= INT_MAX ? INT_MAX : (int)block;
    /* 0 is a setting (off), 1 is not (ignored like any bad value): -1 stands for unset. */
    double nb = env_double("CLGEMM_BLAS_LAPACK_NB", -1, 0);
    if (nb > 0 && nb < 2) {
        if (settings.log >= 1)
            clgemm__blas_log("ignoring CLGEMM_BLAS_LAPACK_NB=%g (0, or 2 ... 4096)", nb);
        nb = -1;
    }
    settings.lapack_nb = nb > 4096 ? 4096 : (int)nb;
    const char *fb = getenv("CLGEMM_BLAS_FALLBACK");
    if (!fb || !*fb) fb = "libblas.so.3";
    settings.fallback = strcmp(fb, "none") == 0 ? NULL : fb;
    register_summary(settings.log, summary, counts_reset);
}

const blas_settings *clgemm__blas_settings(void) {
    pthread_once(&settings_once, read_settings);
    return &settings;
}

void clgemm__blas_count(blas_type t, blas_route r) {
    atomic_fetch_add(&counters[t][r], 1);
}
