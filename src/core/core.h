/* core.h: the interface of src/core/, the bottom layer: what a device is (its facts, vendor
 * class and architecture tier), the status messages, the optional log, the files the library
 * keeps, and whether this process is a fork of one that used OpenCL. Nothing here knows about
 * types, kernels, plans or calls. Internal non-static names start with clgemm__ and have hidden
 * visibility; none of these headers is installed. */
#ifndef CLGEMM_CORE_H
#define CLGEMM_CORE_H

#include "clgemm.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- device.c, device_tier.c: who the device is and what it can do --------------------------- */

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
    cl_ulong local_mem_size; /* CL_DEVICE_LOCAL_MEM_SIZE: what a __local kernel argument gets */
    /* What static __local arrays in a kernel's source may take: on NVIDIA the hardware's
     * per-block maximum (clgemm__nv_static_local_max) where a probe build of an array that size
     * succeeded (exec/program.c), 227 KiB on compute capability 9.0 where OpenCL reports 48; 0
     * elsewhere. Read it through clgemm__static_local_limit. */
    cl_ulong local_mem_static;
    cl_uint compute_units;
    bool has_fp64;
    /* PoCL's CPU driver (seen in 3.1): one kernel in flight with two grid sizes at once (two
     * queues or devices) can abort the process, as its cache of loaded kernels releases the
     * wrong entry. Host calls that would run so in parallel (exec/multi.c) take turns. */
    bool pocl_cpu;
    int nv_compute_capability; /* NVIDIA: major * 10 + minor (90 on Hopper); 0 elsewhere */
    bool
        nv_sm90a; /* compute capability 9.0 and its driver runs patched sm_90a PTX (build/program.c)
                   */
    bool nv_tma;  /* nv_sm90a, and tensor maps can be encoded for it (exec/tensor_map.c) */
    /* Compute capability 8.9 or more, and its compiler built a probe kernel with FP8 mma.sync
     * (PTX ISA 8.4: an older driver's compiler refuses it; build/program.c). */
    bool nv_fp8_mma;
    /* NVIDIA: the PCI address (cl_khr_pci_bus_info or cl_nv_device_attribute_query), which
     * finds the CUDA device of the same GPU; nv_pci_known false where neither answered. */
    bool nv_pci_known;
    unsigned nv_pci_domain, nv_pci_bus, nv_pci_device;
    char board_name[128];     /* AMD: CL_DEVICE_BOARD_NAME_AMD ("AMD Radeon RX 6800 XT"), or "" */
    cl_uint intel_ip_version; /* Intel: CL_DEVICE_IP_VERSION_INTEL (major << 22 | minor << 12 |
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
/* NVIDIA's per-block maximum of shared memory for a compute capability (major * 10 + minor), in
 * bytes: 9.0 232,448 (measured on the H200), 8.0 166,912, 8.6/8.7/8.9 101,376, 7.5 65,536,
 * 7.0/7.2 98,304 (NVIDIA's tables, unmeasured); 0 for anything else. A pure function. */
cl_ulong clgemm__nv_static_local_max(int compute_capability);
/* The bytes a kernel's static __local arrays may take on this device: local_mem_static when it
 * says more than OpenCL's figure, else that figure (a device described by hand, with 0 there,
 * keeps it). Families whose local arrays are __local kernel arguments use local_mem_size. */
static inline cl_ulong clgemm__static_local_limit(const device_info *info) {
    return info->local_mem_static > info->local_mem_size ? info->local_mem_static
                                                         : info->local_mem_size;
}

/* How many work-groups whose static __local arrays take `bytes` (the 1 KiB each reserves
 * included) an NVIDIA compute unit of this device holds at once by local memory: an SM of compute
 * capability 9.0 holds 1 KiB more than one work-group may take, and the limit (exec's probe) is
 * a work-group's maximum less 1 KiB, so the SM's share is the limit and 2 KiB. At least one. */
static inline size_t clgemm__groups_by_local(const device_info *info, size_t bytes) {
    size_t n = bytes ? (size_t)((clgemm__static_local_limit(info) + 2048) / bytes) : 1;
    return n ? n : 1;
}

/* ---- fork.c: handles do not survive fork() ------------------------------------------------ */

/* Called before the library's first OpenCL call in a process (device enumeration, a handle's
 * creation): from then on a forked child is marked as such. */
void clgemm__fork_mark_used(void);
/* True in a process forked after the library used OpenCL (in it or an ancestor): nothing of
 * OpenCL may be touched, every handle call gives CLGEMM_ERR_FORKED. */
bool clgemm__forked(void);

/* ---- log.c: optional stderr logging (CLGEMM_LOG) --------------------------------------------- */

void clgemm__log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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

/* Temporary files are named <path>.clgemm-tmp.XXXXXX (six unpredictable letters or digits): an
 * infix of the library's own, so that a user's <name>.tmp.backup is never taken for one. */
#define CLGEMM__TEMP_INFIX ".clgemm-tmp."
/* Creates such a temporary next to path, exclusively (O_CREAT | O_EXCL | O_NOFOLLOW, mode
 * 0666 & ~umask); its name goes to tmp. The descriptor, or -1 with errno set. */
int clgemm__temp_create(const char *path, char *tmp, size_t tmp_size);
/* Replaces path atomically: temporary, write, fsync, rename over path (a symlink at path is
 * replaced, never followed), fsync of the folder. A replaced regular file keeps its mode. 0, or
 * an errno (logged); on failure path is untouched and no temporary is left. */
int clgemm__write_atomic(const char *path, const void *data, size_t size);
/* Removes the temporaries clgemm__temp_create made in dir, <target><infix>XXXXXX exactly, that
 * are at least min_age_s old (0: whatever their time stamps): the leftovers of a killed writer.
 * target is `name`, or with name NULL any cache name of extension `ext` (clgemm__is_cache_name).
 * Nothing else is touched. */
void clgemm__remove_temps(const char *dir, const char *name, const char *ext, double min_age_s);

/* The kernel cache's files are clgemm-<16 hex digits of the entry's hash><ext> (ext ".bin" for
 * an entry, ".lock" for its build lock): the cache removes only names of this form, so a folder
 * shared with other files loses none of them. */
#define CLGEMM__CACHE_PREFIX "clgemm-"
bool clgemm__is_cache_name(const char *name, size_t len, const char *ext);

#endif /* CLGEMM_CORE_H */
