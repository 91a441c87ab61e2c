/* level3.h: what the drop-in's blocked Level-3 routines share (level3.c): ?trsm / ?trmm
 * (triangular.c), ?symm / ?hemm (symm.c), ?syr2k / ?her2k (syr2k.c). Each is a recursive
 * split whose off-diagonal updates are GEMMs (the device above CLGEMM_BLAS_MIN_FLOPS, else the
 * system ?gemm_) and whose diagonal blocks of at most CLGEMM_BLAS_BLOCK run on the system
 * BLAS's own routine (the built-in loops without one). */
#ifndef CLGEMM_BLAS_LEVEL3_H
#define CLGEMM_BLAS_LEVEL3_H

#include "blas.h"

#include <complex.h>

/* The routines, in the order of every table indexed by them. */
typedef enum l3_routine { L3_TRSM, L3_TRMM, L3_SYMM, L3_HEMM, L3_SYR2K, L3_HER2K } l3_routine;
#define L3_ROUTINE_COUNT 6

/* Counts a call for CLGEMM_BLAS_LOG's summary ("dtrsm calls: device=... system=..."). */
void clgemm__blas_l3_count(l3_routine r, blas_type t, blas_route route);
/* The Fortran name, six characters and a NUL ("DTRSM ", "ZHER2K"), and the CBLAS one. */
void clgemm__blas_l3_fortran_name(l3_routine r, blas_type t, char out[7]);
void clgemm__blas_l3_cblas_name(l3_routine r, blas_type t, char out[16]);
/* The system BLAS's own routine ("dtrsm_"), NULL when there is none. */
void *clgemm__blas_l3_system(l3_routine r, blas_type t);
/* A checked call past its quick returns, and how to run it either way. */
typedef struct l3_route {
    l3_routine routine;
    blas_type type;
    int dim;             /* the dimension the recursion cuts (A's, or C's for ?syr2k) */
    double flops;        /* what the threshold is compared with */
    const char *letters; /* its letters as its log line shows them ("LUNN" for a ?trsm) */
    int size1, size2;    /* and its sizes there (m n; n k for ?syr2k) */
    const void *call;    /* the routine's own description of the call */
    int (*blocked)(const void *call); /* the recursion: how many updates ran on the device */
    void (*host)(const void *call);   /* the whole call on the system BLAS (or the loops) */
} l3_route;

/* Runs it: blocked when the dimension exceeds CLGEMM_BLAS_BLOCK and the flops reach
 * CLGEMM_BLAS_MIN_FLOPS on a device that computes the type (not in a forked child), else whole
 * on the host; counts the route and, with CLGEMM_BLAS_LOG=2, logs it with its seconds. */
void clgemm__blas_l3_route(const l3_route *r);

/* One GEMM update: when its own flops reach the threshold, on the side the measured rule picks
 * (returns 1 when that was the device); else the system ?gemm_, else the built-in loops
 * (returns 0). Not counted as a ?gemm call. */
int clgemm__blas_l3_gemm(const blas_call *g);

/* Scalars as two doubles (re, im) and back into the layout of a type (one or two floats or
 * doubles); the elements of a column-major array as double complex, for the built-in loops. */
void clgemm__blas_l3_unpack(blas_type t, const void *x, int real_only, double out[2]);
void clgemm__blas_l3_pack(blas_type t, const double v[2], void *out);
double complex clgemm__blas_l3_get(blas_type t, const void *p, size_t i);
void clgemm__blas_l3_put(blas_type t, void *p, size_t i, double complex v);
/* A pointer to element (i, j) of a column-major array. */
const void *clgemm__blas_l3_at(blas_type t, const void *p, int ld, int i, int j);

/* Where a recursion cuts a dimension above the block size: about half, a multiple of the block. */
int clgemm__blas_l3_split(int dim);

/* A CBLAS entry point's own step, as reference CBLAS's: the layout and the letters through
 * clgemm__blas_cblas_letters (cblas_args.c) with this routine's name, an error counted; 0 or the
 * number reported through cblas_xerbla. */
int clgemm__blas_l3_cblas_letters(l3_routine r, blas_type t, int layout, int count,
                                  const cblas_letter *args, char *out);
/* An INFO of the Fortran call a CBLAS call maps to, counted and reported through xerbla_ with
 * the Fortran routine's name and number, as reference CBLAS's call of that routine does. */
void clgemm__blas_l3_cblas_fortran_error(l3_routine r, blas_type t, int info, int row_major);
/* A Fortran entry point's refusal: counted, then reported through xerbla_ under the routine's
 * Fortran name, as reference BLAS does. */
void clgemm__blas_l3_fortran_error(l3_routine r, blas_type t, int info);

/* 'U' or 'L' etc.: LSAME's case-insensitive letter. */
char clgemm__blas_l3_upper(char c);

#endif
