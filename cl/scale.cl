/* scale.cl: C = beta * C, for k == 0 or alpha == 0 (BLAS reads neither A nor B then).
 * With beta == 0, C is set to zero without being read. The batch index is the third grid
 * dimension; C's offset and beta come from the batch table (common.cl) when built with
 * BATCH_TABLE, else from strideC and the argument. */
__kernel void clgemm_scale(const int M, const int N, const REAL beta_arg, __global C_T *C,
                           const ulong offC, const int ldc, const ulong strideC,
                           const __global ulong *restrict table) {
    ELEMENTWISE_BEGIN
    const int at = C_INDEX(i, j);
    STORE_ELEM(C, at, IS_ZERO(beta) ? (REAL)0 : MUL(beta, LOAD_C(C, at)));
}
