/* blas.h: internals of libclgemm_blas, the BLAS drop-in (?gemm_, ?syrk_, ?herk_, the rest of
 * Level 3 (level3.h) and their cblas_ names) that sends large calls to an OpenCL device through
 * clgemm's public API and the rest to the system BLAS. Every name here is hidden; only the BLAS
 * entry points are exported. */
#ifndef CLGEMM_BLAS_INTERNAL_H
#define CLGEMM_BLAS_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#define BLAS_EXPORT __attribute__((visibility("default")))

/* The four BLAS types; the order is the one of every table indexed by it. */
typedef enum blas_type { BLAS_S = 0, BLAS_D = 1, BLAS_C = 2, BLAS_Z = 3 } blas_type;
#define BLAS_TYPE_COUNT 4

/* One column-major GEMM call whose arguments have already passed reference BLAS's checks.
 * ta/tb are 'N', 'T' or 'C' (upper case; 'C' means conjugate only for c/z). alpha and beta
 * point at one element of the type (two floats/doubles for c/z). */
typedef struct blas_call {
    blas_type type;
    char ta, tb;
    int m, n, k;
    const void *alpha;
    const void *a;
    int lda;
    const void *b;
    int ldb;
    const void *beta;
    void *c;
    int ldc;
} blas_call;

/* Element size of a type in bytes, its letter ('s', ...) and its Fortran name ("DGEMM "). */
size_t clgemm__blas_elem(blas_type t);
char clgemm__blas_letter(blas_type t);

/* Settings read once from the environment (see settings.c for the variables). */
typedef struct blas_settings {
    double min_flops;     /* CLGEMM_BLAS_MIN_FLOPS: calls below this go to the system BLAS */
    int measured;         /* CLGEMM_BLAS_RULE: above it, the faster side (rule.c), not always
                             the device; off with CLGEMM_BLAS_MIN_FLOPS=0 (every call forced) */
    const char *fallback; /* CLGEMM_BLAS_FALLBACK: the system BLAS to dlopen, NULL: none */
    int log;              /* CLGEMM_BLAS_LOG: 0 silent, 1 summary at exit, 2 every call */
    size_t pool_bytes;    /* CLGEMM_BLAS_POOL_MB: bound of the device-buffer pool */
    int devices;          /* CLGEMM_BLAS_DEVICES: devices a call spreads over (0: all) */
    int block;            /* CLGEMM_BLAS_BLOCK: diagonal blocks of the Level-3 routines */
    int lapack_nb;        /* CLGEMM_BLAS_LAPACK_NB: LAPACK's block size with a device, 0: off,
                             -1: unset (lapack_block.c's default) */
} blas_settings;
const blas_settings *clgemm__blas_settings(void);
void clgemm__blas_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A monotonic clock in seconds, for the call lines of CLGEMM_BLAS_LOG=2. */
double clgemm__blas_seconds(void);

/* Where calls went, for CLGEMM_BLAS_LOG's summary and the tests. */
typedef enum blas_route {
    ROUTE_DEVICE = 0,  /* computed on the OpenCL device */
    ROUTE_SYSTEM = 1,  /* the system BLAS (below the threshold, no device, device failed) */
    ROUTE_BUILTIN = 2, /* the built-in host loops (no system BLAS could be loaded) */
    ROUTE_TRIVIAL = 3, /* quick return, or alpha == 0 / k == 0: C = beta * C on the host */
    ROUTE_ERROR = 4,   /* an argument error reported through xerbla */
} blas_route;
#define BLAS_ROUTE_COUNT 5
void clgemm__blas_count(blas_type t, blas_route r);
/* For the counters of ?syrk/?herk (syrk.c) and the other Level-3 routines (level3.c): under
 * CLGEMM_BLAS_LOG, summary runs at exit and reset in a forked child (whose summary counts its
 * own calls only); log_routes writes one summary line, nothing where no call came. */
void clgemm__blas_summary_at_exit(void (*summary)(void), void (*reset)(void));
void clgemm__blas_log_routes(blas_type t, const char *routine,
                             atomic_ulong counts[BLAS_ROUTE_COUNT]);

/* Whether alpha or beta is the real value v (0, 1), its imaginary part 0 for c/z (host.c). */
int clgemm__blas_scalar_is(blas_type t, const void *x, double v);

/* A GEMM at or above CLGEMM_BLAS_MIN_FLOPS in a process that may use the device: on the side
 * the measured rule picks (host: how to run it on the host), timed for the rule. 1 when the
 * device computed C; 0 when host did, *why saying why. Counts nothing. */
int clgemm__blas_gemm_above(const blas_call *call, double flops, void (*host)(const blas_call *),
                            const char **why);

/* Runs a checked call: chooses the route and computes C. */
void clgemm__blas_run(const blas_call *call);
/* Computes it on the host: the system BLAS, else the built-in loops. */
void clgemm__blas_run_host(const blas_call *call);

/* The system BLAS's ?gemm_ (NULL when none could be loaded, or it is this library itself) and
 * a symbol of it (for xerbla_ and friends). */
typedef void (*blas_gemm_fn)(const char *ta, const char *tb, const int *m, const int *n,
                             const int *k, const void *alpha, const void *a, const int *lda,
                             const void *b, const int *ldb, const void *beta, void *c,
                             const int *ldc, size_t la, size_t lb);
blas_gemm_fn clgemm__blas_system_gemm(blas_type t);
void *clgemm__blas_system_symbol(const char *name);

/* The built-in host GEMM (plain loops, any type) and C = beta * C. */
void clgemm__blas_host_gemm(const blas_call *call);
void clgemm__blas_scale_c(const blas_call *call);

/* Whether the device of the drop-in's calls (clgemm_create_default's; opened here if it was not
 * yet) is a GPU or accelerator, where copies cross a bus; 0 for a CPU device or none. */
int clgemm__blas_device_is_gpu(void);

/* The block size LAPACK's ILAENV answers (lapack_block.c): ispec and own are the call's ISPEC
 * and the answer of the LAPACK behind this library, setting CLGEMM_BLAS_LAPACK_NB (-1: unset),
 * limit the largest block the routine's panels bear at its size (0: any), which caps the GPU's
 * default but neither LAPACK's own answer nor a setting; device(type) says what the device for
 * the routine's type is (asked only where the answer depends on it). */
typedef enum lapack_device {
    LAPACK_NO_DEVICE = 0, /* none usable for the type, or a forked child */
    LAPACK_CPU_DEVICE = 1,
    LAPACK_GPU_DEVICE = 2, /* CL_DEVICE_TYPE_GPU or ACCELERATOR */
} lapack_device;
int clgemm__blas_lapack_block(int ispec, int own, int setting, int limit,
                              lapack_device (*device)(int type), int type);
/* The largest block the panels of LAPACK routine name (len characters, any case) bear at the
 * sizes n1, n2 of its ILAENV call: a thirty-second of the smaller where its panels are
 * unblocked (?geqrf and kin), 1 there for sizes unknown or under 32; 0 (any) for the other
 * routines. */
int clgemm__blas_lapack_panel_limit(const char *name, size_t len, const int *n1, const int *n2);

/* Whether this process was forked after the device was opened: its calls never go there. */
int clgemm__blas_device_forked(void);

/* Tries the device. 0: C holds the result (tiles the device could not finish were computed on
 * the host). Otherwise the device took none of the call and C is untouched. */
int clgemm__blas_device_gemm(const blas_call *call);

/* The device time and bytes of this thread's copies to and from the device so far; counted only
 * with CLGEMM_BLAS_LOG=2 (the copy queues profile then), for the call lines of the log. */
typedef struct blas_copy_clock {
    double seconds, bytes;
} blas_copy_clock;
blas_copy_clock clgemm__blas_copy_clock(void);

/* The measured size rule (rule.c): the shape class of a product op(A) op(B) of m x k and k x n
 * (whether each is transposed, which dimension is smallest), the group of a call at or above
 * CLGEMM_BLAS_MIN_FLOPS by kind, type, shape class, flops and the bytes a device call would copy
 * (-1 when the rule is off), whether a call of the group goes to the device (if not, host_why
 * says why, for the log), and what a call of it took where it ran. */
typedef enum rule_kind { RULE_GEMM = 0, RULE_SYRK = 1 } rule_kind;
#define RULE_KIND_COUNT 2
int clgemm__blas_rule_shape(char ta, char tb, int m, int n, int k);
int clgemm__blas_rule_group(rule_kind kind, blas_type t, int shape, double flops, double bytes);
int clgemm__blas_rule_device(int group, const char **host_why);
void clgemm__blas_rule_record(int group, int on_device, double flops, double seconds);
/* The bytes a device GEMM copies: A, B, C back, and C there unless beta is 0. */
double clgemm__blas_gemm_bytes(const blas_call *call);

/* A call at or above CLGEMM_BLAS_MIN_FLOPS for the rule (rule_run.c): its group's kind, type,
 * shape class, flops and bytes a device call would copy, and how to compute it on each side, given
 * arg. device returns 0 when it computed the result, otherwise it took none of the call (the output
 * untouched). */
typedef struct rule_call {
    rule_kind kind;
    blas_type type;
    int shape;
    double flops, bytes;
    int (*device)(const void *arg);
    void (*host)(const void *arg);
    const void *arg;
} rule_call;
/* Runs it on the side the rule picks (the host when the device fails; not refused in a forked
 * child: the caller decides that), timed, and records the time for the rule. 1 when the device
 * computed it; 0 when the host did, *why saying why. *seconds: what the side that computed it
 * took (a failed device attempt not included). Counts and logs nothing. */
int clgemm__blas_rule_run(const rule_call *r, const char **why, double *seconds);

/* Whether the device can take calls of a type (opens it on first use). */
int clgemm__blas_device_usable(blas_type t);

/* With CLGEMM_BLAS_DEVICES other than 1 and more than one device: the call across the devices
 * of clgemm_create_multi (multi.c). 0: C holds the result. Otherwise C is as it was (restored
 * if some devices had finished tiles) and the one-device path takes the call. */
int clgemm__blas_multi_gemm(const blas_call *call);

/* 'N', 'T', 'C' as clgemm's transpose ('C' conjugates only for c/z). */
#include <clgemm.h>
clgemm_transpose clgemm__blas_trans(blas_type t, char c);

/* The bounded pool of device buffers (pool.c). Acquires count buffers of at least bytes[i]
 * each, all or none, waiting while other threads hold what is needed; ids[] identify them for
 * the release. 0 on success; nonzero when the request can never fit or allocation fails. */
int clgemm__blas_pool_acquire(cl_context ctx, size_t limit, int count, const size_t *bytes,
                              cl_mem *out, int *ids);
void clgemm__blas_pool_release(int count, const int *ids);

/* Argument errors, as reference BLAS and CBLAS report them (report.c): xerbla_(name, info) for
 * the Fortran entry points; for the CBLAS ones cblas_xerbla(info, "cblas_?gemm", form, value)
 * for the order and letter arguments only (clgemm__blas_cblas_letters), and xerbla_ with the
 * Fortran number of the (for row_major, transposed) Fortran call for everything else, as reference
 * CBLAS's call of ?gemm_ does. */
void clgemm__blas_xerbla(blas_type t, int info);
void clgemm__blas_cblas_fortran_error(blas_type t, int info, int row_major);
/* The same for any routine: name is the Fortran one, six characters ("SSYRK "), rout the CBLAS
 * one ("cblas_ssyrk"). */
void clgemm__blas_xerbla_named(const char *name, int info);
void clgemm__blas_cblas_xerbla_named(const char *rout, int info, int row_major, const char *form,
                                     int value);
void clgemm__blas_cblas_fortran_error_named(const char *name, int info, int row_major);

/* One letter argument of a CBLAS routine (cblas_args.c): the CBLAS value given, and reference
 * CBLAS's map of the values first, first + 1, ... to the Fortran call's letters in each layout
 * ("NTC" for NoTrans, Trans, ConjTrans from 111; "UL" for Upper, Lower from 121), with the
 * cblas_xerbla number of a value outside it ("Illegal <name> setting, %d"). */
typedef struct cblas_letter {
    int value;
    int first;
    const char *col, *row;
    int info_col, info_row;
    const char *name;
} cblas_letter;
/* The layout and the letters of a CBLAS call, as reference CBLAS checks and maps them: 0 with
 * out[i] the Fortran letter of args[i], else the info reported through cblas_xerbla (rout:
 * "cblas_dsyrk"). What the Fortran routine then refuses is its check's to report. */
int clgemm__blas_cblas_letters(const char *rout, int layout, int count, const cblas_letter *args,
                               char *out);

/* Reference BLAS's argument checks for a column-major call: 0 or the INFO number. Normalises
 * ta/tb to upper case 'N', 'T', 'C' in the call. */
int clgemm__blas_check(blas_call *call);

#endif
