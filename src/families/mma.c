/* mma.c: the matrix-unit family (cl/mma.cl): NVIDIA tensor cores through inline PTX mma.sync,
 * with cp.async + ldmatrix staging in a STAGES-deep pipeline of swizzled local memory; it splits
 * K across work-group layers as the register-blocked family does. Only
 * NVIDIA devices of compute capability 8.0 and up ever build its source. Types: FP16 and BF16
 * storage with FP32 accumulation (C in the input type or FP32), FP32 with the TF32 or 3xTF32
 * compute modes (never the FP32 default), FP64 (sm_90's m16n8k16 FP64, the default for
 * dgemm there, as in cuBLAS), INT8 into INT32 (m16n8k32 s8, sm_80) and FP8 E4M3 / E5M2 into
 * FP32, FP16 or BF16 (m16n8k32 e4m3 / e5m2, where the device's compiler takes them:
 * device_info.nv_fp8_mma, compute capability 8.9 and PTX ISA 8.4). The legality rules are the
 * kernel's (its first comment). */
#include "families/family.h"

#include <math.h>
#include <stdio.h>

enum { MWG, NWG, KWG, WM, WN, STAGES };

/* STAGES searched up to 8: the rules bound the stages by the device's static local limit, so
 * where that is 48 KiB the deep sets are refused and the search is as before, and where it is
 * 227 KiB (compute capability 9.0) a 128 x 128 x 16 FP64 tile may keep 7 slices in flight. */
static const family_param params[] = {WARP_TILE_PARAMS(32, 64, "warp tile along M", 16, 64,
                                                       "warp tile along N", 8,
                                                       "K slices in flight (cp.async pipeline)")};

/* Which PTX each type needs: FP16 / BF16 / TF32 / INT8 mma from sm_80, FP8 from sm_89 where
 * the driver's compiler takes it (PTX ISA 8.4: nv_fp8_mma), FP64 m16n8k16 from sm_90. The 8-bit
 * types have one compute mode, the default. */
static bool supported(const device_info *info, clgemm_precision type, clgemm_compute compute) {
    if (info->cls != DEVICE_NVIDIA_GPU || info->nv_compute_capability < 80) return false;
    const bool plain = compute == CLGEMM_COMPUTE_DEFAULT || compute == CLGEMM__COMPUTE_ANY;
    switch (type) {
    case CLGEMM_HALF:
    case CLGEMM_BFLOAT16:
        return true;
    case CLGEMM_SINGLE: /* only when a TF32 mode is asked for (or any, for a forced config) */
        return compute != CLGEMM_COMPUTE_DEFAULT;
    case CLGEMM_DOUBLE:
        return info->nv_compute_capability >= 90;
    case CLGEMM_INT8:
        return plain;
    case CLGEMM_E4M3:
    case CLGEMM_E5M2:
        return plain && info->nv_compute_capability >= 89 && info->nv_fp8_mma;
    default:
        return false;
    }
}

static bool rules(const clgemm_config *c, const device_info *info, const type_desc *t) {
    const int *v = c->params;
    if (t->complex) return false;
    for (int i = 0; i < 5; i++)
        if (!clgemm__is_pow2(v[i])) return false;
    const int esize = (int)t->size, vw = 16 / esize;
    if (v[MWG] % v[WM] || v[NWG] % v[WN] || v[WM] % 16) return false;
    if (v[WN] % (esize == 8 ? 8 : 16)) return false;
    if (v[KWG] % (esize == 1 ? 32 : esize == 4 ? 8 : 16)) return false; /* one k step of mma */
    if (v[KWG] < vw || v[MWG] < vw || v[NWG] < vw) return false;
    return clgemm__warp_tiles_fit(c, info, t, 32);
}

static void launch(const clgemm_config *c, size_t m, size_t n, size_t local[2], size_t global[2]) {
    clgemm__warp_tiles_launch(c, 32, m, n, local, global); /* one warp per warp tile */
}

static void tile(const clgemm_config *c, size_t *mt, size_t *nt, size_t *kt) {
    *mt = (size_t)c->params[MWG];
    *nt = (size_t)c->params[NWG];
    *kt = (size_t)c->params[KWG];
}

/* The kernel's MMA_TYPE for the call, C_INPUT, and the 16-byte cp.async path for operands
 * whose offset and leading dimension keep every 16-byte chunk aligned (the 8-bit types' C type
 * reaches the kernel as TYPE_C). FP64 walks its tiles in bands of 8 tile rows (common.cl
 * TILE_BANDS), so that the work-groups running at once share panels of A and B in L2: H100,
 * two alternated rounds (bench/gpu/run.sh tile-bands), 4096^2 53.2 / 52.1 -> 55.0 / 55.2 TFLOPS,
 * 8192^2 unchanged (53.2 / 52.8 -> 53.1 / 52.9), registers unchanged (234). The register-blocked
 * FP32 kernel is left in the plain order: bands cost it 3 registers, one work-group an SM. */
static int call_options(const kernel_call *k, char *buf, size_t size) {
    int type = k->type_ab == CLGEMM_HALF                  ? 0
               : k->type_ab == CLGEMM_BFLOAT16            ? 1
               : k->type_ab == CLGEMM_DOUBLE              ? 4
               : k->type_ab == CLGEMM_INT8                ? 5
               : k->type_ab == CLGEMM_E4M3                ? 6
               : k->type_ab == CLGEMM_E5M2                ? 7
               : k->compute == CLGEMM_COMPUTE_FP32_3XTF32 ? 3
                                                          : 2;
    return snprintf(buf, size,
                    " -DMMA_TYPE=%d -DC_INPUT=%d -DALIGNED_A=%d -DALIGNED_B=%d -DSWIZZLE=1%s", type,
                    k->type_c == k->type_ab && type <= 1, k->aligned_a, k->aligned_b,
                    type == 4 ? " -DF64_K16=1 -DTILE_BANDS=8" : "");
}

#define MMA(mwg_, nwg_, kwg_, wm_, wn_, stages_)                                                   \
    {                                                                                              \
        .family = CLGEMM_FAMILY_MMA, .params = { mwg_, nwg_, kwg_, wm_, wn_, stages_ }             \
    }
#define END_OF_LIST                                                                                \
    { .family = 0 }

/* H200 measurements (docs/TENSOR_CORES.md): the fastest set per type, then a smaller tile for
 * problems whose large tiles leave compute units idle. TF32 / 3xTF32 use the kernel's default
 * TF32_CVT=1 TF32_LDS=1 (integer rounding, ldmatrix loads); 128x128x16 S3 stays the fastest
 * there (256x128 and 128x256 tiles fit only 2 stages in 48 KiB and lose). */
static const clgemm_config half[] = {MMA(128, 128, 32, 64, 64, 3), MMA(64, 64, 32, 32, 32, 3),
                                     END_OF_LIST};
static const clgemm_config tf32[] = {MMA(128, 128, 16, 64, 64, 3), MMA(64, 64, 16, 32, 32, 3),
                                     END_OF_LIST};
/* FP64 within 48 KiB of local memory. 64 x 128 tiles serve matrices far wider than tall: H200
 * 64 x 8192 x 8192 (kernel terms, K split) 36.7 TFLOPS where 64 x 64 tiles ran 25.8
 * (bench/results/h200-shapes-call-cost.log). */
#define FP64_48K                                                                                   \
    MMA(128, 64, 16, 64, 32, 2), MMA(64, 128, 16, 32, 64, 2), MMA(64, 64, 16, 32, 32, 2)
/* Batches of matrices of 32 or less a side: 32 x 32 tiles of four 16 x 16 warp tiles, where 64 x 64
 * ones would be three quarters padding. H200, strided batches of 10000 x 32^3 (two rounds, same
 * call): 71-74 us against 64 x 64 tiles' 127-130 and torch.bmm's 87; one warp of 32 x 32 74-75,
 * SIMT 32 x 32 tiles 98-99 (bench/results/h200-fp64-small-batches.log). */
#define FP64_BATCH_SMALL MMA(32, 32, 16, 16, 16, 2)
/* The 48 KiB sets' tiles in 4 stages (98, 98 and 64 KiB: two, two and three work-groups an SM),
 * where static local arrays may take that: strided batches on the H200, forced, one run
 * (bench/results/h200-wave-and-depth-rules.log, with torch.bmm): 10000 x 64^3 64 x 64 S4
 * 21.1 TFLOPS against S2's 19.4, 1000 x 128^3 128 x 64 S4 32.0 against S2's 29.1 and 128 x 128
 * S5's 29.3, 1000 x 256^3 45.8 against 43.2 and 43.6, 100 x 512^3 49.6 against 47.3 and 45.6
 * (torch.bmm 18.0, 26.5, 45.8, 47.2). */
#define FP64_DEEP                                                                                  \
    MMA(128, 64, 16, 64, 32, 4), MMA(64, 128, 16, 32, 64, 4), MMA(64, 64, 16, 32, 32, 4)
#define FP64_DEEP_SETS (sizeof((const clgemm_config[]){FP64_DEEP}) / sizeof(clgemm_config))
/* FP64 where static local arrays may take more (compute capability 9.0 whose probe passed:
 * 227 KiB): 128 x 128 tiles of 8 warps in 5 stages (160 KiB, one work-group an SM) first. H200
 * with the K loop unrolled by its stages (bench/gpu/run.sh fp64-sweep, one run): 8192^2 51.8
 * TFLOPS against the 48 KiB set's 49.1-49.4, 4096^2 53.8 against 52.2-52.3 (3 to 6 stages of
 * 128 x 128 within 1 %; 256 x 64, 64 x 256 and 32 x 64 warp tiles slower;
 * bench/results/h200-fp64-sweep-unrolled-loop.log). The deep sets follow for the problems
 * these tiles leave idle, then the 48 KiB sets (on the H200 only 64 x 64 S2 is ever reached there,
 * for problems nothing else suits); a problem whose last wave or short K the 128 x 128 tiles
 * lose starts the list after them, a device without the memory after the deep sets too. */
#define FP64_LARGE_LOCAL MMA(128, 128, 16, 64, 32, 5), FP64_DEEP, FP64_48K
static const clgemm_config fp64_large_local[] = {FP64_LARGE_LOCAL, END_OF_LIST};
static const clgemm_config fp64_large_local_small_batch[] = {FP64_LARGE_LOCAL, FP64_BATCH_SMALL,
                                                             END_OF_LIST};

/* Whether the last, partial wave of 128 x 128 tiles (one work-group an SM) costs more than those
 * tiles gain over the 48 KiB sets' 128 x 64 (two an SM, and a last wave's lone work-groups run
 * faster): about 6 % a wave at large sizes, so they lead where the waves rounded up are at most
 * 1.06 times the waves. H200, both tilings forced, two rounds each, the rule's choice first
 * (bench/results/h200-fp64-last-wave-rule.log): 128 x 128 at 2047^2 (1.94 waves) equal,
 * 4096^2 (7.76) +4.5 %, 6000^2 (16.7) +2-4 %, 7000^2 (22.9) +5-7 %, 8192^2 +6 %, 10000^2 (47.3)
 * +11 %, 12288^2 +8-10 %; 128 x 64 at 2049^2 (2.19) +15 %, 2560^2 (3.03) +9 %, 3000^2 and
 * 3072^2 (4.36) +9 % and +4-7 %, 4097^2 and 4160^2 (8.25) +2-3 %, 5000^2 (12.1) +2-5 %, 5120^2
 * (12.1) equal. Padding alone does not sort them: 2560^2 and 7000^2 go against it. Then at
 * problems outside the derivation, the rule's pick predicted first: 2304^2 128 x 64 +8-14 %,
 * 4608^2, 6500^2, 9000^2 128 x 128 +2-4 %, +4-7 %, +4.5 %, 3500^2 equal, 5500^2 128 x 64 1-2 %
 * slower (the one miss), the batch 100 x 512^3 equal. */
static bool last_wave_costs(const device_info *info, const gemm_dims *d) {
    if (d->m == 0 || d->n == 0 || info->compute_units == 0) return false; /* any size */
    double waves = (double)(clgemm__round_up(d->m, 128) / 128) *
                   (double)(clgemm__round_up(d->n, 128) / 128) * (double)d->batch /
                   (double)info->compute_units;
    return ceil(waves) > 1.06 * waves;
}

/* Whether K is too short for 128 x 128 tiles' five stages against 128 x 64 tiles' four (two
 * work-groups an SM, one's start and end hidden behind the other's loop). H200, both forced, two
 * rounds (bench/results/h200-wave-and-depth-rules.log): squares 2047^2 39.6-40.3 TFLOPS
 * against 41.1-41.4, 3500^2 48.1-48.2 against 49.8-50.2, 4096^2 54.8-54.9 against 55.2-55.8;
 * 6000^2 52.6-54.6 against 47.4-48.7, 8192^2 52.5-52.7 against 49.6-49.9, 10000^2 50.0-50.2
 * against 46.1-46.2; batches 8 x 2048^3 54.2 against 55.9, 30 x 2048^3 55.4 against 57.6, 16 and
 * 50 x 1024^3 51.7-53.0 against 52.9-55.1, 1000 x 256^3 43.6 against 45.8. */
#define FP64_LARGE_TILE_MIN_K 6000
static bool too_short(const gemm_dims *d) {
    return d->k > 0 && d->k < FP64_LARGE_TILE_MIN_K;
}

/* 8-bit: slices of 64 bytes a row, as FP16's fastest set (two k32 steps a barrier), in 48 KiB;
 * 64 x 32 warp tiles, because an operand stored MN-major is transposed through registers and
 * 64 x 64 ones then spill (ptxas: 184-388 bytes; scripts/check_mma8_ptx.sh). Not measured on a
 * device yet. */
static const clgemm_config eight[] = {MMA(128, 128, 64, 64, 32, 3), MMA(64, 64, 64, 32, 32, 3),
                                      END_OF_LIST};
static const clgemm_config none[] = {END_OF_LIST};
/* FP64 with 17 to 32 rows along M (of the column-major problem) by 4096 or more along N, K of 4096
 * or more, one matrix: 32 x 128 tiles of four 32 x 32 warp tiles in 4 stages (80 KiB: two
 * work-groups an SM, which the planner counts by local memory), where the 64-row tiles are half
 * empty or worse. H100, row-major NN, two rounds, cuBLAS in the same call, forced
 * (bench/results/h100-fp64-32-row-tiles.log): 8192 x 32 x 8192 split 4 ways 0.213-0.214 ms
 * against the 64 x 64 default's 0.240-0.242 (cuBLAS 20.3 TFLOPS: 0.212 ms), 4096 x 32 x 8192
 * split 4 or 8 0.120-0.128 against 0.144-0.147 (17.3: 0.124), 16384 x 32 x 4096 split 4 0.224-0.226
 * against 0.256 (21.1: 0.204); 32 x 128 in 32 x 64 warp tiles, 32 x 256 and 32 x 64 up to 10 %
 * behind it or slower than the default; split 5 ways, the planner's count before it saw local
 * memory (three work-groups an SM by registers, two in fact: offline ptxas 187-195 registers),
 * 0.246-0.248. As the default, against the build before (bench/results/
 * h100-fp64-32-row-fp32-short-m-defaults.log): 0.214-0.219 against 0.240-0.242 (cuBLAS 19.3),
 * 0.125-0.126 against 0.146 (16.2), and 16384 x 32 x 4096, now split 2 ways, 0.215-0.217 against
 * 0.257 (20.3). Other layouts, unaligned operands, fewer rows: unmeasured. */
static const clgemm_config fp64_short_32[] = {MMA(32, 128, 16, 32, 32, 4), END_OF_LIST};
static bool fp64_short_32_fits(const gemm_dims *d) {
    return d->batch == 1 && d->aligned && !d->a_along_k && !d->b_along_n && d->m > 16 &&
           d->m <= 32 && d->n >= 4096 && d->k >= 4096;
}

/* 8-bit types are the defaults below compute capability 9.0 only: there the tma family takes
 * single matrices, and the rest (batches, operands no tensor map describes) stay where they
 * were planned before these kernels, on the CUDA cores, until a device run measures them. */
static const clgemm_config *defaults(const device_info *info, clgemm_precision type,
                                     const gemm_dims *dims) {
    if (clgemm__type(type)->size == 1) return info->nv_compute_capability < 90 ? eight : none;
    if (type == CLGEMM_DOUBLE) {
        if (fp64_short_32_fits(dims) &&
            clgemm__config_check(fp64_short_32, info, type) == CLGEMM_SUCCESS)
            return fp64_short_32;
        const bool small_batch =
            dims->batch > 1 && dims->m > 0 && dims->m <= 32 && dims->n > 0 && dims->n <= 32;
        const clgemm_config *list = small_batch ? fp64_large_local_small_batch : fp64_large_local;
        /* Past the 128 x 128 tiles where they do not serve or fit, past the deep sets too
         * where those do not fit (the 48 KiB sets then). */
        if (clgemm__config_check(&list[1], info, type) != CLGEMM_SUCCESS)
            return list + 1 + FP64_DEEP_SETS;
        const bool large = clgemm__config_check(&list[0], info, type) == CLGEMM_SUCCESS &&
                           !last_wave_costs(info, dims) && !too_short(dims);
        return large ? list : list + 1;
    }
    return type == CLGEMM_SINGLE ? tf32 : half;
}

static const clgemm_config quick[] = {MMA(128, 128, 32, 64, 64, 3), MMA(128, 128, 16, 64, 64, 3),
                                      MMA(128, 64, 16, 64, 32, 2),  MMA(64, 64, 32, 32, 32, 3),
                                      MMA(64, 64, 16, 32, 32, 2),   MMA(128, 128, 64, 64, 32, 3),
                                      MMA(64, 64, 64, 32, 32, 3),   END_OF_LIST};

/* H200 FP64, copies against scalar loads: 2049^2 +12 %, 4097^2 +16 %, 8193^2 +13 %. */
const family_desc clgemm__family_mma = {
    TENSOR_CORE_FAMILY(CLGEMM_FAMILY_MMA, mma), .aligned_copies_pay = true, .linear_tiles = true,
    .tail_pays = true, .local_bytes = clgemm__warp_tiles_local_bytes};
