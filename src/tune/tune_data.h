/* tune_data.h: the tuner's test problem for one shape, type pair and transposes (tune_data.c):
 * random inputs stored in the element type, a double-precision reference for sampled elements
 * of C computed from the stored (already rounded) inputs, and the check of a result against it
 * within the error bound clgemm.h documents for the type. */
#ifndef CLGEMM_TUNE_DATA_H
#define CLGEMM_TUNE_DATA_H

#include "plan/plan.h"
#include "types/element.h"

#include <stdint.h>

/* One column-major problem C = op(A) op(B), alpha 1, beta 0. Set key, m, n, k; init does the
 * rest. */
typedef struct tune_problem {
    tuning_key key; /* normalised (clgemm__tuning_key) */
    size_t m, n, k;
    size_t lda, ldb; /* of the stored A and B (k or m, n or k with the transposes) */
    size_t bytes_a, bytes_b, bytes_c;
    void *host[3];   /* A, B and C in their element types; C receives results */
    size_t *samples; /* indices into C that are checked */
    double *ref;     /* their reference values: real, imaginary (one block with tol) */
    double *tol;     /* and the bound each component must meet */
    size_t sample_count;
} tune_problem;

/* Allocates, fills A and B with values in [-1, 1] rounded to their type, and computes the
 * reference. CLGEMM_ERR_OVERFLOW for sizes that do not fit in memory arithmetic. */
clgemm_status clgemm__tune_problem_init(tune_problem *p, uint64_t *rng);
void clgemm__tune_problem_free(tune_problem *p);
/* Whether host[2] (C) holds a correct result at every sample (NaN never is). */
bool clgemm__tune_problem_check(const tune_problem *p);
/* A NaN of C's type as a fill pattern: its bytes and their count. */
void clgemm__tune_nan(clgemm_precision type, unsigned char pattern[8], size_t *size);
/* 1 and 0 in the scalar type of the arithmetic of `type` (alpha and beta of clgemm_gemm_ex). */
void clgemm__tune_scalars(clgemm_precision type, unsigned char one[16], unsigned char zero[16]);

/* xorshift64*: reproducible across platforms, unlike rand(). */
uint64_t clgemm__random(uint64_t *state);

#endif /* CLGEMM_TUNE_DATA_H */
