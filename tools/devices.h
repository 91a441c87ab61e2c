/* devices.h: the OpenCL device listing, the --device option and the rule for what a device can
 * hold that clgemm-tune and the benchmarks share (devices.c). */
#ifndef CLGEMM_TOOLS_DEVICES_H
#define CLGEMM_TOOLS_DEVICES_H

#include "clgemm.h" /* OpenCL, as the library includes it */

/* Prints every platform's devices with the P:D index --device takes; 0, or 1 (with a message
 * naming `tool`) when there is no OpenCL platform. */
int tool_list_devices(const char *tool);

/* --device: CLGEMM_DEVICE's P:D form (indices or name substrings), or a bare substring of the
 * device name; it sets CLGEMM_DEVICE for clgemm_create_default. */
void tool_select_device(const char *spec);

/* The lines a tool prints when clgemm_create_default failed with `status`. */
void tool_no_device(const char *tool, const char *status);

/* Why a problem's buffers cannot be made (NULL: they can): A, B and C of `device_bytes` each
 * below the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE and together below its global memory, and the
 * tool's host copies (`host_bytes`) below the host's physical memory. Checked before anything is
 * allocated: a size no machine holds must be refused with a message, never malloc'ed and
 * touched until the kernel's out-of-memory killer ends the process. */
const char *tool_buffers_unfit(cl_device_id device, const double device_bytes[3],
                               double host_bytes);

#endif /* CLGEMM_TOOLS_DEVICES_H */
