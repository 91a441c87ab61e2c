/* ptx_patch.h: turning the PTX of a kernel with "// @" markers into sm_90a PTX (ptx_patch.c), the
 * program layer's patched-PTX step; what a family asks of it is its ptx_patch_need (family.h). */
#ifndef CLGEMM_PTX_PATCH_H
#define CLGEMM_PTX_PATCH_H

#include "families/family.h" /* CLGEMM_PTX_CAP_FROM_THREADS */

#include <stdbool.h>

typedef enum ptx_patch_result {
    PTX_PATCH_OK,
    PTX_PATCH_NO_TARGET,      /* no single `.target sm_90` directive */
    PTX_PATCH_ALREADY_SM90A,  /* patched twice, or compiled for sm_90a already */
    PTX_PATCH_NO_MARKERS,     /* a kernel that asks for the patch has no markers left */
    PTX_PATCH_UNKNOWN_MARKER, /* a marker in front of an instruction not on the list */
    PTX_PATCH_ENTRY_SYNTAX,   /* a register cap asked for, and an .entry it cannot be put on */
    PTX_PATCH_NO_MEMORY,
} ptx_patch_result;

/* The patched text of `ptx` (NUL-terminated) in *out (malloc'd; NULL unless OK) and how many
 * markers it removed in *markers. maxnreg > 0 adds `.maxnreg maxnreg` to every entry;
 * CLGEMM_PTX_CAP_FROM_THREADS, where the text moves registers (a setmaxnreg marker), adds to each
 * entry the cap its `.reqntid` allows (clgemm__ptx_register_cap; an entry stating none is
 * ENTRY_SYNTAX), and nothing elsewhere. */
ptx_patch_result clgemm__ptx_patch(const char *ptx, int maxnreg, char **out, int *markers);
const char *clgemm__ptx_patch_string(ptx_patch_result r);
/* The registers a thread may have when a work-group of `threads` runs on an SM of compute
 * capability 9.0: its warps are dealt over four schedulers, each with a file of 16,384, so the
 * scheduler with the most bounds them (in multiples of 8, at most 255; 288 threads: 168). 0 for
 * no threads. */
int clgemm__ptx_register_cap(long threads);
/* Whether the text after a marker starts with an instruction the patch accepts. */
bool clgemm__ptx_marker_known(const char *instruction);

/* The marker each sm_90a instruction is written behind in OpenCL C. */
#define CLGEMM_PTX_MARKER "// @"

#endif /* CLGEMM_PTX_PATCH_H */
