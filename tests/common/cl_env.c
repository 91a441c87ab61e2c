/* cl_env.c: the tests' OpenCL setup (a device, a context, an in-order queue) and buffer
 * helpers. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_extension(cl_device_id device, const char *name) {
    size_t size = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS || !size)
        return false;
    char *ext = malloc(size + 1);
    if (!ext) return false;
    bool found = false;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, ext, NULL) == CL_SUCCESS) {
        ext[size] = 0;
        found = strstr(ext, name) != NULL;
    }
    free(ext);
    return found;
}

bool tc_open(tc_env *env) {
    memset(env, 0, sizeof *env);
    cl_platform_id platforms[16];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(16, platforms, &np);
    if (err != CL_SUCCESS || np == 0) {
        snprintf(env->why, sizeof env->why, "clGetPlatformIDs found no platform (%d)", err);
        return false;
    }
    if (np > 16) np = 16;
    /* The first GPU, else the first device. */
    for (int want_gpu = 1; want_gpu >= 0 && !env->device; want_gpu--) {
        for (cl_uint p = 0; p < np && !env->device; p++) {
            cl_device_id dev;
            cl_uint nd = 0;
            cl_device_type type = want_gpu ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL;
            if (clGetDeviceIDs(platforms[p], type, 1, &dev, &nd) == CL_SUCCESS && nd > 0) {
                env->platform = platforms[p];
                env->device = dev;
            }
        }
    }
    if (!env->device) {
        snprintf(env->why, sizeof env->why, "%u platform(s) but no device", np);
        return false;
    }
    clGetDeviceInfo(env->device, CL_DEVICE_NAME, sizeof env->device_name, env->device_name, NULL);
    env->device_name[sizeof env->device_name - 1] = 0;
    env->has_fp64 = has_extension(env->device, "cl_khr_fp64");
    env->context = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        snprintf(env->why, sizeof env->why, "clCreateContext failed (%d) on %s", err,
                 env->device_name);
        env->context = NULL;
        return false;
    }
    env->queue = clCreateCommandQueue(env->context, env->device, 0, &err);
    if (err != CL_SUCCESS) {
        snprintf(env->why, sizeof env->why, "clCreateCommandQueue failed (%d) on %s", err,
                 env->device_name);
        clReleaseContext(env->context);
        env->context = NULL;
        env->queue = NULL;
        return false;
    }
    return true;
}

void tc_close(tc_env *env) {
    if (env->queue) {
        clFinish(env->queue);
        clReleaseCommandQueue(env->queue);
    }
    if (env->context) clReleaseContext(env->context);
    env->queue = NULL;
    env->context = NULL;
}

void tc_close_handle(tc_env *env, clgemm_handle h) {
    clgemm_destroy(h);
    tc_close(env);
}

cl_mem tc_buffer(cl_context ctx, size_t bytes, const void *host) {
    cl_int err;
    cl_mem_flags flags = CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0);
    cl_mem mem = clCreateBuffer(ctx, flags, bytes ? bytes : 1, (void *)host, &err);
    return err == CL_SUCCESS ? mem : NULL;
}

cl_int tc_read(cl_command_queue queue, cl_mem mem, size_t bytes, void *host) {
    if (bytes == 0) return CL_SUCCESS;
    return clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
}

cl_int tc_write(cl_command_queue queue, cl_mem mem, size_t bytes, const void *host) {
    if (bytes == 0) return CL_SUCCESS;
    return clEnqueueWriteBuffer(queue, mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
}
