/* test_rule_run.c: clgemm__blas_rule_run (blas/rule_run.c), the one sequence by which ?gemm and
 * ?syrk/?herk run a call for the measured rule, with sides that sleep for known times instead
 * of computing: the time of each side is recorded as that side's (the next calls follow from
 * it), a device that takes none of a call falls back to the host with the host's time alone
 * recorded, and the call's kind and shape class pick its group. The library's objects are linked
 * (the names are hidden); no OpenCL platform is loaded (OCL_ICD_VENDORS is an empty folder), so
 * opening the device finds none, which rule_run does not ask about. Each test is its own process,
 * so the rule starts empty in each. */
#include "../../blas/blas.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const double FLOPS = 2.0 * 4096 * 4096 * 64;

/* A side: sleeps ms milliseconds; the device one then returns status. */
typedef struct side {
    int device_ms, device_status, host_ms;
    int device_runs, host_runs;
} side;

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int device_side(const void *arg) {
    side *s = (side *)arg;
    s->device_runs++;
    sleep_ms(s->device_ms);
    return s->device_status;
}

static void host_side(const void *arg) {
    side *s = (side *)arg;
    s->host_runs++;
    sleep_ms(s->host_ms);
}

static void setup(void) {
    unsetenv("CLGEMM_BLAS_RULE");
    unsetenv("CLGEMM_BLAS_MIN_FLOPS");
    unsetenv("CLGEMM_BLAS_LOG");
    setenv("OCL_ICD_VENDORS", "/nonexistent-icd-folder", 1);
}

/* One call of kind k and shape class shape: 1 when the device computed it; checks that exactly
 * one side did. */
static int run_shape(rule_kind k, int shape, side *s, const char **why, double *seconds) {
    rule_call r = {.kind = k,
                   .type = BLAS_D,
                   .shape = shape,
                   .flops = FLOPS,
                   .bytes = FLOPS / 8,
                   .device = device_side,
                   .host = host_side,
                   .arg = s};
    int device_runs = s->device_runs, host_runs = s->host_runs;
    *why = NULL;
    int on = clgemm__blas_rule_run(&r, why, seconds);
    cr_assert_eq(s->host_runs - host_runs, !on, "the host ran iff the device did not compute");
    cr_assert(on || *why, "a host run says why");
    cr_assert_leq(s->device_runs - device_runs, 1);
    return on;
}

/* The same, of the class of an NN update 4096 x 4096 x 64. */
static int run(rule_kind k, side *s, const char **why, double *seconds) {
    return run_shape(k, clgemm__blas_rule_shape('N', 'N', 4096, 4096, 64), s, why, seconds);
}

/* Device 2 ms, host 40 ms: the device first, the host to measure it, then the device, the
 * faster. Were the host's time recorded as the device's, the host would still be unmeasured at
 * call 3; were the device's recorded as the host's, call 2 would be the device again. */
Test(rule_run, records_each_side_as_its_own, .init = setup) {
    side s = {.device_ms = 2, .device_status = 0, .host_ms = 40};
    const char *why;
    double seconds;
    cr_assert(run(RULE_GEMM, &s, &why, &seconds), "call 1: the device");
    cr_assert_geq(seconds, 0.002);
    cr_assert_not(run(RULE_GEMM, &s, &why, &seconds), "call 2: the host");
    cr_assert_str_eq(why, "measuring the host");
    cr_assert_geq(seconds, 0.040);
    for (int call = 3; call < 8; call++)
        cr_assert(run(RULE_GEMM, &s, &why, &seconds), "call %d: the device, faster", call);
    cr_assert_not(run(RULE_GEMM, &s, &why, &seconds), "call 8: the slower side again");
    cr_assert_str_eq(why, "measuring the host again");
}

/* A device that takes none of a call: the host computes it, "device unavailable", and its time,
 * without the 300 ms the device try took, is recorded as the host's; the device is not. */
Test(rule_run, a_failed_device_falls_back_to_the_host, .init = setup) {
    side s = {.device_ms = 300, .device_status = 1, .host_ms = 40};
    const char *why;
    double seconds;
    cr_assert_not(run(RULE_GEMM, &s, &why, &seconds));
    cr_assert_eq(s.device_runs, 1, "the device was tried");
    cr_assert_str_eq(why, "device unavailable");
    cr_assert(seconds >= 0.040 && seconds < 0.300, "the host's time alone: %g s", seconds);
    /* The device has no time yet: the next call tries it again, and now it computes. */
    s.device_ms = 2, s.device_status = 0;
    cr_assert(run(RULE_GEMM, &s, &why, &seconds), "call 2: the device, still unmeasured");
    /* Both sides measured (the host by the fallback): the faster, not "measuring the host". */
    cr_assert(run(RULE_GEMM, &s, &why, &seconds), "call 3: the device, faster than 40 ms");
    cr_assert_eq(s.host_runs, 1);
}

/* ?syrk's calls and ?gemm's of the same flops and bytes are groups of their own: a syrk group
 * that found the host faster leaves the GEMM group untried, its first call on the device. */
Test(rule_run, the_kind_picks_the_group, .init = setup) {
    side s = {.device_ms = 40, .device_status = 0, .host_ms = 2};
    const char *why;
    double seconds;
    cr_assert(run(RULE_SYRK, &s, &why, &seconds), "syrk call 1: the device");
    cr_assert_not(run(RULE_SYRK, &s, &why, &seconds), "syrk call 2: the host");
    cr_assert_not(run(RULE_SYRK, &s, &why, &seconds), "syrk call 3: the host, faster");
    cr_assert_str_eq(why, "measured faster here");
    cr_assert(run(RULE_GEMM, &s, &why, &seconds), "gemm call 1: the device, untried");
}

/* So does the call's shape class: a TN product that found the device faster leaves the NN
 * update of the same flops and bytes with the host unmeasured. */
Test(rule_run, the_shape_class_picks_the_group, .init = setup) {
    side s = {.device_ms = 2, .device_status = 0, .host_ms = 40};
    const char *why;
    double seconds;
    int tn = clgemm__blas_rule_shape('T', 'N', 4096, 32, 4096);
    cr_assert(run_shape(RULE_GEMM, tn, &s, &why, &seconds), "TN call 1: the device");
    cr_assert_not(run_shape(RULE_GEMM, tn, &s, &why, &seconds), "TN call 2: the host");
    cr_assert(run_shape(RULE_GEMM, tn, &s, &why, &seconds), "TN call 3: the device, faster");
    cr_assert(run(RULE_GEMM, &s, &why, &seconds), "NN call 1: the device, untried");
    cr_assert_not(run(RULE_GEMM, &s, &why, &seconds), "NN call 2: the host, unmeasured");
    cr_assert_str_eq(why, "measuring the host");
}
