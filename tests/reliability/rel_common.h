/* rel_common.h: helpers shared by the reliability tests (tests/reliability/): one GEMM problem
 * with offsets and padded leading dimensions, host buffers filled so that every result is exact,
 * a host reference, and a check of the whole C buffer (the matrix against the reference, every
 * other element bit for bit unchanged). Self-contained: it uses only the public API. */
#ifndef CLGEMM_REL_COMMON_H
#define CLGEMM_REL_COMMON_H

#include "clgemm.h"
#include "typed.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One call: op(A) m x k, op(B) k x n, C m x n in `layout`, each at an offset (in elements) of
 * its buffer with leading dimension ld (0: the smallest legal one, filled in by rel_make). */
typedef struct rel_problem {
    clgemm_precision prec;
    clgemm_layout layout;
    clgemm_transpose ta, tb;
    size_t m, n, k;
    double alpha, beta; /* exact in float: multiples of 1/4 */
    size_t off_a, off_b, off_c;
    size_t lda, ldb, ldc;
} rel_problem;

/* Host copies of a problem's three buffers (each offset + extent + a few elements of tail). */
typedef struct rel_data {
    rel_problem p;
    size_t na, nb, nc; /* buffer lengths in elements */
    void *a, *b, *c0;  /* contents before the call */
    void *c;           /* room for the result read back */
} rel_data;

/* Sizes and geometry: clgemm_type_size (clgemm.h), tc_min_ld, tc_extent (test_common.h). */
/* Allocates and fills the buffers: every element is a multiple of 1/4 in [-2, 2], so with
 * alpha and beta multiples of 1/4 and k below 2^12 every result is exact in float. false on
 * allocation failure. */
bool rel_make(rel_data *d, const rel_problem *p, uint64_t seed);
void rel_free(rel_data *d);

/* Checks d->c (whole buffer): C's elements equal the host reference computed from d->a, d->b,
 * d->c0 (C not read when beta == 0), every other element is bit for bit d->c0. Returns the
 * number of wrong elements; msg gets the first one. */
size_t rel_check(const rel_data *d, char *msg, size_t size);

/* A one-line description of the problem (static buffer per thread). */
const char *rel_describe(const rel_problem *p);

/* clgemm_sgemm / clgemm_dgemm on the problem and the given buffers. */
clgemm_status rel_gemm(clgemm_handle h, const rel_problem *p, cl_mem a, cl_mem b, cl_mem c,
                       cl_command_queue queue, cl_event *event);

/* Uploads d's buffers into new cl_mem objects of ctx. CL_SUCCESS or the OpenCL error. */
cl_int rel_upload(cl_context ctx, const rel_data *d, cl_mem mem[3]);
void rel_release(cl_mem mem[3]);

/* Runs the problem on h's queue (upload, call, read C back, check). 0 on success, else 1 with
 * the reason in msg. */
int rel_run(clgemm_handle h, const rel_problem *p, uint64_t seed, char *msg, size_t size);
/* Whether a file of the kernel sources' folder is one the library reads (*.cl, and the *.h
 * parts such as gemm_args.h): what a copy of that folder must hold. */
bool rel_is_kernel_file(const char *name);

/* Checks that a two-step schedule is really taken while CLGEMM_KSPLIT, CLGEMM_STREAMK or
 * CLGEMM_PACK_KC is set: on a new handle on h's queue, with `probe` forced (NULL: a
 * register-blocked configuration) and CLGEMM_KERNEL_DIR naming a copy of $REL_KERNEL_SRC without
 * `second` (reduce.cl, streamk.cl, pack.cl), a call must fail with CLGEMM_ERR_KERNEL_SOURCE (it
 * would succeed without the second step). Call with no other thread using the library's
 * environment. true if so; else false and the reason in msg. */
bool rel_split_taken(clgemm_handle h, const char *second, const clgemm_config *probe, char *msg,
                     size_t size);

/* xorshift64*: deterministic pseudo-random numbers. */
uint64_t rel_rand(uint64_t *state);

#endif /* CLGEMM_REL_COMMON_H */
