/* types_bench.c: clgemm-types-bench, whole-call speed of every element type and compute mode
 * through the public API (clgemm_gemm_ex), with a sampled accuracy check against a
 * double-precision host product of the same (stored) inputs.
 * Usage: clgemm-types-bench [--runs N] [--no-clblast] [--no-profiling] [--reference openblas]
 *                           [--reference-lib PATH] [--check] [--force FAMILY[:P=V,...]]
 *                           [--trans XY] MODE:M,N,K ...
 * MODE: s d c z h hs b bs tf32 3xtf32 i8 e4m3 e4m3b e4m3h e5m2 e5m2b. --force makes the
 * problems after it run one family's configuration wherever the device takes it for their type
 * ("--force auto": the library's choice again), so two families compare in one run. --trans XY
 * (X, Y each N or T) transposes op(A) and op(B) of the problems after it: row-major NT stores
 * both operands K-major, the layout cuBLASLt's 8-bit products take.
 * (hs / bs: FP16 / BF16 inputs with FP32 C; i8: INT8 into INT32; e4m3 / e5m2: FP8 into FP32,
 * ...b into BF16, ...h into FP16; TFLOPS of i8 count its integer operations, TOPS). Row-major,
 * no transposes unless --trans, alpha 1, beta 0. Prints
 * one line per problem: the kernel used, the median of N warm calls (host clock around the
 * call and clFinish) in ms and TFLOPS, the median device time of the call's last command
 * (its profiling event: for a call of one kernel, that kernel), the median host time until the
 * call returned (its enqueues, before the wait), and the largest sampled error
 * relative to sum |a||b|;
 * for s, d, c and z also CLBlast's same call on the same buffers, median of N (built with
 * CLBlast; --no-clblast: not).
 * --reference openblas (or --reference-lib PATH, a CBLAS library): also the GEMM a CPU user would
 * run instead, on host copies of the same inputs, median of N: cblas_sgemm, _dgemm, _cgemm,
 * _zgemm for s (tf32, 3xtf32), d, c, z; cblas_sbgemm for b and bs where the library has it; for
 * the types CBLAS has no GEMM of (h, hs, i8, FP8, and BF16 without sbgemm) cblas_sgemm on FP32
 * copies of the inputs, widened once before timing.
 * --no-profiling: the bench's queue without profiling (the last command's column then 0).
 * --check: the problems after it are checked in full instead of timed (check_problem below), a
 * configuration's correctness before its speed counts: one line "check ... ok" or "check ...
 * FAIL" and the first wrong case each, exit status 1 on any failure. */
#include "core/clock.h"
#include "cblas_loader.h"
#include "core/xorshift.h"
#include "devices.h"
#include "force_config.h"
#include "test_common.h"
#include "typed.h"

#include <clgemm.h>

#ifdef HAVE_CLBLAST
#include <clblast_c.h>
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The bench's queue has profiling on (the last command's time); --no-profiling: off, as a user's
 * queue may be (NVIDIA's driver then takes less host time a launch), the column then 0. */
static bool profiling = true;

typedef struct mode {
    const char *name;
    clgemm_precision ab, c;
    clgemm_compute compute;
} mode;

static const mode modes[] = {
    {"s", CLGEMM_SINGLE, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT},
    {"d", CLGEMM_DOUBLE, CLGEMM_DOUBLE, CLGEMM_COMPUTE_DEFAULT},
    {"c", CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPUTE_DEFAULT},
    {"z", CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPUTE_DEFAULT},
    {"h", CLGEMM_HALF, CLGEMM_HALF, CLGEMM_COMPUTE_DEFAULT},
    {"hs", CLGEMM_HALF, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT},
    {"b", CLGEMM_BFLOAT16, CLGEMM_BFLOAT16, CLGEMM_COMPUTE_DEFAULT},
    {"bs", CLGEMM_BFLOAT16, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT},
    {"tf32", CLGEMM_SINGLE, CLGEMM_SINGLE, CLGEMM_COMPUTE_TF32},
    {"3xtf32", CLGEMM_SINGLE, CLGEMM_SINGLE, CLGEMM_COMPUTE_FP32_3XTF32},
    {"i8", CLGEMM_INT8, CLGEMM_INT32, CLGEMM_COMPUTE_DEFAULT},
    {"e4m3", CLGEMM_E4M3, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT},
    {"e4m3b", CLGEMM_E4M3, CLGEMM_BFLOAT16, CLGEMM_COMPUTE_DEFAULT},
    {"e4m3h", CLGEMM_E4M3, CLGEMM_HALF, CLGEMM_COMPUTE_DEFAULT},
    {"e5m2", CLGEMM_E5M2, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT},
    {"e5m2b", CLGEMM_E5M2, CLGEMM_BFLOAT16, CLGEMM_COMPUTE_DEFAULT},
};

/* count elements of type t, each component in [-0.5, 0.5) rounded to the type (INT8: all of
 * -128 .. 127). FP64 gets all 53 bits, as cuBLAS's reference (torch.randn) does: on float-valued
 * doubles (29 low mantissa bits zero) the H200's FP64 tensor cores, at their power limit, ran
 * 8192^2 11 % faster, ours 51 against 46 TFLOPS and cuBLAS's 61 against 54
 * (bench/results/h200-fp64-float-valued-vs-53-bit.log, h200-fp64-mantissa-bits.log). */
static void fill(clgemm_precision t, void *p, size_t count, uint64_t *state) {
    for (size_t i = 0; i < count; i++)
        for (int j = 0; j < tt_ncomp(t); j++) {
            double v = (double)(clgemm_xorshift64s(state) >> 11) * 0x1p-53 - 0.5;
            tt_set(t, p, i, j, t == CLGEMM_INT8 ? floor(v * 256.0) : v);
        }
}

/* --reference openblas: the CBLAS library, when opened. */
static cblas_lib reference;
static bool reference_on;

typedef struct reference_call {
    const mode *md;
    int trans_a, trans_b, m, n, k, lda, ldb;
    const void *a, *b; /* the stored inputs, or their FP32 copies (wide) */
    bool wide;
    void *c;
} reference_call;

static void reference_gemm(const reference_call *r) {
    static const double one[2] = {1, 0}, zero[2] = {0, 0};
    static const float onef[2] = {1, 0}, zerof[2] = {0, 0};
    const int row = 101; /* CblasRowMajor, as clgemm's CLGEMM_ROW_MAJOR */
    if (r->wide || r->md->ab == CLGEMM_SINGLE)
        reference.sgemm(row, r->trans_a, r->trans_b, r->m, r->n, r->k, 1.0f, r->a, r->lda, r->b,
                        r->ldb, 0.0f, r->c, r->n);
    else if (r->md->ab == CLGEMM_DOUBLE)
        reference.dgemm(row, r->trans_a, r->trans_b, r->m, r->n, r->k, 1.0, r->a, r->lda, r->b,
                        r->ldb, 0.0, r->c, r->n);
    else if (r->md->ab == CLGEMM_COMPLEX_SINGLE)
        reference.cgemm(row, r->trans_a, r->trans_b, r->m, r->n, r->k, onef, r->a, r->lda, r->b,
                        r->ldb, zerof, r->c, r->n);
    else if (r->md->ab == CLGEMM_COMPLEX_DOUBLE)
        reference.zgemm(row, r->trans_a, r->trans_b, r->m, r->n, r->k, one, r->a, r->lda, r->b,
                        r->ldb, zero, r->c, r->n);
    else /* BF16 through sbgemm */
        reference.sbgemm(row, r->trans_a, r->trans_b, r->m, r->n, r->k, 1.0f, r->a, r->lda, r->b,
                         r->ldb, 0.0f, r->c, r->n);
}

/* The reference's median over `runs` warm calls on the host inputs a and b (row-major, the
 * problem's transposes), 0 when it cannot run this mode; `what` names the routine. The C it
 * writes is poisoned first and sampled after, so a routine that writes nothing is noticed. */
static double time_reference(const mode *md, int trans_a, int trans_b, size_t m, size_t n, size_t k,
                             size_t lda, size_t ldb, const void *a, const void *b, int runs,
                             double *times, const char **what) {
    const bool native = md->ab == CLGEMM_SINGLE || md->ab == CLGEMM_DOUBLE ||
                        (md->ab == CLGEMM_COMPLEX_SINGLE && reference.cgemm) ||
                        (md->ab == CLGEMM_COMPLEX_DOUBLE && reference.zgemm) ||
                        (md->ab == CLGEMM_BFLOAT16 && reference.sbgemm);
    if (!native && tt_ncomp(md->ab) > 1) return 0;
    reference_call r = {md,
                        trans_a == CLGEMM_TRANS ? 112 : 111,
                        trans_b == CLGEMM_TRANS ? 112 : 111,
                        (int)m,
                        (int)n,
                        (int)k,
                        (int)lda,
                        (int)ldb,
                        a,
                        b,
                        !native,
                        NULL};
    *what = md->ab == CLGEMM_SINGLE           ? "sgemm"
            : md->ab == CLGEMM_DOUBLE         ? "dgemm"
            : md->ab == CLGEMM_COMPLEX_SINGLE ? "cgemm"
            : md->ab == CLGEMM_COMPLEX_DOUBLE ? "zgemm"
            : native                          ? "sbgemm"
                                              : "sgemm of FP32 copies";
    float *wa = NULL, *wb = NULL;
    if (!native) {
        wa = malloc(m * k * sizeof *wa);
        wb = malloc(k * n * sizeof *wb);
        for (size_t i = 0; wa && wb && i < m * k; i++)
            wa[i] = (float)tt_get(md->ab, a, i, 0);
        for (size_t i = 0; wa && wb && i < k * n; i++)
            wb[i] = (float)tt_get(md->ab, b, i, 0);
        r.a = wa, r.b = wb;
    }
    const size_t c_bytes = m * n *
                           (md->ab == CLGEMM_DOUBLE || md->ab == CLGEMM_COMPLEX_SINGLE ? 8
                            : md->ab == CLGEMM_COMPLEX_DOUBLE                          ? 16
                                                                                       : 4);
    r.c = malloc(c_bytes);
    double med = 0;
    if (r.c && (native || (wa && wb))) {
        memset(r.c, 0xff, c_bytes); /* NaN in every float and double */
        for (int i = -2; i < runs; i++) {
            double t0 = clgemm_now_seconds();
            reference_gemm(&r);
            if (i >= 0) times[i] = clgemm_now_seconds() - t0;
        }
        qsort(times, (size_t)runs, sizeof *times, clgemm_compare_doubles);
        med = times[runs / 2];
        const unsigned char *c = r.c;
        for (size_t s = 0; s < 16; s++) /* sampled words of C: none left NaN-poisoned */
            if (memcmp(c + (s * 7919 % (c_bytes / 4)) * 4, "\xff\xff\xff\xff", 4) == 0) med = 0;
    }
    free(wa);
    free(wb);
    free(r.c);
    return med;
}

/* The problems' transposes (--trans) and where element (i, p) of op(A) and (p, j) of op(B) lie
 * in row-major storage. */
typedef struct transposes {
    clgemm_transpose a, b;
} transposes;

static size_t a_index(transposes t, size_t i, size_t p, size_t m, size_t k) {
    return t.a == CLGEMM_NO_TRANS ? i * k + p : p * m + i;
}

static size_t b_index(transposes t, size_t p, size_t j, size_t k, size_t n) {
    return t.b == CLGEMM_NO_TRANS ? p * n + j : j * k + p;
}

/* One problem in full against the tests' long-double oracle (tests/common/typed.c: every element
 * of C within the K-scaled bound, C poisoned where beta is 0, everything outside C and A and B
 * bit for bit unchanged), column-major, in four cases that between them give each operand both
 * orientations and both ways of loading: odd offsets and leading dimensions (scalar loads) and
 * 16-byte aligned ones (cp.async): NN with both unaligned, TT with both aligned, NT and TN mixed;
 * then NN and TT again with K split into 3 layers (a second handle made under CLGEMM_KSPLIT=3,
 * given the --force configuration `force`). 0 when all pass. */
static int check_problem(clgemm_handle h, const char *force, const mode *md, size_t m, size_t n,
                         size_t k) {
    tc_env env = {.context = clgemm_context(h),
                  .device = clgemm_device(h),
                  .queue = clgemm_queue(h),
                  .has_fp64 = true};
    static const struct {
        clgemm_transpose ta, tb;
        bool aligned_a, aligned_b, split;
    } cases[] = {{CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, false, false, false},
                 {CLGEMM_TRANS, CLGEMM_TRANS, true, true, false},
                 {CLGEMM_NO_TRANS, CLGEMM_TRANS, true, false, false},
                 {CLGEMM_TRANS, CLGEMM_NO_TRANS, false, true, false},
                 {CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, false, false, true},
                 {CLGEMM_TRANS, CLGEMM_TRANS, true, true, true}};
    const size_t vw = 16 / clgemm_type_size(md->ab); /* elements of one 16-byte chunk */
    clgemm_handle split = NULL;
    setenv("CLGEMM_KSPLIT", "3", 1);
    clgemm_status st = clgemm_create(&split, clgemm_queue(h));
    unsetenv("CLGEMM_KSPLIT");
    if (st != CLGEMM_SUCCESS || (force && bench_force(split, force, "clgemm-types-bench") != 0)) {
        printf("check %-7s %6zu %6zu %6zu  FAIL: no split-K handle\n", md->name, m, n, k);
        if (split) clgemm_destroy(split);
        return 1;
    }
    int bad = 0;
    char msg[2048] = "", first[2048] = "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tt_gemm g = {TT_PROBLEM(md->ab, md->c, CLGEMM_COL_MAJOR, cases[i].ta, cases[i].tb, m, n, k),
                     .alpha = {-0.75, 0}, .beta = {i % 2 ? 0.5 : 0, 0}, .tail = 3,
                     .compute = md->compute};
        /* Leading dimensions and offsets: a multiple of the chunk where aligned, else odd. */
        tt_pad_ld(&g, 0, 0, 1);
        const size_t lda = g.lda, ldb = g.ldb;
        g.lda = cases[i].aligned_a ? (lda + vw - 1) / vw * vw : lda | 1;
        g.ldb = cases[i].aligned_b ? (ldb + vw - 1) / vw * vw : ldb | 1;
        g.off_a = cases[i].aligned_a ? 2 * vw : 3;
        g.off_b = cases[i].aligned_b ? vw : 5;
        g.off_c = 7;
        if (tt_run(&env, cases[i].split ? split : h, &g, 1234 + i, 0, 0, msg, sizeof msg) != 0 &&
            !bad++)
            snprintf(first, sizeof first, "%s%s", cases[i].split ? "[K split 3] " : "", msg);
    }
    clgemm_destroy(split);
    clgemm_config cfg;
    char kernel[200] = "?";
    if (clgemm_get_config_ex(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, m, n, k, md->ab,
                             md->c, md->compute, &cfg, NULL) == CLGEMM_SUCCESS)
        clgemm_config_string(&cfg, kernel, sizeof kernel);
    printf("check %-7s %6zu %6zu %6zu  %s: %d of %zu cases wrong  (%s)%s%s\n", md->name, m, n, k,
           bad ? "FAIL" : "ok", bad, sizeof cases / sizeof cases[0], kernel, bad ? "; first: " : "",
           first);
    fflush(stdout);
    return bad != 0;
}

static int run(clgemm_handle h, const mode *md, transposes tr, size_t m, size_t n, size_t k,
               int runs, bool clblast_too) {
    (void)clblast_too; /* without CLBlast, nothing to skip */
    cl_context ctx = clgemm_context(h);
    /* A queue of the bench's own, with profiling unless --no-profiling: the last command's device
     * time beside the whole call's (for a call of one kernel, that kernel's time). */
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(ctx, clgemm_device(h),
                                              profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
    if (err != CL_SUCCESS) return 1;
    size_t sab = clgemm_type_size(md->ab), sc = clgemm_type_size(md->c);
    const double bytes[3] = {(double)m * (double)k * (double)sab,
                             (double)k * (double)n * (double)sab,
                             (double)m * (double)n * (double)sc};
    /* The reference adds FP32 copies of A and B and a C of at most 16 bytes an element. */
    const double reference_bytes =
        reference_on
            ? 4.0 * ((double)m * (double)k + (double)k * (double)n) + 16.0 * (double)m * (double)n
            : 0;
    const char *why = tool_buffers_unfit(clgemm_device(h), bytes,
                                         bytes[0] + bytes[1] + bytes[2] + reference_bytes);
    if (why) {
        clReleaseCommandQueue(q);
        fprintf(stderr, "clgemm-types-bench: %s:%zu,%zu,%zu cannot be allocated: %s\n", md->name, m,
                n, k, why);
        return 1;
    }
    void *a = malloc(m * k * sab), *b = malloc(k * n * sab), *c = malloc(m * n * sc);
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        clReleaseCommandQueue(q);
        fprintf(stderr, "clgemm-types-bench: %s:%zu,%zu,%zu: out of host memory\n", md->name, m, n,
                k);
        return 1;
    }
    uint64_t state = 88172645463325252ull;
    fill(md->ab, a, m * k, &state);
    fill(md->ab, b, k * n, &state);
    cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, m * k * sab, a, &err);
    cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, k * n * sab, b, &err);
    cl_mem dc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, m * n * sc, NULL, &err);
    double one[2] = {1, 0}, zero[2] = {0, 0};
    float onef[2] = {1, 0}, zerof[2] = {0, 0};
    const void *alpha = md->ab == CLGEMM_DOUBLE || md->ab == CLGEMM_COMPLEX_DOUBLE
                            ? (const void *)one
                            : (const void *)onef;
    const void *beta = alpha == one ? (const void *)zero : (const void *)zerof;
    cl_int onei = 1, zeroi = 0;
    const size_t lda = tr.a == CLGEMM_NO_TRANS ? k : m, ldb = tr.b == CLGEMM_NO_TRANS ? n : k;
    if (md->ab == CLGEMM_INT8) alpha = &onei, beta = &zeroi;
    double *times = malloc(sizeof(double) * (size_t)runs);
    double *device = malloc(sizeof(double) * (size_t)runs);
    double *host = malloc(sizeof(double) * (size_t)runs); /* until the call returned */
    clgemm_status st = CLGEMM_SUCCESS;
    for (int r = -2; r < runs && st == CLGEMM_SUCCESS; r++) {
        cl_event ev = NULL;
        double t0 = clgemm_now_seconds();
        st = clgemm_gemm_ex(h, CLGEMM_ROW_MAJOR, tr.a, tr.b, m, n, k, alpha, da, 0, lda, db, 0, ldb,
                            beta, dc, 0, n, md->ab, md->c, md->compute, q, 0, NULL, &ev);
        const double returned = clgemm_now_seconds();
        clFinish(q);
        if (r >= 0) times[r] = clgemm_now_seconds() - t0, host[r] = returned - t0;
        cl_ulong start = 0, end = 0;
        if (ev) {
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
            clReleaseEvent(ev);
        }
        if (r >= 0) device[r] = end > start ? (double)(end - start) * 1e-9 : 0;
    }
    if (st != CLGEMM_SUCCESS) {
        printf("%-7s %6zu %6zu %6zu  error: %s\n", md->name, m, n, k, clgemm_status_string(st));
        return 1;
    }
    clEnqueueReadBuffer(q, dc, CL_TRUE, 0, m * n * sc, c, 0, NULL, NULL);
    /* 64 sampled elements of C against the double product of the stored inputs. */
    double worst = 0;
    for (int s = 0; s < 64; s++) {
        size_t i = (size_t)s * 7919 % m, jj = (size_t)s * 104729 % n;
        double re = 0, im = 0, mag = 0;
        for (size_t p = 0; p < k; p++) {
            const size_t ia = a_index(tr, i, p, m, k), ib = b_index(tr, p, jj, k, n);
            double ar = tt_get(md->ab, a, ia, 0), br = tt_get(md->ab, b, ib, 0);
            double ai = tt_ncomp(md->ab) > 1 ? tt_get(md->ab, a, ia, 1) : 0;
            double bi = tt_ncomp(md->ab) > 1 ? tt_get(md->ab, b, ib, 1) : 0;
            re += ar * br - ai * bi;
            im += ar * bi + ai * br;
            mag += hypot(ar, ai) * hypot(br, bi);
        }
        double e = fabs(tt_get(md->c, c, i * n + jj, 0) - re);
        if (tt_ncomp(md->c) > 1) e = hypot(e, tt_get(md->c, c, i * n + jj, 1) - im);
        if (e / mag > worst || isnan(e)) worst = isnan(e) ? INFINITY : e / mag;
    }
    qsort(times, (size_t)runs, sizeof *times, clgemm_compare_doubles);
    qsort(device, (size_t)runs, sizeof *device, clgemm_compare_doubles);
    qsort(host, (size_t)runs, sizeof *host, clgemm_compare_doubles);
    double med = times[runs / 2], last = device[runs / 2], returned = host[runs / 2];
    double clblast = 0; /* CLBlast's median, 0: not timed */
#ifdef HAVE_CLBLAST
    if (clblast_too && md->compute == CLGEMM_COMPUTE_DEFAULT && md->ab == md->c &&
        md->ab <= CLGEMM_COMPLEX_DOUBLE && tr.a == CLGEMM_NO_TRANS && tr.b == CLGEMM_NO_TRANS) {
        CLBlastStatusCode cs = CLBlastSuccess;
        for (int r = -2; r < runs && cs == CLBlastSuccess; r++) {
            cl_event ev = NULL;
            double t0 = clgemm_now_seconds();
            cl_float2 c1 = {{1, 0}}, c0 = {{0, 0}};
            cl_double2 z1 = {{1, 0}}, z0 = {{0, 0}};
            if (md->ab == CLGEMM_SINGLE)
                cs = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m,
                                  n, k, 1.0f, da, 0, k, db, 0, n, 0.0f, dc, 0, n, &q, &ev);
            else if (md->ab == CLGEMM_DOUBLE)
                cs = CLBlastDgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m,
                                  n, k, 1.0, da, 0, k, db, 0, n, 0.0, dc, 0, n, &q, &ev);
            else if (md->ab == CLGEMM_COMPLEX_SINGLE)
                cs = CLBlastCgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m,
                                  n, k, c1, da, 0, k, db, 0, n, c0, dc, 0, n, &q, &ev);
            else
                cs = CLBlastZgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m,
                                  n, k, z1, da, 0, k, db, 0, n, z0, dc, 0, n, &q, &ev);
            clFinish(q);
            if (ev) clReleaseEvent(ev);
            if (r >= 0) times[r] = clgemm_now_seconds() - t0;
        }
        if (cs == CLBlastSuccess) {
            qsort(times, (size_t)runs, sizeof *times, clgemm_compare_doubles);
            clblast = times[runs / 2];
        }
    }
#endif
    const char *reference_what = NULL;
    double reference_median = reference_on ? time_reference(md, tr.a, tr.b, m, n, k, lda, ldb, a, b,
                                                            runs, times, &reference_what)
                                           : 0;
    double flops = 2.0 * m * n * k * (tt_ncomp(md->ab) > 1 ? 4 : 1);
    clgemm_config cfg;
    char kernel[200] = "?";
    /* The configuration of the call just timed: its layout, types, compute mode (a TF32 mode
     * may run a family an FP32 call would not) and operands as they lie (off 16 bytes, as at
     * 4097^2, they may be copied first or make another family run). */
    if (clgemm_get_config_operands(h, CLGEMM_ROW_MAJOR, tr.a, tr.b, m, n, k, md->ab, md->c,
                                   md->compute, 0, lda, 0, ldb, &cfg, NULL) == CLGEMM_SUCCESS)
        clgemm_config_string(&cfg, kernel, sizeof kernel);
    char name[16];
    snprintf(name, sizeof name, "%s%s", md->name,
             tr.a == CLGEMM_NO_TRANS && tr.b == CLGEMM_NO_TRANS ? ""
             : tr.a == CLGEMM_NO_TRANS                          ? ".nt"
             : tr.b == CLGEMM_NO_TRANS                          ? ".tn"
                                                                : ".tt");
    printf("%-7s %6zu %6zu %6zu  median %9.3f ms  %8.2f TFLOPS  last command %8.3f ms  host "
           "%7.3f ms  err %.2e  (%s)\n",
           name, m, n, k, med * 1e3, flops / med * 1e-12, last * 1e3, returned * 1e3, worst,
           kernel);
    if (clblast > 0)
        printf("%-7s %6zu %6zu %6zu  CLBlast %8.3f ms  %8.2f TFLOPS  (clgemm / CLBlast %.2f)\n",
               md->name, m, n, k, clblast * 1e3, flops / clblast * 1e-12, clblast / med);
    if (reference_on && reference_median > 0)
        printf("%-7s %6zu %6zu %6zu  CBLAS    %8.3f ms  %8.2f TFLOPS  (clgemm / CBLAS %.2f; "
               "%s)\n",
               name, m, n, k, reference_median * 1e3, flops / reference_median * 1e-12,
               reference_median / med, reference_what);
    else if (reference_on)
        printf("%-7s %6zu %6zu %6zu  CBLAS: no such routine\n", name, m, n, k);
    fflush(stdout);
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    clReleaseCommandQueue(q);
    free(device);
    free(host);
    free(a);
    free(b);
    free(c);
    free(times);
    return 0;
}

int main(int argc, char **argv) {
    int runs = 10, status = 0;
    bool clblast_too = true, check = false;
    const char *force = NULL; /* the last --force, for the handle --check makes */
    transposes tr = {CLGEMM_NO_TRANS, CLGEMM_NO_TRANS};
    clgemm_handle h;
    clgemm_status st = clgemm_create_default(&h);
    if (st != CLGEMM_SUCCESS) {
        fprintf(stderr, "clgemm-types-bench: %s\n", clgemm_status_string(st));
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
            if (runs < 1 || runs > 1000) runs = 10;
            continue;
        }
        if (strcmp(argv[i], "--no-profiling") == 0) {
            profiling = false;
            continue;
        }
        if (strcmp(argv[i], "--no-clblast") == 0) {
            clblast_too = false;
            continue;
        }
        if ((strcmp(argv[i], "--reference") == 0 || strcmp(argv[i], "--reference-lib") == 0) &&
            i + 1 < argc) {
            const bool lib = strcmp(argv[i], "--reference-lib") == 0;
            const char *arg = argv[++i];
            if (!lib && strcmp(arg, "openblas") != 0) {
                fprintf(stderr, "clgemm-types-bench: --reference takes openblas, not %s\n", arg);
                return 2;
            }
            char describe[512];
            if (!reference_on && !cblas_lib_open(&reference, lib ? arg : NULL, "clgemm-types-bench",
                                                 describe, sizeof describe))
                return 2;
            if (!reference_on) printf("# reference: %s\n", describe);
            reference_on = true;
            continue;
        }
        if (strcmp(argv[i], "--check") == 0) {
            check = true;
            continue;
        }
        if (strcmp(argv[i], "--trans") == 0 && i + 1 < argc) {
            const char *t = argv[++i];
            if (strlen(t) != 2 || !strchr("NT", t[0]) || !strchr("NT", t[1])) {
                fprintf(stderr, "clgemm-types-bench: bad --trans %s (NN, NT, TN or TT)\n", t);
                return 2;
            }
            tr.a = t[0] == 'T' ? CLGEMM_TRANS : CLGEMM_NO_TRANS;
            tr.b = t[1] == 'T' ? CLGEMM_TRANS : CLGEMM_NO_TRANS;
            continue;
        }
        if (strcmp(argv[i], "--force") == 0 && i + 1 < argc) {
            force = argv[++i];
            if (bench_force(h, force, "clgemm-types-bench") != 0) return 2;
            continue;
        }
        char name[16];
        size_t m, n, k;
        if (sscanf(argv[i], "%15[^:]:%zu,%zu,%zu", name, &m, &n, &k) != 4 || !m || !n || !k ||
            m > 65536 || n > 65536 || k > 65536) {
            fprintf(stderr, "clgemm-types-bench: bad problem %s (MODE:M,N,K, each 1..65536)\n",
                    argv[i]);
            return 2;
        }
        const mode *md = NULL;
        for (size_t j = 0; j < sizeof modes / sizeof modes[0]; j++)
            if (strcmp(modes[j].name, name) == 0) md = &modes[j];
        if (!md) {
            fprintf(stderr, "clgemm-types-bench: unknown mode %s\n", name);
            return 2;
        }
        status |= check ? check_problem(h, force, md, m, n, k)
                        : run(h, md, tr, m, n, k, runs, clblast_too);
    }
    clgemm_destroy(h);
    return status;
}
