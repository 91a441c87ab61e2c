/* reduce.cl: the second step of a split-K call. The register-blocked kernel left `splits`
 * partial products alpha * op(A) op(B) per matrix of the batch, each a column-major M x N block
 * of W (matrix b's blocks from b * splits * M * N); this adds them in order (W holds the
 * arithmetic type, C its own) and applies beta: C = sum_s W_s + beta * C (C not read when beta
 * is 0). The batch index is the third grid dimension; C's offset and beta come from the batch
 * table when built with BATCH_TABLE, else from strideC and the argument (common.cl's
 * ELEMENTWISE_BEGIN). */
__kernel void clgemm_reduce(const int M, const int N, const int splits, const REAL beta_arg,
                            const __global REAL *restrict W, __global C_T *restrict C,
                            const ulong offC, const int ldc, const ulong strideC,
                            const __global ulong *restrict table) {
    ELEMENTWISE_BEGIN
    const ulong block = (ulong)M * (ulong)N;
    const __global REAL *w = W + batch * (ulong)splits * block + i + (ulong)j * (ulong)M;
    REAL sum = (REAL)0;
    for (int s = 0; s < splits; s++)
        sum += w[s * block];
    const int at = C_INDEX(i, j);
    STORE_ELEM(C, at, IS_ZERO(beta) ? sum : sum + MUL(beta, LOAD_C(C, at)));
}
