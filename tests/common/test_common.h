/* test_common.h: helpers shared by clgemm's device test suites: OpenCL setup, host arrays of
 * either precision, NaN poison and bit-exact sentinels, a long-double host reference, comparison
 * with a tolerance scaled by k, and the same GEMM through CLBlast for a second opinion.
 *
 * Matrices are described as BLAS does: op(X) is rows x cols, stored in `layout` with leading
 * dimension ld from an offset (in elements) into a buffer that may hold more than the matrix.
 * Every element of a buffer outside its matrix is filled with a known bit pattern, so a test can
 * check that a call never writes there (C) and never lets it into a result (A and B: NaN). */
#ifndef CLGEMM_TEST_COMMON_H
#define CLGEMM_TEST_COMMON_H

#include "clgemm.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- OpenCL setup --------------------------------------------------------------------------- */

typedef struct tc_env {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    bool has_fp64;
    char device_name[128];
    char why[256]; /* why tc_open failed */
} tc_env;

/* Opens the first GPU, else the first device of any platform: a context and an in-order queue.
 * false (and env->why) when there is none. Call inside a test, never at file scope: Criterion
 * forks each test. */
bool tc_open(tc_env *env);
void tc_close(tc_env *env);

/* In a Criterion test body: open env or skip the test with the reason. */
#define TC_OPEN_OR_SKIP(env)                                                                       \
    do {                                                                                           \
        if (!tc_open(env)) cr_skip_test("no usable OpenCL device: %s", (env)->why);                \
    } while (0)

/* A read-write buffer of `bytes`, initialised from host (NULL: uninitialised); NULL on error. */
cl_mem tc_buffer(cl_context ctx, size_t bytes, const void *host);
/* Blocking read / write of a whole buffer prefix on queue. CL_SUCCESS or the OpenCL error. */
cl_int tc_read(cl_command_queue queue, cl_mem mem, size_t bytes, void *host);
cl_int tc_write(cl_command_queue queue, cl_mem mem, size_t bytes, const void *host);

/* ---- Host arrays of either precision -------------------------------------------------------- */

size_t tc_real_size(clgemm_precision prec);
double tc_get(clgemm_precision prec, const void *p, size_t i);
void tc_set(clgemm_precision prec, void *p, size_t i, double v);
/* Quiet NaN: any use of it in arithmetic shows in the result. */
void tc_set_nan(clgemm_precision prec, void *p, size_t i);
/* The sentinel outside C's matrix: a signalling NaN, which no arithmetic hands back bit for
 * bit (it comes out quiet), so a write of any computed value there is seen. */
void tc_set_sentinel(clgemm_precision prec, void *p, size_t i);
/* Deterministic pseudo-random value in [-1, 1), exactly representable in float. */
double tc_random(uint64_t *state);

/* ---- Matrix geometry ------------------------------------------------------------------------ */

/* The smallest legal leading dimension of op(X) (rows x cols) stored with `trans` in `layout`:
 * max(1, stored rows) in column-major, max(1, stored columns) in row-major. */
size_t tc_min_ld(clgemm_layout layout, clgemm_transpose trans, size_t rows, size_t cols);
/* Index (from the offset) of op(X)(i, j). */
size_t tc_index(clgemm_layout layout, clgemm_transpose trans, size_t i, size_t j, size_t ld);
/* Elements from the first to one past the last element of op(X); 0 if it is empty. */
size_t tc_extent(clgemm_layout layout, clgemm_transpose trans, size_t rows, size_t cols, size_t ld);

/* ---- One GEMM problem ----------------------------------------------------------------------- */

typedef struct tc_gemm {
    clgemm_precision prec;
    clgemm_layout layout;
    clgemm_transpose ta, tb;
    size_t m, n, k;
    double alpha, beta;   /* used as given: pick values exact in float for sgemm */
    size_t lda, ldb, ldc; /* 0: the smallest legal one */
    size_t off_a, off_b, off_c;
    size_t tail; /* extra elements after each matrix in its buffer */
} tc_gemm;

/* A one-line description of the problem, for failure messages. */
void tc_describe(const tc_gemm *g, char *buf, size_t size);

/* Host copies of one problem's buffers. */
typedef struct tc_data {
    tc_gemm g;         /* with the leading dimensions filled in */
    size_t na, nb, nc; /* buffer lengths in elements */
    void *a, *b, *c0;  /* buffer contents before the call */
    void *c;           /* room for a result */
} tc_data;

enum {
    TC_AB_NAN = 1 << 0, /* A's and B's matrix elements are NaN too (k == 0 or alpha == 0) */
};

/* Fills A and B (matrix elements random, the rest NaN) and C (matrix elements random, or NaN
 * when beta == 0; the rest the sentinel). false on allocation failure. */
bool tc_data_make(tc_data *d, const tc_gemm *g, uint64_t seed, unsigned flags);
void tc_data_free(tc_data *d);

/* The exact result, and the error bound (k + 2) eps (|alpha| sum |a||b| + |beta||c|), per element
 * (i + j * m), from d's inputs in long double. ref and bound hold m * n each. */
void tc_reference(const tc_data *d, double *ref, double *bound);

/* Checks result c (a whole buffer, nc elements): every element of C within bound * scale of ref
 * and not NaN, every other element bit for bit as in d->c0. Returns the number of bad elements;
 * msg gets the first few. */
size_t tc_check(const tc_data *d, const void *c, const double *ref, const double *bound,
                double scale, char *msg, size_t size);
/* Compares C's elements of two results within bound * scale; returns the number that differ. */
size_t tc_compare(const tc_data *d, const void *c1, const void *c2, const double *bound,
                  double scale, char *msg, size_t size);

/* ---- Calls ---------------------------------------------------------------------------------- */

/* clgemm_sgemm or clgemm_dgemm on g. */
clgemm_status tc_clgemm(clgemm_handle h, const tc_gemm *g, cl_mem a, cl_mem b, cl_mem c,
                        cl_command_queue queue, cl_uint num_wait, const cl_event *wait,
                        cl_event *event);

/* Whether the tests were built with CLBlast. */
bool tc_have_clblast(void);
/* CLBlastSgemm or CLBlastDgemm on g, waited for. Returns CLBlast's status (0: success). */
int tc_clblast(cl_command_queue queue, const tc_gemm *g, cl_mem a, cl_mem b, cl_mem c);

enum {
    TC_RUN_CLBLAST = 1 << 0, /* also compare with CLBlast (skipped if m, n or k is 0) */
    TC_RUN_EVENT = 1 << 1,   /* ask for the output event and wait on it instead of clFinish */
};

/* Makes the problem's buffers, runs clgemm on h's queue, checks the result against the host
 * reference (and CLBlast), and checks that nothing outside C changed. Returns 0 on success,
 * else non-zero with the problem and the failure in msg. data_flags go to tc_data_make. */
int tc_run(tc_env *env, clgemm_handle h, const tc_gemm *g, uint64_t seed, unsigned data_flags,
           unsigned run_flags, char *msg, size_t size);

#endif /* CLGEMM_TEST_COMMON_H */
