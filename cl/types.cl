/* types.cl: the kernel side of the element types, one block per row of src/types.c (same ids).
 * TYPE_AB picks how A and B are stored, TYPE_C how C is (the host passes both as build
 * options). From the type of A and B follow the arithmetic: REAL is one element of it (float,
 * double, float2 or double2 for complex, uint for INT8), SCALAR its component and NCOMP the
 * component count.
 * Kernels touch memory only through LOAD_AB, LOAD_C and STORE_ELEM, and compute only through
 * MADD, MUL and IS_ZERO (common.cl), so one kernel body serves every type. */
#define TYPE_F32  0
#define TYPE_F64  1
#define TYPE_C32  2
#define TYPE_C64  3
#define TYPE_F16  4
#define TYPE_BF16 5
#define TYPE_I8   6
#define TYPE_I32  7
#define TYPE_E4M3 8
#define TYPE_E5M2 9

#ifndef TYPE_AB
#define TYPE_AB TYPE_F32
#endif
#ifndef TYPE_C
#define TYPE_C TYPE_AB
#endif
#ifndef HALF_BY_INTEGERS
#define HALF_BY_INTEGERS 0
#endif

#if TYPE_AB == TYPE_F64 || TYPE_AB == TYPE_C64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define SCALAR double
#elif TYPE_AB == TYPE_I8
/* INT8 runs in 32-bit unsigned arithmetic: sums and products wrap modulo 2^32 with defined
 * behaviour, and their bits are those of the two's complement int32 results (clgemm.h). */
#define SCALAR uint
#else
#define SCALAR float /* FP32, complex FP32, and the FP32 arithmetic of FP16, BF16 and FP8 */
#endif
#if TYPE_AB == TYPE_C32 || TYPE_AB == TYPE_C64
#define NCOMP 2
#else
#define NCOMP 1
#endif

/* VEC(n): the vector of n SCALARs (n = 1: the scalar itself). */
#define CLGEMM_CAT_(a, b) a##b
#define CLGEMM_CAT(a, b)  CLGEMM_CAT_(a, b)
#define VEC1              SCALAR
#define VEC2              CLGEMM_CAT(SCALAR, 2)
#define VEC4              CLGEMM_CAT(SCALAR, 4)
#define VEC8              CLGEMM_CAT(SCALAR, 8)
#define VEC16             CLGEMM_CAT(SCALAR, 16)
#if NCOMP == 2
#define REAL VEC2
#else
#define REAL SCALAR
#endif

/* BF16 is the upper half of an FP32: widening is a shift; narrowing rounds to nearest even
 * (a NaN stays a NaN: its quiet bit is set before the cut). */
inline ushort clgemm_to_bf16(float v) {
    uint u = as_uint(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
    return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
#define CLGEMM_FROM_BF16(x) as_float((uint)(x) << 16)

/* FP16 by integer operations, exactly as vload_half and vstore_half_rte (NaN: quiet, the top of
 * its payload kept), for kernels built with HALF_BY_INTEGERS: PoCL calls a routine per element
 * for those two built-ins, and its FP16 reduction then took 2.2 ms at 1024^2 against BF16's 0.9.
 * Narrowing: a normal result rebiases the exponent and rounds the 13 bits cut off to nearest
 * even (a carry out of the mantissa steps the exponent, up to infinity from 65520 on); a
 * subnormal one is the value in units of 2^-24, rounded by rint (to nearest even). */
inline ushort clgemm_to_half(float v) {
    const uint u = as_uint(v), sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    uint h;
    if (a > 0x7f800000u)
        h = 0x7e00u | ((a >> 13) & 0x3ffu);
    else if (a >= 0x477ff000u)
        h = 0x7c00u;
    else if (a >= 0x38800000u)
        h = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13;
    else
        h = (uint)rint(as_float(a) * 0x1p24f);
    return (ushort)(sign | h);
}
inline float clgemm_from_half(uint h) {
    const uint em = h & 0x7fffu;
    const uint bits = em < 0x400u     ? as_uint((float)em * 0x1p-24f)
                      : em >= 0x7c00u ? (em << 13) | 0x7f800000u
                                      : (em << 13) + 0x38000000u;
    return as_float(bits | (h & 0x8000u) << 16);
}

/* FP8 codes (OCP 8-bit floating point) to FP32, exactly; the host twin is src/fp8.c. A normal
 * code moves its exponent and mantissa into place and rebiases; a subnormal one is its
 * mantissa times the smallest subnormal; E4M3 has NaN at S.1111.111 and no infinities, E5M2
 * infinities at S.11111.00 and NaN above. */
inline float clgemm_from_e4m3(uchar x) {
    const uint e = (x >> 3) & 15u, m = x & 7u;
    float v = e ? as_float(((e + 120u) << 23) | (m << 20)) : (float)m * 0x1p-9f;
    if ((x & 0x7fu) == 0x7fu) v = as_float(0x7fc00000u);
    return as_float(as_uint(v) | ((uint)(x & 0x80u) << 24));
}
inline float clgemm_from_e5m2(uchar x) {
    const uint e = (x >> 2) & 31u, m = x & 3u;
    float v = e ? as_float(((e + 112u) << 23) | (m << 21)) : (float)m * 0x1p-16f;
    if (e == 31u) v = as_float(m ? 0x7fc00000u : 0x7f800000u);
    return as_float(as_uint(v) | ((uint)(x & 0x80u) << 24));
}

/* Storage of A and B: AB_T, and LOAD_AB(p, i) the element p[i] as a REAL. FP16 needs no
 * cl_khr_fp16: half pointers and vload_half are core OpenCL. */
#if TYPE_AB == TYPE_F16
#define AB_T          half
#define LOAD_AB(p, i) vload_half((i), (p))
#elif TYPE_AB == TYPE_BF16
#define AB_T          ushort
#define LOAD_AB(p, i) CLGEMM_FROM_BF16((p)[i])
#elif TYPE_AB == TYPE_I8
#define AB_T          char
#define LOAD_AB(p, i) ((uint)(int)(p)[i]) /* sign-extended, then modulo 2^32 */
#elif TYPE_AB == TYPE_E4M3
#define AB_T          uchar
#define LOAD_AB(p, i) clgemm_from_e4m3((p)[i])
#elif TYPE_AB == TYPE_E5M2
#define AB_T          uchar
#define LOAD_AB(p, i) clgemm_from_e5m2((p)[i])
#else
#define AB_T          REAL
#define LOAD_AB(p, i) ((p)[i])
#endif

/* Storage of C: C_T, LOAD_C(p, i), STORE_ELEM(p, i, v). C is TYPE_AB, or FP32 (the arithmetic
 * type) for FP16 and BF16 inputs, INT32 for INT8 (as_int: the bits, no conversion of a value
 * out of int's range), FP32, FP16 or BF16 for FP8. */
#if TYPE_C == TYPE_F16 && HALF_BY_INTEGERS
#define C_T                 half
#define LOAD_C(p, i)        clgemm_from_half(((const __global ushort *)(p))[i])
#define STORE_ELEM(p, i, v) (((__global ushort *)(p))[i] = clgemm_to_half(v))
#elif TYPE_C == TYPE_F16
#define C_T                 half
#define LOAD_C(p, i)        vload_half((i), (p))
#define STORE_ELEM(p, i, v) vstore_half_rte((v), (i), (p))
#elif TYPE_C == TYPE_BF16
#define C_T                 ushort
#define LOAD_C(p, i)        CLGEMM_FROM_BF16((p)[i])
#define STORE_ELEM(p, i, v) ((p)[i] = clgemm_to_bf16(v))
#elif TYPE_C == TYPE_I32
#define C_T                 int
#define LOAD_C(p, i)        as_uint((p)[i])
#define STORE_ELEM(p, i, v) ((p)[i] = as_int(v))
#else
#define C_T                 REAL
#define LOAD_C(p, i)        ((p)[i])
#define STORE_ELEM(p, i, v) ((p)[i] = (v))
#endif
