/* device_address.c: the device address of an OpenCL buffer, which a tensor map (tensor_map.c)
 * names. A one-line kernel (cl/device_address.cl) reads it once per buffer and device; the
 * answer stays cached for the buffer's life. A released buffer's handle value can come back as
 * another buffer, so each entry is dropped by a destructor callback on its buffer, which OpenCL
 * runs before the object is deleted (and so before the handle can be reused). */
#include "exec/exec.h"

#include <stdlib.h>

typedef struct address_entry {
    cl_mem mem;
    cl_device_id device;
    cl_ulong address;
    struct address_entry *next;
} address_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static address_entry *entries;

static void CL_CALLBACK drop(cl_mem mem, void *entry) {
    (void)mem;
    pthread_mutex_lock(&lock);
    for (address_entry **p = &entries; *p; p = &(*p)->next)
        if (*p == entry) {
            *p = (*p)->next;
            free(entry);
            break;
        }
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

/* Runs the kernel on the handle's queue and waits for the answer. */
static clgemm_status read_address(struct clgemm_handle_s *h, cl_mem mem, cl_ulong *address) {
    cl_program program;
    build_log_sink sink = clgemm__handle_log_sink(h);
    clgemm_status st = clgemm__program(&h->dev->build, &sink, "device_address.cl", "", &program);
    if (st != CLGEMM_SUCCESS) return st;
    cl_int err;
    cl_kernel k = clCreateKernel(program, "clgemm_device_address", &err);
    clReleaseProgram(program);
    if (err != CL_SUCCESS) return err;
    cl_mem out = clCreateBuffer(h->context, CL_MEM_WRITE_ONLY, sizeof(cl_ulong), NULL, &err);
    if (err == CL_SUCCESS) {
        const size_t one = 1;
        err = clSetKernelArg(k, 0, sizeof out, &out);
        if (err == CL_SUCCESS) err = clSetKernelArg(k, 1, sizeof mem, &mem);
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(h->queue, k, 1, NULL, &one, &one, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(h->queue, out, CL_TRUE, 0, sizeof *address, address, 0, NULL,
                                      NULL);
        clReleaseMemObject(out);
    }
    clReleaseKernel(k);
    return err;
}

clgemm_status clgemm__device_address(struct clgemm_handle_s *h, cl_mem mem, cl_ulong *address) {
    pthread_mutex_lock(&lock);
    bool hit = find(mem, h->device, address);
    pthread_mutex_unlock(&lock);
    if (hit) return CLGEMM_SUCCESS;
    clgemm_status st = read_address(h, mem, address);
    if (st != CLGEMM_SUCCESS) return st;
    address_entry *e = malloc(sizeof *e);
    if (!e) return CLGEMM_SUCCESS; /* answered, only not cached */
    *e = (address_entry){mem, h->device, *address, NULL};
    pthread_mutex_lock(&lock);
    cl_ulong other;
    bool raced = find(mem, h->device, &other); /* another thread read it meanwhile */
    if (!raced) {
        e->next = entries;
        entries = e;
    }
    pthread_mutex_unlock(&lock);
    /* Registered outside the lock: a driver may run the callback at once on a buffer being
     * released by another thread. Without a callback the entry could outlive its buffer, so it
     * is taken out again. */
    if (raced)
        free(e);
    else if (clSetMemObjectDestructorCallback(mem, drop, e) != CL_SUCCESS)
        drop(mem, e);
    return CLGEMM_SUCCESS;
}

size_t clgemm__device_address_cached(void) {
    size_t n = 0;
    pthread_mutex_lock(&lock);
    for (const address_entry *e = entries; e; e = e->next)
        n++;
    pthread_mutex_unlock(&lock);
    return n;
}
