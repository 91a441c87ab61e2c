/* device_address.c: the device address of an OpenCL buffer, which a tensor map (tensor_map.c)
 * names. A one-line kernel (cl/device_address.cl) reads it once per buffer and device; the
 * answer stays cached while the buffer lives. The cache holds a reference to each buffer it
 * knows: a released buffer's handle value comes back as another buffer, and a destructor
 * callback (which NVIDIA's driver may run after the value is reused: an H200 run read a freed
 * buffer's address for a new one) cannot be trusted to drop the entry in time. So that a buffer
 * the caller has released is not kept (its memory, and its context, would stay allocated), an
 * entry whose buffer nobody else holds (reference count 1) is released at the start of the next
 * GEMM call of any handle, and a handle's destroy drops every entry of its context. */
#include "exec/exec.h"

#include <stdatomic.h>
#include <stdlib.h>

typedef struct address_entry {
    cl_mem mem; /* retained */
    cl_device_id device;
    cl_context context;
    cl_ulong address;
    struct address_entry *next;
} address_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static address_entry *entries;
/* How many entries there are, read without the lock: a call on a device that never uses the
 * cache (every one but NVIDIA's compute capability 9.0) then costs one load. */
static atomic_size_t cached;

/* Releases the entries whose buffer only the cache still holds, or (context not NULL) every
 * entry of that context (lock held). */
static void sweep(cl_context context) {
    for (address_entry **p = &entries; *p;) {
        cl_uint refs = 0;
        if ((!context || (*p)->context != context) &&
            clGetMemObjectInfo((*p)->mem, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL) ==
                CL_SUCCESS &&
            refs > 1) {
            p = &(*p)->next;
            continue;
        }
        address_entry *gone = *p;
        *p = gone->next;
        clReleaseMemObject(gone->mem);
        free(gone);
        atomic_fetch_sub(&cached, 1);
    }
}

void clgemm__device_address_sweep(void) {
    /* A call never waits for another's sweep: the next call does what this one skips. */
    if (atomic_load(&cached) == 0 || pthread_mutex_trylock(&lock) != 0) return;
    sweep(NULL);
    pthread_mutex_unlock(&lock);
}

void clgemm__device_address_forget(cl_context context) {
    if (atomic_load(&cached) == 0) return;
    pthread_mutex_lock(&lock);
    sweep(context);
    pthread_mutex_unlock(&lock);
}

static bool find(cl_mem mem, cl_device_id device, cl_ulong *address) {
    for (const address_entry *e = entries; e; e = e->next)
        if (e->mem == mem && e->device == device) {
            *address = e->address;
            return true;
        }
    return false;
}

/* Runs the kernel and waits for the answer. The call path asks with the handle's lock held
 * (gemm.c), so nothing here may take it: the build keeps no log in the handle (a one-line
 * kernel's log tells a user nothing; a failed build is still logged), and the kernel runs on a
 * queue of its own, since the handle's queue may hold commands waiting on events that the
 * caller only sets after this call returns. */
static clgemm_status read_address(struct clgemm_handle_s *h, cl_mem mem, cl_ulong *address) {
    cl_program program;
    clgemm_status st = clgemm__program(&h->dev->build, NULL, "device_address.cl", "", &program);
    if (st != CLGEMM_SUCCESS) return st;
    cl_int err;
    cl_kernel k = clCreateKernel(program, "clgemm_device_address", &err);
    clReleaseProgram(program);
    if (err != CL_SUCCESS) return err;
    cl_command_queue q = clCreateCommandQueue(h->context, h->device, 0, &err);
    cl_mem out = err == CL_SUCCESS
                     ? clCreateBuffer(h->context, CL_MEM_WRITE_ONLY, sizeof(cl_ulong), NULL, &err)
                     : NULL;
    if (err == CL_SUCCESS) {
        const size_t one = 1;
        err = clSetKernelArg(k, 0, sizeof out, &out);
        if (err == CL_SUCCESS) err = clSetKernelArg(k, 1, sizeof mem, &mem);
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof *address, address, 0, NULL, NULL);
    }
    if (out) clReleaseMemObject(out);
    if (q) clReleaseCommandQueue(q);
    clReleaseKernel(k);
    return err;
}

clgemm_status clgemm__device_address(struct clgemm_handle_s *h, cl_mem mem, cl_ulong *address) {
    pthread_mutex_lock(&lock);
    sweep(NULL);
    bool hit = find(mem, h->device, address);
    pthread_mutex_unlock(&lock);
    if (hit) return CLGEMM_SUCCESS;
    clgemm_status st = read_address(h, mem, address);
    if (st != CLGEMM_SUCCESS) return st;
    address_entry *e = malloc(sizeof *e);
    if (!e) return CLGEMM_SUCCESS; /* answered, only not cached */
    *e = (address_entry){mem, h->device, h->context, *address, NULL};
    pthread_mutex_lock(&lock);
    cl_ulong other;
    if (find(mem, h->device, &other)) { /* another thread read it meanwhile */
        free(e);
    } else if (clRetainMemObject(mem) == CL_SUCCESS) {
        e->next = entries;
        entries = e;
        atomic_fetch_add(&cached, 1);
    } else {
        free(e);
    }
    pthread_mutex_unlock(&lock);
    return CLGEMM_SUCCESS;
}

size_t clgemm__device_address_cached(void) {
    size_t n = 0;
    pthread_mutex_lock(&lock);
    sweep(NULL);
    for (const address_entry *e = entries; e; e = e->next)
        n++;
    pthread_mutex_unlock(&lock);
    return n;
}
