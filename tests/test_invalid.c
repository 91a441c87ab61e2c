/* test_invalid.c: every invalid input gives its documented status and leaves the buffers bit for
 * bit as they were (read back after clFinish): NULL handle and buffers, bad layout or transpose
 * values, leading dimensions too small for each layout and transpose, offsets and extents past
 * the end of a buffer, sizes that overflow size_t or the kernels' int indexing, a queue or a
 * buffer from another context, a wait list that disagrees with its length, and configurations
 * that break a rule or a device limit. Where a limit has a boundary, the legal side of it is
 * checked too. (A device without fp64 cannot be tested on PoCL, which has it.) */
#include "configs.h"
#include "typed.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M 5
#define N 6
#define K 7
/* Elements in each fixture buffer: room for any 5 x 6 x 7 problem below. */
#define BUF_ELEMS 4096

static tc_env env;
static clgemm_handle h;
static cl_mem buf_a, buf_b, buf_c;
static float pattern_a[BUF_ELEMS], pattern_b[BUF_ELEMS], pattern_c[BUF_ELEMS];

static void setup(void) {
    TC_OPEN_OR_SKIP(&env);
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
    /* Small programs, shared with test_gemm through the caches. */
    clgemm_config cfg = {.family = CLGEMM_FAMILY_TILED, .ts = 4};
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, &cfg), CLGEMM_SUCCESS);
    if (env.has_fp64) cr_assert_eq(clgemm_set_config(h, CLGEMM_DOUBLE, &cfg), CLGEMM_SUCCESS);
    uint64_t state = 7;
    for (size_t i = 0; i < BUF_ELEMS; i++) {
        pattern_a[i] = (float)tc_random(&state);
        pattern_b[i] = (float)tc_random(&state);
        pattern_c[i] = (float)tc_random(&state);
    }
    buf_a = tc_buffer(env.context, sizeof pattern_a, pattern_a);
    buf_b = tc_buffer(env.context, sizeof pattern_b, pattern_b);
    buf_c = tc_buffer(env.context, sizeof pattern_c, pattern_c);
    cr_assert(buf_a && buf_b && buf_c);
}

static void teardown(void) {
    if (buf_a) clReleaseMemObject(buf_a);
    if (buf_b) clReleaseMemObject(buf_b);
    if (buf_c) clReleaseMemObject(buf_c);
    clgemm_destroy(h);
    tc_close(&env);
}

/* Puts the patterns back after a call that was meant to succeed. */
static void refresh(void) {
    clFinish(env.queue);
    cr_assert_eq(tc_write(env.queue, buf_a, sizeof pattern_a, pattern_a), CL_SUCCESS);
    cr_assert_eq(tc_write(env.queue, buf_b, sizeof pattern_b, pattern_b), CL_SUCCESS);
    cr_assert_eq(tc_write(env.queue, buf_c, sizeof pattern_c, pattern_c), CL_SUCCESS);
}

static void expect_buffer(cl_mem mem, const float *pattern, const char *name, const char *what) {
    static float now[BUF_ELEMS];
    cr_assert_eq(tc_read(env.queue, mem, sizeof now, now), CL_SUCCESS);
    cr_expect(memcmp(now, pattern, sizeof now) == 0, "%s: buffer %s changed", what, name);
}

/* The status is `want`, and after everything enqueued has run, A, B and C are as they were. */
static void expect_rejected(clgemm_status got, clgemm_status want, const char *what) {
    cr_expect_eq(got, want, "%s: got %d (%s), want %d (%s)", what, got, clgemm_status_string(got),
                 want, clgemm_status_string(want));
    clFinish(env.queue);
    expect_buffer(buf_c, pattern_c, "C", what);
    expect_buffer(buf_a, pattern_a, "A", what);
    expect_buffer(buf_b, pattern_b, "B", what);
    if (got == CLGEMM_SUCCESS) refresh();
}

static void expect_accepted(clgemm_status got, const char *what) {
    cr_expect_eq(got, CLGEMM_SUCCESS, "%s: got %d (%s), want success", what, got,
                 clgemm_status_string(got));
    clFinish(env.queue);
    refresh();
}

/* A legal 5 x 6 x 7 problem on the fixture's buffers. */
typedef struct call {
    clgemm_handle h;
    tt_gemm g;
    cl_mem a, b, c;
    cl_command_queue queue;
    cl_uint num_wait;
    const cl_event *wait;
} call;

static call legal(clgemm_precision prec) {
    call c = {.h = h,
              .g = {.type_ab = prec,
                    .type_c = prec,
                    .layout = CLGEMM_COL_MAJOR,
                    .ta = CLGEMM_NO_TRANS,
                    .tb = CLGEMM_NO_TRANS,
                    .m = M,
                    .n = N,
                    .k = K,
                    .alpha = {1.0},
                    .beta = {0.5},
                    .lda = M,
                    .ldb = K,
                    .ldc = M},
              .a = buf_a,
              .b = buf_b,
              .c = buf_c};
    return c;
}

static clgemm_status run(const call *c) {
    return tt_clgemm_enqueue(c->h, &c->g, c->a, c->b, c->c, 0, c->queue, c->num_wait, c->wait,
                             NULL);
}

TestSuite(invalid, .init = setup, .fini = teardown, .timeout = 600);

Test(invalid, legal_call_succeeds) {
    /* The baseline every case below breaks in one place. */
    call c = legal(CLGEMM_SINGLE);
    expect_accepted(run(&c), "the legal call");
    if (env.has_fp64) {
        /* The same buffers hold 4096 floats = 2048 doubles: plenty. */
        c = legal(CLGEMM_DOUBLE);
        expect_accepted(run(&c), "the legal dgemm call");
    }
}

Test(invalid, null_handle_and_buffers) {
    for (int p = 0; p < (env.has_fp64 ? 2 : 1); p++) {
        call c = legal(p ? CLGEMM_DOUBLE : CLGEMM_SINGLE);
        c.h = NULL;
        expect_rejected(run(&c), CLGEMM_ERR_NULL_ARGUMENT, "NULL handle");
        c = legal(p ? CLGEMM_DOUBLE : CLGEMM_SINGLE);
        c.a = NULL;
        expect_rejected(run(&c), CLGEMM_ERR_NULL_ARGUMENT, "NULL A");
        c = legal(p ? CLGEMM_DOUBLE : CLGEMM_SINGLE);
        c.b = NULL;
        expect_rejected(run(&c), CLGEMM_ERR_NULL_ARGUMENT, "NULL B");
        c = legal(p ? CLGEMM_DOUBLE : CLGEMM_SINGLE);
        c.c = NULL;
        expect_rejected(run(&c), CLGEMM_ERR_NULL_ARGUMENT, "NULL C");
    }
}

Test(invalid, null_arguments_elsewhere) {
    clgemm_handle other = (clgemm_handle)0x1;
    cr_expect_eq(clgemm_create(NULL, env.queue), CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_eq(clgemm_create(&other, NULL), CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_eq(clgemm_create_default(NULL), CLGEMM_ERR_NULL_ARGUMENT);
    clgemm_config cfg = {.family = CLGEMM_FAMILY_TILED, .ts = 4};
    cr_expect_eq(clgemm_set_config(NULL, CLGEMM_SINGLE, &cfg), CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_eq(clgemm_check_config(NULL, CLGEMM_SINGLE, &cfg), CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_eq(clgemm_check_config(h, CLGEMM_SINGLE, NULL), CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_eq(clgemm_get_config(NULL, CLGEMM_SINGLE, 1, 1, 1, &cfg, NULL),
                 CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_eq(clgemm_get_config(h, CLGEMM_SINGLE, 1, 1, 1, NULL, NULL),
                 CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_eq(clgemm_load_tuning(NULL, NULL), CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_null(clgemm_queue(NULL));
    cr_expect_null(clgemm_context(NULL));
    cr_expect_null(clgemm_device(NULL));
    cr_expect_eq(clgemm_build_log(NULL, NULL, 0), 0);
    clgemm_destroy(NULL); /* accepted and ignored */
}

Test(invalid, layout_and_transpose_values) {
    static const int bad_layouts[] = {0, 100, 103, -1, 111};
    for (size_t i = 0; i < sizeof bad_layouts / sizeof bad_layouts[0]; i++) {
        call c = legal(CLGEMM_SINGLE);
        c.g.layout = (clgemm_layout)bad_layouts[i];
        char what[64];
        snprintf(what, sizeof what, "layout %d", bad_layouts[i]);
        expect_rejected(run(&c), CLGEMM_ERR_INVALID_LAYOUT, what);
    }
    /* 113 (CBLAS conjugate transpose) is valid: see the complex tests. */
    static const int bad_trans[] = {0, 110, 114, 101, -111};
    for (size_t i = 0; i < sizeof bad_trans / sizeof bad_trans[0]; i++) {
        char what[64];
        call c = legal(CLGEMM_SINGLE);
        c.g.ta = (clgemm_transpose)bad_trans[i];
        snprintf(what, sizeof what, "trans_a %d", bad_trans[i]);
        expect_rejected(run(&c), CLGEMM_ERR_INVALID_TRANSPOSE, what);
        c = legal(CLGEMM_SINGLE);
        c.g.tb = (clgemm_transpose)bad_trans[i];
        snprintf(what, sizeof what, "trans_b %d", bad_trans[i]);
        expect_rejected(run(&c), CLGEMM_ERR_INVALID_TRANSPOSE, what);
    }
}

static const char *combo(const tt_gemm *g) {
    static char buf[64];
    snprintf(buf, sizeof buf, "%s %c%c", g->layout == CLGEMM_ROW_MAJOR ? "row-major" : "col-major",
             g->ta == CLGEMM_TRANS ? 'T' : 'N', g->tb == CLGEMM_TRANS ? 'T' : 'N');
    return buf;
}

Test(invalid, leading_dimensions) {
    /* m, n, k all differ, so a check against the wrong dimension shows: each ld one below its
     * minimum is refused with its own status, and exactly the minimum is accepted. */
    static const clgemm_layout layouts[] = {CLGEMM_COL_MAJOR, CLGEMM_ROW_MAJOR};
    static const clgemm_transpose trans[] = {CLGEMM_NO_TRANS, CLGEMM_TRANS};
    for (int l = 0; l < 2; l++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                call c = legal(CLGEMM_SINGLE);
                c.g.layout = layouts[l];
                c.g.ta = trans[ta];
                c.g.tb = trans[tb];
                size_t lda = tc_min_ld(c.g.layout, c.g.ta, M, K);
                size_t ldb = tc_min_ld(c.g.layout, c.g.tb, K, N);
                size_t ldc = tc_min_ld(c.g.layout, CLGEMM_NO_TRANS, M, N);
                char what[128];
                c.g.lda = lda;
                c.g.ldb = ldb;
                c.g.ldc = ldc;
                snprintf(what, sizeof what, "%s, every ld at its minimum", combo(&c.g));
                expect_accepted(run(&c), what);
                c.g.lda = lda - 1;
                snprintf(what, sizeof what, "%s, lda %zu (minimum %zu)", combo(&c.g), lda - 1, lda);
                expect_rejected(run(&c), CLGEMM_ERR_INVALID_LD_A, what);
                c.g.lda = lda;
                c.g.ldb = ldb - 1;
                snprintf(what, sizeof what, "%s, ldb %zu (minimum %zu)", combo(&c.g), ldb - 1, ldb);
                expect_rejected(run(&c), CLGEMM_ERR_INVALID_LD_B, what);
                c.g.ldb = ldb;
                c.g.ldc = ldc - 1;
                snprintf(what, sizeof what, "%s, ldc %zu (minimum %zu)", combo(&c.g), ldc - 1, ldc);
                expect_rejected(run(&c), CLGEMM_ERR_INVALID_LD_C, what);
                c.g.ldc = 0;
                expect_rejected(run(&c), CLGEMM_ERR_INVALID_LD_C, "ldc 0");
            }
    /* BLAS: ld >= max(1, ...), even when there is nothing to compute. */
    call c = legal(CLGEMM_SINGLE);
    c.g.m = 0;
    c.g.lda = 0;
    c.g.ldc = 1;
    expect_rejected(run(&c), CLGEMM_ERR_INVALID_LD_A, "m == 0, lda 0");
    c = legal(CLGEMM_SINGLE);
    c.g.k = 0;
    c.g.ldb = 0;
    expect_rejected(run(&c), CLGEMM_ERR_INVALID_LD_B, "k == 0, ldb 0");
    c = legal(CLGEMM_SINGLE);
    c.g.m = 0;
    c.g.lda = 1;
    c.g.ldc = 1;
    expect_accepted(run(&c), "m == 0, lda 1, ldc 1");
}

/* A buffer of exactly `elems` elements of the precision, filled from the start of pattern. */
static cl_mem exact_buffer(clgemm_precision prec, size_t elems, const float *pattern) {
    cl_mem mem = tc_buffer(env.context, elems * clgemm_type_size(prec), pattern);
    cr_assert(mem);
    return mem;
}

/* Checks that `mem` still starts with `pattern`. */
static void expect_prefix(cl_mem mem, size_t bytes, const float *pattern, const char *what) {
    static float now[BUF_ELEMS];
    cr_assert_eq(tc_read(env.queue, mem, bytes, now), CL_SUCCESS);
    cr_expect(memcmp(now, pattern, bytes) == 0, "%s: buffer changed", what);
}

Test(invalid, buffer_bounds) {
    /* Each of A, B and C in a buffer of exactly its extent: accepted from offset 0, refused from
     * offset 1 (one element past the end), and refused from offset 0 in double precision when
     * the buffer only holds floats. Row-major with padded leading dimensions: the extent ends at
     * the last element, not at the end of the last padded row. */
    for (int p = 0; p < (env.has_fp64 ? 2 : 1); p++) {
        clgemm_precision prec = p ? CLGEMM_DOUBLE : CLGEMM_SINGLE;
        call base = legal(prec);
        base.g.layout = CLGEMM_ROW_MAJOR;
        base.g.ta = CLGEMM_TRANS;
        base.g.lda = M + 3;
        base.g.ldb = N + 2;
        base.g.ldc = N + 1;
        size_t ext[3] = {tc_extent(base.g.layout, base.g.ta, M, K, base.g.lda),
                         tc_extent(base.g.layout, base.g.tb, K, N, base.g.ldb),
                         tc_extent(base.g.layout, CLGEMM_NO_TRANS, M, N, base.g.ldc)};
        static const clgemm_status too_small[3] = {CLGEMM_ERR_BUFFER_A_TOO_SMALL,
                                                   CLGEMM_ERR_BUFFER_B_TOO_SMALL,
                                                   CLGEMM_ERR_BUFFER_C_TOO_SMALL};
        static const char *const names[3] = {"A", "B", "C"};
        const float *patterns[3] = {pattern_a, pattern_b, pattern_c};
        for (int which = 0; which < 3; which++) {
            char what[128];
            cl_mem exact = exact_buffer(prec, ext[which], patterns[which]);
            size_t bytes = ext[which] * clgemm_type_size(prec);
            call c = base;
            cl_mem *slot = which == 0 ? &c.a : which == 1 ? &c.b : &c.c;
            size_t *off = which == 0 ? &c.g.off_a : which == 1 ? &c.g.off_b : &c.g.off_c;
            *slot = exact;
            snprintf(what, sizeof what, "%cgemm: %s fills its buffer exactly", p ? 'd' : 's',
                     names[which]);
            expect_accepted(run(&c), what);
            cr_assert_eq(tc_write(env.queue, exact, bytes, patterns[which]), CL_SUCCESS);
            *off = 1;
            snprintf(what, sizeof what, "%cgemm: %s at offset 1 ends one past its buffer",
                     p ? 'd' : 's', names[which]);
            expect_rejected(run(&c), too_small[which], what);
            expect_prefix(exact, bytes, patterns[which], what);
            /* Beta == 0 does not make C's size matter less. */
            c.g.beta[0] = 0;
            expect_rejected(run(&c), too_small[which], what);
            expect_prefix(exact, bytes, patterns[which], what);
            clReleaseMemObject(exact);
            if (prec == CLGEMM_DOUBLE) {
                /* The buffer holds ext floats: half of what the doubles need. */
                exact = exact_buffer(CLGEMM_SINGLE, ext[which], patterns[which]);
                c = base;
                slot = which == 0 ? &c.a : which == 1 ? &c.b : &c.c;
                *slot = exact;
                snprintf(what, sizeof what, "dgemm: %s in a buffer sized for floats", names[which]);
                expect_rejected(run(&c), too_small[which], what);
                expect_prefix(exact, ext[which] * sizeof(float), patterns[which], what);
                clReleaseMemObject(exact);
            }
        }
        /* A large offset into the big fixture buffer. */
        call c = base;
        c.g.off_c = BUF_ELEMS;
        expect_rejected(run(&c), CLGEMM_ERR_BUFFER_C_TOO_SMALL, "C at offset BUF_ELEMS");
    }
}

Test(invalid, sizes_that_overflow) {
    call c;
    /* m * k does not fit size_t: A's extent (k - 1) * lda + m overflows. */
    c = legal(CLGEMM_SINGLE);
    c.g.m = (size_t)1 << 33;
    c.g.k = (size_t)1 << 33;
    c.g.n = 1;
    c.g.lda = c.g.m;
    c.g.ldb = c.g.k;
    c.g.ldc = c.g.m;
    expect_rejected(run(&c), CLGEMM_ERR_OVERFLOW, "m = k = 2^33");
    /* k * n overflows (B). */
    c = legal(CLGEMM_SINGLE);
    c.g.n = SIZE_MAX / 4;
    c.g.k = 8;
    c.g.ldb = 8;
    c.g.ldc = M;
    expect_rejected(run(&c), CLGEMM_ERR_OVERFLOW, "n = SIZE_MAX / 4, k = 8");
    /* m * n overflows (C). */
    c = legal(CLGEMM_SINGLE);
    c.g.m = SIZE_MAX / 2;
    c.g.n = 3;
    c.g.k = 1;
    c.g.lda = c.g.m;
    c.g.ldb = 1;
    c.g.ldc = c.g.m;
    expect_rejected(run(&c), CLGEMM_ERR_OVERFLOW, "m = SIZE_MAX / 2, n = 3");
    /* A huge leading dimension. */
    c = legal(CLGEMM_SINGLE);
    c.g.lda = SIZE_MAX / 2;
    expect_rejected(run(&c), CLGEMM_ERR_OVERFLOW, "lda = SIZE_MAX / 2");
    /* Offset + extent, and (offset + extent) * sizeof(real). */
    c = legal(CLGEMM_SINGLE);
    c.g.off_a = SIZE_MAX - 3;
    expect_rejected(run(&c), CLGEMM_ERR_OVERFLOW, "off_a = SIZE_MAX - 3");
    c = legal(CLGEMM_SINGLE);
    c.g.off_b = SIZE_MAX / 4;
    expect_rejected(run(&c), CLGEMM_ERR_OVERFLOW, "off_b * sizeof(float) overflows");
    c = legal(CLGEMM_SINGLE);
    c.g.off_c = SIZE_MAX / 8 + 1;
    c.g.type_ab = c.g.type_c = CLGEMM_DOUBLE;
    if (env.has_fp64)
        expect_rejected(run(&c), CLGEMM_ERR_OVERFLOW, "off_c * sizeof(double) overflows");
}

/* A legal FP32 call made m x 1 x 1 (A and C one column of m): only m can be wrong. */
static call single_column(size_t m) {
    call c = legal(CLGEMM_SINGLE);
    c.g.m = m;
    c.g.n = 1;
    c.g.k = 1;
    c.g.lda = m;
    c.g.ldb = 1;
    c.g.ldc = m;
    return c;
}

/* A legal FP32 call whose buffer `which` ('A', 'B' or 'C') is mem instead. */
static call legal_with(char which, cl_mem mem) {
    call c = legal(CLGEMM_SINGLE);
    if (which == 'A') c.a = mem;
    if (which == 'B') c.b = mem;
    if (which == 'C') c.c = mem;
    return c;
}

Test(invalid, sizes_the_kernels_cannot_index) {
    call c;
    /* Dimensions past INT_MAX. */
    c = single_column((size_t)INT_MAX + 1);
    expect_rejected(run(&c), CLGEMM_ERR_TOO_LARGE, "m = 2^31");
    c = legal(CLGEMM_SINGLE);
    c.g.k = (size_t)INT_MAX + 1;
    c.g.lda = M;
    c.g.ldb = c.g.k;
    expect_rejected(run(&c), CLGEMM_ERR_TOO_LARGE, "k = 2^31");
    /* A span past INT_MAX with small dimensions. */
    c = legal(CLGEMM_SINGLE);
    c.g.lda = (size_t)INT_MAX;
    expect_rejected(run(&c), CLGEMM_ERR_TOO_LARGE, "lda = 2^31 - 1, k = 7");
    /* m, n and k keep room for one tile past their end: INT_MAX - 1024 is the largest. */
    c = single_column((size_t)INT_MAX - 1023);
    expect_rejected(run(&c), CLGEMM_ERR_TOO_LARGE, "m = 2^31 - 1024");
    /* The largest is indexable: then the (small) buffer is what is wrong. */
    c = single_column((size_t)INT_MAX - 1024);
    clgemm_status st = run(&c);
    cr_expect(st == CLGEMM_ERR_BUFFER_A_TOO_SMALL || st == CLGEMM_ERR_BUFFER_C_TOO_SMALL,
              "m = 2^31 - 1025: got %d (%s), want a buffer too small", st,
              clgemm_status_string(st));
    expect_rejected(st, st, "m = 2^31 - 1025");
}

Test(invalid, host_api) {
    /* The host-pointer calls check the same way, before allocating anything, and leave the
     * arrays alone. */
    static float a[64], b[64], c[64], c0[64];
    uint64_t state = 3;
    for (int i = 0; i < 64; i++) {
        a[i] = (float)tc_random(&state);
        b[i] = (float)tc_random(&state);
        c0[i] = c[i] = (float)tc_random(&state);
    }
    struct {
        clgemm_handle h;
        int layout;
        size_t m, n, k, lda, ldb, ldc;
        const float *a, *b;
        float *c;
        clgemm_status want;
        const char *what;
    } cases[] = {
        {NULL, CLGEMM_COL_MAJOR, 4, 4, 4, 4, 4, 4, a, b, c, CLGEMM_ERR_NULL_ARGUMENT,
         "NULL handle"},
        {h, CLGEMM_COL_MAJOR, 4, 4, 4, 4, 4, 4, NULL, b, c, CLGEMM_ERR_NULL_ARGUMENT, "NULL A"},
        {h, CLGEMM_COL_MAJOR, 4, 4, 4, 4, 4, 4, a, NULL, c, CLGEMM_ERR_NULL_ARGUMENT, "NULL B"},
        {h, CLGEMM_COL_MAJOR, 4, 4, 4, 4, 4, 4, a, b, NULL, CLGEMM_ERR_NULL_ARGUMENT, "NULL C"},
        {h, 7, 4, 4, 4, 4, 4, 4, a, b, c, CLGEMM_ERR_INVALID_LAYOUT, "layout 7"},
        {h, CLGEMM_COL_MAJOR, 5, 4, 3, 4, 3, 5, a, b, c, CLGEMM_ERR_INVALID_LD_A, "lda < m"},
        {h, CLGEMM_ROW_MAJOR, 5, 4, 3, 3, 3, 4, a, b, c, CLGEMM_ERR_INVALID_LD_B, "ldb < n"},
        {h, CLGEMM_ROW_MAJOR, 5, 4, 3, 3, 4, 3, a, b, c, CLGEMM_ERR_INVALID_LD_C, "ldc < n"},
        {h, CLGEMM_COL_MAJOR, (size_t)1 << 33, 1, (size_t)1 << 33, (size_t)1 << 33, (size_t)1 << 33,
         (size_t)1 << 33, a, b, c, CLGEMM_ERR_OVERFLOW, "m = k = 2^33"},
        {h, CLGEMM_COL_MAJOR, (size_t)INT_MAX + 1, 1, 1, (size_t)INT_MAX + 1, 1,
         (size_t)INT_MAX + 1, a, b, c, CLGEMM_ERR_TOO_LARGE, "m = 2^31"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clgemm_status st = clgemm_sgemm_host(
            cases[i].h, (clgemm_layout)cases[i].layout, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS,
            cases[i].m, cases[i].n, cases[i].k, 1.0f, cases[i].a, cases[i].lda, cases[i].b,
            cases[i].ldb, 0.5f, cases[i].c, cases[i].ldc);
        cr_expect_eq(st, cases[i].want, "host API, %s: got %d (%s), want %d (%s)", cases[i].what,
                     st, clgemm_status_string(st), cases[i].want,
                     clgemm_status_string(cases[i].want));
        cr_expect(memcmp(c, c0, sizeof c) == 0, "host API, %s: C changed", cases[i].what);
    }
    if (env.has_fp64) {
        static double ad[16], bd[16], cd[16];
        cr_expect_eq(clgemm_dgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4, 4,
                                       4, 1.0, ad, 3, bd, 4, 0.0, cd, 4),
                     CLGEMM_ERR_INVALID_LD_A, "dgemm host API, lda < m");
        cr_expect_eq(clgemm_dgemm_host(NULL, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4,
                                       4, 4, 1.0, ad, 4, bd, 4, 0.0, cd, 4),
                     CLGEMM_ERR_NULL_ARGUMENT, "dgemm host API, NULL handle");
    }
}

Test(invalid, another_context) {
    /* A queue or a buffer of another context (same device) is refused. */
    cl_int err;
    cl_context ctx2 = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
    cr_assert_eq(err, CL_SUCCESS);
    cl_command_queue q2 = clCreateCommandQueue(ctx2, env.device, 0, &err);
    cr_assert_eq(err, CL_SUCCESS);
    cl_mem foreign = tc_buffer(ctx2, sizeof pattern_c, pattern_c);
    cr_assert(foreign);

    call c = legal(CLGEMM_SINGLE);
    c.queue = q2;
    expect_rejected(run(&c), CLGEMM_ERR_WRONG_CONTEXT, "queue of another context");
    for (const char *which = "ABC"; *which; which++) {
        char what[32];
        snprintf(what, sizeof what, "%c in another context", *which);
        c = legal_with(*which, foreign);
        expect_rejected(run(&c), CLGEMM_ERR_WRONG_CONTEXT, what);
    }
    float now[BUF_ELEMS];
    cr_assert_eq(tc_read(q2, foreign, sizeof now, now), CL_SUCCESS);
    cr_expect(memcmp(now, pattern_c, sizeof now) == 0, "the foreign C buffer changed");

    /* A second queue of the handle's own context is fine. */
    cl_command_queue q3 = clCreateCommandQueue(env.context, env.device, 0, &err);
    cr_assert_eq(err, CL_SUCCESS);
    c = legal(CLGEMM_SINGLE);
    c.queue = q3;
    clgemm_status st = run(&c);
    clFinish(q3);
    expect_accepted(st, "another queue of the same context");

    clReleaseCommandQueue(q3);
    clReleaseMemObject(foreign);
    clReleaseCommandQueue(q2);
    clReleaseContext(ctx2);
}

Test(invalid, wait_list_and_length_disagree) {
    cl_int err;
    cl_event user = clCreateUserEvent(env.context, &err);
    cr_assert_eq(err, CL_SUCCESS);
    call c = legal(CLGEMM_SINGLE);
    c.num_wait = 1;
    c.wait = NULL;
    expect_rejected(run(&c), CLGEMM_ERR_INVALID_EVENTS, "1 event, NULL list");
    c.num_wait = 0;
    c.wait = &user;
    expect_rejected(run(&c), CLGEMM_ERR_INVALID_EVENTS, "0 events, a list");
    cl_event list[2] = {user, NULL}; /* a NULL entry (issue 14, item 9) */
    c.num_wait = 2;
    c.wait = list;
    expect_rejected(run(&c), CLGEMM_ERR_INVALID_EVENTS, "a NULL entry in the list");
    clSetUserEventStatus(user, CL_COMPLETE);
    clReleaseEvent(user);
}

/* C must be a writable buffer object, A and B buffer objects (issue 14, item 9). */
Test(invalid, read_only_c_and_images) {
    cl_int err;
    cl_mem ro = clCreateBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               sizeof pattern_c, pattern_c, &err);
    cr_assert_eq(err, CL_SUCCESS);
    call c = legal(CLGEMM_SINGLE);
    c.c = ro;
    cr_expect_eq(run(&c), CLGEMM_ERR_INVALID_BUFFER, "read-only C");
    clFinish(env.queue);
    expect_buffer(ro, pattern_c, "read-only C", "read-only C");
    c = legal(CLGEMM_SINGLE);
    c.a = ro; /* a read-only A is fine */
    expect_accepted(run(&c), "read-only A");
    clReleaseMemObject(ro);

    cl_image_format format = {CL_R, CL_FLOAT};
    cl_image_desc desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 64, .image_height = 64};
    cl_mem image = clCreateImage(env.context, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
    if (err != CL_SUCCESS) return; /* a device without images cannot be handed one */
    c = legal_with('C', image);
    expect_rejected(run(&c), CLGEMM_ERR_INVALID_BUFFER, "an image as C");
    c = legal_with('B', image);
    expect_rejected(run(&c), CLGEMM_ERR_INVALID_BUFFER, "an image as B");
    clReleaseMemObject(image);
}

static bool same_config(const clgemm_config *a, const clgemm_config *b) {
    return a->family == b->family && a->mdimc == b->mdimc && a->ndimc == b->ndimc &&
           a->ts == b->ts && a->mwg == b->mwg && a->nwg == b->nwg && a->kwg == b->kwg &&
           a->kwi == b->kwi && a->vwm == b->vwm && a->vwn == b->vwn;
}

/* get_config still reports `want` as the override. */
static void expect_kept(clgemm_precision prec, const clgemm_config *want, const char *what) {
    clgemm_config now;
    const char *source = NULL;
    cr_assert_eq(clgemm_get_config(h, prec, 64, 64, 64, &now, &source), CLGEMM_SUCCESS);
    cr_expect(same_config(&now, want), "%s: the previous setting was not kept", what);
    cr_expect(source && strcmp(source, "override") == 0, "%s: source %s, want override", what,
              source ? source : "(null)");
}

Test(invalid, set_config_keeps_the_previous_setting) {
    size_t max_wg = 0;
    cr_assert_eq(
        clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL),
        CL_SUCCESS);
    cl_ulong local = 0;
    cr_assert_eq(clGetDeviceInfo(env.device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL),
                 CL_SUCCESS);
    clgemm_config good = {.family = CLGEMM_FAMILY_NAIVE, .mdimc = 2, .ndimc = 2};
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, &good), CLGEMM_SUCCESS);

    /* A work-group larger than the device allows (each side within the 1024 range). */
    clgemm_config too_big = {
        .family = CLGEMM_FAMILY_NAIVE, .mdimc = 1024, .ndimc = (int)(max_wg / 1024 + 1)};
    cr_expect_eq(clgemm_check_config(h, CLGEMM_SINGLE, &too_big), CLGEMM_ERR_INVALID_PARAMS);
    cr_expect_eq(clgemm_set_config(h, CLGEMM_SINGLE, &too_big), CLGEMM_ERR_INVALID_PARAMS,
                 "naive %dx%d on a device of %zu work-items", too_big.mdimc, too_big.ndimc, max_wg);
    expect_kept(CLGEMM_SINGLE, &good, "work-group too large");

    /* A family rule: MWG not a multiple of MDIMC * VWM. */
    clgemm_config rule = REGBLOCK(32, 64, 16, 16, 16, 2, 4, 2);
    cr_expect_eq(clgemm_set_config(h, CLGEMM_SINGLE, &rule), CLGEMM_ERR_INVALID_PARAMS);
    expect_kept(CLGEMM_SINGLE, &good, "MWG % (MDIMC * VWM) != 0");

    clgemm_config zero = {.family = CLGEMM_FAMILY_TILED, .ts = 0};
    cr_expect_eq(clgemm_set_config(h, CLGEMM_SINGLE, &zero), CLGEMM_ERR_INVALID_PARAMS);
    expect_kept(CLGEMM_SINGLE, &good, "TS 0");

    clgemm_config unknown = {.family = (clgemm_family)(CLGEMM_FAMILY_COUNT + 1), .ts = 4};
    cr_expect_eq(clgemm_set_config(h, CLGEMM_SINGLE, &unknown), CLGEMM_ERR_INVALID_FAMILY);
    cr_expect_eq(clgemm_check_config(h, CLGEMM_SINGLE, &unknown), CLGEMM_ERR_INVALID_FAMILY);
    expect_kept(CLGEMM_SINGLE, &good, "an unknown family");

    cr_expect_eq(clgemm_set_config(h, (clgemm_precision)7, &good), CLGEMM_ERR_INVALID_ARGUMENT);
    cr_expect_eq(clgemm_check_config(h, (clgemm_precision)7, &good), CLGEMM_ERR_INVALID_ARGUMENT);
    clgemm_config out;
    cr_expect_eq(clgemm_get_config(h, (clgemm_precision)7, 1, 1, 1, &out, NULL),
                 CLGEMM_ERR_INVALID_ARGUMENT);

    /* Local memory: a register-blocked configuration whose tiles fit the device's local memory
     * in single precision but not in double (only where the device's limits allow one). */
    if (env.has_fp64) {
        clgemm_config big = {.family = CLGEMM_FAMILY_REGBLOCK,
                             .mwg = 1024,
                             .nwg = 1024,
                             .mdimc = 64,
                             .ndimc = 64,
                             .kwi = 1,
                             .vwm = 1,
                             .vwn = 1};
        bool found = false;
        for (int kwg = 1; kwg <= 1024 && !found; kwg *= 2) {
            size_t tiles = (size_t)(1024 + 1 + 1024 + 1) * (size_t)kwg;
            if (tiles * 4 <= local && tiles * 8 > local) {
                big.kwg = kwg;
                found = clgemm_check_config(h, CLGEMM_SINGLE, &big) == CLGEMM_SUCCESS;
            }
        }
        if (found) {
            clgemm_config good_d = {.family = CLGEMM_FAMILY_TILED, .ts = 2};
            cr_assert_eq(clgemm_set_config(h, CLGEMM_DOUBLE, &good_d), CLGEMM_SUCCESS);
            cr_expect_eq(clgemm_set_config(h, CLGEMM_DOUBLE, &big), CLGEMM_ERR_INVALID_PARAMS,
                         "regblock KWG %d: local memory in double exceeds %llu bytes", big.kwg,
                         (unsigned long long)local);
            expect_kept(CLGEMM_DOUBLE, &good_d, "local memory exceeded in double");
        } else {
            cr_log_info("no configuration fits local memory in single but not double here");
        }
    }

    /* A failed set in one precision does not touch the other's, and NULL removes the
     * override. */
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, NULL), CLGEMM_SUCCESS);
    const char *source = NULL;
    cr_assert_eq(clgemm_get_config(h, CLGEMM_SINGLE, 64, 64, 64, &out, &source), CLGEMM_SUCCESS);
    cr_expect(source && strcmp(source, "override") != 0, "NULL did not remove the override");
}

Test(invalid, eight_bit_bounds_and_leading_dimensions) {
    /* One-byte A and B, four-byte C (INT8) or FP32 C (FP8): sizes are checked in their own
     * element sizes. Each operand in a buffer of exactly its bytes is accepted; one byte less,
     * or an offset of 1, is refused with its status; a leading dimension below the stored rows
     * too. Refused calls leave every buffer as it was. */
    clgemm_config cfg = {.family = CLGEMM_FAMILY_TILED, .ts = 4};
    cr_assert_eq(clgemm_set_config(h, CLGEMM_INT8, &cfg), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_set_config(h, CLGEMM_E4M3, &cfg), CLGEMM_SUCCESS);
    static const clgemm_status too_small[3] = {CLGEMM_ERR_BUFFER_A_TOO_SMALL,
                                               CLGEMM_ERR_BUFFER_B_TOO_SMALL,
                                               CLGEMM_ERR_BUFFER_C_TOO_SMALL};
    const size_t bytes[3] = {M * K, K * N, M * N * 4};
    for (int fp8 = 0; fp8 < 2; fp8++)
        for (int which = 0; which < 3; which++)
            for (int shrink = 0; shrink < 3; shrink++) { /* exact, one byte less, offset 1 */
                unsigned char host[3][M * N * 4];
                cl_mem mem[3];
                for (int i = 0; i < 3; i++) {
                    for (size_t x = 0; x < sizeof host[i]; x++)
                        host[i][x] = (unsigned char)(0x21 + 7 * x + 3 * (size_t)i);
                    size_t size = bytes[i] - (i == which && shrink == 1);
                    mem[i] = tc_buffer(env.context, size, host[i]);
                    cr_assert_not_null(mem[i]);
                }
                size_t off[3] = {0, 0, 0};
                if (shrink == 2) off[which] = 1;
                clgemm_status st =
                    fp8 ? clgemm_fp8gemm(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M,
                                         N, K, 1.0f, 0.5f, 2.0f, mem[0], off[0], M, mem[1], off[1],
                                         K, 0.5f, mem[2], off[2], M, CLGEMM_E4M3, CLGEMM_SINGLE,
                                         NULL, 0, NULL, NULL)
                        : clgemm_i8gemm(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N,
                                        K, 3, mem[0], off[0], M, mem[1], off[1], K, -2, mem[2],
                                        off[2], M, NULL, 0, NULL, NULL);
                clFinish(env.queue);
                const char *what = fp8 ? "fp8gemm" : "i8gemm";
                if (shrink == 0) {
                    cr_expect_eq(st, CLGEMM_SUCCESS, "%s, operand %d exact: %d", what, which, st);
                } else {
                    cr_expect_eq(st, too_small[which], "%s, operand %d %s: %d", what, which,
                                 shrink == 1 ? "one byte short" : "at offset 1", st);
                    for (int i = 0; i < 3; i++) {
                        unsigned char now[M * N * 4];
                        size_t size = bytes[i] - (i == which && shrink == 1);
                        cr_assert_eq(tc_read(env.queue, mem[i], size, now), CL_SUCCESS);
                        cr_expect(memcmp(now, host[i], size) == 0, "%s: buffer %d changed", what,
                                  i);
                    }
                }
                for (int i = 0; i < 3; i++)
                    clReleaseMemObject(mem[i]);
            }
    /* Leading dimensions one below the stored rows. */
    cr_expect_eq(clgemm_i8gemm(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K, 1,
                               buf_a, 0, M - 1, buf_b, 0, K, 0, buf_c, 0, M, NULL, 0, NULL, NULL),
                 CLGEMM_ERR_INVALID_LD_A);
    cr_expect_eq(clgemm_fp8gemm(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K, 1,
                                1, 1, buf_a, 0, K, buf_b, 0, N - 1, 0, buf_c, 0, N, CLGEMM_E5M2,
                                CLGEMM_HALF, NULL, 0, NULL, NULL),
                 CLGEMM_ERR_INVALID_LD_B);
    cr_expect_eq(clgemm_i8gemm(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K, 1,
                               buf_a, 0, M, buf_b, 0, K, 0, buf_c, 0, M - 1, NULL, 0, NULL, NULL),
                 CLGEMM_ERR_INVALID_LD_C);
    clFinish(env.queue);
    expect_buffer(buf_a, pattern_a, "A", "8-bit leading dimensions");
    expect_buffer(buf_b, pattern_b, "B", "8-bit leading dimensions");
    expect_buffer(buf_c, pattern_c, "C", "8-bit leading dimensions");
}
