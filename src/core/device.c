/* device.c: asks an OpenCL device who it is (identity strings, from which device_tier.c tells
 * its vendor class and architecture tier) and what it can do (work-group and local-memory
 * limits, double precision). */
#include "core/core.h"

/* From cl_ext.h's cl_nv_device_attribute_query, which not every header set has. */
#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#endif
#ifndef CL_DEVICE_PCI_BUS_ID_NV
#define CL_DEVICE_PCI_BUS_ID_NV    0x4008
#define CL_DEVICE_PCI_SLOT_ID_NV   0x4009
#define CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A
#endif
#ifndef CL_DEVICE_PCI_BUS_INFO_KHR
#define CL_DEVICE_PCI_BUS_INFO_KHR 0x410F
#endif
/* cl_amd_device_attribute_query and cl_intel_device_attribute_query, likewise. */
#ifndef CL_DEVICE_BOARD_NAME_AMD
#define CL_DEVICE_BOARD_NAME_AMD 0x4038
#endif
#ifndef CL_DEVICE_IP_VERSION_INTEL
#define CL_DEVICE_IP_VERSION_INTEL 0x4250
#endif

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void get_string(cl_device_id device, cl_device_info what, char *buf, size_t size) {
    buf[0] = 0;
    if (clGetDeviceInfo(device, what, size, buf, NULL) != CL_SUCCESS) buf[0] = 0;
    buf[size - 1] = 0;
}

cl_ulong clgemm__nv_static_local_max(int compute_capability) {
    switch (compute_capability) {
    case 90:
        return 232448; /* 227 KiB: built and run on the H200 (docs/TENSOR_CORES.md) */
    case 80:
        return 166912; /* 163 KiB */
    case 86:
    case 87:
    case 89:
        return 101376; /* 99 KiB */
    case 75:
        return 65536;
    case 70:
    case 72:
        return 98304;
    default:
        return 0;
    }
}

clgemm_status clgemm__device_query(cl_device_id device, device_info *info) {
    memset(info, 0, sizeof *info);
    cl_platform_id platform;
    cl_int err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    if (err != CL_SUCCESS) return err;
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof info->platform_name, info->platform_name,
                      NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof info->platform_version,
                      info->platform_version, NULL);
    info->platform_name[sizeof info->platform_name - 1] = 0;
    info->platform_version[sizeof info->platform_version - 1] = 0;
    get_string(device, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    get_string(device, CL_DEVICE_NAME, info->name, sizeof info->name);
    get_string(device, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
    /* PoCL names its LLVM CPU target at the end ("... HSTR: pthread-aarch64-...-cortex-a73"),
     * also where the device name does not (older PoCL on Arm): the CPU tier reads it. */
    get_string(device, CL_DEVICE_VERSION, info->device_version, sizeof info->device_version);

    cl_device_type type = 0;
    err = clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                              sizeof info->max_work_group_size, &info->max_work_group_size, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                              sizeof info->max_work_item_sizes, info->max_work_item_sizes, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof info->local_mem_size,
                              &info->local_mem_size, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof info->compute_units,
                              &info->compute_units, NULL);
    if (err != CL_SUCCESS) return err;
    info->cls = clgemm__device_classify(info, type);
    info->pocl_cpu = info->cls == DEVICE_CPU && strstr(info->platform_name, "Portable Computing");

    /* cl_khr_fp64 in the extension list; CL_DEVICE_DOUBLE_FP_CONFIG alone is not enough on
     * OpenCL 1.2 platforms that report a config without the extension. */
    size_t ext_size = 0;
    bool nv_attributes = false, amd_attributes = false, intel_attributes = false;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size) == CL_SUCCESS &&
        ext_size > 0) {
        char *ext = malloc(ext_size + 1);
        if (!ext) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
        if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL) == CL_SUCCESS) {
            ext[ext_size] = 0;
            info->has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
            nv_attributes = strstr(ext, "cl_nv_device_attribute_query") != NULL;
            amd_attributes = strstr(ext, "cl_amd_device_attribute_query") != NULL;
            intel_attributes = strstr(ext, "cl_intel_device_attribute_query") != NULL;
        }
        free(ext);
    }
    /* NVIDIA's architecture tier: the compute capability (matrix-unit instructions by it). */
    cl_uint major = 0, minor = 0;
    if (nv_attributes &&
        clGetDeviceInfo(device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major,
                        NULL) == CL_SUCCESS &&
        clGetDeviceInfo(device, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor, &minor,
                        NULL) == CL_SUCCESS)
        info->nv_compute_capability = (int)(major * 10 + minor);
    /* The PCI address, for the CUDA driver library's device of the same GPU (tensor_map.c):
     * cl_khr_pci_bus_info where the driver has it, else NVIDIA's own attributes, whose slot is
     * device << 3 | function. */
    if (info->cls == DEVICE_NVIDIA_GPU) {
        cl_uint pci[4] = {0}, bus = 0, slot = 0, domain = 0;
        if (clGetDeviceInfo(device, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof pci, pci, NULL) ==
            CL_SUCCESS) {
            info->nv_pci_known = true;
            info->nv_pci_domain = pci[0];
            info->nv_pci_bus = pci[1];
            info->nv_pci_device = pci[2];
        } else if (nv_attributes &&
                   clGetDeviceInfo(device, CL_DEVICE_PCI_BUS_ID_NV, sizeof bus, &bus, NULL) ==
                       CL_SUCCESS &&
                   clGetDeviceInfo(device, CL_DEVICE_PCI_SLOT_ID_NV, sizeof slot, &slot, NULL) ==
                       CL_SUCCESS) {
            if (clGetDeviceInfo(device, CL_DEVICE_PCI_DOMAIN_ID_NV, sizeof domain, &domain, NULL) !=
                CL_SUCCESS)
                domain = 0;
            info->nv_pci_known = true;
            info->nv_pci_domain = domain;
            info->nv_pci_bus = bus;
            info->nv_pci_device = slot >> 3;
        }
    }
    /* AMD's and Intel's, for the tier (clgemm__device_tier): the board name where the device
     * name is a codename, and Intel's graphics IP version. */
    if (amd_attributes && info->cls == DEVICE_AMD_GPU)
        get_string(device, CL_DEVICE_BOARD_NAME_AMD, info->board_name, sizeof info->board_name);
    cl_uint ip = 0;
    if (intel_attributes && info->cls == DEVICE_INTEL_GPU &&
        clGetDeviceInfo(device, CL_DEVICE_IP_VERSION_INTEL, sizeof ip, &ip, NULL) == CL_SUCCESS)
        info->intel_ip_version = ip;
    return CLGEMM_SUCCESS;
}
