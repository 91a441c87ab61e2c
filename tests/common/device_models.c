/* device_models.c: the modelled devices of device_models.h (test_unit, test_schedule_sweep). */
#include "device_models.h"

#include <string.h>

/* A made-up device: work-group limits and local memory of a typical GPU. */
device_info fake_device(size_t max_wg, size_t item0, size_t item1, cl_ulong local, bool fp64) {
    device_info info;
    memset(&info, 0, sizeof info);
    strcpy(info.platform_name, "Fake Platform");
    strcpy(info.name, "Fake Device");
    info.cls = DEVICE_OTHER_GPU;
    info.max_work_group_size = max_wg;
    info.max_work_item_sizes[0] = item0;
    info.max_work_item_sizes[1] = item1;
    info.max_work_item_sizes[2] = 64;
    info.local_mem_size = local;
    info.has_fp64 = fp64;
    return info;
}

/* The H200 as the planner tests see it: 132 SMs of compute capability 9.0. */
device_info h200_device(void) {
    device_info h200 = fake_device(1024, 1024, 1024, 49152, true);
    h200.cls = DEVICE_NVIDIA_GPU;
    h200.compute_units = 132;
    h200.nv_compute_capability = 90;
    return h200;
}

/* The H200 as the library knows it once the static local-memory probe has run. */
device_info h200_static(void) {
    device_info h200 = h200_device();
    h200.local_mem_static = 232448 - 1024;
    return h200;
}

device_info gpu(void) {
    return fake_device(256, 256, 256, 32768, true);
}

device_info cpu(void) {
    device_info info = fake_device(4096, 4096, 4096, 2097152, true);
    info.cls = DEVICE_CPU;
    return info;
}
