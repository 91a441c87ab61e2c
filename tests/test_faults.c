/* test_faults.c: the faults of the adversarial review (issue 14) in the call path, each shown
 * the way it was found: the host API on an out-of-order queue, split-K calls on two queues of
 * one handle, and an infinite alpha with more K layers than slices. Each test failed before its
 * fix (docs/RELIABILITY.md). */
#include "configs.h"
#include "test_common.h"

#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* Item 1: the read-back of the host API must wait for the multiply even when the handle's
 * queue runs commands out of order. */
Test(faults, host_api_on_out_of_order_queue, .timeout = 600) {
    tc_env env;
    TC_OPEN_OR_SKIP(&env);
    TC_OUT_OF_ORDER_QUEUE_OR_SKIP(&env, ooo);
    clgemm_handle h;
    cr_assert_eq(clgemm_create(&h, ooo), CLGEMM_SUCCESS);
    enum { N = 512 };
    float *a = malloc(sizeof(float) * N * N), *c = malloc(sizeof(float) * N * N);
    cr_assert(a && c);
    for (int i = 0; i < N * N; i++) {
        a[i] = 1.0f;
        c[i] = -7.0f;
    }
    cr_assert_eq(clgemm_sgemm_host(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, N, N, N,
                                   1.0f, a, N, a, N, 0.0f, c, N),
                 CLGEMM_SUCCESS);
    int wrong = 0;
    for (int i = 0; i < N * N; i++)
        wrong += c[i] != (float)N;
    cr_expect_eq(wrong, 0, "%d of %d elements of C are not %d (C[0] = %g)", wrong, N * N, N, c[0]);
    free(a);
    free(c);
    clgemm_destroy(h);
    clReleaseCommandQueue(ooo);
    tc_close(&env);
}

typedef struct host_call {
    clgemm_handle h;
    float *a, *b, *c;
    int m, n, k;
    clgemm_status status;
    volatile int done;
} host_call;

static void *run_host_call(void *arg) {
    host_call *hc = arg;
    hc->status =
        clgemm_sgemm_host(hc->h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, hc->m, hc->n,
                          hc->k, 1.0f, hc->a, hc->m, hc->b, hc->k, 0.0f, hc->c, hc->m);
    hc->done = 1;
    return NULL;
}

/* Item 2: a split-K call held back by a user event on one queue must not hold back a split-K
 * call on another queue of the same handle (they shared one workspace, chained by events). */
Test(faults, split_calls_on_two_queues_are_independent, .timeout = 600) {
    tc_env env;
    TC_OPEN_OR_SKIP(&env);
    setenv("CLGEMM_KSPLIT", "2", 1);
    cl_int err;
    cl_command_queue q2 = clCreateCommandQueue(env.context, env.device, 0, &err);
    cr_assert_eq(err, CL_SUCCESS);
    cl_event gate = clCreateUserEvent(env.context, &err);
    cr_assert_eq(err, CL_SUCCESS);
    clgemm_handle h;
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
    enum { M = 8, N = 8, K = 4096 };
    static float a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = 1.0f;
    for (int i = 0; i < K * N; i++)
        b[i] = 0.5f;
    cl_mem da = tc_buffer(env.context, sizeof a, a), db = tc_buffer(env.context, sizeof b, b);
    cl_mem dc = tc_buffer(env.context, sizeof c, c);
    cl_event held = NULL;
    cr_assert_eq(clgemm_sgemm(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K, 1.0f,
                              da, 0, M, db, 0, K, 0.0f, dc, 0, M, q2, 1, &gate, &held),
                 CLGEMM_SUCCESS);
    clFlush(q2);

    host_call hc = {h, a, b, c, M, N, K, -1, 0};
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, run_host_call, &hc), 0);
    /* PoCL builds the kernels on first use: allow for it, but not for a wait on the gate. */
    for (int tenth = 0; tenth < 1200 && !hc.done; tenth++)
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    int finished = hc.done;
    clSetUserEventStatus(gate, CL_COMPLETE); /* frees the held call (and a hung one) */
    pthread_join(thread, NULL);
    cr_expect(finished, "the host call waited for an unrelated call on another queue");
    cr_expect_eq(hc.status, CLGEMM_SUCCESS);
    for (int i = 0; i < M * N; i++)
        cr_expect_eq(c[i], 0.5f * K, "C[%d] = %g", i, c[i]);
    cr_assert_eq(clWaitForEvents(1, &held), CL_SUCCESS);
    cr_assert_eq(tc_read(q2, dc, sizeof c, c), CL_SUCCESS);
    for (int i = 0; i < M * N; i++)
        cr_expect_eq(c[i], 0.5f * K, "held call: C[%d] = %g", i, c[i]);
    clReleaseEvent(held);
    clReleaseEvent(gate);
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    clgemm_destroy(h);
    clReleaseCommandQueue(q2);
    unsetenv("CLGEMM_KSPLIT");
    tc_close(&env);
}

/* Item 7: 8 x 8 x 40 in 3 layers of 32-deep slices leaves a layer with no depth; it added
 * alpha * 0 = NaN for alpha = Inf. Every element must be +Inf (A, B > 0). */
Test(faults, infinite_alpha_with_more_layers_than_slices, .timeout = 600) {
    tc_env env;
    TC_OPEN_OR_SKIP(&env);
    setenv("CLGEMM_KSPLIT", "3", 1); /* read when the handle is made */
    clgemm_handle h;
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
    clgemm_config cfg = REGBLOCK(8, 8, 32, 4, 4, 2, 2, 2);
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, &cfg), CLGEMM_SUCCESS);
    enum { M = 8, N = 8, K = 40 };
    float a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = 1.0f;
    for (int i = 0; i < K * N; i++)
        b[i] = 2.0f;
    for (int i = 0; i < M * N; i++)
        c[i] = 3.0f;
    cr_assert_eq(clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K,
                                   INFINITY, a, M, b, K, 0.0f, c, M),
                 CLGEMM_SUCCESS);
    for (int i = 0; i < M * N; i++)
        cr_expect(isinf(c[i]) && c[i] > 0, "C[%d] = %g, want +Inf", i, c[i]);
    unsetenv("CLGEMM_KSPLIT");
    tc_close_handle(&env, h);
}

/* The host API copied back the whole span of C, gaps of a larger ldc included: two threads
 * computing disjoint blocks of one shared C wrote each other's old values back. Here each of two
 * threads computes half the rows of a column-major C (so its ldc is twice its m), on one handle,
 * round after round; beta alternates between 0 (the block NaN-poisoned, C not to be read) and
 * 0.5. Everything is a small integer, so the results are exact. */
typedef struct block_call {
    clgemm_handle h;
    const float *a, *b;
    float *c;
    size_t m, n, k, lda, ldb, ldc;
    float beta;
    clgemm_status status;
} block_call;

static void *run_block_call(void *arg) {
    block_call *bc = arg;
    bc->status =
        clgemm_sgemm_host(bc->h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, bc->m, bc->n,
                          bc->k, 1.0f, bc->a, bc->lda, bc->b, bc->ldb, bc->beta, bc->c, bc->ldc);
    return NULL;
}

Test(faults, host_api_threads_on_row_blocks_of_one_c, .timeout = 600) {
    TC_OPEN_HANDLE_OR_SKIP(env, h);
    enum { MB = 40, M = 2 * MB, N = 24, K = 16, LDC = M + 3, ROUNDS = 12 };
    static float a[M * K], b[K * N], c[LDC * N], want[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 7 - 3);
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(i % 5 - 2);
    for (int round = 0; round < ROUNDS; round++) {
        float beta = round % 2 ? 0.5f : 0.0f;
        for (int j = 0; j < N; j++)
            for (int i = 0; i < LDC; i++)
                c[i + j * LDC] = i >= M      ? -777.0f
                                 : beta != 0 ? (float)(2 * ((i + j + round) % 9))
                                             : NAN;
        for (int j = 0; j < N; j++)
            for (int i = 0; i < M; i++) {
                double s = beta != 0 ? beta * c[i + j * LDC] : 0;
                for (int p = 0; p < K; p++)
                    s += (double)a[i + p * M] * b[p + j * K];
                want[i + j * M] = (float)s;
            }
        block_call calls[2];
        pthread_t threads[2];
        for (int t = 0; t < 2; t++) {
            calls[t] = (block_call){h, a + t * MB, b, c + t * MB, MB, N, K, M, K, LDC, beta, -1};
            cr_assert_eq(pthread_create(&threads[t], NULL, run_block_call, &calls[t]), 0);
        }
        for (int t = 0; t < 2; t++) {
            pthread_join(threads[t], NULL);
            cr_assert_eq(calls[t].status, CLGEMM_SUCCESS, "round %d, thread %d: %s", round, t,
                         clgemm_status_string(calls[t].status));
        }
        int wrong = 0, first = -1;
        for (int j = 0; j < N; j++)
            for (int i = 0; i < LDC; i++) {
                float w = i >= M ? -777.0f : want[i + j * M];
                /* exact here; the K-scaled bound only matters if a kernel reorders sums */
                if (!(fabsf(c[i + j * LDC] - w) <= 1e-6f * K * (1 + fabsf(w))))
                    wrong++, first = first < 0 ? i + j * LDC : first;
            }
        cr_assert_eq(wrong, 0, "round %d (beta %g): %d wrong elements, first C[%d] = %g", round,
                     beta, wrong, first, first >= 0 ? c[first] : 0.0f);
    }
    tc_close_handle(&env, h);
}

/* The gaps of a larger ldc are not the call's: whatever the user writes there while the call
 * runs must be there afterwards. The handle's queue is held by a user event so the call is
 * certainly in flight while the gaps change (before the fix its copy of C, taken at the start,
 * came back over them). Both layouts; beta = 1, so C is read. */
typedef struct gap_call {
    clgemm_handle h;
    clgemm_layout layout;
    const float *a, *b;
    float *c;
    size_t m, n, k, ldc;
    clgemm_status status;
} gap_call;

static void *run_gap_call(void *arg) {
    gap_call *g = arg;
    int row = g->layout == CLGEMM_ROW_MAJOR;
    g->status =
        clgemm_sgemm_host(g->h, g->layout, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, g->m, g->n, g->k, 1.0f,
                          g->a, row ? g->k : g->m, g->b, row ? g->n : g->k, 1.0f, g->c, g->ldc);
    return NULL;
}

static void gaps_changed_during_a_call(clgemm_layout layout) {
    tc_env env;
    TC_OPEN_OR_SKIP(&env);
    cl_int err;
    cl_event gate = clCreateUserEvent(env.context, &err);
    cr_assert_eq(err, CL_SUCCESS);
    clgemm_handle h;
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS);
    enum { M = 9, N = 7, K = 5, PAD = 4 };
    int row = layout == CLGEMM_ROW_MAJOR;
    size_t inner = row ? N : M, outer = row ? M : N, ldc = inner + PAD;
    float a[M * K], b[K * N], c[(M > N ? M : N) * (M + N + PAD)];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 4 + 1);
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(i % 3 - 1);
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < ldc; i++)
            c[i + o * ldc] = i < inner ? (float)(i + o) : -1.0f;
    /* Held behind the gate: the call cannot finish until the gaps have changed. */
    cr_assert_eq(clEnqueueBarrierWithWaitList(env.queue, 1, &gate, NULL), CL_SUCCESS);
    clFlush(env.queue);
    gap_call g = {h, layout, a, b, c, M, N, K, ldc, -1};
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, run_gap_call, &g), 0);
    nanosleep(&(struct timespec){0, 300000000}, NULL); /* let the call start and copy C */
    for (size_t o = 0; o < outer; o++)
        for (size_t i = inner; i < ldc; i++)
            c[i + o * ldc] = 42.0f + (float)o; /* the user's own data, written meanwhile */
    clSetUserEventStatus(gate, CL_COMPLETE);
    pthread_join(thread, NULL);
    cr_assert_eq(g.status, CLGEMM_SUCCESS, "%s", clgemm_status_string(g.status));
    int wrong = 0;
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < ldc; i++) {
            float got = c[i + o * ldc], want = 42.0f + (float)o;
            if (i < inner) {
                size_t r = row ? o : i, col = row ? i : o;
                double s = (double)(i + o);
                for (int p = 0; p < K; p++)
                    s +=
                        (double)a[row ? r * K + p : r + p * M] * b[row ? p * N + col : p + col * K];
                want = (float)s;
            }
            if (got != want) {
                if (wrong < 5) cr_log_error("C[%zu] = %g, want %g", i + o * ldc, got, want);
                wrong++;
            }
        }
    cr_expect_eq(wrong, 0, "%d wrong elements (gaps must hold what was written during the call)",
                 wrong);
    clReleaseEvent(gate);
    tc_close_handle(&env, h);
}

Test(faults, host_api_gaps_changed_during_a_call_col_major, .timeout = 600) {
    gaps_changed_during_a_call(CLGEMM_COL_MAJOR);
}

Test(faults, host_api_gaps_changed_during_a_call_row_major, .timeout = 600) {
    gaps_changed_during_a_call(CLGEMM_ROW_MAJOR);
}
