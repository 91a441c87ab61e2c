/* call_plan.c: the configuration of a handle's call: the planner (src/plan/) is given the
 * handle's device, its forced configuration for the type and its tuning table, and a row-major
 * call is planned in the column-major terms its kernel runs in. Apart from handle.c and gemm.c,
 * which both ask it, so neither calls the other for a plan. */
#include "exec/exec.h"

clgemm_config clgemm__plan(clgemm_handle h, const tuning_key *key, clgemm_compute compute, size_t m,
                           size_t n, size_t k, size_t batch, const char **source) {
    clgemm_precision p = key->type_ab;
    return clgemm__plan_choose(&h->info, h->has_override[p] ? &h->override[p] : NULL, h->tuning,
                               key, compute, m, n, k, batch, source);
}

/* The kernel runs every call column-major: a row-major call is the column-major C^T =
 * op(B)^T op(A)^T, so its operands, sizes and transposes swap (tuning_key). */
clgemm_config clgemm__plan_call(clgemm_handle h, const gemm_call *call, clgemm_compute compute,
                                size_t batch, const char **source) {
    bool row = call->layout == CLGEMM_ROW_MAJOR;
    tuning_key key =
        clgemm__tuning_key(call->precision, call->type_c, row ? call->trans_b : call->trans_a,
                           row ? call->trans_a : call->trans_b);
    return clgemm__plan(h, &key, compute, row ? call->n : call->m, row ? call->m : call->n, call->k,
                        batch, source);
}
