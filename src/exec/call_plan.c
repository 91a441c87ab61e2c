/* call_plan.c: the plan of a handle's call: the call in the column-major terms its kernel runs
 * in (the one row -> column-major swap), and the planner (src/plan/) given the handle's device,
 * its forced configuration for the type, its tuning table and its schedule settings. Apart from
 * handle.c and gemm.c, which both ask it, so neither calls the other for a plan. */
#include "exec/exec.h"

clgemm_config clgemm__plan(clgemm_handle h, const tuning_key *key, clgemm_compute compute, size_t m,
                           size_t n, size_t k, size_t batch, const char **source) {
    clgemm_precision p = key->type_ab;
    return clgemm__plan_choose(&h->info, h->has_override[p] ? &h->override[p] : NULL, h->tuning,
                               key, compute, m, n, k, batch, source);
}

colmajor_shape clgemm__colmajor_shape(const gemm_call *call) {
    bool row = call->layout == CLGEMM_ROW_MAJOR;
    colmajor_shape s = {.m = row ? call->n : call->m,
                        .n = row ? call->m : call->n,
                        .k = call->k,
                        .trans_a = row ? call->trans_b : call->trans_a,
                        .trans_b = row ? call->trans_a : call->trans_b,
                        .swapped = row};
    return s;
}

gemm_schedule clgemm__plan_call(clgemm_handle h, const gemm_call *call, const colmajor_shape *shape,
                                clgemm_compute compute, size_t batch, bool table,
                                const char **source) {
    tuning_key key =
        clgemm__tuning_key(call->precision, call->type_c, shape->trans_a, shape->trans_b);
    clgemm_config cfg = clgemm__plan(h, &key, compute, shape->m, shape->n, shape->k, batch, source);
    schedule_force force = {h->ksplit, h->peel, h->streamk};
    return clgemm__plan_schedule(&cfg, &h->info, &force, call->precision, shape->m, shape->n,
                                 shape->k, batch, table);
}
