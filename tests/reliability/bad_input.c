/* bad_input.c: the failures tests/test_invalid.c does not cover, each of which must give a
 * status and leave A, B and C bit for bit as they were: a kernel that fails to build (a syntax
 * error, or an invalid parameter forced through a modified copy of the kernels in
 * CLGEMM_KERNEL_DIR) gives CLGEMM_ERR_BUILD_FAILED and a non-empty clgemm_build_log, and the
 * next call with valid kernels, on the same handle, works (also for the split-K reduction
 * kernel, after its partial products were enqueued); missing kernel sources give
 * CLGEMM_ERR_KERNEL_SOURCE; host-array calls too large for the device (clCreateBuffer of more
 * than CL_DEVICE_MAX_MEM_ALLOC_SIZE) give OpenCL's status, never a crash. The kernel copies are
 * made from $REL_KERNEL_SRC (the source cl/ folder; meson sets it) in a temporary folder. */
#include "configs.h"
#include "rel_common.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static clgemm_handle h;
static char kernel_dir[256];

static void setup(void) {
    /* The broken sources must be built, never found in a cache. */
    setenv("CLGEMM_CACHE_DIR", "off", 1);
    unsetenv("CLGEMM_KERNEL_DIR");
    clgemm_status st = clgemm_create_default(&h);
    if (st == CLGEMM_ERR_NO_DEVICE) cr_skip_test("no OpenCL device");
    cr_assert_eq(st, CLGEMM_SUCCESS, "clgemm_create_default: %s", clgemm_status_string(st));
    snprintf(kernel_dir, sizeof kernel_dir, "/tmp/clgemm-bad-input-XXXXXX");
    cr_assert_not_null(mkdtemp(kernel_dir));
}

static void teardown(void) {
    clgemm_destroy(h);
    DIR *dir = opendir(kernel_dir);
    if (dir) {
        for (struct dirent *e; (e = readdir(dir));) {
            char path[512];
            if (e->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", kernel_dir, e->d_name);
            unlink(path);
        }
        closedir(dir);
        rmdir(kernel_dir);
    }
}

TestSuite(bad_input, .init = setup, .fini = teardown, .timeout = 300);

static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size + 1))) {
            size_t got = fread(buf, 1, (size_t)size, f);
            buf[got] = 0;
        }
    }
    fclose(f);
    return buf;
}

/* Copies every kernel source file (*.cl, *.h) into kernel_dir; in file `broken`, `old` (which must
 * occur) is replaced by `new_text`. Then CLGEMM_KERNEL_DIR names the copy. */
static void broken_kernels(const char *broken, const char *old, const char *new_text) {
    const char *src = getenv("REL_KERNEL_SRC");
    cr_assert(src && *src, "REL_KERNEL_SRC must name the source cl/ folder");
    DIR *dir = opendir(src);
    cr_assert_not_null(dir, "cannot open %s", src);
    bool found = false;
    for (struct dirent *e; (e = readdir(dir));) {
        if (!rel_is_kernel_file(e->d_name)) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", src, e->d_name);
        char *text = read_all(path);
        cr_assert_not_null(text, "cannot read %s", path);
        snprintf(path, sizeof path, "%s/%s", kernel_dir, e->d_name);
        FILE *f = fopen(path, "wb");
        cr_assert_not_null(f);
        bool this_one = broken && strcmp(e->d_name, broken) == 0;
        const char *at = this_one ? strstr(text, old) : NULL;
        if (this_one)
            cr_assert_not_null(at, "%s no longer contains \"%s\": update the test", broken, old);
        if (at) {
            found = true;
            fwrite(text, 1, (size_t)(at - text), f);
            fputs(new_text, f);
            fputs(at + strlen(old), f);
        } else {
            fputs(text, f);
        }
        cr_assert_eq(fclose(f), 0);
        free(text);
    }
    closedir(dir);
    cr_assert(!broken || found, "%s not found in %s", broken, src);
    setenv("CLGEMM_KERNEL_DIR", kernel_dir, 1);
}

/* A problem with offsets and padded leading dimensions, its host data and device buffers. */
typedef struct fixture {
    rel_data d;
    cl_mem mem[3];
} fixture;

static void make(fixture *f, clgemm_precision prec, size_t k, uint64_t seed) {
    rel_problem p = {.prec = prec,
                     .layout = CLGEMM_ROW_MAJOR,
                     .ta = CLGEMM_TRANS,
                     .tb = CLGEMM_NO_TRANS,
                     .m = 5,
                     .n = 6,
                     .k = k,
                     .alpha = 1.5,
                     .beta = -0.5,
                     .off_a = 2,
                     .off_b = 3,
                     .off_c = 4,
                     .lda = 9,
                     .ldb = 8,
                     .ldc = 7};
    cr_assert(rel_make(&f->d, &p, seed));
    cr_assert_eq(rel_upload(clgemm_context(h), &f->d, f->mem), CL_SUCCESS);
}

static void unmake(fixture *f) {
    rel_release(f->mem);
    rel_free(&f->d);
}

static clgemm_status call(fixture *f) {
    return rel_gemm(h, &f->d.p, f->mem[0], f->mem[1], f->mem[2], NULL, NULL);
}

/* After everything enqueued has run, A, B and C are bit for bit what they were. */
static void expect_untouched(fixture *f, const char *what) {
    cr_assert_eq(clFinish(clgemm_queue(h)), CL_SUCCESS);
    size_t rs = clgemm_type_size(f->d.p.prec);
    const size_t len[3] = {f->d.na, f->d.nb, f->d.nc};
    const void *want[3] = {f->d.a, f->d.b, f->d.c0};
    static const char names[3] = {'A', 'B', 'C'};
    for (int i = 0; i < 3; i++) {
        void *now = malloc(len[i] * rs);
        cr_assert_not_null(now);
        cr_assert_eq(clEnqueueReadBuffer(clgemm_queue(h), f->mem[i], CL_TRUE, 0, len[i] * rs, now,
                                         0, NULL, NULL),
                     CL_SUCCESS);
        cr_expect(memcmp(now, want[i], len[i] * rs) == 0, "%s: %c changed", what, names[i]);
        free(now);
    }
}

/* The call succeeds and C is right (against the host reference). */
static void expect_right(fixture *f, const char *what) {
    clgemm_status st = call(f);
    cr_assert_eq(st, CLGEMM_SUCCESS, "%s: %s", what, clgemm_status_string(st));
    cr_assert_eq(clEnqueueReadBuffer(clgemm_queue(h), f->mem[2], CL_TRUE, 0,
                                     f->d.nc * clgemm_type_size(f->d.p.prec), f->d.c, 0, NULL,
                                     NULL),
                 CL_SUCCESS);
    char msg[512] = "";
    cr_expect_eq(rel_check(&f->d, msg, sizeof msg), 0, "%s: %s", what, msg);
}

static void expect_log(const char *what) {
    size_t len = clgemm_build_log(h, NULL, 0);
    cr_expect_gt(len, 0, "%s: clgemm_build_log is empty", what);
    char buf[512] = "";
    size_t again = clgemm_build_log(h, buf, sizeof buf);
    cr_expect_eq(again, len, "%s: the log's length changed", what);
    cr_expect_eq(strlen(buf), len < sizeof buf ? len : sizeof buf - 1, "%s: log truncated wrong",
                 what);
    cr_log_info("%s: build log (%zu bytes) starts: %.200s", what, len, buf);
}

/* One broken build: status, log, untouched buffers; then valid kernels on the same handle. */
static void build_failure(const char *file, const char *old, const char *new_text,
                          const clgemm_config *config, clgemm_precision prec, size_t k,
                          const char *what) {
    cr_assert_eq(clgemm_set_config(h, prec, config), CLGEMM_SUCCESS);
    fixture f;
    make(&f, prec, k, 11);
    broken_kernels(file, old, new_text);
    clgemm_status st = call(&f);
    cr_expect_eq(st, CLGEMM_ERR_BUILD_FAILED, "%s: got %d (%s)", what, st,
                 clgemm_status_string(st));
    expect_untouched(&f, what);
    expect_log(what);
    /* It fails again (a failed build is not cached as a success)... */
    st = call(&f);
    cr_expect_eq(st, CLGEMM_ERR_BUILD_FAILED, "%s, second call: got %s", what,
                 clgemm_status_string(st));
    expect_untouched(&f, what);
    /* ...and the next call with valid kernels works, on the same handle. */
    unsetenv("CLGEMM_KERNEL_DIR");
    expect_right(&f, what);
    unmake(&f);
}

static const clgemm_config tiled4 = {.family = CLGEMM_FAMILY_TILED, .ts = 4};
static const clgemm_config regblock_small = REGBLOCK(8, 8, 4, 2, 4, 2, 2, 2);

Test(bad_input, syntax_error_gives_build_failed) {
    build_failure("tiled.cl", "REAL acc = (REAL)0;", "REAL acc = (REAL)0 this is not OpenCL C;",
                  &tiled4, CLGEMM_SINGLE, 7, "syntax error in tiled.cl");
}

Test(bad_input, syntax_error_in_common_cl_double) {
    char ext[4096] = "";
    clGetDeviceInfo(clgemm_device(h), CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    if (!strstr(ext, "cl_khr_fp64")) cr_skip_test("no fp64");
    build_failure("common.cl", "#define C_INDEX(i, j)", "#define C_INDEX(i, j) )(", &regblock_small,
                  CLGEMM_DOUBLE, 9, "syntax error in common.cl (dgemm, regblock)");
}

Test(bad_input, invalid_parameter_forced_through_the_kernel_dir) {
    /* The host passes a valid -DMDIMC; the modified copy overrides it with 0 (a zero-sized
     * work-group), which no compiler accepts. */
    build_failure("regblock.cl", "#define MWI", "#undef MDIMC\n#define MDIMC 0\n#define MWI",
                  &regblock_small, CLGEMM_SINGLE, 9, "MDIMC forced to 0 in regblock.cl");
}

Test(bad_input, scale_kernel_build_failure) {
    /* k == 0: only the scale kernel runs, and C (which it would write) must stay as it was. */
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, &tiled4), CLGEMM_SUCCESS);
    fixture f;
    make(&f, CLGEMM_SINGLE, 0, 12);
    broken_kernels("scale.cl", "const int at = C_INDEX(i, j);",
                   "const int at = C_INDEX(i, j); undeclared_name++;");
    clgemm_status st = call(&f);
    cr_expect_eq(st, CLGEMM_ERR_BUILD_FAILED, "scale.cl broken: got %s", clgemm_status_string(st));
    expect_untouched(&f, "scale.cl broken");
    expect_log("scale.cl broken");
    unsetenv("CLGEMM_KERNEL_DIR");
    expect_right(&f, "scale.cl restored");
    unmake(&f);
}

Test(bad_input, reduction_kernel_build_failure) {
    /* Split K: the partial products go to the handle's workspace, then reduce.cl (broken here)
     * would write C. C must stay as it was; with valid kernels the same handle is right. */
    setenv("CLGEMM_KSPLIT", "2", 1); /* read when a handle is made: a new one */
    clgemm_destroy(h);
    cr_assert_eq(clgemm_create_default(&h), CLGEMM_SUCCESS);
    build_failure("reduce.cl", "REAL sum = (REAL)0;", "REAL sum = (REAL)0 +;", &regblock_small,
                  CLGEMM_SINGLE, 9, "reduce.cl broken, K split in 2");
    unsetenv("CLGEMM_KSPLIT");
}

Test(bad_input, host_api_build_failure_leaves_c_alone) {
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, &tiled4), CLGEMM_SUCCESS);
    broken_kernels("tiled.cl", "barrier(", "barrier_typo(");
    float a[12], b[12], c[16], c0[16];
    for (int i = 0; i < 16; i++)
        c0[i] = c[i] = (float)i - 3.25f;
    for (int i = 0; i < 12; i++)
        a[i] = b[i] = (float)i * 0.5f;
    clgemm_status st = clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4,
                                         4, 3, 1.0f, a, 4, b, 3, 0.5f, c, 4);
    cr_expect_eq(st, CLGEMM_ERR_BUILD_FAILED, "host API: got %s", clgemm_status_string(st));
    cr_expect(memcmp(c, c0, sizeof c) == 0, "host API: C changed after a failed build");
    expect_log("host API");
    unsetenv("CLGEMM_KERNEL_DIR");
    st = clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4, 4, 3, 1.0f, a,
                           4, b, 3, 0.5f, c, 4);
    cr_expect_eq(st, CLGEMM_SUCCESS, "host API, valid kernels: %s", clgemm_status_string(st));
    /* C(0, 0) = sum_p a(0, p) b(p, 0) + 0.5 c0(0, 0) = 0*0 + 2*0.5 + 4*1 + 0.5 * -3.25 */
    cr_expect_eq(c[0], 0.0f * 0.0f + 2.0f * 0.5f + 4.0f * 1.0f + 0.5f * -3.25f);
}

Test(bad_input, missing_kernel_source) {
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, &tiled4), CLGEMM_SUCCESS);
    fixture f;
    make(&f, CLGEMM_SINGLE, 7, 13);
    setenv("CLGEMM_KERNEL_DIR", kernel_dir, 1); /* empty */
    clgemm_status st = call(&f);
    cr_expect_eq(st, CLGEMM_ERR_KERNEL_SOURCE, "empty kernel dir: got %s",
                 clgemm_status_string(st));
    expect_untouched(&f, "empty kernel dir");
    unsetenv("CLGEMM_KERNEL_DIR");
    expect_right(&f, "kernels back");
    unmake(&f);
}

/* A read-only, never-touched mapping: as large as a real array, but costs no memory. */
static void *huge_array(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

Test(bad_input, host_api_larger_than_the_device_can_allocate) {
    cl_ulong max_alloc = 0;
    cr_assert_eq(clGetDeviceInfo(clgemm_device(h), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc,
                                 &max_alloc, NULL),
                 CL_SUCCESS);
    /* One matrix one element larger than the largest buffer the device allows, but still
     * within the kernels' int indexing. */
    size_t elems = (size_t)(max_alloc / sizeof(float)) + 1;
    if (elems > 0x7fffffff)
        cr_skip_test("max alloc %llu: too large", (unsigned long long)max_alloc);
    size_t bytes = elems * sizeof(float);
    float *big_a = huge_array(bytes), *big_b = huge_array(bytes);
    cr_assert(big_a && big_b, "cannot map %zu bytes", bytes);
    float c[8], c0[8];
    for (int i = 0; i < 8; i++)
        c0[i] = c[i] = (float)i + 0.25f;
    /* A (1 x k) and B (k x 1) too large: C must come back untouched. */
    clgemm_status st = clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 1,
                                         1, elems, 1.0f, big_a, 1, big_b, elems, 0.0f, c, 1);
    cr_expect_neq(st, CLGEMM_SUCCESS, "A and B of %zu bytes each: success", bytes);
    cr_log_info("A and B of %zu bytes (max alloc %llu): %d (%s)", bytes,
                (unsigned long long)max_alloc, st, clgemm_status_string(st));
    cr_expect(memcmp(c, c0, sizeof c) == 0, "C changed after a failed allocation");
    munmap(big_a, bytes);
    /* C (m x 1) too large. */
    float *big_c = (float *)mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    cr_assert(big_c != MAP_FAILED);
    float one = 1.0f;
    st = clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, elems, 1, 1, 1.0f,
                           big_b, elems, &one, 1, 0.0f, big_c, elems);
    cr_expect_neq(st, CLGEMM_SUCCESS, "C of %zu bytes: success", bytes);
    cr_log_info("C of %zu bytes: %d (%s)", bytes, st, clgemm_status_string(st));
    munmap(big_b, bytes);
    munmap(big_c, bytes);
    /* The handle still works. */
    fixture f;
    make(&f, CLGEMM_SINGLE, 7, 14);
    expect_right(&f, "after the failed allocations");
    unmake(&f);
}
