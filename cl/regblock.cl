/* regblock.cl: register-blocked GEMM. A work-group computes an MWG x NWG tile of C; for each
 * KWG-deep slice of K it stages op(A) (MWG x KWG) and op(B) (KWG x NWG) in local memory, and
 * each of its MDIMC x NDIMC work-items accumulates an MWI x NWI block of C in registers
 * (MWI = MWG / MDIMC, NWI = NWG / NDIMC). A value read from local memory then serves MWI or NWI
 * multiply-adds, and one read from global memory serves MWG or NWG of them.
 *
 * Layout: local rows are indexed by k, so a work-item reads its MWI values of A (NWI of B) as
 * vectors of VWM (VWN) elements. A work-item owns rows (tm + MDIMC * v) * VWM + e of the tile:
 * neighbouring work-items read neighbouring vectors (no bank conflicts) and write neighbouring
 * elements of C (coalesced). Every parameter is a power of two (the host checks).
 *
 * Latency: the next slice is read from global memory into registers before the current one is
 * multiplied, so global latency hides behind a whole slice of arithmetic even at one
 * work-group per compute unit.
 *
 * Local buffers (STAGES): with one (1, the default), each slice waits at two barriers, one
 * before it is multiplied (its stores are in place) and one after (no one still reads it when the
 * next is stored). With two, the slice in registers is stored into the other buffer right after
 * this one is multiplied, and one barrier per slice serves both purposes. The arrays are static
 * and sized by the parameters, so on a device whose static __local arrays may exceed OpenCL's
 * figure (the H200's 227 KiB) both buffers of 64-deep slices fit. */
#ifndef MWG
#define MWG 64
#endif
#ifndef NWG
#define NWG 64
#endif
#ifndef KWG
#define KWG 16
#endif
#ifndef MDIMC
#define MDIMC 16
#endif
#ifndef NDIMC
#define NDIMC 16
#endif
#ifndef KWI
#define KWI 2
#endif
#ifndef VWM
#define VWM 2
#endif
#ifndef VWN
#define VWN 2
#endif
#ifndef STAGES
#define STAGES 1
#endif
/* The local buffers: two for STAGES 2, else one (0 is 1, as in older configurations). */
#if STAGES == 2
#define NBUF 2
#else
#define NBUF 1
#endif

#define MWI  (MWG / MDIMC)
#define NWI  (NWG / NDIMC)
#define MWIV (MWI / VWM)
#define NWIV (NWI / VWN)
#define WGS  (MDIMC * NDIMC)

/* Local rows are padded by one vector: rows stay aligned for vector reads, and the stores of a
 * source that is contiguous along k (see the loads) fall into distinct banks. */
#define ASTRIDE (MWG + VWM)
#define BSTRIDE (NWG + VWN)

/* How many work-items in a row walk along k when the source is contiguous along k: 32 / VW of
 * them read one 32-byte sector and, with the padding above, store into 32 distinct banks. */
#define APL ((32 / VWM) < KWG ? (32 / VWM) : KWG)
#define BPL ((32 / VWN) < KWG ? (32 / VWN) : KWG)

/* A vector of VWM (VWN) elements: VWM * NCOMP scalars, since a complex element is two. */
#define VWM_SCALARS (VWM * NCOMP)
#define VWN_SCALARS (VWN * NCOMP)
#if VWM_SCALARS == 1
#define realM VEC1
#elif VWM_SCALARS == 2
#define realM VEC2
#elif VWM_SCALARS == 4
#define realM VEC4
#elif VWM_SCALARS == 8
#define realM VEC8
#else
#define realM VEC16
#endif
#if VWN_SCALARS == 1
#define realN VEC1
#elif VWN_SCALARS == 2
#define realN VEC2
#elif VWN_SCALARS == 4
#define realN VEC4
#elif VWN_SCALARS == 8
#define realN VEC8
#else
#define realN VEC16
#endif

/* Vector and element views of one register vector (the unrolled loops index it by constants). */
typedef union {
    realM v;
    REAL s[VWM];
} unionM;
typedef union {
    realN v;
    REAL s[VWN];
} unionN;

/* Where work-item `tid` reads in round r: (x, p) of the tile, x along M (A) or N (B).
 * Consecutive work-items read consecutive addresses in whichever direction the source is
 * contiguous. */
#define ALOADS (MWG * KWG / WGS)
#define BLOADS (NWG * KWG / WGS)
/* The parts a slice is loaded in: with two buffers one per KWI-deep step (the host's rules make
 * each a whole number of rounds), else the whole slice at once. */
#if NBUF == 2
#define NPART (KWG / KWI)
#else
#define NPART 1
#endif
#define APART (ALOADS / NPART)
#define BPART (BLOADS / NPART)
#if TRANSA == 0
#define A_X(idx) ((idx) % MWG)
#define A_P(idx) ((idx) / MWG)
#else
#define A_X(idx) (((idx) / APL) % MWG)
#define A_P(idx) ((idx) % APL + ((idx) / (APL * MWG)) * APL)
#endif
#if TRANSB == 1
#define B_X(idx) ((idx) % NWG)
#define B_P(idx) ((idx) / NWG)
#else
#define B_X(idx) (((idx) / BPL) % NWG)
#define B_P(idx) ((idx) % BPL + ((idx) / (BPL * NWG)) * BPL)
#endif

/* Vector loads (VLOAD 2, an optional parameter; FP32 and FP64, whose A and B are stored as
 * REAL): inside the matrices a work-item reads VLEN consecutive elements of an operand with one
 * 16-byte load where the host says the operand's offset, leading dimension and batch stride keep
 * such vectors aligned (ALIGNED_A, ALIGNED_B). Element r of ra then is element r % VLEN of the
 * work-item's vector r / VLEN: the tile positions A_X, A_P (B_X, B_P) of consecutive indices
 * idx are consecutive along the contiguous direction (the host's rules make APL and BPL
 * multiples of VLEN), so the stores below put each element where the element loads would. On the
 * H200 the FP32 default's scalar loads and their 64-bit address arithmetic were most of the 14 % of
 * its instructions that were not FFMA, and it issued in 80 % of its cycles. */
#ifndef VLOAD
#define VLOAD 0
#endif
#if VLOAD == 2 && (TYPE_AB == TYPE_F32 || TYPE_AB == TYPE_F64)
#define VEC_A ALIGNED_A
#define VEC_B ALIGNED_B
#else
#define VEC_A 0
#define VEC_B 0
#endif
#if TYPE_AB == TYPE_F64
#define VLEN  2
#define REALV VEC2
#else
#define VLEN  4
#define REALV VEC4
#endif
#define VLOAD_VLEN  CLGEMM_CAT(vload, VLEN)
#define VSTORE_VLEN CLGEMM_CAT(vstore, VLEN)
/* The index idx of element r of ra (rb) of this work-item. */
#define A_IDX(r) (VEC_A ? (tid + (r) / VLEN * WGS) * VLEN + (r) % VLEN : tid + (r)*WGS)
#define B_IDX(r) (VEC_B ? (tid + (r) / VLEN * WGS) * VLEN + (r) % VLEN : tid + (r)*WGS)
/* Where element (x, p) of the operand's tile lies in global memory (A and B moved to the
 * matrix), as A_AT and B_AT read it, in type T (A_OFF, B_OFF: ulong); the inside path's read of
 * element r of ra (rb) at idx, and the step from one read to the next. */
#if TRANSA == 0
#define A_OFF_T(x, p, T) ((x) + (T)(p)*lda)
#define A_ADDR(x, p)     (A + (x) + (ulong)(p)*lda)
#else
#define A_OFF_T(x, p, T) ((p) + (T)(x)*lda)
#define A_ADDR(x, p)     (A + (p) + (ulong)(x)*lda)
#endif
#if TRANSB == 0
#define B_OFF_T(p, x, T) ((p) + (T)(x)*ldb)
#define B_ADDR(p, x)     (B + (p) + (ulong)(x)*ldb)
#else
#define B_OFF_T(p, x, T) ((x) + (T)(p)*ldb)
#define B_ADDR(p, x)     (B + (x) + (ulong)(p)*ldb)
#endif
#define A_OFF(x, p) A_OFF_T(x, p, ulong)
#define B_OFF(p, x) B_OFF_T(p, x, ulong)
/* A_LOAD_AT (B_LOAD_AT): element r of ra (rb), or its vector, read at base + off. */
#if VEC_A
#define A_LOAD_AT(r, base, off) VSTORE_VLEN(*(const __global REALV *)((base) + (off)), 0, ra + (r))
#define A_INSIDE(r, idx, p0)    A_LOAD_AT(r, A_ADDR(i0 + A_X(idx), (p0) + A_P(idx)), 0);
#define A_STEP                  VLEN
#else
#define A_LOAD_AT(r, base, off) ra[r] = OPA(LOAD_AB(base, off))
#define A_INSIDE(r, idx, p0)    ra[r] = A_AT(i0 + A_X(idx), (p0) + A_P(idx));
#define A_STEP                  1
#endif
#if VEC_B
#define B_LOAD_AT(r, base, off) VSTORE_VLEN(*(const __global REALV *)((base) + (off)), 0, rb + (r))
#define B_INSIDE(r, idx, p0)    B_LOAD_AT(r, B_ADDR((p0) + B_P(idx), j0 + B_X(idx)), 0);
#define B_STEP                  VLEN
#else
#define B_LOAD_AT(r, base, off) rb[r] = OPB(LOAD_AB(base, off))
#define B_INSIDE(r, idx, p0)    rb[r] = B_AT((p0) + B_P(idx), j0 + B_X(idx));
#define B_STEP                  1
#endif
/* The stores of a vector's elements: where the operand is contiguous along the local rows too
 * (A along M, B along N) and the rows keep vectors aligned, one vector store, since VLEN
 * scalar stores of neighbouring work-items VLEN elements apart would hit the same banks VLEN
 * ways (the H200 ran VLOAD 2 with them 5.5 % slower than without; bench/results/
 * h200-fp64-bands-fp32-vector-loads.log). Along K the scalar stores fall into distinct banks. */
#if VEC_A && TRANSA == 0 && ASTRIDE % VLEN == 0
#define A_STORE_STEP   VLEN
#define A_STORE(at, r) *(__local REALV *)(Als + (at)) = VLOAD_VLEN(0, ra + (r));
#else
#define A_STORE_STEP   1
#define A_STORE(at, r) Als[at] = ra[r];
#endif
#if VEC_B && TRANSB == 1 && BSTRIDE % VLEN == 0
#define B_STORE_STEP   VLEN
#define B_STORE(at, r) *(__local REALV *)(Bls + (at)) = VLOAD_VLEN(0, rb + (r));
#else
#define B_STORE_STEP   1
#define B_STORE(at, r) Bls[at] = rb[r];
#endif

/* Loop addressing (LOOP_ADDR 1, off by default: measured slower; one local buffer only):
 * the K loop of an inside work-group without the edge paths' per-element indices and 64-bit
 * address products, recomputed every slice otherwise. On sm_90 (clang-14 and ptxas) the Hopper
 * FP32 default's slice, 1,024 FFMA, went from 1,136 instructions (46 integer) to 1,102 (14) with
 * aligned operands, from 1,162 (54) to 1,128 (21) with element loads: a few per cent of the
 * issue slots, not the mma family's share (cl/mma.cl), since 1,024 FFMA dominate here.
 * Predicted +1 to +2.5 % on the H200; measured 0.5-2.8 % slower (8192^2, 4096^2, 4097^2, two
 * alternated rounds, bench/results/h200-fp32-loop-addressing.log), so the loop's issue slots are
 * not what holds FP32 there. */
#ifndef LOOP_ADDR
#define LOOP_ADDR 0
#endif

#ifndef STREAMK
#define STREAMK 0
#endif
#if STREAMK
#define STREAMK_ARGS , __global REAL *restrict work
#else
#define STREAMK_ARGS
#endif

__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1))) void
clgemm_regblock(GEMM_ARGS STREAMK_ARGS) {
    /* Per buffer, Alm row p holds op(A)(i0 .. i0 + MWG - 1, p0 + p), Blm row p op(B)(p0 + p,
     * j0 .. j0 + NWG - 1). */
    __local realM Alm[NBUF * KWG * ASTRIDE / VWM];
    __local realN Blm[NBUF * KWG * BSTRIDE / VWN];
    __local REAL *Als = (__local REAL *)Alm;
    __local REAL *Bls = (__local REAL *)Blm;
    GEMM_BEGIN
    const int tm = get_local_id(0), tn = get_local_id(1);
    const int tid = tm + tn * MDIMC;
#if STREAMK
    /* Stream-K (common.cl): this work-group's tiles and K ranges, one segment at a time. */
    const sk_schedule sk = sk_make(M, N, K, MWG, NWG, KWG, get_num_groups(0));
    const long g = get_group_id(0), sk_first = sk_beg(&sk, g);
    long sk_it = sk_first, start;
    int dp = 0, tile, kb, ke;
    while (sk_next(&sk, g, &dp, &sk_it, &tile, &kb, &ke, &start)) {
        const bool partial = kb > 0 || ke < sk.iters;
        const int i0 = (tile % sk.tiles_m) * MWG, j0 = (tile / sk.tiles_m) * NWG;
        const int kbeg = kb * KWG, kend = min(K, ke * KWG);
#else
    {
        /* Split K: layer kz of the batch's matrix sums slices [kbeg, kend) into its own M x N
         * block of C (a workspace the host then reduces). With one layer this is all of K. The
         * chunk arithmetic runs in long: near the largest K it would overflow an int. */
        const int kz = layer, nz = layers;
        const long kchunk = ((long)K + nz * KWG - 1) / (nz * KWG) * KWG;
        const int kbeg = (int)min((long)K, kz * kchunk), kend = (int)min((long)K, kbeg + kchunk);
        C += (ulong)kz * (ulong)ldc * (ulong)N; /* with layers, C is the REAL workspace */
        GEMM_TILE_ORIGIN(MWG, NWG, i0, j0)
#endif

        REAL acc[MWI][NWI];
#pragma unroll
        for (int mi = 0; mi < MWI; mi++)
#pragma unroll
            for (int ni = 0; ni < NWI; ni++)
                acc[mi][ni] = (REAL)0;

        /* Rows past M and columns past N are clamped (they only feed elements of C that are never
         * stored); depth past K is zero, or it would add to every element. */
        /* Three ways to load a slice, chosen per work-group and slice (uniform branches):
         * - inside the matrices (most work-groups, all but the last slice): no checks, so the loads
         *   of a work-item share one base address with constant offsets;
         * - at the M or N edge: rows past M and columns past N are clamped (they only feed elements
         *   of C that are never stored), so edge work-groups keep pace with the others;
         * - the last, partial slice: depth past K is zero, or it would add to every element. */
        /* The slice in flight, in NPART parts of APART (BPART) rounds: with two buffers a part
         * is loaded before each KWI-deep step of the multiply and stored right after it, so the
         * registers hold KWI rows of the next slice whatever KWG is. */
        REAL ra[APART], rb[BPART];
        const bool inside_mn = i0 + MWG <= M && j0 + NWG <= N;
#define LOAD_A(p0, r0, check_k)                                                                    \
    _Pragma("unroll") for (int r = 0; r < APART; r++) {                                            \
        const int idx = A_IDX((r0) + r), gp = (p0) + A_P(idx);                                     \
        ra[r] = (check_k) && gp >= kend ? (REAL)0 : A_AT(min(i0 + A_X(idx), M - 1), gp);           \
    }
#define LOAD_B(p0, r0, check_k)                                                                    \
    _Pragma("unroll") for (int r = 0; r < BPART; r++) {                                            \
        const int idx = B_IDX((r0) + r), gp = (p0) + B_P(idx);                                     \
        rb[r] = (check_k) && gp >= kend ? (REAL)0 : B_AT(gp, min(j0 + B_X(idx), N - 1));           \
    }
/* Part `part` of the slice at depth p0 into the registers: inside the matrices VLEN elements a
 * load where the operand allows (VEC_A, VEC_B), one a load elsewhere. */
#define LOAD_SLICE(p0, part)                                                                       \
    if (inside_mn && (p0) + KWG <= kend) {                                                         \
        _Pragma("unroll") for (int r = 0; r < APART; r += A_STEP) {                                \
            const int idx = A_IDX(APART * (part) + r);                                             \
            A_INSIDE(r, idx, p0)                                                                   \
        }                                                                                          \
        _Pragma("unroll") for (int r = 0; r < BPART; r += B_STEP) {                                \
            const int idx = B_IDX(BPART * (part) + r);                                             \
            B_INSIDE(r, idx, p0)                                                                   \
        }                                                                                          \
    } else if ((p0) + KWG <= kend) {                                                               \
        LOAD_A(p0, APART *(part), false) LOAD_B(p0, BPART *(part), false)                          \
    } else {                                                                                       \
        LOAD_A(p0, APART *(part), true) LOAD_B(p0, BPART *(part), true)                            \
    }
/* LOOP_ADDR: the next slice inside the matrices, read at bases pa and pb (the tile's corner at
 * the slice's first row) and offsets the same every slice: a whole slice with LOAD_SLICE's
 * inside loads, one cut by K's end (rows rem and on past it) element by element, each element
 * at its vector's address plus its place in the vector, so that the compiler keeps one moving
 * address per vector, not one per element. The offsets are ints (the host checks that every
 * index fits in one): one 32-by-64-bit multiply-add an address. */
#define A_FIXED(r)    (pa + A_OFF_T(A_X(A_IDX(r)), A_P(A_IDX(r)), int))
#define B_FIXED(r)    (pb + B_OFF_T(B_P(B_IDX(r)), B_X(B_IDX(r)), int))
#define A_FIXED_EL(r) OPA(LOAD_AB(A_FIXED((r) - (r) % A_STEP), (r) % A_STEP))
#define B_FIXED_EL(r) OPB(LOAD_AB(B_FIXED((r) - (r) % B_STEP), (r) % B_STEP))
#define LOAD_FIXED                                                                                 \
    _Pragma("unroll") for (int r = 0; r < ALOADS; r += A_STEP) A_LOAD_AT(r, A_FIXED(r), 0);        \
    _Pragma("unroll") for (int r = 0; r < BLOADS; r += B_STEP) B_LOAD_AT(r, B_FIXED(r), 0);
#define LOAD_FIXED_CUT(rem)                                                                        \
    _Pragma("unroll") for (int r = 0; r < ALOADS; r++) ra[r] =                                     \
        A_P(A_IDX(r)) < (rem) ? A_FIXED_EL(r) : (REAL)0;                                           \
    _Pragma("unroll") for (int r = 0; r < BLOADS; r++) rb[r] =                                     \
        B_P(B_IDX(r)) < (rem) ? B_FIXED_EL(r) : (REAL)0;
/* The registers' part `part` into buffer buf. */
#define STORE_SLICE(buf, part)                                                                     \
    _Pragma("unroll") for (int r = 0; r < APART; r += A_STORE_STEP) {                              \
        const int idx = A_IDX(APART * (part) + r);                                                 \
        A_STORE((buf) * (KWG * ASTRIDE) + A_P(idx) * ASTRIDE + A_X(idx), r)                        \
    }                                                                                              \
    _Pragma("unroll") for (int r = 0; r < BPART; r += B_STORE_STEP) {                              \
        const int idx = B_IDX(BPART * (part) + r);                                                 \
        B_STORE((buf) * (KWG * BSTRIDE) + B_P(idx) * BSTRIDE + B_X(idx), r)                        \
    }
/* Rows pbeg .. pend - 1 of buffer buf multiplied into acc. */
#define MULTIPLY(buf, pbeg, pend)                                                                  \
    for (int p = (pbeg); p < (pend); p += KWI) {                                                   \
        _Pragma("unroll") for (int pi = 0; pi < KWI; pi++) {                                       \
            unionM a[MWIV];                                                                        \
            unionN b[NWIV];                                                                        \
            _Pragma("unroll") for (int mv = 0; mv < MWIV; mv++) a[mv].v =                          \
                Alm[((buf)*KWG + p + pi) * (ASTRIDE / VWM) + tm + mv * MDIMC];                     \
            _Pragma("unroll") for (int nv = 0; nv < NWIV; nv++) b[nv].v =                          \
                Blm[((buf)*KWG + p + pi) * (BSTRIDE / VWN) + tn + nv * NDIMC];                     \
            _Pragma("unroll") for (int mi = 0; mi < MWI; mi++)                                     \
                _Pragma("unroll") for (int ni = 0; ni < NWI; ni++)                                 \
                    MADD(acc[mi][ni], a[mi / VWM].s[mi % VWM], b[ni / VWN].s[ni % VWN]);           \
        }                                                                                          \
    }

#if NBUF == 2
        for (int part = 0; part < NPART; part++) {
            LOAD_SLICE(kbeg, part)
            STORE_SLICE(0, part)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int p0 = kbeg, buf = 0; p0 < kend; p0 += KWG, buf ^= 1) {
            const bool more = p0 + KWG < kend;
            for (int part = 0; part < NPART; part++) {
                if (more) {
                    LOAD_SLICE(p0 + KWG, part) /* in flight while this part is multiplied */
                }
                MULTIPLY(buf, part * KWI, part * KWI + KWI)
                if (more) {
                    STORE_SLICE(buf ^ 1, part) /* the other buffer: no one reads it this slice */
                }
            }
            /* The next slice is in place, and every work-item is done with this buffer, which the
             * slice after next (or a next stream-K segment's first slice) overwrites. */
            barrier(CLK_LOCAL_MEM_FENCE);
        }
#else
/* A slice: the registers stored, then (between these two) the next slice loaded, in flight
 * while this one is multiplied. */
#define SLICE_STORE                                                                                \
    STORE_SLICE(0, 0)                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);
#define SLICE_MULTIPLY                                                                             \
    MULTIPLY(0, 0, KWG)                                                                            \
    barrier(CLK_LOCAL_MEM_FENCE); /* the next slice overwrites the tiles */
        LOAD_SLICE(kbeg, 0)
        int p0 = kbeg;
#if LOOP_ADDR
        /* An inside work-group's loads: one base per operand, moved a slice a step, and offsets
         * fixed for the whole loop; K's end tested only in the slice it cuts. The edge
         * work-groups take the loop below. */
        if (inside_mn) {
            const __global AB_T *pa = A + A_OFF(i0, p0 + KWG), *pb = B + B_OFF(p0 + KWG, j0);
            for (; p0 < kend; p0 += KWG, pa += A_OFF(0, KWG), pb += B_OFF(KWG, 0)) {
                const int rem = kend - p0 - KWG; /* the next slice's depth */
                SLICE_STORE
                if (rem >= KWG) {
                    LOAD_FIXED
                } else if (rem > 0) {
                    LOAD_FIXED_CUT(rem)
                }
                SLICE_MULTIPLY
            }
        }
#endif
        for (; p0 < kend; p0 += KWG) {
            SLICE_STORE
            if (p0 + KWG < kend) {
                LOAD_SLICE(p0 + KWG, 0)
            }
            SLICE_MULTIPLY
        }
#endif

#if STREAMK
        /* A tile this work-group did in part goes to its slot of the workspace (raw sums, tile
         * coordinates); the fix-up kernel adds the slots of every tile in order. */
        __global REAL *slot = work + ((ulong)g * 2 + (start == sk_first ? 0 : 1)) * (MWG * NWG);
#endif
#pragma unroll
        for (int mi = 0; mi < MWI; mi++) {
            const int ii = (tm + (mi / VWM) * MDIMC) * VWM + mi % VWM, i = i0 + ii;
#pragma unroll
            for (int ni = 0; ni < NWI; ni++) {
                const int jj = (tn + (ni / VWN) * NDIMC) * VWN + ni % VWN, j = j0 + jj;
#if STREAMK
                if (partial)
                    slot[ii + jj * MWG] = acc[mi][ni];
                else
#endif
                    if (i < M && j < N)
                    STORE_C(i, j, acc[mi][ni]);
            }
        }
    }
}
