/* regblock_defaults.h: the register-blocked family's built-in defaults per architecture tier
 * (regblock_defaults.c), for its descriptor and for the portability tools that list them. */
#ifndef CLGEMM_REGBLOCK_DEFAULTS_H
#define CLGEMM_REGBLOCK_DEFAULTS_H

#include "families/family.h"

/* A register-blocked configuration, parameters in the order MWG NWG KWG MDIMC NDIMC KWI VWM VWN,
 * and the end of a list. */
#define RB(mwg_, nwg_, kwg_, mdimc_, ndimc_, kwi_, vwm_, vwn_)                                     \
    {                                                                                              \
        .family = CLGEMM_FAMILY_REGBLOCK, .mwg = mwg_, .nwg = nwg_, .kwg = kwg_, .mdimc = mdimc_,  \
        .ndimc = ndimc_, .kwi = kwi_, .vwm = vwm_, .vwn = vwn_                                     \
    }
/* The same with STAGES (cl/regblock.cl's local buffers: 2 for two) and VLOAD (2: 16-byte loads
 * inside aligned operands); RB leaves both 0: one buffer, element loads. */
#define RB_FULL(mwg_, nwg_, kwg_, mdimc_, ndimc_, kwi_, vwm_, vwn_, stages_, vload_)               \
    {                                                                                              \
        .family = CLGEMM_FAMILY_REGBLOCK, .params = {                                              \
            mdimc_,                                                                                \
            ndimc_,                                                                                \
            0,                                                                                     \
            mwg_,                                                                                  \
            nwg_,                                                                                  \
            kwg_,                                                                                  \
            kwi_,                                                                                  \
            vwm_,                                                                                  \
            vwn_,                                                                                  \
            stages_,                                                                               \
            vload_                                                                                 \
        }                                                                                          \
    }
#define END_OF_LIST                                                                                \
    { .family = 0 }

/* One tier's lists, each largest tiles first and ending with family 0. */
typedef struct regblock_tier {
    device_tier tier;
    device_class cls;            /* the class whose devices fall in the tier */
    const clgemm_config *single; /* FP32, and FP16 / BF16 (which compute in FP32) */
    const clgemm_config *dbl;    /* FP64, and complex single (an element as large as a double) */
    const clgemm_config *complex_double;
    const char *source; /* where the values come from */
} regblock_tier;

/* The tiers with lists of their own, ending with tier TIER_UNKNOWN (the class lists). */
extern const regblock_tier clgemm__regblock_tiers[];
/* The tuner's --quick candidates on a CPU of this tier and type, ending with family 0. */
const clgemm_config *clgemm__regblock_quick_cpu(const device_info *info, clgemm_precision type);
/* The defaults for a device, type and problem: its tier's, else its class's. */
const clgemm_config *clgemm__regblock_defaults(const device_info *info, clgemm_precision type,
                                               const gemm_dims *dims);

#endif
