/* multi_bench.c: clgemm-multi-bench, host-array GEMM across several devices
 * (clgemm_multi_gemm_ex_host) on 1, 2, 4 ... of them, for the efficiency against one device.
 * Each problem is P:N (P s or d, square N) on random data; for each device count (the first
 * that many of the multi handle's default set, CLGEMM_DEVICES included) one warm-up call, then
 * --runs timed calls; the median, GFLOPS, the efficiency against the one-device median of the
 * same problem, the tiles each device took, and the largest relative error of 64 sampled
 * elements of C against a host dot product in long double.
 * Usage: clgemm-multi-bench [--runs N] [--devices 1,2,4] P:N ... */
#include <clgemm.h>

#include "core/xorshift.h"
#include "core/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void fill(void *p, size_t count, int fp64, uint64_t seed) {
    for (size_t i = 0; i < count; i++) {
        double v = (double)(clgemm_xorshift64s(&seed) >> 11) / 9007199254740992.0 - 0.5;
        if (fp64)
            ((double *)p)[i] = v;
        else
            ((float *)p)[i] = (float)v;
    }
}

static double get(const void *p, size_t i, int fp64) {
    return fp64 ? ((const double *)p)[i] : ((const float *)p)[i];
}

/* Column-major C = A B: the largest relative error of 64 sampled elements. */
static double sample_error(const void *a, const void *b, const void *c, size_t n, int fp64) {
    uint64_t s = 7;
    double worst = 0;
    for (int t = 0; t < 64; t++) {
        size_t i = clgemm_xorshift64s(&s) % n, j = clgemm_xorshift64s(&s) % n;
        long double ref = 0, mag = 0;
        for (size_t p = 0; p < n; p++) {
            long double x = (long double)get(a, i + p * n, fp64) * get(b, p + j * n, fp64);
            ref += x;
            mag += fabsl(x);
        }
        double err = (double)(fabsl((long double)get(c, i + j * n, fp64) - ref) / mag);
        if (err > worst) worst = err;
    }
    return worst;
}

int main(int argc, char **argv) {
    int runs = 3, counts[16] = {1, 2, 4}, ncounts = 3;
    int first = 1;
    for (; first < argc && strncmp(argv[first], "--", 2) == 0; first += 2) {
        if (first + 1 >= argc) break;
        if (strcmp(argv[first], "--runs") == 0) {
            runs = atoi(argv[first + 1]);
        } else if (strcmp(argv[first], "--devices") == 0) {
            ncounts = 0;
            for (char *s = argv[first + 1]; *s && ncounts < 16;
                 s += strcspn(s, ",") + !!s[strcspn(s, ",")])
                counts[ncounts++] = atoi(s);
        } else {
            break;
        }
    }
    if (first >= argc || runs < 1 || runs > 1000) {
        fprintf(stderr, "usage: clgemm-multi-bench [--runs N] [--devices 1,2,4] P:N ...\n");
        return 2;
    }
    clgemm_multi_handle all;
    clgemm_status st = clgemm_create_multi(&all, NULL, 0);
    if (st != CLGEMM_SUCCESS) {
        fprintf(stderr, "clgemm_create_multi: %s\n", clgemm_status_string(st));
        return 1;
    }
    int available = clgemm_multi_device_count(all);
    cl_device_id devices[64];
    for (int i = 0; i < available && i < 64; i++) {
        char name[256] = "";
        devices[i] = clgemm_device(clgemm_multi_handle_at(all, i));
        clGetDeviceInfo(devices[i], CL_DEVICE_NAME, sizeof name, name, NULL);
        printf("device %d: %s\n", i, name);
    }
    clgemm_multi_destroy(all);
    int status = 0;
    for (int arg = first; arg < argc; arg++) {
        char p = argv[arg][0];
        size_t n = argv[arg][1] == ':' ? strtoull(argv[arg] + 2, NULL, 10) : 0;
        if ((p != 's' && p != 'd') || n == 0) {
            fprintf(stderr, "clgemm-multi-bench: '%s' is not P:N\n", argv[arg]);
            return 2;
        }
        int fp64 = p == 'd';
        size_t elem = fp64 ? 8 : 4;
        void *a = malloc(n * n * elem), *b = malloc(n * n * elem), *c = malloc(n * n * elem);
        if (!a || !b || !c) {
            fprintf(stderr, "clgemm-multi-bench: no memory for %s\n", argv[arg]);
            return 1;
        }
        fill(a, n * n, fp64, 1);
        fill(b, n * n, fp64, 2);
        double one_device = 0;
        for (int ci = 0; ci < ncounts; ci++) {
            int count = counts[ci];
            if (count < 1 || count > available) {
                printf("%c %zu devices %d: skipped (%d available)\n", p, n, count, available);
                continue;
            }
            clgemm_multi_handle h;
            if ((st = clgemm_create_multi(&h, devices, count)) != CLGEMM_SUCCESS) {
                printf("%c %zu devices %d: %s\n", p, n, count, clgemm_status_string(st));
                status = 1;
                continue;
            }
            double al = 1, be = 0;
            float alf = 1, bef = 0;
            const void *alpha = fp64 ? (const void *)&al : &alf,
                       *beta = fp64 ? (const void *)&be : &bef;
            clgemm_precision type = fp64 ? CLGEMM_DOUBLE : CLGEMM_SINGLE;
            double times[1000];
            for (int r = -1; r < runs && st == CLGEMM_SUCCESS; r++) {
                double t0 = clgemm_now_seconds();
                st = clgemm_multi_gemm_ex_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS,
                                               CLGEMM_NO_TRANS, n, n, n, alpha, a, n, b, n, beta, c,
                                               n, type, type, CLGEMM_COMPUTE_DEFAULT);
                if (r >= 0) times[r] = clgemm_now_seconds() - t0;
            }
            if (st != CLGEMM_SUCCESS) {
                printf("%c %zu devices %d: %s\n", p, n, count, clgemm_status_string(st));
                status = 1;
                clgemm_multi_destroy(h);
                continue;
            }
            qsort(times, (size_t)runs, sizeof *times, clgemm_compare_doubles);
            double median = times[runs / 2], gflops = 2.0 * n * n * n / median * 1e-9;
            if (count == 1) one_device = median;
            printf("%c %zu devices %d median_s %.4f GFLOPS %.1f", p, n, count, median, gflops);
            if (one_device > 0) printf(" efficiency %.3f", one_device / median / count);
            printf(" tiles_all_calls");
            for (int i = 0; i < count; i++) {
                clgemm_multi_device_stats s;
                clgemm_multi_stats(h, i, &s);
                printf("%s%llu", i ? "/" : " ", s.tiles);
            }
            printf(" max_rel_err %.2e\n", sample_error(a, b, c, n, fp64));
            fflush(stdout);
            clgemm_multi_destroy(h);
        }
        free(a);
        free(b);
        free(c);
    }
    return status;
}
