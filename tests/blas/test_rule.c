/* test_rule.c: the drop-in's measured size rule (blas/rule.c, linked as objects): the order in
 * which a group of calls tries the two sides, the faster side afterwards, the doubling rechecks
 * of the slower one, a new group of larger calls starting on the host where smaller ones found
 * it much faster, groups kept apart by arithmetic intensity, the bytes a GEMM is charged, and
 * the rule off (CLGEMM_BLAS_RULE=flops, CLGEMM_BLAS_MIN_FLOPS=0). Each test is its own process,
 * so the settings it sets are the ones the library reads. */
#include "../../blas/blas.h"

#include <criterion/criterion.h>
#include <stdlib.h>

static const double FLOPS = 2.0 * 4096 * 4096 * 64; /* a rank-64 update of 4096^2 */

static int device(int group) {
    const char *why = NULL;
    int on = clgemm__blas_rule_device(group, &why);
    cr_assert(on || why, "a host choice says why");
    return on;
}

Test(rule, tries_the_device_then_the_host_then_takes_the_faster) {
    unsetenv("CLGEMM_BLAS_RULE");
    unsetenv("CLGEMM_BLAS_MIN_FLOPS");
    int g = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, FLOPS, FLOPS / 8);
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

/* Where calls no larger and of about the same intensity were much faster on the host, a new
 * group starts there and tries the device at its 64th call; where they were not, on the device. */
Test(rule, larger_calls_start_where_smaller_ones_were_much_faster) {
    unsetenv("CLGEMM_BLAS_RULE");
    unsetenv("CLGEMM_BLAS_MIN_FLOPS");
    int small = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, FLOPS, FLOPS / 8);
    clgemm__blas_rule_record(small, 1, FLOPS, 0.30);
    clgemm__blas_rule_record(small, 0, FLOPS, 0.10);
    int large = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, 8 * FLOPS, 8 * FLOPS / 8);
    cr_assert_neq(large, small);
    cr_assert_not(device(large), "call 1: the host");
    clgemm__blas_rule_record(large, 0, 8 * FLOPS, 0.8);
    for (int call = 2; call < 64; call++)
        cr_assert_not(device(large), "call %d", call);
    cr_assert(device(large), "call 64: the device");
    clgemm__blas_rule_record(large, 1, 8 * FLOPS, 0.4); /* and it wins there */
    cr_assert(device(large), "call 65");
    /* Intensity one factor of two higher, no larger: also the host first. */
    cr_assert_not(device(clgemm__blas_rule_group(RULE_GEMM, BLAS_D, FLOPS, FLOPS / 16)));
    /* Four times the intensity: no evidence, the device first. */
    cr_assert(device(clgemm__blas_rule_group(RULE_GEMM, BLAS_D, FLOPS, FLOPS / 32)));
    /* Host only 1.5 times as fast below: the device first. */
    int other = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, FLOPS, FLOPS / 64);
    clgemm__blas_rule_record(other, 1, FLOPS, 0.15);
    clgemm__blas_rule_record(other, 0, FLOPS, 0.10);
    cr_assert(device(clgemm__blas_rule_group(RULE_GEMM, BLAS_D, 8 * FLOPS, 8 * FLOPS / 64)));
}

Test(rule, groups_by_intensity_size_type_and_kind) {
    unsetenv("CLGEMM_BLAS_RULE");
    unsetenv("CLGEMM_BLAS_MIN_FLOPS");
    int update = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, FLOPS, FLOPS / 8);
    int square = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, FLOPS, FLOPS / 256);
    int bigger = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, 4 * FLOPS, 4 * FLOPS / 8);
    int single = clgemm__blas_rule_group(RULE_GEMM, BLAS_S, FLOPS, FLOPS / 8);
    int syrk = clgemm__blas_rule_group(RULE_SYRK, BLAS_D, FLOPS, FLOPS / 8);
    int ids[] = {update, square, bigger, single, syrk};
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            cr_assert_neq(ids[i], ids[j], "groups %d and %d", i, j);
    /* The same intensity within a factor of two: the same group. */
    cr_assert_eq(clgemm__blas_rule_group(RULE_GEMM, BLAS_D, 1.5 * FLOPS, 1.5 * FLOPS / 9), update);
    /* What the update learnt says nothing of the square product. */
    clgemm__blas_rule_record(update, 1, FLOPS, 0.3);
    clgemm__blas_rule_record(update, 0, FLOPS, 0.1);
    cr_assert_not(device(update));
    cr_assert(device(square));
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
    int g = clgemm__blas_rule_group(RULE_GEMM, BLAS_D, FLOPS, FLOPS / 8);
    cr_assert_eq(g, -1);
    clgemm__blas_rule_record(g, 1, FLOPS, 1.0);
    clgemm__blas_rule_record(g, 0, FLOPS, 0.1);
    cr_assert(device(g), "every call to the device");
}

Test(rule, off_when_every_call_is_forced) {
    unsetenv("CLGEMM_BLAS_RULE");
    setenv("CLGEMM_BLAS_MIN_FLOPS", "0", 1);
    cr_assert_eq(clgemm__blas_rule_group(RULE_SYRK, BLAS_Z, FLOPS, FLOPS / 8), -1);
}
