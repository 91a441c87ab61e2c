/* streamk.cl: the second step of a stream-K call (the schedule is in common.cl). The GEMM
 * kernel wrote the parts of every tile that a range boundary cut into its work-groups' workspace
 * slots (mt x nt each, column-major, raw sums); this adds the parts of each such tile in
 * work-group order and stores C = alpha * sum + beta * C (C not read when beta is 0). Work-groups
 * (get_group_id(1)) of each range boundary b (between work-groups b - 1 and b, the third grid
 * dimension) share the columns of the tile it cuts first; the others return at once.
 *
 * Where a boundary falls and which slots hold a tile's parts takes 64-bit divisions (sk_beg),
 * which GPUs emulate in tens of dependent instructions: the first work-item works it out and
 * hands it on through local memory, FIXUP_PARTS slots a round. A tile of more than FIXUP_PARTS
 * parts takes several rounds: each round's sum is left in its last part's slot, which the next
 * round reads first, so the parts are still added in work-group order.
 *
 * Why this shape: one 8 x 8 work-group per 8 x 8 block of every boundary's tile (up to 67,000
 * work-groups at 8192^2, each through the division chain) took 39-108 us as the call's last
 * command on the H200; one 16 x 16 work-group a boundary striding over the whole tile still took
 * 54-134 us on an H100 (FP32 128 x 128 tiles: 64 elements a work-item, one dependent load chain
 * after another, one or two work-groups an SM). So a boundary's tile is shared by a few
 * work-groups, and each work-item keeps FIXUP_ROWS elements' loads in flight at once. */
#define FIXUP_PARTS 32
#define FIXUP_ROWS  4

__kernel void clgemm_streamk_fixup(const int M, const int N, const int K, const int mt,
                                   const int nt, const int kt, const int groups, const REAL alpha,
                                   const REAL beta, __global REAL *restrict work,
                                   __global C_T *restrict C, const ulong offC, const int ldc) {
    __local long tile;                /* the tile this work-group adds up, or -1: none */
    __local long next;                /* the next work-group whose range may hold a part */
    __local int count, done;          /* this round's parts; whether they are the last */
    __local ulong parts[FIXUP_PARTS]; /* this round's slots (workspace offsets) */
    const bool lead = get_local_id(0) == 0 && get_local_id(1) == 0;
    const long b = (long)get_global_id(2) + 1;
    sk_schedule s;
    long t0 = 0, t1 = 0;
    if (lead) {
        s = sk_make(M, N, K, mt, nt, kt, groups);
        const long x = sk_beg(&s, b), t = x / s.iters;
        t0 = t * s.iters;
        t1 = t0 + s.iters;
        /* A boundary on a tile's edge cuts nothing; a second one in the same tile is not its
         * first. */
        tile = x == t0 || sk_beg(&s, b - 1) > t0 ? -1 : t;
        next = b - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const long t = tile;
    if (t < 0) return; /* the whole work-group alike */
    const int tiles_m = (M + mt - 1) / mt;
    const int i0 = (int)(t % tiles_m) * mt, j0 = (int)(t / tiles_m) * nt;
    const int rows = min(mt, M - i0), cols = min(nt, N - j0); /* the tile inside C */
    const int li = get_local_id(0), lj = get_local_id(1);
    const int si = get_local_size(0), sj = get_local_size(1);
    const ulong slot_size = (ulong)mt * (ulong)nt;
    C += offC;
    for (;;) {
        if (lead) {
            int n = 0;
            long g = next, last_g = next;
            done = 1;
            for (; g < groups; g++) {
                const long gb = sk_beg(&s, g);
                if (gb >= t1) break;
                if (sk_beg(&s, g + 1) == gb) continue; /* an empty range wrote nothing */
                if (n == FIXUP_PARTS) {
                    done = 0;
                    break;
                }
                parts[n++] = ((ulong)g * 2 + (gb >= t0 ? 0 : 1)) * slot_size;
                last_g = g;
            }
            /* Another round starts again at this round's last part, which will hold its sum. */
            next = done ? g : last_g;
            count = n;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int n = count;
        const bool last = done;
        for (int jj = lj + (int)get_group_id(1) * sj; jj < cols; jj += sj * (int)get_num_groups(1))
            for (int ir = li; ir < rows; ir += si * FIXUP_ROWS) {
                const ulong col = (ulong)jj * (ulong)mt;
                REAL sum[FIXUP_ROWS];
                for (int r = 0; r < FIXUP_ROWS; r++)
                    sum[r] = (REAL)0;
                for (int p = 0; p < n; p++)
                    for (int r = 0; r < FIXUP_ROWS; r++)
                        if (ir + r * si < rows) sum[r] += work[parts[p] + col + ir + r * si];
                for (int r = 0; r < FIXUP_ROWS; r++) {
                    const int ii = ir + r * si;
                    if (ii >= rows) break;
                    if (!last) {
                        /* (only this work-item reads this element of the slot again; work is
                         * not const, so that no read-only cache holds the old value) */
                        work[parts[n - 1] + col + ii] = sum[r];
                        continue;
                    }
                    const int c_at = C_INDEX(i0 + ii, j0 + jj);
                    REAL v = MUL(alpha, sum[r]);
                    if (!IS_ZERO(beta)) v += MUL(beta, LOAD_C(C, c_at));
                    STORE_ELEM(C, c_at, v);
                }
            }
        barrier(CLK_LOCAL_MEM_FENCE); /* before the next round's slots replace these */
        if (last) break;
    }
}
