/* test_tma.c: the host side of the TMA route to Hopper's tensor cores, on any device (PoCL in CI):
 * the real limit of static local arrays (table, probe, fallback), the rules of the families that
 * use it, and the tensor-map service of src/exec/tensor_map.c (the encode parameters and their
 * refusals, the CUDA driver library's absence and failures, device addresses, the pack rule). */
#include "exec/exec.h"

#include <stdint.h>

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- The static local-memory limit ----------------------------------------------------------- */

Test(static_local, table_by_compute_capability) {
    const struct {
        int cc;
        cl_ulong bytes;
    } rows[] = {{90, 232448}, {80, 166912}, {86, 101376}, {87, 101376}, {89, 101376}, {75, 65536},
                {70, 98304},  {72, 98304},  {0, 0},       {61, 0},      {100, 0},     {91, 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        cr_expect_eq(clgemm__nv_static_local_max(rows[i].cc), rows[i].bytes, "cc %d: %llu",
                     rows[i].cc, (unsigned long long)clgemm__nv_static_local_max(rows[i].cc));
}

typedef struct probe_log {
    bool answer;
    cl_ulong up_to; /* with answer false: yes for arrays up to this size */
    int calls;
    cl_ulong asked;
} probe_log;

static bool fake_probe(void *arg, cl_ulong bytes) {
    probe_log *p = arg;
    p->calls++;
    p->asked = bytes;
    return p->answer || bytes <= p->up_to;
}

static device_info nvidia(int cc, cl_ulong reported) {
    device_info info;
    memset(&info, 0, sizeof info);
    info.cls = DEVICE_NVIDIA_GPU;
    info.nv_compute_capability = cc;
    info.local_mem_size = reported;
    info.max_work_group_size = 1024;
    info.max_work_item_sizes[0] = info.max_work_item_sizes[1] = 1024;
    info.max_work_item_sizes[2] = 64;
    info.compute_units = 132;
    return info;
}

/* The probe is asked once, for the table's figure; a failed probe leaves OpenCL's figure. */
Test(static_local, probe_decides_and_its_failure_falls_back) {
    device_info h200 = nvidia(90, 49152);
    probe_log yes = {.answer = true}, no = {.answer = false};
    h200.local_mem_static = clgemm__static_local_pick(&h200, fake_probe, &yes);
    cr_expect_eq(yes.calls, 1);
    cr_expect_eq(yes.asked, 232448);
    cr_expect_eq(clgemm__static_local_limit(&h200), 232448);
    h200.local_mem_static = clgemm__static_local_pick(&h200, fake_probe, &no);
    cr_expect_eq(no.calls, 2, "the table's figure, then 1 KiB less");
    cr_expect_eq(h200.local_mem_static, 0);
    cr_expect_eq(clgemm__static_local_limit(&h200), 49152, "a failed probe keeps 48 KiB");
    probe_log reserved = {.up_to = 232448 - 1024};
    h200.local_mem_static = clgemm__static_local_pick(&h200, fake_probe, &reserved);
    cr_expect_eq(reserved.calls, 2);
    cr_expect_eq(clgemm__static_local_limit(&h200), 232448 - 1024,
                 "a compiler that adds bytes of its own (NVIDIA's OpenCL: 4)");
}

/* Other vendors, unknown NVIDIA parts and a device already reporting the table's figure are never
 * probed and keep their reported size. */
Test(static_local, only_nvidia_above_the_reported_size_is_probed) {
    device_info amd = nvidia(90, 65536);
    amd.cls = DEVICE_AMD_GPU;
    device_info cpu = nvidia(0, 1 << 20);
    cpu.cls = DEVICE_CPU;
    device_info turing = nvidia(75, 65536);
    device_info future = nvidia(100, 49152);
    const device_info *devs[] = {&amd, &cpu, &turing, &future};
    for (int i = 0; i < 4; i++) {
        probe_log p = {.answer = true};
        cr_expect_eq(clgemm__static_local_pick(devs[i], fake_probe, &p), 0, "device %d", i);
        cr_expect_eq(p.calls, 0, "device %d was probed", i);
        cr_expect_eq(clgemm__static_local_limit(devs[i]), devs[i]->local_mem_size);
    }
}

/* wgmma's 128 x 256 tile in 64-deep FP16 slices, 4 stages (196,608 bytes of static arrays): legal
 * on an H200 whose probe succeeded, not on one whose probe failed; mma's likewise. */
Test(static_local, warp_tile_families_use_it) {
    device_info h200 = nvidia(90, 49152);
    h200.nv_sm90a = true;
    device_info failed = h200;
    h200.local_mem_static = 232448;
    clgemm_config big = {.family = CLGEMM_FAMILY_WGMMA, .params = {128, 256, 64, 64, 256, 4}};
    cr_expect_eq(clgemm__config_check(&big, &h200, CLGEMM_HALF), CLGEMM_SUCCESS);
    cr_expect_neq(clgemm__config_check(&big, &failed, CLGEMM_HALF), CLGEMM_SUCCESS);
    big.params[5] = 5; /* 245,760 bytes: past even the real limit */
    cr_expect_neq(clgemm__config_check(&big, &h200, CLGEMM_HALF), CLGEMM_SUCCESS);
    clgemm_config mma = {.family = CLGEMM_FAMILY_MMA, .params = {128, 128, 32, 64, 64, 6}};
    cr_expect_eq(clgemm__config_check(&mma, &h200, CLGEMM_HALF), CLGEMM_SUCCESS);
    cr_expect_neq(clgemm__config_check(&mma, &failed, CLGEMM_HALF), CLGEMM_SUCCESS);
}

/* mma's FP64 sets in the real local memory (bench/gpu/fp64_sets.txt, issue 32): 128 x 128 x 16
 * tiles of 8 warps in 3 to 7 stages (96 to 224 KiB) and the deeper 128 x 64 ones are legal on an
 * H200 whose probe passed (what the probe found there: 1 KiB under the table's figure), refused
 * where the probe failed (48 KiB), and 8 stages only where they still fit; FP64's default is the
 * sweep's winner (128 x 128 in 5 stages) where the probe passed and the 48 KiB set where it
 * failed, and the list a 48 KiB device gets holds nothing it refuses. */
Test(static_local, mma_fp64_sets_use_it) {
    device_info h200 = nvidia(90, 49152);
    h200.has_fp64 = true;
    device_info failed = h200;
    h200.local_mem_static = 232448 - 1024;
    const clgemm_precision D = CLGEMM_DOUBLE;
    const int deep[][6] = {{128, 128, 16, 64, 32, 3}, {128, 128, 16, 64, 32, 4},
                           {128, 128, 16, 64, 32, 6}, {128, 128, 16, 32, 64, 7},
                           {128, 64, 16, 64, 32, 4},  {256, 64, 16, 64, 32, 4},
                           {64, 256, 16, 32, 64, 5}};
    for (size_t i = 0; i < sizeof deep / sizeof deep[0]; i++) {
        clgemm_config c = {.family = CLGEMM_FAMILY_MMA};
        memcpy(c.params, deep[i], sizeof deep[i]);
        cr_expect_eq(clgemm__config_check(&c, &h200, D), CLGEMM_SUCCESS, "set %zu", i);
        cr_expect_neq(clgemm__config_check(&c, &failed, D), CLGEMM_SUCCESS, "set %zu", i);
        c.params[5] = 8; /* legal where 8 stages still fit (128 x 64: 192 KiB) */
        const bool fits = 8 * (deep[i][0] + deep[i][1]) * deep[i][2] * 8 <= 232448 - 1024;
        cr_expect_eq(clgemm__config_check(&c, &h200, D) == CLGEMM_SUCCESS, fits, "set %zu, S8", i);
    }
    /* The default: 128 x 128 tiles in 5 stages (160 KiB) where the probe passed, the 48 KiB set
     * where it failed. */
    const device_info *devs[] = {&h200, &failed};
    for (int d = 0; d < 2; d++) {
        clgemm_config def = clgemm__config_default(devs[d], D);
        const clgemm_config want = {.family = CLGEMM_FAMILY_MMA,
                                    .params = {128, d ? 64 : 128, 16, 64, 32, d ? 2 : 5}};
        cr_expect(clgemm__config_equal(&def, &want), "device %d", d);
        cr_expect_eq(clgemm__config_check(&def, devs[d], D), CLGEMM_SUCCESS, "device %d", d);
        def = clgemm__config_default_for(devs[d], D, CLGEMM_COMPUTE_DEFAULT, 8192, 8192, 8192, 1);
        cr_expect(clgemm__config_equal(&def, &want), "device %d at 8192^2", d);
    }
    const clgemm_config *list = clgemm__family(CLGEMM_FAMILY_MMA)->defaults(&failed, D, ONE_MATRIX);
    for (const clgemm_config *c = list; c->family; c++)
        cr_expect_eq(clgemm__config_check(c, &failed, D), CLGEMM_SUCCESS);
}

static bool first_device(cl_context *ctx, cl_device_id *device) {
    cl_platform_id platform;
    cl_uint n = 0;
    if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0 ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, device, NULL) != CL_SUCCESS)
        return false;
    cl_int err;
    *ctx = clCreateContext(NULL, 1, device, NULL, NULL, &err);
    return err == CL_SUCCESS;
}

/* The probe kernel itself builds where the array fits, and the device's own state keeps the
 * reported size off NVIDIA. */
Test(static_local, the_probe_builds_on_the_device) {
    cl_context ctx;
    cl_device_id device;
    if (!first_device(&ctx, &device)) cr_skip_test("no OpenCL device");
    device_info info;
    cr_assert_eq(clgemm__device_query(device, &info), CLGEMM_SUCCESS);
    char *log = NULL;
    cr_expect(clgemm__static_local_probe(ctx, device, 16384, &log), "log: %s", log ? log : "");
    free(log);
    if (info.cls != DEVICE_NVIDIA_GPU)
        cr_expect_eq(clgemm__static_local_usable(ctx, device, &info), 0);
    clReleaseContext(ctx);
}

/* ---- Tensor-map parameters (pure) --------------------------------------------------------- */

static tensor_map_request fp16_square(size_t n) {
    return (tensor_map_request){.type = CLGEMM_HALF,
                                .rows = n,
                                .cols = n,
                                .ld = n,
                                .batch = 1,
                                .address = 0x7f0000000000ull,
                                .box_rows = 128,
                                .box_cols = 64,
                                .swizzle = 128};
}

Test(tensor_map, fields_of_a_plain_matrix_and_a_batch) {
    tensor_map_request r = fp16_square(8192);
    tensor_map_params p;
    cr_assert_eq(clgemm__tensor_map_params(&r, &p), TMAP_OK);
    cr_expect_eq(p.data_type, 6);
    cr_expect_eq(p.rank, 3);
    cr_expect_eq(p.address, 0x7f0000000000ull);
    cr_expect(p.dims[0] == 8192 && p.dims[1] == 8192 && p.dims[2] == 1);
    cr_expect(p.strides[0] == 16384 && p.strides[1] == 16384ull * 8192);
    cr_expect(p.box[0] == 64 && p.box[1] == 128 && p.box[2] == 1);
    cr_expect(p.element_strides[0] == 1 && p.element_strides[1] == 1 && p.element_strides[2] == 1);
    cr_expect(p.swizzle == 3 && p.interleave == 0 && p.l2_promotion == 2 && p.oob_fill == 0);
    /* 1000 x 256^2, a gap of 64 elements between matrices; BF16; the 64-byte swizzle. */
    r = (tensor_map_request){.type = CLGEMM_BFLOAT16,
                             .rows = 256,
                             .cols = 256,
                             .ld = 256,
                             .batch = 1000,
                             .stride = 256 * 256 + 64,
                             .address = 4096,
                             .box_rows = 64,
                             .box_cols = 32,
                             .swizzle = 64};
    cr_assert_eq(clgemm__tensor_map_params(&r, &p), TMAP_OK);
    cr_expect_eq(p.data_type, 9);
    cr_expect(p.dims[2] == 1000 && p.strides[1] == (256 * 256 + 64) * 2, "%llu",
              (unsigned long long)p.strides[1]);
    cr_expect_eq(p.swizzle, 2);
    /* FP32 for TF32: 32 elements are the 128-byte row. */
    r = fp16_square(4096);
    r.type = CLGEMM_SINGLE;
    r.box_cols = 32;
    cr_assert_eq(clgemm__tensor_map_params(&r, &p), TMAP_OK);
    cr_expect(p.data_type == 7 && p.strides[0] == 16384);
    /* FP64 (the tma_fp64 family): 16 elements are the 128-byte row; 32 are past it. */
    r = fp16_square(4096);
    r.type = CLGEMM_DOUBLE;
    r.box_cols = 16;
    cr_assert_eq(clgemm__tensor_map_params(&r, &p), TMAP_OK);
    cr_expect(p.data_type == 8 && p.strides[0] == 32768 && p.box[0] == 16);
    r.box_cols = 32;
    cr_expect_eq(clgemm__tensor_map_params(&r, &p), TMAP_BOX_INNER);
    /* No swizzle: any box row of whole 16-byte chunks up to 256 elements. */
    r = fp16_square(512);
    r.swizzle = 0;
    r.box_cols = 256;
    cr_expect_eq(clgemm__tensor_map_params(&r, &p), TMAP_OK);
    cr_expect_eq(p.swizzle, 0);
}

/* Case i of the refusals: one change to a legal 4096^2 FP16 request, and its reason. */
static const char *spoil(int i, tensor_map_request *r, tensor_map_refusal *want) {
    switch (i) {
    case 0:
        return r->address += 2, *want = TMAP_BASE, "odd offset";
    case 1:
        return r->address += 8, *want = TMAP_BASE, "8-byte offset";
    case 2:
        return r->cols = 4097, r->ld = 4097, *want = TMAP_PITCH, "4097 columns in a 4097 pitch";
    case 3:
        return r->ld = 4098, *want = TMAP_PITCH, "pitch 8196 bytes";
    case 4:
        return r->ld = 4000, *want = TMAP_PITCH_SHORT, "pitch shorter than a row";
    case 5:
        return r->batch = 4, r->stride = 4096 * 4096 + 1, *want = TMAP_STRIDE, "odd batch stride";
    case 6:
        return r->batch = 4, r->stride = 0, *want = TMAP_STRIDE, "broadcast";
    case 7:
        return r->rows = 0, *want = TMAP_DIMS, "no rows";
    case 8:
        return r->cols = ((size_t)1 << 32) + 8, r->ld = r->cols, *want = TMAP_DIMS,
               "2^32 + 8 columns";
    case 9:
        return r->box_rows = 0, *want = TMAP_BOX, "box of 0 rows";
    case 10:
        return r->box_rows = 257, *want = TMAP_BOX, "box of 257 rows";
    case 11:
        return r->box_cols = 128, *want = TMAP_BOX_INNER,
               "box row 256 bytes in the 128-byte swizzle";
    case 12:
        return r->box_cols = 4, r->swizzle = 0, *want = TMAP_BOX_INNER, "box row 8 bytes";
    case 13:
        return r->swizzle = 64, *want = TMAP_BOX_INNER, "box row 128 bytes in the 64-byte swizzle";
    case 14:
        return r->swizzle = 96, *want = TMAP_SWIZZLE, "swizzle of 96 bytes";
    case 15:
        return r->type = CLGEMM_COMPLEX_DOUBLE, *want = TMAP_TYPE, "complex double";
    case 16:
        return r->type = CLGEMM_COMPLEX_SINGLE, *want = TMAP_TYPE, "complex";
    case 17:
        return r->type = CLGEMM_SINGLE, *want = TMAP_BOX_INNER, "TF32 box of 64";
    default:
        return NULL;
    }
}

Test(tensor_map, refusals_name_their_reason) {
    tensor_map_request r = fp16_square(4096);
    tensor_map_refusal want;
    int n = 0;
    for (const char *what; (what = spoil(n, &r, &want)); n++, r = fp16_square(4096)) {
        tensor_map_params p;
        tensor_map_refusal got = clgemm__tensor_map_params(&r, &p);
        cr_expect_eq(got, want, "%s: %s, want %s", what, clgemm__tensor_map_refusal_string(got),
                     clgemm__tensor_map_refusal_string(want));
        cr_expect_neq(strcmp(clgemm__tensor_map_refusal_string(got), "?"), 0);
    }
    cr_expect_eq(n, 18);
}

/* 4097^2 and odd offsets need the aligned copy; a broadcast, a bad box or a type without a map
 * cannot be helped by one. */
Test(tensor_map, pack_decision) {
    size_t ld, stride;
    tensor_map_refusal why;
    tensor_map_request r = fp16_square(8192);
    cr_expect_eq(clgemm__tensor_map_route(&r, &ld, &stride, &why), TMAP_ROUTE_MAP);
    cr_expect(ld == 8192 && why == TMAP_OK);
    r = fp16_square(4097);
    cr_expect_eq(clgemm__tensor_map_route(&r, &ld, &stride, &why), TMAP_ROUTE_PACK);
    cr_expect(ld == 4104 && stride == (size_t)4104 * 4097 && why == TMAP_PITCH, "ld %zu", ld);
    r = fp16_square(8192);
    r.address += 6; /* an offset of three elements */
    cr_expect_eq(clgemm__tensor_map_route(&r, &ld, &stride, &why), TMAP_ROUTE_PACK);
    cr_expect(ld == 8192 && why == TMAP_BASE);
    r = fp16_square(4097);
    r.type = CLGEMM_SINGLE;
    r.box_cols = 32;
    cr_expect_eq(clgemm__tensor_map_route(&r, &ld, &stride, &why), TMAP_ROUTE_PACK);
    cr_expect_eq(ld, 4100);
    r = fp16_square(256); /* a batch whose stride breaks the alignment: packed back to back */
    r.batch = 10;
    r.stride = 256 * 256 + 3;
    cr_expect_eq(clgemm__tensor_map_route(&r, &ld, &stride, &why), TMAP_ROUTE_PACK);
    cr_expect(ld == 256 && stride == 256 * 256 && why == TMAP_STRIDE);
    r.stride = 0;
    cr_expect_eq(clgemm__tensor_map_route(&r, &ld, &stride, &why), TMAP_ROUTE_NONE);
    r = fp16_square(4097);
    r.box_cols = 128;
    cr_expect_eq(clgemm__tensor_map_route(&r, &ld, &stride, &why), TMAP_ROUTE_NONE);
    cr_expect_eq(why, TMAP_BOX_INNER);
    r = fp16_square(4097);
    r.type = CLGEMM_COMPLEX_DOUBLE;
    cr_expect_eq(clgemm__tensor_map_route(&r, &ld, &stride, &why), TMAP_ROUTE_NONE);
}

/* ---- The CUDA driver library: absent, refusing, working (a stand-in) --------------------------
 */

static device_info hopper_on_bus(unsigned bus) {
    device_info info = nvidia(90, 49152);
    info.nv_sm90a = true;
    info.nv_pci_known = true;
    info.nv_pci_bus = bus;
    return info;
}

Test(tensor_map_driver, pci_address_matching) {
    device_info d = hopper_on_bus(0x3b);
    cr_expect(clgemm__pci_matches(&d, "0000:3b:00.0"));
    cr_expect(clgemm__pci_matches(&d, "00000000:3B:00.0"));
    cr_expect_not(clgemm__pci_matches(&d, "0000:3c:00.0"));
    cr_expect_not(clgemm__pci_matches(&d, "0001:3b:00.0"));
    cr_expect_not(clgemm__pci_matches(&d, "garbage"));
    d.nv_pci_known = false;
    cr_expect_not(clgemm__pci_matches(&d, "0000:00:00.0"));
}

Test(tensor_map_driver, only_compute_capability_9_0_asks) {
    setenv("CLGEMM_CUDA_LIBRARY", FAKE_CUDA_DRIVER, 1);
    device_info ada = hopper_on_bus(0x3b), blackwell = ada, cpu = ada;
    ada.nv_compute_capability = 89;
    blackwell.nv_compute_capability = 100;
    cpu.cls = DEVICE_CPU;
    cr_expect_eq(clgemm__tensor_map_service(&ada), TMAP_SERVICE_NOT_HOPPER);
    cr_expect_eq(clgemm__tensor_map_service(&blackwell), TMAP_SERVICE_NOT_HOPPER);
    cr_expect_eq(clgemm__tensor_map_service(&cpu), TMAP_SERVICE_NOT_HOPPER);
}

Test(tensor_map_driver, a_missing_library_is_an_answer) {
    setenv("CLGEMM_CUDA_LIBRARY", "/no/such/dir/libcuda.so.1", 1);
    device_info d = hopper_on_bus(0x3b);
    cr_expect_eq(clgemm__tensor_map_service(&d), TMAP_SERVICE_NO_LIBRARY);
    unsigned char map[128];
    tensor_map_params p;
    tensor_map_request r = fp16_square(1024);
    cr_assert_eq(clgemm__tensor_map_params(&r, &p), TMAP_OK);
    cr_expect_eq(clgemm__tensor_map_encode(&d, &p, map), TMAP_SERVICE_NO_LIBRARY);
    /* A library without the encoder (this process's own C library, say). */
}

Test(tensor_map_driver, a_library_without_the_encoder_is_an_answer) {
    setenv("CLGEMM_CUDA_LIBRARY", "libc.so.6", 1);
    device_info d = hopper_on_bus(0x3b);
    cr_expect_eq(clgemm__tensor_map_service(&d), TMAP_SERVICE_NO_SYMBOL);
}

Test(tensor_map_driver, a_refusing_encoder_is_an_answer) {
    setenv("CLGEMM_CUDA_LIBRARY", FAKE_CUDA_DRIVER, 1);
    setenv("FAKE_CUDA_ENCODE_FAIL", "1", 1);
    device_info d = hopper_on_bus(0x3b);
    cr_expect_eq(clgemm__tensor_map_service(&d), TMAP_SERVICE_ENCODE_FAILED);
}

/* The stand-in gets the request's fields, in the context of the device at the OpenCL device's
 * PCI address (its second), current on every thread that encodes. */
Test(tensor_map_driver, encodes_on_the_matching_device) {
    setenv("CLGEMM_CUDA_LIBRARY", FAKE_CUDA_DRIVER, 1);
    unsetenv("FAKE_CUDA_ENCODE_FAIL");
    device_info d = hopper_on_bus(0x3b);
    cr_expect_eq(clgemm__tensor_map_service(&d), TMAP_SERVICE_OK);
    tensor_map_request r = fp16_square(4096);
    r.batch = 3;
    r.stride = 4096 * 4096;
    tensor_map_params p;
    cr_assert_eq(clgemm__tensor_map_params(&r, &p), TMAP_OK);
    uint64_t map[16] __attribute__((aligned(64)));
    memset(map, 0xAB, sizeof map);
    cr_assert_eq(clgemm__tensor_map_encode(&d, &p, (unsigned char *)map), TMAP_SERVICE_OK);
    cr_expect(map[0] == 6 && map[1] == 3, "type %llu rank %llu", (unsigned long long)map[0],
              (unsigned long long)map[1]);
    cr_expect_eq(map[2], 1, "encoded in device %llu's context", (unsigned long long)map[2]);
    cr_expect_eq(map[3], r.address);
    cr_expect(map[4] == 4096 && map[5] == 4096 && map[6] == 3);
    cr_expect(map[7] == 8192 && map[8] == 4096ull * 4096 * 2);
    cr_expect(map[10] == 64 && map[11] == 128 && map[12] == 1 && map[13] == 3);
    /* The device number counts: 3b:01 is the third CUDA device. */
    device_info third = hopper_on_bus(0x3b);
    third.nv_pci_device = 1;
    cr_assert_eq(clgemm__tensor_map_encode(&third, &p, (unsigned char *)map), TMAP_SERVICE_OK);
    cr_expect_eq(map[2], 2, "encoded in device %llu's context", (unsigned long long)map[2]);
    /* No CUDA device on this bus; no PCI address with several CUDA devices: no guess. */
    device_info other = hopper_on_bus(0x99), unknown = hopper_on_bus(0);
    unknown.nv_pci_known = false;
    cr_expect_eq(clgemm__tensor_map_service(&other), TMAP_SERVICE_NO_DEVICE);
    cr_expect_eq(clgemm__tensor_map_service(&unknown), TMAP_SERVICE_NO_DEVICE);
}

/* ---- Device addresses --------------------------------------------------------------------------
 */

/* Read once per buffer, the same answer again from the cache, dropped at the first lookup after
 * the caller's last release (the cache's own reference keeps the handle from being reused
 * meanwhile); a sub-buffer is its own entry at its origin. */
Test(device_address, cached_for_the_buffers_life) {
    clgemm_handle h;
    if (clgemm_create_default(&h) != CLGEMM_SUCCESS) cr_skip_test("no OpenCL device");
    cl_int err;
    cl_mem a = clCreateBuffer(h->context, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
    cr_assert_eq(err, CL_SUCCESS);
    size_t before = clgemm__device_address_cached();
    cl_ulong x = 0, y = 1;
    cr_assert_eq(clgemm__device_address(h, a, &x), CLGEMM_SUCCESS);
    cr_expect_neq(x, 0);
    cr_expect_eq(clgemm__device_address_cached(), before + 1);
    cr_assert_eq(clgemm__device_address(h, a, &y), CLGEMM_SUCCESS);
    cr_expect_eq(x, y);
    cr_expect_eq(clgemm__device_address_cached(), before + 1, "asked twice, cached twice");
    cl_buffer_region region = {4096, 4096};
    cl_mem sub =
        clCreateSubBuffer(a, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    if (err == CL_SUCCESS) {
        cl_ulong s = 0;
        cr_assert_eq(clgemm__device_address(h, sub, &s), CLGEMM_SUCCESS);
        cr_expect_eq(s, x + 4096);
        clReleaseMemObject(sub);
    }
    cr_expect_eq(clgemm__device_address_cached(), before + 1,
                 "the released sub-buffer's entry goes");
    clReleaseMemObject(a);
    cr_expect_eq(clgemm__device_address_cached(), before, "a released buffer's entry goes");
    clgemm_destroy(h);
}

/* The call path asks with the handle's lock held, and the first ask builds the kernel (a cold
 * cache): nothing on the way may take that lock (an H200 whole call once hung there for good,
 * the build storing its log in the handle). And the handle's queue may be stuck behind an event
 * the caller sets only later: the answer must not wait for it. */
Test(device_address, asked_under_the_handles_lock_behind_a_blocked_queue, .timeout = 60) {
    char dir[] = "/tmp/clgemm-address-XXXXXX";
    cr_assert(mkdtemp(dir));
    setenv("CLGEMM_CACHE_DIR", dir, 1); /* a cold cache: the first ask builds */
    clgemm_handle h;
    if (clgemm_create_default(&h) != CLGEMM_SUCCESS) cr_skip_test("no OpenCL device");
    cl_int err;
    cl_mem a = clCreateBuffer(h->context, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
    cr_assert_eq(err, CL_SUCCESS);
    cl_event gate = clCreateUserEvent(h->context, &err);
    cr_assert_eq(err, CL_SUCCESS);
    cr_assert_eq(clEnqueueMarkerWithWaitList(h->queue, 1, &gate, NULL), CL_SUCCESS);
    cl_ulong x = 0;
    pthread_mutex_lock(&h->lock);
    clgemm_status st = clgemm__device_address(h, a, &x);
    pthread_mutex_unlock(&h->lock);
    cr_expect_eq(st, CLGEMM_SUCCESS);
    cr_expect_neq(x, 0);
    clSetUserEventStatus(gate, CL_COMPLETE);
    clFinish(h->queue);
    clReleaseEvent(gate);
    clReleaseMemObject(a);
    clgemm_destroy(h);
}

/* A buffer the caller has released goes when only the cache holds it: at the next GEMM call of
 * any kind, or, released after its handle was destroyed, at once (its memory and its context
 * would otherwise stay allocated for the process's life). The destructor callback says when
 * the buffer is really freed. */
static void CL_CALLBACK buffer_freed(cl_mem mem, void *flag) {
    (void)mem;
    *(volatile int *)flag = 1;
}

static cl_mem watched_buffer(clgemm_handle h, volatile int *freed) {
    cl_int err;
    cl_mem a = clCreateBuffer(h->context, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
    cr_assert_eq(err, CL_SUCCESS);
    cr_assert_eq(clSetMemObjectDestructorCallback(a, buffer_freed, (void *)freed), CL_SUCCESS);
    cl_ulong x = 0;
    cr_assert_eq(clgemm__device_address(h, a, &x), CLGEMM_SUCCESS);
    return a;
}

Test(device_address, a_released_buffer_goes_at_the_next_call) {
    clgemm_handle h;
    if (clgemm_create_default(&h) != CLGEMM_SUCCESS) cr_skip_test("no OpenCL device");
    volatile int freed = 0;
    cl_mem a = watched_buffer(h, &freed);
    clReleaseMemObject(a);
    /* Any call: an FP32 product of other buffers, checked. */
    float host_a[6] = {1, 2, 3, 4, 5, 6}, host_b[6] = {-1, 2, 0.5f, 3, -2, 1}, c[4];
    for (int i = 0; i < 4; i++)
        c[i] = NAN;
    cr_assert_eq(clgemm_sgemm_host(h, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 2, 2, 3,
                                   1.0f, host_a, 3, host_b, 2, 0.0f, c, 2),
                 CLGEMM_SUCCESS);
    const float want[4] = {1 * -1 + 2 * 0.5f + 3 * -2, 1 * 2 + 2 * 3 + 3 * 1,
                           4 * -1 + 5 * 0.5f + 6 * -2, 4 * 2 + 5 * 3 + 6 * 1};
    for (int i = 0; i < 4; i++)
        cr_expect_float_eq(c[i], want[i], 1e-5f);
    cr_expect_eq(freed, 1, "the cache still held the released buffer after a call");
    clgemm_destroy(h);
}

Test(device_address, a_buffer_released_after_its_handle_goes_at_once) {
    clgemm_handle h;
    if (clgemm_create_default(&h) != CLGEMM_SUCCESS) cr_skip_test("no OpenCL device");
    volatile int freed = 0;
    cl_mem a = watched_buffer(h, &freed);
    clgemm_destroy(h);
    cr_expect_eq(freed, 0, "the caller still holds it");
    clReleaseMemObject(a);
    cr_expect_eq(freed, 1, "the destroyed handle's cache still held the buffer");
}

/* ---- The handle's map buffers ----------------------------------------------------------------
 */

static void map_bytes(unsigned char maps[CLGEMM__MAPS_BYTES], int seed) {
    for (int i = 0; i < CLGEMM__MAPS_BYTES; i++)
        maps[i] = (unsigned char)(i * 31 + seed * 7 + 1);
}

/* The same bytes give the same buffer back, holding those bytes; different bytes a different
 * buffer; past CLGEMM__MAP_BUFFERS others, the least recently used one is replaced, and a
 * replaced buffer still holds its bytes for whoever kept a reference (an enqueued kernel). */
Test(map_buffers, reused_for_the_same_bytes_and_replaced_oldest_first) {
    clgemm_handle h;
    if (clgemm_create_default(&h) != CLGEMM_SUCCESS) cr_skip_test("no OpenCL device");
    unsigned char maps[CLGEMM__MAPS_BYTES], back[CLGEMM__MAPS_BYTES];
    cl_mem first, again, other;
    map_bytes(maps, 0);
    cr_assert_eq(clgemm__maps_buffer(h, maps, &first), CL_SUCCESS);
    cr_assert_eq(clgemm__maps_buffer(h, maps, &again), CL_SUCCESS);
    cr_expect_eq(first, again, "the same bytes, the same buffer");
    cr_assert_eq(
        clEnqueueReadBuffer(h->queue, first, CL_TRUE, 0, CLGEMM__MAPS_BYTES, back, 0, NULL, NULL),
        CL_SUCCESS);
    cr_expect_eq(memcmp(back, maps, CLGEMM__MAPS_BYTES), 0);
    clRetainMemObject(first); /* as a kernel in flight would */
    /* Others fill the slots; `first` stays the oldest unless used again. */
    cl_mem mems[CLGEMM__MAP_BUFFERS];
    for (int i = 1; i < CLGEMM__MAP_BUFFERS; i++) {
        map_bytes(maps, i);
        cr_assert_eq(clgemm__maps_buffer(h, maps, &mems[i]), CL_SUCCESS);
        cr_expect_neq(mems[i], first);
    }
    map_bytes(maps, 1); /* slot 1 used again: now the second oldest is slot 2 */
    cr_assert_eq(clgemm__maps_buffer(h, maps, &other), CL_SUCCESS);
    cr_expect_eq(other, mems[1]);
    map_bytes(maps, 100); /* one more: replaces `first`'s slot */
    cr_assert_eq(clgemm__maps_buffer(h, maps, &other), CL_SUCCESS);
    map_bytes(maps, 1);
    cr_assert_eq(clgemm__maps_buffer(h, maps, &other), CL_SUCCESS);
    cr_expect_eq(other, mems[1], "slot 1 was not the oldest");
    map_bytes(maps, 0);
    cr_assert_eq(clgemm__maps_buffer(h, maps, &again), CL_SUCCESS);
    cr_expect_neq(again, first, "the oldest slot was replaced");
    cr_assert_eq(
        clEnqueueReadBuffer(h->queue, first, CL_TRUE, 0, CLGEMM__MAPS_BYTES, back, 0, NULL, NULL),
        CL_SUCCESS);
    cr_expect_eq(memcmp(back, maps, CLGEMM__MAPS_BYTES), 0, "a replaced buffer keeps its bytes");
    clReleaseMemObject(first);
    clgemm_destroy(h);
}

/* ---- The kernel's source and build route ----------------------------------------------------- */

/* cl/tma.cl is embedded, and its programs go through the patched-PTX step (and say so in their
 * cache key) like the wgmma family's. */
Test(tma_kernel, embedded_and_patched) {
    char *src = clgemm__kernel_source("tma.cl");
    cr_assert(src);
    cr_expect(strstr(src, "__kernel void\nclgemm_tma(") || strstr(src, "clgemm_tma("));
    cr_expect(strstr(src, "cp.async.bulk.tensor.3d"));
    free(src);
    cr_expect_not_null(clgemm__ptx_patch_need("tma.cl"));
    device_info h200 = hopper_on_bus(0x3b);
    char *key = clgemm__program_key(&h200, "tma.cl", "src", "-DMWG=128");
    cr_assert(key);
    cr_expect(strstr(key, "sm_90a patch"), "%s", key);
    free(key);
}

/* ---- The tma family in the planner ----------------------------------------------------------- */

static device_info h200_with_maps(void) {
    device_info h200 = nvidia(90, 49152);
    h200.nv_sm90a = true;
    h200.nv_tma = true;
    h200.local_mem_static = 232448 - 1024; /* what the probe found on the H200 */
    return h200;
}

/* A configuration's PERSIST (0 where it has none). */
static int persist(const clgemm_config *c) {
    int v = 0;
    return clgemm_config_get(c, "PERSIST", &v) == CLGEMM_SUCCESS ? v : -1;
}
/* A configuration's STAGE_C (0 where it has none). */
static int stage_c(const clgemm_config *c) {
    int v = 0;
    return clgemm_config_get(c, "STAGE_C", &v) == CLGEMM_SUCCESS ? v : -1;
}

/* Where maps can be encoded, FP16, BF16, TF32, INT8 and FP8 plan on it for single matrices from
 * 1024^3 (128 x 256 tiles where they fill at least two waves nine tenths full on the H200's 132
 * SMs, 128 x 128 otherwise) and narrow ones with a long K, the slice one 128-byte row of the type;
 * FP32, 3xTF32 and FP64 never; 16-bit 512^3 stays on mma.sync. */
Test(tma_family, planned_for_its_types_where_it_pays) {
    device_info h200 = h200_with_maps();
    const struct {
        clgemm_precision type;
        clgemm_compute compute;
        int kwg; /* 0: not the tma family */
    } cases[] = {
        {CLGEMM_HALF, CLGEMM_COMPUTE_DEFAULT, 64},
        {CLGEMM_BFLOAT16, CLGEMM_COMPUTE_DEFAULT, 64},
        {CLGEMM_SINGLE, CLGEMM_COMPUTE_TF32, 32},
        {CLGEMM_INT8, CLGEMM_COMPUTE_DEFAULT, 128},
        {CLGEMM_E4M3, CLGEMM_COMPUTE_DEFAULT, 128},
        {CLGEMM_E5M2, CLGEMM_COMPUTE_DEFAULT, 128},
        {CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, 0},
        {CLGEMM_SINGLE, CLGEMM_COMPUTE_FP32_3XTF32, 32}, /* over its split operands */
        {CLGEMM_DOUBLE, CLGEMM_COMPUTE_DEFAULT, 0},
        {CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPUTE_DEFAULT, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const clgemm_precision t = cases[i].type;
        const clgemm_compute m = cases[i].compute;
        clgemm_config big = clgemm__config_default_for(&h200, t, m, 8192, 8192, 8192, 1);
        clgemm_config narrow = clgemm__config_default_for(&h200, t, m, 8192, 64, 8192, 1);
        clgemm_config small = clgemm__config_default_for(&h200, t, m, 512, 512, 512, 1);
        clgemm_config batch = clgemm__config_default_for(&h200, t, m, 256, 256, 256, 1000);
        if (clgemm_type_size(t) == 1)
            cr_expect_eq(small.family, CLGEMM_FAMILY_TMA, "case %zu: 512^3", i);
        else
            cr_expect_neq(small.family, CLGEMM_FAMILY_TMA, "case %zu: 512^3", i);
        /* Batches: FP16 and BF16 in 128 x 128 tiles from 128^2 matrices (4 stages from 256^2, 3
         * below), the 8-bit types in 128 x 128 tiles of 3 stages from 128 rows (the CUDA cores
         * are the only other route for them; at 64 rows they kept up); the other types and 64^2
         * matrices elsewhere. */
        const bool eight = clgemm_type_size(t) == 1;
        clgemm_config tiny = clgemm__config_default_for(&h200, t, m, 64, 64, 64, 10000);
        cr_expect_neq(tiny.family, CLGEMM_FAMILY_TMA, "case %zu: a batch of 64^3", i);
        if (cases[i].kwg == 64 || eight) {
            int v[4];
            const char *names[] = {"MWG", "NWG", "KWG", "STAGES"};
            cr_expect_eq(batch.family, CLGEMM_FAMILY_TMA, "case %zu: a batch", i);
            for (int p = 0; p < 4; p++)
                cr_assert_eq(clgemm_config_get(&batch, names[p], &v[p]), CLGEMM_SUCCESS);
            cr_expect(v[0] == 128 && v[1] == 128 && v[2] == cases[i].kwg && v[3] == (eight ? 3 : 4),
                      "case %zu: %d %d %d %d", i, v[0], v[1], v[2], v[3]);
            /* 16-bit batches of 256^2 matrices and more persistent with C staged, of 128^2 one
             * tile a work-group in 3 stages; 8-bit ones one tile each. */
            clgemm_config b128 = clgemm__config_default_for(&h200, t, m, 128, 128, 128, 1000);
            cr_expect_eq(b128.family, CLGEMM_FAMILY_TMA, "case %zu: a batch of 128^3", i);
            cr_assert_eq(clgemm_config_get(&b128, "STAGES", &v[3]), CLGEMM_SUCCESS);
            cr_expect_eq(v[3], 3, "case %zu: a batch of 128^3", i);
            cr_expect_eq(persist(&batch), eight ? 0 : 2, "case %zu: a batch of 256^3", i);
            cr_expect_eq(persist(&b128), 0, "case %zu: a batch of 128^3", i);
            clgemm_config b512 = clgemm__config_default_for(&h200, t, m, 512, 512, 512, 100);
            cr_expect_eq(stage_c(&batch), eight ? 0 : 2, "case %zu: a batch of 256^3", i);
            cr_expect_eq(stage_c(&b128), 0, "case %zu: a batch of 128^3", i);
            cr_expect_eq(stage_c(&b512), eight ? 0 : 2, "case %zu: a batch of 512^3", i);
            cr_expect_eq(persist(&b512), eight ? 0 : 2, "case %zu: a batch of 512^3", i);
        } else {
            cr_expect_neq(batch.family, CLGEMM_FAMILY_TMA, "case %zu: a batch", i);
        }
        if (!cases[i].kwg) {
            cr_expect_neq(big.family, CLGEMM_FAMILY_TMA, "case %zu", i);
            continue;
        }
        cr_expect_eq(big.family, CLGEMM_FAMILY_TMA, "case %zu", i);
        cr_expect_eq(narrow.family, CLGEMM_FAMILY_TMA, "case %zu: 8192 x 64 x 8192", i);
        /* 16-bit: a side of 64 in 64 x 64 tiles either way; the others in 128 x 128. */
        clgemm_config short_m = clgemm__config_default_for(&h200, t, m, 64, 8192, 8192, 1);
        const bool half16 = cases[i].kwg == 64;
        int nm = 0, nn = 0, sm = 0, sn = 0;
        clgemm_config_get(&narrow, "MWG", &nm);
        clgemm_config_get(&narrow, "NWG", &nn);
        clgemm_config_get(&short_m, "MWG", &sm);
        clgemm_config_get(&short_m, "NWG", &sn);
        cr_expect_eq(short_m.family, CLGEMM_FAMILY_TMA, "case %zu: 64 x 8192 x 8192", i);
        cr_expect(nm == (half16 ? 64 : 128) && nn == (half16 ? 64 : 128), "case %zu: %d x %d", i,
                  nm, nn);
        cr_expect(sm == (half16 ? 64 : 128) && sn == (half16 ? 64 : 128), "case %zu: %d x %d", i,
                  sm, sn);
        int v[4];
        const char *names[] = {"MWG", "NWG", "KWG", "STAGES"};
        for (int p = 0; p < 4; p++)
            cr_assert_eq(clgemm_config_get(&big, names[p], &v[p]), CLGEMM_SUCCESS);
        cr_expect(v[0] == 128 && v[1] == 256 && v[2] == cases[i].kwg, "case %zu: %d %d %d", i, v[0],
                  v[1], v[2]);
        /* FP16 and BF16's 128 x 256 tiles persistent; TF32's (whose A from registers would not
         * fit them) and the 8-bit types' one tile a work-group. */
        cr_expect_eq(persist(&big), cases[i].kwg == 64 ? 2 : 0, "case %zu: persistent", i);
        /* Every type's large squares stage C; narrow shapes (split K) store directly. */
        cr_expect_eq(stage_c(&big), 2, "case %zu: C staged", i);
        cr_expect_eq(stage_c(&narrow), 0, "case %zu: 8192 x 64 x 8192 C staged", i);
        /* Squares from 1024: wide tiles at 4096 (512 of them, 97 % of four waves), square ones
         * at 3072 (288 wide ones: the third wave 18 % full), 2048 (one wave) and 1024. */
        const struct {
            size_t n;
            int nwg;
        } squares[] = {{4096, 256}, {3072, 128}, {2048, 128}, {1024, 128}};
        for (size_t q = 0; q < sizeof squares / sizeof squares[0]; q++) {
            const size_t sq = squares[q].n;
            clgemm_config c = clgemm__config_default_for(&h200, t, m, sq, sq, sq, 1);
            int nwg = 0;
            cr_expect_eq(c.family, CLGEMM_FAMILY_TMA, "case %zu: %zu^3", i, sq);
            cr_expect_eq(clgemm_config_get(&c, "NWG", &nwg), CLGEMM_SUCCESS);
            cr_expect_eq(nwg, squares[q].nwg, "case %zu: %zu^3 NWG %d", i, sq, nwg);
        }
        /* A matrix 160 wide: its 512 tiles of 128 x 256 would fill four waves, each tile
         * three eighths outside it, so 128 x 128 ones. */
        clgemm_config thin = clgemm__config_default_for(&h200, t, m, 65536, 160, 4096, 1);
        int thin_nwg = 0;
        cr_expect_eq(thin.family, CLGEMM_FAMILY_TMA, "case %zu: 65536 x 160 x 4096", i);
        cr_expect_eq(clgemm_config_get(&thin, "NWG", &thin_nwg), CLGEMM_SUCCESS);
        cr_expect_eq(thin_nwg, 128, "case %zu: 65536 x 160 x 4096", i);
        /* A slice of another type's depth is refused. */
        clgemm_config wrong = big;
        cr_assert_eq(clgemm_config_set(&wrong, "KWG", cases[i].kwg == 64 ? 32 : 64),
                     CLGEMM_SUCCESS);
        cr_expect_neq(clgemm__config_check(&wrong, &h200, t), CLGEMM_SUCCESS);
    }
}

/* Persistent configurations launch what the device holds at once: two work-groups an SM where
 * two sets of stages fit its local memory (128 x 128 tiles in 3 stages, 98 KiB, and with C
 * staged, 16 KiB more: 113 KiB), one where one does (128 x 256 in 4, 193 KiB, staged 209 KiB);
 * one tile a work-group has no such count. */
Test(tma_family, persistent_work_groups_fill_the_device_once) {
    device_info h200 = h200_with_maps();
    h200.compute_units = 132;
    const family_desc *f = clgemm__family(CLGEMM_FAMILY_TMA);
    cr_assert(f->persistent_groups);
    const struct {
        int v[6];
        size_t groups;
    } cases[] = {{{128, 128, 64, 3, 2}, 264},    {{128, 256, 64, 4, 2}, 132},
                 {{128, 128, 64, 6, 2}, 132},    {{64, 64, 64, 2, 2}, 264},
                 {{128, 128, 64, 3, 1}, 0},      {{128, 128, 64, 3, 0}, 0},
                 {{128, 128, 64, 3, 2, 2}, 264}, {{128, 256, 64, 4, 2, 2}, 132},
                 {{128, 128, 64, 4, 2, 2}, 132}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clgemm_config c = {.family = CLGEMM_FAMILY_TMA};
        memcpy(c.params, cases[i].v, sizeof cases[i].v);
        cr_expect_eq(clgemm__config_check(&c, &h200, CLGEMM_HALF), CLGEMM_SUCCESS, "case %zu", i);
        cr_expect_eq(f->persistent_groups(&c, &h200), cases[i].groups, "case %zu", i);
    }
    clgemm_config c = {.family = CLGEMM_FAMILY_TMA, .params = {128, 128, 64, 3, 3}};
    cr_expect_neq(clgemm__config_check(&c, &h200, CLGEMM_HALF), CLGEMM_SUCCESS, "PERSIST 3");
    clgemm_config s3 = {.family = CLGEMM_FAMILY_TMA, .params = {128, 128, 64, 3, 2, 3}};
    cr_expect_neq(clgemm__config_check(&s3, &h200, CLGEMM_HALF), CLGEMM_SUCCESS, "STAGE_C 3");
}

/* Split K fills one wave of the work-groups an SM holds by local memory as well as registers:
 * 64 x 64 tiles of 8 stages (129 KiB, one an SM) at 8192 x 64 x 8192 are 128 tiles, so no split;
 * at 4096 long, 64 tiles split 2 ways; 128 x 64 of 8 stages (193 KiB, one an SM, though their
 * registers allow two) at 64 x 8192 x 8192 split 2 ways, not 4 (two waves); at 64 x 16384^2
 * none. */
Test(tma_family, split_k_fills_one_wave_of_what_local_memory_holds) {
    device_info h200 = h200_with_maps();
    const clgemm_precision H = CLGEMM_HALF;
    const clgemm_config narrow = {.family = CLGEMM_FAMILY_TMA, .params = {64, 64, 64, 8}};
    const clgemm_config tall = {.family = CLGEMM_FAMILY_TMA, .params = {128, 64, 64, 8}};
    const clgemm_config small = {.family = CLGEMM_FAMILY_TMA, .params = {64, 64, 64, 2}};
    cr_assert_eq(clgemm__config_check(&narrow, &h200, H), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm__config_check(&tall, &h200, H), CLGEMM_SUCCESS);
    cr_expect_eq(clgemm__plan_splits(&narrow, &h200, 0, H, 8192, 64, 8192, 1), 1);
    cr_expect_eq(clgemm__plan_splits(&narrow, &h200, 0, H, 64, 8192, 8192, 1), 1);
    cr_expect_eq(clgemm__plan_splits(&narrow, &h200, 0, H, 4096, 64, 8192, 1), 2);
    cr_expect_eq(clgemm__plan_splits(&tall, &h200, 0, H, 8192, 64, 8192, 1), 2);
    cr_expect_eq(clgemm__plan_splits(&tall, &h200, 0, H, 16384, 64, 16384, 1), 1);
    /* 34 KiB: registers, not local memory, bound it (three an SM), so 128 tiles take 3 layers. */
    cr_expect_eq(clgemm__plan_splits(&small, &h200, 0, H, 8192, 64, 8192, 1), 3);
    /* The defaults as planned: 64 x 8192 x 8192 in one wave, unsplit. */
    clgemm_config d =
        clgemm__config_default_for(&h200, H, CLGEMM_COMPUTE_DEFAULT, 64, 8192, 8192, 1);
    cr_expect_eq(clgemm__plan_splits(&d, &h200, 0, H, 64, 8192, 8192, 1), 1);
}

/* C's local memory counts against the limit: 256 x 128 tiles in 4 stages fit with their four
 * consumers' 32 KiB of C (225 KiB), 128 x 128 in 7 stages (225 KiB) only without their 16. */
Test(tma_family, staged_c_counts_against_local_memory) {
    device_info h200 = h200_with_maps();
    const struct {
        int v[6];
        bool fits;
    } cases[] = {{{256, 128, 64, 4, 0, 2}, true},  {{256, 128, 64, 4, 0, 0}, true},
                 {{128, 256, 64, 5, 0, 0}, false}, {{128, 128, 64, 6, 0, 2}, true},
                 {{128, 128, 64, 7, 0, 0}, true},  {{128, 256, 64, 4, 2, 2}, true}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clgemm_config c = {.family = CLGEMM_FAMILY_TMA};
        memcpy(c.params, cases[i].v, sizeof cases[i].v);
        cr_expect_eq(clgemm__config_check(&c, &h200, CLGEMM_HALF) == CLGEMM_SUCCESS, cases[i].fits,
                     "case %zu", i);
    }
    clgemm_config seven = {.family = CLGEMM_FAMILY_TMA, .params = {128, 128, 64, 7, 0, 2}};
    cr_expect_neq(clgemm__config_check(&seven, &h200, CLGEMM_HALF), CLGEMM_SUCCESS);
}

/* Stream-K on a persistent configuration runs only where CLGEMM_STREAMK asks (it ran slower on
 * the H200, plan.c says why): never by default, a forced count on a persistent configuration
 * stands (even with fewer tiles than work-groups), not on one tile a work-group, a batch, K 0 or
 * the setting 0. Its workspace holds the counters before two tile-sized slots a work-group. */
Test(tma_family, stream_k_on_persistent_tiles_only_when_asked) {
    device_info h200 = h200_with_maps();
    const clgemm_config wide = {.family = CLGEMM_FAMILY_TMA, .params = {128, 256, 64, 4, 2, 2}};
    const clgemm_config one_tile = {.family = CLGEMM_FAMILY_TMA, .params = {128, 256, 64, 4, 0, 2}};
    const clgemm_precision H = CLGEMM_HALF;
    cr_expect_eq(clgemm__plan_streamk(&wide, &h200, -1, H, 8192, 8192, 8192, 1), 0);
    cr_expect_eq(clgemm__plan_streamk(&wide, &h200, -1, H, 4096, 4096, 4096, 1), 0);
    cr_expect_eq(clgemm__plan_streamk(&wide, &h200, 132, H, 8192, 8192, 8192, 1), 132);
    cr_expect_eq(clgemm__plan_streamk(&wide, &h200, 5, H, 300, 300, 300, 1), 5, "one tile");
    cr_expect_eq(clgemm__plan_streamk(&one_tile, &h200, 132, H, 8192, 8192, 8192, 1), 0);
    cr_expect_eq(clgemm__plan_streamk(&wide, &h200, 132, H, 8192, 8192, 8192, 2), 0, "a batch");
    cr_expect_eq(clgemm__plan_streamk(&wide, &h200, 132, H, 8192, 8192, 0, 1), 0, "K 0");
    cr_expect_eq(clgemm__plan_streamk(&wide, &h200, 0, H, 8192, 8192, 8192, 1), 0, "forced off");
    const schedule_force unset = {0, -1, -1, 0, 0}, on = {0, -1, 132, 0, 0};
    gemm_schedule d = clgemm__plan_schedule(&wide, &h200, &unset, H, H, 8192, 8192, 8192, 1, false);
    cr_expect_eq(d.groups, 0);
    cr_expect_eq(d.workspace, 0);
    gemm_schedule s = clgemm__plan_schedule(&wide, &h200, &on, H, H, 8192, 8192, 8192, 1, false);
    cr_expect_eq(s.groups, 132);
    cr_expect_eq(s.main_m, 8192, "nothing peeled");
    cr_expect_eq(s.main_n, 8192);
    cr_expect_eq(s.workspace, (2 * 132 * 128 * 256 + CLGEMM__SK_COUNTERS(132)) * sizeof(float));
    cr_expect_eq(CLGEMM__SK_COUNTERS(132) * 4 % 256, 0, "the parts start on 256 bytes");
    cr_expect_geq(CLGEMM__SK_COUNTERS(132), 132 * 4, "a counter per tile and warpgroup");
}

/* A producer warpgroup (SETMAXNREG 2) instead of a warp: 96 more threads, the same local
 * memory; values past 2 are refused. */
Test(tma_family, a_producer_warpgroup_gives_its_registers_away) {
    device_info h200 = h200_with_maps();
    clgemm_config c = {.family = CLGEMM_FAMILY_TMA, .params = {128, 256, 32, 4, 0, 0, 2}};
    cr_expect_eq(clgemm__config_check(&c, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    size_t local[2], global[2];
    clgemm__config_launch(&c, 8192, 8192, local, global);
    cr_expect_eq(local[0], 384);
    c.params[6] = 0;
    clgemm__config_launch(&c, 8192, 8192, local, global);
    cr_expect_eq(local[0], 288);
    c.params[6] = 3;
    cr_expect_neq(clgemm__config_check(&c, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    clgemm_config wide = {.family = CLGEMM_FAMILY_TMA, .params = {256, 128, 64, 4, 0, 0, 2}};
    clgemm__config_launch(&wide, 8192, 8192, local, global);
    cr_expect_eq(local[0], 640);
}

/* TALL 2: one 128-row consumer warpgroup (128 + 32 work-items), tma_simt's 128 x 64 tiles only:
 * 128 columns would hold 128 accumulators a thread, and the tensor-core kernels keep 64 rows a
 * warpgroup (their instructions' shape). Four stages of it fit twice in the H200's local memory. */
Test(tma_family, tall_consumer_warpgroups_only_for_tma_simt_128_by_64) {
    device_info h200 = h200_with_maps();
    clgemm_config c = {.family = CLGEMM_FAMILY_TMA_SIMT, .params = {128, 64, 32, 4, 0, 0, 0, 2}};
    cr_expect_eq(clgemm__config_check(&c, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    size_t local[2], global[2];
    clgemm__config_launch(&c, 8192, 64, local, global);
    cr_expect_eq(local[0], 160);
    cr_expect_eq(global[0], 64 * 160);
    cr_expect_eq(
        clgemm__groups_by_local(&h200, clgemm__family(c.family)->local_bytes(&c, CLGEMM_SINGLE)),
        2);
    clgemm_config wide = c, short_m = c, tma = c, fp64 = c, three = c;
    wide.params[1] = 128;
    short_m.params[0] = 64;
    tma.family = CLGEMM_FAMILY_TMA;
    fp64.family = CLGEMM_FAMILY_TMA_FP64;
    fp64.params[2] = 16;
    three.params[7] = 3;
    cr_expect_neq(clgemm__config_check(&wide, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    cr_expect_neq(clgemm__config_check(&short_m, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    cr_expect_neq(clgemm__config_check(&tma, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    cr_expect_neq(clgemm__config_check(&fp64, &h200, CLGEMM_DOUBLE), CLGEMM_SUCCESS);
    cr_expect_neq(clgemm__config_check(&three, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    c.params[7] = 1; /* (or 0): 64-row warpgroups, two of them */
    clgemm__config_launch(&c, 8192, 64, local, global);
    cr_expect_eq(local[0], 288);
}

/* 32-row tiles: tma_simt's only, one warpgroup of 32 rows (a thread's NWG/32 columns, 4 at a time
 * where B is MN-major: NWG 128 or 256); three stages of 32 x 256 fit twice in local memory. */
Test(tma_family, short_tiles_only_for_tma_simt) {
    device_info h200 = h200_with_maps();
    clgemm_config c = {.family = CLGEMM_FAMILY_TMA_SIMT, .params = {32, 256, 32, 3}};
    cr_expect_eq(clgemm__config_check(&c, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    size_t local[2], global[2];
    clgemm__config_launch(&c, 32, 8192, local, global);
    cr_expect_eq(local[0], 160);
    cr_expect_eq(global[0], 160);
    cr_expect_eq(global[1], 32);
    cr_expect_eq(
        clgemm__groups_by_local(&h200, clgemm__family(c.family)->local_bytes(&c, CLGEMM_SINGLE)),
        2);
    clgemm_config narrow = c, tall = c, tma = c;
    narrow.params[1] = 64;
    tall.params[7] = 2;
    tma.family = CLGEMM_FAMILY_TMA;
    cr_expect_neq(clgemm__config_check(&narrow, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    cr_expect_neq(clgemm__config_check(&tall, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    cr_expect_neq(clgemm__config_check(&tma, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS);
}

/* No map service, a failed static-local probe (48 KiB hold no stage set), another compute
 * capability: the same calls plan on the mma.sync family, and a forced tma configuration is
 * refused. */
Test(tma_family, absent_without_maps_or_local_memory) {
    device_info no_maps = h200_with_maps(), small_local = no_maps, ada = no_maps;
    no_maps.nv_tma = false;
    small_local.local_mem_static = 0;
    ada.nv_compute_capability = 89;
    const device_info *devs[] = {&no_maps, &small_local, &ada};
    clgemm_config forced = {.family = CLGEMM_FAMILY_TMA, .params = {128, 128, 64, 3}};
    const device_info h200 = h200_with_maps();
    cr_expect_eq(clgemm__config_check(&forced, &h200, CLGEMM_HALF), CLGEMM_SUCCESS);
    for (int d = 0; d < 3; d++) {
        clgemm_config c = clgemm__config_default_for(devs[d], CLGEMM_HALF, CLGEMM_COMPUTE_DEFAULT,
                                                     8192, 8192, 8192, 1);
        cr_expect_neq(c.family, CLGEMM_FAMILY_TMA, "device %d", d);
        cr_expect_eq(
            clgemm__config_supports(&forced, devs[d], CLGEMM_HALF, CLGEMM_COMPUTE_DEFAULT) &&
                clgemm__config_check(&forced, devs[d], CLGEMM_HALF) == CLGEMM_SUCCESS,
            false, "device %d takes a forced tma configuration", d);
    }
}

/* ---- The tma_fp64 family (FP64 on the DMMA tensor cores, cl/tma.cl's WG_TYPE 7) -------------- */

static device_info h200_fp64(void) {
    device_info h200 = h200_with_maps();
    h200.has_fp64 = true;
    return h200;
}

/* Offered only where maps are encoded on compute capability 9.0, only for FP64 in the default
 * compute mode (and the tuner's any), the default where measured, and read either major (no copy
 * first). */
Test(tma_fp64_family, only_fp64_on_the_modelled_h200_default_where_measured) {
    const family_desc *f = clgemm__family(CLGEMM_FAMILY_TMA_FP64);
    cr_assert(f);
    cr_expect_str_eq(f->name, "tma_fp64");
    cr_expect_str_eq(f->file, "tma.cl");
    cr_expect_not_null(f->defaults);
    cr_expect(f->searched && f->tensor_maps && f->split_k);
    device_info h200 = h200_fp64(), no_maps = h200, ada = h200;
    no_maps.nv_tma = false;
    ada.nv_compute_capability = 89;
    const clgemm_precision D = CLGEMM_DOUBLE;
    cr_expect(f->supported(&h200, D, CLGEMM_COMPUTE_DEFAULT));
    cr_expect(f->supported(&h200, D, CLGEMM__COMPUTE_ANY));
    cr_expect_not(f->supported(&no_maps, D, CLGEMM_COMPUTE_DEFAULT));
    cr_expect_not(f->supported(&ada, D, CLGEMM_COMPUTE_DEFAULT));
    const clgemm_precision others[] = {CLGEMM_SINGLE,        CLGEMM_HALF, CLGEMM_BFLOAT16,
                                       CLGEMM_INT8,          CLGEMM_E4M3, CLGEMM_E5M2,
                                       CLGEMM_COMPLEX_DOUBLE};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        cr_expect_not(f->supported(&h200, others[i], CLGEMM_COMPUTE_DEFAULT), "type %d",
                      (int)others[i]);
    cr_expect_not(f->supported(&h200, CLGEMM_SINGLE, CLGEMM_COMPUTE_TF32));
    /* The default for one matrix with A (of the column-major problem) MN-major and each side and K
     * of 2048 or more (132 SMs, one tile each; shorter K: short_k_by_depth): 128 x 128 tiles (6
     * stages, the producer warpgroup's registers) from 7 waves on or where they keep nine tenths of
     * their slots busy over 1.9 waves or more, else 128 x 64 ones where they do over 2 waves or
     * more; else the mma family. The narrow and long-K shapes, B K-major: a side of 33 to 64
     * against 8192 or more (K too) in tiles of 64 that way, both sides 129 to 256 with K of 16384
     * or more in 128 x 64. */
    const struct {
        size_t m, n, k, batch;
        bool a_along_k, b_along_n;
        int mwg, nwg; /* 0, 0: the mma family */
    } plans[] = {
        {8192, 8192, 8192, 1, false, false, 128, 128}, /* 31.0 waves */
        {4096, 4096, 4096, 1, false, false, 128, 128}, /* 7.8 */
        {3200, 4736, 4096, 1, false, false, 128, 128}, /* 7.01: 925 tiles, 0.88 of 8 waves */
        {3584, 3584, 3584, 1, false, false, 128, 128}, /* 5.9, 0.99 */
        {2048, 2048, 2048, 1, false, false, 128, 128}, /* 1.94, 0.97 */
        {8192, 8192, 2048, 1, false, false, 128, 128},
        {8192, 8192, 8192, 1, false, true, 128, 128},
        {3072, 3072, 3072, 1, false, false, 128, 64}, /* 4.4, 0.87; 128 x 64: 8.7, 0.97 */
        {2304, 2304, 2304, 1, false, false, 128, 64}, /* 2.5, 0.82; 128 x 64: 4.9, 0.98 */
        {2560, 2560, 2560, 1, false, false, 0, 0},    /* 3.0, 0.76; 128 x 64: 6.1, 0.87 */
        {1536, 1536, 1536, 1, false, false, 0, 0},    /* 1.1; 128 x 64: 2.2, 0.73 */
        {8192, 8192, 8192, 1, true, false, 0, 0},
        {8192, 8192, 1024, 1, false, false, 128, 128}, /* K 1024 in 7 waves (short_k_by_depth) */
        {65536, 64, 4096, 1, false, false, 0, 0},   /* 512 tiles of 128 x 128, each half outside */
        {1024, 32768, 4096, 1, false, false, 0, 0}, /* 15.5 waves, but a side under 2048 */
        {4096, 4096, 4096, 2, false, false, 0, 0},
        {64, 8192, 8192, 1, false, false, 64, 128}, /* row-major 8192 x 64 x 8192 */
        {48, 16384, 8192, 1, false, false, 64, 128},
        {8192, 64, 8192, 1, false, false, 128, 64}, /* row-major 64 x 8192 x 8192 */
        {256, 256, 16384, 1, false, false, 128, 64},
        {192, 256, 32768, 1, false, false, 128, 64},
        {64, 8192, 8192, 1, false, true, 0, 0}, /* B MN-major: unmeasured */
        {8192, 64, 8192, 1, true, false, 0, 0},
        {32, 8192, 8192, 1, false, false, 0, 0},
        {64, 8192, 4096, 1, false, false, 0, 0},
        {64, 4096, 8192, 1, false, false, 0, 0},
        {8192, 64, 8192, 3, false, false, 0, 0},
        {128, 256, 16384, 1, false, false, 0, 0},
        {256, 256, 8192, 1, false, false, 0, 0},
    };
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        const gemm_dims d = {plans[i].m, plans[i].n,         plans[i].k,        plans[i].batch,
                             true,       plans[i].a_along_k, plans[i].b_along_n};
        clgemm_config c = clgemm__config_default_for_dims(&h200, D, CLGEMM_COMPUTE_DEFAULT, &d);
        if (!plans[i].nwg) {
            cr_expect_eq(c.family, CLGEMM_FAMILY_MMA, "case %zu", i);
            continue;
        }
        cr_expect(c.family == CLGEMM_FAMILY_TMA_FP64 && c.params[0] == plans[i].mwg &&
                      c.params[1] == plans[i].nwg && c.params[3] == 6,
                  "case %zu: %d x %d, not %d x %d", i, c.params[0], c.params[1], plans[i].mwg,
                  plans[i].nwg);
        /* 128 x 128 tiles give the producer's registers to the consumers; the others keep them */
        cr_expect_eq(c.params[6] == 2, plans[i].mwg == 128 && plans[i].nwg == 128, "case %zu", i);
    }
    /* Either major: FP64 operands are not K-major only, and a map describes each layout. */
    cr_expect_not(clgemm__maps_k_major_only(D, CLGEMM_COMPUTE_DEFAULT));
    for (int ka = 0; ka < 2; ka++)
        for (int kb = 0; kb < 2; kb++) {
            map_operand a = {.ld = 4096, .k_major = ka, .mn = 4096};
            map_operand b = {.ld = 4096, .k_major = kb, .mn = 4096};
            cr_expect(clgemm__operands_mappable(D, 4096, 1, &a, &b), "%d %d", ka, kb);
            a.ld = 4097; /* rows of 8 bytes past 16: no map */
            cr_expect_not(clgemm__operands_mappable(D, 4096, 1, &a, &b), "%d %d", ka, kb);
        }
}

/* Tiles of 64 or 128 a side (a consumer thread holds NWG/2 FP64 accumulators), slices of 16
 * (one 128-byte row), the stages within the probed 231,424 bytes (128 x 128: 7 stages of 32 KiB,
 * not 8), FP64 only; launch as tma's (a producer warp or warpgroup beside MWG/64 consumers). */
Test(tma_fp64_family, rules_local_memory_and_launch) {
    const device_info h200 = h200_fp64();
    const family_desc *f = clgemm__family(CLGEMM_FAMILY_TMA_FP64);
    const struct {
        int v[7];
        bool legal;
        size_t local_bytes, threads;
    } cases[] = {
        {{128, 128, 16, 4, 0, 0, 2}, true, 4 * (256 * 128 + 16) + 1024, 384},
        {{128, 128, 16, 6, 0, 0, 2}, true, 6 * (256 * 128 + 16) + 1024, 384},
        {{128, 128, 16, 7, 0, 0, 2}, true, 7 * (256 * 128 + 16) + 1024, 384},
        {{128, 128, 16, 8, 0, 0, 2}, false, 8 * (256 * 128 + 16) + 1024, 384},
        {{128, 128, 16, 4}, true, 4 * (256 * 128 + 16) + 1024, 288},
        {{128, 64, 16, 8}, true, 8 * (192 * 128 + 16) + 1024, 288},
        {{64, 128, 16, 6}, true, 6 * (192 * 128 + 16) + 1024, 160},
        {{64, 64, 16, 4}, true, 4 * (128 * 128 + 16) + 1024, 160},
        {{128, 256, 16, 3}, false, 3 * (384 * 128 + 16) + 1024, 288},
        {{256, 128, 16, 3}, false, 3 * (384 * 128 + 16) + 1024, 544},
        {{128, 128, 32, 4}, false, 4 * (256 * 128 + 16) + 1024, 288},
        {{128, 128, 8, 4}, false, 4 * (256 * 128 + 16) + 1024, 288},
        {{128, 128, 16, 1}, false, 1 * (256 * 128 + 16) + 1024, 288},
        {{96, 128, 16, 4}, false, 4 * (224 * 128 + 16) + 1024, 160},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clgemm_config c = {.family = CLGEMM_FAMILY_TMA_FP64};
        memcpy(c.params, cases[i].v, sizeof cases[i].v);
        cr_expect_eq(clgemm__config_check(&c, &h200, CLGEMM_DOUBLE) == CLGEMM_SUCCESS,
                     cases[i].legal, "case %zu", i);
        /* FP32 and FP16 are not its types, whatever the slice */
        cr_expect_neq(clgemm__config_check(&c, &h200, CLGEMM_SINGLE), CLGEMM_SUCCESS, "case %zu",
                      i);
        cr_expect_eq(f->local_bytes(&c, CLGEMM_DOUBLE), cases[i].local_bytes, "case %zu", i);
        size_t local[2], global[2];
        clgemm__config_launch(&c, 1000, 700, local, global);
        const size_t mt = (size_t)cases[i].v[0], nt = (size_t)cases[i].v[1];
        cr_expect(local[0] == cases[i].threads && local[1] == 1, "case %zu: %zu", i, local[0]);
        cr_expect(global[0] == (1000 + mt - 1) / mt * cases[i].threads &&
                      global[1] == (700 + nt - 1) / nt,
                  "case %zu", i);
    }
    /* Without FP64 on the device, nothing. */
    device_info no_fp64 = h200;
    no_fp64.has_fp64 = false;
    const clgemm_config q = {.family = CLGEMM_FAMILY_TMA_FP64,
                             .params = {128, 128, 16, 4, 0, 0, 2}};
    cr_expect_neq(clgemm__config_check(&q, &no_fp64, CLGEMM_DOUBLE), CLGEMM_SUCCESS);
}

/* Its build options: the kernel's FP64 type; the tiles' through the parameters; and its quick
 * list (the tuner's candidates, which test_tensor_cores runs on the device) legal on the H200. */
Test(tma_fp64_family, build_options_and_quick_list) {
    const device_info h200 = h200_fp64();
    const family_desc *f = clgemm__family(CLGEMM_FAMILY_TMA_FP64);
    kernel_call k = {.type_ab = CLGEMM_DOUBLE, .type_c = CLGEMM_DOUBLE};
    char buf[256];
    cr_assert_gt(f->call_options(&k, buf, sizeof buf), 0);
    cr_expect(strstr(buf, "-DWG_TYPE=7") && strstr(buf, "-DSPLIT3=0"), "%s", buf);
    size_t n = 0;
    for (const clgemm_config *c = f->quick; c->family; c++, n++) {
        cr_expect_eq(c->family, CLGEMM_FAMILY_TMA_FP64);
        cr_expect_eq(clgemm__config_check(c, &h200, CLGEMM_DOUBLE), CLGEMM_SUCCESS, "candidate %zu",
                     n);
        int kwg = 0;
        cr_expect(clgemm_config_get(c, "KWG", &kwg) == CLGEMM_SUCCESS && kwg == 16);
    }
    cr_expect_geq(n, 5);
    cr_expect_leq(n, 8);
}

/* Persistent work-groups: one an SM from 128 x 64 tiles on (their consumers' registers fill more
 * than half of it), two where 64 x 64 tiles' stages fit twice; none one tile a work-group. */
Test(tma_fp64_family, persistent_work_groups_by_registers_and_local_memory) {
    device_info h200 = h200_fp64();
    h200.compute_units = 132;
    const family_desc *f = clgemm__family(CLGEMM_FAMILY_TMA_FP64);
    const struct {
        int v[7];
        size_t groups;
    } cases[] = {{{128, 128, 16, 4, 2, 0, 2}, 132}, {{128, 64, 16, 2, 2}, 132},
                 {{64, 128, 16, 2, 2}, 132},        {{64, 64, 16, 4, 2}, 264},
                 {{64, 64, 16, 8, 2}, 132},         {{128, 128, 16, 4, 0, 0, 2}, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clgemm_config c = {.family = CLGEMM_FAMILY_TMA_FP64};
        memcpy(c.params, cases[i].v, sizeof cases[i].v);
        cr_expect_eq(clgemm__config_check(&c, &h200, CLGEMM_DOUBLE), CLGEMM_SUCCESS, "case %zu", i);
        cr_expect_eq(f->persistent_groups(&c, &h200), cases[i].groups, "case %zu: %zu", i,
                     f->persistent_groups(&c, &h200));
    }
}

/* Where 128 x 256 tiles would leave their last row or column of tiles mostly empty, the wide rule
 * counts what they cover once that is peeled, and the planner peels it onto the register-blocked
 * family's smallest tiles (the maps cover the operands from their corners, where the main part
 * starts); a persistent configuration, whose loop the grid does not shape, keeps its tiles. */
Test(tma_simt_family, peels_onto_the_register_blocked_family) {
    const device_info h200 = h200_with_maps();
    const clgemm_precision S = CLGEMM_SINGLE;
    const gemm_dims odd = {4097, 4097, 4097, 1, true, false, true};
    /* 100 columns past 4096 are not peeled: 32 x 17 tiles, 4.1 waves */
    const gemm_dims ragged = {4097, 4196, 4097, 1, true, false, true};
    const gemm_dims short_of_waves = {3073, 3073, 3073, 1, true, false, true};
    const clgemm_config wide =
        clgemm__config_default_for_dims(&h200, S, CLGEMM_COMPUTE_DEFAULT, &odd);
    cr_assert(wide.family == CLGEMM_FAMILY_TMA_SIMT && wide.params[1] == 256,
              "4097^2: 4096^2's tiles");
    clgemm_config c = clgemm__config_default_for_dims(&h200, S, CLGEMM_COMPUTE_DEFAULT, &ragged);
    cr_expect_neq(c.family, CLGEMM_FAMILY_TMA_SIMT, "4097 x 4196");
    c = clgemm__config_default_for_dims(&h200, S, CLGEMM_COMPUTE_DEFAULT, &short_of_waves);
    cr_expect_neq(c.family, CLGEMM_FAMILY_TMA_SIMT, "3073^2: 3072^2's 2.2 waves");
    const schedule_force unset = {0, -1, -1, 0, 0}, never = {0, 0, -1, 0, 0};
    gemm_schedule s = clgemm__plan_schedule(&wide, &h200, &unset, S, S, 4097, 4097, 4097, 1, false);
    cr_expect(s.peeled && s.main_m == 4096 && s.main_n == 4096, "%zu x %zu", s.main_m, s.main_n);
    cr_expect_eq(s.small.family, CLGEMM_FAMILY_REGBLOCK);
    cr_expect_gt(s.strip_splits, 1);
    cr_expect_gt(s.workspace, 0, "the strips' split layers");
    s = clgemm__plan_schedule(&wide, &h200, &never, S, S, 4097, 4097, 4097, 1, false);
    cr_expect(!s.peeled && s.main_m == 4097, "CLGEMM_PEEL=0");
    const clgemm_config looped = {.family = CLGEMM_FAMILY_TMA_SIMT,
                                  .params = {128, 256, 32, 3, 2, 0, 2}};
    s = clgemm__plan_schedule(&looped, &h200, &unset, S, S, 4097, 4097, 4097, 1, false);
    cr_expect(!s.peeled && s.main_m == 4097 && s.main_n == 4097, "persistent");
}

/* tma_simt's 128 x 256 tiles (both operands MN-major) only where they fill their waves and lie
 * inside the matrix: not for a matrix 128 wide, whose 512 such tiles would each be half outside. */
Test(tma_simt_family, wide_tiles_only_inside_the_matrix) {
    const device_info h200 = h200_with_maps();
    const gemm_dims square = {8192, 8192, 8192, 1, true, false, true};
    const gemm_dims thin = {65536, 128, 8192, 1, true, false, true};
    clgemm_config c =
        clgemm__config_default_for_dims(&h200, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &square);
    cr_expect(c.family == CLGEMM_FAMILY_TMA_SIMT && c.params[1] == 256, "8192^2");
    c = clgemm__config_default_for_dims(&h200, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &thin);
    cr_expect_neq(c.family, CLGEMM_FAMILY_TMA_SIMT, "65536 x 128 x 8192");
}

/* tma_simt's narrow defaults (column-major sizes): at most 64 wide along N, 128 x 64 tiles of one
 * 128-row consumer warpgroup in 4 stages; up to 256 wide, two 64-row ones in 6; 33 to 64 along M,
 * persistent 64 x 128 tiles in 4; 16 to 32, 32 x 128; fewer, not tma_simt (unmeasured). */
Test(tma_simt_family, narrow_shapes_by_their_width) {
    const device_info h200 = h200_with_maps();
    const gemm_dims n64 = {8192, 64, 8192, 1, true, false, false};
    const gemm_dims n256 = {256, 256, 16384, 1, true, false, false};
    const gemm_dims m64 = {64, 8192, 8192, 1, true, false, false};
    clgemm_config c =
        clgemm__config_default_for_dims(&h200, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &n64);
    cr_expect(c.family == CLGEMM_FAMILY_TMA_SIMT && c.params[0] == 128 && c.params[1] == 64 &&
                  c.params[3] == 4 && c.params[7] == 2,
              "8192 x 64 x 8192: %d x %d in %d stages, TALL %d", c.params[0], c.params[1],
              c.params[3], c.params[7]);
    c = clgemm__config_default_for_dims(&h200, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &n256);
    cr_expect(c.family == CLGEMM_FAMILY_TMA_SIMT && c.params[1] == 64 && c.params[3] == 6 &&
                  c.params[7] == 0,
              "256 x 256 x 16384");
    c = clgemm__config_default_for_dims(&h200, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &m64);
    cr_expect(c.family == CLGEMM_FAMILY_TMA_SIMT && c.params[0] == 64 && c.params[1] == 128 &&
                  c.params[3] == 4 && c.params[4] == 2,
              "64 x 8192 x 8192: persistent 64 x 128 in 4 stages");
    const gemm_dims m32 = {32, 8192, 8192, 1, true, false, false};
    const gemm_dims m16 = {16, 8192, 8192, 1, true, false, false};
    const gemm_dims m8 = {8, 8192, 8192, 1, true, false, false};
    c = clgemm__config_default_for_dims(&h200, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &m32);
    cr_expect(c.family == CLGEMM_FAMILY_TMA_SIMT && c.params[0] == 32 && c.params[1] == 128,
              "32 x 8192 x 8192");
    c = clgemm__config_default_for_dims(&h200, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &m16);
    cr_expect(c.family == CLGEMM_FAMILY_TMA_SIMT && c.params[0] == 32, "16 x 8192 x 8192");
    c = clgemm__config_default_for_dims(&h200, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &m8);
    cr_expect_neq(c.family, CLGEMM_FAMILY_TMA_SIMT, "8 x 8192 x 8192 (unmeasured)");
}

/* One expected default: a tensor-map family's tiles, stages and PERSIST, or (mwg 0) any other
 * family. */
typedef struct expected_default {
    gemm_dims d;
    int mwg, nwg, stages, persist;
} expected_default;

/* Each case's default on the device, for type, against the family's expectation. */
static void expect_defaults(const device_info *info, clgemm_precision type, clgemm_family family,
                            const expected_default *cases, size_t count) {
    for (size_t i = 0; i < count; i++) {
        const expected_default *e = &cases[i];
        const clgemm_config c =
            clgemm__config_default_for_dims(info, type, CLGEMM_COMPUTE_DEFAULT, &e->d);
        if (!e->mwg) {
            cr_expect_neq(c.family, family, "case %zu", i);
            continue;
        }
        cr_expect(c.family == family && c.params[0] == e->mwg && c.params[1] == e->nwg &&
                      c.params[3] == e->stages && c.params[4] == e->persist,
                  "case %zu: family %d, %d x %d, %d stages, PERSIST %d", i, (int)c.family,
                  c.params[0], c.params[1], c.params[3], c.params[4]);
    }
}

/* tma_simt's strided batches, A MN-major, 16 matrices or more: 49 to 64 a side along M and N in
 * one persistent 64 x 64 tile each, 128 to 256 in persistent 128 x 128 tiles of 4 stages, 257 to
 * 512 in persistent 64 x 128 ones; other sizes, mixed classes, A stored K-major and fewer than 16
 * matrices (unmeasured) stay on the register-blocked family. */
Test(tma_simt_family, batches_by_matrix_size) {
    const device_info h200 = h200_with_maps();
    const expected_default cases[] = {{{64, 64, 64, 10000, true, false, false}, 64, 64, 4, 2},
                                      {{49, 64, 32, 100, true, false, true}, 64, 64, 4, 2},
                                      {{128, 128, 128, 1000, true, false, false}, 128, 128, 4, 2},
                                      {{256, 256, 256, 1000, true, false, false}, 128, 128, 4, 2},
                                      {{256, 128, 64, 16, true, false, true}, 128, 128, 4, 2},
                                      {{384, 384, 384, 300, true, false, false}, 64, 128, 4, 2},
                                      {{512, 512, 512, 100, true, false, false}, 64, 128, 4, 2},
                                      {{48, 48, 48, 10000, true, false, false}, 0, 0, 0, 0},
                                      {{32, 32, 32, 10000, true, false, false}, 0, 0, 0, 0},
                                      {{100, 100, 100, 1000, true, false, false}, 0, 0, 0, 0},
                                      {{64, 256, 256, 1000, true, false, false}, 0, 0, 0, 0},
                                      {{256, 300, 256, 100, true, false, false}, 0, 0, 0, 0},
                                      {{1024, 1024, 1024, 50, true, false, false}, 0, 0, 0, 0},
                                      {{256, 256, 256, 1000, true, true, false}, 0, 0, 0, 0},
                                      {{256, 256, 256, 8, true, false, false}, 0, 0, 0, 0}};
    expect_defaults(&h200, CLGEMM_SINGLE, CLGEMM_FAMILY_TMA_SIMT, cases,
                    sizeof cases / sizeof cases[0]);
}

/* tma_fp64's strided batches: matrices 256 to 512 a side along M and N with A MN-major take
 * persistent 128 x 128 tiles in 4 stages with the producer's registers given to the consumers;
 * smaller or larger ones, A stored K-major and fewer than 16 matrices stay on the mma family. */
Test(tma_fp64_family, batches_of_mid_sized_matrices) {
    const device_info h200 = h200_fp64();
    const expected_default cases[] = {{{256, 256, 256, 1000, true, false, false}, 128, 128, 4, 2},
                                      {{512, 512, 512, 100, true, false, false}, 128, 128, 4, 2},
                                      {{512, 256, 64, 16, true, false, true}, 128, 128, 4, 2},
                                      {{128, 128, 128, 1000, true, false, false}, 0, 0, 0, 0},
                                      {{1024, 1024, 1024, 50, true, false, false}, 0, 0, 0, 0},
                                      {{256, 256, 256, 1000, true, true, false}, 0, 0, 0, 0},
                                      {{256, 256, 256, 8, true, false, false}, 0, 0, 0, 0}};
    expect_defaults(&h200, CLGEMM_DOUBLE, CLGEMM_FAMILY_TMA_FP64, cases,
                    sizeof cases / sizeof cases[0]);
    const clgemm_config c =
        clgemm__config_default_for_dims(&h200, CLGEMM_DOUBLE, CLGEMM_COMPUTE_DEFAULT, &cases[0].d);
    cr_expect_eq(c.params[6], 2, "SETMAXNREG");
}

/* tma_fp64 at shorter K, where 128 x 128 tiles make seven waves or more: K 1024 to 2047 in 6
 * stages, 256 to 1023 persistent in 4; shorter, or fewer tiles, the mma family. */
Test(tma_fp64_family, short_k_by_depth) {
    const device_info h200 = h200_fp64();
    const expected_default cases[] = {{{8192, 8192, 1024, 1, true, false, false}, 128, 128, 6, 0},
                                      {{4096, 4096, 1024, 1, true, false, false}, 128, 128, 6, 0},
                                      {{8192, 8192, 256, 1, true, false, false}, 128, 128, 4, 2},
                                      {{8192, 8192, 1023, 1, true, false, false}, 128, 128, 4, 2},
                                      {{8192, 8192, 255, 1, true, false, false}, 0, 0, 0, 0},
                                      {{2048, 2048, 1024, 1, true, false, false}, 0, 0, 0, 0},
                                      {{8192, 8192, 1024, 1, true, true, false}, 0, 0, 0, 0}};
    expect_defaults(&h200, CLGEMM_DOUBLE, CLGEMM_FAMILY_TMA_FP64, cases,
                    sizeof cases / sizeof cases[0]);
}
