/* plan.c: which kernel family and parameters one problem uses. In order: the handle's forced
 * configuration > the tuning database's entry nearest to the shape (of the batch's class, else
 * for a batch a single-matrix one that pads little) > the built-in default for the device's
 * class > a small tiled configuration every device runs. Tuning entries are keyed by types,
 * transposes and batch class too; a call is planned in the column-major terms its kernel
 * runs in (a row-major call swaps A and B: tuning_key in internal.h). Each candidate is checked
 * against this device's limits before it is used, so a stale database entry or a default too
 * big for a small device is skipped rather than built. */
#include "family.h"
#include "internal.h"

#include <stdlib.h>

/* Whether a configuration's tile pads an m x n matrix by at most a quarter: a single-matrix
 * entry tuned for a nearby but larger shape may carry tiles that are mostly padding, which a
 * lone matrix pays for in occupancy it needs anyway but a batch of small matrices pays in full. */
static bool pads_little(const clgemm_config *c, size_t m, size_t n) {
    size_t mt, nt, kt;
    clgemm__family(c->family)->tile(c, &mt, &nt, &kt);
    double padded = (double)((m + mt - 1) / mt * mt) * (double)((n + nt - 1) / nt * nt);
    return padded <= 1.25 * (double)m * (double)n;
}

/* The nearest entry of this key, if the device runs it for this compute mode. */
static bool usable_entry(struct clgemm_handle_s *h, const tuning_key *key, clgemm_compute compute,
                         size_t m, size_t n, size_t k, clgemm_config *c) {
    return clgemm__tuning_lookup(h->tuning, key, m, n, k, c) &&
           clgemm__config_supports(c, &h->info, key->type_ab, compute) &&
           clgemm__config_check(c, &h->info, key->type_ab) == CLGEMM_SUCCESS;
}

/* The tuned configuration: the nearest entry of the batch's class, else (for a batch without
 * one) the nearest single-matrix entry if its tiles pad little. */
static bool tuned(struct clgemm_handle_s *h, const tuning_key *key, clgemm_compute compute,
                  size_t m, size_t n, size_t k, size_t batch, clgemm_config *c) {
    tuning_key want = *key;
    want.batch_class = clgemm__batch_class(batch);
    if (usable_entry(h, &want, compute, m, n, k, c)) return true;
    if (want.batch_class == 0) return false;
    want.batch_class = 0;
    return usable_entry(h, &want, compute, m, n, k, c) && pads_little(c, m, n);
}

clgemm_config clgemm__plan(struct clgemm_handle_s *h, const tuning_key *key, clgemm_compute compute,
                           size_t m, size_t n, size_t k, size_t batch, const char **source) {
    const char *from;
    clgemm_config c;
    clgemm_precision precision = key->type_ab;
    /* A forced or tuned configuration is used only for the compute modes its family computes
     * (a TF32 kernel never serves an FP32 call). */
    if (h->has_override[precision] &&
        clgemm__config_supports(&h->override[precision], &h->info, precision, compute)) {
        c = h->override[precision]; /* checked when it was set */
        from = "override";
    } else if (h->tuning && tuned(h, key, compute, m, n, k, batch, &c)) {
        from = "tuned";
    } else if (c = clgemm__config_default_for(&h->info, precision, compute, m, n, batch),
               clgemm__config_check(&c, &h->info, precision) == CLGEMM_SUCCESS) {
        from = "default";
    } else {
        c = clgemm__config_fallback();
        from = "fallback";
        if (clgemm__config_check(&c, &h->info, precision) != CLGEMM_SUCCESS)
            c = (clgemm_config){.family = CLGEMM_FAMILY_NAIVE, .mdimc = 1, .ndimc = 1};
    }
    if (source) *source = from;
    return c;
}

/* The kernel runs every call column-major: a row-major call is the column-major C^T =
 * op(B)^T op(A)^T, so its operands, sizes and transposes swap (tuning_key). */
clgemm_config clgemm__plan_call(struct clgemm_handle_s *h, const gemm_call *call,
                                clgemm_compute compute, size_t batch, const char **source) {
    bool row = call->layout == CLGEMM_ROW_MAJOR;
    tuning_key key =
        clgemm__tuning_key(call->precision, call->type_c, row ? call->trans_b : call->trans_a,
                           row ? call->trans_a : call->trans_b);
    return clgemm__plan(h, &key, compute, row ? call->n : call->m, row ? call->m : call->n, call->k,
                        batch, source);
}

/* The most layers a call splits K into, and the least depth each layer keeps (in slices): more
 * layers cost workspace traffic and a longer reduction than they win back. */
#define MAX_SPLITS           64
#define MIN_SLICES_PER_SPLIT 8

/* The kernel gives each of `splits` layers ceil(k / (splits * kwg)) slices; with more layers
 * than that fills, the last ones would be empty, and an empty layer still adds alpha * 0 to
 * the sum (NaN for an infinite alpha). So the count is cut to the layers that get depth. */
static int nonempty_layers(long splits, size_t k, size_t kwg) {
    if (splits <= 1 || k == 0) return 1;
    size_t slices = (k + kwg - 1) / kwg;
    size_t per_layer = (slices + (size_t)splits - 1) / (size_t)splits;
    return (int)((slices + per_layer - 1) / per_layer);
}

int clgemm__plan_splits(const clgemm_config *config, const device_info *info, int forced, size_t m,
                        size_t n, size_t k, size_t batch) {
    const family_desc *f = clgemm__family(config->family);
    if (!f || !f->split_k) return 1;
    size_t mt, nt, kwg;
    f->tile(config, &mt, &nt, &kwg);
    if (forced > 0) return nonempty_layers(forced, k, kwg);
    /* Split K and the batch share the third grid dimension (batch * layers work-group layers):
     * the tiles of every matrix count towards filling the device. */
    size_t groups;
    if (__builtin_mul_overflow(((m + mt - 1) / mt) * ((n + nt - 1) / nt), batch, &groups) ||
        groups >= info->compute_units)
        return 1; /* the tiles alone fill the device */
    /* Only a long K pays for the workspace and the reduction (H200: 512^3 lost 3x, 256 x 256 x
     * 16384 gained 4x; docs/PERFORMANCE.md). */
    if (k < 4 * (m > n ? m : n)) return 1;
    size_t want = (info->compute_units + groups - 1) / groups;
    size_t most = k / (kwg * MIN_SLICES_PER_SPLIT);
    if (want > most) want = most;
    if (want > MAX_SPLITS) want = MAX_SPLITS;
    return nonempty_layers((long)want, k, kwg);
}
