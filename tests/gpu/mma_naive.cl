/* mma_naive.cl: a plain one-work-item-per-element kernel with the exact contract of cl/mma.cl
 * (same name, arguments: GEMM_ARGS, build options and rounding of the inputs), built after the
 * parts every kernel starts with (tests/gpu/build_mma_lab.sh joins them; not cl/ptx.cl, whose
 * PTX a CPU compiler refuses, so its pointers are the portable contract's). It exists only so that
 * mma_lab's host side (layouts, offsets, tolerances, poison checks) can be tested on a CPU OpenCL
 * (PoCL), where the PTX of the real kernel cannot run. Launch: one work-item per C element, local
 * size chosen by the runtime (mma_lab --naive). */
#ifndef MMA_TYPE
#define MMA_TYPE 0
#endif
#ifndef C_INPUT
#define C_INPUT 0
#endif

#if MMA_TYPE <= 1
#define MT   ushort
#define SCAL float
#if C_INPUT
#define CT ushort
#else
#define CT float
#endif
#elif MMA_TYPE <= 3
#define MT   float
#define SCAL float
#define CT   float
#else
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define MT   double
#define SCAL double
#define CT   double
#endif

inline float bf16_to_f(const ushort h) {
    return as_float((uint)h << 16);
}
inline ushort f_to_bf16(const float f) {
    const uint u = as_uint(f);
    return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
inline float tf32(const float f) {
    return as_float((as_uint(f) + 0x1000u) & ~0x1fffu);
}

inline SCAL elem(const __global MT *p, const ulong i) {
#if MMA_TYPE == 0
    return vload_half(i, (const __global half *)p);
#elif MMA_TYPE == 1
    return bf16_to_f(p[i]);
#elif MMA_TYPE == 2
    return tf32(p[i]);
#else
    return p[i];
#endif
}

__kernel void clgemm_mma(GEMM_ARGS) {
    /* One matrix: A, B and C at their offsets; alpha, beta (and `layer`, unused). */
    GEMM_BEGIN
    const __global MT *a = (const __global MT *)A, *b = (const __global MT *)B;
    __global CT *c = (__global CT *)C;
    (void)layer;
    const int i = get_global_id(0), j = get_global_id(1);
    if (i >= M || j >= N) return;
    SCAL s = 0;
    for (int p = 0; p < K; p++) {
        const ulong ai = TRANSA ? (ulong)p + (ulong)i * lda : (ulong)i + (ulong)p * lda;
        const ulong bi = TRANSB ? (ulong)j + (ulong)p * ldb : (ulong)p + (ulong)j * ldb;
        s += elem(a, ai) * elem(b, bi);
    }
    const ulong ci = (ulong)i + (ulong)j * ldc;
    SCAL v = alpha * s;
#if MMA_TYPE == 0 && C_INPUT
    if (beta != 0) v += beta * vload_half(ci, (const __global half *)c);
    vstore_half_rte(v, ci, (__global half *)c);
#elif MMA_TYPE == 1 && C_INPUT
    if (beta != 0) v += beta * bf16_to_f(c[ci]);
    c[ci] = f_to_bf16(v);
#else
    if (beta != 0) v += beta * c[ci];
    c[ci] = v;
#endif
}
