/* scale.cl: C = beta * C, for k == 0 or alpha == 0 (BLAS reads neither A nor B then).
 * With beta == 0, C is set to zero without being read. The batch index is the third grid
 * dimension; C's offset and beta come from the batch table (common.cl) when built with
 * BATCH_TABLE, else from strideC and the argument. */
__kernel void clgemm_scale(const int M, const int N, const REAL beta_arg, __global C_T *C,
                           const ulong offC, const int ldc, const ulong strideC,
                           const __global ulong *restrict table) {
    const ulong batch = get_global_id(2);
#if BATCH_TABLE
    C += offC + table[8 * batch + 2];
    const REAL beta = *(const __global REAL *)(table + 8 * batch + 6);
#else
    C += offC + batch * strideC;
    const REAL beta = beta_arg;
#endif
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    if (i >= M || j >= N) return;
    const int at = C_INDEX(i, j);
    STORE_ELEM(C, at, IS_ZERO(beta) ? (REAL)0 : MUL(beta, LOAD_C(C, at)));
}
