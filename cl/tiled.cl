/* tiled.cl: each work-group stages TS x TS tiles of op(A) and op(B) in local memory, so every
 * element read from global memory serves TS multiply-adds instead of one. Work-group TS x TS,
 * one element of C per work-item. Edge tiles are zero-padded, and every work-item, inside C or
 * not, reaches both barriers of every phase. */
#ifndef TS
#define TS 16
#endif

__kernel __attribute__((reqd_work_group_size(TS, TS, 1))) void clgemm_tiled(GEMM_ARGS) {
    __local REAL Asub[TS][TS]; /* Asub[q][r] = op(A)(i0 + r, p0 + q) */
    __local REAL Bsub[TS][TS]; /* Bsub[c][q] = op(B)(p0 + q, j0 + c) */
    GEMM_BEGIN
    const int li = get_local_id(0), lj = get_local_id(1);
    const int i0 = get_group_id(0) * TS, j0 = get_group_id(1) * TS;
    REAL acc = (REAL)0;
    for (int p0 = 0; p0 < K; p0 += TS) {
        /* Consecutive work-items (li) read consecutive addresses whatever the transpose. */
#if TRANSA == 0
        const int ai = i0 + li, ap = p0 + lj;
        Asub[lj][li] = (ai < M && ap < K) ? A_AT(ai, ap) : (REAL)0;
#else
        const int ai = i0 + lj, ap = p0 + li;
        Asub[li][lj] = (ai < M && ap < K) ? A_AT(ai, ap) : (REAL)0;
#endif
#if TRANSB == 0
        const int bp = p0 + li, bj = j0 + lj;
        Bsub[lj][li] = (bp < K && bj < N) ? B_AT(bp, bj) : (REAL)0;
#else
        const int bp = p0 + lj, bj = j0 + li;
        Bsub[li][lj] = (bp < K && bj < N) ? B_AT(bp, bj) : (REAL)0;
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int q = 0; q < TS; q++)
            MADD(acc, Asub[q][li], Bsub[lj][q]);
        barrier(CLK_LOCAL_MEM_FENCE); /* the next phase overwrites the tiles */
    }
    const int i = i0 + li, j = j0 + lj;
    if (i < M && j < N) STORE_C(i, j, acc);
}
