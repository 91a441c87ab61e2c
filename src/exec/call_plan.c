/* call_plan.c: the plan of a handle's call: the call in the column-major terms its kernel runs
 * in (the one row -> column-major swap), and the planner (src/plan/) given the handle's device,
 * its forced configuration for the type, its tuning table and its schedule settings. Apart from
 * handle.c and gemm.c, which both ask it, so neither calls the other for a plan. */
#include "exec/exec.h"

static clgemm_config plan_on(clgemm_handle h, const device_info *info, const tuning_key *key,
                             clgemm_compute compute, size_t m, size_t n, size_t k, size_t batch,
                             bool aligned, const char **source) {
    clgemm_precision p = key->type_ab;
    return clgemm__plan_choose(info, h->has_override[p] ? &h->override[p] : NULL, h->tuning, key,
                               compute, m, n, k, batch, aligned, source);
}

clgemm_config clgemm__plan(clgemm_handle h, const tuning_key *key, clgemm_compute compute, size_t m,
                           size_t n, size_t k, size_t batch, const char **source) {
    /* Operands as a call without offsets and with leading dimensions of whole 16-byte chunks
     * has them. */
    return plan_on(h, &h->info, key, compute, m, n, k, batch, true, source);
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

void clgemm__map_operands(const gemm_call *call, const colmajor_shape *shape, map_operand *a,
                          map_operand *b) {
    for (int x = 0; x < 2; x++) {
        const bool second = (x == 1) != shape->swapped; /* the call's B */
        const bool trans = (x == 0 ? shape->trans_a : shape->trans_b) != CLGEMM_NO_TRANS;
        map_operand o = {.mem = second ? call->b : call->a,
                         .off = second ? call->off_b : call->off_a,
                         .ld = second ? call->ldb : call->lda,
                         .stride = call->batched ? (second ? call->stride_b : call->stride_a) : 0,
                         .k_major = x == 0 ? trans : !trans,
                         .mn = x == 0 ? shape->m : shape->n};
        *(x == 0 ? a : b) = o;
    }
}

void clgemm__map_parts(const gemm_call *call, const colmajor_shape *shape, bool small,
                       map_operand *a, map_operand *b) {
    clgemm__map_operands(call, shape, a, b);
    for (int x = 0; x < 2; x++) {
        map_operand *o = x == 0 ? a : b;
        const int i = (x == 1) != shape->swapped; /* the call's B */
        if (call->residual.whole[i]) continue;    /* the operand itself */
        o->mem = call->residual.mem;
        o->off = small ? call->residual.small[i] : call->residual.big[i];
        o->ld = call->residual.ld[i];
        o->stride = call->batched ? call->residual.stride[i] : 0;
    }
}

bool clgemm__maps_k_major_only(clgemm_precision type, clgemm_compute compute) {
    /* FP32 in the default compute mode runs on the CUDA cores (tma_simt), which read either way */
    return (type == CLGEMM_SINGLE && compute != CLGEMM_COMPUTE_DEFAULT) ||
           clgemm__type(type)->size == 1;
}

/* The copy of A costs its M x K elements once, the register loads slow each of the M x N x K
 * products. Since TF32's default tiles give the producer's registers to the consumers
 * (SETMAXNREG 2, src/families/tma.c), the loads pay at every size measured: H200, row-major NN,
 * from registers against the copy (bench/results/h200-tf32-setmaxnreg.log, two rounds): TF32
 * 8192^2 388 TFLOPS against 372-374, 4096^2 360-370 against 329-332, 3072^2 257-262 against
 * 236-237, 2048^2 241-248 against 197-207 (all in the default's 128 x 256 tiles); 3xTF32 8192^2
 * 130-131 against 128-129, 4096^2 135 against 119-120. (Before, one producer warp's 168
 * registers made the loads spill in those tiles, and the copy won above N 2560.) */
bool clgemm__maps_a_any_major(clgemm_handle h, clgemm_precision type, clgemm_compute compute) {
    const bool tf32 = type == CLGEMM_SINGLE &&
                      (compute == CLGEMM_COMPUTE_TF32 || compute == CLGEMM_COMPUTE_FP32_3XTF32);
    return tf32 && h->tma_a_registers != 0;
}

/* Whether tensor maps can describe the call's operands whatever the configuration: no batch
 * table (a map has one base), TF32 and 8-bit types only K-major (clgemm__maps_k_major_only; TF32's
 * A either way where clgemm__maps_a_any_major), the 3xTF32 mode only over the operands' split
 * parts (pack.c), and the operands' layout (clgemm__operands_mappable). A call that only asks for
 * a plan (clgemm_get_config_ex) has offsets and leading dimensions 0: laid out as a map wants. */
static bool call_mappable(clgemm_handle h, const gemm_call *call, const colmajor_shape *shape,
                          clgemm_compute compute, size_t batch, bool table) {
    if (table) return false;
    if (compute == CLGEMM_COMPUTE_FP32_3XTF32 && !call->residual.on) return false;
    /* A whole operand (3xTF32) is read into registers and split there: only the column-major A,
     * stored MN-major; and such an A is never read as parts. */
    const int ia = shape->swapped; /* the call's operand that is the column-major A */
    if (call->residual.on && (call->residual.whole[!ia] ||
                              call->residual.whole[ia] != (shape->trans_a == CLGEMM_NO_TRANS)))
        return false;
    const bool a_any = clgemm__maps_a_any_major(h, call->precision, compute);
    if (clgemm__maps_k_major_only(call->precision, compute) &&
        ((shape->trans_a == CLGEMM_NO_TRANS && !a_any) || shape->trans_b != CLGEMM_NO_TRANS))
        return false;
    map_operand a, b;
    clgemm__map_operands(call, shape, &a, &b);
    return clgemm__operands_mappable(call->precision, shape->k, batch, &a, &b);
}

gemm_schedule clgemm__plan_call(clgemm_handle h, const gemm_call *call, const colmajor_shape *shape,
                                clgemm_compute compute, size_t batch, bool table, bool maps,
                                const char **source) {
    tuning_key key =
        clgemm__tuning_key(call->precision, call->type_c, shape->trans_a, shape->trans_b);
    /* Without maps the device is planned as one without the tensor-map service: the families
     * that need it are passed over, a forced or tuned configuration of theirs included. */
    const device_info *info = &h->info;
    device_info unmapped;
    if (info->nv_tma && !(maps && call_mappable(h, call, shape, compute, batch, table))) {
        unmapped = h->info;
        unmapped.nv_tma = false;
        info = &unmapped;
    }
    const bool aligned = clgemm__operand_on16(call, false) && clgemm__operand_on16(call, true);
    clgemm_config cfg =
        plan_on(h, info, &key, compute, shape->m, shape->n, shape->k, batch, aligned, source);
    schedule_force force = {h->ksplit, h->peel, h->streamk, h->pack_kc, h->tail};
    /* (the blocked schedule reads no alignment) */
    const gemm_dims dims = {shape->m,
                            shape->n,
                            shape->k,
                            batch,
                            false,
                            shape->trans_a != CLGEMM_NO_TRANS,
                            shape->trans_b != CLGEMM_NO_TRANS};
    return clgemm__plan_schedule_dims(&cfg, info, &force, call->precision, call->type_c, &dims,
                                      table);
}

bool clgemm__operand_on16(const gemm_call *call, bool second) {
    const size_t e = clgemm__type(call->precision)->size;
    const size_t off = second ? call->off_b : call->off_a, ld = second ? call->ldb : call->lda;
    const size_t stride = call->batched ? (second ? call->stride_b : call->stride_a) : 0;
    if ((off * e) % 16 || (ld * e) % 16 || (stride * e) % 16) return false;
    if (!call->batched || !call->offs_a) return true;
    const size_t *offs = second ? call->offs_b : call->offs_a;
    for (size_t b = 0; b < call->batch; b++)
        if ((offs[b] * e) % 16) return false;
    return true;
}
