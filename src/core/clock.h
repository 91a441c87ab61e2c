/* clock.h: the monotonic wall clock and the comparison that sorts timings for a median,
 * header-only so the tuner and the benches time calls the same way. */
#ifndef CLGEMM_CLOCK_H
#define CLGEMM_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock (only differences mean anything). */
static inline double clgemm_now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort's comparison for doubles, ascending. */
static inline int clgemm_compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif /* CLGEMM_CLOCK_H */
