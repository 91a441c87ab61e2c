/* rule.c: the measured size rule, which side a call at or above CLGEMM_BLAS_MIN_FLOPS runs on:
 * the device or the system BLAS, whichever has been faster for calls like it in this process.
 *
 * A flop threshold alone cannot say it. A device call moves its operands over the bus, so what
 * decides is how the multiply compares with the copies: a rank-64 update of a large C (what
 * LAPACK's blocked factorizations make) does 8 flops per byte moved and loses to a multi-core
 * host on a discrete GPU at any size, while a square product of the same flops wins. Calls are
 * therefore grouped by kind (GEMM, or ?syrk/?herk), type, shape class, size (flops, in factors
 * of two) and arithmetic intensity (flops per byte a device call copies, in factors of two), and
 * each group keeps the fewest seconds per flop seen on each side. The shape class is the pair of
 * transposes and which of m, n, k is smallest (a ?syrk is the GEMM of A and its transpose):
 * on PoCL the device ran dgeqrf's TN m x 32 x m products 8-14 times as long as OpenBLAS and
 * dgetrf's NN m x m x 64 updates, of the same flops and intensity, 2-3 times. A group's first
 * call goes to the device, its next to the host, and later ones to the faster side, but for
 * calls 8, 64, 512 ... of the group, which go to the slower side, so that a side whose first
 * call was slow (a kernel built on first use) can win its calls back; each of these costs what
 * the slower side loses, so they grow eightfold apart (at every second power of two, they took
 * a third of the time a dgetrf of 3072 spent in ?gemm on PoCL against OpenBLAS), and 64-fold
 * where the slower side took more than LARGE_LOSS times as long at its best (calls 8, 512,
 * 32768 ...). Where the nearest group in size of about the same intensity (of the same class
 * first) found the host at least twice as fast, a new group starts on the host and tries the
 * device at the call that would have been that group's next recheck (64, or 512; 512 where it
 * is of another class, whose loss says that the host wins, not by how much): on a discrete
 * GPU every size of a copy-bound update (and dpotrf's, whose depth grows with each block column,
 * spread over many groups) would otherwise pay for a slow device call first. The copies make
 * such calls lose whatever their shape, and where larger calls lose on the device, smaller
 * ones, which gain less there, lose too (dgetrf and dgeqrf go from their largest updates down).
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
    SHAPES = 12, /* clgemm__blas_rule_shape: 4 pairs of transposes x 3 smallest dimensions */
    FIRST_RECHECK = 8,
    RECHECK_GROWTH = 8,
    LARGE_LOSS = 4
};

typedef struct group {
    double best[2]; /* seconds per flop: [0] the host, [1] the device; 0 until tried */
    unsigned calls;
    unsigned next_recheck;
    int host_first; /* calls near these were at least twice as fast on the host */
} group;

static group groups[RULE_KIND_COUNT][BLAS_TYPE_COUNT][SHAPES][SIZES][INTENSITIES];
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

int clgemm__blas_rule_shape(char ta, char tb, int m, int n, int k) {
    int smallest = k <= m && k <= n ? 0 : m <= n ? 1 : 2;
    return ((ta != 'N') * 2 + (tb != 'N')) * 3 + smallest;
}

int clgemm__blas_rule_group(rule_kind kind, blas_type t, int shape, double flops, double bytes) {
    if (!clgemm__blas_settings()->measured) return -1;
    int size = bucket(flops, SIZE_FIRST, SIZES);
    int intensity = bucket(bytes > 0 ? flops / bytes : 0, 0, INTENSITIES);
    int kind_type_shape = ((int)kind * BLAS_TYPE_COUNT + (int)t) * SHAPES + shape;
    return (kind_type_shape * SIZES + size) * INTENSITIES + intensity;
}

static group *at(int id) {
    return &(&groups[0][0][0][0][0])[id];
}

/* Whether the slower side of a group that has tried both took more than LARGE_LOSS times as
 * long a flop as the faster one, at their best. */
static int lost_by_far(const group *g) {
    double slow = fmax(g->best[0], g->best[1]), fast = fmin(g->best[0], g->best[1]);
    return fast > 0 && slow > LARGE_LOSS * fast;
}

/* The factor by which the calls between two rechecks of a group grow: what a recheck costs is
 * what the slower side loses, so they are eight times as far apart again where it lost by
 * more than LARGE_LOSS. */
static unsigned recheck_growth(const group *g) {
    return lost_by_far(g) ? RECHECK_GROWTH * RECHECK_GROWTH : RECHECK_GROWTH;
}

/* The nearest group in size (the smaller first) of the same kind and type and of about the same
 * intensity (one factor of two either way), of its shape class first, that has tried both
 * sides, and whether it is of the same class; NULL if none has. */
static const group *tried_near(int id, int *same_class) {
    int intensity = id % INTENSITIES, size = id / INTENSITIES % SIZES;
    int shape = id / (INTENSITIES * SIZES) % SHAPES;
    int base = id - intensity - size * INTENSITIES - shape * SIZES * INTENSITIES;
    static const int around[3] = {0, -1, 1};
    for (int d = 0; d < SIZES; d++)
        for (int s = size - d; s <= size + d; s += d > 0 ? 2 * d : 1)
            for (int c = 0; c < SHAPES; c++)
                for (int a = 0; a < 3; a++) {
                    int i = intensity + around[a], sh = (shape + c) % SHAPES;
                    if ((d == 0 && a == 0 && c == 0) || s < 0 || s >= SIZES || i < 0 ||
                        i >= INTENSITIES)
                        continue;
                    const group *g = at(base + (sh * SIZES + s) * INTENSITIES + i);
                    if (g->best[0] > 0 && g->best[1] > 0) {
                        *same_class = c == 0;
                        return g;
                    }
                }
    return NULL;
}

int clgemm__blas_rule_device(int id, const char **host_why) {
    if (id < 0) return 1;
    pthread_mutex_lock(&lock);
    group *g = at(id);
    if (g->calls == 0) {
        int same_class = 0;
        const group *near = tried_near(id, &same_class);
        g->host_first = near && 2 * near->best[0] < near->best[1];
        /* The device's first call here is the neighbour's next recheck; the later one where the
         * neighbour is of another class, whose loss says that the host wins, not by how much. */
        g->next_recheck = FIRST_RECHECK;
        if (g->host_first)
            g->next_recheck *= same_class ? recheck_growth(near) : RECHECK_GROWTH * RECHECK_GROWTH;
    }
    int scheduled = ++g->calls == g->next_recheck, device;
    if (scheduled) g->next_recheck *= recheck_growth(g);
    *host_why = "measured faster here";
    if (g->best[1] == 0 && (!g->host_first || scheduled))
        device = 1;
    else if (g->best[0] == 0)
        device = 0, *host_why = "measuring the host";
    else if (g->best[1] == 0)
        device = 0, *host_why = "faster for calls near it";
    else {
        device = g->best[1] < g->best[0];
        if (scheduled) device = !device, *host_why = "measuring the host again";
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
