/* regblock.c: the register-blocked family (cl/regblock.cl): MWG x NWG tiles of C per
 * work-group, KWG-deep slices of op(A) and op(B) staged in local memory, and an MWI x NWI
 * block (MWI = MWG / MDIMC, NWI = NWG / NDIMC) in each work-item's registers. It splits K
 * across work-group layers. Its defaults per device class are the library's defaults. */
#include "family.h"

/* Registers are finite: a block of more elements than this spills on every device we know
 * (complex elements count twice). */
#define MAX_REGISTER_BLOCK 256

enum { MDIMC, NDIMC, TS_UNUSED, MWG, NWG, KWG, KWI, VWM, VWN };

static const family_param params[] = {
    {"MWG", MWG, 16, 128, "work-group tile along M"},
    {"NWG", NWG, 16, 128, "work-group tile along N"},
    {"KWG", KWG, 8, 32, "depth of the slice staged in local memory"},
    {"MDIMC", MDIMC, 4, 32, "work-items along M in a work-group"},
    {"NDIMC", NDIMC, 4, 32, "work-items along N in a work-group"},
    {"KWI", KWI, 1, 8, "unroll factor of the inner k loop"},
    {"VWM", VWM, 1, 8, "vector width along M (local reads, C writes)"},
    {"VWN", VWN, 1, 8, "vector width along N (local reads)"},
};

static bool rules(const clgemm_config *c, const device_info *info, const type_desc *t) {
    const int *v = c->params;
    /* Powers of two keep every division in the kernel a shift and every loop count exact. */
    for (int i = 0; i < 8; i++)
        if (!clgemm__is_pow2(v[params[i].slot])) return false;
    /* Vectors of 8 at most (8 complex elements are 16 scalars, OpenCL's widest vector). */
    if (v[VWM] > 8 || v[VWN] > 8) return false;
    if (v[MWG] % (v[MDIMC] * v[VWM]) != 0 || v[NWG] % (v[NDIMC] * v[VWN]) != 0) return false;
    if (v[KWG] % v[KWI] != 0) return false;
    int threads = v[MDIMC] * v[NDIMC];
    /* Every work-item loads the same number of elements of each tile: no ragged last round. */
    if ((v[MWG] * v[KWG]) % threads != 0 || (v[KWG] * v[NWG]) % threads != 0) return false;
    int block = (v[MWG] / v[MDIMC]) * (v[NWG] / v[NDIMC]) * (t->complex ? 2 : 1);
    if (block > MAX_REGISTER_BLOCK) return false;
    /* Local rows are padded by one vector (see cl/regblock.cl). */
    size_t local = (size_t)(v[MWG] + v[VWM] + v[NWG] + v[VWN]) * (size_t)v[KWG] * t->compute_size;
    return local <= info->local_mem_size &&
           clgemm__fits_work_group((size_t)v[MDIMC], (size_t)v[NDIMC], info);
}

static void launch(const clgemm_config *c, size_t m, size_t n, size_t local[2], size_t global[2]) {
    const int *v = c->params;
    local[0] = (size_t)v[MDIMC];
    local[1] = (size_t)v[NDIMC];
    global[0] = (m + (size_t)v[MWG] - 1) / (size_t)v[MWG] * local[0];
    global[1] = (n + (size_t)v[NWG] - 1) / (size_t)v[NWG] * local[1];
}

static void tile(const clgemm_config *c, size_t *mt, size_t *nt, size_t *kt) {
    *mt = (size_t)c->params[MWG];
    *nt = (size_t)c->params[NWG];
    *kt = (size_t)c->params[KWG];
}

/* Parameters in the order MWG NWG KWG MDIMC NDIMC KWI VWM VWN. */
#define RB(mwg_, nwg_, kwg_, mdimc_, ndimc_, kwi_, vwm_, vwn_)                                     \
    {                                                                                              \
        .family = CLGEMM_FAMILY_REGBLOCK, .mwg = mwg_, .nwg = nwg_, .kwg = kwg_, .mdimc = mdimc_,  \
        .ndimc = ndimc_, .kwi = kwi_, .vwm = vwm_, .vwn = vwn_                                     \
    }
#define END_OF_LIST                                                                                \
    { .family = 0 }

/* Large tiles win on large problems, but a problem with fewer tiles than the device has
 * compute units leaves some idle, so the planner walks down these lists for smaller ones. The
 * NVIDIA lists are the H200 measurements of docs/PERFORMANCE.md (complex: the FP64 list, as a
 * complex element is as large as a double); elsewhere, 64x64 suits discrete GPUs. On PoCL
 * (2026-11-30, clgemm-bench, ratios to CLBlast in the same run, 256-1024): FP32 on 64x64 tiles
 * of 8x8 work-items with 8x8 register blocks ran 1.7-3.4x CLBlast where the former 32x32
 * default ran 0.7-1.7x; FP64 on them ran 0.7-1.25x, on 64x32 tiles 1.24-1.42x (complex single
 * follows FP64, as on NVIDIA; complex double keeps the former default, not measured). 32x32
 * stays for problems too small to give each core a tile. */
static const clgemm_config nvidia_single[] = {
    RB(256, 128, 8, 16, 16, 8, 4, 4), RB(128, 128, 8, 16, 16, 8, 4, 4),
    RB(64, 64, 32, 16, 8, 8, 2, 2), RB(32, 32, 16, 8, 8, 4, 2, 2), END_OF_LIST};
static const clgemm_config nvidia_double[] = {RB(128, 128, 8, 16, 16, 4, 2, 2),
                                              RB(64, 64, 16, 16, 16, 2, 2, 2),
                                              RB(32, 32, 16, 8, 8, 4, 2, 2), END_OF_LIST};
static const clgemm_config nvidia_complex_double[] = {RB(64, 64, 16, 16, 16, 2, 2, 2),
                                                      RB(32, 32, 16, 8, 8, 4, 2, 2), END_OF_LIST};
static const clgemm_config amd_gpu[] = {RB(64, 64, 16, 16, 16, 2, 2, 2),
                                        RB(32, 32, 16, 8, 8, 2, 2, 2), END_OF_LIST};
/* Intel: 64x64 with 16x16 work-items, vectors of 2 and 8-deep slices. The earlier 8x8
 * work-items with vectors of 4 spilled on every Intel target ocloc compiles for
 * (docs/PORTABILITY.md: dg2-g10 about 29 bytes for FP32, pvc 393); this one compiles without
 * spills for FP32 and FP16 on tgllp, dg2-g10 and pvc, and for complex on tgllp and dg2-g10 (pvc
 * spills about 82 bytes for complex; 16-deep slices spilled 48 for FP32 there). Compiled only:
 * not yet run on Intel hardware. */
static const clgemm_config intel_gpu[] = {RB(64, 64, 8, 16, 16, 2, 2, 2),
                                          RB(32, 32, 16, 8, 8, 2, 2, 2), END_OF_LIST};
static const clgemm_config other_gpu[] = {RB(32, 32, 16, 8, 8, 2, 2, 2), END_OF_LIST};
static const clgemm_config cpu_single[] = {RB(64, 64, 16, 8, 8, 2, 4, 4),
                                           RB(32, 32, 32, 4, 8, 4, 4, 4), END_OF_LIST};
static const clgemm_config cpu_double[] = {RB(64, 32, 16, 8, 8, 2, 4, 4),
                                           RB(32, 32, 32, 4, 8, 4, 4, 4), END_OF_LIST};
static const clgemm_config cpu_complex_double[] = {RB(32, 32, 32, 4, 8, 4, 4, 4), END_OF_LIST};

static const clgemm_config *defaults(const device_info *info, clgemm_precision type) {
    switch (info->cls) {
    case DEVICE_NVIDIA_GPU:
        switch (type) {
        case CLGEMM_DOUBLE:
        case CLGEMM_COMPLEX_SINGLE:
            return nvidia_double;
        case CLGEMM_COMPLEX_DOUBLE:
            return nvidia_complex_double;
        default:
            return nvidia_single;
        }
    case DEVICE_AMD_GPU:
        return amd_gpu;
    case DEVICE_INTEL_GPU:
        return intel_gpu;
    case DEVICE_OTHER_GPU:
        return other_gpu;
    case DEVICE_CPU:
    default:
        switch (type) {
        case CLGEMM_DOUBLE:
        case CLGEMM_COMPLEX_SINGLE:
            return cpu_double;
        case CLGEMM_COMPLEX_DOUBLE:
            return cpu_complex_double;
        default:
            return cpu_single;
        }
    }
}

static const clgemm_config quick[] = {
    RB(16, 16, 16, 4, 4, 2, 2, 2),   RB(32, 32, 16, 8, 8, 2, 2, 2), RB(32, 32, 32, 4, 8, 4, 4, 4),
    RB(32, 64, 16, 4, 8, 2, 4, 4),   RB(64, 32, 16, 8, 4, 2, 4, 4), RB(64, 64, 16, 8, 8, 2, 4, 4),
    RB(64, 64, 16, 16, 16, 2, 2, 2), RB(64, 64, 32, 8, 8, 4, 4, 4), END_OF_LIST};

/* On PoCL (2026-11-30, FP32): the CPU default (the baseline every tune times first) and the
 * best at 256 of the full quick list in two cold runs. Two only: a cold PoCL build took 10-17 s
 * on this loaded 2-core machine, and --quick must finish its set within 45 s. */
static const clgemm_config quick_cpu[] = {RB(64, 64, 16, 8, 8, 2, 4, 4),
                                          RB(64, 64, 32, 8, 8, 4, 4, 4), END_OF_LIST};

const family_desc clgemm__family_regblock = {
    .id = CLGEMM_FAMILY_REGBLOCK,
    .name = "regblock",
    .file = "regblock.cl",
    .kernel = "clgemm_regblock",
    .params = params,
    .num_params = 8,
    .searched = true,
    .split_k = true,
    .stream_k = true,
    .rules = rules,
    .launch = launch,
    .tile = tile,
    .defaults = defaults,
    .quick = quick,
    .quick_cpu = quick_cpu,
};
