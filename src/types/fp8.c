/* fp8.c: the host's conversions between FP32 and the OCP 8-bit floating point formats E4M3 and
 * E5M2 (clgemm_fp8_from_float / clgemm_fp8_to_float). The kernels decode with their twin in
 * cl/types.cl. The arithmetic runs in double, where every FP32 value and every scaling by a
 * power of two is exact, so the only rounding is the one to the 8-bit code. */
#include "types/types.h"

#include <math.h>

typedef struct fp8_format {
    int mbits, bias;
    unsigned char max_code; /* the largest finite magnitude: 448 (E4M3), 57344 (E5M2) */
    unsigned char nan_code; /* the quiet NaN the encoder writes */
} fp8_format;

static const fp8_format e4m3 = {3, 7, 0x7e, 0x7f}, e5m2 = {2, 15, 0x7b, 0x7e};

static const fp8_format *format_of(clgemm_precision type) {
    return type == CLGEMM_E4M3 ? &e4m3 : type == CLGEMM_E5M2 ? &e5m2 : NULL;
}

static double decode(const fp8_format *f, unsigned char code) {
    int e = (code & 0x7f) >> f->mbits, m = code & ((1 << f->mbits) - 1);
    double sign = code & 0x80 ? -1.0 : 1.0, v;
    if (f == &e4m3 && (code & 0x7f) == 0x7f)
        v = NAN;
    else if (f == &e5m2 && e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp(m, 1 - f->bias - f->mbits);
    else
        v = ldexp((1 << f->mbits) | m, e - f->bias - f->mbits);
    return copysign(v, sign);
}

/* x >= 0 rounded to an integer, ties to even. */
static double round_even(double x) {
    double lo = floor(x), d = x - lo;
    if (d > 0.5 || (d == 0.5 && fmod(lo, 2.0) != 0)) return lo + 1;
    return lo;
}

static unsigned char encode(const fp8_format *f, float value) {
    unsigned char sign = signbit(value) ? 0x80 : 0;
    if (isnan(value)) return sign | f->nan_code;
    double a = fabs((double)value), max = decode(f, f->max_code);
    if (a >= max) return sign | f->max_code; /* saturation, infinities included */
    int emin = 1 - f->bias, one = 1 << f->mbits;
    int exp;
    frexp(a, &exp); /* a = fr 2^exp, fr in [0.5, 1): a's exponent is exp - 1 */
    exp -= 1;
    if (a == 0 || exp < emin) exp = emin; /* subnormal: the step of the smallest exponent */
    double q = round_even(ldexp(a, f->mbits - exp));
    /* q counts steps of 2^(exp - mbits): below `one` a subnormal, at 2 one the next binade. */
    if (q >= 2 * one) {
        q /= 2;
        exp++;
    }
    int code = q < one ? (int)q : ((exp + f->bias) << f->mbits) | ((int)q - one);
    if (code > f->max_code) code = f->max_code; /* rounded up past the largest finite value */
    return sign | (unsigned char)code;
}

/* Both conversions: the format of `type` and the pointers checked before any element is written. */
static clgemm_status convert(clgemm_precision type, const void *src, void *dst, size_t count,
                             bool to_fp8) {
    const fp8_format *f = format_of(type);
    if (!f) return CLGEMM_ERR_INVALID_TYPE;
    if (count && (!src || !dst)) return CLGEMM_ERR_NULL_ARGUMENT;
    for (size_t i = 0; i < count; i++) {
        if (to_fp8)
            ((cl_uchar *)dst)[i] = encode(f, ((const float *)src)[i]);
        else
            ((float *)dst)[i] = (float)decode(f, ((const cl_uchar *)src)[i]);
    }
    return CLGEMM_SUCCESS;
}

clgemm_status clgemm_fp8_from_float(clgemm_precision type, const float *src, cl_uchar *dst,
                                    size_t count) {
    return convert(type, src, dst, count, true);
}

clgemm_status clgemm_fp8_to_float(clgemm_precision type, const cl_uchar *src, float *dst,
                                  size_t count) {
    return convert(type, src, dst, count, false);
}
