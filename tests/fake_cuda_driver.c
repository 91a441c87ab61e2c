/* fake_cuda_driver.c: a stand-in for the CUDA driver library (libcuda.so.1) for the tensor-map
 * tests on machines without NVIDIA's driver: three devices at PCI 0a:00, 3b:00 and 3b:01, primary
 * contexts, and an encoder that, like the real one, fails without a current context (201) and
 * otherwise writes its arguments into the map so the test can read them back.
 * FAKE_CUDA_ENCODE_FAIL=1 makes every encode fail (a refusing driver). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* The driver API's signatures, as tensor_map.c calls them. */
EXPORT int cuInit(unsigned flags);
EXPORT int cuDeviceGetCount(int *count);
EXPORT int cuDeviceGet(int *device, int ordinal);
EXPORT int cuDeviceGetPCIBusId(char *id, int len, int device);
EXPORT int cuDevicePrimaryCtxRetain(void **ctx, int device);
EXPORT int cuCtxSetCurrent(void *ctx);
EXPORT int cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *address,
                                  const uint64_t *dims, const uint64_t *strides,
                                  const unsigned *box, const unsigned *estrides, int interleave,
                                  int swizzle, int l2, int oob);

static int initialised;
static void *current;
static int contexts[3];

EXPORT int cuInit(unsigned flags) {
    initialised = flags == 0;
    return initialised ? 0 : 1;
}
EXPORT int cuDeviceGetCount(int *count) {
    *count = 3;
    return initialised ? 0 : 3;
}
EXPORT int cuDeviceGet(int *device, int ordinal) {
    if (ordinal < 0 || ordinal > 2) return 101;
    *device = ordinal;
    return 0;
}
EXPORT int cuDeviceGetPCIBusId(char *id, int len, int device) {
    snprintf(id, (size_t)len, "0000:%02x:%02x.0", device == 0 ? 0x0a : 0x3b, device == 2);
    return 0;
}
EXPORT int cuDevicePrimaryCtxRetain(void **ctx, int device) {
    contexts[device]++;
    *ctx = &contexts[device];
    return 0;
}
EXPORT int cuCtxSetCurrent(void *ctx) {
    current = ctx;
    return 0;
}

/* The map: data type, rank, context's device, address, dims, strides, box, swizzle, as 64-bit
 * words in that order. */
EXPORT int cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *address,
                                  const uint64_t *dims, const uint64_t *strides,
                                  const unsigned *box, const unsigned *estrides, int interleave,
                                  int swizzle, int l2, int oob) {
    (void)estrides;
    (void)interleave;
    (void)l2;
    (void)oob;
    if (!current) return 201;
    const char *fail = getenv("FAKE_CUDA_ENCODE_FAIL");
    if (fail && *fail == '1') return 1;
    uint64_t w[16] = {(uint64_t)dtype, rank, (uint64_t)((int *)current - contexts),
                      (uint64_t)(uintptr_t)address};
    for (unsigned i = 0; i < rank && i < 3; i++) {
        w[4 + i] = dims[i];
        w[10 + i] = box[i];
    }
    for (unsigned i = 0; i + 1 < rank && i < 2; i++)
        w[7 + i] = strides[i];
    w[13] = (uint64_t)swizzle;
    memcpy(map, w, sizeof w);
    return 0;
}
