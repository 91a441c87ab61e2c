/* test_tma.c: the host side of the TMA route to Hopper's tensor cores, on any device (PoCL in CI):
 * the real limit of static local arrays (table, probe, fallback), the rules of the families that
 * use it, and the tensor-map service of src/exec/tensor_map.c (the encode parameters and their
 * refusals, the CUDA driver library's absence and failures, device addresses, the pack rule). */
#include "exec/exec.h"

#include <criterion/criterion.h>
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
    int calls;
    cl_ulong asked;
} probe_log;

static bool fake_probe(void *arg, cl_ulong bytes) {
    probe_log *p = arg;
    p->calls++;
    p->asked = bytes;
    return p->answer;
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
    cr_expect_eq(no.calls, 1);
    cr_expect_eq(h200.local_mem_static, 0);
    cr_expect_eq(clgemm__static_local_limit(&h200), 49152, "a failed probe keeps 48 KiB");
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
