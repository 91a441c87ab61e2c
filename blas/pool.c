/* pool.c: the drop-in's device buffers, reused across calls (allocating and freeing device
 * memory on every BLAS call costs more than small multiplies) and bounded by
 * CLGEMM_BLAS_POOL_MB. A call takes all of its buffers at once or waits, so threads that
 * share the pool never hold part of what they need while waiting for the rest. */
#include "blas.h"

#include <pthread.h>

#define POOL_SLOTS 32

typedef struct slot {
    cl_mem mem; /* NULL: empty slot */
    size_t bytes;
    int busy;
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static slot slots[POOL_SLOTS];
static size_t total; /* bytes of every allocated buffer, busy or not */

/* Picks, for each request, the smallest idle buffer that is large enough and not yet picked;
 * -1 where there is none. Returns the bytes still to allocate. */
static size_t match(int count, const size_t *bytes, int *ids) {
    size_t missing = 0;
    for (int i = 0; i < count; i++) {
        ids[i] = -1;
        for (int s = 0; s < POOL_SLOTS; s++) {
            if (!slots[s].mem || slots[s].busy || slots[s].bytes < bytes[i]) continue;
            int taken = 0;
            for (int j = 0; j < i; j++)
                taken |= ids[j] == s;
            if (!taken && (ids[i] < 0 || slots[s].bytes < slots[ids[i]].bytes)) ids[i] = s;
        }
        if (ids[i] < 0) missing += bytes[i];
    }
    return missing;
}

static int picked(int count, const int *ids, int s) {
    for (int i = 0; i < count; i++)
        if (ids[i] == s) return 1;
    return 0;
}

int clgemm__blas_pool_acquire(cl_context ctx, size_t limit, int count, const size_t *bytes,
                              cl_mem *out, int *ids) {
    size_t want = 0;
    for (int i = 0; i < count; i++)
        want += bytes[i];
    if (want > limit || count > POOL_SLOTS) return 1;
    pthread_mutex_lock(&lock);
    for (;;) {
        size_t missing = match(count, bytes, ids);
        /* Free idle buffers this call does not reuse until the new ones fit the bound. */
        for (int s = 0; s < POOL_SLOTS && total + missing > limit; s++)
            if (slots[s].mem && !slots[s].busy && !picked(count, ids, s)) {
                clReleaseMemObject(slots[s].mem);
                total -= slots[s].bytes;
                slots[s].mem = NULL;
            }
        int empty = 0;
        for (int s = 0; s < POOL_SLOTS; s++)
            empty += !slots[s].mem;
        int need = 0;
        for (int i = 0; i < count; i++)
            need += ids[i] < 0;
        if (total + missing <= limit && empty >= need) break;
        int others_busy = 0;
        for (int s = 0; s < POOL_SLOTS; s++)
            others_busy |= slots[s].mem && slots[s].busy;
        if (!others_busy) {
            /* The idle buffers picked for reuse are what stands in the way (larger than this
             * call needs): drop every idle one and allocate afresh. */
            for (int s = 0; s < POOL_SLOTS; s++)
                if (slots[s].mem) {
                    clReleaseMemObject(slots[s].mem);
                    total -= slots[s].bytes;
                    slots[s].mem = NULL;
                }
            continue;
        }
        /* Buffers other threads hold stand in the way: wait for some to come back. */
        pthread_cond_wait(&freed, &lock);
    }
    int err = 0;
    for (int i = 0; i < count && !err; i++) {
        if (ids[i] >= 0) continue;
        int s = 0;
        while (slots[s].mem)
            s++;
        cl_int cl_err;
        /* At least one byte: a zero-size buffer is an OpenCL error. */
        cl_mem mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes[i] ? bytes[i] : 1, NULL, &cl_err);
        if (!mem) {
            err = 1;
            break;
        }
        slots[s] = (slot){.mem = mem, .bytes = bytes[i] ? bytes[i] : 1, .busy = 0};
        total += slots[s].bytes;
        ids[i] = s;
    }
    for (int i = 0; i < count && !err; i++) {
        slots[ids[i]].busy = 1;
        out[i] = slots[ids[i]].mem;
    }
    pthread_mutex_unlock(&lock);
    return err;
}

void clgemm__blas_pool_release(int count, const int *ids) {
    pthread_mutex_lock(&lock);
    for (int i = 0; i < count; i++)
        slots[ids[i]].busy = 0;
    pthread_cond_broadcast(&freed);
    pthread_mutex_unlock(&lock);
}
