/* internal.h: declarations shared by the library's modules (never installed).
 * Internal non-static names start with clgemm__ and have hidden visibility. */
#ifndef CLGEMM_INTERNAL_H
#define CLGEMM_INTERNAL_H

#include "clgemm.h"

#include <pthread.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- device.c: who the device is and what it can do ---------------------------------------- */

typedef enum device_class {
    DEVICE_NVIDIA_GPU,
    DEVICE_AMD_GPU,
    DEVICE_INTEL_GPU,
    DEVICE_OTHER_GPU,
    DEVICE_CPU,
    DEVICE_CLASS_COUNT
} device_class;

typedef struct device_info {
    char platform_name[128];
    char platform_version[128];
    char vendor[128];
    char name[128];
    char driver_version[128];
    char device_version[128]; /* CL_DEVICE_VERSION ("OpenCL 3.0 PoCL HSTR: pthread-x86_64-...") */
    device_class cls;
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    cl_ulong local_mem_size;
    cl_uint compute_units;
    bool has_fp64;
    int nv_compute_capability; /* NVIDIA: major * 10 + minor (90 on Hopper); 0 elsewhere */
    bool nv_sm90a; /* compute capability 9.0 and its driver runs patched sm_90a PTX (program.c) */
    char board_name[128];      /* AMD: CL_DEVICE_BOARD_NAME_AMD ("AMD Radeon RX 6800 XT"), or "" */
    cl_uint intel_ip_version;  /* Intel: CL_DEVICE_IP_VERSION_INTEL (major << 22 | minor << 12 |
                                * revision: 12.55 on Arc), or 0 */
} device_info;

/* The architecture a device's defaults are chosen by (src/families/regblock_defaults.c): NVIDIA
 * by compute capability, AMD by gfx target, Intel by graphics generation, CPUs by the vector
 * instruction set of the LLVM target PoCL compiles for. TIER_UNKNOWN: none of these is
 * recognised, the device class's defaults apply. */
typedef enum device_tier {
    TIER_UNKNOWN,
    TIER_NV_VOLTA,        /* compute capability 7.0, 7.2 */
    TIER_NV_TURING,       /* 7.5 */
    TIER_NV_AMPERE,       /* 8.0 (A100) */
    TIER_NV_AMPERE_GA10X, /* 8.6, 8.7 (RTX 30, A6000, Orin) */
    TIER_NV_ADA,          /* 8.9 */
    TIER_NV_HOPPER,       /* 9.0 */
    TIER_AMD_GCN,         /* gfx6 to gfx9 except CDNA: Polaris, Vega, MI50/MI60 */
    TIER_AMD_CDNA,        /* gfx908, gfx90a, gfx94x, gfx950: Instinct MI100 and later */
    TIER_AMD_RDNA,        /* gfx10xx, gfx11xx, gfx12xx */
    TIER_INTEL_GEN9,      /* Gen9 to Gen11 (HD, UHD 6xx, Iris Plus) */
    TIER_INTEL_XE_LP,     /* Gen12 Xe-LP: Iris Xe, UHD 7xx (tgllp, rkl, adl, dg1) */
    TIER_INTEL_XE_HPG,    /* Xe-HPG and Xe-LPG: Arc, Data Center GPU Flex (dg2, mtl) */
    TIER_INTEL_XE_HPC,    /* Xe-HPC: Data Center GPU Max (pvc) */
    TIER_CPU_GENERIC,     /* x86 before AVX2 (SSE, AVX without FMA), LLVM's generic x86-64 */
    TIER_CPU_AVX2,        /* x86 with AVX2 and FMA: haswell to alderlake, znver1-3 */
    TIER_CPU_AVX512,      /* x86 with AVX-512: skylake-avx512, icelake, sapphirerapids, znver4-5 */
    TIER_CPU_NEON,        /* AArch64 with NEON only: cortex-a5x/a7x, neoverse-n1, apple-m* */
    TIER_CPU_SVE,         /* AArch64 with SVE: a64fx, neoverse-v1/v2/n2, cortex-x2 and later */
    TIER_COUNT
} device_tier;

clgemm_status clgemm__device_query(cl_device_id device, device_info *info);
/* device_tier.c: the vendor class of a device of this OpenCL type from its vendor string. */
device_class clgemm__device_classify(const device_info *info, cl_device_type type);
const char *clgemm__device_class_name(device_class cls);
/* The tier of a device from its class and identity (name, board_name, nv_compute_capability,
 * intel_ip_version, device_version); a pure function, so recorded devices and tests get it as a
 * queried one. */
device_tier clgemm__device_tier(const device_info *info);
const char *clgemm__device_tier_name(device_tier tier);

/* ---- types.c: the element types ----------------------------------------------------------- */

typedef struct type_desc {
    const char *name;         /* as in the tuning database and the tools: s d c z h bf16 */
    size_t size;              /* bytes of one stored element */
    size_t compute_size;      /* bytes of one element of the arithmetic (local memory, workspace) */
    clgemm_precision compute; /* the type the arithmetic runs in (FP32 for FP16 / BF16) */
    bool complex;
    bool fp64;               /* needs cl_khr_fp64 */
    clgemm_precision wide_c; /* a second type C may have (FP32 for FP16 / BF16), else itself */
} type_desc;

/* The row of a type; NULL for an unknown one. */
const type_desc *clgemm__type(clgemm_precision type);
/* The row named `name` ("s", ..., "bf16"), and its id in *type; NULL for an unknown name. */
const type_desc *clgemm__type_by_name(const char *name, clgemm_precision *type);
/* Whether A/B of type_ab with C of type_c is a combination the kernels compute. */
bool clgemm__types_ok(clgemm_precision type_ab, clgemm_precision type_c);

/* ---- families/registry.c: configurations of the registered families (family.h) ------------- */

/* Checks a configuration against its family's rules and the device's limits. */
clgemm_status clgemm__config_check(const clgemm_config *config, const device_info *info,
                                   clgemm_precision precision);
/* The built-in default for the device's class, for large problems (not yet checked against the
 * device). */
clgemm_config clgemm__config_default(const device_info *info, clgemm_precision precision);
/* The built-in default for a batch of m x n x k problems on this device: the largest-tiled of
 * the class's defaults that the device accepts and whose tiles (over the whole batch) still give
 * every compute unit a work-group (or, for one skinny or long-K matrix, enough K-slices to share
 * out), else the smallest it accepts. In a batch (batch > 1) a tile that pads a matrix by more
 * than a quarter is passed over: many small matrices fill the device anyway, and padding is pure
 * waste. A family that can neither split K nor stream it is passed over for a long K that its
 * tiles leave on a few compute units. */
clgemm_config clgemm__config_default_for(const device_info *info, clgemm_precision precision,
                                         clgemm_compute compute, size_t m, size_t n, size_t k,
                                         size_t batch);
/* Whether the configuration's family computes this type in this compute mode on the device. */
bool clgemm__config_supports(const clgemm_config *config, const device_info *info,
                             clgemm_precision precision, clgemm_compute compute);
/* The smallest square-tiled built-in default of the configuration's family that the device
 * accepts, else its smallest (the configuration itself if there is none): peeled strips. */
clgemm_config clgemm__config_smallest(const clgemm_config *config, const device_info *info,
                                      clgemm_precision precision);
/* A small configuration every OpenCL 1.2 device can run. */
clgemm_config clgemm__config_fallback(void);
/* Appends "-DNAME=value" for each parameter the family uses. Returns the length written, or a
 * negative value if buf is too small. */
int clgemm__config_options(const clgemm_config *config, char *buf, size_t size);
/* Work-group and global sizes for a col-major problem of m x n. */
void clgemm__config_launch(const clgemm_config *config, size_t m, size_t n, size_t local[2],
                           size_t global[2]);

/* ---- program.c: kernel sources, builds and the program caches ------------------------------- */

typedef struct program_cache program_cache;

/* Kernel sources: the family's code with the common header in front. Either embedded at build
 * time, or read from $CLGEMM_KERNEL_DIR. Returns a malloc'd string or NULL. */
char *clgemm__kernel_source(const char *file_name);

/* Whether the device runs patched sm_90a PTX (a probe build; false off NVIDIA compute capability
 * 9.0 without one), and the probe build itself on any device (*log: its two stages' logs). */
bool clgemm__sm90a_usable(cl_context context, cl_device_id device, const device_info *info);
bool clgemm__sm90a_probe(cl_context context, cl_device_id device, bool with_asm, char **log);
/* The disk-cache key of a program: device, driver, version, options, the PTX patch if the file's
 * family takes one, and the source (malloc'd). */
char *clgemm__program_key(const device_info *info, const char *file_name, const char *source,
                          const char *options);

/* The device's program for a kernel file and build options, built on first use (memory cache,
 * then disk cache, then source) under the device's lock; the caller releases the reference.
 * Called without the handle's lock. On a build failure the log goes to the handle. */
struct clgemm_handle_s;
clgemm_status clgemm__program(struct clgemm_handle_s *h, const char *file_name, const char *options,
                              cl_program *program);
void clgemm__program_cache_free(program_cache *cache);

/* ---- kernel_table.c: a handle's kernels by integer key --------------------------------------- */

/* Everything that makes one kernel differ from another (zero-initialise, then fill). */
typedef struct kernel_key {
    int family; /* a clgemm_family, or KERNEL_SCALE / KERNEL_REDUCE / KERNEL_FIXUP */
    int params[CLGEMM_MAX_PARAMS];
    unsigned char type_ab, type_c, compute;
    unsigned short flags; /* KEY_* bits */
} kernel_key;
enum { KERNEL_SCALE = -1, KERNEL_REDUCE = -2, KERNEL_FIXUP = -3 };
enum {
    KEY_TRANSA = 1,
    KEY_TRANSB = 2,
    KEY_CONJA = 4,
    KEY_CONJB = 8,
    KEY_ALIGNED_A = 16,
    KEY_ALIGNED_B = 32,
    KEY_TABLE = 64,    /* a batch with per-matrix offsets and scalars (BATCH_TABLE) */
    KEY_TABLE_C = 128, /* ... whose C offsets and beta the kernel applies (TABLE_C) */
    KEY_STREAMK = 256  /* the stream-K schedule (STREAMK) */
};

typedef struct kernel_slot {
    kernel_key key;
    cl_kernel kernel; /* NULL: empty slot */
} kernel_slot;
typedef struct kernel_table {
    kernel_slot *slots;
    size_t cap, count; /* cap a power of two */
} kernel_table;

cl_kernel clgemm__kernel_find(const kernel_table *table, const kernel_key *key);
clgemm_status clgemm__kernel_add(kernel_table *table, const kernel_key *key, cl_kernel kernel);
void clgemm__kernel_table_free(kernel_table *table);

/* ---- tuning_db.c: the JSON tuning database (the only JSON user) ----------------------------- */

typedef struct tuning_table tuning_table;

/* What a tuning entry is for besides its shape: the element types and the transposes of the
 * column-major problem the kernel runs. A row-major call C = op(A) op(B) runs as the
 * column-major C^T = op(B)^T op(A)^T, so it is keyed with A and B swapped: shape (n, m, k) and
 * transposes (trans_b, trans_a) of the user's call. The tuner tunes column-major calls, whose
 * keys are the user's own. On real types CLGEMM_CONJ_TRANS is CLGEMM_TRANS (clgemm__tuning_key
 * folds it). */
typedef struct tuning_key {
    clgemm_precision type_ab, type_c;
    clgemm_transpose trans_a, trans_b;
    int batch_class; /* clgemm__batch_class of the batch; 0 (one matrix) in a zeroed key */
} tuning_key;

/* The key of these types and transposes, for one matrix: 0 counts as CLGEMM_NO_TRANS, and
 * CONJ_TRANS of a real type as CLGEMM_TRANS. */
tuning_key clgemm__tuning_key(clgemm_precision type_ab, clgemm_precision type_c,
                              clgemm_transpose trans_a, clgemm_transpose trans_b);
/* The class of a batch of this many matrices (0 and 1: one matrix, class 0; then 2-15, 16-255
 * and 256 or more: classes 1 to 3; why these bounds: tuning_db.c), and the least batch of a
 * class. */
int clgemm__batch_class(size_t batch);
size_t clgemm__batch_class_least(int batch_class);
/* Whether a key names a type pair the kernels compute and transposes its type has. */
bool clgemm__tuning_key_ok(const tuning_key *key);
/* "NN", "NT", "NC", ...: the key's transposes (static storage). */
const char *clgemm__trans_name(clgemm_transpose trans_a, clgemm_transpose trans_b);

/* Loads the entries for this device from the database at path (NULL: the default path chain).
 * *table is NULL when the file is missing or has no entry for the device. Schema-1 files are
 * read too: their entries are NN entries with C of the A/B type; entries of schemas 1 and 2
 * (which had no "batch") are single-matrix entries (batch class 0). */
clgemm_status clgemm__tuning_load(const char *path, const device_info *info, tuning_table **table);
/* The entry nearest to (m, n, k) among those of the key's types, transposes and batch class;
 * when there is none with those transposes, the nearest NN entry of the key's types and batch
 * class. False if neither (entries of another batch class are never used: clgemm__plan decides
 * when a single-matrix entry may serve a batch). */
bool clgemm__tuning_lookup(const tuning_table *table, const tuning_key *key, size_t m, size_t n,
                           size_t k, clgemm_config *config);
void clgemm__tuning_free(tuning_table *table);
/* How many usable entries the table holds (0 for NULL). */
size_t clgemm__tuning_count(const tuning_table *table);

/* The exact entry for this key (batch class included) and shape (no NN fallback); false if
 * none. */
bool clgemm__tuning_exact(const tuning_table *table, const tuning_key *key, size_t m, size_t n,
                          size_t k, clgemm_config *config);

/* The largest database file that is parsed; a larger one gives CLGEMM_ERR_DB_IO. */
#define CLGEMM__TUNING_DB_MAX ((size_t)16 << 20)

/* How much a tuning search covered, stored with its entry. */
typedef struct tuning_search {
    size_t evaluated; /* candidates evaluated */
    bool exhaustive;  /* every candidate of the full search space was evaluated */
    double budget_s;  /* the time budget of the run (0: none) */
    size_t max_evals; /* its evaluation limit (0: none) */
    bool quick;       /* the curated --quick set */
} tuning_search;

/* One tuning result to store: the shape is the key, the problem what was measured. beat_valid:
 * in the same run, the configuration `beat` (the stored entry's) was measured too and this
 * result was at least as fast. */
typedef struct tuning_record {
    tuning_key key; /* normalised (clgemm__tuning_key), its batch class that of batch */
    size_t shape[3];
    size_t problem[3];
    size_t batch; /* the matrices each timed call computed (0 counts as 1) */
    clgemm_config config;
    double gflops;
    tuning_search search;
    bool beat_valid;
    clgemm_config beat;
} tuning_record;

/* Resolves the database path into buf: path, else $CLGEMM_TUNING_DB, else tuning.json in the
 * cache root (clgemm__cache_root). */
clgemm_status clgemm__tuning_path(const char *path, char *buf, size_t size);
/* Merges records for this device into the database (path NULL: the chain) under a lock file:
 * an entry of the same device, key and shape is replaced only by a record that beat it in
 * the same run or came from a search at least as full (see tuning_db.c), others are kept; the
 * file is replaced atomically (temporary file, fsync, rename). A symlink at the path is
 * followed to its target. An older file (schema 1 or 2) is rewritten as schema 3 with its
 * entries kept (as the NN or single-matrix entries they were read as). A record whose key's
 * batch class is not that of its batch is refused (CLGEMM_ERR_INVALID_ARGUMENT). A malformed or
 * newer-schema file is left alone and its status returned. With count 0 it only checks that a save
 * would work (a byte is written). */
clgemm_status clgemm__tuning_save(const char *path, const device_info *info,
                                  const tuning_record *records, size_t count);

/* ---- fileutil.c: the files the library keeps (tuning database, kernel cache) ----------------- */

/* The one cache-folder rule: $XDG_CACHE_HOME/clgemm when that is absolute (the XDG spec says to
 * ignore a relative value), else ~/.cache/clgemm. False if there is no home folder. */
bool clgemm__cache_root(char *buf, size_t size);
/* mkdir -p (folders get 0777 & ~umask): 0, or the errno of the step that failed (logged). */
int clgemm__mkdir_p(const char *path);
/* mkdir -p of the folder that holds path. */
int clgemm__mkdir_parent(const char *path);
/* fsync of the folder that holds path, so that a rename in it is durable. */
void clgemm__sync_parent(const char *path);

typedef enum file_status {
    FILE_OK,
    FILE_MISSING,
    FILE_NOT_REGULAR, /* FIFO, device, socket, folder, or a symlink when not followed */
    FILE_TOO_LARGE,
    FILE_NO_MEMORY,
    FILE_IO_ERROR
} file_status;

/* Reads a whole regular file of at most max bytes into a malloc'd, NUL-terminated buffer. Never
 * blocks: the file is opened non-blocking and its type checked with fstat before any read.
 * follow false: a symlink at path is refused (O_NOFOLLOW). */
file_status clgemm__read_file(const char *path, size_t max, bool follow, char **data, size_t *size);
const char *clgemm__file_status_string(file_status status);

/* Temporary files are named <path>.tmp.XXXXXX (six unpredictable characters). */
#define CLGEMM__TEMP_INFIX ".tmp."
/* Creates such a temporary next to path, exclusively (O_CREAT | O_EXCL | O_NOFOLLOW, mode
 * 0666 & ~umask); its name goes to tmp. The descriptor, or -1 with errno set. */
int clgemm__temp_create(const char *path, char *tmp, size_t tmp_size);
/* Replaces path atomically: temporary, write, fsync, rename over path (a symlink at path is
 * replaced, never followed), fsync of the folder. A replaced regular file keeps its mode. 0, or
 * an errno (logged); on failure path is untouched and no temporary is left. */
int clgemm__write_atomic(const char *path, const void *data, size_t size);
/* Removes the temporaries <prefix>.tmp.XXXXXX (prefix NULL: of any name) in dir that are at
 * least min_age_s old: the leftovers of a killed writer. */
void clgemm__remove_temps(const char *dir, const char *prefix, double min_age_s);

/* ---- build_lock.c: one build per kernel-cache entry across processes ------------------------ */

typedef struct build_lock {
    int fd; /* -1: not held */
    char path[4200];
} build_lock;

typedef enum build_lock_state {
    BUILD_LOCK_HELD,            /* this process builds: nobody else was building it */
    BUILD_LOCK_HELD_AFTER_WAIT, /* this process builds after another holder died */
    BUILD_LOCK_DONE,            /* another process built it meanwhile: read the entry */
    BUILD_LOCK_NONE             /* no lock to be had (folder unwritable or full, waited too
                                   long): build without one */
} build_lock_state;

/* Takes the lock of the cache entry entry_path (<hash>.bin, lock <hash>.lock), waiting while
 * another process holds it. Whatever the state, the caller reads the entry again before
 * building; it releases a held lock with clgemm__build_unlock after writing the entry. */
build_lock_state clgemm__build_lock(const char *entry_path, build_lock *lock);
void clgemm__build_unlock(build_lock *lock);
/* Removes the lock files in dir at least min_age_s old that nobody holds (killed builders'). */
void clgemm__remove_stale_locks(const char *dir, double min_age_s);

/* ---- device_state.c: what the handles of one device share ------------------------------------ */

/* A parsed tuning table shared by handles (immutable; freed with its last reference). */
typedef struct shared_tuning {
    int refs;
    tuning_table *table;
} shared_tuning;

typedef struct device_state {
    cl_context context; /* the key: programs belong to a context */
    cl_device_id device;
    int refs; /* handles using it */
    device_info info;
    char extra_options[512]; /* CLGEMM_BUILD_OPTIONS when it was made */
    pthread_mutex_t lock;    /* guards programs; held through a build */
    program_cache *programs;
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

/* ---- log.c: optional stderr logging (CLGEMM_LOG) -------------------------------------------- */

void clgemm__log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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

/* ---- fork.c: handles do not survive fork() ------------------------------------------------ */

/* Called before the library's first OpenCL call in a process (device enumeration, a handle's
 * creation): from then on a forked child is marked as such. */
void clgemm__fork_mark_used(void);
/* True in a process forked after the library used OpenCL (in it or an ancestor): nothing of
 * OpenCL may be touched, every handle call gives CLGEMM_ERR_FORKED. */
bool clgemm__forked(void);

/* ---- gemm.c: one GEMM call ------------------------------------------------------------------ */

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
/* Reads a scalar of the arithmetic type of `type` from p (alpha, beta of clgemm_gemm_ex). */
void clgemm__read_scalar(clgemm_precision type, const void *p, double *re, double *im);
/* Bytes of one scalar of the arithmetic type of `type` (the elements of alphas / betas). */
size_t clgemm__scalar_size(clgemm_precision type);
/* Whether two matrices of `inner` x `outer` stored elements (inner contiguous, leading
 * dimension ld >= inner) whose first elements lie d elements apart share an element. */
bool clgemm__matrices_overlap(size_t d, size_t inner, size_t outer, size_t ld);
/* CLGEMM_ERR_BATCH_OVERLAP when two matrices of the call's batch of C (strided or by table,
 * extent_c elements each) share an element. */
clgemm_status clgemm__check_overlap(const gemm_call *call, size_t extent_c);
/* Checks everything, then enqueues the call. */
clgemm_status clgemm__gemm(struct clgemm_handle_s *h, const gemm_call *call);

/* How many layers to split K into for this problem (1: none). Split-K gives a small or narrow
 * M x N with a long K enough work-groups to fill the device; forced > 0 (CLGEMM_KSPLIT=<n> when the
 * handle was made; tests, benches) forces that many. */
int clgemm__plan_splits(const clgemm_config *config, const device_info *info, int forced,
                        clgemm_precision type, size_t m, size_t n, size_t k, size_t batch);

/* How many work-groups share the tiles of this problem in a stream-K schedule (0: the plain
 * data-parallel grid; see cl/common.cl). Only for one matrix without a split K, on families
 * that have the schedule. forced (CLGEMM_STREAMK=<n> when the handle was made; tests, benches)
 * is -1 when unset, 0 for never, else that many work-groups. */
int clgemm__plan_streamk(const clgemm_config *config, const device_info *info, int forced,
                         clgemm_precision type, size_t m, size_t n, size_t k, size_t batch);

/* How much of one m x n matrix the configuration's tiles cover before a mostly empty last row
 * or column of tiles, which then runs apart in small tiles (*main_m, *main_n: m, n when nothing
 * is peeled). forced: -1 unset, 0 never, 1 whenever a partial tile is left (tests). */
void clgemm__plan_peel(const clgemm_config *config, const device_info *info, int forced, size_t m,
                       size_t n, size_t batch, size_t *main_m, size_t *main_n);

/* Picks the configuration for a column-major problem of m x n x k (batch matrices of it) with
 * this tuning key (see tuning_key); the caller holds the lock. */
clgemm_config clgemm__plan(struct clgemm_handle_s *h, const tuning_key *key, clgemm_compute compute,
                           size_t m, size_t n, size_t k, size_t batch, const char **source);
/* The same for a call: its types, and its transposes and sizes as the kernel runs them (a
 * row-major call swaps A and B, see tuning_key). */
clgemm_config clgemm__plan_call(struct clgemm_handle_s *h, const gemm_call *call,
                                clgemm_compute compute, size_t batch, const char **source);

#endif /* CLGEMM_INTERNAL_H */
