/* typed.h: the tests' host side for every element type: FP16 and BF16 encoding (round to nearest
 * even, written here independently of the kernels), complex elements, one GEMM problem of any type
 * pair with its buffers, the long-double reference with its error bound, the checks, the call
 * through clgemm (typed wrappers, clgemm_gemm_ex or the host-array variants) and CLBlast's GEMM for
 * a second opinion.
 *
 * Geometry is test_common.h's (tc_index etc.); CLGEMM_CONJ_TRANS is stored like CLGEMM_TRANS. */
#ifndef CLGEMM_TEST_TYPED_H
#define CLGEMM_TEST_TYPED_H

#include "test_common.h"

#include <stdint.h>

/* ---- Elements ------------------------------------------------------------------------------- */

uint16_t tt_half_from_double(double v); /* IEEE binary16, round to nearest even */
double tt_half_to_double(uint16_t h);
uint16_t tt_bf16_from_float(float v); /* upper half of an FP32, round to nearest even */
double tt_bf16_to_double(uint16_t b);
/* OCP FP8 (t CLGEMM_E4M3 or CLGEMM_E5M2): round to nearest even, saturating to the largest
 * finite value (infinities too); NaN to 0x7f / 0x7e with its sign. And back, exactly. */
uint8_t tt_fp8_from_double(clgemm_precision t, double v);
double tt_fp8_to_double(clgemm_precision t, uint8_t x);

int tt_ncomp(clgemm_precision t); /* 2 for complex, else 1 */
bool tt_is_complex(clgemm_precision t);
bool tt_is_fp8(clgemm_precision t);
/* Component comp (0 real, 1 imaginary) of element i, decoded. */
double tt_get(clgemm_precision t, const void *p, size_t i, int comp);
/* Sets component comp of element i, rounded to nearest even to the storage type. */
void tt_set(clgemm_precision t, void *p, size_t i, int comp, double v);
/* A quiet NaN in every component. */
void tt_set_nan(clgemm_precision t, void *p, size_t i);
/* Signalling NaN bit patterns in every component (what no arithmetic hands back bit for bit). */
void tt_set_sentinel(clgemm_precision t, void *p, size_t i);

/* ---- One problem ---------------------------------------------------------------------------- */

typedef struct tt_gemm {
    clgemm_precision type_ab, type_c;
    clgemm_layout layout;
    clgemm_transpose ta, tb;
    size_t m, n, k;
    double alpha[2], beta[2]; /* real, imaginary (the imaginary parts only for complex) */
    size_t lda, ldb, ldc;     /* 0: the smallest legal one */
    size_t off_a, off_b, off_c;
    size_t tail;            /* extra elements after each matrix */
    clgemm_compute compute; /* CLGEMM_COMPUTE_DEFAULT (0) unless a test asks for TF32 */
} tt_gemm;

/* The types, layout, transposes and sizes of a problem, first in a tt_gemm initialiser:
 * tt_gemm g = {TT_PROBLEM(CLGEMM_HALF, CLGEMM_SINGLE, CLGEMM_ROW_MAJOR, CLGEMM_TRANS,
 *                         CLGEMM_NO_TRANS, 33, 17, 9), .alpha = {1, 0}, .beta = {2, 0}}; */
#define TT_PROBLEM(type_ab_, type_c_, layout_, ta_, tb_, m_, n_, k_)                               \
    .type_ab = (type_ab_), .type_c = (type_c_), .layout = (layout_), .ta = (ta_), .tb = (tb_),     \
    .m = (m_), .n = (n_), .k = (k_)

void tt_describe(const tt_gemm *g, char *buf, size_t size);

typedef struct tt_data {
    tt_gemm g;         /* leading dimensions filled in */
    size_t na, nb, nc; /* buffer lengths in elements */
    void *a, *b, *c0;  /* contents before the call */
    void *c;           /* room for a result */
} tt_data;

enum {
    TC_AB_NAN = 1 << 0, /* A's and B's matrix elements are NaN too (k == 0 or alpha == 0) */
};

/* Matrix elements random (rounded to the storage type), everything else of A and B NaN, C's
 * matrix NaN when beta == 0, the rest of C the sentinel. false on allocation failure. */
bool tt_data_make(tt_data *d, const tt_gemm *g, uint64_t seed, unsigned flags);
void tt_data_free(tt_data *d);

/* The exact result from d's (rounded) inputs in long double: ref holds 2 * m * n values (real,
 * imaginary of element i + j * m); bound the allowed error of each element: the k-scaled bound
 * of the arithmetic's precision plus, for FP16/BF16 C, the final rounding to C's type. */
void tt_reference(const tt_data *d, double *ref, double *bound);
/* Every component of C within bound * scale of ref and not NaN, every other element of the
 * buffer bit for bit as in d->c0. Returns the number of bad elements; msg gets the first few. */
size_t tt_check(const tt_data *d, const void *c, const double *ref, const double *bound,
                double scale, char *msg, size_t size);

/* ---- Calls ---------------------------------------------------------------------------------- */

enum {
    TT_RUN_EX = 1 << 0,      /* call clgemm_gemm_ex even where a typed wrapper exists */
    TT_RUN_HOST = 1 << 1,    /* the host-array variant (arrays from the offsets) */
    TT_RUN_CLBLAST = 1 << 2, /* also compare with CLBlast where it has the GEMM (s, d, c, z with
                              * C of the same type), except for m, n or k == 0 */
    TT_RUN_EVENT = 1 << 3,   /* ask for the output event and wait on it instead of clFinish,
                              * then read C on a queue of its own (buffers only) */
};

/* Leading dimensions pad_a, pad_b and pad_c elements past the smallest legal ones for g's
 * shape, layout and transposes (as given: CLGEMM_TRANS or CLGEMM_NO_TRANS). */
void tt_pad_ld(tt_gemm *g, size_t pad_a, size_t pad_b, size_t pad_c);

/* alpha or beta ({real, imaginary}) in the scalar type clgemm_gemm_ex and
 * clgemm_gemm_ex_host read for type_ab. */
typedef union tt_scalar {
    float f;
    double d;
    cl_float2 c;
    cl_double2 z;
    cl_int i;
} tt_scalar;
tt_scalar tt_make_scalar(clgemm_precision type_ab, const double v[2]);

/* clgemm on g's buffers through the typed wrapper of g's types, or clgemm_gemm_ex when there is
 * none (or flags has TT_RUN_EX), on `queue` (NULL: the handle's) after the wait list, with the
 * output event in *event (NULL: none); not waited for. */
clgemm_status tt_clgemm_enqueue(clgemm_handle h, const tt_gemm *g, cl_mem a, cl_mem b, cl_mem c,
                                unsigned flags, cl_command_queue queue, cl_uint num_wait,
                                const cl_event *wait, cl_event *event);
/* The same on the handle's queue, blocking. */
clgemm_status tt_clgemm(clgemm_handle h, const tt_gemm *g, cl_mem a, cl_mem b, cl_mem c,
                        unsigned flags);
/* Whether the tests were built with CLBlast, and whether it has g's GEMM (s, d, c, z). */
bool tc_have_clblast(void);
bool tt_clblast_computes(const tt_gemm *g);
/* CLBlast's GEMM on g, waited for: CLBlast's status; -1 without CLBlast or for types it has no
 * GEMM of. */
int tt_clblast(cl_command_queue queue, const tt_gemm *g, cl_mem a, cl_mem b, cl_mem c);

/* One problem end to end: data, the call, the reference check, A and B unchanged, CLBlast.
 * 0 on success, else non-zero with the problem and what failed in msg. */
int tt_run(tc_env *env, clgemm_handle h, const tt_gemm *g, uint64_t seed, unsigned data_flags,
           unsigned run_flags, char *msg, size_t size);

/* `batch` problems like g (each its own random data from seed + i, packed back to back: matrix i
 * of A at i times one matrix's buffer plus g's offset) through clgemm_gemm_strided_batched, or
 * clgemm_gemm_batched with a table of those offsets and of the scalars (INT8 into INT32: the
 * clgemm_i8gemm_ forms unless run_flags has TT_RUN_EX); every matrix checked as tt_run checks
 * one, A and B unchanged. 0 on success, else non-zero with what failed in msg. */
int tt_run_batch(tc_env *env, clgemm_handle h, const tt_gemm *g, size_t batch, bool table,
                 uint64_t seed, unsigned run_flags, char *msg, size_t size);

#endif /* CLGEMM_TEST_TYPED_H */
