/* test_lapack_block_rule.c: clgemm__blas_lapack_block (blas/lapack_block.c), the block size the
 * drop-in's ilaenv_ answers, for every combination of CLGEMM_BLAS_LAPACK_NB (unset, 0, N), the
 * device (none, a CPU, a GPU), ISPEC and LAPACK's own answer, with a stand-in for the device
 * that counts how often it is asked: where the answer cannot depend on it (another ISPEC, an
 * unblocked routine, the setting 0), it must not be asked, as asking opens the device. LAPACK's
 * own answers are random, so no answer is right by accident. A routine's panel limit caps the
 * GPU's default only, never below LAPACK's own; the limit itself is tested per name and size. The
 * library's objects are linked (the names are hidden). */
#include "../../blas/blas.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static lapack_device the_device;
static int asked, asked_type;

static lapack_device stand_in(int type) {
    asked++;
    asked_type = type;
    return the_device;
}

/* The answer with the device d; asked says whether the device was asked. */
static int answer_limited(int ispec, int own, int setting, int limit, lapack_device d, int type) {
    the_device = d;
    asked = 0, asked_type = -2;
    return clgemm__blas_lapack_block(ispec, own, setting, limit, stand_in, type);
}

/* The same for a routine whose panels bear any block. */
static int answer(int ispec, int own, int setting, lapack_device d, int type) {
    return answer_limited(ispec, own, setting, 0, d, type);
}

/* LAPACK's own answer for a blocked routine: 2 ... 511, never the default or a setting. */
static int random_own(void) {
    int own;
    do
        own = 2 + rand() % 510;
    while (own == 200 || own == 300);
    return own;
}

static const lapack_device DEVICES[] = {LAPACK_NO_DEVICE, LAPACK_CPU_DEVICE, LAPACK_GPU_DEVICE};

Test(lapack_block_rule, unset_is_512_on_a_gpu_and_lapacks_own_on_a_cpu_or_none) {
    srand(35);
    for (int i = 0; i < 100; i++) {
        int own = random_own(), type = rand() % BLAS_TYPE_COUNT;
        cr_assert_eq(answer(1, own, -1, LAPACK_GPU_DEVICE, type), 512, "own %d", own);
        cr_assert_eq(asked, 1);
        cr_assert_eq(asked_type, type, "the routine's type is the one asked about");
        cr_assert_eq(answer(1, own, -1, LAPACK_CPU_DEVICE, type), own);
        cr_assert_eq(asked, 1);
        cr_assert_eq(answer(1, own, -1, LAPACK_NO_DEVICE, type), own);
    }
}

Test(lapack_block_rule, zero_is_lapacks_own_everywhere_without_asking) {
    srand(36);
    for (int i = 0; i < 100; i++) {
        int own = random_own();
        for (int d = 0; d < 3; d++) {
            cr_assert_eq(answer(1, own, 0, DEVICES[d], BLAS_D), own);
            cr_assert_eq(asked, 0, "setting 0 opens no device");
        }
    }
}

Test(lapack_block_rule, a_setting_is_the_answer_with_any_device) {
    srand(37);
    for (int i = 0; i < 100; i++) {
        int own = random_own(), setting = 2 + rand() % 4095;
        cr_assert_eq(answer(1, own, setting, LAPACK_GPU_DEVICE, BLAS_S), setting);
        cr_assert_eq(answer(1, own, setting, LAPACK_CPU_DEVICE, BLAS_Z), setting);
        cr_assert_eq(answer(1, own, setting, LAPACK_NO_DEVICE, BLAS_C), own);
        cr_assert_eq(asked, 1);
    }
}

Test(lapack_block_rule, unblocked_routines_keep_their_answer_without_asking) {
    const int settings[] = {-1, 0, 300};
    for (int own = -1; own <= 1; own++)
        for (int s = 0; s < 3; s++)
            for (int d = 0; d < 3; d++) {
                cr_assert_eq(answer(1, own, settings[s], DEVICES[d], BLAS_D), own, "own %d", own);
                cr_assert_eq(asked, 0);
            }
}

Test(lapack_block_rule, other_ispecs_are_lapacks_own_without_asking) {
    srand(38);
    const int settings[] = {-1, 0, 300};
    for (int ispec = -1; ispec <= 17; ispec++) {
        if (ispec == 1) continue;
        int own = random_own();
        for (int s = 0; s < 3; s++)
            for (int d = 0; d < 3; d++) {
                cr_assert_eq(answer(ispec, own, settings[s], DEVICES[d], BLAS_D), own, "ispec %d",
                             ispec);
                cr_assert_eq(asked, 0);
            }
    }
}

Test(lapack_block_rule, a_panel_limit_caps_the_gpu_default_only) {
    srand(39);
    for (int i = 0; i < 200; i++) {
        int own = random_own(), limit = 1 + rand() % 1024, setting = 2 + rand() % 4095;
        int want = limit < 512 ? limit : 512;
        cr_assert_eq(answer_limited(1, own, -1, limit, LAPACK_GPU_DEVICE, BLAS_D),
                     want > own ? want : own, "own %d limit %d", own, limit);
        cr_assert_eq(answer_limited(1, own, -1, limit, LAPACK_CPU_DEVICE, BLAS_D), own);
        cr_assert_eq(answer_limited(1, own, -1, limit, LAPACK_NO_DEVICE, BLAS_D), own);
        cr_assert_eq(answer_limited(1, own, setting, limit, LAPACK_GPU_DEVICE, BLAS_D), setting);
        cr_assert_eq(answer_limited(1, own, 0, limit, LAPACK_GPU_DEVICE, BLAS_D), own);
    }
}

static int limit_of(const char *name, int n1, int n2) {
    return clgemm__blas_lapack_panel_limit(name, strlen(name), &n1, &n2);
}

Test(lapack_block_rule, panels_limit_the_qr_family_by_its_smaller_side) {
    const char *const limited[] = {"DGEQRF", "sgelqf", "CGEQLF", "ZGERQF",  "DORGQR",
                                   "SORGLQ", "ZUNGQL", "CUNGRQ", "DGEQRF  "};
    for (size_t i = 0; i < sizeof limited / sizeof limited[0]; i++) {
        cr_assert_eq(limit_of(limited[i], 2048, 2048), 64, "%s", limited[i]);
        cr_assert_eq(limit_of(limited[i], 8192, 4096), 128, "%s", limited[i]);
        cr_assert_eq(limit_of(limited[i], 100, 3000), 3, "%s", limited[i]);
        cr_assert_eq(limit_of(limited[i], 31, 4096), 1, "%s: too small for a block", limited[i]);
        cr_assert_eq(limit_of(limited[i], -1, -1), 1, "%s: sizes unknown", limited[i]);
    }
    const char *const any[] = {"DGETRF", "DPOTRF", "ZHETRF", "DORMQR", "DGEQRX",
                               "DGEQR",  "XGEQRF", "DSYTRD", ""};
    for (size_t i = 0; i < sizeof any / sizeof any[0]; i++)
        cr_assert_eq(limit_of(any[i], 2048, 2048), 0, "%s", any[i]);
}
