/* recorded_devices.h: limits of real AMD and Intel GPUs, written down (never queried here: no
 * such device is attached to this machine or to CI), for the portability checks. */
#ifndef CLGEMM_RECORDED_DEVICES_H
#define CLGEMM_RECORDED_DEVICES_H

#include "core/core.h"

typedef struct recorded_device {
    const char *key;      /* the compiler's target name (tgllp, gfx90a, ...) or a limit case */
    const char *compiler; /* "ocloc", "amdgcn", or NULL for a limits-only description */
    const char *board;    /* a product with this chip */
    const char *source;   /* where the limits come from */
    device_info info;
} recorded_device;

/* The recorded devices, ending with key NULL. */
extern const recorded_device clgemm_recorded_devices[];
/* The device recorded under `key`; NULL if none is. */
const recorded_device *clgemm_recorded_device(const char *key);

#endif
