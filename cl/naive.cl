/* naive.cl: one work-item per element of C, reading A and B straight from global memory.
 * The reference the other families are measured against; work-group MDIMC x NDIMC. */
#ifndef MDIMC
#define MDIMC 8
#endif
#ifndef NDIMC
#define NDIMC 8
#endif

__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1))) void clgemm_naive(GEMM_ARGS) {
    GEMM_BEGIN
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    if (i >= M || j >= N) return; /* no barrier in this kernel, so an early return is safe */
    REAL acc = (REAL)0;
    for (int p = 0; p < K; p++)
        MADD(acc, A_AT(i, p), B_AT(p, j));
    STORE_C(i, j, acc);
}
