/* naive.c: the naive family (cl/naive.cl): one work-item per element of C, MDIMC x NDIMC
 * work-groups. The reference the other families are measured against; never tuned. */
#include "families/family.h"

static const family_param params[] = {
    {"MDIMC", 0, 0, 0, "work-items along M in a work-group"},
    {"NDIMC", 1, 0, 0, "work-items along N in a work-group"},
};

static bool rules(const clgemm_config *c, const device_info *info, const type_desc *t) {
    return clgemm__fits_work_group((size_t)c->params[0], (size_t)c->params[1], info);
}

static void launch(const clgemm_config *c, size_t m, size_t n, size_t local[2], size_t global[2]) {
    local[0] = (size_t)c->params[0];
    local[1] = (size_t)c->params[1];
    global[0] = clgemm__round_up(m, local[0]);
    global[1] = clgemm__round_up(n, local[1]);
}

static void tile(const clgemm_config *c, size_t *mt, size_t *nt, size_t *kt) {
    *mt = (size_t)c->params[0];
    *nt = (size_t)c->params[1];
    *kt = 1;
}

const family_desc clgemm__family_naive = {FAMILY_BASICS(CLGEMM_FAMILY_NAIVE, naive)};
