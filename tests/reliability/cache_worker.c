/* cache_worker.c: one process of tests/reliability/cache_lock.py: a single-precision multiply
 * (32 x 24 x 40, the tiled family with 8 x 8 tiles, so every worker needs the same programs)
 * checked against a double-precision host product. Exit 0 when the result is right. */
#include "clgemm.h"

#include "core/xorshift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    enum { M = 32, N = 24, K = 40 };
    static float a[M * K], b[K * N], c[M * N];
    uint64_t seed = 7;
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(clgemm_xorshift64s(&seed) % 2001) / 1000 - 1;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(clgemm_xorshift64s(&seed) % 2001) / 1000 - 1;
    for (int i = 0; i < M * N; i++)
        c[i] = NAN; /* poison: every element must be written */
    clgemm_handle h;
    clgemm_status st = clgemm_create_default(&h);
    if (st != CLGEMM_SUCCESS) {
        fprintf(stderr, "cache_worker: no device: %s\n", clgemm_status_string(st));
        return 2;
    }
    const clgemm_config tiled8 = {.family = CLGEMM_FAMILY_TILED, .ts = 8};
    st = clgemm_set_config(h, CLGEMM_SINGLE, &tiled8);
    if (st == CLGEMM_SUCCESS)
        st = clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K, 1.0f,
                               a, M, b, K, 0.0f, c, M);
    clgemm_destroy(h);
    if (st != CLGEMM_SUCCESS) {
        fprintf(stderr, "cache_worker: multiply failed: %s\n", clgemm_status_string(st));
        return 1;
    }
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double ref = 0;
            for (int l = 0; l < K; l++)
                ref += (double)a[i + l * M] * b[l + j * K];
            if (!(fabs(c[i + j * M] - ref) <= 4 * K * 1.2e-7 * (1 + fabs(ref)))) {
                fprintf(stderr, "cache_worker: C(%d,%d) = %g, expected %g\n", i, j, c[i + j * M],
                        ref);
                return 1;
            }
        }
    return 0;
}
