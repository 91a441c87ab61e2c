/* opencl_call_times.c: where a warm call's host time goes, loaded before the OpenCL library
 * (LD_PRELOAD=libopencl-call-times.so clgemm-types-bench ...). It times every OpenCL entry point
 * the library's call path uses and, at exit, prints to stderr each one's count, median and mean
 * (calls under 1 ms: a build or a first launch is left out), then the last 48 calls in order with
 * the host time between them (what the library itself spent there). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum {
    F_SET_ARG,
    F_ENQUEUE_KERNEL,
    F_MARKER,
    F_FILL,
    F_EVENT_INFO,
    F_RELEASE_EVENT,
    F_RETAIN_EVENT,
    F_MEM_INFO,
    F_QUEUE_INFO,
    F_DEVICE_INFO,
    F_CREATE_BUFFER,
    F_RELEASE_MEM,
    F_RETAIN_MEM,
    F_COUNT
};
static const char *names[F_COUNT] = {
    "clSetKernelArg",      "clEnqueueNDRangeKernel", "clEnqueueMarkerWithWaitList",
    "clEnqueueFillBuffer", "clGetEventInfo",         "clReleaseEvent",
    "clRetainEvent",       "clGetMemObjectInfo",     "clGetCommandQueueInfo",
    "clGetDeviceInfo",     "clCreateBuffer",         "clReleaseMemObject",
    "clRetainMemObject"};

#define BINS 10000 /* of 0.1 us: up to 1 ms */
static atomic_ulong bins[F_COUNT][BINS];
static atomic_ulong slow[F_COUNT];
static double sums[F_COUNT]; /* under 1 ms (racy add: this is a single-threaded bench's tool) */

#define RING 48
typedef struct record {
    int f;
    double start, end;
} record;
static record ring[RING];
static atomic_uint ring_next;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static void note(int f, double start, double end) {
    const double us = end - start;
    if (us < BINS * 0.1) {
        atomic_fetch_add(&bins[f][(int)(us * 10)], 1);
        sums[f] += us;
    } else {
        atomic_fetch_add(&slow[f], 1);
    }
    const unsigned i = atomic_fetch_add(&ring_next, 1) % RING;
    ring[i] = (record){f, start, end};
}

static void *real(const char *name) {
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        fprintf(stderr, "opencl_call_times: no %s\n", name);
        abort();
    }
    return p;
}

/* Each wrapper: the real function looked up once, called between two clock reads. */
#define WRAP(ret, f, name, params, args)                                                           \
    ret name params {                                                                              \
        static ret(*fn) params;                                                                    \
        if (!fn) fn = (ret(*) params)real(#name);                                                  \
        const double t0 = now_us();                                                                \
        ret out_ = fn args;                                                                        \
        note(f, t0, now_us());                                                                     \
        return out_;                                                                               \
    }

WRAP(cl_int, F_SET_ARG, clSetKernelArg, (cl_kernel k, cl_uint i, size_t s, const void *v),
     (k, i, s, v))
WRAP(cl_int, F_ENQUEUE_KERNEL, clEnqueueNDRangeKernel,
     (cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o, const size_t *g, const size_t *l,
      cl_uint n, const cl_event *w, cl_event *e),
     (q, k, d, o, g, l, n, w, e))
WRAP(cl_int, F_MARKER, clEnqueueMarkerWithWaitList,
     (cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e), (q, n, w, e))
WRAP(cl_int, F_FILL, clEnqueueFillBuffer,
     (cl_command_queue q, cl_mem m, const void *p, size_t ps, size_t o, size_t s, cl_uint n,
      const cl_event *w, cl_event *e),
     (q, m, p, ps, o, s, n, w, e))
WRAP(cl_int, F_EVENT_INFO, clGetEventInfo,
     (cl_event e, cl_event_info i, size_t s, void *v, size_t *r), (e, i, s, v, r))
WRAP(cl_int, F_RELEASE_EVENT, clReleaseEvent, (cl_event e), (e))
WRAP(cl_int, F_RETAIN_EVENT, clRetainEvent, (cl_event e), (e))
WRAP(cl_int, F_MEM_INFO, clGetMemObjectInfo,
     (cl_mem m, cl_mem_info i, size_t s, void *v, size_t *r), (m, i, s, v, r))
WRAP(cl_int, F_QUEUE_INFO, clGetCommandQueueInfo,
     (cl_command_queue q, cl_command_queue_info i, size_t s, void *v, size_t *r), (q, i, s, v, r))
WRAP(cl_int, F_DEVICE_INFO, clGetDeviceInfo,
     (cl_device_id d, cl_device_info i, size_t s, void *v, size_t *r), (d, i, s, v, r))
WRAP(cl_mem, F_CREATE_BUFFER, clCreateBuffer,
     (cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *e), (c, f, s, h, e))
WRAP(cl_int, F_RELEASE_MEM, clReleaseMemObject, (cl_mem m), (m))
WRAP(cl_int, F_RETAIN_MEM, clRetainMemObject, (cl_mem m), (m))

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "opencl_call_times: %-28s %9s %9s %9s %7s\n", "function", "calls", "median_us",
            "mean_us", "over1ms");
    for (int f = 0; f < F_COUNT; f++) {
        unsigned long n = 0, seen = 0;
        for (int b = 0; b < BINS; b++)
            n += bins[f][b];
        if (n == 0 && slow[f] == 0) continue;
        int median = 0; /* the first bin where half the calls are reached */
        while (median < BINS - 1 && (seen += bins[f][median]) * 2 < n)
            median++;
        fprintf(stderr, "opencl_call_times: %-28s %9lu %9.1f %9.2f %7lu\n", names[f], n,
                n ? (median + 0.5) * 0.1 : 0.0, n ? sums[f] / (double)n : 0.0,
                (unsigned long)slow[f]);
    }
    const unsigned end = atomic_load(&ring_next);
    const unsigned first = end > RING ? end - RING : 0;
    double prev = 0;
    fprintf(stderr,
            "opencl_call_times: the last calls (us from the first; gap: host time before it)\n");
    for (unsigned i = first; i < end; i++) {
        const record *r = &ring[i % RING];
        const double base = ring[first % RING].start;
        fprintf(stderr, "opencl_call_times: %9.1f %-28s %7.1f us  gap %7.1f\n", r->start - base,
                names[r->f], r->end - r->start, i == first ? 0.0 : r->start - prev);
        prev = r->end;
    }
}
