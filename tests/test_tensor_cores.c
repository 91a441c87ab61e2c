/* test_tensor_cores.c: every parameter set the tuner may pick for the NVIDIA tensor-core
 * families (tma and wgmma, and mma.sync beside them; tma_simt, FP32 on the CUDA cores fed by the
 * tma family's copies; tma_fp64, FP64 on the DMMA tensor cores fed by them), every type they run
 * (FP64 on tma_fp64; FP16 and BF16 with C in
 * the input type or FP32, FP32 in the TF32 and 3xTF32 compute modes, INT8 into INT32, FP8 E4M3
 * and E5M2 with C in FP32 or BF16: on tma and on mma.sync), both layouts, every transpose pair
 * (8-bit and TF32 operands stored MN-major reach the tma family through its copies; mma.sync
 * transposes 8-bit ones on their way into local memory), edge shapes below, at and above the
 * tiles, long K, padded leading dimensions with offsets, K split into 3 layers, and strided and
 * table batches: the result against a long-double reference of the rounded inputs, everything
 * outside C bit for bit unchanged. One test is one family, configuration and type of A and B; where
 * the device lacks the family (every device but the ones it is for, PoCL in CI included) the test
 * is skipped, so this suite runs on the GPU machine. */
#include "tensor_core_candidates.h"
#include "typed.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct tc_case {
    clgemm_family family;
    int index; /* into the family's --quick list (the tuner's candidates) */
    clgemm_precision ab;
    clgemm_compute compute;
} tc_case;

typedef struct shape {
    size_t m, n, k;
} shape;
/* Scalars, sizes off every tile, one slice and a bit of K, a 2 x 2 grid of 128 x 256 tiles with
 * ragged edges, and a long K. */
static const shape shapes[] = {{1, 1, 1},       {7, 5, 3},     {65, 129, 17}, {257, 300, 100},
                               {130, 260, 600}, {64, 256, 16}, {198, 90, 40}};
static const double scalars[][2] = {{1, 0}, {-0.5, 1.25}, {1.5, -0.75}};

static bool candidate(clgemm_family family, int index, clgemm_config *out);

/* Whether the comma-separated list names the type of A and B (no list: every type). */
static bool type_listed(const char *list, clgemm_precision type) {
    if (!list || !*list) return true;
    const char *name = type == CLGEMM_HALF       ? "h"
                       : type == CLGEMM_BFLOAT16 ? "bf16"
                       : type == CLGEMM_SINGLE   ? "s"
                       : type == CLGEMM_DOUBLE   ? "d"
                       : type == CLGEMM_INT8     ? "i8"
                       : type == CLGEMM_E4M3     ? "e4m3"
                       : type == CLGEMM_E5M2     ? "e5m2"
                                                 : "?";
    const size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const size_t word = strcspn(p, ",");
        if (word == len && strncmp(p, name, len) == 0) return true;
        p += word + (p[word] == ',');
    }
    return false;
}

static void run_case(const tc_case *tc) {
    /* TC_FAMILY=wgmma (or mma): only that family's cases, for a device run of one family;
     * TC_TYPES=i8,e4m3,e5m2 (of h, bf16, s, d, i8, e4m3, e5m2): only those types of A and B. */
    const char *only = getenv("TC_FAMILY");
    if (only && *only && strcmp(only, clgemm_family_name(tc->family)) != 0)
        cr_skip_test("TC_FAMILY=%s", only);
    if (!type_listed(getenv("TC_TYPES"), tc->ab)) cr_skip_test("TC_TYPES=%s", getenv("TC_TYPES"));
    /* TC_COMPUTE=2 (a clgemm_compute): only that compute mode's cases. */
    const char *mode = getenv("TC_COMPUTE");
    if (mode && *mode && atoi(mode) != (int)tc->compute) cr_skip_test("TC_COMPUTE=%s", mode);
    TC_OPEN_HANDLE_OR_SKIP(env, h);
    clgemm_config cfg;
    if (!candidate(tc->family, tc->index, &cfg)) cr_skip_test("no candidate %d", tc->index);
    clgemm_status st = clgemm_check_config(h, tc->ab, &cfg);
    char desc[200];
    clgemm_config_string(&cfg, desc, sizeof desc);
    /* TC_MATCH=PERSIST=2: only candidates whose description (clgemm_config_string) holds it. */
    const char *match = getenv("TC_MATCH");
    if (match && *match && !strstr(desc, match)) {
        clgemm_destroy(h);
        tc_close(&env);
        cr_skip_test("TC_MATCH=%s", match);
    }
    if (st != CLGEMM_SUCCESS) {
        clgemm_destroy(h);
        tc_close(&env);
        cr_skip_test("%s for type %d: %s", desc, (int)tc->ab, clgemm_status_string(st));
    }
    cr_assert_eq(clgemm_set_config(h, tc->ab, &cfg), CLGEMM_SUCCESS);
    /* C's types: the input type and FP32; INT8's only INT32; FP8's FP32 and BF16; FP64's only
     * FP64. */
    const bool fp8 = tc->ab == CLGEMM_E4M3 || tc->ab == CLGEMM_E5M2;
    const clgemm_precision cs[2] = {tc->ab == CLGEMM_INT8 ? CLGEMM_INT32
                                    : fp8                 ? CLGEMM_BFLOAT16
                                                          : tc->ab,
                                    CLGEMM_SINGLE};
    const int c_types =
        tc->ab == CLGEMM_SINGLE || tc->ab == CLGEMM_INT8 || tc->ab == CLGEMM_DOUBLE ? 1 : 2;
    size_t bad = 0, runs = 0;
    char msg[2048], first[2100] = "";
    uint64_t seed = 7;
    for (int split = 0; split < 2; split++) {
        if (split) setenv("CLGEMM_KSPLIT", "3", 1);
        clgemm_handle hs = h;
        if (split) {
            cr_assert_eq(clgemm_create(&hs, env.queue), CLGEMM_SUCCESS);
            cr_assert_eq(clgemm_set_config(hs, tc->ab, &cfg), CLGEMM_SUCCESS);
        }
        for (int c = 0; c < c_types; c++)
            for (int l = 0; l < 2; l++)
                for (int ta = 0; ta < 2; ta++)
                    for (int tb = 0; tb < 2; tb++)
                        for (size_t s = split ? 3 : 0; s < COUNT(shapes); s++) {
                            size_t a = seed % COUNT(scalars);
                            tt_gemm g = {TT_PROBLEM(tc->ab, cs[c],
                                                    l ? CLGEMM_ROW_MAJOR : CLGEMM_COL_MAJOR,
                                                    ta ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                                                    tb ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                                                    shapes[s].m, shapes[s].n, shapes[s].k),
                                         .alpha = {scalars[a][0], 0},
                                         .beta = {seed % 2 ? scalars[a][1] : 0, 0}, .tail = 3,
                                         .compute = tc->compute};
                            if ((s + seed) % 2) { /* padded, offset: the element-wise loads */
                                tt_pad_ld(&g, 3, 5, 2);
                                g.off_a = 3;
                                g.off_b = 5;
                                g.off_c = 7;
                            } else if (seed % 2 == 0) { /* beta 0, C's columns 16-byte aligned */
                                g.ldc =
                                    (tc_min_ld(g.layout, CLGEMM_NO_TRANS, g.m, g.n) + 7) / 8 * 8;
                            }
                            int rc = tt_run(&env, hs, &g, seed, 0, seed % 3 == 0 ? TT_RUN_HOST : 0,
                                            msg, sizeof msg);
                            seed++;
                            runs++;
                            if (rc) {
                                if (!bad++)
                                    snprintf(first, sizeof first, "%s%s", split ? "[split 3] " : "",
                                             msg);
                            }
                        }
        /* Batches: strided (one rank-3 map per operand on the tma family) in both layouts and
         * every transpose, and a table batch (which no map describes), a matrix of several
         * tiles or one ragged tile. */
        for (int form = 0; !split && form < 9; form++) {
            const int l = form & 1, ta = (form >> 1) & 1, tb = (form >> 2) & 1;
            const shape *sh = &shapes[form % 2 ? 3 : 2];
            size_t a = seed % COUNT(scalars);
            tt_gemm g = {TT_PROBLEM(tc->ab, cs[form % c_types],
                                    l ? CLGEMM_ROW_MAJOR : CLGEMM_COL_MAJOR,
                                    ta ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                                    tb ? CLGEMM_TRANS : CLGEMM_NO_TRANS, sh->m, sh->n, sh->k),
                         .alpha = {scalars[a][0], 0}, .beta = {scalars[a][1], 0}, .tail = 3,
                         .compute = tc->compute};
            int rc = tt_run_batch(&env, hs, &g, 3, form == 8, seed, 0, msg, sizeof msg);
            seed++;
            runs++;
            if (rc && !bad++) snprintf(first, sizeof first, "%s", msg);
        }
        if (split) {
            clgemm_destroy(hs);
            unsetenv("CLGEMM_KSPLIT");
        }
    }
    tc_close_handle(&env, h);
    cr_expect_eq(bad, 0, "%s type %d compute %d: %zu of %zu wrong; first: %s", desc, (int)tc->ab,
                 (int)tc->compute, bad, runs, first);
    cr_log_info("%s type %d compute %d: %zu cases", desc, (int)tc->ab, (int)tc->compute, runs);
}

static bool candidate(clgemm_family family, int index, clgemm_config *out) {
    int seen = 0;
    for (size_t i = 0; i < COUNT(tc_candidates); i++) {
        if (tc_candidates[i].family != family) continue;
        if (seen++ != index) continue;
        clgemm_config_init(out, family);
        for (int p = 0; p < clgemm_family_param_count(family); p++)
            clgemm_config_set(out, clgemm_family_param_name(family, p), tc_candidates[i].v[p]);
        return true;
    }
    return false;
}

ParameterizedTestParameters(tensor_cores, candidates) {
    static const struct {
        clgemm_precision ab;
        clgemm_compute compute;
    } types[] = {{CLGEMM_HALF, CLGEMM_COMPUTE_DEFAULT}, {CLGEMM_BFLOAT16, CLGEMM_COMPUTE_DEFAULT},
                 {CLGEMM_SINGLE, CLGEMM_COMPUTE_TF32},  {CLGEMM_SINGLE, CLGEMM_COMPUTE_FP32_3XTF32},
                 {CLGEMM_INT8, CLGEMM_COMPUTE_DEFAULT}, {CLGEMM_E4M3, CLGEMM_COMPUTE_DEFAULT},
                 {CLGEMM_E5M2, CLGEMM_COMPUTE_DEFAULT}};
    static tc_case cases[COUNT(tc_candidates) * COUNT(types)];
    size_t n = 0;
    int index[CLGEMM_FAMILY_COUNT + 1] = {0};
    for (size_t i = 0; i < COUNT(tc_candidates); i++) {
        const clgemm_family f = tc_candidates[i].family;
        int at = index[f]++;
        /* tma_simt runs FP32 in the default compute mode, and only that; tma_fp64 FP64 */
        if (f == CLGEMM_FAMILY_TMA_SIMT || f == CLGEMM_FAMILY_TMA_FP64) {
            const clgemm_precision only =
                f == CLGEMM_FAMILY_TMA_SIMT ? CLGEMM_SINGLE : CLGEMM_DOUBLE;
            cases[n++] = (tc_case){f, at, only, CLGEMM_COMPUTE_DEFAULT};
            continue;
        }
        for (size_t t = 0; t < COUNT(types); t++)
            cases[n++] = (tc_case){f, at, types[t].ab, types[t].compute};
    }
    return cr_make_param_array(tc_case, cases, n);
}
ParameterizedTest(tc_case *tc, tensor_cores, candidates, .timeout = 600) {
    run_case(tc);
}
