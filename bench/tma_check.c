/* tma_check.c: clgemm-tma-check, the TMA-fed wgmma kernel (cl/tma.cl) run directly over its
 * tensor maps on an NVIDIA device of compute capability 9.0, before it is a family of the call
 * path: the library's own services encode the maps (src/exec/tensor_map.c) over buffer
 * addresses (src/exec/device_address.c) and build the kernel through the patched-PTX route.
 *   clgemm-tma-check check [TYPE...]   the correctness matrix: every type (or those named:
 *                                      FP16 BF16 TF32 INT8 E4M3 E5M2), C type, transpose,
 *                                      edges, beta 0 (C poisoned with NaN) and not, batches,
 *                                      every tile; each entry against a long-double reference
 *   clgemm-tma-check time M,N,K...     FP16, BF16, TF32, INT8 and FP8 E4M3 (K-major and, for
 *                                      16-bit types, row-major NN's MN-major A) at each shape:
 *                                      kernel time, median of 10 warm runs, checked on 4096
 *                                      entries (TOPS for INT8)
 * Exit: 0 all right, 1 a wrong result or a failure, 77 no device with tensor maps. */

#include "core/clock.h"
#include "core/xorshift.h"
#include "exec/exec.h"
#include "types/element.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tma_case {
    clgemm_precision type, type_c;
    int ta, tb; /* column-major transposes: ta 1 and tb 0 are K-major */
    size_t m, n, k, batch;
    int mwg, nwg, stages;
    float alpha, beta;
} tma_case;

static clgemm_handle h;
static cl_context ctx;
static cl_command_queue queue;

/* A leading dimension of whole 16-byte rows for elements of `esize` bytes. */
static size_t round16(size_t v, size_t esize) {
    const size_t per = 16 / esize;
    return (v + per - 1) / per * per;
}

/* Small integers: products and sums exact in FP32, so the reference bounds only C's rounding. */
static void fill(clgemm_precision t, void *buf, size_t count, uint64_t *seed) {
    for (size_t i = 0; i < count; i++)
        clgemm__element_set(t, buf, i, 0, (double)(int)(clgemm_xorshift64s(seed) % 5) - 2.0);
}

static cl_mem upload(const void *host, size_t bytes) {
    cl_int err;
    cl_mem m =
        clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)host, &err);
    return err == CL_SUCCESS ? m : NULL;
}

/* The two maps as the call path makes them (src/exec/operand_maps.c), for the case's tile. */
static bool encode_maps(const tma_case *c, cl_mem dA, cl_mem dB, size_t lda, size_t ldb, size_t sa,
                        size_t sb, unsigned char maps[CLGEMM__MAPS_BYTES]) {
    const int kwg = 128 / (int)clgemm__type(c->type)->size;
    const clgemm_config cfg = {.family = CLGEMM_FAMILY_TMA,
                               .params = {c->mwg, c->nwg, kwg, c->stages}};
    const map_operand a = {dA, 0, lda, c->batch > 1 ? sa : 0, c->ta != 0, c->m};
    const map_operand b = {dB, 0, ldb, c->batch > 1 ? sb : 0, c->tb == 0, c->n};
    if (clgemm__operand_maps(h, c->type, &cfg, c->k, c->batch, &a, &b, NULL, NULL, maps))
        return true;
    printf("  no maps for this case (CLGEMM_LOG=1 says why)\n");
    return false;
}

static cl_kernel kernel_for(const tma_case *c) {
    const int wg_type = c->type == CLGEMM_HALF       ? 0
                        : c->type == CLGEMM_BFLOAT16 ? 1
                        : c->type == CLGEMM_INT8     ? 3
                        : c->type == CLGEMM_E4M3     ? 4
                        : c->type == CLGEMM_E5M2     ? 5
                                                     : 2;
    char options[512];
    snprintf(options, sizeof options,
             "-DTYPE_AB=%d -DTYPE_C=%d -DTRANSA=%d -DTRANSB=%d -DMWG=%d -DNWG=%d -DSTAGES=%d "
             "-DWG_TYPE=%d",
             c->type, c->type_c, c->ta, c->tb, c->mwg, c->nwg, c->stages, wg_type);
    cl_program p;
    build_log_sink sink = clgemm__handle_log_sink(h);
    if (clgemm__program(&h->dev->build, &sink, "tma.cl", options, &p) != CLGEMM_SUCCESS) {
        printf("  build failed (%s):\n%s\n", options, h->build_log ? h->build_log : "");
        return NULL;
    }
    /* A fresh build's log (with -cl-nv-verbose in CLGEMM_BUILD_OPTIONS: ptxas's report). */
    static const char *last_log;
    if (h->build_log && h->build_log != last_log) {
        last_log = h->build_log;
        for (const char *l = last_log; *l;) {
            const char *end = strchr(l, '\n');
            size_t len = end ? (size_t)(end - l) : strlen(l);
            if (memmem(l, len, "registers", 9) || memmem(l, len, "spill", 5))
                printf("  %.*s\n", (int)len, l);
            l += len + (end != NULL);
        }
    }
    cl_int err;
    cl_kernel k = clCreateKernel(p, "clgemm_tma", &err);
    clReleaseProgram(p);
    return err == CL_SUCCESS ? k : NULL;
}

/* Runs a case `runs` times (the last's C kept); kernel seconds of each into times. The entries
 * checked: all (sample 0) or `sample` chosen at random. Returns the wrong count, -1 on failure. */
static long run_case(const tma_case *c, int runs, double *times, size_t sample) {
    const size_t ea = clgemm__type(c->type)->size, ec = clgemm__type(c->type_c)->size;
    /* Column-major storage; leading dimensions rounded to 8 elements (16-byte rows). */
    const size_t ar = c->ta ? c->k : c->m, ac = c->ta ? c->m : c->k; /* rows x cols stored */
    const size_t br = c->tb ? c->n : c->k, bc = c->tb ? c->k : c->n;
    const size_t lda = round16(ar, ea), ldb = round16(br, ea), ldc = c->m;
    const size_t sa = lda * ac, sb = ldb * bc, sc = ldc * c->n;
    uint64_t seed = 0x5eed ^ (c->m * 31 + c->n * 7 + c->k);
    void *A = malloc(sa * c->batch * ea), *B = malloc(sb * c->batch * ea);
    void *C0 = malloc(sc * c->batch * ec), *C1 = malloc(sc * c->batch * ec);
    long wrong = -1;
    cl_mem dA = NULL, dB = NULL, dC = NULL, dmaps = NULL, dtable = NULL;
    cl_kernel k = NULL;
    if (!A || !B || !C0 || !C1) goto out;
    fill(c->type, A, sa * c->batch, &seed);
    fill(c->type, B, sb * c->batch, &seed);
    if (c->beta != 0.0f)
        fill(c->type_c, C0, sc * c->batch, &seed);
    else /* poison: a kernel that reads C when beta is 0 leaves NaN (INT32: a wrong sum) */
        for (size_t i = 0; i < sc * c->batch; i++)
            clgemm__element_set(c->type_c, C0, i, 0, c->type_c == CLGEMM_INT32 ? -12345 : NAN);
    dA = upload(A, sa * c->batch * ea);
    dB = upload(B, sb * c->batch * ea);
    dC = upload(C0, sc * c->batch * ec);
    unsigned char maps[CLGEMM__MAPS_BYTES] __attribute__((aligned(64)));
    if (!dA || !dB || !dC || !encode_maps(c, dA, dB, lda, ldb, sa, sb, maps)) goto out;
    dmaps = upload(maps, sizeof maps);
    dtable = upload(maps, 64); /* unused without a batch table */
    if (!dmaps || !dtable || !(k = kernel_for(c))) goto out;
    const int M = (int)c->m, N = (int)c->n, K = (int)c->k, ilda = (int)lda, ildb = (int)ldb,
              ildc = (int)ldc, layers = 1;
    const cl_ulong zero = 0, ua = sa, ub = sb, uc = sc;
    cl_int err = 0;
    int a = 0;
#define ARG(v) err |= clSetKernelArg(k, (cl_uint)a++, sizeof(v), &(v))
    /* alpha and beta in the arithmetic's type: INT8's is 32-bit integer. */
    const cl_uint ialpha = (cl_uint)(int)c->alpha, ibeta = (cl_uint)(int)c->beta;
    const bool integer = c->type == CLGEMM_INT8;
    ARG(M), ARG(N), ARG(K);
    if (integer)
        ARG(ialpha), ARG(ibeta);
    else
        ARG(c->alpha), ARG(c->beta);
    ARG(dA), ARG(zero), ARG(ilda), ARG(dB);
    ARG(zero), ARG(ildb), ARG(dC), ARG(zero), ARG(ildc), ARG(ua), ARG(ub), ARG(uc), ARG(layers);
    const cl_ulong depth = c->batch; /* the kernel's units: tiles times matrices */
    ARG(dtable), ARG(dmaps), ARG(depth);
#undef ARG
    const size_t threads = 128 * (size_t)c->mwg / 64 + 32;
    const size_t local[3] = {threads, 1, 1};
    const size_t global[3] = {(c->m + c->mwg - 1) / c->mwg * threads, (c->n + c->nwg - 1) / c->nwg,
                              c->batch};
    for (int r = 0; r < runs && err == CL_SUCCESS; r++) {
        if (r == runs - 1) /* the checked run starts from C's first values */
            err =
                clEnqueueWriteBuffer(queue, dC, CL_TRUE, 0, sc * c->batch * ec, C0, 0, NULL, NULL);
        cl_event ev;
        err |= clEnqueueNDRangeKernel(queue, k, 3, NULL, global, local, 0, NULL, &ev);
        if (err == CL_SUCCESS) {
            clWaitForEvents(1, &ev);
            cl_ulong t0 = 0, t1 = 0;
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
            times[r] = (double)(t1 - t0) * 1e-9;
            clReleaseEvent(ev);
        }
    }
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, dC, CL_TRUE, 0, sc * c->batch * ec, C1, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        printf("  OpenCL error %d\n", err);
        goto out;
    }
    const size_t total = c->m * c->n * c->batch, checks = sample ? sample : total;
    const double ulp = c->type_c == CLGEMM_HALF       ? 0x1p-11
                       : c->type_c == CLGEMM_BFLOAT16 ? 0x1p-8
                       : c->type_c == CLGEMM_INT32    ? 0 /* exact */
                                                      : 0x1p-24;
    wrong = 0;
    for (size_t s = 0; s < checks; s++) {
        const size_t e = sample ? clgemm_xorshift64s(&seed) % total : s;
        const size_t b = e / (c->m * c->n), i = e % c->m, j = e / c->m % c->n;
        long double ref = 0;
        for (size_t p = 0; p < c->k; p++) {
            const size_t ia = b * sa + (c->ta ? p + i * lda : i + p * lda);
            const size_t ib = b * sb + (c->tb ? j + p * ldb : p + j * ldb);
            ref += (long double)clgemm__element_get(c->type, A, ia, 0) *
                   clgemm__element_get(c->type, B, ib, 0);
        }
        const size_t ic = b * sc + i + j * ldc;
        ref = c->alpha * ref +
              (c->beta != 0.0f ? c->beta * (long double)clgemm__element_get(c->type_c, C0, ic, 0)
                               : 0);
        const double got = clgemm__element_get(c->type_c, C1, ic, 0);
        if (!(fabsl(got - ref) <= fabsl(ref) * ulp + 1e-6L * (long double)c->k)) {
            if (wrong < 3)
                printf("  wrong at (%zu, %zu) of matrix %zu: %g, want %Lg\n", i, j, b, got, ref);
            wrong++;
        }
    }
out:
    if (k) clReleaseKernel(k);
    cl_mem all[] = {dA, dB, dC, dmaps, dtable};
    for (int i = 0; i < 5; i++)
        if (all[i]) clReleaseMemObject(all[i]);
    free(A);
    free(B);
    free(C0);
    free(C1);
    return wrong;
}

static const char *type_name(clgemm_precision t) {
    switch (t) {
    case CLGEMM_HALF:
        return "FP16";
    case CLGEMM_BFLOAT16:
        return "BF16";
    case CLGEMM_INT8:
        return "INT8";
    case CLGEMM_INT32:
        return "INT32";
    case CLGEMM_E4M3:
        return "E4M3";
    case CLGEMM_E5M2:
        return "E5M2";
    default:
        return "TF32";
    }
}

/* Types whose operands the kernel takes K-major only. */
static bool k_major_only(clgemm_precision t) {
    return t != CLGEMM_HALF && t != CLGEMM_BFLOAT16;
}

static void describe(const tma_case *c, char *buf, size_t size) {
    snprintf(buf, size, "%s C %s %c%c %zux%zux%zu batch %zu tile %dx%d S%d beta %g",
             type_name(c->type), c->type_c == CLGEMM_SINGLE ? "FP32" : type_name(c->type_c),
             c->ta ? 'T' : 'N', c->tb ? 'T' : 'N', c->m, c->n, c->k, c->batch, c->mwg, c->nwg,
             c->stages, c->beta);
}

/* Whether the check's type list `names` (argc entries; none: all) names type t. */
static bool named(clgemm_precision t, int argc, char **argv) {
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], type_name(t)) == 0) return true;
    return argc == 0;
}

static int check(int argc, char **argv) {
    /* A and B's type, C's */
    static const clgemm_precision types[][2] = {
        {CLGEMM_HALF, CLGEMM_SINGLE},     {CLGEMM_HALF, CLGEMM_HALF},
        {CLGEMM_BFLOAT16, CLGEMM_SINGLE}, {CLGEMM_BFLOAT16, CLGEMM_BFLOAT16},
        {CLGEMM_SINGLE, CLGEMM_SINGLE},   {CLGEMM_INT8, CLGEMM_INT32},
        {CLGEMM_E4M3, CLGEMM_SINGLE},     {CLGEMM_E4M3, CLGEMM_HALF},
        {CLGEMM_E4M3, CLGEMM_BFLOAT16},   {CLGEMM_E5M2, CLGEMM_SINGLE},
        {CLGEMM_E5M2, CLGEMM_BFLOAT16}};
    static const int tiles[][3] = {
        {128, 256, 4}, {128, 128, 6}, {64, 256, 5}, {256, 128, 4}, {128, 64, 8}};
    int failed = 0, cases = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (int tr = 0; tr < 4 && named(types[t][0], argc, argv); tr++)
            for (int tile = 0; tile < 5; tile++) {
                const int ta = tr & 1, tb = tr >> 1;
                if (k_major_only(types[t][0]) && (!ta || tb)) continue;
                /* Edges on every side, K not a multiple of the slice; then a batch with
                 * beta 0 (C poisoned). */
                for (int form = 0; form < 2; form++) {
                    const bool integer = types[t][0] == CLGEMM_INT8;
                    tma_case c = {.type = types[t][0],
                                  .type_c = types[t][1],
                                  .ta = ta,
                                  .tb = tb,
                                  .m = form ? 200 : 333,
                                  .n = form ? 136 : 517,
                                  .k = form ? 64 : 299,
                                  .batch = form ? 3 : 1,
                                  .mwg = tiles[tile][0],
                                  .nwg = tiles[tile][1],
                                  .stages = tiles[tile][2],
                                  .alpha = integer ? 3.0f : 1.5f,
                                  .beta = form      ? 0.0f
                                          : integer ? -2.0f
                                                    : -0.5f};
                    char what[160];
                    describe(&c, what, sizeof what);
                    double t1[1];
                    long wrong = run_case(&c, 1, t1, 0);
                    printf("%s %s: %ld wrong\n", wrong == 0 ? "ok  " : "FAIL", what, wrong);
                    failed += wrong != 0;
                    cases++;
                }
            }
    if (cases == 0) {
        fprintf(stderr, "clgemm-tma-check: no type of the matrix named (FP16 BF16 TF32 INT8 E4M3 "
                        "E5M2)\n");
        return 2;
    }
    printf("%d of %d cases right\n", cases - failed, cases);
    return failed ? 1 : 0;
}

static int time_shapes(int argc, char **argv) {
    int failed = 0;
    for (int i = 0; i < argc; i++) {
        size_t m, n, k;
        if (sscanf(argv[i], "%zu,%zu,%zu", &m, &n, &k) != 3) return 2;
        /* Row-major C = A B^T is column-major TN (both K-major); row-major NN is column-major
         * C^T = B^T A^T with the first operand MN-major (NT here). */
        const struct {
            clgemm_precision t, tc;
            int ta, tb;
            const char *row_major;
        } forms[] = {{CLGEMM_HALF, CLGEMM_SINGLE, 1, 0, "A B^T"},
                     {CLGEMM_HALF, CLGEMM_SINGLE, 0, 0, "A B (swapped)"},
                     {CLGEMM_BFLOAT16, CLGEMM_SINGLE, 1, 0, "A B^T"},
                     {CLGEMM_SINGLE, CLGEMM_SINGLE, 1, 0, "A B^T"},
                     {CLGEMM_INT8, CLGEMM_INT32, 1, 0, "A B^T"},
                     {CLGEMM_E4M3, CLGEMM_SINGLE, 1, 0, "A B^T"},
                     {CLGEMM_E4M3, CLGEMM_BFLOAT16, 1, 0, "A B^T"}};
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            tma_case c = {.type = forms[f].t,
                          .type_c = forms[f].tc,
                          .ta = forms[f].ta,
                          .tb = forms[f].tb,
                          .m = m,
                          .n = n,
                          .k = k,
                          .batch = 1,
                          .mwg = 128,
                          .nwg = m * n >= (size_t)4096 * 4096 ? 256 : 128,
                          .alpha = 1.0f,
                          .beta = 0.0f};
            /* As many stages as the device's static local limit holds (the barriers take 16
             * bytes a stage), at most 6. */
            const size_t stage = (size_t)(c.mwg + c.nwg) * 128;
            c.stages = (int)((clgemm__static_local_limit(&h->info) - 16 * 8) / (stage + 16));
            if (c.stages > 6) c.stages = 6;
            if (c.stages < 2) continue;
            double times[11];
            long wrong = run_case(&c, 11, times, 4096);
            qsort(times + 1, 10, sizeof times[0], clgemm_compare_doubles);
            const double med = (times[5] + times[6]) / 2;
            char what[160];
            describe(&c, what, sizeof what);
            printf("%s %s (row-major %s): %.1f TFLOPS kernel time, median of 10; %ld wrong of "
                   "4096 checked\n",
                   wrong == 0 ? "ok  " : "FAIL", what, forms[f].row_major,
                   2.0 * (double)m * (double)n * (double)k / med * 1e-12, wrong);
            failed += wrong != 0;
        }
    }
    return failed ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "time") != 0)) {
        fprintf(stderr, "usage: clgemm-tma-check check [TYPE...] | time M,N,K...\n");
        return 2;
    }
    cl_platform_id platforms[8];
    cl_uint np = 0;
    cl_device_id device = NULL;
    if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS) np = 0;
    for (cl_uint i = 0; i < np && !device; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 1, &device, NULL) != CL_SUCCESS)
            device = NULL;
    if (!device) {
        printf("no GPU\n");
        return 77;
    }
    cl_int err;
    ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    queue = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS || clgemm_create(&h, queue) != CLGEMM_SUCCESS) {
        printf("no handle\n");
        return 1;
    }
    printf("device: %s, compute capability %d, static local limit %llu bytes, sm_90a %d, "
           "tensor maps: %s\n",
           h->info.name, h->info.nv_compute_capability,
           (unsigned long long)clgemm__static_local_limit(&h->info), h->info.nv_sm90a,
           clgemm__tensor_map_service_string(clgemm__tensor_map_service(&h->info)));
    if (!h->info.nv_tma) return 77;
    int rc =
        strcmp(argv[1], "check") == 0 ? check(argc - 2, argv + 2) : time_shapes(argc - 2, argv + 2);
    clgemm_destroy(h);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    return rc;
}
