/* level3.c: what the blocked Level-3 routines share (see level3.h): their call counters and
 * exit summary, their names, the system BLAS's routines, the GEMM updates and the conversions
 * of scalars and elements the built-in loops use. */
#include "level3.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const names[L3_ROUTINE_COUNT] = {"trsm", "trmm",  "symm",
                                                    "hemm", "syr2k", "her2k"};

static atomic_ulong counts[L3_ROUTINE_COUNT][BLAS_TYPE_COUNT][BLAS_ROUTE_COUNT];
static pthread_once_t summary_once = PTHREAD_ONCE_INIT;

static void summary(void) {
    for (int r = 0; r < L3_ROUTINE_COUNT; r++)
        for (int t = 0; t < BLAS_TYPE_COUNT; t++)
            clgemm__blas_log_routes((blas_type)t, names[r], counts[r][t]);
}

static void counts_reset(void) {
    for (int r = 0; r < L3_ROUTINE_COUNT; r++)
        for (int t = 0; t < BLAS_TYPE_COUNT; t++)
            for (int k = 0; k < BLAS_ROUTE_COUNT; k++)
                atomic_store(&counts[r][t][k], 0);
}

static void register_summary(void) {
    clgemm__blas_summary_at_exit(summary, counts_reset);
}

void clgemm__blas_l3_count(l3_routine r, blas_type t, blas_route route) {
    pthread_once(&summary_once, register_summary);
    atomic_fetch_add(&counts[r][t][route], 1);
}

void clgemm__blas_l3_fortran_name(l3_routine r, blas_type t, char out[7]) {
    snprintf(out, 7, "%c%-5s", clgemm__blas_letter(t) - 'a' + 'A', names[r]);
    for (int i = 1; i < 6; i++)
        if (out[i] >= 'a' && out[i] <= 'z') out[i] = (char)(out[i] - 'a' + 'A');
}

void clgemm__blas_l3_cblas_name(l3_routine r, blas_type t, char out[16]) {
    snprintf(out, 16, "cblas_%c%s", clgemm__blas_letter(t), names[r]);
}

/* Looked up once: LAPACK makes thousands of small calls that go straight to these. */
static void *system_fns[L3_ROUTINE_COUNT][BLAS_TYPE_COUNT];
static pthread_once_t system_once = PTHREAD_ONCE_INIT;

static void look_up(void) {
    for (int r = 0; r < L3_ROUTINE_COUNT; r++)
        for (int t = 0; t < BLAS_TYPE_COUNT; t++) {
            char name[16];
            snprintf(name, sizeof name, "%c%s_", clgemm__blas_letter((blas_type)t), names[r]);
            system_fns[r][t] = clgemm__blas_system_symbol(name);
        }
}

void *clgemm__blas_l3_system(l3_routine r, blas_type t) {
    pthread_once(&system_once, look_up);
    return system_fns[r][t];
}

/* Whether a call of these flops takes the blocked path: at or above the threshold, a device
 * that computes the type, not a forked child. */
static int use_device(blas_type t, double flops) {
    return flops >= clgemm__blas_settings()->min_flops && !clgemm__blas_device_forked() &&
           clgemm__blas_device_usable(t);
}

void clgemm__blas_l3_route(const l3_route *r) {
    const blas_settings *st = clgemm__blas_settings();
    /* Taken before the decision: opening the device on the first call is part of its time. */
    double t0 = st->log >= 2 ? clgemm__blas_seconds() : 0;
    blas_copy_clock c0 = clgemm__blas_copy_clock();
    char letter = clgemm__blas_letter(r->type);
    if (r->dim > st->block && use_device(r->type, r->flops)) {
        int on_device = r->blocked(r->call);
        /* Every update below the threshold: the system BLAS did all of it. */
        clgemm__blas_l3_count(r->routine, r->type, on_device ? ROUTE_DEVICE : ROUTE_SYSTEM);
        if (st->log >= 2) {
            blas_copy_clock c1 = clgemm__blas_copy_clock();
            clgemm__blas_log("%c%s %s %d %d in %.6f s, copies %.6f s %.0f bytes: blocked, %d "
                             "updates on the device",
                             letter, names[r->routine], r->letters, r->size1, r->size2,
                             clgemm__blas_seconds() - t0, c1.seconds - c0.seconds,
                             c1.bytes - c0.bytes, on_device);
        }
        return;
    }
    clgemm__blas_l3_count(r->routine, r->type,
                          clgemm__blas_l3_system(r->routine, r->type) ? ROUTE_SYSTEM
                                                                      : ROUTE_BUILTIN);
    r->host(r->call);
    if (st->log >= 2)
        clgemm__blas_log("%c%s %s %d %d in %.6f s: host", letter, names[r->routine], r->letters,
                         r->size1, r->size2, clgemm__blas_seconds() - t0);
}

/* An update on the host, not counted as a ?gemm call: the system ?gemm_, else the loops. */
static void host_update(const blas_call *g) {
    blas_gemm_fn f = clgemm__blas_system_gemm(g->type);
    if (f)
        f(&g->ta, &g->tb, &g->m, &g->n, &g->k, g->alpha, g->a, &g->lda, g->b, &g->ldb, g->beta,
          g->c, &g->ldc, 1, 1);
    else
        clgemm__blas_host_gemm(g);
}

int clgemm__blas_l3_gemm(const blas_call *g) {
    if (g->m == 0 || g->n == 0 || g->k == 0) return 0; /* the splits never make such a call */
    double flops = 2.0 * g->m * g->n * g->k * (g->type >= BLAS_C ? 4 : 1);
    const char *why;
    if (flops >= clgemm__blas_settings()->min_flops && !clgemm__blas_device_forked())
        return clgemm__blas_gemm_above(g, flops, host_update, &why);
    host_update(g);
    return 0;
}

void clgemm__blas_l3_unpack(blas_type t, const void *x, int real_only, double out[2]) {
    int single = t == BLAS_S || t == BLAS_C;
    int parts = t >= BLAS_C && !real_only ? 2 : 1;
    out[0] = out[1] = 0;
    for (int i = 0; i < parts; i++)
        out[i] = single ? ((const float *)x)[i] : ((const double *)x)[i];
}

void clgemm__blas_l3_pack(blas_type t, const double v[2], void *out) {
    int parts = t >= BLAS_C ? 2 : 1;
    for (int i = 0; i < parts; i++)
        if (t == BLAS_S || t == BLAS_C)
            ((float *)out)[i] = (float)v[i];
        else
            ((double *)out)[i] = v[i];
}

double complex clgemm__blas_l3_get(blas_type t, const void *p, size_t i) {
    switch (t) {
    case BLAS_S:
        return ((const float *)p)[i];
    case BLAS_D:
        return ((const double *)p)[i];
    case BLAS_C:
        return ((const float complex *)p)[i];
    default:
        return ((const double complex *)p)[i];
    }
}

void clgemm__blas_l3_put(blas_type t, void *p, size_t i, double complex v) {
    switch (t) {
    case BLAS_S:
        ((float *)p)[i] = (float)creal(v);
        break;
    case BLAS_D:
        ((double *)p)[i] = creal(v);
        break;
    case BLAS_C:
        ((float complex *)p)[i] = (float complex)v;
        break;
    default:
        ((double complex *)p)[i] = v;
    }
}

const void *clgemm__blas_l3_at(blas_type t, const void *p, int ld, int i, int j) {
    return (const char *)p + ((size_t)i + (size_t)j * (size_t)ld) * clgemm__blas_elem(t);
}

int clgemm__blas_l3_split(int dim) {
    /* In long long: dim / 2 + nb - 1 exceeds int for a block above INT_MAX / 2. */
    long long nb = clgemm__blas_settings()->block;
    long long half = (dim / 2 + nb - 1) / nb * nb;
    return half > 0 && half < dim ? (int)half : dim / 2;
}

int clgemm__blas_l3_cblas_letters(l3_routine r, blas_type t, int layout, int count,
                                  const cblas_letter *args, char *out) {
    char rout[16];
    clgemm__blas_l3_cblas_name(r, t, rout);
    int info = clgemm__blas_cblas_letters(rout, layout, count, args, out);
    if (info) clgemm__blas_l3_count(r, t, ROUTE_ERROR);
    return info;
}

void clgemm__blas_l3_fortran_error(l3_routine r, blas_type t, int info) {
    char name[7];
    clgemm__blas_l3_count(r, t, ROUTE_ERROR);
    clgemm__blas_l3_fortran_name(r, t, name);
    clgemm__blas_xerbla_named(name, info);
}

void clgemm__blas_l3_cblas_fortran_error(l3_routine r, blas_type t, int info, int row_major) {
    char name[7];
    clgemm__blas_l3_count(r, t, ROUTE_ERROR);
    clgemm__blas_l3_fortran_name(r, t, name);
    clgemm__blas_cblas_fortran_error_named(name, info, row_major);
}

char clgemm__blas_l3_upper(char c) {
    return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}
