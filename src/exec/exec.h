/* exec.h: the interface of src/exec/, the layer that runs calls: the handle and what the handles
 * of one device share, argument checks, and one GEMM call to its enqueue. The program layer
 * (src/build/) is below it; the tuner (src/tune/) is the only layer above it. */
#ifndef CLGEMM_EXEC_H
#define CLGEMM_EXEC_H

#include "build/build.h"
#include "plan/plan.h"

#include <pthread.h>
#include <sys/stat.h>

/* ---- device_state.c: what the handles of one device share ------------------------------------ */

/* A parsed tuning table shared by handles (immutable; freed with its last reference). */
typedef struct shared_tuning {
    int refs;
    tuning_table *table;
} shared_tuning;

typedef struct device_state {
    program_device build;  /* the key (context, device), its facts and programs */
    int refs;              /* handles using it */
    shared_tuning *tuning; /* the default database's table (states_lock) */
    char tuning_path[4096];
    struct stat tuning_file; /* identity of the file it was read from */
    struct device_state *next;
} device_state;

/* The state of (context, device), made on first use, and a reference to its default tuning
 * table (re-read if the file changed). */
clgemm_status clgemm__device_acquire(cl_context context, cl_device_id device, device_state **out,
                                     shared_tuning **tuning);
void clgemm__device_release(device_state *state);
/* A table in a reference of its own (freed on failure: NULL), and dropping one. */
shared_tuning *clgemm__tuning_share(tuning_table *table);
void clgemm__tuning_unshare(shared_tuning *shared);

/* ---- handle.c ------------------------------------------------------------------------------- */

/* Split-K workspaces of a handle. A call takes one that no call still uses (its last kernel's
 * event has completed), so calls never wait on each other, on any queue; when all are busy it
 * uses a buffer of its own, released as soon as it is enqueued (OpenCL frees it after the
 * kernels). */
#define CLGEMM__WORKSPACES 4
typedef struct split_workspace {
    cl_mem mem;
    size_t bytes;
    cl_event busy; /* NULL, or completes when the last call using `mem` is done */
} split_workspace;

/* The scalar arguments last set on one GEMM kernel (gemm.c): an argument keeps its value from
 * launch to launch, and warm calls of one shape repeat all of them. Buffers are not kept (a
 * released buffer's address may come back as another buffer). */
#define CLGEMM__CACHED_ARGS 24
typedef struct arg_cache {
    cl_kernel kernel;                        /* whose arguments these are; NULL: none */
    unsigned char size[CLGEMM__CACHED_ARGS]; /* of the value set; 0: unknown */
    unsigned char value[CLGEMM__CACHED_ARGS][16];
} arg_cache;

struct clgemm_handle_s {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    device_info info;
    bool allow_tf32;      /* CLGEMM_ALLOW_TF32=1 when the handle was made */
    device_state *dev;    /* shared with the other handles of this device and context */
    pthread_mutex_t lock; /* guards everything below */
    kernel_table kernels;
    int ksplit;       /* CLGEMM_KSPLIT when the handle was made (0: unset) */
    long batch_chunk; /* CLGEMM_BATCH_CHUNK when the handle was made (0: unset) */
    int streamk;      /* CLGEMM_STREAMK when the handle was made (-1: unset, 0: off, n: groups) */
    int streamk_tail; /* its ",1" or ",2": waves' worth of tiles stream-K shares (0: default) */
    int peel;         /* CLGEMM_PEEL when the handle was made (-1: unset, 0: never, 1: always) */
    char *build_log;
    struct tune_memo *last_tune; /* what the last clgemm_tune searched (tuner.c) */
    bool has_override[CLGEMM_PRECISION_COUNT];
    clgemm_config override[CLGEMM_PRECISION_COUNT];
    shared_tuning *tuning_ref; /* the table in use (the device's default, or one loaded) */
    tuning_table *tuning;      /* tuning_ref->table, or NULL */
    split_workspace work[CLGEMM__WORKSPACES];
    arg_cache args; /* of the last GEMM kernel whose arguments a call set */
};

/* True if spec[0 .. len) (an index or a case-insensitive substring; empty matches all) names
 * entry number `index` called `name` (the syntax of CLGEMM_DEVICE's two sides; multi.c too). */
bool clgemm__spec_matches(const char *spec, size_t len, cl_uint index, const char *name);
/* Held around every platform / device enumeration (PoCL's first one is not thread-safe). */
extern pthread_mutex_t clgemm__enumeration_lock;

/* ---- check.c, gemm.c: one GEMM call's checks and its enqueue --------------------------------- */

/* Everything a call passed, in the user's terms. alpha and beta are held as double: a float
 * converts to double and back exactly. Zero-initialise what a call does not set. */
typedef struct gemm_call {
    clgemm_precision precision; /* of A and B */
    clgemm_precision type_c;    /* of C: precision, or its wide_c */
    clgemm_compute compute;
    clgemm_layout layout;
    clgemm_transpose trans_a, trans_b;
    size_t m, n, k;
    double alpha, beta;       /* real parts */
    double alpha_im, beta_im; /* imaginary parts (complex types) */
    cl_mem a, b, c;
    size_t off_a, off_b, off_c;
    size_t lda, ldb, ldc;
    cl_command_queue queue;
    cl_uint num_wait;
    const cl_event *wait;
    cl_event *event;
    /* Batches. batched false: one matrix (the fields below unused). Strided: matrix b of A
     * starts at off_a + b * stride_a (0 broadcasts), and so on. Table (offs_a not NULL): matrix
     * b at offs_a[b] (off_* are 0) with alphas[b] and betas[b], scalars of the arithmetic type
     * of `precision`; alpha / beta above are then unused. */
    bool batched;
    size_t batch;
    size_t stride_a, stride_b, stride_c;
    const size_t *offs_a, *offs_b, *offs_c;
    const void *alphas, *betas;
} gemm_call;

/* Checks layout, transposes and leading dimensions, and computes how many elements each of A,
 * B and C spans from its first element (0 when it is not read). No OpenCL call. */
clgemm_status clgemm__check_shape(const gemm_call *call, size_t extent[3]);
/* Checks the types and compute mode of a call against each other and the device. */
clgemm_status clgemm__check_types(const struct clgemm_handle_s *h, const gemm_call *call);
/* CLGEMM_ERR_BATCH_OVERLAP when two matrices of the call's batch of C (strided or by table,
 * extent_c elements each) share an element. */
clgemm_status clgemm__check_overlap(const gemm_call *call, size_t extent_c);
/* Whether two matrices of `inner` x `outer` stored elements (inner contiguous, leading
 * dimension ld >= inner) whose first elements lie d elements apart share an element. */
bool clgemm__matrices_overlap(size_t d, size_t inner, size_t outer, size_t ld);
/* Checks everything a call passed (check.c) and computes each operand's extent (as
 * clgemm__check_shape); nothing is enqueued. */
clgemm_status clgemm__check_call(const struct clgemm_handle_s *h, const gemm_call *c,
                                 size_t extent[3]);
/* Checks everything, then enqueues the call. */
clgemm_status clgemm__gemm(struct clgemm_handle_s *h, const gemm_call *call);

/* ---- host_api.c: one GEMM on host arrays ---------------------------------------------------- */

/* The host-array call behind clgemm_gemm_ex_host; call->queue, when set, is a queue of the
 * handle's context that the copies and the multiply use instead of the handle's (multi.c). */
clgemm_status clgemm__host_gemm(clgemm_handle h, gemm_call *call, const void *a, const void *b,
                                void *c);

/* clgemm__plan_choose with the handle's device, its forced configuration for key->type_ab and
 * its tuning table (call_plan.c); the caller holds the lock. */
clgemm_config clgemm__plan(struct clgemm_handle_s *h, const tuning_key *key, clgemm_compute compute,
                           size_t m, size_t n, size_t k, size_t batch, const char **source);
/* A call as the kernels run it, column-major: a row-major C = op(A) op(B) is C^T = op(B)^T
 * op(A)^T over the same memory, so A and B trade places (swapped), and so do m and n, while
 * each operand keeps its transpose. The one place this swap is made (call_plan.c). */
typedef struct colmajor_shape {
    size_t m, n, k;
    clgemm_transpose trans_a, trans_b; /* of the column-major A and B */
    bool swapped;                      /* its A is the call's B */
} colmajor_shape;
colmajor_shape clgemm__colmajor_shape(const gemm_call *call);

/* The plan of a call in its column-major shape: the configuration (clgemm__plan) and the
 * schedule (clgemm__plan_schedule, with the handle's forcing settings; table: a batch by table)
 * in one value. */
gemm_schedule clgemm__plan_call(struct clgemm_handle_s *h, const gemm_call *call,
                                const colmajor_shape *shape, clgemm_compute compute, size_t batch,
                                bool table, const char **source);

#endif /* CLGEMM_EXEC_H */
