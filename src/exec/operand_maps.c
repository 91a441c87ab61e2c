/* operand_maps.c: the tensor maps a map-reading family (family_desc.tensor_maps: cl/tma.cl)
 * takes for a call's A and B: each operand as stored, `batch` matrices of lines of contiguous
 * elements at its device address plus offset, copied in boxes of one K slice by the tile's rows
 * or columns (K-major), or of one 128-byte row of columns (64 16-bit, 32 TF32) by one K slice
 * (MN-major), in the 128-byte swizzle the kernel expects. */
#include "exec/exec.h"

#include <string.h>

/* The configuration's tile sides and slice depth (the tma family's parameters MWG, NWG, KWG). */
static void tile_of(const clgemm_config *cfg, unsigned *mt, unsigned *nt, unsigned *kt) {
    size_t m, n, k;
    clgemm__family(cfg->family)->tile(cfg, &m, &n, &k);
    *mt = (unsigned)m;
    *nt = (unsigned)n;
    *kt = (unsigned)k;
}

/* One operand's map at buffer address base: K-major, lines of k elements, one per row of op(A)
 * (column of op(B)), boxes of `side` lines by one slice; MN-major, lines of mn elements, one per
 * k, boxes of one slice of lines by 128 bytes of elements (the kernel copies side / that many a
 * slice). */
static tensor_map_request request(clgemm_precision type, const map_operand *o, size_t k,
                                  size_t batch, cl_ulong base, unsigned side, unsigned kwg) {
    tensor_map_request r = {.type = type,
                            .rows = o->k_major ? o->mn : k,
                            .cols = o->k_major ? k : o->mn,
                            .ld = o->ld,
                            .batch = batch,
                            .stride = o->stride,
                            .address = base + (cl_ulong)o->off * clgemm__type(type)->size,
                            .box_rows = o->k_major ? side : kwg,
                            .box_cols = o->k_major ? kwg : 128 / (unsigned)clgemm__type(type)->size,
                            .swizzle = 128};
    return r;
}

static bool encode(struct clgemm_handle_s *h, clgemm_precision type, const map_operand *o, size_t k,
                   size_t batch, unsigned side, unsigned kwg, unsigned char map[128]) {
    cl_ulong base;
    if (clgemm__device_address(h, o->mem, &base) != CLGEMM_SUCCESS) return false;
    tensor_map_request r = request(type, o, k, batch, base, side, kwg);
    tensor_map_params p;
    tensor_map_refusal why = clgemm__tensor_map_params(&r, &p);
    if (why != TMAP_OK) {
        clgemm__log("tensor map refused: %s", clgemm__tensor_map_refusal_string(why));
        return false;
    }
    tensor_map_service s = clgemm__tensor_map_encode(&h->info, &p, map);
    if (s != TMAP_SERVICE_OK) clgemm__log("tensor map: %s", clgemm__tensor_map_service_string(s));
    return s == TMAP_SERVICE_OK;
}

bool clgemm__operand_maps(struct clgemm_handle_s *h, clgemm_precision type,
                          const clgemm_config *cfg, size_t k, size_t batch, const map_operand *a,
                          const map_operand *b, const map_operand *ra, const map_operand *rb,
                          unsigned char maps[CLGEMM__MAPS_BYTES]) {
    unsigned mt, nt, kt;
    tile_of(cfg, &mt, &nt, &kt);
    memset(maps + 256, 0, CLGEMM__MAPS_BYTES - 256);
    return encode(h, type, a, k, batch, mt, kt, maps) &&
           encode(h, type, b, k, batch, nt, kt, maps + 128) &&
           (!ra || encode(h, type, ra, k, batch, mt, kt, maps + 256)) &&
           (!rb || encode(h, type, rb, k, batch, nt, kt, maps + 384));
}

/* A buffer's device address stands as 0 here: OpenCL aligns buffers far beyond 16 bytes
 * (CL_DEVICE_MEM_BASE_ADDR_ALIGN, 4096 bits on NVIDIA), so the first element is as aligned as its
 * offset (one that is not is still refused when its map is encoded). */
bool clgemm__operands_mappable(clgemm_precision type, size_t k, size_t batch, const map_operand *a,
                               const map_operand *b) {
    const tensor_map_request ra = request(type, a, k, batch, 0, 0, 0);
    const tensor_map_request rb = request(type, b, k, batch, 0, 0, 0);
    return clgemm__tensor_map_layout(&ra) == TMAP_OK && clgemm__tensor_map_layout(&rb) == TMAP_OK;
}

cl_int clgemm__maps_buffer(struct clgemm_handle_s *h, const unsigned char maps[CLGEMM__MAPS_BYTES],
                           cl_mem *out) {
    map_buffer *slot = &h->map_buffers[0];
    for (int i = 0; i < CLGEMM__MAP_BUFFERS; i++) {
        map_buffer *b = &h->map_buffers[i];
        if (b->mem && memcmp(b->maps, maps, sizeof b->maps) == 0) {
            b->used = ++h->map_clock;
            *out = b->mem;
            return CL_SUCCESS;
        }
        if (!b->mem || (slot->mem && b->used < slot->used)) slot = b; /* empty, or older */
    }
    cl_int err;
    cl_mem mem = clCreateBuffer(h->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                CLGEMM__MAPS_BYTES, (void *)maps, &err);
    if (err != CL_SUCCESS) return err;
    if (slot->mem) clReleaseMemObject(slot->mem);
    *slot = (map_buffer){mem, ++h->map_clock, {0}};
    memcpy(slot->maps, maps, sizeof slot->maps);
    *out = mem;
    return CL_SUCCESS;
}

void clgemm__maps_buffers_free(struct clgemm_handle_s *h) {
    for (int i = 0; i < CLGEMM__MAP_BUFFERS; i++)
        if (h->map_buffers[i].mem) clReleaseMemObject(h->map_buffers[i].mem);
    memset(h->map_buffers, 0, sizeof h->map_buffers);
}
