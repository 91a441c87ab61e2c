/* devices.h: the OpenCL device listing and the --device option that clgemm-tune and
 * clgemm-bench share (devices.c). */
#ifndef CLGEMM_TOOLS_DEVICES_H
#define CLGEMM_TOOLS_DEVICES_H

/* Prints every platform's devices with the P:D index --device takes; 0, or 1 (with a message
 * naming `tool`) when there is no OpenCL platform. */
int tool_list_devices(const char *tool);

/* --device: CLGEMM_DEVICE's P:D form (indices or name substrings), or a bare substring of the
 * device name; it sets CLGEMM_DEVICE for clgemm_create_default. */
void tool_select_device(const char *spec);

/* The lines a tool prints when clgemm_create_default failed with `status`. */
void tool_no_device(const char *tool, const char *status);

#endif /* CLGEMM_TOOLS_DEVICES_H */
