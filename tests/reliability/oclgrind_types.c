/* oclgrind_types.c: the complex, FP16, BF16 and 8-bit kernels under Oclgrind (run through
 * oclgrind.py, which fails on any report): each family the device can run, forced to a small
 * configuration, on small odd shapes with offsets and padded leading dimensions, in both
 * layouts, with conjugate transposes for complex and FP32 C for FP16 / BF16 inputs, each
 * result checked against the host reference of tests/common/typed.c.
 * Usage: oclgrind_types TYPES   (letters of c z h b, and i (INT8 into INT32), e (E4M3 into FP32
 * and BF16), f (E5M2 into FP16); d and z need fp64) */
#include "typed.h"

#include <stdio.h>
#include <string.h>

static int runs, failures;

static bool force(clgemm_handle h, clgemm_family family, clgemm_precision type) {
    static const struct {
        const char *name;
        int value;
    } small[] = {{"MDIMC", 2}, {"NDIMC", 4}, {"TS", 4},  {"MWG", 8}, {"NWG", 8}, {"KWG", 4},
                 {"KWI", 2},   {"VWM", 2},   {"VWN", 2}, {"MR", 4},  {"NR", 3},  {"VW", 2}};
    clgemm_config cfg;
    if (clgemm_config_init(&cfg, family) != CLGEMM_SUCCESS) return false;
    for (int i = 0; i < clgemm_family_param_count(family); i++) {
        const char *name = clgemm_family_param_name(family, i);
        int value = 1;
        for (size_t s = 0; s < sizeof small / sizeof small[0]; s++)
            if (strcmp(small[s].name, name) == 0) value = small[s].value;
        clgemm_config_set(&cfg, name, value);
    }
    return clgemm_set_config(h, type, &cfg) == CLGEMM_SUCCESS;
}

static void run_type(tc_env *env, clgemm_handle h, clgemm_precision ab, clgemm_precision c) {
    static const size_t shapes[][3] = {{5, 3, 7}, {9, 10, 6}};
    const clgemm_transpose t2 = tt_is_complex(ab) ? CLGEMM_CONJ_TRANS : CLGEMM_TRANS;
    for (size_t s = 0; s < 2; s++)
        for (int layout = 0; layout < 2; layout++) {
            tt_gemm g = {.type_ab = ab,
                         .type_c = c,
                         .layout = layout ? CLGEMM_ROW_MAJOR : CLGEMM_COL_MAJOR,
                         .ta = s ? t2 : CLGEMM_NO_TRANS,
                         .tb = s ? CLGEMM_NO_TRANS : t2,
                         .m = shapes[s][0],
                         .n = shapes[s][1],
                         .k = shapes[s][2],
                         .alpha = {ab == CLGEMM_INT8 ? 3 : 1.5, tt_is_complex(ab) ? -0.5 : 0},
                         .beta = {s                   ? 0.0
                                  : ab == CLGEMM_INT8 ? -2
                                                      : 0.25,
                                  s ? 0.0 : 0.75 * tt_is_complex(ab)},
                         .off_a = 3,
                         .off_b = 1,
                         .off_c = 2,
                         .tail = 2};
            char msg[1024];
            runs++;
            if (tt_run(env, h, &g, 11 + s, 0, 0, msg, sizeof msg) != 0) {
                failures++;
                printf("FAIL %s\n", msg);
            }
        }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s TYPES (letters of c z h b i e f)\n", argv[0]);
        return 2;
    }
    tc_env env;
    if (!tc_open(&env)) {
        printf("FAIL no device: %s\n", env.why);
        return 1;
    }
    if (!strstr(env.device_name, "Oclgrind")) {
        printf("FAIL the device is \"%s\", not Oclgrind\n", env.device_name);
        return 1;
    }
    clgemm_handle h;
    if (clgemm_create(&h, env.queue) != CLGEMM_SUCCESS) return 1;
    for (const char *t = argv[1]; *t; t++) {
        clgemm_precision ab = *t == 'c'   ? CLGEMM_COMPLEX_SINGLE
                              : *t == 'z' ? CLGEMM_COMPLEX_DOUBLE
                              : *t == 'h' ? CLGEMM_HALF
                              : *t == 'i' ? CLGEMM_INT8
                              : *t == 'e' ? CLGEMM_E4M3
                              : *t == 'f' ? CLGEMM_E5M2
                                          : CLGEMM_BFLOAT16;
        /* C: the type's own, FP32 too for FP16 / BF16; INT32; FP32 and BF16; FP16. */
        clgemm_precision c1 = ab == CLGEMM_INT8   ? CLGEMM_INT32
                              : ab == CLGEMM_E4M3 ? CLGEMM_SINGLE
                              : ab == CLGEMM_E5M2 ? CLGEMM_HALF
                                                  : ab;
        clgemm_precision c2 = ab == CLGEMM_HALF || ab == CLGEMM_BFLOAT16 ? CLGEMM_SINGLE
                              : ab == CLGEMM_E4M3                        ? CLGEMM_BFLOAT16
                                                                         : c1;
        for (clgemm_family f = CLGEMM_FAMILY_NAIVE; f <= CLGEMM_FAMILY_COUNT; f++) {
            if (!force(h, f, ab)) continue; /* a family for other devices (mma) */
            int before = failures;
            run_type(&env, h, ab, c1);
            if (c2 != c1) run_type(&env, h, ab, c2);
            printf("%c %s: %s\n", *t, clgemm_family_name(f), failures == before ? "ok" : "FAIL");
            fflush(stdout);
        }
    }
    clgemm_destroy(h);
    tc_close(&env);
    printf("types: %d problems, %d failed\n", runs, failures);
    return failures ? 1 : 0;
}
