/* common.cl: what every clgemm kernel shares. The host prepends types.cl and this file to each
 * family's source.
 *
 * The problem is always column-major here (the host turns a row-major call into the
 * column-major transpose of it): C is M x N with C(i, j) at C[i + j * ldc], op(A) is M x K and
 * op(B) is K x N. TRANSA / TRANSB (0 or 1) pick how A and B are read and CONJA / CONJB (0 or 1)
 * whether their elements are conjugated (complex types); they are build options, so each
 * combination is its own program and the kernels carry no run-time branch on it. */
#ifndef TRANSA
#define TRANSA 0
#endif
#ifndef TRANSB
#define TRANSB 0
#endif
#ifndef CONJA
#define CONJA 0
#endif
#ifndef CONJB
#define CONJB 0
#endif

/* Arithmetic on REAL: acc += a * b, a * b, v == 0 (complex multiplication where NCOMP is 2). */
#if NCOMP == 2
#define MUL(a, b)       ((REAL)((a).x * (b).x - (a).y * (b).y, (a).x * (b).y + (a).y * (b).x))
#define MADD(acc, a, b) ((acc) += MUL(a, b))
#define IS_ZERO(v)      ((v).x == 0 && (v).y == 0)
#define CONJ(v)         ((REAL)((v).x, -(v).y))
#else
#define MUL(a, b)       ((a) * (b))
#define MADD(acc, a, b) ((acc) += (a) * (b))
#define IS_ZERO(v)      ((v) == 0)
#define CONJ(v)         (v)
#endif
#if CONJA
#define OPA(v) CONJ(v)
#else
#define OPA(v) (v)
#endif
#if CONJB
#define OPB(v) CONJ(v)
#else
#define OPB(v) (v)
#endif

/* Element (i, p) of op(A) and (p, j) of op(B) as REALs, after the offsets were added to A and
 * B. */
#if TRANSA == 0
#define A_AT(i, p) OPA(LOAD_AB(A, (i) + (p)*lda))
#else
#define A_AT(i, p) OPA(LOAD_AB(A, (p) + (i)*lda))
#endif
#if TRANSB == 0
#define B_AT(p, j) OPB(LOAD_AB(B, (p) + (j)*ldb))
#else
#define B_AT(p, j) OPB(LOAD_AB(B, (j) + (p)*ldb))
#endif
#define C_INDEX(i, j) ((i) + (j)*ldc)

/* The argument list every GEMM kernel takes: gemm_args.h's GEMM_ARG_LIST, which the host also
 * sets by (src/exec/gemm.c). Offsets are in elements; the host has checked that every index
 * below fits in an int. Batches: the third grid dimension (work-group depth 1) numbers
 * batch * layers + layer, where layers > 1 only for a split K. Matrix b starts at
 * off + b * stride (strides in elements, 0 broadcasts), or, built with BATCH_TABLE, at off + the
 * b-th record of `table`: 8 ulongs per matrix, the offsets of A, B and C in 0..2, alpha at 4 and
 * beta at 6 (16-byte slots, so every REAL fits). TABLE_C says whether C's offset and beta come
 * from the table too (not when C is a split-K workspace, which is strided). A kernel's own
 * arguments follow GEMM_ARGS in its signature, each written once (regblock's STREAMK_ARGS).
 *
 * The type of each kind of argument. AB and C point to the storage of types.cl; a kernel that
 * keeps its elements in other types (the tensor-core kernels: FP16/BF16 as ushort bits) redefines
 * GEMM_ARG_TYPE_AB and GEMM_ARG_TYPE_C before its signature (cl/ptx.cl). */
#define GEMM_ARG_TYPE_INT    const int
#define GEMM_ARG_TYPE_ULONG  const ulong
#define GEMM_ARG_TYPE_SCALAR const REAL
#define GEMM_ARG_TYPE_AB     const __global AB_T *restrict
#define GEMM_ARG_TYPE_C      __global C_T *restrict
#define GEMM_ARG_TYPE_TABLE  const __global ulong *restrict
/* Each argument as ", type name"; the leading comma of the first is dropped (GEMM_DROP_FIRST_
 * expands the list before GEMM_DROP_ splits it at its first comma). */
#define GEMM_PARAM_(name, kind) , GEMM_ARG_TYPE_##kind name
#define GEMM_DROP_(empty, ...)  __VA_ARGS__
#define GEMM_DROP_FIRST_(...)   GEMM_DROP_(__VA_ARGS__)
#define GEMM_ARGS               GEMM_DROP_FIRST_(GEMM_ARG_LIST(GEMM_PARAM_))

#ifndef BATCH_TABLE
#define BATCH_TABLE 0
#endif
/* ALIGNED_A, ALIGNED_B: 1 only where the host checked that the operand's offset, leading
 * dimension and batch offsets keep 16-byte chunks aligned (families whose kernels copy or load
 * 16 bytes at a time ask for them: their call_options). */
#ifndef ALIGNED_A
#define ALIGNED_A 0
#endif
#ifndef ALIGNED_B
#define ALIGNED_B 0
#endif
#ifndef TABLE_C
#define TABLE_C 0
#endif

/* Diagnostic only, never for results (NVIDIA): with DIAG_RESIDENCY=1 a tensor-core kernel
 * records, after its epilogue, its multiprocessor (%smid) and its start and end times
 * (%globaltimer, ns) in the first 24 bytes of its own tile's first column of C, so that the host
 * can count how many work-groups each SM really ran at once (OpenCL has no occupancy query).
 * Thread 0 writes after a barrier, so no other write of the work-group lands there later. */
#ifndef DIAG_RESIDENCY
#define DIAG_RESIDENCY 0
#endif
#if DIAG_RESIDENCY
#define DIAG_RESIDENCY_START                                                                       \
    ulong diag_t0_;                                                                                \
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(diag_t0_));
#define DIAG_RESIDENCY_END(m0, n0)                                                                 \
    barrier(CLK_GLOBAL_MEM_FENCE);                                                                 \
    if (get_local_id(0) == 0) {                                                                    \
        uint sm_;                                                                                  \
        ulong t1_;                                                                                 \
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm_));                                           \
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1_));                                    \
        __global uint *r_ = (__global uint *)(C + (ulong)(m0) + (ulong)(n0) * (ulong)ldc);         \
        r_[0] = sm_;                                                                               \
        r_[1] = (uint)diag_t0_;                                                                    \
        r_[2] = (uint)(diag_t0_ >> 32);                                                            \
        r_[3] = (uint)t1_;                                                                         \
        r_[4] = (uint)(t1_ >> 32);                                                                 \
        r_[5] = 0x600dcafeu;                                                                       \
    }
#else
#define DIAG_RESIDENCY_START
#define DIAG_RESIDENCY_END(m0, n0)
#endif

/* Moves A, B and C to this work-group's matrix and defines alpha, beta and `layer` (its split-K
 * layer, 0 without a split). The batch index runs in ulong: batch * stride exceeds an int. */
#if BATCH_TABLE
#define BATCH_C_(batch)                                                                            \
    const __global ulong *rec_ = table + 8 * (batch);                                              \
    A += offA + rec_[0];                                                                           \
    B += offB + rec_[1];                                                                           \
    const REAL alpha = *(const __global REAL *)(rec_ + 4);                                         \
    BATCH_TABLE_C_(batch)
#if TABLE_C
#define BATCH_TABLE_C_(batch)                                                                      \
    C += offC + rec_[2];                                                                           \
    const REAL beta = *(const __global REAL *)(rec_ + 6);
#else
#define BATCH_TABLE_C_(batch)                                                                      \
    C += offC + (batch)*strideC;                                                                   \
    const REAL beta = beta_arg;
#endif
#else
#define BATCH_C_(batch)                                                                            \
    A += offA + (batch)*strideA;                                                                   \
    B += offB + (batch)*strideB;                                                                   \
    C += offC + (batch)*strideC;                                                                   \
    const REAL alpha = alpha_arg, beta = beta_arg;
#endif
#define GEMM_BEGIN                                                                                 \
    const ulong z_ = get_global_id(2);                                                             \
    const ulong batch_ = layers == 1 ? z_ : z_ / (ulong)layers;                                    \
    const int layer = (int)(z_ - batch_ * (ulong)layers);                                          \
    BATCH_C_(batch_)

/* Tile number pid of a tm x tn grid of MT x NT tiles walked in bands of `group` tile rows,
 * column by column inside a band, so that the work-groups running at once share panels of A and
 * B in L2: its origin (i0, j0). */
#define TILE_IN_BAND(pid, tm, tn, group, MT, NT, i0, j0)                                           \
    const int band_ = (pid) / ((group) * (tn)), first_ = band_ * (group);                          \
    const int rows_ = min((tm)-first_, (group)), in_band_ = (pid)-band_ * (group) * (tn);          \
    const int i0 = (first_ + in_band_ % rows_) * (MT), j0 = in_band_ / rows_ * (NT);
/* The 2-D grid's work-group's tile in that order. */
#define TILE_ORIGIN_IN_BANDS(group, MT, NT, i0, j0)                                                \
    const int tiles_m_ = (M + (MT)-1) / (MT), tiles_n_ = (N + (NT)-1) / (NT);                      \
    TILE_IN_BAND((int)get_group_id(0) + (int)get_group_id(1) * tiles_m_, tiles_m_, tiles_n_,       \
                 group, MT, NT, i0, j0)

/* The work-group's tile of C, MT x NT from (i0, j0): by its 2-D group ids, or, built with
 * LINEAR_TILES (a launch over the first tiles of the grid, in the order a 2-D grid is dispatched:
 * down each column of tiles, then the next column), by its number along a 1-D grid, so that such
 * a launch can end after whole waves of work-groups where no rectangle of tiles would. Built with
 * TILE_BANDS = n > 1 (the mma family's FP64 builds, src/families/mma.c says why; other kernels
 * only through CLGEMM_BUILD_OPTIONS, to measure: run.sh tile-bands), the 2-D grid's tiles in
 * bands of n tile rows. */
#ifndef LINEAR_TILES
#define LINEAR_TILES 0
#endif
#ifndef TILE_BANDS
#define TILE_BANDS 1
#endif
#if LINEAR_TILES
#define GEMM_TILE_ORIGIN(MT, NT, i0, j0)                                                           \
    const int tiles_m_ = (M + (MT)-1) / (MT), tile_ = (int)get_group_id(0);                        \
    const int i0 = tile_ % tiles_m_ * (MT), j0 = tile_ / tiles_m_ * (NT);
#elif TILE_BANDS > 1
#define GEMM_TILE_ORIGIN(MT, NT, i0, j0) TILE_ORIGIN_IN_BANDS(TILE_BANDS, MT, NT, i0, j0)
#else
#define GEMM_TILE_ORIGIN(MT, NT, i0, j0)                                                           \
    const int i0 = (int)get_group_id(0) * (MT), j0 = (int)get_group_id(1) * (NT);
#endif

/* The elementwise kernels' (scale.cl, reduce.cl) start: C moved to matrix `batch` (the third
 * grid dimension), its beta, and (i, j); work-items outside the M x N block return. */
#if BATCH_TABLE
#define ELEMENTWISE_C_(batch)                                                                      \
    C += offC + table[8 * (batch) + 2];                                                            \
    const REAL beta = *(const __global REAL *)(table + 8 * (batch) + 6);
#else
#define ELEMENTWISE_C_(batch)                                                                      \
    C += offC + (batch)*strideC;                                                                   \
    const REAL beta = beta_arg;
#endif
#define ELEMENTWISE_BEGIN                                                                          \
    const ulong batch = get_global_id(2);                                                          \
    ELEMENTWISE_C_(batch)                                                                          \
    const int i = get_global_id(0);                                                                \
    const int j = get_global_id(1);                                                                \
    if (i >= M || j >= N) return;

/* alpha * acc; in a table batch a matrix may have alpha 0, and then (BLAS) A and B must not
 * reach the result, NaN included. */
#if BATCH_TABLE
#define ALPHA_TIMES(acc) (IS_ZERO(alpha) ? (REAL)0 : MUL(alpha, (acc)))
#else
#define ALPHA_TIMES(acc) MUL(alpha, (acc))
#endif

/* C(i, j) = alpha * acc + beta * C(i, j); when beta is 0, C is not read (BLAS: NaN in C must
 * not reach the result). */
#define STORE_C(i, j, acc)                                                                         \
    do {                                                                                           \
        const int at_ = C_INDEX(i, j);                                                             \
        REAL r_ = ALPHA_TIMES(acc);                                                                \
        if (!IS_ZERO(beta)) r_ += MUL(beta, LOAD_C(C, at_));                                       \
        STORE_ELEM(C, at_, r_);                                                                    \
    } while (0)

/* Stream-K (Osama et al., PPoPP 2023, in CUTLASS's "data-parallel waves + stream-K tail" form):
 * a grid of `groups` work-groups, about what the device holds at once, shares the tiles of C.
 * Each tile is `iters` K-slices deep. All but the last one or two waves' worth of tiles are
 * whole tiles, tile g + w * groups for work-group g (data-parallel waves); the remaining tiles'
 * slices, counted as one sequence, are cut into `groups` even ranges, one per work-group. A
 * tile that a range boundary cuts is done in parts: each part goes to its work-group's slot of
 * a workspace (slot 0 for a part that starts its range, slot 1 for one that ends it) and the
 * fix-up kernel (streamk.cl) adds them in work-group order, so results are the same run to run.
 * Nothing waits on another work-group, so no forward-progress guarantee is needed. */
/* How many waves' worth of tiles, at most, the stream-K part shares out (the rest run whole).
 * The host already runs a large problem's whole waves as a plain launch (src/gemm.c,
 * launch_streamk), so these in-kernel waves rarely start; a version without them measured 23.7
 * TFLOPS instead of 28.1 on the H200's narrow shapes (64 x 8192 x 8192, same schedule: the
 * compiler's code for the loop changed), so they stay. */
#ifndef SK_TAIL_WAVES
#define SK_TAIL_WAVES 2
#endif
typedef struct sk_schedule {
    long groups;
    int tiles_m, iters, dp_waves;
    long sk_start, sk_total; /* the stream-K part: first slice and number of slices */
} sk_schedule;

sk_schedule sk_make(int M, int N, int K, int mt, int nt, int kt, long groups) {
    sk_schedule s;
    s.groups = groups;
    s.tiles_m = (M + mt - 1) / mt;
    const long tiles = (long)s.tiles_m * ((N + nt - 1) / nt);
    s.iters = (K + kt - 1) / kt;
    const long full = tiles / groups;
    s.dp_waves = full >= SK_TAIL_WAVES ? (int)(full - (SK_TAIL_WAVES - 1)) : 0;
    s.sk_start = s.dp_waves * groups * s.iters;
    s.sk_total = (tiles - s.dp_waves * groups) * s.iters;
    return s;
}

/* The first slice of work-group g's stream-K range (g = groups: the end of the last one). */
long sk_beg(const sk_schedule *s, long g) {
    return s->sk_start + g * s->sk_total / s->groups;
}

/* Work-group g's next tile and slices [kb, ke) of it; *dp and *it carry its progress (start
 * at 0 and sk_beg(g)); *start is the segment's first slice in the sequence. False when done. */
bool sk_next(const sk_schedule *s, long g, int *dp, long *it, int *tile, int *kb, int *ke,
             long *start) {
    if (*dp < s->dp_waves) {
        *tile = (int)(g + *dp * s->groups);
        *kb = 0;
        *ke = s->iters;
        *start = -1;
        (*dp)++;
        return true;
    }
    const long end = sk_beg(s, g + 1);
    if (*it >= end) return false;
    *tile = (int)(*it / s->iters);
    *kb = (int)(*it % s->iters);
    *ke = (int)min((long)s->iters, *kb + (end - *it));
    *start = *it;
    *it += *ke - *kb;
    return true;
}
