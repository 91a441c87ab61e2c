/* test_pack.c: operands copied into a form a tensor-map family reads (src/exec/pack.c): which
 * operands a call on a modelled H200 copies, and, on any device (PoCL in CI), that the copies
 * (cl/pack.cl) and the rewritten call compute the caller's product: every layout and
 * transpose, odd sizes, offsets, leading dimensions off 16 bytes, a strided batch. */
#include "exec/exec.h"
#include "temp_dir.h"
#include "types/element.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static clgemm_handle make_handle(void) {
    setenv("CLGEMM_TUNING_DB", "/nonexistent/clgemm-pack-test.json", 1); /* built-in defaults */
    clgemm_handle h;
    if (clgemm_create_default(&h) != CLGEMM_SUCCESS) cr_skip_test("no OpenCL device");
    return h;
}

/* An H200 as the planner sees it, with the tensor-map service (no GPU needed to plan). */
static void model_h200(clgemm_handle h) {
    device_info *i = &h->info;
    memset(i, 0, sizeof *i);
    i->cls = DEVICE_NVIDIA_GPU;
    i->nv_compute_capability = 90;
    i->nv_sm90a = true;
    i->nv_tma = true;
    i->has_fp64 = true;
    i->local_mem_size = 49152;
    i->local_mem_static = 232448 - 1024;
    i->max_work_group_size = 1024;
    i->max_work_item_sizes[0] = i->max_work_item_sizes[1] = 1024;
    i->max_work_item_sizes[2] = 64;
    i->compute_units = 132;
    strcpy(i->platform_name, "Modelled");
    strcpy(i->vendor, "NVIDIA Corporation");
    strcpy(i->name, "NVIDIA H200 (modelled)");
    strcpy(i->driver_version, "0");
}

static gemm_call square(clgemm_precision t, clgemm_layout layout, clgemm_transpose ta,
                        clgemm_transpose tb, size_t n, size_t ld) {
    gemm_call c;
    memset(&c, 0, sizeof c);
    c.precision = c.type_c = t;
    c.compute = CLGEMM_COMPUTE_DEFAULT;
    c.layout = layout;
    c.trans_a = ta;
    c.trans_b = tb;
    c.m = c.n = c.k = n;
    c.lda = c.ldb = c.ldc = ld;
    c.alpha = 1;
    return c;
}

/* Which operands a call copies: TF32 stored MN-major (the column-major A untransposed, B
 * transposed; a row-major call's are the other way), 16-bit rows off 16 bytes; none for plain
 * FP32, K-major TF32, aligned FP16, small products, a misaligned K-major TF32 operand (a copy
 * would be MN-major), a broadcast or a table, or a device without maps. */
Test(pack, chosen_where_the_copies_let_the_tma_family_run) {
    clgemm_handle h = make_handle();
    model_h200(h);
    h->tma_a_registers = 0; /* TF32's MN-major A copied too (the default reads it: below) */
    h->align_copies = 0;    /* no copies in an operand's own layout (their test is below) */
    h->mn_major_copies = 0; /* no FP32 copies for the tma_simt family (their test is below) */
    const clgemm_transpose N = CLGEMM_NO_TRANS, T = CLGEMM_TRANS;
    const clgemm_layout R = CLGEMM_ROW_MAJOR, C = CLGEMM_COL_MAJOR;
    const clgemm_compute TF = CLGEMM_COMPUTE_TF32, D = CLGEMM_COMPUTE_DEFAULT;
    const clgemm_compute X3 = CLGEMM_COMPUTE_FP32_3XTF32;
    const struct {
        clgemm_precision t;
        clgemm_compute compute;
        clgemm_layout layout;
        clgemm_transpose ta, tb;
        size_t n, ld;
        bool chosen, a, b;
    } cases[] = {
        {CLGEMM_SINGLE, X3, R, N, N, 8192, 8192, true, false, true},
        {CLGEMM_SINGLE, X3, C, T, N, 8192, 8192, true, false, false},
        {CLGEMM_SINGLE, X3, C, T, N, 4097, 4097, false, false, false},
        {CLGEMM_SINGLE, X3, C, T, N, 256, 256, false, false, false},
        {CLGEMM_SINGLE, TF, R, N, N, 8192, 8192, true, false, true},
        {CLGEMM_SINGLE, TF, C, N, N, 8192, 8192, true, true, false},
        {CLGEMM_SINGLE, TF, C, N, T, 8192, 8192, true, true, true},
        {CLGEMM_SINGLE, TF, R, T, T, 4096, 4096, true, true, false},
        {CLGEMM_SINGLE, TF, C, T, N, 8192, 8192, false, false, false},
        {CLGEMM_SINGLE, D, R, N, N, 8192, 8192, false, false, false},
        {CLGEMM_SINGLE, TF, C, T, N, 4097, 4097, false, false, false},
        {CLGEMM_SINGLE, TF, R, N, N, 4097, 4097, false, false, false},
        {CLGEMM_HALF, D, R, N, N, 4097, 4097, true, true, true},
        {CLGEMM_BFLOAT16, D, C, T, N, 4097, 4097, true, true, false},
        {CLGEMM_HALF, D, R, N, N, 4096, 4096, false, false, false},
        {CLGEMM_SINGLE, TF, R, N, N, 256, 256, false, false, false},
        {CLGEMM_DOUBLE, D, R, N, N, 8192, 8191, false, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gemm_call c =
            square(cases[i].t, cases[i].layout, cases[i].ta, cases[i].tb, cases[i].n, cases[i].ld);
        if (i == 13) c.ldb = 4104; /* only A off 16 bytes */
        c.compute = cases[i].compute;
        pack_choice p;
        bool chosen = clgemm__pack_choose(h, &c, cases[i].compute, &p);
        cr_expect_eq(chosen, cases[i].chosen, "case %zu", i);
        if (!chosen) continue;
        cr_expect_eq(p.pack[0], cases[i].a, "case %zu: A", i);
        cr_expect_eq(p.pack[1], cases[i].b, "case %zu: B", i);
        cr_expect_gt(p.bytes, 0);
        /* 3xTF32 on the family: both operands split, after the copies, and the copies' call knows.
         */
        const bool x3 = cases[i].compute == X3;
        cr_expect_eq(p.residual, x3, "case %zu: residuals", i);
        cr_expect_eq(p.schedule.cfg.family, CLGEMM_FAMILY_TMA, "case %zu", i);
        if (!x3) continue;
        const size_t one = (size_t)8192 * 8192 * 4, copies = (size_t)(p.pack[0] + p.pack[1]) * one;
        cr_expect_geq(p.bytes, copies + 4 * one, "case %zu: room for the parts", i);
        const size_t at[4] = {p.big[0], p.small[0], p.big[1], p.small[1]};
        for (int x = 0; x < 4; x++) {
            cr_expect_geq(at[x] * 4, copies, "case %zu: part %d past the copies", i, x);
            for (int y = 0; y < x; y++)
                cr_expect_geq(at[x] > at[y] ? at[x] - at[y] : at[y] - at[x], one / 4,
                              "case %zu: parts %d and %d overlap", i, x, y);
        }
        gemm_call q = clgemm__packed_call(&c, &p, NULL);
        cr_expect(q.residual.on, "case %zu", i);
        cr_expect_eq(q.residual.ld[0], 8192, "case %zu", i);
    }
    /* A broadcast operand, a batch table, a device without maps. */
    gemm_call c = square(CLGEMM_SINGLE, R, N, N, 4096, 4096);
    c.batched = true;
    c.batch = 2;
    c.stride_a = 4096 * 4096;
    c.stride_b = 0;
    pack_choice p;
    cr_expect_not(clgemm__pack_choose(h, &c, TF, &p), "a broadcast B");
    c = square(CLGEMM_SINGLE, R, N, N, 8192, 8192);
    size_t offs[1] = {0};
    c.batched = true;
    c.batch = 1;
    c.offs_a = c.offs_b = c.offs_c = offs;
    cr_expect_not(clgemm__pack_choose(h, &c, TF, &p), "a table");
    c = square(CLGEMM_SINGLE, R, N, N, 8192, 8192);
    h->info.nv_tma = false;
    cr_expect_not(clgemm__pack_choose(h, &c, TF, &p), "no maps");
    clgemm_destroy(h);
}

/* Whether the planner takes the tma family for the call. */
static bool plans_tma(clgemm_handle h, const gemm_call *c) {
    const colmajor_shape shape = clgemm__colmajor_shape(c);
    const char *source;
    const size_t batch = c->batched ? c->batch : 1;
    return clgemm__plan_call(h, c, &shape, CLGEMM_COMPUTE_DEFAULT, batch, false, true, &source)
               .cfg.family == CLGEMM_FAMILY_TMA;
}

/* The planner offers the tma family only to a call whose operands' layout its maps can describe
 * (clgemm__plan_call), so a call asks it once: an FP16 call laid out on 16 bytes plans tma, one
 * whose A's leading dimension or offset is off 16 bytes, or whose B is a broadcast, plans without
 * it at once (no map refused afterwards); one matrix ignores its batch stride, as a map does. */
Test(pack, the_plan_knows_which_operands_maps_describe) {
    clgemm_handle h = make_handle();
    model_h200(h);
    gemm_call c =
        square(CLGEMM_HALF, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 8192, 8192);
    cr_assert(plans_tma(h, &c), "aligned FP16 8192^3");
    c.lda = 8193;
    cr_expect_not(plans_tma(h, &c), "A's leading dimension off 16 bytes");
    c.lda = 8192;
    c.off_a = 1;
    cr_expect_not(plans_tma(h, &c), "A's first element off 16 bytes");
    c.off_a = 0;
    c.batched = true;
    c.batch = 2;
    c.stride_a = c.stride_c = 8192 * 8192;
    c.stride_b = 0;
    cr_expect_not(plans_tma(h, &c), "a broadcast B");
    c.batch = 1;
    c.stride_b = 3;
    cr_expect(plans_tma(h, &c), "one matrix: its stride unused");
    clgemm_destroy(h);
}

/* The family the planner takes for the call as it stands (no copies). */
static clgemm_family planned_family(clgemm_handle h, const gemm_call *c) {
    const colmajor_shape shape = clgemm__colmajor_shape(c);
    const char *source;
    const size_t batch = c->batched ? c->batch : 1;
    return clgemm__plan_call(h, c, &shape, c->compute, batch, false, true, &source).cfg.family;
}

/* FP32 in the default mode on a modelled H200: the tma_simt family takes one matrix with both
 * operands MN-major where its 128 x 256 tiles fill the waves (row-major TN, column-major NT), and
 * a K-major operand (or one off 16 bytes) re-read at least 2048 times is copied so first (row-major
 * NN: the call's A transposed); otherwise the register-blocked family, uncopied: smaller products,
 * a narrow M, a batch, CLGEMM_MN_MAJOR_COPIES=0, another compute mode or type, a configuration
 * forced or tuned on another family. */
Test(pack, fp32_copied_mn_major_for_the_tma_simt_family) {
    clgemm_handle h = make_handle();
    model_h200(h);
    cr_expect_eq(h->mn_major_copies, -1, "default without CLGEMM_MN_MAJOR_COPIES");
    h->align_copies = 0;
    const clgemm_transpose N = CLGEMM_NO_TRANS, T = CLGEMM_TRANS;
    const clgemm_layout R = CLGEMM_ROW_MAJOR, C = CLGEMM_COL_MAJOR;
    const struct {
        clgemm_layout layout;
        clgemm_transpose ta, tb;
        size_t m, n, k, lda;
        bool chosen, a, b, a_as_is;
        clgemm_family family; /* of the call over the copies where chosen, else of the call */
    } cases[] = {
        {R, N, N, 8192, 8192, 8192, 8192, true, true, false, false, CLGEMM_FAMILY_TMA_SIMT},
        {C, N, N, 8192, 8192, 8192, 8192, true, false, true, false, CLGEMM_FAMILY_TMA_SIMT},
        {R, N, T, 4096, 4096, 4096, 4096, true, true, true, false, CLGEMM_FAMILY_TMA_SIMT},
        {R, T, T, 8192, 8192, 8192, 8192, true, false, true, false, CLGEMM_FAMILY_TMA_SIMT},
        {R, T, N, 8192, 8192, 8192, 8192, false, false, false, false, CLGEMM_FAMILY_TMA_SIMT},
        {C, N, T, 4096, 4096, 4096, 4096, false, false, false, false, CLGEMM_FAMILY_TMA_SIMT},
        {R, T, N, 8192, 8192, 8192, 8196, true, true, false, true, CLGEMM_FAMILY_TMA_SIMT},
        {R, T, N, 2048, 2048, 2048, 2048, false, false, false, false, CLGEMM_FAMILY_REGBLOCK},
        {R, N, N, 2048, 2048, 2048, 2048, false, false, false, false, CLGEMM_FAMILY_REGBLOCK},
        {R, N, N, 8192, 1536, 8192, 8192, false, false, false, false, CLGEMM_FAMILY_REGBLOCK},
        {C, T, N, 4160, 4000, 67, 8192, true, true, true, false, CLGEMM_FAMILY_TMA_SIMT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gemm_call c =
            square(CLGEMM_SINGLE, cases[i].layout, cases[i].ta, cases[i].tb, 8192, cases[i].lda);
        c.m = cases[i].m;
        c.n = cases[i].n;
        c.k = cases[i].k;
        c.ldb = c.ldc = 8192;
        if (cases[i].lda == 8196) c.off_a = 1; /* (A off 16 bytes both ways) */
        pack_choice p;
        const bool chosen = clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p);
        cr_expect_eq(chosen, cases[i].chosen, "case %zu", i);
        if (!chosen) {
            cr_expect_eq(planned_family(h, &c), cases[i].family, "case %zu: as it stands", i);
            continue;
        }
        cr_expect_eq(p.pack[0], cases[i].a, "case %zu: A", i);
        cr_expect_eq(p.pack[1], cases[i].b, "case %zu: B", i);
        cr_expect_eq(p.keep_layout[0], cases[i].a && cases[i].a_as_is, "case %zu: A's layout", i);
        cr_expect_not(p.keep_layout[1], "case %zu: B transposed", i);
        cr_expect_eq(p.schedule.cfg.family, cases[i].family, "case %zu: over the copies", i);
        const gemm_call q = clgemm__packed_call(&c, &p, NULL);
        cr_expect_not(clgemm__pack_choose(h, &q, CLGEMM_COMPUTE_DEFAULT, &p),
                      "case %zu: the call over the copies needs none", i);
        cr_expect_eq(planned_family(h, &q), CLGEMM_FAMILY_TMA_SIMT, "case %zu: over the copies", i);
    }
    /* Row-major NN 8192^2 is copied, but not as a batch, not never, not in TF32, not FP64. */
    gemm_call c = square(CLGEMM_SINGLE, R, N, N, 8192, 8192);
    pack_choice p;
    cr_assert(clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p));
    c.batched = true;
    c.batch = 2;
    c.stride_a = c.stride_b = c.stride_c = 8192 * 8192;
    cr_expect_not(clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p), "a batch");
    cr_expect_eq(planned_family(h, &c), CLGEMM_FAMILY_REGBLOCK, "a batch");
    c = square(CLGEMM_SINGLE, R, N, N, 8192, 8192);
    h->mn_major_copies = 0;
    cr_expect_not(clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p), "never");
    h->mn_major_copies = 1; /* always, where the family then runs: 2048^2's tiles fill no waves */
    gemm_call small = square(CLGEMM_SINGLE, R, N, N, 2048, 2048);
    cr_expect_not(clgemm__pack_choose(h, &small, CLGEMM_COMPUTE_DEFAULT, &p), "always, 2048^2");
    h->mn_major_copies = -1;
    h->tma_a_registers = 0;
    c.compute = CLGEMM_COMPUTE_TF32;
    cr_assert(clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_TF32, &p), "TF32: for the tma family");
    cr_expect_eq(p.schedule.cfg.family, CLGEMM_FAMILY_TMA, "TF32");
    c = square(CLGEMM_DOUBLE, R, N, N, 8192, 8192);
    cr_expect_not(clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p), "FP64");
    /* A configuration forced for FP32 takes the copies only if it is tma_simt's (it is planned
     * over them too); one tuned for the call as it stands, only if it is tma_simt's. */
    c = square(CLGEMM_SINGLE, R, N, N, 8192, 8192);
    const char *dir = temp_dir("clgemm-pack-test");
    cr_assert_not_null(dir);
    char path[256];
    snprintf(path, sizeof path, "%s/tuning.json", dir);
    for (int f = 0; f < 2; f++) {
        /* (the defaults of row-major NN and TN 8192^2: register-blocked and tma_simt tiles) */
        const gemm_dims dims = {8192, 8192, 8192, 1, true, false, f == 1};
        const clgemm_config cfg =
            clgemm__config_default_for_dims(&h->info, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &dims);
        cr_assert_eq(cfg.family, f ? CLGEMM_FAMILY_TMA_SIMT : CLGEMM_FAMILY_REGBLOCK);
        h->override[CLGEMM_SINGLE] = cfg;
        h->has_override[CLGEMM_SINGLE] = true;
        cr_expect_eq(clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p), f == 1, "forced %d",
                     f);
        cr_expect_eq(planned_family(h, &c), cfg.family, "forced %d", f);
        h->has_override[CLGEMM_SINGLE] = false;
        const tuning_record r = {.key = clgemm__tuning_key(CLGEMM_SINGLE, CLGEMM_SINGLE, N, N),
                                 .shape = {8192, 8192, 8192},
                                 .problem = {8192, 8192, 8192},
                                 .config = cfg,
                                 .gflops = 50000};
        unlink(path);
        cr_assert_eq(clgemm__tuning_save(path, &h->info, &r, 1), CLGEMM_SUCCESS);
        tuning_table *saved = h->tuning, *one = NULL;
        cr_assert_eq(clgemm__tuning_load(path, &h->info, &one), CLGEMM_SUCCESS);
        h->tuning = one;
        cr_expect_eq(planned_family(h, &c), cfg.family, "tuned %d", f);
        cr_expect_eq(clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p), f == 1, "tuned %d", f);
        h->tuning = saved;
        clgemm__tuning_free(one);
    }
    cr_expect(clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p), "neither again");
    clgemm_destroy(h);
}

/* FP32 one matrix narrow along N of the column-major problem (at most 256) with a long K:
 * tma_simt's 128 x 64 tiles, the call's A (a row-major NN call's K-major operand) copied transposed
 * where re-read 2048 times or more; 33 to 64 along M (a row-major call's n), 4096 or more along
 * N and K, any layout: its 64 x 128 tiles (row-major TT over its B copied MN-major first, the
 * others over no copy), 16 to 32 its 32 x 128 tiles; wider or narrower along M, short K or a
 * batch keep the register-blocked family. */
Test(pack, fp32_narrow_long_k_on_tma_simt) {
    clgemm_handle h = make_handle();
    model_h200(h);
    const struct {
        size_t m, n, k, batch; /* of a row-major call, NN unless transposed */
        bool trans_a, trans_b;
        int copies; /* 1: the call's A copied first, 2: its B */
        clgemm_family family;
        int mwg, nwg; /* tma_simt's tiles */
    } cases[] = {
        {64, 8192, 8192, 1, false, false, 1, CLGEMM_FAMILY_TMA_SIMT, 128, 64},
        {256, 256, 16384, 1, false, false, 0, CLGEMM_FAMILY_TMA_SIMT, 128, 64},
        {256, 4096, 4096, 1, false, false, 0, CLGEMM_FAMILY_REGBLOCK, 0, 0},
        {8192, 64, 8192, 1, false, false, 0, CLGEMM_FAMILY_TMA_SIMT, 64, 128},
        {4096, 64, 8192, 1, false, false, 0, CLGEMM_FAMILY_TMA_SIMT, 64, 128},
        {8192, 32, 4096, 1, false, false, 0, CLGEMM_FAMILY_TMA_SIMT, 32, 128},
        {8192, 128, 8192, 1, false, false, 0, CLGEMM_FAMILY_REGBLOCK, 0, 0},
        {8192, 65, 8192, 1, false, false, 0, CLGEMM_FAMILY_REGBLOCK, 0, 0},
        {8192, 16, 8192, 1, false, false, 0, CLGEMM_FAMILY_TMA_SIMT, 32, 128},
        {8192, 8, 8192, 1, false, false, 0, CLGEMM_FAMILY_REGBLOCK, 0, 0}, /* (unmeasured) */
        {2048, 64, 8192, 1, false, false, 0, CLGEMM_FAMILY_REGBLOCK, 0, 0},
        {8192, 64, 2048, 1, false, false, 0, CLGEMM_FAMILY_REGBLOCK, 0, 0},
        {8192, 64, 8192, 1, true, false, 0, CLGEMM_FAMILY_TMA_SIMT, 64, 128},
        {8192, 64, 8192, 1, false, true, 0, CLGEMM_FAMILY_TMA_SIMT, 64, 128},
        {8192, 64, 8192, 1, true, true, 2, CLGEMM_FAMILY_TMA_SIMT, 64, 128}, /* B copied MN-major */
        {8192, 64, 8192, 4, false, false, 0, CLGEMM_FAMILY_REGBLOCK, 0, 0},
        {256, 256, 2048, 1, false, false, 0, CLGEMM_FAMILY_REGBLOCK, 0, 0},
        {64, 8192, 8192, 4, false, false, 0, CLGEMM_FAMILY_REGBLOCK, 0, 0},
        {512, 8192, 8192, 1, false, false, 0, CLGEMM_FAMILY_REGBLOCK, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gemm_call c = square(CLGEMM_SINGLE, CLGEMM_ROW_MAJOR,
                             cases[i].trans_a ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                             cases[i].trans_b ? CLGEMM_TRANS : CLGEMM_NO_TRANS, 8192, 16384);
        c.m = cases[i].m;
        c.n = cases[i].n;
        c.k = cases[i].k;
        if (cases[i].batch > 1) {
            c.batched = true;
            c.batch = cases[i].batch;
            c.stride_a = c.stride_b = c.stride_c = (size_t)16384 * 16384;
        }
        pack_choice p;
        const bool copied = clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p);
        cr_expect_eq(copied, cases[i].copies != 0, "case %zu", i);
        gemm_schedule s;
        if (copied) {
            cr_expect(p.pack[0] == !!(cases[i].copies & 1) && p.pack[1] == !!(cases[i].copies & 2),
                      "case %zu: copied A %d, B %d", i, p.pack[0], p.pack[1]);
            s = p.schedule;
        } else {
            const colmajor_shape shape = clgemm__colmajor_shape(&c);
            const char *source;
            s = clgemm__plan_call(h, &c, &shape, CLGEMM_COMPUTE_DEFAULT, cases[i].batch, false,
                                  true, &source);
        }
        cr_expect_eq(s.cfg.family, cases[i].family, "case %zu", i);
        if (s.cfg.family == CLGEMM_FAMILY_TMA_SIMT)
            cr_expect(s.cfg.params[0] == cases[i].mwg && s.cfg.params[1] == cases[i].nwg,
                      "case %zu: %d x %d tiles, not %d x %d", i, s.cfg.params[0], s.cfg.params[1],
                      cases[i].mwg, cases[i].nwg);
    }
    /* Narrow along M with rows off 16 bytes: no map reads them, and copying the long operand
     * onto 16-byte lines would cost as much as the product, so the register-blocked family reads
     * them as they are. */
    gemm_call c =
        square(CLGEMM_SINGLE, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 8192, 8193);
    c.n = 64;
    c.ldb = 65;
    c.ldc = 64;
    pack_choice p;
    cr_expect_not(clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p), "off 16 bytes: no copy");
    cr_expect_eq(planned_family(h, &c), CLGEMM_FAMILY_REGBLOCK, "off 16 bytes");
    clgemm_destroy(h);
}

/* The 3xTF32 mode reaches the tma family only over its operands' split parts: the same FP32 call
 * plans it with them and never without them (its kernel would read parts that are not there),
 * whatever forces the family. */
Test(pack, three_tf32_plans_maps_only_over_split_operands) {
    clgemm_handle h = make_handle();
    model_h200(h);
    gemm_call c =
        square(CLGEMM_SINGLE, CLGEMM_COL_MAJOR, CLGEMM_TRANS, CLGEMM_NO_TRANS, 8192, 8192);
    c.compute = CLGEMM_COMPUTE_FP32_3XTF32;
    const colmajor_shape shape = clgemm__colmajor_shape(&c);
    const char *source;
    gemm_schedule s = clgemm__plan_call(h, &c, &shape, c.compute, 1, false, true, &source);
    cr_expect_neq(s.cfg.family, CLGEMM_FAMILY_TMA, "not split");
    c.residual.on = true;
    s = clgemm__plan_call(h, &c, &shape, c.compute, 1, false, true, &source);
    cr_expect_eq(s.cfg.family, CLGEMM_FAMILY_TMA, "split");
    /* A forced tma configuration does not change that. */
    clgemm_config forced = {.family = CLGEMM_FAMILY_TMA, .params = {128, 256, 32, 4}};
    h->override[CLGEMM_SINGLE] = forced;
    h->has_override[CLGEMM_SINGLE] = true;
    c.residual.on = false;
    s = clgemm__plan_call(h, &c, &shape, c.compute, 1, false, true, &source);
    cr_expect_neq(s.cfg.family, CLGEMM_FAMILY_TMA, "forced, not split");
    clgemm_config cfg;
    cr_assert_eq(clgemm_get_config_ex(h, CLGEMM_COL_MAJOR, CLGEMM_TRANS, CLGEMM_NO_TRANS, 8192,
                                      8192, 8192, CLGEMM_SINGLE, CLGEMM_SINGLE,
                                      CLGEMM_COMPUTE_FP32_3XTF32, &cfg, NULL),
                 CLGEMM_SUCCESS);
    cr_expect_eq(cfg.family, CLGEMM_FAMILY_TMA, "the call splits its operands");
    clgemm_destroy(h);
}

/* TF32 with CLGEMM_TMA_A_REGISTERS=1 (the handle's flag), or unset at N 2560 or less (its size
 * rule), the column-major A is read as stored
 * whichever way (the kernel loads an MN-major one into registers), so a row-major NN call and a
 * column-major NN one plan the tma family with no copy, a column-major NT one copies B alone; B
 * stays K-major only. In the 3xTF32 mode such an A is read whole and split by the kernel (only
 * the other operand's parts are made). The 8-bit types keep their copies, and without the flag
 * nothing changes. */
Test(pack, tf32_a_read_as_stored_where_the_handle_asks) {
    clgemm_handle h = make_handle();
    model_h200(h);
    const clgemm_transpose N = CLGEMM_NO_TRANS, T = CLGEMM_TRANS;
    const clgemm_layout R = CLGEMM_ROW_MAJOR, C = CLGEMM_COL_MAJOR;
    const clgemm_compute TF = CLGEMM_COMPUTE_TF32, X3 = CLGEMM_COMPUTE_FP32_3XTF32;
    const struct {
        clgemm_precision t;
        clgemm_compute compute;
        clgemm_layout layout;
        clgemm_transpose ta, tb;
        bool chosen, a, b; /* with the flag: copies chosen, of the call's A, of its B */
        bool plain_tma;    /* with the flag, uncopied: the tma family planned */
    } cases[] = {
        {CLGEMM_SINGLE, TF, R, N, N, false, false, false, true},
        {CLGEMM_SINGLE, TF, C, N, N, false, false, false, true},
        {CLGEMM_SINGLE, TF, C, N, T, true, false, true, false},
        {CLGEMM_SINGLE, TF, R, T, T, true, true, false, false},
        {CLGEMM_SINGLE, TF, C, T, N, false, false, false, true},
        {CLGEMM_SINGLE, X3, R, N, N, true, false, false, false},
        {CLGEMM_SINGLE, X3, C, N, N, true, false, false, false},
        {CLGEMM_SINGLE, X3, C, T, N, true, false, false, false},
        {CLGEMM_INT8, CLGEMM_COMPUTE_DEFAULT, C, N, N, true, true, false, false},
    };
    /* -1 (no variable): the default, which reads A into registers at every size. */
    const struct {
        int setting;
        size_t size;
        int flag; /* what the setting means at the size */
    } settings[] = {{0, 8192, 0}, {1, 8192, 1},  {-1, 8192, 1}, {-1, 2048, 1},
                    {0, 2048, 0}, {-1, 2560, 1}, {-1, 2576, 1}};
    for (size_t f = 0; f < sizeof settings / sizeof settings[0]; f++) {
        h->tma_a_registers = settings[f].setting;
        const int flag = settings[f].flag;
        const size_t size = settings[f].size;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            gemm_call c = square(cases[i].t, cases[i].layout, cases[i].ta, cases[i].tb, size, size);
            if (cases[i].t == CLGEMM_INT8) c.type_c = CLGEMM_INT32;
            c.compute = cases[i].compute;
            const bool x3 = cases[i].compute == X3, tf32 = cases[i].compute == TF || x3;
            /* Without the flag TF32's MN-major column-major A (a row-major call's B) is copied
             * too. */
            const colmajor_shape shape = clgemm__colmajor_shape(&c);
            const bool a_mn = shape.trans_a == N, extra = !flag && tf32 && a_mn;
            const bool a = cases[i].a || (extra && !shape.swapped);
            const bool b = cases[i].b || (extra && shape.swapped);
            const bool chosen = cases[i].chosen || a || b;
            pack_choice p;
            cr_expect_eq(clgemm__pack_choose(h, &c, c.compute, &p), chosen, "setting %zu case %zu",
                         f, i);
            if (chosen) {
                cr_expect_eq(p.pack[0], a, "setting %zu case %zu: A", f, i);
                cr_expect_eq(p.pack[1], b, "setting %zu case %zu: B", f, i);
                /* 3xTF32 with the flag splits the MN-major column-major A in the kernel: read
                 * whole, no parts of it made; the other operand split as before. */
                const int ia = shape.swapped;
                cr_expect_eq(p.whole[ia], flag && x3 && a_mn, "setting %zu case %zu: whole", f, i);
                cr_expect_not(p.whole[!ia], "setting %zu case %zu: whole B", f, i);
                cr_expect_eq(p.residual, x3, "setting %zu case %zu: residual", f, i);
                cr_expect_eq(p.schedule.cfg.family, CLGEMM_FAMILY_TMA, "setting %zu case %zu", f,
                             i);
                if (x3) {
                    gemm_call q = clgemm__packed_call(&c, &p, NULL);
                    cr_expect_eq(q.residual.whole[ia], p.whole[ia], "setting %zu case %zu", f, i);
                }
            }
            const char *source;
            const gemm_schedule s =
                clgemm__plan_call(h, &c, &shape, c.compute, 1, false, true, &source);
            const bool plain = cases[i].plain_tma && (flag || !a_mn);
            cr_expect_eq(s.cfg.family == CLGEMM_FAMILY_TMA, plain, "setting %zu case %zu: plan", f,
                         i);
        }
    }
    /* The plan of a 3xTF32 call over parts: its MN-major column-major A read whole (the kernel
     * splits it) or not at all; a whole K-major operand never. */
    h->tma_a_registers = 1;
    gemm_call c = square(CLGEMM_SINGLE, R, N, N, 8192, 8192);
    c.compute = X3;
    c.residual.on = true;
    const colmajor_shape shape = clgemm__colmajor_shape(&c);
    const char *source;
    cr_expect_neq(clgemm__plan_call(h, &c, &shape, X3, 1, false, true, &source).cfg.family,
                  CLGEMM_FAMILY_TMA, "MN-major A as parts");
    c.residual.whole[1] = true; /* the call's B: the column-major A */
    cr_expect_eq(clgemm__plan_call(h, &c, &shape, X3, 1, false, true, &source).cfg.family,
                 CLGEMM_FAMILY_TMA, "MN-major A whole");
    c.residual.whole[0] = true;
    cr_expect_neq(clgemm__plan_call(h, &c, &shape, X3, 1, false, true, &source).cfg.family,
                  CLGEMM_FAMILY_TMA, "K-major B whole");
    clgemm_destroy(h);
}

/* wgmma transposes only 16-bit types: an INT8 or FP8 operand stored MN-major plans without the
 * tma family when it is not copied first (the copies need a workspace, and a batch past one
 * launch's grid depth is never copied), as TF32's does, instead of a kernel that cannot build. */
Test(pack, eight_bit_stored_mn_major_plans_without_maps) {
    clgemm_handle h = make_handle();
    model_h200(h);
    const clgemm_precision types[] = {CLGEMM_INT8, CLGEMM_E4M3, CLGEMM_E5M2};
    for (size_t t = 0; t < 3; t++) {
        gemm_call c = square(types[t], CLGEMM_COL_MAJOR, CLGEMM_TRANS, CLGEMM_NO_TRANS, 8192, 8192);
        c.type_c = types[t] == CLGEMM_INT8 ? CLGEMM_INT32 : CLGEMM_SINGLE;
        cr_expect(plans_tma(h, &c), "type %d K-major", (int)types[t]);
        c.trans_a = CLGEMM_NO_TRANS;
        cr_expect_not(plans_tma(h, &c), "type %d with A MN-major", (int)types[t]);
    }
    clgemm_destroy(h);
}

static cl_mem upload(clgemm_handle h, const void *host, size_t bytes) {
    cl_int err;
    cl_mem m = clCreateBuffer(h->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                              (void *)host, &err);
    cr_assert_eq(err, CL_SUCCESS);
    return m;
}

/* Kernel `name` of pack.cl built with `options` (a pack key's) on the handle's device. */
static cl_kernel pack_cl_kernel(clgemm_handle h, const char *options, const char *name) {
    cl_program program;
    cr_assert_eq(clgemm__program(&h->dev->build, NULL, "pack.cl", options, &program),
                 CLGEMM_SUCCESS);
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    cr_assert_eq(err, CL_SUCCESS);
    clReleaseProgram(program);
    return kernel;
}

/* Element (i, j) of op(X) for the call's A (second false) or B, batch b, from host storage. */
static double op_at(const gemm_call *c, const void *x, bool second, size_t b, size_t i, size_t j) {
    const bool t = (second ? c->trans_b : c->trans_a) != CLGEMM_NO_TRANS;
    const size_t ld = second ? c->ldb : c->lda, off = second ? c->off_b : c->off_a;
    const size_t stride = second ? c->stride_b : c->stride_a;
    const size_t r = t ? j : i, q = t ? i : j; /* stored row and column */
    const size_t at = off + b * stride + (c->layout == CLGEMM_COL_MAJOR ? r + q * ld : r * ld + q);
    return clgemm__element_get(c->precision, x, at, 0);
}

/* A random operand element from the generator's state: in [-1, 1) with FP32's 24 bits (FP16
 * rounds them), or an integer in -5 .. 5. */
static double value(bool integer, uint64_t seed) {
    return integer ? (double)((seed >> 40) % 11) - 5 : (double)(seed >> 40) / 8388608.0 - 1;
}

/* FP32 value v rounded to the nearest TF32 (11 significant bits), ties away from zero; the step
 * below FP32's normals is 2^-136. */
static double tf32_nearest(double v) {
    if (v == 0 || !isfinite(v)) return v;
    const int e = ilogb(v) < -126 ? -126 : ilogb(v);
    const double ulp = ldexp(1, e - 10), q = fabs(v) / ulp;
    const double r = (q - floor(q) >= 0.5 ? ceil(q) : floor(q)) * ulp;
    return v < 0 ? -r : r;
}

/* The parts the 3xTF32 mode splits a finite FP32 x into (cl/pack.cl), from their definition: big
 * is x to the nearest TF32 (truncated where that passes FLT_MAX), small is x - big to the nearest
 * TF32. */
static void split_of(float x, float *big, float *small) {
    double b = tf32_nearest(x);
    if (fabs(b) > FLT_MAX) {
        uint32_t u;
        memcpy(&u, &x, 4);
        u &= 0xFFFFE000u;
        memcpy(big, &u, 4);
    } else {
        *big = (float)b;
    }
    *small = (float)tf32_nearest((double)x - (double)*big);
}

/* Compares the parts q's call placed (clgemm__packed_call) with those of the operands it reads,
 * element by element, from a download of every buffer involved; returns the wrong count. */
static int parts_wrong(clgemm_handle h, const gemm_call *q) {
    int wrong = 0;
    for (int x = 0; x < 2; x++) {
        const bool second = x == 1;
        const bool t = (second ? q->trans_b : q->trans_a) != CLGEMM_NO_TRANS;
        const size_t r = second ? q->k : q->m, cols = second ? q->n : q->k;
        const size_t rows = t ? cols : r, cc = t ? r : cols;
        const bool col = q->layout == CLGEMM_COL_MAJOR;
        const size_t len = col ? rows : cc, lines = col ? cc : rows;
        const size_t ld = second ? q->ldb : q->lda, off = second ? q->off_b : q->off_a;
        const size_t stride = second ? q->stride_b : q->stride_a;
        const cl_mem src = second ? q->b : q->a;
        size_t sbytes, rbytes;
        clGetMemObjectInfo(src, CL_MEM_SIZE, sizeof sbytes, &sbytes, NULL);
        clGetMemObjectInfo(q->residual.mem, CL_MEM_SIZE, sizeof rbytes, &rbytes, NULL);
        float *S = malloc(sbytes), *R = malloc(rbytes);
        cr_assert_eq(clEnqueueReadBuffer(h->queue, src, CL_TRUE, 0, sbytes, S, 0, NULL, NULL),
                     CL_SUCCESS);
        cr_assert_eq(
            clEnqueueReadBuffer(h->queue, q->residual.mem, CL_TRUE, 0, rbytes, R, 0, NULL, NULL),
            CL_SUCCESS);
        for (size_t b = 0; b < q->batch; b++)
            for (size_t l = 0; l < lines; l++)
                for (size_t e = 0; e < len; e++) {
                    float big, small;
                    split_of(S[off + b * stride + l * ld + e], &big, &small);
                    const size_t at = b * q->residual.stride[x] + l * q->residual.ld[x] + e;
                    if (memcmp(&big, &R[q->residual.big[x] + at], 4) != 0 ||
                        memcmp(&small, &R[q->residual.small[x] + at], 4) != 0)
                        wrong++;
                }
        free(S);
        free(R);
    }
    return wrong;
}

/* A call's host and device operands: A and B random, C poisoned (NaN, INT32 -12345). */
typedef struct operands {
    void *A, *B, *C;
    cl_mem dA, dB, dC;
    size_t nc; /* C's elements, padding, offsets and batch gaps included */
} operands;

/* An m x n x k strided batch of `batch` of type t in layout 1 (column-major) or 0, transposes
 * from tr's bits (1: A, 2: B), every leading dimension, offset and batch stride off 16 bytes;
 * INT8 into INT32. */
static gemm_call odd_call(clgemm_precision t, int layout, int tr, size_t m, size_t n, size_t k,
                          size_t batch) {
    gemm_call c = square(t, layout ? CLGEMM_COL_MAJOR : CLGEMM_ROW_MAJOR,
                         tr & 1 ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                         tr & 2 ? CLGEMM_TRANS : CLGEMM_NO_TRANS, 0, 0);
    c.type_c = t == CLGEMM_INT8 ? CLGEMM_INT32 : t;
    c.m = m, c.n = n, c.k = k;
    const bool col = layout == 1;
    const size_t ar = (tr & 1) ? k : m, ac = (tr & 1) ? m : k; /* stored A */
    const size_t br = (tr & 2) ? n : k, bc = (tr & 2) ? k : n;
    c.lda = (col ? ar : ac) + 3;
    c.ldb = (col ? br : bc) + 5;
    c.ldc = col ? m + 1 : n + 1;
    c.off_a = 3, c.off_b = 1, c.off_c = 2;
    c.batched = true, c.batch = batch;
    c.stride_a = c.lda * (col ? ac : ar) + 7, c.stride_b = c.ldb * (col ? bc : br) + 2;
    c.stride_c = c.ldc * (col ? n : m) + 1;
    return c;
}

static void make_operands(clgemm_handle h, gemm_call *c, uint64_t *seed, operands *o) {
    const clgemm_precision t = c->precision, tc = c->type_c;
    const bool i8 = t == CLGEMM_INT8;
    const size_t e = clgemm__type(t)->size, ec = clgemm__type(tc)->size;
    const size_t na = c->off_a + c->batch * c->stride_a, nb = c->off_b + c->batch * c->stride_b;
    o->nc = c->off_c + c->batch * c->stride_c;
    o->A = malloc(na * e), o->B = malloc(nb * e), o->C = malloc(o->nc * ec);
    for (size_t i = 0; i < na + nb; i++) {
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        clgemm__element_set(t, i < na ? o->A : o->B, i < na ? i : i - na, 0, value(i8, *seed));
    }
    for (size_t i = 0; i < o->nc; i++)
        clgemm__element_set(tc, o->C, i, 0, i8 ? -12345 : NAN);
    o->dA = upload(h, o->A, na * e), o->dB = upload(h, o->B, nb * e);
    o->dC = upload(h, o->C, o->nc * ec);
    c->a = o->dA, c->b = o->dB, c->c = o->dC;
}

/* C downloaded against a double product of the host operands (INT8: exact; else within a
 * K-scaled tolerance), and every element of C's buffer outside the products still poison: the
 * wrong count. */
static int product_wrong(clgemm_handle h, const gemm_call *c, operands *o) {
    const clgemm_precision t = c->precision, tc = c->type_c;
    const bool i8 = t == CLGEMM_INT8, col = c->layout == CLGEMM_COL_MAJOR;
    const size_t ec = clgemm__type(tc)->size;
    cr_assert_eq(clEnqueueReadBuffer(h->queue, o->dC, CL_TRUE, 0, o->nc * ec, o->C, 0, NULL, NULL),
                 CL_SUCCESS);
    const double tol = i8 ? 0 : (t == CLGEMM_HALF ? 2e-3 : 2e-6) * (double)c->k;
    bool *inside = calloc(o->nc, 1);
    int wrong = 0;
    for (size_t b = 0; b < c->batch; b++)
        for (size_t i = 0; i < c->m; i++)
            for (size_t j = 0; j < c->n; j++) {
                double want = 0, mag = 0;
                for (size_t l = 0; l < c->k; l++) {
                    const double x = op_at(c, o->A, false, b, i, l) * op_at(c, o->B, true, b, l, j);
                    want += x;
                    mag += fabs(x);
                }
                const size_t at =
                    c->off_c + b * c->stride_c + (col ? i + j * c->ldc : i * c->ldc + j);
                inside[at] = true;
                const double got = clgemm__element_get(tc, o->C, at, 0);
                if (!(fabs(got - want) <= tol * (mag + 1))) wrong++; /* INT8: exact */
            }
    for (size_t at = 0; at < o->nc; at++) {
        const double v = clgemm__element_get(tc, o->C, at, 0);
        if (!inside[at] && !(i8 ? v == -12345 : isnan(v))) wrong++;
    }
    free(inside);
    return wrong;
}

static void free_operands(operands *o) {
    clReleaseMemObject(o->dA);
    clReleaseMemObject(o->dB);
    clReleaseMemObject(o->dC);
    free(o->A);
    free(o->B);
    free(o->C);
}

/* Copies of both operands and the rewritten call against a double product of the caller's
 * operands, C poisoned first, for FP32, FP16 and INT8, both layouts, all four transposes, the
 * copies transposed (for a tensor-map family), both in the operands' own layout (the alignment
 * copies), and A in its own, B transposed; FP32's with a transposed copy with the split of the
 * 3xTF32 mode too (placed beside the copies, computed from them). */
Test(pack, copies_and_rewritten_call_compute_the_callers_product, .timeout = 300) {
    clgemm_handle h = make_handle();
    const clgemm_precision types[] = {CLGEMM_SINGLE, CLGEMM_HALF, CLGEMM_INT8};
    uint64_t seed = 12345;
    for (int keep = 0; keep < 3; keep++) /* kept layouts: none, both, A only */
        for (int ti = 0; ti < 3; ti++)
            for (int layout = 0; layout < 2; layout++)
                for (int tr = 0; tr < 4; tr++) {
                    const clgemm_precision t = types[ti];
                    gemm_call c = odd_call(t, layout, tr, 37, 45, 29, 3);
                    operands o;
                    make_operands(h, &c, &seed, &o);
                    pack_choice p = {.pack = {true, true},
                                     .keep_layout = {keep >= 1, keep == 1},
                                     .residual = keep != 1 && t == CLGEMM_SINGLE};
                    clgemm__pack_layout(&c, &p);
                    /* The workspace poisoned too: only what the copies write may be read. */
                    unsigned char *poison = malloc(p.bytes);
                    memset(poison, 0xff, p.bytes);
                    cl_mem work = upload(h, poison, p.bytes);
                    free(poison);
                    kernel_key key;
                    const char *options;
                    cl_event ev[2];
                    for (int x = 0; x < 2; x++) {
                        const char *name =
                            clgemm__pack_kernel(&c, p.keep_layout[x], &key, &options);
                        cl_kernel kernel = pack_cl_kernel(h, options, name);
                        cr_assert_eq(clgemm__enqueue_pack(kernel, h->queue, &c, x == 1,
                                                          p.keep_layout[x], work, p.offset[x], 0,
                                                          NULL, &ev[x]),
                                     CL_SUCCESS);
                        clReleaseKernel(kernel);
                    }
                    gemm_call q = clgemm__packed_call(&c, &p, work);
                    cr_expect(clgemm__operand_on16(&q, false) && clgemm__operand_on16(&q, true),
                              "on 16-byte lines");
                    cr_expect((q.trans_a == c.trans_a) == p.keep_layout[0] &&
                                  (q.trans_b == c.trans_b) == p.keep_layout[1],
                              "a kept layout keeps the transpose, a transposed copy flips it");
                    if (p.residual) { /* the splits after the copies, from them */
                        clgemm__residual_kernel(&key, &options);
                        cl_kernel kernel = pack_cl_kernel(h, options, "clgemm_pack_split");
                        cl_event res[2];
                        for (int x = 0; x < 2; x++)
                            cr_assert_eq(clgemm__enqueue_residual(kernel, h->queue, &q, x == 1, 2,
                                                                  ev, &res[x]),
                                         CL_SUCCESS);
                        clReleaseKernel(kernel);
                        clReleaseEvent(ev[0]);
                        clReleaseEvent(ev[1]);
                        ev[0] = res[0], ev[1] = res[1];
                    }
                    q.queue = h->queue;
                    q.num_wait = 2, q.wait = ev;
                    cr_assert_eq(clgemm__gemm(h, &q), CLGEMM_SUCCESS, "type %d layout %d trans %d",
                                 t, layout, tr);
                    clReleaseEvent(ev[0]);
                    clReleaseEvent(ev[1]);
                    const int wrong = product_wrong(h, &c, &o);
                    cr_expect_eq(wrong, 0, "keep %d type %d layout %d trans %d: %d wrong", keep, t,
                                 layout, tr, wrong);
                    if (p.residual)
                        cr_expect_eq(parts_wrong(h, &q), 0, "layout %d trans %d: split", layout,
                                     tr);
                    clReleaseMemObject(work);
                    free_operands(&o);
                }
    clgemm_destroy(h);
}

/* clgemm_pack_lines bit for bit, for elements of 1, 2, 4, 8 and 16 bytes (INT8 ... complex
 * FP64): a column-major A of 37 x 29 in a batch of 3, offset, leading dimension and stride off
 * 16 bytes, random bytes; the copy's lines hold the elements, their ends past the matrix zeros,
 * and the workspace around the copy keeps its poison. */
Test(pack, lines_copy_moves_every_element_size_bit_for_bit) {
    clgemm_handle h = make_handle();
    const clgemm_precision types[] = {CLGEMM_INT8, CLGEMM_HALF, CLGEMM_SINGLE, CLGEMM_DOUBLE,
                                      CLGEMM_COMPLEX_DOUBLE};
    uint64_t seed = 99;
    for (int ti = 0; ti < 5; ti++) {
        const clgemm_precision t = types[ti];
        const size_t e = clgemm__type(t)->size;
        gemm_call c = odd_call(t, 1, 0, 37, 45, 29, 3);
        const size_t na = c.off_a + c.batch * c.stride_a;
        unsigned char *A = malloc(na * e);
        for (size_t i = 0; i < na * e; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            A[i] = (unsigned char)(seed >> 56);
        }
        cl_mem dA = upload(h, A, na * e);
        c.a = dA;
        pack_choice p = {.pack = {true, false}, .keep_layout = {true, false}};
        clgemm__pack_layout(&c, &p);
        const size_t slack = 4096; /* poison beyond the copy's end */
        unsigned char *W = malloc(p.bytes + slack);
        memset(W, 0xA5, p.bytes + slack);
        cl_mem work = upload(h, W, p.bytes + slack);
        kernel_key key;
        const char *options;
        const char *name = clgemm__pack_kernel(&c, true, &key, &options);
        cl_kernel kernel = pack_cl_kernel(h, options, name);
        cr_assert_eq(clgemm__enqueue_pack(kernel, h->queue, &c, false, true, work, p.offset[0], 0,
                                          NULL, NULL),
                     CL_SUCCESS);
        clReleaseKernel(kernel);
        cr_assert_eq(
            clEnqueueReadBuffer(h->queue, work, CL_TRUE, 0, p.bytes + slack, W, 0, NULL, NULL),
            CL_SUCCESS);
        const gemm_call q = clgemm__packed_call(&c, &p, work);
        const size_t len = c.m, lines = c.k, ldd = q.lda; /* column-major, A not transposed */
        cr_assert(ldd >= len && (ldd * e) % 16 == 0 && q.stride_a == lines * ldd);
        int wrong = 0;
        const size_t first = p.offset[0] * e, end = first + c.batch * lines * ldd * e;
        for (size_t at = 0; at < p.bytes + slack; at++) {
            unsigned char want = 0xA5;
            if (at >= first && at < end) {
                const size_t el = (at - first) / e, b = el / (lines * ldd);
                const size_t l = el % (lines * ldd) / ldd, qq = el % ldd;
                want = qq < len
                           ? A[(c.off_a + b * c.stride_a + l * c.lda + qq) * e + (at - first) % e]
                           : 0;
            }
            wrong += W[at] != want;
        }
        cr_expect_eq(wrong, 0, "element of %zu bytes: %d bytes wrong", e, wrong);
        clReleaseMemObject(work);
        clReleaseMemObject(dA);
        free(A);
        free(W);
    }
    clgemm_destroy(h);
}

/* The FP32 bits an FP16 or BF16 code (an INT8 value: its low byte) widens to: the value
 * exactly, and a NaN's payload kept (its quiet bit and the code's other mantissa bits, shifted
 * up as a float's). */
static uint32_t widened_bits(clgemm_precision t, uint16_t code) {
    if (t == CLGEMM_BFLOAT16) return (uint32_t)code << 16;
    if (t == CLGEMM_INT8) {
        const float f = (float)(int8_t)(uint8_t)code;
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        return bits;
    }
    if ((code & 0x7c00u) == 0x7c00u && (code & 0x3ffu))
        return (uint32_t)(code & 0x8000u) << 16 | 0x7f800000u | (uint32_t)(code & 0x3ffu) << 13;
    const float f = (float)clgemm__half_to_double(code);
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* The blocked schedule's panels of FP16, BF16 and INT8 hold FP32 (cl/pack.cl's PACK_FROM): every
 * one of the 65,536 codes (INT8: each of its 256 values 256 times), as a 256 x 256 K-block,
 * through both panel kernels (one panel a work-item, and runs of panels where the source's
 * columns lie far apart), widened exactly into panels of 16 rows; the workspace past the panels
 * keeps its poison. */
Test(pack, panels_widen_every_fp16_bf16_and_int8_code_exactly) {
    clgemm_handle h = make_handle();
    const clgemm_precision types[] = {CLGEMM_HALF, CLGEMM_BFLOAT16, CLGEMM_INT8};
    uint16_t codes[256 * 256];
    for (size_t i = 0; i < 256 * 256; i++)
        codes[i] = (uint16_t)(i * 40503u); /* odd: every code once, neighbours far apart */
    for (int ti = 0; ti < 3; ti++)
        for (int runs = 0; runs < 2; runs++) {
            const clgemm_precision t = types[ti];
            const size_t e = clgemm__type(t)->size;
            cr_assert_eq(clgemm__panel_size(t), 4);
            /* runs: 256 rows, each column 16 KB further on (qs 16 KB of elements), so pack.c
             * takes runs of panels; else columns next to each other. */
            const cl_ulong qs = runs ? 16384 / e : 256;
            unsigned char *src = calloc((size_t)qs * 256, e);
            for (size_t q = 0; q < 256; q++)
                for (size_t r = 0; r < 256; r++) {
                    const uint16_t code = codes[q * 256 + r];
                    memcpy(src + (q * qs + r) * e, &code, e); /* INT8: the low byte */
                }
            cl_mem dsrc = upload(h, src, (size_t)qs * 256 * e);
            const size_t out = 256 * 256, slack = 1024;
            uint32_t *dst = malloc((out + slack) * sizeof *dst);
            for (size_t i = 0; i < out + slack; i++)
                dst[i] = 0xA5A5A5A5u;
            cl_mem work = upload(h, dst, (out + slack) * sizeof *dst);
            const panel_source ps = {dsrc, 0, 1, qs, 256, 256, 16};
            const int run = clgemm__pack_panels_run(&ps, clgemm__type(t)->size);
            cr_assert_eq(run > 1, runs == 1, "%s: run %d", clgemm__type(t)->name, run);
            kernel_key key;
            const char *options;
            const char *name =
                clgemm__pack_panels_kernel(t, run > 1 ? PANELS_RUNS : PANELS_ONE, &key, &options);
            cl_kernel kernel = pack_cl_kernel(h, options, name);
            size_t global[2], local[2];
            cr_assert_eq(clgemm__pack_panels_args(kernel, &ps, run, work, 0, global, local),
                         CL_SUCCESS);
            cr_assert_eq(
                clEnqueueNDRangeKernel(h->queue, kernel, 2, NULL, global, local, 0, NULL, NULL),
                CL_SUCCESS);
            cr_assert_eq(clEnqueueReadBuffer(h->queue, work, CL_TRUE, 0,
                                             (out + slack) * sizeof *dst, dst, 0, NULL, NULL),
                         CL_SUCCESS);
            int wrong = 0;
            for (size_t panel = 0; panel < 16; panel++)
                for (size_t q = 0; q < 256; q++)
                    for (size_t row = 0; row < 16; row++) {
                        const uint16_t code = codes[q * 256 + panel * 16 + row] &
                                              (t == CLGEMM_INT8 ? 0xffu : 0xffffu);
                        const uint32_t got = dst[(panel * 256 + q) * 16 + row];
                        if (got != widened_bits(t, code) && wrong++ < 3)
                            cr_log_error("%s code %04x: %08x, want %08x", clgemm__type(t)->name,
                                         code, got, widened_bits(t, code));
                    }
            for (size_t i = out; i < out + slack; i++)
                wrong += dst[i] != 0xA5A5A5A5u;
            cr_expect_eq(wrong, 0, "%s, %s: %d wrong", clgemm__type(t)->name,
                         run > 1 ? "runs" : "one panel a work-item", wrong);
            clReleaseKernel(kernel);
            clReleaseMemObject(work);
            clReleaseMemObject(dsrc);
            free(src);
            free(dst);
        }
    clgemm_destroy(h);
}

/* INT8's panels sum in FP32, exact while a K-block's sums stay within 2^24: the planner caps the
 * K-blocks at 1024 steps whatever CLGEMM_PACK_KC asks. With 127 everywhere each product is
 * 16,129 (odd), so one FP32 sum over all of K = 3000 (48,387,000 in the end) would lose its low
 * bits past 2^24; random values against an exact integer product besides. */
Test(pack, int8_blocked_sums_are_exact_at_the_deepest_k_block, .timeout = 300) {
    setenv("CLGEMM_PACK_KC", "65536", 1);
    clgemm_handle h = make_handle();
    const size_t m = 97, n = 40, k = 3000;
    int8_t *a = malloc(m * k), *b = malloc(k * n);
    int32_t *out = malloc(m * n * sizeof *out);
    const cl_int one = 1, zero = 0;
    uint64_t seed = 7;
    for (int fill = 0; fill < 2; fill++) {
        for (size_t i = 0; i < m * k; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            a[i] = fill ? (int8_t)(seed >> 56) : 127;
        }
        for (size_t i = 0; i < k * n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            b[i] = fill ? (int8_t)(seed >> 56) : 127;
        }
        for (size_t i = 0; i < m * n; i++)
            out[i] = INT32_MIN; /* poison */
        cr_assert_eq(clgemm_gemm_ex_host(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, m,
                                         n, k, &one, a, k, b, n, &zero, out, n, CLGEMM_INT8,
                                         CLGEMM_INT32, CLGEMM_COMPUTE_DEFAULT),
                     CLGEMM_SUCCESS);
        int wrong = 0;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                int64_t want = 0;
                for (size_t p = 0; p < k; p++)
                    want += (int64_t)a[i * k + p] * b[p * n + j];
                if (out[i * n + j] != (int32_t)want && wrong++ < 3)
                    cr_log_error("%s: C(%zu, %zu) %d, want %lld", fill ? "random" : "127", i, j,
                                 out[i * n + j], (long long)want);
            }
        cr_expect_eq(wrong, 0, "%s values: %d of C wrong", fill ? "random" : "127", wrong);
    }
    clgemm_config cfg;
    cr_assert_eq(clgemm_get_config_ex(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, m, n,
                                      k, CLGEMM_INT8, CLGEMM_INT32, CLGEMM_COMPUTE_DEFAULT, &cfg,
                                      NULL),
                 CLGEMM_SUCCESS);
    const schedule_force forced = {0, -1, -1, 65536, 0};
    const gemm_schedule s = clgemm__plan_schedule(&cfg, &h->info, &forced, CLGEMM_INT8,
                                                  CLGEMM_INT32, n, m, k, 1, false);
    /* (on a device whose planned family has the blocked schedule: a CPU's micro-kernel) */
    if (clgemm__family(cfg.family)->pack_depth)
        cr_expect_eq(s.pack_kc, CLGEMM__INT8_PANEL_MAX_DEPTH, "K-blocks of %d steps", s.pack_kc);
    free(a);
    free(b);
    free(out);
    clgemm_destroy(h);
}

/* The alignment copies (CLGEMM_ALIGN_COPIES): on a modelled H200, FP64 4097^2 copies both operands
 * in their own layout by default or where the handle asks, neither with 0 (over the copies the
 * tma_fp64 family where A is MN-major, else the mma family, whose scalar-load path they spare); by
 * default only an operand re-read at least 1536 times (8193 x 65 x 8193: only B), only for a family
 * where the copies pay (not FP32's register-blocked family) and only on the device where that was
 * measured (compute capability 9.0); only the operand off 16 bytes is copied; none for aligned
 * operands, a broadcast operand or a batch table; a TF32 call with B stored MN-major still takes
 * the tensor-map copies first, and a TF32 or 3xTF32 operand off 16 bytes and K-major reaches the
 * maps through a copy in its own layout unless the handle says never. */
Test(pack, alignment_copies_chosen_where_they_pay) {
    clgemm_handle h = make_handle();
    model_h200(h);
    const clgemm_transpose N = CLGEMM_NO_TRANS;
    gemm_call odd = square(CLGEMM_DOUBLE, CLGEMM_COL_MAJOR, N, N, 4097, 4097);
    pack_choice p;
    cr_expect_eq(h->align_copies, -1, "default without CLGEMM_ALIGN_COPIES");
    cr_assert(clgemm__pack_choose(h, &odd, CLGEMM_COMPUTE_DEFAULT, &p), "default: copied");
    cr_expect(p.pack[0] && p.pack[1] && p.keep_layout[0] && p.keep_layout[1]);
    cr_expect_eq(p.schedule.cfg.family, CLGEMM_FAMILY_TMA_FP64, "A MN-major: the maps' family");
    gemm_call odd_tn = odd; /* A K-major: the mma family over the copies */
    odd_tn.trans_a = CLGEMM_TRANS;
    cr_assert(clgemm__pack_choose(h, &odd_tn, CLGEMM_COMPUTE_DEFAULT, &p), "A K-major: copied");
    cr_expect(p.pack[0] && p.pack[1] && p.schedule.cfg.family == CLGEMM_FAMILY_MMA);
    gemm_call small = square(CLGEMM_DOUBLE, CLGEMM_COL_MAJOR, N, N, 1025, 1025);
    cr_expect_not(clgemm__pack_choose(h, &small, CLGEMM_COMPUTE_DEFAULT, &p), "1025^2: none");
    gemm_call narrow = odd;
    narrow.n = 65;
    cr_assert(clgemm__pack_choose(h, &narrow, CLGEMM_COMPUTE_DEFAULT, &p), "narrow: B copied");
    cr_expect(!p.pack[0] && p.pack[1], "A re-read 65 times stays where it lies");
    narrow.n = 1535;
    cr_assert(clgemm__pack_choose(h, &narrow, CLGEMM_COMPUTE_DEFAULT, &p));
    cr_expect(!p.pack[0] && p.pack[1], "A re-read 1535 times stays");
    narrow.n = 1536;
    cr_assert(clgemm__pack_choose(h, &narrow, CLGEMM_COMPUTE_DEFAULT, &p));
    cr_expect(p.pack[0] && p.pack[1], "A re-read 1536 times is copied");
    gemm_call fp32 = square(CLGEMM_SINGLE, CLGEMM_COL_MAJOR, N, N, 4097, 4097);
    fp32.n = 4196; /* (100 columns past 4096: not peeled, 32 x 17 tiles) */
    cr_expect_not(clgemm__pack_choose(h, &fp32, CLGEMM_COMPUTE_DEFAULT, &p),
                  "FP32: its family gains nothing from them");
    /* (4097^2 takes the MN-major copies: tma_simt, 4096^2's tiles, the rest peeled) */
    fp32.n = 4097;
    cr_assert(clgemm__pack_choose(h, &fp32, CLGEMM_COMPUTE_DEFAULT, &p), "FP32 4097^2");
    cr_expect(p.pack[0] && p.pack[1] && p.keep_layout[0] && !p.keep_layout[1]);
    cr_expect_eq(p.schedule.cfg.family, CLGEMM_FAMILY_TMA_SIMT);
    cr_expect(p.schedule.peeled && p.schedule.main_m == 4096 && p.schedule.main_n == 4096);
    h->info.nv_compute_capability = 80; /* not measured there: read in place */
    cr_expect_not(clgemm__pack_choose(h, &odd, CLGEMM_COMPUTE_DEFAULT, &p), "sm_80: none");
    h->info.nv_compute_capability = 90;
    h->align_copies = 0;
    cr_expect_not(clgemm__pack_choose(h, &odd, CLGEMM_COMPUTE_DEFAULT, &p), "0: none");
    h->align_copies = 1;
    cr_expect(clgemm__pack_choose(h, &small, CLGEMM_COMPUTE_DEFAULT, &p), "1: 1025^2 too");
    cr_assert(clgemm__pack_choose(h, &odd, CLGEMM_COMPUTE_DEFAULT, &p), "1: copied (family %d)",
              (int)p.schedule.cfg.family);
    cr_expect(p.keep_layout[0] && p.keep_layout[1] && p.pack[0] && p.pack[1] && !p.residual);
    cr_expect_eq(p.schedule.cfg.family, CLGEMM_FAMILY_TMA_FP64);
    gemm_call q = clgemm__packed_call(&odd, &p, NULL);
    cr_expect(q.trans_a == N && q.trans_b == N && q.lda == 4098 && q.ldb == 4098);
    gemm_call half = odd;
    half.lda = 4098;
    cr_assert(clgemm__pack_choose(h, &half, CLGEMM_COMPUTE_DEFAULT, &p));
    cr_expect(!p.pack[0] && p.pack[1], "only B is off 16 bytes");
    gemm_call aligned = square(CLGEMM_DOUBLE, CLGEMM_COL_MAJOR, N, N, 4096, 4096);
    cr_expect_not(clgemm__pack_choose(h, &aligned, CLGEMM_COMPUTE_DEFAULT, &p), "aligned");
    gemm_call broadcast = odd;
    broadcast.batched = true, broadcast.batch = 4, broadcast.stride_a = 0;
    broadcast.stride_b = broadcast.stride_c = 4097 * 4097;
    cr_expect_not(clgemm__pack_choose(h, &broadcast, CLGEMM_COMPUTE_DEFAULT, &p), "broadcast");
    const size_t offs[1] = {0};
    gemm_call table = odd;
    table.batched = true, table.batch = 1, table.offs_a = offs;
    cr_expect_not(clgemm__pack_choose(h, &table, CLGEMM_COMPUTE_DEFAULT, &p), "table");
    gemm_call tf32 = square(CLGEMM_SINGLE, CLGEMM_COL_MAJOR, N, CLGEMM_TRANS, 8192, 8192);
    cr_assert(clgemm__pack_choose(h, &tf32, CLGEMM_COMPUTE_TF32, &p));
    cr_expect(!p.keep_layout[0] && !p.keep_layout[1] && p.schedule.cfg.family == CLGEMM_FAMILY_TMA,
              "maps first");
    /* TF32 4097^2 row-major NN: the column-major A (the call's B) MN-major, transposed into a
     * copy; the column-major B (the call's A) K-major but off 16 bytes, which only a copy in its
     * own layout lets a map read, unless the handle says never: then no copies, no maps. */
    gemm_call odd32 = square(CLGEMM_SINGLE, CLGEMM_ROW_MAJOR, N, N, 4097, 4097);
    const clgemm_compute modes[] = {CLGEMM_COMPUTE_TF32, CLGEMM_COMPUTE_FP32_3XTF32};
    for (int i = 0; i < 2; i++) {
        h->align_copies = 0;
        cr_expect_not(clgemm__pack_choose(h, &odd32, modes[i], &p), "mode %d with 0", i);
        h->align_copies = -1;
        cr_assert(clgemm__pack_choose(h, &odd32, modes[i], &p), "mode %d by default", i);
        cr_expect(p.pack[0] && p.pack[1] && p.keep_layout[0] && !p.keep_layout[1],
                  "the call's A kept, its B transposed");
        cr_expect_eq(p.residual, i == 1);
        cr_expect_eq(p.schedule.cfg.family, CLGEMM_FAMILY_TMA);
    }
    clgemm_destroy(h);
}

/* The alignment copies end to end on this device (clgemm__gemm as the API calls it), asked
 * for by the handle: FP32 and FP64 batches with every leading dimension, offset and stride off
 * 16 bytes, both layouts, all transposes, against the double product, C poisoned; each call
 * copies where the family planned over the copies builds per alignment. */
Test(pack, alignment_copies_compute_the_callers_product, .timeout = 300) {
    clgemm_handle h = make_handle();
    h->align_copies = 1;
    cl_uint fp64 = 0;
    clGetDeviceInfo(h->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    const clgemm_precision types[] = {CLGEMM_SINGLE, CLGEMM_DOUBLE};
    uint64_t seed = 777;
    int copies = 0;
    for (int ti = 0; ti < (fp64 ? 2 : 1); ti++)
        for (int layout = 0; layout < 2; layout++)
            for (int tr = 0; tr < 4; tr++) {
                gemm_call c = odd_call(types[ti], layout, tr, 70, 33, 41, 2);
                operands o;
                make_operands(h, &c, &seed, &o);
                pack_choice p;
                const bool copied = clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p);
                cr_expect(!copied || (p.keep_layout[0] && p.keep_layout[1]), "alignment copies");
                copies += copied;
                c.queue = h->queue;
                cr_assert_eq(clgemm__gemm(h, &c), CLGEMM_SUCCESS);
                const int wrong = product_wrong(h, &c, &o);
                cr_expect_eq(wrong, 0, "type %d layout %d trans %d: %d wrong", types[ti], layout,
                             tr, wrong);
                free_operands(&o);
            }
    /* The planner's families on a CPU (PoCL in CI) build per alignment: the copies ran (a GPU
     * plans these small products on tiles that read any alignment alike). */
    if (h->info.cls == DEVICE_CPU)
        cr_expect(copies > 0, "no call made the alignment copies on this device");
    clgemm_destroy(h);
}

/* The copies are the product's launch hook (src/exec/gemm.c): enqueued right before its first
 * launch, whichever way the schedule launches it. Alignment copies under each kind of schedule
 * the handle can force on PoCL's micro-kernel family (plain, K split, the blocked K loop; stream-K
 * and peeled strips, which launch through another path, are NVIDIA's families' and reach the
 * copies only there), each checked to be the kind planned over the copies and to have run, and
 * the product checked in full. */
Test(pack, alignment_copies_before_every_kind_of_schedule, .timeout = 300) {
    clgemm_handle h = make_handle();
    h->align_copies = 1;
    if (h->info.cls != DEVICE_CPU) cr_skip_test("the copies' schedules are forced on PoCL's CPU");
    enum { PLAIN, SPLIT, BLOCKED, KINDS };
    const char *names[KINDS] = {"plain", "split", "blocked"};
    uint64_t seed = 4242;
    for (int kind = 0; kind < KINDS; kind++) {
        h->ksplit = kind == SPLIT ? 3 : 0;
        h->pack_kc = kind == BLOCKED ? 16 : -1;
        int ran = 0;
        for (int tr = 0; tr < 4; tr++) {
            gemm_call c = odd_call(CLGEMM_SINGLE, tr & 1, tr, 70, 33, 41, 1);
            c.batched = false;
            pack_choice p;
            if (!clgemm__pack_choose(h, &c, CLGEMM_COMPUTE_DEFAULT, &p)) continue;
            const gemm_schedule *s = &p.schedule;
            const int planned = s->pack_kc > 0 ? BLOCKED : s->splits > 1 ? SPLIT : PLAIN;
            if (planned != kind || s->groups > 0 || s->peeled) continue;
            operands o;
            make_operands(h, &c, &seed, &o);
            c.queue = h->queue;
            cr_assert_eq(clgemm__gemm(h, &c), CLGEMM_SUCCESS, "%s trans %d", names[kind], tr);
            const int wrong = product_wrong(h, &c, &o);
            cr_expect_eq(wrong, 0, "%s trans %d: %d wrong", names[kind], tr, wrong);
            ran++;
            free_operands(&o);
        }
        cr_expect(ran > 0, "no %s schedule over the alignment copies", names[kind]);
    }
    clgemm_destroy(h);
}

/* clgemm_get_config_ex answers with what the call runs: on the copies where it makes them. */
Test(pack, get_config_names_the_configuration_of_the_copies) {
    clgemm_handle h = make_handle();
    model_h200(h);
    clgemm_config cfg;
    cr_assert_eq(clgemm_get_config_ex(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 8192,
                                      8192, 8192, CLGEMM_SINGLE, CLGEMM_SINGLE, CLGEMM_COMPUTE_TF32,
                                      &cfg, NULL),
                 CLGEMM_SUCCESS);
    cr_expect_eq(cfg.family, CLGEMM_FAMILY_TMA);
    cr_assert_eq(clgemm_get_config_ex(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 8192,
                                      8192, 8192, CLGEMM_SINGLE, CLGEMM_SINGLE,
                                      CLGEMM_COMPUTE_DEFAULT, &cfg, NULL),
                 CLGEMM_SUCCESS);
    cr_expect_neq(cfg.family, CLGEMM_FAMILY_TMA, "FP32 arithmetic: no TF32, no copies");
    clgemm_destroy(h);
}

/* clgemm_get_config_operands answers for the operands as they lie: TF32 4097^2 row-major NN on a
 * modelled H200 reaches the tma family only over the copies in the operands' own layout, so with
 * CLGEMM_ALIGN_COPIES=0 it names another family; on 16-byte rows it agrees with
 * clgemm_get_config_ex; a leading dimension too small gets clgemm_gemm_ex's status. */
Test(pack, get_config_operands_follows_the_operands_alignment) {
    clgemm_handle h = make_handle();
    model_h200(h);
    const clgemm_transpose N = CLGEMM_NO_TRANS;
    const clgemm_layout R = CLGEMM_ROW_MAJOR;
    const clgemm_precision S = CLGEMM_SINGLE;
    clgemm_config cfg, ex;
    cr_assert_eq(clgemm_get_config_operands(h, R, N, N, 4097, 4097, 4097, S, S, CLGEMM_COMPUTE_TF32,
                                            0, 4097, 0, 4097, &cfg, NULL),
                 CLGEMM_SUCCESS);
    cr_expect_eq(cfg.family, CLGEMM_FAMILY_TMA, "over the copies");
    h->align_copies = 0;
    cr_assert_eq(clgemm_get_config_operands(h, R, N, N, 4097, 4097, 4097, S, S, CLGEMM_COMPUTE_TF32,
                                            0, 4097, 0, 4097, &cfg, NULL),
                 CLGEMM_SUCCESS);
    cr_expect_neq(cfg.family, CLGEMM_FAMILY_TMA, "no copies in their own layout: no maps");
    cr_assert_eq(
        clgemm_get_config_ex(h, R, N, N, 4097, 4097, 4097, S, S, CLGEMM_COMPUTE_TF32, &ex, NULL),
        CLGEMM_SUCCESS);
    cr_expect_eq(ex.family, CLGEMM_FAMILY_TMA, "get_config_ex: 16-byte rows");
    cr_assert_eq(clgemm_get_config_operands(h, R, N, N, 4097, 4097, 4097, S, S, CLGEMM_COMPUTE_TF32,
                                            4, 4100, 8, 4100, &cfg, NULL),
                 CLGEMM_SUCCESS);
    cr_expect(memcmp(&cfg, &ex, sizeof cfg) == 0, "on 16-byte rows: the same answer");
    cr_expect_eq(clgemm_get_config_operands(h, R, N, N, 4097, 4097, 4097, S, S, CLGEMM_COMPUTE_TF32,
                                            0, 4096, 0, 4097, &cfg, NULL),
                 CLGEMM_ERR_INVALID_LD_A);
    cr_expect_eq(clgemm_get_config_operands(h, R, N, N, 4097, 4097, 4097, S, S, CLGEMM_COMPUTE_TF32,
                                            0, 4097, 0, 10, &cfg, NULL),
                 CLGEMM_ERR_INVALID_LD_B);
    cr_expect_eq(clgemm_get_config_operands(h, R, N, N, 4097, 4097, 4097, S, S, CLGEMM_COMPUTE_TF32,
                                            0, 4097, 0, 4097, NULL, NULL),
                 CLGEMM_ERR_NULL_ARGUMENT);
    clgemm_destroy(h);
}

/* 8-bit operands reach the tma family only K-major and only where it is forced or tuned (no
 * defaults until measured): a forced INT8 configuration (KWG 128: one 128-byte row) is legal on the
 * H200, one of 64 is not; row-major NN then copies B (the column-major A), column-major TN
 * copies nothing; without the forced configuration nothing is copied. */
Test(pack, eight_bit_operands_copied_for_the_tma_family) {
    clgemm_handle h = make_handle();
    model_h200(h);
    const clgemm_transpose N = CLGEMM_NO_TRANS, T = CLGEMM_TRANS;
    gemm_call nn = square(CLGEMM_INT8, CLGEMM_ROW_MAJOR, N, N, 8192, 8192);
    nn.type_c = CLGEMM_INT32;
    gemm_call tn = square(CLGEMM_INT8, CLGEMM_COL_MAJOR, T, N, 8192, 8192);
    tn.type_c = CLGEMM_INT32;
    pack_choice p;
    /* The defaults take the family for 8-bit squares: row-major NN's B (MN-major) is copied. */
    cr_assert(clgemm__pack_choose(h, &nn, CLGEMM_COMPUTE_DEFAULT, &p), "defaults");
    cr_expect(!p.pack[0] && p.pack[1], "row-major NN: B copied");
    cr_expect_eq(p.schedule.cfg.family, CLGEMM_FAMILY_TMA);
    cr_expect_not(clgemm__pack_choose(h, &tn, CLGEMM_COMPUTE_DEFAULT, &p), "K-major: none");
    /* A forced configuration of the 8-bit slice depth is copied for too; another depth is not
     * legal for the type. */
    clgemm_config bad = {.family = CLGEMM_FAMILY_TMA, .params = {128, 256, 64, 4}};
    cr_expect_neq(clgemm__config_check(&bad, &h->info, CLGEMM_INT8), CLGEMM_SUCCESS);
    clgemm_config cfg = {.family = CLGEMM_FAMILY_TMA, .params = {128, 128, 128, 6}};
    cr_assert_eq(clgemm__config_check(&cfg, &h->info, CLGEMM_INT8), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm__config_check(&cfg, &h->info, CLGEMM_E4M3), CLGEMM_SUCCESS);
    h->has_override[CLGEMM_INT8] = true;
    h->override[CLGEMM_INT8] = cfg;
    gemm_call small = square(CLGEMM_INT8, CLGEMM_ROW_MAJOR, N, N, 256, 256);
    small.type_c = CLGEMM_INT32;
    cr_assert(clgemm__pack_choose(h, &small, CLGEMM_COMPUTE_DEFAULT, &p), "forced, 256^2");
    cr_expect(!p.pack[0] && p.pack[1], "row-major NN: B copied");
    clgemm_destroy(h);
}

/* The split kernel on values of every kind (cl/pack.cl): for a finite x both parts are TF32
 * values (their low 13 bits clear), big + small is x within 2^-23 |x| (near FP32's subnormals,
 * where a TF32 step is 2^-136, within half that), |small| within 2^-11 |x| (2^-10 where rounding
 * would pass FLT_MAX), both equal to the definition's (split_of); an infinite x or a NaN gives a
 * NaN small part (so its products are NaN, as the other families' 3xTF32 split). Nothing past
 * each line is written. */
Test(pack, split_of_every_kind_of_value) {
    clgemm_handle h = make_handle();
    enum { COUNT = 4096, LD = 68, SMALL = 5 + 64 * LD };
    static float x[COUNT], big[COUNT], small[COUNT];
    const float special[] = {0.0f,          -0.0f,
                             1.0f,          -1.0f,
                             FLT_MAX,       -FLT_MAX,
                             0x1p-149f,     0x1.fffffcp-127f,
                             0x1.0017fep0f, 0x1.001000p0f,
                             0x1.003000p0f, INFINITY,
                             -INFINITY,     NAN};
    const size_t ns = sizeof special / sizeof special[0];
    uint64_t seed = 99;
    for (size_t i = 0; i < COUNT; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t bits = (uint32_t)(seed >> 32);
        if ((bits & 0x7F800000u) == 0x7F800000u) bits &= 0xBFFFFFFFu; /* finite */
        memcpy(&x[i], &bits, 4);
        if (i < ns) x[i] = special[i];
    }
    gemm_call q;
    memset(&q, 0, sizeof q);
    q.precision = q.type_c = CLGEMM_SINGLE;
    q.layout = CLGEMM_COL_MAJOR;
    q.trans_a = CLGEMM_TRANS; /* A stored K x M: 64 lines of 64 */
    q.m = q.k = 64;
    q.n = 1;
    q.lda = 64;
    q.a = upload(h, x, sizeof x);
    q.residual = (residual_operands){.on = true, .big = {5, 0}, .small = {SMALL, 0}, .ld = {LD, 0}};
    const size_t bytes = (size_t)(SMALL + 64 * LD) * 4;
    void *poison = malloc(bytes);
    memset(poison, 0xff, bytes);
    q.residual.mem = upload(h, poison, bytes);
    free(poison);
    kernel_key key;
    const char *options;
    clgemm__residual_kernel(&key, &options);
    cl_kernel kernel = pack_cl_kernel(h, options, "clgemm_pack_split");
    cr_assert_eq(clgemm__enqueue_residual(kernel, h->queue, &q, false, 0, NULL, NULL), CL_SUCCESS);
    float *all = malloc(bytes);
    cr_assert_eq(
        clEnqueueReadBuffer(h->queue, q.residual.mem, CL_TRUE, 0, bytes, all, 0, NULL, NULL),
        CL_SUCCESS);
    int written = 0;
    for (size_t l = 0; l < 64; l++)
        for (size_t e = 0; e < LD; e++)
            for (int part = 0; part < 2; part++) {
                const float v = all[(part ? SMALL : 5) + l * LD + e];
                uint32_t u;
                memcpy(&u, &v, 4);
                if (e >= 64)
                    written += u != 0xFFFFFFFFu;
                else
                    (part ? small : big)[l * 64 + e] = v;
            }
    cr_expect_eq(written, 0, "%d elements written past the lines", written);
    int wrong = 0;
    for (size_t i = 0; i < COUNT; i++) {
        uint32_t ub, us;
        memcpy(&ub, &big[i], 4);
        memcpy(&us, &small[i], 4);
        const double xd = x[i], rest = (double)big[i] + (double)small[i] - xd;
        float want_big, want_small;
        bool ok;
        if (!isfinite(x[i])) {
            ok = isnan(small[i]) && (isnan(x[i]) ? isnan(big[i]) : big[i] == x[i]);
        } else {
            split_of(x[i], &want_big, &want_small);
            const double near_max = fabs(xd) > 0x1.ffffep127 ? 2 : 1;
            ok = (ub & 0x1FFFu) == 0 && (us & 0x1FFFu) == 0 &&
                 fabs(rest) <= fmax(0x1p-23 * fabs(xd), 0x1p-137) &&
                 fabs(small[i]) <= near_max * 0x1p-11 * fabs(xd) + 0x1p-137 &&
                 memcmp(&big[i], &want_big, 4) == 0 && memcmp(&small[i], &want_small, 4) == 0;
        }
        if (!ok && wrong++ < 5)
            cr_log_error("x %a: big %a small %a", xd, (double)big[i], (double)small[i]);
    }
    cr_expect_eq(wrong, 0, "%d wrong splits", wrong);
    free(all);
    clReleaseKernel(kernel);
    clReleaseMemObject(q.a);
    clReleaseMemObject(q.residual.mem);
    clgemm_destroy(h);
}
