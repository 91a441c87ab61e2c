/* test_dropin.c: libclgemm_blas linked directly (no system BLAS on the link line): tiled calls
 * (a small CLGEMM_BLAS_POOL_MB forces tiles of C and chunks of K with double-buffered
 * copies), every transpose pair, zgemm_ with conjugate transposes, padded leading dimensions whose
 * gaps must stay untouched, beta == 0 over NaN, several threads writing disjoint blocks of one C,
 * and small calls that go to the system BLAS. Results against a long-double host reference; the
 * route each call took is read from CLGEMM_BLAS_LOG=2's lines. CLGEMM_BLAS_DEVICES=2 on PoCL's
 * two devices: calls across both, and C put back when every device fails mid-call. */
#include <complex.h>
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/wait_child.h"
#include "log_capture.h"

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc, size_t la, size_t lb);
void zgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double complex *alpha, const double complex *a, const int *lda,
            const double complex *b, const int *ldb, const double complex *beta, double complex *c,
            const int *ldc, size_t la, size_t lb);
void cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc);

static const double SENTINEL = -12345.0;

static double rnd(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(int)((*s >> 40) & 0xffff) / 32768.0 - 1.0; /* exact in float */
}

/* Column-major op(X)(i, j). */
static double at(const double *x, char t, int ld, int i, int j) {
    return t == 'N' ? x[i + (size_t)j * ld] : x[j + (size_t)i * ld];
}

/* C = alpha op(A) op(B) + beta C0 checked element by element, tolerance scaled by k; the
 * gap rows m..ldc-1 must still hold the sentinel. */
static void check(char ta, char tb, int m, int n, int k, double alpha, const double *a, int lda,
                  const double *b, int ldb, double beta, const double *c0, const double *c,
                  int ldc) {
    double tol = 4.0 * k * 1.1e-16 * (fabs(alpha) + 1) + 1e-15;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < m; i++) {
            long double sum = 0;
            for (int p = 0; p < k; p++)
                sum += (long double)at(a, ta, lda, i, p) * at(b, tb, ldb, p, j);
            long double want =
                alpha * sum + (beta == 0 ? 0 : beta * (long double)c0[i + (size_t)j * ldc]);
            double got = c[i + (size_t)j * ldc];
            cr_assert(fabsl(got - want) <= tol * (1 + fabsl(want)),
                      "%c%c %dx%dx%d: C(%d,%d) = %.17g, want %.17Lg", ta, tb, m, n, k, i, j, got,
                      want);
        }
        for (int i = m; i < ldc; i++)
            cr_assert(c[i + (size_t)j * ldc] == SENTINEL, "gap C(%d,%d) was written", i, j);
    }
}

static double *random_matrix(int ld, int cols, uint64_t *s) {
    double *x = malloc(sizeof *x * (size_t)ld * cols);
    for (size_t i = 0; i < (size_t)ld * cols; i++)
        x[i] = rnd(s);
    return x;
}

/* One dgemm_ call on padded random matrices, checked; C starts as NaN when beta == 0. */
static void run_one(char ta, char tb, int m, int n, int k, double alpha, double beta,
                    uint64_t seed) {
    uint64_t s = seed;
    int lda = (ta == 'N' ? m : k) + 3, ldb = (tb == 'N' ? k : n) + 2, ldc = m + 5;
    double *a = random_matrix(lda, ta == 'N' ? k : m, &s);
    double *b = random_matrix(ldb, tb == 'N' ? n : k, &s);
    double *c = malloc(sizeof *c * (size_t)ldc * n), *c0 = malloc(sizeof *c0 * (size_t)ldc * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++)
            c[i + (size_t)j * ldc] = i >= m ? SENTINEL : beta == 0 ? NAN : rnd(&s);
    memcpy(c0, c, sizeof *c * (size_t)ldc * n);
    dgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
    check(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c0, c, ldc);
    free(a), free(b), free(c), free(c0);
}

/* stderr goes to a temporary file, from which count_routes counts the lines of
 * CLGEMM_BLAS_LOG=2 that name a route. */
static void capture_stderr(void) {
    capture_log();
}

static int count_routes(const char *route) {
    return count_log_lines(route);
}

static void env_for(const char *pool_mb, const char *min_flops) {
    setenv("CLGEMM_BLAS_POOL_MB", pool_mb, 1);
    setenv("CLGEMM_BLAS_MIN_FLOPS", min_flops, 1);
    setenv("CLGEMM_BLAS_LOG", "2", 1);
}

/* 1 MiB holds no whole operand: tiles of C and chunks of K, two buffer sets alternating. */
Test(dropin, tiled_every_transpose, .init = capture_stderr, .timeout = 600) {
    env_for("1", "0");
    const char t[] = {'N', 'T', 'C'};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            run_one(t[i], t[j], 150, 131, 700, 0.75, 1.5, 10 + i * 3 + j);
    run_one('N', 'N', 150, 131, 700, -1.0, 0.0, 99); /* beta 0: C's NaN never read */
    cr_assert_eq(count_routes(": device\n"), 10, "every call on the device");
}

/* Column-major op(X)(i, j) of a complex matrix; 'C' conjugates. */
static double complex zat(const double complex *x, char t, int ld, int i, int j) {
    double complex v = t == 'N' ? x[i + (size_t)j * ld] : x[j + (size_t)i * ld];
    return t == 'C' ? conj(v) : v;
}

/* zgemm_ tiled like the test above, conjugate transposes included (a 'C' read as 'T' shows as
 * a wrong imaginary part), padded leading dimensions whose gaps must stay untouched. */
static void run_z(char ta, char tb, int m, int n, int k, uint64_t seed) {
    uint64_t s = seed;
    int lda = (ta == 'N' ? m : k) + 3, ldb = (tb == 'N' ? k : n) + 2, ldc = m + 5;
    size_t na = (size_t)lda * (ta == 'N' ? k : m), nb = (size_t)ldb * (tb == 'N' ? n : k);
    double complex *a = malloc(sizeof *a * na), *b = malloc(sizeof *b * nb);
    double complex *c = malloc(sizeof *c * (size_t)ldc * n), *c0 = malloc(sizeof *c * ldc * n);
    for (size_t i = 0; i < na; i++)
        a[i] = CMPLX(rnd(&s), rnd(&s));
    for (size_t i = 0; i < nb; i++)
        b[i] = CMPLX(rnd(&s), rnd(&s));
    for (size_t i = 0; i < (size_t)ldc * n; i++)
        c[i] = (int)(i % ldc) >= m ? CMPLX(SENTINEL, SENTINEL) : CMPLX(rnd(&s), rnd(&s));
    memcpy(c0, c, sizeof *c * (size_t)ldc * n);
    double complex alpha = CMPLX(0.75, -0.5), beta = CMPLX(-1.0, 0.25);
    zgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
    double tol = 8.0 * k * 1.1e-16;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++) {
            double complex got = c[i + (size_t)j * ldc], want = CMPLX(SENTINEL, SENTINEL);
            double scale = 0;
            if (i < m) {
                long double complex sum = 0;
                for (int p = 0; p < k; p++)
                    sum += (long double complex)zat(a, ta, lda, i, p) * zat(b, tb, ldb, p, j);
                want = (double complex)(alpha * sum + beta * c0[i + (size_t)j * ldc]);
                scale = tol * (1 + cabs(want));
            }
            cr_assert(cabs(got - want) <= scale, "%c%c: C(%d,%d) = %g%+gi, want %g%+gi", ta, tb, i,
                      j, creal(got), cimag(got), creal(want), cimag(want));
        }
    free(a), free(b), free(c), free(c0);
}

Test(dropin, tiled_complex_conjugate, .init = capture_stderr, .timeout = 600) {
    env_for("1", "0");
    const char pairs[][2] = {{'C', 'N'}, {'N', 'C'}, {'C', 'C'}, {'T', 'C'}, {'N', 'N'}};
    for (int i = 0; i < 5; i++)
        run_z(pairs[i][0], pairs[i][1], 70, 61, 700, 40 + i);
    cr_assert_eq(count_routes(": device\n"), 5, "every call on the device");
}

/* Four threads, each a block of rows of one shared C (ldc the whole height), through a pool
 * that holds one call's buffers at a time: a copy back that wrote more than its block, or a
 * pool that handed one buffer to two calls, shows as a wrong block. */
typedef struct job {
    const double *a, *b;
    double *c;
    int row0, rows, n, k, lda, ldb, ldc;
} job;

static void *worker(void *arg) {
    job *w = arg;
    double alpha = 1, beta = 0;
    for (int rep = 0; rep < 3; rep++)
        dgemm_("N", "N", &w->rows, &w->n, &w->k, &alpha, w->a + w->row0, &w->lda, w->b, &w->ldb,
               &beta, w->c + w->row0, &w->ldc, 1, 1);
    return NULL;
}

Test(dropin, threads_share_c_and_pool, .init = capture_stderr, .timeout = 600) {
    env_for("2", "0");
    enum { M = 256, N = 96, K = 128, THREADS = 4 };
    uint64_t s = 7;
    double *a = random_matrix(M, K, &s), *b = random_matrix(K, N, &s);
    double *c = malloc(sizeof *c * M * N), *c0 = calloc(M * N, sizeof *c0);
    for (int i = 0; i < M * N; i++)
        c[i] = NAN;
    pthread_t tid[THREADS];
    job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (job){a, b, c, t * (M / THREADS), M / THREADS, N, K, M, K, M};
        cr_assert_eq(pthread_create(&tid[t], NULL, worker, &jobs[t]), 0);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(tid[t], NULL);
    check('N', 'N', M, N, K, 1.0, a, M, b, K, 0.0, c0, c, M);
    cr_assert_eq(count_routes(": device\n"), 3 * THREADS);
    free(a), free(b), free(c), free(c0);
}

/* The measured rule through dgemm_: twenty calls of one group (one shape), each right. The log
 * gives each call's side and seconds; replayed, they must follow the rule: the first call on the
 * device, the second on the host (measuring it), then the side whose fastest call so far was
 * faster, except call 8, which measures the slower side again.
 * Sides whose fastest calls lie within a fifth of each other are not judged (the rule's own
 * clock starts a little later than the log's). */
Test(dropin, measured_rule_takes_the_faster_side, .init = capture_stderr, .timeout = 600) {
    env_for("64", "1e6");
    enum { CALLS = 20, N = 160 };
    for (int i = 0; i < CALLS; i++)
        run_one('N', 'N', N, N, N, 0.75, 1.5, 60 + (uint64_t)i);
    fflush(stderr);
    rewind(log_file);
    char line[512];
    double best[2] = {0, 0};
    int call = 0, next_recheck = 8, judged = 0;
    while (fgets(line, sizeof line, log_file)) {
        double seconds;
        if (sscanf(line, "clgemm_blas: dgemm NN 160 160 160 in %lf s", &seconds) != 1) continue;
        int device = strstr(line, ": device\n") != NULL, want = -1;
        if (best[1] == 0)
            want = 1;
        else if (best[0] == 0)
            want = 0;
        else {
            int faster = best[1] < best[0], recheck = call + 1 == next_recheck;
            if (recheck) next_recheck *= 8;
            double ratio = best[1] / best[0];
            if (ratio < 0.8 || ratio > 1.25) want = recheck ? !faster : faster;
        }
        if (want >= 0) {
            cr_assert_eq(device, want, "call %d on the %s: %s", call + 1,
                         device ? "device" : "host", line);
            judged++;
        }
        if (best[device] == 0 || seconds < best[device]) best[device] = seconds;
        call++;
    }
    cr_assert_eq(call, CALLS);
    cr_assert_eq(count_routes("host (measuring the host)"), 1);
    cr_assert_geq(judged, 2, "the first two calls at least");
}

/* Below the default threshold a call goes to the system BLAS that the library loads itself
 * (this program links no BLAS), through CBLAS in row-major order. */
Test(dropin, small_call_to_system_blas, .init = capture_stderr) {
    setenv("CLGEMM_BLAS_LOG", "2", 1);
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12};
    float c[4] = {NAN, NAN, NAN, NAN};
    cblas_sgemm(101, 111, 111, 2, 2, 3, 1.0f, a, 3, b, 2, 0.0f, c, 2);
    cr_assert(c[0] == 58 && c[1] == 64 && c[2] == 139 && c[3] == 154, "%g %g %g %g", c[0], c[1],
              c[2], c[3]);
    cr_assert_eq(count_routes("host (below CLGEMM_BLAS_MIN_FLOPS)"), 1);
}

/* One column-major dgemm_ of random matrices against the long-double reference, without
 * Criterion (for a forked child): the number of wrong elements. */
static int dgemm_errors(int m, int n, int k, uint64_t seed) {
    uint64_t s = seed;
    double *a = random_matrix(m, k, &s), *b = random_matrix(k, n, &s);
    double *c = malloc(sizeof *c * (size_t)m * n), alpha = 1.5, beta = 0;
    for (size_t i = 0; i < (size_t)m * n; i++)
        c[i] = NAN;
    dgemm_("N", "N", &m, &n, &k, &alpha, a, &m, b, &k, &beta, c, &m, 1, 1);
    int wrong = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            long double sum = 0;
            for (int p = 0; p < k; p++)
                sum += (long double)a[i + (size_t)p * m] * b[p + (size_t)j * k];
            long double want = alpha * sum, got = c[i + (size_t)j * m];
            wrong += !(fabsl(got - want) <= 4.0L * k * 1.1e-16L * (1 + fabsl(want)));
        }
    free(a), free(b), free(c);
    return wrong;
}

/* A child forked after the parent used the device must not touch the parent's OpenCL objects
 * (PoCL's worker threads do not exist in it: its first device call waited forever). Its calls
 * go to the system BLAS and are right; the parent's device keeps working. */
Test(dropin, fork_after_a_device_call, .init = capture_stderr, .timeout = 600) {
    env_for("64", "0");
    cr_assert_eq(dgemm_errors(96, 80, 64, 1), 0, "parent, before the fork");
    cr_assert_eq(count_routes(": device\n"), 1);
    fflush(stderr);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0)
        _exit(dgemm_errors(96, 80, 64, 2) == 0 && dgemm_errors(33, 17, 40, 3) == 0 ? 0 : 1);
    int status = wait_child(pid, 60);
    cr_assert_neq(status, -1, "the child's BLAS call hung (killed after 60 s)");
    cr_assert_eq(status, 0, "the child's results were wrong (exit status %d)", status);
    cr_assert_eq(count_routes("host (forked"), 2, "both child calls on the system BLAS");
    cr_assert_eq(dgemm_errors(96, 80, 64, 4), 0, "parent, after the fork");
    cr_assert_eq(count_routes(": device\n"), 2, "the parent's calls on the device");
}

/* Two PoCL devices (set before the first OpenCL call of this test's process). */
static void env_for_two_devices(void) {
    setenv("POCL_DEVICES", "pthread pthread", 1);
    setenv("CLGEMM_BLAS_DEVICES", "2", 1);
    env_for("1024", "0");
}

Test(dropin_multi, calls_across_two_devices, .init = capture_stderr, .timeout = 600) {
    env_for_two_devices();
    run_one('N', 'T', 300, 257, 40, 0.75, 1.5, 3);
    run_one('T', 'N', 280, 300, 33, -1.0, 0.0, 4); /* beta 0: C's NaN never read */
    cr_assert_eq(count_routes("devices: 2\n"), 1);
    cr_assert_eq(count_routes(": across 2 devices\n"), 2);
    cr_assert_eq(count_routes(": device\n"), 2);
}

/* Device 0 finishes one tile of the four, then both fail: C goes back as it was and the
 * one-device path computes the call (beta applied once). */
Test(dropin_multi, every_device_failing_puts_c_back, .init = capture_stderr, .timeout = 600) {
    env_for_two_devices();
    setenv("CLGEMM_MULTI_TEST_FAIL", "0:1,1:0", 1);
    run_one('N', 'N', 300, 257, 40, 0.75, 1.5, 5);
    cr_assert_eq(count_routes("devices failed"), 1);
    cr_assert_eq(count_routes(": device\n"), 1);
}
