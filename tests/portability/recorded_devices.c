/* recorded_devices.c: the device descriptions the portability checks plan against: the limits
 * each chip's OpenCL driver reports (work-group size, local memory, FP64, compute units), so the
 * configurations the library would build there can be listed, compiled with the vendor's offline
 * compiler and checked against those limits. Values are from the vendors' published
 * specifications and the limits named in issue 12; compute units only steer tile choice, never
 * validity. Nothing here was queried from a device but the PoCL CPU limits (this machine's). */
#include "recorded_devices.h"

#include <string.h>

#define AMD    "Advanced Micro Devices, Inc."
#define INTEL  "Intel(R) Corporation"
#define NVIDIA "NVIDIA Corporation"
#define KIB(n) ((cl_ulong)(n)*1024)

#define DEVICE(cls_, vendor_, name_, wg_, item_, local_, cus_, fp64_)                              \
    {                                                                                              \
        .vendor = vendor_, .name = name_, .cls = cls_, .max_work_group_size = wg_,                 \
        .max_work_item_sizes = {item_, item_, item_}, .local_mem_size = local_,                    \
        .compute_units = cus_, .has_fp64 = fp64_                                                   \
    }
/* NVIDIA's OpenCL driver: work-groups of 1024, 48 KiB of local memory, FP64, on every chip here;
 * the compute capability picks the tier. */
#define NV_DEVICE(name_, sms_, cc_)                                                                \
    {                                                                                              \
        .vendor = NVIDIA, .name = name_, .cls = DEVICE_NVIDIA_GPU, .max_work_group_size = 1024,    \
        .max_work_item_sizes = {1024, 1024, 64}, .local_mem_size = KIB(48), .compute_units = sms_, \
        .has_fp64 = true, .nv_compute_capability = cc_                                             \
    }

const recorded_device clgemm_recorded_devices[] = {
    /* ROCm's OpenCL reports a 256 work-item work-group limit and 64 KiB of LDS on GCN, CDNA
     * and RDNA alike; every one of these has cl_khr_fp64. */
    {"gfx906", "amdgcn", "AMD Radeon VII / Instinct MI50 (Vega 20, 60 CUs)",
     "ROCm OpenCL limits (work-group 256, LDS 64 KiB); AMD Vega 20 specifications",
     DEVICE(DEVICE_AMD_GPU, AMD, "gfx906:sramecc+:xnack-", 256, 1024, KIB(64), 60, true)},
    {"gfx90a", "amdgcn", "AMD Instinct MI210 (CDNA2, 104 CUs)",
     "ROCm OpenCL limits (work-group 256, LDS 64 KiB); AMD CDNA2 specifications",
     DEVICE(DEVICE_AMD_GPU, AMD, "gfx90a:sramecc+:xnack-", 256, 1024, KIB(64), 104, true)},
    {"gfx1030", "amdgcn", "AMD Radeon RX 6800 XT (RDNA2, 72 CUs, reported as 36 WGPs)",
     "ROCm OpenCL limits (work-group 256, LDS 64 KiB); AMD RDNA2 specifications",
     DEVICE(DEVICE_AMD_GPU, AMD, "gfx1030", 256, 1024, KIB(64), 36, true)},
    /* Intel's compute runtime: Xe-LP and Arc have no FP64 (no cl_khr_fp64), Ponte Vecchio
     * does; 64 KiB of SLM per work-group on Xe-LP and Arc, 128 KiB on Ponte Vecchio. */
    {"tgllp", "ocloc", "Intel Iris Xe Graphics (Tiger Lake, Xe-LP, 96 EUs)",
     "Intel compute-runtime limits (work-group 512, SLM 64 KiB, no FP64)",
     DEVICE(DEVICE_INTEL_GPU, INTEL, "Intel(R) Iris(R) Xe Graphics", 512, 512, KIB(64), 96, false)},
    {"dg2-g10", "ocloc", "Intel Arc A770 (Alchemist, Xe-HPG, 512 EUs)",
     "Intel compute-runtime limits (work-group 1024, SLM 64 KiB, no FP64); issue 12",
     DEVICE(DEVICE_INTEL_GPU, INTEL, "Intel(R) Arc(TM) A770 Graphics", 1024, 1024, KIB(64), 512,
            false)},
    {"pvc", "ocloc", "Intel Data Center GPU Max 1550 (Ponte Vecchio, Xe-HPC, one stack)",
     "Intel compute-runtime limits (work-group 1024, SLM 128 KiB, FP64)",
     DEVICE(DEVICE_INTEL_GPU, INTEL, "Intel(R) Data Center GPU Max 1550", 1024, 1024, KIB(128), 512,
            true)},
    {"skl", "ocloc", "Intel HD Graphics 530 (Skylake GT2, Gen9, 24 EUs)",
     "Intel compute-runtime limits (work-group 256, SLM 64 KiB, FP64)",
     DEVICE(DEVICE_INTEL_GPU, INTEL, "Intel(R) HD Graphics 530", 256, 256, KIB(64), 24, true)},
    /* NVIDIA, one chip per tier: planned against (no offline compiler for them here). */
    {"sm_70", NULL, "NVIDIA Tesla V100 (Volta, 80 SMs)",
     "NVIDIA OpenCL limits; V100 specifications", NV_DEVICE("Tesla V100-PCIE-16GB", 80, 70)},
    {"sm_75", NULL, "NVIDIA Tesla T4 (Turing, 40 SMs)", "NVIDIA OpenCL limits; T4 specifications",
     NV_DEVICE("Tesla T4", 40, 75)},
    {"sm_80", NULL, "NVIDIA A100 (Ampere GA100, 108 SMs)",
     "NVIDIA OpenCL limits; A100 specifications", NV_DEVICE("NVIDIA A100-PCIE-40GB", 108, 80)},
    {"sm_86", NULL, "NVIDIA GeForce RTX 3080 (Ampere GA102, 68 SMs)",
     "NVIDIA OpenCL limits; RTX 3080 specifications", NV_DEVICE("NVIDIA GeForce RTX 3080", 68, 86)},
    {"sm_89", NULL, "NVIDIA GeForce RTX 4090 (Ada, 128 SMs)",
     "NVIDIA OpenCL limits; RTX 4090 specifications",
     NV_DEVICE("NVIDIA GeForce RTX 4090", 128, 89)},
    {"sm_90", NULL, "NVIDIA H200 (Hopper, 132 SMs)", "NVIDIA OpenCL limits; H200 specifications",
     NV_DEVICE("NVIDIA H200", 132, 90)},
    /* PoCL 3.1 (Debian 12) on CPUs: the limits it reports on this project's 2-core Xeon
     * (clGetDeviceInfo: work-groups of 4096, 2 MiB of local memory, FP64); issue 26's EPYC is
     * recorded with the same limits and its reported name (every CPU list needs under 64 KiB). */
    {"pocl-skylake-avx512", NULL, "Intel Xeon with AVX-512, 2 cores (PoCL skylake-avx512)",
     "PoCL 3.1 as queried on this project's machine",
     DEVICE(DEVICE_CPU, "GenuineIntel", "pthread-skylake-avx512-Intel(R) Xeon(R) Processor", 4096,
            4096, KIB(2048), 2, true)},
    {"pocl-haswell", NULL, "AMD EPYC with AVX2, 2 cores (PoCL haswell, issue 26)",
     "issue 26's device name; PoCL 3.1's limits as on the Xeon",
     DEVICE(DEVICE_CPU, "AuthenticAMD", "pthread-haswell-AMD EPYC", 4096, 4096, KIB(2048), 2,
            true)},
    /* Limit cases of issue 12, planned against but not compiled for. */
    {"intel-32k", NULL, "an older Intel GPU: 32 KiB of local memory, work-group 256",
     "issue 12 (32 KiB local on older Intel)",
     DEVICE(DEVICE_INTEL_GPU, INTEL, "Intel(R) HD Graphics (32 KiB)", 256, 256, KIB(32), 24, true)},
    {"small-gpu", NULL, "a made-up small GPU: work-group 64, 16 KiB local memory",
     "limit case below every device above: makes the planner walk down to small tiles",
     DEVICE(DEVICE_OTHER_GPU, "Nobody", "small GPU (made up)", 64, 64, KIB(16), 4, true)},
    {.key = NULL},
};

const recorded_device *clgemm_recorded_device(const char *key) {
    for (const recorded_device *d = clgemm_recorded_devices; key && d->key; d++)
        if (strcmp(d->key, key) == 0) return d;
    return NULL;
}
