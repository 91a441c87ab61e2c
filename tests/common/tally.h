/* tally.h: the failures of a Criterion test that runs many cases: the first few are reported
 * with their problem as they happen, then one count at the end, so that one broken kernel does
 * not print thousands of lines. */
#ifndef TC_TALLY_H
#define TC_TALLY_H

#include <criterion/criterion.h>
#include <criterion/logging.h>

typedef struct tally {
    unsigned cases, failed;
} tally;

#define MAX_REPORTED 8

/* One case: rc 0 passed, else msg (after prefix) is reported while few have failed. */
static inline void record(tally *t, int rc, const char *prefix, const char *msg) {
    t->cases++;
    if (!rc) return;
    t->failed++;
    if (t->failed <= MAX_REPORTED) cr_expect(0, "%s%s", prefix, msg);
}

/* The test fails if any case did; the count goes to the log either way. */
static inline void report(const tally *t, const char *what) {
    cr_expect_eq(t->failed, 0u, "%s: %u of %u cases failed (first %d shown above)", what, t->failed,
                 t->cases, MAX_REPORTED);
    cr_log_info("%s: %u cases, %u failed", what, t->cases, t->failed);
}

#endif /* TC_TALLY_H */
