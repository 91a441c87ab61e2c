/* rel_common.c: the reliability tests' problem geometry, exact-valued host buffers, host
 * reference and whole-buffer check (see rel_common.h). */
#include "configs.h"
#include "rel_common.h"
#include "typed.h"
#include "core/xorshift.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Geometry, element access and the sentinels are the shared test library's (tests/common:
 * tc_min_ld, tc_extent, tc_index; typed.h: tt_get, tt_set, tt_set_sentinel); this file adds what
 * the reliability tests need beyond it: exact-valued data and a whole-buffer check. */

uint64_t rel_rand(uint64_t *state) {
    return clgemm_xorshift64s(state);
}

/* A multiple of 1/4 in [-2, 2]. */
static double quarter(uint64_t *state) {
    return (double)((int)(rel_rand(state) % 17) - 8) / 4.0;
}

enum { TAIL = 3 };

/* Fills op(X) (rows x cols) of a buffer with quarters and everything else with fill(). */
static void fill_matrix(clgemm_precision prec, void *buf, size_t len, size_t off,
                        clgemm_layout layout, clgemm_transpose trans, size_t rows, size_t cols,
                        size_t ld, uint64_t *state, bool nan_inside, bool sentinel_outside) {
    for (size_t i = 0; i < len; i++) {
        if (sentinel_outside)
            tt_set_sentinel(prec, buf, i);
        else
            tt_set(prec, buf, i, 0, NAN);
    }
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            tt_set(prec, buf, off + tc_index(layout, trans, i, j, ld), 0,
                   nan_inside ? NAN : quarter(state));
}

bool rel_make(rel_data *d, const rel_problem *p, uint64_t seed) {
    memset(d, 0, sizeof *d);
    d->p = *p;
    rel_problem *q = &d->p;
    if (!q->lda) q->lda = tc_min_ld(q->layout, q->ta, q->m, q->k);
    if (!q->ldb) q->ldb = tc_min_ld(q->layout, q->tb, q->k, q->n);
    if (!q->ldc) q->ldc = tc_min_ld(q->layout, CLGEMM_NO_TRANS, q->m, q->n);
    d->na = q->off_a + tc_extent(q->layout, q->ta, q->m, q->k, q->lda) + TAIL;
    d->nb = q->off_b + tc_extent(q->layout, q->tb, q->k, q->n, q->ldb) + TAIL;
    d->nc = q->off_c + tc_extent(q->layout, CLGEMM_NO_TRANS, q->m, q->n, q->ldc) + TAIL;
    size_t rs = clgemm_type_size(q->prec);
    d->a = malloc(d->na * rs);
    d->b = malloc(d->nb * rs);
    d->c0 = malloc(d->nc * rs);
    d->c = malloc(d->nc * rs);
    if (!d->a || !d->b || !d->c0 || !d->c) {
        rel_free(d);
        return false;
    }
    uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
    fill_matrix(q->prec, d->a, d->na, q->off_a, q->layout, q->ta, q->m, q->k, q->lda, &state, false,
                false);
    fill_matrix(q->prec, d->b, d->nb, q->off_b, q->layout, q->tb, q->k, q->n, q->ldb, &state, false,
                false);
    /* beta == 0: C must not be read, so its matrix is NaN and any read shows in the result. */
    fill_matrix(q->prec, d->c0, d->nc, q->off_c, q->layout, CLGEMM_NO_TRANS, q->m, q->n, q->ldc,
                &state, q->beta == 0, true);
    memcpy(d->c, d->c0, d->nc * rs);
    return true;
}

void rel_free(rel_data *d) {
    free(d->a);
    free(d->b);
    free(d->c0);
    free(d->c);
    d->a = d->b = d->c0 = d->c = NULL;
}

const char *rel_describe(const rel_problem *p) {
    static _Thread_local char buf[256];
    snprintf(buf, sizeof buf,
             "%cgemm %s %c%c m=%zu n=%zu k=%zu alpha=%g beta=%g off=%zu/%zu/%zu ld=%zu/%zu/%zu",
             p->prec == CLGEMM_DOUBLE ? 'd' : 's',
             p->layout == CLGEMM_ROW_MAJOR ? "row-major" : "col-major",
             p->ta == CLGEMM_TRANS ? 'T' : 'N', p->tb == CLGEMM_TRANS ? 'T' : 'N', p->m, p->n, p->k,
             p->alpha, p->beta, p->off_a, p->off_b, p->off_c, p->lda, p->ldb, p->ldc);
    return buf;
}

size_t rel_check(const rel_data *d, char *msg, size_t size) {
    const rel_problem *p = &d->p;
    size_t rs = clgemm_type_size(p->prec), bad = 0;
    bool *inside = calloc(d->nc ? d->nc : 1, sizeof *inside);
    if (!inside) {
        snprintf(msg, size, "out of host memory");
        return 1;
    }
    for (size_t i = 0; i < p->m; i++) {
        for (size_t j = 0; j < p->n; j++) {
            size_t ic = p->off_c + tc_index(p->layout, CLGEMM_NO_TRANS, i, j, p->ldc);
            inside[ic] = true;
            double acc = 0;
            if (p->alpha != 0)
                for (size_t q = 0; q < p->k; q++)
                    acc += tt_get(p->prec, d->a,
                                  p->off_a + tc_index(p->layout, p->ta, i, q, p->lda), 0) *
                           tt_get(p->prec, d->b,
                                  p->off_b + tc_index(p->layout, p->tb, q, j, p->ldb), 0);
            double want = p->alpha * acc;
            if (p->beta != 0) want += p->beta * tt_get(p->prec, d->c0, ic, 0);
            if (p->prec == CLGEMM_SINGLE) want = (float)want;
            double got = tt_get(p->prec, d->c, ic, 0);
            if (!(got == want)) { /* every value is exact: no tolerance (NaN is wrong too) */
                if (!bad)
                    snprintf(msg, size, "%s: C(%zu, %zu) = %g, want %g", rel_describe(p), i, j, got,
                             want);
                bad++;
            }
        }
    }
    for (size_t i = 0; i < d->nc; i++) {
        if (inside[i] || memcmp((const char *)d->c + i * rs, (const char *)d->c0 + i * rs, rs) == 0)
            continue;
        if (!bad)
            snprintf(msg, size, "%s: element %zu of C's buffer, outside the matrix, changed",
                     rel_describe(p), i);
        bad++;
    }
    free(inside);
    return bad;
}

clgemm_status rel_gemm(clgemm_handle h, const rel_problem *p, cl_mem a, cl_mem b, cl_mem c,
                       cl_command_queue queue, cl_event *event) {
    if (p->prec == CLGEMM_DOUBLE)
        return clgemm_dgemm(h, p->layout, p->ta, p->tb, p->m, p->n, p->k, p->alpha, a, p->off_a,
                            p->lda, b, p->off_b, p->ldb, p->beta, c, p->off_c, p->ldc, queue, 0,
                            NULL, event);
    return clgemm_sgemm(h, p->layout, p->ta, p->tb, p->m, p->n, p->k, (float)p->alpha, a, p->off_a,
                        p->lda, b, p->off_b, p->ldb, (float)p->beta, c, p->off_c, p->ldc, queue, 0,
                        NULL, event);
}

cl_int rel_upload(cl_context ctx, const rel_data *d, cl_mem mem[3]) {
    size_t rs = clgemm_type_size(d->p.prec);
    const size_t len[3] = {d->na, d->nb, d->nc};
    void *host[3] = {d->a, d->b, d->c0};
    cl_int err = CL_SUCCESS;
    mem[0] = mem[1] = mem[2] = NULL;
    for (int i = 0; i < 3 && err == CL_SUCCESS; i++)
        mem[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, len[i] * rs, host[i],
                                &err);
    if (err != CL_SUCCESS) rel_release(mem);
    return err;
}

void rel_release(cl_mem mem[3]) {
    for (int i = 0; i < 3; i++) {
        if (mem[i]) clReleaseMemObject(mem[i]);
        mem[i] = NULL;
    }
}

int rel_run(clgemm_handle h, const rel_problem *p, uint64_t seed, char *msg, size_t size) {
    rel_data d;
    if (!rel_make(&d, p, seed)) {
        snprintf(msg, size, "%s: out of host memory", rel_describe(p));
        return 1;
    }
    cl_mem mem[3];
    cl_int err = rel_upload(clgemm_context(h), &d, mem);
    clgemm_status st = CLGEMM_SUCCESS;
    if (err == CL_SUCCESS) st = rel_gemm(h, &d.p, mem[0], mem[1], mem[2], NULL, NULL);
    if (err == CL_SUCCESS && st == CLGEMM_SUCCESS)
        err = clEnqueueReadBuffer(clgemm_queue(h), mem[2], CL_TRUE, 0,
                                  d.nc * clgemm_type_size(p->prec), d.c, 0, NULL, NULL);
    rel_release(mem);
    int fail = 1;
    if (err != CL_SUCCESS)
        snprintf(msg, size, "%s: OpenCL error %d", rel_describe(&d.p), err);
    else if (st != CLGEMM_SUCCESS)
        snprintf(msg, size, "%s: %s", rel_describe(&d.p), clgemm_status_string(st));
    else
        fail = rel_check(&d, msg, size) != 0;
    rel_free(&d);
    return fail;
}

bool rel_split_taken(clgemm_handle h, const char *second, const clgemm_config *probe_cfg, char *msg,
                     size_t size) {
    const char *src = getenv("REL_KERNEL_SRC");
    char dir[64] = "/tmp/clgemm-no-reduce-XXXXXX", path[600], target[600];
    DIR *d = src ? opendir(src) : NULL;
    if (!d || !mkdtemp(dir)) {
        if (d) closedir(d);
        snprintf(msg, size, "cannot check that K is split: REL_KERNEL_SRC unset or unreadable");
        return false;
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (!rel_is_kernel_file(e->d_name) || strcmp(e->d_name, second) == 0) continue;
        snprintf(target, sizeof target, "%s/%s", src, e->d_name);
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (symlink(target, path) != 0) snprintf(msg, size, "symlink %s failed", path);
    }
    closedir(d);
    clgemm_handle probe;
    clgemm_status st = clgemm_create(&probe, clgemm_queue(h));
    const clgemm_config rb = REGBLOCK(8, 8, 4, 2, 4, 2, 2, 2);
    bool ok = false;
    if (st == CLGEMM_SUCCESS &&
        clgemm_set_config(probe, CLGEMM_SINGLE, probe_cfg ? probe_cfg : &rb) == CLGEMM_SUCCESS) {
        rel_problem p = {.prec = CLGEMM_SINGLE,
                         .layout = CLGEMM_COL_MAJOR,
                         .ta = CLGEMM_NO_TRANS,
                         .tb = CLGEMM_NO_TRANS,
                         .m = 4,
                         .n = 4,
                         .k = 64,
                         .alpha = 1,
                         .beta = 0};
        char inner[512] = "";
        setenv("CLGEMM_KERNEL_DIR", dir, 1);
        int failed = rel_run(probe, &p, 1, inner, sizeof inner);
        unsetenv("CLGEMM_KERNEL_DIR");
        ok = failed && strstr(inner, clgemm_status_string(CLGEMM_ERR_KERNEL_SOURCE)) != NULL;
        if (!ok)
            snprintf(msg, size, "K is not split: without %s the call gave \"%s\"", second,
                     failed ? inner : "success");
    } else {
        snprintf(msg, size, "split probe: cannot create a handle: %s", clgemm_status_string(st));
    }
    if (st == CLGEMM_SUCCESS) clgemm_destroy(probe);
    d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
    return ok;
}

bool rel_is_kernel_file(const char *name) {
    size_t n = strlen(name);
    return (n > 3 && strcmp(name + n - 3, ".cl") == 0) ||
           (n > 2 && strcmp(name + n - 2, ".h") == 0);
}
