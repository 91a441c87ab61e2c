/* test_types.c: the element types beyond float and double on the device: complex single and
 * double (cgemm, zgemm), FP16 and BF16 (hgemm, bf16gemm) and FP16/BF16 inputs with an FP32 C
 * (clgemm_gemm_ex). For every registered kernel family (a small legal configuration forced by
 * parameter name) and for the library's own choice, in both layouts, every transpose pair
 * (CONJ_TRANS too; on real types it must act as TRANS), edge shapes and shapes larger than the
 * tiles, real and complex alpha/beta, padded leading dimensions with offsets and split K: the
 * result against a long-double reference computed from the rounded inputs, with everything
 * outside C bit for bit unchanged, and complex also against CLBlast. Then k == 0 / alpha == 0
 * (C = beta * C), and the type checks of clgemm_gemm_ex.
 *
 * PoCL compiles each program for seconds, and every (family, types, transpose pair) is a
 * program of its own: one test is one family and one type of A and B with each of its C types
 * (its own process; Criterion's workers share them out; one suite per type of A and B), looping
 * over all its cases. The library's choice (about 18 s of PoCL per program on a CPU) runs the
 * transpose pairs of two programs per type (pair_wanted). Cold, the suite takes about 400 CPU
 * seconds on PoCL.
 *
 * Built with TYPES_8BIT (the types8 suite, a process of its own so that each suite stays well
 * within its timeout), the same grid runs the 8-bit types instead: INT8 into INT32 (exact, with
 * integer alpha and beta, wrapping ones among them) and E4M3 / E5M2 into FP32, BF16 and FP16
 * (the scaled wrapper clgemm_fp8gemm in the rotation; type_pairs says which); the 8-bit section
 * at the end adds the conversion tables of all 256 FP8 codes (host and kernels), K past the
 * int32 limit of INT8 sums, batches and the 8-bit type checks. */
#include "tally.h"
#include "typed.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- The grid -------------------------------------------------------------------------------- */

typedef struct type_pair {
    clgemm_precision ab, c;
} type_pair;

#ifdef TYPES_8BIT
/* Every C type, each FP8 format with two (the formats differ only in the decoding, which
 * fp8_kernel_tables checks on every code): the grid's cost is its programs. */
static const type_pair type_pairs[] = {
    {CLGEMM_INT8, CLGEMM_INT32}, {CLGEMM_E4M3, CLGEMM_SINGLE}, {CLGEMM_E4M3, CLGEMM_BFLOAT16},
    {CLGEMM_E5M2, CLGEMM_HALF},  {CLGEMM_E5M2, CLGEMM_SINGLE},
};
#else
static const type_pair type_pairs[] = {
    {CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE},
    {CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE},
    {CLGEMM_HALF, CLGEMM_HALF},
    {CLGEMM_BFLOAT16, CLGEMM_BFLOAT16},
    {CLGEMM_HALF, CLGEMM_SINGLE},
    {CLGEMM_BFLOAT16, CLGEMM_SINGLE},
};
#endif

typedef struct shape {
    size_t m, n, k;
} shape;

/* Scalars, odd sizes, a K of two slices and a bit, and one larger than every tile forced here
 * or chosen by default on a CPU (32 x 32 x 32) in each dimension, with odd sizes. */
static const shape shapes[] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {71, 37, 83}};

/* alpha (re, im), beta (re, im); real types take the real parts. beta == 0 comes with C full
 * of NaN. The last one's alpha is 0 on real types (C = beta * C) and i on complex ones. All
 * exact in float and FP16. */
static const double scalars[][4] = {
    {1, 0, 0, 0}, {0.5, -1.25, 0, 0}, {1.5, -0.75, -0.5, 2}, {-0.25, 1, 1, 0}, {0, 1, 0.75, -0.5},
};
/* INT8's integer scalars in the same roles; the third wraps alpha * sum and beta * C. */
static const double int_scalars[][4] = {
    {1, 0, 0, 0}, {-3, 0, 0, 0}, {123456789, 0, -987654321, 0}, {-1, 0, 1, 0}, {0, 0, 7, 0},
};

static const double *scalars_for(clgemm_precision ab, size_t row) {
    return ab == CLGEMM_INT8 ? int_scalars[row] : scalars[row];
}

static const clgemm_layout layouts[] = {CLGEMM_COL_MAJOR, CLGEMM_ROW_MAJOR};
static const clgemm_transpose transposes[] = {CLGEMM_NO_TRANS, CLGEMM_TRANS, CLGEMM_CONJ_TRANS};

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *type_text(type_pair tp) {
    static char buf[32];
    static const char *names[] = {"s", "d", "c", "z", "h", "bf16", "i8", "i32", "e4m3", "e5m2"};
    snprintf(buf, sizeof buf, "%s->%s", names[tp.ab], names[tp.c]);
    return buf;
}

/* ---- Configurations -------------------------------------------------------------------------- */

/* Small values by parameter name, whichever family has it: cheap to build (PoCL compiles a
 * register-blocked program of these in about 2 s, the CPU default in about 18 s), and tiles
 * (4 x 4 naive and tiled, 8 x 8 x 8 register-blocked with vectors of 2 and an unrolled k loop,
 * 4 x 3 micro-kernel blocks of 2-wide vectors) far smaller than the larger shapes. A parameter
 * not listed starts at 1. */
static const struct {
    const char *name;
    int value;
} small_values[] = {{"MDIMC", 4}, {"NDIMC", 4}, {"TS", 4},  {"MWG", 8}, {"NWG", 8}, {"KWG", 8},
                    {"KWI", 2},   {"VWM", 2},   {"VWN", 2}, {"MR", 4},  {"NR", 3},  {"VW", 2}};

static void fill_config(clgemm_config *cfg, clgemm_family family, bool all_ones) {
    cr_assert_eq(clgemm_config_init(cfg, family), CLGEMM_SUCCESS, "family %d", (int)family);
    int n = clgemm_family_param_count(family);
    cr_assert_gt(n, 0, "family %s has no parameters", clgemm_family_name(family));
    for (int i = 0; i < n; i++) {
        const char *name = clgemm_family_param_name(family, i);
        cr_assert_not_null(name);
        int value = 1;
        for (size_t s = 0; s < COUNT(small_values) && !all_ones; s++)
            if (strcmp(small_values[s].name, name) == 0) value = small_values[s].value;
        cr_assert_eq(clgemm_config_set(cfg, name, value), CLGEMM_SUCCESS, "%s", name);
    }
}

/* One test: a family (CLGEMM_FAMILY_AUTO: the library's choice, no override) and the type of
 * A and B, with each type C may have (one handle, so the programs the two share, such as the
 * FP32 partial products of split K, are built once). */
typedef struct family_case {
    clgemm_family family;
    clgemm_precision ab;
} family_case;

/* Forces a small legal configuration of fc's family for fc's type (none for AUTO) and writes
 * what runs into text. Skips the test when the family has no legal small configuration on
 * this device (a family for other hardware). */
static void choose_config(clgemm_handle h, const family_case *fc, char *text, size_t size) {
    clgemm_config cfg;
    const char *source = NULL;
    if (fc->family != CLGEMM_FAMILY_AUTO) {
        fill_config(&cfg, fc->family, false);
        if (clgemm_check_config(h, fc->ab, &cfg) != CLGEMM_SUCCESS)
            fill_config(&cfg, fc->family, true);
        /* A family whose tiles cannot be that small (the tensor-core one): its large-problem
         * default on this device, if the library would pick that family there. */
        clgemm_config large;
        if (clgemm_check_config(h, fc->ab, &cfg) != CLGEMM_SUCCESS &&
            clgemm_get_config(h, fc->ab, 4096, 4096, 4096, &large, NULL) == CLGEMM_SUCCESS &&
            large.family == fc->family)
            cfg = large;
        clgemm_status st = clgemm_check_config(h, fc->ab, &cfg);
        if (st != CLGEMM_SUCCESS)
            cr_skip_test("no small configuration of %s is legal for type %d here (%s)",
                         clgemm_family_name(fc->family), (int)fc->ab, clgemm_status_string(st));
        cr_assert_eq(clgemm_set_config(h, fc->ab, &cfg), CLGEMM_SUCCESS);
    }
    clgemm_config used;
    cr_assert_eq(clgemm_get_config(h, fc->ab, 71, 37, 83, &used, &source), CLGEMM_SUCCESS);
    if (fc->family != CLGEMM_FAMILY_AUTO) {
        cr_expect_eq(used.family, cfg.family);
        cr_expect(source && strcmp(source, "override") == 0, "source %s", source);
    } else {
        cr_expect(source && strcmp(source, "override") != 0, "source %s", source);
    }
    char desc[200];
    clgemm_config_string(&used, desc, sizeof desc);
    snprintf(text, size, "%s (%s) ", desc, source ? source : "?");
}

/* Each transpose pair is a program of its own (conjugation included), so the library's choice,
 * which PoCL takes about 18 s to compile per program, runs the pairs of two programs per type
 * and layout: op(A) and op(B) both plain, or both transposed the same way (C C on complex; on
 * real types T and C alike). The forced small configurations run every pair. The 8-bit build
 * runs the library's choice on plain op(A) and op(B) only (one program per type pair, for both
 * layouts): its kernels are the forced register-blocked ones' source with other
 * parameters, and two transposed programs per pair took it past its timeout on a loaded CPU. */
static bool pair_wanted(clgemm_family family, clgemm_precision ab, clgemm_transpose ta,
                        clgemm_transpose tb) {
    if (family != CLGEMM_FAMILY_AUTO) return true;
#ifdef TYPES_8BIT
    return ta == CLGEMM_NO_TRANS && tb == CLGEMM_NO_TRANS;
#endif
    if ((ta == CLGEMM_NO_TRANS) != (tb == CLGEMM_NO_TRANS)) return false;
    return tt_is_complex(ab) ? ta == tb && ta != CLGEMM_TRANS : true;
}

/* Every case of one configuration and type pair: layouts x transpose pairs x shapes x scalars,
 * every other one with padded leading dimensions and offsets; the API rotates between the typed
 * wrapper, clgemm_gemm_ex and the host-array variant. Then the larger shapes again with K split
 * into 3 layers (a family that does not split ignores it), on handles[1], which was created
 * with CLGEMM_KSPLIT set (a library may read it when a handle is created or at each call). */
static void run_grid(tc_env *env, const clgemm_handle handles[2], clgemm_family family,
                     type_pair tp, const char *prefix, tally *t) {
    char msg[2048];
    uint64_t seed = 1;
    static const unsigned api[] = {TT_RUN_CLBLAST, TT_RUN_EX | TT_RUN_CLBLAST, TT_RUN_CLBLAST,
                                   TT_RUN_HOST};
    for (int split = 0; split < 2; split++) {
        char full_prefix[400];
        snprintf(full_prefix, sizeof full_prefix, "%s%s%s: ", prefix, type_text(tp),
                 split ? " [K split in 3]" : "");
        if (split) setenv("CLGEMM_KSPLIT", "3", 1);
        for (size_t l = 0; l < COUNT(layouts); l++)
            for (size_t ta = 0; ta < COUNT(transposes); ta++)
                for (size_t tb = 0; tb < COUNT(transposes); tb++)
                    for (size_t s = split ? 2 : 0; s < COUNT(shapes); s++)
                        for (size_t a = 0; a < COUNT(scalars); a++) {
                            if (!pair_wanted(family, tp.ab, transposes[ta], transposes[tb]))
                                continue;
                            if (split && a != 0 && a != 2) continue;
                            tt_gemm g = {
                                TT_PROBLEM(tp.ab, tp.c, layouts[l], transposes[ta], transposes[tb],
                                           shapes[s].m, shapes[s].n, shapes[s].k),
                                .alpha = {scalars_for(tp.ab, a)[0], scalars_for(tp.ab, a)[1]},
                                .beta = {scalars_for(tp.ab, a)[2], scalars_for(tp.ab, a)[3]},
                                .tail = 3};
                            if ((s + a + ta + split) % 2) {
                                clgemm_transpose sa = transposes[ta] == CLGEMM_NO_TRANS
                                                          ? CLGEMM_NO_TRANS
                                                          : CLGEMM_TRANS;
                                clgemm_transpose sb = transposes[tb] == CLGEMM_NO_TRANS
                                                          ? CLGEMM_NO_TRANS
                                                          : CLGEMM_TRANS;
                                /* The largest shape's columns 16 KB and more apart (4 bytes
                                 * an element and up): packed in runs of panels there
                                 * (src/exec/pack.c). */
                                const size_t far = s == COUNT(shapes) - 1 ? 4100 : 0;
                                g.lda = tc_min_ld(g.layout, sa, g.m, g.k) + 3 + far;
                                g.ldb = tc_min_ld(g.layout, sb, g.k, g.n) + 5 + far;
                                g.ldc = tc_min_ld(g.layout, CLGEMM_NO_TRANS, g.m, g.n) + 2;
                                g.off_a = 3;
                                g.off_b = 5;
                                g.off_c = 7;
                            }
                            int rc = tt_run(env, handles[split], &g, seed, 0,
                                            api[seed % COUNT(api)], msg, sizeof msg);
                            seed++;
                            record(t, rc, full_prefix, msg);
                        }
        if (split) unsetenv("CLGEMM_KSPLIT");
    }
}

static void run_family_case(const family_case *fc) {
    tc_env env;
    /* Criterion cannot pick one parameter of a test: TYPES_FAMILY / TYPES_AB (numbers, as in
     * clgemm.h) narrow the run to one family or type while debugging. */
    const char *only_f = getenv("TYPES_FAMILY"), *only_t = getenv("TYPES_AB");
    if ((only_f && atoi(only_f) != (int)fc->family) || (only_t && atoi(only_t) != (int)fc->ab))
        cr_skip_test("not selected by TYPES_FAMILY / TYPES_AB");
    TC_OPEN_OR_SKIP(&env);
    if (fc->ab == CLGEMM_COMPLEX_DOUBLE && !env.has_fp64)
        cr_skip_test("%s has no cl_khr_fp64: zgemm is not tested", env.device_name);
    if (tt_is_complex(fc->ab) && !tc_have_clblast())
        cr_log_warn("built without CLBlast: host reference only");
    clgemm_handle h[2];
    char prefix[256];
    cr_assert_eq(clgemm_create(&h[0], env.queue), CLGEMM_SUCCESS);
    choose_config(h[0], fc, prefix, sizeof prefix);
    setenv("CLGEMM_KSPLIT", "3", 1);
    cr_assert_eq(clgemm_create(&h[1], env.queue), CLGEMM_SUCCESS);
    choose_config(h[1], fc, prefix, sizeof prefix);
    unsetenv("CLGEMM_KSPLIT");
    double start = seconds();
    for (size_t p = 0; p < COUNT(type_pairs); p++) {
        if (type_pairs[p].ab != fc->ab) continue;
        tally t = {0, 0};
        double t0 = seconds();
        run_grid(&env, h, fc->family, type_pairs[p], prefix, &t);
        char what[300];
        snprintf(what, sizeof what, "%s%s (%.1f s)", prefix, type_text(type_pairs[p]),
                 seconds() - t0);
        report(&t, what);
    }
    cr_log_info("%s: %.1f s in all", prefix, seconds() - start);
    clgemm_destroy(h[0]);
    clgemm_destroy(h[1]);
    tc_close(&env);
}

/* Every registered family and AUTO, for one type of A and B: a Criterion suite per type, so
 * that meson runs them apart (tests/meson.build: on PoCL each type takes a few minutes). */
#define TYPE_CASES(suite, type)                                                                    \
    ParameterizedTestParameters(suite, family) {                                                   \
        static family_case cases[CLGEMM_FAMILY_COUNT + 1];                                         \
        for (int f = 0; f <= CLGEMM_FAMILY_COUNT; f++)                                             \
            cases[f] = (family_case){(clgemm_family)f, type};                                      \
        return cr_make_param_array(family_case, cases, COUNT(cases));                              \
    }                                                                                              \
    ParameterizedTest(family_case *fc, suite, family, .timeout = 600) {                            \
        run_family_case(fc);                                                                       \
    }

#ifdef TYPES_8BIT
/* The 8-bit types of A and B (types8::batches forces its configuration on each). */
static const clgemm_precision ab_types[] = {CLGEMM_INT8, CLGEMM_E4M3, CLGEMM_E5M2};
TYPE_CASES(types_i8, CLGEMM_INT8)
TYPE_CASES(types_e4m3, CLGEMM_E4M3)
TYPE_CASES(types_e5m2, CLGEMM_E5M2)
#else
TYPE_CASES(types_c, CLGEMM_COMPLEX_SINGLE)
TYPE_CASES(types_z, CLGEMM_COMPLEX_DOUBLE)
TYPE_CASES(types_h, CLGEMM_HALF)
TYPE_CASES(types_bf16, CLGEMM_BFLOAT16)
#endif

/* ---- k == 0, alpha == 0, empty C ------------------------------------------------------------- */

Test(types, scale_and_empty, .timeout = 600) {
    /* k == 0 or alpha == 0 (A and B full of NaN, never read): C = beta * C, rounded to C's type;
     * beta == 0 gives zeros over a C of NaN. m == 0 or n == 0: nothing written. */
    TC_OPEN_HANDLE_OR_SKIP(env, h);
    static const shape cases[] = {{7, 5, 0}, {33, 17, 0}, {7, 5, 4}, {33, 17, 9},
                                  {0, 5, 3}, {5, 0, 3},   {0, 0, 0}};
    static const double betas[][2] = {{0, 0}, {1, 0}, {-2.5, 0.75}, {0.5, -1}};
    tally t = {0, 0};
    char msg[2048];
    uint64_t seed = 500;
    for (size_t p = 0; p < COUNT(type_pairs); p++) {
        if (type_pairs[p].ab == CLGEMM_COMPLEX_DOUBLE && !env.has_fp64) continue;
        for (size_t l = 0; l < COUNT(layouts); l++)
            for (size_t s = 0; s < COUNT(cases); s++)
                for (size_t b = 0; b < COUNT(betas); b++) {
                    /* k == 0 comes with a non-zero alpha, k > 0 with alpha == 0. */
                    bool k0 = cases[s].k == 0;
                    /* INT8 takes integers: the scalars doubled. */
                    double twice = type_pairs[p].ab == CLGEMM_INT8 ? 2 : 1;
                    tt_gemm g = {TT_PROBLEM(type_pairs[p].ab, type_pairs[p].c, layouts[l],
                                            transposes[s % 3], transposes[(s + b) % 3], cases[s].m,
                                            cases[s].n, cases[s].k),
                                 .alpha = {k0 ? 1.5 * twice : 0, k0 ? -0.5 : 0},
                                 .beta = {betas[b][0] * twice, betas[b][1]}, .tail = 4};
                    if (s % 2) {
                        g.ldc = tc_min_ld(g.layout, CLGEMM_NO_TRANS, g.m, g.n) + 3;
                        g.off_c = 5;
                        g.off_a = 1;
                        g.off_b = 2;
                    }
                    unsigned api = (seed % 3 == 0) ? TT_RUN_EX : (seed % 3 == 1) ? TT_RUN_HOST : 0;
                    int rc = tt_run(&env, h, &g, seed++, TC_AB_NAN, api, msg, sizeof msg);
                    record(&t, rc, "", msg);
                }
    }
    report(&t, "k == 0 / alpha == 0 / empty");
    tc_close_handle(&env, h);
}

/* ---- The reference's own rounding ------------------------------------------------------------ */

Test(types, host_encoding) {
    /* The reference rounds inputs and reads C through these: FP16 against the compiler's
     * _Float16 over a sweep of float bit patterns (subnormals, ties, overflow), BF16 on ties. */
#ifdef __FLT16_MAX__
    for (uint64_t x = 0; x < (UINT64_C(1) << 32); x += 65519) {
        uint32_t u = (uint32_t)x;
        float f;
        memcpy(&f, &u, 4);
        if (f != f) continue;
        _Float16 h = (_Float16)f;
        uint16_t bits;
        memcpy(&bits, &h, 2);
        cr_assert_eq(tt_half_from_double(f), bits, "float %08x", u);
        cr_assert_eq(tt_half_to_double(bits), (double)h, "half %04x", bits);
    }
#endif
    static const struct {
        float v;
        uint16_t bits;
    } bf16[] = {{1.0f + 0x1p-8f, 0x3f80},            /* tie: to even, down */
                {1.0f + 3 * 0x1p-8f, 0x3f82},        /* tie: to even, up */
                {1.0f + 0x1p-8f + 0x1p-20f, 0x3f81}, /* above the tie */
                {-1.0f - 0x1p-7f, 0xbf81},
                {3.4028235e38f, 0x7f80}, /* the largest float rounds to infinity */
                {0x1p-133f, 0x0001},     /* the smallest subnormal */
                {0x1p-134f, 0x0000}};    /* half of it: a tie, to even (zero) */
    for (size_t i = 0; i < COUNT(bf16); i++) {
        cr_expect_eq(tt_bf16_from_float(bf16[i].v), bf16[i].bits, "bf16 of %a", bf16[i].v);
        uint32_t wide = (uint32_t)bf16[i].bits << 16; /* BF16 is the top half of an FP32 */
        float f;
        memcpy(&f, &wide, 4);
        cr_expect_eq(tt_bf16_to_double(bf16[i].bits), (double)f, "bf16 %04x", bf16[i].bits);
    }
}

/* Every finite FP16 code and both infinities times 1.0, into FP32 C: exact, so each element of C
 * must equal the code's value. A holds them down one column (the kernels' vector loads of A, and
 * with A transposed the micro-kernel's copied panel) or B along one row (its element loads); the
 * library's choice and, where it is legal, the micro-kernel family forced. */
Test(types, every_fp16_code_widens_exactly, .timeout = 600) {
    tc_env env;
    TC_OPEN_OR_SKIP(&env);
    static uint16_t codes[65536];
    size_t count = 0;
    for (uint32_t c = 0; c < 65536; c++)
        if ((c & 0x7c00u) != 0x7c00u || (c & 0x3ffu) == 0) codes[count++] = (uint16_t)c;
    float *c_out = malloc(count * sizeof *c_out);
    cr_assert_not_null(c_out);
    const uint16_t one = 0x3c00;
    const float alpha = 1.0f, beta = 0.0f;
    const clgemm_config forced = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {32, 8, 16}};
    for (int f = 0; f < 2; f++) {
        clgemm_handle h;
        cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
        if (f == 1 && clgemm_set_config(h, CLGEMM_HALF, &forced) != CLGEMM_SUCCESS) {
            clgemm_destroy(h);
            continue;
        }
        for (int side = 0; side < 3; side++) {
            /* 0: A is count x 1; 1: the same A stored transposed (1 x count); 2: B is 1 x count. */
            bool on_a = side < 2;
            size_t m = on_a ? count : 1, n = on_a ? 1 : count;
            clgemm_transpose ta = side == 1 ? CLGEMM_TRANS : CLGEMM_NO_TRANS;
            for (size_t i = 0; i < count; i++)
                c_out[i] = NAN;
            clgemm_status st = clgemm_gemm_ex_host(
                h, CLGEMM_COL_MAJOR, ta, CLGEMM_NO_TRANS, m, n, 1, &alpha, on_a ? codes : &one,
                side == 1 ? 1 : m, on_a ? &one : codes, 1, &beta, c_out, m, CLGEMM_HALF,
                CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT);
            cr_assert_eq(st, CLGEMM_SUCCESS, "%s", clgemm_status_string(st));
            size_t wrong = 0;
            for (size_t i = 0; i < count; i++)
                if ((double)c_out[i] != tt_half_to_double(codes[i]) && ++wrong <= 3)
                    cr_expect(0, "%s, side %d: code %04x gave %a", f ? "microkernel" : "default",
                              side, codes[i], (double)c_out[i]);
            cr_expect_eq(wrong, 0u, "%zu of %zu codes wrong", wrong, count);
        }
        clgemm_destroy(h);
    }
    free(c_out);
    tc_close(&env);
}

/* ---- Type checks ----------------------------------------------------------------------------- */

/* Calls clgemm_gemm_ex (or its host variant) with these types and scalars on a 6 x 5 x 4
 * problem whose C holds sentinels everywhere; returns the status and checks that C came back
 * bit for bit. */
static clgemm_status call_ex(tc_env *env, clgemm_handle h, clgemm_precision ab, clgemm_precision c,
                             bool host, bool null_alpha, bool null_beta, clgemm_compute compute) {
    enum { M = 6, N = 5, K = 4 };
    /* Room for the widest element (complex double) in each buffer, whatever the types say. */
    static unsigned char a[M * K * 16], b[K * N * 16], c0[(M * N + 8) * 16], c1[sizeof c0];
    for (size_t i = 0; i < sizeof c0 / 4; i++)
        tt_set_sentinel(CLGEMM_SINGLE, c0, i);
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    memcpy(c1, c0, sizeof c0);
    cl_double2 one = {{1, 0}};
    const void *alpha = null_alpha ? NULL : &one, *beta = null_beta ? NULL : &one;
    clgemm_status st;
    if (host) {
        st = clgemm_gemm_ex_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K,
                                 alpha, a, M, b, K, beta, c1, M, ab, c, compute);
    } else {
        cl_mem ma = tc_buffer(env->context, sizeof a, a), mb = tc_buffer(env->context, sizeof b, b);
        cl_mem mc = tc_buffer(env->context, sizeof c0, c0);
        cr_assert(ma && mb && mc);
        st =
            clgemm_gemm_ex(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K, alpha,
                           ma, 0, M, mb, 0, K, beta, mc, 0, M, ab, c, compute, NULL, 0, NULL, NULL);
        clFinish(env->queue);
        cr_assert_eq(tc_read(env->queue, mc, sizeof c1, c1), CL_SUCCESS);
        clReleaseMemObject(ma);
        clReleaseMemObject(mb);
        clReleaseMemObject(mc);
    }
    cr_expect(memcmp(c0, c1, sizeof c0) == 0,
              "types %d -> %d (%s, status %d): C changed although the call failed", (int)ab, (int)c,
              host ? "host" : "buffers", st);
    return st;
}

Test(types, invalid_types_touch_nothing, .timeout = 120) {
    TC_OPEN_HANDLE_OR_SKIP(env, h);
    /* Pairs without a kernel: only FP16/BF16 inputs may have a C of another type (FP32). */
    static const int bad[][2] = {
        {CLGEMM_SINGLE, CLGEMM_HALF},
        {CLGEMM_SINGLE, CLGEMM_BFLOAT16},
        {CLGEMM_SINGLE, CLGEMM_DOUBLE},
        {CLGEMM_DOUBLE, CLGEMM_SINGLE},
        {CLGEMM_COMPLEX_SINGLE, CLGEMM_SINGLE},
        {CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_DOUBLE},
        {CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_SINGLE},
        {CLGEMM_HALF, CLGEMM_BFLOAT16},
        {CLGEMM_BFLOAT16, CLGEMM_HALF},
        {CLGEMM_HALF, CLGEMM_DOUBLE},
        {CLGEMM_HALF, CLGEMM_COMPLEX_SINGLE},
        {CLGEMM_BFLOAT16, CLGEMM_DOUBLE},
        {CLGEMM_SINGLE, CLGEMM_COMPLEX_SINGLE},
        {CLGEMM_PRECISION_COUNT, CLGEMM_PRECISION_COUNT},
        {CLGEMM_PRECISION_COUNT, CLGEMM_SINGLE},
        {CLGEMM_SINGLE, CLGEMM_PRECISION_COUNT},
        {CLGEMM_HALF, 99},
        /* 8-bit: INT8 only into INT32, FP8 only into FP32 / BF16 / FP16, INT32 never A/B. */
        {CLGEMM_INT8, CLGEMM_INT8},
        {CLGEMM_INT8, CLGEMM_SINGLE},
        {CLGEMM_INT8, CLGEMM_DOUBLE},
        {CLGEMM_INT32, CLGEMM_INT32},
        {CLGEMM_INT32, CLGEMM_SINGLE},
        {CLGEMM_SINGLE, CLGEMM_INT32},
        {CLGEMM_HALF, CLGEMM_INT32},
        {CLGEMM_E4M3, CLGEMM_E4M3},
        {CLGEMM_E4M3, CLGEMM_E5M2},
        {CLGEMM_E5M2, CLGEMM_DOUBLE},
        {CLGEMM_E5M2, CLGEMM_INT32},
        {CLGEMM_SINGLE, CLGEMM_E4M3},
        {-1, CLGEMM_SINGLE},
        {CLGEMM_SINGLE, -1},
    };
    for (size_t i = 0; i < COUNT(bad); i++)
        for (int host = 0; host < 2; host++) {
            clgemm_status st =
                call_ex(&env, h, (clgemm_precision)bad[i][0], (clgemm_precision)bad[i][1], host,
                        false, false, CLGEMM_COMPUTE_DEFAULT);
            cr_expect_eq(st, CLGEMM_ERR_INVALID_TYPE, "types %d -> %d (%s): status %d, want %d",
                         bad[i][0], bad[i][1], host ? "host" : "buffers", st,
                         CLGEMM_ERR_INVALID_TYPE);
        }
    /* An unknown compute mode is a bad type too, and so is a TF32 mode for 8-bit inputs. */
    for (int host = 0; host < 2; host++) {
        clgemm_status st = call_ex(&env, h, CLGEMM_HALF, CLGEMM_SINGLE, host, false, false,
                                   (clgemm_compute)(CLGEMM_COMPUTE_FP32_3XTF32 + 1));
        cr_expect_eq(st, CLGEMM_ERR_INVALID_TYPE, "compute 3 (%s): status %d", host ? "host" : "",
                     st);
        static const type_pair eight[] = {{CLGEMM_INT8, CLGEMM_INT32},
                                          {CLGEMM_E4M3, CLGEMM_SINGLE}};
        for (size_t e = 0; e < COUNT(eight); e++)
            for (int mode = CLGEMM_COMPUTE_TF32; mode <= CLGEMM_COMPUTE_FP32_3XTF32; mode++) {
                st = call_ex(&env, h, eight[e].ab, eight[e].c, host, false, false,
                             (clgemm_compute)mode);
                cr_expect_eq(st, CLGEMM_ERR_INVALID_TYPE, "%s compute %d (%s): status %d",
                             type_text(eight[e]), mode, host ? "host" : "", st);
            }
    }
    tc_close_handle(&env, h);
}

Test(types, null_scalars, .timeout = 120) {
    TC_OPEN_HANDLE_OR_SKIP(env, h);
    for (size_t p = 0; p < COUNT(type_pairs); p++)
        for (int host = 0; host < 2; host++)
            for (int which = 1; which < 4; which++) {
                clgemm_status st = call_ex(&env, h, type_pairs[p].ab, type_pairs[p].c, host,
                                           which & 1, which & 2, CLGEMM_COMPUTE_DEFAULT);
                cr_expect_eq(st, CLGEMM_ERR_NULL_ARGUMENT, "%s, %s%s NULL (%s): status %d, want %d",
                             type_text(type_pairs[p]), which & 1 ? "alpha " : "",
                             which & 2 ? "beta" : "", host ? "host" : "buffers", st,
                             CLGEMM_ERR_NULL_ARGUMENT);
            }
    tc_close_handle(&env, h);
}

Test(types, bad_transpose, .timeout = 120) {
    /* Values around CONJ_TRANS that are not transposes: rejected for complex and real types. */
    TC_OPEN_HANDLE_OR_SKIP(env, h);
    static const int bad[] = {110, 114, 0, -1};
    cl_float2 one = {{1, 0}};
    cl_mem buf = tc_buffer(env.context, 4096, NULL);
    cr_assert_not_null(buf);
    for (size_t i = 0; i < COUNT(bad); i++) {
        clgemm_transpose t = (clgemm_transpose)bad[i];
        cr_expect_eq(clgemm_cgemm(h, CLGEMM_COL_MAJOR, t, CLGEMM_NO_TRANS, 4, 4, 4, one, buf, 0, 4,
                                  buf, 0, 4, one, buf, 0, 4, NULL, 0, NULL, NULL),
                     CLGEMM_ERR_INVALID_TRANSPOSE, "cgemm trans_a %d", bad[i]);
        cr_expect_eq(clgemm_hgemm(h, CLGEMM_ROW_MAJOR, CLGEMM_CONJ_TRANS, t, 4, 4, 4, 1.0f, buf, 0,
                                  4, buf, 0, 4, 0.0f, buf, 0, 4, NULL, 0, NULL, NULL),
                     CLGEMM_ERR_INVALID_TRANSPOSE, "hgemm trans_b %d", bad[i]);
    }
    clReleaseMemObject(buf);
    tc_close_handle(&env, h);
}

#ifdef TYPES_8BIT
/* ---- 8-bit: FP8 conversion tables ------------------------------------------------------------ */

static const clgemm_precision fp8_types[] = {CLGEMM_E4M3, CLGEMM_E5M2};

/* Same value, or both NaN with the same sign. */
static bool same_value(double x, double y) {
    if (isnan(x) || isnan(y)) return isnan(x) && isnan(y) && !signbit(x) == !signbit(y);
    return x == y && !signbit(x) == !signbit(y);
}

Test(types8, fp8_host_tables) {
    /* All 256 codes of each format through clgemm_fp8_to_float against the test's own decoder
     * (and fixed anchors), and back through clgemm_fp8_from_float: every finite code and
     * infinity comes back as itself (E5M2's infinities saturate), NaN codes as the canonical
     * NaN of their sign. */
    for (size_t f = 0; f < COUNT(fp8_types); f++) {
        clgemm_precision t = fp8_types[f];
        bool e4 = t == CLGEMM_E4M3;
        cl_uchar codes[256], back[256];
        float values[256];
        for (int i = 0; i < 256; i++)
            codes[i] = (cl_uchar)i;
        cr_assert_eq(clgemm_fp8_to_float(t, codes, values, 256), CLGEMM_SUCCESS);
        int nans = 0, infs = 0;
        for (int i = 0; i < 256; i++) {
            double want = tt_fp8_to_double(t, (uint8_t)i);
            cr_expect(same_value(values[i], want), "%s code 0x%02x: %a, want %a",
                      e4 ? "e4m3" : "e5m2", i, (double)values[i], want);
            nans += isnan(values[i]) != 0;
            infs += isinf(values[i]) != 0;
        }
        cr_expect_eq(nans, e4 ? 2 : 6, "NaN codes");
        cr_expect_eq(infs, e4 ? 0 : 2, "infinite codes");
        cr_assert_eq(clgemm_fp8_from_float(t, values, back, 256), CLGEMM_SUCCESS);
        for (int i = 0; i < 256; i++) {
            int want = isnan(values[i])   ? (i & 0x80) | (e4 ? 0x7f : 0x7e)
                       : isinf(values[i]) ? (i & 0x80) | 0x7b
                                          : i;
            cr_expect_eq(back[i], want, "code 0x%02x came back as 0x%02x", i, back[i]);
        }
    }
    /* Anchors from the OCP specification. */
    static const struct {
        clgemm_precision t;
        cl_uchar code;
        float value;
    } anchors[] = {
        {CLGEMM_E4M3, 0x38, 1.0f},      {CLGEMM_E4M3, 0x7e, 448.0f},
        {CLGEMM_E4M3, 0x08, 0x1p-6f},   {CLGEMM_E4M3, 0x01, 0x1p-9f},
        {CLGEMM_E4M3, 0x07, 0x1.cp-7f}, {CLGEMM_E4M3, 0xfe, -448.0f},
        {CLGEMM_E5M2, 0x3c, 1.0f},      {CLGEMM_E5M2, 0x7b, 57344.0f},
        {CLGEMM_E5M2, 0x04, 0x1p-14f},  {CLGEMM_E5M2, 0x01, 0x1p-16f},
        {CLGEMM_E5M2, 0x7c, INFINITY},  {CLGEMM_E5M2, 0xfc, -INFINITY},
    };
    for (size_t i = 0; i < COUNT(anchors); i++) {
        float v;
        cr_assert_eq(clgemm_fp8_to_float(anchors[i].t, &anchors[i].code, &v, 1), CLGEMM_SUCCESS);
        cr_expect(same_value(v, anchors[i].value), "anchor 0x%02x: %a", anchors[i].code, (double)v);
    }
    /* Encoding: saturation (infinities too), NaN, ties to even, underflow, signed zero. */
    static const struct {
        clgemm_precision t;
        float v;
        cl_uchar code;
    } enc[] = {
        {CLGEMM_E4M3, 449.0f, 0x7e},     {CLGEMM_E4M3, 1e30f, 0x7e},
        {CLGEMM_E4M3, INFINITY, 0x7e},   {CLGEMM_E4M3, -INFINITY, 0xfe},
        {CLGEMM_E4M3, NAN, 0x7f},        {CLGEMM_E4M3, -NAN, 0xff},
        {CLGEMM_E4M3, 464.0f, 0x7e},     {CLGEMM_E4M3, 1.0625f, 0x38},
        {CLGEMM_E4M3, 1.1875f, 0x3a},    {CLGEMM_E4M3, 0x1p-10f, 0x00},
        {CLGEMM_E4M3, 0x1.8p-10f, 0x01}, {CLGEMM_E4M3, -0.0f, 0x80},
        {CLGEMM_E4M3, 0x1.1p-10f, 0x01}, {CLGEMM_E5M2, 60000.0f, 0x7b},
        {CLGEMM_E5M2, INFINITY, 0x7b},   {CLGEMM_E5M2, -1e38f, 0xfb},
        {CLGEMM_E5M2, NAN, 0x7e},        {CLGEMM_E5M2, 1.125f, 0x3c},
        {CLGEMM_E5M2, 1.375f, 0x3e},     {CLGEMM_E5M2, 0x1p-17f, 0x00},
        {CLGEMM_E5M2, 0x1.8p-16f, 0x02},
    };
    for (size_t i = 0; i < COUNT(enc); i++) {
        cl_uchar code;
        cr_assert_eq(clgemm_fp8_from_float(enc[i].t, &enc[i].v, &code, 1), CLGEMM_SUCCESS);
        cr_expect_eq(code, enc[i].code, "%s of %a: 0x%02x, want 0x%02x",
                     enc[i].t == CLGEMM_E4M3 ? "e4m3" : "e5m2", (double)enc[i].v, code,
                     enc[i].code);
    }
    /* A sweep of float bit patterns against the test's encoder (written on values). */
    for (size_t f = 0; f < COUNT(fp8_types); f++)
        for (uint64_t x = 0; x < (UINT64_C(1) << 32); x += 65521) {
            uint32_t u = (uint32_t)x;
            float v;
            memcpy(&v, &u, 4);
            cl_uchar code;
            clgemm_fp8_from_float(fp8_types[f], &v, &code, 1);
            cr_assert_eq(code, tt_fp8_from_double(fp8_types[f], v), "type %d, float %08x: 0x%02x",
                         (int)fp8_types[f], u, code);
        }
    /* Bad arguments. */
    float v = 1;
    cl_uchar code = 0x5a;
    cr_expect_eq(clgemm_fp8_from_float(CLGEMM_HALF, &v, &code, 1), CLGEMM_ERR_INVALID_TYPE);
    cr_expect_eq(clgemm_fp8_to_float(CLGEMM_INT8, &code, &v, 1), CLGEMM_ERR_INVALID_TYPE);
    cr_expect_eq(clgemm_fp8_from_float(CLGEMM_E4M3, NULL, &code, 1), CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_eq(clgemm_fp8_to_float(CLGEMM_E5M2, &code, NULL, 1), CLGEMM_ERR_NULL_ARGUMENT);
    cr_expect_eq(clgemm_fp8_to_float(CLGEMM_E5M2, NULL, NULL, 0), CLGEMM_SUCCESS);
    cr_expect(code == 0x5a && v == 1, "a failed conversion wrote");
}

Test(types8, fp8_kernel_tables, .timeout = 300) {
    /* The kernels' decoder on all 256 codes: C (FP32) = op(A) * 1 with A the codes (and then
     * 1 * op(B) with B the codes), alpha 1, beta 0: exactly the decoded value, NaN and E5M2's
     * infinities included (the sum 0 + x turns -0 into +0 and may drop a NaN's sign, so zeros
     * and NaNs compare by value). Every family decodes through the same LOAD_AB; a small
     * register-blocked configuration keeps the builds short. */
    TC_OPEN_HANDLE_OR_SKIP(env, h);
    for (size_t f = 0; f < COUNT(fp8_types); f++) {
        clgemm_precision t = fp8_types[f];
        clgemm_config cfg;
        fill_config(&cfg, CLGEMM_FAMILY_REGBLOCK, false);
        cr_assert_eq(clgemm_set_config(h, t, &cfg), CLGEMM_SUCCESS);
        cl_uchar codes[256], one = t == CLGEMM_E4M3 ? 0x38 : 0x3c;
        for (int i = 0; i < 256; i++)
            codes[i] = (cl_uchar)i;
        for (int side = 0; side < 2; side++) {
            float c[256];
            for (int i = 0; i < 256; i++)
                c[i] = -12345.0f;
            /* side 0: A is 256 x 1, B 1 x 1; side 1: A 1 x 1, B 1 x 256 (C 1 x 256). */
            size_t m = side ? 1 : 256, n = side ? 256 : 1;
            clgemm_status st = clgemm_fp8gemm_host(
                h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, m, n, 1, 1.0f, 1.0f, 1.0f,
                side ? &one : codes, m, side ? codes : &one, 1, 0.0f, c, m, t, CLGEMM_SINGLE);
            cr_assert_eq(st, CLGEMM_SUCCESS, "status %d", st);
            for (int i = 0; i < 256; i++)
                cr_expect(c[i] == tt_fp8_to_double(t, (uint8_t)i) ||
                              (isnan(c[i]) && isnan(tt_fp8_to_double(t, (uint8_t)i))),
                          "%s code 0x%02x (%s): kernel %a, want %a",
                          t == CLGEMM_E4M3 ? "e4m3" : "e5m2", i, side ? "B" : "A", (double)c[i],
                          tt_fp8_to_double(t, (uint8_t)i));
        }
    }
    tc_close_handle(&env, h);
}

/* Every FP8 code through the library's own choice of family (on compute capability 9.0 the tma
 * family's wgmma), both operands K-major as its maps read them (row-major, B transposed: 16-byte
 * rows with K = 32): row i of A holds code i at k = 0 and zeros after it, B's columns one at
 * k = 0, so C(i, j) is code i decoded, in FP32, BF16 and FP16 (each holds every FP8 value), NaN
 * for a NaN code; C poisoned first. Where the library picks no tensor-core family (PoCL) the CUDA
 * cores' decoding is fp8_kernel_tables' and this test is skipped. */
Test(types8, fp8_codes_on_the_default_family, .timeout = 300) {
    enum { M = 256, N = 16, K = 32 };
    TC_OPEN_HANDLE_OR_SKIP(env, h);
    clgemm_config planned;
    cr_assert_eq(clgemm_get_config_ex(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_TRANS, M, N, K,
                                      CLGEMM_E4M3, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &planned,
                                      NULL),
                 CLGEMM_SUCCESS);
    if (planned.family != CLGEMM_FAMILY_TMA && planned.family != CLGEMM_FAMILY_MMA &&
        planned.family != CLGEMM_FAMILY_WGMMA) {
        tc_close_handle(&env, h);
        cr_skip_test("FP8 planned on %s, not a tensor-core family",
                     clgemm_family_name(planned.family));
    }
    for (size_t f = 0; f < COUNT(fp8_types); f++) {
        const clgemm_precision t = fp8_types[f];
        const clgemm_precision cts[3] = {CLGEMM_SINGLE, CLGEMM_BFLOAT16, CLGEMM_HALF};
        static cl_uchar a[M * K], b[N * K];
        memset(a, 0, sizeof a);
        memset(b, 0, sizeof b);
        for (int i = 0; i < M; i++)
            a[i * K] = (cl_uchar)i;
        for (int j = 0; j < N; j++)
            b[j * K] = t == CLGEMM_E4M3 ? 0x38 : 0x3c; /* 1.0 */
        for (int ci = 0; ci < 3; ci++) {
            const clgemm_precision tc = cts[ci];
            const char *cname = ci == 0 ? "fp32" : ci == 1 ? "bf16" : "fp16";
            clgemm_config cfg;
            cr_assert_eq(clgemm_get_config_ex(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_TRANS, M,
                                              N, K, t, tc, CLGEMM_COMPUTE_DEFAULT, &cfg, NULL),
                         CLGEMM_SUCCESS);
            cr_log_info("%s into %s on %s", t == CLGEMM_E4M3 ? "e4m3" : "e5m2", cname,
                        clgemm_family_name(cfg.family));
            static unsigned char c[M * N * 4];
            for (size_t x = 0; x < (size_t)M * N; x++)
                tt_set_nan(tc, c, x);
            cr_assert_eq(clgemm_fp8gemm_host(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_TRANS, M,
                                             N, K, 1.0f, 1.0f, 1.0f, a, K, b, K, 0.0f, c, N, t, tc),
                         CLGEMM_SUCCESS);
            int wrong = 0;
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    const double got = tt_get(tc, c, (size_t)i * N + j, 0);
                    const double want = tt_fp8_to_double(t, (uint8_t)i);
                    if (!(got == want || (isnan(got) && isnan(want))) && wrong++ < 4)
                        cr_log_error("%s code 0x%02x into %s, column %d: %a, want %a",
                                     t == CLGEMM_E4M3 ? "e4m3" : "e5m2", i, cname, j, got, want);
                }
            cr_expect_eq(wrong, 0, "%d wrong", wrong);
        }
    }
    tc_close_handle(&env, h);
}

/* ---- 8-bit: INT8 past the int32 limit of its sums -------------------------------------------- */

Test(types8, int8_long_k_wraps, .timeout = 300) {
    /* k = 140000 > 131071 (clgemm.h: the most products of (-128)^2 an int32 holds): rows and
     * columns of -128 and 127 make sums that pass 2^31 and wrap, exactly as the int64 sum taken
     * modulo 2^32; random ones stay in range. Default planning and a split K. */
    enum { M = 3, N = 2, K = 140000 };
    cl_char *a = malloc((size_t)M * K), *b = malloc((size_t)K * N);
    cr_assert(a && b);
    uint64_t state = 99;
    for (size_t q = 0; q < K; q++) {
        a[q * M + 0] = -128; /* row 0 x column 0: K * 2^14 = 2293760000 > 2^31 - 1 */
        a[q * M + 1] = 127;  /* row 1 x column 0: -K * 16256, below -2^31 */
        a[q * M + 2] = (cl_char)floor(tc_random(&state) * 128);
        b[q] = -128;
        b[K + q] = (cl_char)floor(tc_random(&state) * 128);
    }
    tc_env env;
    TC_OPEN_OR_SKIP(&env);
    for (int split = 0; split < 2; split++) {
        if (split) setenv("CLGEMM_KSPLIT", "3", 1);
        clgemm_handle h;
        cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
        if (split) unsetenv("CLGEMM_KSPLIT");
        static const cl_int alphas[] = {1, -7}, betas[] = {0, 3};
        for (int s = 0; s < 2; s++) {
            cl_int c[M * N], c0[M * N];
            for (int i = 0; i < M * N; i++)
                c[i] = c0[i] = (cl_int)(0x7fff0000 - 977 * i);
            cr_assert_eq(clgemm_i8gemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS,
                                            M, N, K, alphas[s], a, M, b, K, betas[s], c, M),
                         CLGEMM_SUCCESS);
            for (int j = 0; j < N; j++)
                for (int i = 0; i < M; i++) {
                    int64_t sum = 0;
                    for (size_t q = 0; q < K; q++)
                        sum += (int64_t)a[q * M + i] * b[(size_t)j * K + q];
                    uint32_t r = (uint32_t)alphas[s] * (uint32_t)(uint64_t)sum +
                                 (uint32_t)betas[s] * (uint32_t)c0[i + j * M];
                    cr_expect_eq(c[i + j * M], (int32_t)r,
                                 "split %d alpha %d beta %d C(%d,%d): %d, want %d (sum %lld)",
                                 split, alphas[s], betas[s], i, j, c[i + j * M], (int32_t)r,
                                 (long long)sum);
                }
        }
        clgemm_destroy(h);
    }
    tc_close(&env);
    free(a);
    free(b);
}

/* ---- 8-bit: batches ----------------------------------------------------------------------------
 */

/* batch problems of one shape packed back to back (stride: each one's whole buffer), through
 * the strided call and the table call (INT8's own forms for INT8), each matrix checked as tt_run
 * does. */
static void run_batch(tc_env *env, clgemm_handle h, type_pair tp, bool table, tally *t) {
    const double *sc = scalars_for(tp.ab, 2); /* alpha and beta both in play */
    tt_gemm g = {
        TT_PROBLEM(tp.ab, tp.c, CLGEMM_ROW_MAJOR, CLGEMM_TRANS, CLGEMM_NO_TRANS, 19, 11, 37),
        .alpha = {sc[0], 0}, .beta = {sc[2], 0}, .tail = 2};
    char msg[1024], what[64];
    snprintf(what, sizeof what, "%s %s batch: ", type_text(tp), table ? "table" : "strided");
    int rc = tt_run_batch(env, h, &g, 3, table, 700, 0, msg, sizeof msg);
    record(t, rc != 0, what, msg);
}

Test(types8, batches, .timeout = 600) {
    /* Small register-blocked tiles (PoCL builds them in seconds; the library's CPU default takes
     * several times longer, for each type pair and batch kind). */
    TC_OPEN_HANDLE_OR_SKIP(env, h);
    clgemm_config cfg;
    fill_config(&cfg, CLGEMM_FAMILY_REGBLOCK, false);
    for (size_t i = 0; i < COUNT(ab_types); i++)
        cr_assert_eq(clgemm_set_config(h, ab_types[i], &cfg), CLGEMM_SUCCESS);
    tally t = {0, 0};
    static const type_pair pairs[] = {
        {CLGEMM_INT8, CLGEMM_INT32}, {CLGEMM_E4M3, CLGEMM_BFLOAT16}, {CLGEMM_E5M2, CLGEMM_SINGLE}};
    for (size_t p = 0; p < COUNT(pairs); p++)
        for (int table = 0; table < 2; table++)
            run_batch(&env, h, pairs[p], table, &t);
    report(&t, "8-bit batches");
    tc_close_handle(&env, h);
}

Test(types8, fp8_wrapper_checks_type, .timeout = 120) {
    /* clgemm_fp8gemm takes only FP8 A and B; others give CLGEMM_ERR_INVALID_TYPE before any
     * buffer is looked at. */
    static const clgemm_precision bad[] = {CLGEMM_SINGLE, CLGEMM_INT8, CLGEMM_HALF, CLGEMM_INT32,
                                           (clgemm_precision)99};
    float c[4] = {1, 2, 3, 4};
    cl_uchar ab[4] = {0x38, 0x38, 0x38, 0x38};
    for (size_t i = 0; i < COUNT(bad); i++) {
        cr_expect_eq(clgemm_fp8gemm(NULL, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 2, 2,
                                    2, 1, 1, 1, NULL, 0, 2, NULL, 0, 2, 0, NULL, 0, 2, bad[i],
                                    CLGEMM_SINGLE, NULL, 0, NULL, NULL),
                     CLGEMM_ERR_INVALID_TYPE, "type %d", (int)bad[i]);
        cr_expect_eq(clgemm_fp8gemm_host(NULL, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS,
                                         2, 2, 2, 1, 1, 1, ab, 2, ab, 2, 0, c, 2, bad[i],
                                         CLGEMM_SINGLE),
                     CLGEMM_ERR_INVALID_TYPE, "host, type %d", (int)bad[i]);
    }
    cr_expect(c[0] == 1 && c[3] == 4, "C changed");
}
#endif
