/* bench.h: types and functions shared by the modules of clgemm-bench, the benchmark that times
 * clgemm against CLBlast on the same buffers in one process. */
#ifndef CLGEMM_BENCH_H
#define CLGEMM_BENCH_H

#include "batched.h"
#include "clgemm.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- problems.c: one GEMM problem, the presets and the size lists ---------------------------- */

typedef struct problem {
    clgemm_precision precision;
    clgemm_layout layout;
    clgemm_transpose trans_a, trans_b;
    size_t m, n, k;
} problem;

typedef struct problem_list {
    problem *items;
    size_t count, capacity;
} problem_list;

/* A shape before precision/layout are applied (the parsing stage). */
typedef struct shape {
    size_t m, n, k;
    clgemm_transpose trans_a, trans_b;
} shape;

typedef struct shape_list {
    shape *items;
    size_t count, capacity;
} shape_list;

bool shape_list_add(shape_list *list, size_t m, size_t n, size_t k, clgemm_transpose ta,
                    clgemm_transpose tb);
bool problem_list_add(problem_list *list, problem p);
/* The shapes of a preset ("gpu" or "cpu") for one precision. False for an unknown preset. */
bool preset_shapes(const char *preset, clgemm_precision precision, shape_list *out);
/* "NN", "NT", "TN", "TT" -> transposes. False if s is none of them. */
bool parse_trans(const char *s, clgemm_transpose *ta, clgemm_transpose *tb);
/* The largest m, n or k clgemm accepts (CLGEMM_ERR_TOO_LARGE above). */
#define MAX_BENCH_DIM ((1ull << 31) - 1025)
/* One dimension: digits only, 1 to MAX_BENCH_DIM. */
bool parse_dim(const char *s, char **end, size_t *v);
/* "M,N,K" or "MxNxK". */
bool parse_shape(const char *s, size_t *m, size_t *n, size_t *k);
/* Bytes of A, B and C for elements of elem bytes; false if a product overflows (or leaves no
 * room for the two host copies of C the bench keeps). */
bool shape_bytes(size_t m, size_t n, size_t k, size_t elem, size_t bytes[3]);
char precision_char(clgemm_precision p);
/* The precisions clgemm-bench times, indexed by clgemm_precision up to CLGEMM_BFLOAT16: s, d, c,
 * z, and b (BF16 A and B, FP32 C, as OpenBLAS's cblas_sbgemm); not CLGEMM_HALF. */
#define BENCH_PRECISIONS (CLGEMM_BFLOAT16 + 1)
bool bench_precision(clgemm_precision p);
/* Whether p is complex, whether its components are doubles (FP64 and complex FP64), the bytes of
 * one element of A and B of p (two components for complex), and of C (FP32 for BF16). */
bool precision_complex(clgemm_precision p);
bool precision_double(clgemm_precision p);
size_t precision_bytes(clgemm_precision p);
size_t precision_c_bytes(clgemm_precision p);
/* Bytes of A, B and C of a problem of precision p (shape_bytes with C's own element size). */
bool problem_bytes(clgemm_precision p, size_t m, size_t n, size_t k, size_t bytes[3]);
const char *trans_string(clgemm_transpose ta, clgemm_transpose tb);
const char *layout_string(clgemm_layout layout);

/* ---- options.c: the command line ------------------------------------------------------------- */

#define MAX_TRANS          4
#define MAX_CLBLAST_PARAMS 32
#define MAX_BATCHED        32

typedef struct name_values {
    size_t count;
    const char *names[MAX_CLBLAST_PARAMS];
    size_t values[MAX_CLBLAST_PARAMS];
} name_values;

typedef struct options {
    int runs;
    const char *preset;          /* NULL: by device type */
    bool want[BENCH_PRECISIONS]; /* precisions, indexed by clgemm_precision */
    clgemm_layout layout;
    size_t trans_count;
    clgemm_transpose trans[MAX_TRANS][2];
    shape_list shapes; /* from --sizes / --shape; empty: the preset */
    clgemm_family family;
    name_values params;     /* --params NAME=VALUE pairs (names of the family's parameters) */
    name_values clblast[2]; /* --clblast-params (s) and --clblast-params-d (d) */
    bool clblast_tuned[2];  /* per precision: time CLBlast with the overrides too */
    const char *csv, *json;
    bool no_clblast, quiet;
    /* --reference: the library clgemm is timed against; reference_lib: a CBLAS library's path
     * (NULL: OpenBLAS where Debian installs it) when it is not CLBlast */
    bool reference_cblas;
    const char *reference_lib;
    bool list; /* --list: print the devices and exit */
    /* --batched BATCH,N: strided batches (batched.c) in each precision wanted, in the layout */
    size_t batched_count;
    batched_problem batched[MAX_BATCHED];
} options;

/* The most timed runs per measurement --runs accepts. */
#define MAX_RUNS 100000
/* Parses argv into opt. Returns 0 to go on, 1 to exit successfully (--help), -1 on error. */
int options_parse(int argc, char **argv, options *opt);
/* "regblock MWG=128,NWG=128,..." (the parameters the family uses) into buf. */
void config_string(const clgemm_config *c, char *buf, size_t size);
/* Fills the parameters of family that opt->params did not set from base (when of the same
 * family) or from small built-in values. */
clgemm_config forced_config(const options *opt, const clgemm_config *base);

/* ---- timing.c: whole-call wall time -----------------------------------------------------------
 */

typedef struct measurement {
    bool ran;   /* attempted at all */
    int status; /* 0, or the first error code (clgemm, CLBlast or OpenCL) */
    int runs;   /* timed runs */
    double median_ms, min_ms, gflops;
} measurement;

/* Enqueues one call; returns 0 or an error code. */
typedef int (*gemm_call)(void *ctx);

/* Two warm-up calls (the first compiles), then at least runs timed calls of call + clFinish;
 * small problems get more runs (up to 10x) so that the timed part lasts about 0.2 s. */
measurement time_calls(gemm_call call, void *ctx, cl_command_queue queue, int runs, double flops);

/* ---- runners.c: buffers, the two libraries, and the checks ------------------------------------
 */

typedef struct buffers {
    cl_mem a, b, c;
    size_t a_elems, b_elems, c_elems, lda, ldb, ldc;
    void *host_a, *host_b; /* for the sampled host check */
} buffers;

typedef struct bench_ctx {
    clgemm_handle handle;
    cl_command_queue queue;
    cl_context context;
    cl_device_id device;
} bench_ctx;

/* The leading dimensions of the problem's tightly packed A, B and C (buffers_create's). */
void problem_leading(const problem *p, size_t *lda, size_t *ldb, size_t *ldc);
int buffers_create(const bench_ctx *bc, const problem *p, buffers *bufs, unsigned long long seed);
void buffers_free(buffers *bufs);
measurement run_clgemm(const bench_ctx *bc, const problem *p, const buffers *bufs, int runs,
                       void *host_c);
/* overrides NULL: CLBlast's own parameters. With overrides, they are set for this precision's
 * "Xgemm" kernel before and CLBlast's caches are cleared after (back to its defaults). */
measurement run_clblast(const bench_ctx *bc, const problem *p, const buffers *bufs, int runs,
                        const name_values *overrides, void *host_c);
/* cblas_reference.c: a CBLAS library opened by path (NULL: OpenBLAS's usual places), described
 * into describe ("PATH, N threads"); false with a message on stderr when it cannot be used. */
bool cblas_reference_open(const char *path, char *describe, size_t size);
/* The reference's cblas_?gemm on the host copies of A and B, its C into host_c. */
measurement run_cblas(const bench_ctx *bc, const problem *p, const buffers *b, int runs,
                      void *host_c);
/* Floating-point operations of one call (a complex multiply-add counts 8). */
double problem_flops(const problem *p);
/* max |x - ref| / max |ref| over all of C (every component); INFINITY if either holds a NaN or Inf.
 */
double max_rel_diff(const problem *p, const void *x, const void *ref, size_t count);
/* The same measure over a sample of elements of C recomputed on the host in high precision. */
double host_sample_diff(const problem *p, const buffers *bufs, const void *host_c);
/* The tolerance for the relative difference: 2 * K * machine epsilon (4 * K for complex). */
double tolerance(const problem *p);

/* ---- report.c: table, CSV and JSON ------------------------------------------------------------
 */

typedef struct result {
    problem p;
    measurement clgemm, clblast, tuned;
    char config[160];
    const char *config_source;
    double diff; /* clgemm vs CLBlast (or host sample if CLBlast did not run); NAN: none */
    bool diff_is_host;
    double host_diff_clgemm, host_diff_clblast; /* NAN if not computed */
    bool mismatch;
} result;

typedef struct run_info {
    char device[256], platform[256], driver[128], device_version[128], date[64];
    const char *reference; /* "CLBlast" or "OpenBLAS" (any CBLAS library) */
    char reference_detail[512];
    bool tuned_any;
} run_info;

void report_header(FILE *f, const run_info *info, const options *opt);
void report_row(FILE *f, const result *r, bool tuned_column);
void csv_header(FILE *f, const run_info *info);
void csv_row(FILE *f, const result *r, const run_info *info);
void json_begin(FILE *f, const run_info *info, const options *opt);
void json_row(FILE *f, const result *r, const run_info *info, bool first);
void json_end(FILE *f);

#endif /* CLGEMM_BENCH_H */
