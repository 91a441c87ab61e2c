/* ptx.cl: what the NVIDIA tensor-core kernels (mma.cl, wgmma.cl, tma.cl) share: inline PTX
 * helpers and the build options they mean alike. The host places it between common.cl and each
 * of those files (their families' `parts`, src/families/family.h); other kernels never see it,
 * since it holds NVIDIA-only assembly. Everything here is a macro or a static inline function, so
 * a kernel that leaves one unused compiles exactly as if it were not here. */

/* C_INPUT: FP16/BF16 types only: 1 = C holds the input type (its bits in ushort), 0 = C is
 * float. ALIGNED_A, ALIGNED_B: 1 only when the host checked that the operand's offset and ld
 * keep 16-byte chunks, so its tiles may be copied by 16-byte cp.async. */
#ifndef C_INPUT
#define C_INPUT 0
#endif
#ifndef ALIGNED_A
#define ALIGNED_A 0
#endif
#ifndef ALIGNED_B
#define ALIGNED_B 0
#endif

/* The GEMM contract's pointer types here (common.cl's GEMM_ARGS): A and B point to each kernel's
 * MT, C to its CT (FP16/BF16 stay ushort bits, never half values), and C is not declared
 * restrict, as these kernels always had it. MT and CT are each kernel file's own, defined before
 * its signature. */
#undef GEMM_ARG_TYPE_AB
#define GEMM_ARG_TYPE_AB const __global MT *restrict
#undef GEMM_ARG_TYPE_C
#define GEMM_ARG_TYPE_C __global CT *

/* Helpers are forced inline: fragments and accumulators must stay in registers. */
#define DEV static inline __attribute__((always_inline))

/* The 32-bit local-memory (shared) address PTX's shared-space instructions take. */
DEV uint local_addr(__local const void *p) {
    return (uint)(size_t)p;
}

/* 16-byte asynchronous copy (sm_80); bytes past src_bytes (0..16) are zero-filled, none are
 * read. */
DEV void cp_async16(__local void *dst, const __global void *src, const uint src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(local_addr(dst)), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}
DEV void cp_async_commit(void) {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
#define CP_ASYNC_WAIT(n) asm volatile("cp.async.wait_group %0;\n" ::"n"(n) : "memory")

/* FP16 and BF16 bits (ushort) to and from float, rounding to nearest even (cvt.rn), for C
 * elements that hold the input type. */
DEV float f16_to_float(const ushort h) {
    float f;
    asm("{ .reg .b16 lo, hi; mov.b32 {lo, hi}, %1; cvt.f32.f16 %0, lo; }\n"
        : "=f"(f)
        : "r"((uint)h));
    return f;
}
DEV ushort float_to_f16(const float f) {
    uint r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(0.0f), "f"(f));
    return (ushort)(r & 0xffffu);
}
DEV float bf16_to_float(const ushort h) {
    return as_float((uint)h << 16);
}
DEV ushort float_to_bf16(const float f) {
    uint r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(0.0f), "f"(f));
    return (ushort)(r & 0xffffu);
}
