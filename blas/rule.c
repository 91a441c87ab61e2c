/* rule.c: the measured size rule, which side a call at or above CLGEMM_BLAS_MIN_FLOPS runs on:
 * the device or the system BLAS, whichever has been faster for calls like it in this process.
 *
 * A flop threshold alone cannot say it. A device call moves its operands over the bus, so what
 * decides is how the multiply compares with the copies: a rank-64 update of a large C (what
 * LAPACK's blocked factorizations make) does 8 flops per byte moved and loses to a multi-core
 * host on a discrete GPU at any size, while a square product of the same flops wins. Calls are
 * therefore grouped by kind (GEMM, or ?syrk/?herk), type, size (flops, in factors of two) and
 * arithmetic intensity (flops per byte a device call copies, in factors of two), and each group
 * keeps the fewest seconds per flop seen on each side. A call goes to a side not yet tried (the
 * device first), then to the faster one; the slower side gets calls 8, 16, 32 ... of its group
 * again (the doubling keeps what these cost small), so a side whose first call was slow (the
 * device's first call opens it and builds its kernels) can win its calls back.
 *
 * CLGEMM_BLAS_RULE=flops, or CLGEMM_BLAS_MIN_FLOPS=0 (every call forced onto the device, as the
 * testers use it), turns the rule off: every call at or above the threshold goes to the device. */
#include "blas.h"

#include <math.h>
#include <pthread.h>

enum {
    SIZE_FIRST = 20, /* flops below 2^20 share the first size group (they are under 1e8 anyway) */
    SIZES = 40,
    INTENSITIES = 16,
    FIRST_RECHECK = 8
};

typedef struct group {
    double best[2]; /* seconds per flop: [0] the host, [1] the device; 0 until tried */
    unsigned calls;
    unsigned next_recheck;
} group;

static group groups[RULE_KIND_COUNT][BLAS_TYPE_COUNT][SIZES][INTENSITIES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* floor(log2(x)) within [0, count). */
static int bucket(double x, int first, int count) {
    int b = x >= 1 ? (int)floor(log2(x)) - first : 0;
    return b < 0 ? 0 : b >= count ? count - 1 : b;
}

double clgemm__blas_gemm_bytes(const blas_call *c) {
    int reads_c = !clgemm__blas_scalar_is(c->type, c->beta, 0);
    double mn = (double)c->m * c->n;
    return (double)clgemm__blas_elem(c->type) *
           ((double)c->m * c->k + (double)c->k * c->n + mn * (reads_c ? 2 : 1));
}

int clgemm__blas_rule_group(rule_kind kind, blas_type t, double flops, double bytes) {
    if (!clgemm__blas_settings()->measured) return -1;
    int size = bucket(flops, SIZE_FIRST, SIZES);
    int intensity = bucket(bytes > 0 ? flops / bytes : 0, 0, INTENSITIES);
    return (((int)kind * BLAS_TYPE_COUNT + (int)t) * SIZES + size) * INTENSITIES + intensity;
}

static group *at(int id) {
    return &(&groups[0][0][0][0])[id];
}

int clgemm__blas_rule_device(int id, const char **host_why) {
    if (id < 0) return 1;
    pthread_mutex_lock(&lock);
    group *g = at(id);
    int device;
    *host_why = "measured faster here";
    if (g->best[1] == 0)
        device = 1;
    else if (g->best[0] == 0)
        device = 0, *host_why = "measuring the host";
    else {
        device = g->best[1] < g->best[0];
        g->calls++;
        if (g->next_recheck == 0) g->next_recheck = FIRST_RECHECK;
        if (g->calls == g->next_recheck) {
            device = !device, *host_why = "measuring the host again";
            g->next_recheck *= 2;
        }
    }
    pthread_mutex_unlock(&lock);
    return device;
}

void clgemm__blas_rule_record(int id, int on_device, double flops, double seconds) {
    if (id < 0 || !(flops > 0) || !(seconds > 0)) return;
    double per_flop = seconds / flops;
    pthread_mutex_lock(&lock);
    double *best = &at(id)->best[on_device ? 1 : 0];
    if (*best == 0 || per_flop < *best) *best = per_flop;
    pthread_mutex_unlock(&lock);
}
