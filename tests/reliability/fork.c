/* fork.c: a handle does not survive fork() (issue 20, item 2). A child forked after the parent
 * used the device used to hang in its first call (PoCL's worker threads do not exist in it, so
 * the wait on the parent's queue never returns). Now every call on the handle, and a new handle,
 * give CLGEMM_ERR_FORKED at once, with the child's arrays untouched, and clgemm_destroy returns
 * (the child itself makes no OpenCL call: that would hang whatever the library did);
 * the parent's handle keeps working. The child runs under a deadline and is killed past it. */
#include "clgemm.h"

#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/wait_child.h"

enum { M = 37, N = 29, K = 41 };

static uint64_t state = 0x9e3779b97f4a7c15u;

/* A random multiple of 1/8 in [-2, 2): every product sum here is exact in float. */
static float random_value(void) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (float)((int)(state % 32) - 16) / 8;
}

/* One sgemm_host of random matrices, C NaN first (beta 0): the number of wrong elements, or
 * -1 if the call failed. */
static int sgemm_errors(clgemm_handle h) {
    static float a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = random_value();
    for (int i = 0; i < K * N; i++)
        b[i] = random_value();
    for (int i = 0; i < M * N; i++)
        c[i] = NAN;
    if (clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K, 1.0f, a,
                          M, b, K, 0.0f, c, M) != CLGEMM_SUCCESS)
        return -1;
    int wrong = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double s = 0;
            for (int p = 0; p < K; p++)
                s += (double)a[i + p * M] * b[p + j * K];
            wrong += !(fabs(c[i + j * M] - s) <= 1e-6 * K * (1 + fabs(s)));
        }
    return wrong;
}

/* In the child: everything that touches the handle or OpenCL must say CLGEMM_ERR_FORKED (or,
 * for the build log, nothing) and leave C as it was. Exit status: 0 right, else the step that
 * went wrong. */
static int child_checks(clgemm_handle h, cl_mem buf) {
    float a[4] = {1, 2, 3, 4}, c[4] = {5, 6, 7, 8};
    if (clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 2, 2, 2, 1.0f, a,
                          2, a, 2, 1.0f, c, 2) != CLGEMM_ERR_FORKED)
        return 1;
    if (c[0] != 5 || c[1] != 6 || c[2] != 7 || c[3] != 8) return 2;
    float alpha = 1, beta = 0;
    if (clgemm_gemm_strided_batched_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 2,
                                         2, 2, &alpha, a, 2, 4, a, 2, 4, &beta, c, 2, 4, 1,
                                         CLGEMM_SINGLE, CLGEMM_SINGLE,
                                         CLGEMM_COMPUTE_DEFAULT) != CLGEMM_ERR_FORKED)
        return 3;
    if (clgemm_sgemm(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 2, 2, 2, 1.0f, buf, 0,
                     2, buf, 0, 2, 0.0f, buf, 0, 2, NULL, 0, NULL, NULL) != CLGEMM_ERR_FORKED)
        return 4;
    clgemm_config config;
    if (clgemm_get_config(h, CLGEMM_SINGLE, 64, 64, 64, &config, NULL) != CLGEMM_ERR_FORKED)
        return 5;
    if (clgemm_set_config(h, CLGEMM_SINGLE, NULL) != CLGEMM_ERR_FORKED) return 6;
    char log[16] = "x";
    if (clgemm_build_log(h, log, sizeof log) != 0 || log[0] != 0) return 7;
    clgemm_handle fresh = NULL;
    if (clgemm_create_default(&fresh) != CLGEMM_ERR_FORKED || fresh) return 8;
    if (strstr(clgemm_status_string(CLGEMM_ERR_FORKED), "fork") == NULL) return 9;
    clgemm_destroy(h); /* must return: it may not wait on the parent's queue */
    return 0;
}

Test(fork, handle_used_in_a_forked_child, .timeout = 300) {
    clgemm_handle h;
    clgemm_status st = clgemm_create_default(&h);
    if (st == CLGEMM_ERR_NO_DEVICE) cr_skip_test("no OpenCL device");
    cr_assert_eq(st, CLGEMM_SUCCESS, "%s", clgemm_status_string(st));
    cr_assert_eq(sgemm_errors(h), 0, "parent, before the fork");
    cl_int err;
    cl_mem buf = clCreateBuffer(clgemm_context(h), CL_MEM_READ_WRITE, 64, NULL, &err);
    cr_assert_eq(err, CL_SUCCESS);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) _exit(child_checks(h, buf));
    int status = wait_child(pid, 60);
    cr_assert_neq(status, -1, "the child hung (killed after 60 s)");
    cr_assert_eq(status, 0, "the child's check %d failed", status);
    cr_assert_eq(sgemm_errors(h), 0, "parent, after the fork");
    clReleaseMemObject(buf);
    clgemm_destroy(h);
}

/* A child forked before any device use is an ordinary process: its handles work. */
Test(fork, child_forked_before_any_use_works, .timeout = 300) {
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        clgemm_handle h;
        if (clgemm_create_default(&h) != CLGEMM_SUCCESS) _exit(1);
        int wrong = sgemm_errors(h);
        clgemm_destroy(h);
        _exit(wrong == 0 ? 0 : 2);
    }
    int status = wait_child(pid, 240);
    cr_assert_neq(status, -1, "the child hung");
    cr_assert_eq(status, 0, "the child failed (status %d)", status);
}
