/* gemm_args.h: the argument list every GEMM kernel takes, written once for both sides. The host
 * places this file before common.cl in every kernel source (src/build/program.c), where
 * common.cl's GEMM_ARGS turns it into the kernels' parameters; src/exec/gemm.c includes it as C
 * and turns it into the argument numbers and the calls that set them. So a kernel's signature
 * and the host's clSetKernelArg calls cannot drift apart. Plain preprocessor text only: it must
 * mean the same in C and in OpenCL C.
 *
 * GEMM_ARG_LIST(X) calls X(name, kind) for each argument, in order (argument i is the i-th).
 * Kinds: INT (int), ULONG (ulong), SCALAR (alpha, beta: the kernel's arithmetic type), AB (A or
 * B: a buffer of the kernel's A/B storage), C (C's buffer), TABLE (the batch table, ulongs).
 * What they mean (offsets in elements, strides, layers, the table's records): common.cl, above
 * GEMM_ARGS. A kernel's own trailing arguments (regblock's stream-K workspace, tma's tensor
 * maps) follow these, from number GEMM_ARG_COUNT on. */
#define GEMM_ARG_LIST(X)                                                                           \
    X(M, INT)                                                                                      \
    X(N, INT)                                                                                      \
    X(K, INT)                                                                                      \
    X(alpha_arg, SCALAR)                                                                           \
    X(beta_arg, SCALAR)                                                                            \
    X(A, AB)                                                                                       \
    X(offA, ULONG)                                                                                 \
    X(lda, INT)                                                                                    \
    X(B, AB)                                                                                       \
    X(offB, ULONG)                                                                                 \
    X(ldb, INT)                                                                                    \
    X(C, C)                                                                                        \
    X(offC, ULONG)                                                                                 \
    X(ldc, INT)                                                                                    \
    X(strideA, ULONG)                                                                              \
    X(strideB, ULONG)                                                                              \
    X(strideC, ULONG)                                                                              \
    X(layers, INT)                                                                                 \
    X(table, TABLE)
