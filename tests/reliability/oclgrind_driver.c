/* oclgrind_driver.c: runs every kernel family of clgemm, with forced parameter sets from the
 * smallest legal to large ones, on edge shapes, offsets and padded leading dimensions, all four
 * transposes, both layouts, sgemm and dgemm, and checks every result against a host reference.
 * Meant to run under `oclgrind --data-races --uninitialized` (tests/reliability/oclgrind.py
 * does that and fails on any oclgrind report); it refuses to run on another device unless
 * REL_ANY_DEVICE=1, so the suite cannot pass without oclgrind having seen the kernels.
 *
 * ksplit is the register-blocked family with K split across work-group layers (CLGEMM_KSPLIT=2
 * or 3, so some layers are empty for small K) and the reduction kernel that sums the layers;
 * streamk is it in the stream-K schedule (CLGEMM_STREAMK=3 or 7 work-groups, cutting tiles at
 * varied points) and the fix-up kernel; streamk-rounds is the same with 100 or 61 work-groups on
 * shape 6, whose long K cuts a tile into more parts than the fix-up takes in one round; packed is
 * the micro-kernel family in the blocked schedule (CLGEMM_PACK_KC=5 or 8: several K-blocks, a
 * partial last one) and the kernel that packs its panels; aligncopies is the micro-kernel family
 * over copies of the operands that sit off 16 bytes (CLGEMM_ALIGN_COPIES=1: pack.cl's copy onto
 * 16-byte lines first).
 *
 * Usage: oclgrind_driver naive|tiled|regblock|microkernel|ksplit|streamk|streamk-rounds|packed|
 *        aligncopies|scale [PRECISIONS [SHAPES]]
 *   PRECISIONS: s, d or sd (default); SHAPES: indices into shapes[] below, e.g. 012 (default: all).
 * Exit status 0 when every result is right. */
#include "rel_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct shape {
    size_t m, n, k;
} shape;

/* Edge shapes: one element, non-multiples of every tile size, K shorter and longer than a
 * slice, and one large enough for interior work-groups of the 32 x 32 register-blocked tile;
 * last (not in the default list), the same with every leading dimension of its unpadded cases a
 * multiple of 4 and K cut 4 deep into a slice of 8: 16-byte loads (VLOAD 2), vectors along K read
 * in part; then (not in the default list either) a K of 69 or more slices of every tile size
 * here, one or two tiles, for the stream-K fix-up's rounds (more than 32 parts a tile). */
static const shape shapes[] = {{1, 1, 1},    {7, 13, 5},   {33, 17, 19}, {4, 3, 33},
                               {34, 33, 18}, {36, 36, 20}, {9, 5, 2200}};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static const clgemm_config naive_configs[] = {
    {.family = CLGEMM_FAMILY_NAIVE, .mdimc = 1, .ndimc = 1},
    {.family = CLGEMM_FAMILY_NAIVE, .mdimc = 8, .ndimc = 8},
    {.family = CLGEMM_FAMILY_NAIVE, .mdimc = 4, .ndimc = 2},
};
static const clgemm_config tiled_configs[] = {
    {.family = CLGEMM_FAMILY_TILED, .ts = 1},
    {.family = CLGEMM_FAMILY_TILED, .ts = 8},
    {.family = CLGEMM_FAMILY_TILED, .ts = 4},
};
#define RB(a, b, c, d, e, f, g, h)                                                                 \
    {                                                                                              \
        .family = CLGEMM_FAMILY_REGBLOCK, .mwg = a, .nwg = b, .kwg = c, .mdimc = d, .ndimc = e,    \
        .kwi = f, .vwm = g, .vwn = h                                                               \
    }
/* RB(MWG, NWG, KWG, MDIMC, NDIMC, KWI, VWM, VWN). Under a forced schedule even entries share one
 * handle and odd ones another: each handle's workspaces come largest first (stream-K's is the
 * tile times its work-groups), since Oclgrind reports reads of a workspace buffer that replaced a
 * smaller one as uninitialised (docs/RELIABILITY.md, "Open questions"). */
static const clgemm_config regblock_configs[] = {
    /* two local buffers (STAGES 2), each slice loaded in four 4-row parts: races between the
     * stores into one buffer and the reads of the other would show here */
    {.family = CLGEMM_FAMILY_REGBLOCK, .params = {8, 8, 0, 32, 32, 16, 4, 4, 4, 2}},
    /* one buffer, 16-byte loads where the operands are aligned */
    {.family = CLGEMM_FAMILY_REGBLOCK, .params = {8, 8, 0, 32, 32, 8, 2, 4, 4, 0, 2}},
    RB(32, 32, 16, 8, 8, 2, 4, 4), /* large tiles, 8 x 8 work-items, 4-wide vectors */
    RB(8, 16, 2, 4, 2, 1, 2, 1),   /* non-square tile and work-group, KWG < loads per row */
    RB(16, 16, 16, 2, 2, 8, 8, 8), /* 8-wide vectors: fewer work-items along k than KWG */
    RB(1, 1, 1, 1, 1, 1, 1, 1),    /* the smallest legal configuration */
};
#undef RB
/* MR x NR blocks of VW-wide vectors: the smallest, an odd NR with vectors shorter than the block,
 * and the CPU tiers' FP32 and FP64 defaults (the shapes run the in-place path, the copied panel
 * and both ways of storing C). */
#define MK(mr, nr, vw)                                                                             \
    {                                                                                              \
        .family = CLGEMM_FAMILY_MICROKERNEL, .params = { mr, nr, vw }                              \
    }
static const clgemm_config microkernel_configs[] = {MK(2, 1, 2), MK(8, 3, 4), MK(32, 8, 16),
                                                    MK(32, 8, 8)};
#undef MK

typedef struct family_set {
    const char *name;
    const clgemm_config *configs;
    size_t count;
} family_set;

static const family_set families[] = {
    {"naive", naive_configs, sizeof naive_configs / sizeof naive_configs[0]},
    {"tiled", tiled_configs, sizeof tiled_configs / sizeof tiled_configs[0]},
    {"regblock", regblock_configs, sizeof regblock_configs / sizeof regblock_configs[0]},
    {"microkernel", microkernel_configs,
     sizeof microkernel_configs / sizeof microkernel_configs[0]},
};

static int runs, failures;

static void describe_config(const clgemm_config *c, char *buf, size_t size) {
    clgemm_config_string(c, buf, size);
}

static void run_one(clgemm_handle h, const rel_problem *p, const char *config) {
    char msg[512] = "";
    runs++;
    if (rel_run(h, p, (uint64_t)runs, msg, sizeof msg) != 0) {
        failures++;
        fprintf(stdout, "FAIL [%s] %s\n", config, msg);
    }
}

/* Every other padded case with columns of A and B 4100 elements longer (16 KB and more apart):
 * the blocked schedule packs those in runs of panels (clgemm_pack_panel_runs, src/exec/pack.c).
 * Set for the packed schedule only. */
static bool far_columns;

/* Every shape in both layouts and all four transposes; every other problem has offsets and
 * padded leading dimensions, and alpha/beta cycle through beta == 0 (C not read), beta == 1 and
 * general values. */
static const char *shape_list = "01234";

static void run_shapes(clgemm_handle h, clgemm_precision prec, const char *config) {
    static const double ab[][2] = {{1.0, 0.0}, {-1.5, 0.75}, {0.5, 1.0}};
    int variant = 0;
    for (size_t s = 0; s < NSHAPES; s++)
        if (strchr(shape_list, (int)('0' + s)))
            for (int l = 0; l < 2; l++)
                for (int t = 0; t < 4; t++, variant++) {
                    rel_problem p = {.prec = prec,
                                     .layout = l ? CLGEMM_ROW_MAJOR : CLGEMM_COL_MAJOR,
                                     .ta = (t & 1) ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                                     .tb = (t & 2) ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                                     .m = shapes[s].m,
                                     .n = shapes[s].n,
                                     .k = shapes[s].k,
                                     .alpha = ab[variant % 3][0],
                                     .beta = ab[variant % 3][1]};
                    if (variant % 2) {
                        const size_t far = far_columns && variant % 4 == 1 ? 4100 : 0;
                        p.off_a = 3;
                        p.off_b = 5;
                        p.off_c = 7;
                        p.lda = tc_min_ld(p.layout, p.ta, p.m, p.k) + 3 + far;
                        p.ldb = tc_min_ld(p.layout, p.tb, p.k, p.n) + 2 + far;
                        p.ldc = tc_min_ld(p.layout, CLGEMM_NO_TRANS, p.m, p.n) + 1;
                    }
                    run_one(h, &p, config);
                }
}

/* A schedule forced through the environment: the variable and its two settings, the family it
 * runs and the configuration that checks it is taken (NULL: rel_split_taken's). */
typedef struct schedule {
    const char *variable, *second_kernel, *values[2], *family;
    const clgemm_config *probe;
} schedule;
static const schedule ksplit_schedule = {
    "CLGEMM_KSPLIT", "reduce.cl", {"2", "3"}, "regblock", NULL};
static const schedule streamk_schedule = {
    "CLGEMM_STREAMK", "streamk.cl", {"3", "7"}, "regblock", NULL};
static const schedule streamk_rounds_schedule = {
    "CLGEMM_STREAMK", "streamk.cl", {"100", "61"}, "regblock", NULL};
static const schedule packed_schedule = {
    "CLGEMM_PACK_KC", "pack.cl", {"5", "8"}, "microkernel", &microkernel_configs[1]};

/* The handles made with each setting (kept for the whole run: Oclgrind 21.10 reports reads of
 * a split-K workspace as uninitialised once buffers of released handles are replaced, see
 * docs/RELIABILITY.md "Open questions"). */
static clgemm_handle split_handles[2];

static int run_family(clgemm_handle shared, const family_set *f, clgemm_precision prec,
                      const schedule *forced) {
    for (size_t i = 0; i < f->count; i++) {
        clgemm_handle h = shared;
        char config[192];
        describe_config(&f->configs[i], config, sizeof config);
        if (forced) {
            /* Read by the library when a handle is made: one on the same queue per setting. */
            const char *value = forced->values[i % 2];
            setenv(forced->variable, value, 1);
            snprintf(config + strlen(config), sizeof config - strlen(config), " %s=%s",
                     forced->variable, value);
            if (!split_handles[i % 2] &&
                clgemm_create(&split_handles[i % 2], clgemm_queue(shared)) != CLGEMM_SUCCESS) {
                fprintf(stdout, "FAIL [%s] clgemm_create\n", config);
                failures++;
                continue;
            }
            h = split_handles[i % 2];
        }
        clgemm_status st = clgemm_set_config(h, prec, &f->configs[i]);
        if (st != CLGEMM_SUCCESS) {
            fprintf(stdout, "FAIL [%s] clgemm_set_config: %s\n", config, clgemm_status_string(st));
            failures++;
            continue;
        }
        /* The forced configuration is the one the calls use. */
        clgemm_config used;
        const char *source = NULL;
        st = clgemm_get_config(h, prec, 7, 13, 5, &used, &source);
        if (st != CLGEMM_SUCCESS || !source || strcmp(source, "override") != 0 ||
            memcmp(&used, &f->configs[i], sizeof used) != 0) {
            fprintf(stdout, "FAIL [%s] the override is not what calls use\n", config);
            failures++;
            continue;
        }
        int before = failures, runs_before = runs;
        run_shapes(h, prec, config);
        fprintf(stdout, "%cgemm [%s]: %d problems, %d failed\n", prec == CLGEMM_DOUBLE ? 'd' : 's',
                config, runs - runs_before, failures - before);
        fflush(stdout);
    }
    return 0;
}

/* The scale kernel: k == 0 or alpha == 0, beta 0 (C set without being read) or not. */
static void run_scale(clgemm_handle h, clgemm_precision prec) {
    int variant = 0, before = failures, runs_before = runs;
    for (size_t s = 0; s < NSHAPES; s++)
        if (strchr(shape_list, (int)('0' + s)))
            for (int l = 0; l < 2; l++)
                for (int z = 0; z < 4; z++, variant++) {
                    rel_problem p = {.prec = prec,
                                     .layout = l ? CLGEMM_ROW_MAJOR : CLGEMM_COL_MAJOR,
                                     .ta = (variant & 1) ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                                     .tb = (variant & 2) ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                                     .m = shapes[s].m,
                                     .n = shapes[s].n,
                                     .k = (z & 1) ? 0 : shapes[s].k,
                                     .alpha = (z & 1) ? 1.0 : 0.0,
                                     .beta = (z & 2) ? -0.75 : 0.0};
                    if (variant % 2) {
                        p.off_a = 2;
                        p.off_b = 4;
                        p.off_c = 6;
                        p.lda = tc_min_ld(p.layout, p.ta, p.m, p.k) + 1;
                        p.ldb = tc_min_ld(p.layout, p.tb, p.k, p.n) + 2;
                        p.ldc = tc_min_ld(p.layout, CLGEMM_NO_TRANS, p.m, p.n) + 3;
                    }
                    run_one(h, &p, "scale");
                }
    fprintf(stdout, "%cgemm [scale]: %d problems, %d failed\n", prec == CLGEMM_DOUBLE ? 'd' : 's',
            runs - runs_before, failures - before);
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr,
                "usage: %s naive|tiled|regblock|microkernel|ksplit|streamk|streamk-rounds|packed|"
                "aligncopies|scale "
                "[s|d|sd [SHAPES]]\n",
                argv[0]);
        return 2;
    }
    const char *precs = argc >= 3 ? argv[2] : "sd";
    if (argc == 4) shape_list = argv[3];
    /* Read when the handle is made: every call with an operand off 16 bytes copies it first. */
    const bool align_copies = strcmp(argv[1], "aligncopies") == 0;
    if (align_copies) setenv("CLGEMM_ALIGN_COPIES", "1", 1);
    clgemm_handle h;
    clgemm_status st = clgemm_create_default(&h);
    if (st != CLGEMM_SUCCESS) {
        fprintf(stdout, "FAIL clgemm_create_default: %s\n", clgemm_status_string(st));
        return 1;
    }
    char name[256] = "";
    clGetDeviceInfo(clgemm_device(h), CL_DEVICE_NAME, sizeof name, name, NULL);
    name[sizeof name - 1] = 0;
    const char *any = getenv("REL_ANY_DEVICE");
    if (!strcasestr(name, "oclgrind") && !(any && strcmp(any, "1") == 0)) {
        fprintf(stdout,
                "FAIL the device is \"%s\", not Oclgrind (run under oclgrind, or set "
                "REL_ANY_DEVICE=1)\n",
                name);
        clgemm_destroy(h);
        return 1;
    }
    fprintf(stdout, "device: %s\n", name);
    const family_set *f = NULL;
    const schedule *forced = strcmp(argv[1], "ksplit") == 0           ? &ksplit_schedule
                             : strcmp(argv[1], "streamk") == 0        ? &streamk_schedule
                             : strcmp(argv[1], "streamk-rounds") == 0 ? &streamk_rounds_schedule
                             : strcmp(argv[1], "packed") == 0         ? &packed_schedule
                                                                      : NULL;
    far_columns = forced == &packed_schedule;
    unsetenv("CLGEMM_KSPLIT");
    unsetenv("CLGEMM_STREAMK");
    unsetenv("CLGEMM_PACK_KC");
    const char *family = forced ? forced->family : align_copies ? "microkernel" : argv[1];
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strcmp(family, families[i].name) == 0) f = &families[i];
    if (!f && strcmp(argv[1], "scale") != 0) {
        fprintf(stderr, "unknown family %s\n", argv[1]);
        clgemm_destroy(h);
        return 2;
    }
    if (forced) {
        /* Make sure the calls below really take the schedule (and so run its second kernel). */
        char msg[512] = "";
        setenv(forced->variable, "2", 1);
        if (!rel_split_taken(h, forced->second_kernel, forced->probe, msg, sizeof msg)) {
            fprintf(stdout, "FAIL %s\n", msg);
            failures++;
        }
    }
    for (const char *c = precs; *c; c++) {
        clgemm_precision prec = *c == 'd' ? CLGEMM_DOUBLE : CLGEMM_SINGLE;
        if (f)
            run_family(h, f, prec, forced);
        else
            run_scale(h, prec);
    }
    char log[2] = "";
    (void)clgemm_build_log(h, log, sizeof log);
    clgemm_destroy(split_handles[0]);
    clgemm_destroy(split_handles[1]);
    clgemm_destroy(h);
    fprintf(stdout, "%s: %d problems, %d failed\n", argv[1], runs, failures);
    return failures ? 1 : 0;
}
