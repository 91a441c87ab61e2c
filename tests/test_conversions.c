/* test_conversions.c: the kernels' own FP16 conversions (cl/types.cl's clgemm_to_half and
 * clgemm_from_half, which kernels built with HALF_BY_INTEGERS use for FP16 C) against OpenCL's
 * vstore_half_rte and vload_half on the device: every one of the 2^32 FP32 bit patterns narrowed,
 * every FP16 code widened. The built-ins are the reference the other kernels use (and the one
 * the specification defines: round to nearest even); NaN only has to stay NaN. */
#include "build/embedded_kernels.h"
#include "exec/exec.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char CHECK[] =
    "__kernel void check(const uint base, __global half *scratch, __global uint *wrong,\n"
    "                    __global uint *first) {\n"
    "    const size_t g = get_global_id(0);\n"
    "    const uint x = base + (uint)g;\n"
    "    __global ushort *bits = (__global ushort *)scratch;\n"
    "    vstore_half_rte(as_float(x), g, scratch);\n"
    "    const ushort want = bits[g], got = clgemm_to_half(as_float(x));\n"
    "    bool bad = (want & 0x7fffu) > 0x7c00u ? (got & 0x7fffu) <= 0x7c00u : got != want;\n"
    "    if (x < 65536u) {\n"
    "        bits[g] = (ushort)x;\n"
    "        const float w = vload_half(g, scratch), v = clgemm_from_half(x);\n"
    "        bad |= isnan(w) ? !isnan(v) : as_uint(w) != as_uint(v);\n"
    "    }\n"
    "    if (bad) {\n"
    "        atomic_inc(wrong);\n"
    "        atomic_min(first, x);\n"
    "    }\n"
    "}\n";

static const char *embedded(const char *name) {
    for (const struct embedded_kernel *k = clgemm__embedded_kernels; k->name; k++)
        if (strcmp(k->name, name) == 0) return k->text;
    return NULL;
}

Test(conversions, fp16_both_ways_as_the_builtins_for_every_value, .timeout = 300) {
    setenv("CLGEMM_TUNING_DB", "/nonexistent/clgemm-conversions-test.json", 1);
    clgemm_handle h;
    if (clgemm_create_default(&h) != CLGEMM_SUCCESS) cr_skip_test("no OpenCL device");
    const char *types = embedded("types.cl");
    cr_assert_not_null(types);
    size_t size = strlen(types) + sizeof CHECK + 2;
    char *source = malloc(size);
    cr_assert_not_null(source);
    snprintf(source, size, "%s\n%s", types, CHECK);
    cl_int err;
    const char *text = source;
    cl_program program = clCreateProgramWithSource(h->context, 1, &text, NULL, &err);
    cr_assert_eq(err, CL_SUCCESS);
    cl_device_id device;
    cr_assert_eq(clGetCommandQueueInfo(h->queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL),
                 CL_SUCCESS);
    cr_assert_eq(clBuildProgram(program, 1, &device, "-DTYPE_AB=4 -DTYPE_C=4", NULL, NULL),
                 CL_SUCCESS);
    cl_kernel kernel = clCreateKernel(program, "check", &err);
    cr_assert_eq(err, CL_SUCCESS);
    const size_t chunk = (size_t)1 << 24;
    const cl_uint start[2] = {0, 0xffffffffu};
    cl_mem scratch = clCreateBuffer(h->context, CL_MEM_READ_WRITE, 2 * chunk, NULL, &err);
    cl_mem wrong = clCreateBuffer(h->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                  sizeof start[0], (void *)&start[0], &err);
    cl_mem first = clCreateBuffer(h->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                  sizeof start[1], (void *)&start[1], &err);
    cr_assert(scratch && wrong && first);
    cr_assert_eq(clSetKernelArg(kernel, 1, sizeof scratch, &scratch), CL_SUCCESS);
    cr_assert_eq(clSetKernelArg(kernel, 2, sizeof wrong, &wrong), CL_SUCCESS);
    cr_assert_eq(clSetKernelArg(kernel, 3, sizeof first, &first), CL_SUCCESS);
    /* One launch at a time: each reuses the scratch buffer (an in-order queue). */
    for (unsigned long long base = 0; base < (1ull << 32); base += chunk) {
        const cl_uint b = (cl_uint)base;
        cr_assert_eq(clSetKernelArg(kernel, 0, sizeof b, &b), CL_SUCCESS);
        cr_assert_eq(clEnqueueNDRangeKernel(h->queue, kernel, 1, NULL, &chunk, NULL, 0, NULL, NULL),
                     CL_SUCCESS);
    }
    cl_uint out[2];
    cr_assert_eq(
        clEnqueueReadBuffer(h->queue, wrong, CL_TRUE, 0, sizeof out[0], &out[0], 0, NULL, NULL),
        CL_SUCCESS);
    cr_assert_eq(
        clEnqueueReadBuffer(h->queue, first, CL_TRUE, 0, sizeof out[1], &out[1], 0, NULL, NULL),
        CL_SUCCESS);
    cr_expect_eq(out[0], 0u,
                 "%u of 2^32 values converted otherwise than the built-ins (first %08x)", out[0],
                 out[1]);
    clReleaseMemObject(first);
    clReleaseMemObject(wrong);
    clReleaseMemObject(scratch);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    free(source);
    clgemm_destroy(h);
}
