/* lapack_block.c: LAPACK's ILAENV (ilaenv_), passed through to the LAPACK of the process, except
 * for the block size of a blocked routine (ISPEC 1, where LAPACK's own answer is above 1) while a
 * device is usable for the routine's type: CLGEMM_BLAS_LAPACK_NB where set (0: LAPACK's own);
 * unset, GPU_BLOCK on a GPU or accelerator (at most a thirty-second of the matrix's smaller side
 * for the routines whose panels are unblocked: clgemm__blas_lapack_panel_limit) and LAPACK's own on
 * a CPU device.
 *
 * Why: reference LAPACK's blocks are 64 columns (32 for ?geqrf), so the updates of its blocked
 * factorizations are rank-64 GEMMs, which do about 8 flops per byte a device call copies. On a
 * discrete GPU that loses to a multi-core host BLAS at every size (the copies alone take longer
 * than the host's multiply); rank-512 updates do eight times as many flops per byte. LAPACK asks
 * ILAENV for its block size at each call, and calls it through the dynamic linker, so the
 * preloaded drop-in answers first. A larger block changes the factorization's rounding (the
 * factors agree to rounding, not bit for bit) and, for what runs on the host, its speed; on a
 * CPU device the copies are cheap, so there it would only change the algorithm and stays off
 * unless asked for. Without a usable device the answer is LAPACK's own, so the results stay
 * those of the system BLAS. */
#include "blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

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

/* The default block size with a GPU: on an NVIDIA H200 (README.md), NB 512 ran dgetrf, dpotrf
 * and dgeqrf at 4096 and 8192 1.24-2.24 x the host (OpenBLAS, 16 cores), LAPACK's own 64
 * 0.84-1.06 x. */
#define GPU_BLOCK 512

/* The largest block a routine's panels bear, 0 for any (blas.h). ?geqrf, ?gelqf, ?geqlf, ?gerqf
 * and ?orgqr / ?ungqr and kin factor or form each panel of NB columns unblocked (?geqr2 and the
 * like: matrix-vector work, on the host), 2 m n NB flops in all, so their share of the
 * factorization's 4/3 n^3 grows with the block, 3/2 NB / n, and runs at the memory's speed. On
 * the H200's host (16 Xeon cores, OpenBLAS; bench/results/h200-dgeqrf-block-size.log, two
 * rounds, x the host without the drop-in): dgeqrf at 4096 with NB 64, 128, 256, 512 ran
 * 1.11, 1.12-1.15, 0.90-1.05, 0.77-0.88; at 8192 1.10-1.26, 1.15-1.30, 1.17-1.25, 1.05-1.06;
 * so a thirty-second of the smaller side (128 at 4096, 256 at 8192, 512 from 16384, where NB
 * 512 ran 2.16 x). ?getrf and ?potrf factor their panels recursively (level 3) and bear any
 * block. */
int clgemm__blas_lapack_panel_limit(const char *name, size_t len, const int *n1, const int *n2) {
    /* The routines after their type letter (S, D, C, Z). */
    static const char unblocked[][6] = {"GEQRF", "GELQF", "GEQLF", "GERQF", "ORGQR", "ORGLQ",
                                        "ORGQL", "ORGRQ", "UNGQR", "UNGLQ", "UNGQL", "UNGRQ"};
    char r[6];
    if (len < 6) return 0;
    for (int i = 0; i < 6; i++)
        r[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 'a' + 'A' : name[i]);
    if (r[0] != 'S' && r[0] != 'D' && r[0] != 'C' && r[0] != 'Z') return 0;
    size_t i = 0;
    while (i < sizeof unblocked / sizeof unblocked[0] && memcmp(r + 1, unblocked[i], 5) != 0)
        i++;
    if (i == sizeof unblocked / sizeof unblocked[0]) return 0;
    /* Sizes unknown (-1) or under 32: LAPACK's own block (a limit of 1). */
    int smaller = *n1 < *n2 ? *n1 : *n2;
    return smaller >= 32 ? smaller / 32 : 1;
}

int clgemm__blas_lapack_block(int ispec, int own, int setting, int limit,
                              lapack_device (*device)(int type), int type) {
    if (ispec != 1 || own <= 1 || setting == 0) return own;
    lapack_device d = device(type);
    if (d == LAPACK_NO_DEVICE) return own;
    if (setting > 0) return setting;
    if (d != LAPACK_GPU_DEVICE) return own;
    int block = limit > 0 && limit < GPU_BLOCK ? limit : GPU_BLOCK;
    return block > own ? block : own;
}

/* The device the drop-in's calls of a type go to; opens it on first use. */
static lapack_device device_for(int type) {
    if (type < 0 || clgemm__blas_device_forked() || !clgemm__blas_device_usable((blas_type)type))
        return LAPACK_NO_DEVICE;
    return clgemm__blas_device_is_gpu() ? LAPACK_GPU_DEVICE : LAPACK_CPU_DEVICE;
}

BLAS_EXPORT int ilaenv_(const int *ispec, const char *name, const char *opts, const int *n1,
                        const int *n2, const int *n3, const int *n4, size_t lname, size_t lopts);
int ilaenv_(const int *ispec, const char *name, const char *opts, const int *n1, const int *n2,
            const int *n3, const int *n4, size_t lname, size_t lopts) {
    pthread_once(&once, look_up);
    /* No LAPACK behind this library: 1, the answer every LAPACK routine accepts (unblocked). */
    int own = lapack_ilaenv ? lapack_ilaenv(ispec, name, opts, n1, n2, n3, n4, lname, lopts) : 1;
    return clgemm__blas_lapack_block(*ispec, own, clgemm__blas_settings()->lapack_nb,
                                     clgemm__blas_lapack_panel_limit(name, lname, n1, n2),
                                     device_for, type_of(name, lname));
}
