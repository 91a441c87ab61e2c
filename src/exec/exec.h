/* exec.h: the interface of src/exec/, the layer that runs calls: the handle and what the handles
 * of one device share, argument checks, and one GEMM call to its enqueue. The program layer
 * (src/build/) is below it; the tuner (src/tune/) is the only layer above it. */
#ifndef CLGEMM_EXEC_H
#define CLGEMM_EXEC_H

#include "build/build.h"
#include "plan/plan.h"

#include <pthread.h>
#include <sys/stat.h>

/* ---- tensor_map.c: Hopper's tensor maps (TMA descriptors) for OpenCL buffers --------------- */

/* One operand as the kernel copies it: `batch` matrices of `rows` rows of `cols` contiguous
 * elements, `ld` elements from row to row and `stride` from matrix to matrix, the first element
 * at device address `address` (a buffer's address plus its offset in bytes), copied in boxes of
 * box_rows x box_cols elements with a swizzle of `swizzle` bytes (0, 32, 64 or 128). */
typedef struct tensor_map_request {
    clgemm_precision type;
    size_t rows, cols, ld;
    size_t batch, stride;
    cl_ulong address;
    unsigned box_rows, box_cols;
    unsigned swizzle;
} tensor_map_request;

/* cuTensorMapEncodeTiled's arguments, in its terms (dimension 0 the contiguous one): always
 * rank 3 (columns, rows, matrices), so one kernel serves one matrix and batches. */
typedef struct tensor_map_params {
    int data_type; /* CUtensorMapDataType */
    unsigned rank;
    cl_ulong address;
    cl_ulong dims[3];
    cl_ulong strides[2]; /* bytes of dimensions 1 and 2 */
    unsigned box[3];
    unsigned element_strides[3];
    int interleave, swizzle, l2_promotion, oob_fill; /* the CUtensorMap* enums */
} tensor_map_params;

#define TENSOR_MAP_REFUSALS(X)                                                                     \
    X(TMAP_OK, "mappable")                                                                         \
    X(TMAP_TYPE, "no tensor-map data type for this element type")                                  \
    X(TMAP_BASE, "first element not on a 16-byte boundary")                                        \
    X(TMAP_PITCH, "leading dimension not a multiple of 16 bytes")                                  \
    X(TMAP_PITCH_SHORT, "leading dimension shorter than a row")                                    \
    X(TMAP_STRIDE, "batch stride not a multiple of 16 bytes, or 0 (a broadcast operand)")          \
    X(TMAP_DIMS, "a dimension is 0 or past 2^32, or a stride past 2^40 bytes")                     \
    X(TMAP_BOX, "a box side is 0 or past 256 elements")                                            \
    X(TMAP_BOX_INNER, "box row not a multiple of 16 bytes, or wider than the swizzle")             \
    X(TMAP_SWIZZLE, "swizzle not 0, 32, 64 or 128 bytes")
/* The enumerator of an X-macro row, for both lists here (their texts: tensor_map.c). */
#define TMAP_ENUM(name, text) name,
typedef enum tensor_map_refusal { TENSOR_MAP_REFUSALS(TMAP_ENUM) } tensor_map_refusal;
const char *clgemm__tensor_map_refusal_string(tensor_map_refusal r);

/* The encode parameters of a request, or why it cannot be mapped (the driver's documented rules,
 * checked here so that a refusal is a reason, not an error code). A pure function. */
tensor_map_refusal clgemm__tensor_map_params(const tensor_map_request *req, tensor_map_params *out);
/* Its layout rules alone (TMAP_BASE, TMAP_PITCH, TMAP_STRIDE: first element, leading dimension
 * and batch stride on 16 bytes, no broadcast), which no box or configuration changes. */
tensor_map_refusal clgemm__tensor_map_layout(const tensor_map_request *req);

/* What an operand needs before a tensor map can cover it: MAP as it is; PACK into an aligned
 * scratch copy (a misaligned first element, a leading dimension or batch stride that is not a
 * multiple of 16 bytes: 4097^2, odd offsets), whose leading dimension and stride *packed_ld and
 * *packed_stride give; NONE: not even then (the reason in *why). A pure function. */
typedef enum tensor_map_route { TMAP_ROUTE_MAP, TMAP_ROUTE_PACK, TMAP_ROUTE_NONE } tensor_map_route;
tensor_map_route clgemm__tensor_map_route(const tensor_map_request *req, size_t *packed_ld,
                                          size_t *packed_stride, tensor_map_refusal *why);

/* The CUDA driver library behind the encoding: loaded at first use ($CLGEMM_CUDA_LIBRARY, else
 * libcuda.so.1), only for NVIDIA compute capability 9.0, the CUDA device matched to the OpenCL
 * one by PCI address (or the only one), its primary context made current for each encode. Any
 * failure is an answer, never an error: the family that needs it reports itself unsupported. */
#define TENSOR_MAP_SERVICE(X)                                                                      \
    X(TMAP_SERVICE_OK, "tensor maps available")                                                    \
    X(TMAP_SERVICE_NOT_HOPPER, "not an NVIDIA device of compute capability 9.0")                   \
    X(TMAP_SERVICE_NO_LIBRARY, "the CUDA driver library could not be loaded")                      \
    X(TMAP_SERVICE_NO_SYMBOL, "the CUDA driver library lacks a function (cuTensorMapEncodeTiled)") \
    X(TMAP_SERVICE_INIT_FAILED, "cuInit failed")                                                   \
    X(TMAP_SERVICE_NO_DEVICE, "no CUDA device matches the OpenCL device")                          \
    X(TMAP_SERVICE_NO_CONTEXT, "the device's primary CUDA context could not be made current")      \
    X(TMAP_SERVICE_ENCODE_FAILED, "cuTensorMapEncodeTiled refused the map")
typedef enum tensor_map_service { TENSOR_MAP_SERVICE(TMAP_ENUM) } tensor_map_service;
#undef TMAP_ENUM
const char *clgemm__tensor_map_service_string(tensor_map_service s);
/* Whether maps can be encoded for the device (asked once per device: device_state.c). */
tensor_map_service clgemm__tensor_map_service(const device_info *info);
/* Encodes the 128-byte map (64-byte aligned) for the device. */
tensor_map_service clgemm__tensor_map_encode(const device_info *info, const tensor_map_params *p,
                                             unsigned char map[128]);
/* Whether CUDA's "dddd:bb:dd.f" names the PCI device info describes. A pure function. */
bool clgemm__pci_matches(const device_info *info, const char *cuda_bus_id);

/* ---- device_address.c: a buffer's device address --------------------------------------------- */

struct clgemm_handle_s;
/* The device address of the buffer's first byte on the handle's device, read by a one-line
 * kernel on a queue of its own at the first ask and cached, with a reference to the buffer, until
 * a sweep finds the caller's references gone. Takes no handle lock: the call path asks with
 * the handle's lock held. */
clgemm_status clgemm__device_address(struct clgemm_handle_s *h, cl_mem buffer, cl_ulong *address);
/* Releases the cached buffers nobody else holds (every GEMM call starts with it; unless another
 * thread is sweeping, then it returns at once). */
void clgemm__device_address_sweep(void);
/* Releases every cached buffer of the context (a handle's destroy). */
void clgemm__device_address_forget(cl_context context);
/* How many buffers' addresses are cached now (tests). */
size_t clgemm__device_address_cached(void);

/* ---- operand_maps.c: the tensor maps of a call's A and B ------------------------------------- */

/* One operand of the column-major problem as a map-reading kernel copies it: `k_major` when K is
 * its contiguous dimension (a transposed A, an untransposed B), `mn` its length along M (A) or
 * N (B); offset, leading dimension and batch stride in elements. */
typedef struct map_operand {
    cl_mem mem;
    size_t off, ld, stride;
    bool k_major;
    size_t mn;
} map_operand;
/* The bytes of a call's maps: A's, B's, then, in the 3xTF32 mode, their residuals' (128 each). */
#define CLGEMM__MAPS_BYTES 512
/* The 128-byte maps of A and B, and of their residuals where ra and rb are not NULL (else those
 * bytes are zeros), into maps (64-byte aligned, as the encoder wants) for configuration cfg of a
 * tensor-map family over K depth k and `batch` matrices. False when a map cannot describe an
 * operand (its base or leading dimension off 16 bytes, a broadcast, a dimension out of range) or
 * the driver refuses one: the caller then plans the call without the family, and the user sees
 * no error. */
bool clgemm__operand_maps(struct clgemm_handle_s *h, clgemm_precision type,
                          const clgemm_config *cfg, size_t k, size_t batch, const map_operand *a,
                          const map_operand *b, const map_operand *ra, const map_operand *rb,
                          unsigned char maps[CLGEMM__MAPS_BYTES]);
/* Whether the layout of a and b lets maps describe them (clgemm__tensor_map_layout: first
 * element, leading dimension and batch stride on 16 bytes, no broadcast), a rule no configuration
 * changes: the planner offers a map-reading family only then (clgemm__plan_call), so that the
 * maps its plan needs can be made. */
bool clgemm__operands_mappable(clgemm_precision type, size_t k, size_t batch, const map_operand *a,
                               const map_operand *b);
/* A read-only buffer holding these map bytes (caller holds the handle's lock): one of the
 * handle's recent ones with the same bytes, else a new one, the bytes copied in at creation (so
 * the call needs no write on its queue and no wait), taking the least recently used slot. The
 * handle owns it: the caller only sets it as an argument (a slot's buffer, once replaced, lives
 * on in the kernels already enqueued with it, as OpenCL keeps what they use). */
cl_int clgemm__maps_buffer(struct clgemm_handle_s *h, const unsigned char maps[CLGEMM__MAPS_BYTES],
                           cl_mem *out);
/* The handle's map buffers released (handle destruction). */
void clgemm__maps_buffers_free(struct clgemm_handle_s *h);

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
    bool held;     /* taken by a call still enqueueing what uses it (a pack's copies) */
    size_t zeroed; /* bytes from the start that are zero once `busy` completes: a persistent
                      stream-K launch's counters, which its last parts reset (gemm.c) */
} split_workspace;

/* Recent tensor-map buffers of a handle (operand_maps.c): a warm call over the same operands
 * encodes the same bytes, and a buffer made per call cost the H200 about 70 us a call. Never
 * written after creation, so a kernel in flight never sees its bytes change. */
#define CLGEMM__MAP_BUFFERS 8
typedef struct map_buffer {
    cl_mem mem; /* NULL: an empty slot */
    unsigned long long used;
    unsigned char maps[CLGEMM__MAPS_BYTES];
} map_buffer;

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
    bool allow_tf32; /* CLGEMM_ALLOW_TF32=1 when the handle was made */
    /* TF32's MN-major A read into registers, not copied: CLGEMM_TMA_A_REGISTERS=1 (1), =0 never
     * (0), else (-1) the default, which is to read it (clgemm__maps_a_any_major). */
    int tma_a_registers;
    /* Operands off 16 bytes copied onto 16-byte lines first (pack.c's alignment copies):
     * CLGEMM_ALIGN_COPIES=1 (1), =0 never (0), else (-1) the default. */
    int align_copies;
    /* FP32 operands stored K-major copied transposed first, so that the tma_simt family reads
     * both MN-major (pack.c): CLGEMM_MN_MAJOR_COPIES=1 (1), =0 never (0), else (-1) the default. */
    int mn_major_copies;
    device_state *dev;    /* shared with the other handles of this device and context */
    pthread_mutex_t lock; /* guards everything below */
    kernel_table kernels;
    int ksplit;       /* CLGEMM_KSPLIT when the handle was made (0: unset) */
    long batch_chunk; /* CLGEMM_BATCH_CHUNK when the handle was made (0: unset) */
    int streamk;      /* CLGEMM_STREAMK when the handle was made (-1: unset, 0: off, n: groups) */
    int streamk_tail; /* its ",1" or ",2": waves' worth of tiles stream-K shares (0: default) */
    int peel;         /* CLGEMM_PEEL when the handle was made (-1: unset, 0: never, 1: always) */
    int pack_kc;      /* CLGEMM_PACK_KC when the handle was made (0: unset, -1: never, n: depth) */
    int tail;         /* CLGEMM_TAIL when the handle was made (0: unset, -1: never, 1: always, n:
                         waves of n work-groups) */
    char *build_log;
    struct tune_memo *last_tune; /* what the last clgemm_tune searched (tuner.c) */
    bool has_override[CLGEMM_PRECISION_COUNT];
    clgemm_config override[CLGEMM_PRECISION_COUNT];
    shared_tuning *tuning_ref; /* the table in use (the device's default, or one loaded) */
    tuning_table *tuning;      /* tuning_ref->table, or NULL */
    split_workspace work[CLGEMM__WORKSPACES];
    arg_cache args; /* of the last GEMM kernel whose arguments a call set */
    map_buffer map_buffers[CLGEMM__MAP_BUFFERS];
    unsigned long long map_clock; /* the last slot use's stamp */
};

/* The handle's build log sink: a build's log replaces the handle's last one (clgemm_build_log);
 * called without the handle's lock. */
build_log_sink clgemm__handle_log_sink(struct clgemm_handle_s *h);

/* True if spec[0 .. len) (an index or a case-insensitive substring; empty matches all) names
 * entry number `index` called `name` (the syntax of CLGEMM_DEVICE's two sides; multi.c too). */
bool clgemm__spec_matches(const char *spec, size_t len, cl_uint index, const char *name);
/* Held around every platform / device enumeration (PoCL's first one is not thread-safe). */
extern pthread_mutex_t clgemm__enumeration_lock;

/* ---- check.c, gemm.c: one GEMM call's checks and its enqueue --------------------------------- */

/* A call's A ([0]) and B ([1]) split for the 3xTF32 mode on a tensor-map family (pack.c): each
 * element x as big, x rounded to TF32, and small, x - big rounded to TF32, two matrices laid out
 * as the operand is stored (leading dimension ld, batch stride), at elements big[] and small[] of
 * mem. The kernel adds small(A) big(B) and big(A) small(B) to big(A) big(B); the call's own A and
 * B stay as they are (a plan without the family reads them). `on` false: none; mem NULL while the
 * call is only planned. */
typedef struct residual_operands {
    bool on;
    cl_mem mem;
    size_t big[2], small[2], ld[2], stride[2];
    bool whole[2]; /* the call's operand read whole, its kernel splitting it (cl/tma.cl AREG3) */
} residual_operands;

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
    /* FP32 in the 3xTF32 mode on a tensor-map family (pack.c): A and B split in two. */
    residual_operands residual;
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

/* Whether the tensor-map families read operands of this type and compute mode K-major only: FP32
 * in the TF32 modes and the 8-bit types, which wgmma does not transpose (FP32 in the default
 * mode runs on the CUDA cores, tma_simt, which read either way). */
bool clgemm__maps_k_major_only(clgemm_precision type, clgemm_compute compute);
/* Whether the column-major A of such a call may be MN-major all the same: TF32 and 3xTF32, whose
 * kernel loads it into registers (3xTF32 then splits it there, so it is read whole:
 * residual_operands.whole) instead of a copy being made first, unless the handle's
 * CLGEMM_TMA_A_REGISTERS says 0 (call_plan.c says why by default). */
bool clgemm__maps_a_any_major(clgemm_handle h, clgemm_precision type, clgemm_compute compute);
/* The kernel's A and B of a call in its column-major shape, as its tensor maps describe them. */
void clgemm__map_operands(const gemm_call *call, const colmajor_shape *shape, map_operand *a,
                          map_operand *b);
/* The same for the big (small false) or small parts of A and B in the 3xTF32 mode
 * (call->residual: their memory, offsets, leading dimension and batch strides). */
void clgemm__map_parts(const gemm_call *call, const colmajor_shape *shape, bool small,
                       map_operand *a, map_operand *b);
/* A handle's forcing settings (CLGEMM_KSPLIT, CLGEMM_STREAMK, CLGEMM_PACK_KC, ...) from the
 * environment; a value that is not what the variable takes counts as unset (handle.c). */
void clgemm__handle_read_environment(struct clgemm_handle_s *h);
/* The plan of a call in its column-major shape: the configuration (clgemm__plan) and the
 * schedule (clgemm__plan_schedule, with the handle's forcing settings; table: a batch by table)
 * in one value. Planned without the families that read their operands through tensor maps
 * (family_desc.tensor_maps) where no map can describe the operands as stored (a batch table,
 * TF32 stored MN-major, clgemm__operands_mappable), and where `maps` is false (an encoding the
 * driver refused for this call). */
gemm_schedule clgemm__plan_call(struct clgemm_handle_s *h, const gemm_call *call,
                                const colmajor_shape *shape, clgemm_compute compute, size_t batch,
                                bool table, bool maps, const char **source);

/* Whether every matrix of the call's A (second false) or B starts on a 16-byte boundary and
 * keeps its lines on them: base offset, leading dimension, and the batch stride or every table
 * offset (call_plan.c). */
bool clgemm__operand_on16(const gemm_call *call, bool second);

/* ---- pack.c: operands copied into a form a tensor-map family reads -------------------------- */

/* Which of the call's A (0) and B (1) are copied, where in the workspace (elements), how many
 * bytes it needs, and the copied call's schedule. */
typedef struct pack_choice {
    bool pack[2];
    bool keep_layout[2]; /* the copy keeps the operand's layout on 16-byte lines (not transposed) */
    size_t offset[2];
    bool residual;           /* the 3xTF32 mode: A and B split in two too */
    size_t big[2], small[2]; /* where their parts lie (elements), after the copies */
    bool whole[2];           /* an operand not split: the kernel splits it (AREG3) */
    size_t bytes;
    gemm_schedule schedule; /* the plan of the call over the copies */
    const char *source;     /* where its configuration came from (clgemm__plan_choose) */
} pack_choice;
/* Whether copying A and / or B first lets the planner take a tensor-map family for a call it
 * otherwise could not (TF32 stored MN-major, rows off 16 bytes), or, in the 3xTF32 mode, A and B
 * split in two (always both) let it: only on a device with maps; or, for FP32 in the default mode,
 * whether K-major operands copied transposed let it take tma_simt over both operands MN-major (the
 * handle's mn_major_copies); or, failing that, whether
 * copies of the operands off 16 bytes onto 16-byte lines in their own layout let the planned
 * family build its aligned kernel (the handle's align_copies); never for a batch table or a
 * broadcast operand (caller holds the handle's lock). */
bool clgemm__pack_choose(struct clgemm_handle_s *h, const gemm_call *c, clgemm_compute compute,
                         pack_choice *out);
/* The copies' offsets (and the split parts', where p->residual) and the workspace's size for
 * the operands p->pack names. */
void clgemm__pack_layout(const gemm_call *c, pack_choice *p);
/* The call over the copies in `work`: each copied operand with the other transpose (the same
 * where p->keep_layout[x]), its offset, 16-byte leading dimension and batch stride; op(A) and
 * op(B) unchanged; the split parts' places where p->residual. */
gemm_call clgemm__packed_call(const gemm_call *c, const pack_choice *p, cl_mem work);
/* The copy kernel's key, build options and name for the call's type: cl/pack.cl's
 * "clgemm_pack_transpose", or "clgemm_pack_lines" where the copies keep the layout. */
const char *clgemm__pack_kernel(const gemm_call *c, bool keep_layout, kernel_key *key,
                                const char **options);
/* Enqueues the copy of the call's A (second false) or B into work at `offset` elements, after
 * the wait list, with the kernel of clgemm__pack_kernel's key (the same keep_layout). */
cl_int clgemm__enqueue_pack(cl_kernel kernel, cl_command_queue queue, const gemm_call *c,
                            bool second, bool keep_layout, cl_mem work, size_t offset,
                            cl_uint num_wait, const cl_event *wait, cl_event *event);
/* The split kernel's key and build options (cl/pack.cl, "clgemm_pack_split"). */
void clgemm__residual_kernel(kernel_key *key, const char **options);
/* Enqueues the split of the call's A (second false) or B into q->residual's places, q being a
 * call over copies with its parts placed (clgemm__packed_call), after the wait list. */
cl_int clgemm__enqueue_residual(cl_kernel kernel, cl_command_queue queue, const gemm_call *q,
                                bool second, cl_uint num_wait, const cl_event *wait,
                                cl_event *event);

/* One K-block of op(A) or op(B) for the blocked schedule (gemm.c): element (r, q), r along the
 * panels (M of op(A), N of op(B)) and q along K, at off + r * rs + q * qs of mem; `rows` rows,
 * `depth` steps, panels of `width` rows. */
typedef struct panel_source {
    cl_mem mem;
    cl_ulong off, rs, qs;
    cl_int rows, depth, width;
} panel_source;
/* cl/pack.cl's panel kernels: one panel a work-item, runs of panels, two operands' panels. */
typedef enum { PANELS_ONE, PANELS_RUNS, PANELS_PAIR } panel_copy;
/* That kernel's key and build options for elements of `type`; returns its name. */
const char *clgemm__pack_panels_kernel(clgemm_precision type, panel_copy how, kernel_key *key,
                                       const char **options);
/* Panels a work-item copies from `src` (elements of elem_size bytes): 1, clgemm_pack_panels';
 * more, clgemm_pack_panel_runs'. */
int clgemm__pack_panels_run(const panel_source *src, size_t elem_size);
/* Sets that kernel's arguments for copying `src` to work at `offset` elements, and its launch
 * geometry. */
cl_int clgemm__pack_panels_args(cl_kernel kernel, const panel_source *src, int run, cl_mem work,
                                size_t offset, size_t global[2], size_t local[2]);
/* The same for clgemm_pack_panel_pair: b to work at b_offset elements and a at a_offset, in one
 * launch (both one panel a work-item, of one depth). */
cl_int clgemm__pack_panel_pair_args(cl_kernel kernel, const panel_source *b, size_t b_offset,
                                    const panel_source *a, size_t a_offset, cl_mem work,
                                    size_t global[2], size_t local[2]);

#endif /* CLGEMM_EXEC_H */
