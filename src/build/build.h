/* build.h: the interface of src/build/, the program layer: kernel sources, program builds with
 * their memory and disk caches, one build per cache entry across processes, the patched-PTX
 * step, and a handle's kernel table. It knows a device (program_device) and where a build log
 * goes (build_log_sink), never a handle; src/exec/ above it owns both. */
#ifndef CLGEMM_BUILD_H
#define CLGEMM_BUILD_H

#include "families/family.h"

#include <pthread.h>

/* ---- program.c: kernel sources, builds and the program caches ------------------------------- */

typedef struct program_cache program_cache;

/* What the program layer builds for: one (context, device) with its facts and compiled programs,
 * shared by every handle of that device (src/exec/device_state.c holds one in each entry). */
typedef struct program_device {
    cl_context context;
    cl_device_id device;
    device_info info;
    char extra_options[512]; /* CLGEMM_BUILD_OPTIONS when it was made */
    pthread_mutex_t lock;    /* guards programs */
    program_cache *programs;
} program_device;

/* Where a build's log goes: keep(owner, log) takes the malloc'd log (the handle keeps its last
 * one for clgemm_build_log). */
typedef struct build_log_sink {
    void (*keep)(void *owner, char *log);
    void *owner;
} build_log_sink;

/* Fills d for (context, device): its facts, whether it runs patched sm_90a PTX (a probe build),
 * CLGEMM_BUILD_OPTIONS, an empty program cache. Retains nothing; the caller keeps context alive.
 * clgemm__program_device_free releases its programs. */
clgemm_status clgemm__program_device_init(program_device *d, cl_context context,
                                          cl_device_id device);
void clgemm__program_device_free(program_device *d);

/* The parts of a kernel file's source, in order: the common parts (types.cl, gemm_args.h,
 * common.cl), the parts its family names (family_desc.parts), the file itself; file_name NULL:
 * the common parts alone. Their number, or -1 when the family names more than fit. The one list:
 * the library joins these parts, and so do the tools that compile kernels outside it
 * (tests/kernel_parts.c). */
#define KERNEL_PARTS_MAX 8
int clgemm__kernel_source_parts(const char *file_name, const char *parts[KERNEL_PARTS_MAX]);
/* Kernel sources: those parts joined, each ended by a newline. Either embedded at build time, or
 * read from $CLGEMM_KERNEL_DIR. Returns a malloc'd string or NULL. */
char *clgemm__kernel_source(const char *file_name);

/* Whether the device runs patched sm_90a PTX (a probe build; false off NVIDIA compute capability
 * 9.0 without one), and the probe build itself on any device (*log: its two stages' logs). */
bool clgemm__sm90a_usable(cl_context context, cl_device_id device, const device_info *info);
bool clgemm__sm90a_probe(cl_context context, cl_device_id device, bool with_asm, char **log);
/* Whether the device's compiler takes FP8 mma.sync (m16n8k32 .e4m3 / .e5m2: PTX ISA 8.4 and
 * compute capability 8.9): a probe build, asked only of NVIDIA devices of 8.9 and up (no build
 * elsewhere). The mma family serves FP8 only where it holds (device_info.nv_fp8_mma). */
bool clgemm__fp8_mma_usable(cl_context context, cl_device_id device, const device_info *info);
/* The real limit of static __local arrays (device_info.local_mem_static). pick: NVIDIA's
 * per-block maximum for the compute capability when it exceeds the reported size and
 * probe(arg, bytes) says an array that size builds, else that maximum less 1 KiB (room for the
 * compiler's own bytes) if that builds,
 * else 0 (the reported size stands); other
 * vendors are never probed. usable: pick with clgemm__static_local_probe on the device, asked
 * once per device (clgemm__program_device_init). probe: whether a kernel with a static array of
 * `bytes` builds there (*log: its build log). */
cl_ulong clgemm__static_local_pick(const device_info *info,
                                   bool (*probe)(void *arg, cl_ulong bytes), void *arg);
cl_ulong clgemm__static_local_usable(cl_context context, cl_device_id device,
                                     const device_info *info);
bool clgemm__static_local_probe(cl_context context, cl_device_id device, cl_ulong bytes,
                                char **log);
/* The disk-cache key of a program: device, driver, version, options, the PTX patch if the file's
 * family takes one, and the source (malloc'd). */
char *clgemm__program_key(const device_info *info, const char *file_name, const char *source,
                          const char *options);

/* The device's program for a kernel file and build options, built on first use (memory cache,
 * then disk cache, then source) under the device's lock; the caller releases the reference.
 * A build's log goes to log (NULL: dropped). */
clgemm_status clgemm__program(program_device *d, const build_log_sink *log, const char *file_name,
                              const char *options, cl_program *program);

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

/* Takes the lock of the cache entry entry_path (clgemm-<hash>.bin, lock clgemm-<hash>.lock),
 * waiting while another process holds it. Whatever the state, the caller reads the entry again
 * before building; it releases a held lock with clgemm__build_unlock after writing the entry. */
build_lock_state clgemm__build_lock(const char *entry_path, build_lock *lock);
void clgemm__build_unlock(build_lock *lock);
/* Removes the cache's lock files (clgemm-<hash>.lock, no other name) in dir at least min_age_s
 * old that nobody holds (killed builders'). */
void clgemm__remove_stale_locks(const char *dir, double min_age_s);

/* ---- kernel_table.c: a handle's kernels by integer key --------------------------------------- */

/* Everything that makes one kernel differ from another (zero-initialise, then fill). */
typedef struct kernel_key {
    int family; /* a clgemm_family, or KERNEL_SCALE / _REDUCE / _FIXUP / _PACK */
    int params[CLGEMM_MAX_PARAMS];
    unsigned char type_ab, type_c, compute;
    unsigned flags; /* KEY_* bits */
} kernel_key;
enum { KERNEL_SCALE = -1, KERNEL_REDUCE = -2, KERNEL_FIXUP = -3, KERNEL_PACK = -4 };
enum {
    KEY_TRANSA = 1 << 0,
    KEY_TRANSB = 1 << 1,
    KEY_CONJA = 1 << 2,
    KEY_CONJB = 1 << 3,
    KEY_ALIGNED_A = 1 << 4,
    KEY_ALIGNED_B = 1 << 5,
    KEY_TABLE = 1 << 6,       /* a batch with per-matrix offsets and scalars (BATCH_TABLE) */
    KEY_TABLE_C = 1 << 7,     /* ... whose C offsets and beta the kernel applies (TABLE_C) */
    KEY_STREAMK = 1 << 8,     /* the stream-K schedule (STREAMK) */
    KEY_PACKED = 1 << 9,      /* the blocked schedule's kernel over packed panels (PACKED) */
    KEY_PACK_SMALL = 1 << 10, /* ... in blocks of a few panels of A (CLGEMM_PACK_KC: tests) */
    KEY_RESIDUAL = 1 << 11,   /* pack.cl's residuals of FP32 operands (the 3xTF32 mode) */
    KEY_PANEL_RUNS = 1 << 12, /* pack.cl's panels copied in runs (columns far apart) */
    KEY_LINES = 1 << 13,      /* pack.cl's copy onto 16-byte lines in the operand's layout */
    KEY_STAGED_LAST =
        1 << 14, /* the blocked schedule's last K-block over a staged C (STAGED_LAST) */
    KEY_LINEAR_TILES = 1 << 15, /* the first tiles of a grid along a 1-D one (LINEAR_TILES) */
    KEY_PANEL_PAIR = 1 << 16    /* pack.cl's panels of two operands in one launch */
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

#endif /* CLGEMM_BUILD_H */
