/* registry.c: the list of kernel families, and everything done the same way for each of them:
 * checking a configuration, its build options and launch geometry, the built-in defaults and
 * the fallback, and the public parameter API. Adding a family: its descriptor file, its .cl
 * file, one line in clgemm__families below (and its id in clgemm.h). */
#include "families/family.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* A config initialised by the header's parameter names must have every other slot zeroed: the
 * named struct spans the whole array (clgemm.h). */
_Static_assert(offsetof(clgemm_config, unnamed_) + sizeof(((clgemm_config *)0)->unnamed_) ==
                   offsetof(clgemm_config, params) + sizeof(((clgemm_config *)0)->params),
               "the named parameters span every slot");

/* Any parameter above this is nonsense (and would overflow the products in the rules). */
#define PARAM_MAX 1024

/* tma first where it runs (compute capability 9.0 with tensor maps): on the H200 its kernel ran
 * FP16 8192^2 at 853 TFLOPS against mma.sync's 354 (bench/results/). wgmma after mma: correct
 * but slower than mma.sync's at every shape measured (FP16 8192^2 243 against 357 TFLOPS; TF32 91
 * against 131; docs/TENSOR_CORES.md), so where tma cannot map a call the defaults are mma's and
 * the tuner, which searches all three, picks wgmma only where it wins. */
const family_desc *const clgemm__families[] = {
    &clgemm__family_tma,      &clgemm__family_tma_simt,
    &clgemm__family_tma_fp64, &clgemm__family_mma,
    &clgemm__family_wgmma,    &clgemm__family_microkernel,
    &clgemm__family_regblock, &clgemm__family_tiled,
    &clgemm__family_naive,    NULL,
};

const ptx_patch_need *clgemm__ptx_patch_need(const char *file_name) {
    for (const family_desc *const *f = clgemm__families; *f; f++)
        if (strcmp((*f)->file, file_name) == 0) return (*f)->ptx_patch;
    return NULL;
}

const char *const clgemm__ptx_parts[] = {"ptx.cl", NULL};

const char *const *clgemm__kernel_parts(const char *file_name) {
    for (const family_desc *const *f = clgemm__families; *f; f++)
        if (strcmp((*f)->file, file_name) == 0) return (*f)->parts;
    return NULL;
}

const family_desc *clgemm__family(clgemm_family id) {
    for (const family_desc *const *f = clgemm__families; *f; f++)
        if ((*f)->id == id) return *f;
    return NULL;
}

static size_t warp_tile_threads(const int *v, int lanes) {
    return (size_t)lanes * (size_t)(v[WARP_MWG] / v[WARP_WM]) * (size_t)(v[WARP_NWG] / v[WARP_WN]);
}

/* Both operands' slices in every stage. */
static size_t stage_bytes(const int *v, size_t element) {
    return (size_t)v[WARP_STAGES] * (size_t)(v[WARP_MWG] + v[WARP_NWG]) * (size_t)v[WARP_KWG] *
           element;
}

size_t clgemm__warp_tiles_local_bytes(const clgemm_config *c, clgemm_precision type) {
    return stage_bytes(c->params, clgemm__type(type)->size) + 1024;
}

bool clgemm__warp_tiles_fit(const clgemm_config *c, const device_info *info, const type_desc *t,
                            int lanes) {
    const int *v = c->params;
    const int vw = 16 / (int)t->size; /* elements of one 16-byte chunk */
    size_t threads = warp_tile_threads(v, lanes);
    if (threads > 1024 || threads > info->max_work_group_size ||
        threads > info->max_work_item_sizes[0])
        return false;
    /* Every work-item copies the same number of chunks of each slice. */
    if ((size_t)(v[WARP_MWG] * v[WARP_KWG] / vw) % threads ||
        (size_t)(v[WARP_NWG] * v[WARP_KWG] / vw) % threads)
        return false;
    size_t local = stage_bytes(v, t->size);
    /* Static arrays (cl/mma.cl, cl/wgmma.cl): the hardware's limit, not OpenCL's figure. */
    return v[WARP_STAGES] >= 2 && local <= clgemm__static_local_limit(info);
}

void clgemm__warp_tiles_launch(const clgemm_config *c, int lanes, size_t m, size_t n,
                               size_t local[2], size_t global[2]) {
    const int *v = c->params;
    size_t threads = warp_tile_threads(v, lanes);
    local[0] = threads;
    local[1] = 1;
    global[0] = (m + (size_t)v[WARP_MWG] - 1) / (size_t)v[WARP_MWG] * threads;
    global[1] = (n + (size_t)v[WARP_NWG] - 1) / (size_t)v[WARP_NWG];
}

bool clgemm__wgmma_types(clgemm_precision type, clgemm_compute compute) {
    switch (type) {
    case CLGEMM_HALF:
    case CLGEMM_BFLOAT16:
        return true;
    case CLGEMM_SINGLE:
        return compute == CLGEMM_COMPUTE_TF32 || compute == CLGEMM__COMPUTE_ANY;
    default:
        return false;
    }
}

const char *clgemm_family_name(clgemm_family family) {
    if (family == CLGEMM_FAMILY_AUTO) return "auto";
    const family_desc *f = clgemm__family(family);
    return f ? f->name : NULL;
}

clgemm_family clgemm_family_from_name(const char *name) {
    for (const family_desc *const *f = clgemm__families; name && *f; f++)
        if (strcmp((*f)->name, name) == 0) return (*f)->id;
    return CLGEMM_FAMILY_AUTO;
}

int clgemm_family_param_count(clgemm_family family) {
    const family_desc *f = clgemm__family(family);
    return f ? f->num_params : 0;
}

const char *clgemm_family_param_name(clgemm_family family, int i) {
    const family_desc *f = clgemm__family(family);
    return f && i >= 0 && i < f->num_params ? f->params[i].name : NULL;
}

static const family_param *find_param(const clgemm_config *config, const char *name) {
    const family_desc *f = config ? clgemm__family(config->family) : NULL;
    for (int i = 0; f && name && i < f->num_params; i++)
        if (strcasecmp(f->params[i].name, name) == 0) return &f->params[i];
    return NULL;
}

clgemm_status clgemm_config_init(clgemm_config *config, clgemm_family family) {
    if (!config) return CLGEMM_ERR_NULL_ARGUMENT;
    if (!clgemm__family(family)) return CLGEMM_ERR_INVALID_FAMILY;
    memset(config, 0, sizeof *config);
    config->family = family;
    return CLGEMM_SUCCESS;
}

clgemm_status clgemm_config_set(clgemm_config *config, const char *name, int value) {
    const family_param *p = find_param(config, name);
    if (!p) return config && name ? CLGEMM_ERR_INVALID_ARGUMENT : CLGEMM_ERR_NULL_ARGUMENT;
    config->params[p->slot] = value;
    return CLGEMM_SUCCESS;
}

clgemm_status clgemm_config_get(const clgemm_config *config, const char *name, int *value) {
    const family_param *p = find_param(config, name);
    if (!value) return CLGEMM_ERR_NULL_ARGUMENT;
    if (!p) return config && name ? CLGEMM_ERR_INVALID_ARGUMENT : CLGEMM_ERR_NULL_ARGUMENT;
    *value = config->params[p->slot];
    return CLGEMM_SUCCESS;
}

size_t clgemm_config_string(const clgemm_config *config, char *buf, size_t size) {
    char scratch[1];
    if (!buf || size == 0) { /* only the length is wanted */
        buf = scratch;
        size = 1;
    }
    const char *name = config ? clgemm_family_name(config->family) : NULL;
    int used = snprintf(buf, size, "%s", name ? name : "unknown");
    const family_desc *f = config ? clgemm__family(config->family) : NULL;
    for (int i = 0; f && i < f->num_params && used >= 0; i++) {
        if (clgemm__param_optional(f, i) && clgemm__param_value(f, i, config) == 0) continue;
        size_t at = (size_t)used < size ? (size_t)used : size;
        if (at == size) at = size - 1; /* truncated: keep counting, write only the NUL */
        int w = snprintf(buf + at, size - at, " %s=%d", f->params[i].name,
                         config->params[f->params[i].slot]);
        used = w < 0 ? w : used + w;
    }
    return used < 0 ? 0 : (size_t)used;
}

bool clgemm__param_optional(const family_desc *f, int i) {
    return f->param_ext && f->param_ext[i].optional;
}

int clgemm__param_value(const family_desc *f, int i, const clgemm_config *config) {
    int v = config->params[f->params[i].slot];
    return clgemm__param_optional(f, i) && (v == 0 || v == 1) ? 0 : v;
}

void clgemm__param_search(const family_desc *f, int i, const device_info *info, int *lo, int *hi) {
    const family_param_ext *x = f->param_ext ? &f->param_ext[i] : NULL;
    bool wide = x && x->wide_hi > 0 && clgemm__static_local_limit(info) > info->local_mem_size;
    bool cpu = x && x->cpu_hi > 0 && info->cls == DEVICE_CPU;
    *lo = cpu ? x->cpu_lo : wide ? x->wide_lo : f->params[i].search_lo;
    *hi = cpu ? x->cpu_hi : wide ? x->wide_hi : f->params[i].search_hi;
}

bool clgemm__config_equal(const clgemm_config *a, const clgemm_config *b) {
    const family_desc *f = clgemm__family(a->family);
    if (a->family != b->family || !f) return false;
    for (int i = 0; i < f->num_params; i++)
        if (clgemm__param_value(f, i, a) != clgemm__param_value(f, i, b)) return false;
    return true;
}

clgemm_status clgemm__config_check(const clgemm_config *config, const device_info *info,
                                   clgemm_precision precision) {
    const family_desc *f = clgemm__family(config->family);
    if (!f) return CLGEMM_ERR_INVALID_FAMILY;
    const type_desc *t = clgemm__type(precision);
    if (!t) return CLGEMM_ERR_INVALID_TYPE;
    if (t->fp64 && !info->has_fp64) return CLGEMM_ERR_NO_FP64;
    for (int i = 0; i < f->num_params; i++) {
        int v = config->params[f->params[i].slot];
        if (v < (clgemm__param_optional(f, i) ? 0 : 1) || v > PARAM_MAX)
            return CLGEMM_ERR_INVALID_PARAMS;
    }
    if (f->supported && !f->supported(info, precision, CLGEMM__COMPUTE_ANY))
        return CLGEMM_ERR_INVALID_PARAMS;
    return f->rules(config, info, t) ? CLGEMM_SUCCESS : CLGEMM_ERR_INVALID_PARAMS;
}

int clgemm__config_options(const clgemm_config *config, char *buf, size_t size) {
    const family_desc *f = clgemm__family(config->family);
    size_t used = 0;
    for (int i = 0; f && i < f->num_params; i++) {
        if (clgemm__param_optional(f, i) && clgemm__param_value(f, i, config) == 0) continue;
        int w = snprintf(buf + used, size - used, " -D%s=%d", f->params[i].name,
                         config->params[f->params[i].slot]);
        if (w < 0 || (size_t)w >= size - used) return -1;
        used += (size_t)w;
    }
    return (int)used;
}

void clgemm__config_launch(const clgemm_config *config, size_t m, size_t n, size_t local[2],
                           size_t global[2]) {
    clgemm__family(config->family)->launch(config, m, n, local, global);
}

clgemm_config clgemm__config_default(const device_info *info, clgemm_precision precision) {
    for (const family_desc *const *f = clgemm__families; *f; f++) {
        if (!(*f)->defaults ||
            ((*f)->supported && !(*f)->supported(info, precision, CLGEMM_COMPUTE_DEFAULT)))
            continue;
        /* A family may have no list for this device (microkernel on a CPU of no known tier). */
        const clgemm_config *list = (*f)->defaults(info, precision, ONE_MATRIX);
        if (list[0].family) return list[0];
    }
    return clgemm__config_fallback();
}

bool clgemm__tile_count(const gemm_dims *d, size_t mt, size_t nt, size_t *tiles) {
    if (d->m == 0 || d->n == 0) return false;
    return !__builtin_mul_overflow(
        (clgemm__round_up(d->m, mt) / mt) * (clgemm__round_up(d->n, nt) / nt), d->batch, tiles);
}

void clgemm__peel_extent(size_t mt, size_t nt, size_t m, size_t n, bool always, size_t *main_m,
                         size_t *main_n) {
    const size_t rem_m = m % mt, rem_n = n % nt;
    *main_m = m > mt && rem_m > 0 && (always || 4 * rem_m <= mt) ? m - rem_m : m;
    *main_n = n > nt && rem_n > 0 && (always || 4 * rem_n <= nt) ? n - rem_n : n;
}

bool clgemm__tiles_pad_little(size_t mt, size_t nt, size_t m, size_t n) {
    double padded = (double)((m + mt - 1) / mt * mt) * (double)((n + nt - 1) / nt * nt);
    return padded <= 1.25 * (double)m * (double)n;
}

bool clgemm__config_pads_little(const clgemm_config *config, size_t m, size_t n) {
    size_t mt, nt, kt;
    clgemm__family(config->family)->tile(config, &mt, &nt, &kt);
    return clgemm__tiles_pad_little(mt, nt, m, n);
}

/* How few tiles such a matrix may have, as a fraction of the compute units: 1/16, and 1/32 for
 * FP64, whose 64 x 64 tiles hold weak 4 x 4 register blocks, so that 128 x 64 ones (8 x 8 blocks,
 * two work-groups per SM) serve (H200, 256 x 256 x 16384 on the SIMT cores, K split 33 ways:
 * 128 x 64 tiles 16.9 and 16.7 TFLOPS, 128 x 128 16.8 and 16.4 in the same calls, 64 x 64 split
 * 17 ways 11.4; c585671^:docs/perf/session4-final-2026-11-30.log, kept in the history, and
 * bench/results/h200-shapes-and-batches.log; FP32's 64 x 64 tiles,
 * 8 x 4 blocks, ran it at 25.2, 0.93 x cuBLAS). */
static size_t few_tiles_share(clgemm_precision precision) {
    return precision == CLGEMM_DOUBLE ? 32 : 16;
}

/* Whether tiles of mt x nt over a batch of m x n matrices pad each matrix by at most a quarter
 * and give (nearly) every compute unit a work-group. One matrix with a narrow side
 * (<= 256) or a long K (>= 4 x its longer side) need not have a tile per compute unit when the
 * family splits K or runs stream-K: those share its K-slices across the device, so larger tiles
 * that pad little win (H200, docs/PERFORMANCE.md: 64 x 8192 x 8192 ran 28.7 TFLOPS in 64 x 64 tiles
 * with stream-K, 20.3 in the 32 x 32 tiles this rule gave before; 256 x 256 x 16384 24.7 in
 * 64 x 64 tiles split 16 ways, 9.4 in 32 x 32 ones). */
static bool tile_suits(const family_desc *f, const clgemm_config *c, const device_info *info,
                       clgemm_precision precision, const gemm_dims *d) {
    size_t m = d->m, n = d->n, k = d->k, batch = d->batch, mt, nt, kt;
    f->tile(c, &mt, &nt, &kt);
    size_t tm = (m + mt - 1) / mt, tn = (n + nt - 1) / nt, groups, slices;
    /* A tile that is mostly padding wastes what it fills the device with (a 128 x 64 tile on a
     * 64 x 8192 matrix: half its work). */
    if (!clgemm__tiles_pad_little(mt, nt, m, n)) return false;
    if (__builtin_mul_overflow(tm * tn, batch, &groups)) return true;
    /* Nine tenths of a wave is as good as a whole one (H200 2047^2: 128 tiles of 256 x 128 on
     * 132 SMs ran 40.1 TFLOPS where 256 tiles of 128 x 128 ran 33.3). */
    if (10 * groups >= 9 * (size_t)info->compute_units) return true;
    size_t longer = m > n ? m : n, shorter = m < n ? m : n;
    bool skinny = shorter <= 256, long_k = k / 4 >= longer;
    return batch == 1 && (f->split_k || f->stream_k) && (skinny || long_k) &&
           few_tiles_share(precision) * groups >= info->compute_units &&
           !__builtin_mul_overflow(groups, (k + kt - 1) / kt, &slices) &&
           slices >= 8 * (size_t)info->compute_units;
}

clgemm_config clgemm__config_default_for(const device_info *info, clgemm_precision precision,
                                         clgemm_compute compute, size_t m, size_t n, size_t k,
                                         size_t batch) {
    const gemm_dims dims = {m, n, k, batch, false, false, false};
    return clgemm__config_default_for_dims(info, precision, compute, &dims);
}

clgemm_config clgemm__config_default_for_dims(const device_info *info, clgemm_precision precision,
                                              clgemm_compute compute, const gemm_dims *dims) {
    for (const family_desc *const *f = clgemm__families; *f; f++) {
        if (!(*f)->defaults) continue;
        if ((*f)->supported && !(*f)->supported(info, precision, compute)) continue;
        const clgemm_config *pick = NULL;
        for (const clgemm_config *c = (*f)->defaults(info, precision, dims); c->family; c++) {
            if (clgemm__config_check(c, info, precision) != CLGEMM_SUCCESS) continue;
            pick = c; /* the smallest legal one, unless a larger one suits the problem */
            if (tile_suits(*f, c, info, precision, dims)) break;
        }
        if (pick) return *pick;
    }
    /* None fits: the caller's check says so. */
    return (clgemm_config){.family = CLGEMM_FAMILY_AUTO};
}

/* The smallest square tiles of the family's defaults (else its smallest): the peeled strips are
 * a few rows deep on one side of C and a few columns on the other, and a square tile treats both
 * alike (H200 4097^2: strips in 32 x 32 tiles 43.1 TFLOPS, in 16 x 32 ones 42.8). */
clgemm_config clgemm__config_smallest(const clgemm_config *config, const device_info *info,
                                      clgemm_precision precision) {
    const family_desc *f = clgemm__family(config->family);
    const clgemm_config *smallest = config, *smallest_square = NULL;
    if (f && f->defaults)
        for (const clgemm_config *c = f->defaults(info, precision, ONE_MATRIX); c->family; c++) {
            if (clgemm__config_check(c, info, precision) != CLGEMM_SUCCESS) continue;
            size_t mt, nt, kt;
            f->tile(c, &mt, &nt, &kt);
            smallest = c;
            if (mt == nt) smallest_square = c;
        }
    return smallest_square ? *smallest_square : *smallest;
}

clgemm_config clgemm__config_fallback(void) {
    /* 8x8 = 64 work-items and 512 bytes of local memory (1 KiB complex double): below OpenCL
     * 1.2's minimums. */
    clgemm_config c = {.family = CLGEMM_FAMILY_TILED, .ts = 8};
    return c;
}

bool clgemm__config_supports(const clgemm_config *config, const device_info *info,
                             clgemm_precision precision, clgemm_compute compute) {
    const family_desc *f = clgemm__family(config->family);
    return f && (!f->supported || f->supported(info, precision, compute));
}
