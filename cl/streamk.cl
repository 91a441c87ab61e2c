/* streamk.cl: the second step of a stream-K call (the schedule is in common.cl). The GEMM
 * kernel wrote the parts of every tile that a range boundary cut into its work-groups' workspace
 * slots (mt x nt each, column-major, raw sums); this adds the parts of each such tile in
 * work-group order and stores C = alpha * sum + beta * C (C not read when beta is 0). One
 * work-group layer per range boundary b (between work-groups b - 1 and b): the first boundary
 * inside a tile does that tile; the others return at once. */
__kernel void clgemm_streamk_fixup(const int M, const int N, const int K, const int mt,
                                   const int nt, const int kt, const int groups, const REAL alpha,
                                   const REAL beta, const __global REAL *restrict work,
                                   __global C_T *restrict C, const ulong offC, const int ldc) {
    const sk_schedule s = sk_make(M, N, K, mt, nt, kt, groups);
    const long b = (long)get_global_id(2) + 1, x = sk_beg(&s, b);
    const long t = x / s.iters, t0 = t * s.iters, t1 = t0 + s.iters;
    /* A boundary on a tile's edge cuts nothing; a second one in the same tile is not its first. */
    if (x == t0 || sk_beg(&s, b - 1) > t0) return;
    const int ii = get_global_id(0), jj = get_global_id(1);
    const int i = (int)(t % s.tiles_m) * mt + ii, j = (int)(t / s.tiles_m) * nt + jj;
    if (ii >= mt || jj >= nt || i >= M || j >= N) return;
    const ulong slot_size = (ulong)mt * (ulong)nt, at = (ulong)ii + (ulong)jj * (ulong)mt;
    REAL sum = (REAL)0;
    for (long g = b - 1; g < groups; g++) {
        const long gb = sk_beg(&s, g);
        if (gb >= t1) break;
        if (sk_beg(&s, g + 1) == gb) continue; /* an empty range wrote nothing */
        sum += work[((ulong)g * 2 + (gb >= t0 ? 0 : 1)) * slot_size + at];
    }
    C += offC;
    const int c_at = C_INDEX(i, j);
    REAL r = MUL(alpha, sum);
    if (!IS_ZERO(beta)) r += MUL(beta, LOAD_C(C, c_at));
    STORE_ELEM(C, c_at, r);
}
