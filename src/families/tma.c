/* tma.c: Hopper's wgmma fed by the bulk tensor copies (cl/tma.cl): one producer warp copies each
 * K slice of A and B by tensor map into STAGES stages of the real (227 KiB) local memory, and
 * MWG/64 consumer warpgroups multiply straight from them. The call passes the two maps (the exec
 * layer encodes them per call over the buffers' device addresses: exec/tensor_map.c), so only a
 * device whose driver encodes maps (device_info.nv_tma: compute capability 9.0, the patched-PTX
 * probe passed, libcuda found) ever builds it, and a call whose operands no map can describe
 * (base or leading dimension off 16 bytes, a broadcast operand, a batch table, TF32 stored
 * MN-major, the 3xTF32 mode without its residuals) is planned as if the family were absent.
 * Types: FP16 and BF16 with FP32 accumulation (C in the input type or FP32), FP32 in the TF32
 * mode and in the 3xTF32 mode (the operands' residuals beside them, exec/pack.c), and, K-major
 * only, INT8 into INT32 and FP8 E4M3 / E5M2 into FP32, FP16 or BF16 (an operand stored MN-major is
 * copied K-major first: exec/pack.c). Two more descriptors run the same kernel: tma_simt (FP32 on
 * the CUDA cores) and tma_fp64 (FP64 on the DMMA tensor cores), below. */
#include "families/family.h"

#include <stdio.h>

enum { MWG, NWG, KWG, STAGES, PERSIST, STAGE_C, SETMAXNREG, TALL };

static const family_param params[] = {
    {"MWG", MWG, 64, 256, "work-group tile along M (MWG/64 consumer warpgroups)"},
    {"NWG", NWG, 64, 256, "work-group tile along N (the instruction's N)"},
    {"KWG", KWG, 0, 0,
     "depth of one K slice: one 128-byte swizzle row (128 8-bit, 64 FP16/BF16, 32 TF32)"},
    {"STAGES", STAGES, 2, 8, "K slices in flight in local memory"},
    {"PERSIST", PERSIST, 1, 2,
     "2: as many work-groups as the device holds at once loop over the tiles, each tile's copies "
     "under the one before's products and stores; 1 (or 0): one tile a work-group"},
    {"STAGE_C", STAGE_C, 1, 2,
     "2: C leaves through 8 KiB of local memory a consumer warpgroup, in 16-byte pieces (beta 0, "
     "C aligned); 1 (or 0): each thread stores its own values"},
    {"SETMAXNREG", SETMAXNREG, 1, 2,
     "2: the producer is a warpgroup that keeps 40 registers a thread and gives the rest to the "
     "consumers (setmaxnreg: 232 each at 128 rows); 1 (or 0): one producer warp, registers even"},
    {"TALL", TALL, 0, 0, "unused: a consumer warpgroup multiplies 64 rows (tma_simt's option)"},
};

/* PERSIST, STAGE_C, SETMAXNREG and TALL came after configurations were written without them
 * (optional: 0 and 1 keep one tile a work-group, the direct stores and the producer warp, with
 * no build option). */
static const family_param_ext param_ext[] = {
    {0, 0, false, 0, 0}, {0, 0, false, 0, 0}, {0, 0, false, 0, 0}, {0, 0, false, 0, 0},
    {0, 0, true, 0, 0},  {0, 0, true, 0, 0},  {0, 0, true, 0, 0},  {0, 0, true, 0, 0},
};
_Static_assert(sizeof param_ext / sizeof param_ext[0] == sizeof params / sizeof params[0],
               "one param_ext entry per parameter");

/* A consumer warpgroup's rows (cl/tma.cl's CONSUMER_ROWS): 64, 128 with TALL 2, 32 in 32-row
 * tiles. */
static int consumer_rows(const int *v) {
    return v[MWG] == 32 ? 32 : v[TALL] == 2 ? 128 : 64;
}

/* The consumer warpgroups and the producer beside them: a warp, or a warpgroup (SETMAXNREG 2). */
static size_t threads_of(const int *v) {
    return 128 * (size_t)(v[MWG] / consumer_rows(v)) + (v[SETMAXNREG] == 2 ? 128 : 32);
}

/* INT8, E4M3, E5M2: the one-byte types. */
static bool eight_bit(clgemm_precision type) {
    return clgemm__type(type)->size == 1;
}

static bool supported(const device_info *info, clgemm_precision type, clgemm_compute compute) {
    return info->nv_tma && info->nv_compute_capability == 90 &&
           (clgemm__wgmma_types(type, compute) ||
            (type == CLGEMM_SINGLE && compute == CLGEMM_COMPUTE_FP32_3XTF32) ||
            (eight_bit(type) &&
             (compute == CLGEMM_COMPUTE_DEFAULT || compute == CLGEMM__COMPUTE_ANY)));
}

/* The stages (1024-byte aligned), a full and an empty barrier of 8 bytes each per stage, and
 * with STAGE_C 2 C's 8 KiB a consumer warpgroup. */
static size_t local_bytes(const int *v) {
    const size_t c_stage = v[STAGE_C] == 2 ? 8192 * (size_t)(v[MWG] / 64) : 0;
    return (size_t)v[STAGES] * ((size_t)(v[MWG] + v[NWG]) * 128 + 16) + 1024 + c_stage;
}

/* (a slice row is 128 bytes whatever the type) */
static size_t config_local_bytes(const clgemm_config *c, clgemm_precision type) {
    (void)type;
    return local_bytes(c->params);
}

/* The rules of every element type: tile sides, a slice of one 128-byte row, the stages, the
 * options' values, the threads and the local memory. */
static bool slots_fit(const clgemm_config *c, const device_info *info, const type_desc *t) {
    const int *v = c->params;
    /* (32-row tiles: tma_simt's, one warpgroup of 32 rows) */
    const bool simt = c->family == CLGEMM_FAMILY_TMA_SIMT;
    if (v[MWG] != 64 && v[MWG] != 128 && v[MWG] != 256 && !(simt && v[MWG] == 32)) return false;
    if (v[NWG] != 64 && v[NWG] != 128 && v[NWG] != 256) return false;
    if ((size_t)v[KWG] * t->size != 128) return false;
    if (v[STAGES] < 2) return false; /* one stage: the producer would wait on its own consumers */
    if (v[PERSIST] > 2 || v[STAGE_C] > 2 || v[SETMAXNREG] > 2 || v[TALL] > 2) return false;
    /* 128-row consumer warpgroups: tma_simt's 128 x 64 tiles only (a thread's 8 x 8 block; 128
     * columns would hold 128 accumulators beside the loads, past what a thread may keep) */
    if (v[TALL] == 2 && (!simt || v[MWG] != 128 || v[NWG] != 64)) return false;
    /* 32-row tiles: a thread's NWG/32 columns, read 4 at a time where B is MN-major */
    if (v[MWG] == 32 && v[NWG] < 128) return false;
    size_t threads = threads_of(v);
    if (threads > info->max_work_group_size || threads > info->max_work_item_sizes[0]) return false;
    return local_bytes(v) <= clgemm__static_local_limit(info);
}

static bool rules(const clgemm_config *c, const device_info *info, const type_desc *t) {
    if (t->complex || (t->size != 1 && t->size != 2 && t->size != 4)) return false;
    return slots_fit(c, info, t);
}

/* The strided batches the families' batch lists were measured on: 16 matrices or more, A
 * MN-major (fewer matrices, or A K-major: unmeasured). */
static bool measured_batch(const gemm_dims *d) {
    return d->batch >= 16 && !d->a_along_k;
}

/* Whether both sides of C, M and N, lie in [lo, hi]. */
static bool sides_within(const gemm_dims *d, size_t lo, size_t hi) {
    return d->m >= lo && d->m <= hi && d->n >= lo && d->n <= hi;
}

/* The device's compute units, at least one. */
static size_t units_of(const device_info *info) {
    return info->compute_units ? info->compute_units : 1;
}

/* Persistent (PERSIST 2): the work-groups an SM holds at once, by local memory (at most two:
 * the registers of two 128 x 128 tiles' consumers fill an SM), times the SMs; 0 otherwise. The
 * 1 KiB local_bytes keeps for alignment stands for the 1 KiB each work-group reserves, so 128 x
 * 128 tiles in 3 stages with C staged (112 KiB used) run two an SM. */
static size_t persistent_groups(const clgemm_config *c, const device_info *info) {
    const int *v = c->params;
    if (v[PERSIST] != 2) return 0;
    size_t per_sm = clgemm__groups_by_local(info, local_bytes(v));
    if (per_sm > 2) per_sm = 2;
    return per_sm * units_of(info);
}

static void launch(const clgemm_config *c, size_t m, size_t n, size_t local[2], size_t global[2]) {
    const int *v = c->params;
    local[0] = threads_of(v);
    local[1] = 1;
    global[0] = (m + (size_t)v[MWG] - 1) / (size_t)v[MWG] * local[0];
    global[1] = (n + (size_t)v[NWG] - 1) / (size_t)v[NWG];
}

static void tile(const clgemm_config *c, size_t *mt, size_t *nt, size_t *kt) {
    *mt = (size_t)c->params[MWG];
    *nt = (size_t)c->params[NWG];
    *kt = (size_t)c->params[KWG];
}

/* cl/tma.cl's WG_TYPE (C's type reaches it as TYPE_C). */
static int call_options(const kernel_call *k, char *buf, size_t size) {
    int type;
    switch (k->type_ab) {
    case CLGEMM_HALF:
        type = 0;
        break;
    case CLGEMM_BFLOAT16:
        type = 1;
        break;
    case CLGEMM_INT8:
        type = 3;
        break;
    case CLGEMM_E4M3:
        type = 4;
        break;
    case CLGEMM_E5M2:
        type = 5;
        break;
    default:
        type = 2; /* FP32 in the TF32 mode */
    }
    /* 3xTF32: the residual maps' products too (the call's residuals, exec/pack.c). */
    const int split3 = k->compute == CLGEMM_COMPUTE_FP32_3XTF32;
    /* Stream-K (a persistent kernel built with STREAMK) shares out only the last wave. */
    return snprintf(buf, size, " -DWG_TYPE=%d -DSPLIT3=%d -DSK_TAIL_WAVES=1", type, split3);
}

/* A configuration one tile a work-group (TMA) or persistent (TMA_P, TMA_PS with C staged); all
 * its parameters (TMA_ALL, the last the producer warpgroup's setmaxnreg) or all but that. */
#define TMA_ALL(mwg_, nwg_, kwg_, stages_, persist_, stage_c_, setmaxnreg_)                        \
    {                                                                                              \
        .family = CLGEMM_FAMILY_TMA, .params = {                                                   \
            mwg_,                                                                                  \
            nwg_,                                                                                  \
            kwg_,                                                                                  \
            stages_,                                                                               \
            persist_,                                                                              \
            stage_c_,                                                                              \
            setmaxnreg_                                                                            \
        }                                                                                          \
    }
#define TMA_WITH(mwg_, nwg_, kwg_, stages_, persist_, stage_c_)                                    \
    TMA_ALL(mwg_, nwg_, kwg_, stages_, persist_, stage_c_, 0)
#define TMA(mwg_, nwg_, kwg_, stages_)    TMA_WITH(mwg_, nwg_, kwg_, stages_, 0, 0)
#define TMA_P(mwg_, nwg_, kwg_, stages_)  TMA_WITH(mwg_, nwg_, kwg_, stages_, 2, 0)
#define TMA_PS(mwg_, nwg_, kwg_, stages_) TMA_WITH(mwg_, nwg_, kwg_, stages_, 2, 2) /* C staged */
#define END_OF_LIST                                                                                \
    { .family = 0 }

/* H200 whole calls, FP16 (bench/results/h200-tma-map-buffer-reuse.log): 128 x 256 tiles in 4
 * stages ran 8192^2 at 715 and 4096^2 at 618 TFLOPS (128 x 128: 567); 128 x 128 in 6 stages ran
 * 3072^2 at 446 (128 x 256: 420, a last wave a fifth full), 2048^2 at 319, 1024^2 at 64. The
 * 128 x 256 tiles persistent (bench/results/h200-tma-persistent.log, same run): 8192^2 738
 * against 729, 4096^2 643 against 598 and 631. TF32's keep one tile a work-group: 378 against
 * 372 at 8192^2 is within the runs' spread, and its A read into registers needs 231 registers
 * a thread in the persistent 128 x 256 kernel, past the 224 its work-group may hold. With C
 * staged through local memory (bench/results/h200-tma-staged-c.log, two rounds alternated):
 * FP16 8192^2 745-746 against 728, 4096^2 679-683 against 629-646, 2048^2 370-383 against
 * 355-357, BF16 8192^2 763 against 749-751, TF32 8192^2 374 against 369, 4096^2 336 against
 * 331 (TF32's 128 x 128 tiles, which narrow shapes take, not yet measured staged). */
static const clgemm_config half[] = {TMA_PS(128, 256, 64, 4), TMA_WITH(128, 128, 64, 6, 0, 2),
                                     END_OF_LIST};
/* TF32 and 3xTF32 with a producer warpgroup that gives its registers to the consumers
 * (SETMAXNREG 2), so that A read into registers (exec/call_plan.c) fits 128 x 256 tiles
 * (bench/results/h200-tf32-setmaxnreg.log, row-major NN, two rounds against the old default in
 * the same run): TF32 8192^2 388 against 371-372 (cuBLAS 391), 4096^2 360-370 against 326-329
 * (cuBLAS 342), 3072^2 257-262 against 246-251, 2048^2 241-248 against 212-222 (128 x 128,
 * which the planner takes there); 3xTF32 8192^2 130-131 against 123-124, 4096^2 135 against
 * 118-120. Both operands K-major: 393-395 either way. */
static const clgemm_config tf32[] = {TMA_ALL(128, 256, 32, 4, 0, 2, 2), TMA(128, 128, 32, 6),
                                     END_OF_LIST};
/* H200 whole calls, row-major NT (both operands K-major; bench/results/h200-tma-8bit.log): 128 x
 * 256 tiles in 4 stages ran INT8 8192^2 at 1445 TOPS and 4096^2 at 1102 (cuBLASLt 940 and 754),
 * E4M3 into FP32 8192^2 at 1393 TFLOPS (cuBLASLt 1350), into BF16 at 1362 (1441), E5M2 1425.
 * With C staged (bench/results/h200-tma-staged-c-defaults.log, two rounds alternated): INT8
 * 8192^2 1474-1504 against 1477-1482, 4096^2 1080-1103 against 1068-1083, E4M3 into FP32
 * 1406-1412 against 1368-1382, into BF16 1413-1415 against 1342-1371. */
static const clgemm_config eight[] = {TMA_WITH(128, 256, 128, 4, 0, 2), TMA(128, 128, 128, 6),
                                      END_OF_LIST};
static const clgemm_config none[] = {END_OF_LIST};
/* One side of 64 or less (of the column-major problem): 64 x 64 tiles in 8 stages (129 KiB, one
 * an SM), which at 8192 long fill one wave without splitting K, so no layers to sum (9 us of a
 * 70 us call). H200, whole calls, row-major, two rounds alternated (bench/results/
 * h200-narrow-tiles-one-wave.log): FP16 8192 x 64 x 8192 0.057-0.061 ms against 0.076-0.078 in
 * the 64 x 256 tiles of 5 stages split 4 ways (cuBLAS 0.081 ms), 64 x 8192 x 8192 0.055-0.059
 * against 0.072-0.076 in 128 x 64 tiles of 8 stages split 4 ways (two waves: the planner counted
 * residency by registers then) and 0.067-0.072 split 2 ways (one wave); 16384 x 64 x 16384
 * 0.152-0.157 against 0.173-0.180, 64 x 16384 x 16384 0.150-0.156 against 0.167-0.173 (128 x 64
 * unsplit, one wave: 0.149-0.150); BF16 alike. 6 stages split 2 ways lost (0.067-0.072). */
static const clgemm_config half_narrow[] = {TMA(64, 64, 64, 8), END_OF_LIST};
/* Strided batches of 16-bit matrices, H200 (bench/results/h200-tma-batches.log): 128 x 128 tiles
 * in 3 stages (98 KiB: two work-groups an SM, one's copies behind the other's products) ran 1000 x
 * 256^3 at 208 TFLOPS where 4 stages (one an SM) ran 174 and mma.sync 157; 1000 x 128^3 82 / 72,
 * 100 x 512^3 281 / 196. At 64^3 neither beat mma.sync (10000 x 64^3: 58 against 56). Persistent
 * from 256 rows and columns (bench/results/h200-tma-persistent.log, two rounds): FP16 1000 x 256^3
 * 211 against 200 and 205, BF16 209 and 210 against 186 and 190, FP16 100 x 512^3 298 and 312
 * against 292 and 284; at 128^3 72 and 78 against 82 and 78, so smaller ones keep a tile each.
 * With C staged through local memory (bench/results/h200-tma-staged-c-defaults.log, two rounds
 * alternated): FP16 1000 x 256^3 253-255 against 217, 300 x 384^3 289-295 against 270-280, but
 * 100 x 512^3 298-299 against 308-316; one tile a work-group, staged, lost everywhere (512^3
 * 251-256). Then 4 stages, staged (145 KiB, one an SM; a 256-deep tile's whole K in flight), won
 * at every size measured (bench/results/h200-batch-stages.log, two rounds, torch.bmm beside):
 * FP16 1000 x 256^3 114-115 us against 133-137 (torch 124), BF16 124-125 against 147-151 (114),
 * 300 x 384^3 97-100 against 116 (93), 500 x 320^3 126-131 against 164-169 (112), 100 x 512^3
 * 74-78 against the unstaged 3 stages' 86-88 (74); not staged 4 stages lost (150 at 256^3). So
 * from 256^2 (larger matrices than 512^2 not measured in batches), below it one tile a
 * work-group. */
static const clgemm_config half_batch[] = {TMA_PS(128, 128, 64, 4), TMA(128, 128, 64, 3),
                                           END_OF_LIST};
/* Strided batches of 8-bit matrices, row-major NN (B copied K-major first), H200
 * (bench/results/h200-tma-8bit-batches.log): 128 x 128 tiles of 3 stages, as FP16's, ran INT8 1000
 * x 256^3 at 128 TOPS and 100 x 512^3 at 205 where the CUDA cores (the only other route for 8-bit
 * types on this device) ran 26 and 27; E4M3 into FP32 alike. At 10000 x 64^3 the CUDA cores ran
 * 20.3 against 19.7 (64 x 128 tiles of 4 stages 20.9, a tiling the device suites have not run):
 * matrices of 64 rows or fewer stay there. */
static const clgemm_config eight_batch[] = {TMA(128, 128, 128, 3), END_OF_LIST};

/* Where the whole call of one matrix beat mma.sync's on the H200 (same log, same run): every
 * square from 1024^2 (64 against 59 TFLOPS; 2048^2 319 against 219, 3072^2 446 against 226),
 * and narrow matrices with a long K (8192 x 64 x 8192: 96 against 71). Smaller ones were not
 * measured. */
static bool pays(const gemm_dims *d) {
    if (d->m == 0) return true; /* a matrix of any size: the family's own list */
    const size_t shorter = d->m < d->n ? d->m : d->n;
    return (double)d->m * (double)d->n * (double)d->k >= 0x1p30 || (shorter <= 256 && d->k >= 4096);
}

/* Whether mt x nt tiles over d, one a compute unit, make at least min_tenths / 10 waves, keep
 * nine tenths of their waves' slots busy, and pad the matrix little (the planner's test among a
 * list's tiles; a list of one entry is taken whatever its padding): counted in tiles alone, a
 * matrix 128 wide would fill its waves with 128 x 256 tiles half outside it. */
static bool tiles_fill(const device_info *info, const gemm_dims *d, size_t mt, size_t nt,
                       size_t min_tenths) {
    size_t tiles;
    if (!clgemm__tile_count(d, mt, nt, &tiles)) return false;
    const size_t units = units_of(info), waves = (tiles + units - 1) / units;
    return 10 * tiles >= min_tenths * units && 10 * tiles >= 9 * waves * units &&
           clgemm__tiles_pad_little(mt, nt, d->m, d->n);
}

/* Whether 128 x 256 tiles fill the device's waves: at least two, the last nine tenths full
 * (4096^2: 512 tiles on 132 SMs, 97 %; 3072^2: 288, the third wave 18 % full). Fewer, larger
 * tiles leave each SM one long pipeline with nothing to hide its fill and drain behind. */
static bool wide_tiles_fill(const device_info *info, const gemm_dims *d) {
    return tiles_fill(info, d, 128, 256, 20);
}

static const clgemm_config *defaults(const device_info *info, clgemm_precision type,
                                     const gemm_dims *dims) {
    const bool sixteen_bit = type == CLGEMM_HALF || type == CLGEMM_BFLOAT16;
    if (dims->batch > 1) {
        if (eight_bit(type)) return dims->m > 64 ? eight_batch : none;
        if (!sixteen_bit || dims->m < 128 || dims->n < 128) return none;
        return dims->m < 256 || dims->n < 256 ? half_batch + 1 : half_batch;
    }
    /* 8-bit: every single matrix (the other families multiply 8-bit types on the CUDA cores:
     * 256^3 INT8 1.4 against 1.2 TOPS, 512^3 10.4 against 6.4, h200-tma-8bit.log). */
    if (!eight_bit(type) && !pays(dims)) return none;
    const bool wide = dims->m == 0 || wide_tiles_fill(info, dims);
    if (sixteen_bit && !wide && (dims->m <= 64 || dims->n <= 64)) return half_narrow;
    const clgemm_config *list = eight_bit(type) ? eight : type == CLGEMM_SINGLE ? tf32 : half;
    return wide ? list : list + 1; /* without the 128 x 256 tiles */
}

/* Every tile of the correctness matrix clgemm-tma-check ran on the H200, for each slice depth
 * (the tuner keeps those of the type's depth), then the defaults' tiles persistent, then some
 * with C staged through local memory (STAGE_C 2), then some with a producer warpgroup giving its
 * registers away (SETMAXNREG 2: TF32's A from registers in 128 x 256 tiles fits 232 registers,
 * where one warp's 168 spilled and serialised the wgmma; TF32's default since measured). */
static const clgemm_config quick[] = {TMA(128, 256, 64, 4),
                                      TMA(256, 128, 64, 4),
                                      TMA(128, 128, 64, 6),
                                      TMA(64, 256, 64, 5),
                                      TMA(128, 64, 64, 8),
                                      TMA(64, 64, 64, 8),
                                      TMA(128, 256, 32, 4),
                                      TMA(256, 128, 32, 4),
                                      TMA(128, 128, 32, 6),
                                      TMA(64, 256, 32, 5),
                                      TMA(128, 64, 32, 8),
                                      TMA(128, 256, 128, 4),
                                      TMA(256, 128, 128, 4),
                                      TMA(128, 128, 128, 6),
                                      TMA(64, 256, 128, 5),
                                      TMA(128, 64, 128, 8),
                                      TMA_P(128, 256, 64, 4),
                                      TMA_P(128, 128, 64, 3),
                                      TMA_P(128, 256, 32, 4),
                                      TMA_P(128, 128, 32, 3),
                                      TMA_P(128, 256, 128, 4),
                                      TMA_P(128, 128, 128, 3),
                                      TMA_PS(128, 256, 64, 4),
                                      TMA_PS(128, 128, 64, 3),
                                      TMA_PS(128, 128, 64, 4),
                                      TMA_PS(128, 256, 32, 4),
                                      TMA_PS(128, 128, 128, 3),
                                      TMA_WITH(128, 64, 64, 8, 0, 2),
                                      TMA_WITH(256, 128, 64, 4, 0, 2),
                                      TMA_WITH(128, 128, 64, 6, 0, 2),
                                      TMA_WITH(128, 256, 32, 4, 0, 2),
                                      TMA_WITH(128, 128, 32, 6, 0, 2),
                                      TMA_WITH(128, 256, 128, 4, 0, 2),
                                      TMA_ALL(128, 256, 32, 4, 0, 0, 2),
                                      TMA_ALL(128, 256, 32, 4, 0, 2, 2),
                                      TMA_ALL(128, 256, 64, 4, 2, 2, 2),
                                      END_OF_LIST};

/* setmaxnreg (SETMAXNREG 2) needs the entry's register cap. */
static const ptx_patch_need patch = {CLGEMM_PTX_CAP_FROM_THREADS};

const family_desc clgemm__family_tma = {TENSOR_CORE_FAMILY(CLGEMM_FAMILY_TMA, tma),
                                        .ptx_patch = &patch,
                                        .tensor_maps = true,
                                        .param_ext = param_ext,
                                        .persistent_groups = persistent_groups,
                                        .local_bytes = config_local_bytes};

/* What tma_simt and tma_fp64 share with each other (and tma): the kernel, its launch, tiles,
 * parts, patch, maps and local memory. */
#define TMA_KERNEL_FIELDS                                                                          \
    .file = "tma.cl", .kernel = "clgemm_tma", .launch = launch, .tile = tile, .searched = true,    \
    .split_k = true, .parts = clgemm__ptx_parts, .ptx_patch = &patch, .tensor_maps = true,         \
    .param_ext = param_ext, .local_bytes = config_local_bytes

/* ---- FP32 on the CUDA cores, fed by the same copies (tma_simt; cl/tma.cl's WG_TYPE 6) ------- */
/* The same kernel, copies, pipeline, tiles and schedules, but the consumers multiply FP32 from the
 * stages with FFMA (no tensor core, exact FP32: the default compute mode), each thread an 8 x
 * NWG/16 block, either operand either way (no copy first). What it frees the CUDA cores of, next
 * to the register-blocked family: the global loads, the local stores, their addresses and the
 * barriers, about 14 % of that family's instructions on the H200 (docs/perf/NOTES.md). */
static const family_param simt_params[] = {
    {"MWG", MWG, 32, 128,
     "work-group tile along M (MWG/64 consumer warpgroups; 32: one, a thread 8 rows by NWG/32 "
     "columns)"},
    {"NWG", NWG, 64, 256, "work-group tile along N (a thread's block: 8 rows by NWG/16 columns)"},
    {"KWG", KWG, 0, 0, "depth of one K slice: one 128-byte swizzle row (32 FP32)"},
    {"STAGES", STAGES, 2, 8, "K slices in flight in local memory"},
    {"PERSIST", PERSIST, 1, 2,
     "2: as many work-groups as the device holds at once loop over the tiles, each tile's copies "
     "under the one before's products and stores; 1 (or 0): one tile a work-group"},
    {"STAGE_C", STAGE_C, 0, 0, "unused: C leaves by each thread's own stores"},
    {"SETMAXNREG", SETMAXNREG, 1, 2,
     "2: the producer is a warpgroup that keeps 40 registers a thread and gives the rest to the "
     "consumers; 1 (or 0): one producer warp, registers even"},
    {"TALL", TALL, 1, 2,
     "2: a consumer warpgroup multiplies 128 rows, a thread 8 rows by NWG/8 columns (twice the "
     "products a local load; 128 x 64 tiles only); 1 (or 0): 64 rows, 8 by NWG/16"},
};
_Static_assert(sizeof simt_params / sizeof simt_params[0] == sizeof params / sizeof params[0],
               "the same slots as tma's, so its rules, tiles and launch serve both");

static bool simt_supported(const device_info *info, clgemm_precision type, clgemm_compute compute) {
    return info->nv_tma && info->nv_compute_capability == 90 && type == CLGEMM_SINGLE &&
           (compute == CLGEMM_COMPUTE_DEFAULT || compute == CLGEMM__COMPUTE_ANY);
}

static int simt_call_options(const kernel_call *k, char *buf, size_t size) {
    (void)k;
    return snprintf(buf, size, " -DWG_TYPE=6 -DSPLIT3=0 -DSK_TAIL_WAVES=1");
}

#define SIMT_ALL(mwg_, nwg_, stages_, persist_, setmaxnreg_, tall_)                                \
    {                                                                                              \
        .family = CLGEMM_FAMILY_TMA_SIMT, .params = {                                              \
            mwg_,                                                                                  \
            nwg_,                                                                                  \
            32,                                                                                    \
            stages_,                                                                               \
            persist_,                                                                              \
            0,                                                                                     \
            setmaxnreg_,                                                                           \
            tall_                                                                                  \
        }                                                                                          \
    }
#define SIMT(mwg_, nwg_, stages_) SIMT_ALL(mwg_, nwg_, stages_, 0, 0, 0)
/* 128 x 64 tiles multiplied by one 128-row consumer warpgroup (TALL 2). */
#define SIMT_TALL(stages_) SIMT_ALL(128, 64, stages_, 0, 0, 2)

/* 128 x 128 tiles (8 x 8 blocks, one work-group an SM by registers), their halves (64 x 128 in 4
 * stages too: two an SM by local memory; 128 x 64 in 4 by one 128-row warpgroup: two an SM),
 * 32 x 128 and 32 x 256 (one 32-row warpgroup of 8 x 4 and 8 x 8 blocks, two an SM in 4 and 3
 * stages), persistent (128 x 128; 64 x 64 and 64 x 128 for batches), and 128 x 256 (8 x 16
 * blocks) with the producer's registers given to the consumers. */
static const clgemm_config simt_quick[] = {SIMT(128, 128, 4),
                                           SIMT(128, 128, 6),
                                           SIMT(128, 64, 6),
                                           SIMT_TALL(4),
                                           SIMT(32, 128, 4),
                                           SIMT(32, 256, 3),
                                           SIMT(64, 128, 6),
                                           SIMT(64, 128, 4),
                                           SIMT_ALL(128, 128, 4, 2, 0, 0),
                                           SIMT_ALL(64, 64, 4, 2, 0, 0),
                                           SIMT_ALL(64, 128, 4, 2, 0, 0),
                                           SIMT_ALL(128, 256, 4, 0, 2, 0),
                                           SIMT_ALL(128, 256, 3, 2, 2, 0),
                                           END_OF_LIST};

/* H200, two alternated rounds, cuBLAS 51.0-51.1 / 50.3-50.6 in the same run
 * (bench/results/h200-tma-simt-streamk-waves.log): 128 x 256 tiles in 4 stages with the producer's
 * registers given to the consumers ran row-major TN (both operands MN-major) 8192^2 at 52.0-52.1
 * TFLOPS and 4096^2 at 50.4-50.5, where the register-blocked family runs 39.1-39.2 and 38.4-38.6;
 * row-major NN (B K-major) 48.2-48.3 and 47.6-47.7, that family's 48.5-48.6 and 47.6. So one
 * matrix with both operands MN-major (the others copied so first where that pays: exec/pack.c),
 * where those tiles fill the waves; elsewhere the register-blocked family. */
static const clgemm_config simt_wide[] = {SIMT_ALL(128, 256, 4, 0, 2, 0), END_OF_LIST};
/* One matrix at most 256 wide along N (of the column-major problem) of at most 64 tiles of 128 x
 * 64 (half a wave) with a long K, split as planned: those tiles in 6 stages, B K-major or not.
 * H100, two alternated rounds, forced
 * (bench/results/h100-fp32-partial-wave-tiles-tma-simt-shapes.log): row-major NN 64 x 8192 x 8192
 * (column-major 8192 x 64; its K-major 64 x 8192 operand copied transposed first, as pack.c
 * plans it) 35.1-35.2 TFLOPS against the register-blocked family's 33.6, 256 x 256
 * x 16384 25.3-25.5 against 23.3 (cuBLAS 39.6 and 27.6); but narrow along M (8192 x 64 x 8192,
 * column-major 64 x 8192) 25.5 in 64 x 128 tiles against 31.1, and batches lost everywhere. As
 * the default, again against the register-blocked family forced (bench/results/
 * h100-tma-fp64-fp32-narrow-defaults.log): 64 x 8192 x 8192 33.0-33.8 against 32.6-33.0, 256 x 256
 * x 16384 23.6-23.9 against 22.2-22.3 (cuBLAS 35.9, 22.7); at 128 tiles it lost: 128 x 8192 x 8192
 * 37.3-39.1 against 41.1-41.2, 256 x 4096 x 8192 38.3-39.4 against 41.4-41.5. */
static const clgemm_config simt_narrow[] = {SIMT(128, 64, 6), END_OF_LIST};
/* The same at most 64 wide: 128 x 64 tiles in 4 stages multiplied by one 128-row consumer
 * warpgroup (TALL 2: 8 x 8 blocks, twice the products a local load, two work-groups an SM), split
 * as planned. H100, two alternated rounds against the 6-stage default, cuBLAS beside
 * (bench/results/h100-fp32-narrow-tall-warpgroup.log): row-major NN 64 x 8192 x 8192 37.0-37.1
 * TFLOPS against 35.0 (cuBLAS 37.1), 64 x 4096 x 8192 30.0-30.2 against 29.4 (33.5); TN 39.5
 * against 37.2, 33.5 against 32.4. At 256 wide it lost (256 x 256 x 16384 24.1-24.3 against
 * 24.8). */
static const clgemm_config simt_narrow_64[] = {SIMT_TALL(4), END_OF_LIST};
/* One matrix of 32 to 64 rows along M (of the column-major problem: a row-major call's n; fewer
 * unmeasured) by 4096 or more along N, with K of 4096 or more, stored either way: 64 x 128 tiles
 * in 4 stages, K split as planned. Four stages of them (96 KiB) let two work-groups share an SM
 * and keep B's loads off the CUDA cores, where the register-blocked family's 64 x 256 tiles
 * issued 0.65 instructions a cycle per scheduler from 2 warps, none ready in 35 % of the cycles
 * (bench/results/h100-fp32-narrow-nsight-compute.log). H100, two alternated rounds, forced
 * against the default (bench/results/h100-fp32-narrow-m-tma-simt.log): row-major 8192 x 64 x 8192
 * 37.0-37.1 TFLOPS against 32.4 (cuBLAS 38.3), 4096 x 64 x 8192 32.2-32.3 against 26.2 (32.2),
 * 16384 x 64 x 4096 36.3-36.4 against 31.8 (39.0), 8192 x 32 x 8192 18.9 against the 32 x 32
 * tiles' 12.0 (25.4); at 128 wide it lost (8192 x 128 x 8192 40.7 against 41.6-41.9). 3 stages
 * (three work-groups an SM) ran 26.3 under the planned split and 36.9 split 4 ways
 * (bench/results/h100-fp32-narrow-register-caps-tma-simt-tiles.log). The other layouts of 8192 x
 * 64 x 8192, one round (bench/results/h100-narrow-fp64-on-tma-fp64-fp32-layouts.log): row-major
 * TN 39.7 against 35.2, NT 36.5 against 31.3, TT (B copied MN-major first) 37.2 against 34.6.
 * The same tiles persistent (PERSIST 2; at the planned split, at most one tile and layer a
 * work-group) ran faster still. H100, row-major NN, forced against the plain grid in the same
 * build, two rounds (bench/results/h100-fp32-fp64-narrow-persistent-tiles.log): 16384 x 64 x 4096
 * 0.226-0.228 ms against 0.237-0.242, 8192 x 64 x 8192 0.225-0.226 against 0.235-0.240, 4096 x 64
 * x 8192 0.128-0.132 against 0.134-0.139 (cuBLAS 37.8, 37.2, 31.7 TFLOPS: 0.227, 0.231, 0.136
 * ms); as the default, with the split's sum in 32 x 8 groups, against the build before
 * (bench/results/h100-fp32-narrow-sum-rows-persistent-short-m.log): 0.222, 0.221, 0.126-0.128
 * against 0.241, 0.235-0.236, 0.133-0.135. Why the same units run 3-6 % faster in the
 * persistent kernel is not separated yet; the other layouts take it unmeasured. */
static const clgemm_config simt_short_m[] = {SIMT_ALL(64, 128, 4, 2, 0, 0), END_OF_LIST};
/* 16 to 32 rows: 32 x 128 tiles in 4 stages (one 32-row consumer warpgroup of 8 x 4 blocks, two
 * work-groups an SM), K split as planned, where 64 x 128 tiles are half empty or worse. H100, two
 * rounds, forced against the default, cuBLAS in each round
 * (bench/results/h100-fp32-32-row-tiles.log): row-major 8192 x 32 x 8192 29.9-30.0 TFLOPS against
 * 64 x 128's 18.7 (cuBLAS 25.4), 4096 x 32 x 8192 23.9-24.2 against 16.4-16.5 (20.7-20.8), 16384 x
 * 32 x 4096 29.1-29.2 against 18.4-18.6 (20.3), 8192 x 16 x 8192 15.4-15.5 against the
 * register-blocked 16 x 32 tiles' 10.5 (12.7); 32 x 256 in 3 stages (8 x 8 blocks)
 * ran 28.4-29.1, 21.6-22.1, 28.4-28.5, 15.1-15.2, and 31.2 at 8192 x 32 x 8192 row-major TN (the
 * default there: 20.3); 32 x 256 in 4 stages (one work-group an SM) 20.2-24.0. Fewer than 16 rows:
 * unmeasured. */
static const clgemm_config simt_short_32[] = {SIMT(32, 128, 4), END_OF_LIST};
/* Strided batches of matrices 128 to 256 a side (M and N), A MN-major: 128 x 128 tiles in 4
 * stages, persistent, so that a work-group's next tile's copies run under its last one's products
 * and stores, with C in 16-byte runs (cl/tma.cl FFMA_STORE_RUNS). H100, row-major NN, two rounds,
 * torch.bmm in the same call (bench/results/h100-fp32-c-runs-short-k.log): 1000 x 128^3 32.2-32.6
 * TFLOPS against the register-blocked family's 29.1 (torch.bmm 28.4), 1000 x 256^3 42.7-42.9
 * against 40.7-40.9 (43.8); in these tiles 100 x 512^3 42.1-42.3 against 42.5 and 10000 x 64^3 9.1
 * against 21.7 (one tile a matrix, three quarters empty): such matrices take the tiles below. */
static const clgemm_config simt_batch[] = {SIMT_ALL(128, 128, 4, 2, 0, 0), END_OF_LIST};
/* Batches of matrices 49 to 64 a side, one 64 x 64 tile a matrix, persistent, and of 257 to 512,
 * 64 x 128 tiles in 4 stages (two work-groups an SM), persistent. H100, row-major NN, two rounds
 * against the defaults, torch.bmm in the same call
 * (bench/results/h100-fp32-batches-persistent-tiles.log): 10000 x 64^3 28.2-28.8 TFLOPS against the
 * register-blocked family's 20.4-20.9 (torch.bmm 22.3), 300 x 384^3 42.7-43.1 against 41.3-42.2
 * (43.9), 100 x 512^3 42.2-42.4 against 41.8-42.0 (42.2); at 256^3 they tied 128 x 128 (41.5-42.0
 * against 41.7-42.6); 128 x 64 TALL and 128 x 128 in 3 stages lost or tied. Matrices of 49 to 63
 * (tiles three quarters full or more) unmeasured. */
static const clgemm_config simt_batch_small[] = {SIMT_ALL(64, 64, 4, 2, 0, 0), END_OF_LIST};
static const clgemm_config simt_batch_large[] = {SIMT_ALL(64, 128, 4, 2, 0, 0), END_OF_LIST};
/* The batch list for the matrices' sizes (none: the register-blocked family's). */
static const clgemm_config *simt_batch_for(const gemm_dims *d) {
    if (sides_within(d, 49, 64)) return simt_batch_small;
    if (sides_within(d, 128, 256)) return simt_batch;
    if (sides_within(d, 257, 512)) return simt_batch_large;
    return none;
}
static const clgemm_config *simt_defaults(const device_info *info, clgemm_precision type,
                                          const gemm_dims *dims) {
    (void)type; /* FP32 only (simt_supported) */
    if (dims->m == 0) return none;
    if (dims->batch != 1) return measured_batch(dims) ? simt_batch_for(dims) : none;
    if (dims->m >= 16 && dims->m <= 64 && dims->n >= 4096 && dims->k >= 4096)
        return dims->m <= 32 ? simt_short_32 : simt_short_m;
    size_t narrow_tiles = 0; /* (left 0 where n is 0) */
    (void)clgemm__tile_count(dims, 128, 64, &narrow_tiles);
    if (dims->n <= 256 && dims->m >= 256 && dims->k >= 4096 && narrow_tiles <= 64)
        return dims->n <= 64 ? simt_narrow_64 : simt_narrow;
    /* Counted over what the tiles cover once the planner peels a mostly empty last row or column
     * of them off (4097^2: 4096^2's 512 tiles, not 561 in 5 waves). H100, two rounds alternated
     * with the rule before, cuBLAS beside
     * (bench/results/h100-fp32-odd-squares-tma-simt-peeled.log): 4097^2 45.1-45.2 TFLOPS against
     * the register-blocked family's 42.8 (cuBLAS 43.7), 5000^2 47.2-47.8 against 46.4-46.5 (46.2);
     * peeled where these tiles ran already, 6145^2 48.4-48.7 against 45.3 (45.5), 8193^2 49.8
     * against 47.9-48.0 (47.9). */
    gemm_dims main = *dims;
    clgemm__peel_extent(128, 256, dims->m, dims->n, false, &main.m, &main.n);
    const bool both_mn_major = !dims->a_along_k && dims->b_along_n;
    return both_mn_major && wide_tiles_fill(info, &main) ? simt_wide : none;
}

const family_desc clgemm__family_tma_simt = {TMA_KERNEL_FIELDS,
                                             .id = CLGEMM_FAMILY_TMA_SIMT,
                                             .name = "tma_simt",
                                             .params = simt_params,
                                             .num_params =
                                                 (int)(sizeof simt_params / sizeof simt_params[0]),
                                             .rules = rules,
                                             .supported = simt_supported,
                                             .defaults = simt_defaults,
                                             .call_options = simt_call_options,
                                             .quick = simt_quick,
                                             .persistent_groups = persistent_groups,
                                             .peels = true,
                                             .strips_family = CLGEMM_FAMILY_REGBLOCK};

/* ---- FP64 on the DMMA tensor cores, fed by the same copies (tma_fp64; cl/tma.cl's WG_TYPE 7) --
 */
/* The same kernel, copies, pipeline, tiles and schedules, but the consumers multiply FP64 with
 * mma.sync m16n8k16 f64 (DMMA) from fragments they load from the stages, each warp a 32 x NWG/2
 * block of C, either operand either way (no copy first). What it frees the FP64 mma family
 * (cl/mma.cl, cp.async copies) of: the copies' addresses, bounds and instructions, and their
 * registers. A consumer thread holds NWG/2 FP64 accumulators (NWG registers), so NWG and MWG
 * stop at 128 (a 128 x 256 tile's accumulators alone would be an SM's 65,536 registers); 128 x
 * 128 tiles need the producer warpgroup's registers (SETMAXNREG 2: 232 a consumer thread;
 * offline, one producer warp's 168 spill the accumulators in the loop). */
static const family_param fp64_params[] = {
    {"MWG", MWG, 64, 128, "work-group tile along M (MWG/64 consumer warpgroups)"},
    {"NWG", NWG, 64, 128, "work-group tile along N (a warp's block: 32 rows by NWG/2 columns)"},
    {"KWG", KWG, 16, 16, "depth of one K slice: one 128-byte swizzle row (16 FP64)"},
    {"STAGES", STAGES, 2, 8, "K slices in flight in local memory"},
    {"PERSIST", PERSIST, 1, 2,
     "2: as many work-groups as the device holds at once loop over the tiles, each tile's copies "
     "under the one before's products and stores; 1 (or 0): one tile a work-group"},
    {"STAGE_C", STAGE_C, 0, 0, "unused: C leaves by each thread's own stores"},
    {"SETMAXNREG", SETMAXNREG, 1, 2,
     "2: the producer is a warpgroup that keeps 40 registers a thread and gives the rest to the "
     "consumers (232 each at 128 rows); 1 (or 0): one producer warp, registers even"},
    {"TALL", TALL, 0, 0, "unused: a consumer warpgroup multiplies 64 rows (tma_simt's option)"},
};
_Static_assert(sizeof fp64_params / sizeof fp64_params[0] == sizeof params / sizeof params[0],
               "the same slots as tma's, so its tiles and launch serve both");

static bool fp64_supported(const device_info *info, clgemm_precision type, clgemm_compute compute) {
    return info->nv_tma && info->nv_compute_capability == 90 && type == CLGEMM_DOUBLE &&
           (compute == CLGEMM_COMPUTE_DEFAULT || compute == CLGEMM__COMPUTE_ANY);
}

/* FP64 only, tiles of 64 or 128 a side (the accumulators' registers), then tma's rules. */
static bool fp64_rules(const clgemm_config *c, const device_info *info, const type_desc *t) {
    const int *v = c->params;
    if (t->complex || t->size != 8 || v[MWG] > 128 || v[NWG] > 128) return false;
    return slots_fit(c, info, t);
}

/* Persistent: as tma's, but one work-group an SM from 128 x 64 tiles on, whose consumers'
 * registers fill more than half an SM (offline, ptxas sm_90a: 128 x 64, 288 threads, 146-152
 * registers a thread; 128 x 128, 384 threads, the consumers' 232). */
static size_t fp64_persistent_groups(const clgemm_config *c, const device_info *info) {
    const int *v = c->params;
    size_t groups = persistent_groups(c, info);
    const size_t units = units_of(info);
    return v[MWG] * v[NWG] >= 128 * 64 && groups > units ? units : groups;
}

static int fp64_call_options(const kernel_call *k, char *buf, size_t size) {
    (void)k;
    return snprintf(buf, size, " -DWG_TYPE=7 -DSPLIT3=0 -DSK_TAIL_WAVES=1");
}

#define FP64_ALL(mwg_, nwg_, stages_, persist_, setmaxnreg_)                                       \
    {                                                                                              \
        .family = CLGEMM_FAMILY_TMA_FP64, .params = {                                              \
            mwg_,                                                                                  \
            nwg_,                                                                                  \
            16,                                                                                    \
            stages_,                                                                               \
            persist_,                                                                              \
            0,                                                                                     \
            setmaxnreg_                                                                            \
        }                                                                                          \
    }
#define FP64(mwg_, nwg_, stages_) FP64_ALL(mwg_, nwg_, stages_, 0, 0)

/* 128 x 128 tiles with the producer's registers given to the consumers (4 and 6 stages, and
 * persistent), 128 x 64 and 64 x 128 (one producer warp: 146-152 and 215-234 registers a thread,
 * no spill), 64 x 64 in 4 stages (two work-groups an SM) for shapes of few tiles. All seven pass
 * test_tensor_cores on an H100 (bench/results/h100-tma-fp64-fp32-narrow-defaults.log). */
static const clgemm_config fp64_quick[] = {FP64_ALL(128, 128, 4, 0, 2),
                                           FP64_ALL(128, 128, 6, 0, 2),
                                           FP64(128, 64, 6),
                                           FP64(128, 64, 8),
                                           FP64(64, 128, 6),
                                           FP64_ALL(128, 128, 4, 2, 2),
                                           FP64(64, 64, 4),
                                           END_OF_LIST};

/* H100, two alternated rounds, cuBLAS in the same run (bench/results/
 * h100-tma-fp64-fp32-narrow-defaults.log): 128 x 128 tiles in 6 stages with the producer's
 * registers given to the consumers ran row-major NN 8192^2 at 56.8-57.5 TFLOPS and 4096^2 at
 * 58.9-59.5, where the mma family's default ran 53.4 and 55.5-55.8 (cuBLAS 55.7 and 52.5); TN
 * (both operands MN-major) 57.6-57.8 and 59.4-60.2 against 50.0 and 52.4-52.7 (cuBLAS 52.9 and
 * 49.9). Below 7 waves the last wave's share decides (H100, row-major NN, two alternated rounds,
 * bench/results/h100-fp64-mid-squares-batches.log): where 128 x 128 tiles keep nine tenths of
 * their slots busy, they (2048^2, 1.9 waves: 51.6-52.9 against the mma family's 48.9-49.3;
 * 3584^2, 5.9: 58.8-60.0 against 54.8-55.3); else where 128 x 64 tiles do, they (2304^2: 52.4-53.8
 * against 45.5-45.8, where 128 x 128 ones ran 46.2-46.7; 3072^2: 55.7-56.2 against 51.4-51.6 and
 * 52.1-52.5); else the mma family (2560^2: 50.7-51.4 against 48.7-49.0 and 44.4-44.6; 1536^2:
 * 39.1-39.3 against 33.9-35.4). So one matrix whose A (of the column-major problem) is MN-major,
 * as in all of these, with each side and K of 2048 or more; A K-major (row-major NT, TT) stays
 * on the mma family. Shorter K where these tiles make seven waves or more (H100, row-major NN,
 * forced, two rounds, cuBLAS beside: bench/results/h100-fp64-c-pairs-short-k.log): from 1024 the
 * same tiles, 8192 x 8192 x 1024 57.8-57.9 TFLOPS against the mma family's 50.1-50.3 (cuBLAS
 * 59.1), 4096 x 4096 x 1024 54.9 against 51.0-51.4 (47.3); below, persistent ones in 4 stages
 * (fp64_persistent), 8192 x 8192 x 256 49.3-50.0 against 43.4-43.6 and the 6-stage tiles'
 * 45.3-46.0 (51.2); K under 256 unmeasured. */
static const clgemm_config fp64_large[] = {FP64_ALL(128, 128, 6, 0, 2), END_OF_LIST};
static const clgemm_config fp64_half[] = {FP64(128, 64, 6), END_OF_LIST};
/* The narrow and long-K shapes (H100, row-major NN, forced against the mma family's defaults, two
 * alternated rounds, cuBLAS beside: bench/results/h100-narrow-fp64-on-tma-fp64-fp32-layouts.log):
 * 8192 x 64 x 8192 (64 rows of the column-major problem) in 64 x 128 tiles 35.9-36.0 TFLOPS
 * against 35.0-35.3 (cuBLAS 36.3-36.5), 64 x 8192 x 8192 (64 columns) in 128 x 64 tiles 39.2-39.3
 * against 38.4 (38.6-38.9), 256 x 256 x 16384 in 128 x 64 tiles 30.2-30.3 against 28.9-29.1
 * (29.2-29.4); the other tiles lost (21.4-33.4). Each class as wide as measured: a side of 33 to 64
 * against sides and K of 8192 or more; both sides 129 to 256 with K of 16384 or more; B K-major
 * (row-major NN) as measured. */
static const clgemm_config fp64_short_m[] = {FP64(64, 128, 6), END_OF_LIST};
static const clgemm_config *fp64_narrow(const gemm_dims *d) {
    if (d->b_along_n) return NULL;
    const bool long_k = d->k >= 8192;
    if (long_k && d->m > 32 && d->m <= 64 && d->n >= 8192) return fp64_short_m;
    if (long_k && d->n > 32 && d->n <= 64 && d->m >= 8192) return fp64_half;
    if (d->k >= 16384 && d->m > 128 && d->m <= 256 && d->n > 128 && d->n <= 256) return fp64_half;
    return NULL;
}
/* Strided batches of matrices 256 to 512 a side (M and N), A MN-major: 128 x 128 tiles in 4
 * stages, persistent, the producer's registers given to the consumers, C in 16-byte pairs of rows
 * (cl/tma.cl DMMA_STORE_PAIRS). H100, row-major NN, two rounds against the build before the pairs
 * and torch.bmm in the same call (bench/results/h100-fp64-c-pairs-batches.log): 1000 x 256^3
 * 50.7-51.7 TFLOPS against the mma family's 45.0-45.4 (torch.bmm 46.3; before the pairs these
 * tiles ran 44.7-44.8), 100 x 512^3 51.3-51.9 against 49.4-49.7 (49.4); 1000 x 128^3 26.9-27.6
 * against 26.8-27.1 (a tie, left to the mma family). Fewer than 16 matrices: unmeasured. The
 * same tiles serve one matrix of K 256 to 1023 (fp64_large's comment). */
static const clgemm_config fp64_persistent[] = {FP64_ALL(128, 128, 4, 2, 2), END_OF_LIST};
static const clgemm_config *fp64_defaults(const device_info *info, clgemm_precision type,
                                          const gemm_dims *dims) {
    (void)type; /* FP64 only (fp64_supported) */
    if (dims->batch != 1)
        return measured_batch(dims) && sides_within(dims, 256, 512) ? fp64_persistent : none;
    if (dims->a_along_k || dims->k < 256) return none;
    const clgemm_config *narrow = fp64_narrow(dims);
    if (narrow) return narrow;
    /* Measured on squares of 2048 and more: a narrower matrix would fill its waves with tiles
     * that lie partly outside it (a side of 64 in 128 x 128 tiles: half of every tile). */
    if (dims->m < 2048 || dims->n < 2048) return none;
    /* From 7 waves on, a partial last wave costs at most an eighth: 128 x 128 tiles. */
    size_t tiles;
    const bool seven_waves =
        clgemm__tile_count(dims, 128, 128, &tiles) && tiles >= 7 * units_of(info);
    if (dims->k < 2048) /* (shorter K: measured in seven waves or more) */
        return !seven_waves ? none : dims->k >= 1024 ? fp64_large : fp64_persistent;
    if (seven_waves || tiles_fill(info, dims, 128, 128, 19)) return fp64_large;
    return tiles_fill(info, dims, 128, 64, 20) ? fp64_half : none;
}

const family_desc clgemm__family_tma_fp64 = {TMA_KERNEL_FIELDS,
                                             .id = CLGEMM_FAMILY_TMA_FP64,
                                             .name = "tma_fp64",
                                             .params = fp64_params,
                                             .num_params =
                                                 (int)(sizeof fp64_params / sizeof fp64_params[0]),
                                             .rules = fp64_rules,
                                             .supported = fp64_supported,
                                             .defaults = fp64_defaults,
                                             .call_options = fp64_call_options,
                                             .quick = fp64_quick,
                                             .persistent_groups = fp64_persistent_groups};
