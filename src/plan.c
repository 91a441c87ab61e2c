/* plan.c: which kernel family and parameters one problem uses. In order: the handle's forced
 * configuration > the tuning database's entry nearest to the shape > the built-in default for
 * the device's class > a small tiled configuration every device runs. Each candidate is checked
 * against this device's limits before it is used, so a stale database entry or a default too
 * big for a small device is skipped rather than built. */
#include "internal.h"

clgemm_config clgemm__plan(struct clgemm_handle_s *h, clgemm_precision precision, size_t m,
                           size_t n, size_t k, const char **source) {
    const char *from;
    clgemm_config c;
    if (h->has_override[precision]) {
        c = h->override[precision]; /* checked when it was set */
        from = "override";
    } else if (h->tuning && clgemm__tuning_lookup(h->tuning, precision, m, n, k, &c) &&
               clgemm__config_check(&c, &h->info, precision) == CLGEMM_SUCCESS) {
        from = "tuned";
    } else if (c = clgemm__config_default(h->info.cls, precision),
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
