/* test_lapack_block.c: the drop-in's ilaenv_ (blas/lapack_block.c), linked, with the system
 * LAPACK loaded behind it (dlopen'ed into the global scope before the first call, as a program's
 * own liblapack.so.3 would be). CLGEMM_BLAS_LAPACK_NB unset: 512 as the block size (ISPEC 1) of
 * blocked routines where the device is a GPU, LAPACK's own answers on a CPU device (PoCL, in
 * CI); 0: LAPACK's own answers with any device; N: N with a device, for the block size of
 * blocked routines only; without a usable device (an empty ICD folder), LAPACK's own block size
 * again; a bad value ignored. LAPACK's own answers come from its ilaenv_ looked up in
 * liblapack.so.3 itself, so no block size is assumed; the device's type from clgemm's default
 * device, the one the drop-in opens. Every case of the rule, a GPU's included, is tested on its
 * own in test_lapack_block_rule.c. */
#include <clgemm.h>
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int (*ilaenv_fn)(const int *ispec, const char *name, const char *opts, const int *n1,
                         const int *n2, const int *n3, const int *n4, size_t lname, size_t lopts);
int ilaenv_(const int *ispec, const char *name, const char *opts, const int *n1, const int *n2,
            const int *n3, const int *n4, size_t lname, size_t lopts);

static int ask(ilaenv_fn f, int ispec, const char *name) {
    int n = 2000, none = -1;
    return f(&ispec, name, "L", &n, &n, &none, &none, strlen(name), 1);
}

static void load_lapack(void) {
    cr_assert(dlopen("liblapack.so.3", RTLD_NOW | RTLD_GLOBAL), "liblapack.so.3: %s", dlerror());
}

static int lapacks_own(int ispec, const char *name) {
    void *lib = dlopen("liblapack.so.3", RTLD_NOW | RTLD_NOLOAD);
    cr_assert(lib, "liblapack.so.3 is loaded");
    ilaenv_fn f = (ilaenv_fn)dlsym(lib, "ilaenv_");
    cr_assert(f && f != ilaenv_, "LAPACK's own ilaenv_");
    return ask(f, ispec, name);
}

static const char *const BLOCKED[] = {"DGETRF", "DPOTRF", "DGEQRF", "ZGETRF", "SPOTRF"};

/* The block size the drop-in's default gives a routine of the default device: 512 on a GPU or
 * accelerator that computes the routine's type (for ?geqrf a thirty-second of the matrix's side),
 * LAPACK's own otherwise. */
static int default_block(const char *name, int own) {
    clgemm_handle h;
    if (clgemm_create_default(&h) != CLGEMM_SUCCESS) return own;
    cl_device_type type = 0;
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(clgemm_device(h), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(clgemm_device(h), CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    clgemm_destroy(h);
    int double_type = name[0] == 'D' || name[0] == 'Z';
    int gpu = (type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0;
    /* ?geqrf's panels are unblocked: at most a thirty-second of ask's 2000 (62), not below own. */
    int block = strcmp(name + 1, "GEQRF") == 0 ? 62 : 512;
    return gpu && (fp64 || !double_type) ? (block > own ? block : own) : own;
}

Test(lapack_block, the_default_is_512_on_a_gpu_else_lapacks_own, .init = load_lapack,
     .timeout = 120) {
    unsetenv("CLGEMM_BLAS_LAPACK_NB");
    for (int i = 0; i < 5; i++) {
        int own = lapacks_own(1, BLOCKED[i]);
        cr_assert_gt(own, 1, "%s is blocked", BLOCKED[i]);
        cr_assert_eq(ask(ilaenv_, 1, BLOCKED[i]), default_block(BLOCKED[i], own), "%s", BLOCKED[i]);
        for (int ispec = 2; ispec <= 3; ispec++)
            cr_assert_eq(ask(ilaenv_, ispec, BLOCKED[i]), lapacks_own(ispec, BLOCKED[i]), "%s %d",
                         BLOCKED[i], ispec);
    }
    cr_assert_eq(ask(ilaenv_, 1, "DXXXXX"), 1);
}

Test(lapack_block, zero_is_lapacks_own_answers_with_a_device, .init = load_lapack, .timeout = 120) {
    setenv("CLGEMM_BLAS_LAPACK_NB", "0", 1);
    for (int i = 0; i < 5; i++)
        for (int ispec = 1; ispec <= 3; ispec++)
            cr_assert_eq(ask(ilaenv_, ispec, BLOCKED[i]), lapacks_own(ispec, BLOCKED[i]), "%s %d",
                         BLOCKED[i], ispec);
}

Test(lapack_block, block_size_of_blocked_routines_with_a_device, .init = load_lapack,
     .timeout = 120) {
    setenv("CLGEMM_BLAS_LAPACK_NB", "200", 1);
    for (int i = 0; i < 5; i++) {
        cr_assert_gt(lapacks_own(1, BLOCKED[i]), 1, "%s is blocked", BLOCKED[i]);
        cr_assert_eq(ask(ilaenv_, 1, BLOCKED[i]), 200, "%s", BLOCKED[i]);
        /* The minimum block and the crossover stay LAPACK's. */
        cr_assert_eq(ask(ilaenv_, 2, BLOCKED[i]), lapacks_own(2, BLOCKED[i]));
        cr_assert_eq(ask(ilaenv_, 3, BLOCKED[i]), lapacks_own(3, BLOCKED[i]));
    }
    /* A routine LAPACK does not block keeps its 1. */
    cr_assert_eq(lapacks_own(1, "DXXXXX"), 1);
    cr_assert_eq(ask(ilaenv_, 1, "DXXXXX"), 1);
}

Test(lapack_block, lapacks_own_block_without_a_device, .init = load_lapack) {
    char dir[] = "/tmp/clgemm-empty-icd-XXXXXX";
    cr_assert(mkdtemp(dir));
    setenv("OCL_ICD_VENDORS", dir, 1);
    setenv("CLGEMM_BLAS_LAPACK_NB", "200", 1);
    cr_assert_eq(ask(ilaenv_, 1, "DGETRF"), lapacks_own(1, "DGETRF"));
    rmdir(dir);
}

Test(lapack_block, a_bad_value_is_ignored, .init = load_lapack, .timeout = 120) {
    setenv("CLGEMM_BLAS_LAPACK_NB", "1", 1); /* as if unset */
    cr_assert_eq(ask(ilaenv_, 1, "DGETRF"), default_block("DGETRF", lapacks_own(1, "DGETRF")));
}
