/* regblock.c: the register-blocked family (cl/regblock.cl): MWG x NWG tiles of C per
 * work-group, KWG-deep slices of op(A) and op(B) staged in local memory, and an MWI x NWI
 * block (MWI = MWG / MDIMC, NWI = NWG / NDIMC) in each work-item's registers. It splits K
 * across work-group layers. Its defaults (regblock_defaults.c) are the library's defaults. */
#include "families/family.h"
#include "families/regblock_defaults.h"

#include <stdio.h>

/* Registers are finite: a block of more elements than this spills on every device we know
 * (complex elements count twice). */
#define MAX_REGISTER_BLOCK 256

enum { MDIMC, NDIMC, TS_UNUSED, MWG, NWG, KWG, KWI, VWM, VWN, STAGES, VLOAD };

static const family_param params[] = {
    {"MWG", MWG, 16, 128, "work-group tile along M"},
    {"NWG", NWG, 16, 128, "work-group tile along N"},
    {"KWG", KWG, 8, 32, "depth of the slice staged in local memory"},
    {"MDIMC", MDIMC, 4, 32, "work-items along M in a work-group"},
    {"NDIMC", NDIMC, 4, 32, "work-items along N in a work-group"},
    {"KWI", KWI, 1, 8, "unroll factor of the inner k loop"},
    {"VWM", VWM, 1, 8, "vector width along M (local reads, C writes)"},
    {"VWN", VWN, 1, 8, "vector width along N (local reads)"},
    {"STAGES", STAGES, 0, 0,
     "local buffers: 1 (or 0), two barriers a slice; 2, the next slice stored into the other in "
     "KWI-row parts while this one is multiplied, one barrier a slice"},
    {"VLOAD", VLOAD, 1, 2,
     "global loads inside the matrices: 1 (or 0), one element each; 2, 16 bytes each where the "
     "operand is aligned (FP32, FP64)"},
};

/* Where static __local arrays may take more than OpenCL's 48 KiB (the H200: 227 KiB), the tuner
 * also tries tiles of 256, 64-deep slices and two local buffers; the rules below still hold
 * every candidate to the device's limit, so on other devices the space is what it was. STAGES
 * is newer than the others: configurations without it keep their one buffer. */
static const family_param_ext param_ext[] = {
    {16, 256, false, 0, 0}, {16, 256, false, 0, 0}, {8, 64, false, 0, 0}, {0, 0, false, 0, 0},
    {0, 0, false, 0, 0},    {0, 0, false, 0, 0},    {0, 0, false, 0, 0},  {0, 0, false, 0, 0},
    {1, 2, true, 0, 0},     {0, 0, true, 1, 1}, /* VLOAD: newer still; CPUs keep their element loads
                                                   (unmeasured there) */
};
_Static_assert(sizeof param_ext / sizeof param_ext[0] == sizeof params / sizeof params[0],
               "one param_ext entry per parameter");

/* The local buffers a configuration asks for (STAGES 0 is 1). */
static int stages_of(const int *v) {
    return v[STAGES] < 1 ? 1 : v[STAGES];
}

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
    /* One or two local buffers (more would change nothing: the registers already hold the one
     * slice in flight). */
    if (v[STAGES] > 2) return false;
    /* Two buffers load the next slice in parts of KWI rows, each a whole number of rounds. */
    if (v[STAGES] == 2 && ((v[MWG] * v[KWI]) % threads != 0 || (v[NWG] * v[KWI]) % threads != 0))
        return false;
    /* Vector loads: FP32 and FP64 (stored as they compute); each part of a work-item's loads
     * whole vectors of 16 bytes (4 FP32, so 2 FP64 too), along K too (KWG a multiple of 4, which
     * also makes the kernel's APL and BPL multiples of the vector). */
    if (v[VLOAD] == 2) {
        const int parts = v[STAGES] == 2 ? v[KWG] / v[KWI] : 1;
        const int per_a = v[MWG] * v[KWG] / threads / parts,
                  per_b = v[NWG] * v[KWG] / threads / parts;
        if (t->complex || (t->size != 4 && t->size != 8) || t->size != t->compute_size ||
            v[KWG] % 4 || per_a % 4 || per_b % 4)
            return false;
    }
    /* Local rows are padded by one vector (see cl/regblock.cl); static arrays, so the device's
     * real limit, not OpenCL's figure for __local arguments. */
    size_t local = (size_t)(v[MWG] + v[VWM] + v[NWG] + v[VWN]) * (size_t)v[KWG] * t->compute_size *
                   (size_t)stages_of(v);
    return local <= clgemm__static_local_limit(info) && /* static arrays */
           clgemm__fits_work_group((size_t)v[MDIMC], (size_t)v[NDIMC], info);
}

/* Whether the operands' alignment changes the kernel: only with vector loads, so the other
 * configurations build once for every offset and leading dimension. */
static bool uses_alignment(const clgemm_config *c) {
    return c->params[VLOAD] == 2;
}

/* The alignment of the call's operands (cl/regblock.cl reads them only with VLOAD 2), only where
 * one is aligned: the kernel's default is neither, so the other configurations build with the
 * options they always had. */
static int call_options(const kernel_call *k, char *buf, size_t size) {
    if (!k->aligned_a && !k->aligned_b) return 0;
    return snprintf(buf, size, " -DALIGNED_A=%d -DALIGNED_B=%d", k->aligned_a, k->aligned_b);
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

/* The defaults per architecture tier and device class: regblock_defaults.c. */
static const clgemm_config *defaults(const device_info *info, clgemm_precision type,
                                     const gemm_dims *dims) {
    return clgemm__regblock_defaults(info, type, dims);
}

static const clgemm_config quick[] = {
    RB(16, 16, 16, 4, 4, 2, 2, 2),   RB(32, 32, 16, 8, 8, 2, 2, 2), RB(32, 32, 32, 4, 8, 4, 4, 4),
    RB(32, 64, 16, 4, 8, 2, 4, 4),   RB(64, 32, 16, 8, 4, 2, 4, 4), RB(64, 64, 16, 8, 8, 2, 4, 4),
    RB(64, 64, 16, 16, 16, 2, 2, 2), RB(64, 64, 32, 8, 8, 4, 4, 4), END_OF_LIST};

/* CPUs: a few per vector tier and type (regblock_defaults.c). */
static const clgemm_config *quick_cpu(const device_info *info, clgemm_precision type) {
    return clgemm__regblock_quick_cpu(info, type);
}

const family_desc clgemm__family_regblock = {
    FAMILY_BASICS(CLGEMM_FAMILY_REGBLOCK, regblock),
    .param_ext = param_ext,
    .searched = true,
    .split_k = true,
    .stream_k = true,
    .linear_tiles = true,
    .peels = true,
    .call_options = call_options,
    .uses_alignment = uses_alignment,
    .defaults = defaults,
    .quick = quick,
    .quick_cpu = quick_cpu,
};
