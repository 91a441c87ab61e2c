/* lapack_block.c: LAPACK's ILAENV (ilaenv_), passed through to the LAPACK of the process, except
 * that with CLGEMM_BLAS_LAPACK_NB set and a device usable for the routine's type, the block size
 * of a blocked routine (ISPEC 1, where LAPACK's own answer is above 1) is that value.
 *
 * Why: reference LAPACK's blocks are 64 columns (32 for ?geqrf), so the updates of its blocked
 * factorizations are rank-64 GEMMs, which do about 8 flops per byte a device call copies. On a
 * discrete GPU that loses to a multi-core host BLAS at every size (the copies alone take longer
 * than the host's multiply); rank-512 updates do eight times as many flops per byte. LAPACK asks
 * ILAENV for its block size at each call, and calls it through the dynamic linker, so the
 * preloaded drop-in answers first. Off by default: a larger block changes the factorization's
 * rounding and, on the host, its speed. Without a usable device the answer is LAPACK's own, so
 * the results stay those of the system BLAS. */
#include "blas.h"

#include <dlfcn.h>
#include <pthread.h>

typedef int (*ilaenv_fn)(const int *ispec, const char *name, const char *opts, const int *n1,
                         const int *n2, const int *n3, const int *n4, size_t lname, size_t lopts);

static ilaenv_fn lapack_ilaenv;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The next definition after this library: the LAPACK the program loaded. */
static void look_up(void) {
    lapack_ilaenv = (ilaenv_fn)dlsym(RTLD_NEXT, "ilaenv_");
}

/* The type of a LAPACK routine's name ("DGETRF"), -1 for another first letter. */
static int type_of(const char *name, size_t len) {
    if (len == 0) return -1;
    switch (name[0]) {
    case 'S':
    case 's':
        return BLAS_S;
    case 'D':
    case 'd':
        return BLAS_D;
    case 'C':
    case 'c':
        return BLAS_C;
    case 'Z':
    case 'z':
        return BLAS_Z;
    default:
        return -1;
    }
}

BLAS_EXPORT int ilaenv_(const int *ispec, const char *name, const char *opts, const int *n1,
                        const int *n2, const int *n3, const int *n4, size_t lname, size_t lopts);
int ilaenv_(const int *ispec, const char *name, const char *opts, const int *n1, const int *n2,
            const int *n3, const int *n4, size_t lname, size_t lopts) {
    pthread_once(&once, look_up);
    /* No LAPACK behind this library: 1, the answer every LAPACK routine accepts (unblocked). */
    int own = lapack_ilaenv ? lapack_ilaenv(ispec, name, opts, n1, n2, n3, n4, lname, lopts) : 1;
    int block = clgemm__blas_settings()->lapack_nb;
    if (!block || *ispec != 1 || own <= 1) return own;
    int t = type_of(name, lname);
    if (t < 0 || clgemm__blas_device_forked() || !clgemm__blas_device_usable((blas_type)t))
        return own;
    return block;
}
