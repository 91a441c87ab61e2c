/* microkernel.c: the micro-kernel family (cl/microkernel.cl) for CPU devices: one work-item per
 * work-group, each computing an MR x NR block of C in vectors of VW elements along M, operands
 * read through the caches (no local memory, no barrier). FP32, FP64, FP16 and BF16 storage, INT8;
 * it splits K across work-group layers. Its defaults, per CPU vector tier, come before regblock's.
 * Complex FP32 and FP64 too: VW then counts complex elements (vectors of 2 VW components) and a
 * work-item holds two accumulators per vector of C (cl/microkernel.cl).
 */
#include "families/family.h"

#include <stdio.h>
#include <string.h>

enum { MR, NR, VW, KC, MC };

static const family_param params[] = {
    {"MR", MR, 8, 64, "rows of C per work-item (a multiple of VW)"},
    {"NR", NR, 2, 16, "columns of C per work-item"},
    {"VW", VW, 2, 16, "vector width along M, in elements (complex: at most 8)"},
    {"KC", KC, 0, 0,
     "depth of the blocked schedule's K-blocks, in steps of K (0 or 1: 2 KB of each row of a "
     "panel, FP32 512, FP64 256)"},
    {"MC", MC, 0, 0,
     "panels of A (MR rows each) in a block of the blocked schedule, whose work-items go across "
     "all of B (0 or 1: about 2 MB of the K-block)"},
};

/* The blocked schedule's block sizes came after configurations were written without them
 * (optional: 0 and 1 keep the sizes below, with no build option); the tuner searches them on
 * CPUs only, the one place the schedule runs (pack_depth): K-blocks of 256 to 1024 steps and
 * blocks of 4 to 32 panels of A, around the defaults (the EPYC's FP32 512 steps in blocks of
 * about 2 MB, 32 panels of its first choices; an Intel Xeon's 1024 or 512 steps in blocks of 4
 * or 8). Each value is a build, so the ranges stay narrow (twelve times the tile space; 64-1024
 * steps and 4-64 panels made it 25 times: docs/PERFORMANCE.md). */
static const family_param_ext param_ext[] = {
    {0, 0, false, 0, 0},     {0, 0, false, 0, 0}, {0, 0, false, 0, 0},
    {0, 0, true, 256, 1024}, {0, 0, true, 4, 32},
};
_Static_assert(sizeof param_ext / sizeof param_ext[0] == sizeof params / sizeof params[0],
               "one param_ext entry per parameter");

/* Accumulator vectors a work-item may hold: AVX-512 has 32 registers, and more than that spills
 * on every target (the vectors of A and the broadcast of B need a few more). */
#define MAX_ACC_VECTORS 32
/* The kernel's private panel of A: PANEL_DEPTH steps of MR elements, on the work-item's stack
 * (in place, not the blocked schedule's K-blocks);
 * a split layer's K range is a multiple of KSTEP. Both reach the kernel as build options
 * (call_options), so these lines are their one source. */
#define PANEL_DEPTH 32
#define MAX_PANEL   (16 * 1024)
#define KSTEP       8

static bool rules(const clgemm_config *c, const device_info *info, const type_desc *t) {
    (void)info;
    const int *v = c->params;
    /* OpenCL's vectors: 2, 4, 8 or 16 components (a complex element has two, and two
     * accumulators: by the real and by the imaginary part of B); MR is a power of two so that
     * tiles divide evenly and vectors never straddle the tile. */
    const int ncomp = t->complex ? 2 : 1;
    if (v[VW] < 2 || v[VW] * ncomp > 16 || !clgemm__is_pow2(v[VW]) || !clgemm__is_pow2(v[MR]))
        return false;
    if (v[MR] < v[VW] || v[NR] > 32) return false;
    if (ncomp * (v[MR] / v[VW]) * v[NR] > MAX_ACC_VECTORS) return false;
    return (size_t)PANEL_DEPTH * (size_t)v[MR] * t->compute_size <= MAX_PANEL;
}

static void launch(const clgemm_config *c, size_t m, size_t n, size_t local[2], size_t global[2]) {
    local[0] = local[1] = 1;
    global[0] = (m + (size_t)c->params[MR] - 1) / (size_t)c->params[MR];
    global[1] = (n + (size_t)c->params[NR] - 1) / (size_t)c->params[NR];
}

static void tile(const clgemm_config *c, size_t *mt, size_t *nt, size_t *kt) {
    *mt = (size_t)c->params[MR];
    *nt = (size_t)c->params[NR];
    *kt = KSTEP;
}

/* The blocked schedule's blocks of A (cl/microkernel.cl, PACKED): about 2 MB of a K-block's
 * panels, the L2 cache of a 2-core EPYC, where consecutive work-items go across B. On PoCL (AMD
 * EPYC, AVX-512), kernel time per K-block of FP32 64 x 8192 x 8192 (row-major): 9.5-10.4 ms in
 * blocks of 1, 8 or 32 panels against 13.9-16.5 with the work-items going down A; 2048^2 and
 * 3000^2 ran 61-66 and 135-142 ms in blocks of 32 (1 MB-2 MB) as going down A (65-69, 137-153),
 * 77-91 and 182-197 in blocks of 1. A forced schedule (tests) takes blocks of 3 panels, so that
 * the small shapes of the suites have several blocks and a partial last one. A configuration's
 * MC (more than 1) sets the blocks' panels instead of either (-DMC, cl/microkernel.cl). */
#define PACK_A_BYTES  (2 << 20)
#define PACK_SMALL_MC 3

/* The blocked schedule's launches (src/exec/gemm.c): where op(B)'s K-block is at most
 * PACK_A_BYTES (C a few columns wide: 64 x 8192 x 8192 row-major, column-major 8192 x 64), op(A)
 * is packed and multiplied one block of about PACK_A_BYTES at a time (the kernel's blocks above:
 * one a launch), so that the panels just packed are still in the caches when the micro-kernel
 * reads them, rather than a whole K-block (FP64 8192 x 512: 32 MB) written to memory and read
 * back; there each block's product is short, and reading its panels from memory cost as much.
 * Wider C reads each panel of A many times (4096^2: 683 blocks of columns) and gains nothing from
 * it: there it stays one launch a K-block (eight launches a K-block at 4096^2 ran 1-13 % slower on
 * a busy machine, six rounds). Forced small (tests), PACK_SMALL_LAUNCH panels a launch at any
 * width: two of the kernel's blocks of 3 and a partial one, so that every loop runs more than
 * once and ends on a partial block. */
#define PACK_SMALL_LAUNCH 7
/* On an Intel CPU such a launch packs about 16 MB of op(A): each launch (a pack and a multiply)
 * costs PoCL tens of microseconds, and FP64 64 x 8192 x 8192 made 512 of them in launches of 2 MB.
 * Sapphire Rapids class Xeon (2 MiB L2 a core, 260 MiB L3), 2026-12-05, x OpenBLAS's SkylakeX
 * kernels, row-major 64 x 8192 x 8192: FP64 0.66-0.67 in launches of 2 MB, 0.77-0.82 of 8 MB,
 * 0.86 of 16 MB, 0.78-0.89 of 32 MB (a whole K-block); FP32 0.78-0.79, 0.83-0.85, 0.87,
 * 0.88-0.91 (docs/perf/NOTES.md). The EPYC (32 MiB L3) lost with whole K-blocks and keeps 2 MB. */
#define PACK_LAUNCH_BYTES_INTEL (16 << 20)

/* PoCL reports a CPU's vendor as its CPUID string (GenuineIntel, AuthenticAMD). */
static bool intel_cpu(const device_info *info) {
    return strstr(info->vendor, "Intel") != NULL;
}

static size_t pack_rows(const clgemm_config *c, const device_info *info, clgemm_precision type,
                        size_t n, size_t kc, bool small) {
    const size_t mr = (size_t)c->params[MR], size = clgemm__panel_size(type);
    if (small) return PACK_SMALL_LAUNCH * mr;
    if (n > PACK_A_BYTES / (kc * size)) return 0; /* all of op(A) at once */
    const size_t launch = intel_cpu(info) ? PACK_LAUNCH_BYTES_INTEL : PACK_A_BYTES;
    const size_t panels = launch / (mr * kc * size);
    return (panels ? panels : 1) * mr;
}

/* (FP16 C by integer operations: types.cl's HALF_BY_INTEGERS) */
static int call_options(const kernel_call *k, char *buf, size_t size) {
    return snprintf(buf, size, " -DKSTEP=%d -DPANEL_DEPTH=%d -D%s=%d -DHALF_BY_INTEGERS=1", KSTEP,
                    PANEL_DEPTH, k->pack_small ? "PACK_MC_PANELS" : "PACK_A_BYTES",
                    k->pack_small ? PACK_SMALL_MC : PACK_A_BYTES);
}

/* CPUs, and devices of no known GPU vendor (simulators such as Oclgrind, where the tests check
 * the kernel for races and out-of-bounds accesses); an NVIDIA, AMD or Intel GPU would run one
 * work-item per work-group at a fraction of its speed, so there the family is refused (a forced
 * configuration gets CLGEMM_ERR_INVALID_PARAMS) and never searched. FP32, FP64, and FP16 / BF16
 * storage (FP32 arithmetic) and INT8 (32-bit integers), on FP32's lists. FP8 stays with regblock:
 * its codes decode one by one, once per work-item here but once per work-group there (PoCL, 512^3:
 * 23-27 ms against 12-14). Complex FP32 and FP64 (the elements of A as stored, interleaved,
 * times the real and the imaginary part of B: cl/microkernel.cl), on lists of their own.
 * FP32's TF32 modes compute as FP32 here, as clgemm.h allows where no matrix unit has them. */
static bool supported(const device_info *info, clgemm_precision type_ab, clgemm_compute compute) {
    return (info->cls == DEVICE_CPU || info->cls == DEVICE_OTHER_GPU) &&
           (type_ab == CLGEMM_SINGLE || type_ab == CLGEMM_DOUBLE || type_ab == CLGEMM_HALF ||
            type_ab == CLGEMM_BFLOAT16 || type_ab == CLGEMM_INT8 ||
            type_ab == CLGEMM_COMPLEX_SINGLE || type_ab == CLGEMM_COMPLEX_DOUBLE) &&
           (compute == CLGEMM_COMPUTE_DEFAULT || compute == CLGEMM__COMPUTE_ANY ||
            type_ab == CLGEMM_SINGLE);
}

#define MK(mr, nr, vw)                                                                             \
    {                                                                                              \
        .family = CLGEMM_FAMILY_MICROKERNEL, .params = { mr, nr, vw }                              \
    }
/* The same with the blocked schedule's K-blocks (KC) and blocks of A (MC panels; 0: the default)
 * set. */
#define MK_BLOCKS(mr, nr, vw, kc, mc)                                                              \
    {                                                                                              \
        .family = CLGEMM_FAMILY_MICROKERNEL, .params = { mr, nr, vw, kc, mc }                      \
    }
#define END_OF_LIST                                                                                \
    { .family = 0 }

/* Defaults per CPU tier and type (docs/PERFORMANCE.md, "CPU defaults per vector ISA"), each list
 * largest tiles first; the smaller ones serve matrices the first would pad by more than a quarter.
 * AVX-512: PoCL skylake-avx512 on 2 cores of an Intel Xeon, 2026-12-01, `clgemm-bench --sizes
 * 256,512,1024 --precision s|d --runs 5 --family microkernel --params ...`, CLBlast in the same
 * run (docs/perf/NOTES.md): FP32 32 x 8 blocks of 16-wide vectors ran 6.6 / 8.2 / 6.7 x CLBlast
 * at 256 / 512 / 1024 (16 x 8: 5.2 / 5.8 / 6.2); FP64 32 x 8 of 8-wide 4.4 / 3.4 / 3.5 (16 x 8:
 * 4.5 / 3.0 / 3.4, 16 x 4: 4.8 / 2.5 / 2.2). AVX2: the same Xeon with PoCL compiling for haswell
 * (POCL_LLVM_CPU_NAME=haswell POCL_KERNELLIB_NAME=avx2: 256-bit vectors, 16 registers), not an
 * AVX2 machine: FP32 16 x 6 of 8-wide 5.1 / 5.7 / 4.9, FP64 8 x 8 of 4-wide 2.3 / 1.4 / 1.9 (8 x 4:
 * 2.5 / 1.2 / 1.4; blocks of 12 accumulators no better). The defaults then ran, three rounds:
 * AVX-512 FP32 6.5-7.1 / 5.1-8.2 / 8.7-9.5, FP64 5.1-5.2 / 3.3-5.0 / 3.5-3.8; haswell FP32
 * 2.8-5.3 / 3.9-5.6 / 4.8-5.1, FP64 2.1-2.2 / 1.33-1.38 / 2.0-2.1
 * (bench/results/pocl-microkernel-defaults.log). Other CPU tiers were never measured
 * and keep regblock's lists. */
static const clgemm_config avx512_single[] = {MK(32, 8, 16), MK(16, 4, 16), END_OF_LIST};
/* FP32 (not FP16, BF16 or INT8: not measured) on the EPYC where a matrix is read in place (below
 * PACK_MIN_MNK, pack_depth): 16 x 12 blocks, one vector of A a step against 12 broadcasts of B
 * (likely why, not checked with counters: one cache line of A a step at the leading dimension's
 * stride, where 32 rows read two, both in the few L1 sets a power-of-two leading dimension
 * allows). PoCL skylake-avx512 on 2 cores of the AMD EPYC (Zen 4 class), 2026-12-03, x OpenBLAS
 * 0.3.21 (2 threads) in adjacent runs, three rounds each, medians: 256^2 0.94 against 32 x 8's
 * 0.87, 384^2 1.04 / 0.95, 512^2 1.06 / 0.86, 768^2 1.03 / 0.86; 32 x 6 1.00 / 1.03 / 0.94 /
 * 0.89, 16 x 8 0.55-0.93; blocked (1024^2-2048^2) 16 x 12 timed like 32 x 8 (1.03-1.07 against
 * 0.99-1.02), which keeps those (bench/results/pocl-avx512-issue-table-vs-openblas.log). FP64
 * kept 32 x 6 there (16 x 12 and 16 x 8 of 8-wide lost, 8 x 12 lost at 512^2). */
static const clgemm_config avx512_single_in_place[] = {MK(16, 12, 16), MK(16, 4, 16), END_OF_LIST};
/* FP32 on an Intel CPU with AVX-512 (intel_cpu below): 32 x 12 blocks, 24 accumulators, in
 * K-blocks of 1024 steps and blocks of A of 4 panels (512 KB, a quarter of the L2). 32 x 12 over
 * 32 x 8 (16 accumulators leave the loop waiting on its loads: perf showed the samples on the
 * first load of A and the first broadcast of B): Sapphire Rapids Xeon (48 KiB L1d, 2 MiB L2 per
 * core), 2026-12-02, x OpenBLAS 0.3.21 (2 threads) in adjacent runs, 2048^2 0.97 / 1.01 against
 * 0.73 / 0.77, 1024^2 0.97 / 0.96 against 0.72 / 0.86; 32 x 14, 32 x 16, 64 x 6, 64 x 4 and
 * 16 x 16 no better (bench/results/pocl-xeon-avx512-vs-openblas.log). The smaller blocks: a
 * Xeon of the same kind (260 MiB L3), 2026-12-05, x OpenBLAS's SkylakeX kernels (this CPU's model
 * is past 0.3.21's table, which falls back to SSE3 kernels unless OPENBLAS_CORETYPE names one),
 * three rounds alternated with 2 MB blocks of 512 steps: 2048^2 to 4096^2 0.93-0.97 against
 * 0.80-0.85, 1.11-1.19 x faster (about 305 GFLOPS against 265); blocks of 2 panels and 32 x 14
 * no better (bench/results/pocl-xeon-blocks-vs-openblas.log, docs/perf/NOTES.md). */
/* FP32 on an Intel CPU where it is read in place (reads_in_place, below): 32 x 6 blocks
 * (IN_PLACE_MAX_INTEL_FP32 has the runs). */
static const clgemm_config avx512_single_intel_in_place[] = {MK(32, 6, 16), MK(16, 4, 16),
                                                             END_OF_LIST};
static const clgemm_config avx512_single_intel[] = {MK_BLOCKS(32, 12, 16, 1024, 4), MK(16, 4, 16),
                                                    END_OF_LIST};
/* FP64 on an Intel CPU: 16 x 14 blocks (28 accumulators, which leave room for the two vectors of
 * A and the broadcast of B: 32 x 8 holds 32 and spills) in K-blocks of 512 steps and blocks of A
 * of 8 panels (512 KB), from 512^3 (where the blocked schedule starts, PACK_MIN_MNK_INTEL_FP64).
 * Xeon of the kind above, 2026-12-05, x OpenBLAS's SkylakeX kernels, three rounds alternated with
 * 32 x 8 in K-blocks of 256 steps and 2 MB of A: 1024^2 to 4096^2 0.83-0.97 against 0.66-0.74,
 * 1.13-1.43 x faster (145-150 GFLOPS against 100-110), the long shapes 1.10-1.46 x; forced: 16 x
 * 12 and K-blocks of 1024 steps in blocks of 4 alike, 16 x 10, 32 x 7, 8 x 24 slower, 16 x 14 with
 * 2 MB of A 0.84-0.88 x OpenBLAS (bench/results/pocl-xeon-blocks-vs-openblas.log). 512^2 to
 * 768^2 too, timed with PoCL's worker threads pinned (POCL_AFFINITY=1: unpinned, some processes
 * ran both on one core, and 16 x 14 had timed 79 GFLOPS at 512^2): three rounds alternated with
 * 32 x 8, 0.91-0.98 x OpenBLAS against 0.77-0.80, 1.15-1.24 x faster
 * (bench/results/pocl-xeon-small-fp64-vs-openblas.log). */
static const clgemm_config avx512_double_intel[] = {MK_BLOCKS(16, 14, 8, 512, 8), MK(16, 4, 8),
                                                    MK(8, 4, 8), END_OF_LIST};
/* FP64 on an Intel CPU below 512^3, read in place: 32 x 6 blocks, as the EPYC's (32 x 8 spills,
 * above). Same Xeon, 2026-12-05, PoCL's threads pinned, three rounds alternated with 32 x 8:
 * 256^2 1.26-1.29 x and 384^2 1.20-1.54 x faster, 1.06-1.20 x OpenBLAS
 * (bench/results/pocl-xeon-small-fp64-vs-openblas.log); 16 x 14 and 16 x 12 in place ran 256^2
 * and 384^2 at 74-95 GFLOPS against 32 x 6's 98-136. */
static const clgemm_config avx512_double_intel_small[] = {MK(32, 6, 8), MK(16, 4, 8), MK(8, 4, 8),
                                                          END_OF_LIST};
/* FP64 elsewhere (measured on the AMD EPYC): 32 x 6 blocks, 24 accumulators, in K-blocks of 512
 * steps. 32 x 8 holds 32 accumulators, all of AVX-512's registers, and PoCL's LLVM spills six of
 * them on every step of K (a store and a load each beside the fused multiply-adds); 32 x 6 leaves
 * room for the four vectors of A and the broadcast of B. Deeper K-blocks halve the passes over C
 * that end each K-block (72 MB of C at 3000^2). PoCL skylake-avx512 on 2 cores of an AMD EPYC
 * (Zen 4 class), 2026-12-03, x OpenBLAS 0.3.21 (2 threads) in adjacent runs: forced at 3000^2,
 * 32 x 8 0.87-0.90, 32 x 6 0.89-0.92, 32 x 6 KC 512 0.94-1.00, KC 1024 1.00-1.02; as defaults,
 * four rounds against 32 x 8 with 256 steps, 1024^2 to 4096^2 0.96-1.03 against 0.78-0.97,
 * 5-12 % faster in every round, the other shapes of issue 34 alike or better
 * (bench/results/pocl-avx512-fp64-block-shape-vs-openblas.log, docs/PERFORMANCE.md). */
static const clgemm_config avx512_double[] = {MK_BLOCKS(32, 6, 8, 512, 0), MK(16, 4, 8),
                                              MK(8, 4, 8), END_OF_LIST};
static const clgemm_config avx2_single[] = {MK(16, 6, 8), MK(8, 4, 8), END_OF_LIST};
static const clgemm_config avx2_double[] = {MK(8, 8, 4), MK(8, 4, 4), END_OF_LIST};
/* Complex (VW in complex elements, two accumulators per vector of C), always blocked (pack_depth):
 * PoCL on 2 cores of an AMD EPYC (AVX-512), 2026-12-02, `clgemm-bench --reference openblas
 * --sizes 1024 --precision c|z --runs 5 --family microkernel --params ...`, x OpenBLAS in the
 * same run, two rounds: complex FP32 16 x 6 of 8-wide 1.29 / 1.35, 16 x 4 1.25 / 1.71, 8 x 8
 * 1.22 / 1.19, 8 x 12 1.19 / 1.19; complex FP64 8 x 6 of 4-wide 1.50 / 1.61, 8 x 4 1.61 / 1.64,
 * 4 x 8 1.51 / 1.32, 4 x 12 1.30 / 1.32. haswell target on the same EPYC (against OpenBLAS's
 * AVX-512 kernels): complex FP32 8 x 2 of 4-wide 0.73-1.19 (four runs), 4 x 4 0.59-1.20, 4 x 6
 * 0.67-1.01, 8 x 3 0.45-0.58; complex FP64 4 x 2 of 2-wide 0.72-0.78, 2 x 4 0.67-0.68, 2 x 6
 * 0.64-0.67, 4 x 3 0.17-0.28 (an odd NR lost each time). The runs:
 * bench/results/pocl-complex-microkernel-vs-openblas.log. */
static const clgemm_config avx512_complex_single[] = {MK(16, 6, 8), MK(8, 4, 8), END_OF_LIST};
static const clgemm_config avx512_complex_double[] = {MK(8, 6, 4), MK(4, 4, 4), END_OF_LIST};
/* On an Intel CPU, in smaller blocks of A as its real types take them (512 KB): complex FP32 in
 * 32 x 3 blocks (four vectors of A against each element of B, where 16 x 6 has two) in K-blocks
 * of 1024 steps, 2 panels a block; complex FP64 8 x 6 in 512 steps, 8 panels. Sapphire Rapids
 * class Xeon, 2026-12-05, forced x OpenBLAS's SkylakeX kernels, 1024^2 / 2048^2: complex FP32
 * 16 x 6 0.54 / 0.55 in 2 MB, 0.62 / 0.62 in 4 panels of 1024 steps (16 x 7, 16 x 4 alike, 8 x 14
 * 0.47); 32 x 3 0.71-0.76 in 2 to 4 panels of 512 or 1024 steps; complex FP64 0.92 / 0.93 against
 * 0.97 / 0.74 in 2 MB (256 steps 0.87, 8 x 7 0.75); then three rounds alternated with the
 * library before each change (bench/results/pocl-xeon-blocks-vs-openblas.log, NOTES.md). */
static const clgemm_config avx512_complex_single_intel[] = {MK_BLOCKS(32, 3, 8, 1024, 2),
                                                            MK(8, 4, 8), END_OF_LIST};
static const clgemm_config avx512_complex_double_intel[] = {MK_BLOCKS(8, 6, 4, 512, 8), MK(4, 4, 4),
                                                            END_OF_LIST};
static const clgemm_config avx2_complex_single[] = {MK(8, 2, 4), MK(4, 2, 4), END_OF_LIST};
static const clgemm_config avx2_complex_double[] = {MK(4, 2, 2), MK(2, 2, 2), END_OF_LIST};

/* Products below which the blocked schedule is not planned (pack_depth, below). */
#define PACK_MIN_MNK ((size_t)1024 * 1024 * 1024)
/* FP64 on an Intel CPU blocks from 512^3: read in place, 512^2's leading dimension of 4 KB puts
 * every step of a panel of A in the same L1 sets. Sapphire Rapids Xeon, 2 cores, PoCL
 * skylake-avx512, 2026-12-02, row-major 512^2 x OpenBLAS in adjacent runs, three rounds: 0.46 /
 * 0.42 / 0.40 in place, 1.04 / 1.06 / 1.55 blocked (15-19 ms a call against 7-9); 256^2 alike
 * (0.90-1.26 against 0.75-0.96, noise), FP32 512^2 too (0.76-1.14 against 0.87-1.13), so only
 * FP64 moves (bench/results/pocl-xeon-avx512-vs-openblas.log). The EPYC was not measured so. */
#define PACK_MIN_MNK_INTEL_FP64 ((size_t)512 * 512 * 512)
/* Whether one matrix of d is a product of fewer than `limit` multiply-adds (ONE_MATRIX: no). */
static bool mnk_below(const gemm_dims *d, size_t limit) {
    size_t mn, mnk;
    return d->m > 0 && !__builtin_mul_overflow(d->m, d->n, &mn) &&
           !__builtin_mul_overflow(mn, d->k, &mnk) && mnk < limit;
}

/* FP16 blocks from 256^3: its panels hold FP32 (cl/pack.cl), where read in place every element
 * is widened at every use. AMD EPYC, 2 cores, PoCL skylake-avx512, 2026-12-04, row-major, three
 * rounds alternated with read in place: FP16 A and B with FP32 C 1.55-1.67 x faster at 256^3,
 * 1.9-5.8 x at 384^3, 1.8-4.0 x at 512^3, 1.8-3.2 x at 768^3, 2.1-2.7 x at 1000^3; with FP16 C
 * (staged in FP32) 1.0-3.2, 1.3-4.0, 1.3-2.6, 0.9-1.9, 1.7-3.1 x. BF16, whose codes widen by one
 * shift, ran no faster blocked at 512^3 and 768^3 (BF16 C slower: 3.0-3.6 against 1.6-3.2 ms)
 * and keeps the rule above (bench/results/pocl-fp16-blocked-from-256.log). INT8 blocks from
 * 256^3 too: its panels hold FP32 as well, where read in place it multiplies 32-bit integers.
 * Same machine, 2026-12-04, three rounds alternated with read in place: 1.2-2.4 x faster at
 * 256^3, 0.85-1.65 x at 512^3 (one round's in-place calls ran twice as fast as the others'),
 * 1.7 x at 1000^3; at 640^3 and 768^3 four rounds 1.5-2.7 x and 1.6 x
 * (bench/results/pocl-int8-panels-fp32.log). */
/* BF16 on an Intel CPU blocks from 256^3 too: read in place in 32 x 12 blocks it ran 0.43-0.63 x
 * OpenBLAS's sgemm (on FP32 copies) at 256^3-768^3. Sapphire Rapids class Xeon, PoCL's threads
 * pinned, 2026-12-05, three rounds alternated with read in place, row-major NN: BF16 A, B and C
 * 256^3 0.63-0.69 against 0.46-0.60, 512^3 0.90-0.94 / 0.48-0.63, 768^3 0.87-0.89 / 0.43-0.44;
 * FP32 C 0.64-0.68 / 0.44-0.54, 0.78-0.93 / 0.50-0.51, 0.90 / 0.44-0.46
 * (bench/results/pocl-xeon-bf16-blocked-from-256.log). */
#define PACK_MIN_MNK_WIDENED ((size_t)256 * 256 * 256)
/* FP32 on an Intel CPU where op(A) lies along M: read in place in 32 x 6 blocks
 * (avx512_single_intel_in_place) below 512^3 where op(B) lies along K, below 320^3 where it lies
 * along N (an op(A) along K: PACK_MIN_MNK_A_ALONG_K below). Sapphire Rapids class Xeon, PoCL's
 * threads pinned, 2026-12-05, x OpenBLAS's SkylakeX kernels, row-major (op(A) is B as stored, op(B)
 * A), in place against blocked in 32 x 12 (two or three rounds each): NN 256^2 0.99-1.06 against
 * 0.64-0.71, 384^2 0.96-0.99 / 0.80-0.82, 512^2 0.93-1.03 / 0.89-0.94, 576^2 0.87-0.94 / 0.88-0.90,
 * 640^2 0.56-0.67 / 0.93-0.94; TN 256^2 0.91-0.92 / 0.76-0.79, 320^2 0.94-0.96 / 0.92-0.93, 384^2
 * 0.86-0.88 / 0.93, 512^2 0.69-0.70 / 0.91-0.92 (bench/results/pocl-xeon-in-place-by-layout.log).
 * 32 x 7 and 64 x 3 in place alike, 32 x 12 0.64-0.69, 16 x 12 0.80-0.89, 32 x 8 0.71-0.75. At
 * 512^2 in place swung from process to process (0.79-1.17 x over nine rounds; 188 GFLOPS in some
 * processes against blocked's steady 0.88-0.94): 512^3 blocks. 320^2-480^2 in place in five
 * processes each 188-268 GFLOPS, blocked in 32 x 12 177-239
 * (bench/results/pocl-xeon-in-place-by-layout.log). */
#define IN_PLACE_MAX_INTEL_FP32           ((size_t)512 * 512 * 512)
#define IN_PLACE_MAX_INTEL_FP32_B_ALONG_N ((size_t)320 * 320 * 320)
/* An op(A) along K (row-major B transposed) read in place is copied, element by element, into
 * each work-item's private panel, by every work-item of its rows: FP32 and FP64 block from 128^3
 * there on every CPU. Xeon as above, row-major NT and TT, in place against the tests' forced
 * blocks (CLGEMM_PACK_KC=512, blocks of 3 panels): FP64 256^2 0.23-0.31 against 0.75-0.80, 384^2
 * 0.21-0.22 / 0.79-0.93; FP32 192^2 26-62 GFLOPS against 72-109, 128^2 22-46 / 37-49, 96^2
 * alike (bench/results/pocl-xeon-in-place-by-layout.log). Not measured on the AMD EPYC, whose
 * in-place kernel copies the same way. */
#define PACK_MIN_MNK_A_ALONG_K ((size_t)128 * 128 * 128)

/* Whether a real matrix of d is read in place by the rules above (complex ones never are). */
static bool reads_in_place(const device_info *info, clgemm_precision type, const gemm_dims *d) {
    const bool intel = intel_cpu(info);
    if (clgemm__type(type)->complex) return false;
    if (d->a_along_k && (type == CLGEMM_SINGLE || type == CLGEMM_DOUBLE))
        return mnk_below(d, PACK_MIN_MNK_A_ALONG_K);
    if (type == CLGEMM_SINGLE && intel)
        return mnk_below(d, d->b_along_n ? IN_PLACE_MAX_INTEL_FP32_B_ALONG_N
                                         : IN_PLACE_MAX_INTEL_FP32);
    const size_t min_mnk =
        type == CLGEMM_DOUBLE && intel ? PACK_MIN_MNK_INTEL_FP64
        : type == CLGEMM_HALF || type == CLGEMM_INT8 || (type == CLGEMM_BFLOAT16 && intel)
            ? PACK_MIN_MNK_WIDENED
            : PACK_MIN_MNK;
    return mnk_below(d, min_mnk);
}

static const clgemm_config *defaults(const device_info *info, clgemm_precision type,
                                     const gemm_dims *dims) {
    static const clgemm_config none[] = {END_OF_LIST};
    bool dbl = type == CLGEMM_DOUBLE || type == CLGEMM_COMPLEX_DOUBLE;
    bool cplx = type == CLGEMM_COMPLEX_SINGLE || type == CLGEMM_COMPLEX_DOUBLE;
    switch (clgemm__device_tier(info)) {
    case TIER_CPU_AVX512:
        if (cplx && intel_cpu(info))
            return dbl ? avx512_complex_double_intel : avx512_complex_single_intel;
        if (cplx) return dbl ? avx512_complex_double : avx512_complex_single;
        if (intel_cpu(info) && type == CLGEMM_SINGLE && reads_in_place(info, type, dims))
            return avx512_single_intel_in_place;
        if (intel_cpu(info) && !dbl) return avx512_single_intel;
        if (intel_cpu(info))
            return reads_in_place(info, type, dims) ? avx512_double_intel_small
                                                    : avx512_double_intel;
        if (dbl) return avx512_double;
        return type == CLGEMM_SINGLE && reads_in_place(info, type, dims) ? avx512_single_in_place
                                                                         : avx512_single;
    case TIER_CPU_AVX2:
        if (cplx) return dbl ? avx2_complex_double : avx2_complex_single;
        return dbl ? avx2_double : avx2_single;
    default:
        return none; /* never measured: the regblock lists serve */
    }
}

/* The blocked schedule (cl/microkernel.cl, PACKED) on the CPU tiers: for products of 1024^3 and
 * more, where the operands no longer sit in the caches as they lie (FP64 1536^2 ran 0.35-0.47 x
 * OpenBLAS read in place, 0.95-1.08 packed; FP32 2048^2 0.13-0.27 against 0.9-1.75; at 512^2
 * FP32 packing lost, 0.52-0.56 against 0.77-0.85). K-blocks of PACK_BYTES per row of a panel
 * (FP32 512 steps, FP64 256; 128 to 1024 steps timed alike at 2048^2), or the configuration's
 * KC (the EPYC's FP64 default sets 512: avx512_double above). Not when C is at most
 * PACK_MIN_PANELS panels of A tall: each packed K-block of B then serves so few of them that
 * copying B costs about what multiplying does (row-major 8192 x 64 x 8192, whose column-major B
 * is 8192^2: FP32 1.67 x OpenBLAS in place, 0.87 packed). cpu-avx2 as measured under PoCL's
 * haswell target on the same EPYC: 2048^2 FP32 0.82-0.92 x OpenBLAS blocked, 0.09 in place.
 * docs/PERFORMANCE.md, "The blocked schedule on CPUs, against OpenBLAS", has the runs.
 * The complex types are blocked at every size and shape: read in place, each work-item copies its
 * rows of A into its private panel (the complex kernel has no vector path over A as stored), and
 * that lost to packing everywhere timed (AMD EPYC, AVX-512, row-major, x OpenBLAS in place /
 * packed: complex FP32 64^2 0.25 / 0.79, 512^2 0.63 / 1.37, 32 x 1024 x 1024 0.62 / 1.17,
 * 1024 x 32 x 1024 0.82 / 1.19, 1024^2 x 16 0.42 / 0.66; complex FP64 0.46 / 1.08, 0.93 / 1.69,
 * 0.42 / 1.17, 1.18 / 1.71, 0.74 / 0.80; 8^3 alike). */
#define PACK_BYTES      2048
#define PACK_MIN_PANELS 2
/* A configuration's KC (more than 1) is the K-blocks' depth instead; whether a call is blocked
 * stays the rule above. */
static int pack_depth(const clgemm_config *c, const device_info *info, clgemm_precision type,
                      const gemm_dims *d) {
    const device_tier t = clgemm__device_tier(info);
    if (t != TIER_CPU_AVX512 && t != TIER_CPU_AVX2) return 0;
    const int depth =
        c->params[KC] > 1 ? c->params[KC] : PACK_BYTES / (int)clgemm__type(type)->compute_size;
    if (clgemm__type(type)->complex) return depth;
    if (reads_in_place(info, type, d) || d->m <= PACK_MIN_PANELS * (size_t)c->params[MR]) return 0;
    return depth;
}

/* The tuner's --quick candidates where a device has no CPU tier of its own (a simulator such as
 * Oclgrind): both tiers' first choices and a block half as tall. */
static const clgemm_config quick[] = {MK(32, 8, 16), MK(32, 8, 8), MK(16, 6, 8),
                                      MK(8, 8, 4),   MK(16, 8, 8), END_OF_LIST};

/* A cold --quick on a CPU times the tier's first choice for the type and its smaller
 * neighbour: each costs a PoCL build of about a second (regblock's take 10 s and more). */
static const clgemm_config *quick_cpu(const device_info *info, clgemm_precision type) {
    return defaults(info, type, ONE_MATRIX);
}

const family_desc clgemm__family_microkernel = {
    FAMILY_BASICS(CLGEMM_FAMILY_MICROKERNEL, microkernel),
    .param_ext = param_ext,
    .searched = true,
    .split_k = true,
    .supported = supported,
    .call_options = call_options,
    .defaults = defaults,
    .quick = quick,
    .quick_cpu = quick_cpu,
    .pack_depth = pack_depth,
    .pack_rows = pack_rows,
};
