/* tune_pipeline.h: the tuner's compile-ahead threads (tune_pipeline.c). */
#ifndef CLGEMM_TUNE_PIPELINE_H
#define CLGEMM_TUNE_PIPELINE_H

#include "plan/plan.h"

typedef struct tune_pipeline tune_pipeline;

/* The call whose kernels the threads prepare: types, transposes, shape and leading
 * dimensions of the timed call (its build options depend on them). */
typedef struct tune_call {
    clgemm_precision precision; /* of the tuning (what clgemm_set_config takes) */
    tuning_key key;
    size_t m, n, k, lda, ldb;
} tune_call;

typedef struct pipeline_stats {
    size_t built;     /* candidates prepared by the threads */
    double compile_s; /* their seconds, summed over the threads */
    double abandon_s; /* waiting at the end for builds under way */
} pipeline_stats;

/* The number of compile-ahead threads: CLGEMM_TUNE_THREADS (0 turns them off, at most 16),
 * else 1 on a CPU device and min(4, online cores) on others. */
int clgemm__pipeline_threads(const device_info *info);

/* Starts `threads` threads (none: NULL, and the tuner builds as it goes) preparing the kernels
 * of the candidates queued for `call`, each on its own handle of h's context and device. */
tune_pipeline *clgemm__pipeline_start(clgemm_handle h, const tune_call *call, int threads);

/* A thread starts a build only if it would end before `deadline` (0: none) at `estimate`
 * seconds per build; with estimate < 0 (nothing measured yet) they wait. */
void clgemm__pipeline_pace(tune_pipeline *p, double deadline, double estimate);

/* The candidates to prepare next, most wanted first: they replace what was queued and not
 * started (built and building ones are kept). false if out of memory. */
bool clgemm__pipeline_plan(tune_pipeline *p, const clgemm_config *next, size_t count);

typedef enum take_result {
    TAKE_READY,  /* prepared before it was asked for */
    TAKE_WAITED, /* prepared by a thread while the caller waited */
    TAKE_SELF    /* not prepared: the caller builds it (no thread left, or none at all) */
} take_result;

/* For the thread that times, before timing c: c's build by a thread, waited for (the seconds
 * added to *waited) and moved to the front if not started; *status is then its outcome. */
take_result clgemm__pipeline_take(tune_pipeline *p, const clgemm_config *c, clgemm_status *status,
                                  double *waited);

/* What a build not yet made may cost: the slowest measured (negative: none), unless that is
 * far below prior, the cold build time assumed before anything is measured; such a build came
 * from a cache (the kernel cache or the driver's own), and the next candidate may be cold, so
 * the prior stands until a real compile has been timed. A budget is a promise: a build, once
 * started, cannot be interrupted. */
double clgemm__build_estimate(double slowest, double prior);

/* clgemm__build_estimate of the longest preparation a thread has made so far. */
double clgemm__pipeline_build_s(tune_pipeline *p, double prior);

/* How many builds other than c's are under way. */
size_t clgemm__pipeline_building(tune_pipeline *p, const clgemm_config *c);

/* Whether c is prepared (so timing it costs no compile). */
bool clgemm__pipeline_ready(tune_pipeline *p, const clgemm_config *c);

/* Stops the threads: no new build starts, the ones under way finish (a build cannot be
 * interrupted safely), then everything is released. Adds to *stats. NULL p: nothing. */
void clgemm__pipeline_stop(tune_pipeline *p, pipeline_stats *stats);

#endif /* CLGEMM_TUNE_PIPELINE_H */
