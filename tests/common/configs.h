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

/* A register-blocked configuration as an initialiser (file-scope constants too). */
#define REGBLOCK(mwg_, nwg_, kwg_, mdimc_, ndimc_, kwi_, vwm_, vwn_)                               \
    {                                                                                              \
        .family = CLGEMM_FAMILY_REGBLOCK, .mwg = (mwg_), .nwg = (nwg_), .kwg = (kwg_),             \
        .mdimc = (mdimc_), .ndimc = (ndimc_), .kwi = (kwi_), .vwm = (vwm_), .vwn = (vwn_)          \
    }

static inline clgemm_config regblock(int mwg, int nwg, int kwg, int mdimc, int ndimc, int kwi,
                                     int vwm, int vwn) {
    return (clgemm_config)REGBLOCK(mwg, nwg, kwg, mdimc, ndimc, kwi, vwm, vwn);
}

/* Register-blocked 16 x 16 tiles small enough for every device: what the device suites force
 * where the planner's choice would hide a path (split K, batches of many types). */
#define SMALL_REGBLOCK REGBLOCK(16, 16, 8, 4, 4, 2, 2, 2)

#endif /* TC_CONFIGS_H */
