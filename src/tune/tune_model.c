/* tune_model.c: a cost model for the tuner, so that cold compiles (seconds each on PoCL, a
 * good part of the two seconds per candidate on a GPU) go to candidates likely to win. It sees
 * only what a configuration implies for the shape, through the family's tile() and launch():
 *
 *  - intensity: an mt x nt tile reads (mt + nt) elements per k step for mt * nt multiply-adds,
 *    so its reuse is mt * nt / (mt + nt). Past RIDGE_REUSE more reuse stops paying (the loads
 *    are no longer the bottleneck), so it is capped there.
 *  - padding: a shape that is not a multiple of the tile computes ceil(m / mt) * mt by
 *    ceil(n / nt) * nt elements; the waste multiplies the time.
 *  - occupancy: the work-groups run in waves of one per compute unit; a last wave that is part
 *    empty wastes that part (few large tiles on a wide GPU lose here).
 *  - registers: each work-item holds an (mt * nt / work-items) block of accumulators (twice
 *    for complex) plus a column of A and a row of B; past the device class's soft limit the
 *    block spills or the occupancy falls, so the time grows in proportion.
 *  - depth: each kt-deep slice of K costs two barriers and a tile load, an overhead that
 *    shrinks as 1 / kt.
 *
 * score = padding / occupancy / min(reuse, RIDGE_REUSE) * register_penalty * (1 + 2 / kt).
 * A candidate scored over PRUNE_RATIO times the best is dropped before it is compiled: the
 * factors are crude, so only clear losers go (tiles a quarter of the best's reuse, say, or a
 * shape padded to twice its size), and the vector widths, unrolling and the like, which the
 * model does not see, are left for the timing to decide among equals. */
#include "tune/tune_model.h"

#include <stdlib.h>

/* Reuse of a 64 x 64 tile: where the best kernels of both PoCL and GPUs sit. */
#define RIDGE_REUSE 32.0
/* Accumulator registers a work-item keeps without spilling or losing occupancy. */
#define SOFT_REGISTERS_GPU 128.0
#define SOFT_REGISTERS_CPU 96.0
/* Ruled out: predicted this many times slower than the best candidate. */
#define PRUNE_RATIO 3.0

double clgemm__tune_score(const clgemm_config *c, const device_info *info,
                          clgemm_precision precision, size_t m, size_t n, size_t k) {
    (void)k;
    const family_desc *f = clgemm__family(c->family);
    const type_desc *t = clgemm__type(precision);
    if (!f || !f->tile || !f->launch || !t || m == 0 || n == 0) return 1e30;
    size_t mt, nt, kt, local[2], global[2];
    f->tile(c, &mt, &nt, &kt);
    f->launch(c, mt, nt, local, global); /* one work-group's size */
    if (mt == 0 || nt == 0) return 1e30;
    double items = (double)(local[0] * local[1]), cplx = t->complex ? 2.0 : 1.0;
    double reuse = (double)mt * (double)nt / (double)(mt + nt);
    if (reuse > RIDGE_REUSE) reuse = RIDGE_REUSE;
    size_t tm = (m + mt - 1) / mt, tn = (n + nt - 1) / nt;
    double padding = (double)(tm * mt) * (double)(tn * nt) / ((double)m * (double)n);
    double groups = (double)tm * (double)tn, units = info->compute_units ? info->compute_units : 1;
    double waves = (double)(size_t)((groups + units - 1) / units);
    double occupancy = groups / (waves * units);
    double registers = cplx * ((double)mt * (double)nt / items + (double)mt / (double)local[0] +
                               (double)nt / (double)local[1]);
    double soft = info->cls == DEVICE_CPU ? SOFT_REGISTERS_CPU : SOFT_REGISTERS_GPU;
    double spill = registers > soft ? registers / soft : 1.0;
    double depth = 1.0 + 2.0 / (double)(kt ? kt : 1);
    return padding / occupancy / reuse * spill * depth;
}

typedef struct scored {
    double score;
    size_t pos, index;
} scored;

static int by_score(const void *a, const void *b) {
    const scored *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

size_t clgemm__tune_model_order(const clgemm_config *items, size_t *order, size_t count,
                                const device_info *info, clgemm_precision precision, size_t m,
                                size_t n, size_t k) {
    if (count == 0) return 0;
    scored *s = malloc(count * sizeof *s);
    if (!s) return count; /* unordered and unpruned: still correct */
    for (size_t i = 0; i < count; i++)
        s[i] =
            (scored){clgemm__tune_score(&items[order[i]], info, precision, m, n, k), i, order[i]};
    qsort(s, count, sizeof *s, by_score);
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        order[i] = s[i].index;
        kept += s[i].score <= PRUNE_RATIO * s[0].score;
    }
    free(s);
    return kept;
}
