/* residency_probe.c: how many work-groups of one forced tensor-core configuration an SM really
 * runs at once under the OpenCL driver (which has no occupancy query), and ptxas's register
 * report for it. Run with CLGEMM_BUILD_OPTIONS="-DDIAG_RESIDENCY=1 -cl-nv-verbose": each
 * work-group then records its SM and start/end times in its tile of C (cl/common.cl), and this
 * reads them back after the last of three calls.
 * Build (repository root, release build in build-gpu):
 *   cc -O2 -Iinclude bench/gpu/residency_probe.c -Lbuild-gpu/src -lclgemm -lOpenCL -o probe
 * Usage: probe h|b FAMILY M N K NAME VALUE ...   (column-major NN, FP16/BF16 in and out)
 * Prints: the ptxas lines of the build log, the last call's time, and per SM the most
 * work-groups seen at once and the time-averaged count while the kernel ran. */
#include <clgemm.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct rec {
    uint32_t sm;
    uint64_t t0, t1;
} rec;

static int by_t0(const void *a, const void *b) {
    const rec *x = a, *y = b;
    return x->sm != y->sm ? (x->sm < y->sm ? -1 : 1) : x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s h|b FAMILY M N K [NAME VALUE]...\n", argv[0]);
        return 2;
    }
    clgemm_precision t = argv[1][0] == 'b' ? CLGEMM_BFLOAT16 : CLGEMM_HALF;
    size_t m = (size_t)atol(argv[3]), n = (size_t)atol(argv[4]), k = (size_t)atol(argv[5]);
    clgemm_handle h;
    if (clgemm_create_default(&h)) return 1;
    clgemm_config c;
    clgemm_config_init(&c, clgemm_family_from_name(argv[2]));
    int mwg = 0, nwg = 0;
    for (int i = 6; i + 1 < argc; i += 2) {
        clgemm_config_set(&c, argv[i], atoi(argv[i + 1]));
        if (!strcmp(argv[i], "MWG")) mwg = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "NWG")) nwg = atoi(argv[i + 1]);
    }
    clgemm_status st = clgemm_set_config(h, t, &c);
    if (st || !mwg || !nwg || m % (size_t)mwg || n % (size_t)nwg) {
        printf("set_config: %s (M, N must be multiples of MWG, NWG)\n", clgemm_status_string(st));
        return 1;
    }
    cl_context ctx;
    cl_command_queue q = clgemm_queue(h);
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL);
    /* Inputs: small pseudo-random FP16/BF16 bits (the time should not depend on zeros). */
    size_t na = m * k, nb = k * n, nc = m * n;
    uint16_t *host = malloc(2 * (na > nb ? na : nb));
    uint32_t x = 12345;
    for (size_t i = 0; i < (na > nb ? na : nb); i++) {
        x = x * 1664525u + 1013904223u;
        host[i] =
            t == CLGEMM_HALF ? (uint16_t)(0x3800 | (x >> 22)) : (uint16_t)(0x3f00 | (x >> 25));
    }
    cl_mem a = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, na * 2, host, NULL);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, nb * 2, host, NULL);
    cl_mem cc = clCreateBuffer(ctx, 0, nc * 2, NULL, NULL);
    float al = 1, be = 0;
    double t_last = 0;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        st = clgemm_gemm_ex(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, m, n, k, &al, a,
                            0, m, b, 0, k, &be, cc, 0, m, t, t, CLGEMM_COMPUTE_DEFAULT, NULL, 0,
                            NULL, NULL);
        clFinish(q);
        t_last = now() - t0;
        if (st) break;
    }
    static char log[1 << 20];
    clgemm_build_log(h, log, sizeof log);
    for (char *l = strtok(log, "\n"); l; l = strtok(NULL, "\n"))
        if (strstr(l, "ptxas info") || strstr(l, "rror")) printf("  %s\n", l);
    printf("call: %s, %.3f ms, %.1f TFLOPS\n", clgemm_status_string(st), 1e3 * t_last,
           2.0 * (double)m * (double)n * (double)k / t_last * 1e-12);
    if (st) return 1;
    /* The records: 6 uints at the top of each tile's first column. */
    uint16_t *out = malloc(nc * 2);
    clEnqueueReadBuffer(q, cc, CL_TRUE, 0, nc * 2, out, 0, NULL, NULL);
    size_t tiles = (m / (size_t)mwg) * (n / (size_t)nwg), got = 0;
    rec *rs = malloc(tiles * sizeof *rs);
    for (size_t j = 0; j < n; j += (size_t)nwg)
        for (size_t i = 0; i < m; i += (size_t)mwg) {
            uint32_t r6[6];
            memcpy(r6, out + i + j * m, sizeof r6);
            if (r6[5] != 0x600dcafeu) continue;
            rs[got].sm = r6[0];
            rs[got].t0 = r6[1] | (uint64_t)r6[2] << 32;
            rs[got].t1 = r6[3] | (uint64_t)r6[4] << 32;
            got++;
        }
    printf("records: %zu of %zu tiles (build with -DDIAG_RESIDENCY=1)\n", got, tiles);
    if (!got) return 1;
    qsort(rs, got, sizeof *rs, by_t0);
    uint64_t first = rs[0].t0, last = rs[0].t1;
    double busy = 0;
    for (size_t i = 0; i < got; i++) {
        if (rs[i].t0 < first) first = rs[i].t0;
        if (rs[i].t1 > last) last = rs[i].t1;
        busy += (double)(rs[i].t1 - rs[i].t0);
    }
    /* Per SM: the most intervals open at once (sweep over its sorted starts). */
    int hist[9] = {0}, sms = 0;
    for (size_t s = 0; s < got;) {
        size_t e = s;
        while (e < got && rs[e].sm == rs[s].sm)
            e++;
        int most = 0;
        for (size_t i = s; i < e; i++) {
            int open = 0;
            for (size_t j = s; j < e; j++)
                if (rs[j].t0 <= rs[i].t0 && rs[j].t1 > rs[i].t0) open++;
            if (open > most) most = open;
        }
        hist[most > 8 ? 8 : most]++;
        sms++;
        s = e;
    }
    printf("SMs used %d; kernel span %.3f ms; mean work-group time %.1f us; "
           "work-groups per SM at once, time-averaged: %.2f\n",
           sms, 1e-6 * (double)(last - first), 1e-3 * busy / (double)got,
           busy / ((double)(last - first) * sms));
    printf("SMs by the most work-groups seen at once:");
    for (int i = 1; i < 9; i++)
        if (hist[i]) printf("  %d: %d SMs", i, hist[i]);
    printf("\n");
    return 0;
}
