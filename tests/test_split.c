/* test_split.c: the schedules that cut K. Split K: when the tiles of C alone cannot fill the
 * device, the register-blocked kernel (and the tensor-core one, on NVIDIA) splits K across
 * work-group layers into a workspace and a second kernel adds the partial products and applies
 * beta. Stream-K: a fixed grid of work-groups shares all tiles' K-slices evenly, and a fix-up
 * kernel adds the parts of the tiles that range boundaries cut; a mostly empty last row or column
 * of tiles may be peeled off and run in small tiles. CLGEMM_KSPLIT, CLGEMM_STREAMK and CLGEMM_PEEL
 * force them on any device: several layer and work-group counts (more than there are slices
 * included, which leaves some empty), both precisions and layouts, all transposes, beta = 0 with
 * NaN in C and beta != 0, compared with the host reference and CLBlast; then the planner's own
 * choice and an out-of-order queue, where only the event orders the two kernels. */
#include "configs.h"
#include "typed.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

static const clgemm_config small_tiles = SMALL_REGBLOCK;

/* The same tiles in two local buffers (STAGES 2: each slice loaded in four 2-row parts). */
static clgemm_config two_buffers(void) {
    clgemm_config c = small_tiles;
    clgemm_config_set(&c, "STAGES", 2);
    return c;
}

/* The CPU micro-kernel family's 8 x 3 blocks of 4-wide vectors (legal on any CPU; refused on
 * GPUs of a known vendor, where the tests skip). */
static const clgemm_config microkernel_tiles = {.family = CLGEMM_FAMILY_MICROKERNEL,
                                                .params = {8, 3, 4}};

/* The tensor-core family's small FP64 tiles (NVIDIA sm_90 only: skipped elsewhere, PoCL in CI
 * included). */
static const clgemm_config mma_tiles = {.family = CLGEMM_FAMILY_MMA,
                                        .params = {64, 64, 16, 32, 32, 2}};

/* The problems of the grids below (M, N, K): the first four by default; the last two, whose
 * leading dimensions keep 16-byte vectors aligned and whose tiles lie inside the matrices, for
 * configurations that load vectors there (VLOAD 2). */
static const size_t shapes[][3] = {{1, 1, 40},    {33, 17, 100}, {16, 16, 7},    {50, 70, 301},
                                   {64, 48, 300}, {96, 64, 520}, {200, 130, 520}};
#define PLAIN_SHAPES   0, 4
#define ALIGNED_SHAPES 4, 2
/* Grids of many tiles and K long enough to split: 20, 12, 24 and 117 tiles of 16 x 16 (12 of
 * 64 x 64 for the last). */
#define TAIL_SHAPES 3, 4
/* Problems larger than a 128 x 64 tile with a partial one beside: 96 x 64 x 520 and
 * 200 x 130 x 520. */
#define LARGE_TILE_SHAPES 5, 2

/* Every case below with `variable` (read when a handle is made) set to each of `values`, in
 * configuration cfg, over shapes[first .. first + nshapes - 1]. */
static void run_shapes_with(const clgemm_config *cfg, clgemm_precision prec, const char *variable,
                            const char *const *values, size_t count, size_t first, size_t nshapes) {
    tc_env env;
    TC_OPEN_OR_SKIP(&env);
    if (prec == CLGEMM_DOUBLE && !env.has_fp64) cr_skip_test("no fp64 on %s", env.device_name);
    clgemm_handle h = NULL;
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
    if (clgemm_check_config(h, prec, cfg) != CLGEMM_SUCCESS)
        cr_skip_test("the configuration is not legal on %s", env.device_name);
    static const double scalars[][2] = {{1.0, 0.0}, {-1.5, 0.5}};
    unsigned cases = 0, failed = 0;
    char msg[1024];
    for (size_t s = 0; s < count; s++) {
        setenv(variable, values[s], 1);
        clgemm_destroy(h);
        cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
        cr_assert_eq(clgemm_set_config(h, prec, cfg), CLGEMM_SUCCESS);
        for (int layout = 0; layout < 2; layout++)
            for (int t = 0; t < 4; t++)
                for (size_t p = first; p < first + nshapes; p++)
                    for (size_t a = 0; a < 2; a++) {
                        tt_gemm g = {TT_PROBLEM(prec, prec,
                                                layout ? CLGEMM_ROW_MAJOR : CLGEMM_COL_MAJOR,
                                                t & 1 ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                                                t & 2 ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                                                shapes[p][0], shapes[p][1], shapes[p][2]),
                                     .alpha = {scalars[a][0]},
                                     .beta = {scalars[a][1]},
                                     .ldc = shapes[p][layout ? 1 : 0] + 3,
                                     .off_c = 5,
                                     .tail = 4};
                        cases++;
                        if (tt_run(&env, h, &g, 7 + cases, 0, TT_RUN_CLBLAST | TT_RUN_EVENT, msg,
                                   sizeof msg) != 0 &&
                            ++failed <= 5)
                            cr_expect(0, "%s=%s: %s", variable, values[s], msg);
                    }
    }
    unsetenv(variable);
    cr_expect_eq(failed, 0u, "%u of %u %s cases failed", failed, cases, variable);
    clgemm_destroy(h);
    tc_close(&env);
}

static void run_grid_with(const clgemm_config *cfg, clgemm_precision prec, const char *variable,
                          const char *const *values, size_t count) {
    run_shapes_with(cfg, prec, variable, values, count, PLAIN_SHAPES);
}

static void run_grid(clgemm_precision prec, const char *variable, const char *const *values,
                     size_t count) {
    run_grid_with(&small_tiles, prec, variable, values, count);
}

static const char *const splits[] = {"2", "3", "64"};
/* 1: one work-group does every tile whole; 2, 3, 7: ranges cut tiles at varied points (a
 * 50 x 70 x 301 problem in 16 x 16 tiles is 20 tiles of 38 slices) after whole waves in the
 * plain kernel; 5000: most ranges hold one slice or none, and several boundaries fall in one
 * tile; ",1": only the last partial wave's tiles are shared out. */
static const char *const streamk_groups[] = {"1", "2", "3", "7", "5000", "3,1", "7,1"};

/* CLGEMM_TAIL=n: waves of n work-groups, the last partial one's tiles K split. 50 x 70 x 301 in
 * 16 x 16 tiles is 20 tiles: with 7 a head of 14 (a column and a half), the bottom 2 tiles of
 * column 3 in 3 layers and column 4 unsplit; 13 the bottom 3 of column 3 and column 4 in 4 and 3
 * layers; 16 whole columns, the last in 4 layers; 1 the device's own work-group slots. */
static const char *const tail_waves[] = {"7", "13", "16", "1"};

Test(split, sgemm_forced_tail, .timeout = 600) {
    run_shapes_with(&small_tiles, CLGEMM_SINGLE, "CLGEMM_TAIL", tail_waves, 4, TAIL_SHAPES);
}

Test(split, dgemm_forced_tail, .timeout = 600) {
    run_shapes_with(&small_tiles, CLGEMM_DOUBLE, "CLGEMM_TAIL", tail_waves, 4, TAIL_SHAPES);
}

/* The tensor-core family's head along a 1-D grid (LINEAR_TILES in cl/mma.cl) and its tail
 * (NVIDIA sm_90 only). */
Test(split, dgemm_mma_forced_tail, .timeout = 600) {
    run_shapes_with(&mma_tiles, CLGEMM_DOUBLE, "CLGEMM_TAIL", tail_waves, 4, TAIL_SHAPES);
}

Test(split, sgemm_forced_splits, .timeout = 600) {
    run_grid(CLGEMM_SINGLE, "CLGEMM_KSPLIT", splits, 3);
}

Test(split, dgemm_forced_splits, .timeout = 600) {
    run_grid(CLGEMM_DOUBLE, "CLGEMM_KSPLIT", splits, 3);
}

/* Two local buffers under split K and stream-K: empty layers, segments that end mid-tile, and a
 * next segment whose first slice reuses the buffers. */
Test(split, sgemm_two_buffers_splits_and_streamk, .timeout = 600) {
    clgemm_config c = two_buffers();
    run_grid_with(&c, CLGEMM_SINGLE, "CLGEMM_KSPLIT", splits, 3);
    run_grid_with(&c, CLGEMM_SINGLE, "CLGEMM_STREAMK", streamk_groups, 7);
}

/* Vector loads (VLOAD 2) under split K and stream-K, FP32 and FP64: layers and segments whose
 * K ranges start at any slice, on problems whose operands allow the vectors. */
Test(split, vector_loads_splits_and_streamk, .timeout = 600) {
    clgemm_config c = small_tiles;
    clgemm_config_set(&c, "VLOAD", 2);
    static const char *const groups[] = {"2", "7", "5000"};
    run_shapes_with(&c, CLGEMM_SINGLE, "CLGEMM_KSPLIT", splits, 3, ALIGNED_SHAPES);
    run_shapes_with(&c, CLGEMM_SINGLE, "CLGEMM_STREAMK", groups, 3, ALIGNED_SHAPES);
    run_shapes_with(&c, CLGEMM_DOUBLE, "CLGEMM_KSPLIT", splits, 2, ALIGNED_SHAPES);
}

Test(split, sgemm_microkernel_forced_splits, .timeout = 600) {
    run_grid_with(&microkernel_tiles, CLGEMM_SINGLE, "CLGEMM_KSPLIT", splits, 3);
}

Test(split, dgemm_microkernel_forced_splits, .timeout = 600) {
    run_grid_with(&microkernel_tiles, CLGEMM_DOUBLE, "CLGEMM_KSPLIT", splits, 3);
}

Test(split, dgemm_microkernel_forced_peel, .timeout = 600) {
    static const char *const on[] = {"1"};
    run_grid_with(&microkernel_tiles, CLGEMM_DOUBLE, "CLGEMM_PEEL", on, 1);
}

Test(split, dgemm_mma_forced_splits, .timeout = 600) {
    run_grid_with(&mma_tiles, CLGEMM_DOUBLE, "CLGEMM_KSPLIT", splits, 3);
}

/* CLGEMM_PEEL=1: every last partial row and column of tiles runs apart in the family's smallest
 * default tiles, alone and under stream-K. */
static void run_peeled(clgemm_precision prec) {
    static const char *const on[] = {"1"}, *const streamk[] = {"3", "7,1"};
    run_grid(prec, "CLGEMM_PEEL", on, 1);
    setenv("CLGEMM_PEEL", "1", 1);
    run_grid(prec, "CLGEMM_STREAMK", streamk, 2);
    unsetenv("CLGEMM_PEEL");
}

Test(split, sgemm_forced_peel, .timeout = 600) {
    run_peeled(CLGEMM_SINGLE);
}

Test(split, dgemm_forced_peel, .timeout = 600) {
    run_peeled(CLGEMM_DOUBLE);
}

Test(split, sgemm_forced_streamk, .timeout = 600) {
    run_grid(CLGEMM_SINGLE, "CLGEMM_STREAMK", streamk_groups, 7);
}

Test(split, dgemm_forced_streamk, .timeout = 600) {
    run_grid(CLGEMM_DOUBLE, "CLGEMM_STREAMK", streamk_groups, 7);
}

/* The fix-up over tiles larger than its work-groups: 128 x 64 tiles (the H100's FP32 tiles at
 * 1536^2) are shared by four work-groups of 16 x 16 a boundary, each work-item adding four rows
 * at once, on problems with whole and partial tiles of that size; 5000 groups give tiles of
 * more than 32 parts (several rounds). */
Test(split, large_tiles_forced_streamk, .timeout = 600) {
    static const clgemm_config large = REGBLOCK(128, 64, 8, 16, 8, 8, 4, 4);
    static const char *const groups[] = {"3", "7", "5000"};
    run_shapes_with(&large, CLGEMM_SINGLE, "CLGEMM_STREAMK", groups, 3, LARGE_TILE_SHAPES);
    run_shapes_with(&large, CLGEMM_DOUBLE, "CLGEMM_STREAMK", groups, 3, LARGE_TILE_SHAPES);
}

/* Without CLGEMM_KSPLIT the planner splits a long K under a single tile, and the result is the
 * same as unsplit. */
Test(split, planner_choice, .timeout = 600) {
    tc_env env;
    TC_OPEN_OR_SKIP(&env);
    unsetenv("CLGEMM_KSPLIT");
    clgemm_handle h;
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, &small_tiles), CLGEMM_SUCCESS);
    tt_gemm g = {TT_PROBLEM(CLGEMM_SINGLE, CLGEMM_SINGLE, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS,
                            CLGEMM_NO_TRANS, 9, 5, 4000),
                 .alpha = {1.0}, .beta = {0.5}};
    char msg[1024];
    cr_expect_eq(tt_run(&env, h, &g, 99, 0, TT_RUN_CLBLAST | TT_RUN_EVENT, msg, sizeof msg), 0,
                 "%s", msg);
    clgemm_destroy(h);
    tc_close(&env);
}

/* On an out-of-order queue nothing but the call's own events orders the reduction after the
 * partial products, and the caller's event must cover both. */
Test(split, out_of_order_queue, .timeout = 600) {
    tc_env env;
    TC_OPEN_OR_SKIP(&env);
    TC_OUT_OF_ORDER_QUEUE_OR_SKIP(&env, ooo);
    setenv("CLGEMM_KSPLIT", "4", 1); /* read when the handle is made */
    clgemm_handle h;
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, &small_tiles), CLGEMM_SUCCESS);
    enum { M = 20, N = 12, K = 300 };
    float a[M * K], b[K * N], c[M * N], expect[M * N];
    uint64_t seed = 5;
    for (int i = 0; i < M * K; i++)
        a[i] = (float)tc_random(&seed);
    for (int i = 0; i < K * N; i++)
        b[i] = (float)tc_random(&seed);
    for (int i = 0; i < M * N; i++)
        c[i] = 1.0f;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double s = 0;
            for (int p = 0; p < K; p++)
                s += (double)a[i + p * M] * b[p + j * K];
            expect[i + j * M] = (float)(2.0 * s + 0.25);
        }
    cl_mem da = tc_buffer(env.context, sizeof a, a), db = tc_buffer(env.context, sizeof b, b);
    cl_mem dc = tc_buffer(env.context, sizeof c, c);
    cl_event done = NULL;
    cr_assert_eq(clgemm_sgemm(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K, 2.0f,
                              da, 0, M, db, 0, K, 0.25f, dc, 0, M, ooo, 0, NULL, &done),
                 CLGEMM_SUCCESS);
    cr_assert_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    cr_assert_eq(clEnqueueReadBuffer(ooo, dc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < M * N; i++)
        cr_expect(fabsf(c[i] - expect[i]) <= 1e-4f * K, "C[%d] = %g, expected %g", i, c[i],
                  expect[i]);
    clReleaseEvent(done);
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    clReleaseCommandQueue(ooo);
    unsetenv("CLGEMM_KSPLIT");
    clgemm_destroy(h);
    tc_close(&env);
}
