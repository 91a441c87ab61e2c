/* rule_run.c: one call at or above CLGEMM_BLAS_MIN_FLOPS run the way the measured rule (rule.c)
 * wants it: on the side the rule picks, timed, the time recorded for that side, and on the host
 * when the device takes none of it. ?gemm (dispatch.c, and the GEMM updates of the blocked
 * Level-3 routines) and ?syrk/?herk (syrk.c) run their calls through it, so that what the rule
 * learns is measured the same way for all of them. */
#include "blas.h"

int clgemm__blas_rule_run(const rule_call *r, const char **why, double *seconds) {
    int group = clgemm__blas_rule_group(r->kind, r->type, r->shape, r->flops, r->bytes);
    int device = clgemm__blas_rule_device(group, why);
    /* Opening the device (the process's first call) is not what calls like this one cost. */
    if (device) clgemm__blas_device_usable(r->type);
    double t0 = clgemm__blas_seconds();
    if (device) {
        if (r->device(r->arg) == 0) {
            *seconds = clgemm__blas_seconds() - t0;
            clgemm__blas_rule_record(group, 1, r->flops, *seconds);
            return 1;
        }
        /* The device took none of it (C untouched): the host's time is the host's alone. */
        *why = "device unavailable";
        t0 = clgemm__blas_seconds();
    }
    r->host(r->arg);
    *seconds = clgemm__blas_seconds() - t0;
    clgemm__blas_rule_record(group, 0, r->flops, *seconds);
    return 0;
}
