/* types.c: the element types, one row each (the kernel side of each row is its block in
 * cl/types.cl, under the same id). Sizes, the type the arithmetic runs in, what a device needs
 * for it and which types C may have; everything else in the library asks this table. Also how
 * a scalar of a type's arithmetic is read (alpha and beta passed by pointer). */
#include "types/types.h"

#include <string.h>

/* name, size, compute_size, compute, complex, fp64, ab, c, wide_c, more_c */
static const type_desc types[CLGEMM_PRECISION_COUNT] = {
    [CLGEMM_SINGLE] = {"s", 4, 4, CLGEMM_SINGLE, false, false, true, CLGEMM_SINGLE, CLGEMM_SINGLE,
                       CLGEMM_SINGLE},
    [CLGEMM_DOUBLE] = {"d", 8, 8, CLGEMM_DOUBLE, false, true, true, CLGEMM_DOUBLE, CLGEMM_DOUBLE,
                       CLGEMM_DOUBLE},
    [CLGEMM_COMPLEX_SINGLE] = {"c", 8, 8, CLGEMM_COMPLEX_SINGLE, true, false, true,
                               CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE},
    [CLGEMM_COMPLEX_DOUBLE] = {"z", 16, 16, CLGEMM_COMPLEX_DOUBLE, true, true, true,
                               CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE},
    /* FP16 and BF16 are storage: FP32 arithmetic, and C may be FP32 too. */
    [CLGEMM_HALF] = {"h", 2, 4, CLGEMM_SINGLE, false, false, true, CLGEMM_HALF, CLGEMM_SINGLE,
                     CLGEMM_HALF},
    [CLGEMM_BFLOAT16] = {"bf16", 2, 4, CLGEMM_SINGLE, false, false, true, CLGEMM_BFLOAT16,
                         CLGEMM_SINGLE, CLGEMM_BFLOAT16},
    /* INT8 multiplies into INT32, which is only ever C (and the arithmetic of INT8: unsigned
     * 32-bit in the kernels, so that wrapping is defined). */
    [CLGEMM_INT8] = {"i8", 1, 4, CLGEMM_INT32, false, false, true, CLGEMM_INT32, CLGEMM_INT32,
                     CLGEMM_INT32},
    [CLGEMM_INT32] = {"i32", 4, 4, CLGEMM_INT32, false, false, false, CLGEMM_INT32, CLGEMM_INT32,
                      CLGEMM_INT32},
    /* FP8 is storage too: decoded on load, FP32 arithmetic, C in FP32, BF16 or FP16. */
    [CLGEMM_E4M3] = {"e4m3", 1, 4, CLGEMM_SINGLE, false, false, true, CLGEMM_SINGLE,
                     CLGEMM_BFLOAT16, CLGEMM_HALF},
    [CLGEMM_E5M2] = {"e5m2", 1, 4, CLGEMM_SINGLE, false, false, true, CLGEMM_SINGLE,
                     CLGEMM_BFLOAT16, CLGEMM_HALF},
};

const type_desc *clgemm__type(clgemm_precision type) {
    return (unsigned)type < CLGEMM_PRECISION_COUNT ? &types[type] : NULL;
}

const type_desc *clgemm__type_by_name(const char *name, clgemm_precision *type) {
    for (int t = 0; name && t < CLGEMM_PRECISION_COUNT; t++)
        if (strcmp(types[t].name, name) == 0) {
            if (type) *type = (clgemm_precision)t;
            return &types[t];
        }
    return NULL;
}

size_t clgemm__panel_size(clgemm_precision type) {
    const type_desc *t = clgemm__type(type);
    if (!t) return 0;
    return type == CLGEMM_HALF || type == CLGEMM_BFLOAT16 || type == CLGEMM_INT8 ? 4 : t->size;
}

size_t clgemm_type_size(clgemm_precision type) {
    const type_desc *t = clgemm__type(type);
    return t ? t->size : 0;
}

bool clgemm__types_ok(clgemm_precision type_ab, clgemm_precision type_c) {
    const type_desc *t = clgemm__type(type_ab);
    return t && t->ab && (type_c == t->c || type_c == t->wide_c || type_c == t->more_c);
}

/* Reads a scalar of the arithmetic type of `type` from p into (re, im). */
void clgemm__read_scalar(clgemm_precision type, const void *p, double *re, double *im) {
    *im = 0;
    switch (clgemm__type(type)->compute) {
    case CLGEMM_DOUBLE:
        *re = *(const double *)p;
        break;
    case CLGEMM_COMPLEX_SINGLE:
        *re = ((const cl_float2 *)p)->s[0];
        *im = ((const cl_float2 *)p)->s[1];
        break;
    case CLGEMM_COMPLEX_DOUBLE:
        *re = ((const cl_double2 *)p)->s[0];
        *im = ((const cl_double2 *)p)->s[1];
        break;
    case CLGEMM_INT32: /* INT8's alpha and beta: an int32 is exact in a double */
        *re = *(const cl_int *)p;
        break;
    default:
        *re = *(const float *)p;
        break;
    }
}

size_t clgemm__scalar_size(clgemm_precision type) {
    return clgemm__type(clgemm__type(type)->compute)->size;
}
