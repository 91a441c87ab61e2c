/* test_enqueue_faults.c: a call whose later launch fails to enqueue on an in-order queue, where
 * the launches before it asked for no event (src/exec/gemm.c): the call reports the failure, its
 * workspace is held by a marker after what was enqueued or, where no marker can be had either,
 * given up (never handed to the next call while still written), and the next call on the handle
 * computes the right product. The OpenCL entry points are wrapped here: the library is linked
 * statically into this program, so its calls reach these definitions first. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "exec/exec.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>

/* Which launch after arming fails (0: none), and whether markers fail. */
static int fail_launch, launches;
static bool fail_markers;

static void arm(int launch, bool markers) {
    fail_launch = launch;
    launches = 0;
    fail_markers = markers;
}

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o,
                              const size_t *g, const size_t *l, cl_uint n, const cl_event *w,
                              cl_event *e) {
    static cl_int (*real)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                          const size_t *, cl_uint, const cl_event *, cl_event *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel");
    if (fail_launch && ++launches == fail_launch) return CL_OUT_OF_RESOURCES;
    return real(q, k, d, o, g, l, n, w, e);
}

cl_int clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e) {
    static cl_int (*real)(cl_command_queue, cl_uint, const cl_event *, cl_event *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "clEnqueueMarkerWithWaitList");
    if (fail_markers) return CL_OUT_OF_RESOURCES;
    return real(q, n, w, e);
}

enum { M = 72, N = 33, K = 304 }; /* A at offset 1 is off 16 bytes, B on them */

typedef struct problem {
    clgemm_handle h;
    cl_mem a, b, c;
    float ha[M * K], hb[K * N], hc[M * N];
} problem;

static void make_problem(problem *p) {
    setenv("CLGEMM_TUNING_DB", "/nonexistent/clgemm-enqueue-faults.json", 1);
    if (clgemm_create_default(&p->h) != CLGEMM_SUCCESS) cr_skip_test("no OpenCL device");
    cl_command_queue_properties props = 0;
    clGetCommandQueueInfo(clgemm_queue(p->h), CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    cr_assert(!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE), "the handle's queue is in order");
    uint64_t s = 99;
    for (size_t i = 0; i < M * K + K * N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const float v = (float)((s >> 40) % 2001) / 1000.0f - 1.0f;
        if (i < M * K)
            p->ha[i] = v;
        else
            p->hb[i - M * K] = v;
    }
    cl_context ctx = clgemm_context(p->h);
    cl_int err;
    p->a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof p->ha, p->ha, &err);
    p->b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof p->hb, p->hb, &err);
    p->c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof p->hc, NULL, &err);
    cr_assert(p->a && p->b && p->c);
}

/* C = A B (column-major, A at an odd offset: the alignment copies take it), and its status. */
static clgemm_status product(problem *p) {
    return clgemm_sgemm(p->h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K - 1, 1.0f,
                        p->a, 1, M, p->b, 0, K, 0.0f, p->c, 0, M, NULL, 0, NULL, NULL);
}

/* Elements of C off the double product of the stored inputs (after the queue is done). */
static int wrong(problem *p) {
    clEnqueueReadBuffer(clgemm_queue(p->h), p->c, CL_TRUE, 0, sizeof p->hc, p->hc, 0, NULL, NULL);
    int bad = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double ref = 0, mag = 0;
            for (int l = 0; l < K - 1; l++) {
                ref += (double)p->ha[1 + i + l * M] * p->hb[l + j * K];
                mag += fabs((double)p->ha[1 + i + l * M] * p->hb[l + j * K]);
            }
            bad += !(fabs(p->hc[i + j * M] - ref) <= 1e-5 * mag + 1e-30);
        }
    return bad;
}

/* Workspaces the handle would hand to the next call as idle though this one's commands may still
 * use them: each slot holding memory must be busy until an event (the failed call enqueued
 * something on every workspace it took). */
static int slots_idle_in_use(const problem *p) {
    int n = 0;
    for (int i = 0; i < CLGEMM__WORKSPACES; i++)
        n += p->h->work[i].mem != NULL && p->h->work[i].busy == NULL;
    return n;
}

static void free_problem(problem *p) {
    clReleaseMemObject(p->a);
    clReleaseMemObject(p->b);
    clReleaseMemObject(p->c);
    clgemm_destroy(p->h);
}

/* The call's second launch fails to enqueue, with markers working and failing, on a handle set
 * up with K split `ksplit` ways and alignment copies `align_copies`: the failure is reported, no
 * workspace is handed on idle while in use, and the next call is right. */
static void second_launch_fails(int ksplit, int align_copies, const char *what) {
    for (int markers_fail = 0; markers_fail < 2; markers_fail++) {
        problem p;
        make_problem(&p);
        p.h->ksplit = ksplit;
        p.h->align_copies = align_copies;
        p.h->pack_kc = -1;
        if (align_copies && p.h->info.cls != DEVICE_CPU)
            cr_skip_test("the copies are forced on PoCL's CPU");
        arm(2, markers_fail);
        cr_expect_neq(product(&p), CLGEMM_SUCCESS, "%s: the failure is reported", what);
        arm(0, false);
        cr_expect_eq(slots_idle_in_use(&p), 0, "%s, markers %s: the workspace handed on in use",
                     what, markers_fail ? "fail" : "work");
        cr_assert_eq(product(&p), CLGEMM_SUCCESS);
        cr_expect_eq(wrong(&p), 0, "%s: the next call's product", what);
        free_problem(&p);
    }
}

/* The split's sum (the second launch) fails: with markers the workspace is kept busy until the
 * partial products are done; without, it is given up. */
Test(enqueue_faults, split_sum_fails_to_enqueue) {
    second_launch_fails(3, 0, "the split's sum");
}

/* The product after the alignment copies (the second launch) fails: the copies were enqueued
 * without events; their workspace is held by a marker after them or given up. */
Test(enqueue_faults, product_after_copies_fails_to_enqueue) {
    second_launch_fails(1, 1, "the product after its copies");
}
