/* test_common.h: helpers shared by clgemm's device test suites: OpenCL setup, the random
 * values and the matrix geometry. Elements of every type, problems, the long-double reference
 * with its tolerance scaled by k, the checks and the calls are typed.h's.
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

/* In a Criterion test body: declares `env` and `h`, opens env (or skips the test) and a handle
 * h on its queue. tc_close_handle undoes both. */
#define TC_OPEN_HANDLE_OR_SKIP(env, h)                                                             \
    tc_env env;                                                                                    \
    clgemm_handle h;                                                                               \
    TC_OPEN_OR_SKIP(&env);                                                                         \
    cr_assert_eq(clgemm_create(&h, env.queue), CLGEMM_SUCCESS)
/* Destroys h, then closes env. */
void tc_close_handle(tc_env *env, clgemm_handle h);

/* In a Criterion test body: declares `queue`, an out-of-order queue on env's device, or skips
 * the test when the device has none. */
#define TC_OUT_OF_ORDER_QUEUE_OR_SKIP(env, queue)                                                  \
    cl_int queue##_err;                                                                            \
    cl_command_queue queue = clCreateCommandQueue(                                                 \
        (env)->context, (env)->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &queue##_err);      \
    if (queue##_err != CL_SUCCESS) cr_skip_test("no out-of-order queues on %s", (env)->device_name)

/* A read-write buffer of `bytes`, initialised from host (NULL: uninitialised); NULL on error. */
cl_mem tc_buffer(cl_context ctx, size_t bytes, const void *host);
/* Blocking read / write of a whole buffer prefix on queue. CL_SUCCESS or the OpenCL error. */
cl_int tc_read(cl_command_queue queue, cl_mem mem, size_t bytes, void *host);
cl_int tc_write(cl_command_queue queue, cl_mem mem, size_t bytes, const void *host);

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

#endif /* CLGEMM_TEST_COMMON_H */
