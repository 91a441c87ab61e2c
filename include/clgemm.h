/* clgemm.h: the whole public API of clgemm, a portable OpenCL GEMM library.
 *
 * clgemm computes C = alpha * op(A) * op(B) + beta * C on any OpenCL device, in single (sgemm)
 * and double (dgemm) precision, with the semantics of reference BLAS. Kernels are compiled at run
 * time with parameters found by `clgemm-tune` and kept in a JSON tuning database.
 *
 * Thread-safety: every function may be called from several threads at once, on one handle or
 * on several. A handle must not be destroyed while another thread still uses it.
 *
 * fork(): a handle does not survive it, and neither does OpenCL (the child has none of the
 * driver's threads: a wait on the parent's queue would never return). In a process forked after
 * the library first used OpenCL, every call on a handle, and clgemm_create / _default, returns
 * CLGEMM_ERR_FORKED at once; clgemm_destroy there frees the handle's own memory and leaves the
 * parent's OpenCL objects alone. Fork before the first handle, or exec in the child.
 *
 * Errors: every function that can fail returns a clgemm_status. CLGEMM_SUCCESS is 0, OpenCL's own
 * error codes (negative, -1 .. -72) pass through unchanged, and the library's own codes live in
 * a block of their own (-2000 and below). On any error before enqueueing, nothing is enqueued and
 * the user's buffers are untouched. The library never prints; set CLGEMM_LOG=1 to get its log on
 * stderr.
 *
 * Only GEMM: no trsm, trmm, symm/hemm, syr2k/her2k here (decided with issue 35, for now). The BLAS
 * drop-in (libclgemm_blas) has them under their BLAS and CBLAS names, as blocked algorithms whose
 * updates are this library's GEMM and whose diagonal blocks run on the system BLAS on the host.
 * That split does not fit this API: every call here computes on the device (host arrays are
 * copied there) and the library links no host BLAS, while a device-resident trsm needs small
 * diagonal-block kernels (a triangular solve or inverse per block) that it does not have yet.
 * Entry points added before them would either move a cl_mem call's diagonal blocks to the host
 * and back or fix a signature around an implementation that must change; users of these routines
 * call them through BLAS names (LAPACK, NumPy, SciPy), which the drop-in serves. Add them here with
 * the block kernels.
 */
#ifndef CLGEMM_H
#define CLGEMM_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CLGEMM_BUILDING) && defined(__GNUC__)
#define CLGEMM_API __attribute__((visibility("default")))
#else
#define CLGEMM_API
#endif

#define CLGEMM_VERSION "0.1.0"

/* ---- Status codes -------------------------------------------------------------------------- */

/* The library's own codes: X(name, value, message). The only list of them. */
#define CLGEMM_STATUS_LIST(X)                                                                      \
    X(CLGEMM_SUCCESS, 0, "success")                                                                \
    X(CLGEMM_ERR_NULL_ARGUMENT, -2001, "a required pointer, handle or buffer is NULL")             \
    X(CLGEMM_ERR_INVALID_LAYOUT, -2002, "layout is neither CLGEMM_ROW_MAJOR nor CLGEMM_COL_MAJOR") \
    X(CLGEMM_ERR_INVALID_TRANSPOSE, -2003,                                                         \
      "transpose is not CLGEMM_NO_TRANS, CLGEMM_TRANS or CLGEMM_CONJ_TRANS")                       \
    X(CLGEMM_ERR_INVALID_LD_A, -2004, "lda is smaller than a stored row/column of A")              \
    X(CLGEMM_ERR_INVALID_LD_B, -2005, "ldb is smaller than a stored row/column of B")              \
    X(CLGEMM_ERR_INVALID_LD_C, -2006, "ldc is smaller than a stored row/column of C")              \
    X(CLGEMM_ERR_BUFFER_A_TOO_SMALL, -2007, "offset and extent of A lie outside buffer A")         \
    X(CLGEMM_ERR_BUFFER_B_TOO_SMALL, -2008, "offset and extent of B lie outside buffer B")         \
    X(CLGEMM_ERR_BUFFER_C_TOO_SMALL, -2009, "offset and extent of C lie outside buffer C")         \
    X(CLGEMM_ERR_OVERFLOW, -2010, "a size computation overflows size_t")                           \
    X(CLGEMM_ERR_TOO_LARGE, -2011,                                                                 \
      "m, n or k above 2^31 - 1025, or an ld or matrix span above 2^31 - 1")                       \
    X(CLGEMM_ERR_NO_FP64, -2012, "the device has no double precision (cl_khr_fp64) for this type") \
    X(CLGEMM_ERR_INVALID_PARAMS, -2013, "kernel parameters break a rule or a device limit")        \
    X(CLGEMM_ERR_INVALID_FAMILY, -2014, "unknown kernel family")                                   \
    X(CLGEMM_ERR_BUILD_FAILED, -2015, "the kernel failed to build; see clgemm_build_log()")        \
    X(CLGEMM_ERR_NO_DEVICE, -2016, "no OpenCL device found (or CLGEMM_DEVICE matched none)")       \
    X(CLGEMM_ERR_WRONG_CONTEXT, -2017, "the queue or a buffer belongs to another context")         \
    X(CLGEMM_ERR_OUT_OF_HOST_MEMORY, -2018, "host memory allocation failed")                       \
    X(CLGEMM_ERR_KERNEL_SOURCE, -2019, "a kernel source file could not be read")                   \
    X(CLGEMM_ERR_INVALID_EVENTS, -2020,                                                            \
      "the event wait list and its length disagree, or it holds NULL")                             \
    X(CLGEMM_ERR_INVALID_BUFFER, -2021,                                                            \
      "a matrix is not an OpenCL buffer object, or C is read-only")                                \
    X(CLGEMM_ERR_BATCH_OVERLAP, -2022, "two matrices of C in a batch share an element")            \
    X(CLGEMM_ERR_FORKED, -2023,                                                                    \
      "this process was forked after OpenCL was in use: handles do not survive fork()")            \
    X(CLGEMM_ERR_DB_IO, -2030, "the tuning database could not be read or written")                 \
    X(CLGEMM_ERR_DB_MALFORMED, -2031, "the tuning database is not valid JSON of the schema")       \
    X(CLGEMM_ERR_DB_SCHEMA, -2032, "the tuning database has another schema version")               \
    X(CLGEMM_ERR_DB_NO_ENTRY, -2033, "the tuning database has no usable entry for this device")    \
    X(CLGEMM_ERR_TUNE_NONE_VALID, -2040, "no tuning candidate ran correctly")                      \
    X(CLGEMM_ERR_INVALID_ARGUMENT, -2041, "an argument is out of its documented range")            \
    X(CLGEMM_ERR_INVALID_TYPE, -2042, "unknown element type, or a mix of types without a kernel")

#define CLGEMM_STATUS_ENUM_ENTRY(name, value, message) name = value,
typedef enum clgemm_status {
    CLGEMM_STATUS_LIST(CLGEMM_STATUS_ENUM_ENTRY)
    /* Any other negative value is an OpenCL error code (CL_OUT_OF_RESOURCES, ...). */
} clgemm_status;
#undef CLGEMM_STATUS_ENUM_ENTRY

/* A message for any status, the library's own or OpenCL's. Never NULL; static storage. */
CLGEMM_API const char *clgemm_status_string(int status);

/* ---- Problem description (CBLAS values) ----------------------------------------------------- */

typedef enum clgemm_layout { CLGEMM_ROW_MAJOR = 101, CLGEMM_COL_MAJOR = 102 } clgemm_layout;
/* CLGEMM_CONJ_TRANS conjugates and transposes a complex matrix; on real types it is
 * CLGEMM_TRANS (as in BLAS). */
typedef enum clgemm_transpose {
    CLGEMM_NO_TRANS = 111,
    CLGEMM_TRANS = 112,
    CLGEMM_CONJ_TRANS = 113
} clgemm_transpose;

/* Element types ("precision" for the BLAS names). Complex values are stored interleaved (real,
 * imaginary: cl_float2 / cl_double2). CLGEMM_HALF (IEEE binary16, cl_half) and CLGEMM_BFLOAT16
 * (the upper 16 bits of a float, stored as cl_ushort) are storage formats: arithmetic runs in
 * FP32 and C is rounded to nearest even when it is stored in them. They need no cl_khr_fp16. */
typedef enum clgemm_precision {
    CLGEMM_SINGLE = 0,
    CLGEMM_DOUBLE = 1,
    CLGEMM_COMPLEX_SINGLE = 2,
    CLGEMM_COMPLEX_DOUBLE = 3,
    CLGEMM_HALF = 4,
    CLGEMM_BFLOAT16 = 5,
    CLGEMM_INT8 = 6,  /* signed 8-bit A and B (cl_char); C is CLGEMM_INT32 */
    CLGEMM_INT32 = 7, /* C of an INT8 product (cl_int); not a type of A and B */
    CLGEMM_E4M3 = 8,  /* OCP FP8 E4M3 ("fn": no infinities), stored as cl_uchar bit patterns */
    CLGEMM_E5M2 = 9   /* OCP FP8 E5M2 (IEEE-like, with infinities), as cl_uchar bit patterns */
} clgemm_precision;
#define CLGEMM_PRECISION_COUNT 10

/* Bytes of one stored element of a type, as the buffers and host arrays of a call hold it
 * (cl_float 4, cl_double 8, cl_float2 8, cl_double2 16, cl_half and BF16 2, INT8 and FP8 1,
 * INT32 4); 0 for a value that is no type. */
CLGEMM_API size_t clgemm_type_size(clgemm_precision type);

/* 8-bit types.
 * INT8: C = alpha * op(A) op(B) + beta * C in exact integer arithmetic modulo 2^32: alpha and
 * beta are cl_int, and C keeps the low 32 bits of the exact result as a two's complement int32
 * (cuBLAS's CUDA_R_8I / CUDA_R_32I wraps the same way). The sum of
 * products alone fits an int32 without wrapping as long as k <= 131071 (2^31 - 1 over the worst
 * product, (-128) * (-128) = 2^14); beyond that, or with large alpha, beta or C, the result
 * wraps, exactly and reproducibly.
 * E4M3 / E5M2 (OCP 8-bit floating point specification 1.0): A and B hold the 8-bit codes, C is
 * CLGEMM_SINGLE, CLGEMM_HALF or CLGEMM_BFLOAT16, and the products and sums run in FP32 (alpha
 * and beta are float). E4M3 has the bias 7, no infinities and NaN at S.1111.111 (largest finite
 * 448); E5M2 the bias 15, infinities at S.11111.00 and NaN at S.11111.{01,10,11} (largest finite
 * 57344). Per-tensor scales (cuBLASLt's A_SCALE / B_SCALE, the factors that turn the codes into
 * the real values) fold into alpha: the product of the decoded codes times alpha * scale_a *
 * scale_b is what cuBLASLt computes, since the accumulation is linear; clgemm_fp8gemm does the
 * folding (in double, rounded once to FP32). A and B are one format (no E4M3 x E5M2 mix). Error
 * bound as for HALF inputs in clgemm_compute: (k + 2) 2^-24 S against the product of the decoded
 * inputs, plus C's own rounding when C is FP16 / BF16. */

/* How the products are computed (clgemm_gemm_ex). DEFAULT is the precision of the type (FP32
 * for SINGLE, HALF and BFLOAT16, FP64 for DOUBLE). The others only change SINGLE, and only on
 * devices with matrix units that support them (elsewhere they compute as DEFAULT, which meets
 * their bound too). CLGEMM_ALLOW_TF32=1 in the environment makes DEFAULT mean TF32 for SINGLE.
 *
 * Error bounds, per element of C, with S = |alpha| sum_p |a_ip||b_pj| + |beta||c_ij| and u the
 * unit roundoff of the arithmetic (FP32 2^-24, FP64 2^-53); tested on PoCL and the H200:
 *   DEFAULT, FP32/FP64/complex:  |C - C_exact| <= (k + 2) u S      (any summation order)
 *   HALF / BFLOAT16 inputs:      the same with FP32's u, against the product of the stored
 *                                (already rounded) inputs; C stored as FP16 / BF16 adds one
 *                                rounding of the result: 2^-11 / 2^-8 relative.
 *   TF32:                        A and B rounded to 10-bit mantissas first (2^-11 relative
 *                                each): about (k + 2) 2^-24 S + 2^-10 S (cuBLAS's TF32 mode).
 *   FP32_3XTF32:                 each input split into two TF32 parts (big + small), products
 *                                big*big + big*small + small*big: FP32-level, within
 *                                (k + 16) 2^-22 S; measured 1e-6 S at k = 8192 on the H200.
 * On NVIDIA FP64 tensor cores (the sm_90 default for DOUBLE) each product is an IEEE FP64 FMA:
 * the DEFAULT bound holds. */
typedef enum clgemm_compute {
    CLGEMM_COMPUTE_DEFAULT = 0,
    CLGEMM_COMPUTE_TF32 = 1,
    CLGEMM_COMPUTE_FP32_3XTF32 = 2
} clgemm_compute;

/* ---- Kernel families and their parameters ---------------------------------------------------
 * Each family is described once inside the library (its parameters, their rules, defaults and
 * search ranges); a configuration is a family and the values of its parameters, addressed by
 * name (clgemm_config_set/get; clgemm_family_param_name lists them). Where a value sits in
 * params[] is the library's business.
 *
 * Changed in 0.2: clgemm_config no longer grows with each family. The named fields of 0.1
 * (mdimc ... vwn) remain, as aliases of params[0..8], for the naive, tiled and register-blocked
 * families, so code that filled them still compiles and works. New families (mma) use names. */
#define CLGEMM_MAX_PARAMS 16

typedef enum clgemm_family {
    CLGEMM_FAMILY_AUTO = 0,     /* let the library choose (tuning database, then defaults) */
    CLGEMM_FAMILY_NAIVE = 1,    /* one work-item per element of C */
    CLGEMM_FAMILY_TILED = 2,    /* T x T tiles of A and B in local memory */
    CLGEMM_FAMILY_REGBLOCK = 3, /* local-memory tiles + an MWI x NWI register block per item */
    CLGEMM_FAMILY_MMA = 4,      /* NVIDIA tensor cores (mma.sync), compute capability 8.0+ */
    CLGEMM_FAMILY_WGMMA = 5, /* Hopper's warpgroup tensor cores (wgmma), compute capability 9.0 */
    CLGEMM_FAMILY_MICROKERNEL = 6, /* CPUs: one work-item per MR x NR block, explicit vectors */
    CLGEMM_FAMILY_TMA = 7,      /* wgmma fed by tensor-map copies (TMA), compute capability 9.0 */
    CLGEMM_FAMILY_TMA_SIMT = 8, /* FP32 on the CUDA cores fed by the same copies, c.c. 9.0 */
    CLGEMM_FAMILY_TMA_FP64 = 9, /* FP64 on the DMMA tensor cores fed by the same copies, 9.0 */
} clgemm_family;
#define CLGEMM_FAMILY_COUNT 9

/* A family and its parameters; parameters a family does not use are ignored (keep them 0). */
typedef struct clgemm_config {
    clgemm_family family;
    union {
        int params[CLGEMM_MAX_PARAMS];
        /* 0.1 names (naive: mdimc, ndimc; tiled: ts; regblock: mwg ... vwn, mdimc, ndimc,
         * stages). The struct spans every slot, so a config initialised by these names has the
         * slots it does not name zeroed (a union's other bytes would not be). */
        struct {
            int mdimc, ndimc, ts, mwg, nwg, kwg, kwi, vwm, vwn, stages;
            int unnamed_[CLGEMM_MAX_PARAMS - 10];
        };
    };
} clgemm_config;

/* Sets config to `family` with every parameter 0 (then set them by name).
 * CLGEMM_ERR_INVALID_FAMILY for an unknown family. */
CLGEMM_API clgemm_status clgemm_config_init(clgemm_config *config, clgemm_family family);
/* Sets or reads the parameter `name` (upper case, e.g. "MWG") of config's family.
 * CLGEMM_ERR_INVALID_ARGUMENT if the family has no parameter of that name. */
CLGEMM_API clgemm_status clgemm_config_set(clgemm_config *config, const char *name, int value);
CLGEMM_API clgemm_status clgemm_config_get(const clgemm_config *config, const char *name,
                                           int *value);
/* How many parameters a family has, and the name of parameter i (NULL past the end). */
CLGEMM_API int clgemm_family_param_count(clgemm_family family);
CLGEMM_API const char *clgemm_family_param_name(clgemm_family family, int i);
/* Writes "family NAME=value ..." into buf (size bytes, truncated, NUL-terminated when size > 0)
 * and returns the length of the whole text. */
CLGEMM_API size_t clgemm_config_string(const clgemm_config *config, char *buf, size_t size);
/* The family of a name ("naive", ...), CLGEMM_FAMILY_AUTO for "auto" or an unknown name. */
CLGEMM_API clgemm_family clgemm_family_from_name(const char *name);

/* Name of a family ("naive", "tiled", "regblock", "auto"); NULL for an unknown one. */
CLGEMM_API const char *clgemm_family_name(clgemm_family family);

/* ---- Handles -------------------------------------------------------------------------------- */

typedef struct clgemm_handle_s *clgemm_handle;

/* Creates a handle on the user's queue. The queue, its context and device are retained and
 * released by clgemm_destroy. The handle owns the compiled-program cache. */
CLGEMM_API clgemm_status clgemm_create(clgemm_handle *handle, cl_command_queue queue);

/* Creates a handle on a device of the library's choosing: the first GPU, else the first device,
 * unless CLGEMM_DEVICE=<platform>:<device> names one (each an index or a case-insensitive
 * substring of the platform/device name; either side may be empty). The handle owns the
 * context and queue it creates. */
CLGEMM_API clgemm_status clgemm_create_default(clgemm_handle *handle);

/* Releases everything the handle holds. NULL is accepted and ignored. */
CLGEMM_API void clgemm_destroy(clgemm_handle handle);

/* The handle's queue, context and device (not retained for the caller). */
CLGEMM_API cl_command_queue clgemm_queue(clgemm_handle handle);
CLGEMM_API cl_context clgemm_context(clgemm_handle handle);
CLGEMM_API cl_device_id clgemm_device(clgemm_handle handle);

/* Copies the last build log of this handle (NUL-terminated, truncated to size) into buf and
 * returns the full length of the log. buf may be NULL when size is 0. */
CLGEMM_API size_t clgemm_build_log(clgemm_handle handle, char *buf, size_t size);

/* ---- Choosing kernels ----------------------------------------------------------------------- */

/* Forces a family and its parameters for every later call on this handle in this precision
 * (family CLGEMM_FAMILY_AUTO, or config NULL, removes the override). The parameters are checked
 * against the family's rules and the device's limits: CLGEMM_ERR_INVALID_PARAMS if they break
 * one, and the previous setting stays. */
CLGEMM_API clgemm_status clgemm_set_config(clgemm_handle handle, clgemm_precision precision,
                                           const clgemm_config *config);

/* Tells which family and parameters a problem of this shape would use, and where they came
 * from ("override", "tuned", "default", "fallback"; static storage) if source is not NULL. */
CLGEMM_API clgemm_status clgemm_get_config(clgemm_handle handle, clgemm_precision precision,
                                           size_t m, size_t n, size_t k, clgemm_config *config,
                                           const char **source);

/* The same for a call with these layout, transposes, types and compute mode, as
 * clgemm_gemm_ex would make it (clgemm_get_config is the column-major NN call of C in the type
 * of A and B). Tuning entries are kept per type pair and per transposes of the column-major
 * problem; a row-major call is the column-major C^T = op(B)^T op(A)^T, so it uses the entry of
 * the swapped transposes and the n x m x k shape. A call whose transposes have no entry uses
 * the NN entries of its types. Operands are taken as stored on 16-byte rows; where the call
 * would first copy one into a form a faster family reads (on Hopper: TF32 stored MN-major, for
 * the tensor-map family), the answer is the configuration that runs on the copy. Status as
 * clgemm_gemm_ex for bad types or arguments. */
CLGEMM_API clgemm_status clgemm_get_config_ex(clgemm_handle handle, clgemm_layout layout,
                                              clgemm_transpose trans_a, clgemm_transpose trans_b,
                                              size_t m, size_t n, size_t k,
                                              clgemm_precision type_ab, clgemm_precision type_c,
                                              clgemm_compute compute, clgemm_config *config,
                                              const char **source);

/* The same for the operands as they lie: A and B at element offsets off_a and off_b with leading
 * dimensions lda and ldb, as clgemm_gemm_ex would take them. An operand whose base or leading
 * dimension is off 16 bytes may be copied first or read element by element, and some families
 * then give way to others (on Hopper, TF32 4097^2 stored row-major runs on the tensor-map family
 * only over copies): the answer is the configuration that such a call runs. Status as
 * clgemm_gemm_ex for bad types, arguments and leading dimensions. */
CLGEMM_API clgemm_status clgemm_get_config_operands(
    clgemm_handle handle, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,
    size_t m, size_t n, size_t k, clgemm_precision type_ab, clgemm_precision type_c,
    clgemm_compute compute, size_t off_a, size_t lda, size_t off_b, size_t ldb,
    clgemm_config *config, const char **source);

/* Checks a configuration against its family's rules and this handle's device limits, without
 * building anything. CLGEMM_SUCCESS or CLGEMM_ERR_INVALID_PARAMS / CLGEMM_ERR_INVALID_FAMILY. */
CLGEMM_API clgemm_status clgemm_check_config(clgemm_handle handle, clgemm_precision precision,
                                             const clgemm_config *config);

/* Uses the tuning database at path (NULL: CLGEMM_TUNING_DB, then
 * $XDG_CACHE_HOME/clgemm/tuning.json, then ~/.cache/clgemm/tuning.json). Handles read the
 * database when created; this re-reads it. A missing file is not an error (CLGEMM_SUCCESS, no
 * entries); a bad one gives its status and the handle falls back to the built-in defaults. */
CLGEMM_API clgemm_status clgemm_load_tuning(clgemm_handle handle, const char *path);

/* ---- GEMM on OpenCL buffers ------------------------------------------------------------------
 * C = alpha * op(A) * op(B) + beta * C, op(A) m x k, op(B) k x n, C m x n, each stored in
 * `layout` at offset off* (in elements) with leading dimension ld*.
 * queue: NULL means the handle's queue; otherwise one of the handle's context.
 * num_wait/wait: events to wait for. event: if not NULL, receives an event that completes when
 * every kernel of the call has completed (the caller releases it). For m == 0 or n == 0 the call
 * computes nothing; the event it returns (a marker) completes once the wait list has. beta == 0
 * means C is written without being read: NaN or Inf in C never reaches the result. */
CLGEMM_API clgemm_status clgemm_sgemm(clgemm_handle handle, clgemm_layout layout,
                                      clgemm_transpose trans_a, clgemm_transpose trans_b, size_t m,
                                      size_t n, size_t k, float alpha, cl_mem a, size_t off_a,
                                      size_t lda, cl_mem b, size_t off_b, size_t ldb, float beta,
                                      cl_mem c, size_t off_c, size_t ldc, cl_command_queue queue,
                                      cl_uint num_wait, const cl_event *wait, cl_event *event);

CLGEMM_API clgemm_status clgemm_dgemm(clgemm_handle handle, clgemm_layout layout,
                                      clgemm_transpose trans_a, clgemm_transpose trans_b, size_t m,
                                      size_t n, size_t k, double alpha, cl_mem a, size_t off_a,
                                      size_t lda, cl_mem b, size_t off_b, size_t ldb, double beta,
                                      cl_mem c, size_t off_c, size_t ldc, cl_command_queue queue,
                                      cl_uint num_wait, const cl_event *wait, cl_event *event);

/* The general entry point, in the spirit of cublasGemmEx. A and B hold type_ab; C holds type_c,
 * which is type_ab, or CLGEMM_SINGLE when type_ab is CLGEMM_HALF or CLGEMM_BFLOAT16 (FP32
 * output); CLGEMM_INT32 for CLGEMM_INT8; CLGEMM_SINGLE, CLGEMM_HALF or CLGEMM_BFLOAT16 for
 * CLGEMM_E4M3 and CLGEMM_E5M2. alpha and beta point to the scalar type of the arithmetic: float
 * for SINGLE, HALF, BFLOAT16 and the FP8 types, double for DOUBLE, cl_float2 / cl_double2 for
 * the complex types, cl_int for INT8. compute: see clgemm_compute (the 8-bit types take only
 * DEFAULT). Other combinations: CLGEMM_ERR_INVALID_TYPE. Everything else as clgemm_sgemm. */
CLGEMM_API clgemm_status clgemm_gemm_ex(
    clgemm_handle handle, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,
    size_t m, size_t n, size_t k, const void *alpha, cl_mem a, size_t off_a, size_t lda, cl_mem b,
    size_t off_b, size_t ldb, const void *beta, cl_mem c, size_t off_c, size_t ldc,
    clgemm_precision type_ab, clgemm_precision type_c, clgemm_compute compute,
    cl_command_queue queue, cl_uint num_wait, const cl_event *wait, cl_event *event);

/* Complex GEMM (CLGEMM_CONJ_TRANS allowed); buffers of interleaved cl_float2 / cl_double2. */
CLGEMM_API clgemm_status clgemm_cgemm(clgemm_handle handle, clgemm_layout layout,
                                      clgemm_transpose trans_a, clgemm_transpose trans_b, size_t m,
                                      size_t n, size_t k, cl_float2 alpha, cl_mem a, size_t off_a,
                                      size_t lda, cl_mem b, size_t off_b, size_t ldb,
                                      cl_float2 beta, cl_mem c, size_t off_c, size_t ldc,
                                      cl_command_queue queue, cl_uint num_wait,
                                      const cl_event *wait, cl_event *event);
CLGEMM_API clgemm_status clgemm_zgemm(clgemm_handle handle, clgemm_layout layout,
                                      clgemm_transpose trans_a, clgemm_transpose trans_b, size_t m,
                                      size_t n, size_t k, cl_double2 alpha, cl_mem a, size_t off_a,
                                      size_t lda, cl_mem b, size_t off_b, size_t ldb,
                                      cl_double2 beta, cl_mem c, size_t off_c, size_t ldc,
                                      cl_command_queue queue, cl_uint num_wait,
                                      const cl_event *wait, cl_event *event);
/* FP16 A, B and C (cl_half), FP32 arithmetic; BF16 likewise (cl_ushort). */
CLGEMM_API clgemm_status clgemm_hgemm(clgemm_handle handle, clgemm_layout layout,
                                      clgemm_transpose trans_a, clgemm_transpose trans_b, size_t m,
                                      size_t n, size_t k, float alpha, cl_mem a, size_t off_a,
                                      size_t lda, cl_mem b, size_t off_b, size_t ldb, float beta,
                                      cl_mem c, size_t off_c, size_t ldc, cl_command_queue queue,
                                      cl_uint num_wait, const cl_event *wait, cl_event *event);
CLGEMM_API clgemm_status clgemm_bf16gemm(clgemm_handle handle, clgemm_layout layout,
                                         clgemm_transpose trans_a, clgemm_transpose trans_b,
                                         size_t m, size_t n, size_t k, float alpha, cl_mem a,
                                         size_t off_a, size_t lda, cl_mem b, size_t off_b,
                                         size_t ldb, float beta, cl_mem c, size_t off_c, size_t ldc,
                                         cl_command_queue queue, cl_uint num_wait,
                                         const cl_event *wait, cl_event *event);

/* INT8 A and B (cl_char), INT32 C (cl_int), int32 alpha and beta; wraps as described at
 * CLGEMM_INT8. */
CLGEMM_API clgemm_status clgemm_i8gemm(clgemm_handle handle, clgemm_layout layout,
                                       clgemm_transpose trans_a, clgemm_transpose trans_b, size_t m,
                                       size_t n, size_t k, cl_int alpha, cl_mem a, size_t off_a,
                                       size_t lda, cl_mem b, size_t off_b, size_t ldb, cl_int beta,
                                       cl_mem c, size_t off_c, size_t ldc, cl_command_queue queue,
                                       cl_uint num_wait, const cl_event *wait, cl_event *event);
/* FP8 A and B of type_ab (CLGEMM_E4M3 or CLGEMM_E5M2) with per-tensor scales: C = alpha *
 * (scale_a op(A)) (scale_b op(B)) + beta * C, C of type_c (CLGEMM_SINGLE, CLGEMM_HALF or
 * CLGEMM_BFLOAT16). The same as clgemm_gemm_ex with alpha * scale_a * scale_b. */
CLGEMM_API clgemm_status clgemm_fp8gemm(clgemm_handle handle, clgemm_layout layout,
                                        clgemm_transpose trans_a, clgemm_transpose trans_b,
                                        size_t m, size_t n, size_t k, float alpha, float scale_a,
                                        float scale_b, cl_mem a, size_t off_a, size_t lda, cl_mem b,
                                        size_t off_b, size_t ldb, float beta, cl_mem c,
                                        size_t off_c, size_t ldc, clgemm_precision type_ab,
                                        clgemm_precision type_c, cl_command_queue queue,
                                        cl_uint num_wait, const cl_event *wait, cl_event *event);

/* ---- FP8 conversion on the host ---------------------------------------------------------------
 * From FP32 to E4M3 / E5M2 codes (type CLGEMM_E4M3 or CLGEMM_E5M2), rounding to nearest even and
 * saturating: a value beyond the largest finite one, infinities included, becomes the largest
 * finite value of its sign (448 / 57344, as PTX's cvt .satfinite and cuBLASLt's saturating
 * conversion); NaN becomes a NaN code (0x7f / 0x7e, with the sign of the input); signed zeros
 * and subnormals are kept. And back: every code to its exact FP32 value (E5M2's infinities stay
 * infinities, NaN codes give a quiet NaN of their sign). count elements; CLGEMM_ERR_INVALID_TYPE
 * for another type, CLGEMM_ERR_NULL_ARGUMENT for a NULL array when count > 0. */
CLGEMM_API clgemm_status clgemm_fp8_from_float(clgemm_precision type, const float *src,
                                               cl_uchar *dst, size_t count);
CLGEMM_API clgemm_status clgemm_fp8_to_float(clgemm_precision type, const cl_uchar *src, float *dst,
                                             size_t count);

/* ---- Batches of GEMM on OpenCL buffers -------------------------------------------------------
 * batch_count products of the same shape, types and transposes in one call, with CLBlast's
 * conventions (GemmStridedBatched, GemmBatched): offsets, leading dimensions and strides in
 * elements, one event for the whole call. The call is one kernel launch for the whole batch
 * (two with a split K; a batch deeper than 65535 matrices x split layers is cut into launches
 * of 65535, joined by a marker), and the kernel is planned for the batch: many small matrices
 * get small tiles.
 *
 * Every matrix of C must be disjoint from every other one (they would be written in no
 * defined order): two that share an element give CLGEMM_ERR_BATCH_OVERLAP, before anything is
 * enqueued. Matrices interleaved in the gaps a larger ldc leaves are disjoint, and allowed.
 * A and B may overlap freely; a stride of 0 uses one A (or B) for every product.
 *
 * batch_count 0 computes nothing (the arguments are still checked; the event is a marker).
 * Buffers are checked for the whole batch: the last matrix must end inside its buffer. */

/* Matrix i of A starts at off_a + i * stride_a (likewise B and C). alpha and beta as in
 * clgemm_gemm_ex. */
CLGEMM_API clgemm_status clgemm_gemm_strided_batched(
    clgemm_handle handle, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,
    size_t m, size_t n, size_t k, const void *alpha, cl_mem a, size_t off_a, size_t lda,
    size_t stride_a, cl_mem b, size_t off_b, size_t ldb, size_t stride_b, const void *beta,
    cl_mem c, size_t off_c, size_t ldc, size_t stride_c, size_t batch_count,
    clgemm_precision type_ab, clgemm_precision type_c, clgemm_compute compute,
    cl_command_queue queue, cl_uint num_wait, const cl_event *wait, cl_event *event);

/* Matrix i of A starts at off_a[i] (likewise B and C), and uses alphas[i] and betas[i]: host
 * arrays of batch_count values (scalars of the arithmetic type, as alpha in clgemm_gemm_ex).
 * They are copied into a small buffer of the call's own before the call returns, so the
 * caller may reuse them at once. Where alphas[i] is 0, A and B of matrix i do not reach C
 * (NaN included), but their offsets are still checked whenever k > 0. */
CLGEMM_API clgemm_status clgemm_gemm_batched(
    clgemm_handle handle, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,
    size_t m, size_t n, size_t k, const void *alphas, cl_mem a, const size_t *off_a, size_t lda,
    cl_mem b, const size_t *off_b, size_t ldb, const void *betas, cl_mem c, const size_t *off_c,
    size_t ldc, size_t batch_count, clgemm_precision type_ab, clgemm_precision type_c,
    clgemm_compute compute, cl_command_queue queue, cl_uint num_wait, const cl_event *wait,
    cl_event *event);

/* Typed forms (A, B and C of one type, default compute). */
#define CLGEMM_STRIDED_BATCHED_PARAMS(scalar)                                                      \
    clgemm_handle handle, clgemm_layout layout, clgemm_transpose trans_a,                          \
        clgemm_transpose trans_b, size_t m, size_t n, size_t k, scalar alpha, cl_mem a,            \
        size_t off_a, size_t lda, size_t stride_a, cl_mem b, size_t off_b, size_t ldb,             \
        size_t stride_b, scalar beta, cl_mem c, size_t off_c, size_t ldc, size_t stride_c,         \
        size_t batch_count, cl_command_queue queue, cl_uint num_wait, const cl_event *wait,        \
        cl_event *event
#define CLGEMM_BATCHED_PARAMS(scalar)                                                              \
    clgemm_handle handle, clgemm_layout layout, clgemm_transpose trans_a,                          \
        clgemm_transpose trans_b, size_t m, size_t n, size_t k, const scalar *alphas, cl_mem a,    \
        const size_t *off_a, size_t lda, cl_mem b, const size_t *off_b, size_t ldb,                \
        const scalar *betas, cl_mem c, const size_t *off_c, size_t ldc, size_t batch_count,        \
        cl_command_queue queue, cl_uint num_wait, const cl_event *wait, cl_event *event
CLGEMM_API clgemm_status clgemm_sgemm_strided_batched(CLGEMM_STRIDED_BATCHED_PARAMS(float));
CLGEMM_API clgemm_status clgemm_dgemm_strided_batched(CLGEMM_STRIDED_BATCHED_PARAMS(double));
CLGEMM_API clgemm_status clgemm_cgemm_strided_batched(CLGEMM_STRIDED_BATCHED_PARAMS(cl_float2));
CLGEMM_API clgemm_status clgemm_zgemm_strided_batched(CLGEMM_STRIDED_BATCHED_PARAMS(cl_double2));
CLGEMM_API clgemm_status clgemm_hgemm_strided_batched(CLGEMM_STRIDED_BATCHED_PARAMS(float));
CLGEMM_API clgemm_status clgemm_sgemm_batched(CLGEMM_BATCHED_PARAMS(float));
CLGEMM_API clgemm_status clgemm_dgemm_batched(CLGEMM_BATCHED_PARAMS(double));
CLGEMM_API clgemm_status clgemm_cgemm_batched(CLGEMM_BATCHED_PARAMS(cl_float2));
CLGEMM_API clgemm_status clgemm_zgemm_batched(CLGEMM_BATCHED_PARAMS(cl_double2));
CLGEMM_API clgemm_status clgemm_hgemm_batched(CLGEMM_BATCHED_PARAMS(float));
CLGEMM_API clgemm_status clgemm_i8gemm_strided_batched(CLGEMM_STRIDED_BATCHED_PARAMS(cl_int));
CLGEMM_API clgemm_status clgemm_i8gemm_batched(CLGEMM_BATCHED_PARAMS(cl_int));

/* ---- GEMM on host arrays (blocking) ----------------------------------------------------------
 * The same operation on plain host arrays: copies to the device, multiplies on the handle's
 * queue, copies C back, and returns when C holds the result. Only the elements of C's matrices
 * are read (and only when beta != 0) and written: the gaps of a larger ldc, and the space
 * between the matrices of a batch, are left alone, so threads may compute disjoint, interleaved
 * parts of one array at once. */
CLGEMM_API clgemm_status clgemm_sgemm_host(clgemm_handle handle, clgemm_layout layout,
                                           clgemm_transpose trans_a, clgemm_transpose trans_b,
                                           size_t m, size_t n, size_t k, float alpha,
                                           const float *a, size_t lda, const float *b, size_t ldb,
                                           float beta, float *c, size_t ldc);

CLGEMM_API clgemm_status clgemm_dgemm_host(clgemm_handle handle, clgemm_layout layout,
                                           clgemm_transpose trans_a, clgemm_transpose trans_b,
                                           size_t m, size_t n, size_t k, double alpha,
                                           const double *a, size_t lda, const double *b, size_t ldb,
                                           double beta, double *c, size_t ldc);

/* The general entry point on host arrays (types as clgemm_gemm_ex). */
CLGEMM_API clgemm_status clgemm_gemm_ex_host(clgemm_handle handle, clgemm_layout layout,
                                             clgemm_transpose trans_a, clgemm_transpose trans_b,
                                             size_t m, size_t n, size_t k, const void *alpha,
                                             const void *a, size_t lda, const void *b, size_t ldb,
                                             const void *beta, void *c, size_t ldc,
                                             clgemm_precision type_ab, clgemm_precision type_c,
                                             clgemm_compute compute);
CLGEMM_API clgemm_status clgemm_cgemm_host(clgemm_handle handle, clgemm_layout layout,
                                           clgemm_transpose trans_a, clgemm_transpose trans_b,
                                           size_t m, size_t n, size_t k, cl_float2 alpha,
                                           const cl_float2 *a, size_t lda, const cl_float2 *b,
                                           size_t ldb, cl_float2 beta, cl_float2 *c, size_t ldc);
CLGEMM_API clgemm_status clgemm_zgemm_host(clgemm_handle handle, clgemm_layout layout,
                                           clgemm_transpose trans_a, clgemm_transpose trans_b,
                                           size_t m, size_t n, size_t k, cl_double2 alpha,
                                           const cl_double2 *a, size_t lda, const cl_double2 *b,
                                           size_t ldb, cl_double2 beta, cl_double2 *c, size_t ldc);
CLGEMM_API clgemm_status clgemm_hgemm_host(clgemm_handle handle, clgemm_layout layout,
                                           clgemm_transpose trans_a, clgemm_transpose trans_b,
                                           size_t m, size_t n, size_t k, float alpha,
                                           const cl_half *a, size_t lda, const cl_half *b,
                                           size_t ldb, float beta, cl_half *c, size_t ldc);
CLGEMM_API clgemm_status clgemm_bf16gemm_host(clgemm_handle handle, clgemm_layout layout,
                                              clgemm_transpose trans_a, clgemm_transpose trans_b,
                                              size_t m, size_t n, size_t k, float alpha,
                                              const cl_ushort *a, size_t lda, const cl_ushort *b,
                                              size_t ldb, float beta, cl_ushort *c, size_t ldc);
CLGEMM_API clgemm_status clgemm_i8gemm_host(clgemm_handle handle, clgemm_layout layout,
                                            clgemm_transpose trans_a, clgemm_transpose trans_b,
                                            size_t m, size_t n, size_t k, cl_int alpha,
                                            const cl_char *a, size_t lda, const cl_char *b,
                                            size_t ldb, cl_int beta, cl_int *c, size_t ldc);
/* C is of type_c: float, cl_half or cl_ushort (BF16) elements. */
CLGEMM_API clgemm_status clgemm_fp8gemm_host(clgemm_handle handle, clgemm_layout layout,
                                             clgemm_transpose trans_a, clgemm_transpose trans_b,
                                             size_t m, size_t n, size_t k, float alpha,
                                             float scale_a, float scale_b, const cl_uchar *a,
                                             size_t lda, const cl_uchar *b, size_t ldb, float beta,
                                             void *c, size_t ldc, clgemm_precision type_ab,
                                             clgemm_precision type_c);

/* Batches on host arrays (blocking). Strided: the arrays hold the batch as the buffers of
 * clgemm_gemm_strided_batched do, from element 0 (no offsets). Batched: a[i], b[i] and c[i]
 * point to matrix i (the C pointers must not overlap: CLGEMM_ERR_BATCH_OVERLAP), with
 * alphas[i] and betas[i]. */
CLGEMM_API clgemm_status clgemm_gemm_strided_batched_host(
    clgemm_handle handle, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,
    size_t m, size_t n, size_t k, const void *alpha, const void *a, size_t lda, size_t stride_a,
    const void *b, size_t ldb, size_t stride_b, const void *beta, void *c, size_t ldc,
    size_t stride_c, size_t batch_count, clgemm_precision type_ab, clgemm_precision type_c,
    clgemm_compute compute);
CLGEMM_API clgemm_status clgemm_gemm_batched_host(
    clgemm_handle handle, clgemm_layout layout, clgemm_transpose trans_a, clgemm_transpose trans_b,
    size_t m, size_t n, size_t k, const void *alphas, const void *const *a, size_t lda,
    const void *const *b, size_t ldb, const void *betas, void *const *c, size_t ldc,
    size_t batch_count, clgemm_precision type_ab, clgemm_precision type_c, clgemm_compute compute);

/* ---- Several devices (host arrays) ----------------------------------------------------------
 * A multi-device handle holds one ordinary handle (own queue, device state, tuning table) per
 * device, and one context per platform. clgemm_multi_gemm_ex_host cuts C into 2-D tiles that
 * two host threads per device, each on its own queue of the device (one's copies overlapping the
 * other's multiply), take in turn from a shared counter (a faster device takes more); each tile
 * is that device's host-array call on the row panel of op(A), the column panel of op(B) and the
 * block of C. Each tile's result goes into C only once its device has finished it.
 * A device that fails stops taking tiles and its unfinished tile goes to the other devices: the
 * call then succeeds (clgemm_multi_stats counts the failure). Only when every device has failed
 * does the call return the first device error; C then holds, tile by tile, either the finished
 * result or its old values, never a partial tile. */

typedef struct clgemm_multi_handle_s *clgemm_multi_handle;

/* Creates a handle over `count` devices (each its own queue and handle; a device may appear
 * once). devices NULL and count 0: CLGEMM_DEVICES if set, a comma-separated list of
 * CLGEMM_DEVICE specs (<platform>:<device>) each adding every device it matches ("portable:" adds
 * all of PoCL's, "0:0,0:1" two), else every GPU of the first platform that has one, else every
 * device of the first platform. CLGEMM_ERR_NO_DEVICE if none is found or a spec matches none. */
CLGEMM_API clgemm_status clgemm_create_multi(clgemm_multi_handle *handle,
                                             const cl_device_id *devices, int count);
/* Releases everything. NULL is accepted and ignored. */
CLGEMM_API void clgemm_multi_destroy(clgemm_multi_handle handle);
/* The number of devices (0 for NULL). */
CLGEMM_API int clgemm_multi_device_count(clgemm_multi_handle handle);
/* The ordinary handle of device i (for its tuning, configurations, queue), or NULL. It belongs
 * to the multi-device handle: do not destroy it. */
CLGEMM_API clgemm_handle clgemm_multi_handle_at(clgemm_multi_handle handle, int i);
/* Tiles of C of at most rows x cols (0, 0: chosen from the shape and the device count, about
 * four tiles per thread and at least 256 x 256). */
CLGEMM_API clgemm_status clgemm_multi_set_tile(clgemm_multi_handle handle, size_t rows,
                                               size_t cols);

/* Counts of device i since the handle was created: tiles it finished, tiles it failed (each
 * then computed by another device, or left when every device failed), its last error. */
typedef struct clgemm_multi_device_stats {
    unsigned long long tiles;
    unsigned long long failed_tiles;
    int last_error;
} clgemm_multi_device_stats;
CLGEMM_API clgemm_status clgemm_multi_stats(clgemm_multi_handle handle, int i,
                                            clgemm_multi_device_stats *stats);

/* C = alpha op(A) op(B) + beta C on host arrays across the devices; arguments as
 * clgemm_gemm_ex_host, checked (against every device) before anything is written. A device
 * that cannot compute the types (FP64) is left out; with none left, that device's status. */
CLGEMM_API clgemm_status clgemm_multi_gemm_ex_host(
    clgemm_multi_handle handle, clgemm_layout layout, clgemm_transpose trans_a,
    clgemm_transpose trans_b, size_t m, size_t n, size_t k, const void *alpha, const void *a,
    size_t lda, const void *b, size_t ldb, const void *beta, void *c, size_t ldc,
    clgemm_precision type_ab, clgemm_precision type_c, clgemm_compute compute);
/* A strided batch (arguments as clgemm_gemm_strided_batched_host) across the devices: chunks of
 * about batch / (4 devices) matrices, taken and retried as the tiles above; only the elements
 * of C's matrices are written (the gaps between and inside them, which may hold interleaved
 * matrices of other chunks, never). Overlapping matrices of C: CLGEMM_ERR_BATCH_OVERLAP, before
 * anything runs. */
CLGEMM_API clgemm_status clgemm_multi_gemm_strided_batched_host(
    clgemm_multi_handle handle, clgemm_layout layout, clgemm_transpose trans_a,
    clgemm_transpose trans_b, size_t m, size_t n, size_t k, const void *alpha, const void *a,
    size_t lda, size_t stride_a, const void *b, size_t ldb, size_t stride_b, const void *beta,
    void *c, size_t ldc, size_t stride_c, size_t batch_count, clgemm_precision type_ab,
    clgemm_precision type_c, clgemm_compute compute);
CLGEMM_API clgemm_status clgemm_multi_sgemm_host(clgemm_multi_handle handle, clgemm_layout layout,
                                                 clgemm_transpose trans_a, clgemm_transpose trans_b,
                                                 size_t m, size_t n, size_t k, float alpha,
                                                 const float *a, size_t lda, const float *b,
                                                 size_t ldb, float beta, float *c, size_t ldc);
CLGEMM_API clgemm_status clgemm_multi_dgemm_host(clgemm_multi_handle handle, clgemm_layout layout,
                                                 clgemm_transpose trans_a, clgemm_transpose trans_b,
                                                 size_t m, size_t n, size_t k, double alpha,
                                                 const double *a, size_t lda, const double *b,
                                                 size_t ldb, double beta, double *c, size_t ldc);

/* ---- Tuning ---------------------------------------------------------------------------------
 * The autotuner behind `clgemm-tune`: it times candidate families and parameters on the
 * handle's device and stores the fastest in the tuning database. It searches the families that
 * compute the type with CLGEMM_COMPUTE_DEFAULT on the device. Every candidate is first run once
 * and checked against a host reference (computed from the inputs as stored, so FP16 / BF16
 * inputs after their rounding) within the error bound of its type (see clgemm_compute, complex
 * types per component); one that fails to build, to launch or to compute the right result is
 * skipped. Timing is the wall time of a whole clgemm_gemm_ex call (column-major, the options'
 * types and transposes, alpha 1, beta 0; clgemm_gemm_strided_batched of options->batch packed
 * matrices when it is above 1, checked on the first and the last) up to clFinish, the median of
 * several runs after a warm-up. Each shape starts with the library's own untuned choice (timed even
 * when the budget is spent), so a result is never slower than the default. The search is
 * exhaustive when the space fits the budget and max_evals, else random sampling followed by a
 * local search around the best. While it runs, the tuner forces each candidate on the handle;
 * the handle's previous setting is restored at the end. Do not use the handle from other
 * threads meanwhile. */

/* One problem shape to tune for. */
typedef struct clgemm_tune_shape {
    size_t m, n, k;
} clgemm_tune_shape;

/* Called after each candidate: candidates evaluated so far and the current estimate of the
 * total (both over all shapes), the best GFLOPS of the current shape, seconds since the start. */
typedef void (*clgemm_tune_progress_fn)(size_t evaluated, size_t total, double best_gflops,
                                        double elapsed_s, void *user);

typedef struct clgemm_tune_options {
    clgemm_precision precision;      /* the type of A and B: any but CLGEMM_INT32 */
    const clgemm_tune_shape *shapes; /* the shapes to tune (see clgemm_tune_default_shapes) */
    size_t num_shapes;
    double budget_s;                  /* time for the whole call, shared by the shapes; 0: none */
    size_t max_evals;                 /* most candidates per shape; 0: no limit */
    int quick;                        /* a small curated candidate set instead of the search */
    unsigned seed;                    /* for the random sampling; 0: a fixed default */
    clgemm_tune_progress_fn progress; /* may be NULL */
    void *user;                       /* passed to progress */
    volatile int *cancel; /* may be NULL; once *cancel != 0 the tuner stops between candidates */
    /* Added in 0.2; zero (clgemm_tune_options_init) keeps 0.1's behaviour: C of precision's
     * type, no transposes (INT32 for INT8, FP32 for the FP8 types). wide_c nonzero: C holds
     * the second type clgemm_gemm_ex allows for precision (FP32 for HALF and BFLOAT16, BF16 for
     * the FP8 types; CLGEMM_ERR_INVALID_TYPE for the other types). FP8 with FP16 C is not
     * tuned (its calls use the library's defaults).
     * trans_a / trans_b: the transposes of the column-major calls that are timed (0 means
     * CLGEMM_NO_TRANS; CLGEMM_CONJ_TRANS is CLGEMM_TRANS on real types); the results are stored
     * for those transposes. Tuning entries are kept per type pair and transposes; a call whose
     * transposes have no entry uses the NN entries of its types (clgemm_get_config_ex). */
    int wide_c;
    clgemm_transpose trans_a, trans_b;
    /* Added in 0.2 too; 0 or 1: one matrix per timed call, as before. batch > 1 times
     * clgemm_gemm_strided_batched calls of that many packed matrices (each its own A, B and C;
     * GFLOPS count them all) and stores the results for the batch's class (one matrix, 2-15,
     * 16-255, 256 or more): calls of a batch of that class use them first, and a batch with no
     * entry of its class uses a single-matrix entry only if its tiles pad the matrices by at
     * most a quarter. */
    size_t batch;
} clgemm_tune_options;

/* The outcome for one shape. status: CLGEMM_SUCCESS (config is the fastest correct candidate),
 * CLGEMM_ERR_TUNE_NONE_VALID (none ran correctly, or it was cancelled before one did), or the
 * error that stopped it. complete is 0 when cancellation cut the search short. */
typedef struct clgemm_tune_result {
    clgemm_precision precision;
    clgemm_tune_shape shape;
    clgemm_status status;
    int complete;
    clgemm_config config;
    double gflops;
    double default_gflops; /* the built-in default's speed on this shape (0: it failed) */
    double seconds;        /* median time of one call with config */
    size_t evaluated;      /* candidates tried, including the failed ones below */
    size_t failed;         /* did not build or launch */
    size_t wrong;          /* ran but computed a wrong result */
    /* Added in 0.2: the rest of the key the result is saved under, as in the options (the
     * transposes folded: 0 becomes CLGEMM_NO_TRANS, CONJ_TRANS of a real type CLGEMM_TRANS). A
     * result filled in by hand with these zero is a 0.1 result: C of precision's type, NN. */
    int wide_c;
    clgemm_transpose trans_a, trans_b;
    size_t batch; /* added in 0.2 too, as in the options (0: one matrix) */
} clgemm_tune_result;

/* Fills options with the defaults: single precision, no shapes, a 600 s budget, no limit on
 * evaluations, full search, no callback, no cancel flag. */
CLGEMM_API void clgemm_tune_options_init(clgemm_tune_options *options);

/* The default shapes for this handle's device (squares: 128, 256, 512 on CPUs, 256, 1024, 4096
 * on other devices; only 256 when quick), up to max of them into shapes. Returns how many
 * there are (call with max 0 to count). */
CLGEMM_API size_t clgemm_tune_default_shapes(clgemm_handle handle, int quick,
                                             clgemm_tune_shape *shapes, size_t max);

/* How many candidates the search space holds for a family (CLGEMM_FAMILY_AUTO: all families
 * searched) on this device, after removing those the device cannot run. */
CLGEMM_API clgemm_status clgemm_tune_space(clgemm_handle handle, clgemm_precision precision,
                                           int quick, clgemm_family family, size_t *count);

/* Tunes each of options->num_shapes shapes; results has room for num_shapes results, which
 * are filled in order (also for the shapes not reached when cancelled: complete 0).
 * CLGEMM_SUCCESS if at least one shape has a result, else the first shape's status; bad
 * arguments (and CLGEMM_ERR_NO_FP64) are returned before anything runs. */
CLGEMM_API clgemm_status clgemm_tune(clgemm_handle handle, const clgemm_tune_options *options,
                                     clgemm_tune_result *results);

/* Merges the successful, complete results into the tuning database at path (NULL: the chain
 * of clgemm_load_tuning), keyed by this handle's device identity, types, transposes, shape and
 * batch class (one matrix, 2-15, 16-255, 256 or more; an older database, schema 1 or 2, is
 * rewritten as schema 3, its entries kept as single-matrix entries), with how
 * much the search covered. An entry of the same key is replaced only by a result that was
 * measured faster than it in the same run (the tuner also times the configuration the handle's
 * table holds for the shape) or that came from a search at least as full; a shorter search
 * never replaces a longer one. A symlink at path is followed. Safe against concurrent writers;
 * the parent folder is created if missing. A result with an unknown precision, a wide_c its
 * type lacks or an unknown transpose gives CLGEMM_ERR_INVALID_ARGUMENT. A malformed database, or
 * one of another schema, is left untouched and its status returned. With nothing to save (count 0,
 * or no complete result) it only checks that the database can be read and written, creating its
 * folder: a tool can find a bad path before tuning. The handle itself keeps its table: call
 * clgemm_load_tuning to use the new entries. */
CLGEMM_API clgemm_status clgemm_tune_save(clgemm_handle handle, const char *path,
                                          const clgemm_tune_result *results, size_t count);

/* What the handle's last clgemm_tune call did, over all its shapes. A cost model ordered each
 * shape's candidates and pruned clear losers before anything was compiled; build_threads
 * threads (CLGEMM_TUNE_THREADS; default 1 on a CPU device, else min(4, cores); 0: none) prepared
 * the next candidates (build and one tiny run) while the current one was timed; every candidate got
 * a short timing, then the finalists (the fastest few, the baseline and the stored configuration)
 * were re-timed with more runs and the best median won. Seconds: compile_s sums the threads'
 * preparations and the first (building) runs on the timing thread, so with threads it can exceed
 * wall_s. */
typedef struct clgemm_tune_stats {
    size_t considered;     /* candidates in the shapes' spaces, before pruning */
    size_t pruned;         /* dropped by the cost model, never compiled */
    size_t compiled_ahead; /* prepared by the threads */
    size_t compiled;       /* timed without being prepared ahead (a cache may have had them) */
    size_t timed;          /* evaluated: checked and briefly timed (or failed) */
    size_t finalists;      /* re-timed with more runs */
    int build_threads;
    double compile_s;  /* building: threads plus the timing thread's first runs */
    double wait_s;     /* the timing thread waiting for builds under way (and at the end) */
    double timing_s;   /* checking and briefly timing */
    double finalist_s; /* re-timing the finalists */
    double wall_s;     /* the whole call */
} clgemm_tune_stats;

/* Fills stats for the handle's last clgemm_tune; CLGEMM_ERR_INVALID_ARGUMENT if it ran none. */
CLGEMM_API clgemm_status clgemm_tune_stats_get(clgemm_handle handle, clgemm_tune_stats *stats);

/* Writes the path the tuning database has for this path argument (NULL: the default chain)
 * into buf (size bytes). */
CLGEMM_API clgemm_status clgemm_tuning_path(const char *path, char *buf, size_t size);

/* ---- End of tuning -------------------------------------------------------------------------- */

#ifdef __cplusplus
}
#endif

#endif /* CLGEMM_H */
