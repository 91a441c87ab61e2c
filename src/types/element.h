/* element.h: the elements of every type as stored in memory: FP16 and BF16 storage rounded to
 * nearest even, as the kernels store them, and one component of an element read as a double
 * or stored from one. Header-only, for the tuner's check (tune/tune_data.c); tests and benches
 * read elements through the tests' own oracle (tests/common/typed.c), which shares nothing with it.
 */
#ifndef CLGEMM_TYPES_ELEMENT_H
#define CLGEMM_TYPES_ELEMENT_H

#include "clgemm.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t clgemm__half_from_float(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t mag = x & 0x7fffffffu;
    if (mag >= 0x7f800000u) return sign | (mag > 0x7f800000u ? 0x7e00u : 0x7c00u); /* NaN, Inf */
    if (mag >= 0x477ff000u) return sign | 0x7c00u; /* 65520 and above round to infinity */
    if (mag < 0x38800000u) {                       /* below 2^-14: a subnormal half */
        float v;
        memcpy(&v, &mag, sizeof v);
        return sign | (uint16_t)lrintf(v * 0x1p24f); /* exact scaling; rint rounds to even */
    }
    /* Re-bias the exponent (127 -> 15) and round the 13 dropped bits to nearest even; a carry
     * into the exponent is the right result. */
    uint32_t rounded = mag + 0xfffu + ((mag >> 13) & 1u);
    return sign | (uint16_t)((rounded - 0x38000000u) >> 13);
}

static inline double clgemm__half_to_double(uint16_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return h & 0x8000u ? -v : v;
}

static inline uint16_t clgemm__bf16_from_float(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

static inline double clgemm__bf16_to_double(uint16_t b) {
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* Component comp (0 real, 1 imaginary) of element i. */
static inline double clgemm__element_get(clgemm_precision type, const void *buf, size_t i,
                                         int comp) {
    switch (type) {
    case CLGEMM_DOUBLE:
        return ((const double *)buf)[i];
    case CLGEMM_COMPLEX_SINGLE:
        return ((const float *)buf)[2 * i + (size_t)comp];
    case CLGEMM_COMPLEX_DOUBLE:
        return ((const double *)buf)[2 * i + (size_t)comp];
    case CLGEMM_HALF:
        return clgemm__half_to_double(((const uint16_t *)buf)[i]);
    case CLGEMM_BFLOAT16:
        return clgemm__bf16_to_double(((const uint16_t *)buf)[i]);
    case CLGEMM_INT8:
        return ((const int8_t *)buf)[i];
    case CLGEMM_INT32:
        return ((const int32_t *)buf)[i];
    case CLGEMM_E4M3:
    case CLGEMM_E5M2: {
        float f;
        clgemm_fp8_to_float(type, (const cl_uchar *)buf + i, &f, 1);
        return f;
    }
    default:
        return ((const float *)buf)[i];
    }
}
/* Stores v as component comp (0 real, 1 imaginary) of element i: rounded to nearest even in
 * FP16, BF16 and FP8, rounded down in INT8. */
static inline void clgemm__element_set(clgemm_precision type, void *buf, size_t i, int comp,
                                       double v) {
    switch (type) {
    case CLGEMM_DOUBLE:
        ((double *)buf)[i] = v;
        break;
    case CLGEMM_COMPLEX_SINGLE:
        ((float *)buf)[2 * i + (size_t)comp] = (float)v;
        break;
    case CLGEMM_COMPLEX_DOUBLE:
        ((double *)buf)[2 * i + (size_t)comp] = v;
        break;
    case CLGEMM_HALF:
        ((uint16_t *)buf)[i] = clgemm__half_from_float((float)v);
        break;
    case CLGEMM_BFLOAT16:
        ((uint16_t *)buf)[i] = clgemm__bf16_from_float((float)v);
        break;
    case CLGEMM_INT8: /* v in -128 .. 127.99 */
        ((int8_t *)buf)[i] = (int8_t)floor(v);
        break;
    case CLGEMM_INT32: /* v a whole number in range */
        ((int32_t *)buf)[i] = (int32_t)v;
        break;
    case CLGEMM_E4M3:
    case CLGEMM_E5M2: {
        float f = (float)v;
        clgemm_fp8_from_float(type, &f, (cl_uchar *)buf + i, 1);
        break;
    }
    default:
        ((float *)buf)[i] = (float)v;
        break;
    }
}

#endif /* CLGEMM_TYPES_ELEMENT_H */
