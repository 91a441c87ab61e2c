/* fork.c: what a process forked after the library used OpenCL may do. An OpenCL runtime does
 * not survive fork(): the child has none of the parent's driver threads (PoCL's workers, a GPU
 * driver's), so its first wait on the parent's queue never returns, and a new context of the
 * same runtime is no better. A child forked after this process opened a device therefore gets
 * CLGEMM_ERR_FORKED from every handle call and every handle creation instead of a hang, and
 * never releases the parent's objects (that would call into the same dead runtime). */
#include "core/core.h"

#include <pthread.h>
#include <stdatomic.h>

static atomic_bool opencl_used; /* this process (or an ancestor) has called into OpenCL */
static atomic_bool forked;      /* ... and this process was forked after that */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void in_child(void) {
    if (atomic_load(&opencl_used)) atomic_store(&forked, true);
}

static void register_handler(void) {
    pthread_atfork(NULL, NULL, in_child);
}

void clgemm__fork_mark_used(void) {
    pthread_once(&atfork_once, register_handler);
    atomic_store(&opencl_used, true);
}

bool clgemm__forked(void) {
    return atomic_load(&forked);
}
