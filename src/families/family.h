/* family.h: the interface of src/families/: a kernel family as data. Each family is one
 * descriptor (src/families/<name>.c) next to its kernel (cl/<name>.cl); the registry
 * (families/registry.c) lists them, and everything else (build options, checks, launch, tuning
 * space, database keys, printing, tools and tests) iterates that list instead of naming
 * families. Below the planner: it knows devices (core) and types, never plans or calls. */
#ifndef CLGEMM_FAMILY_H
#define CLGEMM_FAMILY_H

#include "core/core.h"
#include "types/types.h"

/* One tunable parameter: its -D / JSON name, where it sits in clgemm_config.params, the powers
 * of two the tuner searches (lo 0: it keeps the default's value) and what it means. */
typedef struct family_param {
    const char *name;
    int slot;
    int search_lo, search_hi;
    const char *doc;
} family_param;

/* What some families' parameters add (family_desc.param_ext, one per entry of params). */
typedef struct family_param_ext {
    /* The search range on a device whose static __local arrays may take more than its __local
     * arguments (clgemm__static_local_limit above local_mem_size: NVIDIA from Volta on); 0, 0:
     * search_lo, search_hi there too. Everywhere else the tuner's space stays as it was. */
    int wide_lo, wide_hi;
    /* A parameter added after configurations were written without it: 0 (what they, the
     * databases and the 0.1 named fields hold) and 1 both mean its first value, which adds no
     * build option, no JSON key and no text, so such a configuration builds as before. */
    bool optional;
    /* The search range on a CPU device (0, 0: search_lo, search_hi there too): parameters of
     * what runs only there, such as the micro-kernel's blocked schedule, which a simulator or a
     * GPU would time for nothing. */
    int cpu_lo, cpu_hi;
} family_param_ext;

/* What a call adds to a family's build options beyond its parameters. */
typedef struct kernel_call {
    clgemm_precision type_ab, type_c;
    clgemm_compute compute;    /* after CLGEMM_ALLOW_TF32 */
    bool aligned_a, aligned_b; /* offset and ld of the (column-major) operand keep 16-byte chunks */
    bool pack_small;           /* the blocked schedule forced: blocks of A of a few panels */
} kernel_call;

/* The problem a list of defaults is for (column-major sizes, matrices in the call, and whether
 * both operands' offsets, leading dimensions and batch strides keep 16-byte chunks: false where
 * that is not known, so that a list chosen for it serves every call), and how its operands lie:
 * op(A) contiguous along K and op(B) along N (the column-major problem's transposes; false, as
 * the tests and tools that know no layout pass: both untransposed). */
typedef struct gemm_dims {
    size_t m, n, k, batch;
    bool aligned;
    bool a_along_k, b_along_n;
} gemm_dims;
/* One matrix of any size: the lists' first choice (the library's default configuration). */
#define ONE_MATRIX (&(const gemm_dims){0, 0, 0, 1, false, false, false})

/* What a family asks of the program layer's patched-PTX step (src/build/ptx_patch.c): a register
 * cap per entry (0: none; CLGEMM_PTX_CAP_FROM_THREADS: in a kernel that moves registers between
 * its warpgroups with setmaxnreg, which needs a cap, the one its work-group size allows). */
#define CLGEMM_PTX_CAP_FROM_THREADS (-1)
typedef struct ptx_patch_need {
    int maxnreg;
} ptx_patch_need;

typedef struct family_desc {
    clgemm_family id;
    const char *name;   /* "regblock": API, database, tools */
    const char *file;   /* its kernel source in cl/ */
    const char *kernel; /* the kernel's name in it */
    const family_param *params;
    int num_params;
    const family_param_ext *param_ext; /* NULL, or one per entry of params */
    bool searched;     /* the tuner searches it (naive never wins, so it only costs time) */
    bool split_k;      /* the kernel sums the K range of its z layer (work-group layers) */
    bool stream_k;     /* built with STREAMK, it runs the stream-K schedule (cl/common.cl) */
    bool linear_tiles; /* built with LINEAR_TILES, it runs the first tiles of a grid along a 1-D
                          one (common.cl's GEMM_TILE_ORIGIN) */
    /* The planner may peel a mostly empty last row or column of its tiles off, to run apart in
     * small tiles, K split (clgemm__plan_peel); in strips_family's where that is set (a family
     * that reads tensor maps: its maps cover the operands from their corners, where the main part
     * starts and the strips do not). */
    bool peels;
    clgemm_family strips_family;
    /* Sharing a partial last wave out by a K split (clgemm__plan_tail) pays by default, where
     * measured: on compute capability 9.0, with at most half a wave left. The register-blocked
     * family's LINEAR_TILES build takes 130 registers on the H200 where its 2-D build takes 127:
     * one work-group an SM in place of two, FP32 8192^2 48.5 -> 38.3 TFLOPS; so only when asked. */
    bool tail_pays;
    /* The family's own rules for a configuration on this device and arithmetic type (the
     * registry has checked the family, the type and that every parameter is in 1..1024). */
    bool (*rules)(const clgemm_config *c, const device_info *info, const type_desc *t);
    /* Work-group and global sizes for a column-major m x n problem. */
    void (*launch)(const clgemm_config *c, size_t m, size_t n, size_t local[2], size_t global[2]);
    /* The M x N tile of C one work-group computes and the K depth of one step (split K). */
    void (*tile)(const clgemm_config *c, size_t *mt, size_t *nt, size_t *kt);
    /* Whether the family can run this call's types and compute mode on this device (NULL: any
     * type, default compute). Other devices never build its source. */
    bool (*supported)(const device_info *info, clgemm_precision type_ab, clgemm_compute compute);
    /* Build options of the call appended to the parameters' (NULL: none); the length written,
     * negative or >= size if it does not fit. */
    int (*call_options)(const kernel_call *k, char *buf, size_t size);
    /* Whether a configuration's kernel depends on kernel_call's aligned_a and aligned_b (NULL:
     * every one does, where call_options is set); where not, both are false for its builds. */
    bool (*uses_alignment)(const clgemm_config *c);
    /* Copying an operand off 16 bytes onto 16-byte lines first, so that this kernel is built
     * for aligned operands, pays by default where the copy is re-read enough (src/exec/pack.c;
     * measured per family: the mma family's scalar-load path is slow, the register-blocked
     * family's vector loads gain nothing). */
    bool aligned_copies_pay;
    /* Built-in defaults for a device, type and problem (ONE_MATRIX: one of any size), largest
     * tiles first, ending with family 0; NULL when the family has none. */
    const clgemm_config *(*defaults)(const device_info *info, clgemm_precision type,
                                     const gemm_dims *dims);
    /* The tuner's --quick candidates, ending with family 0 (NULL: none). */
    const clgemm_config *quick;
    /* The patched-PTX step its programs need (build/ptx_patch.c; NULL: none): its kernels carry
     * sm_90a instructions behind markers, so `supported` must accept only devices with nv_sm90a. */
    const ptx_patch_need *ptx_patch;
    /* The --quick set on a CPU of this tier and type, where each cold compile costs seconds and
     * --quick must finish within its budget (NULL: `quick`; an empty list: none). */
    const clgemm_config *(*quick_cpu)(const device_info *info, clgemm_precision type);
    /* Its kernel reads A and B through tensor maps, one buffer of the two after the common
     * arguments (exec/gemm.c encodes them per call); a call no map can describe is planned
     * without the family. */
    bool tensor_maps;
    /* Source parts in cl/ that its kernel file needs between common.cl and itself,
     * NULL-terminated (NULL: none): helpers only some kernels share, such as the tensor-core
     * kernels' inline PTX (cl/ptx.cl), which the other kernels are better off not seeing. */
    const char *const *parts;
    /* The depth of the K-blocks of the blocked schedule for this problem, 0 for none (NULL: the
     * family has no such schedule): built with PACKED=1, its kernel reads one K-block of op(A)
     * and op(B) packed into micro-panels (cl/pack.cl's clgemm_pack_panels, tile() rows or
     * columns each), once per block (src/exec/gemm.c). */
    int (*pack_depth)(const clgemm_config *c, const device_info *info, clgemm_precision type,
                      const gemm_dims *dims);
    /* The rows of op(A) the blocked schedule packs and multiplies at a time within a K-block of
     * kc steps of an n-column C, a multiple of tile()'s rows (src/exec/gemm.c; `small`:
     * CLGEMM_PACK_KC forces the schedule, and small blocks make every loop run more than once).
     * 0 or NULL: all of op(A) at once. */
    size_t (*pack_rows)(const clgemm_config *c, const device_info *info, clgemm_precision type,
                        size_t n, size_t kc, bool small);
    /* The work-groups a persistent configuration launches, which loop over the call's tiles
     * (all its matrices and split-K layers) themselves; 0 (or NULL): the grid of `launch`, one
     * tile a work-group, its third dimension the matrices and layers. Only a tensor-map
     * family's kernel is launched this way (exec/gemm.c): the unit count follows its maps. */
    size_t (*persistent_groups)(const clgemm_config *c, const device_info *info);
    /* The bytes of local memory one work-group of a configuration takes for the type (its static
     * arrays and barriers, the 1 KiB each reserves included), so the planner counts the
     * work-groups a compute unit holds by local memory as well as by registers (NULL: by
     * registers only; the other families' defaults are bound by registers). */
    size_t (*local_bytes)(const clgemm_config *c, clgemm_precision type);
} family_desc;

/* The registered families, in order of preference for defaults; NULL-terminated. */
extern const family_desc *const clgemm__families[];
/* The patched-PTX step of the family whose kernel file this is (NULL: none, or no such family). */
const ptx_patch_need *clgemm__ptx_patch_need(const char *file_name);
/* The source parts the family whose kernel file this is places before it (family_desc.parts;
 * NULL: none, or no such family). */
const char *const *clgemm__kernel_parts(const char *file_name);
/* The tensor-core families' parts: cl/ptx.cl. */
extern const char *const clgemm__ptx_parts[];
/* The descriptor of a family id; NULL for AUTO or an unknown id. */
const family_desc *clgemm__family(clgemm_family id);
/* Checks a configuration against its family's rules and the device's limits. */
clgemm_status clgemm__config_check(const clgemm_config *config, const device_info *info,
                                   clgemm_precision precision);
/* The built-in default for the device's class, for large problems (not yet checked against the
 * device). */
clgemm_config clgemm__config_default(const device_info *info, clgemm_precision precision);
/* The built-in default for a batch of m x n x k problems on this device: the largest-tiled of
 * the class's defaults that the device accepts and whose tiles (over the whole batch) still give
 * every compute unit a work-group (or, for one skinny or long-K matrix, enough K-slices to share
 * out), else the smallest it accepts. In a batch (batch > 1) a tile that pads a matrix by more
 * than a quarter is passed over: many small matrices fill the device anyway, and padding is pure
 * waste. A family that can neither split K nor stream it is passed over for a long K that its
 * tiles leave on a few compute units. */
clgemm_config clgemm__config_default_for(const device_info *info, clgemm_precision precision,
                                         clgemm_compute compute, size_t m, size_t n, size_t k,
                                         size_t batch);
/* The same for a problem whose operands' alignment is known (dims->aligned). */
clgemm_config clgemm__config_default_for_dims(const device_info *info, clgemm_precision precision,
                                              clgemm_compute compute, const gemm_dims *dims);
/* Whether the configuration's family computes this type in this compute mode on the device. */
bool clgemm__config_supports(const clgemm_config *config, const device_info *info,
                             clgemm_precision precision, clgemm_compute compute);
/* The smallest square-tiled built-in default of the configuration's family that the device
 * accepts, else its smallest (the configuration itself if there is none): peeled strips. */
clgemm_config clgemm__config_smallest(const clgemm_config *config, const device_info *info,
                                      clgemm_precision precision);
/* A small configuration every OpenCL 1.2 device can run. */
clgemm_config clgemm__config_fallback(void);
/* Appends "-DNAME=value" for each parameter the family uses. Returns the length written, or a
 * negative value if buf is too small. */
int clgemm__config_options(const clgemm_config *config, char *buf, size_t size);
/* Work-group and global sizes for a col-major problem of m x n. */
void clgemm__config_launch(const clgemm_config *config, size_t m, size_t n, size_t local[2],
                           size_t global[2]);
/* The mt x nt tiles of d's m x n x batch problem into *tiles; false for a problem of any size (m
 * or n 0) or a count past size_t. */
bool clgemm__tile_count(const gemm_dims *d, size_t mt, size_t nt, size_t *tiles);
/* What mt x nt tiles cover of an m x n matrix once a last row or column of tiles at most a quarter
 * full (always: any partial one) is peeled off to run apart (the planner's clgemm__plan_peel);
 * m, n where none is. */
void clgemm__peel_extent(size_t mt, size_t nt, size_t m, size_t n, bool always, size_t *main_m,
                         size_t *main_n);
/* Whether mt x nt tiles (a configuration's) pad an m x n matrix by at most a quarter. */
bool clgemm__tiles_pad_little(size_t mt, size_t nt, size_t m, size_t n);
bool clgemm__config_pads_little(const clgemm_config *config, size_t m, size_t n);
/* Whether two configurations are the same family with the same parameter values. */
bool clgemm__config_equal(const clgemm_config *a, const clgemm_config *b);
/* Parameter i of the family (an index into its params) in a configuration as it builds: an
 * optional one's 0 and 1 are both 0. */
int clgemm__param_value(const family_desc *f, int i, const clgemm_config *config);
/* Whether parameter i of the family is optional (family_param_ext). */
bool clgemm__param_optional(const family_desc *f, int i);
/* The powers of two the tuner searches for parameter i of the family on this device (lo 0:
 * none). */
void clgemm__param_search(const family_desc *f, int i, const device_info *info, int *lo, int *hi);

/* Helpers for descriptors. */
static inline bool clgemm__is_pow2(int v) {
    return v > 0 && (v & (v - 1)) == 0;
}
static inline bool clgemm__fits_work_group(size_t x, size_t y, const device_info *info) {
    return x * y <= info->max_work_group_size && x <= info->max_work_item_sizes[0] &&
           y <= info->max_work_item_sizes[1];
}
static inline size_t clgemm__round_up(size_t v, size_t to) {
    return (v + to - 1) / to * to;
}

/* The descriptor fields every family fills alike: its id, its names from one word (kernel
 * source cl/<word>.cl, kernel clgemm_<word>), its `params` table with the length of that table,
 * and the file's own `rules`, `launch` and `tile`. */
#define FAMILY_BASICS(family_id, word)                                                             \
    .id = family_id, .name = #word, .file = #word ".cl", .kernel = "clgemm_" #word,                \
    .params = params, .num_params = (int)(sizeof params / sizeof params[0]), .rules = rules,       \
    .launch = launch, .tile = tile

/* The tensor-core families (mma, wgmma) share their geometry: parameters MWG, NWG, KWG, WM, WN,
 * STAGES in slots 0-5, `lanes` work-items per WM x WN tile of a work-group (32: a warp, 128: a
 * warpgroup), operands staged by 16-byte chunks through STAGES slices of local memory. */
enum { WARP_MWG, WARP_NWG, WARP_KWG, WARP_WM, WARP_WN, WARP_STAGES };
/* Their parameter table: the work-group tile's the same in both, the warp tile's search range
 * and meaning, and the largest STAGES searched, each family's own. */
/* clang-format off */
#define WARP_TILE_PARAMS(wm_lo, wm_hi, wm_doc, wn_lo, wn_hi, wn_doc, stages_hi, stages_doc)        \
    {"MWG", WARP_MWG, 64, 256, "work-group tile along M"},                                         \
    {"NWG", WARP_NWG, 64, 256, "work-group tile along N"},                                         \
    {"KWG", WARP_KWG, 8, 32, "depth of one K slice in local memory"},                              \
    {"WM", WARP_WM, wm_lo, wm_hi, wm_doc},                                                         \
    {"WN", WARP_WN, wn_lo, wn_hi, wn_doc},                                                         \
    {"STAGES", WARP_STAGES, 2, stages_hi, stages_doc}
/* clang-format on */
/* Whether the work-group, the chunks each work-item copies and the local memory fit the device. */
bool clgemm__warp_tiles_fit(const clgemm_config *c, const device_info *info, const type_desc *t,
                            int lanes);
/* Their stages' bytes for the type, and the 1 KiB a work-group reserves (family_desc.local_bytes).
 */
size_t clgemm__warp_tiles_local_bytes(const clgemm_config *c, clgemm_precision type);
/* One work-group of lanes x (MWG / WM) x (NWG / WN) work-items per MWG x NWG tile of C. */
void clgemm__warp_tiles_launch(const clgemm_config *c, int lanes, size_t m, size_t n,
                               size_t local[2], size_t global[2]);
/* Their descriptors alike: split K, searched by the tuner, own device support, build options,
 * defaults and --quick list, and the shared inline PTX (cl/ptx.cl) in front of their source. */
#define TENSOR_CORE_FAMILY(family_id, word)                                                        \
    FAMILY_BASICS(family_id, word), .searched = true, .split_k = true, .supported = supported,     \
                                    .call_options = call_options, .defaults = defaults,            \
                                    .quick = quick, .parts = clgemm__ptx_parts

/* "Any compute mode": what a forced or stored configuration is checked with. */
#define CLGEMM__COMPUTE_ANY ((clgemm_compute)-1)
/* The types wgmma multiplies (the wgmma and tma families): FP16 and BF16 in any compute mode,
 * FP32 in the TF32 mode only (3xTF32 stays on the mma.sync family). */
bool clgemm__wgmma_types(clgemm_precision type, clgemm_compute compute);

extern const family_desc clgemm__family_naive, clgemm__family_tiled, clgemm__family_regblock,
    clgemm__family_mma, clgemm__family_wgmma, clgemm__family_microkernel, clgemm__family_tma,
    clgemm__family_tma_simt, clgemm__family_tma_fp64;

#endif /* CLGEMM_FAMILY_H */
