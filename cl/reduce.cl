/* reduce.cl: the second step of a split-K call. The register-blocked kernel left `splits`
 * partial products alpha * op(A) op(B), each a column-major M x N block of W; this adds them in
 * order (W holds the arithmetic type, C its own) and applies beta: C = sum_s W_s + beta * C (C not read when beta is 0). */
__kernel void clgemm_reduce(const int M, const int N, const int splits, const REAL beta,
                            const __global REAL *restrict W, __global C_T *restrict C,
                            const ulong offC, const int ldc) {
    C += offC;
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    if (i >= M || j >= N) return;
    const ulong block = (ulong)M * (ulong)N;
    const __global REAL *w = W + i + (ulong)j * (ulong)M;
    REAL sum = (REAL)0;
    for (int s = 0; s < splits; s++)
        sum += w[s * block];
    const int at = C_INDEX(i, j);
    STORE_ELEM(C, at, IS_ZERO(beta) ? sum : sum + MUL(beta, LOAD_C(C, at)));
}
