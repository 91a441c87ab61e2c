/* test_tiers.c: the architecture tier of a device (clgemm__device_tier) from the identity strings
 * real drivers report, and the tier defaults (src/families/regblock_defaults.c) against the
 * recorded devices (recorded_devices.c): every tier with lists of its own has a recorded device,
 * that device gets its tier's lists, and every entry of them passes the library's check there
 * (test_limits checks what the planner picks from them). No device needed. */
#include "exec/exec.h"
#include "families/regblock_defaults.h"
#include "recorded_devices.h"

#include <criterion/criterion.h>
#include <string.h>

#define IP(major, minor, rev) (((cl_uint)(major) << 22) | ((cl_uint)(minor) << 12) | (cl_uint)(rev))

typedef struct named_device {
    device_class cls;
    const char *name, *board;
    int cc;
    cl_uint ip;
    device_tier tier;
} named_device;

/* Names as the drivers report them: ROCm (gfx target), Mesa's Clover and rusticl (marketing
 * name and codename), AMD's board-name query, Intel's compute runtime (with and without the IP
 * version query) and NVIDIA's compute capability. */
static const named_device named[] = {
    {DEVICE_NVIDIA_GPU, "Tesla V100-PCIE-16GB", "", 70, 0, TIER_NV_VOLTA},
    {DEVICE_NVIDIA_GPU, "Tesla T4", "", 75, 0, TIER_NV_TURING},
    {DEVICE_NVIDIA_GPU, "NVIDIA A100-SXM4-80GB", "", 80, 0, TIER_NV_AMPERE},
    {DEVICE_NVIDIA_GPU, "NVIDIA GeForce RTX 3090", "", 86, 0, TIER_NV_AMPERE_GA10X},
    {DEVICE_NVIDIA_GPU, "Orin", "", 87, 0, TIER_NV_AMPERE_GA10X},
    {DEVICE_NVIDIA_GPU, "NVIDIA GeForce RTX 4090", "", 89, 0, TIER_NV_ADA},
    {DEVICE_NVIDIA_GPU, "NVIDIA H200", "", 90, 0, TIER_NV_HOPPER},
    {DEVICE_NVIDIA_GPU, "NVIDIA GeForce GTX 1080", "", 61, 0, TIER_UNKNOWN},
    {DEVICE_NVIDIA_GPU, "NVIDIA B200", "", 100, 0, TIER_UNKNOWN},
    {DEVICE_NVIDIA_GPU, "NVIDIA GeForce RTX 3090", "", 0, 0, TIER_UNKNOWN}, /* no cc query */
    {DEVICE_AMD_GPU, "gfx906:sramecc+:xnack-", "AMD Radeon VII", 0, 0, TIER_AMD_GCN},
    {DEVICE_AMD_GPU, "gfx900:xnack-", "", 0, 0, TIER_AMD_GCN},
    {DEVICE_AMD_GPU, "gfx90c:xnack-", "AMD Radeon Graphics", 0, 0, TIER_AMD_GCN},
    {DEVICE_AMD_GPU, "gfx803", "", 0, 0, TIER_AMD_GCN},
    {DEVICE_AMD_GPU, "gfx908:sramecc+:xnack-", "AMD Instinct MI100", 0, 0, TIER_AMD_CDNA},
    {DEVICE_AMD_GPU, "gfx90a:sramecc+:xnack-", "AMD Instinct MI210", 0, 0, TIER_AMD_CDNA},
    {DEVICE_AMD_GPU, "gfx942:sramecc+:xnack-", "AMD Instinct MI300X", 0, 0, TIER_AMD_CDNA},
    {DEVICE_AMD_GPU, "gfx1030", "AMD Radeon RX 6800 XT", 0, 0, TIER_AMD_RDNA},
    {DEVICE_AMD_GPU, "gfx1100", "Radeon RX 7900 XTX", 0, 0, TIER_AMD_RDNA},
    {DEVICE_AMD_GPU, "gfx1201", "AMD Radeon RX 9070 XT", 0, 0, TIER_AMD_RDNA},
    {DEVICE_AMD_GPU, "Ellesmere", "AMD Radeon RX 480 Graphics", 0, 0, TIER_AMD_GCN},
    {DEVICE_AMD_GPU, "Tahiti", "", 0, 0, TIER_AMD_GCN},
    {DEVICE_AMD_GPU, "AMD Radeon RX 580 Series (polaris10, LLVM 15.0.6, DRM 3.49, 6.1.0)", "", 0, 0,
     TIER_AMD_GCN},
    {DEVICE_AMD_GPU, "AMD Radeon RX 6800 XT (radeonsi, navi21, LLVM 15.0.7, DRM 3.52)", "", 0, 0,
     TIER_AMD_RDNA},
    {DEVICE_AMD_GPU, "AMD Radeon RX Vega (radeonsi, vega10)", "", 0, 0, TIER_AMD_GCN},
    {DEVICE_AMD_GPU, "AMD Radeon Pro W6800", "", 0, 0, TIER_AMD_RDNA},
    {DEVICE_AMD_GPU, "AMD Instinct MI50", "", 0, 0, TIER_AMD_GCN},
    {DEVICE_AMD_GPU, "Some AMD GPU", "", 0, 0, TIER_UNKNOWN},
    {DEVICE_INTEL_GPU, "Intel(R) HD Graphics 530", "", 0, 0, TIER_INTEL_GEN9},
    {DEVICE_INTEL_GPU, "Intel(R) UHD Graphics 620", "", 0, 0, TIER_INTEL_GEN9},
    {DEVICE_INTEL_GPU, "Intel(R) Iris(R) Plus Graphics", "", 0, 0, TIER_INTEL_GEN9},
    {DEVICE_INTEL_GPU, "Intel(R) Iris(R) Xe Graphics", "", 0, 0, TIER_INTEL_XE_LP},
    {DEVICE_INTEL_GPU, "Intel(R) UHD Graphics 770", "", 0, 0, TIER_INTEL_XE_LP},
    {DEVICE_INTEL_GPU, "Intel(R) Arc(TM) A770 Graphics", "", 0, 0, TIER_INTEL_XE_HPG},
    {DEVICE_INTEL_GPU, "Intel(R) Data Center GPU Flex 170", "", 0, 0, TIER_INTEL_XE_HPG},
    {DEVICE_INTEL_GPU, "Intel(R) Data Center GPU Max 1550", "", 0, 0, TIER_INTEL_XE_HPC},
    {DEVICE_INTEL_GPU, "Intel(R) Graphics [0x46a6]", "", 0, 0, TIER_UNKNOWN},
    /* The IP version decides where the driver reports it, whatever the name says. */
    {DEVICE_INTEL_GPU, "Intel(R) Graphics [0x46a6]", "", 0, IP(12, 2, 0), TIER_INTEL_XE_LP},
    {DEVICE_INTEL_GPU, "Intel(R) UHD Graphics [0x9a60]", "", 0, IP(12, 0, 0), TIER_INTEL_XE_LP},
    {DEVICE_INTEL_GPU, "Intel(R) Iris(R) Xe MAX Graphics", "", 0, IP(12, 10, 0), TIER_INTEL_XE_LP},
    {DEVICE_INTEL_GPU, "Intel(R) UHD Graphics 630", "", 0, IP(9, 0, 9), TIER_INTEL_GEN9},
    {DEVICE_INTEL_GPU, "Intel(R) Iris(R) Plus Graphics", "", 0, IP(11, 0, 0), TIER_INTEL_GEN9},
    {DEVICE_INTEL_GPU, "Intel(R) Arc(TM) A770 Graphics", "", 0, IP(12, 55, 8), TIER_INTEL_XE_HPG},
    {DEVICE_INTEL_GPU, "Intel(R) Arc(TM) Graphics", "", 0, IP(12, 70, 4), TIER_INTEL_XE_HPG},
    {DEVICE_INTEL_GPU, "Intel(R) Data Center GPU Max 1100", "", 0, IP(12, 60, 7),
     TIER_INTEL_XE_HPC},
    {DEVICE_INTEL_GPU, "Intel(R) Arc(TM) B580 Graphics", "", 0, IP(20, 1, 0), TIER_UNKNOWN},
    {DEVICE_CPU, "AMD EPYC 7763 64-Core Processor", "", 0, 0, TIER_UNKNOWN},
    {DEVICE_OTHER_GPU, "Mali-G78", "", 0, 0, TIER_UNKNOWN},
};

Test(tiers, from_driver_names) {
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        const named_device *n = &named[i];
        device_info info;
        memset(&info, 0, sizeof info);
        info.cls = n->cls;
        strcpy(info.name, n->name);
        strcpy(info.board_name, n->board);
        info.nv_compute_capability = n->cc;
        info.intel_ip_version = n->ip;
        device_tier t = clgemm__device_tier(&info);
        cr_expect_eq(t, n->tier, "%s / %s (cc %d, ip 0x%x): %s, expected %s", n->name, n->board,
                     n->cc, n->ip, clgemm__device_tier_name(t), clgemm__device_tier_name(n->tier));
    }
}

/* CPU devices as PoCL names them: its driver, LLVM target and the processor in CL_DEVICE_NAME,
 * the host triple and target at the end of CL_DEVICE_VERSION. From clinfo and poclcc listings:
 * this project's machines (PoCL 3.1: the Xeon's, and issue 26's EPYC), PoCL 4+'s "cpu" driver on
 * a Ryzen 9 5900X, PoCL 0.15 on Android (cortex-a73), PoCL 1.1 on a Cavium ThunderX (GENERIC),
 * PoCL 3.1 on an Apple M1 (name "pthread" alone), PoCL 1.5 under KVM (k6-3: no vector tier).
 * The SVE and two AVX-512 rows follow the same format with LLVM's names for those cores. */
typedef struct named_cpu {
    const char *name, *version;
    device_tier tier;
} named_cpu;
static const named_cpu cpus[] = {
    {"pthread-skylake-avx512-Intel(R) Xeon(R) Processor",
     "OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-skylake-avx512", TIER_CPU_AVX512},
    {"pthread-haswell-AMD EPYC", "OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-haswell",
     TIER_CPU_AVX2},
    {"cpu-znver3-AMD Ryzen 9 5900X 12-Core Processor",
     "OpenCL 3.0 PoCL HSTR: cpu-x86_64-pc-linux-gnu-znver3", TIER_CPU_AVX2},
    {"cpu-sapphirerapids-Intel(R) Xeon(R) Platinum 8488C",
     "OpenCL 3.0 PoCL HSTR: cpu-x86_64-pc-linux-gnu-sapphirerapids", TIER_CPU_AVX512},
    {"pthread-icelake-server-Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "", TIER_CPU_AVX512},
    {"cpu-znver4-AMD EPYC 9654 96-Core Processor", "", TIER_CPU_AVX512},
    {"pthread-skylake-Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz", "", TIER_CPU_AVX2},
    {"cpu-minimal-haswell-Intel(R) Core(TM) i7-4770", "", TIER_CPU_AVX2},
    {"pthread-generic-Intel(R) Xeon(R) Processor",
     "OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-generic", TIER_CPU_GENERIC},
    {"pthread-sse41-Intel(R) Core(TM)2 Quad CPU Q9550", "", TIER_CPU_GENERIC},
    {"pthread-AArch64 Processor rev 4 (aarch64)",
     "OpenCL 1.2 pocl HSTR: pthread-aarch64--linux-android-cortex-a73", TIER_CPU_NEON},
    {"pthread-0x0a1", "OpenCL 1.2 pocl HSTR: pthread-aarch64-unknown-linux-gnu-GENERIC",
     TIER_CPU_NEON},
    {"pthread", "OpenCL 3.0 PoCL HSTR: pthread-arm64-apple-macosx13.0.0-apple-m1", TIER_CPU_NEON},
    {"cpu-neoverse-n1-Neoverse-N1",
     "OpenCL 3.0 PoCL HSTR: cpu-aarch64-unknown-linux-gnu-neoverse-n1", TIER_CPU_NEON},
    {"cpu-neoverse-v1-Neoverse-V1",
     "OpenCL 3.0 PoCL HSTR: cpu-aarch64-unknown-linux-gnu-neoverse-v1", TIER_CPU_SVE},
    {"cpu-a64fx-A64FX", "", TIER_CPU_SVE},
    {"cpu-cortex-a76-Cortex-A76", "", TIER_CPU_NEON},
    {"cpu-cortex-a710-Cortex-A710", "", TIER_CPU_SVE},
    {"cpu-apple-m2-Apple M2", "", TIER_CPU_NEON},
    /* No vector tier: an old target, Intel's and AMD's CPU runtimes (the processor's name only),
     * a model name that holds a target's word but not where PoCL puts it. */
    {"pthread-Common KVM processor", "OpenCL 1.2 pocl HSTR: pthread-x86_64-pc-linux-gnu-k6-3",
     TIER_UNKNOWN},
    {"AMD EPYC 7763 64-Core Processor", "OpenCL 3.0 (Build 0)", TIER_UNKNOWN},
    {"Intel(R) Core(TM) i5-8350U CPU @ 1.70GHz", "OpenCL 3.0 (Build 0)", TIER_UNKNOWN},
    {"pthread-skylakeX-haswell", "", TIER_UNKNOWN},
    {"pthread-----------------", "HSTR: ------------------ -", TIER_UNKNOWN},
    {"cpu-cortex-a-", "OpenCL 3.0 PoCL HSTR: cpu-aarch64-linux-gnu-cortex-a", TIER_UNKNOWN},
    {"", "", TIER_UNKNOWN},
};

Test(tiers, cpu_from_pocl_names) {
    for (size_t i = 0; i < sizeof cpus / sizeof cpus[0]; i++) {
        device_info info;
        memset(&info, 0, sizeof info);
        info.cls = DEVICE_CPU;
        strcpy(info.name, cpus[i].name);
        strcpy(info.device_version, cpus[i].version);
        device_tier t = clgemm__device_tier(&info);
        cr_expect_eq(t, cpus[i].tier, "%s / %s: %s, expected %s", cpus[i].name, cpus[i].version,
                     clgemm__device_tier_name(t), clgemm__device_tier_name(cpus[i].tier));
        /* The same strings on a GPU say nothing about a CPU tier. */
        info.cls = DEVICE_OTHER_GPU;
        cr_expect_eq(clgemm__device_tier(&info), TIER_UNKNOWN, "%s as a GPU", cpus[i].name);
    }
}

static const clgemm_precision types[] = {CLGEMM_SINGLE, CLGEMM_DOUBLE, CLGEMM_COMPLEX_SINGLE,
                                         CLGEMM_COMPLEX_DOUBLE, CLGEMM_HALF};

Test(tiers, every_tier_is_recorded_and_its_lists_fit) {
    for (const regblock_tier *t = clgemm__regblock_tiers; t->tier != TIER_UNKNOWN; t++) {
        cr_expect_eq(t->cls == DEVICE_NVIDIA_GPU || t->cls == DEVICE_AMD_GPU ||
                         t->cls == DEVICE_INTEL_GPU || t->cls == DEVICE_CPU,
                     true);
        cr_expect(t->source && strlen(t->source) > 10, "%s cites no source",
                  clgemm__device_tier_name(t->tier));
        int recorded = 0;
        for (const recorded_device *d = clgemm_recorded_devices; d->key; d++) {
            if (clgemm__device_tier(&d->info) != t->tier) continue;
            recorded++;
            cr_expect_eq(d->info.cls, t->cls, "%s", d->key);
            for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
                clgemm_precision type = types[i];
                if (clgemm__type(type)->fp64 && !d->info.has_fp64) continue;
                const clgemm_config *list = clgemm__regblock_defaults(&d->info, type, ONE_MATRIX);
                const clgemm_config *want = type == CLGEMM_COMPLEX_DOUBLE ? t->complex_double
                                            : type == CLGEMM_DOUBLE || type == CLGEMM_COMPLEX_SINGLE
                                                ? t->dbl
                                                : t->single;
                /* (Hopper's complex single and FP32 keep lists of their own: regblock_defaults.c.)
                 */
                if ((type != CLGEMM_COMPLEX_SINGLE && type != CLGEMM_SINGLE) ||
                    t->tier != TIER_NV_HOPPER)
                    cr_expect_eq(list, want, "%s %s: not its tier's list", d->key,
                                 clgemm__type(type)->name);
                /* the batch lists too, where the tier has them */
                const gemm_dims small = {128, 128, 128, 100, true, false, false},
                                large = {512, 512, 512, 100, true, false, false};
                const clgemm_config *lists[] = {list,
                                                clgemm__regblock_defaults(&d->info, type, &small),
                                                clgemm__regblock_defaults(&d->info, type, &large)};
                for (int b = 0; b < 3; b++)
                    for (const clgemm_config *c = lists[b]; c->family; c++) {
                        char desc[256];
                        clgemm_config_string(c, desc, sizeof desc);
                        cr_expect_eq(clgemm__config_check(c, &d->info, type), CLGEMM_SUCCESS,
                                     "%s %s: default %s refused", d->key, clgemm__type(type)->name,
                                     desc);
                    }
            }
        }
        cr_expect_gt(recorded, 0, "no recorded device of tier %s",
                     clgemm__device_tier_name(t->tier));
    }
}

/* The tuner's --quick set on a CPU is the CPU lists of the families that run the type there
 * (regblock_defaults.c, microkernel.c): each entry runs on the tier's recorded PoCL device, the set
 * is short enough for a cold 45 s run (a cold PoCL build of regblock costs 8-17 s, of microkernel
 * about 1 s), the measured tiers' sets hold the type's default, FP32, FP64 and FP16 there are the
 * microkernel family's alone, and the AVX2 regblock single list holds issue 26's --quick winner
 * (64x64 tiles, 32-deep slices, KWI=4), which FP8 keeps. */
static size_t cpu_quick_set(const device_info *info, clgemm_precision type,
                            const clgemm_config *def, bool *has_default, bool *regblock) {
    size_t count = 0;
    *has_default = *regblock = false;
    const clgemm_config *mk = clgemm__family(CLGEMM_FAMILY_MICROKERNEL)->quick_cpu(info, type);
    const bool mk_runs =
        clgemm__family(CLGEMM_FAMILY_MICROKERNEL)->supported(info, type, CLGEMM_COMPUTE_DEFAULT);
    const clgemm_config *lists[] = {clgemm__regblock_quick_cpu(info, type), mk_runs ? mk : NULL};
    for (size_t l = 0; l < 2; l++)
        for (const clgemm_config *c = lists[l]; c && c->family; c++, count++) {
            cr_expect_eq(clgemm__config_check(c, info, type), CLGEMM_SUCCESS,
                         "%s %s: quick entry %zu refused", info->name, clgemm__type(type)->name,
                         count);
            *has_default |= clgemm__config_equal(c, def);
            *regblock |= c->family == CLGEMM_FAMILY_REGBLOCK;
        }
    return count;
}

Test(tiers, cpu_quick_lists) {
    const char *keys[] = {"pocl-skylake-avx512", "pocl-haswell"};
    for (size_t k = 0; k < 2; k++) {
        const recorded_device *d = clgemm_recorded_device(keys[k]);
        cr_assert_not_null(d, "%s not recorded", keys[k]);
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
            const char *type = clgemm__type(types[i])->name;
            clgemm_config def = clgemm__config_default(&d->info, types[i]);
            bool has_default, regblock;
            size_t count = cpu_quick_set(&d->info, types[i], &def, &has_default, &regblock);
            cr_expect(count >= 2 && count <= 3, "%s %s: %zu quick candidates", d->key, type, count);
            bool real =
                types[i] == CLGEMM_SINGLE || types[i] == CLGEMM_DOUBLE || types[i] == CLGEMM_HALF;
            cr_expect(!real || !regblock, "%s %s: regblock in the quick set", d->key, type);
            /* (The measured tiers' sets start from their defaults; the CPU class's set, which
             * AVX2's other types keep, is FP32's for every type, as it was.) */
            if ((k == 0 && types[i] != CLGEMM_COMPLEX_DOUBLE) || real)
                cr_expect(has_default, "%s %s: the default is not in the quick set", d->key, type);
            /* The tuner lists exactly these (tiled has none on CPUs). */
            struct clgemm_handle_s h;
            memset(&h, 0, sizeof h);
            h.info = d->info;
            size_t space = 0;
            cr_expect_eq(clgemm_tune_space(&h, types[i], 1, CLGEMM_FAMILY_AUTO, &space),
                         CLGEMM_SUCCESS);
            cr_expect_eq(space, count, "%s %s: the tuner's quick space has %zu, the list %zu",
                         d->key, type, space, count);
        }
    }
    const recorded_device *avx2 = clgemm_recorded_device("pocl-haswell");
    const clgemm_config issue26 = RB(64, 64, 32, 8, 8, 4, 4, 4);
    bool found = false;
    for (const clgemm_config *c = clgemm__regblock_quick_cpu(&avx2->info, CLGEMM_E4M3); c->family;
         c++)
        found |= clgemm__config_equal(c, &issue26);
    cr_expect(found, "the AVX2 E4M3 quick set lacks issue 26's winner");
    cr_expect(clgemm__config_equal(clgemm__regblock_defaults(&avx2->info, CLGEMM_E4M3, ONE_MATRIX),
                                   &issue26),
              "the AVX2 regblock single list (FP8) does not start with issue 26's winner");

    /* What the planner picks on the Xeon's tier (untransposed operands): FP32 in the microkernel
     * family's 32 x 6 blocks below 512^3 (read in place) and 32 x 12 ones from there (K-blocks of
     * 1024 steps, blocks of A of 4 panels) and FP64 in 32 x 6 ones below 512^3 and
     * 16 x 14 ones (512 steps, 8 panels) from there, an Intel CPU's, from 64 up, smaller ones where
     * those would pad C by more than a quarter; the same tier on an AMD CPU (the EPYC's vendor
     * string) keeps FP32's 32 x 8 where a matrix is blocked (1024^3 and more), takes 16 x 12 below
     * it (read in place; FP16 keeps 32 x 8 there), and runs FP64 in 32 x 6 blocks with K-blocks of
     * 512 steps. */
    const recorded_device *avx512 = clgemm_recorded_device("pocl-skylake-avx512");
    device_info epyc = avx512->info;
    strcpy(epyc.vendor, "AuthenticAMD");
    strcpy(epyc.name, "pthread-skylake-avx512-AMD EPYC");
    const clgemm_config s32x12 = {.family = CLGEMM_FAMILY_MICROKERNEL,
                                  .params = {32, 12, 16, 1024, 4}},
                        s32 = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {32, 8, 16}},
                        s32x6 = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {32, 6, 16}},
                        s16x12 = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {16, 12, 16}},
                        s16 = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {16, 4, 16}},
                        d32 = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {32, 6, 8}},
                        d16x14 = {.family = CLGEMM_FAMILY_MICROKERNEL,
                                  .params = {16, 14, 8, 512, 8}},
                        d32x6 = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {32, 6, 8, 512}},
                        d16 = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {16, 4, 8}};
    const struct {
        const device_info *info;
        clgemm_precision type;
        size_t side;
        const clgemm_config *want;
    } picks[] = {{&avx512->info, CLGEMM_SINGLE, 256, &s32x6},
                 {&avx512->info, CLGEMM_SINGLE, 512, &s32x12},
                 {&avx512->info, CLGEMM_SINGLE, 1024, &s32x12},
                 {&avx512->info, CLGEMM_SINGLE, 40, &s16},
                 {&avx512->info, CLGEMM_DOUBLE, 64, &d32},
                 {&avx512->info, CLGEMM_DOUBLE, 256, &d32},
                 {&avx512->info, CLGEMM_DOUBLE, 511, &d32},
                 {&avx512->info, CLGEMM_DOUBLE, 512, &d16x14},
                 {&avx512->info, CLGEMM_DOUBLE, 1024, &d16x14},
                 {&avx512->info, CLGEMM_DOUBLE, 40, &d16},
                 {&epyc, CLGEMM_SINGLE, 256, &s16x12},
                 {&epyc, CLGEMM_SINGLE, 1023, &s16x12},
                 {&epyc, CLGEMM_SINGLE, 1024, &s32},
                 {&epyc, CLGEMM_HALF, 256, &s32},
                 {&epyc, CLGEMM_SINGLE, 40, &s16},
                 {&epyc, CLGEMM_DOUBLE, 256, &d32x6},
                 {&epyc, CLGEMM_DOUBLE, 1024, &d32x6},
                 {&epyc, CLGEMM_DOUBLE, 40, &d16}};
    for (size_t i = 0; i < sizeof picks / sizeof picks[0]; i++) {
        size_t n = picks[i].side;
        clgemm_config c = clgemm__config_default_for(picks[i].info, picks[i].type,
                                                     CLGEMM_COMPUTE_DEFAULT, n, n, n, 1);
        char got[256];
        clgemm_config_string(&c, got, sizeof got);
        cr_expect(clgemm__config_equal(&c, picks[i].want), "cpu-avx512 %s %s %zu^3: %s",
                  picks[i].info->vendor, clgemm__type(picks[i].type)->name, n, got);
    }
}
