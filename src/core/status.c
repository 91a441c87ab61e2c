/* status.c: a message for every status code, the library's own (from CLGEMM_STATUS_LIST) and
 * OpenCL's. */
#include "core/core.h"

static const char *opencl_error_string(int status) {
    switch (status) {
#define CL_ERROR(code, text)                                                                       \
    case code:                                                                                     \
        return "OpenCL: " text;
        CL_ERROR(CL_DEVICE_NOT_FOUND, "device not found")
        CL_ERROR(CL_DEVICE_NOT_AVAILABLE, "device not available")
        CL_ERROR(CL_COMPILER_NOT_AVAILABLE, "compiler not available")
        CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE, "memory object allocation failure")
        CL_ERROR(CL_OUT_OF_RESOURCES, "out of resources")
        CL_ERROR(CL_OUT_OF_HOST_MEMORY, "out of host memory")
        CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE, "profiling info not available")
        CL_ERROR(CL_MEM_COPY_OVERLAP, "memory copy overlap")
        CL_ERROR(CL_BUILD_PROGRAM_FAILURE, "build program failure")
        CL_ERROR(CL_MAP_FAILURE, "map failure")
        CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET, "misaligned sub-buffer offset")
        CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "error status in event wait list")
        CL_ERROR(CL_INVALID_VALUE, "invalid value")
        CL_ERROR(CL_INVALID_DEVICE, "invalid device")
        CL_ERROR(CL_INVALID_CONTEXT, "invalid context")
        CL_ERROR(CL_INVALID_COMMAND_QUEUE, "invalid command queue")
        CL_ERROR(CL_INVALID_MEM_OBJECT, "invalid memory object")
        CL_ERROR(CL_INVALID_BINARY, "invalid binary")
        CL_ERROR(CL_INVALID_BUILD_OPTIONS, "invalid build options")
        CL_ERROR(CL_INVALID_PROGRAM, "invalid program")
        CL_ERROR(CL_INVALID_KERNEL_NAME, "invalid kernel name")
        CL_ERROR(CL_INVALID_KERNEL, "invalid kernel")
        CL_ERROR(CL_INVALID_ARG_INDEX, "invalid argument index")
        CL_ERROR(CL_INVALID_ARG_VALUE, "invalid argument value")
        CL_ERROR(CL_INVALID_ARG_SIZE, "invalid argument size")
        CL_ERROR(CL_INVALID_KERNEL_ARGS, "invalid kernel arguments")
        CL_ERROR(CL_INVALID_WORK_DIMENSION, "invalid work dimension")
        CL_ERROR(CL_INVALID_WORK_GROUP_SIZE, "invalid work-group size")
        CL_ERROR(CL_INVALID_WORK_ITEM_SIZE, "invalid work-item size")
        CL_ERROR(CL_INVALID_GLOBAL_OFFSET, "invalid global offset")
        CL_ERROR(CL_INVALID_EVENT_WAIT_LIST, "invalid event wait list")
        CL_ERROR(CL_INVALID_EVENT, "invalid event")
        CL_ERROR(CL_INVALID_OPERATION, "invalid operation")
        CL_ERROR(CL_INVALID_BUFFER_SIZE, "invalid buffer size")
        CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE, "invalid global work size")
        CL_ERROR(CL_INVALID_PLATFORM, "invalid platform")
        CL_ERROR(CL_IMAGE_FORMAT_MISMATCH, "image format mismatch")
        CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED, "image format not supported")
        CL_ERROR(CL_COMPILE_PROGRAM_FAILURE, "compile program failure")
        CL_ERROR(CL_LINKER_NOT_AVAILABLE, "linker not available")
        CL_ERROR(CL_LINK_PROGRAM_FAILURE, "link program failure")
        CL_ERROR(CL_DEVICE_PARTITION_FAILED, "device partition failed")
        CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "kernel argument info not available")
        CL_ERROR(CL_INVALID_DEVICE_TYPE, "invalid device type")
        CL_ERROR(CL_INVALID_QUEUE_PROPERTIES, "invalid queue properties")
        CL_ERROR(CL_INVALID_HOST_PTR, "invalid host pointer")
        CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "invalid image format descriptor")
        CL_ERROR(CL_INVALID_IMAGE_SIZE, "invalid image size")
        CL_ERROR(CL_INVALID_SAMPLER, "invalid sampler")
        CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE, "invalid program executable")
        CL_ERROR(CL_INVALID_KERNEL_DEFINITION, "invalid kernel definition")
        CL_ERROR(CL_INVALID_GL_OBJECT, "invalid GL object")
        CL_ERROR(CL_INVALID_MIP_LEVEL, "invalid mip level")
        CL_ERROR(CL_INVALID_PROPERTY, "invalid property")
        CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR, "invalid image descriptor")
        CL_ERROR(CL_INVALID_COMPILER_OPTIONS, "invalid compiler options")
        CL_ERROR(CL_INVALID_LINKER_OPTIONS, "invalid linker options")
        CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT, "invalid device partition count")
#undef CL_ERROR
    default:
        return "OpenCL: unknown error";
    }
}

const char *clgemm_status_string(int status) {
    switch (status) {
#define STATUS_CASE(name, value, message)                                                          \
    case value:                                                                                    \
        return message;
        CLGEMM_STATUS_LIST(STATUS_CASE)
#undef STATUS_CASE
    default:
        break;
    }
    if (status < 0 && status > -1000) return opencl_error_string(status);
    return "unknown status";
}
