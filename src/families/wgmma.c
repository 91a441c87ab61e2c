/* wgmma.c: Hopper's warpgroup tensor-core family (cl/wgmma.cl): wgmma.mma_async with both
 * operands in local memory, K staged by cp.async through STAGES slices. Its kernels carry sm_90a
 * instructions behind PTX markers, so the program layer patches their PTX (ptx_patch.c); only
 * NVIDIA devices of compute capability exactly 9.0 whose driver ran that patched-PTX probe build
 * (device_info.nv_sm90a) ever build it, and every other device, or one where the probe failed,
 * plans these types on the mma.sync family instead. Types: FP16 and BF16 storage with FP32
 * accumulation (C in the input type or FP32) and FP32 in the TF32 compute mode. The legality
 * rules are the kernel's (its first comment). */
#include "families/family.h"

#include <stdio.h>

enum { MWG, NWG, KWG, WM, WN, STAGES };

static const family_param params[] = {WARP_TILE_PARAMS(
    64, 128, "warpgroup tile along M (64: one m64 instruction, 128: two)", 64, 256,
    "warpgroup tile along N (the instruction's N)", 6,
    "K slices in local memory (2: each slice's products finish before the next is copied)")};

static bool supported(const device_info *info, clgemm_precision type, clgemm_compute compute) {
    return info->nv_sm90a && info->nv_compute_capability == 90 &&
           clgemm__wgmma_types(type, compute);
}

static bool rules(const clgemm_config *c, const device_info *info, const type_desc *t) {
    const int *v = c->params;
    if (t->complex || t->size == 8) return false;
    for (int i = 0; i < 5; i++)
        if (!clgemm__is_pow2(v[i])) return false;
    const int esize = (int)t->size;
    if (v[WM] != 64 && v[WM] != 128) return false;
    if (v[WN] != 64 && v[WN] != 128 && v[WN] != 256) return false;
    if (v[MWG] % v[WM] || v[NWG] % v[WN]) return false;
    if (v[KWG] % (esize == 4 ? 8 : 16)) return false;
    return clgemm__warp_tiles_fit(c, info, t, 128);
}

static void launch(const clgemm_config *c, size_t m, size_t n, size_t local[2], size_t global[2]) {
    clgemm__warp_tiles_launch(c, 128, m, n, local, global); /* one warpgroup per warp tile */
}

static void tile(const clgemm_config *c, size_t *mt, size_t *nt, size_t *kt) {
    *mt = (size_t)c->params[MWG];
    *nt = (size_t)c->params[NWG];
    *kt = (size_t)c->params[KWG];
}

static int call_options(const kernel_call *k, char *buf, size_t size) {
    int type = k->type_ab == CLGEMM_HALF ? 0 : k->type_ab == CLGEMM_BFLOAT16 ? 1 : 2;
    return snprintf(buf, size, " -DWG_TYPE=%d -DC_INPUT=%d -DALIGNED_A=%d -DALIGNED_B=%d", type,
                    k->type_c == k->type_ab && type <= 1, k->aligned_a, k->aligned_b);
}

#define WGMMA(mwg_, nwg_, kwg_, wm_, wn_, stages_)                                                 \
    {                                                                                              \
        .family = CLGEMM_FAMILY_WGMMA, .params = { mwg_, nwg_, kwg_, wm_, wn_, stages_ }           \
    }
#define END_OF_LIST                                                                                \
    { .family = 0 }

/* H200 (docs/TENSOR_CORES.md, "The wgmma family"): with MN-major operands in the 128-byte
 * swizzle, 128 x 128 tiles (two work-groups per SM) ran FP16 8192^2 at 367.6 TFLOPS, 4096^2 at
 * 335.8, 4097^2 at 87.8, against 360.7 / 332.7 / 73.1 for 128 x 256 tiles (one per SM) in the
 * same run; only 2048^2 went the other way (251.5 against 266.1; 259 against 261 in the run
 * before), so one list entry serves every shape. The mma.sync family stays the default (358.3 /
 * 325.7 / 108.5 there): this is the list a forced or tuned wgmma call starts from. */
static const clgemm_config half[] = {WGMMA(128, 128, 16, 64, 128, 6), END_OF_LIST};
static const clgemm_config tf32[] = {WGMMA(128, 256, 8, 64, 256, 4), WGMMA(128, 128, 8, 64, 128, 6),
                                     END_OF_LIST};

static const clgemm_config *defaults(const device_info *info, clgemm_precision type,
                                     const gemm_dims *dims) {
    (void)info;
    (void)dims;
    return type == CLGEMM_SINGLE ? tf32 : half;
}

/* Every entry here ran the full device suite (tests/test_tensor_cores.c) on the H200. */
static const clgemm_config quick[] = {
    WGMMA(128, 256, 16, 64, 256, 4), WGMMA(256, 128, 16, 128, 128, 4),
    WGMMA(128, 128, 16, 64, 128, 6), WGMMA(128, 128, 32, 64, 128, 3),
    WGMMA(64, 128, 32, 64, 128, 4),  WGMMA(128, 256, 8, 64, 256, 4),
    WGMMA(128, 128, 8, 64, 128, 6),  END_OF_LIST};

static const ptx_patch_need patch = {0};

const family_desc clgemm__family_wgmma = {TENSOR_CORE_FAMILY(CLGEMM_FAMILY_WGMMA, wgmma),
                                          .ptx_patch = &patch};
