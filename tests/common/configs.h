/* configs.h: configurations of each family by their parameters, for the suites that check rules,
 * keys and database entries on made-up devices (test_unit, test_tuning_db), and the small tiles
 * the device suites force. */
#ifndef TC_CONFIGS_H
#define TC_CONFIGS_H

#include "clgemm.h"

static inline clgemm_config naive(int mdimc, int ndimc) {
    return (clgemm_config){.family = CLGEMM_FAMILY_NAIVE, .mdimc = mdimc, .ndimc = ndimc};
}

static inline clgemm_config tiled(int ts) {
    return (clgemm_config){.family = CLGEMM_FAMILY_TILED, .ts = ts};
}

static inline clgemm_config regblock(int mwg, int nwg, int kwg, int mdimc, int ndimc, int kwi,
                                     int vwm, int vwn) {
    clgemm_config c = {.family = CLGEMM_FAMILY_REGBLOCK};
    c.mwg = mwg;
    c.nwg = nwg;
    c.kwg = kwg;
    c.mdimc = mdimc;
    c.ndimc = ndimc;
    c.kwi = kwi;
    c.vwm = vwm;
    c.vwn = vwn;
    return c;
}

/* Register-blocked 16 x 16 tiles small enough for every device: what the device suites force
 * where the planner's choice would hide a path (split K, batches of many types). */
#define SMALL_REGBLOCK                                                                             \
    {                                                                                              \
        .family = CLGEMM_FAMILY_REGBLOCK, .mwg = 16, .nwg = 16, .kwg = 8, .mdimc = 4, .ndimc = 4,  \
        .kwi = 2, .vwm = 2, .vwn = 2                                                               \
    }

#endif /* TC_CONFIGS_H */
