/* params.c: the rules each kernel family's parameters must obey, the built-in defaults per
 * device class, the -D build options and the launch geometry. The tuner and the runtime both
 * check configurations here, so neither can use one the other would refuse. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* Any parameter above this is nonsense (and would overflow the products below). */
#define PARAM_MAX 1024
/* Registers are finite: an MWI x NWI block larger than this spills on every device we know. */
#define MAX_REGISTER_BLOCK 256

const char *clgemm_family_name(clgemm_family family) {
    switch (family) {
    case CLGEMM_FAMILY_AUTO:
        return "auto";
    case CLGEMM_FAMILY_NAIVE:
        return "naive";
    case CLGEMM_FAMILY_TILED:
        return "tiled";
    case CLGEMM_FAMILY_REGBLOCK:
        return "regblock";
    }
    return NULL;
}

static bool family_uses(clgemm_family family, unsigned families) {
    return family >= 1 && family <= CLGEMM_FAMILY_COUNT &&
           (families & CLGEMM_FAMILY_BIT(family - 1)) != 0;
}

static bool is_pow2(int v) {
    return v > 0 && (v & (v - 1)) == 0;
}

static bool fits_work_group(size_t x, size_t y, const device_info *info) {
    return x * y <= info->max_work_group_size && x <= info->max_work_item_sizes[0] &&
           y <= info->max_work_item_sizes[1];
}

static bool regblock_ok(const clgemm_config *c, const device_info *info, size_t real_size) {
    /* Powers of two keep every division in the kernel a shift and every loop count exact. */
    if (!is_pow2(c->mwg) || !is_pow2(c->nwg) || !is_pow2(c->kwg) || !is_pow2(c->mdimc) ||
        !is_pow2(c->ndimc) || !is_pow2(c->kwi))
        return false;
    if (!is_pow2(c->vwm) || c->vwm > 8 || !is_pow2(c->vwn) || c->vwn > 8) return false;
    if (c->mwg % (c->mdimc * c->vwm) != 0 || c->nwg % (c->ndimc * c->vwn) != 0) return false;
    if (c->kwg % c->kwi != 0) return false;
    int threads = c->mdimc * c->ndimc;
    /* Every work-item loads the same number of elements of each tile: no ragged last round. */
    if ((c->mwg * c->kwg) % threads != 0 || (c->kwg * c->nwg) % threads != 0) return false;
    if ((c->mwg / c->mdimc) * (c->nwg / c->ndimc) > MAX_REGISTER_BLOCK) return false;
    /* Local rows are padded by one vector (see cl/regblock.cl). */
    size_t local = (size_t)(c->mwg + c->vwm + c->nwg + c->vwn) * (size_t)c->kwg * real_size;
    return local <= info->local_mem_size && fits_work_group(c->mdimc, c->ndimc, info);
}

clgemm_status clgemm__config_check(const clgemm_config *config, const device_info *info,
                                   clgemm_precision precision) {
    if (config->family < CLGEMM_FAMILY_NAIVE || config->family > CLGEMM_FAMILY_COUNT)
        return CLGEMM_ERR_INVALID_FAMILY;
    if (precision == CLGEMM_DOUBLE && !info->has_fp64) return CLGEMM_ERR_NO_FP64;
#define CHECK_RANGE(name, field, families, meaning)                                                \
    if (family_uses(config->family, families) && (config->field < 1 || config->field > PARAM_MAX)) \
        return CLGEMM_ERR_INVALID_PARAMS;
    CLGEMM_PARAM_LIST(CHECK_RANGE)
#undef CHECK_RANGE
    size_t real_size = clgemm__real_size(precision);
    bool ok = false;
    switch (config->family) {
    case CLGEMM_FAMILY_NAIVE:
        ok = fits_work_group(config->mdimc, config->ndimc, info);
        break;
    case CLGEMM_FAMILY_TILED:
        ok = fits_work_group(config->ts, config->ts, info) &&
             2 * (size_t)config->ts * config->ts * real_size <= info->local_mem_size;
        break;
    case CLGEMM_FAMILY_REGBLOCK:
        ok = regblock_ok(config, info, real_size);
        break;
    default:
        break;
    }
    return ok ? CLGEMM_SUCCESS : CLGEMM_ERR_INVALID_PARAMS;
}

#define RB CLGEMM__REGBLOCK

/* The built-in defaults of each class, largest tiles first; each list ends with an entry whose
 * family is 0. Large tiles win on large problems, but a problem with fewer tiles than the
 * device has compute units leaves some idle, so smaller problems take smaller tiles. The
 * NVIDIA lists are the H200 measurements of docs/PERFORMANCE.md; elsewhere, 64x64 suits
 * discrete GPUs and small blocks suit CPUs, where caches stand in for local memory. */
#define END_OF_LIST                                                                                \
    { 0 }
static const clgemm_config nvidia_single[] = {
    RB(256, 128, 8, 16, 16, 8, 4, 4), RB(128, 128, 8, 16, 16, 8, 4, 4),
    RB(64, 64, 32, 16, 8, 8, 2, 2), RB(32, 32, 16, 8, 8, 4, 2, 2), END_OF_LIST};
static const clgemm_config nvidia_double[] = {RB(128, 128, 8, 16, 16, 4, 2, 2),
                                              RB(64, 64, 16, 16, 16, 2, 2, 2),
                                              RB(32, 32, 16, 8, 8, 4, 2, 2), END_OF_LIST};
static const clgemm_config amd_gpu[] = {RB(64, 64, 16, 16, 16, 2, 2, 2),
                                        RB(32, 32, 16, 8, 8, 2, 2, 2), END_OF_LIST};
static const clgemm_config intel_gpu[] = {RB(64, 64, 16, 8, 8, 2, 4, 4),
                                          RB(32, 32, 16, 8, 8, 2, 2, 2), END_OF_LIST};
static const clgemm_config other_gpu[] = {RB(32, 32, 16, 8, 8, 2, 2, 2), END_OF_LIST};
static const clgemm_config cpu[] = {RB(32, 32, 32, 4, 8, 4, 4, 4), END_OF_LIST};

static const clgemm_config *default_list(device_class cls, clgemm_precision precision) {
    switch (cls) {
    case DEVICE_NVIDIA_GPU:
        return precision == CLGEMM_SINGLE ? nvidia_single : nvidia_double;
    case DEVICE_AMD_GPU:
        return amd_gpu;
    case DEVICE_INTEL_GPU:
        return intel_gpu;
    case DEVICE_OTHER_GPU:
        return other_gpu;
    case DEVICE_CPU:
    default:
        return cpu;
    }
}

clgemm_config clgemm__config_default(device_class cls, clgemm_precision precision) {
    return default_list(cls, precision)[0];
}

clgemm_config clgemm__config_default_for(const device_info *info, clgemm_precision precision,
                                         size_t m, size_t n) {
    const clgemm_config *list = default_list(info->cls, precision);
    const clgemm_config *pick = NULL;
    for (const clgemm_config *c = list; c->family; c++) {
        if (clgemm__config_check(c, info, precision) != CLGEMM_SUCCESS) continue;
        pick = c; /* the smallest legal one, unless a larger one fills the device */
        size_t tiles = ((m + c->mwg - 1) / c->mwg) * ((n + c->nwg - 1) / c->nwg);
        if (tiles >= info->compute_units) break;
    }
    return pick ? *pick : list[0]; /* none legal: the caller's check rejects list[0] */
}

clgemm_config clgemm__config_fallback(void) {
    /* 8x8 = 64 work-items and 512 bytes of local memory: below OpenCL 1.2's minimums. */
    clgemm_config c = {.family = CLGEMM_FAMILY_TILED, .ts = 8};
    return c;
}

int clgemm__config_options(const clgemm_config *config, char *buf, size_t size) {
    size_t used = 0;
#define APPEND_OPTION(name, field, families, meaning)                                              \
    if (family_uses(config->family, families)) {                                                   \
        int w = snprintf(buf + used, size - used, " -D" #name "=%d", config->field);               \
        if (w < 0 || (size_t)w >= size - used) return -1;                                          \
        used += (size_t)w;                                                                         \
    }
    CLGEMM_PARAM_LIST(APPEND_OPTION)
#undef APPEND_OPTION
    return (int)used;
}

static size_t round_up(size_t v, size_t to) {
    return (v + to - 1) / to * to;
}

void clgemm__config_launch(const clgemm_config *config, size_t m, size_t n, size_t local[2],
                           size_t global[2]) {
    switch (config->family) {
    case CLGEMM_FAMILY_TILED:
        local[0] = local[1] = (size_t)config->ts;
        global[0] = round_up(m, local[0]);
        global[1] = round_up(n, local[1]);
        break;
    case CLGEMM_FAMILY_REGBLOCK:
        local[0] = (size_t)config->mdimc;
        local[1] = (size_t)config->ndimc;
        global[0] = (m + config->mwg - 1) / config->mwg * local[0];
        global[1] = (n + config->nwg - 1) / config->nwg * local[1];
        break;
    case CLGEMM_FAMILY_NAIVE:
    default:
        local[0] = (size_t)config->mdimc;
        local[1] = (size_t)config->ndimc;
        global[0] = round_up(m, local[0]);
        global[1] = round_up(n, local[1]);
        break;
    }
}
