/* run.c: the tests' GEMM calls: clgemm in either precision, the same problem through CLBlast,
 * and tc_run, which runs one problem end to end and checks everything about its result. */
#include "test_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TC_HAVE_CLBLAST
#include <clblast_c.h>
#endif

clgemm_status tc_clgemm(clgemm_handle h, const tc_gemm *g, cl_mem a, cl_mem b, cl_mem c,
                        cl_command_queue queue, cl_uint num_wait, const cl_event *wait,
                        cl_event *event) {
    if (g->prec == CLGEMM_DOUBLE)
        return clgemm_dgemm(h, g->layout, g->ta, g->tb, g->m, g->n, g->k, g->alpha, a, g->off_a,
                            g->lda, b, g->off_b, g->ldb, g->beta, c, g->off_c, g->ldc, queue,
                            num_wait, wait, event);
    return clgemm_sgemm(h, g->layout, g->ta, g->tb, g->m, g->n, g->k, (float)g->alpha, a, g->off_a,
                        g->lda, b, g->off_b, g->ldb, (float)g->beta, c, g->off_c, g->ldc, queue,
                        num_wait, wait, event);
}

bool tc_have_clblast(void) {
#ifdef TC_HAVE_CLBLAST
    return true;
#else
    return false;
#endif
}

int tc_clblast(cl_command_queue queue, const tc_gemm *g, cl_mem a, cl_mem b, cl_mem c) {
#ifdef TC_HAVE_CLBLAST
    CLBlastLayout layout =
        g->layout == CLGEMM_ROW_MAJOR ? CLBlastLayoutRowMajor : CLBlastLayoutColMajor;
    CLBlastTranspose ta = g->ta == CLGEMM_TRANS ? CLBlastTransposeYes : CLBlastTransposeNo;
    CLBlastTranspose tb = g->tb == CLGEMM_TRANS ? CLBlastTransposeYes : CLBlastTransposeNo;
    cl_command_queue q = queue;
    cl_event event = NULL;
    CLBlastStatusCode st;
    if (g->prec == CLGEMM_DOUBLE)
        st = CLBlastDgemm(layout, ta, tb, g->m, g->n, g->k, g->alpha, a, g->off_a, g->lda, b,
                          g->off_b, g->ldb, g->beta, c, g->off_c, g->ldc, &q, &event);
    else
        st = CLBlastSgemm(layout, ta, tb, g->m, g->n, g->k, (float)g->alpha, a, g->off_a, g->lda, b,
                          g->off_b, g->ldb, (float)g->beta, c, g->off_c, g->ldc, &q, &event);
    if (st == CLBlastSuccess && event) {
        clWaitForEvents(1, &event);
        clReleaseEvent(event);
    }
    return (int)st;
#else
    (void)queue, (void)g, (void)a, (void)b, (void)c;
    return -1;
#endif
}

/* Writes "desc: what" into msg. */
__attribute__((format(printf, 4, 5))) static int fail(char *msg, size_t size, const char *desc,
                                                      const char *fmt, ...) {
    int used = snprintf(msg, size, "%s:", desc);
    if (used >= 0 && (size_t)used < size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg + used, size - (size_t)used, fmt, ap);
        va_end(ap);
    }
    return 1;
}

/* The host buffers must come back bit for bit: A and B are read-only for a GEMM. */
static bool unchanged(cl_command_queue queue, cl_mem mem, const void *host, size_t bytes) {
    if (bytes == 0) return true;
    void *now = malloc(bytes);
    bool same =
        now && tc_read(queue, mem, bytes, now) == CL_SUCCESS && memcmp(now, host, bytes) == 0;
    free(now);
    return same;
}

int tc_run(tc_env *env, clgemm_handle h, const tc_gemm *g, uint64_t seed, unsigned data_flags,
           unsigned run_flags, char *msg, size_t size) {
    char desc[320];
    tc_data d;
    tc_describe(g, desc, sizeof desc);
    if (!tc_data_make(&d, g, seed, data_flags)) return fail(msg, size, desc, " out of memory");
    tc_describe(&d.g, desc, sizeof desc);
    const tc_gemm *p = &d.g;
    size_t rs = tc_real_size(p->prec), cells = p->m * p->n;
    int rc = 0;
    cl_mem a = tc_buffer(env->context, d.na * rs, d.na ? d.a : NULL);
    cl_mem b = tc_buffer(env->context, d.nb * rs, d.nb ? d.b : NULL);
    cl_mem c = tc_buffer(env->context, d.nc * rs, d.nc ? d.c0 : NULL);
    cl_mem c2 = NULL;
    cl_command_queue reader = NULL;
    cl_event event = NULL;
    double *ref = malloc((cells ? cells : 1) * sizeof *ref);
    double *bound = malloc((cells ? cells : 1) * sizeof *bound);
    void *c_clblast = malloc((d.nc ? d.nc : 1) * rs);
    if (!a || !b || !c || !ref || !bound || !c_clblast) {
        rc = fail(msg, size, desc, " could not allocate buffers");
        goto done;
    }

    clgemm_status st =
        tc_clgemm(h, p, a, b, c, NULL, 0, NULL, (run_flags & TC_RUN_EVENT) ? &event : NULL);
    if (st != CLGEMM_SUCCESS) {
        rc = fail(msg, size, desc, " returned %d (%s)", st, clgemm_status_string(st));
        goto done;
    }
    if (run_flags & TC_RUN_EVENT) {
        /* Read on a queue of its own, so only the event orders the read after the kernel. */
        cl_int err;
        reader = clCreateCommandQueue(env->context, env->device, 0, &err);
        if (err != CL_SUCCESS) reader = NULL;
        cl_int status = -1;
        if (!event || !reader || clWaitForEvents(1, &event) != CL_SUCCESS ||
            clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                           NULL) != CL_SUCCESS ||
            status != CL_COMPLETE) {
            rc = fail(msg, size, desc, " output event %p missing or not complete (status %d)",
                      (void *)event, status);
            goto done;
        }
    } else {
        clFinish(env->queue);
    }
    if (tc_read(reader ? reader : env->queue, c, d.nc * rs, d.c) != CL_SUCCESS) {
        rc = fail(msg, size, desc, " reading C back failed");
        goto done;
    }
    tc_reference(&d, ref, bound);
    char detail[1024];
    if (tc_check(&d, d.c, ref, bound, 1.0, detail, sizeof detail)) {
        rc = fail(msg, size, desc, "%s", detail);
        goto done;
    }
    if (!unchanged(env->queue, a, d.a, d.na * rs) || !unchanged(env->queue, b, d.b, d.nb * rs)) {
        rc = fail(msg, size, desc, " the call changed buffer A or B");
        goto done;
    }

    if ((run_flags & TC_RUN_CLBLAST) && tc_have_clblast() && p->m && p->n && p->k) {
        /* CLBlast gets zeros where C holds the beta == 0 poison: the comparison is about the
         * numbers, and how CLBlast treats NaN in C is not what is tested here. */
        memcpy(c_clblast, d.c0, d.nc * rs);
        if (p->beta == 0)
            for (size_t j = 0; j < p->n; j++)
                for (size_t i = 0; i < p->m; i++)
                    tc_set(p->prec, c_clblast,
                           p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc), 0.0);
        c2 = tc_buffer(env->context, d.nc * rs, c_clblast);
        int cst = c2 ? tc_clblast(env->queue, p, a, b, c2) : -1;
        if (cst != 0) {
            rc = fail(msg, size, desc, " CLBlast failed (%d) on this problem", cst);
            goto done;
        }
        if (tc_read(env->queue, c2, d.nc * rs, c_clblast) != CL_SUCCESS) {
            rc = fail(msg, size, desc, " reading CLBlast's C back failed");
            goto done;
        }
        /* Each result is within one bound of the exact one, so within two of each other. */
        if (tc_compare(&d, d.c, c_clblast, bound, 2.0, detail, sizeof detail)) {
            rc = fail(msg, size, desc, " differs from CLBlast:%s", detail);
            goto done;
        }
    }

done:
    if (event) clReleaseEvent(event);
    if (reader) clReleaseCommandQueue(reader);
    if (a) clReleaseMemObject(a);
    if (b) clReleaseMemObject(b);
    if (c) clReleaseMemObject(c);
    if (c2) clReleaseMemObject(c2);
    free(ref);
    free(bound);
    free(c_clblast);
    tc_data_free(&d);
    return rc;
}
