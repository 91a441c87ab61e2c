/* device.c: who an OpenCL device is (identity strings, vendor class) and what it can do
 * (work-group and local-memory limits, double precision). */
#include "internal.h"

/* From cl_ext.h's cl_nv_device_attribute_query, which not every header set has. */
#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#endif

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void get_string(cl_device_id device, cl_device_info what, char *buf, size_t size) {
    buf[0] = 0;
    if (clGetDeviceInfo(device, what, size, buf, NULL) != CL_SUCCESS) buf[0] = 0;
    buf[size - 1] = 0;
}

static bool contains_nocase(const char *haystack, const char *needle) {
    size_t n = strlen(needle);
    for (; *haystack; haystack++)
        if (strncasecmp(haystack, needle, n) == 0) return true;
    return false;
}

static device_class classify(const device_info *info, cl_device_type type) {
    if (!(type & CL_DEVICE_TYPE_GPU)) return DEVICE_CPU;
    if (contains_nocase(info->vendor, "nvidia")) return DEVICE_NVIDIA_GPU;
    if (contains_nocase(info->vendor, "amd") || contains_nocase(info->vendor, "advanced micro"))
        return DEVICE_AMD_GPU;
    if (contains_nocase(info->vendor, "intel")) return DEVICE_INTEL_GPU;
    return DEVICE_OTHER_GPU;
}

const char *clgemm__device_class_name(device_class cls) {
    static const char *names[DEVICE_CLASS_COUNT] = {"nvidia-gpu", "amd-gpu", "intel-gpu",
                                                    "other-gpu", "cpu"};
    return cls < DEVICE_CLASS_COUNT ? names[cls] : "unknown";
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
    info->cls = classify(info, type);

    /* cl_khr_fp64 in the extension list; CL_DEVICE_DOUBLE_FP_CONFIG alone is not enough on
     * OpenCL 1.2 platforms that report a config without the extension. */
    size_t ext_size = 0;
    bool nv_attributes = false;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size) == CL_SUCCESS &&
        ext_size > 0) {
        char *ext = malloc(ext_size + 1);
        if (!ext) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
        if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL) == CL_SUCCESS) {
            ext[ext_size] = 0;
            info->has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
            nv_attributes = strstr(ext, "cl_nv_device_attribute_query") != NULL;
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
    return CLGEMM_SUCCESS;
}
