/* common.cl: what every clgemm kernel shares. The host prepends it to each family's source.
 *
 * The problem is always column-major here (the host turns a row-major call into the
 * column-major transpose of it): C is M x N with C(i, j) at C[i + j * ldc], op(A) is M x K and
 * op(B) is K x N. TRANSA / TRANSB (0 or 1) pick how A and B are read; they are build options,
 * so each transpose pair is its own program and the kernels carry no run-time branch on it. */
#ifdef USE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define REAL  double
#define REAL2 double2
#define REAL4 double4
#define REAL8 double8
#else
#define REAL  float
#define REAL2 float2
#define REAL4 float4
#define REAL8 float8
#endif

#ifndef TRANSA
#define TRANSA 0
#endif
#ifndef TRANSB
#define TRANSB 0
#endif

/* Element (i, p) of op(A) and (p, j) of op(B), after the offsets were added to A and B. */
#if TRANSA == 0
#define A_AT(i, p) A[(i) + (p)*lda]
#else
#define A_AT(i, p) A[(p) + (i)*lda]
#endif
#if TRANSB == 0
#define B_AT(p, j) B[(p) + (j)*ldb]
#else
#define B_AT(p, j) B[(j) + (p)*ldb]
#endif
#define C_AT(i, j) C[(i) + (j)*ldc]

/* The argument list every GEMM kernel takes (the host sets them in this order). Offsets are
 * in elements; the host has checked that every index below fits in an int. */
#define GEMM_ARGS                                                                                  \
    const int M, const int N, const int K, const REAL alpha, const REAL beta,                      \
        const __global REAL *restrict A, const ulong offA, const int lda,                          \
        const __global REAL *restrict B, const ulong offB, const int ldb,                          \
        __global REAL *restrict C, const ulong offC, const int ldc

/* C(i, j) = alpha * acc + beta * C(i, j); when beta is 0, C is not read (BLAS: NaN in C must
 * not reach the result). */
#define STORE_C(i, j, acc)                                                                         \
    C_AT(i, j) = (beta == (REAL)0) ? alpha * (acc) : alpha * (acc) + beta * C_AT(i, j)
