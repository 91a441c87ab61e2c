/* test_gemm.c: clgemm's results on the device. Every kernel family, forced with
 * clgemm_set_config over several legal parameter sets (the smallest legal one, medium and large
 * ones), in both precisions, both layouts, all four transpose pairs and a range of shapes
 * (vectors, odd sizes, sizes off the tile grid, padded leading dimensions with offsets), is
 * compared with CLBlast and with a long-double host reference, with a tolerance scaled by k.
 * Everything outside C must stay bit for bit as it was, and NaN in C must not matter when
 * beta == 0. Then the API around the kernels: m/n/k == 0, alpha == 0, the host-pointer calls,
 * output events, wait lists, another queue, and the program caches.
 *
 * PoCL compiles each new program for seconds, so a test is one configuration in one precision
 * (a Criterion parameter: its own process and timeout) looping over all its cases, and reports the
 * first few failures with their problem. */
#include "tally.h"
#include "typed.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- The grid of cases ---------------------------------------------------------------------- */

typedef struct shape {
    size_t m, n, k;
} shape;

/* Scalars and vectors, odd sizes, sizes one off a tile multiple, and two larger ones:
 * 257 x 130 x 67 has whole 256 x 128 tiles and edge ones, whole KWG slices and a partial one;
 * 17 x 9 x 600 is a small C with a long K, which the planner splits along K (regblock). */
static const shape shapes[] = {
    {1, 1, 1},     {1, 37, 19},   {41, 1, 23},    {7, 13, 5},   {64, 64, 64},
    {65, 63, 129}, {257, 1, 300}, {257, 130, 67}, {17, 9, 600},
};
#define SHAPE_COUNT (sizeof shapes / sizeof shapes[0])

/* alpha, beta: beta == 0 comes with C poisoned with NaN. Exact in float. */
static const double scalars[][2] = {{1.0, 0.0}, {1.5, -0.75}, {-0.5, 2.0}};
#define SCALAR_COUNT (sizeof scalars / sizeof scalars[0])

static const clgemm_layout layouts[] = {CLGEMM_COL_MAJOR, CLGEMM_ROW_MAJOR};
static const clgemm_transpose transposes[] = {CLGEMM_NO_TRANS, CLGEMM_TRANS};

static const char *config_text(const clgemm_config *c) {
    static char buf[150];
    clgemm_config_string(c, buf, sizeof buf);
    return buf;
}

static bool same_config(const clgemm_config *a, const clgemm_config *b) {
    if (a->family != b->family) return false;
    for (int i = 0; i < clgemm_family_param_count(a->family); i++) {
        const char *name = clgemm_family_param_name(a->family, i);
        int x = 0, y = 0;
        clgemm_config_get(a, name, &x);
        clgemm_config_get(b, name, &y);
        if (x != y) return false;
    }
    return true;
}

/* Every case for one configuration: layouts x transposes x (shapes x scalars + a padded case
 * with offsets + one with leading dimensions thousands of elements long). */
static void run_grid(tc_env *env, clgemm_handle h, clgemm_precision prec, const clgemm_config *cfg,
                     tally *t) {
    char prefix[200], msg[2048];
    snprintf(prefix, sizeof prefix, "%s: ", config_text(cfg));
    uint64_t seed = 1;
    for (size_t l = 0; l < 2; l++)
        for (size_t ta = 0; ta < 2; ta++)
            for (size_t tb = 0; tb < 2; tb++) {
                tt_gemm g = {.type_ab = prec,
                             .type_c = prec,
                             .layout = layouts[l],
                             .ta = transposes[ta],
                             .tb = transposes[tb],
                             .tail = 3};
                for (size_t s = 0; s < SHAPE_COUNT; s++)
                    for (size_t a = 0; a < SCALAR_COUNT; a++) {
                        g.m = shapes[s].m;
                        g.n = shapes[s].n;
                        g.k = shapes[s].k;
                        g.alpha[0] = scalars[a][0];
                        g.beta[0] = scalars[a][1];
                        /* Every other case waits on the output event instead of clFinish. */
                        unsigned flags = TT_RUN_CLBLAST | ((seed & 1) ? TT_RUN_EVENT : 0);
                        int rc = tt_run(env, h, &g, seed++, 0, flags, msg, sizeof msg);
                        record(t, rc, prefix, msg);
                    }
                /* Leading dimensions larger than needed, non-zero offsets. */
                tt_gemm p = g;
                p.m = 33;
                p.n = 17;
                p.k = 29;
                tt_pad_ld(&p, 3, 5, 7);
                p.off_a = 3;
                p.off_b = 5;
                p.off_c = 7;
                for (size_t a = 0; a < SCALAR_COUNT; a++) {
                    p.alpha[0] = scalars[a][0];
                    p.beta[0] = scalars[a][1];
                    int rc = tt_run(env, h, &p, seed++, 0, TT_RUN_CLBLAST, msg, sizeof msg);
                    record(t, rc, prefix, msg);
                }
                /* Columns of A and B 16 KB and more apart (FP32, 4100 elements of padding): the
                 * blocked schedule packs them in runs of panels (src/exec/pack.c), several runs
                 * a K-block with a partial last panel, and 280 columns in runs where the layout
                 * makes B the operand contiguous along its panels. */
                tt_gemm f = g;
                f.m = 300;
                f.n = 280;
                f.k = 37;
                tt_pad_ld(&f, 4100, 4100, 1);
                f.alpha[0] = scalars[1][0];
                f.beta[0] = scalars[1][1];
                record(t, tt_run(env, h, &f, seed++, 0, TT_RUN_CLBLAST, msg, sizeof msg), prefix,
                       msg);
                /* Every leading dimension a multiple of 4 (16-byte vectors of FP32) and K not a
                 * multiple of 8: whole tiles of 256 x 128 read by vectors (VLOAD 2) along M, N
                 * or K, and a slice cut by K's end, so vectors along K are read in part. */
                tt_gemm v = g;
                v.m = 301;
                v.n = 281;
                v.k = 37;
                tt_pad_ld(&v, 3, 3, 3);
                record(t, tt_run(env, h, &v, seed++, 0, TT_RUN_CLBLAST, msg, sizeof msg), prefix,
                       msg);
            }
}

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One configuration in one precision (a parameter of the family tests below). */
typedef struct family_case {
    clgemm_precision prec;
    clgemm_config cfg;
} family_case;

/* Checks the configuration, forces it, and runs it over the grid. */
static void run_config(const family_case *fc) {
    tc_env env;
    const clgemm_config *cfg = &fc->cfg;
    TC_OPEN_OR_SKIP(&env);
    if (fc->prec == CLGEMM_DOUBLE && !env.has_fp64)
        cr_skip_test("%s has no cl_khr_fp64: dgemm is not tested", env.device_name);
    if (!tc_have_clblast()) cr_log_warn("built without CLBlast: host reference only");
    clgemm_handle h;
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
    clgemm_status st = clgemm_check_config(h, fc->prec, cfg);
    if (st != CLGEMM_SUCCESS)
        cr_skip_test("%s is not legal on %s (%s)", config_text(cfg), env.device_name,
                     clgemm_status_string(st));
    cr_assert_eq(clgemm_set_config(h, fc->prec, cfg), CLGEMM_SUCCESS, "%s", config_text(cfg));
    clgemm_config used;
    const char *source = NULL;
    cr_assert_eq(clgemm_get_config(h, fc->prec, 64, 64, 64, &used, &source), CLGEMM_SUCCESS);
    cr_expect(same_config(&used, cfg), "forced %s, get_config says %s", config_text(cfg),
              config_text(&used));
    cr_expect(source && strcmp(source, "override") == 0, "source %s, want override",
              source ? source : "(null)");
    tally t = {0, 0};
    double start = seconds();
    run_grid(&env, h, fc->prec, cfg, &t);
    char what[200];
    snprintf(what, sizeof what, "%cgemm %s (%.1f s)", fc->prec == CLGEMM_DOUBLE ? 'd' : 's',
             config_text(cfg), seconds() - start);
    report(&t, what);
    clgemm_destroy(h);
    tc_close(&env);
}

/* ---- The families ---------------------------------------------------------------------------- */

/* One test case: precision, then the family's parameters. */
#define NAIVE(prec, m_, n_)                                                                        \
    {                                                                                              \
        prec, {                                                                                    \
            .family = CLGEMM_FAMILY_NAIVE, .mdimc = m_, .ndimc = n_                                \
        }                                                                                          \
    }
#define TILED(prec, ts_)                                                                           \
    {                                                                                              \
        prec, {                                                                                    \
            .family = CLGEMM_FAMILY_TILED, .ts = ts_                                               \
        }                                                                                          \
    }
#define RB(prec, mwg_, nwg_, kwg_, mdimc_, ndimc_, kwi_, vwm_, vwn_)                               \
    {                                                                                              \
        prec, {                                                                                    \
            .family = CLGEMM_FAMILY_REGBLOCK, .mwg = mwg_, .nwg = nwg_, .kwg = kwg_,               \
            .mdimc = mdimc_, .ndimc = ndimc_, .kwi = kwi_, .vwm = vwm_, .vwn = vwn_                \
        }                                                                                          \
    }
/* ... with STAGES (2: two local buffers, the next slice stored in KWI-row parts while this one
 * is multiplied, one barrier a slice) and VLOAD (2: 16-byte vector loads where the operands are
 * aligned). */
#define RBP(prec, mwg_, nwg_, kwg_, mdimc_, ndimc_, kwi_, vwm_, vwn_, stages_, vload_)             \
    {                                                                                              \
        prec, {                                                                                    \
            .family = CLGEMM_FAMILY_REGBLOCK, .params = {                                          \
                mdimc_,                                                                            \
                ndimc_,                                                                            \
                0,                                                                                 \
                mwg_,                                                                              \
                nwg_,                                                                              \
                kwg_,                                                                              \
                kwi_,                                                                              \
                vwm_,                                                                              \
                vwn_,                                                                              \
                stages_,                                                                           \
                vload_                                                                             \
            }                                                                                      \
        }                                                                                          \
    }
#define RB2(prec, mwg_, nwg_, kwg_, mdimc_, ndimc_, kwi_, vwm_, vwn_)                              \
    RBP(prec, mwg_, nwg_, kwg_, mdimc_, ndimc_, kwi_, vwm_, vwn_, 2, 0)
#define RBV(prec, mwg_, nwg_, kwg_, mdimc_, ndimc_, kwi_, vwm_, vwn_, stages_)                     \
    RBP(prec, mwg_, nwg_, kwg_, mdimc_, ndimc_, kwi_, vwm_, vwn_, stages_, 2)
/* The matrix-unit family (NVIDIA sm_90 here: FP64 through the tensor cores; the FP32 default
 * never uses it). Skipped where the device lacks the instructions (PoCL in CI). */
#define MMA(prec, mwg_, nwg_, kwg_, wm_, wn_, stages_)                                             \
    {                                                                                              \
        prec, {                                                                                    \
            .family = CLGEMM_FAMILY_MMA, .params = { mwg_, nwg_, kwg_, wm_, wn_, stages_ }         \
        }                                                                                          \
    }
/* The CPU micro-kernel family (PoCL in CI; other devices never plan it). */
#define MK(prec, mr_, nr_, vw_)                                                                    \
    {                                                                                              \
        prec, {                                                                                    \
            .family = CLGEMM_FAMILY_MICROKERNEL, .params = { mr_, nr_, vw_ }                       \
        }                                                                                          \
    }
/* ... with the blocked schedule's K-blocks and blocks of A set (KC, MC). */
#define MKB(prec, mr_, nr_, vw_, kc_, mc_)                                                         \
    {                                                                                              \
        prec, {                                                                                    \
            .family = CLGEMM_FAMILY_MICROKERNEL, .params = { mr_, nr_, vw_, kc_, mc_ }             \
        }                                                                                          \
    }
#define SP CLGEMM_SINGLE
#define DP CLGEMM_DOUBLE

static family_case naive_cases[] = {
    NAIVE(SP, 1, 1),   NAIVE(DP, 1, 1),
    NAIVE(SP, 3, 5),   NAIVE(DP, 3, 5), /* not powers of two: legal */
    NAIVE(SP, 16, 16), NAIVE(DP, 16, 16),
};

static family_case tiled_cases[] = {
    TILED(SP, 1), TILED(DP, 1), TILED(SP, 4), TILED(DP, 4), TILED(SP, 16), TILED(DP, 16),
};

/* The smallest legal set, an odd one and a medium one; the large NVIDIA defaults follow. */
static family_case regblock_cases[] = {
    /* the smallest legal one */
    RB(SP, 1, 1, 1, 1, 1, 1, 1, 1),
    RB(DP, 1, 1, 1, 1, 1, 1, 1, 1),
    /* not square, VWM 8 with VWN 1, KWI > 1, and A's transposed loads in several groups of
     * rows (APL < KWG) */
    RB(SP, 32, 16, 8, 4, 4, 2, 8, 1),
    RB(DP, 32, 16, 8, 4, 4, 2, 8, 1),
    /* medium */
    RB(SP, 64, 64, 16, 16, 16, 2, 2, 2),
    RB(DP, 64, 64, 16, 16, 16, 2, 2, 2),
    /* two local buffers: the smallest; the odd one, loaded in four parts; 64-deep slices in
     * eight parts */
    RB2(SP, 1, 1, 1, 1, 1, 1, 1, 1),
    RB2(DP, 32, 16, 8, 4, 4, 2, 8, 1),
    RB2(SP, 64, 64, 64, 8, 8, 8, 4, 4),
    /* vector loads: one buffer; VWM 8 (A's transposed loads in groups of 4 rows, one vector);
     * two buffers, each slice in four parts */
    RBV(SP, 32, 32, 8, 8, 8, 2, 4, 4, 0),
    RBV(DP, 32, 32, 8, 8, 8, 2, 4, 4, 0),
    RBV(DP, 32, 16, 8, 4, 4, 2, 8, 1, 0),
    RBV(SP, 64, 64, 16, 8, 8, 4, 4, 4, 2),
};

/* The large NVIDIA default of each precision (the configuration most users run): a suite of
 * their own, since on PoCL each costs as much as the other families together (meson runs
 * them apart, tests/meson.build). */
static family_case regblock_large_cases[] = {
    RB(SP, 256, 128, 8, 16, 16, 8, 4, 4),
    RB(DP, 128, 128, 8, 16, 16, 4, 2, 2),
    /* the H200 sweep's deep slices in two buffers (bench/gpu/fp32-sweep.list) */
    RB2(SP, 256, 128, 32, 16, 16, 8, 4, 4),
    /* the FP32 default with vector loads (the H200's) */
    RBV(SP, 256, 128, 8, 16, 16, 8, 4, 4, 0),
    /* Hopper's narrow FP32 tiles for aligned operands (64 x 256, 4 x 32 work-items) with
     * vector loads */
    RBV(SP, 64, 256, 8, 4, 32, 8, 4, 4, 0),
};

/* The CPU tiers' own (regblock_defaults.c): cpu-avx512's FP32 and large FP64 lists' first
 * entries, cpu-avx2's FP32 one; the shapes above are too small for the planner to pick them.
 * Large tiles too: a suite of their own (gemm-regblock-cpu in tests/meson.build). */
static family_case regblock_cpu_cases[] = {
    RB(SP, 128, 128, 16, 16, 16, 2, 4, 4),
    RB(DP, 128, 64, 16, 16, 16, 2, 4, 4),
    RB(SP, 64, 64, 32, 8, 8, 4, 4, 4),
};

/* The smallest legal block, an odd column count, vectors shorter than the block, and the CPU
 * tiers' defaults (microkernel.c): the shapes above run its in-place path, its copied panel
 * (transposed A, the M edge) and both ways of storing C; then blocks of A of 2 panels (MC): the
 * suites' shapes are blocked only where CLGEMM_PACK_KC forces it (gemm-microkernel-packed),
 * whose K-blocks then win over KC, and MC over the forced blocks of 3 panels; then the EPYC's
 * FP32 default for matrices read in place (16 x 12); last an Intel CPU's FP32 and FP64 defaults
 * (32 x 12 and 16 x 14, with their blocks). */
static family_case microkernel_cases[] = {
    MK(SP, 2, 1, 2),
    MK(DP, 2, 1, 2),
    MK(SP, 8, 3, 4),
    MK(DP, 8, 3, 4),
    MK(SP, 32, 8, 16),
    MK(DP, 32, 8, 8),
    MK(SP, 16, 6, 8),
    MK(DP, 8, 8, 4),
    MKB(SP, 8, 3, 4, 64, 2),
    MKB(DP, 8, 3, 4, 64, 2),
    MKB(DP, 32, 6, 8, 512, 0),
    MK(SP, 16, 12, 16),
    MKB(SP, 32, 12, 16, 1024, 4),
    MKB(DP, 16, 14, 8, 512, 8),
};

static family_case mma_cases[] = {
    MMA(DP, 128, 64, 16, 64, 32, 2),
    MMA(DP, 64, 64, 16, 32, 32, 2),
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Each (precision, configuration) pair is a test of its own: its own process, its own
 * timeout, and Criterion's workers share them out. */
#define FAMILY_TEST(family)                                                                        \
    ParameterizedTestParameters(family, gemm) {                                                    \
        return cr_make_param_array(family_case, family##_cases, COUNT(family##_cases));            \
    }                                                                                              \
    ParameterizedTest(family_case *fc, family, gemm, .timeout = 600) {                             \
        run_config(fc);                                                                            \
    }

FAMILY_TEST(naive)
FAMILY_TEST(tiled)
FAMILY_TEST(regblock)
FAMILY_TEST(regblock_large)
FAMILY_TEST(regblock_cpu)
FAMILY_TEST(microkernel)
FAMILY_TEST(mma)

/* ---- The API around the kernels -------------------------------------------------------------- */

/* The small configuration the API tests force: cheap to build, and shared with the family tests
 * through the program caches. */
static const clgemm_config api_config = {.family = CLGEMM_FAMILY_TILED, .ts = 4};

typedef struct api_fixture {
    tc_env env;
    clgemm_handle h;
} api_fixture;

static api_fixture fx;

static void api_open(clgemm_precision prec) {
    TC_OPEN_OR_SKIP(&fx.env);
    if (prec == CLGEMM_DOUBLE && !fx.env.has_fp64)
        cr_skip_test("%s has no cl_khr_fp64", fx.env.device_name);
    cr_assert_eq(clgemm_create(&fx.h, fx.env.queue), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_set_config(fx.h, CLGEMM_SINGLE, &api_config), CLGEMM_SUCCESS);
    if (fx.env.has_fp64)
        cr_assert_eq(clgemm_set_config(fx.h, CLGEMM_DOUBLE, &api_config), CLGEMM_SUCCESS);
}

static void api_close(void) {
    clgemm_destroy(fx.h);
    fx.h = NULL;
    tc_close(&fx.env);
}

static const clgemm_precision precisions[] = {CLGEMM_SINGLE, CLGEMM_DOUBLE};

Test(api, empty_products, .timeout = 600) {
    /* m == 0 or n == 0: success, nothing written (the sentinels after C stay), and an asked-for
     * event completes. k == 0 with m, n > 0 is C = beta * C, A and B (NaN) unread. */
    api_open(CLGEMM_SINGLE);
    static const shape empty[] = {{0, 5, 3}, {5, 0, 3}, {0, 0, 0}, {0, 0, 4}, {5, 4, 0}, {1, 1, 0}};
    static const double betas[] = {0.0, 1.0, -2.5};
    tally t = {0, 0};
    char msg[2048];
    uint64_t seed = 100;
    for (size_t p = 0; p < (fx.env.has_fp64 ? 2u : 1u); p++)
        for (size_t l = 0; l < 2; l++)
            for (size_t s = 0; s < COUNT(empty); s++)
                for (size_t b = 0; b < COUNT(betas); b++)
                    for (int with_event = 0; with_event < 2; with_event++) {
                        tt_gemm g = {TT_PROBLEM(precisions[p], precisions[p], layouts[l],
                                                transposes[s % 2], transposes[(s / 2) % 2],
                                                empty[s].m, empty[s].n, empty[s].k),
                                     .alpha = {1.0}, .beta = {betas[b]}, .tail = 5};
                        int rc = tt_run(&fx.env, fx.h, &g, seed++, TC_AB_NAN,
                                        with_event ? TT_RUN_EVENT : 0, msg, sizeof msg);
                        record(&t, rc, "", msg);
                    }
    report(&t, "empty products");
    api_close();
}

Test(api, tf32_modes_meet_their_bounds, .timeout = 600) {
    /* FP32 in the TF32 and 3xTF32 modes through the library's choice (on PoCL's AVX2 / AVX-512
     * tiers the micro-kernel, which computes them as FP32; tensor cores on NVIDIA), every layout
     * and transpose pair, against the mode's bound. */
    tc_env env;
    TC_OPEN_OR_SKIP(&env);
    clgemm_handle h;
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
    static const shape some[] = {{7, 13, 5}, {65, 63, 129}, {257, 130, 67}};
    static const clgemm_compute modes[] = {CLGEMM_COMPUTE_TF32, CLGEMM_COMPUTE_FP32_3XTF32};
    tally t = {0, 0};
    char msg[2048];
    uint64_t seed = 300;
    for (size_t c = 0; c < COUNT(modes); c++)
        for (size_t l = 0; l < 2; l++)
            for (size_t ta = 0; ta < 2; ta++)
                for (size_t tb = 0; tb < 2; tb++)
                    for (size_t s = 0; s < COUNT(some); s++) {
                        tt_gemm g = {
                            TT_PROBLEM(CLGEMM_SINGLE, CLGEMM_SINGLE, layouts[l], transposes[ta],
                                       transposes[tb], some[s].m, some[s].n, some[s].k),
                            .alpha = {1.5}, .beta = {-0.75}, .tail = 3, .compute = modes[c]};
                        int rc = tt_run(&env, h, &g, seed++, 0, 0, msg, sizeof msg);
                        record(&t, rc, "", msg);
                    }
    report(&t, "TF32 modes");
    clgemm_destroy(h);
    tc_close(&env);
}

Test(api, alpha_zero_reads_neither_a_nor_b, .timeout = 600) {
    /* alpha == 0: C = beta * C even though A and B hold NaN; beta == 0 gives zeros over a C full
     * of NaN. */
    api_open(CLGEMM_SINGLE);
    static const double betas[] = {0.0, 1.0, 0.5, -2.0};
    tally t = {0, 0};
    char msg[2048];
    uint64_t seed = 200;
    for (size_t p = 0; p < (fx.env.has_fp64 ? 2u : 1u); p++)
        for (size_t l = 0; l < 2; l++)
            for (size_t ta = 0; ta < 2; ta++)
                for (size_t b = 0; b < COUNT(betas); b++)
                    for (int padded = 0; padded < 2; padded++) {
                        tt_gemm g = {TT_PROBLEM(precisions[p], precisions[p], layouts[l],
                                                transposes[ta], transposes[1 - ta], padded ? 33 : 7,
                                                padded ? 17 : 13, padded ? 29 : 5),
                                     .alpha = {0.0}, .beta = {betas[b]}, .tail = 2};
                        if (padded) {
                            g.ldc = tc_min_ld(g.layout, CLGEMM_NO_TRANS, g.m, g.n) + 4;
                            g.off_c = 9;
                            g.off_a = 2;
                            g.off_b = 1;
                        }
                        int rc = tt_run(&fx.env, fx.h, &g, seed++, TC_AB_NAN, 0, msg, sizeof msg);
                        record(&t, rc, "", msg);
                    }
    report(&t, "alpha == 0");
    api_close();
}

/* No override: the built-in default for the device (the tuning database is kept out of the
 * way), through clgemm_sgemm_host / clgemm_dgemm_host. Leading dimensions larger than needed
 * leave gaps in C that must come back bit for bit. */
static void host_calls(clgemm_precision prec) {
    TC_OPEN_OR_SKIP(&fx.env);
    if (prec == CLGEMM_DOUBLE && !fx.env.has_fp64)
        cr_skip_test("%s has no cl_khr_fp64", fx.env.device_name);
    cr_assert_eq(clgemm_create(&fx.h, fx.env.queue), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_load_tuning(fx.h, "/nonexistent/clgemm-test/tuning.json"), CLGEMM_SUCCESS);
    clgemm_config cfg;
    const char *source = NULL;
    cr_assert_eq(clgemm_get_config(fx.h, prec, 64, 64, 64, &cfg, &source), CLGEMM_SUCCESS);
    cr_expect(source && (strcmp(source, "default") == 0 || strcmp(source, "fallback") == 0),
              "without override or database the source is %s", source ? source : "(null)");
    cr_log_info("default config: %s (%s)", config_text(&cfg), source ? source : "?");
    cr_expect_eq(clgemm_check_config(fx.h, prec, &cfg), CLGEMM_SUCCESS,
                 "the library plans a configuration it calls illegal: %s", config_text(&cfg));

    static const shape host_shapes[] = {{1, 1, 1}, {7, 13, 5}, {65, 63, 129}, {33, 40, 70}};
    tally t = {0, 0};
    char msg[2048];
    uint64_t seed = 300;
    for (size_t l = 0; l < 2; l++)
        for (size_t ta = 0; ta < 2; ta++)
            for (size_t tb = 0; tb < 2; tb++)
                for (size_t s = 0; s < COUNT(host_shapes); s++) {
                    size_t a = s % SCALAR_COUNT;
                    tt_gemm g = {TT_PROBLEM(prec, prec, layouts[l], transposes[ta], transposes[tb],
                                            host_shapes[s].m, host_shapes[s].n, host_shapes[s].k),
                                 .alpha = {scalars[a][0]}, .beta = {scalars[a][1]}};
                    if (s == 1 || s == 3) { /* padded leading dimensions */
                        tt_pad_ld(&g, 2, 1, 3);
                    }
                    int rc = tt_run(&fx.env, fx.h, &g, seed++, 0, TT_RUN_HOST, msg, sizeof msg);
                    record(&t, rc, "", msg);
                }
    report(&t, "host API");
    if (prec == CLGEMM_DOUBLE) {
        api_close();
        return;
    }

    /* m == 0: success, C untouched; alpha == 0: C = beta * C whatever A and B hold. */
    float c_host[4] = {1, 2, 3, 4};
    float nan_ab[4] = {NAN, NAN, NAN, NAN};
    cr_expect_eq(clgemm_sgemm_host(fx.h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 0, 2,
                                   2, 1.0f, nan_ab, 1, nan_ab, 2, 0.0f, c_host, 1),
                 CLGEMM_SUCCESS);
    cr_expect(c_host[0] == 1 && c_host[1] == 2 && c_host[2] == 3 && c_host[3] == 4,
              "m == 0 changed C");
    cr_expect_eq(clgemm_sgemm_host(fx.h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 2, 2,
                                   2, 0.0f, nan_ab, 2, nan_ab, 2, 2.0f, c_host, 2),
                 CLGEMM_SUCCESS);
    cr_expect(c_host[0] == 2 && c_host[1] == 4 && c_host[2] == 6 && c_host[3] == 8,
              "alpha == 0, beta == 2: C = %g %g %g %g, want 2 4 6 8", c_host[0], c_host[1],
              c_host[2], c_host[3]);
    api_close();
}

Test(api, host_sgemm_with_the_default_config, .timeout = 600) {
    host_calls(CLGEMM_SINGLE);
}

Test(api, host_dgemm_with_the_default_config, .timeout = 600) {
    host_calls(CLGEMM_DOUBLE);
}

/* Buffers for one problem, made from d. */
typedef struct dev_bufs {
    cl_mem a, b, c;
} dev_bufs;

static dev_bufs make_bufs(const tt_data *d) {
    size_t sab = clgemm_type_size(d->g.type_ab), sc = clgemm_type_size(d->g.type_c);
    dev_bufs b = {tc_buffer(fx.env.context, d->na * sab, d->a),
                  tc_buffer(fx.env.context, d->nb * sab, d->b),
                  tc_buffer(fx.env.context, d->nc * sc, d->c0)};
    cr_assert(b.a && b.b && b.c, "could not create buffers");
    return b;
}

static void free_bufs(dev_bufs *b) {
    clReleaseMemObject(b->a);
    clReleaseMemObject(b->b);
    clReleaseMemObject(b->c);
}

/* Reads C on `queue` and checks it against the reference. */
static void expect_result(tt_data *d, cl_mem c, cl_command_queue queue, const char *what) {
    size_t sc = clgemm_type_size(d->g.type_c), cells = d->g.m * d->g.n;
    double *ref = malloc((cells ? cells : 1) * 2 * sizeof *ref);
    double *bound = malloc((cells ? cells : 1) * sizeof *bound);
    cr_assert(ref && bound);
    cr_assert_eq(tc_read(queue, c, d->nc * sc, d->c), CL_SUCCESS);
    tt_reference(d, ref, bound);
    char detail[1024];
    cr_expect_eq(tt_check(d, d->c, ref, bound, 1.0, detail, sizeof detail), 0, "%s:%s", what,
                 detail);
    free(ref);
    free(bound);
}

static cl_int event_status(cl_event e) {
    cl_int status = -12345;
    clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    return status;
}

Test(api, output_event_on_another_queue, .timeout = 600) {
    /* The call runs on the queue it is given (not the handle's); its event completes when C
     * holds the result, which is then read on the handle's queue with nothing else ordering
     * the two. */
    api_open(CLGEMM_SINGLE);
    cl_int err;
    cl_command_queue q2 = clCreateCommandQueue(fx.env.context, fx.env.device, 0, &err);
    cr_assert_eq(err, CL_SUCCESS);
    for (size_t p = 0; p < (fx.env.has_fp64 ? 2u : 1u); p++) {
        tt_gemm g = {TT_PROBLEM(precisions[p], precisions[p], CLGEMM_ROW_MAJOR, CLGEMM_TRANS,
                                CLGEMM_NO_TRANS, 65, 63, 129),
                     .alpha = {1.5}, .beta = {-0.75}, .tail = 3};
        tt_data d;
        cr_assert(tt_data_make(&d, &g, 400 + p, 0));
        dev_bufs b = make_bufs(&d);
        cl_event ev = NULL;
        cr_assert_eq(tt_clgemm_enqueue(fx.h, &d.g, b.a, b.b, b.c, 0, q2, 0, NULL, &ev),
                     CLGEMM_SUCCESS);
        cr_assert(ev != NULL, "no output event");
        cl_command_queue evq = NULL;
        clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof evq, &evq, NULL);
        cr_expect_eq(evq, q2, "the work was enqueued on %p, not on the queue given (%p)",
                     (void *)evq, (void *)q2);
        cr_assert_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
        cr_expect_eq(event_status(ev), CL_COMPLETE);
        expect_result(&d, b.c, fx.env.queue, "read after the output event");
        clReleaseEvent(ev);
        free_bufs(&b);
        tt_data_free(&d);
    }
    clReleaseCommandQueue(q2);
    api_close();
}

/* Reads C on `queue` and expects it exactly as it was before the call. */
static void expect_untouched(const tt_data *d, cl_mem c, cl_command_queue queue, const char *what) {
    size_t bytes = d->nc * clgemm_type_size(d->g.type_c);
    void *now = malloc(bytes ? bytes : 1);
    cr_assert(now);
    cr_assert_eq(tc_read(queue, c, bytes, now), CL_SUCCESS);
    cr_expect(memcmp(now, d->c0, bytes) == 0, "%s: C changed", what);
    free(now);
}

Test(api, wait_list_holds_the_call_back, .timeout = 600) {
    /* With two user events in the wait list, nothing happens to C until both complete; then
     * the output event completes and C holds the result. Also for m == 0. */
    api_open(CLGEMM_SINGLE);
    cl_int err;
    cl_command_queue reader = clCreateCommandQueue(fx.env.context, fx.env.device, 0, &err);
    cr_assert_eq(err, CL_SUCCESS);
    for (int empty = 0; empty < 2; empty++) {
        tt_gemm g = {TT_PROBLEM(CLGEMM_SINGLE, CLGEMM_SINGLE, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS,
                                CLGEMM_TRANS, empty ? 0 : 40, 24, 33),
                     .alpha = {-0.5}, .beta = {2.0}, .tail = 3};
        const char *what = empty ? "m == 0" : "40x24x33";
        tt_data d;
        cr_assert(tt_data_make(&d, &g, 500 + empty, 0));
        dev_bufs b = make_bufs(&d);
        cl_event users[2];
        users[0] = clCreateUserEvent(fx.env.context, &err);
        cr_assert_eq(err, CL_SUCCESS);
        users[1] = clCreateUserEvent(fx.env.context, &err);
        cr_assert_eq(err, CL_SUCCESS);
        cl_event ev = NULL;
        cr_assert_eq(tt_clgemm_enqueue(fx.h, &d.g, b.a, b.b, b.c, 0, NULL, 2, users, &ev),
                     CLGEMM_SUCCESS, "%s", what);
        cr_assert(ev != NULL, "%s: no output event", what);
        clFlush(fx.env.queue);
        usleep(100 * 1000);
        cr_expect_neq(event_status(ev), CL_COMPLETE, "%s: completed before its wait list", what);
        expect_untouched(&d, b.c, reader, what);
        clSetUserEventStatus(users[0], CL_COMPLETE);
        clFlush(fx.env.queue);
        usleep(50 * 1000);
        cr_expect_neq(event_status(ev), CL_COMPLETE, "%s: completed with one event pending", what);
        clSetUserEventStatus(users[1], CL_COMPLETE);
        cr_assert_eq(clWaitForEvents(1, &ev), CL_SUCCESS, "%s", what);
        cr_expect_eq(event_status(ev), CL_COMPLETE, "%s", what);
        expect_result(&d, b.c, reader, what);
        clReleaseEvent(ev);
        clReleaseEvent(users[0]);
        clReleaseEvent(users[1]);
        free_bufs(&b);
        tt_data_free(&d);
    }
    clReleaseCommandQueue(reader);
    api_close();
}

/* Whether a file name is a cached binary's: it ends in .bin (and is more than that). */
static bool is_binary(const char *name) {
    size_t len = strlen(name);
    return len > 4 && strcmp(name + len - 4, ".bin") == 0;
}

/* Number of files in dir whose name ends in .bin. */
static int count_binaries(const char *dir) {
    DIR *dp = opendir(dir);
    if (!dp) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(dp));)
        n += is_binary(e->d_name);
    closedir(dp);
    return n;
}

/* Overwrites the middle of every cached binary in dir with garbage; returns how many. */
static int corrupt_binaries(const char *dir) {
    DIR *dp = opendir(dir);
    if (!dp) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(dp));) {
        if (!is_binary(e->d_name)) continue;
        char path[4096 + 260];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r+b");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, size / 2, SEEK_SET);
        static const char junk[64] = "this is not a program binary, and its checksum says so";
        fwrite(junk, 1, sizeof junk, f);
        fclose(f);
        n++;
    }
    closedir(dp);
    return n;
}

static void remove_dir(const char *dir) {
    DIR *dp = opendir(dir);
    if (!dp) return;
    for (struct dirent *e; (e = readdir(dp));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char path[4096 + 260];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(dp);
    rmdir(dir);
}

/* One problem on h with its config forced; expects success and the right result. */
static void run_once(clgemm_handle h, const clgemm_config *cfg, size_t m, size_t n, size_t k,
                     uint64_t seed, const char *what) {
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, cfg), CLGEMM_SUCCESS);
    tt_gemm g = {TT_PROBLEM(CLGEMM_SINGLE, CLGEMM_SINGLE, CLGEMM_COL_MAJOR, CLGEMM_TRANS,
                            CLGEMM_TRANS, m, n, k),
                 .alpha = {1.5}, .beta = {-0.75}, .tail = 2};
    char msg[2048];
    int rc = tt_run(&fx.env, h, &g, seed, 0, 0, msg, sizeof msg);
    cr_expect_eq(rc, 0, "%s (%s): %s", what, config_text(cfg), msg);
}

Test(api, program_caches, .timeout = 600) {
    /* In memory: a second call with the same configuration (another shape) reuses the program,
     * also after another configuration ran in between. On disk (CLGEMM_CACHE_DIR): a new handle
     * loads the binary, and a corrupted binary is rebuilt, never run. */
    TC_OPEN_OR_SKIP(&fx.env);
    /* A fresh cache folder next to the suite's (in the build folder under meson), else in
     * /tmp. */
    char dir[4096];
    const char *base = getenv("CLGEMM_CACHE_DIR");
    snprintf(dir, sizeof dir, "%s-program-caches-XXXXXX",
             base && *base && strcmp(base, "off") != 0 ? base : "/tmp/clgemm-test");
    cr_assert(mkdtemp(dir) != NULL, "mkdtemp(%s) failed", dir);
    setenv("CLGEMM_CACHE_DIR", dir, 1);
    static const clgemm_config first = {.family = CLGEMM_FAMILY_NAIVE, .mdimc = 4, .ndimc = 2};
    static const clgemm_config second = {.family = CLGEMM_FAMILY_TILED, .ts = 4};

    cr_assert_eq(clgemm_create(&fx.h, fx.env.queue), CLGEMM_SUCCESS);
    run_once(fx.h, &first, 7, 13, 5, 600, "first call");
    int files = count_binaries(dir);
    cr_expect_geq(files, 1, "no program binary was written to CLGEMM_CACHE_DIR %s", dir);
    run_once(fx.h, &first, 65, 63, 129, 601, "second call, same configuration");
    run_once(fx.h, &second, 33, 17, 29, 602, "another configuration");
    run_once(fx.h, &first, 1, 37, 19, 603, "back to the first configuration");
    cr_expect_eq(count_binaries(dir), files + 1,
                 "one new configuration should add exactly one binary (%d before, %d after)", files,
                 count_binaries(dir));
    clgemm_destroy(fx.h);

    cr_assert_eq(clgemm_create(&fx.h, fx.env.queue), CLGEMM_SUCCESS);
    run_once(fx.h, &first, 64, 64, 64, 604, "new handle, binary from disk");
    cr_expect_eq(count_binaries(dir), files + 1, "a disk-cache hit should not add a binary");
    clgemm_destroy(fx.h);

    cr_expect_geq(corrupt_binaries(dir), 1);
    cr_assert_eq(clgemm_create(&fx.h, fx.env.queue), CLGEMM_SUCCESS);
    run_once(fx.h, &first, 41, 1, 23, 605, "corrupted binary on disk");
    run_once(fx.h, &second, 7, 13, 5, 606, "corrupted binary on disk");
    clgemm_destroy(fx.h);
    fx.h = NULL;
    tc_close(&fx.env);
    remove_dir(dir);
}

/* ---- Warm calls (issue 10 item 4) ----------------------------------------------------------- */

/* Column-major C = alpha A B + beta C on the host: A m x k at off_a with lda, B k x n, C m x n. */
static void host_sgemm(size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                       const float *b, size_t ldb, float beta, float *c, size_t ldc) {
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            double s = 0;
            for (size_t l = 0; l < k; l++)
                s += (double)a[i + l * lda] * b[l + j * ldb];
            c[i + j * ldc] = (float)(alpha * s + beta * c[i + j * ldc]);
        }
}

/* A warm call sets only the kernel arguments that changed since the last call of its kernel
 * (gemm.c, cached_arg): calls of one kernel that change one scalar at a time, or that pass a
 * buffer made after the last one was released (often at its address), must each get theirs. */
Test(api, warm_calls_take_every_new_argument, .timeout = 600) {
    api_open(CLGEMM_SINGLE);
    enum { ELEMS = 64 * 64 };
    static float a[ELEMS], b[ELEMS], c0[ELEMS], want[ELEMS], got[ELEMS];
    for (size_t i = 0; i < ELEMS; i++) {
        a[i] = (float)((int)(i * 7 % 13) - 6) / 8;
        b[i] = (float)((int)(i * 5 % 11) - 5) / 8;
        c0[i] = (float)((int)(i % 5) - 2) / 4;
    }
    cl_context ctx = fx.env.context;
    cl_command_queue q = fx.env.queue;
    cl_mem da = tc_buffer(ctx, sizeof a, a), db = tc_buffer(ctx, sizeof b, b);
    cl_mem dc = tc_buffer(ctx, sizeof c0, c0);
    static const struct {
        size_t m, n, k, off_a, lda, off_b, ldb;
        float alpha, beta;
        bool new_b; /* B released and made again before the call */
    } calls[] = {
        {16, 12, 8, 0, 16, 0, 8, 1.0f, 0.0f, false}, {16, 12, 8, 0, 16, 0, 8, 2.0f, 0.0f, false},
        {16, 12, 8, 0, 16, 0, 8, 2.0f, 0.5f, false}, {20, 12, 8, 0, 20, 0, 8, 2.0f, 0.5f, false},
        {20, 16, 8, 0, 20, 0, 8, 2.0f, 0.5f, false}, {20, 16, 9, 0, 20, 0, 9, 2.0f, 0.5f, false},
        {20, 16, 9, 5, 20, 0, 9, 2.0f, 0.5f, false}, {20, 16, 9, 5, 24, 0, 9, 2.0f, 0.5f, false},
        {20, 16, 9, 5, 24, 3, 9, 2.0f, 0.5f, false}, {20, 16, 9, 5, 24, 3, 11, 2.0f, 0.5f, false},
        {20, 16, 9, 5, 24, 3, 11, 2.0f, 0.5f, true}, {16, 12, 8, 0, 16, 0, 8, 1.0f, 0.0f, true},
        {16, 12, 8, 0, 16, 0, 8, 1.0f, 0.0f, false},
    };
    for (size_t t = 0; t < sizeof calls / sizeof calls[0]; t++) {
        if (calls[t].new_b) {
            /* New contents, so that a call still reading the released buffer is caught. */
            for (size_t i = 0; i < ELEMS; i++)
                b[i] = -b[i] + 0.25f;
            clReleaseMemObject(db);
            db = tc_buffer(ctx, sizeof b, b);
        }
        cr_assert_eq(tc_write(q, dc, sizeof c0, c0), CL_SUCCESS);
        memcpy(want, c0, sizeof c0);
        size_t m = calls[t].m, n = calls[t].n, k = calls[t].k, ldc = m;
        host_sgemm(m, n, k, calls[t].alpha, a + calls[t].off_a, calls[t].lda, b + calls[t].off_b,
                   calls[t].ldb, calls[t].beta, want, ldc);
        cr_assert_eq(clgemm_sgemm(fx.h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, m, n, k,
                                  calls[t].alpha, da, calls[t].off_a, calls[t].lda, db,
                                  calls[t].off_b, calls[t].ldb, calls[t].beta, dc, 0, ldc, NULL, 0,
                                  NULL, NULL),
                     CLGEMM_SUCCESS, "call %zu", t);
        cr_assert_eq(tc_read(q, dc, sizeof got, got), CL_SUCCESS);
        for (size_t i = 0; i < m * n; i++)
            cr_assert(fabsf(got[i] - want[i]) <= 1e-4f, "call %zu: C[%zu] = %g, not %g", t, i,
                      got[i], want[i]);
    }
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    api_close();
}
