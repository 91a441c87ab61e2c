/* launch_chain.c: clgemm-launch-chain, what a call's extra commands cost on a device's OpenCL
 * driver, apart from their own work. A call may run a short command before its product (an
 * operand's copy) or after it (a split's sum); each is one more launch. This tool times, on one
 * in-order queue with the host clock around the enqueues and clFinish (as a whole call is timed),
 * a long kernel (a chain of dependent FMAs sized to about --long-us microseconds of device time)
 * alone and with an empty kernel before it, after it, and before it behind a user event that is
 * set only once both are enqueued, and an empty kernel alone and two in a row. The differences
 * to the long kernel alone are what the short commands cost a call. All of it three times: launches
 * without events; each launch asking for its event, as a call's launches do; and that on a queue
 * with profiling on (as the benches' queues are).
 * Usage: clgemm-launch-chain [--runs N] [--long-us US] [--device I] */
#define CL_TARGET_OPENCL_VERSION 120 /* OpenCL 1.2 queues, as the library uses */
#include "core/clock.h"

#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
    "__kernel void empty(__global float *x) { if (get_global_id(0) == 0x7fffffff) x[0] = 0; }\n"
    "__kernel void spin(__global float *x, int n) {\n"
    "    float v = x[get_global_id(0)];\n"
    "    for (int i = 0; i < n; i++) v = fma(v, 0.9999999f, 1e-7f);\n"
    "    x[get_global_id(0)] = v;\n"
    "}\n";

typedef struct bench {
    cl_context context;
    cl_command_queue queue;
    cl_kernel empty, spin;
    size_t spin_items;
    bool events; /* each launch asks for its event (released after the run), as a call's do */
} bench;

typedef enum {
    LONG,
    EMPTY_LONG,
    LONG_EMPTY,
    GATED_EMPTY_LONG,
    EMPTY,
    EMPTY_EMPTY,
    SCENARIOS
} scenario;
static const char *names[SCENARIOS] = {"long kernel alone", "empty, then long",
                                       "long, then empty",  "empty, then long, both gated",
                                       "empty alone",       "empty, then empty"};

/* The events the launches of one run asked for, released at its end. */
static cl_event made[4];
static int made_n;

static cl_event *event_slot(const bench *b) {
    return b->events && made_n < 4 ? &made[made_n++] : NULL;
}

static cl_int launch_empty(const bench *b, cl_uint wait_n, const cl_event *wait) {
    const size_t one = 32;
    return clEnqueueNDRangeKernel(b->queue, b->empty, 1, NULL, &one, &one, wait_n, wait,
                                  event_slot(b));
}

static cl_int launch_spin(const bench *b) {
    const size_t local = 128;
    return clEnqueueNDRangeKernel(b->queue, b->spin, 1, NULL, &b->spin_items, &local, 0, NULL,
                                  event_slot(b));
}

/* One whole run of scenario s: enqueues and clFinish, in seconds (negative on an error). */
static double run(const bench *b, scenario s) {
    const double t0 = clgemm_now_seconds();
    cl_int err = CL_SUCCESS;
    cl_event gate = NULL;
    switch (s) {
    case LONG:
        err = launch_spin(b);
        break;
    case EMPTY_LONG:
        err = launch_empty(b, 0, NULL);
        if (err == CL_SUCCESS) err = launch_spin(b);
        break;
    case LONG_EMPTY:
        err = launch_spin(b);
        if (err == CL_SUCCESS) err = launch_empty(b, 0, NULL);
        break;
    case GATED_EMPTY_LONG:
        gate = clCreateUserEvent(b->context, &err);
        if (err == CL_SUCCESS) err = launch_empty(b, 1, &gate);
        if (err == CL_SUCCESS) err = launch_spin(b);
        if (gate) clSetUserEventStatus(gate, CL_COMPLETE);
        break;
    case EMPTY:
        err = launch_empty(b, 0, NULL);
        break;
    case EMPTY_EMPTY:
        err = launch_empty(b, 0, NULL);
        if (err == CL_SUCCESS) err = launch_empty(b, 0, NULL);
        break;
    default:
        break;
    }
    if (err == CL_SUCCESS) err = clFinish(b->queue);
    if (gate) clReleaseEvent(gate);
    while (made_n > 0)
        clReleaseEvent(made[--made_n]);
    return err == CL_SUCCESS ? clgemm_now_seconds() - t0 : -1.0;
}

/* The spin kernel's device time at n iterations, in microseconds (profiling event). */
static double spin_us(const bench *b, cl_command_queue profiled, int n) {
    clSetKernelArg(b->spin, 1, sizeof n, &n);
    const size_t local = 128;
    cl_event ev = NULL;
    cl_ulong start = 0, end = 0;
    for (int i = 0; i < 3; i++) {
        if (ev) clReleaseEvent(ev);
        ev = NULL;
        if (clEnqueueNDRangeKernel(profiled, b->spin, 1, NULL, &b->spin_items, &local, 0, NULL,
                                   &ev) != CL_SUCCESS)
            return -1;
        clFinish(profiled);
    }
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    clReleaseEvent(ev);
    return (double)(end - start) * 1e-3;
}

static int compare(const void *x, const void *y) {
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv) {
    int runs = 400, device_index = 0;
    double long_us = 200;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--long-us") == 0 && i + 1 < argc)
            long_us = atof(argv[++i]);
        else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
            device_index = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: clgemm-launch-chain [--runs N] [--long-us US] [--device I]\n");
            return 2;
        }
    }
    if (runs < 3 || runs > 1000000 || !(long_us >= 1 && long_us <= 1e6) || device_index < 0) {
        fprintf(stderr,
                "clgemm-launch-chain: --runs 3..1000000, --long-us 1..1e6, --device >= 0\n");
        return 2;
    }
    /* The first GPU of any platform (else any device), the device_index-th of its platform. */
    cl_platform_id platforms[16];
    cl_uint np = 0;
    cl_device_id device = NULL;
    clGetPlatformIDs(16, platforms, &np);
    for (int pass = 0; pass < 2 && !device; pass++)
        for (cl_uint p = 0; p < np && !device; p++) {
            cl_device_id ids[16];
            cl_uint nd = 0;
            const cl_device_type want = pass == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL;
            if (clGetDeviceIDs(platforms[p], want, 16, ids, &nd) == CL_SUCCESS &&
                (cl_uint)device_index < nd)
                device = ids[device_index];
        }
    if (!device) {
        fprintf(stderr, "clgemm-launch-chain: no OpenCL device %d\n", device_index);
        return 1;
    }
    char name[256] = "?";
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
    cl_int err;
    bench b = {0};
    b.context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS) return 1;
    b.queue = clCreateCommandQueue(b.context, device, 0, &err);
    cl_command_queue profiled =
        clCreateCommandQueue(b.context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    cl_program program = clCreateProgramWithSource(b.context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS || clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
        fprintf(stderr, "clgemm-launch-chain: build failed\n");
        return 1;
    }
    b.empty = clCreateKernel(program, "empty", &err);
    b.spin = clCreateKernel(program, "spin", &err);
    cl_uint units = 1;
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    b.spin_items = (size_t)units * 512;
    float *zero = calloc(b.spin_items, sizeof *zero);
    cl_mem x = clCreateBuffer(b.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              b.spin_items * sizeof *zero, zero, &err);
    free(zero);
    if (err != CL_SUCCESS) return 1;
    clSetKernelArg(b.empty, 0, sizeof x, &x);
    clSetKernelArg(b.spin, 0, sizeof x, &x);
    /* Iterations for long_us: doubled until past a tenth of it, then scaled. */
    int n = 256;
    double us = spin_us(&b, profiled, n);
    while (us >= 0 && us < long_us / 10 && n < (1 << 28))
        us = spin_us(&b, profiled, n *= 2);
    if (us <= 0) return 1;
    n = (int)((double)n * long_us / us);
    us = spin_us(&b, profiled, n);
    printf("%s: long kernel %d iterations, %.1f us of device time; medians of %d whole runs\n",
           name, n, us, runs);
    double *t = malloc((size_t)runs * sizeof *t);
    double median[SCENARIOS];
    cl_command_queue plain = b.queue;
    for (int setup = 0; setup < 3; setup++) {
        b.events = setup > 0;
        b.queue = setup == 2 ? profiled : plain;
        printf(" %s\n", setup == 0   ? "launches without events, queue without profiling"
                        : setup == 1 ? "each launch asks for its event, queue without profiling"
                                     : "each launch asks for its event, queue with profiling");
        for (int s = 0; s < SCENARIOS; s++) {
            for (int i = 0; i < 5; i++)
                run(&b, (scenario)s);
            for (int i = 0; i < runs; i++)
                if ((t[i] = run(&b, (scenario)s)) < 0) {
                    fprintf(stderr, "clgemm-launch-chain: %s failed\n", names[s]);
                    return 1;
                }
            qsort(t, (size_t)runs, sizeof *t, compare);
            median[s] = t[runs / 2] * 1e6;
            const double base = s < EMPTY ? median[LONG] : median[EMPTY];
            printf("  %-30s %9.2f us  (%+.2f beside %s)\n", names[s], median[s], median[s] - base,
                   s < EMPTY ? "the long kernel alone" : "one empty kernel");
        }
    }
    b.queue = plain;
    free(t);
    clReleaseMemObject(x);
    clReleaseKernel(b.empty);
    clReleaseKernel(b.spin);
    clReleaseProgram(program);
    clReleaseCommandQueue(profiled);
    clReleaseCommandQueue(b.queue);
    clReleaseContext(b.context);
    return 0;
}
