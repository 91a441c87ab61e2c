/* multi.c: the drop-in across several devices (CLGEMM_BLAS_DEVICES other than 1): one
 * clgemm_multi handle shared by every thread, created on first use; a call is one
 * clgemm_multi_gemm_ex_host on the user's arrays. That call leaves C, per tile, either finished
 * or as it was when every device fails, so with beta != 0 a copy of C is kept to put back
 * before the one-device path recomputes the call. */
#include "blas.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static clgemm_multi_handle multi;
static pthread_once_t multi_once = PTHREAD_ONCE_INIT;

static void open_multi(void) {
    const blas_settings *s = clgemm__blas_settings();
    clgemm_multi_handle all = NULL;
    clgemm_status st = clgemm_create_multi(&all, NULL, 0);
    if (st != CLGEMM_SUCCESS) {
        if (s->log) clgemm__blas_log("no devices: %s", clgemm_status_string(st));
        return;
    }
    int count = clgemm_multi_device_count(all);
    if (s->devices > 0 && s->devices < count) {
        cl_device_id devices[64];
        for (int i = 0; i < s->devices; i++)
            devices[i] = clgemm_device(clgemm_multi_handle_at(all, i));
        clgemm_multi_handle some = NULL;
        st = clgemm_create_multi(&some, devices, s->devices);
        clgemm_multi_destroy(all);
        if (st != CLGEMM_SUCCESS) {
            if (s->log) clgemm__blas_log("no devices: %s", clgemm_status_string(st));
            return;
        }
        all = some;
        count = s->devices;
    }
    if (s->log) clgemm__blas_log("devices: %d", count);
    if (count < 2) {
        clgemm_multi_destroy(all); /* one device: the one-device path, with its copy overlap */
        return;
    }
    multi = all;
}

int clgemm__blas_multi_gemm(const blas_call *call) {
    if (clgemm__blas_settings()->devices == 1) return 1;
    pthread_once(&multi_once, open_multi);
    if (!multi) return 1;
    static const clgemm_precision types[BLAS_TYPE_COUNT] = {
        CLGEMM_SINGLE, CLGEMM_DOUBLE, CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_DOUBLE};
    size_t e = clgemm__blas_elem(call->type), m = (size_t)call->m, n = (size_t)call->n;
    char *saved = NULL;
    if (!clgemm__blas_scalar_is(call->type, call->beta, 0)) {
        if (!(saved = malloc(m * n * e))) return 1;
        for (size_t j = 0; j < n; j++)
            memcpy(saved + j * m * e, (char *)call->c + j * (size_t)call->ldc * e, m * e);
    }
    clgemm_precision t = types[call->type];
    clgemm_status st = clgemm_multi_gemm_ex_host(
        multi, CLGEMM_COL_MAJOR, clgemm__blas_trans(call->type, call->ta),
        clgemm__blas_trans(call->type, call->tb), m, n, (size_t)call->k, call->alpha, call->a,
        (size_t)call->lda, call->b, (size_t)call->ldb, call->beta, call->c, (size_t)call->ldc, t, t,
        CLGEMM_COMPUTE_DEFAULT);
    if (st == CLGEMM_SUCCESS && clgemm__blas_settings()->log >= 2)
        clgemm__blas_log("%cgemm %c%c %d %d %d: across %d devices", clgemm__blas_letter(call->type),
                         call->ta, call->tb, call->m, call->n, call->k,
                         clgemm_multi_device_count(multi));
    if (st != CLGEMM_SUCCESS) {
        if (clgemm__blas_settings()->log)
            clgemm__blas_log("devices failed: %s", clgemm_status_string(st));
        if (saved)
            for (size_t j = 0; j < n; j++)
                memcpy((char *)call->c + j * (size_t)call->ldc * e, saved + j * m * e, m * e);
    }
    free(saved);
    return st != CLGEMM_SUCCESS;
}
