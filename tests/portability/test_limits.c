/* test_limits.c: the planner against the recorded limits of real AMD, Intel and NVIDIA GPUs
 * (recorded_devices.c, one or more per architecture tier), no device needed. For every recorded
 * device, element type, compute mode and a spread of shapes, the configuration the library would
 * run must pass the library's check for that device, its work-group must fit the device's limits
 * (checked here independently of the family rules), it must be a built-in default rather than the
 * last-resort fallback on a real device, and it must never be the NVIDIA-only mma family on
 * another vendor's device; a device without FP64 must refuse FP64 and complex-double calls with
 * CLGEMM_ERR_NO_FP64 while every other type plans. */
#include "exec/exec.h"
#include "recorded_devices.h"

#include <criterion/criterion.h>
#include <string.h>

static const size_t shapes[][3] = {
    {1, 1, 1},          {7, 3, 5},         {64, 64, 64},    {100, 1000, 10}, {1000, 1000, 1000},
    {4096, 4096, 4096}, {128, 128, 65536}, {1, 100000, 64}, {33, 17, 4099},
};

static struct clgemm_handle_s handle_for(const recorded_device *d) {
    struct clgemm_handle_s h;
    memset(&h, 0, sizeof h); /* no forced configuration, no tuning database */
    h.info = d->info;
    return h;
}

/* The type, C type and compute mode of a call the library accepts on the device, or the status
 * it refuses it with. */
static clgemm_status call_status(struct clgemm_handle_s *h, clgemm_precision type,
                                 clgemm_compute compute) {
    gemm_call call = {.precision = type, .type_c = clgemm__type(type)->c, .compute = compute};
    return clgemm__check_types(h, &call);
}

static void check_device(const recorded_device *d) {
    struct clgemm_handle_s h = handle_for(d);
    const device_info *info = &d->info;
    for (int t = 0; t < CLGEMM_PRECISION_COUNT; t++) {
        clgemm_precision type = (clgemm_precision)t;
        const type_desc *td = clgemm__type(type);
        if (!td->ab) continue; /* INT32: only ever C */
        for (int c = 0; c <= CLGEMM_COMPUTE_FP32_3XTF32; c++) {
            clgemm_compute compute = (clgemm_compute)c;
            if (c != CLGEMM_COMPUTE_DEFAULT && type != CLGEMM_SINGLE) continue;
            clgemm_status st = call_status(&h, type, compute);
            if (td->fp64 && !info->has_fp64) {
                cr_expect_eq(st, CLGEMM_ERR_NO_FP64, "%s %s: status %d, not NO_FP64", d->key,
                             td->name, st);
                continue;
            }
            cr_expect_eq(st, CLGEMM_SUCCESS, "%s %s: refused (%d)", d->key, td->name, st);
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                const char *from = NULL;
                tuning_key key = clgemm__tuning_key(type, td->c, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS);
                clgemm_config cfg = clgemm__plan(&h, &key, compute, m, n, k, 1, &from);
                char desc[256];
                clgemm_config_string(&cfg, desc, sizeof desc);
                cr_expect_eq(clgemm__config_check(&cfg, info, type), CLGEMM_SUCCESS,
                             "%s %s %zux%zux%zu: planned %s, which the device refuses", d->key,
                             td->name, m, n, k, desc);
                if (info->cls != DEVICE_NVIDIA_GPU)
                    cr_expect_neq(cfg.family, CLGEMM_FAMILY_MMA, "%s: planned mma", d->key);
                size_t local[2], global[2];
                clgemm__config_launch(&cfg, m, n, local, global);
                cr_expect(local[0] * local[1] <= info->max_work_group_size &&
                              local[0] <= info->max_work_item_sizes[0] &&
                              local[1] <= info->max_work_item_sizes[1],
                          "%s %s: %s has a %zux%zu work-group, over the limit %zu", d->key,
                          td->name, desc, local[0], local[1], info->max_work_group_size);
                cr_expect(global[0] % local[0] == 0 && global[1] % local[1] == 0 &&
                              global[0] >= local[0] && global[1] >= local[1],
                          "%s: global %zux%zu not a multiple of local", d->key, global[0],
                          global[1]);
                /* A real device (compiled for, or an NVIDIA chip of a tier): the built-in defaults
                 * must fit it. */
                if (d->compiler || info->cls == DEVICE_NVIDIA_GPU)
                    cr_expect_str_eq(from, "default", "%s %s %zux%zux%zu: planned from %s", d->key,
                                     td->name, m, n, k, from);
                int splits = clgemm__plan_splits(&cfg, info, 0, type, m, n, k, 1);
                cr_expect(splits >= 1 && splits <= 64, "%s: %d splits", d->key, splits);
            }
        }
    }
}

Test(limits, every_recorded_device) {
    int devices = 0;
    for (const recorded_device *d = clgemm_recorded_devices; d->key; d++, devices++)
        check_device(d);
    cr_expect_geq(devices, 15);
}

/* The two FP64-less Intel GPUs are the ones issue 12 names: they must be recorded that way, or
 * the NO_FP64 half of the test above checks nothing. */
Test(limits, no_fp64_devices_are_recorded) {
    for (const char *const *key = (const char *const[]){"tgllp", "dg2-g10", NULL}; *key; key++) {
        const recorded_device *d = clgemm_recorded_device(*key);
        cr_assert_not_null(d, "%s not recorded", *key);
        cr_expect(!d->info.has_fp64, "%s recorded with FP64", *key);
        struct clgemm_handle_s h = handle_for(d);
        cr_expect_eq(call_status(&h, CLGEMM_DOUBLE, CLGEMM_COMPUTE_DEFAULT), CLGEMM_ERR_NO_FP64);
        cr_expect_eq(call_status(&h, CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPUTE_DEFAULT),
                     CLGEMM_ERR_NO_FP64);
        cr_expect_eq(call_status(&h, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT), CLGEMM_SUCCESS);
        cr_expect_eq(call_status(&h, CLGEMM_HALF, CLGEMM_COMPUTE_DEFAULT), CLGEMM_SUCCESS);
    }
}

/* The check is not vacuous: a recorded device with its local memory cut below every default's
 * need plans the fallback, and one with work-groups of 16 items refuses the 16 x 16 default. */
Test(limits, check_notices_small_devices) {
    recorded_device d = *clgemm_recorded_device("gfx90a");
    clgemm_config def = clgemm__config_default(&d.info, CLGEMM_SINGLE);
    cr_assert_eq(clgemm__config_check(&def, &d.info, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    d.info.max_work_group_size = 16;
    cr_expect_neq(clgemm__config_check(&def, &d.info, CLGEMM_SINGLE), CLGEMM_SUCCESS);
    d.info.local_mem_size = 1024;
    struct clgemm_handle_s h = handle_for(&d);
    const char *from = NULL;
    tuning_key key =
        clgemm__tuning_key(CLGEMM_SINGLE, CLGEMM_SINGLE, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS);
    clgemm_config cfg = clgemm__plan(&h, &key, CLGEMM_COMPUTE_DEFAULT, 512, 512, 512, 1, &from);
    cr_expect_str_neq(from, "default");
    cr_expect_eq(clgemm__config_check(&cfg, &d.info, CLGEMM_SINGLE), CLGEMM_SUCCESS);
}
