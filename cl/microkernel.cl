/* microkernel.cl: GEMM for CPU devices. One work-item, alone in its work-group, computes an
 * MR x NR block of C over its whole K range, as a BLAS library's micro-kernel does: MR / VW
 * vectors of VW elements along M times NR columns stay in registers; each step of k loads MR
 * elements of op(A) as vectors and multiplies them by NR broadcast elements of op(B).
 *
 * Why not regblock's local-memory tiles on a CPU: PoCL runs a work-group's work-items as a loop
 * and vectorises that loop across them, spilling each work-item's private block to the stack at
 * every barrier; with one work-item and no barrier the compiler sees explicit vectors and keeps
 * them in registers (PoCL skylake-avx512, FP64 256^2: 92 GFLOPS against regblock's 23;
 * docs/PERFORMANCE.md). The caches play local memory's part.
 *
 * Layouts: A contiguous along M (TRANSA 0) is read in place as vectors. A contiguous along K
 * (TRANSA 1), and the last rows of an M edge, are first copied, PANEL_DEPTH steps at a time, into a
 * private panel in M-major order (rows past M repeat row M - 1: they only feed elements of C that
 * are never stored). op(B) is only ever read element by element, so both of its layouts serve;
 * columns past N repeat column N - 1 for the same reason. Types: FP32 and FP64, FP16 / BF16
 * storage with FP32 arithmetic and INT8 in 32-bit integers (the host checks), whose vectors of
 * A widen as they load; C is stored as whole vectors where it holds
 * the arithmetic type, element by element otherwise.
 *
 * Complex types (NCOMP 2): VW counts complex elements, and a vector holds 2 VW components, the
 * elements interleaved (re, im) as they are stored. Each step multiplies the vectors of op(A) by
 * the real and by the imaginary part of each element of op(B) into two sets of accumulators, so
 * the loop is the real kernel's, two fused multiply-adds per vector and element of B and no
 * shuffle; the epilogue combines them per element (re = acc_r.re - acc_i.im, im = acc_r.im +
 * acc_i.re) and applies CONJA / CONJB there as signs, so A and B are read, copied and packed as
 * stored. A always goes through the private panel when it is not packed.
 *
 * PACKED (the blocked schedule, src/exec/gemm.c): A and B are one K-block of op(A) and op(B)
 * already copied by clgemm_pack_panels (cl/pack.cl) into micro-panels, the panel of rows
 * i0 .. i0 + MR - 1 of op(A) at A + i0 * K as K steps of MR contiguous elements, that of columns
 * j0 .. j0 + NR - 1 of op(B) at B + j0 * K as K steps of NR, both padded with zeros past M and N:
 * the loop streams two contiguous blocks whatever the caller's layout, leading dimension or
 * transposes, with no edge case. The host runs it once per K-block, beta 1 after the first.
 * FP16, BF16 and INT8 panels hold FP32 (PANEL_WIDE: widened as they were packed), so the loop is
 * FP32's; the host passes their offsets in stored elements (twice, or four times, the FP32
 * ones). INT8's sums are exact there (K-blocks of at most 1024 steps: types.h) and become its
 * 32-bit integers at the end. */
#ifndef MR
#define MR 16
#endif
#ifndef NR
#define NR 8
#endif
#ifndef VW
#define VW 8
#endif
#define MV (MR / VW) /* vectors along M */

/* The split-K layers' granularity, and the depth of one copied panel of A (the host passes both:
 * src/families/microkernel.c). */
#ifndef KSTEP
#define KSTEP 8
#endif
#ifndef PANEL_DEPTH
#define PANEL_DEPTH 32
#endif
/* The blocked schedule's blocks of A: MC panels where the configuration sets it (MC 0 or 1: its
 * default, PACK_A_BYTES of the K-block). */
#ifndef MC
#define MC 0
#endif
#ifndef PACKED
#define PACKED 0
#endif
#ifndef PANEL_WIDE
#define PANEL_WIDE 0
#endif
/* STAGED_LAST (with PACKED, for C of FP16 or BF16 over several K-blocks): the earlier blocks added
 * their products into a copy of C in the arithmetic type at the workspace's start; this, the last
 * block, adds that copy's element (offS + i + j lds of `staged`) to its own product and writes C
 * itself, beta applied, so no reduction pass follows (the same sums in the same order as the pass
 * made them). */
#ifndef STAGED_LAST
#define STAGED_LAST 0
#endif
#if STAGED_LAST
#define MICROKERNEL_ARGS                                                                           \
    GEMM_ARGS, const __global REAL *restrict staged, const ulong offS, const int lds
#define STORE_OUT(i, j, acc)                                                                       \
    do {                                                                                           \
        const int at_ = C_INDEX(i, j);                                                             \
        REAL r_ = ALPHA_TIMES(acc) + staged[offS + (ulong)(i) + (ulong)(j) * (ulong)lds];          \
        if (!IS_ZERO(beta)) r_ += MUL(beta, LOAD_C(C, at_));                                       \
        STORE_ELEM(C, at_, r_);                                                                    \
    } while (0)
#else
#define MICROKERNEL_ARGS     GEMM_ARGS
#define STORE_OUT(i, j, acc) STORE_C(i, j, acc)
#endif

/* VSW: components in a vector (VW, or 2 VW for complex: a literal, since it is pasted). */
#if NCOMP == 2
#if VW == 1
#define VSW 2
#elif VW == 2
#define VSW 4
#elif VW == 4
#define VSW 8
#elif VW == 8
#define VSW 16
#endif
#else
#define VSW VW
#endif
/* VEC##VSW expands to CLGEMM_CAT(SCALAR, VSW), which may not nest inside CLGEMM_CAT itself. */
#define MK_CAT_(a, b) a##b
#define MK_CAT(a, b)  MK_CAT_(a, b)
#define VREAL         MK_CAT(VEC, VSW)
#define VLOADW        CLGEMM_CAT(vload, VSW)
#define VSTOREW       CLGEMM_CAT(vstore, VSW)

#define VUINT   MK_CAT(uint, VW)
#define VUSHORT MK_CAT(ushort, VW)

/* VW elements of A from p on, as a vector of the arithmetic type. */
#if TYPE_AB == TYPE_F16
/* FP16 widened by integer operations on the whole vector (with PoCL's vload_halfN and vload_half
 * this kernel ran FP16 3 x slower than BF16; now 1.6 x): exact for every code, signed zeros,
 * subnormals, infinities and NaN payloads included. */
inline VREAL widen_half(const VUINT h) {
    const VUINT sign = (h & 0x8000u) << 16, em = h & 0x7fffu;
    VUINT bits = em >= 0x7c00u ? (em << 13) | 0x7f800000u : (em << 13) + 0x38000000u;
    const VREAL subnormal = MK_CAT(convert_float, VW)(em) * 0x1p-24f;
    bits = em < 0x400u ? MK_CAT(as_uint, VW)(subnormal) : bits;
    return MK_CAT(as_float, VW)(bits | sign);
}
#define VLOAD_AB(p) widen_half(MK_CAT(convert_uint, VW)(VLOADW(0, (const __global ushort *)(p))))
#undef LOAD_AB
#define LOAD_AB(p, i) clgemm_from_half(((const __global ushort *)(p))[i])
#elif TYPE_AB == TYPE_BF16
#define VLOAD_AB(p) MK_CAT(as_, VREAL)(MK_CAT(convert_uint, VW)(VLOADW(0, (p))) << 16)
#elif TYPE_AB == TYPE_I8
/* Sign-extended, then taken modulo 2^32 (types.cl's LOAD_AB, a vector at a time). */
#define VLOAD_AB(p) MK_CAT(as_, VREAL)(MK_CAT(convert_int, VW)(VLOADW(0, (p))))
#elif NCOMP == 2 /* VW elements from p on as their 2 VW components */
#define VLOAD_AB(p) VLOADW(0, (const __global SCALAR *)(p))
#else
#define VLOAD_AB(p) VLOADW(0, (p))
#endif
/* Whether C holds the arithmetic type (FP32 C of FP16 / BF16 A and B included) and is stored
 * as whole vectors (complex C: element by element, once the two sets are combined). */
#define C_VECTORS (TYPE_C == TYPE_F32 || TYPE_C == TYPE_F64)
/* FP16 and BF16 C as whole vectors too: VW elements' bits widened as A's are, and rounded back by
 * integer operations, to nearest even, exactly as types.cl's clgemm_to_half and clgemm_to_bf16
 * round one element (test conversions checks every value). */
#define C16_VECTORS (NCOMP == 1 && (TYPE_C == TYPE_F16 || TYPE_C == TYPE_BF16))
#if C16_VECTORS && TYPE_C == TYPE_F16
#define WIDEN_C(h) widen_half(MK_CAT(convert_uint, VW)(h))
inline VUSHORT narrow_c(const VREAL v) {
    const VUINT u = MK_CAT(as_uint, VW)(v), a = u & 0x7fffffffu;
    /* (the subnormal results' values kept in range for the conversion where they are unused) */
    const VREAL small = fmin(MK_CAT(as_float, VW)(a), (VREAL)0x1p-14f) * 0x1p24f;
    VUINT h = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13;
    h = a < 0x38800000u ? MK_CAT(convert_uint, VW)(rint(small)) : h;
    h = a >= 0x477ff000u ? (VUINT)0x7c00u : h;
    h = a > 0x7f800000u ? 0x7e00u | ((a >> 13) & 0x3ffu) : h;
    return MK_CAT(convert_ushort, VW)(((u >> 16) & 0x8000u) | h);
}
#elif C16_VECTORS
#define WIDEN_C(h) MK_CAT(as_, VREAL)(MK_CAT(convert_uint, VW)(h) << 16)
inline VUSHORT narrow_c(const VREAL v) {
    const VUINT u = MK_CAT(as_uint, VW)(v);
    const VUINT r = (u & 0x7fffffffu) > 0x7f800000u ? (u >> 16) | 0x40u
                                                    : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return MK_CAT(convert_ushort, VW)(r);
}
#endif

/* acc + a * b with the device's fused multiply-add where it is fast, a product and a sum
 * elsewhere (a software fma would cost far more than its rounding saves). */
#if TYPE_AB == TYPE_F64 || TYPE_AB == TYPE_C64
#ifdef FP_FAST_FMA
#define VMADD(acc, a, b) ((acc) = fma((a), (VREAL)(b), (acc)))
#endif
#elif TYPE_AB == TYPE_I8 /* integers: a product and a sum, modulo 2^32 */
#elif defined(FP_FAST_FMAF)
#define VMADD(acc, a, b) ((acc) = fma((a), (VREAL)(b), (acc)))
#endif
#ifndef VMADD
#define VMADD(acc, a, b) ((acc) += (a) * (b))
#endif

typedef union {
    VREAL v;
    SCALAR s[VSW];
} unionV;

/* One step of k: MV vectors of op(A) from `a_at(v)`, NR elements of op(B) from `b_at(j)`
 * (complex: times b's real part into acc, its imaginary part into acc_i). */
#if NCOMP == 2
#define MADD_B(v, j, b_)                                                                           \
    do {                                                                                           \
        VMADD(acc[v][j], a_[v], (b_).x);                                                           \
        VMADD(acc_i[v][j], a_[v], (b_).y);                                                         \
    } while (0)
#else
#define MADD_B(v, j, b_) VMADD(acc[v][j], a_[v], b_)
#endif
#define MICRO_STEP(a_at, b_at)                                                                     \
    do {                                                                                           \
        VREAL a_[MV];                                                                              \
        _Pragma("unroll") for (int v = 0; v < MV; v++) a_[v] = a_at(v);                            \
        _Pragma("unroll") for (int j = 0; j < NR; j++) {                                           \
            const REAL b_ = b_at(j);                                                               \
            _Pragma("unroll") for (int v = 0; v < MV; v++) MADD_B(v, j, b_);                       \
        }                                                                                          \
    } while (0)

/* Complex A and B are read as stored: CONJA and CONJB become signs in the epilogue. */
#if NCOMP == 2
#if TRANSA == 0
#define A_RAW(i, p) LOAD_AB(A, (i) + (p)*lda)
#else
#define A_RAW(i, p) LOAD_AB(A, (p) + (i)*lda)
#endif
#if TRANSB == 0
#define B_RAW(p, j) LOAD_AB(B, (p) + (j)*ldb)
#else
#define B_RAW(p, j) LOAD_AB(B, (j) + (p)*ldb)
#endif
#define SIGN_A (CONJA ? -1 : 1)
#define SIGN_B (CONJB ? -1 : 1)
#else
#define A_RAW(i, p) A_AT(i, p)
#define B_RAW(p, j) B_AT(p, j)
#endif

__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void clgemm_microkernel(MICROKERNEL_ARGS) {
    GEMM_BEGIN
    /* Split K as regblock does: layer kz of the batch's matrix sums depths [kbeg, kend) into its
     * own M x N block of C (the host's workspace). */
    const long kchunk = ((long)K + layers * KSTEP - 1) / (layers * KSTEP) * KSTEP;
    const int kbeg = (int)min((long)K, layer * kchunk), kend = (int)min((long)K, kbeg + kchunk);
    C += (ulong)layer * (ulong)ldc * (ulong)N;
#if PACKED
    /* BLIS's loop over blocks of A: the work-items run in blocks of mc panels of A (about
     * PACK_A_BYTES of this K-block, or PACK_MC_PANELS when the host forces small blocks, or the
     * configuration's MC before either), every column of B within a block, a block's panels next to
     * each other, so that its panels stay in the L2 cache while the columns of B stream past (PoCL
     * runs work-groups in the order of their linear id). */
#if MC > 1
    const int mc = MC;
#elif defined(PACK_MC_PANELS)
    const int mc = PACK_MC_PANELS;
#else
    const int mc = max(1, PACK_A_BYTES / (MR * K * (PANEL_WIDE ? 4 : (int)sizeof(AB_T))));
#endif
    const int gm = get_global_size(0), gn = get_global_size(1);
    const int id = get_global_id(0) + get_global_id(1) * gm, block = id / (mc * gn);
    const int tall = min(mc, gm - block * mc), in_block = id - block * mc * gn;
    const int i0 = (block * mc + in_block % tall) * MR, j0 = in_block / tall * NR;
#else
    const int i0 = get_global_id(0) * MR, j0 = get_global_id(1) * NR;
#endif

    int col[NR];
#pragma unroll
    for (int j = 0; j < NR; j++)
        col[j] = min(j0 + j, N - 1);
    VREAL acc[MV][NR];
#if NCOMP == 2
    VREAL acc_i[MV][NR];
#endif
#pragma unroll
    for (int v = 0; v < MV; v++)
#pragma unroll
        for (int j = 0; j < NR; j++) {
            acc[v][j] = (VREAL)0;
#if NCOMP == 2
            acc_i[v][j] = (VREAL)0;
#endif
        }

#define B_IN_PLACE(j) B_RAW(p, col[j])
#if PACKED && PANEL_WIDE && TYPE_AB == TYPE_I8
    {
        const __global float *a = (const __global float *)A + (ulong)i0 * (ulong)K;
        const __global float *b = (const __global float *)B + (ulong)j0 * (ulong)K;
        MK_CAT(float, VW) facc[MV][NR];
#pragma unroll
        for (int v = 0; v < MV; v++)
#pragma unroll
            for (int j = 0; j < NR; j++)
                facc[v][j] = 0;
        for (int p = 0; p < K; p++, a += MR, b += NR) {
            MK_CAT(float, VW) fa[MV];
#pragma unroll
            for (int v = 0; v < MV; v++)
                fa[v] = VLOADW(0, a + v * VW);
#pragma unroll
            for (int j = 0; j < NR; j++) {
                const float fb = b[j];
#pragma unroll
                for (int v = 0; v < MV; v++)
                    facc[v][j] = fma(fa[v], (MK_CAT(float, VW))fb, facc[v][j]);
            }
        }
#pragma unroll
        for (int v = 0; v < MV; v++)
#pragma unroll
            for (int j = 0; j < NR; j++)
                acc[v][j] = MK_CAT(as_uint, VW)(MK_CAT(convert_int, VW)(facc[v][j]));
    }
#elif PACKED && PANEL_WIDE
    {
        const __global float *a = (const __global float *)A + (ulong)i0 * (ulong)K;
        const __global float *b = (const __global float *)B + (ulong)j0 * (ulong)K;
#define A_PACKED(v) VLOADW(0, a + (v)*VW)
#define B_PACKED(j) b[j]
        for (int p = 0; p < K; p++, a += MR, b += NR)
            MICRO_STEP(A_PACKED, B_PACKED);
    }
#elif PACKED
    {
        const __global AB_T *a = A + (ulong)i0 * (ulong)K, *b = B + (ulong)j0 * (ulong)K;
#define A_PACKED(v) VLOAD_AB(a + (v)*VW)
#define B_PACKED(j) LOAD_AB(b, j)
        for (int p = 0; p < K; p++, a += MR, b += NR)
            MICRO_STEP(A_PACKED, B_PACKED);
    }
#else
#if TRANSA == 0 && NCOMP == 1
    if (i0 + MR <= M) {
#define A_IN_PLACE(v) VLOAD_AB(A + i0 + (v)*VW + p * lda)
        for (int p = kbeg; p < kend; p++)
            MICRO_STEP(A_IN_PLACE, B_IN_PLACE);
    } else
#endif
    {
        REAL panel[PANEL_DEPTH * MR]; /* panel[q * MR + r] = op(A)(i0 + r, p0 + q) */
        for (int p0 = kbeg; p0 < kend; p0 += PANEL_DEPTH) {
            const int depth = min(PANEL_DEPTH, kend - p0);
#if TRANSA == 0
            for (int q = 0; q < depth; q++)
#pragma unroll
                for (int r = 0; r < MR; r++)
                    panel[q * MR + r] = A_RAW(min(i0 + r, M - 1), p0 + q);
#else
#pragma unroll
            for (int r = 0; r < MR; r++) {
                const int i = min(i0 + r, M - 1);
                for (int q = 0; q < depth; q++)
                    panel[q * MR + r] = A_RAW(i, p0 + q);
            }
#endif
#define A_FROM_PANEL(v) VLOADW(0, (const SCALAR *)(panel + q * MR + (v)*VW))
            for (int q = 0; q < depth; q++) {
                const int p = p0 + q;
                MICRO_STEP(A_FROM_PANEL, B_IN_PLACE);
            }
        }
    }
#endif

    /* C = alpha * acc + beta * C: whole vectors inside a C of the arithmetic type, element by
     * element at its edges and into FP16 / BF16. In a table batch alpha may be 0, and then A and
     * B must not reach C (NaN included); C is not read when beta is 0. */
#if C_VECTORS || C16_VECTORS
    const bool zero_alpha = BATCH_TABLE && IS_ZERO(alpha);
    if (i0 + MR <= M && j0 + NR <= N) {
#pragma unroll
        for (int j = 0; j < NR; j++)
#pragma unroll
            for (int v = 0; v < MV; v++) {
                VREAL r = zero_alpha ? (VREAL)0 : alpha * acc[v][j];
#if C16_VECTORS
                __global ushort *c = (__global ushort *)C + C_INDEX(i0 + v * VW, j0 + j);
#if STAGED_LAST
                r += VLOADW(0, staged + offS + (ulong)(i0 + v * VW) + (ulong)(j0 + j) * (ulong)lds);
#endif
                if (!IS_ZERO(beta)) r += beta * WIDEN_C(VLOADW(0, c));
                VSTOREW(narrow_c(r), 0, c);
#else
                __global REAL *c = C + C_INDEX(i0 + v * VW, j0 + j);
                if (!IS_ZERO(beta)) r += beta * VLOADW(0, c);
                VSTOREW(r, 0, c);
#endif
            }
    } else
#endif
    {
        for (int j = 0; j < NR && j0 + j < N; j++)
#pragma unroll
            for (int v = 0; v < MV; v++) {
                unionV u;
                u.v = acc[v][j];
#if NCOMP == 2
                /* acc holds (ar br, ai br), acc_i (ar bi, ai bi) per element, A's and B's
                 * imaginary parts as stored: conjugating one flips the sign of its own. */
                unionV w;
                w.v = acc_i[v][j];
                for (int e = 0; e < VW && i0 + v * VW + e < M; e++) {
                    const SCALAR re = u.s[2 * e] - (SIGN_A * SIGN_B) * w.s[2 * e + 1];
                    const SCALAR im = SIGN_A * u.s[2 * e + 1] + SIGN_B * w.s[2 * e];
                    STORE_OUT(i0 + v * VW + e, j0 + j, ((REAL)(re, im)));
                }
#else
                for (int e = 0; e < VW && i0 + v * VW + e < M; e++)
                    STORE_OUT(i0 + v * VW + e, j0 + j, u.s[e]);
#endif
            }
    }
}
