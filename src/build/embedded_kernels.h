/* embedded_kernels.h: the kernel sources compiled into the library (see cl/embed_kernels.py). */
#ifndef CLGEMM_EMBEDDED_KERNELS_H
#define CLGEMM_EMBEDDED_KERNELS_H

struct embedded_kernel {
    const char *name;
    const char *text;
};

/* Terminated by an entry whose name is NULL. */
extern const struct embedded_kernel clgemm__embedded_kernels[];

#endif
