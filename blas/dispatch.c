/* dispatch.c: where a checked GEMM call goes: nothing to do (reference BLAS's quick return),
 * C = beta * C on the host, the device for large calls (device.c), else the host (host.c: the
 * system BLAS, else the built-in loops). */
#include "blas.h"

#include <string.h>

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
    if (flops >= s->min_flops && clgemm__blas_device_forked()) {
        why = "forked: the device is the parent process's";
    } else if (flops >= s->min_flops) {
        double t0 = s->log >= 2 ? clgemm__blas_seconds() : 0;
        int st = clgemm__blas_device_gemm(call);
        if (st == 0) {
            clgemm__blas_count(call->type, ROUTE_DEVICE);
            if (s->log >= 2)
                clgemm__blas_log("%cgemm %c%c %d %d %d in %.6f s: device",
                                 clgemm__blas_letter(call->type), call->ta, call->tb, call->m,
                                 call->n, call->k, clgemm__blas_seconds() - t0);
            return;
        }
        why = "device unavailable";
    }
    double t0 = s->log >= 2 ? clgemm__blas_seconds() : 0;
    clgemm__blas_run_host(call);
    if (s->log >= 2)
        clgemm__blas_log("%cgemm %c%c %d %d %d in %.6f s: host (%s)",
                         clgemm__blas_letter(call->type), call->ta, call->tb, call->m, call->n,
                         call->k, clgemm__blas_seconds() - t0, why);
}
