/* configs.h: configurations of each family by their parameters, for the suites that check rules,
 * keys and database entries on made-up devices (test_unit, test_tuning_db). */
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

#endif /* TC_CONFIGS_H */
