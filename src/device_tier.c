/* device_tier.c: a device's vendor class and architecture tier from what it reported (vendor,
 * name, board name, compute capability, IP version): pure functions of the strings and numbers,
 * so tests and tools can classify recorded devices without OpenCL. */
#include "internal.h"

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
    default:
        return TIER_UNKNOWN;
    }
}

const char *clgemm__device_tier_name(device_tier tier) {
    static const char *names[TIER_COUNT] = {
        "unknown",    "nvidia-volta",  "nvidia-turing", "nvidia-ampere", "nvidia-ampere-ga10x",
        "nvidia-ada", "nvidia-hopper", "amd-gcn",       "amd-cdna",      "amd-rdna",
        "intel-gen9", "intel-xe-lp",   "intel-xe-hpg",  "intel-xe-hpc"};
    return tier < TIER_COUNT ? names[tier] : "unknown";
}

const char *clgemm__device_class_name(device_class cls) {
    static const char *names[DEVICE_CLASS_COUNT] = {"nvidia-gpu", "amd-gpu", "intel-gpu",
                                                    "other-gpu", "cpu"};
    return cls < DEVICE_CLASS_COUNT ? names[cls] : "unknown";
}
