/* device_models.h: modelled devices, the device_info the library would probe, for the suites
 * that check rules and plans without a device (test_unit, test_schedule_sweep). Each returns a
 * fresh copy that a test may change: a GPU of a class, the H200 before and after its probes, a
 * CPU as PoCL presents it. */
#ifndef CLGEMM_TEST_DEVICE_MODELS_H
#define CLGEMM_TEST_DEVICE_MODELS_H

#include "core/core.h"

#include <stdbool.h>
#include <stddef.h>

/* A made-up device: work-group limits and local memory of a typical GPU. */
device_info fake_device(size_t max_wg, size_t item0, size_t item1, cl_ulong local, bool fp64);
/* The H200 as the planner tests see it: 132 SMs of compute capability 9.0. */
device_info h200_device(void);
/* The H200 as the library knows it once the static local-memory probe has run. */
device_info h200_static(void);
/* A generic GPU: 256 work-items a group, 32 KiB of local memory, FP64. */
device_info gpu(void);
/* A CPU: 4096 work-items a group, 2 MiB of local memory, FP64. */
device_info cpu(void);

#endif
