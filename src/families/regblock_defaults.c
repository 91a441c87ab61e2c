/* regblock_defaults.c: the register-blocked family's built-in defaults (the library's
 * defaults), one set of lists per architecture tier (clgemm__device_tier) and one per device
 * class for devices of no known tier. Each list runs from the largest tiles down: the planner
 * takes the largest whose tiles still give every compute unit a work-group.
 *
 * Where the values come from. NVIDIA Hopper, the CPU lists and the class lists are this
 * project's own measurements (docs/PERFORMANCE.md) or compile checks (docs/PORTABILITY.md).
 * The other tiers take CLBlast's tuning results: its database
 * (github.com/CNugteren/CLBlast, src/database/kernels/xgemm/xgemm_32.hpp for FP32 and
 * xgemm_64.hpp for FP64, commit eeff251) holds the best Xgemm parameters found per device, and
 * they are ours by name (MWG NWG KWG MDIMC NDIMC KWI VWM VWN). Only entries with GEMMK=0 carry
 * over (GEMMK=1 is a different kernel); MDIMA / NDIMB, SA / SB, STRM / STRN and KREG have no
 * counterpart here and are dropped. An entry is taken only where our kernel compiles it without
 * spilling for the tier's compile target (tests/portability, docs/PORTABILITY.md): our kernel
 * holds more per work-item than CLBlast's, so several of CLBlast's largest register blocks
 * spill, and the comment beside each list names the entry passed over. NVIDIA tiers have no
 * offline compiler here: their lists are checked against the rules and the recorded limits only.
 * Complex single uses the FP64 list (its elements are as large); the smallest entry of each list
 * is for problems too small to give each compute unit a tile. None of these ran on the tier's
 * hardware. */
#include "families/regblock_defaults.h"

#include "families/family.h"

/* ---- the class lists (and NVIDIA Hopper's) -------------------------------------------------- */

/* NVIDIA's 32 x 32 tiles for small problems (the H200 lists' and the tiers'), and the two
 * smallest entries of both H200 FP32 batch lists. */
#define NV_SMALL       RB(32, 32, 16, 8, 8, 4, 2, 2)
#define NV_BATCH_SMALL RB(64, 64, 8, 16, 8, 8, 2, 2), NV_SMALL

/* NVIDIA: the H200 measurements of docs/PERFORMANCE.md (complex: the FP64 list, as a complex
 * element is as large as a double); they also serve NVIDIA devices of no known tier. */
/* 256 x 64 and 64 x 256 tiles (16 x 8 blocks, 16 along M as in 256 x 128's) serve narrow
 * matrices: H200 FP32 with K split 8 ways, 8192 x 64 x 8192 (kernel terms) ran 34.9 TFLOPS in
 * 256 x 64 tiles, 30.1 in 64 x 64 ones; 64 x 8192 x 8192 32.5 in 64 x 256 tiles of 4 x 32
 * work-items, 30.6 with 8 x 16 (bench/results/h200-batched-types-tile-sweep.log,
 * narrow sweep). */
/* 16 x 32 tiles (2 x 2 blocks) are what the tuner's searches at 256^3 found (180 s and 10
 * minutes alike, bench/results/h200-tuner-180s-vs-10min.log): single matrices of 128 to
 * 300 ran 1.1-1.5 x faster in them than in 32 x 32 tiles, 384 and 512 slower (0.87-0.90 x), which
 * 32 x 32 tiles still fill the device for (c585671^:docs/perf/session4-final-2026-11-30.log,
 * kept in the history). */
/* The large squares' entry (H200 FP32 8192^2 46.4 TFLOPS, 4096^2 44.9: 0.92-0.94 x cuBLAS) and
 * the smaller tiles after it. Issue 32's candidates (two local buffers, slices deeper than 48 KiB
 * allows, 16-byte loads) are timed against it by `bench/gpu/run.sh fp32-sweep`
 * (bench/gpu/fp32-sweep.list). A device whose static local memory cannot hold an entry refuses
 * it and takes the next. */
#define NV_FP32_LARGE RB(256, 128, 8, 16, 16, 8, 4, 4)
#define NV_FP32_SMALLER_WITH(narrow_)                                                              \
    RB(128, 128, 8, 16, 16, 8, 4, 4), RB(256, 64, 8, 16, 8, 8, 4, 4), narrow_,                     \
        RB(64, 64, 32, 16, 8, 8, 2, 2), NV_SMALL, RB(16, 32, 32, 8, 16, 8, 2, 2), END_OF_LIST
#define NV_FP32_SMALLER NV_FP32_SMALLER_WITH(RB(64, 256, 8, 4, 32, 8, 4, 4))
static const clgemm_config nvidia_single[] = {NV_FP32_LARGE, NV_FP32_SMALLER};
/* FP32 single matrices on Hopper: the same tile with 16-byte loads inside aligned operands
 * (VLOAD 2; A's vectors stored whole into local memory): H200 8192^2 46.8 TFLOPS against 46.2,
 * 4096^2 46.2 against 44.9, two alternated rounds (bench/results/h200-fp32-vector-loads.log);
 * 4097^2 equal (42.9), its unaligned leading dimension keeps the element loads. FP16 and BF16,
 * stored narrower than they compute, keep nvidia_single (the kernel loads them element-wise). */
static const clgemm_config nvidia_hopper_single[] = {RB_FULL(256, 128, 8, 16, 16, 8, 4, 4, 0, 2),
                                                     NV_FP32_SMALLER};
/* Batches of 16 or more FP32 matrices (H200, c585671^:docs/perf/async-lab-2026-11-30.log, kept in
 * the history, and bench/results/h200-batched-types-tile-sweep.log): 64 x 64 tiles in
 * 8-deep slices ran 10000 x 64^3 at 23.4-23.8 TFLOPS and 1000 x 128^3 at 28.3-29.1, where the
 * single-matrix list gave 19.8 (64 x 64, 32 deep) and 20.9 (128 x 128); 256^3 and 512^3 matrices
 * keep 256 x 128 (35.5; 128 x 128 ran 29-31, and 128 x 64 tiles ran 128^3 at 24.1). Fewer matrices
 * keep the single list. */
static const clgemm_config nvidia_single_batched[] = {RB(256, 128, 8, 16, 16, 8, 4, 4),
                                                      NV_BATCH_SMALL, END_OF_LIST};
/* Batches of matrices at least 256 on every side (K too: the 8 x 8 blocks of 128 x 64 tiles need
 * many slices to repay their loads): 128 x 64 tiles of 16 x 8 work-items ran 1000 x 256^3 at
 * 37.4 TFLOPS and 100 x 512^3 at 38.5 where 256 x 128 ran 34.0-35.5 and 34.9-36.1
 * (bench/results/h200-batched-types-tile-sweep.log, batched sweep). */
static const clgemm_config nvidia_single_batched_large[] = {RB(128, 64, 8, 16, 8, 8, 4, 4),
                                                            NV_BATCH_SMALL, END_OF_LIST};
/* FP32 on Hopper where both operands keep 16-byte chunks: 128 x 128 tiles with 16-byte loads
 * (VLOAD 2) first, single matrices and batches of matrices of 256 and more alike. H200, two
 * alternated rounds each (bench/results/h200-fp32-128x128-vector-loads.log): 8192^2 48.4-48.6
 * TFLOPS against 256 x 128's 46.6, 6144^2 48.0-48.2 against 46.4, 4096^2 47.1-47.4 against
 * 45.4-46.1, 2048^2 42.9-43.3 against 41.7-42.3; batches 1000 x 256^3 41.6-41.8 against 128 x
 * 64's 37.2-38.0, 100 x 512^3 41.5-42.8 against 38.8-38.9, 300 x 384^3 43.0 against 39.0, 50 x
 * 1024^3 46.3-46.9 against 41.5 (torch.bmm 43.1-44.1, 42.1-42.8, 44.6, 47.6). 128 x 64 and
 * 256 x 128 with the vector loads, and 128 x 128 in 16-deep slices, were slower on the batches
 * (35.5-37.9, 31-33). Off 16 bytes the same tiles load element by element and lose 20-32 %
 * (4097^2 34.0 against 256 x 128's 42.7, 1000 x 257^3 13.9 against 128 x 64's 20.5), so such
 * calls keep the lists above. */
#define NV_HOPPER_ALIGNED RB_FULL(128, 128, 8, 16, 16, 8, 4, 4, 0, 2)
/* The smaller tiles for aligned operands: 64 x 256 with 16-byte loads too. H100, row-major
 * 8192 x 64 x 8192 (64 x 8192 x 8192 in kernel terms, B K-major; 32 tiles split 8 ways), two
 * alternated rounds (bench/results/h100-fp32-narrow-splits.log): 31.6 TFLOPS against 30.2-30.4
 * with element loads; 16- and 32-deep slices, two local buffers and other splits were slower
 * (19.2-28.5). */
#define NV_HOPPER_SMALLER NV_FP32_SMALLER_WITH(RB_FULL(64, 256, 8, 4, 32, 8, 4, 4, 0, 2))
static const clgemm_config nvidia_hopper_single_aligned[] = {NV_HOPPER_ALIGNED, NV_HOPPER_SMALLER};
/* Measured with B K-major (row-major NN). 256 x 128 tiles (both with 16-byte loads) first, where
 * 128 x 128 ones lose: (1) both operands MN-major (row-major TN), wherever 256 x 128 tiles fill 0.9
 * of a wave: H100, two alternated rounds (bench/results/h100-fp32-mn-major-tiles.log), 2048^2
 * 44.7-44.9 TFLOPS against 35.9-36.0, 2304^2 41.2-41.3 against 34.9, 2560^2 43.6-43.8 against
 * 37.0-37.2, 2816^2 44.9 against 34.9-35.2, 3072^2 46.7 against 38.1-38.2 (cuBLAS TN 45.3, 43.0,
 * 41.6, 45.1, 46.1); 128 x 64 tiles where they even the SMs out, as above (1536^2 26.8-27.2,
 * 1792^2 36.4-36.9). (2) Any layout where 128 x 128 tiles make 1.2 to 1.6 waves of two an SM,
 * which stream-K evens out only in part: H100 row-major NN (bench/results/
 * h100-fp32-nn-mid-tiles.log), 2304^2 (1.23 waves) 38.1-38.7 against 36.8-37.2, 2560^2 (1.52)
 * 40.3-41.0 against 37.8; outside it they lost (2176^2, 1.09: 33.5-34.0 against 37.5-37.8; 2816^2,
 * 1.83: 41.3-41.9 against 43.1-43.9). */
static const clgemm_config nvidia_hopper_single_wide[] = {
    RB_FULL(256, 128, 8, 16, 16, 8, 4, 4, 0, 2), NV_HOPPER_ALIGNED, NV_HOPPER_SMALLER};
/* The same with 128 x 64 tiles first (four an SM), where 128 x 128 ones (two an SM) load the SMs
 * unevenly: every SM runs its share of whole tiles, so a call lasts ceil(tiles / SMs) of them;
 * 128 x 64 tiles do half the work and run about 10 % slower a flop, so they lead where their rounds
 * take at most 0.8 of 128 x 128's. H200, forced, stream-K off (bench/results/
 * h200-wave-and-depth-rules.log): 1536^2 (2 rounds against 1.5) 28.2 TFLOPS against 23.7-24.1,
 * 1664^2 (2 against 1.5) 34.3 against 28.5, 1792^2 (2 against 1.5) 38.9 against 32.4-32.6; 2176^2
 * and 2304^2 (3 against 2.5) 31.3 and 35.2 against 33.1 and 37.2, 2432^2 (3 against 3) 39.2
 * against 40.9, 2560^2 (4 against 3.5) 29.6 against 35.8-35.9, 2816^2 (4 against 4) 36.0 against
 * 43.7. */
#define NV_HOPPER_ALIGNED_HALF RB_FULL(128, 64, 8, 16, 8, 8, 4, 4, 0, 2)
static const clgemm_config nvidia_hopper_single_aligned_half[] = {NV_HOPPER_ALIGNED_HALF,
                                                                  NV_HOPPER_SMALLER};
static const clgemm_config nvidia_hopper_single_batched_large[] = {
    NV_HOPPER_ALIGNED, RB(128, 64, 8, 16, 8, 8, 4, 4), NV_BATCH_SMALL, END_OF_LIST};
#define MANY_MATRICES 16
#define LARGE_SIDE    256
/* FP64 on the SIMT cores, for NVIDIA devices of no known tier without FP64 tensor cores (the
 * H200 runs FP64 on them; measured there with the family forced): 128 x 64 and 64 x 128 tiles
 * ran the narrow 8192 x 64 x 8192 shapes at 17.7 TFLOPS where 64 x 64 ran 14.7 (19.9 with K
 * split), and 128 x 64 split 33 ways ran 256 x 256 x 16384 at 16.7-16.9 (128 x 128 16.4-16.8,
 * 64 x 64 split 17 ways 11.4; the planner's rule: registry.c's few_tiles_share). */
static const clgemm_config nvidia_double[] = {RB(128, 128, 8, 16, 16, 4, 2, 2),
                                              RB(128, 64, 8, 16, 8, 4, 2, 2),
                                              RB(64, 128, 8, 8, 16, 4, 2, 2),
                                              RB(64, 64, 16, 16, 16, 2, 2, 2),
                                              NV_SMALL,
                                              END_OF_LIST};
/* Complex single keeps the list FP64 had before those tiles (CGEMM 4096^2 37.1 TFLOPS): the
 * new ones were measured for FP64 only. */
static const clgemm_config nvidia_complex_single[] = {
    RB(128, 128, 8, 16, 16, 4, 2, 2), RB(64, 64, 16, 16, 16, 2, 2, 2), NV_SMALL, END_OF_LIST};
static const clgemm_config nvidia_complex_double[] = {RB(64, 64, 16, 16, 16, 2, 2, 2), NV_SMALL,
                                                      END_OF_LIST};
/* AMD of no known tier: 64x64 suits discrete GPUs; compiles without spills on gfx906, gfx90a
 * and gfx1030 for every type. */
static const clgemm_config amd_gpu[] = {RB(64, 64, 16, 16, 16, 2, 2, 2),
                                        RB(32, 32, 16, 8, 8, 2, 2, 2), END_OF_LIST};
/* Intel: 64x64 with 16x16 work-items, vectors of 2 and 8-deep slices. The earlier 8x8
 * work-items with vectors of 4 spilled on every Intel target ocloc compiles for
 * (docs/PORTABILITY.md: dg2-g10 about 29 bytes for FP32, pvc 393); this one compiles without
 * spills for FP32 and FP16 on tgllp, dg2-g10 and pvc, and for complex on tgllp and dg2-g10 (pvc
 * spills about 82 bytes for complex, hence Xe-HPC's own FP64 list; 16-deep slices spilled 48 for
 * FP32 there). Compiled only: not yet run on Intel hardware. */
static const clgemm_config intel_gpu[] = {RB(64, 64, 8, 16, 16, 2, 2, 2),
                                          RB(32, 32, 16, 8, 8, 2, 2, 2), END_OF_LIST};
static const clgemm_config other_gpu[] = {RB(32, 32, 16, 8, 8, 2, 2, 2), END_OF_LIST};
/* CPUs: on PoCL (2026-11-30, clgemm-bench, ratios to CLBlast in the same run, 256-1024): FP32
 * on 64x64 tiles of 8x8 work-items with 8x8 register blocks ran 1.7-3.4x CLBlast where the
 * former 32x32 default ran 0.7-1.7x; FP64 on them ran 0.7-1.25x, on 64x32 tiles 1.24-1.42x
 * (complex single follows FP64, as on NVIDIA; complex double keeps the former default, not
 * measured). 32x32 stays for problems too small to give each core a tile. */
static const clgemm_config cpu_single[] = {RB(64, 64, 16, 8, 8, 2, 4, 4),
                                           RB(32, 32, 32, 4, 8, 4, 4, 4), END_OF_LIST};
static const clgemm_config cpu_double[] = {RB(64, 32, 16, 8, 8, 2, 4, 4),
                                           RB(32, 32, 32, 4, 8, 4, 4, 4), END_OF_LIST};
static const clgemm_config cpu_complex_double[] = {RB(32, 32, 32, 4, 8, 4, 4, 4), END_OF_LIST};

static const regblock_tier class_lists[DEVICE_CLASS_COUNT] = {
    [DEVICE_NVIDIA_GPU] = {TIER_UNKNOWN, DEVICE_NVIDIA_GPU, nvidia_single, nvidia_double,
                           nvidia_complex_double, "H200 measurements (docs/PERFORMANCE.md)"},
    [DEVICE_AMD_GPU] = {TIER_UNKNOWN, DEVICE_AMD_GPU, amd_gpu, amd_gpu, amd_gpu,
                        "compile checks (docs/PORTABILITY.md)"},
    [DEVICE_INTEL_GPU] = {TIER_UNKNOWN, DEVICE_INTEL_GPU, intel_gpu, intel_gpu, intel_gpu,
                          "compile checks (docs/PORTABILITY.md)"},
    [DEVICE_OTHER_GPU] = {TIER_UNKNOWN, DEVICE_OTHER_GPU, other_gpu, other_gpu, other_gpu,
                          "small enough for any OpenCL 1.2 GPU"},
    [DEVICE_CPU] = {TIER_UNKNOWN, DEVICE_CPU, cpu_single, cpu_double, cpu_complex_double,
                    "PoCL measurements (docs/PERFORMANCE.md)"},
};

/* ---- NVIDIA tiers: CLBlast's SM7.0 to SM8.9 entries --------------------------------------- */

/* The smallest: the H200 lists' NV_SMALL, for small problems. Complex double takes the H200
 * list on every NVIDIA tier: CLBlast's FP64 entries of 32-deep slices need more than the 48 KiB
 * of local memory NVIDIA's OpenCL gives once an element is 16 bytes. */

/* Volta: xgemm_32 / xgemm_64 "Tesla V100-PCIE-16GB" (also the SM7.0 default). */
static const clgemm_config nv_volta_single[] = {RB(64, 32, 32, 16, 8, 2, 4, 4), NV_SMALL,
                                                END_OF_LIST};
static const clgemm_config nv_volta_double[] = {RB(32, 64, 32, 8, 8, 2, 2, 4), NV_SMALL,
                                                END_OF_LIST};
/* Turing: xgemm_32 "Tesla T4" (also Quadro T2000), then "NVIDIA GeForce RTX 2070 Super".
 * xgemm_64's "Tesla T4" (128x64 tiles, 32 deep) needs 50 KiB of local memory with our padded
 * rows, over the 48 KiB NVIDIA's OpenCL gives: "NVIDIA GeForce GTX 1650 SUPER", the next entry
 * with GEMMK=0 (Turing runs FP64 at 1/32 of FP32: small tiles lose little). */
static const clgemm_config nv_turing_single[] = {
    RB(128, 128, 16, 16, 16, 2, 1, 2), RB(64, 64, 32, 16, 8, 2, 4, 4), NV_SMALL, END_OF_LIST};
static const clgemm_config nv_turing_double[] = {RB(16, 32, 32, 16, 8, 2, 1, 4), END_OF_LIST};
/* Ampere GA100: xgemm_32 / xgemm_64 "A100-PCIE-40GB" (the one SM8.0 device). */
static const clgemm_config nv_ampere_single[] = {RB(32, 64, 32, 8, 16, 2, 4, 4), END_OF_LIST};
static const clgemm_config nv_ampere_double[] = {RB(64, 32, 32, 32, 8, 2, 2, 2), NV_SMALL,
                                                 END_OF_LIST};
/* Ampere GA10x: xgemm_32 "NVIDIA GeForce RTX 3080" (also RTX 3070), then "NVIDIA GeForce RTX
 * 3090" (also RTX A6000; SM8.6's default entry has 16x16 tiles);
 * xgemm_64 "NVIDIA GeForce RTX 3070", then "NVIDIA GeForce RTX 3090" (FP64 runs at 1/64 of
 * FP32 on these: small tiles lose nothing). */
static const clgemm_config nv_ga10x_single[] = {
    RB(64, 128, 32, 8, 16, 2, 2, 2), RB(64, 64, 32, 16, 8, 2, 4, 4), NV_SMALL, END_OF_LIST};
static const clgemm_config nv_ga10x_double[] = {RB(16, 64, 16, 16, 8, 2, 1, 4),
                                                RB(16, 16, 32, 8, 8, 2, 1, 1), END_OF_LIST};
/* Ada: xgemm_32 "NVIDIA GeForce RTX 4090", then "NVIDIA GeForce RTX 4080" (also RTX 4070 Ti).
 * Every SM8.9 entry of xgemm_64 is GEMMK=1: FP64 takes GA10x's list, the nearest design. */
static const clgemm_config nv_ada_single[] = {
    RB(128, 64, 32, 32, 8, 2, 4, 4), RB(32, 128, 16, 8, 16, 2, 4, 8), NV_SMALL, END_OF_LIST};

/* ---- AMD tiers: CLBlast's gfx906 and gfx1030 entries -------------------------------------- */

/* 32x32 for small problems (the class list's), and complex double on 16x16 work-items with 2x2
 * blocks (the class list's 64x64, then 32x32): no spills on gfx906, gfx90a or gfx1030, where
 * 32x32 tiles of 8x8 work-items spill 20-60 bytes for complex double (gfx906, gfx1030). */
#define AMD_SMALL RB(32, 32, 16, 8, 8, 2, 2, 2)
static const clgemm_config amd_complex_double[] = {RB(64, 64, 16, 16, 16, 2, 2, 2),
                                                   RB(32, 32, 16, 16, 16, 2, 2, 2), END_OF_LIST};
/* GCN: xgemm_32 "AMD Instinct MI50/MI60" (also Radeon VII, the gfx906 default); xgemm_64 "AMD
 * Instinct MI50/MI60" (the gfx906 default). CDNA has no entry in CLBlast's database: it takes
 * gfx906's, the GCN5 design CDNA grew from (gfx90a compiles them without spills too). */
static const clgemm_config amd_gcn_single[] = {RB(64, 64, 32, 16, 16, 2, 4, 4), AMD_SMALL,
                                               END_OF_LIST};
static const clgemm_config amd_gcn_double[] = {RB(64, 64, 32, 32, 8, 2, 2, 4), AMD_SMALL,
                                               END_OF_LIST};
/* RDNA: xgemm_32 gfx1030 "default"; its "AMD Radeon RX 6800 XT" entry (128x64 tiles of 8x8
 * work-items) spills 716 bytes on gfx1030 with our kernel, "AMD Radeon RX 6900 XT" (128x64 of
 * 16x8) 332. xgemm_64 "AMD Radeon RX 6800 XT". */
static const clgemm_config amd_rdna_single[] = {RB(64, 64, 32, 16, 8, 2, 4, 4), AMD_SMALL,
                                                END_OF_LIST};
static const clgemm_config amd_rdna_double[] = {RB(32, 64, 32, 16, 8, 2, 2, 4), AMD_SMALL,
                                                END_OF_LIST};

/* ---- Intel tiers -------------------------------------------------------------------------- */

/* Gen9 to Gen11: xgemm_32's Intel GPU "default" (its "Intel(R) HD Graphics 530" entry, 128x64,
 * spills 82 bytes on skl with our kernel, "Intel(R) HD Graphics 620"'s 64x128 68); then, and for
 * FP64, xgemm_64 "Intel(R) HD Graphics 620" ("Intel(R) UHD Graphics 620"'s and "Intel(R)
 * Iris(R) Plus Graphics 640"'s 64x64 spill 116 bytes). Complex double: 32x32 tiles of 16x16
 * work-items (8x8 ones spill 188 bytes on skl). */
static const clgemm_config intel_gen9_single[] = {RB(64, 64, 32, 16, 8, 2, 4, 2),
                                                  RB(32, 32, 16, 8, 8, 2, 1, 1), END_OF_LIST};
static const clgemm_config intel_gen9_double[] = {RB(32, 32, 16, 8, 8, 2, 1, 1), END_OF_LIST};
static const clgemm_config intel_gen9_complex_double[] = {RB(32, 32, 16, 16, 16, 2, 2, 2),
                                                          END_OF_LIST};
/* FP8 (E4M3, E5M2): the FP32 list's 64x64 tiles spill 520-583 bytes on skl with the decoding
 * on load (tests/portability/compile.py); its 32x32 entry first. */
static const clgemm_config intel_gen9_fp8[] = {RB(32, 32, 16, 8, 8, 2, 1, 1), END_OF_LIST};
/* Xe-HPC: no entry in CLBlast's database. FP32 keeps the Intel list's 64x64, but its 32x32
 * tiles of 8x8 work-items spill 146-224 bytes on pvc: 16x16 work-items do not. ocloc compiles pvc
 * at SIMD32, where every FP64 build we tried of 16x16 or fewer work-items spilled (2-136 bytes):
 * FP64 and complex single take 32x32 and 16x32 work-items (1024 and 512), which do not. Every
 * complex double build we tried spills on pvc (36-94 bytes); the least is kept
 * (tests/portability/compile.py lists it as a known spill). */
static const clgemm_config intel_hpc_single[] = {RB(64, 64, 8, 16, 16, 2, 2, 2),
                                                 RB(32, 32, 16, 16, 16, 2, 2, 2), END_OF_LIST};
static const clgemm_config intel_hpc_double[] = {RB(64, 64, 16, 32, 32, 2, 1, 1),
                                                 RB(32, 64, 16, 16, 32, 2, 2, 2), END_OF_LIST};
static const clgemm_config intel_hpc_complex_double[] = {RB(32, 32, 8, 16, 16, 1, 2, 2),
                                                         END_OF_LIST};

/* ---- CPU tiers (PoCL's LLVM target): docs/PERFORMANCE.md, "CPU defaults per vector ISA" -- */

/* The CPU class's --quick candidates, for CPUs of no tier with lists of their own: the class
 * default and 64x64x32 KWI=4, the best at 256 of the full quick list in two cold FP32 runs on
 * PoCL (2026-11-30). Two only: a cold PoCL build took 10-17 s on a loaded 2-core machine, and
 * --quick must finish its set within 45 s. */
static const clgemm_config cpu_quick[] = {RB(64, 64, 16, 8, 8, 2, 4, 4),
                                          RB(64, 64, 32, 8, 8, 4, 4, 4), END_OF_LIST};

/* AVX2 (haswell, znver1-3): issue 26's record, 2026-12-01 at c870418, 2 cores of an AMD EPYC,
 * PoCL 3.1 "pthread-haswell-AMD EPYC", no tuning database, `clgemm-bench --sizes 256,512,1024
 * --precision s --runs 5`: the class's FP32 default ran 0.27-0.49 x CLBlast, and a 45 s
 * `clgemm-tune --quick` found 64x64 tiles in 32-deep slices with KWI=4 at x2.34 over it. That
 * quick tune is the only measurement there: FP32 (and FP16 / BF16, which compute in FP32)
 * takes its result, the other types keep the class lists (not measured on that host). */
static const clgemm_config cpu_avx2_single[] = {RB(64, 64, 32, 8, 8, 4, 4, 4),
                                                RB(32, 32, 32, 4, 8, 4, 4, 4), END_OF_LIST};
static const clgemm_config cpu_avx2_quick_single[] = {RB(64, 64, 32, 8, 8, 4, 4, 4),
                                                      RB(64, 64, 16, 8, 8, 2, 4, 4), END_OF_LIST};

/* AVX-512 (skylake-avx512, icelake, sapphirerapids, znver4-5): this project's Xeon, 2 cores
 * (PoCL 3.1 "pthread-skylake-avx512-Intel(R) Xeon(R) Processor"), 2026-12-01 from c870418,
 * loaded by other work (load average 9-14): candidates from `clgemm-tune --quick --type s|d
 * --shape 256 --shape 512 [--shape 1024]` over a wider, temporary quick set, then each timed
 * against CLBlast in the same run, 3-6 times (`clgemm-bench --sizes 256,512,1024 --precision
 * s|d --runs 5|9 --family regblock --params ...`; medians; docs/PERFORMANCE.md, "CPU defaults
 * per vector ISA"; raw: bench/results/pocl-avx512-tier-candidates.log). FP32: 128x128
 * tiles of 16x16 work-items ran 2.45 / 1.52 / 3.65 x CLBlast at 256 / 512 / 1024, the class default
 * (64x64 of 8x8) 1.25 / 1.45 / 2.89, the tuner's pick at 512 (128x64 of 16x8, the second --quick
 * candidate) 1.50 / 1.82 / 3.19. 64x64 then 32x32 stay for smaller problems. FP16 / BF16 storage
 * (FP32 arithmetic) on it took 0.77 / 0.89 (FP16) and 0.81 / 0.56 (BF16) of the class default's
 * time at 256 / 512 (medians of 3 runs of clgemm-types-bench; no CLBlast for them). */
static const clgemm_config cpu_avx512_single[] = {RB(128, 128, 16, 16, 16, 2, 4, 4),
                                                  RB(64, 64, 16, 8, 8, 2, 4, 4),
                                                  RB(32, 32, 32, 4, 8, 4, 4, 4), END_OF_LIST};
static const clgemm_config cpu_avx512_quick_single[] = {
    RB(128, 128, 16, 16, 16, 2, 4, 4), RB(128, 64, 16, 16, 8, 2, 4, 4), END_OF_LIST};
/* FP64: 128x64 tiles of 16x16 work-items (8x4 blocks), the tuner's pick at 512 and 1024 in both
 * of its runs, ran 0.97 / 1.18 / 1.56 x CLBlast where the class default (64x32 of 8x8) ran 1.28 /
 * 1.05 / 1.29 (6 runs each), and at 512 ahead in 5 of 5 runs of 21 calls (1.16 against 1.05):
 * they serve matrices of 512 and more on both sides. At 256 both swung 3-13 GFLOPS from run to
 * run: the class list stays there (a third search at 512 found nothing 5% faster). Complex
 * types keep the class lists: complex single ran 0.43-0.59 x CLBlast on them at 256 and 512,
 * 0.31-0.38 in 128x64 tiles of 16x16; complex double 0.20-0.35 and 0.29-0.42 (clgemm-types-bench,
 * CLBlast in the same run). */
#define CPU_LARGE_SIDE 512
static const clgemm_config cpu_avx512_double_large[] = {RB(128, 64, 16, 16, 16, 2, 4, 4),
                                                        RB(64, 32, 16, 8, 8, 2, 4, 4),
                                                        RB(32, 32, 32, 4, 8, 4, 4, 4), END_OF_LIST};
static const clgemm_config cpu_avx512_quick_double[] = {
    RB(64, 32, 16, 8, 8, 2, 4, 4), RB(128, 64, 16, 16, 16, 2, 4, 4), END_OF_LIST};

#define CLB32   "CLBlast xgemm_32.hpp "
#define CLB64   "CLBlast xgemm_64.hpp "
#define CLB3264 "CLBlast xgemm_32.hpp and xgemm_64.hpp "
const regblock_tier clgemm__regblock_tiers[] = {
    {TIER_NV_VOLTA, DEVICE_NVIDIA_GPU, nv_volta_single, nv_volta_double, nvidia_complex_double,
     CLB3264 "Tesla V100-PCIE-16GB"},
    {TIER_NV_TURING, DEVICE_NVIDIA_GPU, nv_turing_single, nv_turing_double, nvidia_complex_double,
     CLB32 "Tesla T4, NVIDIA GeForce RTX 2070 Super; " CLB64 "NVIDIA GeForce GTX 1650 SUPER"},
    {TIER_NV_AMPERE, DEVICE_NVIDIA_GPU, nv_ampere_single, nv_ampere_double, nvidia_complex_double,
     CLB3264 "A100-PCIE-40GB"},
    {TIER_NV_AMPERE_GA10X, DEVICE_NVIDIA_GPU, nv_ga10x_single, nv_ga10x_double,
     nvidia_complex_double,
     CLB32 "NVIDIA GeForce RTX 3080, RTX 3090; " CLB64 "NVIDIA GeForce RTX 3070, RTX 3090"},
    {TIER_NV_ADA, DEVICE_NVIDIA_GPU, nv_ada_single, nv_ga10x_double, nvidia_complex_double,
     CLB32 "NVIDIA GeForce RTX 4090, RTX 4080; FP64: GA10x's (SM8.9 FP64 entries are GEMMK=1)"},
    {TIER_NV_HOPPER, DEVICE_NVIDIA_GPU, nvidia_single, nvidia_double, nvidia_complex_double,
     "H200 measurements (docs/PERFORMANCE.md)"},
    {TIER_AMD_GCN, DEVICE_AMD_GPU, amd_gcn_single, amd_gcn_double, amd_complex_double,
     CLB3264 "AMD Instinct MI50/MI60 (gfx906)"},
    {TIER_AMD_CDNA, DEVICE_AMD_GPU, amd_gcn_single, amd_gcn_double, amd_complex_double,
     "GCN's (no CDNA entry in CLBlast): " CLB3264 "AMD Instinct MI50/MI60 (gfx906)"},
    {TIER_AMD_RDNA, DEVICE_AMD_GPU, amd_rdna_single, amd_rdna_double, amd_complex_double,
     CLB32 "gfx1030 default; " CLB64 "AMD Radeon RX 6800 XT (gfx1030)"},
    {TIER_INTEL_GEN9, DEVICE_INTEL_GPU, intel_gen9_single, intel_gen9_double,
     intel_gen9_complex_double, CLB32 "Intel default; " CLB64 "Intel(R) HD Graphics 620"},
    /* Xe-LP: CLBlast's "Intel(R) Iris(R) Xe Graphics" entry (64x64 tiles of 8x8 work-items)
     * spills 37 bytes on tgllp with our kernel, "Intel(R) UHD Graphics 770" 71, "Intel(R)
     * RaptorLake-S Mobile Graphics" 13, the Intel default 2: the Intel list stays. Xe-HPG:
     * CLBlast's "Intel(R) Arc(TM) A770 Graphics" and A750 entries are GEMMK=1: likewise. */
    {TIER_INTEL_XE_LP, DEVICE_INTEL_GPU, intel_gpu, intel_gpu, intel_gpu,
     "the Intel list (CLBlast's Iris Xe, UHD 770 and Raptor Lake entries spill on tgllp)"},
    {TIER_INTEL_XE_HPG, DEVICE_INTEL_GPU, intel_gpu, intel_gpu, intel_gpu,
     "the Intel list (CLBlast's Arc A770 / A750 entries are GEMMK=1)"},
    {TIER_INTEL_XE_HPC, DEVICE_INTEL_GPU, intel_hpc_single, intel_hpc_double,
     intel_hpc_complex_double, "compile checks on pvc (no Xe-HPC entry in CLBlast)"},
    /* CPU tiers of no list of their own (cpu-generic, cpu-neon, cpu-sve: never measured) take
     * the CPU class's lists. */
    {TIER_CPU_AVX2, DEVICE_CPU, cpu_avx2_single, cpu_double, cpu_complex_double,
     "FP32: issue 26's --quick result on an AMD EPYC (PoCL haswell); others: the CPU class's"},
    {TIER_CPU_AVX512, DEVICE_CPU, cpu_avx512_single, cpu_double, cpu_complex_double,
     "PoCL skylake-avx512 measurements on an Intel Xeon (docs/PERFORMANCE.md); FP64 "
     "matrices of 512 and more on both sides: 128x64x16 16x16 2 4x4 first"},
    {TIER_UNKNOWN},
};

/* Whether 128 x 64 tiles' rounds (a 128 x 64 tile counting half) take at most 0.8 of 128 x 128
 * tiles' over an m x n x batch problem (see nvidia_hopper_single_aligned_half). */
#define HALF_TILE_ROUNDS 0.8
static bool half_tiles_even_out(const device_info *info, const gemm_dims *d) {
    const size_t units = info->compute_units;
    size_t tiles, half_tiles;
    if (units == 0 || !clgemm__tile_count(d, 128, 128, &tiles) ||
        !clgemm__tile_count(d, 128, 64, &half_tiles))
        return false;
    /* Too few 128 x 128 tiles to fill the device: the list's smaller tiles serve it (64 x 64 ones
     * 32 deep ran 1088^2 and 1152^2 at 19.0-19.7 and 21.6-22.2 TFLOPS, 128 x 64 ones 17.4-17.6
     * and 20.6-21.0; 1280^2 22.7-23.2 against 26.0-26.3). */
    if (10 * tiles < 9 * units) return false;
    const double rounds = (double)((tiles + units - 1) / units),
                 half_rounds = (double)((half_tiles + units - 1) / units) / 2;
    return half_rounds <= HALF_TILE_ROUNDS * rounds;
}

/* Whether 128 x 128 tiles (two an SM) make between 1.2 and 1.6 waves over an m x n x batch
 * problem (see nvidia_hopper_single_wide). */
static bool partial_second_wave(const device_info *info, const gemm_dims *d) {
    const size_t slots = 2 * (size_t)info->compute_units;
    size_t tiles;
    if (slots == 0 || !clgemm__tile_count(d, 128, 128, &tiles)) return false;
    return 5 * tiles >= 6 * slots && 5 * tiles <= 8 * slots;
}

/* The NVIDIA lists' choice for this problem: the single list (Hopper's own for FP32), or for
 * many matrices a batch list. */
static const clgemm_config *nvidia_single_for(const device_info *info, device_tier tier,
                                              clgemm_precision type, const gemm_dims *d) {
    const bool hopper = tier == TIER_NV_HOPPER && type == CLGEMM_SINGLE;
    if (d->batch < MANY_MATRICES) {
        if (!hopper) return nvidia_single;
        if (!d->aligned) return nvidia_hopper_single;
        if (half_tiles_even_out(info, d)) return nvidia_hopper_single_aligned_half;
        const bool both_mn_major = !d->a_along_k && d->b_along_n;
        return both_mn_major || partial_second_wave(info, d) ? nvidia_hopper_single_wide
                                                             : nvidia_hopper_single_aligned;
    }
    bool large = d->m >= LARGE_SIDE && d->n >= LARGE_SIDE && d->k >= LARGE_SIDE;
    if (!large) return nvidia_single_batched;
    return hopper && d->aligned ? nvidia_hopper_single_batched_large : nvidia_single_batched_large;
}

/* The device's tier's lists, else its class's. */
static const regblock_tier *lists_for(const device_info *info) {
    device_tier tier = clgemm__device_tier(info);
    for (const regblock_tier *t = clgemm__regblock_tiers; t->tier != TIER_UNKNOWN; t++)
        if (t->tier == tier) return t;
    return &class_lists[info->cls < DEVICE_CLASS_COUNT ? info->cls : DEVICE_OTHER_GPU];
}

/* The tuner's --quick candidates per CPU tier: FP32 (and FP16 / BF16) and the other types. */
static const struct {
    device_tier tier;
    const clgemm_config *single, *other;
} cpu_quick_lists[] = {
    {TIER_CPU_AVX2, cpu_avx2_quick_single, cpu_quick},
    {TIER_CPU_AVX512, cpu_avx512_quick_single, cpu_avx512_quick_double},
};

const clgemm_config *clgemm__regblock_quick_cpu(const device_info *info, clgemm_precision type) {
    device_tier tier = clgemm__device_tier(info);
    /* A type the microkernel family has defaults for on this CPU is its alone (microkernel.c: 2-9
     * x these lists' speed on the AVX2 and AVX-512 tiers): a cold --quick times its candidates,
     * not these 10 s builds. */
    static const clgemm_config none[] = {END_OF_LIST};
    const family_desc *mk = &clgemm__family_microkernel;
    if (mk->supported(info, type, CLGEMM_COMPUTE_DEFAULT) &&
        mk->defaults(info, type, ONE_MATRIX)[0].family)
        return none;
    bool single = !clgemm__type(type)->fp64 && !clgemm__type(type)->complex;
    for (size_t i = 0; i < sizeof cpu_quick_lists / sizeof cpu_quick_lists[0]; i++)
        if (cpu_quick_lists[i].tier == tier)
            return single ? cpu_quick_lists[i].single : cpu_quick_lists[i].other;
    return cpu_quick;
}

const clgemm_config *clgemm__regblock_defaults(const device_info *info, clgemm_precision type,
                                               const gemm_dims *dims) {
    const regblock_tier *lists = lists_for(info);
    switch (type) {
    case CLGEMM_DOUBLE:
        return lists->tier == TIER_CPU_AVX512 && dims->m >= CPU_LARGE_SIDE &&
                       dims->n >= CPU_LARGE_SIDE
                   ? cpu_avx512_double_large
                   : lists->dbl;
    case CLGEMM_COMPLEX_SINGLE:
        return lists->dbl == nvidia_double ? nvidia_complex_single : lists->dbl;
    case CLGEMM_COMPLEX_DOUBLE:
        return lists->complex_double;
    case CLGEMM_E4M3:
    case CLGEMM_E5M2:
        if (lists->tier == TIER_INTEL_GEN9) return intel_gen9_fp8;
        /* fall through */
    default:
        return lists->single == nvidia_single ? nvidia_single_for(info, lists->tier, type, dims)
                                              : lists->single;
    }
}
