/* ptx.cl: what the NVIDIA tensor-core kernels (mma.cl, wgmma.cl, tma.cl) share: inline PTX
 * helpers, the build options they mean alike, and the pieces of their kernels written once (the
 * split-K range, the local-memory stages, the C update, the tile order, wgmma's descriptors and
 * operand lists). The host places it between common.cl and each
 * of those files (their families' `parts`, src/families/family.h); other kernels never see it,
 * since it holds NVIDIA-only assembly. Everything here is a macro or a static inline function, so
 * a kernel that leaves one unused compiles exactly as if it were not here. */

/* C_INPUT: FP16/BF16 types only: 1 = C holds the input type (its bits in ushort), 0 = C is
 * float. ALIGNED_A, ALIGNED_B (common.cl) let tiles be copied by 16-byte cp.async. */
#ifndef C_INPUT
#define C_INPUT 0
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

/* C's element as stored where TYPE_C (types.cl) alone says it (the 8-bit kernels of mma.cl and
 * tma.cl): FP16 / BF16 bits, INT32, else FP32. */
#if TYPE_C == TYPE_F16 || TYPE_C == TYPE_BF16
#define C_STORED_T ushort
#elif TYPE_C == TYPE_I32
#define C_STORED_T int
#else
#define C_STORED_T float
#endif

/* C of mma.cl and wgmma.cl: with C_INPUT (FP16/BF16 inputs, C of the same type) the input type's
 * bits in ushort, converted to and from the arithmetic type REAL as above; else REAL's own type.
 * C_16BIT_T is C's element on their FP16/BF16 paths. */
#if C_INPUT
#define C_16BIT_T ushort
#else
#define C_16BIT_T float
#endif
#if C_INPUT && TYPE_AB == TYPE_F16
#define c_load(x)  f16_to_float(x)
#define c_store(x) float_to_f16(x)
#elif C_INPUT && TYPE_AB == TYPE_BF16
#define c_load(x)  bf16_to_float(x)
#define c_store(x) float_to_bf16(x)
#else
#define c_load(x)  ((REAL)(x))
#define c_store(x) (x)
#endif

/* The element (m, n) of the work-group's matrix of C made alpha * product + beta * C where it
 * lies inside C; C read only where beta != 0 (ALPHA_TIMES, common.cl: in a batch table, alpha 0
 * keeps A and B out). mma.cl's and wgmma.cl's epilogue. */
#define C_UPDATE(m, n, product)                                                                    \
    if ((m) < M && (n) < N) {                                                                      \
        const ulong ci = (ulong)(m) + (ulong)(n) * (ulong)ldc;                                     \
        REAL v = ALPHA_TIMES((REAL)(product));                                                     \
        if (beta != (REAL)0) v += beta * c_load(C[ci]);                                            \
        C[ci] = c_store(v);                                                                        \
    }

/* GEMM_BEGIN (common.cl), then the K range of this work-group's split-K layer: slices
 * [kbeg, kend) of KWG, nk of them, summed into the layer's own M x N block of C (the host's
 * workspace, beta 0, where the reduction adds the blocks). One layer: all of K. */
#define GEMM_BEGIN_LAYER                                                                           \
    GEMM_BEGIN                                                                                     \
    const long kchunk = ((long)K + layers * KWG - 1) / (layers * KWG) * KWG;                       \
    const int kbeg = (int)min((long)K, layer * kchunk), kend = (int)min((long)K, kbeg + kchunk);   \
    C += (ulong)layer * (ulong)ldc * (ulong)N;                                                     \
    const int nk = (kend - kbeg + KWG - 1) / KWG;

/* The local-memory stages of A's and B's slices, STAGES of A_STAGE and B_STAGE elements each,
 * aligned to `bytes`. */
#define SLICE_STAGES(bytes)                                                                        \
    __local MT As[STAGES * A_STAGE] __attribute__((aligned(bytes)));                               \
    __local MT Bs[STAGES * B_STAGE] __attribute__((aligned(bytes)));
/* The local-memory stage of slice kt: as in As, bs in Bs (STAGES stages of A_STAGE and B_STAGE
 * elements), either of which a caller may leave unused. */
#define SLICE_STAGE(kt)                                                                            \
    __local MT *as = As + ((kt) % STAGES) * A_STAGE;                                               \
    __local MT *bs = Bs + ((kt) % STAGES) * B_STAGE;                                               \
    (void)as;                                                                                      \
    (void)bs;

/* ---- wgmma (wgmma.cl, tma.cl) ------------------------------------------------------------- */

/* WG_TYPE: the instruction's input type, 0 FP16, 1 BF16, 2 TF32, 3 INT8, 4 FP8 E4M3, 5 FP8 E5M2
 * (3-5: tma.cl only); WG_SHAPE its shape and types suffix. */
#ifndef WG_TYPE
#define WG_TYPE 0
#endif
#if WG_TYPE == 0
#define WG_SHAPE "k16.f32.f16.f16"
#elif WG_TYPE == 1
#define WG_SHAPE "k16.f32.bf16.bf16"
#elif WG_TYPE == 2
#define WG_SHAPE "k8.f32.tf32.tf32"
#elif WG_TYPE == 3
#define WG_SHAPE "k32.s32.s8.s8"
#elif WG_TYPE == 4
#define WG_SHAPE "k32.f32.e4m3.e4m3"
#else
#define WG_SHAPE "k32.f32.e5m2.e5m2"
#endif

/* The work-group's tile (m0, n0) of C: tiles in bands of GROUP_M tile rows, walked column by
 * column, so that the work-groups running at once share panels of A and B in L2 (1: plain
 * order). */
#ifndef GROUP_M
#define GROUP_M 8
#endif
#define TILE_IN_BANDS(m0, n0) TILE_ORIGIN_IN_BANDS(GROUP_M, MWG, NWG, m0, n0)
/* Tile number pid of tiles_m x tiles_n in that order (common.cl). */
#define TILE_OF(pid, m0, n0) TILE_IN_BAND(pid, tiles_m, tiles_n, GROUP_M, MWG, NWG, m0, n0)

/* A shared-memory matrix descriptor: start address, LBO, SBO (bytes >> 4), swizzle mode (bits
 * 62-63: 1 = 128 bytes, 3 = 32 bytes, 0 = none). */
DEV ulong wgmma_desc(const uint addr, const uint lbo, const uint sbo, const ulong mode) {
    return (ulong)((addr & 0x3FFFFu) >> 4) | ((ulong)(lbo >> 4) << 16) | ((ulong)(sbo >> 4) << 32) |
           mode << 62;
}

/* The operands of m64nN (N 64, 128 or 256): its N/2 accumulators per thread "%0,..." (WG_ACCS),
 * the A and B descriptors' numbers (WG_DESCS) and the next free number (WG_NEXT), and the
 * accumulators d[0 .. N/2-1] under constraint c (WG_ACC). */
#define OPS_DECADE(d)                                                                              \
    "%" #d "0,%" #d "1,%" #d "2,%" #d "3,%" #d "4,%" #d "5,%" #d "6,%" #d "7,%" #d "8,%" #d "9"
#define OPS_0_29 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9," OPS_DECADE(1) "," OPS_DECADE(2)
#define OPS_0_59 OPS_0_29 "," OPS_DECADE(3) "," OPS_DECADE(4) "," OPS_DECADE(5)
#define OPS_0_119                                                                                  \
    OPS_0_59 "," OPS_DECADE(6) "," OPS_DECADE(7) "," OPS_DECADE(8) "," OPS_DECADE(                 \
        9) "," OPS_DECADE(10) "," OPS_DECADE(11)
#define ACC4(c, d, i)     c((d)[i]), c((d)[(i) + 1]), c((d)[(i) + 2]), c((d)[(i) + 3])
#define ACC16(c, d, i)    ACC4(c, d, i), ACC4(c, d, (i) + 4), ACC4(c, d, (i) + 8), ACC4(c, d, (i) + 12)
#define ACC32(c, d, i)    ACC16(c, d, i), ACC16(c, d, (i) + 16)
#define WG_ACCS_64        OPS_0_29 ",%30,%31"
#define WG_DESCS_64       "%32, %33"
#define WG_NEXT_64        "%34"
#define WG_ACC_64(c, d)   ACC32(c, d, 0)
#define WG_ACCS_128       OPS_0_59 ",%60,%61,%62,%63"
#define WG_DESCS_128      "%64, %65"
#define WG_NEXT_128       "%66"
#define WG_ACC_128(c, d)  ACC32(c, d, 0), ACC32(c, d, 32)
#define WG_ACCS_256       OPS_0_119 ",%120,%121,%122,%123,%124,%125,%126,%127"
#define WG_DESCS_256      "%128, %129"
#define WG_NEXT_256       "%130"
#define WG_ACC_256(c, d)  ACC32(c, d, 0), ACC32(c, d, 32), ACC32(c, d, 64), ACC32(c, d, 96)
#define WG_BY_N_(name, n) name##n
#define WG_BY_N(name, n)  WG_BY_N_(name, n)
#define WG_ACCS(n)        WG_BY_N(WG_ACCS_, n)
#define WG_DESCS(n)       WG_BY_N(WG_DESCS_, n)
#define WG_NEXT(n)        WG_BY_N(WG_NEXT_, n)
#define WG_ACC(n, c, d)   WG_BY_N(WG_ACC_, n)(c, d)
/* The instruction's N as a string. */
#define WG_NSTR_(n) #n
#define WG_NSTR(n)  WG_NSTR_(n)
