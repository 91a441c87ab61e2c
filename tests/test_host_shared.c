/* test_host_shared.c: every host-array form (strided batch, batch of pointers, one matrix) with
 * two threads computing disjoint, interleaved matrices of one shared host C, for every element
 * type. A host call may write back only the elements of its own matrices: before the fix the
 * strided batch uploaded C's whole span and copied all of it back, so the thread that finished
 * last reset the other's results to their old values (issue 20, item 1).
 *
 * The race is made certain rather than likely: the handle's queue is held by a user event until
 * both threads have taken their copies of C, so both read back after both uploaded. The layouts:
 * alternate matrices (thread t owns matrices t, t + 2, ...; stride twice the extent), row blocks
 * (ldc twice a block's width, thread t's blocks at column or row offset t * width) and, for the
 * strided form, one matrix per thread (batch_count 1, the row-block case). C's gaps hold
 * signalling-NaN sentinels that must come back bit for bit; beta alternates between 0 (C's
 * blocks NaN, so they must not be read) and 0.5. Inputs are multiples of 1/4, exact in every
 * type; the tolerance is still scaled by K. */
#include "typed.h"

#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct type_pair {
    clgemm_precision ab, c;
} type_pair;

static const type_pair type_pairs[] = {
    {CLGEMM_SINGLE, CLGEMM_SINGLE},
    {CLGEMM_DOUBLE, CLGEMM_DOUBLE},
    {CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE},
    {CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE},
    {CLGEMM_HALF, CLGEMM_HALF},
    {CLGEMM_BFLOAT16, CLGEMM_BFLOAT16},
    {CLGEMM_HALF, CLGEMM_SINGLE},
    {CLGEMM_BFLOAT16, CLGEMM_SINGLE},
};

typedef enum host_form { FORM_STRIDED, FORM_POINTERS, FORM_SINGLE } host_form;
typedef enum placement { ALTERNATE, ROW_BLOCKS, ONE_ROW_BLOCK } placement;

enum { M = 13, N = 11, K = 8, PER_THREAD = 3, THREADS = 2, PAD = 3 };

/* One thread's call: its matrices' first elements in the shared arrays. */
typedef struct thread_call {
    clgemm_handle h;
    host_form form;
    type_pair t;
    clgemm_layout layout;
    size_t count, lda, ldb, ldc, stride_a, stride_b, stride_c;
    const void *a[PER_THREAD], *b[PER_THREAD];
    void *c[PER_THREAD];
    unsigned char alpha[16 * PER_THREAD], beta[16 * PER_THREAD]; /* scalars of the arithmetic */
    clgemm_status status;
} thread_call;

/* Bytes of one alpha / beta of type_ab's arithmetic: float, double or their pairs. */
static size_t scalar_size(clgemm_precision ab) {
    switch (ab) {
    case CLGEMM_DOUBLE:
    case CLGEMM_COMPLEX_SINGLE:
        return 8;
    case CLGEMM_COMPLEX_DOUBLE:
        return 16;
    default:
        return 4;
    }
}

static void set_scalar(clgemm_precision ab, unsigned char *at, double re, double im) {
    if (ab == CLGEMM_DOUBLE || ab == CLGEMM_COMPLEX_DOUBLE) {
        double v[2] = {re, im};
        memcpy(at, v, ab == CLGEMM_DOUBLE ? 8 : 16);
    } else {
        float v[2] = {(float)re, (float)im};
        memcpy(at, v, ab == CLGEMM_COMPLEX_SINGLE ? 8 : 4);
    }
}

/* One typed host wrapper, alpha and beta read as its scalar type. */
#define TYPED_HOST_CALL(wrapper, scalar)                                                           \
    do {                                                                                           \
        scalar alpha, beta;                                                                        \
        memcpy(&alpha, tc->alpha, sizeof alpha);                                                   \
        memcpy(&beta, tc->beta, sizeof beta);                                                      \
        return wrapper(h, tc->layout, nt, nt, M, N, K, alpha, a, tc->lda, b, tc->ldb, beta, c,     \
                       tc->ldc);                                                                   \
    } while (0)

/* The one-matrix host call of the type pair: the typed wrapper where there is one. */
static clgemm_status single_call(const thread_call *tc) {
    const type_pair t = tc->t;
    clgemm_handle h = tc->h;
    const clgemm_transpose nt = CLGEMM_NO_TRANS;
    const void *a = tc->a[0], *b = tc->b[0];
    void *c = tc->c[0];
    if (t.ab == t.c) switch (t.ab) {
        case CLGEMM_SINGLE:
            TYPED_HOST_CALL(clgemm_sgemm_host, float);
        case CLGEMM_DOUBLE:
            TYPED_HOST_CALL(clgemm_dgemm_host, double);
        case CLGEMM_COMPLEX_SINGLE:
            TYPED_HOST_CALL(clgemm_cgemm_host, cl_float2);
        case CLGEMM_COMPLEX_DOUBLE:
            TYPED_HOST_CALL(clgemm_zgemm_host, cl_double2);
        case CLGEMM_HALF:
            TYPED_HOST_CALL(clgemm_hgemm_host, float);
        case CLGEMM_BFLOAT16:
            TYPED_HOST_CALL(clgemm_bf16gemm_host, float);
        default:
            break;
        }
    return clgemm_gemm_ex_host(h, tc->layout, nt, nt, M, N, K, tc->alpha, a, tc->lda, b, tc->ldb,
                               tc->beta, c, tc->ldc, t.ab, t.c, CLGEMM_COMPUTE_DEFAULT);
}

static void *run_thread(void *arg) {
    thread_call *tc = arg;
    const clgemm_transpose nt = CLGEMM_NO_TRANS;
    switch (tc->form) {
    case FORM_STRIDED:
        tc->status = clgemm_gemm_strided_batched_host(
            tc->h, tc->layout, nt, nt, M, N, K, tc->alpha, tc->a[0], tc->lda, tc->stride_a,
            tc->b[0], tc->ldb, tc->stride_b, tc->beta, tc->c[0], tc->ldc, tc->stride_c, tc->count,
            tc->t.ab, tc->t.c, CLGEMM_COMPUTE_DEFAULT);
        break;
    case FORM_POINTERS:
        tc->status = clgemm_gemm_batched_host(tc->h, tc->layout, nt, nt, M, N, K, tc->alpha, tc->a,
                                              tc->lda, tc->b, tc->ldb, tc->beta, tc->c, tc->ldc,
                                              tc->count, tc->t.ab, tc->t.c, CLGEMM_COMPUTE_DEFAULT);
        break;
    case FORM_SINGLE:
        tc->status = single_call(tc);
        break;
    }
    return NULL;
}

/* Machine epsilon of the type C is stored in (its last rounding bounds the error). */
static double epsilon(clgemm_precision t) {
    switch (t) {
    case CLGEMM_HALF:
        return 0x1p-11;
    case CLGEMM_BFLOAT16:
        return 0x1p-8;
    case CLGEMM_DOUBLE:
    case CLGEMM_COMPLEX_DOUBLE:
        return 0x1p-53;
    default:
        return 0x1p-24;
    }
}

/* A random multiple of 1/4 in [-1, 1): exact in every type. */
static double quarter(uint64_t *state) {
    return floor(tc_random(state) * 4) / 4;
}

/* One case: both threads on one handle, the queue gated until both have taken their copies.
 * Returns the number of wrong elements of C (0: right), with the first few in msg. */
static size_t run_case(tc_env *env, clgemm_handle h, host_form form, type_pair t, placement where,
                       double beta, char *msg, size_t size) {
    clgemm_layout layout = where == ROW_BLOCKS ? CLGEMM_ROW_MAJOR : CLGEMM_COL_MAJOR;
    int row = layout == CLGEMM_ROW_MAJOR;
    size_t inner = row ? N : M, outer = row ? M : N;
    size_t per = where == ONE_ROW_BLOCK ? 1 : form == FORM_SINGLE ? 1 : PER_THREAD;
    size_t total = THREADS * per; /* matrices in the shared arrays */
    size_t lda = row ? K : M, ldb = row ? N : K, ea = M * K, eb = K * N;
    /* Matrix j (thread j % 2, its (j / 2)-th) of C starts at c_at[j]. */
    size_t ldc, c_len, c_at[THREADS * PER_THREAD];
    if (where == ALTERNATE) {
        ldc = inner + PAD;
        size_t extent = (outer - 1) * ldc + inner;
        for (size_t j = 0; j < total; j++)
            c_at[j] = j * extent;
        c_len = total * extent;
    } else {
        ldc = THREADS * inner + 1;
        for (size_t j = 0; j < total; j++)
            c_at[j] = (j % THREADS) * inner + (j / THREADS) * outer * ldc;
        c_len = per * outer * ldc;
    }
    size_t sab = clgemm_type_size(t.ab), sc = clgemm_type_size(t.c);
    unsigned char *a = malloc(total * ea * sab), *b = malloc(total * eb * sab);
    unsigned char *c = malloc(c_len * sc), *c0 = malloc(c_len * sc);
    double *alpha = malloc(total * 2 * sizeof *alpha);
    cr_assert(a && b && c && c0 && alpha);
    uint64_t seed = 0x5eed0000u + (uint64_t)form * 977 + (uint64_t)t.ab * 131 + t.c * 17 + where;
    int nc = tt_ncomp(t.ab);
    for (size_t i = 0; i < total * ea; i++)
        for (int comp = 0; comp < nc; comp++)
            tt_set(t.ab, a, i, comp, quarter(&seed));
    for (size_t i = 0; i < total * eb; i++)
        for (int comp = 0; comp < nc; comp++)
            tt_set(t.ab, b, i, comp, quarter(&seed));
    for (size_t i = 0; i < c_len; i++)
        tt_set_sentinel(t.c, c, i);
    for (size_t j = 0; j < total; j++)
        for (size_t o = 0; o < outer; o++)
            for (size_t i = 0; i < inner; i++) {
                size_t e = c_at[j] + o * ldc + i;
                if (beta == 0)
                    tt_set_nan(t.c, c, e);
                else
                    for (int comp = 0; comp < nc; comp++)
                        tt_set(t.c, c, e, comp, quarter(&seed) * 4);
            }
    memcpy(c0, c, c_len * sc);
    /* Each matrix its own alpha (the strided form and the single form take the first one's of
     * their thread, so those are equal within a thread). */
    for (size_t j = 0; j < total; j++) {
        int shared = form != FORM_POINTERS;
        size_t from = shared ? j % THREADS : j;
        alpha[2 * j] = 0.5 + 0.25 * (double)from;
        alpha[2 * j + 1] = nc == 2 ? -0.25 * (double)(from + 1) : 0;
    }

    thread_call calls[THREADS];
    for (int th = 0; th < THREADS; th++) {
        thread_call *tc = &calls[th];
        *tc = (thread_call){.h = h,
                            .form = form,
                            .t = t,
                            .layout = layout,
                            .count = per,
                            .lda = lda,
                            .ldb = ldb,
                            .ldc = ldc,
                            .stride_a = THREADS * ea,
                            .stride_b = THREADS * eb,
                            .stride_c = per > 1 ? c_at[th + THREADS] - c_at[th] : 0,
                            .status = -1};
        for (size_t i = 0; i < per; i++) {
            size_t j = th + i * THREADS;
            tc->a[i] = a + j * ea * sab;
            tc->b[i] = b + j * eb * sab;
            tc->c[i] = c + c_at[j] * sc;
            set_scalar(t.ab, tc->alpha + i * scalar_size(t.ab), alpha[2 * j], alpha[2 * j + 1]);
            set_scalar(t.ab, tc->beta + i * scalar_size(t.ab), beta, 0);
        }
    }
    cl_int err;
    cl_event gate = clCreateUserEvent(env->context, &err);
    cr_assert_eq(err, CL_SUCCESS);
    cr_assert_eq(clEnqueueBarrierWithWaitList(env->queue, 1, &gate, NULL), CL_SUCCESS);
    clFlush(env->queue);
    pthread_t threads[THREADS];
    for (int th = 0; th < THREADS; th++)
        cr_assert_eq(pthread_create(&threads[th], NULL, run_thread, &calls[th]), 0);
    /* Long enough for both to copy C and enqueue (the build of a cold kernel happens first,
     * inside the call; a call still building then just finishes later, the case is no weaker
     * for the other thread's copy). */
    nanosleep(&(struct timespec){0, 200000000}, NULL);
    clSetUserEventStatus(gate, CL_COMPLETE);
    for (int th = 0; th < THREADS; th++) {
        pthread_join(threads[th], NULL);
        cr_assert_eq(calls[th].status, CLGEMM_SUCCESS, "thread %d: %s", th,
                     clgemm_status_string(calls[th].status));
    }
    clReleaseEvent(gate);

    /* Every matrix against the reference, everything else bit for bit. */
    size_t wrong = 0, used = 0;
    msg[0] = 0;
    unsigned char *owned = calloc(c_len, 1);
    cr_assert(owned);
    for (size_t j = 0; j < total; j++)
        for (size_t r = 0; r < M; r++)
            for (size_t col = 0; col < N; col++) {
                size_t e = c_at[j] + (row ? r * ldc + col : r + col * ldc);
                owned[e] = 1;
                double s[2] = {0, 0}, mag = 0;
                for (size_t p = 0; p < K; p++) {
                    size_t ia = j * ea + (row ? r * lda + p : r + p * lda);
                    size_t ib = j * eb + (row ? p * ldb + col : p + col * ldb);
                    double ar = tt_get(t.ab, a, ia, 0), ai = nc == 2 ? tt_get(t.ab, a, ia, 1) : 0;
                    double br = tt_get(t.ab, b, ib, 0), bi = nc == 2 ? tt_get(t.ab, b, ib, 1) : 0;
                    s[0] += ar * br - ai * bi;
                    s[1] += ar * bi + ai * br;
                    mag += (fabs(ar) + fabs(ai)) * (fabs(br) + fabs(bi));
                }
                double are = alpha[2 * j], aim = alpha[2 * j + 1];
                double want[2] = {are * s[0] - aim * s[1], are * s[1] + aim * s[0]};
                double cmag = 0;
                if (beta != 0)
                    for (int comp = 0; comp < nc; comp++) {
                        want[comp] += beta * tt_get(t.c, c0, e, comp);
                        cmag += fabs(beta * tt_get(t.c, c0, e, comp));
                    }
                double bound =
                    (K + 2) * epsilon(t.c) * ((fabs(are) + fabs(aim)) * mag + cmag) + 1e-300;
                for (int comp = 0; comp < nc; comp++) {
                    double got = tt_get(t.c, c, e, comp);
                    if (!(fabs(got - want[comp]) <= bound)) {
                        if (wrong < 3 && used < size)
                            used += snprintf(msg + used, size - used,
                                             " matrix %zu (%zu,%zu)[%d] = %g, want %g;", j, r, col,
                                             comp, got, want[comp]);
                        wrong++;
                    }
                }
            }
    for (size_t e = 0; e < c_len; e++)
        if (!owned[e] && memcmp(c + e * sc, c0 + e * sc, sc) != 0) {
            if (wrong < 3 && used < size)
                used += snprintf(msg + used, size - used, " gap C[%zu] changed;", e);
            wrong++;
        }
    free(owned);
    free(a);
    free(b);
    free(c);
    free(c0);
    free(alpha);
    return wrong;
}

static const char *type_name(clgemm_precision t) {
    static const char *names[] = {"S", "D", "C", "Z", "H", "BF16"};
    return (unsigned)t < COUNT(names) ? names[t] : "?";
}

/* Every type pair the device runs, every placement the form has, beta 0 and 0.5. */
static void run_form(host_form form) {
    TC_OPEN_HANDLE_OR_SKIP(env, h);
    static const placement all[] = {ALTERNATE, ROW_BLOCKS, ONE_ROW_BLOCK};
    /* batch_count 1 only exists for the strided form (the others: each thread one matrix
     * already in the single form, and the pointer form's count is that of its array). */
    size_t places = form == FORM_STRIDED ? 3 : 2;
    size_t failed = 0;
    for (size_t p = 0; p < COUNT(type_pairs); p++) {
        type_pair t = type_pairs[p];
        if ((t.ab == CLGEMM_DOUBLE || t.ab == CLGEMM_COMPLEX_DOUBLE) && !env.has_fp64) continue;
        for (size_t w = 0; w < places; w++)
            for (int bi = 0; bi < 2; bi++) {
                char msg[512];
                double beta = bi ? 0.5 : 0;
                size_t wrong = run_case(&env, h, form, t, all[w], beta, msg, sizeof msg);
                if (wrong) {
                    cr_log_error("%s/%s, placement %d, beta %g: %zu wrong:%s", type_name(t.ab),
                                 type_name(t.c), (int)all[w], beta, wrong, msg);
                    failed++;
                }
            }
    }
    cr_expect_eq(failed, 0, "%zu cases lost results or changed gaps (see the log)", failed);
    tc_close_handle(&env, h);
}

Test(host_shared, strided_batch_interleaved, .timeout = 600) {
    run_form(FORM_STRIDED);
}

Test(host_shared, pointer_batch_interleaved, .timeout = 600) {
    run_form(FORM_POINTERS);
}

Test(host_shared, single_matrix_row_blocks, .timeout = 600) {
    run_form(FORM_SINGLE);
}
