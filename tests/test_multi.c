/* test_multi.c: one host-array GEMM across several devices (clgemm_multi_*), on PoCL with
 * POCL_DEVICES="pthread pthread" (or three) set by meson. Every split of C against the
 * long-double reference for FP32/FP64/complex/FP16/INT8/FP8 at odd sizes, layouts and transposes; a
 * slow device (CLGEMM_MULTI_TEST_DELAY_MS) takes fewer tiles; a failing device
 * (CLGEMM_MULTI_TEST_FAIL) has its tile retried on the others, or, when all fail, the call
 * returns the error and C holds per tile either its result or its old values; strided batches
 * in chunks (interleaved matrices of C included, gaps untouched); bad arguments
 * touch nothing; several threads on one handle; a forked child is refused.
 * CLGEMM_TEST_EXPECT_DEVICES is the device count meson asked PoCL for. */
#include "typed.h"

#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int expected_devices(void) {
    const char *e = getenv("CLGEMM_TEST_EXPECT_DEVICES");
    return e ? atoi(e) : 2;
}

static clgemm_multi_handle open_multi(void) {
    clgemm_multi_handle h = NULL;
    clgemm_status st = clgemm_create_multi(&h, NULL, 0);
    if (st == CLGEMM_ERR_NO_DEVICE) cr_skip_test("no OpenCL device");
    cr_assert_eq(st, CLGEMM_SUCCESS, "clgemm_create_multi: %s", clgemm_status_string(st));
    return h;
}

/* open_multi with tiles of tile_m x tile_n. */
static clgemm_multi_handle open_multi_tiled(size_t tile_m, size_t tile_n) {
    clgemm_multi_handle h = open_multi();
    cr_assert_eq(clgemm_multi_set_tile(h, tile_m, tile_n), CLGEMM_SUCCESS);
    return h;
}

/* The multi-device call on d's arrays (from the offsets). */
static clgemm_status multi_call(clgemm_multi_handle h, const tt_data *d, void *c) {
    const tt_gemm *g = &d->g;
    tt_scalar al = tt_make_scalar(g->type_ab, g->alpha), be = tt_make_scalar(g->type_ab, g->beta);
    size_t sab = clgemm_type_size(g->type_ab);
    const char *a = (const char *)d->a + g->off_a * sab, *b = (const char *)d->b + g->off_b * sab;
    char *cc = (char *)c + g->off_c * clgemm_type_size(g->type_c);
    if (g->type_ab == CLGEMM_DOUBLE && g->type_c == CLGEMM_DOUBLE)
        return clgemm_multi_dgemm_host(h, g->layout, g->ta, g->tb, g->m, g->n, g->k, al.d,
                                       (const double *)a, g->lda, (const double *)b, g->ldb, be.d,
                                       (double *)cc, g->ldc);
    return clgemm_multi_gemm_ex_host(h, g->layout, g->ta, g->tb, g->m, g->n, g->k, &al, a, g->lda,
                                     b, g->ldb, &be, cc, g->ldc, g->type_ab, g->type_c, g->compute);
}

/* Runs g on h and checks C against the reference (and that A, B and C's gaps are unchanged). */
static void run_checked(clgemm_multi_handle h, const tt_gemm *g, uint64_t seed) {
    tt_data d;
    cr_assert(tt_data_make(&d, g, seed, 0), "out of memory");
    char desc[400], detail[1024];
    tt_describe(&d.g, desc, sizeof desc);
    size_t sab = clgemm_type_size(g->type_ab), cells = d.g.m * d.g.n;
    void *a0 = malloc(d.na * sab + 1), *b0 = malloc(d.nb * sab + 1);
    double *ref = malloc((cells ? cells : 1) * 2 * sizeof *ref);
    double *bound = malloc((cells ? cells : 1) * sizeof *bound);
    cr_assert(a0 && b0 && ref && bound);
    memcpy(a0, d.a, d.na * sab);
    memcpy(b0, d.b, d.nb * sab);
    clgemm_status st = multi_call(h, &d, d.c);
    cr_assert_eq(st, CLGEMM_SUCCESS, "%s: %s", desc, clgemm_status_string(st));
    cr_assert(memcmp(a0, d.a, d.na * sab) == 0 && memcmp(b0, d.b, d.nb * sab) == 0,
              "%s: A or B changed", desc);
    tt_reference(&d, ref, bound);
    size_t bad = tt_check(&d, d.c, ref, bound, 1.0, detail, sizeof detail);
    cr_assert_eq(bad, 0, "%s: %s", desc, detail);
    free(a0);
    free(b0);
    free(ref);
    free(bound);
    tt_data_free(&d);
}

static unsigned long long tiles_of(clgemm_multi_handle h, int i) {
    clgemm_multi_device_stats s;
    cr_assert_eq(clgemm_multi_stats(h, i, &s), CLGEMM_SUCCESS);
    return s.tiles;
}

static unsigned long long total_tiles(clgemm_multi_handle h) {
    unsigned long long t = 0;
    for (int i = 0; i < clgemm_multi_device_count(h); i++)
        t += tiles_of(h, i);
    return t;
}

/* ---- Creation ------------------------------------------------------------------------------ */

Test(create, sees_the_devices_pocl_was_asked_for) {
    clgemm_multi_handle h = open_multi();
    cr_assert_eq(clgemm_multi_device_count(h), expected_devices());
    for (int i = 0; i < clgemm_multi_device_count(h); i++) {
        cr_assert_not_null(clgemm_multi_handle_at(h, i));
        for (int j = 0; j < i; j++)
            cr_assert_neq(clgemm_device(clgemm_multi_handle_at(h, i)),
                          clgemm_device(clgemm_multi_handle_at(h, j)));
    }
    cr_assert_null(clgemm_multi_handle_at(h, -1));
    cr_assert_null(clgemm_multi_handle_at(h, clgemm_multi_device_count(h)));
    clgemm_multi_destroy(h);
}

Test(create, explicit_list_and_bad_arguments) {
    clgemm_multi_handle h = open_multi();
    cl_device_id devs[2] = {clgemm_device(clgemm_multi_handle_at(h, 1)),
                            clgemm_device(clgemm_multi_handle_at(h, 0))};
    clgemm_multi_handle h2 = (clgemm_multi_handle)1;
    cr_assert_eq(clgemm_create_multi(&h2, devs, 2), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_multi_device_count(h2), 2);
    cr_assert_eq(clgemm_device(clgemm_multi_handle_at(h2, 0)), devs[0]);
    clgemm_multi_destroy(h2);
    cl_device_id twice[2] = {devs[0], devs[0]};
    h2 = (clgemm_multi_handle)1;
    cr_assert_eq(clgemm_create_multi(&h2, twice, 2), CLGEMM_ERR_INVALID_ARGUMENT);
    cr_assert_null(h2);
    cr_assert_eq(clgemm_create_multi(&h2, devs, 0), CLGEMM_ERR_INVALID_ARGUMENT);
    cr_assert_eq(clgemm_create_multi(&h2, devs, -1), CLGEMM_ERR_INVALID_ARGUMENT);
    cr_assert_eq(clgemm_create_multi(&h2, NULL, 2), CLGEMM_ERR_NULL_ARGUMENT);
    cr_assert_eq(clgemm_create_multi(NULL, NULL, 0), CLGEMM_ERR_NULL_ARGUMENT);
    cr_assert_eq(clgemm_multi_device_count(NULL), 0);
    clgemm_multi_destroy(NULL);
    clgemm_multi_device_stats s;
    cr_assert_eq(clgemm_multi_stats(h, 99, &s), CLGEMM_ERR_INVALID_ARGUMENT);
    cr_assert_eq(clgemm_multi_stats(h, 0, NULL), CLGEMM_ERR_NULL_ARGUMENT);
    cr_assert_eq(clgemm_multi_set_tile(h, 8, 0), CLGEMM_ERR_INVALID_ARGUMENT);
    clgemm_multi_destroy(h);
}

Test(create, clgemm_devices_picks_and_refuses) {
    setenv("CLGEMM_DEVICES", ":1", 1);
    clgemm_multi_handle h = NULL;
    cr_assert_eq(clgemm_create_multi(&h, NULL, 0), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_multi_device_count(h), 1);
    clgemm_multi_destroy(h);
    setenv("CLGEMM_DEVICES", "0:0,0:1", 1);
    cr_assert_eq(clgemm_create_multi(&h, NULL, 0), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_multi_device_count(h), 2);
    clgemm_multi_destroy(h);
    setenv("CLGEMM_DEVICES", "portable:pthread", 1);
    cr_assert_eq(clgemm_create_multi(&h, NULL, 0), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_multi_device_count(h), expected_devices());
    clgemm_multi_destroy(h);
    const char *garbage[] = {"no-such-platform:", ":99", "0:0,0:0", "0:0,,", "\xff:\x01"};
    for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++) {
        setenv("CLGEMM_DEVICES", garbage[i], 1);
        h = (clgemm_multi_handle)1;
        cr_assert_eq(clgemm_create_multi(&h, NULL, 0), CLGEMM_ERR_NO_DEVICE, "%s", garbage[i]);
        cr_assert_null(h);
    }
}

/* ---- Every split --------------------------------------------------------------------------- */

/* Each type through both layouts and every transpose pair (conjugate ones for complex), at odd
 * sizes in 8 x 16 tiles (edges on both sides), with beta 0 and not, a larger ldc, and once with
 * the automatic tiles. */
static void splits(clgemm_precision type) {
    clgemm_multi_handle h = open_multi();
    bool cplx = tt_is_complex(type);
    clgemm_transpose t2 = cplx ? CLGEMM_CONJ_TRANS : CLGEMM_TRANS;
    const struct {
        clgemm_layout layout;
        clgemm_transpose ta, tb;
    } cases[] = {{CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS},
                 {CLGEMM_ROW_MAJOR, t2, CLGEMM_TRANS},
                 {CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, t2},
                 {CLGEMM_COL_MAJOR, CLGEMM_TRANS, CLGEMM_NO_TRANS}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_assert_eq(clgemm_multi_set_tile(h, 8, 16), CLGEMM_SUCCESS);
        unsigned long long before = total_tiles(h);
        tt_gemm g = {TT_PROBLEM(type, type, cases[i].layout, cases[i].ta, cases[i].tb, 37, 45, 19),
                     .alpha = {0.75, cplx ? -0.5 : 0},
                     .beta = {i % 2 ? 0.0 : -1.25, cplx && i % 2 == 0 ? 0.5 : 0},
                     .ldc = i == 2 ? 64 : 0, .tail = 3};
        run_checked(h, &g, 100 + i);
        /* 5 x 3 tiles of 8 x 16 over 37 x 45. */
        cr_assert_eq(total_tiles(h) - before, 15);
    }
    cr_assert_eq(clgemm_multi_set_tile(h, 0, 0), CLGEMM_SUCCESS);
    tt_gemm g = {
        TT_PROBLEM(type, type, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 301, 263, 7),
        .alpha = {1.5, 0}, .beta = {0.5, 0}};
    run_checked(h, &g, 7);
    clgemm_multi_destroy(h);
}

/* One test per type, each its own process and timeout. */
#define SPLIT_TEST(name, type)                                                                     \
    Test(split, name, .timeout = 300) {                                                            \
        splits(type);                                                                              \
    }
SPLIT_TEST(fp32, CLGEMM_SINGLE)
SPLIT_TEST(fp64, CLGEMM_DOUBLE)
SPLIT_TEST(complex_single, CLGEMM_COMPLEX_SINGLE)
SPLIT_TEST(complex_double, CLGEMM_COMPLEX_DOUBLE)
SPLIT_TEST(fp16, CLGEMM_HALF)

Test(split, fp16_with_fp32_c_and_degenerate_sizes, .timeout = 300) {
    clgemm_multi_handle h = open_multi_tiled(16, 8);
    tt_gemm g = {TT_PROBLEM(CLGEMM_HALF, CLGEMM_SINGLE, CLGEMM_ROW_MAJOR, CLGEMM_TRANS,
                            CLGEMM_NO_TRANS, 33, 17, 9),
                 .alpha = {1, 0}, .beta = {2, 0}};
    run_checked(h, &g, 1);
    g.type_c = CLGEMM_SINGLE;
    g.type_ab = CLGEMM_SINGLE;
    g.k = 0; /* C = beta C, tile by tile */
    run_checked(h, &g, 2);
    unsigned long long before = total_tiles(h);
    g.m = 0;
    run_checked(h, &g, 3);
    g.m = 5;
    g.n = 0;
    run_checked(h, &g, 4);
    cr_assert_eq(total_tiles(h), before, "m or n 0 computed tiles");
    clgemm_multi_destroy(h);
}

/* The 8-bit types: INT8 into INT32 (exact) and E4M3 into FP32, split in 8 x 8 tiles. */
Test(split, int8_and_fp8, .timeout = 300) {
    clgemm_multi_handle h = open_multi_tiled(8, 8);
    tt_gemm g = {TT_PROBLEM(CLGEMM_INT8, CLGEMM_INT32, CLGEMM_COL_MAJOR, CLGEMM_TRANS,
                            CLGEMM_NO_TRANS, 29, 19, 23),
                 .alpha = {3, 0}, .beta = {-2, 0}};
    run_checked(h, &g, 41);
    g.type_ab = CLGEMM_E4M3;
    g.type_c = CLGEMM_SINGLE;
    g.layout = CLGEMM_ROW_MAJOR;
    g.alpha[0] = 0.5;
    g.beta[0] = 1.5;
    run_checked(h, &g, 42);
    clgemm_multi_destroy(h);
}

/* ---- Uneven devices ------------------------------------------------------------------------ */

Test(uneven, slow_device_takes_fewer_tiles, .timeout = 300) {
    setenv("CLGEMM_MULTI_TEST_DELAY_MS", "0:200", 1);
    clgemm_multi_handle h = open_multi();
    int n = clgemm_multi_device_count(h);
    cr_assert_eq(clgemm_multi_set_tile(h, 16, 16), CLGEMM_SUCCESS);
    tt_gemm g = {TT_PROBLEM(CLGEMM_DOUBLE, CLGEMM_DOUBLE, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS,
                            CLGEMM_TRANS, 96, 80, 13),
                 .alpha = {1, 0}, .beta = {-0.5, 0}};
    run_checked(h, &g, 11); /* 6 x 5 = 30 tiles */
    unsigned long long slow = tiles_of(h, 0), fast = 0;
    for (int i = 1; i < n; i++)
        fast += tiles_of(h, i);
    cr_assert_eq(slow + fast, 30);
    /* Which fast device takes most is a race between them; together they outpace the slow one. */
    cr_assert_lt(slow * (unsigned long long)(n - 1), fast, "the slow device took %llu of 30", slow);
    clgemm_multi_destroy(h);
}

/* ---- Failing devices ----------------------------------------------------------------------- */

/* Sets the test hook `var` to the device list `head` followed by ",i:value" for every device i
 * from `from` on. */
static void set_device_list(const char *var, const char *head, int from, int value) {
    char list[256];
    snprintf(list, sizeof list, "%s", head);
    for (int i = from; i < expected_devices(); i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), ",%d:%d", i, value);
    setenv(var, list, 1);
}

Test(fail, a_failing_device_has_its_tile_retried_on_the_others, .timeout = 300) {
    /* The other devices slow, so device 1 surely reaches its third tile of the 48. */
    setenv("CLGEMM_MULTI_TEST_FAIL", "1:2", 1);
    set_device_list("CLGEMM_MULTI_TEST_DELAY_MS", "0:150", 2, 150);
    clgemm_multi_handle h = open_multi_tiled(8, 8);
    tt_gemm g = {TT_PROBLEM(CLGEMM_SINGLE, CLGEMM_SINGLE, CLGEMM_COL_MAJOR, CLGEMM_TRANS,
                            CLGEMM_TRANS, 48, 57, 21),
                 .alpha = {2, 0}, .beta = {1, 0}};
    run_checked(h, &g, 21);
    clgemm_multi_device_stats s;
    cr_assert_eq(clgemm_multi_stats(h, 1, &s), CLGEMM_SUCCESS);
    cr_assert_eq(s.tiles, 2);
    /* Each of its two workers may have failed one tile (the second before it saw the first). */
    cr_assert(s.failed_tiles >= 1 && s.failed_tiles <= 2, "%llu failed tiles", s.failed_tiles);
    cr_assert_eq(s.last_error, CL_OUT_OF_RESOURCES);
    cr_assert_eq(total_tiles(h), 6 * 8);
    clgemm_multi_destroy(h);
}

Test(fail, every_device_failing_returns_the_error_and_leaves_whole_tiles, .timeout = 300) {
    /* Device 0 finishes two tiles of each call, the others none. */
    set_device_list("CLGEMM_MULTI_TEST_FAIL", "0:2", 1, 0);
    clgemm_multi_handle h = open_multi_tiled(8, 8);
    tt_gemm g = {TT_PROBLEM(CLGEMM_DOUBLE, CLGEMM_DOUBLE, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS,
                            CLGEMM_NO_TRANS, 24, 20, 10),
                 .alpha = {1, 0}, .beta = {3, 0}, .ldc = 23};
    tt_data d;
    cr_assert(tt_data_make(&d, &g, 5, 0));
    cr_assert_eq(multi_call(h, &d, d.c), CL_OUT_OF_RESOURCES);
    double *ref = malloc(2 * g.m * g.n * sizeof *ref), *bound = malloc(g.m * g.n * sizeof *bound);
    cr_assert(ref && bound);
    tt_reference(&d, ref, bound);
    /* Each 8 x 8 tile: every element its result, or every element bit for bit as before. */
    size_t finished = 0;
    for (size_t ti = 0; ti < g.m; ti += 8)
        for (size_t tj = 0; tj < g.n; tj += 8) {
            size_t right = 0, old = 0, cells = 0;
            for (size_t i = ti; i < ti + 8 && i < g.m; i++)
                for (size_t j = tj; j < tj + 8 && j < g.n; j++, cells++) {
                    size_t at = d.g.off_c + i * d.g.ldc + j;
                    double x = tt_get(CLGEMM_DOUBLE, d.c, at, 0);
                    if (memcmp((double *)d.c + at, (double *)d.c0 + at, sizeof(double)) == 0) old++;
                    if (x - ref[2 * (i + j * g.m)] <= bound[i + j * g.m] &&
                        ref[2 * (i + j * g.m)] - x <= bound[i + j * g.m])
                        right++;
                }
            cr_assert(right == cells || old == cells, "tile (%zu, %zu) is partly written", ti, tj);
            if (right == cells) finished++;
        }
    cr_assert_eq(finished, 2);
    cr_assert_eq(tiles_of(h, 0), 2);
    /* Outside the matrix (ldc's gaps, the tail) nothing changed. */
    for (size_t x = 0; x < d.nc; x++) {
        size_t rel = x - d.g.off_c;
        if (x >= d.g.off_c && rel / d.g.ldc < g.m && rel % d.g.ldc < g.n) continue;
        cr_assert(memcmp((double *)d.c + x, (double *)d.c0 + x, sizeof(double)) == 0,
                  "element %zu outside C changed", x);
    }
    free(ref);
    free(bound);
    tt_data_free(&d);
    clgemm_multi_destroy(h);
}

/* ---- Bad arguments ------------------------------------------------------------------------- */

Test(args, refused_before_anything_is_written) {
    clgemm_multi_handle h = open_multi();
    float a[64], b[64], c[64], c0[64], one = 1;
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = c[i] = c0[i] = (float)(i % 7) - 3;
    clgemm_handle one_dev = clgemm_multi_handle_at(h, 0);
    /* Each refused with the status the single-device host call gives. */
#define CALL(hh, fn, layout, ta, m, lda, cp, type)                                                 \
    fn(hh, layout, ta, CLGEMM_NO_TRANS, m, 4, 4, &one, a, lda, b, 4, &one, cp, 4, type, type, 0)
#define SAME(want, ...)                                                                            \
    do {                                                                                           \
        int multi = CALL(h, clgemm_multi_gemm_ex_host, __VA_ARGS__);                               \
        cr_assert_eq(multi, CALL(one_dev, clgemm_gemm_ex_host, __VA_ARGS__));                      \
        cr_assert_eq(multi, want, "%s", clgemm_status_string(multi));                              \
    } while (0)
    SAME(CLGEMM_ERR_INVALID_LAYOUT, 99, CLGEMM_NO_TRANS, 4, 4, c, CLGEMM_SINGLE);
    SAME(CLGEMM_ERR_INVALID_TRANSPOSE, CLGEMM_ROW_MAJOR, 7, 4, 4, c, CLGEMM_SINGLE);
    SAME(CLGEMM_ERR_INVALID_LD_A, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, 4, 3, c, CLGEMM_SINGLE);
    SAME(CLGEMM_ERR_NULL_ARGUMENT, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, 4, 4, NULL, CLGEMM_SINGLE);
    SAME(CLGEMM_ERR_INVALID_TYPE, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, 4, 4, c, 42);
    int huge = CALL(h, clgemm_multi_gemm_ex_host, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, SIZE_MAX / 2,
                    4, c, CLGEMM_SINGLE);
    cr_assert_neq(huge, CLGEMM_SUCCESS);
    SAME(huge, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, SIZE_MAX / 2, 4, c, CLGEMM_SINGLE);
    cr_assert_eq(clgemm_multi_gemm_ex_host(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4,
                                           4, 4, NULL, a, 4, b, 4, &one, c, 4, CLGEMM_SINGLE,
                                           CLGEMM_SINGLE, 0),
                 CLGEMM_ERR_NULL_ARGUMENT);
    cr_assert_eq(clgemm_multi_sgemm_host(NULL, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS,
                                         4, 4, 4, 1, a, 4, b, 4, 1, c, 4),
                 CLGEMM_ERR_NULL_ARGUMENT);
#undef SAME
#undef CALL
    cr_assert(memcmp(c, c0, sizeof c) == 0, "C written by a refused call");
    cr_assert_eq(total_tiles(h), 0);
    clgemm_multi_destroy(h);
}

/* ---- Threads ------------------------------------------------------------------------------- */

typedef struct {
    clgemm_multi_handle h;
    int id;
    int failed;
    char msg[1024];
} thread_arg;

static void *thread_body(void *p) {
    thread_arg *t = p;
    tt_gemm g = {TT_PROBLEM(t->id % 2 ? CLGEMM_DOUBLE : CLGEMM_SINGLE,
                            t->id % 2 ? CLGEMM_DOUBLE : CLGEMM_SINGLE,
                            t->id % 3 ? CLGEMM_COL_MAJOR : CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS,
                            t->id % 2 ? CLGEMM_TRANS : CLGEMM_NO_TRANS, 41 + (size_t)t->id,
                            27 + 2 * (size_t)t->id, 15),
                 .alpha = {1, 0}, .beta = {0.5, 0}};
    for (int rep = 0; rep < 3 && !t->failed; rep++) {
        tt_data d;
        if (!tt_data_make(&d, &g, 1000 + (uint64_t)t->id * 10 + (uint64_t)rep, 0)) {
            t->failed = 1;
            snprintf(t->msg, sizeof t->msg, "out of memory");
            break;
        }
        double *ref = malloc(2 * g.m * g.n * sizeof *ref),
               *bound = malloc(g.m * g.n * sizeof *bound);
        clgemm_status st = ref && bound ? multi_call(t->h, &d, d.c) : CLGEMM_ERR_OUT_OF_HOST_MEMORY;
        if (st != CLGEMM_SUCCESS) {
            t->failed = 1;
            snprintf(t->msg, sizeof t->msg, "status %d", st);
        } else {
            tt_reference(&d, ref, bound);
            if (tt_check(&d, d.c, ref, bound, 1.0, t->msg, sizeof t->msg)) t->failed = 1;
        }
        free(ref);
        free(bound);
        tt_data_free(&d);
    }
    return NULL;
}

Test(threads, several_threads_on_one_handle, .timeout = 300) {
    clgemm_multi_handle h = open_multi_tiled(16, 8);
    enum { THREADS = 4 };
    thread_arg args[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (thread_arg){.h = h, .id = i};
        cr_assert_eq(pthread_create(&th[i], NULL, thread_body, &args[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq(args[i].failed, 0, "thread %d: %s", i, args[i].msg);
    clgemm_multi_destroy(h);
}

/* ---- fork ---------------------------------------------------------------------------------- */

/* A child forked after the handle was used gets CLGEMM_ERR_FORKED, C untouched, and can destroy
 * the handle (its memory only) without hanging on the parent's OpenCL state. */
Test(fork, child_is_refused_and_c_untouched, .timeout = 120) {
    clgemm_multi_handle h = open_multi();
    float a[16], b[16], c[16], one = 1;
    for (int i = 0; i < 16; i++)
        a[i] = b[i] = c[i] = (float)i;
    cr_assert_eq(clgemm_multi_sgemm_host(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4,
                                         4, 4, one, a, 4, b, 4, one, c, 4),
                 CLGEMM_SUCCESS);
    float before[16];
    memcpy(before, c, sizeof c);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int st = clgemm_multi_sgemm_host(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4,
                                         4, 4, one, a, 4, b, 4, one, c, 4);
        clgemm_multi_handle h2 = NULL;
        int st2 = clgemm_create_multi(&h2, NULL, 0);
        int same = memcmp(before, c, sizeof c) == 0;
        clgemm_multi_destroy(h);
        _exit(st == CLGEMM_ERR_FORKED && st2 == CLGEMM_ERR_FORKED && !h2 && same ? 0 : 1);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    clgemm_multi_destroy(h);
}

/* ---- Strided batches ----------------------------------------------------------------------- */

/* op(X)(i, j) of matrix q, component comp (conjugated for CLGEMM_CONJ_TRANS). */
static double op_at(clgemm_precision t, const void *x, clgemm_layout layout, clgemm_transpose tr,
                    size_t q, size_t stride, size_t i, size_t j, size_t ld, int comp) {
    clgemm_transpose stored = tr == CLGEMM_CONJ_TRANS ? CLGEMM_TRANS : tr; /* tc_*: N or T */
    double v = tt_get(t, x, q * stride + tc_index(layout, stored, i, j, ld), comp);
    return tr == CLGEMM_CONJ_TRANS && comp == 1 ? -v : v;
}

/* A strided batch of batch matrices (C interleaved when interleave is set: ldc = batch * rows
 * of the inner side, stride_c = one such block) against a long-double reference; every element
 * of C outside the matrices stays bit for bit as it was. */
static void batch_case(clgemm_precision t, clgemm_layout layout, clgemm_transpose ta,
                       clgemm_transpose tb, size_t batch, bool interleave, uint64_t seed) {
    clgemm_multi_handle h = open_multi();
    size_t m = 13, n = 9, k = 11, sz = clgemm_type_size(t);
    bool cplx = tt_is_complex(t);
    clgemm_transpose sta = ta == CLGEMM_CONJ_TRANS ? CLGEMM_TRANS : ta; /* stored as */
    clgemm_transpose stb = tb == CLGEMM_CONJ_TRANS ? CLGEMM_TRANS : tb;
    size_t lda = tc_min_ld(layout, sta, m, k) + 1, ldb = tc_min_ld(layout, stb, k, n) + 2;
    size_t inner = layout == CLGEMM_ROW_MAJOR ? n : m, outer = layout == CLGEMM_ROW_MAJOR ? m : n;
    size_t ldc = interleave ? batch * inner : inner + 3;
    size_t ext_a = tc_extent(layout, sta, m, k, lda), ext_b = tc_extent(layout, stb, k, n, ldb);
    size_t sa = ext_a + 5, sb = ext_b, sc = interleave ? inner : ldc * outer + 7;
    size_t na = sa * batch, nb = sb * batch, nc = (batch - 1) * sc + ldc * outer;
    char *a = malloc(na * sz), *b = malloc(nb * sz), *c = malloc(nc * sz), *c0 = malloc(nc * sz);
    cr_assert(a && b && c && c0);
    uint64_t s = seed;
    for (size_t i = 0; i < na; i++)
        for (int comp = 0; comp < tt_ncomp(t); comp++)
            tt_set(t, a, i, comp, tc_random(&s));
    for (size_t i = 0; i < nb; i++)
        for (int comp = 0; comp < tt_ncomp(t); comp++)
            tt_set(t, b, i, comp, tc_random(&s));
    for (size_t i = 0; i < nc; i++)
        tt_set_sentinel(t, c, i);
    for (size_t q = 0; q < batch; q++)
        for (size_t o = 0; o < outer; o++)
            for (size_t x = 0; x < inner; x++)
                for (int comp = 0; comp < tt_ncomp(t); comp++)
                    tt_set(t, c, q * sc + o * ldc + x, comp, tc_random(&s));
    memcpy(c0, c, nc * sz);
    double al[2] = {0.5, cplx ? 0.25 : 0}, be[2] = {-1.5, cplx ? 0.5 : 0};
    tt_scalar alpha = tt_make_scalar(t, al), beta = tt_make_scalar(t, be);
    cr_assert_eq(clgemm_multi_set_tile(h, 0, 0), CLGEMM_SUCCESS);
    clgemm_status st = clgemm_multi_gemm_strided_batched_host(
        h, layout, ta, tb, m, n, k, &alpha, a, lda, sa, b, ldb, sb, &beta, c, ldc, sc, batch, t, t,
        CLGEMM_COMPUTE_DEFAULT);
    cr_assert_eq(st, CLGEMM_SUCCESS, "%s", clgemm_status_string(st));
    double eps = t == CLGEMM_DOUBLE || t == CLGEMM_COMPLEX_DOUBLE ? 1.2e-16 : 6e-8;
    for (size_t q = 0; q < batch; q++)
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                long double re = 0, im = 0, mag = 0;
                for (size_t p = 0; p < k; p++) {
                    double xr = op_at(t, a, layout, ta, q, sa, i, p, lda, 0);
                    double xi = cplx ? op_at(t, a, layout, ta, q, sa, i, p, lda, 1) : 0;
                    double yr = op_at(t, b, layout, tb, q, sb, p, j, ldb, 0);
                    double yi = cplx ? op_at(t, b, layout, tb, q, sb, p, j, ldb, 1) : 0;
                    re += (long double)xr * yr - (long double)xi * yi;
                    im += (long double)xr * yi + (long double)xi * yr;
                    mag += fabsl((long double)xr * yr) + fabsl((long double)xi * yi) +
                           fabsl((long double)xr * yi) + fabsl((long double)xi * yr);
                }
                size_t at = q * sc + (layout == CLGEMM_ROW_MAJOR ? i * ldc + j : j * ldc + i);
                double cr0 = tt_get(t, c0, at, 0), ci0 = cplx ? tt_get(t, c0, at, 1) : 0;
                long double wr = al[0] * re - al[1] * im + be[0] * cr0 - be[1] * ci0;
                long double wi = al[0] * im + al[1] * re + be[0] * ci0 + be[1] * cr0;
                double bound = 4.0 * (k + 2) * eps * (mag + fabs(cr0) + fabs(ci0) + 1);
                cr_assert(fabsl(tt_get(t, c, at, 0) - wr) <= bound, "matrix %zu C(%zu,%zu)", q, i,
                          j);
                if (cplx)
                    cr_assert(fabsl(tt_get(t, c, at, 1) - wi) <= bound, "matrix %zu C(%zu,%zu) im",
                              q, i, j);
            }
    /* Outside the matrices: untouched. */
    char *mark = calloc(nc, 1);
    cr_assert(mark);
    for (size_t q = 0; q < batch; q++)
        for (size_t o = 0; o < outer; o++)
            memset(mark + q * sc + o * ldc, 1, inner);
    for (size_t i = 0; i < nc; i++)
        if (!mark[i])
            cr_assert(memcmp(c + i * sz, c0 + i * sz, sz) == 0, "element %zu outside C written", i);
    unsigned long long total = total_tiles(h);
    cr_assert_geq(total, 2, "the batch ran as %llu chunk(s)", total);
    free(mark);
    free(a), free(b), free(c), free(c0);
    clgemm_multi_destroy(h);
}

Test(batched, fp32_chunks_across_devices, .timeout = 300) {
    batch_case(CLGEMM_SINGLE, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_TRANS, 21, false, 1);
}
Test(batched, fp64_interleaved_matrices_in_chunks, .timeout = 300) {
    batch_case(CLGEMM_DOUBLE, CLGEMM_ROW_MAJOR, CLGEMM_TRANS, CLGEMM_NO_TRANS, 10, true, 2);
}
Test(batched, complex_double_conjugate, .timeout = 300) {
    batch_case(CLGEMM_COMPLEX_DOUBLE, CLGEMM_COL_MAJOR, CLGEMM_CONJ_TRANS, CLGEMM_NO_TRANS, 9, true,
               3);
}

Test(batched, overlapping_c_refused_before_anything_runs) {
    clgemm_multi_handle h = open_multi();
    float a[64], b[64], c[64], c0[64], one = 1;
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = c[i] = c0[i] = (float)(i % 5);
    /* 4 x 4 matrices 2 apart: they share elements. */
    cr_assert_eq(clgemm_multi_gemm_strided_batched_host(
                     h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4, 4, 2, &one, a, 4, 8,
                     b, 2, 8, &one, c, 4, 2, 3, CLGEMM_SINGLE, CLGEMM_SINGLE, 0),
                 CLGEMM_ERR_BATCH_OVERLAP);
    cr_assert_eq(clgemm_multi_gemm_strided_batched_host(
                     h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4, 4, 2, &one, a, 4, 8,
                     b, 2, 8, &one, c, 4, SIZE_MAX / 2, 3, CLGEMM_SINGLE, CLGEMM_SINGLE, 0),
                 CLGEMM_ERR_OVERFLOW);
    cr_assert(memcmp(c, c0, sizeof c) == 0);
    cr_assert_eq(total_tiles(h), 0);
    clgemm_multi_destroy(h);
}
