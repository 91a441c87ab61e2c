/* test_rule.c: the drop-in's measured size rule (blas/rule.c, linked as objects): the order in
 * which a group of calls tries the two sides, the faster side afterwards, the rechecks of the
 * slower one (rarer where it lost by far), a new group starting on the host where larger or
 * smaller calls found it much faster, groups kept apart by arithmetic intensity and shape class,
 * the bytes a GEMM is charged, and the rule off (CLGEMM_BLAS_RULE=flops, CLGEMM_BLAS_MIN_FLOPS=0).
 * Each test is its own process, so the settings it sets are the ones the library reads. */
#include "../../blas/blas.h"

#include <criterion/criterion.h>
#include <stdlib.h>

static const double FLOPS = 2.0 * 4096 * 4096 * 64; /* a rank-64 update of 4096^2 */

/* Its shape class: dgemm NN 4096 4096 64. */
static int nn_update(void) {
    return clgemm__blas_rule_shape('N', 'N', 4096, 4096, 64);
}

static int device(int group) {
    const char *why = NULL;
    int on = clgemm__blas_rule_device(group, &why);
    cr_assert(on || why, "a host choice says why");
    return on;
}

Test(rule, tries_the_device_then_the_host_then_takes_the_faster) {
    unsetenv("CLGEMM_BLAS_RULE");
    unsetenv("CLGEMM_BLAS_MIN_FLOPS");
    int g = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), FLOPS, FLOPS / 8);
    cr_assert_geq(g, 0);
    cr_assert(device(g), "call 1: the device, not tried yet");
    cr_assert(device(g), "call 2: still untried (no time was recorded)");
    clgemm__blas_rule_record(g, 1, FLOPS, 0.30);
    cr_assert_not(device(g), "call 3: then the host");
    clgemm__blas_rule_record(g, 0, FLOPS, 0.10);
    /* The host is faster: calls of the group on it, but the 8th and 64th on the device. */
    for (int call = 4; call <= 100; call++) {
        int want = call == 8 || call == 64;
        cr_assert_eq(device(g), want, "call %d", call);
    }
    /* A faster device time (say the first one built the kernels) wins the group back. */
    clgemm__blas_rule_record(g, 1, FLOPS, 0.05);
    cr_assert(device(g));
    /* Slower times do not replace the best one. */
    clgemm__blas_rule_record(g, 1, FLOPS, 1.0);
    cr_assert(device(g));
}

/* A side that lost by more than four times at its best is rechecked 64 times as far apart, not 8:
 * the device at calls 1, 8 (its first time may have built kernels) and 512. */
Test(rule, a_side_that_lost_by_far_is_rechecked_more_rarely) {
    unsetenv("CLGEMM_BLAS_RULE");
    unsetenv("CLGEMM_BLAS_MIN_FLOPS");
    int g = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), FLOPS, FLOPS / 8);
    cr_assert(device(g), "call 1: the device");
    clgemm__blas_rule_record(g, 1, FLOPS, 1.0);
    cr_assert_not(device(g), "call 2: the host");
    clgemm__blas_rule_record(g, 0, FLOPS, 0.1);
    for (int call = 3; call <= 600; call++) {
        int want = call == 8 || call == 512;
        cr_assert_eq(device(g), want, "call %d", call);
        if (want) clgemm__blas_rule_record(g, 1, FLOPS, 0.9); /* still 9 times as slow */
    }
    /* A new group next to it starts on the host, and tries the device at its 512th call. */
    int large = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), 8 * FLOPS, 8 * FLOPS / 8);
    for (int call = 1; call < 512; call++) {
        cr_assert_not(device(large), "call %d", call);
        clgemm__blas_rule_record(large, 0, 8 * FLOPS, 0.8);
    }
    cr_assert(device(large), "call 512: the device");
}

/* Where calls of about the same intensity, larger or smaller, were much faster on the host, a
 * new group starts there and tries the device at its 64th call; where they were not, on the
 * device. */
Test(rule, smaller_calls_start_where_larger_ones_were_much_faster) {
    unsetenv("CLGEMM_BLAS_RULE");
    unsetenv("CLGEMM_BLAS_MIN_FLOPS");
    int large = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), 8 * FLOPS, 8 * FLOPS / 8);
    clgemm__blas_rule_record(large, 1, 8 * FLOPS, 2.4);
    clgemm__blas_rule_record(large, 0, 8 * FLOPS, 0.8);
    int small = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), FLOPS, FLOPS / 8);
    for (int call = 1; call < 64; call++)
        cr_assert_not(device(small), "call %d", call);
    cr_assert(device(small), "call 64: the device");
    /* Host only 1.5 times as fast above: the device first. */
    int other = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), 8 * FLOPS, FLOPS / 8);
    clgemm__blas_rule_record(other, 1, 8 * FLOPS, 1.2);
    clgemm__blas_rule_record(other, 0, 8 * FLOPS, 0.8);
    cr_assert(device(clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), FLOPS, FLOPS / 64)));
}

Test(rule, larger_calls_start_where_smaller_ones_were_much_faster) {
    unsetenv("CLGEMM_BLAS_RULE");
    unsetenv("CLGEMM_BLAS_MIN_FLOPS");
    int small = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), FLOPS, FLOPS / 8);
    clgemm__blas_rule_record(small, 1, FLOPS, 0.30);
    clgemm__blas_rule_record(small, 0, FLOPS, 0.10);
    int large = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), 8 * FLOPS, 8 * FLOPS / 8);
    cr_assert_neq(large, small);
    cr_assert_not(device(large), "call 1: the host");
    clgemm__blas_rule_record(large, 0, 8 * FLOPS, 0.8);
    for (int call = 2; call < 64; call++)
        cr_assert_not(device(large), "call %d", call);
    cr_assert(device(large), "call 64: the device");
    clgemm__blas_rule_record(large, 1, 8 * FLOPS, 0.4); /* and it wins there */
    cr_assert(device(large), "call 65");
    /* Intensity one factor of two higher, no larger: also the host first. */
    cr_assert_not(
        device(clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), FLOPS, FLOPS / 16)));
    /* Four times the intensity: no evidence, the device first. */
    cr_assert(device(clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), FLOPS, FLOPS / 32)));
    /* Host only 1.5 times as fast below: the device first. */
    int other = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), FLOPS, FLOPS / 64);
    clgemm__blas_rule_record(other, 1, FLOPS, 0.15);
    clgemm__blas_rule_record(other, 0, FLOPS, 0.10);
    cr_assert(
        device(clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), 8 * FLOPS, 8 * FLOPS / 64)));
}

Test(rule, groups_by_intensity_size_type_and_kind) {
    unsetenv("CLGEMM_BLAS_RULE");
    unsetenv("CLGEMM_BLAS_MIN_FLOPS");
    int update = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), FLOPS, FLOPS / 8);
    int square = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), FLOPS, FLOPS / 256);
    int bigger = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), 4 * FLOPS, 4 * FLOPS / 8);
    int single = clgemm__blas_rule_group(RULE_GEMM, BLAS_S, nn_update(), FLOPS, FLOPS / 8);
    int syrk = clgemm__blas_rule_group(RULE_SYRK, BLAS_D, nn_update(), FLOPS, FLOPS / 8);
    int ids[] = {update, square, bigger, single, syrk};
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            cr_assert_neq(ids[i], ids[j], "groups %d and %d", i, j);
    /* The same intensity within a factor of two: the same group. */
    cr_assert_eq(
        clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), 1.5 * FLOPS, 1.5 * FLOPS / 9),
        update);
    /* What the update learnt says nothing of the square product. */
    clgemm__blas_rule_record(update, 1, FLOPS, 0.3);
    clgemm__blas_rule_record(update, 0, FLOPS, 0.1);
    cr_assert_not(device(update));
    cr_assert(device(square));
}

/* dgetrf's NN updates m x m x 64 and dgeqrf's TN products m x 32 x m (W = C^T V) of the same
 * flops and flops per byte, within a factor of two: the device ran the TN ones 8-14 times as
 * long as OpenBLAS on PoCL, the NN ones 2-3 times. Their shape classes keep their verdicts
 * apart; what one found says where a new group of the other starts. */
Test(rule, shape_classes_keep_separate_verdicts) {
    unsetenv("CLGEMM_BLAS_RULE");
    unsetenv("CLGEMM_BLAS_MIN_FLOPS");
    double one = 1;
    blas_call nn = {
        .type = BLAS_D, .ta = 'N', .tb = 'N', .m = 2944, .n = 2944, .k = 64, .beta = &one};
    blas_call tn = {
        .type = BLAS_D, .ta = 'T', .tb = 'N', .m = 4096, .n = 32, .k = 4096, .beta = &one};
    double nn_flops = 2.0 * nn.m * nn.n * nn.k, tn_flops = 2.0 * tn.m * tn.n * tn.k;
    int nn_shape = clgemm__blas_rule_shape('N', 'N', nn.m, nn.n, nn.k);
    int tn_shape = clgemm__blas_rule_shape('T', 'N', tn.m, tn.n, tn.k);
    cr_assert_neq(nn_shape, tn_shape);
    /* The same buckets of flops and intensity: one group but for the shape class. */
    cr_assert_eq(clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_shape, nn_flops,
                                         clgemm__blas_gemm_bytes(&nn)),
                 clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_shape, tn_flops,
                                         clgemm__blas_gemm_bytes(&tn)));
    int g_nn = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_shape, nn_flops,
                                       clgemm__blas_gemm_bytes(&nn));
    int g_tn = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, tn_shape, tn_flops,
                                       clgemm__blas_gemm_bytes(&tn));
    cr_assert_neq(g_nn, g_tn);
    /* The device 3 times as slow for TN. */
    cr_assert(device(g_tn), "TN call 1: the device");
    clgemm__blas_rule_record(g_tn, 1, tn_flops, 0.03);
    cr_assert_not(device(g_tn), "TN call 2: the host");
    clgemm__blas_rule_record(g_tn, 0, tn_flops, 0.01);
    /* The NN group starts on the host and tries the device at its 512th call (not the 64th, as
     * after a loss of 3 times in its own class: another class's says little of it), where it
     * wins. */
    for (int call = 1; call < 512; call++) {
        cr_assert_not(device(g_nn), "NN call %d", call);
        clgemm__blas_rule_record(g_nn, 0, nn_flops, 0.04);
    }
    cr_assert(device(g_nn), "NN call 512");
    clgemm__blas_rule_record(g_nn, 1, nn_flops, 0.02);
    cr_assert(device(g_nn), "NN: the device, faster there");
    cr_assert_not(device(g_tn), "TN: the host, faster there");
}

/* Each pair of transposes and each smallest dimension (k on a tie, then m) a class of its own. */
Test(rule, shape_classes) {
    static const char t[2] = {'N', 'T'};
    static const int dims[3][3] = {{100, 100, 10}, {10, 100, 100}, {100, 10, 100}};
    int seen[12] = {0};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int d = 0; d < 3; d++) {
                int s = clgemm__blas_rule_shape(t[a], t[b], dims[d][0], dims[d][1], dims[d][2]);
                cr_assert(s >= 0 && s < 12 && !seen[s]++, "%c%c %d", t[a], t[b], d);
            }
    cr_assert_eq(clgemm__blas_rule_shape('C', 'N', 10, 10, 10),
                 clgemm__blas_rule_shape('T', 'N', 20, 20, 10));
    cr_assert_eq(clgemm__blas_rule_shape('N', 'N', 10, 10, 20),
                 clgemm__blas_rule_shape('N', 'N', 10, 20, 20));
}

Test(rule, gemm_bytes_count_c_twice_unless_beta_is_zero) {
    double zero = 0, one = 1;
    blas_call c = {.type = BLAS_D, .m = 100, .n = 50, .k = 10, .beta = &one};
    cr_assert_eq(clgemm__blas_gemm_bytes(&c), 8.0 * (100 * 10 + 10 * 50 + 2 * 100 * 50));
    c.beta = &zero;
    cr_assert_eq(clgemm__blas_gemm_bytes(&c), 8.0 * (100 * 10 + 10 * 50 + 100 * 50));
    float cz[2] = {0, 1}; /* complex beta i: not zero */
    blas_call z = {.type = BLAS_C, .m = 4, .n = 4, .k = 4, .beta = cz};
    cr_assert_eq(clgemm__blas_gemm_bytes(&z), 8.0 * (16 + 16 + 32));
}

Test(rule, off_with_the_flops_rule) {
    setenv("CLGEMM_BLAS_RULE", "flops", 1);
    unsetenv("CLGEMM_BLAS_MIN_FLOPS");
    int g = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, nn_update(), FLOPS, FLOPS / 8);
    cr_assert_eq(g, -1);
    clgemm__blas_rule_record(g, 1, FLOPS, 1.0);
    clgemm__blas_rule_record(g, 0, FLOPS, 0.1);
    cr_assert(device(g), "every call to the device");
}

Test(rule, off_when_every_call_is_forced) {
    unsetenv("CLGEMM_BLAS_RULE");
    setenv("CLGEMM_BLAS_MIN_FLOPS", "0", 1);
    cr_assert_eq(clgemm__blas_rule_group(RULE_SYRK, BLAS_Z, nn_update(), FLOPS, FLOPS / 8), -1);
}
