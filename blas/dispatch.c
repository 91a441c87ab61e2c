/* dispatch.c: where a checked GEMM call goes: nothing to do (reference BLAS's quick return),
 * C = beta * C on the host, for calls at or above the threshold the side the measured rule picks
 * (rule.c, run and timed by rule_run.c; the device: device.c), else the host (host.c: the system
 * BLAS, else the built-in loops). */
#include "blas.h"

#include <stdio.h>
#include <string.h>

/* The two sides of a GEMM for the rule: the device, or the caller's way on the host. */
typedef struct gemm_sides {
    const blas_call *call;
    void (*host)(const blas_call *);
} gemm_sides;

static int gemm_device(const void *arg) {
    return clgemm__blas_device_gemm(((const gemm_sides *)arg)->call);
}

static void gemm_host(const void *arg) {
    const gemm_sides *g = arg;
    g->host(g->call);
}

int clgemm__blas_gemm_above(const blas_call *call, double flops, void (*host)(const blas_call *),
                            const char **why) {
    gemm_sides sides = {call, host};
    rule_call r = {.kind = RULE_GEMM,
                   .type = call->type,
                   .shape = clgemm__blas_rule_shape(call->ta, call->tb, call->m, call->n, call->k),
                   .flops = flops,
                   .bytes = clgemm__blas_gemm_bytes(call),
                   .device = gemm_device,
                   .host = gemm_host,
                   .arg = &sides};
    double seconds;
    return clgemm__blas_rule_run(&r, why, &seconds);
}

void clgemm__blas_run(const blas_call *call) {
    const blas_settings *s = clgemm__blas_settings();
    int quick = call->m == 0 || call->n == 0 ||
                ((call->k == 0 || clgemm__blas_scalar_is(call->type, call->alpha, 0)) &&
                 clgemm__blas_scalar_is(call->type, call->beta, 1));
    if (quick || call->k == 0 || clgemm__blas_scalar_is(call->type, call->alpha, 0)) {
        if (!quick) clgemm__blas_scale_c(call);
        clgemm__blas_count(call->type, ROUTE_TRIVIAL);
        return;
    }
    double flops = 2.0 * call->m * call->n * call->k * (call->type >= BLAS_C ? 4 : 1);
    const char *why = "below CLGEMM_BLAS_MIN_FLOPS";
    int forked = flops >= s->min_flops && clgemm__blas_device_forked();
    /* Opened first, so that this line's seconds are what the rule counts (the opening's own
     * seconds are on the "device:" line). */
    if (flops >= s->min_flops && !forked) clgemm__blas_device_usable(call->type);
    double t0 = s->log >= 2 ? clgemm__blas_seconds() : 0;
    blas_copy_clock c0 = clgemm__blas_copy_clock();
    int on_device = 0;
    if (forked) why = "forked: the device is the parent process's";
    if (flops >= s->min_flops && !forked)
        on_device = clgemm__blas_gemm_above(call, flops, clgemm__blas_run_host, &why);
    else
        clgemm__blas_run_host(call);
    if (on_device) clgemm__blas_count(call->type, ROUTE_DEVICE);
    if (s->log < 2) return;
    blas_copy_clock c1 = clgemm__blas_copy_clock();
    char where[96];
    if (on_device)
        snprintf(where, sizeof where, ", copies %.6f s %.0f bytes: device", c1.seconds - c0.seconds,
                 c1.bytes - c0.bytes);
    else
        snprintf(where, sizeof where, ": host (%s)", why);
    clgemm__blas_log("%cgemm %c%c %d %d %d in %.6f s%s", clgemm__blas_letter(call->type), call->ta,
                     call->tb, call->m, call->n, call->k, clgemm__blas_seconds() - t0, where);
}
