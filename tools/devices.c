/* devices.c: the OpenCL device listing, the --device option and the rule for what a device can
 * hold, shared by clgemm-tune and the benchmarks, so they name devices and refuse sizes alike
 * (only the public API and OpenCL). */
#include "devices.h"

#include "clgemm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void print_device(cl_device_id d, cl_uint p, cl_uint i, const char *platform,
                         const char *platform_version) {
    char name[256] = "", vendor[256] = "", driver[256] = "";
    cl_device_type type = 0;
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VENDOR, sizeof vendor - 1, vendor, NULL);
    clGetDeviceInfo(d, CL_DRIVER_VERSION, sizeof driver - 1, driver, NULL);
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    const char *kind = type & CL_DEVICE_TYPE_GPU   ? "GPU"
                       : type & CL_DEVICE_TYPE_CPU ? "CPU"
                                                   : "other";
    printf("  %u:%u  %s (%s)\n", p, i, name, kind);
    printf("        platform: %s | platform_version: %s\n", platform, platform_version);
    printf("        vendor: %s | driver: %s\n", vendor, driver);
}

int tool_list_devices(const char *tool) {
    cl_platform_id platforms[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0) {
        fprintf(stderr,
                "%s: no OpenCL platform found: install an OpenCL driver (ICD), e.g. "
                "pocl-opencl-icd for CPUs\n",
                tool);
        return 1;
    }
    printf("OpenCL devices (use --device P:D, or CLGEMM_DEVICE=P:D):\n");
    for (cl_uint p = 0; p < np && p < 16; p++) {
        char name[256] = "", version[256] = "";
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
        clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, sizeof version - 1, version, NULL);
        cl_device_id devices[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &nd) != CL_SUCCESS)
            nd = 0;
        for (cl_uint d = 0; d < nd && d < 64; d++)
            print_device(devices[d], p, d, name, version);
    }
    return 0;
}

void tool_select_device(const char *spec) {
    char full[512];
    snprintf(full, sizeof full, "%s%s", strchr(spec, ':') ? "" : ":", spec);
    setenv("CLGEMM_DEVICE", full, 1);
}

void tool_no_device(const char *tool, const char *status) {
    const char *env = getenv("CLGEMM_DEVICE");
    fprintf(stderr, "%s: cannot open a device%s%s%s: %s\n", tool, env ? " (CLGEMM_DEVICE=" : "",
            env ? env : "", env ? ")" : "", status);
    fprintf(stderr,
            "  run '%s --list' to see the devices, and check that an OpenCL driver (ICD) "
            "is installed\n",
            tool);
}

const char *tool_buffers_unfit(cl_device_id device, const double device_bytes[3],
                               double host_bytes) {
    cl_ulong max_alloc = 0, global = 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double host = pages > 0 && page > 0 ? (double)pages * (double)page : 1e300;
    for (int i = 0; i < 3; i++)
        if (device_bytes[i] > (double)max_alloc)
            return "a matrix is larger than the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE";
    if (device_bytes[0] + device_bytes[1] + device_bytes[2] > (double)global)
        return "the matrices together exceed the device's global memory";
    if (host_bytes > host) return "its host copies exceed the host's physical memory";
    return NULL;
}
