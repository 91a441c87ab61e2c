/* device_tier.c: a device's vendor class and architecture tier from what it reported (vendor,
 * name, board name, compute capability, IP version, PoCL's CPU target): pure functions of the
 * strings and numbers, so tests and tools can classify recorded devices without OpenCL. */
#include "core/core.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The first occurrence of needle in haystack, ignoring case; NULL if none. */
static const char *find_nocase(const char *haystack, const char *needle) {
    size_t n = strlen(needle);
    for (; *haystack; haystack++)
        if (strncasecmp(haystack, needle, n) == 0) return haystack;
    return NULL;
}

static bool contains_nocase(const char *haystack, const char *needle) {
    return find_nocase(haystack, needle) != NULL;
}

device_class clgemm__device_classify(const device_info *info, cl_device_type type) {
    if (!(type & CL_DEVICE_TYPE_GPU)) return DEVICE_CPU;
    if (contains_nocase(info->vendor, "nvidia")) return DEVICE_NVIDIA_GPU;
    if (contains_nocase(info->vendor, "amd") || contains_nocase(info->vendor, "advanced micro"))
        return DEVICE_AMD_GPU;
    if (contains_nocase(info->vendor, "intel")) return DEVICE_INTEL_GPU;
    return DEVICE_OTHER_GPU;
}

/* The number right after `prefix` in s (digits only), or -1. */
static long number_after(const char *s, const char *prefix) {
    const char *p = find_nocase(s, prefix);
    if (!p || !isdigit((unsigned char)p[strlen(prefix)])) return -1;
    return strtol(p + strlen(prefix), NULL, 10);
}

static device_tier nvidia_tier(int cc) {
    /* Compute capabilities before 7.0 and after 9.0 have no list of their own: the class's. */
    if (cc == 70 || cc == 72) return TIER_NV_VOLTA;
    if (cc == 75) return TIER_NV_TURING;
    if (cc == 80) return TIER_NV_AMPERE;
    if (cc == 86 || cc == 87) return TIER_NV_AMPERE_GA10X;
    if (cc == 89) return TIER_NV_ADA;
    if (cc == 90) return TIER_NV_HOPPER;
    return TIER_UNKNOWN;
}

/* A gfx target ("gfx90a:sramecc+:xnack-", "gfx1030"): the last two characters are the minor
 * version and stepping in hex, the digits before them the major version. */
static device_tier amd_gfx_tier(const char *s) {
    const char *p = find_nocase(s, "gfx");
    if (!p) return TIER_UNKNOWN;
    p += 3;
    size_t len = 0;
    while (isxdigit((unsigned char)p[len]))
        len++;
    if (len < 3 || len > 4) return TIER_UNKNOWN;
    int major = 0;
    for (size_t i = 0; i + 2 < len; i++) {
        if (!isdigit((unsigned char)p[i])) return TIER_UNKNOWN;
        major = major * 10 + (p[i] - '0');
    }
    int minor = (int)strtol((char[]){p[len - 2], 0}, NULL, 16);
    int stepping = (int)strtol((char[]){p[len - 1], 0}, NULL, 16);
    if (major >= 10) return TIER_AMD_RDNA;
    /* CDNA: gfx908 (MI100), gfx90a (MI200), gfx94x (MI300), gfx950 (MI350); the other gfx9
     * (Vega, MI50/MI60, Raven) and everything older are GCN. */
    if (major == 9 && (minor >= 4 || (minor == 0 && (stepping == 8 || stepping == 0xa))))
        return TIER_AMD_CDNA;
    return major >= 6 ? TIER_AMD_GCN : TIER_UNKNOWN;
}

/* A board or marketing name, for drivers that report no gfx target (Mesa, older AMD APP). */
static device_tier amd_board_tier(const char *s) {
    long mi = number_after(s, "Instinct MI");
    if (mi >= 100) return TIER_AMD_CDNA;
    if (mi > 0) return TIER_AMD_GCN; /* MI6, MI8, MI25, MI50, MI60 */
    /* RX 5000 and later are RDNA (RX 5700, 6800, 7900, 9070), RX 4x0 / 5x0 Polaris GCN; the
     * same for Radeon Pro W5700 and later against WX. */
    long rx = number_after(s, "RX ");
    if (rx < 0) rx = number_after(s, "Pro W");
    if (rx >= 5000) return TIER_AMD_RDNA;
    if (rx >= 100) return TIER_AMD_GCN;
    if (contains_nocase(s, "navi")) return TIER_AMD_RDNA;
    static const char *const gcn[] = {"vega",  "polaris", "ellesmere", "baffin", "lexa",
                                      "fiji",  "tonga",   "hawaii",    "tahiti", "pitcairn",
                                      "oland", "bonaire", "capeverde", NULL};
    for (const char *const *g = gcn; *g; g++)
        if (contains_nocase(s, *g)) return TIER_AMD_GCN;
    return TIER_UNKNOWN;
}

/* Intel's graphics IP version (cl_intel_device_attribute_query): 9.x Gen9, 11.x Gen11, 12.0 to
 * 12.10 Xe-LP, 12.55-12.57 Xe-HPG, 12.60-12.61 Xe-HPC, 12.70-12.74 Xe-LPG (Meteor / Arrow
 * Lake, Xe-HPG's design without matrix units); Xe2 (20.x) and later have no list of their own. */
static device_tier intel_ip_tier(cl_uint ip) {
    unsigned major = ip >> 22, minor = (ip >> 12) & 0x3ff;
    if (major == 9 || major == 11) return TIER_INTEL_GEN9;
    if (major != 12) return TIER_UNKNOWN;
    if (minor < 50) return TIER_INTEL_XE_LP;
    if (minor >= 60 && minor < 70) return TIER_INTEL_XE_HPC;
    return TIER_INTEL_XE_HPG;
}

/* An Intel device name, for drivers without the IP version. */
static device_tier intel_name_tier(const char *s) {
    if (contains_nocase(s, "Data Center GPU Max")) return TIER_INTEL_XE_HPC;
    if (contains_nocase(s, "Arc(TM)") || contains_nocase(s, "Intel Arc") ||
        contains_nocase(s, "Data Center GPU Flex"))
        return TIER_INTEL_XE_HPG;
    long uhd = number_after(s, "UHD Graphics ");
    if (contains_nocase(s, "Iris(R) Xe") || contains_nocase(s, "Iris Xe") || uhd >= 700)
        return TIER_INTEL_XE_LP;
    if (contains_nocase(s, "HD Graphics") || contains_nocase(s, "Iris")) return TIER_INTEL_GEN9;
    return TIER_UNKNOWN;
}

/* PoCL's CPU targets (LLVM CPU names), by the widest vector instructions with FMA they have. */
typedef struct cpu_target {
    const char *name;
    device_tier tier;
} cpu_target;
static const cpu_target cpu_targets[] = {
    {"skylake-avx512", TIER_CPU_AVX512},
    {"cascadelake", TIER_CPU_AVX512},
    {"cooperlake", TIER_CPU_AVX512},
    {"cannonlake", TIER_CPU_AVX512},
    {"icelake-client", TIER_CPU_AVX512},
    {"icelake-server", TIER_CPU_AVX512},
    {"tigerlake", TIER_CPU_AVX512},
    {"rocketlake", TIER_CPU_AVX512},
    {"sapphirerapids", TIER_CPU_AVX512},
    {"emeraldrapids", TIER_CPU_AVX512},
    {"graniterapids", TIER_CPU_AVX512},
    {"diamondrapids", TIER_CPU_AVX512},
    {"knl", TIER_CPU_AVX512},
    {"knm", TIER_CPU_AVX512},
    {"znver4", TIER_CPU_AVX512},
    {"znver5", TIER_CPU_AVX512},
    {"x86-64-v4", TIER_CPU_AVX512},
    {"haswell", TIER_CPU_AVX2},
    {"broadwell", TIER_CPU_AVX2},
    {"skylake", TIER_CPU_AVX2},
    {"alderlake", TIER_CPU_AVX2},
    {"raptorlake", TIER_CPU_AVX2},
    {"meteorlake", TIER_CPU_AVX2},
    {"arrowlake", TIER_CPU_AVX2},
    {"lunarlake", TIER_CPU_AVX2},
    {"gracemont", TIER_CPU_AVX2},
    {"sierraforest", TIER_CPU_AVX2},
    {"grandridge", TIER_CPU_AVX2},
    {"znver1", TIER_CPU_AVX2},
    {"znver2", TIER_CPU_AVX2},
    {"znver3", TIER_CPU_AVX2},
    {"bdver4", TIER_CPU_AVX2},
    {"x86-64-v3", TIER_CPU_AVX2},
    /* PoCL's distribution builds compile for one of a few kernel-library variants: these. */
    {"generic", TIER_CPU_GENERIC},
    {"x86-64", TIER_CPU_GENERIC},
    {"x86-64-v2", TIER_CPU_GENERIC},
    {"sse2", TIER_CPU_GENERIC},
    {"ssse3", TIER_CPU_GENERIC},
    {"sse41", TIER_CPU_GENERIC},
    {"avx", TIER_CPU_GENERIC},
    {"avx_f16c", TIER_CPU_GENERIC},
    {"avx_fma4", TIER_CPU_GENERIC},
    {"sandybridge", TIER_CPU_GENERIC},
    {"ivybridge", TIER_CPU_GENERIC},
    {"nehalem", TIER_CPU_GENERIC},
    {"westmere", TIER_CPU_GENERIC},
    /* AArch64: NEON on every core; SVE (or SVE2) on these. */
    {"a64fx", TIER_CPU_SVE},
    {"neoverse-v1", TIER_CPU_SVE},
    {"neoverse-v2", TIER_CPU_SVE},
    {"neoverse-v3", TIER_CPU_SVE},
    {"neoverse-n2", TIER_CPU_SVE},
    {"neoverse-n3", TIER_CPU_SVE},
    {"neoverse-512tvb", TIER_CPU_SVE},
    {"cortex-x2", TIER_CPU_SVE},
    {"cortex-x3", TIER_CPU_SVE},
    {"cortex-x4", TIER_CPU_SVE},
    {"cortex-x925", TIER_CPU_SVE},
    {"cortex-a510", TIER_CPU_SVE},
    {"cortex-a710", TIER_CPU_SVE},
    {"cortex-a715", TIER_CPU_SVE},
    {"cortex-a720", TIER_CPU_SVE},
    /* cortex-a53 to cortex-a78; of two matches of one length the first wins, so the SVE2
     * cores above (cortex-a510 to a720) are not taken for these. */
    {"cortex-a", TIER_CPU_NEON},
    {"cortex-x1", TIER_CPU_NEON},
    {"neoverse-n1", TIER_CPU_NEON},
    {"neoverse-e1", TIER_CPU_NEON},
    {"apple-", TIER_CPU_NEON},
    {"thunderx", TIER_CPU_NEON},
    {"tsv110", TIER_CPU_NEON},
    {"ampere1", TIER_CPU_NEON},
};

/* The length of target t at the start of s, up to the end or the hyphen after it; 0 if s does
 * not start with it. "cortex-a" and "apple-" are families: a model number ("cortex-a73") or
 * name ("apple-m1") completes them. */
static size_t target_len(const cpu_target *t, const char *s) {
    size_t len = strlen(t->name);
    if (strncasecmp(s, t->name, len) != 0) return 0;
    bool digits = strcmp(t->name, "cortex-a") == 0, alnum = strcmp(t->name, "apple-") == 0;
    if (digits || alnum) {
        size_t model = 0;
        while (digits ? isdigit((unsigned char)s[len + model])
                      : isalnum((unsigned char)s[len + model]))
            model++;
        if (model == 0) return 0;
        len += model;
    }
    return s[len] == 0 || s[len] == '-' ? len : 0;
}

/* The longest target at the start of s and its length ("skylake-avx512-Intel(R) ..." is
 * skylake-avx512, not skylake); TIER_UNKNOWN and 0 if none. */
static device_tier cpu_target_at(const char *s, size_t *matched) {
    device_tier tier = TIER_UNKNOWN;
    *matched = 0;
    for (size_t i = 0; i < sizeof cpu_targets / sizeof cpu_targets[0]; i++) {
        size_t len = target_len(&cpu_targets[i], s);
        if (len > *matched) {
            tier = cpu_targets[i].tier;
            *matched = len;
        }
    }
    return tier;
}

/* PoCL's device name: its driver, the LLVM target, the processor ("pthread-haswell-AMD EPYC
 * 7763 64-Core Processor", "cpu-znver3-AMD Ryzen 9 5900X 12-Core Processor"). Older PoCL on Arm
 * names no target here ("pthread-AArch64 Processor rev 4 (aarch64)"): TIER_UNKNOWN. */
static device_tier pocl_name_tier(const char *name) {
    static const char *const drivers[] = {"cpu-minimal-", "pthread-", "basic-", "cpu-", NULL};
    for (const char *const *d = drivers; *d; d++) {
        size_t n = strlen(*d), matched;
        if (strncasecmp(name, *d, n) == 0) return cpu_target_at(name + n, &matched);
    }
    return TIER_UNKNOWN;
}

/* PoCL's CL_DEVICE_VERSION ends with the target after the host triple: "OpenCL 3.0 PoCL HSTR:
 * pthread-x86_64-pc-linux-gnu-skylake-avx512", "OpenCL 1.2 pocl HSTR:
 * pthread-aarch64--linux-android-cortex-a73". The first hyphen from which a target runs to the
 * end gives the longest. LLVM's generic target on AArch64 has NEON (AArch64 always does). */
static device_tier pocl_version_tier(const char *version) {
    const char *hstr = find_nocase(version, "HSTR: ");
    if (!hstr) return TIER_UNKNOWN;
    hstr += strlen("HSTR: ");
    size_t end = strlen(hstr);
    while (end > 0 && isspace((unsigned char)hstr[end - 1]))
        end--;
    bool aarch64 = contains_nocase(hstr, "aarch64") || contains_nocase(hstr, "arm64");
    for (size_t i = 0; i < end; i++) {
        size_t matched;
        device_tier t = hstr[i] == '-' ? cpu_target_at(hstr + i + 1, &matched) : TIER_UNKNOWN;
        if (t != TIER_UNKNOWN && i + 1 + matched == end)
            return aarch64 && t == TIER_CPU_GENERIC ? TIER_CPU_NEON : t;
    }
    return TIER_UNKNOWN;
}

/* A CPU's tier: PoCL's target in its device name, else in its version string. Other CPU
 * drivers (Intel's, AMD's) name only the processor, which does not say its vector width. */
static device_tier cpu_tier(const device_info *info) {
    device_tier t = pocl_name_tier(info->name);
    return t != TIER_UNKNOWN ? t : pocl_version_tier(info->device_version);
}

device_tier clgemm__device_tier(const device_info *info) {
    switch (info->cls) {
    case DEVICE_NVIDIA_GPU:
        return nvidia_tier(info->nv_compute_capability);
    case DEVICE_AMD_GPU: {
        device_tier t = amd_gfx_tier(info->name);
        if (t == TIER_UNKNOWN) t = amd_board_tier(info->board_name);
        return t != TIER_UNKNOWN ? t : amd_board_tier(info->name);
    }
    case DEVICE_INTEL_GPU:
        return info->intel_ip_version ? intel_ip_tier(info->intel_ip_version)
                                      : intel_name_tier(info->name);
    case DEVICE_CPU:
        return cpu_tier(info);
    default:
        return TIER_UNKNOWN;
    }
}

const char *clgemm__device_tier_name(device_tier tier) {
    static const char *names[TIER_COUNT] = {
        "unknown",    "nvidia-volta",  "nvidia-turing", "nvidia-ampere", "nvidia-ampere-ga10x",
        "nvidia-ada", "nvidia-hopper", "amd-gcn",       "amd-cdna",      "amd-rdna",
        "intel-gen9", "intel-xe-lp",   "intel-xe-hpg",  "intel-xe-hpc",  "cpu-generic",
        "cpu-avx2",   "cpu-avx512",    "cpu-neon",      "cpu-sve"};
    return tier < TIER_COUNT ? names[tier] : "unknown";
}

const char *clgemm__device_class_name(device_class cls) {
    static const char *names[DEVICE_CLASS_COUNT] = {"nvidia-gpu", "amd-gpu", "intel-gpu",
                                                    "other-gpu", "cpu"};
    return cls < DEVICE_CLASS_COUNT ? names[cls] : "unknown";
}
