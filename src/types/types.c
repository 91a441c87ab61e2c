/* types.c: the element types, one row each (the kernel side of each row is its block in
 * cl/types.cl, under the same id). Sizes, the type the arithmetic runs in, and what a device
 * needs for it; everything else in the library asks this table. Also how a scalar of a
 * type's arithmetic is read (alpha and beta passed by pointer). */
#include "types/types.h"

#include <string.h>

static const type_desc types[CLGEMM_PRECISION_COUNT] = {
    [CLGEMM_SINGLE] = {"s", 4, 4, CLGEMM_SINGLE, false, false, CLGEMM_SINGLE},
    [CLGEMM_DOUBLE] = {"d", 8, 8, CLGEMM_DOUBLE, false, true, CLGEMM_DOUBLE},
    [CLGEMM_COMPLEX_SINGLE] = {"c", 8, 8, CLGEMM_COMPLEX_SINGLE, true, false,
                               CLGEMM_COMPLEX_SINGLE},
    [CLGEMM_COMPLEX_DOUBLE] = {"z", 16, 16, CLGEMM_COMPLEX_DOUBLE, true, true,
                               CLGEMM_COMPLEX_DOUBLE},
    /* FP16 and BF16 are storage: FP32 arithmetic, and C may be FP32 too. */
    [CLGEMM_HALF] = {"h", 2, 4, CLGEMM_SINGLE, false, false, CLGEMM_SINGLE},
    [CLGEMM_BFLOAT16] = {"bf16", 2, 4, CLGEMM_SINGLE, false, false, CLGEMM_SINGLE},
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

bool clgemm__types_ok(clgemm_precision type_ab, clgemm_precision type_c) {
    const type_desc *t = clgemm__type(type_ab);
    return t && (type_c == type_ab || type_c == t->wide_c);
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
    default:
        *re = *(const float *)p;
        break;
    }
}

size_t clgemm__scalar_size(clgemm_precision type) {
    return clgemm__type(clgemm__type(type)->compute)->size;
}
