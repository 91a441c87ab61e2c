/* types.h: the interface of src/types/: the element types, one row each (types.c), and the
 * scalars of their arithmetic. Needs nothing but the public header. */
#ifndef CLGEMM_TYPES_H
#define CLGEMM_TYPES_H

#include "clgemm.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct type_desc {
    const char *name;         /* as in the tuning database and the tools: s d c z h bf16 i8 ... */
    size_t size;              /* bytes of one stored element */
    size_t compute_size;      /* bytes of one element of the arithmetic (local memory, workspace) */
    clgemm_precision compute; /* the type the arithmetic runs in (FP32 for FP16 / BF16 / FP8) */
    bool complex;
    bool fp64;               /* needs cl_khr_fp64 */
    bool ab;                 /* a type of A and B (INT32 is only ever C) */
    clgemm_precision c;      /* the type C has by default: itself, INT32 for INT8, FP32 for FP8 */
    clgemm_precision wide_c; /* a second type C may have (FP32 for FP16 / BF16, BF16 for FP8),
                              * else c */
    clgemm_precision more_c; /* a third one (FP16 for FP8), else c */
} type_desc;

/* The row of a type; NULL for an unknown one. */
const type_desc *clgemm__type(clgemm_precision type);
/* The row named `name` ("s", ..., "bf16"), and its id in *type; NULL for an unknown name. */
const type_desc *clgemm__type_by_name(const char *name, clgemm_precision *type);
/* Whether A/B of type_ab with C of type_c is a combination the kernels compute (INT32 is never
 * a type_ab). */
bool clgemm__types_ok(clgemm_precision type_ab, clgemm_precision type_c);

/* Bytes of one element of the blocked schedule's micro-panels (cl/pack.cl, cl/microkernel.cl):
 * FP16, BF16 and INT8 are widened to FP32 as they are packed, so that the micro-kernel runs its
 * FP32 loop on them instead of widening every element at every use (INT8: instead of 32-bit
 * integer multiplies, which a CPU issues at a fraction of its FMA rate); other types keep their
 * size. */
size_t clgemm__panel_size(clgemm_precision type);
/* The deepest K-block of INT8 panels in FP32: every product is an integer of at most 2^14 in
 * magnitude, so the sums of up to 1024 of them are integers of at most 2^24, all exact in FP32;
 * the blocks' sums add up in 32-bit integers, modulo 2^32 as every INT8 product here. */
#define CLGEMM__INT8_PANEL_MAX_DEPTH 1024

/* Reads a scalar of the arithmetic type of `type` from p (alpha, beta of clgemm_gemm_ex). */
void clgemm__read_scalar(clgemm_precision type, const void *p, double *re, double *im);
/* Bytes of one scalar of the arithmetic type of `type` (the elements of alphas / betas). */
size_t clgemm__scalar_size(clgemm_precision type);

#endif /* CLGEMM_TYPES_H */
