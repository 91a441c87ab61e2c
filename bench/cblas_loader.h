/* cblas_loader.h: a CBLAS library (OpenBLAS by default) opened with dlopen by path, its GEMM
 * routines found by name, for the benchmarks that time it beside clgemm (cblas_loader.c). The
 * benchmarks need no link-time BLAS, and the system's libblas.so.3 alternative stays whatever
 * it is. */
#ifndef CLGEMM_BENCH_CBLAS_LOADER_H
#define CLGEMM_BENCH_CBLAS_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CBLAS's enum values (cblas.h) are the numbers clgemm's layout and transpose enums use. */
typedef void (*cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                               const float *, int, float, float *, int);
typedef void (*cblas_dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                               const double *, int, double, double *, int);
/* cgemm and zgemm: alpha, beta, A, B and C by pointer (CBLAS's complex calls). */
typedef void (*cblas_xgemm_fn)(int, int, int, int, int, int, const void *, const void *, int,
                               const void *, int, const void *, void *, int);
/* sbgemm: A and B of BF16 (OpenBLAS's bfloat16, the 16 bits), alpha, beta and C of FP32. */
typedef void (*cblas_sbgemm_fn)(int, int, int, int, int, int, float, const uint16_t *, int,
                                const uint16_t *, int, float, float *, int);

typedef struct cblas_lib {
    cblas_sgemm_fn sgemm;        /* always there once opened */
    cblas_dgemm_fn dgemm;        /* always there once opened */
    cblas_xgemm_fn cgemm, zgemm; /* NULL where the library has none */
    cblas_sbgemm_fn sbgemm;      /* NULL where it has none (OpenBLAS built without BFLOAT16) */
    const char *path;            /* the file opened */
} cblas_lib;

/* Opens the library at path (NULL: OpenBLAS's usual places on Debian); describe gets its path
 * and thread count. false, with a message on stderr naming `tool`, when none opens or it lacks
 * cblas_sgemm or cblas_dgemm. */
bool cblas_lib_open(cblas_lib *lib, const char *path, const char *tool, char *describe,
                    size_t size);

#endif /* CLGEMM_BENCH_CBLAS_LOADER_H */
