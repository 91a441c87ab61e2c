/* tiled.c: the tiled family (cl/tiled.cl): TS x TS tiles of op(A) and op(B) in local memory,
 * a TS x TS work-group, one element of C per work-item. Also the library's fallback: TS = 8
 * runs on any OpenCL 1.2 device. */
#include "families/family.h"

static const family_param params[] = {
    {"TS", 2, 4, 64, "the T of the T x T tile and work-group"},
};

static bool rules(const clgemm_config *c, const device_info *info, const type_desc *t) {
    size_t ts = (size_t)c->params[2];
    return clgemm__fits_work_group(ts, ts, info) &&
           2 * ts * ts * t->compute_size <= clgemm__static_local_limit(info); /* static arrays */
}

static void launch(const clgemm_config *c, size_t m, size_t n, size_t local[2], size_t global[2]) {
    local[0] = local[1] = (size_t)c->params[2];
    global[0] = clgemm__round_up(m, local[0]);
    global[1] = clgemm__round_up(n, local[1]);
}

static void tile(const clgemm_config *c, size_t *mt, size_t *nt, size_t *kt) {
    *mt = *nt = *kt = (size_t)c->params[2];
}

static const clgemm_config quick[] = {{.family = CLGEMM_FAMILY_TILED, .ts = 8},
                                      {.family = CLGEMM_FAMILY_TILED, .ts = 16},
                                      {.family = 0}};
/* On PoCL (2026-11-30) the tiled kernel ran 0.12-0.16x CLBlast at 256 where regblock ran over
 * 2x: none on CPUs, whose --quick budget pays seconds per cold build. */
static const clgemm_config *quick_cpu(const device_info *info, clgemm_precision type) {
    (void)info;
    (void)type;
    static const clgemm_config none[] = {{.family = 0}};
    return none;
}

const family_desc clgemm__family_tiled = {
    FAMILY_BASICS(CLGEMM_FAMILY_TILED, tiled),
    .searched = true,
    .quick = quick,
    .quick_cpu = quick_cpu,
};
