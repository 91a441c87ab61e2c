/* timing.c: whole-call wall time for clgemm-bench: the host's monotonic clock around one call
 * and clFinish, after warm-up calls, summarised by the median. */
#include "bench.h"
#include "core/clock.h"

#include <stdlib.h>
#include <time.h>

#define WARMUP_CALLS   2
#define TARGET_SECONDS 0.2 /* small problems: at least this much timed work, ... */
#define MAX_RUN_FACTOR 10  /* ... but at most this many times --runs */

/* One call and clFinish; the seconds it took, or a negative value with *status set. */
static double one_call(gemm_call call, void *ctx, cl_command_queue queue, int *status) {
    double t0 = clgemm_now_seconds();
    int st = call(ctx);
    if (st == 0) st = clFinish(queue);
    double t1 = clgemm_now_seconds();
    *status = st;
    return st == 0 ? t1 - t0 : -1.0;
}

measurement time_calls(gemm_call call, void *ctx, cl_command_queue queue, int runs, double flops) {
    measurement m = {.ran = true};
    double last = 0;
    for (int i = 0; i < WARMUP_CALLS; i++)
        if ((last = one_call(call, ctx, queue, &m.status)) < 0) return m;
    int n = runs;
    if (last * runs < TARGET_SECONDS) {
        double want = last > 0 ? TARGET_SECONDS / last : (double)runs * MAX_RUN_FACTOR;
        n = want > (double)runs * MAX_RUN_FACTOR ? runs * MAX_RUN_FACTOR : (int)want;
        if (n < runs) n = runs;
    }
    double *t = malloc((size_t)n * sizeof *t);
    if (!t) {
        m.status = CLGEMM_ERR_OUT_OF_HOST_MEMORY;
        return m;
    }
    for (int i = 0; i < n; i++)
        if ((t[i] = one_call(call, ctx, queue, &m.status)) < 0) {
            free(t);
            return m;
        }
    qsort(t, (size_t)n, sizeof *t, clgemm_compare_doubles);
    double median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    m.runs = n;
    m.min_ms = 1e3 * t[0];
    m.median_ms = 1e3 * median;
    m.gflops = flops / median * 1e-9;
    free(t);
    return m;
}
