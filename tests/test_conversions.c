/* test_conversions.c: the kernels' own 16-bit conversions against their references on the device,
 * every one of the 2^32 FP32 bit patterns narrowed and every 16-bit code widened:
 * - cl/types.cl's clgemm_to_half and clgemm_from_half (what kernels built with HALF_BY_INTEGERS
 *   use for FP16 C) against OpenCL's vstore_half_rte and vload_half, the specification's round to
 *   nearest even;
 * - cl/microkernel.cl's vector epilogue for FP16 and BF16 C (narrow_c, WIDEN_C: 16 elements at a
 *   time) against types.cl's one-element clgemm_to_half / clgemm_from_half and clgemm_to_bf16 /
 *   CLGEMM_FROM_BF16.
 * A NaN only has to stay a NaN. */
#include "build/build.h"
#include "exec/exec.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each work-item checks 16 consecutive values from base + 16 g; `wrong` counts the mismatches and
 * `first` keeps the lowest. NARROW_ALL (a vector) or GOT_NARROW (an element) and WIDE are the
 * conversions under test, WANT_NARROW and WANT_WIDE their references. */
static const char CHECK[] =
    "#define IS_NAN16(h) ((h & 0x7fffu) > (TYPE_C == TYPE_BF16 ? 0x7f80u : 0x7c00u))\n"
    "__kernel void check(const uint base, __global ushort *scratch, __global uint *wrong,\n"
    "                    __global uint *first) {\n"
    "    const uint x0 = base + 16u * (uint)get_global_id(0);\n"
    "    __global ushort *s = scratch + 16 * get_global_id(0);\n"
    "    NARROW_ALL(x0, s);\n"
    "    for (uint e = 0; e < 16u; e++) {\n"
    "        const uint x = x0 + e;\n"
    "        const ushort want = WANT_NARROW(x, s, e), got = GOT_NARROW(x, s, e);\n"
    "        bool bad = IS_NAN16(want) ? !IS_NAN16(got) : got != want;\n"
    "        if (x < 65536u) {\n"
    "            const float w = WANT_WIDE(x, s, e), v = WIDE(x, s, e);\n"
    "            bad |= isnan(w) ? !isnan(v) : as_uint(w) != as_uint(v);\n"
    "        }\n"
    "        if (bad) {\n"
    "            atomic_inc(wrong);\n"
    "            atomic_min(first, x);\n"
    "        }\n"
    "    }\n"
    "}\n";

/* The built-ins against types.cl (one element each; the scratch holds the built-in's result). */
static const char SCALAR_DEFS[] =
    "#define NARROW_ALL(x0, s)\n"
    "#define WANT_NARROW(x, s, e) (vstore_half_rte(as_float(x), e, (__global half *)s), s[e])\n"
    "#define WIDE(x, s, e) clgemm_from_half(x)\n"
    "#define WANT_WIDE(x, s, e) (s[e] = (ushort)(x), vload_half(e, (__global half *)s))\n"
    "#define GOT_NARROW(x, s, e) clgemm_to_half(as_float(x))\n";

/* The micro-kernel's vectors against types.cl's elements. */
static const char VECTOR_DEFS[] =
    "#define NARROW_ALL(x0, s) \\\n"
    "    vstore16(narrow_c(as_float16((uint16)(x0) + (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "
    "\\\n"
    "                                                   11, 12, 13, 14, 15))), 0, s)\n"
    "#if TYPE_C == TYPE_F16\n"
    "#define WANT_NARROW(x, s, e) clgemm_to_half(as_float(x))\n"
    "#define WANT_WIDE(x, s, e) clgemm_from_half(x)\n"
    "#else\n"
    "#define WANT_NARROW(x, s, e) clgemm_to_bf16(as_float(x))\n"
    "#define WANT_WIDE(x, s, e) CLGEMM_FROM_BF16(x)\n"
    "#endif\n"
    "#define GOT_NARROW(x, s, e) s[e]\n"
    "#define WIDE(x, s, e) WIDEN_C((ushort16)(ushort)(x)).s0\n";

/* Builds `defs` and CHECK after the library's source of kernel file `file` (NULL: the common
 * parts alone) with `options`, runs it over every FP32 bit pattern and returns the mismatches
 * (the first in *first_wrong). */
static cl_uint run_check(clgemm_handle h, const char *file, const char *defs, const char *options,
                         cl_uint *first_wrong) {
    char *kernels = clgemm__kernel_source(file);
    cr_assert_not_null(kernels, "%s", file ? file : "the common parts");
    const size_t size = strlen(kernels) + strlen(defs) + sizeof CHECK;
    char *source = malloc(size);
    cr_assert_not_null(source);
    snprintf(source, size, "%s%s%s", kernels, defs, CHECK);
    free(kernels);
    cl_int err;
    const char *text = source;
    cl_program program = clCreateProgramWithSource(h->context, 1, &text, NULL, &err);
    cr_assert_eq(err, CL_SUCCESS);
    cl_device_id device;
    cr_assert_eq(clGetCommandQueueInfo(h->queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL),
                 CL_SUCCESS);
    if (clBuildProgram(program, 1, &device, options, NULL, NULL) != CL_SUCCESS) {
        static char log[65536];
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        cr_assert_fail("build (%s) failed:\n%s", options, log);
    }
    cl_kernel kernel = clCreateKernel(program, "check", &err);
    cr_assert_eq(err, CL_SUCCESS);
    const size_t items = (size_t)1 << 20; /* 16 values each: 2^24 a launch */
    const cl_uint start[2] = {0, 0xffffffffu};
    cl_mem scratch = clCreateBuffer(h->context, CL_MEM_READ_WRITE, 32 * items, NULL, &err);
    cl_mem wrong = clCreateBuffer(h->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                  sizeof start[0], (void *)&start[0], &err);
    cl_mem first = clCreateBuffer(h->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                  sizeof start[1], (void *)&start[1], &err);
    cr_assert(scratch && wrong && first);
    cr_assert_eq(clSetKernelArg(kernel, 1, sizeof scratch, &scratch), CL_SUCCESS);
    cr_assert_eq(clSetKernelArg(kernel, 2, sizeof wrong, &wrong), CL_SUCCESS);
    cr_assert_eq(clSetKernelArg(kernel, 3, sizeof first, &first), CL_SUCCESS);
    /* One launch at a time: each reuses the scratch buffer (an in-order queue). */
    for (unsigned long long base = 0; base < (1ull << 32); base += 16 * items) {
        const cl_uint b = (cl_uint)base;
        cr_assert_eq(clSetKernelArg(kernel, 0, sizeof b, &b), CL_SUCCESS);
        cr_assert_eq(clEnqueueNDRangeKernel(h->queue, kernel, 1, NULL, &items, NULL, 0, NULL, NULL),
                     CL_SUCCESS);
    }
    cl_uint out[2];
    cr_assert_eq(
        clEnqueueReadBuffer(h->queue, wrong, CL_TRUE, 0, sizeof out[0], &out[0], 0, NULL, NULL),
        CL_SUCCESS);
    cr_assert_eq(
        clEnqueueReadBuffer(h->queue, first, CL_TRUE, 0, sizeof out[1], &out[1], 0, NULL, NULL),
        CL_SUCCESS);
    clReleaseMemObject(first);
    clReleaseMemObject(wrong);
    clReleaseMemObject(scratch);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    free(source);
    *first_wrong = out[1];
    return out[0];
}

static clgemm_handle open_handle(void) {
    setenv("CLGEMM_TUNING_DB", "/nonexistent/clgemm-conversions-test.json", 1);
    clgemm_handle h;
    if (clgemm_create_default(&h) != CLGEMM_SUCCESS) cr_skip_test("no OpenCL device");
    return h;
}

Test(conversions, fp16_elements_as_the_builtins_for_every_value, .timeout = 300) {
    clgemm_handle h = open_handle();
    cl_uint first, wrong = run_check(h, NULL, SCALAR_DEFS, "-DTYPE_AB=4 -DTYPE_C=4", &first);
    cr_expect_eq(wrong, 0u, "%u of 2^32 values converted otherwise than the built-ins (first %08x)",
                 wrong, first);
    clgemm_destroy(h);
}

Test(conversions, microkernel_vectors_as_the_elements_for_every_value, .timeout = 300) {
    clgemm_handle h = open_handle();
    const char *options[] = {"-DTYPE_AB=4 -DTYPE_C=4 -DVW=16 -DMR=32 -DNR=8",
                             "-DTYPE_AB=5 -DTYPE_C=5 -DVW=16 -DMR=32 -DNR=8"};
    for (int t = 0; t < 2; t++) {
        cl_uint first, wrong = run_check(h, "microkernel.cl", VECTOR_DEFS, options[t], &first);
        cr_expect_eq(wrong, 0u, "%s: %u of 2^32 values converted otherwise (first %08x)",
                     t ? "BF16" : "FP16", wrong, first);
    }
    clgemm_destroy(h);
}
