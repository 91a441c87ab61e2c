/* plan.c: which kernel family and parameters one problem uses. In order: the handle's forced
 * configuration > the tuning database's entry nearest to the shape (of the batch's class, else
 * for a batch a single-matrix one that pads little) > the built-in default for the device's
 * class > a small tiled configuration every device runs. Tuning entries are keyed by types,
 * transposes and batch class too; a call is planned in the column-major terms its kernel
 * runs in (a row-major call swaps A and B: tuning_key in plan/plan.h). Each candidate is checked
 * against this device's limits before it is used, so a stale database entry or a default too
 * big for a small device is skipped rather than built. */
#include "plan/plan.h"

#include <limits.h>
#include <stdlib.h>

/* The nearest entry of this key, if the device runs it for this compute mode. */
static bool usable_entry(const device_info *info, const tuning_table *tuning, const tuning_key *key,
                         clgemm_compute compute, size_t m, size_t n, size_t k, clgemm_config *c) {
    return clgemm__tuning_lookup(tuning, key, m, n, k, c) &&
           clgemm__config_supports(c, info, key->type_ab, compute) &&
           clgemm__config_check(c, info, key->type_ab) == CLGEMM_SUCCESS;
}

/* The tuned configuration: the nearest entry of the batch's class, else (for a batch without
 * one) the nearest single-matrix entry if its tiles pad little. */
static bool tuned(const device_info *info, const tuning_table *tuning, const tuning_key *key,
                  clgemm_compute compute, size_t m, size_t n, size_t k, size_t batch,
                  clgemm_config *c) {
    tuning_key want = *key;
    want.batch_class = clgemm__batch_class(batch);
    if (usable_entry(info, tuning, &want, compute, m, n, k, c)) return true;
    if (want.batch_class == 0) return false;
    want.batch_class = 0;
    /* A single-matrix entry tuned for a nearby but larger shape may carry tiles that are mostly
     * padding, which a lone matrix pays for in occupancy it needs anyway but a batch of small
     * matrices pays in full. */
    return usable_entry(info, tuning, &want, compute, m, n, k, c) &&
           clgemm__config_pads_little(c, m, n);
}

clgemm_config clgemm__plan_choose(const device_info *info, const clgemm_config *forced,
                                  const tuning_table *tuning, const tuning_key *key,
                                  clgemm_compute compute, size_t m, size_t n, size_t k,
                                  size_t batch, bool aligned, const char **source) {
    const char *from;
    clgemm_config c;
    clgemm_precision precision = key->type_ab;
    /* A forced or tuned configuration is used only for the compute modes its family computes
     * (a TF32 kernel never serves an FP32 call). */
    if (forced && clgemm__config_supports(forced, info, precision, compute)) {
        c = *forced; /* checked when it was set */
        from = "override";
    } else if (tuning && tuned(info, tuning, key, compute, m, n, k, batch, &c)) {
        from = "tuned";
    } else if (c = clgemm__config_default_for_dims(
                   info, precision, compute,
                   &(const gemm_dims){m, n, k, batch, aligned, key->trans_a != CLGEMM_NO_TRANS,
                                      key->trans_b != CLGEMM_NO_TRANS}),
               clgemm__config_check(&c, info, precision) == CLGEMM_SUCCESS) {
        from = "default";
    } else {
        c = clgemm__config_fallback();
        from = "fallback";
        if (clgemm__config_check(&c, info, precision) != CLGEMM_SUCCESS)
            c = (clgemm_config){.family = CLGEMM_FAMILY_NAIVE, .mdimc = 1, .ndimc = 1};
    }
    if (source) *source = from;
    return c;
}

/* The least depth each split layer keeps (in slices); the most layers: CLGEMM__MAX_SPLITS. */
#define MIN_SLICES_PER_SPLIT 8

/* The kernel gives each of `splits` layers ceil(k / (splits * kwg)) slices; with more layers
 * than that fills, the last ones would be empty, and an empty layer still adds alpha * 0 to
 * the sum (NaN for an infinite alpha). So the count is cut to the layers that get depth. */
static int nonempty_layers(long splits, size_t k, size_t kwg) {
    if (splits <= 1 || k == 0) return 1;
    size_t slices = (k + kwg - 1) / kwg;
    size_t per_layer = (slices + (size_t)splits - 1) / (size_t)splits;
    return (int)((slices + per_layer - 1) / per_layer);
}

/* How many work-groups of this configuration an NVIDIA compute unit holds at once: 2048
 * work-items and 64 Ki 32-bit registers per SM on every architecture since Kepler. The register
 * count is an estimate (a work-item's accumulators, one row and one column of its block taken as
 * square, the staged loads and about 16 for addresses: any family), enough to tell one resident
 * work-group from two or four (H200, ptxas: regblock 256 x 128 FP32 239 registers, estimated
 * 184; mma FP64 128 x 64 255, estimated 224, two resident), and where the family says what
 * local memory a work-group takes, by that too (tma 128 x 64 tiles of 8 stages: two by
 * registers, one by local memory; counted by registers, the planner split 64 x 8192 x 8192 into
 * two waves). Elsewhere the register files differ and nothing was measured: one. */
static size_t resident_groups(const clgemm_config *c, const device_info *info,
                              clgemm_precision type) {
    if (info->cls != DEVICE_NVIDIA_GPU) return 1;
    size_t mt, nt, kt, local[2], global[2];
    clgemm__family(c->family)->tile(c, &mt, &nt, &kt);
    clgemm__config_launch(c, mt, nt, local, global);
    size_t threads = local[0] * local[1];
    size_t words = clgemm__type(type)->compute_size / 4;
    size_t block = mt * nt / threads, side = 1;
    while ((side + 1) * (side + 1) <= block)
        side++;
    size_t regs = (block + 2 * side) * words + (mt + nt) * kt / threads * words + 16;
    regs = (regs + 7) / 8 * 8;
    size_t by_regs = 65536 / (threads * regs), by_threads = 2048 / threads;
    size_t n = by_regs < by_threads ? by_regs : by_threads;
    const family_desc *f = clgemm__family(c->family);
    /* By local memory only where the probe found the SM's real figure (the limit is then the
     * SM's share less 2 KiB); OpenCL's 48 KiB is a work-group's, not the SM's. */
    if (f->local_bytes && info->local_mem_static > info->local_mem_size) {
        size_t by_local = clgemm__groups_by_local(info, f->local_bytes(c, type));
        if (by_local < n) n = by_local;
    }
    return n < 1 ? 1 : n;
}

int clgemm__plan_splits(const clgemm_config *config, const device_info *info, int forced,
                        clgemm_precision type, size_t m, size_t n, size_t k, size_t batch) {
    const family_desc *f = clgemm__family(config->family);
    if (!f || !f->split_k) return 1;
    size_t mt, nt, kwg;
    f->tile(config, &mt, &nt, &kwg);
    if (forced > 0) return nonempty_layers(forced, k, kwg);
    /* Split K and the batch share the third grid dimension (batch * layers work-group layers):
     * the tiles of every matrix count towards filling the device. */
    size_t groups;
    if (__builtin_mul_overflow(((m + mt - 1) / mt) * ((n + nt - 1) / nt), batch, &groups) ||
        groups == 0 || groups >= info->compute_units)
        return 1; /* nothing to split, or the tiles alone fill the device */
    /* Only a long K pays for the workspace and the reduction (H200: 512^3 lost 3x, 256 x 256 x
     * 16384 gained 4x; docs/perf/NOTES.md), or a K as long as a narrow matrix (a side <= 256):
     * H200 FP32 8192 x 64 x 8192 in 256 x 64 tiles split 8 ways ran 34.9 TFLOPS, where stream-K
     * (the schedule it had otherwise) ran 64 x 64 tiles at 28.6 and 256 x 64 ones at 26.9. On
     * NVIDIA a quarter of it is enough: 64 x 8192 x 4096 split 8 ways 27.2, 8192 x 64 x 4096
     * 25.1, 64 x 8192 x 2048 20.3, where stream-K ran 18.8, 17.8 and 12.4
     * (bench/results/h200-wave-and-depth-rules.log). */
    size_t longer = m > n ? m : n, shorter = m < n ? m : n;
    size_t narrow_k = info->cls == DEVICE_NVIDIA_GPU ? longer / 4 : longer;
    if (k < 4 * longer && !(shorter <= 256 && k >= narrow_k)) return 1;
    /* Two work-groups per compute unit: one's pipeline start hides behind the other's work
     * (H200, 256 x 256 x 16384 in FP32 64 x 64 tiles, 5 resident: 8 layers 21.4 TFLOPS, 16 24.7,
     * 32 23.3). On NVIDIA, no more than one wave of what the compute units hold: a second,
     * nearly empty wave costs nearly a whole one (8192 x 64 x 8192 in 256 x 64 tiles, 2
     * resident: 32 tiles x 8 layers 34.8 TFLOPS, x 9 layers 21.1; FP64 128 x 128 tiles, 1
     * resident: 32 layers 16.3, 64 14.7). Elsewhere nothing was measured: two. */
    size_t want = (2 * (size_t)info->compute_units + groups - 1) / groups;
    if (info->cls == DEVICE_NVIDIA_GPU) {
        size_t wave = resident_groups(config, info, type) * (size_t)info->compute_units;
        if (want * groups > wave) want = wave / groups > 1 ? wave / groups : 1;
    }
    size_t most = k / (kwg * MIN_SLICES_PER_SPLIT);
    if (want > most) want = most;
    if (want > CLGEMM__MAX_SPLITS) want = CLGEMM__MAX_SPLITS;
    return nonempty_layers((long)want, k, kwg);
}

/* The least K-slices a stream-K work-group should get: fewer, and the fix-up's traffic and the
 * pipeline's start-up outweigh the better balance. */
#define MIN_SLICES_PER_GROUP 4
/* Data-parallel grids that keep at least this share of the device's work-group slots busy over
 * their waves stay data-parallel (4096^2 on the H200: 512 tiles of 256 x 128 on 132 slots, 97%). */
#define DP_ENOUGH 0.9
/* More tiles than half the compute units but less than one whole wave stay data-parallel:
 * sharing them out cuts nearly every tile, and the stream-K kernel and its fix-up cost more than
 * the partial wave (H200 FP32, 128 x 128 tiles two an SM, 264 groups, stream-K against the plain
 * grid: 1536^2 (0.55 waves) 20.9 against 23.7-24.1 TFLOPS, 1792^2 (0.74) 24.2 against 32.4-32.6;
 * bench/results/h200-wave-and-depth-rules.log). From one wave on, since the fix-up's rewrite
 * (15-21 us where it took 67-80), stream-K wins or ties: 2176^2 (1.09 waves) 0.538-0.551 ms
 * against 0.621-0.624, 2304^2 (1.23) alike, 2560^2 (1.52) 0.875-0.885 against 0.929-0.933;
 * 3072^2 (2.18) +1-2 % (bench/results/h200-streamk-fixup-tile-bands.log). Nor do tiles
 * of which more than two fit an SM: the stream-K grid, two an SM, runs them with fewer warps than
 * the plain one (2176^2 in 128 x 64 tiles, four an SM, 578 tiles: 26.6 against 31.3). Where the
 * tiles were nearly a wave, stream-K ran 1408^2 (121 tiles of 128 x 128) at 19.0-19.2 and 1024^2
 * (128 of 128 x 64) at 14.5-14.7 (64 x 64 tiles 32 deep: 27.6-28.3 and 24.1-25.1). */
#define MIN_WAVES 1

/* A persistent configuration (the tma family's PERSIST 2) shares out only its last, partial
 * wave, and only where CLGEMM_STREAMK asks: on the H200 the stream-K kernel ran slower in every
 * form measured (FP16 8192^2 585-657 TFLOPS against 740-770, 10240^2 578-594 against 760-776;
 * h200-tma-stream-k-*.log), because ptxas serialised its wgmma instructions (C7514: the
 * compiler's copies of the accumulators at the unit loop's exit, before its last wait), with or
 * without spills; see docs/TENSOR_CORES.md. On the CUDA-core and FP64 tiles (tma_simt, tma_fp64;
 * no wgmma) it lost too, on an H100: FP64 8192^2 in 128 x 128 tiles (31.03 waves) 20.2-20.4 ms
 * against the plain grid's 19.3, 8192^2 x 1024 2.95 against 2.38 (its last 4 tiles cut into about
 * 33 parts each, added up serially), FP32 4096^2 in 128 x 256 tiles 3.11 against 2.71; the
 * persistent loop alone was already slower (20.0-20.2, 2.38, 2.98;
 * bench/results/h100-persistent-stream-k-squares.log). The kernel numbers slices in an int. */
static int persistent_streamk(int forced, size_t slices) {
    return forced > 0 && slices <= INT_MAX ? forced : 0;
}

int clgemm__plan_streamk(const clgemm_config *config, const device_info *info, int forced,
                         clgemm_precision type, size_t m, size_t n, size_t k, size_t batch) {
    const family_desc *f = clgemm__family(config->family);
    const size_t persistent = f && f->persistent_groups ? f->persistent_groups(config, info) : 0;
    if (!f || !(f->stream_k || persistent) || batch != 1 || k == 0 || forced == 0) return 0;
    if (forced < 0 && info->cls != DEVICE_NVIDIA_GPU) return 0; /* measured on the H200 only */
    size_t mt, nt, kt;
    f->tile(config, &mt, &nt, &kt);
    size_t tiles = ((m + mt - 1) / mt) * ((n + nt - 1) / nt), iters = (k + kt - 1) / kt, slices;
    /* The kernel numbers tiles in an int and slices in a long. */
    if (tiles > INT_MAX || __builtin_mul_overflow(tiles, iters, &slices) ||
        slices > LONG_MAX / 65536)
        return 0;
    if (persistent) return persistent_streamk(forced, slices);
    /* (at most 65,535 groups, as the handle clamps CLGEMM_STREAMK: the slice guard above and the
     * kernels' 64-bit range arithmetic count on it) */
    if (forced > 0) return forced < 65535 ? forced : 65535;
    /* At most two per compute unit: more only add fix-up work (H200, 64 x 8192 x 8192 in
     * 64 x 64 tiles of which five fit an SM: 132 groups 23.8 TFLOPS, 264 28.7, 528 26.9). */
    size_t per_unit = resident_groups(config, info, type);
    size_t groups = info->compute_units * (per_unit < 2 ? per_unit : 2);
    size_t waves = (tiles + groups - 1) / groups;
    if ((double)tiles >= DP_ENOUGH * (double)(waves * groups)) return 0;
    /* Far fewer tiles than compute units (narrow shapes) still share out K: most units idle
     * else. */
    if (2 * tiles > info->compute_units && (tiles < MIN_WAVES * groups || per_unit > 2)) return 0;
    if (slices / groups < MIN_SLICES_PER_GROUP) return 0;
    return (int)groups;
}

/* Peeling pays where the last tile holds at most a quarter of its rows or columns (H200 4097^2 in
 * 256 x 128 tiles: 561 tiles, 49 of them nearly empty, for 512 tiles' work) and the rest still
 * fills the device. A persistent configuration loops over its grid's tiles, which peeling does
 * not shape; it keeps them all. */
void clgemm__plan_peel(const clgemm_config *config, const device_info *info, int forced, size_t m,
                       size_t n, size_t batch, size_t *main_m, size_t *main_n) {
    const family_desc *f = clgemm__family(config->family);
    *main_m = m;
    *main_n = n;
    if (!f || !f->peels || batch != 1 || forced == 0) return;
    if (f->persistent_groups && f->persistent_groups(config, info) > 0) return;
    if (forced < 0 && info->cls != DEVICE_NVIDIA_GPU) return; /* measured on the H200 only */
    size_t mt, nt, kt, keep_m, keep_n;
    f->tile(config, &mt, &nt, &kt);
    clgemm__peel_extent(mt, nt, m, n, forced > 0, &keep_m, &keep_n);
    size_t tiles = ((keep_m + mt - 1) / mt) * ((keep_n + nt - 1) / nt);
    if (forced < 0 && tiles < info->compute_units) return;
    *main_m = keep_m;
    *main_n = keep_n;
}

void clgemm__tail_rects(size_t m, size_t n, size_t mt, size_t nt, size_t head_tiles,
                        tile_rect rest[2]) {
    const size_t tiles_m = (m + mt - 1) / mt, col = head_tiles / tiles_m,
                 row = head_tiles % tiles_m;
    const size_t after = row > 0 ? col + 1 : col; /* the first column of tiles left whole */
    rest[0] = (tile_rect){0, 0, 0, 0};
    rest[1] = (tile_rect){0, 0, 0, 0};
    if (row > 0 && col * nt < n)
        rest[0] =
            (tile_rect){row * mt, col * nt, m - row * mt, n - col * nt < nt ? n - col * nt : nt};
    if (after * nt < n) rest[1] = (tile_rect){0, after * nt, m, n - after * nt};
}

/* Not planned unless forced: not yet measured. The case it is for: 8192^2 in 128 x 128 tiles on
 * the H200's 132 SMs is 4096 tiles, 31.03 waves of FP64's one work-group an SM (15.52 of FP32's
 * two), so the last round runs 4 tiles (FP32: 136 of 264) on an otherwise idle device, about 3 %
 * of the call (docs/perf/NOTES.md, "partial last waves"). Each rectangle of the rest is split so
 * that its tiles' layers make about one wave: those 4 tiles into 32 layers of K / 32. */
void clgemm__plan_tail(const clgemm_config *config, const device_info *info, int forced,
                       clgemm_precision type, size_t m, size_t n, size_t k, size_t batch,
                       size_t *head_tiles, int splits[2]) {
    const family_desc *f = clgemm__family(config->family);
    *head_tiles = 0;
    splits[0] = splits[1] = 1;
    if (!f || !f->linear_tiles || !f->split_k || batch != 1 || k == 0 || forced < 0) return;
    /* Unset: where measured to pay (family_desc's tail_pays), on the H200. */
    const bool automatic = forced == 0;
    if (automatic && (!f->tail_pays || info->nv_compute_capability != 90)) return;
    size_t mt, nt, kt;
    f->tile(config, &mt, &nt, &kt);
    const size_t tiles = ((m + mt - 1) / mt) * ((n + nt - 1) / nt);
    const size_t slots =
        forced >= 2 ? (size_t)forced : resident_groups(config, info, type) * info->compute_units;
    /* (the kernels number tiles in an int) */
    if (tiles > INT_MAX || slots == 0 || tiles <= slots || tiles % slots == 0) return;
    /* By default at most half a wave left: on the H200 (FP64, 128 x 128 tiles one an SM; 128 x
     * 64 two) 8192^2's 4 tiles of 132 gained 2.5 %, 4097^2's 33 of 264 2.4 %, 6144^2's 60 of
     * 132 1.5 %, 10240^2's 64 of 132 0.4 %, and 4096^2's 200 of 264 lost 2.7 %. */
    if (automatic && tiles % slots > slots / 2) return;
    const size_t head = tiles - tiles % slots;
    tile_rect rest[2];
    clgemm__tail_rects(m, n, mt, nt, head, rest);
    size_t most = k / (kt * MIN_SLICES_PER_SPLIT);
    if (most > CLGEMM__MAX_SPLITS) most = CLGEMM__MAX_SPLITS;
    for (int q = 0; q < 2; q++) {
        if (rest[q].m == 0 || rest[q].n == 0) continue;
        size_t want = slots / (((rest[q].m + mt - 1) / mt) * ((rest[q].n + nt - 1) / nt));
        if (want > most) want = most;
        splits[q] = nonempty_layers((long)want, k, kt);
    }
    if (splits[0] < 2 && splits[1] < 2) { /* nothing shared: the plain grid */
        splits[0] = splits[1] = 1;
        return;
    }
    *head_tiles = head;
}

size_t clgemm__pack_panels_base(const gemm_schedule *s, clgemm_precision type) {
    return clgemm__round_up(s->pack_stage * clgemm__type(type)->compute_size, 64);
}

gemm_schedule clgemm__schedule_without_workspace(const gemm_schedule *s, size_t m, size_t n) {
    gemm_schedule plain = {
        .cfg = s->cfg, .splits = 1, .main_m = m, .main_n = n, .small = s->cfg, .strip_splits = 1};
    return plain;
}

/* Elements of the arithmetic type a schedule's launches keep in the workspace: a split's layers
 * of C, stream-K's two slots per work-group, the strips' split layers (0: overflow). */
static size_t workspace_elements(const gemm_schedule *s, size_t m, size_t n, size_t batch) {
    size_t mt, nt, kt, need = 0, layers;
    clgemm__family(s->cfg.family)->tile(&s->cfg, &mt, &nt, &kt);
    if (s->splits > 1 && (__builtin_mul_overflow(batch, (size_t)s->splits, &layers) ||
                          __builtin_mul_overflow(layers, m * n, &need)))
        return 0;
    /* (and, for a persistent family's kernel, which adds the parts itself, its counters before
     * them: CLGEMM__SK_COUNTERS) */
    if (s->groups > 0)
        need =
            2 * (size_t)s->groups * mt * nt +
            (clgemm__family(s->cfg.family)->persistent_groups ? CLGEMM__SK_COUNTERS(s->groups) : 0);
    size_t right = m * (n - s->main_n), below = (m - s->main_m) * s->main_n;
    size_t strip = (right > below ? right : below) * (size_t)s->strip_splits;
    if (s->head_tiles > 0) { /* the tail's rectangles, one after the other */
        tile_rect rest[2];
        clgemm__tail_rects(m, n, mt, nt, s->head_tiles, rest);
        for (int q = 0; q < 2; q++)
            if (rest[q].m * rest[q].n * (size_t)s->tail_splits[q] > strip)
                strip = rest[q].m * rest[q].n * (size_t)s->tail_splits[q];
    }
    return need > strip ? need : strip;
}

bool clgemm__pack_panels_layout(const clgemm_config *cfg, clgemm_precision type, size_t m, size_t n,
                                size_t kc, size_t *b_offset, size_t *total) {
    size_t mt, nt, kt, a, b;
    clgemm__family(cfg->family)->tile(cfg, &mt, &nt, &kt);
    const size_t align = 64 / clgemm__panel_size(type);
    if (__builtin_mul_overflow(clgemm__round_up(m, mt), kc, &a) ||
        __builtin_mul_overflow(clgemm__round_up(n, nt), kc, &b))
        return false;
    *b_offset = clgemm__round_up(a, align);
    return !__builtin_add_overflow(*b_offset, b, total);
}

/* The depth of the blocked schedule's K-blocks for this problem (0: not blocked): one matrix,
 * no table, a family that packs. Each block after the first adds its product to C, so C of
 * another type than the arithmetic one (FP16, BF16) is staged in the arithmetic type and
 * rounded once, by the last block (pack_stage), never once per block; with one block (K of at
 * most a block's depth: FP16 from 256^3) the block writes C itself, without the copy.
 * CLGEMM_PACK_KC forces it wherever it is possible; a forced split K without it keeps the split. */
static int plan_pack(const clgemm_config *cfg, const device_info *info, const schedule_force *force,
                     clgemm_precision type, const gemm_dims *dims, bool table) {
    const family_desc *f = clgemm__family(cfg->family);
    if (!f || !f->pack_depth || table || dims->batch != 1 || force->pack_kc < 0) return 0;
    if (force->pack_kc > 0) return force->pack_kc;
    if (force->ksplit > 0) return 0;
    return f->pack_depth(cfg, info, type, dims);
}

/* The peeled strips' configuration: the smallest tiles of the family's defaults, or of the family
 * it names for them (a tensor-map family's maps cover the operands from their corners, where the
 * strips do not start); family 0 where that family has none for this device and type. */
static clgemm_config strips_config(const clgemm_config *cfg, const device_info *info,
                                   clgemm_precision type) {
    const family_desc *f = clgemm__family(cfg->family);
    const clgemm_config other = {.family = f->strips_family};
    const clgemm_config small =
        clgemm__config_smallest(f->strips_family ? &other : cfg, info, type);
    if (clgemm__config_check(&small, info, type) != CLGEMM_SUCCESS)
        return (clgemm_config){.family = CLGEMM_FAMILY_AUTO};
    return small;
}

gemm_schedule clgemm__plan_schedule(const clgemm_config *cfg, const device_info *info,
                                    const schedule_force *force, clgemm_precision type,
                                    clgemm_precision type_c, size_t m, size_t n, size_t k,
                                    size_t batch, bool table) {
    const gemm_dims dims = {m, n, k, batch, false, false, false};
    return clgemm__plan_schedule_dims(cfg, info, force, type, type_c, &dims, table);
}

gemm_schedule clgemm__plan_schedule_dims(const clgemm_config *cfg, const device_info *info,
                                         const schedule_force *force, clgemm_precision type,
                                         clgemm_precision type_c, const gemm_dims *dims,
                                         bool table) {
    const size_t m = dims->m, n = dims->n, k = dims->k, batch = dims->batch;
    gemm_schedule s = {.cfg = *cfg, .main_m = m, .main_n = n, .small = *cfg, .strip_splits = 1};
    const int kc = plan_pack(cfg, info, force, type, dims, table);
    if (kc > 0) {
        size_t b_offset, elements;
        s.splits = 1;
        s.pack_kc = (size_t)kc < k ? kc : (int)k;
        if (type == CLGEMM_INT8 && s.pack_kc > CLGEMM__INT8_PANEL_MAX_DEPTH)
            s.pack_kc = CLGEMM__INT8_PANEL_MAX_DEPTH; /* (its FP32 sums stay exact) */
        const family_desc *f = clgemm__family(cfg->family);
        s.pack_mc = f->pack_rows
                        ? f->pack_rows(cfg, info, type, n, (size_t)s.pack_kc, force->pack_kc > 0)
                        : m;
        if (s.pack_mc == 0 || s.pack_mc > m) s.pack_mc = m;
        size_t panel_bytes;
        /* (C's m * n elements fit a buffer, so four bytes each fit a size_t) */
        if (type_c != clgemm__type(type)->compute && (size_t)s.pack_kc < k) s.pack_stage = m * n;
        if (!clgemm__pack_panels_layout(cfg, type, s.pack_mc, n, (size_t)s.pack_kc, &b_offset,
                                        &elements) ||
            __builtin_mul_overflow(elements, clgemm__panel_size(type), &panel_bytes) ||
            __builtin_add_overflow(clgemm__pack_panels_base(&s, type), panel_bytes, &s.workspace))
            return clgemm__schedule_without_workspace(&s, m, n);
        return s;
    }
    s.splits = clgemm__plan_splits(cfg, info, force->ksplit, type, m, n, k, batch);
    /* One matrix without a split may peel a mostly empty last row or column of tiles and run
     * stream-K over the rest (the planner says which, if either). */
    if (s.splits == 1 && !table) {
        clgemm__plan_peel(cfg, info, force->peel, m, n, batch, &s.main_m, &s.main_n);
        if (s.main_m < m || s.main_n < n) {
            s.small = strips_config(cfg, info, type);
            if (s.small.family == CLGEMM_FAMILY_AUTO) { /* none for the strips: none peeled */
                s.small = *cfg;
                s.main_m = m;
                s.main_n = n;
            }
        }
        s.groups =
            clgemm__plan_streamk(cfg, info, force->streamk, type, s.main_m, s.main_n, k, batch);
    }
    s.peeled = s.main_m < m || s.main_n < n;
    if (s.splits == 1 && !table && s.groups == 0 && !s.peeled)
        clgemm__plan_tail(cfg, info, force->tail, type, m, n, k, batch, &s.head_tiles,
                          s.tail_splits);
    if (s.peeled) /* (their K split) */
        s.strip_splits =
            clgemm__plan_splits(&s.small, info, CLGEMM__STRIP_SPLITS, type, 1, 1, k, 1);
    if (s.splits == 1 && s.groups == 0 && !s.peeled && s.head_tiles == 0) return s;
    size_t elements = workspace_elements(&s, m, n, batch);
    if (!elements ||
        __builtin_mul_overflow(elements, clgemm__type(type)->compute_size, &s.workspace))
        return clgemm__schedule_without_workspace(&s, m, n);
    return s;
}
