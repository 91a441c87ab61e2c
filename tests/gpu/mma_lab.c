/* mma_lab.c: standalone lab for cl/mma.cl (the tensor-core GEMM) on the H200. It builds the
 * kernel's source as the library joins it (cl/mma.cl after the parts the library lists for it,
 * written by tests/gpu/build_mma_lab.sh) with chosen options (printing ptxas's report with
 * --verbose), checks it over a matrix of shapes, transposes, offsets, leading dimensions and
 * alpha/beta against a double host reference computed from the rounded inputs, and times whole
 * calls (host clock around enqueue + clFinish, median of warm runs). Only OpenCL is needed.
 *
 * Usage: mma_lab [options]
 *   --mode fp16|bf16|tf32|3xtf32|fp64   compute mode (default fp16)
 *   --cin            C holds the input type (fp16/bf16 only), else float
 *   --cfg K=V,...    tunables (MWG NWG KWG WM WN STAGES SWIZZLE F64_K16); repeatable
 *   --check          run the correctness matrix        --bench   time the benchmark shapes
 *   --verbose        add -cl-nv-verbose and print the build logs (ptxas registers/spills)
 *   --shapes M,N,K;...  benchmark shapes (default 1024,2048,4096,4097,8192 squares + skinny)
 *   --reps N         timed runs per shape (default 10)
 *   --src PATH       kernel source (default mma_source.cl, build_mma_lab.sh's; its
 *                    mma_naive_source.cl holds tests/gpu/mma_naive.cl in place of cl/mma.cl);
 *                    --naive: launch as mma_naive.cl
 *   --extra OPTS     appended to the build options (e.g. -DDIAG_NO_CVT=1)
 *   --max-work X     skip check shapes with M*N*K > X (for slow CPU runs)
 *   --ptx DIR        write the program binary (PTX on NVIDIA) of each benchmarked build to DIR
 * Exit status 1 when any check fails. */
#define _POSIX_C_SOURCE          200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../cl/gemm_args.h"   /* GEMM_ARG_LIST: the kernel's arguments, in order */
#include "../../include/clgemm.h" /* the type numbers of -DTYPE_AB and -DTYPE_C */

enum { FP16, BF16, TF32, X3TF32, FP64 };
static const char *mode_names[] = {"fp16", "bf16", "tf32", "3xtf32", "fp64"};

typedef struct {
    int mwg, nwg, kwg, wm, wn, stages, swizzle, f64k16;
} cfg_t;

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;
static int mode = FP16, cin = 0, verbose = 0, naive = 0, reps = 10;
static char *src_text;
static const char *extra_opts = "";
static int failures = 0;
static double max_work = 1e30;
static const char *ptx_dir = NULL;
static int nptx = 0;

#define CK(x)                                                                                      \
    do {                                                                                           \
        cl_int e_ = (x);                                                                           \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #x, e_);                      \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

/* ---- element conversions (host) ---------------------------------------------------------- */
static uint32_t f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float u2f(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static float half2f(uint16_t h) {
    const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 0)
        v = ldexpf((float)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexpf((float)(m | 1024), e - 25);
    return s ? -v : v;
}
static uint16_t f2half(float f) /* round to nearest even */
{
    const uint32_t u = f2u(f), s = (u >> 16) & 0x8000u;
    const float a = fabsf(f);
    if (isnan(f)) return (uint16_t)(s | 0x7e00u);
    if (a >= 65520.0f) return (uint16_t)(s | 0x7c00u);
    if (a < ldexpf(1.0f, -14)) { /* subnormal: multiple of 2^-24 */
        const float r = nearbyintf(a * 16777216.0f);
        return (uint16_t)(s | (uint32_t)r);
    }
    int ex;
    const float fr = frexpf(a, &ex);               /* a = fr * 2^ex, fr in [0.5, 1) */
    const float mant = nearbyintf(ldexpf(fr, 11)); /* 11 significant bits */
    const uint32_t mm = (uint32_t)mant;
    if (mm == 2048) /* rounded up to the next power of two */
        return (uint16_t)(s | ((uint32_t)(ex + 15) << 10));
    return (uint16_t)(s | ((uint32_t)(ex + 14) << 10) | (mm & 1023u));
}
static float bf2f(uint16_t h) {
    return u2f((uint32_t)h << 16);
}
static uint16_t f2bf(float f) {
    const uint32_t u = f2u(f);
    if (isnan(f)) return (uint16_t)((u >> 16) | 0x40u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static float tf32_rna(float f) {
    return u2f((f2u(f) + 0x1000u) & ~0x1fffu);
}

static size_t esize(void) {
    return mode <= BF16 ? 2 : mode == FP64 ? 8 : 4;
}
static size_t csize(void) {
    return mode <= BF16 ? (cin ? 2 : 4) : mode == FP64 ? 8 : 4;
}
static int vw(void) {
    return (int)(16 / esize());
}

/* A random input value in [-1, 1), already rounded to what the kernel multiplies (the
 * reference uses this value); *bits receives its storage form. */
static double rnd_input(uint64_t *st, void *store) {
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    const double r = (double)(*st >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    switch (mode) {
    case FP16: {
        const uint16_t h = f2half((float)r);
        memcpy(store, &h, 2);
        return half2f(h);
    }
    case BF16: {
        const uint16_t h = f2bf((float)r);
        memcpy(store, &h, 2);
        return bf2f(h);
    }
    case TF32: { /* stored as full FP32; the kernel rounds with cvt.rna */
        const float f = (float)r;
        memcpy(store, &f, 4);
        return tf32_rna(f);
    }
    case X3TF32: {
        const float f = (float)r;
        memcpy(store, &f, 4);
        return f;
    }
    default:
        memcpy(store, &r, 8);
        return r;
    }
}

/* A C value: stored form and its value as the kernel reads it. */
static double c_value(double v, void *store) {
    if (mode <= BF16 && cin) {
        const uint16_t h = mode == FP16 ? f2half((float)v) : f2bf((float)v);
        memcpy(store, &h, 2);
        return mode == FP16 ? half2f(h) : bf2f(h);
    }
    if (mode == FP64) {
        memcpy(store, &v, 8);
        return v;
    }
    const float f = (float)v;
    memcpy(store, &f, 4);
    return f;
}
static double c_read(const void *p) {
    if (mode <= BF16 && cin) {
        uint16_t h;
        memcpy(&h, p, 2);
        return mode == FP16 ? half2f(h) : bf2f(h);
    }
    if (mode == FP64) {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    float f;
    memcpy(&f, p, 4);
    return f;
}
static void nan_fill(void *p, size_t n, size_t sz) {
    for (size_t i = 0; i < n; i++) {
        if (sz == 2) {
            const uint16_t h = mode == FP16 ? 0x7e00u : 0x7fc0u;
            memcpy((char *)p + i * 2, &h, 2);
        } else if (sz == 4) {
            const uint32_t u = 0x7fc00000u;
            memcpy((char *)p + i * 4, &u, 4);
        } else {
            const double d = NAN;
            memcpy((char *)p + i * 8, &d, 8);
        }
    }
}

/* ---- programs ----------------------------------------------------------------------------- */
typedef struct {
    char opts[512];
    cl_program prog;
    cl_kernel kern;
    int built, dumped;
    char *log;
} prog_t;
static prog_t progs[256];
static int nprogs;

/* The CPU stand-in's source holds the shared parts' PTX helpers, unused: OpenCL C off NVIDIA
 * has no `asm` keyword, clang's __asm__ parses them. */
#define NAIVE_OPTIONS " -Dasm=__asm__"

static void make_opts(char *out, size_t n, const cfg_t *c, int ta, int tb, int aa, int ab) {
    /* The element types of A and B, and of C (the input type with --cin, else the arithmetic
     * type), as the library passes them (types.cl). */
    const int type_ab = mode == FP16   ? CLGEMM_HALF
                        : mode == BF16 ? CLGEMM_BFLOAT16
                        : mode == FP64 ? CLGEMM_DOUBLE
                                       : CLGEMM_SINGLE;
    const int type_c = cin ? type_ab : mode == FP64 ? CLGEMM_DOUBLE : CLGEMM_SINGLE;
    snprintf(out, n,
             "-DTYPE_AB=%d -DTYPE_C=%d -DMMA_TYPE=%d -DC_INPUT=%d -DTRANSA=%d -DTRANSB=%d "
             "-DALIGNED_A=%d -DALIGNED_B=%d -DMWG=%d -DNWG=%d -DKWG=%d -DWM=%d -DWN=%d -DSTAGES=%d "
             "-DSWIZZLE=%d -DF64_K16=%d%s%s %s",
             type_ab, type_c, mode, cin, ta, tb, aa, ab, c->mwg, c->nwg, c->kwg, c->wm, c->wn,
             c->stages, c->swizzle, c->f64k16, verbose ? " -cl-nv-verbose" : "",
             naive ? NAIVE_OPTIONS : "", extra_opts);
}

static void *build_thread(void *arg) {
    prog_t *p = arg;
    const char *s = src_text;
    cl_int e;
    p->prog = clCreateProgramWithSource(ctx, 1, &s, NULL, &e);
    CK(e);
    e = clBuildProgram(p->prog, 1, &dev, p->opts, NULL, NULL);
    size_t len = 0;
    clGetProgramBuildInfo(p->prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
    char *log = malloc(len + 1);
    clGetProgramBuildInfo(p->prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL);
    log[len] = 0;
    if (e != CL_SUCCESS) {
        fprintf(stderr, "BUILD FAILED (%d) for %s:\n%s\n", e, p->opts, log);
        p->built = -1;
    } else {
        p->kern = clCreateKernel(p->prog, "clgemm_mma", &e);
        CK(e);
        p->built = 1;
    }
    p->log = log;
    return NULL;
}

/* Writes the program's binary (PTX for NVIDIA's OpenCL) to ptx_dir/progN.ptx, for ptxas and
 * cuobjdump on the GPU machine. */
static void dump_binary(prog_t *p) {
    size_t size = 0;
    p->dumped = 1;
    if (clGetProgramInfo(p->prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) !=
            CL_SUCCESS ||
        !size)
        return;
    unsigned char *bin = malloc(size);
    if (clGetProgramInfo(p->prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS) {
        char path[1024];
        snprintf(path, sizeof path, "%s/prog%d.ptx", ptx_dir, nptx++);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(bin, 1, size, f);
            fclose(f);
            printf("binary %s: %s\n", path, p->opts);
        }
    }
    free(bin);
}

/* Builds every program in progs[from..nprogs) in parallel. */
static void build_pending(int from) {
    pthread_t th[256];
    for (int i = from; i < nprogs; i++)
        pthread_create(&th[i], NULL, build_thread, &progs[i]);
    for (int i = from; i < nprogs; i++)
        pthread_join(th[i], NULL);
    /* ptxas's lines (registers, spills, stack) of each new program, after the parallel builds */
    for (int i = from; i < nprogs && verbose; i++) {
        char *save = NULL;
        for (char *l = strtok_r(progs[i].log, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
            if (strstr(l, "ptxas") || strstr(l, "registers") || strstr(l, "spill") ||
                strstr(l, "bytes"))
                printf("  [%s] %s\n", progs[i].opts, l);
    }
}
static prog_t *find_prog(const char *opts) {
    for (int i = 0; i < nprogs; i++)
        if (!strcmp(progs[i].opts, opts)) return &progs[i];
    return NULL;
}
static void want_prog(const char *opts) {
    if (find_prog(opts) || nprogs >= 256) return;
    snprintf(progs[nprogs].opts, sizeof progs[nprogs].opts, "%s", opts);
    progs[nprogs].built = 0;
    progs[nprogs].dumped = 0;
    nprogs++;
}

/* ---- one call ----------------------------------------------------------------------------- */
static int threads_of(const cfg_t *c) {
    return 32 * (c->mwg / c->wm) * (c->nwg / c->wn);
}

/* One matrix's arguments under GEMM_ARG_LIST's names (the kernels' one contract), set in its
 * order: no strides, one layer, no batch table. */
#define LAB_TYPE_INT    cl_int
#define LAB_TYPE_ULONG  cl_ulong
#define LAB_TYPE_SCALAR double
#define LAB_TYPE_AB     cl_mem
#define LAB_TYPE_C      cl_mem
#define LAB_TYPE_TABLE  cl_mem
typedef struct {
#define LAB_FIELD_(name, kind) LAB_TYPE_##kind name;
    GEMM_ARG_LIST(LAB_FIELD_)
#undef LAB_FIELD_
} gemm_args;

static void set_one(cl_kernel k, cl_uint i, size_t size, const void *v) {
    CK(clSetKernelArg(k, i, size, v));
}
/* alpha and beta in the arithmetic type: double for FP64, else float. */
static void set_scalar(cl_kernel k, cl_uint i, double v) {
    const float f = (float)v;
    if (mode == FP64)
        set_one(k, i, sizeof v, &v);
    else
        set_one(k, i, sizeof f, &f);
}
#define LAB_SET_INT(k, i, v)    set_one(k, i, sizeof(v), &(v))
#define LAB_SET_ULONG(k, i, v)  set_one(k, i, sizeof(v), &(v))
#define LAB_SET_SCALAR(k, i, v) set_scalar(k, i, v)
#define LAB_SET_AB(k, i, v)     set_one(k, i, sizeof(v), &(v))
#define LAB_SET_C(k, i, v)      set_one(k, i, sizeof(v), &(v))
#define LAB_SET_TABLE(k, i, v)  set_one(k, i, sizeof(v), &(v))

static void set_args(cl_kernel k, int M, int N, int K, double alpha, double beta, cl_mem A,
                     cl_ulong offA, int lda, cl_mem B, cl_ulong offB, int ldb, cl_mem C,
                     cl_ulong offC, int ldc) {
    const gemm_args v = {.M = M,
                         .N = N,
                         .K = K,
                         .alpha_arg = alpha,
                         .beta_arg = beta,
                         .A = A,
                         .offA = offA,
                         .lda = lda,
                         .B = B,
                         .offB = offB,
                         .ldb = ldb,
                         .C = C,
                         .offC = offC,
                         .ldc = ldc,
                         .layers = 1,
                         .table = NULL};
    cl_uint i = 0;
#define LAB_SET_(name, kind) LAB_SET_##kind(k, i++, v.name);
    GEMM_ARG_LIST(LAB_SET_)
#undef LAB_SET_
}

static void launch(cl_kernel k, const cfg_t *c, int M, int N) {
    size_t gl[2], lo[2];
    if (naive) {
        gl[0] = (size_t)M;
        gl[1] = (size_t)N;
        CK(clEnqueueNDRangeKernel(q, k, 2, NULL, gl, NULL, 0, NULL, NULL));
        return;
    }
    const int T = threads_of(c);
    lo[0] = (size_t)T;
    lo[1] = 1;
    gl[0] = (size_t)((M + c->mwg - 1) / c->mwg) * T;
    gl[1] = (size_t)((N + c->nwg - 1) / c->nwg);
    CK(clEnqueueNDRangeKernel(q, k, 2, NULL, gl, lo, 0, NULL, NULL));
}

/* ---- correctness -------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
} shape_t;

static const shape_t check_shapes[] = {{1, 1, 1},       {17, 33, 65},      {127, 129, 255},
                                       {64, 64, 64},    {128, 256, 96},    {33, 4100, 47},
                                       {4097, 64, 300}, {1000, 1000, 1000}};

typedef struct {
    int aligned_a, aligned_b;
    double alpha, beta;
} variant_t;
static const variant_t variants[] = {
    {1, 1, 1.0, 0.0}, {0, 0, -0.75, 0.5}, {1, 0, 2.0, 0.0}, {0, 1, 0.5, 1.25}};

/* Leading dimension and offset for an operand: aligned ones are multiples of VW, others odd. */
static void layout(int rows, int aligned, int *ld, size_t *off) {
    const int v = vw();
    if (aligned) {
        *ld = (rows + v - 1) / v * v + v; /* larger than needed, still a multiple of VW */
        *off = (size_t)v * 3;
    } else {
        *ld = rows + 3;
        *off = 5;
    }
}

static double ref_eps(void) {
    return mode == FP64 ? ldexp(1.0, -51) : ldexp(1.0, -22);
}
static double out_eps(void) {
    if (mode <= BF16 && cin) return mode == FP16 ? ldexp(1.0, -11) : ldexp(1.0, -8);
    return mode == FP64 ? ldexp(1.0, -53) : ldexp(1.0, -24);
}

static void check_cfg(const cfg_t *c) {
    const size_t es = esize(), cs = csize();
    char opts[512];
    /* build everything this check needs, in parallel */
    const int from = nprogs;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
                make_opts(opts, sizeof opts, c, ta, tb, variants[v].aligned_a,
                          variants[v].aligned_b);
                want_prog(opts);
            }
    build_pending(from);

    for (size_t si = 0; si < sizeof check_shapes / sizeof *check_shapes; si++) {
        const int M = check_shapes[si].M, N = check_shapes[si].N, K = check_shapes[si].K;
        if ((double)M * N * K > max_work) continue;
        /* logical op(A) (M x K) and op(B) (K x N): values and storage bits */
        double *a = malloc(sizeof(double) * M * K), *b = malloc(sizeof(double) * K * N);
        char *abits = malloc(es * M * K), *bbits = malloc(es * K * N);
        uint64_t st = 12345 + si;
        for (long i = 0; i < (long)M * K; i++)
            a[i] = rnd_input(&st, abits + i * es);
        for (long i = 0; i < (long)K * N; i++)
            b[i] = rnd_input(&st, bbits + i * es);
        /* raw[i + j*M] = sum_p a(i,p) b(p,j), abs_[..] = sum |a||b| */
        double *raw = calloc((size_t)M * N, sizeof(double)), *abs_ = calloc((size_t)M * N, 8);
#pragma omp parallel for schedule(static)
        for (int j = 0; j < N; j++)
            for (int p = 0; p < K; p++) {
                const double bv = b[p + (long)j * K];
                for (int i = 0; i < M; i++) {
                    raw[i + (long)j * M] += a[i + (long)p * M] * bv;
                    abs_[i + (long)j * M] += fabs(a[i + (long)p * M] * bv);
                }
            }
        int shape_fail = 0;
        double worst = 0; /* max |err| / (|alpha| * sum|a||b|) */
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (size_t vi = 0; vi < sizeof variants / sizeof *variants; vi++) {
                    const variant_t *V = &variants[vi];
                    int lda, ldb, ldc;
                    size_t offA, offB, offC;
                    layout(ta ? K : M, V->aligned_a, &lda, &offA);
                    layout(tb ? N : K, V->aligned_b, &ldb, &offB);
                    ldc = M + 2;
                    offC = 7;
                    const size_t na = offA + (size_t)lda * (ta ? M : K);
                    const size_t nb = offB + (size_t)ldb * (tb ? K : N);
                    const size_t nc = offC + (size_t)ldc * N;
                    char *ha = malloc(na * es), *hb = malloc(nb * es), *hc = malloc(nc * cs),
                         *hc0 = malloc(nc * cs);
                    nan_fill(ha, na, es); /* padding is NaN: reading it would poison the result */
                    nan_fill(hb, nb, es);
                    for (int i = 0; i < M; i++)
                        for (int p = 0; p < K; p++) {
                            const size_t at =
                                ta ? offA + p + (size_t)i * lda : offA + i + (size_t)p * lda;
                            memcpy(ha + at * es, abits + ((size_t)i + (size_t)p * M) * es, es);
                        }
                    for (int p = 0; p < K; p++)
                        for (int j = 0; j < N; j++) {
                            const size_t at =
                                tb ? offB + j + (size_t)p * ldb : offB + p + (size_t)j * ldb;
                            memcpy(hb + at * es, bbits + ((size_t)p + (size_t)j * K) * es, es);
                        }
                    /* C: outside the M x N region a sentinel; inside NaN when beta == 0, else
                     * values */
                    uint64_t cst = 777 + vi;
                    for (size_t i = 0; i < nc; i++) {
                        c_value(-3.0 - (double)(i % 7), hc + i * cs);
                    }
                    for (int j = 0; j < N; j++)
                        for (int i = 0; i < M; i++) {
                            const size_t at = offC + i + (size_t)j * ldc;
                            if (V->beta == 0)
                                nan_fill(hc + at * cs, 1, cs);
                            else {
                                cst = cst * 6364136223846793005ull + 1442695040888963407ull;
                                c_value((double)(cst >> 11) / 9007199254740992.0 * 2 - 1,
                                        hc + at * cs);
                            }
                        }
                    memcpy(hc0, hc, nc * cs);
                    cl_int e;
                    cl_mem dA = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                               na * es, ha, &e);
                    CK(e);
                    cl_mem dB = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                               nb * es, hb, &e);
                    CK(e);
                    cl_mem dC = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                               nc * cs, hc, &e);
                    CK(e);
                    make_opts(opts, sizeof opts, c, ta, tb, V->aligned_a, V->aligned_b);
                    prog_t *p = find_prog(opts);
                    if (!p || p->built != 1) {
                        printf("FAIL build %s\n", opts);
                        failures++;
                        shape_fail = 1;
                    } else {
                        set_args(p->kern, M, N, K, V->alpha, V->beta, dA, offA, lda, dB, offB, ldb,
                                 dC, offC, ldc);
                        launch(p->kern, c, M, N);
                        CK(clEnqueueReadBuffer(q, dC, CL_TRUE, 0, nc * cs, hc, 0, NULL, NULL));
                        long bad = 0, outside = 0;
                        double case_worst = 0;
                        int bi = -1, bj = -1;
                        double bgot = 0, bexp = 0;
                        for (int j = 0; j < N; j++)
                            for (int i = 0; i < M; i++) {
                                const size_t at = offC + i + (size_t)j * ldc;
                                const double got = c_read(hc + at * cs);
                                const double c0 = V->beta == 0 ? 0 : c_read(hc0 + at * cs);
                                const double r = raw[i + (size_t)j * M],
                                             s = abs_[i + (size_t)j * M];
                                const double expv = V->alpha * r + V->beta * c0;
                                const double tol = (K + 16) * ref_eps() * fabs(V->alpha) * s +
                                                   ref_eps() * fabs(V->beta * c0) +
                                                   2 * out_eps() * fabs(expv) + 1e-300;
                                const double err = fabs(got - expv);
                                if (!(err <= tol)) {
                                    if (!bad) {
                                        bi = i;
                                        bj = j;
                                        bgot = got;
                                        bexp = expv;
                                    }
                                    bad++;
                                }
                                if (s > 0 && err / (fabs(V->alpha) * s) > case_worst)
                                    case_worst = err / (fabs(V->alpha) * s);
                            }
                        /* nothing outside the M x N region may change */
                        for (size_t i = 0; i < nc; i++) {
                            const size_t r = i >= offC ? (i - offC) % ldc : 0,
                                         col = i >= offC ? (i - offC) / ldc : 0;
                            const int inside = i >= offC && r < (size_t)M && col < (size_t)N;
                            if (!inside && memcmp(hc + i * cs, hc0 + i * cs, cs)) outside++;
                        }
                        if (case_worst > worst) worst = case_worst;
                        if (bad || outside) {
                            failures++;
                            shape_fail = 1;
                            printf("FAIL %s %dx%dx%d T%d%d v%zu (alpha %g beta %g lda %d ldb %d): "
                                   "%ld wrong, "
                                   "%ld outside changed; first (%d,%d) got %.9g want %.9g\n",
                                   mode_names[mode], M, N, K, ta, tb, vi, V->alpha, V->beta, lda,
                                   ldb, bad, outside, bi, bj, bgot, bexp);
                        }
                    }
                    clReleaseMemObject(dA);
                    clReleaseMemObject(dB);
                    clReleaseMemObject(dC);
                    free(ha);
                    free(hb);
                    free(hc);
                    free(hc0);
                }
        printf("check %s%s %5dx%5dx%5d: %s (16 cases: 4 transposes x aligned/unaligned/mixed, "
               "beta 0 with NaN C; max err / sum|a||b| = %.2e)\n",
               mode_names[mode], cin ? "(C in)" : "", M, N, K, shape_fail ? "FAIL" : "ok", worst);
        fflush(stdout);
        free(a);
        free(b);
        free(abits);
        free(bbits);
        free(raw);
        free(abs_);
    }
}

/* ---- timing ------------------------------------------------------------------------------- */
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmpd(const void *x, const void *y) {
    const double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static shape_t bench_shapes[32] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},
                                   {4097, 4097, 4097}, {8192, 8192, 8192}, {64, 8192, 8192}};
static int nbench = 6;

static void bench_cfg(const cfg_t *c, const char *cfgname) {
    const size_t es = esize(), cs = csize();
    for (int s = 0; s < nbench; s++) {
        const int M = bench_shapes[s].M, N = bench_shapes[s].N, K = bench_shapes[s].K;
        const int v = vw();
        const int aa = M % v == 0, ab = K % v == 0; /* NN, lda = M, ldb = K, no offsets */
        char opts[512];
        make_opts(opts, sizeof opts, c, 0, 0, aa, ab);
        if (!find_prog(opts)) {
            const int from = nprogs;
            want_prog(opts);
            build_pending(from);
        }
        prog_t *p = find_prog(opts);
        if (p->built != 1) {
            printf("bench %s %s %dx%dx%d: build failed\n", mode_names[mode], cfgname, M, N, K);
            continue;
        }
        if (ptx_dir && !p->dumped) dump_binary(p);
        const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
        char *h = malloc((na > nb ? na : nb) * es);
        uint64_t st = 99;
        for (size_t i = 0; i < (na > nb ? na : nb); i++)
            rnd_input(&st, h + i * es);
        cl_int e;
        cl_mem dA = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, na * es, h, &e);
        CK(e);
        cl_mem dB = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nb * es, h, &e);
        CK(e);
        cl_mem dC = clCreateBuffer(ctx, CL_MEM_READ_WRITE, nc * cs, NULL, &e);
        CK(e);
        free(h);
        set_args(p->kern, M, N, K, 1.0, 0.0, dA, 0, M, dB, 0, K, dC, 0, M);
        for (int w = 0; w < 3; w++)
            launch(p->kern, c, M, N);
        CK(clFinish(q));
        double t[200];
        const int n = reps > 200 ? 200 : reps;
        for (int r = 0; r < n; r++) {
            const double t0 = now();
            launch(p->kern, c, M, N);
            CK(clFinish(q));
            t[r] = now() - t0;
        }
        qsort(t, n, sizeof *t, cmpd);
        const double med = t[n / 2], flops = 2.0 * M * N * K;
        printf("bench %s%s %s %5d %5d %5d  median %.3f ms  %.1f TFLOPS (best %.1f)%s\n",
               mode_names[mode], cin ? "(C in)" : "", cfgname, M, N, K, med * 1e3,
               flops / med / 1e12, flops / t[0] / 1e12, aa && ab ? "" : "  [scalar-load path]");
        fflush(stdout);
        clReleaseMemObject(dA);
        clReleaseMemObject(dB);
        clReleaseMemObject(dC);
    }
}

/* ---- main --------------------------------------------------------------------------------- */
static void parse_cfg(cfg_t *c, const char *s) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *t = strtok(buf, ", "); t; t = strtok(NULL, ", ")) {
        char *eq = strchr(t, '=');
        if (!eq) {
            fprintf(stderr, "bad cfg item %s\n", t);
            exit(2);
        }
        *eq = 0;
        const int v = atoi(eq + 1);
        if (!strcmp(t, "MWG"))
            c->mwg = v;
        else if (!strcmp(t, "NWG"))
            c->nwg = v;
        else if (!strcmp(t, "KWG"))
            c->kwg = v;
        else if (!strcmp(t, "WM"))
            c->wm = v;
        else if (!strcmp(t, "WN"))
            c->wn = v;
        else if (!strcmp(t, "STAGES"))
            c->stages = v;
        else if (!strcmp(t, "SWIZZLE"))
            c->swizzle = v;
        else if (!strcmp(t, "F64_K16"))
            c->f64k16 = v;
        else {
            fprintf(stderr, "unknown cfg key %s\n", t);
            exit(2);
        }
    }
}

int main(int argc, char **argv) {
    const char *src = "mma_source.cl";
    const char *cfgs[32];
    int ncfg = 0, do_check = 0, do_bench = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            const char *m = argv[++i];
            mode = -1;
            for (int k = 0; k < 5; k++)
                if (!strcmp(m, mode_names[k])) mode = k;
            if (mode < 0) {
                fprintf(stderr, "unknown mode %s\n", m);
                return 2;
            }
        } else if (!strcmp(argv[i], "--cin"))
            cin = 1;
        else if (!strcmp(argv[i], "--cfg") && i + 1 < argc && ncfg < 32)
            cfgs[ncfg++] = argv[++i];
        else if (!strcmp(argv[i], "--check"))
            do_check = 1;
        else if (!strcmp(argv[i], "--bench"))
            do_bench = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--extra") && i + 1 < argc)
            extra_opts = argv[++i];
        else if (!strcmp(argv[i], "--naive"))
            naive = 1;
        else if (!strcmp(argv[i], "--max-work") && i + 1 < argc)
            max_work = atof(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ptx") && i + 1 < argc)
            ptx_dir = argv[++i];
        else if (!strcmp(argv[i], "--src") && i + 1 < argc)
            src = argv[++i];
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) {
            nbench = 0;
            char buf[1024];
            snprintf(buf, sizeof buf, "%s", argv[++i]);
            for (char *t = strtok(buf, ";"); t && nbench < 32; t = strtok(NULL, ";"))
                if (sscanf(t, "%d,%d,%d", &bench_shapes[nbench].M, &bench_shapes[nbench].N,
                           &bench_shapes[nbench].K) == 3)
                    nbench++;
        } else {
            fprintf(stderr, "unknown argument %s (see the first comment of mma_lab.c)\n", argv[i]);
            return 2;
        }
    }
    if (cin && mode > BF16) {
        fprintf(stderr, "--cin is for fp16/bf16 only\n");
        return 2;
    }
    FILE *f = fopen(src, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", src);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    src_text = calloc(len + 1, 1);
    if (fread(src_text, 1, len, f) != (size_t)len) return 2;
    fclose(f);

    cl_platform_id plats[8];
    cl_uint np = 0;
    CK(clGetPlatformIDs(8, plats, &np));
    dev = NULL;
    for (cl_uint i = 0; i < np && !dev; i++) /* a GPU first, else anything */
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    if (!dev) {
        fprintf(stderr, "no OpenCL device\n");
        return 2;
    }
    char name[256];
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("device: %s; mode %s%s\n", name, mode_names[mode], cin ? " (C in input type)" : "");
    cl_int e;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CK(e);
    q = clCreateCommandQueue(ctx, dev, 0, &e);
    CK(e);

    if (!ncfg) cfgs[ncfg++] = "";
    for (int i = 0; i < ncfg; i++) {
        cfg_t c = {128, 128, 32, 64, 32, 3, 1, 0};
        parse_cfg(&c, cfgs[i]);
        printf("cfg %s: MWG=%d NWG=%d KWG=%d WM=%d WN=%d STAGES=%d SWIZZLE=%d F64_K16=%d "
               "(%d threads, %zu bytes local)\n",
               cfgs[i], c.mwg, c.nwg, c.kwg, c.wm, c.wn, c.stages, c.swizzle, c.f64k16,
               threads_of(&c), (size_t)c.stages * (c.mwg + c.nwg) * c.kwg * esize());
        if (do_check) check_cfg(&c);
        if (do_bench) bench_cfg(&c, cfgs[i]);
    }
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
