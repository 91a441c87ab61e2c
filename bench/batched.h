/* batched.h: strided-batched GEMM timed beside CLBlast's XgemmStridedBatched (batched.c), shared
 * by clgemm-bench --batched and clgemm-batched-bench (issue 10). */
#ifndef CLGEMM_BENCH_BATCHED_H
#define CLGEMM_BENCH_BATCHED_H

#include "clgemm.h"

#include <stdbool.h>
#include <stdio.h>

/* BATCH products of N x N x N, no transposes, alpha 1, beta 0, packed (stride N * N), of mode
 * s (FP32), d (FP64), h (FP16), b (BF16: A, B and C of that type), i (INT8 into INT32) or e
 * (E4M3 into FP32). */
typedef struct batched_problem {
    char mode;
    size_t batch, n;
    clgemm_layout layout;
} batched_problem;

/* "BATCH,N" (mode = the given one) or "MODE:BATCH,N"; false if malformed, zero, or too large to
 * allocate. */
bool batched_parse(const char *arg, char mode, batched_problem *out);
/* The table's header, naming the device. */
void batched_header(FILE *f, clgemm_handle h);
/* Times the problem with clgemm (and CLBlast when built with it and clblast is set): per
 * library a row of the median of `runs` warm whole calls (host clock around the call and
 * clFinish) in us and TFLOPS, and the largest sampled error against a double-precision host
 * product relative to sum |a||b|. 0, or 1 when buffers could not be made. */
int batched_run(FILE *f, clgemm_handle h, const batched_problem *p, int runs, bool clblast);

#endif /* CLGEMM_BENCH_BATCHED_H */
