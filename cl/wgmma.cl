/* wgmma.cl: GEMM on Hopper's warpgroup tensor-core instruction (wgmma.mma_async, PTX sm_90a)
 * with both operands read by the tensor cores straight from local memory. OpenCL C compiles
 * for sm_90, where wgmma is refused, so every sm_90a instruction sits behind a "// @" PTX
 * comment marker: the program layer builds this source, patches the PTX (target sm_90a, markers
 * removed: the program layer's ptx_patch.c) and rebuilds it from that binary. Only NVIDIA devices
 * of compute capability exactly 9.0 may build it.
 *
 * Problem (column-major, like every clgemm kernel, common.cl): C is M x N, op(A) M x K, op(B)
 * K x N, C = alpha*op(A)op(B) + beta*C; when beta == 0, C is never read. Any M, N, K >= 1, any
 * offsets and ld >= the minimum; batches and split-K layers as in mma.cl.
 *
 * Build options:
 *   WG_TYPE   0 FP16 storage (ushort bits), 1 BF16, FP32 accumulation (wgmma k16);
 *             2 TF32: FP32 storage, FP32 accumulation (wgmma k8; inputs keep their top 19 bits
 *             on the asynchronous path, rounded to nearest on the register path).
 *   C_INPUT   types 0/1: 1 = C holds the input type (FP16/BF16 bits), 0 = C is float.
 *   TRANSA, TRANSB, ALIGNED_A, ALIGNED_B: as in mma.cl (ALIGNED: offset and ld keep 16-byte
 *             chunks, so tiles are copied by cp.async; else loaded element by element).
 *   MWG, NWG  work-group tile of C; KWG depth of one K slice in local memory;
 *   WM, WN    warpgroup tile: WM 64 or 128 rows (one or two m64 instructions), WN 64, 128 or
 *             256 columns (the instruction's N);  STAGES  local-memory slices (STAGES-1
 *             slices load while one is multiplied; with WAIT0=0, STAGES-2 while the previous
 *             one's wgmma drains too).
 *   GROUP_M   tiles are visited in bands of GROUP_M tile rows, so the work-groups running at
 *             once share panels of A and B in L2 (1: plain order).
 *
 * What bounds it (H200, FP16 8192^2, docs/TENSOR_CORES.md): the products alone (DIAG_NO_LOAD)
 * run at ~850 TFLOPS; the copies are the limit. Nsight Compute: the L2's request rate (92 % of
 * its peak with one 32-byte sector per request, sectors 32 %), not its bytes, capped them at
 * 4.4 TB/s; MN_SW128 brings 1.6 sectors per request (128 x 128 tiles: 279 -> 372 TFLOPS), and
 * WAIT0 a third slice in flight where one work-group fills an SM (128 x 256: 280 -> 355).
 *
 * Local memory: slices one 32-byte swizzle atom deep (KWG * esize = 32, the defaults) use the
 * instruction's 32-byte swizzle (SW32 below); others the interleaved (unswizzled) layout of
 * 8 x 16-byte core matrices, 128 contiguous bytes each, the core matrices along K adjacent
 * (LBO = 128), 8-row groups one after the other (SBO = 128 * KWG / VW), where 16-byte chunk q of
 * a slice lands at byte 16 q. K-major (k contiguous in global memory: A with TRANSA=1, B
 * with TRANSB=0): chunk q holds row 8 (q / (8 KWG/VW)) + q % 8, elements VW ((q / 8) % (KWG/VW))
 * onwards. MN-major (FP16/BF16, the other transposes; the instruction's transpose bit): chunk q
 * holds k = 8 ((q / 8) % (KWG/8)) + q % 8, rows 8 (q / KWG) onwards. TF32 has no transpose bit:
 * its MN-major operands are loaded element by element and stored K-major (transposed on the way).
 *
 * Legality (the family's check): MWG % WM == 0, NWG % WN == 0, threads T = 128 (MWG/WM)(NWG/WN)
 * <= 1024; KWG a multiple of 16 (FP16/BF16) or 8 (TF32); the chunks of one slice of A and of
 * B (MWG KWG / VW, NWG KWG / VW) positive multiples of T; STAGES (MWG + NWG) KWG esize <= 48 KiB.
 * Launch: local size (T, 1), global size (ceil(M/MWG) T, ceil(N/NWG)). */
#ifndef MWG
#define MWG 128
#endif
#ifndef NWG
#define NWG 256
#endif
#ifndef KWG
#define KWG 16
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 256
#endif
#ifndef STAGES
#define STAGES 4
#endif
/* Diagnostic only: which descriptor field carries the MN-direction stride of MN-major operands
 * (0: SBO, as for K-major, the right one; 1: LBO). */
#ifndef MN_SWAP
#define MN_SWAP 0
#endif
/* MN-major copies: 0 = chunk q at byte 16 q (a warp reads 16 rows of k, 32 bytes each); 4 or 8 =
 * a warp reads 32/MN_RC rows of k, MN_RC chunks (16 MN_RC bytes) each, its 8-thread store phases
 * spanning 8 (MN_RC 4) or 4 (MN_RC 8, two-way bank conflicts) values of k. */
#ifndef MN_RC
#define MN_RC 0
#endif
/* MN-major copies under the 32-byte swizzle: a warp's 32 chunks are MN_RUN chunks along the rows
 * (16 MN_RUN bytes of one k) for 32 / MN_RUN values of k, so that one cp.async instruction asks
 * the L2 for 32 / MN_RUN whole lines (MN_RUN 8: 4 requests of 128 bytes). 0: 2 chunks for 16
 * values of k, 16 requests of 32 bytes; the L2's request rate, not its bytes, bounds these
 * copies (docs/TENSOR_CORES.md). MN_RUN must divide MWG/8 and NWG/8 (it does: both >= 64). */
#ifndef MN_RUN
#define MN_RUN 8
#endif
/* 1: under SW32, MN-major operands use the instruction's 128-byte swizzle instead (atoms of 64
 * rows x 8 k, one 128-byte row of local memory per k, its 16-byte chunks XOR-ed with k % 8), so
 * the 128 bytes of one global line land in one 128-byte row of local memory. With the 32-byte
 * swizzle they land in four, and the L2 then sees one request per 32-byte sector whatever the
 * copy mapping (Nsight Compute, docs/TENSOR_CORES.md). Element (r, k) at byte
 * (k/8) SBO + (r/64) 1024 + (k%8) 128 + (((r%64)/8) ^ (k%8)) 16 + (r%8) esize, SBO =
 * 1024 ROWS/64, LBO = 1024 (the next 64 rows). */
#ifndef MN_SW128
#define MN_SW128 1
#endif
/* 1: slices one swizzle atom deep (KWG * esize = 32 bytes) use the instruction's 32-byte swizzle
 * instead of the interleaved layout, so that the two 16-byte halves of every 32-byte sector a
 * copy brings in land in different banks (interleaved, they are 128 bytes apart: the same
 * banks). K-major: element (r, k) at (r/8) 256 + (r%8) 32 + ((k/VW) ^ ((r%8)/4)) 16 + (k%VW) esize,
 * SBO 256. MN-major: 16 rows by 8 k per 256-byte atom, atoms along the rows (LBO 256), groups of
 * 8 k ROWS/16 atoms apart (SBO). */
#ifndef SW32
#define SW32 1
#endif
#define SW32_  (SW32 && KWG * ESIZE == 32)
#define MN128_ (SW32_ && MN_SW128)
/* 1: the products of slice kt finish within iteration kt (wgmma wait 0), so STAGES-1 slices load
 * ahead instead of STAGES-2. The default for FP16/BF16: with one work-group per SM (the 128 x 256
 * tile's 168 registers), the copies need the third slice in flight more than the products need
 * to drain behind the next slice (H200, FP16 8192^2: 355 against 280 TFLOPS; 128 x 128 tiles,
 * two work-groups per SM, no change). TF32 keeps 0: not measured (docs/TENSOR_CORES.md). */
#ifndef WAIT0
#define WAIT0 (WG_TYPE <= 1)
#endif
#define WAIT0_ (WAIT0 || STAGES < 3) /* two stages: always */
/* Diagnostics only, never for results: 1 = no copies after the prologue (products of stale
 * local memory), 1 = no products. Their times bound the copies' and the products' shares. */
#ifndef DIAG_NO_LOAD
#define DIAG_NO_LOAD 0
#endif
#ifndef DIAG_NO_MMA
#define DIAG_NO_MMA 0
#endif
/* 1 = no proxy fence between a slice's copies and its products (results may be wrong): whether
 * fence.proxy.async waits for the copies of the slices still loading ahead, which would leave
 * one slice in flight whatever STAGES is (docs/TENSOR_CORES.md). */
#ifndef DIAG_NO_PROXY_FENCE
#define DIAG_NO_PROXY_FENCE 0
#endif

#if WG_TYPE <= 1
#define MT    ushort
#define CT    C_16BIT_T
#define ESIZE 2
#define KSTEP 16
#else
#define MT    float
#define CT    float
#define ESIZE 4
#define KSTEP 8
#endif

#define VW       (16 / ESIZE)
#define NTHREADS (128 * (MWG / WM) * (NWG / WN))
#define MBLK     (WM / 64) /* m64 instructions per warpgroup and k step */
#define NACC     (WN / 2)  /* accumulators per thread and m64 block */

/* Which operands are MN-major in local memory (FP16/BF16 only; TF32 transposes on load). */
#define A_KMAJOR (TRANSA == 1)
#define B_KMAJOR (TRANSB == 0)
#if WG_TYPE <= 1
#define A_MN (!A_KMAJOR)
#define B_MN (!B_KMAJOR)
#else
#define A_MN 0
#define B_MN 0
#endif
/* Operands loaded element by element: unaligned ones, and TF32's MN-major ones. */
#define A_REG (!ALIGNED_A || (WG_TYPE == 2 && !A_KMAJOR))
#define B_REG (!ALIGNED_B || (WG_TYPE == 2 && !B_KMAJOR))

/* The instruction's transpose immediates (its shape and types: WG_SHAPE, ptx.cl). */
#if WG_TYPE == 2
#define WGMMA_TAIL ""
#elif A_MN && B_MN
#define WGMMA_TAIL ", 1, 1"
#elif A_MN
#define WGMMA_TAIL ", 1, 0"
#elif B_MN
#define WGMMA_TAIL ", 0, 1"
#else
#define WGMMA_TAIL ", 0, 0"
#endif

#define A_STAGE  (MWG * KWG) /* elements per stage */
#define B_STAGE  (NWG * KWG)
#define A_CHUNKS (MWG * KWG / VW)
#define B_CHUNKS (NWG * KWG / VW)
#define A_PER_T  (A_CHUNKS / NTHREADS)
#define B_PER_T  (B_CHUNKS / NTHREADS)
#define SBO_K    (128 * (KWG / VW)) /* bytes of one 8-row group, K-major */
#define SBO_MN   (128 * (KWG / 8))  /* ... MN-major (8 k of 16 bytes per core matrix) */

/* Generic-proxy writes to local memory (cp.async, stores) become visible to the tensor cores'
 * asynchronous proxy: every writing thread, before the barrier. */
#if DIAG_NO_PROXY_FENCE
#define FENCE_PROXY() (void)0
#else
#define FENCE_PROXY() asm volatile("// @fence.proxy.async.shared::cta;\n" ::: "memory")
#endif
#define WG_FENCE()  asm volatile("// @wgmma.fence.sync.aligned;\n" ::: "memory")
#define WG_COMMIT() asm volatile("// @wgmma.commit_group.sync.aligned;\n" ::: "memory")
#define WG_WAIT(n)  asm volatile("// @wgmma.wait_group.sync.aligned %0;\n" ::"n"(n) : "memory")

/* A matrix descriptor (wgmma_desc, ptx.cl) in the 32-byte swizzle or none. */
#define desc(addr, lbo, sbo) wgmma_desc((addr), (lbo), (sbo), SW32_ ? 3ul : 0ul)
#if MN128_
#define MN_DESC(addr, ROWS) wgmma_desc((addr), 1024, 1024 * ((ROWS) / 64), 1ul)
#define MN_GROUP            128 /* bytes of 8 rows (a 64-row atom is 1024) */
#elif SW32_
#define MN_DESC(addr, ROWS) desc((addr), 256, 256 * ((ROWS) / 16))
#define MN_GROUP            128 /* bytes of 8 rows */
#else
#define MN_DESC(addr, ROWS) desc((addr), MN_SWAP ? SBO_MN : 128, MN_SWAP ? 128 : SBO_MN)
#define MN_GROUP            SBO_MN
#endif
#if A_MN
#define A_DESC(addr) MN_DESC(addr, MWG)
#define A_GROUP      MN_GROUP
#else
#define A_DESC(addr) desc((addr), 128, SBO_K)
#define A_GROUP      SBO_K
#endif
#if B_MN
#define B_DESC(addr) MN_DESC(addr, NWG)
#define B_GROUP      MN_GROUP
#else
#define B_DESC(addr) desc((addr), 128, SBO_K)
#define B_GROUP      SBO_K
#endif

#if WG_TYPE == 2
/* FP32 -> TF32, round to nearest (ties away) on the register path: + half a TF32 ulp to the
 * bits of finite values (the instruction reads the top 19 bits). */
DEV float to_tf32(const float x) {
    return fabs(x) < INFINITY ? as_float(as_uint(x) + 0x1000u) : x;
}
#else
#define to_tf32(x) (x)
#endif

/* The instruction, N = WN; its accumulators d[x*4 + i*2 + j] hold row 16 warp + lane/4 + 8 i,
 * column 8 x + 2 (lane % 4) + j of the warpgroup's 64 x WN block. */
#define WGMMA(d, da, db)                                                                           \
    asm volatile(                                                                                  \
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n// @wgmma.mma_async.sync.aligned.m64n" WG_NSTR(   \
            WN) WG_SHAPE " {" WG_ACCS(WN) "}, " WG_DESCS(WN) ", p, 1, 1" WGMMA_TAIL ";\n}\n"       \
        : WG_ACC(WN, "+f", d)                                                                      \
        : "l"(da), "l"(db)                                                                         \
        : "memory")

/* Chunk q of a slice: where its elements start in op(X) (row of the M or N side, k) and how
 * many of its VW elements lie inside (0..VW: the rest are zero-filled). K-major chunks run
 * along k, MN-major ones along the rows. */
#define KMAJOR_COORDS(q, r, k)                                                                     \
    const uint r = (q) / (8 * (KWG / VW)) * 8 + (q) % 8, k = ((q) / 8) % (KWG / VW) * VW;
#if MN_RC == 0 || SW32_
#if SW32_ && MN_RUN
#define MN_COORDS(q, r, k)                                                                         \
    const uint k = (q) / MN_RUN % KWG, r = ((q) / (MN_RUN * KWG) * MN_RUN + (q) % MN_RUN) * 8;
#else
#define MN_COORDS(q, r, k) const uint k = ((q) / 8) % (KWG / 8) * 8 + (q) % 8, r = (q) / KWG * 8;
#endif
#if MN128_
#define MN_LOCAL_R(q, r, k, ROWS)                                                                  \
    (((k) / 8 * (1024 * ((ROWS) / 64)) + (r) / 64 * 1024 + (k) % 8 * 128 +                         \
      (((((r) % 64) / 8) ^ ((k) % 8)) & 7) * 16) /                                                 \
     ESIZE)
#elif SW32_
#define MN_LOCAL_R(q, r, k, ROWS)                                                                  \
    (((r) / 16 * 256 + (k) / 8 * (256 * ((ROWS) / 16)) + (k) % 8 * 32 +                            \
      ((((r) / 8) ^ ((k) % 8 / 4)) & 1) * 16) /                                                    \
     ESIZE)
#else
#define MN_LOCAL_R(q, r, k, ROWS) ((q)*VW)
#endif
#else
#define MN_KW (32 / MN_RC) /* values of k one warp reads */
#define MN_COORDS(q, r, k)                                                                         \
    const uint k = ((q) / 32) % (KWG / MN_KW) * MN_KW + (q) % MN_KW,                               \
               r = ((q) / (32 * (KWG / MN_KW)) * MN_RC + ((q) / MN_KW) % MN_RC) * 8;
/* Element offset of the chunk of rows r.., k in the MN-major layout. */
#define MN_LOCAL_R(q, r, k, ROWS) (((r) / 8 * SBO_MN + (k) / 8 * 128 + (k) % 8 * 16) / ESIZE)
#endif
/* Element offset of K-major chunk q (row r, first element k). */
#if SW32_
#define K_LOCAL(q, r, k)                                                                           \
    (((r) / 8 * 256 + (r) % 8 * 32 + ((((k) / VW) ^ ((r) % 8 / 4)) & 1) * 16) / ESIZE)
#else
#define K_LOCAL(q, r, k) ((q)*VW)
#endif
/* TF32's MN-major operands: chunk q holds k = q % KWG, rows VW (q / KWG) onwards, and each
 * element goes to its K-major place. */
#define TMN_COORDS(q, r, k) const uint k = (q) % KWG, r = (q) / KWG * VW;
/* Byte of element (r, k) in a K-major slice. */
#if SW32_
#define KMAJOR_BYTE(r, k)                                                                          \
    ((r) / 8 * 256 + (r) % 8 * 32 + ((((k) / VW) ^ ((r) % 8 / 4)) & 1) * 16 + (k) % VW * ESIZE)
#else
#define KMAJOR_BYTE(r, k) ((r) / 8 * SBO_K + (k) / VW * 128 + (r) % 8 * 16 + (k) % VW * ESIZE)
#endif

__attribute__((reqd_work_group_size(NTHREADS, 1, 1))) __kernel void clgemm_wgmma(GEMM_ARGS) {
    SLICE_STAGES(1024)
    DIAG_RESIDENCY_START
    const uint tid = get_local_id(0);
    const uint lane = tid & 31u, warp = (tid >> 5) & 3u, wg = tid >> 7;
    const uint wgm = wg % (MWG / WM), wgn = wg / (MWG / WM);
    TILE_IN_BANDS(m0, n0)
    /* The batch and split-K layer (common.cl: z = batch * layers + layer): A, B, C moved to this
     * work-group's matrix, alpha, beta, `layer` and its K slices kbeg .. kend, nk of them (ptx.cl)
     * defined. REAL is float for every type here. */
    GEMM_BEGIN_LAYER

    float acc[MBLK][NACC];
#pragma unroll
    for (int i = 0; i < MBLK; i++)
#pragma unroll
        for (int e = 0; e < NACC; e++)
            acc[i][e] = 0;
#if A_REG
    MT ra[A_PER_T][VW];
#endif
#if B_REG
    MT rb[B_PER_T][VW];
#endif

    /* Slice kt's copies: cp.async for aligned operands, loads into registers otherwise. */
#define A_GLOBAL(gm, gk)                                                                           \
    (TRANSA == 0 ? (ulong)(gm) + (ulong)(gk) * (ulong)lda : (ulong)(gk) + (ulong)(gm) * (ulong)lda)
#define B_GLOBAL(gn, gk)                                                                           \
    (TRANSB == 0 ? (ulong)(gk) + (ulong)(gn) * (ulong)ldb : (ulong)(gn) + (ulong)(gk) * (ulong)ldb)
/* The copies of one operand X (rows x0.. of op(X), RMAX of them; ROWS a tile) into xs; RX(l, e)
 * is the register element e of chunk l on the element-wise path. */
#define LOAD_ONE(X, X_GLOBAL, xs, PER_T, x0, RMAX, ROWS, KMAJ, MN, REG, RX)                        \
    _Pragma("unroll") for (int l = 0; l < PER_T; l++) {                                            \
        const uint q = tid + l * NTHREADS;                                                         \
        if ((REG) && WG_TYPE == 2 && !(KMAJ)) {                                                    \
            TMN_COORDS(q, r, k)                                                                    \
            const int gr = (x0) + (int)r, gk = k0 + (int)k;                                        \
            _Pragma("unroll") for (int e = 0; e < VW; e++) RX(l, e) =                              \
                gk < kend && gr + e < (RMAX) ? X[X_GLOBAL(gr + e, gk)] : (MT)0;                    \
        } else if (MN) {                                                                           \
            MN_COORDS(q, r, k)                                                                     \
            const int gr = (x0) + (int)r, gk = k0 + (int)k;                                        \
            const int valid = gk < kend ? clamp((RMAX)-gr, 0, VW) : 0;                             \
            const ulong g = X_GLOBAL(gr, gk);                                                      \
            if (!(REG))                                                                            \
                cp_async16(xs + MN_LOCAL_R(q, r, k, ROWS), valid ? X + g : X,                      \
                           (uint)valid * ESIZE);                                                   \
            else                                                                                   \
                _Pragma("unroll") for (int e = 0; e < VW; e++) RX(l, e) =                          \
                    e < valid ? X[g + e] : (MT)0;                                                  \
        } else {                                                                                   \
            KMAJOR_COORDS(q, r, k)                                                                 \
            const int gr = (x0) + (int)r, gk = k0 + (int)k;                                        \
            const int valid = gr < (RMAX) ? clamp(kend - gk, 0, VW) : 0;                           \
            const ulong g = X_GLOBAL(gr, gk);                                                      \
            if (!(REG))                                                                            \
                cp_async16(xs + K_LOCAL(q, r, k), valid ? X + g : X, (uint)valid * ESIZE);         \
            else                                                                                   \
                _Pragma("unroll") for (int e = 0; e < VW; e++) RX(l, e) =                          \
                    e < valid ? X[g + e] : (MT)0;                                                  \
        }                                                                                          \
    }
#define LOAD_SLICE(kt)                                                                             \
    do {                                                                                           \
        const int k0 = kbeg + (kt)*KWG;                                                            \
        SLICE_STAGE(kt)                                                                            \
        LOAD_ONE(A, A_GLOBAL, as, A_PER_T, m0, M, MWG, A_KMAJOR, A_MN, A_REG, RA_)                 \
        LOAD_ONE(B, B_GLOBAL, bs, B_PER_T, n0, N, NWG, B_KMAJOR, B_MN, B_REG, RB_)                 \
    } while (0)
    /* Register-loaded slice kt into local memory: whole chunks at byte 16 q, or (TF32's
     * MN-major operands) element by element at their K-major places. */
#define STORE_ONE(X, xs, rx, PER_T, TMN, MN, ROWS)                                                 \
    _Pragma("unroll") for (int l = 0; l < PER_T; l++) {                                            \
        const uint q = tid + l * NTHREADS;                                                         \
        if (TMN) {                                                                                 \
            TMN_COORDS(q, r, k)                                                                    \
            _Pragma("unroll") for (int e = 0; e < VW; e++) *                                       \
                (__local MT *)((__local uchar *)xs + KMAJOR_BYTE(r + e, k)) = to_tf32(rx[l][e]);   \
        } else if (MN) {                                                                           \
            MN_COORDS(q, r, k)                                                                     \
            _Pragma("unroll") for (int e = 0; e < VW; e++) xs[MN_LOCAL_R(q, r, k, ROWS) + e] =     \
                rx[l][e];                                                                          \
        } else {                                                                                   \
            KMAJOR_COORDS(q, r, k)                                                                 \
            _Pragma("unroll") for (int e = 0; e < VW; e++) xs[K_LOCAL(q, r, k) + e] =              \
                to_tf32(rx[l][e]);                                                                 \
        }                                                                                          \
    }
#define STORE_SLICE(kt)                                                                            \
    do {                                                                                           \
        SLICE_STAGE(kt)                                                                            \
        STORE_A(as);                                                                               \
        STORE_B(bs);                                                                               \
    } while (0)
#if A_REG
#define RA_(l, e)   ra[l][e]
#define STORE_A(as) STORE_ONE(A, as, ra, A_PER_T, (WG_TYPE == 2 && !A_KMAJOR), A_MN, MWG)
#else
#define RA_(l, e)   dummy_
#define STORE_A(as) (void)0
#endif
#if B_REG
#define RB_(l, e)   rb[l][e]
#define STORE_B(bs) STORE_ONE(B, bs, rb, B_PER_T, (WG_TYPE == 2 && !B_KMAJOR), B_MN, NWG)
#else
#define RB_(l, e)   dummy_
#define STORE_B(bs) (void)0
#endif
    MT dummy_;
    (void)dummy_;

    /* Slices loading ahead of the one multiplied: STAGES-2 while the previous slice's products
     * drain (the buffer of slice kt-2 is the one free), STAGES-1 with WAIT0. */
#define AHEAD (WAIT0_ ? STAGES - 1 : STAGES - 2)
    /* Prologue: slices 0 .. AHEAD-1 on their way. */
#pragma unroll
    for (int s = 0; s < AHEAD; s++) {
        if (s < nk) {
            LOAD_SLICE(s);
            STORE_SLICE(s);
        }
        cp_async_commit();
    }
    const uint a_base = local_addr(As) + (wgm * WM / 8) * A_GROUP;
    const uint b_base = local_addr(Bs) + (wgn * WN / 8) * B_GROUP;
    for (int kt = 0; kt < nk; kt++) {
        /* Slice kt has landed here; after the barrier, everywhere, and every warpgroup's
         * products of slice kt-2 (kt-1 with WAIT0) are done, so its buffer takes slice
         * kt + AHEAD. */
        CP_ASYNC_WAIT(AHEAD - 1);
        FENCE_PROXY();
        barrier(CLK_LOCAL_MEM_FENCE);
        const int kn = DIAG_NO_LOAD ? nk : kt + AHEAD;
        if (kn < nk) LOAD_SLICE(kn);
        cp_async_commit();
        const uint sa = a_base + (uint)(kt % STAGES) * (A_STAGE * ESIZE);
        const uint sb = b_base + (uint)(kt % STAGES) * (B_STAGE * ESIZE);
        WG_FENCE();
#pragma unroll
        for (int ks = 0; ks < KWG / KSTEP; ks++) {
            /* one k step is KSTEP * ESIZE = 32 bytes = two core matrices along K */
            const ulong db = B_DESC(sb + ks * 256);
#pragma unroll
            for (int i = 0; i < MBLK; i++) {
                const ulong da = A_DESC(sa + i * 8 * A_GROUP + ks * 256);
                if (!DIAG_NO_MMA) WGMMA(acc[i], da, db);
            }
        }
        WG_COMMIT();
        WG_WAIT(WAIT0_ ? 0 : 1);
#if A_REG || B_REG
        if (kn < nk) STORE_SLICE(kn);
#endif
    }
    WG_WAIT(0);
    CP_ASYNC_WAIT(0);

    /* Epilogue: accumulator x*4 + h*2 + j of block i at row 64 i + 16 warp + lane/4 + 8 h,
     * column 8 x + 2 (lane % 4) + j of the warpgroup's tile. */
#pragma unroll
    for (int i = 0; i < MBLK; i++)
#pragma unroll
        for (int e = 0; e < NACC; e++) {
            const int x = e / 4, h = (e / 2) & 1, j = e & 1;
            const int m = m0 + (int)(wgm * WM) + 64 * i + (int)(16 * warp + lane / 4) + 8 * h;
            const int n = n0 + (int)(wgn * WN) + 8 * x + (int)(2 * (lane % 4)) + j;
            C_UPDATE(m, n, acc[i][e])
        }
    DIAG_RESIDENCY_END(m0, n0)
}
