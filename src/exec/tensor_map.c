/* tensor_map.c: Hopper's tensor maps for OpenCL buffers. The kernels' bulk tensor copies
 * (cp.async.bulk.tensor) read a 128-byte map that only the CUDA driver library can write
 * (cuTensorMapEncodeTiled); NVIDIA's OpenCL driver ships beside it, so it is loaded at first use
 * (dlopen, nothing linked), for compute capability 9.0 only. The encoder wants a current CUDA
 * context (201 without one): the primary context of the CUDA device on the OpenCL device's PCI
 * address. The map is plain data naming a device address that OpenCL kernels then use; nothing
 * is ever launched through CUDA (its launches cannot reach OpenCL buffers). Checking a request
 * against the encoder's documented limits first turns each refusal into a reason. */
#include "exec/exec.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TMAP_TEXT(name, text) text,
static const char *const refusal_text[] = {TENSOR_MAP_REFUSALS(TMAP_TEXT)};
static const char *const service_text[] = {TENSOR_MAP_SERVICE(TMAP_TEXT)};
#undef TMAP_TEXT

const char *clgemm__tensor_map_refusal_string(tensor_map_refusal r) {
    return (unsigned)r < sizeof refusal_text / sizeof refusal_text[0] ? refusal_text[r] : "?";
}

const char *clgemm__tensor_map_service_string(tensor_map_service s) {
    return (unsigned)s < sizeof service_text / sizeof service_text[0] ? service_text[s] : "?";
}

/* ---- The encode parameters (pure) ------------------------------------------------------------ */

/* CUtensorMapDataType values (cuda.h): UINT8 0, FLOAT16 6, FLOAT32 7, FLOAT64 8, BFLOAT16 9. FP32
 * travels as FLOAT32, as measured on the H200 (wgmma reads its TF32 part). */
static int data_type(clgemm_precision t) {
    switch (t) {
    case CLGEMM_HALF:
        return 6;
    case CLGEMM_BFLOAT16:
        return 9;
    case CLGEMM_SINGLE:
        return 7;
    case CLGEMM_DOUBLE:
        return 8;
    case CLGEMM_INT8:
    case CLGEMM_E4M3:
    case CLGEMM_E5M2:
        return 0;
    default:
        return -1;
    }
}

/* The encoder's limits (CUDA driver API, cuTensorMapEncodeTiled): address 16-byte aligned;
 * dimensions 1 .. 2^32; strides multiples of 16 below 2^40; box sides 1 .. 256 with a row of a
 * multiple of 16 bytes, at most the swizzle's width when swizzled; element strides 1 .. 8. */
#define DIM_MAX    ((cl_ulong)1 << 32)
#define STRIDE_MAX ((cl_ulong)1 << 40)

static tensor_map_refusal layout_refusal(const tensor_map_request *r, size_t esize) {
    if (r->address % 16) return TMAP_BASE;
    if ((r->ld * esize) % 16) return TMAP_PITCH;
    if (r->batch > 1 && (r->stride == 0 || (r->stride * esize) % 16)) return TMAP_STRIDE;
    return TMAP_OK;
}

static tensor_map_refusal shape_refusal(const tensor_map_request *r, size_t esize) {
    if (r->ld < r->cols) return TMAP_PITCH_SHORT;
    if (r->rows == 0 || r->cols == 0 || r->batch == 0 || r->rows > DIM_MAX || r->cols > DIM_MAX ||
        r->batch > DIM_MAX || (cl_ulong)r->ld * esize >= STRIDE_MAX ||
        (cl_ulong)r->stride * esize >= STRIDE_MAX)
        return TMAP_DIMS;
    if (r->swizzle != 0 && r->swizzle != 32 && r->swizzle != 64 && r->swizzle != 128)
        return TMAP_SWIZZLE;
    if (r->box_rows == 0 || r->box_cols == 0 || r->box_rows > 256 || r->box_cols > 256)
        return TMAP_BOX;
    size_t inner = r->box_cols * esize;
    if (inner % 16 || (r->swizzle && inner > r->swizzle)) return TMAP_BOX_INNER;
    return TMAP_OK;
}

tensor_map_refusal clgemm__tensor_map_params(const tensor_map_request *r, tensor_map_params *out) {
    const int dtype = data_type(r->type);
    if (dtype < 0) return TMAP_TYPE;
    const size_t esize = clgemm__type(r->type)->size;
    tensor_map_refusal why = shape_refusal(r, esize);
    if (why == TMAP_OK) why = layout_refusal(r, esize);
    if (why != TMAP_OK) return why;
    const cl_ulong pitch = (cl_ulong)r->ld * esize;
    *out = (tensor_map_params){
        .data_type = dtype,
        .rank = 3,
        .address = r->address,
        .dims = {r->cols, r->rows, r->batch},
        /* One matrix: any multiple of 16 will do, as the third coordinate is always 0. */
        .strides = {pitch, r->batch > 1 ? (cl_ulong)r->stride * esize : pitch * r->rows},
        .box = {r->box_cols, r->box_rows, 1},
        .element_strides = {1, 1, 1},
        .interleave = 0,
        .swizzle = r->swizzle == 128  ? 3
                   : r->swizzle == 64 ? 2
                   : r->swizzle == 32 ? 1
                                      : 0,
        .l2_promotion = 2, /* 128 bytes */
        .oob_fill = 0,     /* zeros past the edges: the kernels rely on it along K */
    };
    return TMAP_OK;
}

tensor_map_refusal clgemm__tensor_map_layout(const tensor_map_request *r) {
    return layout_refusal(r, clgemm__type(r->type)->size);
}

tensor_map_route clgemm__tensor_map_route(const tensor_map_request *r, size_t *packed_ld,
                                          size_t *packed_stride, tensor_map_refusal *why) {
    tensor_map_params p;
    *why = clgemm__tensor_map_params(r, &p);
    if (*why == TMAP_OK) {
        *packed_ld = r->ld;
        *packed_stride = r->stride;
        return TMAP_ROUTE_MAP;
    }
    if (*why != TMAP_BASE && *why != TMAP_PITCH && *why != TMAP_STRIDE) return TMAP_ROUTE_NONE;
    if (*why == TMAP_STRIDE && r->stride == 0) return TMAP_ROUTE_NONE; /* a broadcast */
    /* The scratch copy: rows padded to 16 bytes, matrices back to back, at an aligned address
     * (a fresh buffer's). */
    const size_t esize = clgemm__type(r->type)->size, per16 = 16 / esize;
    tensor_map_request packed = *r;
    packed.ld = clgemm__round_up(r->cols, per16);
    packed.stride = packed.ld * r->rows;
    packed.address = 0;
    tensor_map_refusal left = clgemm__tensor_map_params(&packed, &p);
    if (left != TMAP_OK) {
        *why = left;
        return TMAP_ROUTE_NONE;
    }
    *packed_ld = packed.ld;
    *packed_stride = packed.stride;
    return TMAP_ROUTE_PACK;
}

/* ---- The CUDA driver library ------------------------------------------------------------------
 */

typedef int (*cu_init_fn)(unsigned flags);
typedef int (*cu_count_fn)(int *count);
typedef int (*cu_device_fn)(int *device, int ordinal);
typedef int (*cu_bus_id_fn)(char *id, int len, int device);
typedef int (*cu_retain_fn)(void **ctx, int device);
typedef int (*cu_set_current_fn)(void *ctx);
typedef int (*cu_encode_fn)(void *map, int dtype, unsigned rank, void *address,
                            const uint64_t *dims, const uint64_t *strides, const unsigned *box,
                            const unsigned *element_strides, int interleave, int swizzle,
                            int l2_promotion, int oob_fill);

static struct {
    pthread_mutex_t lock;
    bool tried;
    tensor_map_service loaded; /* the library's answer, once tried */
    cu_count_fn count;
    cu_device_fn device;
    cu_bus_id_fn bus_id;
    cu_retain_fn retain;
    cu_set_current_fn set_current;
    cu_encode_fn encode;
    /* The contexts found so far, by PCI address (a process rarely has more than 8 GPUs; past
     * that the others are looked up each time). */
    int contexts;
    struct {
        unsigned domain, bus, device;
        bool known;
        void *ctx;
    } context[8];
} cuda = {.lock = PTHREAD_MUTEX_INITIALIZER};

static tensor_map_service load_library(void) {
    const char *name = getenv("CLGEMM_CUDA_LIBRARY"); /* read once: tests point it elsewhere */
    void *lib = dlopen(name && *name ? name : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return TMAP_SERVICE_NO_LIBRARY;
    cu_init_fn init = (cu_init_fn)dlsym(lib, "cuInit");
    cuda.count = (cu_count_fn)dlsym(lib, "cuDeviceGetCount");
    cuda.device = (cu_device_fn)dlsym(lib, "cuDeviceGet");
    cuda.bus_id = (cu_bus_id_fn)dlsym(lib, "cuDeviceGetPCIBusId");
    cuda.retain = (cu_retain_fn)dlsym(lib, "cuDevicePrimaryCtxRetain");
    cuda.set_current = (cu_set_current_fn)dlsym(lib, "cuCtxSetCurrent");
    cuda.encode = (cu_encode_fn)dlsym(lib, "cuTensorMapEncodeTiled");
    if (!init || !cuda.count || !cuda.device || !cuda.bus_id || !cuda.retain || !cuda.set_current ||
        !cuda.encode) {
        dlclose(lib);
        return TMAP_SERVICE_NO_SYMBOL;
    }
    /* Kept loaded for the process's life: maps may be encoded until it ends. */
    return init(0) == 0 ? TMAP_SERVICE_OK : TMAP_SERVICE_INIT_FAILED;
}

bool clgemm__pci_matches(const device_info *info, const char *id) {
    unsigned domain, bus, device, function;
    return info->nv_pci_known &&
           sscanf(id, "%x:%x:%x.%x", &domain, &bus, &device, &function) == 4 &&
           domain == info->nv_pci_domain && bus == info->nv_pci_bus &&
           device == info->nv_pci_device;
}

/* The primary context of the device's CUDA twin (lock held): by PCI address, or the only CUDA
 * device where OpenCL gave no address. */
static tensor_map_service find_context(const device_info *info, void **ctx) {
    for (int i = 0; i < cuda.contexts; i++)
        if (cuda.context[i].known == info->nv_pci_known &&
            cuda.context[i].domain == info->nv_pci_domain &&
            cuda.context[i].bus == info->nv_pci_bus &&
            cuda.context[i].device == info->nv_pci_device) {
            *ctx = cuda.context[i].ctx;
            return TMAP_SERVICE_OK;
        }
    int count = 0, match = -1;
    if (cuda.count(&count) != 0) return TMAP_SERVICE_NO_DEVICE;
    for (int i = 0; i < count && match < 0; i++) {
        char id[64] = "";
        int dev;
        if (cuda.device(&dev, i) == 0 && cuda.bus_id(id, (int)sizeof id, dev) == 0 &&
            clgemm__pci_matches(info, id))
            match = dev;
    }
    if (match < 0 && !info->nv_pci_known && count == 1 && cuda.device(&match, 0) != 0) match = -1;
    if (match < 0) return TMAP_SERVICE_NO_DEVICE;
    if (cuda.retain(ctx, match) != 0 || !*ctx) return TMAP_SERVICE_NO_CONTEXT;
    if (cuda.contexts < 8) {
        cuda.context[cuda.contexts].domain = info->nv_pci_domain;
        cuda.context[cuda.contexts].bus = info->nv_pci_bus;
        cuda.context[cuda.contexts].device = info->nv_pci_device;
        cuda.context[cuda.contexts].known = info->nv_pci_known;
        cuda.context[cuda.contexts++].ctx = *ctx;
    }
    return TMAP_SERVICE_OK;
}

/* The library and the device's context, made current on this thread (lock held). */
static tensor_map_service ready(const device_info *info) {
    if (info->cls != DEVICE_NVIDIA_GPU || info->nv_compute_capability != 90)
        return TMAP_SERVICE_NOT_HOPPER;
    if (!cuda.tried) {
        cuda.loaded = load_library();
        cuda.tried = true;
    }
    if (cuda.loaded != TMAP_SERVICE_OK) return cuda.loaded;
    void *ctx = NULL;
    tensor_map_service s = find_context(info, &ctx);
    if (s != TMAP_SERVICE_OK) return s;
    return cuda.set_current(ctx) == 0 ? TMAP_SERVICE_OK : TMAP_SERVICE_NO_CONTEXT;
}

tensor_map_service clgemm__tensor_map_encode(const device_info *info, const tensor_map_params *p,
                                             unsigned char map[128]) {
    pthread_mutex_lock(&cuda.lock);
    tensor_map_service s = ready(info);
    if (s == TMAP_SERVICE_OK) {
        const uint64_t dims[3] = {p->dims[0], p->dims[1], p->dims[2]};
        const uint64_t strides[2] = {p->strides[0], p->strides[1]};
        memset(map, 0, 128);
        if (cuda.encode(map, p->data_type, p->rank, (void *)(uintptr_t)p->address, dims, strides,
                        p->box, p->element_strides, p->interleave, p->swizzle, p->l2_promotion,
                        p->oob_fill) != 0)
            s = TMAP_SERVICE_ENCODE_FAILED;
    }
    pthread_mutex_unlock(&cuda.lock);
    return s;
}

/* One map of a legal shape over a made-up aligned address: the driver is asked whether it
 * encodes at all (a driver too old for tensor maps refuses here, once). */
tensor_map_service clgemm__tensor_map_service(const device_info *info) {
    const tensor_map_request probe = {.type = CLGEMM_HALF,
                                      .rows = 128,
                                      .cols = 128,
                                      .ld = 128,
                                      .batch = 1,
                                      .address = (cl_ulong)1 << 20,
                                      .box_rows = 64,
                                      .box_cols = 64,
                                      .swizzle = 128};
    tensor_map_params p;
    unsigned char map[128] __attribute__((aligned(64)));
    if (clgemm__tensor_map_params(&probe, &p) != TMAP_OK) return TMAP_SERVICE_ENCODE_FAILED;
    tensor_map_service s = clgemm__tensor_map_encode(info, &p, map);
    if (s != TMAP_SERVICE_OK && s != TMAP_SERVICE_NOT_HOPPER)
        clgemm__log("tensor maps unavailable: %s", clgemm__tensor_map_service_string(s));
    return s;
}
