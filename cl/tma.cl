/* tma.cl: GEMM on Hopper's wgmma fed by the bulk tensor copies (TMA, cp.async.bulk.tensor) from
 * the real 227 KiB of local memory: one producer warp copies K slices into STAGES stages, a full
 * and an empty mbarrier per stage, and MWG/64 consumer warpgroups multiply each 64 x NWG block
 * straight from the 128-byte-swizzled stages. Built by the patched-PTX route (every sm_90a
 * instruction behind a "// @" marker, src/build/ptx_patch.c), for compute capability 9.0 only,
 * where the host encodes a tensor map per operand (src/exec/tensor_map.c).
 *
 * Problem (column-major, common.cl): C = alpha op(A) op(B) + beta C, C read only when beta != 0;
 * C M x N, edges guarded at the store, K's tail and the tiles' edges zero-filled by the copies.
 * Strided batches (the maps' third dimension is the matrix) and split-K layers (each layer a
 * K range of whole slices, summed into the workspace at layer * ldc * N); no batch table.
 *
 * The maps (128 bytes each, A's at maps[0], B's at maps[128]) cover the operands as stored:
 *   A K-major (TRANSA 1): dims {K, M, batch}, box {KWG, MWG}; MN-major (TRANSA 0, FP16/BF16):
 *   dims {M, K, batch}, box {64, KWG}, MWG/64 boxes a slice. B K-major (TRANSB 0): {K, N},
 *   box {KWG, NWG}; MN-major (TRANSB 1): {N, K}, box {64, KWG}, NWG/64 boxes. Every box row is
 *   128 bytes (KWG 64 FP16/BF16 or 32 TF32; 64 MN elements), in the 128-byte swizzle.
 *
 * SPLIT3 (with WG_TYPE 2): the 3xTF32 mode, over A and B split in two (exec/pack.c: big, each
 * element rounded to TF32, and small, the rest): the maps at maps[0] and maps[128] cover the big
 * parts, two more at maps[256] and maps[384] the small ones; every K slice passes through the
 * stages three times, as big(A) big(B), small(A) big(B) and big(A) small(B), into the same
 * accumulators (FP32-level products).
 *
 * Build options: WG_TYPE 0 FP16, 1 BF16 (C FP32 or the input type), 2 TF32 (FP32 storage), 3 INT8
 * (C INT32, wrapping), 4 FP8 E4M3, 5 FP8 E5M2 (C FP32, FP16 or BF16), 6 FP32 on the CUDA cores
 * (FFMA: the consumers multiply from the stages element by element, no tensor core; below), 7 FP64
 * on the DMMA tensor cores (mma.sync m16n8k16 f64, fragments loaded from the stages; C FP64); C's
 * type from TYPE_C (types.cl); TF32 and 8-bit operands K-major only (no transpose bit for them),
 * except TF32's A, which MN-major goes through registers (AREG); TRANSA, TRANSB; MWG 64, 128 or 256
 * (consumer warpgroups: MWG/64), NWG 64, 128 or 256 (the instruction's N), KWG, STAGES, GROUP_M
 * (tiles in bands of GROUP_M tile rows, so that running work-groups share panels in L2). Launch:
 * local (128 MWG/64 + 32, 1, 1), global (tiles_m * local, tiles_n, batch * layers). */
/* The tile comes whole from the host (the family's MWG, NWG, STAGES); alone, 128 x 256 in 4. */
#ifndef MWG
#define MWG    128
#define NWG    256
#define STAGES 4
#endif
#if BATCH_TABLE
#error "tma.cl: a batch table has no tensor map"
#endif

#if WG_TYPE <= 1
#define MT    ushort
#define ESIZE 2
#define KSTEP 16
#elif WG_TYPE == 2 || WG_TYPE == 6
#define MT    float
#define ESIZE 4
#define KSTEP 8
#elif WG_TYPE == 7 /* FP64: a slice (16 k) is one m16n8k16 step */
#define MT    double
#define ESIZE 8
#define KSTEP 16
#else /* 8-bit: one k step is 32 bytes, as for the others */
#define MT    uchar
#define ESIZE 1
#define KSTEP 32
#endif
#ifndef KWG
#define KWG (128 / ESIZE)
#endif
#if KWG * ESIZE != 128
#error "tma.cl: a slice row is one 128-byte swizzle row"
#endif
/* FP64 on the DMMA tensor cores: C and the accumulators FP64. */
#define DMMA (WG_TYPE == 7)
#if DMMA
#define CT double
#else
#define CT C_STORED_T
#endif
/* The accumulators: INT32 for INT8 (its bits wrap like the library's uint arithmetic), FP64 for
 * FP64, else FP32. */
#if WG_TYPE == 3
#define ACC_T int
#define ACC_C "+r"
#elif DMMA
#define ACC_T double
#define ACC_C "+d"
#else
#define ACC_T float
#define ACC_C "+f"
#endif

#ifndef SPLIT3
#define SPLIT3 0
#endif
#if SPLIT3 && WG_TYPE != 2
#error "tma.cl: 3xTF32 splits FP32 operands"
#endif
#define PARTS (SPLIT3 ? 3 : 1) /* the products of one K slice */
/* SPLIT3_PAIRED (1, STAGES even): a K slice's big and small parts share one stage of two slots
 * (four boxes for its three products, where three passes of one slot copy six), so STAGES slots
 * are STAGES / 2 stages. 0 (the default): three passes. */
#ifndef SPLIT3_PAIRED
#define SPLIT3_PAIRED 0
#endif
#define A_MN (TRANSA == 0)
#define B_MN (TRANSB == 1)
/* FP32 on the CUDA cores: either operand either way, C through the direct stores (its
 * accumulators are not in wgmma's layout, which STAGE_C 2's staging assumes). */
#define FFMA (WG_TYPE == 6)
/* FFMA with A MN-major: C leaves in 16-byte runs of a thread's rows (FFMA_STORE_RUNS). */
#define FFMA_RUNS (FFMA && TRANSA == 0 && TYPE_C == TYPE_F32)
/* FP64 with either operand MN-major: C leaves in 16-byte pairs of rows (DMMA_STORE_PAIRS). */
#define DMMA_PAIRS (WG_TYPE == 7 && (TRANSA == 0 || TRANSB == 1))
/* FFMA and DMMA read the stages with each consumer thread's own local loads: every consumer
 * thread hands a stage back once its loads of it are done, and C leaves by the direct stores
 * (neither's accumulators are in wgmma's layout). */
#define OWN_LOADS (FFMA || DMMA)
#if OWN_LOADS
#undef STAGE_C
#define STAGE_C 0
#endif
/* TF32 with A MN-major (wgmma has no transpose for 32-bit types): the consumers load A's
 * fragments from the stages into registers, wgmma's other source for A, instead of a copy of A
 * made K-major beforehand. In the 3xTF32 mode (AREG3) they split them there too, so A comes whole
 * (maps[0]) and only B in its two parts (maps[128], maps[384]), both in the slice's stage. */
#define AREG  (WG_TYPE == 2 && A_MN)
#define AREG3 (AREG && SPLIT3)
#if WG_TYPE >= 2 && !OWN_LOADS && B_MN
#error "tma.cl: TF32 and 8-bit operands are K-major (TF32's A may be MN-major: from registers)"
#endif
#define PAIRED (SPLIT3 && SPLIT3_PAIRED && !AREG)
#if PAIRED && STAGES % 2
#error "tma.cl: paired 3xTF32 stages take two slots each"
#endif

/* TALL 2 (FFMA only): a consumer warpgroup multiplies 128 rows of the tile, each thread 8 rows by
 * NWG/8 columns, so a thread's local loads feed twice the products and a 128 x 64 tile needs one
 * consumer warpgroup (two work-groups an SM in 4 stages); MWG 32 (FFMA only): one warpgroup of 32
 * rows, each thread 8 by NWG/32 (a matrix 32 or fewer rows wide, where 64-row tiles would be half
 * empty); else 64 rows, 8 by NWG/16. */
#ifndef TALL
#define TALL 0
#endif
#if TALL == 2 && !FFMA
#error "tma.cl: TALL is FFMA's thread layout"
#endif
#if MWG == 32 && (!FFMA || TALL == 2)
#error "tma.cl: 32-row tiles are FFMA's, one warpgroup of 32 rows"
#endif
#define CONSUMER_ROWS (MWG == 32 ? 32 : TALL == 2 ? 128 : 64)
#if MWG % CONSUMER_ROWS
#error "tma.cl: the tile's rows are whole consumer warpgroups' rows"
#endif
#define CONSUMERS (MWG / CONSUMER_ROWS)
/* SETMAXNREG 2: the producer is a whole warpgroup, which keeps PRODUCER_REGS registers a
 * thread and gives the rest to the consumers (setmaxnreg); else one warp, registers even. */
#ifndef SETMAXNREG
#define SETMAXNREG 0
#endif
#define NTHREADS (128 * CONSUMERS + (SETMAXNREG == 2 ? 128 : 32))
#if SETMAXNREG == 2
/* The entry's cap (the PTX patch's `.maxnreg`, from `.reqntid` as here): an SM's four register
 * files of 16,384 over the warps dealt to each scheduler; the consumers get what the producer
 * frees, in multiples of 8, at most 256. */
#define LAUNCH_REGS_   (16384 / ((NTHREADS / 32 + 3) / 4 * 32) / 8 * 8)
#define LAUNCH_REGS    (LAUNCH_REGS_ > 255 ? 255 : LAUNCH_REGS_)
#define PRODUCER_REGS  40
#define CONSUMER_REGS_ ((LAUNCH_REGS * NTHREADS - 128 * PRODUCER_REGS) / (128 * CONSUMERS) / 8 * 8)
#define CONSUMER_REGS  (CONSUMER_REGS_ > 256 ? 256 : CONSUMER_REGS_)
#endif
#define A_BYTES (MWG * 128) /* one slice of A: MWG rows (or KWG k rows of MWG) x 128 bytes */
#define B_BYTES (NWG * 128)
#define STAGE   (A_BYTES + B_BYTES)
/* One pipeline slot: paired, the big parts, then the small ones; AREG3, A and B's two parts.
 * AREG3's larger slots share the bytes of STAGES stages (what the family's rules allow). */
#define SLOT     (AREG3 ? A_BYTES + 2 * B_BYTES : PAIRED ? 2 * STAGE : STAGE)
#define SLOTS    (AREG3 ? STAGES * STAGE / SLOT : PAIRED ? STAGES / 2 : STAGES)
#define STEPS    (PAIRED || AREG3 ? 1 : PARTS) /* pipeline steps of one K slice */
#define PRODUCTS (PAIRED ? 3 : 1)              /* products of one pipeline step (SS) */
#if SLOTS < 2
#error "tma.cl: fewer than two slots"
#endif
#define MN_BOX (128 / ESIZE) /* an MN-major box's columns: one 128-byte swizzle row */
/* ---- mbarrier and bulk-copy wrappers (sm_90a, behind markers) ---------------------------- */

DEV void mbar_init(const uint bar, const uint arrivals) {
    asm volatile("// @mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(arrivals)
                 : "memory");
}
/* Makes the initialised barriers visible to the copy engine. */
DEV void mbar_init_fence(void) {
    asm volatile("// @fence.mbarrier_init.release.cluster;" ::: "memory");
}
/* The producer's arrival, announcing the bytes the stage's copies will bring. */
DEV void mbar_expect_bytes(const uint bar, const uint bytes) {
    asm volatile("{\n.reg .b64 state;\n// @mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], "
                 "%1;\n}" ::"r"(bar),
                 "r"(bytes)
                 : "memory");
}
DEV void mbar_arrive(const uint bar) {
    asm volatile(
        "{\n.reg .b64 state;\n// @mbarrier.arrive.shared::cta.b64 state, [%0];\n}" ::"r"(bar)
        : "memory");
}
/* Spins until the barrier's phase of this parity has completed. */
DEV void mbar_wait(const uint bar, const uint parity) {
    uint done;
    do {
        asm volatile("{\n.reg .pred ready;\n// @mbarrier.try_wait.parity.shared::cta.b64 ready, "
                     "[%1], %2;\n// @selp.u32 %0, 1, 0, ready;\n}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
/* One box of a rank-3 map at coordinates (x contiguous, y, z) into local memory at dst,
 * completing on bar. */
DEV void tma_load3(const uint dst, const __global uchar *map, const int x, const int y, const int z,
                   const uint bar) {
    asm volatile("// @cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::"
                 "bytes [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst),
                 "l"(map), "r"(x), "r"(y), "r"(z), "r"(bar)
                 : "memory");
}

/* Slice k0 of one operand into local memory at x, completing on `full`: K-major, one box of
 * ROWS rows (of op(A), columns of op(B)) from mn0; MN-major (MN), ROWS/MN_BOX boxes of MN_BOX
 * (64 16-bit or 32 TF32 elements), each KWG rows of k by 128 bytes. */
#define COPY_SLICE(x, map, mn0, ROWS, MN)                                                          \
    do {                                                                                           \
        if (MN)                                                                                    \
            for (int j = 0; j < (ROWS) / MN_BOX; j++)                                              \
                tma_load3((x) + j * (KWG * 128), map, (mn0) + MN_BOX * j, k0, zb, full);           \
        else                                                                                       \
            tma_load3(x, map, k0, mn0, zb, full);                                                  \
    } while (0)

/* ---- wgmma ------------------------------------------------------------------------------- */

/* The descriptor of k step ks of a slice at x, in the 128-byte swizzle (wgmma_desc, ptx.cl):
 * K-major, a k step is 32 bytes along each 128-byte row, 8-row atoms 1024 bytes apart; MN-major
 * (MN), 16 rows of k (2048 bytes), 64-column boxes KWG * 128 apart. */
#define STEP_DESC(x, ks, MN)                                                                       \
    ((MN) ? wgmma_desc((x) + (ks)*2048, KWG * 128, 1024, 1ul)                                      \
          : wgmma_desc((x) + (ks)*32, 16, 1024, 1ul))
/* scale-d from the predicate (0 on a tile's first step), then the input scales (1) of the
 * floating-point forms, then transpose bits (16-bit only); the integer form takes scale-d alone. */
#if WG_TYPE == 3
#define WG_IMM ""
#elif WG_TYPE >= 2
#define WG_IMM ", 1, 1"
#else
#if A_MN && B_MN
#define WG_IMM ", 1, 1, 1, 1"
#elif A_MN
#define WG_IMM ", 1, 1, 1, 0"
#elif B_MN
#define WG_IMM ", 1, 1, 0, 1"
#else
#define WG_IMM ", 1, 1, 0, 0"
#endif
#endif

/* acc += A B over one k step; acc = A B where `accumulate` is 0 (the operands: ptx.cl). */
#define WGMMA_STEP(acc, da, db, accumulate)                                                        \
    asm volatile("{\n.reg .pred scale_d;\nsetp.ne.b32 scale_d, " WG_NEXT(                          \
                     NWG) ", 0;\n"                                                                 \
                          "// @wgmma.mma_async.sync.aligned.m64n" WG_NSTR(NWG) WG_SHAPE            \
                 " {" WG_ACCS(NWG) "}, " WG_DESCS(NWG) ", scale_d" WG_IMM ";\n}"                   \
                 : WG_ACC(NWG, ACC_C, acc)                                                         \
                 : "l"(da), "l"(db), "r"(accumulate)                                               \
                 : "memory")
#define NACC (NWG * CONSUMER_ROWS / 128) /* a warpgroup's rows x NWG over its 128 threads */

/* The same with A as four registers a thread (AREG): the operands after the accumulators. */
#define WG_RS_OPS_64   "{%32, %33, %34, %35}, %36"
#define WG_RS_NEXT_64  "%37"
#define WG_RS_OPS_128  "{%64, %65, %66, %67}, %68"
#define WG_RS_NEXT_128 "%69"
#define WG_RS_OPS_256  "{%128, %129, %130, %131}, %132"
#define WG_RS_NEXT_256 "%133"
#define WGMMA_STEP_RS(acc, fr, db, accumulate)                                                     \
    asm volatile(                                                                                  \
        "{\n.reg .pred scale_d;\nsetp.ne.b32 scale_d, " WG_BY_N(                                   \
            WG_RS_NEXT_, NWG) ", 0;\n"                                                             \
                              "// @wgmma.mma_async.sync.aligned.m64n" WG_NSTR(NWG) WG_SHAPE        \
        " {" WG_ACCS(NWG) "}, " WG_BY_N(WG_RS_OPS_, NWG) ", scale_d" WG_IMM ";\n}"                 \
        : WG_ACC(NWG, ACC_C, acc)                                                                  \
        : "r"((fr)[0]), "r"((fr)[1]), "r"((fr)[2]), "r"((fr)[3]), "l"(db), "r"(accumulate)         \
        : "memory")

#if AREG
/* The k steps of one batch of fragments in registers: the whole slice, or half of it where a
 * thread cannot hold a 3xTF32 slice's parts (four consumer warpgroups: 120 registers). */
#define AREG_STEPS   (AREG3 && MWG == 256 ? KWG / KSTEP / 2 : KWG / KSTEP)
#define AREG_BATCHES (KWG / KSTEP / AREG_STEPS)
#define FR_COUNT     ((AREG3 ? 8 : 4) * AREG_STEPS) /* 3xTF32: the big parts, then the small */
/* Two sets of fragments where the registers allow: a slice's products may still read one set
 * while the next slice loads the other. One set with four consumer warpgroups, and for 3xTF32's
 * 128 accumulators (NWG 256): each batch's products done before the next batch loads. */
#define AREG_SETS (MWG == 256 || (AREG3 && NWG == 256) ? 1 : 2)
#if AREG_SETS == 2
#define AREG_WAIT "1"
#define AREG_DONE(g, t)                                                                            \
    ((t) > 0 ? (g)-1 : -1) /* the slice whose products are done after the wait */
#else
#define AREG_WAIT       "0"
#define AREG_DONE(g, t) (g)
#endif

/* k steps ks0 .. of the slice at `slot` into fr (four values a step): the TF32 register layout
 * of m64nNk8 (thread lane of warp w holds rows 16 w + lane/4 and + 8, k lane % 4 and + 4), read
 * from the MN-major boxes of 32 rows of the operand by 32 k (one k a 128-byte line, its 16-byte
 * chunks swizzled by k % 8); `row` and `chunk` are the thread's (consumer's box and byte in the
 * chunk, and its chunk before the swizzle). 3xTF32 then splits them (AREG_SPLIT). */
#define AREG_LOAD(fr, slot, ks0)                                                                   \
    do {                                                                                           \
        _Pragma("unroll") for (int j = 0; j < AREG_STEPS; j++) {                                   \
            _Pragma("unroll") for (int q = 0; q < 4; q++) {                                        \
                /* a0, a1 at k, a2, a3 at k + 4; a1, a3 eight rows (two chunks) on */              \
                const uint kk = quad + 4 * (q >> 1);                                               \
                const uint at = (slot) + row + (8 * ((ks0) + j) + kk) * 128 +                      \
                                (((chunk + 2 * (q & 1)) ^ kk) << 4);                               \
                (fr)[4 * j + q] = *(const __local uint *)(stages + (at - base));                   \
            }                                                                                      \
        }                                                                                          \
        AREG_SPLIT(fr);                                                                            \
    } while (0)
#if AREG3
/* Each value x into big (x rounded to the nearest TF32, ties away; x truncated where that would
 * pass FLT_MAX) in place and small (x - big, exact, rounded the same way; inf and NaN as they
 * come) 4 AREG_STEPS further: cl/pack.cl's clgemm_pack_split in registers. */
#define AREG_SPLIT(fr)                                                                             \
    do {                                                                                           \
        _Pragma("unroll") for (int i = 0; i < 4 * AREG_STEPS; i++) {                               \
            const uint x = (fr)[i];                                                                \
            uint big = (x + 0x1000u) & 0xFFFFE000u;                                                \
            if ((big & 0x7FFFFFFFu) == 0x7F800000u) big = x & 0xFFFFE000u; /* inf */               \
            const uint r = as_uint(as_float(x) - as_float(big));                                   \
            (fr)[i] = big;                                                                         \
            (fr)[4 * AREG_STEPS + i] = (r & 0x7F800000u) != 0x7F800000u ? r + 0x1000u : r;         \
        }                                                                                          \
    } while (0)
/* The other two products of step j (ks of the slice): small(A) big(B), big(A) small(B). */
#define AREG3_MORE(acc, fr, j, ks, slot)                                                           \
    do {                                                                                           \
        WGMMA_STEP_RS(acc, (fr) + 4 * (AREG_STEPS + (j)), STEP_DESC((slot) + A_BYTES, ks, B_MN),   \
                      1u);                                                                         \
        WGMMA_STEP_RS(acc, (fr) + 4 * (j), STEP_DESC((slot) + A_BYTES + B_BYTES, ks, B_MN), 1u);   \
    } while (0)
#else
#define AREG_SPLIT(fr)
#define AREG3_MORE(acc, fr, j, ks, slot)
#endif
/* Slice t of the tile, the work-group's pipeline step g, with A's fragments in fr: waits for its
 * stage, loads and multiplies batch by batch, and hands a stage back once its products (and so
 * its fragments' use) are done. */
#define AREG_SLICE(g, t, fr)                                                                       \
    do {                                                                                           \
        const int s_ = (g) % SLOTS;                                                                \
        mbar_wait(full0 + 8 * s_, ((g) / SLOTS) & 1);                                              \
        const uint slot_ = base + s_ * SLOT;                                                       \
        _Pragma("unroll") for (int b_ = 0; b_ < AREG_BATCHES; b_++) {                              \
            AREG_LOAD(fr, slot_, b_ *AREG_STEPS);                                                  \
            asm volatile("// @wgmma.fence.sync.aligned;" ::: "memory");                            \
            _Pragma("unroll") for (int j = 0; j < AREG_STEPS; j++) {                               \
                const int ks = b_ * AREG_STEPS + j;                                                \
                const ulong db = STEP_DESC(slot_ + A_BYTES, ks, B_MN);                             \
                WGMMA_STEP_RS(acc, (fr) + 4 * j, db, (uint)((t) > 0 || ks > 0));                   \
                AREG3_MORE(acc, fr, j, ks, slot_);                                                 \
            }                                                                                      \
            asm volatile("// @wgmma.commit_group.sync.aligned;" ::: "memory");                     \
            if (b_ + 1 < AREG_BATCHES) /* the next batch loads into this one's registers */        \
                asm volatile("// @wgmma.wait_group.sync.aligned 0;" ::: "memory");                 \
        }                                                                                          \
        asm volatile("// @wgmma.wait_group.sync.aligned " AREG_WAIT ";" ::: "memory");             \
        const int done_ = AREG_DONE(g, t);                                                         \
        if (done_ >= 0 && tid % 128 == 0) mbar_arrive(empty0 + 8 * (done_ % SLOTS));               \
    } while (0)
#endif

#if FFMA
/* ---- FP32 on the CUDA cores ------------------------------------------------------------------ */
/* A consumer thread's block: 8 of its warpgroup's CONSUMER_ROWS rows by FN of the tile's NWG
 * columns, thread (fx, fy) = (tid % FXT, tid % 128 / FXT) of a warpgroup's FXT x FYT threads (8 x
 * 16; 16 x 8 with TALL 2; 4 x 32 in 32-row tiles). Its rows: A MN-major, two 16-byte chunks along M
 * (4 fx + 4 FXT h + r); K-major, one in FXT (fx + FXT i). With 4 x 32 threads a row's swizzle
 * chunk (MN-major: chunk fx + 4 h; K-major: line fx + 4 i, whose line & 7 is fx + 4 (i & 1)) is the
 * thread's offset with its bit 2 flipped (AFLIP: bit 6 of the byte offset). Its columns: B
 * MN-major, chunks 4 fy + 4 FYT h + r; K-major, one in FYT (fy + FYT j). Either way the threads of
 * a warp that read at once (8 consecutive lanes: consecutive fx, one fy) read distinct 16-byte
 * chunks of 128-byte swizzle rows (a K-major line's 8 rows share none: line & 7 is fx & 7, or fy &
 * 7), or one chunk together, so every load is one wavefront. A K-major operand gives 4 k steps a
 * 16-byte load; an MN-major one 4 rows or columns of one k step. */
#define FXT      (CONSUMER_ROWS / 8)
#define FYT      (128 / FXT)
#define FN       (NWG / FYT)
#define AFLIP(h) (FXT < 8 && ((h)&1) ? 64u : 0u)
#define FROW(i)  (A_MN ? 4 * (int)fx + 4 * FXT * ((i) >> 2) + ((i)&3) : (int)fx + FXT * (i))
#define FCOL(j)  (B_MN ? 4 * (int)fy + 4 * FYT * ((j) >> 2) + ((j)&3) : (int)fy + FYT * (j))
/* 16 bytes at a stage base plus an offset, plus a constant (a separate step, so that the compiler
 * folds it into the load's address). */
#define LD4(at, c) (*(const __local float4 *)((stages + (at)) + (c)))
#define F4(v, r)   ((r) == 0 ? (v).x : (r) == 1 ? (v).y : (r) == 2 ? (v).z : (v).w)
/* The four values of v into dst[at] .. dst[at + 3]. */
#define PUT4(dst, at, v)                                                                           \
    do {                                                                                           \
        const float4 v4_ = (v);                                                                    \
        (dst)[(at)] = v4_.x;                                                                       \
        (dst)[(at) + 1] = v4_.y;                                                                   \
        (dst)[(at) + 2] = v4_.z;                                                                   \
        (dst)[(at) + 3] = v4_.w;                                                                   \
    } while (0)
/* The thread's byte offsets into a stage, by swizzle row (k & 7 for an MN-major operand, the
 * 4-step group q for a K-major one), computed once: each load is then a stage base plus one of
 * them plus a constant. */
#define FFMA_OFFSETS()                                                                             \
    uint fa[8], fb[8];                                                                             \
    _Pragma("unroll") for (uint x = 0; x < 8; x++) {                                               \
        fa[x] = A_MN ? (CONSUMER_ROWS / 32 * wg + fx / 8) * (KWG * 128) + (((fx & 7) ^ x) << 4)    \
                     : (CONSUMER_ROWS * wg + fx) * 128 + ((x ^ (fx & 7)) << 4);                    \
        fb[x] = A_BYTES + (B_MN ? fy / 8 * (KWG * 128) + (((fy & 7) ^ x) << 4)                     \
                                : fy * 128 + ((x ^ (fy & 7)) << 4));                               \
    }
/* The products of the slice in the stage at byte st of `stages` into acc[i * FN + j]: each group
 * of 4 k steps loads the K-major operands' values for all 4, then each step the MN-major ones'
 * (an MN-major box is 32 elements by KWG k lines, its chunk c of line k at c ^ (k & 7)). */
#define FFMA_SLICE(st)                                                                             \
    do {                                                                                           \
        _Pragma("unroll") for (int q = 0; q < KWG / 4; q++) {                                      \
            float4 ka[A_MN ? 1 : 8], kb[B_MN ? 1 : FN];                                            \
            if (!A_MN)                                                                             \
                _Pragma("unroll") for (int i = 0; i < 8; i++) ka[i] =                              \
                    LD4((st) + (fa[q] ^ AFLIP(i)), FXT * 128 * i);                                 \
            if (!B_MN)                                                                             \
                _Pragma("unroll") for (int j = 0; j < FN; j++) kb[j] =                             \
                    LD4((st) + fb[q], FYT * 128 * j);                                              \
            _Pragma("unroll") for (int r = 0; r < 4; r++) {                                        \
                const int k = 4 * q + r;                                                           \
                float a[8], b[FN];                                                                 \
                if (A_MN) {                                                                        \
                    _Pragma("unroll") for (int h = 0; h < 2; h++) {                                \
                        PUT4(a, 4 * h,                                                             \
                             LD4((st) + (fa[k & 7] ^ AFLIP(h)),                                    \
                                 FXT / 8 * h * (KWG * 128) + k * 128));                            \
                    }                                                                              \
                } else {                                                                           \
                    _Pragma("unroll") for (int i = 0; i < 8; i++) a[i] = F4(ka[i], r);             \
                }                                                                                  \
                if (B_MN) {                                                                        \
                    _Pragma("unroll") for (int h = 0; h < FN / 4; h++) {                           \
                        PUT4(b, 4 * h,                                                             \
                             LD4((st) + fb[k & 7], FYT / 8 * h * (KWG * 128) + k * 128));          \
                    }                                                                              \
                } else {                                                                           \
                    _Pragma("unroll") for (int j = 0; j < FN; j++) b[j] = F4(kb[j], r);            \
                }                                                                                  \
                _Pragma("unroll") for (int i = 0; i < 8; i++)                                      \
                    _Pragma("unroll") for (int j = 0; j < FN; j++) acc[i * FN + j] =               \
                        fma(a[i], b[j], acc[i * FN + j]);                                          \
            }                                                                                      \
        }                                                                                          \
    } while (0)
/* C from a thread whose rows come in runs of 4 (A MN-major: FROW(4 h + r) is FROW(4 h) + r),
 * 16 bytes a run where C's runs start on 16 bytes (base, offset, leading dimension, stride and
 * layer: the pointer's low bits and ldc), else element by element. A warp's 16-byte stores then
 * fill 32-byte sectors whole, 128 contiguous bytes a column, where its 4-byte ones put 2 of a
 * sector's 8 values into each of 16 sectors: four times the writes into L2, in a burst when a
 * wave's tiles end together (H100 8192 x 8192 x K, time against K: 0.26 ms of each call whatever
 * K, 0.10 with the runs; bench/results/h100-fp32-c-runs-short-k.log). */
#define FFMA_STORE_RUNS()                                                                          \
    do {                                                                                           \
        const bool c16_ = ((size_t)Cu & 15) == 0 && (ldc & 3) == 0;                                \
        _Pragma("unroll") for (int e4 = 0; e4 < NACC / 4; e4++) {                                  \
            const int i_ = 4 * (e4 / FN), j_ = e4 % FN;                                            \
            const int m = m0 + CONSUMER_ROWS * (int)wg + FROW(i_), n = n0 + FCOL(j_);              \
            if (n >= N) continue;                                                                  \
            __global float *const c = Cu + (ulong)m + (ulong)n * (ulong)ldc;                       \
            float4 v = alpha * (float4)(acc[i_ * FN + j_], acc[(i_ + 1) * FN + j_],                \
                                        acc[(i_ + 2) * FN + j_], acc[(i_ + 3) * FN + j_]);         \
            if (c16_ && m + 3 < M) {                                                               \
                if (beta != 0.0f) v += beta * *(__global const float4 *)c;                         \
                *(__global float4 *)c = v;                                                         \
            } else {                                                                               \
                _Pragma("unroll") for (int r = 0; r < 4; r++) {                                    \
                    if (m + r >= M) break;                                                         \
                    float w = F4(v, r);                                                            \
                    if (beta != 0.0f) w += beta * c[r];                                            \
                    c[r] = w;                                                                      \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)
#endif

#if DMMA
/* ---- FP64 on the DMMA tensor cores ----------------------------------------------------------- */
/* mma.sync m16n8k16 f64 (sm_90: one DMMA.16x8x16 where m8n8k4 takes eight instructions for the
 * same products), one instruction step a slice (KWG 16). Lane 4 g + t of a warp holds the
 * instruction's A (16 x 16) values a_h at row g + 8 (h & 1), k t + 4 (h >> 1); its B (16 x 8) b_s
 * at k t + 4 s, column g; its C (16 x 8) c_v at row g + 8 (v >> 1), column 2 t + (v & 1) (PTX
 * ISA, the f64 m16n8k16 fragments; cl/mma.cl's FP64 path). The four warps of consumer warpgroup
 * wg are 2 x 2 blocks of 32 rows (64 wg + 32 (w / 2)) by NWG/2 columns (NWG/2 (w % 2)).
 *
 * A 16-byte local load fills a pair a_{2s}, a_{2s+1} (rows g, g + 8 at one k: two elements side
 * by side along M) or b_{2σ}, b_{2σ+1} (two k of one column), so the instruction's A is the
 * operand stored MN-major where one is (P: op(B) where B is MN-major, its C transposed in the
 * accumulators (DSWAP), else op(A)) and its B the other (Q). The sum over k is taken in another
 * order, and P's rows permuted where it is MN-major, so that the pairs are neighbours in the
 * stage: the instruction's k t + 4 s is the slice's k DK(t, s) = 4 t + 2 ((t >> 1) ^ (s >> 1)) +
 * (s & 1) (a K-major row holds s 0, 1 in one chunk, s 2, 3 in another), and P's m8 tile i, row r
 * is its row 16 (i >> 1) + 2 r + (i & 1) (tiles 2p and 2p + 1 of a thread side by side). P
 * K-major (both operands K-major) and Q MN-major (both MN-major) are read 8 bytes a value.
 *
 * Banks: 16-byte loads of P MN-major and Q K-major, 8-byte loads of Q MN-major: the places a
 * quarter-warp (half-warp) loads at once are distinct 16-byte (8-byte) places of the 128 bytes of
 * banks (K-major, chunk (DK >> 1) ^ g takes each value once over g's two rows and t, {0, 2, 5, 7}
 * and {1, 3, 4, 6}; MN-major, DK & 7 differs over t in its bits 1-2, the swizzle's XOR with the
 * chunk of g). P K-major's 8-byte loads meet two to a bank (one k parity a step: a K-major Q
 * needs that). */
#define DSWAP          B_MN
#define P_MN           (DSWAP || A_MN)
#define Q_MN           (DSWAP && A_MN)
#define P_AT           (DSWAP ? A_BYTES : 0) /* P's slice in a stage, and Q's */
#define Q_AT           (DSWAP ? 0 : A_BYTES)
#define DTP            ((DSWAP ? NWG / 2 : 32) / 8) /* P's m8 tiles in a warp's block */
#define DTQ            ((DSWAP ? 32 : NWG / 2) / 8) /* Q's n8 tiles */
#define DK(t, s)       (4 * (t) + 2 * (((t) >> 1) ^ ((s) >> 1)) + ((s)&1))
#define DPROW(i, r)    (P_MN ? 16 * ((i) >> 1) + 2 * (r) + ((i)&1) : 8 * (i) + (r))
#define LD1(sp, at, c) (*(const __local double *)(((sp) + (at)) + (c)))
#define LD2(sp, at, c) (*(const __local double2 *)(((sp) + (at)) + (c)))
/* The two values of v into lo and hi. */
#define PUT2(lo, hi, v)                                                                            \
    do {                                                                                           \
        const double2 v2_ = (v);                                                                   \
        (lo) = v2_.x;                                                                              \
        (hi) = v2_.y;                                                                              \
    } while (0)
DEV void dmma_16816(double *d, const double *a, const double *b) {
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
          "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
/* The first row of P's and of Q's block in the warp (of the tile's rows or columns). */
#define DROWS0(w) (64 * (int)wg + 32 * (int)((w) / 2))
#define DCOLS0(w) (NWG / 2 * (int)((w) % 2))
/* The thread's byte offsets into a stage, computed once, each load then a stage base plus one of
 * them plus a constant: P MN-major, dp[s] at its k line DK(t, s), chunk g of the warp's first
 * 16-row box (the others a box, KWG * 128 bytes, on); P K-major, dp[s] at k DK(t, s) of row g of
 * the first m8 tile (the others 8 rows, 1024 bytes, on); Q K-major, dq[σ] at the chunk of k
 * DK(t, 2σ) of its row g; Q MN-major, dq[2 s + o] at line DK(t, s), column g of an even (o 0) or
 * odd (o 1) n8 tile of the first box (the swizzle's XOR sets the two apart). */
#define DMMA_OFFSETS()                                                                             \
    uint dp[4], dq[8];                                                                             \
    {                                                                                              \
        const uint dg = (tid % 32) / 4, dt = tid % 4, dw = (tid / 32) % 4;                         \
        const uint p0 = DSWAP ? DCOLS0(dw) : DROWS0(dw), q0 = DSWAP ? DROWS0(dw) : DCOLS0(dw);     \
        _Pragma("unroll") for (uint s = 0; s < 4; s++) {                                           \
            const uint ks = DK(dt, s), line = p0 / 16 * (KWG * 128) + ks * 128;                    \
            dp[s] = P_AT + (P_MN ? line + ((dg ^ (ks & 7)) << 4)                                   \
                                 : (p0 + dg) * 128 + (((ks >> 1) ^ dg) << 4) + (ks & 1) * 8);      \
            const uint qline = Q_AT + q0 / 16 * (KWG * 128) + ks * 128 + (dg & 1) * 8;             \
            dq[2 * s] = Q_MN ? qline + (((dg >> 1) ^ (ks & 7)) << 4)                               \
                             : Q_AT + (q0 + dg) * 128 + (((DK(dt, 2 * (s & 1)) >> 1) ^ dg) << 4);  \
            dq[2 * s + 1] = qline + (((4 + (dg >> 1)) ^ (ks & 7)) << 4);                           \
        }                                                                                          \
    }
/* P's 8 values of m16 step p (m8 tiles 2p, 2p + 1) into ap, from the stage at sp. The loops'
 * names end in "_" (and DMMA_SLICE takes its stage into sp_ first): an argument naming the
 * consumer loop's `s`, its stage, once meant these loops' s, so that k group s of every slice came
 * from stage s, unwritten or being refilled (wrong and run-to-run different on the device). */
#define DLOAD_P(ap, sp, p)                                                                         \
    do {                                                                                           \
        if (P_MN) { /* both tiles' rows g at line s: a_{2s}, a_{2s+1} */                           \
            _Pragma("unroll") for (int s_ = 0; s_ < 4; s_++)                                       \
                PUT2((ap)[2 * s_], (ap)[2 * s_ + 1], LD2(sp, dp[s_], (p) * (KWG * 128)));          \
        } else {                                                                                   \
            _Pragma("unroll") for (int s_ = 0; s_ < 4; s_++)                                       \
                _Pragma("unroll") for (int e_ = 0; e_ < 2; e_++)(ap)[2 * s_ + e_] =                \
                    LD1(sp, dp[s_], (2 * (p) + e_) * 1024);                                        \
        }                                                                                          \
    } while (0)
/* Q's 4 values of n8 tile j into bj, from the stage at sp. */
#define DLOAD_Q(bj, sp, j)                                                                         \
    do {                                                                                           \
        if (Q_MN) {                                                                                \
            _Pragma("unroll") for (int s_ = 0; s_ < 4; s_++)(bj)[s_] =                             \
                LD1(sp, dq[2 * s_ + (j) % 2], (j) / 2 * (KWG * 128));                              \
        } else { /* s 0, 1 and s 2, 3 of its row */                                                \
            PUT2((bj)[0], (bj)[1], LD2(sp, dq[0], (j)*1024));                                      \
            PUT2((bj)[2], (bj)[3], LD2(sp, dq[2], (j)*1024));                                      \
        }                                                                                          \
    } while (0)
/* The products of the slice in the stage at byte st of `stages` into acc[4 (p DTQ + j) + v]: the
 * operand with fewer values a thread loaded whole first, then the other a step (P's m16 step or
 * Q's n8 tile) at a time, each followed by its instructions. */
#define DACC(p, j) (acc + 4 * ((p)*DTQ + (j)))
#define DMMA_SLICE(st)                                                                             \
    do {                                                                                           \
        const __local uchar *const sp_ = stages + (st); /* the stage, before any name below */     \
        double a[DTP / 2][8], b[DTQ][4];                                                           \
        if (DTP <= DTQ) {                                                                          \
            _Pragma("unroll") for (int p = 0; p < DTP / 2; p++) DLOAD_P(a[p], sp_, p);             \
            _Pragma("unroll") for (int j = 0; j < DTQ; j++) {                                      \
                DLOAD_Q(b[j], sp_, j);                                                             \
                _Pragma("unroll") for (int p = 0; p < DTP / 2; p++)                                \
                    dmma_16816(DACC(p, j), a[p], b[j]);                                            \
            }                                                                                      \
        } else {                                                                                   \
            _Pragma("unroll") for (int j = 0; j < DTQ; j++) DLOAD_Q(b[j], sp_, j);                 \
            _Pragma("unroll") for (int p = 0; p < DTP / 2; p++) {                                  \
                DLOAD_P(a[p], sp_, p);                                                             \
                _Pragma("unroll") for (int j = 0; j < DTQ; j++)                                    \
                    dmma_16816(DACC(p, j), a[p], b[j]);                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)
/* Accumulator e's row m and column n of C: 4 (p DTQ + j) + v at P's row DPROW(2 p + v / 2, g),
 * Q's row 8 j + 2 t + v % 2 of the warp's block (g, t = lane / 4, lane % 4); P's rows are C's
 * rows, Q's its columns, or the other way round (DSWAP). */
#define DMMA_C_AT(e)                                                                               \
    const int p_ = (e) / (4 * DTQ), j_ = (e) / 4 % DTQ, v_ = (e) % 4;                              \
    const int pr_ = DPROW(2 * p_ + v_ / 2, (int)(tid % 32 / 4)),                                   \
              qr_ = 8 * j_ + 2 * (int)(tid % 4) + v_ % 2;                                          \
    const int m = m0 + DROWS0(tid / 32 % 4) + (DSWAP ? qr_ : pr_);                                 \
    const int n = n0 + DCOLS0(tid / 32 % 4) + (DSWAP ? pr_ : qr_);
/* With P MN-major a thread holds C's rows in pairs: accumulators e and e + DPAIR at rows m and
 * m + 1 of one column (DSWAP: v and v + 1, Q's rows 2 t and 2 t + 1; else v and v + 2, P's rows
 * 2 g and 2 g + 1 of tiles 2 p and 2 p + 1). Each pair leaves in one 16-byte store where C's
 * pairs start on 16 bytes (the pointer's low bits and an even ldc), else element by element: a
 * warp's stores then fill their 32-byte sectors (FFMA_STORE_RUNS says why that matters). */
#define DPAIR (DSWAP ? 1 : 2)
#define DMMA_STORE_PAIRS()                                                                         \
    do {                                                                                           \
        const bool c16_ = ((size_t)Cu & 15) == 0 && (ldc & 1) == 0;                                \
        _Pragma("unroll") for (int e = 0; e < NACC; e++) {                                         \
            if ((e % 4) & DPAIR) continue; /* the second of a pair */                              \
            DMMA_C_AT(e)                                                                           \
            if (m >= M || n >= N) continue;                                                        \
            __global double *const c = Cu + (ulong)m + (ulong)n * (ulong)ldc;                      \
            double2 r = alpha * (double2)(acc[e], acc[e + DPAIR]);                                 \
            if (c16_ && m + 1 < M) {                                                               \
                if (beta != 0.0) r += beta * *(__global const double2 *)c;                         \
                *(__global double2 *)c = r;                                                        \
            } else {                                                                               \
                if (beta != 0.0) r.x += beta * c[0];                                               \
                c[0] = r.x;                                                                        \
                if (m + 1 < M) c[1] = beta != 0.0 ? r.y + beta * c[1] : r.y;                       \
            }                                                                                      \
        }                                                                                          \
    } while (0)
#endif

/* ---- The epilogue's conversions -------------------------------------------------------- */
/* Not ptx.cl's f16_to_float, float_to_f16 and float_to_bf16: these are other code for the same
 * rounding (cvt.rn.f16.f32 on one half; BF16 rounded in integers, a NaN keeping its payload), and
 * taking ptx.cl's would change this kernel's PTX, the one its H200 measurements were made with. */

#if TYPE_C == TYPE_F16
DEV float c_read(const __global CT *c) {
    float f;
    asm("{\n.reg .b16 lo, hi;\nmov.b32 {lo, hi}, %1;\ncvt.f32.f16 %0, lo;\n}"
        : "=f"(f)
        : "r"((uint)*c));
    return f;
}
DEV CT c_value(const float v) {
    uint bits;
    asm("{\n.reg .b16 h;\ncvt.rn.f16.f32 h, %1;\nmov.b32 %0, {h, h};\n}" : "=r"(bits) : "f"(v));
    return (ushort)bits;
}
#elif TYPE_C == TYPE_BF16
DEV float c_read(const __global CT *c) {
    return bf16_to_float(*c);
}
/* Round to nearest even; NaN stays a (quiet) NaN. */
DEV CT c_value(const float v) {
    const uint u = as_uint(v);
    return (u & 0x7FFFFFFFu) > 0x7F800000u ? (ushort)((u >> 16) | 0x40u)
                                           : (ushort)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
#elif !DMMA /* (FP64's C is read and written as it is, in the epilogue) */
DEV float c_read(const __global CT *c) {
    return *c;
}
DEV CT c_value(const float v) {
    return v;
}
#endif
#if !DMMA
DEV void c_write(__global CT *c, const float v) {
    *c = c_value(v);
}
#endif

/* STAGE_C 2: a consumer warpgroup hands its accumulators (alpha times each, in C's type) to C
 * through 8 KiB of local memory, 128 bytes of column (64 FP16 or 32 FP32 columns) at a time,
 * so that C leaves in 16-byte pieces, eight or sixteen to a column's 64 rows, where each thread
 * would else store its values one by one, 2 or 4 bytes to a column in four columns at once.
 * Taken where beta is 0 and C's pieces are 16-byte aligned (offset, leading dimension, stride);
 * else (and STAGE_C 0, 1) the direct stores. A piece's 16 bytes sit at chunk q ^ (column & 7)
 * of its column, so that neither the scattered writes nor the pieces' reads share a bank. */
/* The 128 threads of consumer warpgroup wg (barrier 0 is the work-group's). */
DEV void warpgroup_sync(const uint wg) {
    asm volatile("bar.sync %0, 128;" ::"r"(wg + 1) : "memory");
}
#ifndef STAGE_C
#define STAGE_C 0
#endif
#if STAGE_C == 2
#define C_SIZE   ((int)sizeof(CT))
#define C_COLS   (128 / C_SIZE)         /* columns of a chunk */
#define C_PIECES (4 * C_SIZE)           /* 16-byte pieces of a column's 64 rows */
#define C_ROWS   (16 / C_SIZE)          /* rows of a piece */
#define C_STAGE  (64 * C_COLS * C_SIZE) /* 8192 bytes a consumer warpgroup */
#if TYPE_C == TYPE_I32
#define C_VALUE(a) as_int(alpha *(uint)(a))
#else
#define C_VALUE(a) c_value(alpha *(a))
#endif
/* Byte of row r, column col of a chunk. */
#define C_AT(r, col)                                                                               \
    ((col) * (64 * C_SIZE) + ((((r)*C_SIZE / 16) ^ ((col)&7)) << 4) + ((r)*C_SIZE) % 16)
#define STAGED_STORE()                                                                             \
    do {                                                                                           \
        __local uchar *const cs = c_stage + wg * C_STAGE;                                          \
        const int lane_c = tid % 32, warp_c = (tid / 32) % 4;                                      \
        _Pragma("unroll") for (int ch = 0; ch < NWG / C_COLS; ch++) {                              \
            _Pragma("unroll") for (int i = 0; i < C_COLS / 2; i++) {                               \
                const int x = i / 4, h = (i / 2) & 1, j = i & 1;                                   \
                const int col = 8 * x + 2 * (lane_c % 4) + j,                                      \
                          r = 16 * warp_c + lane_c / 4 + 8 * h;                                    \
                *(__local CT *)(cs + C_AT(r, col)) = C_VALUE(acc[ch * (C_COLS / 2) + i]);          \
            }                                                                                      \
            warpgroup_sync(wg);                                                                    \
            _Pragma("unroll") for (int i = 0; i < 4; i++) {                                        \
                const int p = i * 128 + (int)(tid % 128), col = p / C_PIECES, q = p % C_PIECES;    \
                const int n = n0 + ch * C_COLS + col, m = m0 + 64 * (int)wg + q * C_ROWS;          \
                const __local uchar *src = cs + C_AT(q * C_ROWS, col);                             \
                __global CT *c = Cu + (ulong)m + (ulong)n * (ulong)ldc;                            \
                if (n < N && m + C_ROWS <= M)                                                      \
                    *(__global uint4 *)c = *(const __local uint4 *)src;                            \
                else if (n < N)                                                                    \
                    for (int e = 0; e < C_ROWS && m + e < M; e++)                                  \
                        c[e] = ((const __local CT *)src)[e];                                       \
            }                                                                                      \
            warpgroup_sync(wg);                                                                    \
        }                                                                                          \
    } while (0)
#endif

/* The unit of work u (one tile of one layer of one matrix, of `tiles` tiles a layer): its tile
 * (m0, n0), its matrix zb in the maps' third dimension, its K slices from kbeg (nk of them) and
 * C moved to its block. */
#define UNIT_OF(u)                                                                                 \
    const ulong z_ = (u) / tiles;                                                                  \
    TILE_OF((int)((u)-z_ * tiles), m0, n0)                                                         \
    const ulong batch_ = layers == 1 ? z_ : z_ / (ulong)layers;                                    \
    const int layer = (int)(z_ - batch_ * (ulong)layers), zb = (int)batch_;                        \
    const int kbeg = (int)min((long)K, layer * kchunk), kend = (int)min((long)K, kbeg + kchunk);   \
    const int nk = (kend - kbeg + KWG - 1) / KWG;                                                  \
    __global CT *const Cu = C + offC + batch_ * strideC + (ulong)layer * (ulong)ldc * (ulong)N;

/* PERSIST 2: as many work-groups as the device holds at once (the host's grid, one dimension)
 * loop over the units, `depth` (matrices times layers) times the tiles of one; the producer runs
 * on into the next unit's slices while the consumers store the last one's. Else (0, 1) one unit
 * a work-group, from the grid (tiles_m x tiles_n x depth). */
#ifndef PERSIST
#define PERSIST 0
#endif
/* The work-group's units: persistent, a loop over them; else its one unit, run once in a way the
 * compiler sees through (so a tile's pipeline steps count from a constant 0, and the kernel is
 * the one-tile kernel it was). */
#ifndef STREAMK
#define STREAMK 0
#endif
#if STREAMK && PERSIST != 2
#error "stream-K runs on the persistent work-groups (PERSIST 2)"
#endif
#if STREAMK
/* Stream-K (one matrix, no split layers): the whole waves of tiles as above, then the remaining
 * tiles' K slices as one sequence cut into even ranges, one a work-group (common.cl's
 * sk_schedule; the host builds with SK_TAIL_WAVES 1, so only the last, partial wave is shared).
 * A unit is a piece: a tile and its slices [kb, ke). */
/* The schedule lives in local memory (sk_sch: iters, dp_waves, sk_start, sk_total, as
 * common.cl's sk_make; slices fit an int, the planner says), read afresh at each unit: kept in
 * registers through the products it pushed the kernel past its 168 and spilled them (8192^2
 * FP16 588 TFLOPS against 770, h200-tma-stream-k-l2-parts.log). A unit's only state is its
 * number u: whole tiles first, then the pieces of this work-group's range. */
DEV long sk_at(const __local int *sch, const long g) {
    return sch[2] + g * (long)sch[3] / (long)get_num_groups(0);
}
DEV bool sk_unit(const __local int *sch, const int u, int *tile, int *kb, int *ke) {
    const int iters = sch[0], dp = sch[1], me = get_group_id(0);
    if (u < dp) {
        *tile = me + u * (int)get_num_groups(0);
        *kb = 0;
        *ke = iters;
        return true;
    }
    const long first = sk_at(sch, me), end = sk_at(sch, me + 1);
    const long start = u == dp ? first : (first / iters + (u - dp)) * iters;
    if (start >= end) return false;
    *tile = (int)(start / iters);
    *kb = (int)(start - (long)*tile * iters);
    *ke = (int)min((long)iters, *kb + (end - start));
    return true;
}
#define FOR_EACH_UNIT(u)                                                                           \
    for (int u = 0, u##_tile, u##_kb, u##_ke; sk_unit(sk_sch, u, &u##_tile, &u##_kb, &u##_ke); u++)
#undef UNIT_OF
#define UNIT_OF(u)                                                                                 \
    TILE_OF(u##_tile, m0, n0)                                                                      \
    const int zb = 0, kbeg = u##_kb * KWG, nk = u##_ke - u##_kb;                                   \
    __global CT *const Cu = C + offC;
#elif PERSIST == 2
#define FOR_EACH_UNIT(u) for (ulong u = first_unit; u < units; u += unit_step)
#else
#define FOR_EACH_UNIT(u) for (ulong u = first_unit, once_ = 1; once_; once_ = 0)
#endif
/* A tile's last stage goes back after its last products, for the next tile: AREG with one set
 * has given it already. */
#if PERSIST == 2 && !(AREG && AREG_SETS == 1) && !OWN_LOADS
#define TAIL_ARRIVE 1
#else
#define TAIL_ARRIVE 0
#endif

#if STREAMK
/* The workspace: a counter per stream-K tile and consumer warpgroup (zero between calls: the
 * host zeroes them once, the last part of each tile resets its own), then two slots a
 * work-group of a tile's accumulators in the consumers' order (its range's first and last
 * pieces, where a range boundary cuts them). */
#define SK_COUNTERS(groups) (((groups)*4 * 4 + 255) / 256 * 64) /* uints, 256-byte multiple */
#define STREAMK_ARGS        , __global uint *restrict sk_work
/* The parts of a tile cut by range boundaries: each of its work-groups stores its accumulators
 * in its slot and counts itself in; the last to come (for this warpgroup's rows) adds all the
 * parts in work-group order, from the slots, so results are the same run to run, and stores C
 * as any tile; the others go on to their next piece (a block, not a do-while, so that its
 * `continue` reaches the unit loop). Nothing waits on another work-group. */
/* Work-group g's slot for the tile starting at slice t0, at this thread's place in it: slot 0
 * where g's range starts in the tile (its first piece), 1 where it started before (its last). */
#define SK_SLOT(g)                                                                                 \
    (parts +                                                                                       \
     (ulong)(2 * (g) + (sk_at(sk_sch, g) >= t0 ? 0 : 1)) * (ulong)(CONSUMERS * NACC * 128) + at)
#define SK_PARTS(tile)                                                                             \
    {                                                                                              \
        const long groups_ = get_num_groups(0), sk_me = get_group_id(0);                           \
        const long t0 = (long)(tile)*sk_sch[0], t1 = t0 + sk_sch[0];                               \
        __global ACC_T *parts = (__global ACC_T *)(sk_work + SK_COUNTERS(groups_));                \
        const uint at = wg * (NACC * 128) + tid % 128;                                             \
        __global ACC_T *mine = SK_SLOT(sk_me);                                                     \
        _Pragma("unroll") for (int e = 0; e < NACC; e++) mine[e * 128] = acc[e];                   \
        warpgroup_sync(wg); /* the warpgroup's part is stored (and the accumulators free) */       \
        long g0 = (t0 - sk_sch[2]) * groups_ / sk_sch[3]; /* the range holding t0 */               \
        while (g0 > 0 && sk_at(sk_sch, g0) > t0)                                                   \
            g0--;                                                                                  \
        while (sk_at(sk_sch, g0 + 1) <= t0)                                                        \
            g0++;                                                                                  \
        uint parts_n = 0;                                                                          \
        for (long g = g0; g < groups_ && sk_at(sk_sch, g) < t1; g++)                               \
            parts_n += sk_at(sk_sch, g + 1) > sk_at(sk_sch, g);                                    \
        if (tid % 128 == 0) {                                                                      \
            volatile __global uint *count =                                                        \
                sk_work + ((ulong)(tile) - (ulong)sk_sch[1] * (ulong)groups_) * CONSUMERS + wg;    \
            const uint before = sk_count_in(count);                                                \
            sk_last[wg] = before + 1 == parts_n;                                                   \
            if (before + 1 == parts_n) *count = 0; /* every part has come: ready for the next */   \
        }                                                                                          \
        warpgroup_sync(wg);                                                                        \
        if (!sk_last[wg]) continue;                                                                \
        /* The sum goes into the first part's slot, element by element (the accumulators are       \
         * dead meanwhile: a second set of them beside in-flight loads would not fit 168           \
         * registers), then comes back into them; reads from L2, as other SMs wrote the parts. */  \
        __global ACC_T *sum = SK_SLOT(g0);                                                         \
        for (long g = g0 + 1; g < groups_ && sk_at(sk_sch, g) < t1; g++) {                         \
            if (sk_at(sk_sch, g + 1) == sk_at(sk_sch, g)) continue; /* an empty range */           \
            const __global ACC_T *part = SK_SLOT(g);                                               \
            _Pragma("unroll 8") for (int e = 0; e < NACC; e++) sum[e * 128] =                      \
                SK_ADD(sk_load(sum + e * 128), sk_load(part + e * 128));                           \
        }                                                                                          \
        _Pragma("unroll") for (int e = 0; e < NACC; e++) acc[e] = sk_load(sum + e * 128);          \
    }
/* Adds one to *count and returns what it held, between two device-wide fences: the parts this
 * warpgroup stored (ordered before by its barrier) are visible to whoever counts in after, and
 * the parts of those who counted in before are visible here. */
DEV uint sk_count_in(volatile __global uint *count) {
    uint before;
    asm volatile("membar.gl;\n\tatom.global.add.u32 %0, [%1], 1;\n\tmembar.gl;"
                 : "=r"(before)
                 : "l"(count)
                 : "memory");
    return before;
}
/* A part's value from L2 (ld.global.cg: another SM stored it, so this SM's L1 may not have it
 * right). Not volatile: the loads of a part pipeline (volatile ones each waited for the one
 * before and made the sums cost more than the wave they saved). The clobber keeps them after
 * the count and after this thread's own stores to the sum. */
#if DMMA
DEV ACC_T sk_load(const __global ACC_T *p) {
    ulong v;
    asm volatile("ld.global.cg.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return as_double(v);
}
#else
DEV ACC_T sk_load(const __global ACC_T *p) {
    uint v;
    asm volatile("ld.global.cg.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
#if WG_TYPE == 3
    return as_int(v);
#else
    return as_float(v);
#endif
}
#endif
#if WG_TYPE == 3
#define SK_ADD(a, b) as_int(as_uint(a) + as_uint(b)) /* INT32 wraps, as the tensor cores' sums */
#else
#define SK_ADD(a, b) ((a) + (b))
#endif
#else
#define STREAMK_ARGS
#endif

__attribute__((reqd_work_group_size(NTHREADS, 1, 1))) __kernel void
clgemm_tma(GEMM_ARGS, const __global uchar *restrict maps, const ulong depth STREAMK_ARGS) {
    __local uchar stages[STAGES * STAGE] __attribute__((aligned(1024)));
    __local ulong bars[2 * STAGES];
#if STAGE_C == 2
    __local uchar c_stage[CONSUMERS * C_STAGE] __attribute__((aligned(16)));
    /* C's 16-byte pieces stay aligned in every matrix and layer. */
    const bool c_pieces = (offC | strideC | (ulong)ldc) * sizeof(CT) % 16 == 0;
#endif
    const uint tid = get_local_id(0), wg = tid / 128;
    const int tiles_m = (M + MWG - 1) / MWG, tiles_n = (N + NWG - 1) / NWG;
    const ulong tiles = (ulong)tiles_m * (ulong)tiles_n;
#if STREAMK
    __local int sk_sch[4];
    __local uint sk_last[CONSUMERS];
    if (tid == 0) {
        const sk_schedule sk = sk_make(M, N, K, MWG, NWG, KWG, get_num_groups(0));
        sk_sch[0] = sk.iters;
        sk_sch[1] = sk.dp_waves;
        sk_sch[2] = (int)sk.sk_start;
        sk_sch[3] = (int)sk.sk_total;
    }
    (void)tiles;
    (void)depth;
#elif PERSIST == 2
    const ulong first_unit = get_group_id(0), units = tiles * depth, unit_step = get_num_groups(0);
#else
    const ulong first_unit =
        get_global_id(2) * tiles + get_group_id(0) + (ulong)get_group_id(1) * (ulong)tiles_m;
    (void)depth;
#endif
    /* A layer's K range: whole slices (ptx.cl's GEMM_BEGIN_LAYER). A and B travel by their maps. */
    const long kchunk = ((long)K + layers * KWG - 1) / (layers * KWG) * KWG;
    const REAL alpha = alpha_arg, beta = beta_arg;
    (void)A;
    (void)B;
    (void)table;

    const uint full0 = local_addr(bars), empty0 = full0 + 8 * SLOTS;
    const uint base = local_addr(stages);
    if (tid == 0) {
        for (int s = 0; s < SLOTS; s++) {
            mbar_init(full0 + 8 * s, 1);
            /* FFMA, DMMA: every consumer thread hands the stage back once its loads are done */
            mbar_init(empty0 + 8 * s, OWN_LOADS ? 128 * CONSUMERS : CONSUMERS);
        }
        mbar_init_fence();
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* the last work-group barrier: the producer leaves early */

    if (wg == CONSUMERS) { /* the producer: one thread issues every copy */
#if SETMAXNREG == 2
        asm volatile("// @setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(PRODUCER_REGS));
#endif
        if (tid != 128 * CONSUMERS) return;
#if !SPLIT3 || PAIRED || AREG3
        const __global uchar *map_a = maps, *map_b = maps + 128;
#endif
        int g = 0; /* pipeline steps so far, over the units */
        FOR_EACH_UNIT(u) {
            UNIT_OF(u)
            (void)Cu;
            for (int t = 0; t < nk * STEPS; t++, g++) {
                const int s = g % SLOTS, k0 = kbeg + t / STEPS * KWG;
#if SPLIT3 && !PAIRED && !AREG3 /* part 1 reads A's small part, part 2 B's */
                const int part = t % PARTS;
                const __global uchar *map_a = maps + (part == 1 ? 256 : 0);
                const __global uchar *map_b = maps + (part == 2 ? 384 : 128);
#endif
                const uint a = base + s * SLOT, b = a + A_BYTES, full = full0 + 8 * s;
                if (g >= SLOTS) mbar_wait(empty0 + 8 * s, (g / SLOTS - 1) & 1);
                mbar_expect_bytes(full, SLOT);
                COPY_SLICE(a, map_a, m0, MWG, A_MN);
                COPY_SLICE(b, map_b, n0, NWG, B_MN);
#if PAIRED /* the small parts in the stage's second slot */
                COPY_SLICE(a + STAGE, maps + 256, m0, MWG, A_MN);
                COPY_SLICE(b + STAGE, maps + 384, n0, NWG, B_MN);
#elif AREG3 /* B's small part after its big one */
                COPY_SLICE(b + B_BYTES, maps + 384, n0, NWG, B_MN);
#endif
            }
        }
        return;
    }

#if SETMAXNREG == 2
    asm volatile("// @setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(CONSUMER_REGS));
#endif
    /* A consumer warpgroup: rows CONSUMER_ROWS wg .. of each tile, all NWG columns. */
    ACC_T acc[NACC];
#if FFMA
    const uint fx = tid % FXT, fy = (tid % 128) / FXT;
    FFMA_OFFSETS()
#elif DMMA
    DMMA_OFFSETS()
#endif
#if AREG
    const uint lane_ = tid % 32, warp_ = (tid / 32) % 4, g_ = lane_ / 4, quad = lane_ % 4;
    const uint row = (2 * wg + warp_ / 2) * (KWG * 128) + (g_ & 3) * 4;
    const uint chunk = 4 * (warp_ & 1) + g_ / 4;
    uint fr0[FR_COUNT];
#if AREG_SETS == 2
    uint fr1[FR_COUNT];
#endif
#endif
    int g = 0; /* pipeline steps so far, over the units */
    FOR_EACH_UNIT(u) {
        UNIT_OF(u)
        (void)zb;
#pragma unroll
        for (int e = 0; e < NACC; e++)
            acc[e] = 0;
#if AREG
        int t = 0;
#if AREG_SETS == 2
        for (; t + 1 < nk; t += 2) {
            AREG_SLICE(g + t, t, fr0);
            AREG_SLICE(g + t + 1, t + 1, fr1);
        }
#endif
        for (; t < nk; t++)
            AREG_SLICE(g + t, t, fr0);
#elif OWN_LOADS
        for (int t = 0; t < nk; t++) {
            const int s = (g + t) % SLOTS;
            mbar_wait(full0 + 8 * s, ((g + t) / SLOTS) & 1);
#if FFMA
            FFMA_SLICE((uint)s * SLOT);
#else
            DMMA_SLICE((uint)s * SLOT);
#endif
            mbar_arrive(empty0 + 8 * s); /* this thread's loads of the stage are done */
        }
#else
        for (int t = 0; t < nk * STEPS; t++) {
            const int s = (g + t) % SLOTS;
            mbar_wait(full0 + 8 * s, ((g + t) / SLOTS) & 1);
            const uint a = base + s * SLOT + wg * (A_MN ? KWG * 128 : 64 * 128);
            const uint b = base + s * SLOT + A_BYTES;
            asm volatile("// @wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
            for (int p = 0; p < PRODUCTS; p++) { /* paired: big big, small big, big small */
                const uint pa = a + (p == 1 ? STAGE : 0), pb = b + (p == 2 ? STAGE : 0);
#pragma unroll
                for (int ks = 0; ks < KWG / KSTEP; ks++) {
                    const ulong da = STEP_DESC(pa, ks, A_MN), db = STEP_DESC(pb, ks, B_MN);
                    WGMMA_STEP(acc, da, db, (uint)(t > 0 || p > 0 || ks > 0));
                }
            }
            asm volatile("// @wgmma.commit_group.sync.aligned;" ::: "memory");
            /* The previous slice's products are done: its stage goes back to the producer. */
            asm volatile("// @wgmma.wait_group.sync.aligned 1;" ::: "memory");
            if (t > 0 && tid % 128 == 0) mbar_arrive(empty0 + 8 * ((g + t - 1) % SLOTS));
        }
#endif
#if !OWN_LOADS
        asm volatile("// @wgmma.wait_group.sync.aligned 0;" ::: "memory");
#endif
#if STREAMK && !OWN_LOADS
        /* The accumulators defined anew here, after the last wait: a copy the compiler makes of
         * them (the stream-K paths join before the stores) then cannot come before it, where
         * ptxas serialised every wgmma for it (C7514; docs/TENSOR_CORES.md). On the H200 the note
         * is gone with it (bench/results/h200-tma-stream-k-fenced.log). */
        asm volatile("" : WG_ACC(NWG, ACC_C, acc));
#endif
        g += nk * STEPS;
        /* The tile's last stage, whose products are now done, goes back for the next tile. */
        if (TAIL_ARRIVE && nk > 0 && tid % 128 == 0) mbar_arrive(empty0 + 8 * ((g - 1) % SLOTS));
#if STREAMK
        /* The unit again, from local memory (kept from its start, its numbers would hold
         * registers through the products), and whether range boundaries cut its tile. */
        int sk_tile, sk_kb, sk_ke;
        sk_unit(sk_sch, u, &sk_tile, &sk_kb, &sk_ke);
        if (sk_kb != 0 || sk_ke != sk_sch[0]) {
            SK_PARTS(sk_tile) /* (its `continue` goes on to the next unit) */
        }
#endif

#if STAGE_C == 2
        if (beta == 0 && c_pieces) {
            STAGED_STORE();
            continue;
        }
#endif
#if FFMA_RUNS
        FFMA_STORE_RUNS();
        continue; /* (the stores below are element by element) */
#elif DMMA_PAIRS
        DMMA_STORE_PAIRS();
        continue;
#endif
#if FFMA
        /* Accumulator i FN + j at row FROW(i), column FCOL(j). */
#pragma unroll
        for (int e = 0; e < NACC; e++) {
            const int m = m0 + CONSUMER_ROWS * (int)wg + FROW(e / FN), n = n0 + FCOL(e % FN);
#elif DMMA
#pragma unroll
        for (int e = 0; e < NACC; e++) {
            DMMA_C_AT(e)
#else
        /* Accumulator x*4 + h*2 + j at row 16 warp + lane/4 + 8 h, column 8 x + 2 (lane % 4) + j
         * of the warpgroup's 64 x NWG block. */
        const uint lane = tid % 32, warp = (tid / 32) % 4;
#pragma unroll
        for (int e = 0; e < NACC; e++) {
            const int x = e / 4, h = (e / 2) & 1, j = e & 1;
            const int m = m0 + 64 * (int)wg + (int)(16 * warp + lane / 4) + 8 * h;
            const int n = n0 + 8 * x + (int)(2 * (lane % 4)) + j;
#endif
            if (m < M && n < N) {
                __global CT *c = Cu + (ulong)m + (ulong)n * (ulong)ldc;
#if TYPE_C == TYPE_I32 /* uint arithmetic: wraps modulo 2^32, two's complement bits */
                uint v = alpha * (uint)acc[e];
                if (beta != 0) v += beta * as_uint(*c);
                *c = as_int(v);
#elif DMMA
                double r = alpha * acc[e];
                if (beta != 0.0) r += beta * *c;
                *c = r;
#else
                float v = alpha * acc[e];
                if (beta != 0.0f) v += beta * c_read(c);
                c_write(c, v);
#endif
            }
        }
    }
}
