/* scale.cl: C = beta * C, for k == 0 or alpha == 0 (BLAS reads neither A nor B then).
 * With beta == 0, C is set to zero without being read. */
__kernel void clgemm_scale(const int M, const int N, const REAL beta, __global C_T *C,
                           const ulong offC, const int ldc) {
    C += offC;
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    if (i >= M || j >= N) return;
    const int at = C_INDEX(i, j);
    STORE_ELEM(C, at, IS_ZERO(beta) ? (REAL)0 : MUL(beta, LOAD_C(C, at)));
}
