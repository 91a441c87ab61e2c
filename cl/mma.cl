/* mma.cl: GEMM on NVIDIA's matrix units (tensor cores) through inline PTX mma.sync, for
 * compute capability 8.0+ (FP64 m16n8k8/k16 needs 9.0, FP8 8.9). Only NVIDIA devices may build
 * it.
 *
 * Problem (column-major, like every clgemm kernel): C is M x N, C(i, j) = C[offC + i + j*ldc];
 * op(A) is M x K, read as A[i + p*lda] (TRANSA=0) or A[p + i*lda] (TRANSA=1); op(B) is K x N,
 * read as B[p + j*ldb] (TRANSB=0) or B[j + p*ldb] (TRANSB=1). C = alpha*op(A)op(B) + beta*C;
 * when beta == 0, C is never read. Any M, N, K >= 1, any offsets and ld >= the minimum.
 *
 * Build options:
 *   MMA_TYPE  0 FP16 storage (ushort bits), FP32 accumulation   (mma m16n8k16 f16)
 *             1 BF16 storage (ushort bits), FP32 accumulation   (mma m16n8k16 bf16)
 *             2 TF32: FP32 storage, inputs rounded by cvt.rna.tf32 (mma m16n8k8 tf32)
 *             3 3xTF32: FP32 storage, a = big + small (both tf32), accumulates
 *               small*big + big*small + big*big: FP32-level error   (3 x m16n8k8 tf32)
 *             4 FP64 (mma m16n8k8 f64, or m16n8k16 f64 with F64_K16=1; sm_90)
 *             5 INT8 (mma m16n8k32 s32.s8.s8.s32; sm_80): INT32 accumulators, which wrap
 *               modulo 2^32 like the library's uint arithmetic; C INT32
 *             6 FP8 E4M3, 7 FP8 E5M2 (mma m16n8k32 f32.e4m3.e4m3.f32 / .e5m2; sm_89): C FP32,
 *               FP16 or BF16 (TYPE_C). 8-bit fragments want k contiguous: both operands are
 *               K-major in local memory whatever their transpose, an MN-major one transposed
 *               on its way there (global -> registers -> local, never by cp.async).
 *   C_INPUT   types 0/1 only: 1 = C holds the input type (ushort FP16/BF16 bits, stored with
 *             round-to-nearest-even), 0 = C is float. alpha, beta are float (double for type 4,
 *             uint for type 5: INT8's arithmetic).
 *   TRANSA, TRANSB       0/1 as above.
 *   ALIGNED_A, ALIGNED_B 1 only when the host checked that offA and lda (offB, ldb) are
 *             multiples of VW = 16 / sizeof(element) (8, 4 or 2): the operand's tiles are then
 *             copied with 16-byte cp.async (zero-filled past the edges). 0: scalar loads staged
 *             through registers (any offset and ld).
 *   MWG, NWG  work-group tile of C;  KWG  depth of one K slice in local memory;
 *   WM, WN    warp tile (each warp computes WM x WN of C);  STAGES  slices kept in flight;
 *   SWIZZLE   1 = XOR-swizzled 16-byte chunks in local memory (no bank conflicts), 0 = plain.
 *   F64_K16   type 4: 1 = mma m16n8k16 f64 (half the instructions of m16n8k8).
 *   LOOP_ADDR 1 = a slice cut by the end of K is multiplied first, so that the K loop copies
 *             only whole slices, from addresses and bounds computed once (types 0-4, both
 *             operands by cp.async, each thread's chunks a whole number of rows apart); 0 = the
 *             slices in order, every copy's address and bounds computed afresh. H200 FP64
 *             128 x 64 x 16 S2: 8192^2 53.6 / 52.9 TFLOPS against 47.0 / 47.0 with 0, 4096^2
 *             51.6 / 51.8 against 45.3 / 44.7 (ptxas: the loop 444 -> about 300 instructions a
 *             slice; bench/results/h200-fp64-loop-addressing.log).
 *   F64_LOOP  type 4 with F64_K16 and LOOP_ADDR (both operands by cp.async, >= 8 chunks a local
 *             row): 1 = the K loop unrolled by STAGES, so that each slice's stage is a constant,
 *             each fragment loaded from a local pointer computed once (one for each set of
 *             elements whose places differ by constants) plus an immediate, and in tiles inside
 *             M and N each operand's copies from one pointer stepped each slice, with no test
 *             while every slice of a round has a slice to copy (edge tiles: a pointer a copy, in
 *             a loop of their own); 0 = addresses from indices each slice. Offline (clang-14,
 *             ptxas 13.0, scripts/mma_loop_sass.sh) the FP64 default's loop takes 155-164
 *             instructions a slice instead of 291-313 (every transpose; the last rounds 172,
 *             edge tiles 187-211), 235-242 registers and no spill instead of 255 and 48-76
 *             bytes; 32 x 64 warp tiles spill 20-172 bytes (0-20 with 0). The default: on the
 *             H200 (bench/gpu/run.sh fp64-loop, two alternated rounds) 8192^2 48.0-48.2 ->
 *             50.1-50.2 TFLOPS, 4096^2 51.5-51.7 -> 52.5-53.0, 4097^2 40.9 -> 41.6-42.0
 *             (bench/results/h200-fp64-loop.log).
 *   TF32_CVT  types 2/3, how FP32 inputs become TF32 (every way rounds to nearest, ties away),
 *             on every fragment use (once per element in local memory, between the cp.async
 *             wait and the barrier, was tried and is slower: it lengthens every slice's wait):
 *             0 = cvt.rna.tf32.f32 (a conversion-pipe instruction);
 *             1 = integer rounding: + 0x1000 to the bits of finite values (inf and NaN kept;
 *                 a NaN whose payload lies only in the low 13 bits reads as inf there, where
 *                 cvt.rna gives NaN); the mma ignores the low 13 bits (3xTF32: big = that with the
 * low bits cleared, small = x - big, exact in FP32, passed as is, i.e. truncated); 2 = as 1 for
 * TF32, written as a predicated add in PTX. TF32_LDS  types 2/3: 1 = fragments by ldmatrix
 * (k-contiguous sides: 32-bit elements as pairs of b16) and 16-byte local loads (m/n-contiguous
 * sides, rows permuted over pairs of m tiles / quads of n tiles); 0 = 8-byte local loads.
 *   DIAG_NO_CVT  diagnostic only, never for results: TF32 inputs truncated instead of rounded.
 *
 * Legality (the family's constraint check):
 *   - MWG, NWG, KWG, WM, WN powers of two; MWG % WM == 0, NWG % WN == 0; WM % 16 == 0;
 *     WN % 16 == 0 for types 0-3 (B fragments are loaded for pairs of n-tiles), WN % 8 == 0
 *     for type 4;
 *   - KWG % 16 == 0 for types 0/1 and for type 4 with F64_K16=1, KWG % 32 == 0 for types 5-7,
 *     KWG % 8 == 0 otherwise;
 *   - threads T = 32 * (MWG/WM) * (NWG/WN) <= 1024 (work-group size, launched as T x 1);
 *   - MWG*KWG/VW and NWG*KWG/VW (16-byte chunks of one slice) are positive multiples of T;
 *     the contiguous side of each tile holds >= 1 chunk: KWG >= VW, MWG >= VW, NWG >= VW;
 *   - STAGES >= 2 and STAGES * (MWG + NWG) * KWG * sizeof(element) within the device's limit
 *     of static __local arrays (the stages are static arrays, SLICE_STAGES in ptx.cl, never
 *     __local arguments): 49152 where OpenCL's figure stands, 232,448 on compute capability 9.0
 *     where the probe build passed (clgemm__static_local_limit);
 *   - registers (ptxas, -cl-nv-verbose, H200): 64x64 warp tiles take 210-255 registers for
 *     types 0-3 without spills; FP64 64x32 tiles with F64_K16 reach 255 and spill up to 100
 *     bytes in the unaligned (scalar-load) variants. Larger warp tiles will spill. At 255
 *     registers a work-group of 8 warps (256 threads) fills an SM's 65,536 registers, so FP64
 *     holds at most 128 x 128 of C per SM in registers; scripts/check_mma_ptx.sh compiles the
 *     FP64 sets offline and records their registers and spills.
 * Fastest sets measured on the H200 (docs/TENSOR_CORES.md): types 0/1 MWG=128 NWG=128 KWG=32
 * WM=64 WN=64 STAGES=3; types 2/3 MWG=128 NWG=128 KWG=16 WM=64 WN=64 STAGES=3; type 4
 * MWG=128 NWG=64 KWG=16 WM=64 WN=32 STAGES=2 F64_K16=1; SWIZZLE=1 always (0 is 3.7x slower).
 * Launch: local size (T, 1), global size (ceil(M/MWG) * T, ceil(N/NWG)). */
#ifndef MMA_TYPE
#define MMA_TYPE 0
#endif
#ifndef MWG
#define MWG 128
#endif
#ifndef NWG
#define NWG 128
#endif
#ifndef KWG
#define KWG 32
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 32
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef SWIZZLE
#define SWIZZLE 1
#endif
#ifndef F64_K16
#define F64_K16 0
#endif
#ifndef LOOP_ADDR
#define LOOP_ADDR 1
#endif
#ifndef F64_LOOP
#define F64_LOOP 1
#endif
#ifndef TF32_CVT
#define TF32_CVT 1
#endif
#ifndef TF32_LDS
#define TF32_LDS 1
#endif
#ifndef DIAG_NO_CVT
#define DIAG_NO_CVT 0
#endif

#if MMA_TYPE <= 1
#define MT    ushort /* element as stored: FP16 / BF16 bits */
#define ACC   float
#define CT    C_16BIT_T
#define ESIZE 2
#define KSTEP 16
#elif MMA_TYPE <= 3
#define MT    float
#define ACC   float
#define CT    float
#define ESIZE 4
#define KSTEP 8
#elif MMA_TYPE == 4
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define MT    double
#define ACC   double
#define CT    double
#define ESIZE 8
#if F64_K16
#define KSTEP 16
#else
#define KSTEP 8
#endif
#else /* 8-bit: INT8 (5), FP8 E4M3 (6), E5M2 (7); C's type from TYPE_C (types.cl) */
#define MT    uchar
#define ESIZE 1
#define KSTEP 32
#if MMA_TYPE == 5
#define ACC int
#else
#define ACC float
#endif
#define CT C_STORED_T
/* C's element to and from the arithmetic type REAL (uint for INT8: as_int keeps the bits of a
 * wrapped sum; float for FP8), rounding to nearest even into FP16 / BF16 (ptx.cl's). */
#undef c_load
#undef c_store
#if TYPE_C == TYPE_I32
#define c_load(x)  as_uint(x)
#define c_store(x) as_int(x)
#elif TYPE_C == TYPE_F16
#define c_load(x)  f16_to_float(x)
#define c_store(x) float_to_f16(x)
#elif TYPE_C == TYPE_BF16
#define c_load(x)  bf16_to_float(x)
#define c_store(x) float_to_bf16(x)
#else
#define c_load(x)  ((REAL)(x))
#define c_store(x) (x)
#endif
#endif
#define EIGHT_BIT (MMA_TYPE >= 5)

#define VW       (16 / ESIZE) /* elements per 16-byte chunk */
#define WARPS_M  (MWG / WM)
#define WARPS_N  (NWG / WN)
#define NTHREADS (32 * WARPS_M * WARPS_N)
#define MTILES   (WM / 16) /* mma tiles per warp along M */
#define NTILES   (WN / 8)  /* ... along N */

/* Local layouts: the side that is contiguous in global memory stays contiguous here, so one
 * 16-byte chunk of global memory is one chunk of local memory.
 *   A: TRANSA=0 -> [KWG][MWG] (m contiguous), TRANSA=1 -> [MWG][KWG] (k contiguous)
 *   B: TRANSB=0 -> [NWG][KWG] (k contiguous), TRANSB=1 -> [KWG][NWG] (n contiguous)
 * except for the 8-bit types, always [MWG][KWG] and [NWG][KWG]: ldmatrix transposes 16-bit
 * elements only, so an 8-bit operand stored MN-major (A_MN, B_MN) is transposed between the
 * registers its slice is read into and local memory. A_GCPR, B_GCPR: chunks per row of a slice
 * as global memory holds it (the loads' order). */
#if TRANSA == 0
#define A_GCPR (MWG / VW)
#else
#define A_GCPR (KWG / VW)
#endif
#if TRANSB == 0
#define B_GCPR (KWG / VW)
#else
#define B_GCPR (NWG / VW)
#endif
#if EIGHT_BIT
#define A_MN  (TRANSA == 0)
#define B_MN  (TRANSB == 1)
#define A_CPR (KWG / VW) /* chunks per local row */
#define B_CPR (KWG / VW)
#else
#define A_CPR A_GCPR
#define B_CPR B_GCPR
#endif
/* Whether an operand's slices go from global to local memory by 16-byte cp.async (else through
 * registers, one slice ahead): aligned, and for 8-bit types K-major as well. */
#if EIGHT_BIT
#define A_ASYNC (ALIGNED_A && !A_MN)
#define B_ASYNC (ALIGNED_B && !B_MN)
#else
#define A_ASYNC ALIGNED_A
#define B_ASYNC ALIGNED_B
#endif
/* LOOP_ADDR where it applies: a thread's chunks q = tid + l * NTHREADS then lie in one column
 * of chunks, NTHREADS / GCPR rows apart. */
#define FAST_ADDR                                                                                  \
    (LOOP_ADDR && !EIGHT_BIT && A_ASYNC && B_ASYNC && NTHREADS % A_GCPR == 0 &&                    \
     NTHREADS % B_GCPR == 0)
/* F64_LOOP where it applies (see the header). */
#define F64_FAST (FAST_ADDR && F64_LOOP && MMA_TYPE == 4 && F64_K16 && A_CPR >= 8 && B_CPR >= 8)
#define A_STAGE  (MWG * KWG) /* elements per stage */
#define B_STAGE  (NWG * KWG)

/* Swizzle: a fragment read touches R consecutive local rows at the same S adjacent chunks
 * (ldmatrix: 8 rows x 1 chunk; scalar 32/64-bit reads: 8 rows x 1 or 2 chunks along k, 4 rows
 * x 2 or 4 chunks along m/n). XOR-ing the chunk index (within its 128-byte line) with a
 * function of the row spreads those rows over all 32 banks. S is the group width in chunks. */
#if MMA_TYPE <= 1 || EIGHT_BIT
#define A_S 1
#define B_S 1
#else
#define SK_ ((4 * ESIZE / 16) > 1 ? (4 * ESIZE / 16) : 1) /* 4 consecutive k */
#define SM_ ((8 * ESIZE / 16) > 1 ? (8 * ESIZE / 16) : 1) /* 8 consecutive m or n */
#if TRANSA == 0
#define A_S SM_
#else
#define A_S SK_
#endif
#if TRANSB == 0
#define B_S SK_
#else
#define B_S SM_
#endif
#endif

/* Chunk position of (row, chunk) in a buffer with CPR chunks per row. */
DEV uint swz(const uint row, const uint c, const uint CPR, const uint S) {
#if SWIZZLE
    if (CPR >= 8) return row * CPR + (c ^ ((row & (8 / S - 1)) * S));
    const uint q = row * CPR + c;
    return q ^ (((q >> 3) & (8 / S - 1)) * S);
#else
    return row * CPR + c;
#endif
}
/* Element index of (row, col) where col runs along the contiguous side. */
#define A_IDX(r, col) (swz((r), (col) / VW, A_CPR, A_S) * VW + (col) % VW)
#define B_IDX(r, col) (swz((r), (col) / VW, B_CPR, B_S) * VW + (col) % VW)

/* ---- loading one K slice of op(A) and op(B) into local memory --------------------------- */
#define A_CHUNKS (MWG * KWG / VW)
#define B_CHUNKS (NWG * KWG / VW)
#define A_PER_T  (A_CHUNKS / NTHREADS)
#define B_PER_T  (B_CHUNKS / NTHREADS)

/* Chunk q of the A slice at k0: its row/chunk in the local layout, global element index of its
 * first element and how many of its VW elements lie inside op(A) (0..VW). */
#define A_CHUNK_COORDS(q, k0)                                                                      \
    const uint r_ = (q) / A_GCPR, c_ = (q) % A_GCPR;                                               \
    int gm_, gk_, valid_;                                                                          \
    if (TRANSA == 0) {                                                                             \
        gm_ = m0 + (int)c_ * VW;                                                                   \
        gk_ = (k0) + (int)r_;                                                                      \
        valid_ = gk_ < kend ? clamp(M - gm_, 0, VW) : 0;                                           \
    } else {                                                                                       \
        gm_ = m0 + (int)r_;                                                                        \
        gk_ = (k0) + (int)c_ * VW;                                                                 \
        valid_ = gm_ < M ? clamp(kend - gk_, 0, VW) : 0;                                           \
    }                                                                                              \
    const ulong gidx_ =                                                                            \
        TRANSA == 0 ? (ulong)gm_ + (ulong)gk_ * (ulong)lda : (ulong)gk_ + (ulong)gm_ * (ulong)lda; \
    const uint lidx_ = swz(r_, c_, A_CPR, A_S) * VW;

#define B_CHUNK_COORDS(q, k0)                                                                      \
    const uint r_ = (q) / B_GCPR, c_ = (q) % B_GCPR;                                               \
    int gn_, gk_, valid_;                                                                          \
    if (TRANSB == 0) {                                                                             \
        gn_ = n0 + (int)r_;                                                                        \
        gk_ = (k0) + (int)c_ * VW;                                                                 \
        valid_ = gn_ < N ? clamp(kend - gk_, 0, VW) : 0;                                           \
    } else {                                                                                       \
        gn_ = n0 + (int)c_ * VW;                                                                   \
        gk_ = (k0) + (int)r_;                                                                      \
        valid_ = gk_ < kend ? clamp(N - gn_, 0, VW) : 0;                                           \
    }                                                                                              \
    const ulong gidx_ =                                                                            \
        TRANSB == 0 ? (ulong)gk_ + (ulong)gn_ * (ulong)ldb : (ulong)gn_ + (ulong)gk_ * (ulong)ldb; \
    const uint lidx_ = swz(r_, c_, B_CPR, B_S) * VW;

#if MMA_TYPE <= 3 || EIGHT_BIT
#define LDSM_X4(r, addr)                                                                           \
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"                 \
                 : "=r"((r)[0]), "=r"((r)[1]), "=r"((r)[2]), "=r"((r)[3])                          \
                 : "r"(addr))
#define LDSM_X4_T(r, addr)                                                                         \
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"           \
                 : "=r"((r)[0]), "=r"((r)[1]), "=r"((r)[2]), "=r"((r)[3])                          \
                 : "r"(addr))
#endif

/* ---- the fragment products -------------------------------------------------------------- */
#if MMA_TYPE <= 1
#if MMA_TYPE == 0
#define MMA_NAME "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#else
#define MMA_NAME "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
#endif
DEV void mma16(float *d, const uint *a, const uint b0, const uint b1) {
    asm(MMA_NAME " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#elif MMA_TYPE <= 3
DEV uint to_tf32(const float x) {
#if DIAG_NO_CVT /* diagnostic only (measures the conversion's cost): truncates instead of rounding \
                 */
    return as_uint(x);
#elif TF32_CVT == 0
    uint r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
#elif TF32_CVT == 2
    uint r;
    asm("{\n .reg .pred p;\n .reg .f32 t;\n abs.f32 t, %1;\n setp.lt.f32 p, t, 0f7F800000;\n"
        " mov.b32 %0, %1;\n @p add.u32 %0, %0, 4096;\n}\n"
        : "=r"(r)
        : "f"(x));
    return r;
#else
    /* round to nearest, ties away: + half a TF32 ulp to the magnitude's bits; the mma reads only
     * the top 19 bits. Inf and NaN are left alone (+0x1000 would turn inf into NaN). */
    const uint u = as_uint(x);
    return fabs(x) < INFINITY ? u + 0x1000u : u;
#endif
}
/* 3xTF32: x = big + small. big is x rounded to TF32 (low bits cleared), small = x - big is
 * exact in FP32. TF32_CVT 1 passes small as is (the mma truncates it: |error| <= 2^-21 |x|);
 * inf gives small = NaN and a NaN stays NaN in small, as with cvt.rna (0). */
DEV void split3(const float x, uint *big, uint *small) {
#if TF32_CVT == 0 || DIAG_NO_CVT
    *big = to_tf32(x);
    *small = to_tf32(x - as_float(*big));
#else
    *big = (as_uint(x) + 0x1000u) & 0xffffe000u;
    *small = as_uint(x - as_float(*big));
#endif
}
DEV void mma_tf32(float *d, const uint *a, const uint b0, const uint b1) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#elif EIGHT_BIT
/* m16n8k32 on bytes: a0..a3 hold 4 consecutive k each, as FP16's m16n8k16 holds 2, so the same
 * byte positions of the fragments (PTX ISA, "mma.m16n8k32"). INT8 sums wrap (no .satfinite). */
#if MMA_TYPE == 5
#define MMA8_NAME "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
#define MMA8_ACC  "+r"
#elif MMA_TYPE == 6
#define MMA8_NAME "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"
#define MMA8_ACC  "+f"
#else
#define MMA8_NAME "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32"
#define MMA8_ACC  "+f"
#endif
DEV void mma8(ACC *d, const uint *a, const uint b0, const uint b1) {
    asm(MMA8_NAME " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : MMA8_ACC(d[0]), MMA8_ACC(d[1]), MMA8_ACC(d[2]), MMA8_ACC(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#else
#if F64_K16
DEV void mma_f64(double *d, const double *a, const double *b) {
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
          "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
#else
DEV void mma_f64(double *d, const double *a, const double *b) {
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
#endif
#endif

/* Where accumulator e of mma tile (i, j) lies in the work-group's tile (g = lane / 4,
 * t = lane % 4): c0,c1 at (row g, cols 2t, 2t+1), c2,c3 at row g+8 of each 16x8 tile. TF32,
 * whose loads permute rows or columns, redefines them in its section below. */
#define ACC_ROW(i, e) (wm * WM + i * 16 + g + (e >> 1) * 8)
#define ACC_COL(j, e) (wn * WN + j * 8 + t * 2 + (e & 1))
/* Each type's MMA_SLICE multiplies the warp's fragments of the slice at as, bs (local memory)
 * into acc; it uses the kernel's lane, wm and wn. Macros, not functions, on purpose: the kernel
 * must compile exactly as when this code stood in its loop (as always-inline functions, which
 * the compiler simplifies on their own before inlining them, every configuration's PTX
 * changed: other registers and instruction order). */
#if MMA_TYPE <= 1
/* FP16 / BF16: fragments by ldmatrix (lane l gives the address of row (l & 7) of 8x8 matrix
 * (l >> 3)); A of m tile i (rows from mrow) and B of n tiles 2jp, 2jp+1 (columns from ncol) at
 * k step kk. */
#if TRANSA == 1 /* [m][k]: matrices (m0-7,k0-7) (m8-15,k0-7) (m0-7,k8-15) (m8-15,k8-15) */
#define F16_A_FRAG(i, mrow, kk)                                                                    \
    const uint r = mrow + (lane & 7) + ((lane >> 3) & 1) * 8;                                      \
    const uint c = kk / 8 + (lane >> 4);                                                           \
    LDSM_X4(af[i], local_addr(as + swz(r, c, A_CPR, 1) * 8));
#else /* [k][m], transposed on load */
#define F16_A_FRAG(i, mrow, kk)                                                                    \
    const uint r = kk + (lane & 7) + (lane >> 4) * 8;                                              \
    const uint c = mrow / 8 + ((lane >> 3) & 1);                                                   \
    LDSM_X4_T(af[i], local_addr(as + swz(r, c, A_CPR, 1) * 8));
#endif
#if TRANSB == 0 /* [n][k]: matrices (n0-7,k0-7) (n0-7,k8-15) (n8-15,k0-7) (n8-15,k8-15) */
#define F16_B_FRAG(jp, ncol, kk)                                                                   \
    const uint r = ncol + (lane & 7) + (lane >> 4) * 8;                                            \
    const uint c = kk / 8 + ((lane >> 3) & 1);                                                     \
    LDSM_X4(bf[jp], local_addr(bs + swz(r, c, B_CPR, 1) * 8));
#else /* [k][n], transposed on load */
#define F16_B_FRAG(jp, ncol, kk)                                                                   \
    const uint r = kk + (lane & 7) + ((lane >> 3) & 1) * 8;                                        \
    const uint c = ncol / 8 + (lane >> 4);                                                         \
    LDSM_X4_T(bf[jp], local_addr(bs + swz(r, c, B_CPR, 1) * 8));
#endif
#define MMA_SLICE                                                                                  \
    _Pragma("unroll") for (int kk = 0; kk < KWG; kk += 16) {                                       \
        uint af[MTILES][4], bf[NTILES / 2][4];                                                     \
        _Pragma("unroll") for (int i = 0; i < MTILES; i++) {                                       \
            const uint mrow = wm * WM + i * 16;                                                    \
            F16_A_FRAG(i, mrow, kk)                                                                \
        }                                                                                          \
        _Pragma("unroll") for (int jp = 0; jp < NTILES / 2; jp++) {                                \
            const uint ncol = wn * WN + jp * 16;                                                   \
            F16_B_FRAG(jp, ncol, kk)                                                               \
        }                                                                                          \
        _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                         \
            _Pragma("unroll") for (int j = 0; j < NTILES; j++)                                     \
                mma16(acc[i][j], af[i], bf[j / 2][(j & 1) * 2], bf[j / 2][(j & 1) * 2 + 1]);       \
    }
#elif MMA_TYPE <= 3
/* TF32 and 3xTF32: the fragments av, bv of k8 step kk as FP32 values (TF32_A_FRAGS,
 * TF32_B_FRAGS, by TF32_LDS and the layouts), then their products (TF32_PRODUCTS, by type). */
#if !TF32_LDS
/* TF32, 8-byte local loads: every fragment register pair is one load. Within a k8 step, mma
 * slot k=t holds k = 2t and slot t+4 holds k = 2t+1 (same order for A and B, so the sum is
 * unchanged): on a k-contiguous side (a0,a2), (a1,a3) and (b0,b1) are adjacent. On an
 * m-contiguous A, mma row g of a tile is m = 2g and row g+8 is m = 2g+1, so (a0,a1) and
 * (a2,a3) are adjacent; on an n-contiguous B, column g of tiles 2jp / 2jp+1 is n = 2g /
 * 2g+1 of their 16 columns, so the b0 of both tiles are adjacent. The epilogue maps rows
 * back. */
#if TRANSA == 1
#define TF32_A_FRAGS(kk)                                                                           \
    _Pragma("unroll") for (int i = 0; i < MTILES; i++) {                                           \
        const uint mb = wm * WM + i * 16;                                                          \
        const float2 p0 = *(__local const float2 *)(as + A_IDX(mb + g, kk + 2 * t));               \
        const float2 p1 = *(__local const float2 *)(as + A_IDX(mb + g + 8, kk + 2 * t));           \
        av[i][0] = p0.x, av[i][2] = p0.y, av[i][1] = p1.x, av[i][3] = p1.y;                        \
    }
#else
#define TF32_A_FRAGS(kk)                                                                           \
    _Pragma("unroll") for (int i = 0; i < MTILES; i++) {                                           \
        const uint mb = wm * WM + i * 16;                                                          \
        const float2 p0 = *(__local const float2 *)(as + A_IDX(kk + 2 * t, mb + 2 * g));           \
        const float2 p1 = *(__local const float2 *)(as + A_IDX(kk + 2 * t + 1, mb + 2 * g));       \
        av[i][0] = p0.x, av[i][1] = p0.y, av[i][2] = p1.x, av[i][3] = p1.y;                        \
    }
#endif
#if TRANSB == 0
#define TF32_B_FRAGS(kk)                                                                           \
    _Pragma("unroll") for (int j = 0; j < NTILES; j++) {                                           \
        const float2 p = *(__local const float2 *)(bs + B_IDX(wn * WN + j * 8 + g, kk + 2 * t));   \
        bv[j][0] = p.x, bv[j][1] = p.y;                                                            \
    }
#else
#define TF32_B_FRAGS(kk)                                                                           \
    _Pragma("unroll") for (int jp = 0; jp < NTILES / 2; jp++) {                                    \
        const uint nb = wn * WN + jp * 16 + 2 * g;                                                 \
        const float2 p0 = *(__local const float2 *)(bs + B_IDX(kk + 2 * t, nb));                   \
        const float2 p1 = *(__local const float2 *)(bs + B_IDX(kk + 2 * t + 1, nb));               \
        bv[2 * jp][0] = p0.x, bv[2 * jp + 1][0] = p0.y, bv[2 * jp][1] = p1.x,                      \
               bv[2 * jp + 1][1] = p1.y;                                                           \
    }
#endif
#else /* TF32_LDS */
/* TF32, ldmatrix and 16-byte loads; mma k slot t holds k = t, slot t+4 holds k = t+4.
 * k-contiguous sides: ldmatrix .b16 moves 8 rows of 16 bytes per matrix and gives lane l
 * the 32-bit word l%4 of row l/4, i.e. (row g, k t) of an 8 x 4 block of FP32 elements: A
 * [m][k] takes matrices (m0-7,k0-3) (m8-15,k0-3) (m0-7,k4-7) (m8-15,k4-7) = a0..a3, B
 * [n][k] takes (n0-7,k0-3) (n0-7,k4-7) of two n tiles = their b0, b1. m-contiguous A
 * [k][m]: with an even number of m tiles, rows g and g+8 of tile 2ip+h are m = 4g+2h and
 * 4g+2h+1 of the pair's 32 rows, so one 16-byte load at (k t, m 4g) gives a0, a1 of both
 * tiles; odd counts use pairs of rows (m = 2g, 2g+1) and 8-byte loads. n-contiguous B
 * [k][n]: column g of tile 4jq+h is n = 4g+h of the quad's 32 columns (NTILES % 4 == 0),
 * else column g of tile 2jp+h is n = 2g+h of the pair's 16. The epilogue maps rows and
 * columns back. */
#if TRANSA == 1
#define TF32_A_FRAGS(kk)                                                                           \
    _Pragma("unroll") for (int i = 0; i < MTILES; i++) {                                           \
        const uint r = wm * WM + i * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;                      \
        const uint c = kk / 4 + (lane >> 4);                                                       \
        uint x[4];                                                                                 \
        LDSM_X4(x, local_addr(as + swz(r, c, A_CPR, A_S) * 4));                                    \
        av[i][0] = as_float(x[0]), av[i][1] = as_float(x[1]), av[i][2] = as_float(x[2]),           \
        av[i][3] = as_float(x[3]);                                                                 \
    }
#elif MTILES % 2 == 0
#define TF32_A_FRAGS(kk)                                                                           \
    _Pragma("unroll") for (int ip = 0; ip < MTILES / 2; ip++) {                                    \
        const uint mb = wm * WM + ip * 32 + 4 * g;                                                 \
        const float4 p0 = *(__local const float4 *)(as + A_IDX(kk + t, mb));                       \
        const float4 p1 = *(__local const float4 *)(as + A_IDX(kk + t + 4, mb));                   \
        av[2 * ip][0] = p0.x, av[2 * ip][1] = p0.y, av[2 * ip][2] = p1.x, av[2 * ip][3] = p1.y;    \
        av[2 * ip + 1][0] = p0.z, av[2 * ip + 1][1] = p0.w, av[2 * ip + 1][2] = p1.z,              \
                    av[2 * ip + 1][3] = p1.w;                                                      \
    }
#else
#define TF32_A_FRAGS(kk)                                                                           \
    _Pragma("unroll") for (int i = 0; i < MTILES; i++) {                                           \
        const uint mb = wm * WM + i * 16 + 2 * g;                                                  \
        const float2 p0 = *(__local const float2 *)(as + A_IDX(kk + t, mb));                       \
        const float2 p1 = *(__local const float2 *)(as + A_IDX(kk + t + 4, mb));                   \
        av[i][0] = p0.x, av[i][1] = p0.y, av[i][2] = p1.x, av[i][3] = p1.y;                        \
    }
#endif
#if TRANSB == 0
#define TF32_B_FRAGS(kk)                                                                           \
    _Pragma("unroll") for (int jp = 0; jp < NTILES / 2; jp++) {                                    \
        const uint r = wn * WN + jp * 16 + (lane & 7) + (lane >> 4) * 8;                           \
        const uint c = kk / 4 + ((lane >> 3) & 1);                                                 \
        uint x[4];                                                                                 \
        LDSM_X4(x, local_addr(bs + swz(r, c, B_CPR, B_S) * 4));                                    \
        bv[2 * jp][0] = as_float(x[0]), bv[2 * jp][1] = as_float(x[1]);                            \
        bv[2 * jp + 1][0] = as_float(x[2]), bv[2 * jp + 1][1] = as_float(x[3]);                    \
    }
#elif NTILES % 4 == 0
#define TF32_B_FRAGS(kk)                                                                           \
    _Pragma("unroll") for (int jq = 0; jq < NTILES / 4; jq++) {                                    \
        const uint nb = wn * WN + jq * 32 + 4 * g;                                                 \
        const float4 p0 = *(__local const float4 *)(bs + B_IDX(kk + t, nb));                       \
        const float4 p1 = *(__local const float4 *)(bs + B_IDX(kk + t + 4, nb));                   \
        bv[4 * jq][0] = p0.x, bv[4 * jq + 1][0] = p0.y, bv[4 * jq + 2][0] = p0.z,                  \
               bv[4 * jq + 3][0] = p0.w;                                                           \
        bv[4 * jq][1] = p1.x, bv[4 * jq + 1][1] = p1.y, bv[4 * jq + 2][1] = p1.z,                  \
               bv[4 * jq + 3][1] = p1.w;                                                           \
    }
#else
#define TF32_B_FRAGS(kk)                                                                           \
    _Pragma("unroll") for (int jp = 0; jp < NTILES / 2; jp++) {                                    \
        const uint nb = wn * WN + jp * 16 + 2 * g;                                                 \
        const float2 p0 = *(__local const float2 *)(bs + B_IDX(kk + t, nb));                       \
        const float2 p1 = *(__local const float2 *)(bs + B_IDX(kk + t + 4, nb));                   \
        bv[2 * jp][0] = p0.x, bv[2 * jp + 1][0] = p0.y, bv[2 * jp][1] = p1.x,                      \
               bv[2 * jp + 1][1] = p1.y;                                                           \
    }
#endif
#endif /* TF32_LDS */
#if MMA_TYPE == 2
/* TF32: the inputs rounded to TF32, one mma per pair of tiles. */
#define TF32_PRODUCTS                                                                              \
    uint ab[MTILES][4], bb[NTILES][2];                                                             \
    _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                             \
        _Pragma("unroll") for (int h = 0; h < 4; h++) ab[i][h] = to_tf32(av[i][h]);                \
    _Pragma("unroll") for (int j = 0; j < NTILES; j++)                                             \
        _Pragma("unroll") for (int h = 0; h < 2; h++) bb[j][h] = to_tf32(bv[j][h]);                \
    _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                             \
        _Pragma("unroll") for (int j = 0; j < NTILES; j++)                                         \
            mma_tf32(acc[i][j], ab[i], bb[j][0], bb[j][1]);
#else
/* 3xTF32: each input split into big + small TF32 parts, three mma per pair of tiles. */
#define TF32_PRODUCTS                                                                              \
    uint ab[MTILES][4], as_[MTILES][4], bb[NTILES][2], bs_[NTILES][2];                             \
    _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                             \
        _Pragma("unroll") for (int h = 0; h < 4; h++) split3(av[i][h], &ab[i][h], &as_[i][h]);     \
    _Pragma("unroll") for (int j = 0; j < NTILES; j++)                                             \
        _Pragma("unroll") for (int h = 0; h < 2; h++) split3(bv[j][h], &bb[j][h], &bs_[j][h]);     \
    /* small terms first (added while the accumulator is still small); each pass                   \
     * over the tiles issues independent mma, one accumulator is not updated twice                 \
     * in a row */                                                                                 \
    _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                             \
        _Pragma("unroll") for (int j = 0; j < NTILES; j++)                                         \
            mma_tf32(acc[i][j], as_[i], bb[j][0], bb[j][1]);                                       \
    _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                             \
        _Pragma("unroll") for (int j = 0; j < NTILES; j++)                                         \
            mma_tf32(acc[i][j], ab[i], bs_[j][0], bs_[j][1]);                                      \
    _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                             \
        _Pragma("unroll") for (int j = 0; j < NTILES; j++)                                         \
            mma_tf32(acc[i][j], ab[i], bb[j][0], bb[j][1]);
#endif
/* The epilogue maps the rows and columns the loads permuted back (see the loads above). */
#if TRANSA == 0
#undef ACC_ROW
#if TF32_LDS && MTILES % 2 == 0 /* rows permuted over pairs of tiles */
#define ACC_ROW(i, e) (wm * WM + (i >> 1) * 32 + 4 * g + 2 * (i & 1) + (e >> 1))
#else /* rows permuted within a tile */
#define ACC_ROW(i, e) (wm * WM + i * 16 + 2 * g + (e >> 1))
#endif
#endif
#if TRANSB == 1
#undef ACC_COL
#if TF32_LDS && NTILES % 4 == 0 /* columns permuted over quads of tiles */
#define ACC_COL(j, e) (wn * WN + (j >> 2) * 32 + 4 * (t * 2 + (e & 1)) + (j & 3))
#else /* columns permuted over pairs of tiles */
#define ACC_COL(j, e) (wn * WN + (j >> 1) * 16 + 2 * (t * 2 + (e & 1)) + (j & 1))
#endif
#endif
#define MMA_SLICE                                                                                  \
    const uint g = lane >> 2, t = lane & 3;                                                        \
    _Pragma("unroll") for (int kk = 0; kk < KWG; kk += 8) {                                        \
        MT av[MTILES][4], bv[NTILES][2];                                                           \
        TF32_A_FRAGS(kk)                                                                           \
        TF32_B_FRAGS(kk)                                                                           \
        TF32_PRODUCTS                                                                              \
    }
#elif EIGHT_BIT
/* 8-bit: both slices K-major in local memory, one k32 step 32 bytes = 2 chunks per row. By
 * ldmatrix (non-trans, b16: lane l gets word l % 4 of row l / 4, i.e. 4 bytes = 4 k), as FP16's
 * [m][k] and [n][k] sides: A of m tile i from matrices (m0-7,k0-15) (m8-15,k0-15) (m0-7,k16-31)
 * (m8-15,k16-31) = a0..a3; B of n tiles 2jp, 2jp+1 from (n0-7,k0-15) (n0-7,k16-31)
 * (n8-15,k0-15) (n8-15,k16-31) = b0, b1 of each. */
#define MMA_SLICE                                                                                  \
    _Pragma("unroll") for (int kk = 0; kk < KWG; kk += KSTEP) {                                    \
        uint af[MTILES][4], bf[NTILES / 2][4];                                                     \
        _Pragma("unroll") for (int i = 0; i < MTILES; i++) {                                       \
            const uint r = wm * WM + i * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;                  \
            const uint c = kk / 16 + (lane >> 4);                                                  \
            LDSM_X4(af[i], local_addr(as + swz(r, c, A_CPR, 1) * 16));                             \
        }                                                                                          \
        _Pragma("unroll") for (int jp = 0; jp < NTILES / 2; jp++) {                                \
            const uint r = wn * WN + jp * 16 + (lane & 7) + (lane >> 4) * 8;                       \
            const uint c = kk / 16 + ((lane >> 3) & 1);                                            \
            LDSM_X4(bf[jp], local_addr(bs + swz(r, c, B_CPR, 1) * 16));                            \
        }                                                                                          \
        _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                         \
            _Pragma("unroll") for (int j = 0; j < NTILES; j++)                                     \
                mma8(acc[i][j], af[i], bf[j / 2][(j & 1) * 2], bf[j / 2][(j & 1) * 2 + 1]);        \
    }
#else
/* FP64: a_i at (row g [+8], k t [+4, +8, +12]); b_i at (k t [+4, ...], n g). */
#if FAST_ADDR && A_CPR >= 8 && B_CPR >= 8
/* Each element's place for A's first m tile and B's first two n tiles; the others lie a fixed
 * step on (16 rows, or 8 chunks along a row: the swizzle permutes a chunk index's lowest 3 bits
 * only), which the loads take as an immediate. */
#define A_TILE_STEP(i) ((i)*16 * (TRANSA == 0 ? 1 : A_CPR * VW))
#define B_TILE_STEP(j) (((j) >> 1) * 16 * (TRANSB == 0 ? B_CPR * VW : 1))
#define MMA_SLICE                                                                                  \
    const uint g = lane >> 2, t = lane & 3;                                                        \
    _Pragma("unroll") for (int kk = 0; kk < KWG; kk += KSTEP) {                                    \
        MT av[MTILES][KSTEP / 2], bv[NTILES][KSTEP / 4];                                           \
        _Pragma("unroll") for (int h = 0; h < KSTEP / 2; h++) {                                    \
            const uint m = wm * WM + g + (h & 1) * 8, k = kk + t + (h >> 1) * 4;                   \
            __local const MT *pa = as + (TRANSA == 0 ? A_IDX(k, m) : A_IDX(m, k));                 \
            _Pragma("unroll") for (int i = 0; i < MTILES; i++) av[i][h] = pa[A_TILE_STEP(i)];      \
        }                                                                                          \
        _Pragma("unroll") for (int h = 0; h < KSTEP / 4; h++)                                      \
            _Pragma("unroll") for (int jp = 0; jp < 2; jp++) {                                     \
            const uint n = wn * WN + jp * 8 + g, k = kk + t + h * 4;                               \
            __local const MT *pb = bs + (TRANSB == 0 ? B_IDX(n, k) : B_IDX(k, n));                 \
            _Pragma("unroll") for (int j = jp; j < NTILES; j += 2) bv[j][h] = pb[B_TILE_STEP(j)];  \
        }                                                                                          \
        _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                         \
            _Pragma("unroll") for (int j = 0; j < NTILES; j++) mma_f64(acc[i][j], av[i], bv[j]);   \
    }
#else
#define MMA_SLICE                                                                                  \
    const uint g = lane >> 2, t = lane & 3;                                                        \
    _Pragma("unroll") for (int kk = 0; kk < KWG; kk += KSTEP) {                                    \
        MT av[MTILES][KSTEP / 2], bv[NTILES][KSTEP / 4];                                           \
        _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                         \
            _Pragma("unroll") for (int h = 0; h < KSTEP / 2; h++) {                                \
            const uint m = wm * WM + i * 16 + g + (h & 1) * 8, k = kk + t + (h >> 1) * 4;          \
            av[i][h] = TRANSA == 0 ? as[A_IDX(k, m)] : as[A_IDX(m, k)];                            \
        }                                                                                          \
        _Pragma("unroll") for (int j = 0; j < NTILES; j++)                                         \
            _Pragma("unroll") for (int h = 0; h < KSTEP / 4; h++) {                                \
            const uint n = wn * WN + j * 8 + g, k = kk + t + h * 4;                                \
            bv[j][h] = TRANSB == 0 ? bs[B_IDX(n, k)] : bs[B_IDX(k, n)];                            \
        }                                                                                          \
        _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                         \
            _Pragma("unroll") for (int j = 0; j < NTILES; j++) mma_f64(acc[i][j], av[i], bv[j]);   \
    }
#endif
#if F64_FAST
/* F64_LOOP's fragments. Rows r and r + d of a layout of CPR chunks a row lie d * CPR chunks apart
 * in every column where the swizzle's row term is the same for both; along a row, chunks 8 apart
 * stay 8 apart (the swizzle permutes the lowest 3 bits). So of the k16 step's 8 elements of A
 * (h: k + 4 (h >> 1), m + 8 (h & 1)) and of B (h, jp: k + 4 h, n + 8 jp) those that differ only
 * along such rows share one place (KEY) plus an immediate (STEP), as do the k16 steps kk (8
 * chunks, or 16 rows, on). */
#define ROWS_APART(d, CPR, S)                                                                      \
    (!SWIZZLE || ((CPR) >= 8 ? (d) % (8 / (S)) == 0 : (d) * (CPR) % (64 / (S)) == 0))
#if TRANSA == 0 /* [k][m] */
#define A_KEY(h)      (ROWS_APART(4, A_CPR, A_S) ? (h)&1 : (h))
#define A_STEP(h, kk) (((A_KEY(h) == (h) ? 0 : ((h) >> 1) * 4) + (kk)) * A_CPR * VW)
#else /* [m][k] */
#define A_KEY(h)      (ROWS_APART(8, A_CPR, A_S) ? (h) & ~1 : (h))
#define A_STEP(h, kk) ((A_KEY(h) == (h) ? 0 : ((h)&1) * 8 * A_CPR * VW) + (kk))
#endif
#if TRANSB == 0 /* [n][k] */
#define B_KEY(h, jp)      (ROWS_APART(8, B_CPR, B_S) ? (h)*2 : (h)*2 + (jp))
#define B_STEP(h, jp, kk) ((B_KEY(h, jp) == (h)*2 + (jp) ? 0 : (jp)*8 * B_CPR * VW) + (kk))
#else /* [k][n] */
#define B_KEY(h, jp)      (ROWS_APART(4, B_CPR, B_S) ? (jp) : (h)*2 + (jp))
#define B_STEP(h, jp, kk) (((B_KEY(h, jp) == (h)*2 + (jp) ? 0 : (h)*4) + (kk)) * B_CPR * VW)
#endif
/* p moved on by l * step bytes. */
DEV const __global MT *bytes_on(const __global MT *p, const ulong step, const uint l) {
    return (const __global MT *)((const __global char *)p + (ulong)l * step);
}
/* The slice in stage s (a constant) from the local pointers a_fp, b_fp of stage 0. */
#define F64_SLICE(s)                                                                               \
    _Pragma("unroll") for (int kk = 0; kk < KWG; kk += KSTEP) {                                    \
        MT av[MTILES][KSTEP / 2], bv[NTILES][KSTEP / 4];                                           \
        _Pragma("unroll") for (int h = 0; h < KSTEP / 2; h++)                                      \
            _Pragma("unroll") for (int i = 0; i < MTILES; i++) av[i][h] =                          \
                a_fp[A_KEY(h)][(s)*A_STAGE + A_STEP(h, kk) + A_TILE_STEP(i)];                      \
        _Pragma("unroll") for (int h = 0; h < KSTEP / 4; h++)                                      \
            _Pragma("unroll") for (int j = 0; j < NTILES; j++) bv[j][h] =                          \
                b_fp[B_KEY(h, j & 1)][(s)*B_STAGE + B_STEP(h, j & 1, kk) + B_TILE_STEP(j)];        \
        _Pragma("unroll") for (int i = 0; i < MTILES; i++)                                         \
            _Pragma("unroll") for (int j = 0; j < NTILES; j++) mma_f64(acc[i][j], av[i], bv[j]);   \
    }
#endif
#endif

__attribute__((reqd_work_group_size(NTHREADS, 1, 1))) __kernel void clgemm_mma(GEMM_ARGS) {
    SLICE_STAGES(128)

    DIAG_RESIDENCY_START
    const uint tid = get_local_id(0);
    const uint lane = tid & 31u, warp = tid >> 5;
    const uint wm = warp % WARPS_M, wn = warp / WARPS_M;
    GEMM_TILE_ORIGIN(MWG, NWG, m0, n0)
    /* The batch and split-K layer (common.cl: z = batch * layers + layer): A, B, C moved to this
     * work-group's matrix, alpha, beta (REAL: float, double for type 4, uint for type 5), `layer`
     * and its K slices kbeg .. kend, nk of them (ptx.cl) defined. */
    GEMM_BEGIN_LAYER

    ACC acc[MTILES][NTILES][4];
#pragma unroll
    for (int i = 0; i < MTILES; i++)
#pragma unroll
        for (int j = 0; j < NTILES; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0;

/* 8-bit: 16-byte chunks as 4 words each (unused where cp.async copies them). */
#if EIGHT_BIT
    uint ra[A_PER_T][4]; /* the next A slice, on its way from global to local memory */
    uint rb[B_PER_T][4];
#else
#if !A_ASYNC
    MT ra[A_PER_T][VW]; /* the next A slice, on its way from global to local memory */
#endif
#if !B_ASYNC
    MT rb[B_PER_T][VW];
#endif
#endif

    /* Issue the loads of slice kt (cp.async, or global loads into registers). */
/* Operand X's chunks of the slice at k0 into xs (COORDS: A_ or B_CHUNK_COORDS), by cp.async
 * where ALIGNED, else into the registers RX(l, e). */
#define LOAD_ONE(X, xs, PER_T, COORDS, ALIGNED, RX)                                                \
    _Pragma("unroll") for (int l = 0; l < PER_T; l++) {                                            \
        COORDS(tid + l * NTHREADS, k0)                                                             \
        if (ALIGNED) {                                                                             \
            cp_async16(xs + lidx_, valid_ ? X + gidx_ : X, (uint)valid_ * ESIZE);                  \
        } else {                                                                                   \
            _Pragma("unroll") for (int e = 0; e < VW; e++) RX(l, e) =                              \
                e < valid_ ? X[gidx_ + (ulong)e] : (MT)0;                                          \
        }                                                                                          \
    }
/* 8-bit: a chunk not copied by cp.async (unaligned, or MN-major) goes into 4 words of RX[l]:
 * one 16-byte load where the operand is aligned and the chunk whole, else bytes, zero past
 * valid_. */
#define LOAD_ONE8(X, xs, PER_T, COORDS, ASYNC, ALIGNED, RX)                                        \
    _Pragma("unroll") for (int l = 0; l < PER_T; l++) {                                            \
        COORDS(tid + l * NTHREADS, k0)                                                             \
        if (ASYNC) {                                                                               \
            cp_async16(xs + lidx_, valid_ ? X + gidx_ : X, (uint)valid_);                          \
        } else if (ALIGNED && valid_ == VW) {                                                      \
            const uint4 v_ = *(const __global uint4 *)(X + gidx_);                                 \
            RX[l][0] = v_.x, RX[l][1] = v_.y, RX[l][2] = v_.z, RX[l][3] = v_.w;                    \
        } else {                                                                                   \
            _Pragma("unroll") for (int w = 0; w < 4; w++) {                                        \
                uint x_ = 0;                                                                       \
                _Pragma("unroll") for (int b = 0; b < 4; b++) if (4 * w + b < valid_) x_ |=        \
                    (uint)X[gidx_ + (ulong)(4 * w + b)] << (8 * b);                                \
                RX[l][w] = x_;                                                                     \
            }                                                                                      \
        }                                                                                          \
    }
#if EIGHT_BIT
#define LOAD_SLICE(kt)                                                                             \
    do {                                                                                           \
        const int k0 = kbeg + (kt)*KWG;                                                            \
        SLICE_STAGE(kt)                                                                            \
        LOAD_ONE8(A, as, A_PER_T, A_CHUNK_COORDS, A_ASYNC, ALIGNED_A, ra)                          \
        LOAD_ONE8(B, bs, B_PER_T, B_CHUNK_COORDS, B_ASYNC, ALIGNED_B, rb)                          \
    } while (0)
#else
#define LOAD_SLICE(kt)                                                                             \
    do {                                                                                           \
        const int k0 = kbeg + (kt)*KWG;                                                            \
        SLICE_STAGE(kt)                                                                            \
        LOAD_ONE(A, as, A_PER_T, A_CHUNK_COORDS, A_ASYNC, RA_)                                     \
        LOAD_ONE(B, bs, B_PER_T, B_CHUNK_COORDS, B_ASYNC, RB_)                                     \
    } while (0)
#endif

    /* Move register-staged slice kt (scalar path) into local memory. */
#define STORE_ONE(xs, PER_T, CPR, S, RX)                                                           \
    _Pragma("unroll") for (int l = 0; l < PER_T; l++) {                                            \
        const uint q = tid + l * NTHREADS;                                                         \
        const uint li = swz(q / CPR, q % CPR, CPR, S) * VW;                                        \
        _Pragma("unroll") for (int e = 0; e < VW; e++) xs[li + e] = RX(l, e);                      \
    }
/* 8-bit: chunk q of the slice as global memory holds it (GCPR chunks a row) into the K-major
 * layout: a K-major chunk whole, an MN-major one (16 m or n at one k) byte by byte into 16 rows. */
#define STORE_ONE8(xs, PER_T, GCPR, CPR, MN, RX)                                                   \
    _Pragma("unroll") for (int l = 0; l < PER_T; l++) {                                            \
        const uint q = tid + l * NTHREADS, r = q / GCPR, c = q % GCPR;                             \
        if (!(MN)) {                                                                               \
            *(__local uint4 *)(xs + swz(r, c, CPR, 1) * 16) =                                      \
                (uint4)(RX[l][0], RX[l][1], RX[l][2], RX[l][3]);                                   \
        } else {                                                                                   \
            _Pragma("unroll") for (int e = 0; e < 16; e++)                                         \
                xs[swz(c * 16 + e, r / 16, CPR, 1) * 16 + r % 16] =                                \
                    (uchar)(RX[l][e / 4] >> (8 * (e % 4)));                                        \
        }                                                                                          \
    }
#if EIGHT_BIT
#define STORE_SLICE(kt)                                                                            \
    do {                                                                                           \
        SLICE_STAGE(kt)                                                                            \
        if (!A_ASYNC) {                                                                            \
            STORE_ONE8(as, A_PER_T, A_GCPR, A_CPR, A_MN, ra)                                       \
        }                                                                                          \
        if (!B_ASYNC) {                                                                            \
            STORE_ONE8(bs, B_PER_T, B_GCPR, B_CPR, B_MN, rb)                                       \
        }                                                                                          \
    } while (0)
#else
#define STORE_SLICE(kt)                                                                            \
    do {                                                                                           \
        SLICE_STAGE(kt)                                                                            \
        if (!A_ASYNC) {                                                                            \
            STORE_ONE(as, A_PER_T, A_CPR, A_S, RA_)                                                \
        }                                                                                          \
        if (!B_ASYNC) {                                                                            \
            STORE_ONE(bs, B_PER_T, B_CPR, B_S, RB_)                                                \
        }                                                                                          \
    } while (0)
#endif

#if A_ASYNC || EIGHT_BIT
#define RA_(l, e) dummy_
#else
#define RA_(l, e) ra[l][e]
#endif
#if B_ASYNC || EIGHT_BIT
#define RB_(l, e) dummy_
#else
#define RB_(l, e) rb[l][e]
#endif
    MT dummy_;
    (void)dummy_;

#if FAST_ADDR
    /* Slice j of the loop is whole slice j - cut of K, after a slice cut by kend (cut = 1) where
     * there is one, taken first (in the prologue) so that the loop copies whole slices only.
     * Chunk l of a thread lies at row r0 + l * RS of a slice (RS = NTHREADS / GCPR), chunk c of
     * it, so its global index is g0 + p * kstep + l * RS * ld for whole slice p, and only the M
     * or N edge can cut it: for every chunk alike where M (N) runs along the chunk, else by row. */
    const int cut = (kend - kbeg) % KWG != 0;
    const uint a_r0 = tid / A_GCPR, a_c = tid % A_GCPR, b_r0 = tid / B_GCPR, b_c = tid % B_GCPR;
    const ulong a_g0 = TRANSA == 0
                           ? (ulong)(m0 + (int)a_c * VW) + (ulong)(kbeg + (int)a_r0) * (ulong)lda
                           : (ulong)(kbeg + (int)a_c * VW) + (ulong)(m0 + (int)a_r0) * (ulong)lda;
    const ulong b_g0 = TRANSB == 0
                           ? (ulong)(kbeg + (int)b_c * VW) + (ulong)(n0 + (int)b_r0) * (ulong)ldb
                           : (ulong)(n0 + (int)b_c * VW) + (ulong)(kbeg + (int)b_r0) * (ulong)ldb;
#define A_KSTEP (TRANSA == 0 ? (ulong)KWG * (ulong)lda : (ulong)KWG)
#define B_KSTEP (TRANSB == 0 ? (ulong)KWG : (ulong)KWG * (ulong)ldb)
#define A_FULL_VALID(l)                                                                            \
    (TRANSA == 0 ? clamp(M - (m0 + (int)a_c * VW), 0, VW)                                          \
                 : (m0 + (int)a_r0 + (l) * (NTHREADS / A_GCPR) < M ? VW : 0))
#define B_FULL_VALID(l)                                                                            \
    (TRANSB == 1 ? clamp(N - (n0 + (int)b_c * VW), 0, VW)                                          \
                 : (n0 + (int)b_r0 + (l) * (NTHREADS / B_GCPR) < N ? VW : 0))
#define LOAD_FULL_ONE(X, xs, PER_T, GCPR, CPR, S, r0, c, g, ld, VALID)                             \
    _Pragma("unroll") for (int l = 0; l < PER_T; l++) {                                            \
        const int v_ = VALID(l);                                                                   \
        const ulong gl_ = g + (ulong)(l * (NTHREADS / GCPR)) * (ulong)ld;                          \
        cp_async16(xs + swz(r0 + (uint)l * (NTHREADS / GCPR), c, CPR, S) * VW, v_ ? X + gl_ : X,   \
                   (uint)v_ * ESIZE);                                                              \
    }
/* Whole slice p of K into the stage of loop slice j. */
#define LOAD_FULL_SLICE(j, p)                                                                      \
    do {                                                                                           \
        SLICE_STAGE(j)                                                                             \
        const ulong ga_ = a_g0 + (ulong)(p)*A_KSTEP, gb_ = b_g0 + (ulong)(p)*B_KSTEP;              \
        LOAD_FULL_ONE(A, as, A_PER_T, A_GCPR, A_CPR, A_S, a_r0, a_c, ga_, lda, A_FULL_VALID)       \
        LOAD_FULL_ONE(B, bs, B_PER_T, B_GCPR, B_CPR, B_S, b_r0, b_c, gb_, ldb, B_FULL_VALID)       \
    } while (0)
/* The cut slice (K's last, nk - 1) into the stage of loop slice 0. */
#define LOAD_CUT_SLICE()                                                                           \
    do {                                                                                           \
        const int k0 = kbeg + (nk - 1) * KWG;                                                      \
        SLICE_STAGE(0)                                                                             \
        LOAD_ONE(A, as, A_PER_T, A_CHUNK_COORDS, A_ASYNC, RA_)                                     \
        LOAD_ONE(B, bs, B_PER_T, B_CHUNK_COORDS, B_ASYNC, RB_)                                     \
    } while (0)
    /* Prologue: loop slices 0 .. STAGES-2 in flight. */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nk) {
            if (s == 0 && cut)
                LOAD_CUT_SLICE();
            else
                LOAD_FULL_SLICE(s, s - cut);
        }
        cp_async_commit();
    }

#if F64_FAST
    { /* closed with the other paths' K loops, below */
        /* The fragments' local pointers in stage 0 (those no KEY names go unused). */
        __local const MT *a_fp[KSTEP / 2], *b_fp[KSTEP / 2];
        {
            const uint g = lane >> 2, t = lane & 3;
#pragma unroll
            for (int h = 0; h < KSTEP / 2; h++) {
                const uint m = wm * WM + g + (h & 1) * 8, k = t + (h >> 1) * 4;
                a_fp[h] = As + (TRANSA == 0 ? A_IDX(k, m) : A_IDX(m, k));
            }
#pragma unroll
            for (int h = 0; h < KSTEP / 4; h++)
#pragma unroll
                for (int jp = 0; jp < 2; jp++) {
                    const uint n = wn * WN + jp * 8 + g, k = t + h * 4;
                    b_fp[h * 2 + jp] = Bs + (TRANSB == 0 ? B_IDX(n, k) : B_IDX(k, n));
                }
        }
/* Chunk l's place in stage s (a constant): a local pointer plus an immediate where its rows lie
 * apart as ROWS_APART says, else its own. */
#define F64_DST(xs, STAGE, s, r0, c, l, RS, CPR, S)                                                \
    ((ROWS_APART(RS, CPR, S) ? xs + swz(r0, c, CPR, S) * VW + (l) * (RS)*CPR * VW                  \
                             : xs + swz(r0 + (uint)(l) * (RS), c, CPR, S) * VW) +                  \
     (s) * (STAGE))
#define A_DST(s, l) F64_DST(As, A_STAGE, s, a_r0, a_c, l, NTHREADS / A_GCPR, A_CPR, A_S)
#define B_DST(s, l) F64_DST(Bs, B_STAGE, s, b_r0, b_c, l, NTHREADS / B_GCPR, B_CPR, B_S)
/* The K loop from loop slice kt0 (a multiple of STAGES) on: loop slice kt0 + s in stage s, the
 * next whole slice copied by COPY(stage). F64_STEADY: while every slice of a round exists and
 * every copy has a slice to copy (no test, and no branch around the copies, a slice). */
#define F64_ROUND(COPY, CHECKED)                                                                   \
    _Pragma("unroll") for (int s = 0; s < STAGES; s++) {                                           \
        if (CHECKED && kt0 + s >= nk) break;                                                       \
        CP_ASYNC_WAIT(STAGES - 2);                                                                 \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        if (!CHECKED || kt0 + s + STAGES - 1 < nk) COPY((s + STAGES - 1) % STAGES);                \
        cp_async_commit();                                                                         \
        F64_SLICE(s);                                                                              \
    }
#define F64_STEADY(COPY)                                                                           \
    for (; kt0 + 2 * STAGES - 1 <= nk; kt0 += STAGES) {                                            \
        F64_ROUND(COPY, 0)                                                                         \
    }
#define F64_K_LOOP(COPY)                                                                           \
    for (; kt0 < nk; kt0 += STAGES) {                                                              \
        F64_ROUND(COPY, 1)                                                                         \
    }
        /* The copies from loop slice STAGES - 1 (whole slice p0 = STAGES - 1 - cut) on. A tile
         * inside M and N copies whole chunks only: each operand from one pointer, a step a slice,
         * chunk l at l row steps of the thread's chunks on (ptxas: each chunk's address one 64-bit
         * add from the last; pointers of each chunk's own, stepped each slice, took an add and two
         * register moves a chunk). */
        const ulong p0 = (ulong)(STAGES - 1 - cut);
        int kt0 = 0;
        const ulong a_rstep = (ulong)(NTHREADS / A_GCPR) * (ulong)lda * ESIZE;
        const ulong b_rstep = (ulong)(NTHREADS / B_GCPR) * (ulong)ldb * ESIZE;
        if (m0 + MWG <= M && n0 + NWG <= N) {
            __global const MT *a_src = A + a_g0 + p0 * A_KSTEP, *b_src = B + b_g0 + p0 * B_KSTEP;
#define F64_COPY_INNER(s)                                                                          \
    do {                                                                                           \
        _Pragma("unroll") for (int l = 0; l < A_PER_T; l++)                                        \
            cp_async16(A_DST(s, l), bytes_on(a_src, a_rstep, l), 16u);                             \
        _Pragma("unroll") for (int l = 0; l < B_PER_T; l++)                                        \
            cp_async16(B_DST(s, l), bytes_on(b_src, b_rstep, l), 16u);                             \
        a_src += A_KSTEP;                                                                          \
        b_src += B_KSTEP;                                                                          \
    } while (0)
            F64_STEADY(F64_COPY_INNER)
            F64_K_LOOP(F64_COPY_INNER)
        } else {
            /* Edge tiles: chunk l from a pointer of its own, a step a slice; outside op(A) (op(B))
             * the tile's first chunk's, which stays inside as it steps, read for none of its bytes.
             */
            __global const MT *a_src[A_PER_T], *b_src[B_PER_T];
            uint a_bytes[A_PER_T], b_bytes[B_PER_T];
            const ulong a_t0 = TRANSA == 0 ? (ulong)m0 + (ulong)kbeg * (ulong)lda
                                           : (ulong)kbeg + (ulong)m0 * (ulong)lda;
            const ulong b_t0 = TRANSB == 0 ? (ulong)kbeg + (ulong)n0 * (ulong)ldb
                                           : (ulong)n0 + (ulong)kbeg * (ulong)ldb;
#define F64_PTRS(X, PER_T, GCPR, VALID, g0, t0, KSTEP_, ld, src, bytes)                            \
    _Pragma("unroll") for (int l = 0; l < PER_T; l++) {                                            \
        const int v = VALID(l);                                                                    \
        src[l] = X + p0 * KSTEP_ + (v ? g0 + (ulong)(l * (NTHREADS / GCPR)) * (ulong)ld : t0);     \
        bytes[l] = (uint)v * ESIZE;                                                                \
    }
            F64_PTRS(A, A_PER_T, A_GCPR, A_FULL_VALID, a_g0, a_t0, A_KSTEP, lda, a_src, a_bytes)
            F64_PTRS(B, B_PER_T, B_GCPR, B_FULL_VALID, b_g0, b_t0, B_KSTEP, ldb, b_src, b_bytes)
#define F64_COPY_PTRS(PER_T, DST, s, src, bytes, KSTEP_)                                           \
    _Pragma("unroll") for (int l = 0; l < PER_T; l++) {                                            \
        cp_async16(DST(s, l), src[l], bytes[l]);                                                   \
        src[l] += KSTEP_;                                                                          \
    }
#define F64_COPY_EDGE(s)                                                                           \
    do {                                                                                           \
        F64_COPY_PTRS(A_PER_T, A_DST, s, a_src, a_bytes, A_KSTEP)                                  \
        F64_COPY_PTRS(B_PER_T, B_DST, s, b_src, b_bytes, B_KSTEP)                                  \
    } while (0)
            F64_K_LOOP(F64_COPY_EDGE)
        }
#else
    for (int kt = 0; kt < nk; kt++) {
        CP_ASYNC_WAIT(STAGES - 2);
        barrier(CLK_LOCAL_MEM_FENCE);
        const int kn = kt + STAGES - 1;
        if (kn < nk) LOAD_FULL_SLICE(kn, kn - cut);
        cp_async_commit();
#endif
#else
    /* Prologue: slices 0 .. STAGES-2 in flight. */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nk) {
            LOAD_SLICE(s);
            STORE_SLICE(s);
        }
        cp_async_commit();
    }

    for (int kt = 0; kt < nk; kt++) {
        CP_ASYNC_WAIT(STAGES - 2);
        barrier(CLK_LOCAL_MEM_FENCE);
        const int kn = kt + STAGES - 1;
        if (kn < nk) LOAD_SLICE(kn);
        cp_async_commit();
#endif

#if !F64_FAST
        __local const MT *as = As + (kt % STAGES) * A_STAGE;
        __local const MT *bs = Bs + (kt % STAGES) * B_STAGE;

        MMA_SLICE;

#if !A_ASYNC || !B_ASYNC
        if (kn < nk) STORE_SLICE(kn);
#endif
#endif
    }
    CP_ASYNC_WAIT(0);

    /* Epilogue: accumulator e of tile (i, j) at (ACC_ROW, ACC_COL) of the work-group tile. */
    const uint g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < MTILES; i++)
#pragma unroll
        for (int j = 0; j < NTILES; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int m = m0 + (int)ACC_ROW(i, e);
                const int n = n0 + (int)ACC_COL(j, e);
                C_UPDATE(m, n, acc[i][j][e])
            }
    DIAG_RESIDENCY_END(m0, n0)
}
