/* test_tuner.c: the autotuner on a real device (PoCL in CI). A --quick tune must finish well
 * within a minute, and its result must be what the library then uses; the handle's own
 * setting must survive a tune; cancelling stops early and saves nothing incomplete. The tuning
 * database lives in a fresh temporary folder, never in the user's ~/.cache. */
#include "clgemm.h"

#include "temp_dir.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A database path in this test process's own temporary folder (removed when it exits). */
static char *temp_db(void) {
    const char *dir = temp_dir("clgemm-tune");
    cr_assert_not_null(dir);
    char *path = malloc(strlen(dir) + 16);
    sprintf(path, "%s/tuning.json", dir);
    setenv("CLGEMM_TUNING_DB", path, 1);
    return path;
}

static clgemm_handle open_handle(void) {
    clgemm_handle h;
    cr_assert_eq(clgemm_create_default(&h), CLGEMM_SUCCESS, "no OpenCL device");
    return h;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct progress_log {
    size_t calls, last_evaluated;
    double first_elapsed; /* at the first callback: the first evaluation's time */
    volatile int *cancel_after_first;
} progress_log;

static void on_progress(size_t evaluated, size_t total, double best, double elapsed, void *user) {
    progress_log *p = user;
    cr_assert_geq(total, evaluated);
    cr_assert_geq(evaluated, p->last_evaluated);
    cr_assert_geq(elapsed, 0);
    if (p->calls == 0) p->first_elapsed = elapsed;
    p->calls++;
    p->last_evaluated = evaluated;
    if (p->cancel_after_first) *p->cancel_after_first = 1;
}

static bool same_config(const clgemm_config *a, const clgemm_config *b) {
    return memcmp(a, b, sizeof *a) == 0;
}

/* C = A B on the host arrays with the library's choice, checked against a host product. */
static void check_sgemm(clgemm_handle h, size_t n) {
    float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
    float *c = calloc(n * n, sizeof *c);
    for (size_t i = 0; i < n * n; i++) {
        a[i] = (float)((i * 7 % 13) - 6) / 8;
        b[i] = (float)((i * 5 % 11) - 5) / 8;
    }
    cr_assert_eq(clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, n, n, n,
                                   1.0f, a, n, b, n, 0.0f, c, n),
                 CLGEMM_SUCCESS);
    for (size_t j = 0; j < n; j += 17)
        for (size_t i = 0; i < n; i += 13) {
            double ref = 0;
            for (size_t l = 0; l < n; l++)
                ref += (double)a[i + l * n] * b[l + j * n];
            cr_assert(fabs(c[i + j * n] - ref) <= 1e-3, "C(%zu,%zu) = %g, not %g", i, j,
                      c[i + j * n], ref);
        }
    free(a);
    free(b);
    free(c);
}

Test(tuner, quick_tune_is_then_used, .timeout = 300) {
    char *db = temp_db();
    clgemm_handle h = open_handle();
    clgemm_tune_shape shape;
    cr_assert_eq(clgemm_tune_default_shapes(h, 1, &shape, 1), 1);
    cr_assert_eq(shape.m, 256);

    progress_log log = {0};
    clgemm_tune_options o;
    clgemm_tune_options_init(&o);
    o.quick = 1;
    o.budget_s = 45; /* as clgemm-tune --quick: under a minute even on a loaded machine */
    o.shapes = &shape;
    o.num_shapes = 1;
    o.progress = on_progress;
    o.user = &log;
    clgemm_tune_result r;
    double t0 = now_s();
    cr_assert_eq(clgemm_tune(h, &o, &r), CLGEMM_SUCCESS);
    double seconds = now_s() - t0;
    cr_assert_lt(seconds, 60, "--quick took %.1f s", seconds);
    cr_assert_eq(r.status, CLGEMM_SUCCESS);
    cr_assert(r.complete);
    cr_assert_gt(r.gflops, 0);
    cr_assert_geq(r.evaluated, 2);
    cr_assert_eq(log.calls, r.evaluated);
    cr_assert_eq(clgemm_check_config(h, CLGEMM_SINGLE, &r.config), CLGEMM_SUCCESS);

    /* The tuner gave the handle back as it found it. */
    clgemm_config c;
    const char *source;
    cr_assert_eq(clgemm_get_config(h, CLGEMM_SINGLE, 256, 256, 256, &c, &source), CLGEMM_SUCCESS);
    cr_assert_str_eq(source, "default");

    cr_assert_eq(clgemm_tune_save(h, NULL, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(access(db, F_OK), 0);
    cr_assert_eq(clgemm_load_tuning(h, NULL), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_get_config(h, CLGEMM_SINGLE, 256, 256, 256, &c, &source), CLGEMM_SUCCESS);
    cr_assert_str_eq(source, "tuned");
    cr_assert(same_config(&c, &r.config));
    check_sgemm(h, 256);
    clgemm_destroy(h);

    /* A new handle finds it by itself through CLGEMM_TUNING_DB. */
    h = open_handle();
    cr_assert_eq(clgemm_get_config(h, CLGEMM_SINGLE, 300, 200, 256, &c, &source), CLGEMM_SUCCESS);
    cr_assert_str_eq(source, "tuned");
    cr_assert(same_config(&c, &r.config));
    clgemm_destroy(h);
    free(db);
}

Test(tuner, user_override_survives, .timeout = 300) {
    char *db = temp_db();
    clgemm_handle h = open_handle();
    clgemm_config forced = {.family = CLGEMM_FAMILY_TILED, .ts = 4};
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, &forced), CLGEMM_SUCCESS);
    clgemm_tune_shape shape = {64, 64, 64};
    clgemm_tune_options o;
    clgemm_tune_options_init(&o);
    o.quick = 1;
    o.max_evals = 2;
    o.shapes = &shape;
    o.num_shapes = 1;
    clgemm_tune_result r;
    cr_assert_eq(clgemm_tune(h, &o, &r), CLGEMM_SUCCESS);
    cr_assert_leq(r.evaluated, 2);
    clgemm_config c;
    const char *source;
    cr_assert_eq(clgemm_get_config(h, CLGEMM_SINGLE, 64, 64, 64, &c, &source), CLGEMM_SUCCESS);
    cr_assert_str_eq(source, "override");
    cr_assert(same_config(&c, &forced));
    clgemm_destroy(h);
    free(db);
}

/* A full (not --quick) search limited in evaluations samples, then searches locally; odd sizes
 * check that no candidate the library accepts gets the edges wrong. */
Test(tuner, search_respects_max_evals, .timeout = 300) {
    char *db = temp_db();
    clgemm_handle h = open_handle();
    size_t space;
    cr_assert_eq(clgemm_tune_space(h, CLGEMM_SINGLE, 0, CLGEMM_FAMILY_AUTO, &space),
                 CLGEMM_SUCCESS);
    cr_assert_gt(space, 3);
    clgemm_tune_shape shape = {48, 40, 33};
    clgemm_tune_options o;
    clgemm_tune_options_init(&o);
    o.max_evals = 3;
    o.shapes = &shape;
    o.num_shapes = 1;
    o.seed = 7;
    clgemm_tune_result r;
    cr_assert_eq(clgemm_tune(h, &o, &r), CLGEMM_SUCCESS);
    cr_assert_eq(r.status, CLGEMM_SUCCESS);
    cr_assert_eq(r.evaluated, 3);
    cr_assert_eq(r.wrong, 0, "a candidate the library accepts computed a wrong result");
    clgemm_destroy(h);
    free(db);
}

/* Several shapes, in double precision: one result per shape, each saved under its own key. */
Test(tuner, several_shapes_double, .timeout = 300) {
    char *db = temp_db();
    clgemm_handle h = open_handle();
    clgemm_tune_shape shapes[] = {{32, 32, 32}, {100, 70, 50}};
    clgemm_tune_options o;
    clgemm_tune_options_init(&o);
    o.precision = CLGEMM_DOUBLE;
    o.quick = 1;
    o.max_evals = 2;
    o.shapes = shapes;
    o.num_shapes = 2;
    clgemm_tune_result r[2];
    clgemm_status st = clgemm_tune(h, &o, r);
    if (st == CLGEMM_ERR_NO_FP64) cr_skip_test("no double precision on this device");
    cr_assert_eq(st, CLGEMM_SUCCESS);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(r[i].status, CLGEMM_SUCCESS);
        cr_assert_eq(r[i].precision, CLGEMM_DOUBLE);
        cr_assert_eq(r[i].shape.m, shapes[i].m);
    }
    cr_assert_eq(clgemm_tune_save(h, NULL, r, 2), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_load_tuning(h, NULL), CLGEMM_SUCCESS);
    for (int i = 0; i < 2; i++) {
        clgemm_config c;
        const char *source;
        cr_assert_eq(
            clgemm_get_config(h, CLGEMM_DOUBLE, shapes[i].m, shapes[i].n, shapes[i].k, &c, &source),
            CLGEMM_SUCCESS);
        cr_assert_str_eq(source, "tuned");
        cr_assert(same_config(&c, &r[i].config));
    }
    clgemm_destroy(h);
    free(db);
}

Test(tuner, cancel_stops_and_saves_nothing_incomplete, .timeout = 300) {
    char *db = temp_db();
    clgemm_handle h = open_handle();
    volatile int cancel = 0;
    progress_log log = {.cancel_after_first = &cancel};
    clgemm_tune_shape shapes[] = {{64, 64, 64}, {128, 128, 128}};
    clgemm_tune_options o;
    clgemm_tune_options_init(&o);
    o.quick = 1;
    o.shapes = shapes;
    o.num_shapes = 2;
    o.progress = on_progress;
    o.user = &log;
    o.cancel = &cancel;
    clgemm_tune_result r[2];
    cr_assert_eq(clgemm_tune(h, &o, r), CLGEMM_SUCCESS);
    cr_assert_eq(r[0].evaluated, 1);
    cr_assert_not(r[0].complete);
    cr_assert_eq(r[1].evaluated, 0);
    cr_assert_eq(r[1].status, CLGEMM_ERR_TUNE_NONE_VALID);
    cr_assert_eq(clgemm_tune_save(h, NULL, r, 2), CLGEMM_SUCCESS);
    cr_assert_neq(access(db, F_OK), 0, "an incomplete result was saved");
    clgemm_destroy(h);
    free(db);
}

Test(tuner, space_sizes) {
    char *db = temp_db();
    clgemm_handle h = open_handle();
    size_t quick, tiled, regblock, all;
    cr_assert_eq(clgemm_tune_space(h, CLGEMM_SINGLE, 1, CLGEMM_FAMILY_AUTO, &quick),
                 CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_tune_space(h, CLGEMM_SINGLE, 0, CLGEMM_FAMILY_TILED, &tiled),
                 CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_tune_space(h, CLGEMM_SINGLE, 0, CLGEMM_FAMILY_REGBLOCK, &regblock),
                 CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_tune_space(h, CLGEMM_SINGLE, 0, CLGEMM_FAMILY_AUTO, &all), CLGEMM_SUCCESS);
    cr_assert(quick > 0 && quick <= 10, "%zu", quick);
    cr_assert_gt(tiled, 0);
    cr_assert_gt(regblock, quick);
    cr_assert_eq(all, tiled + regblock);
    cr_assert_eq(clgemm_tune_space(h, CLGEMM_SINGLE, 0, (clgemm_family)9, &all),
                 CLGEMM_ERR_INVALID_FAMILY);
    clgemm_destroy(h);
    free(db);
}

Test(tuner, bad_arguments) {
    char *db = temp_db();
    clgemm_handle h = open_handle();
    clgemm_tune_options o;
    clgemm_tune_options_init(&o);
    clgemm_tune_result r;
    cr_assert_eq(clgemm_tune(NULL, &o, &r), CLGEMM_ERR_NULL_ARGUMENT);
    cr_assert_eq(clgemm_tune(h, &o, &r), CLGEMM_ERR_NULL_ARGUMENT); /* no shapes */
    clgemm_tune_shape zero = {0, 64, 64};
    o.shapes = &zero;
    o.num_shapes = 1;
    cr_assert_eq(clgemm_tune(h, &o, &r), CLGEMM_ERR_INVALID_ARGUMENT);
    o.num_shapes = 0;
    cr_assert_eq(clgemm_tune(h, &o, &r), CLGEMM_ERR_INVALID_ARGUMENT);
    cr_assert_eq(clgemm_tune_save(NULL, NULL, &r, 1), CLGEMM_ERR_NULL_ARGUMENT);
    clgemm_destroy(h);
    free(db);
}

/* ---- Adversarial review (issue 14) ---------------------------------------------------------- */

/* Rewrites the database's only entry to tiled TS=4, a configuration no search here finds first:
 * it stands for the result of an earlier, longer search (its search record is kept). */
static void plant_tiled4(const char *db) {
    json_t *root = json_load_file(db, 0, NULL);
    cr_assert_not_null(root);
    json_t *entry = json_array_get(json_object_get(root, "entries"), 0);
    cr_assert_not_null(entry);
    json_object_set_new(entry, "family", json_string("tiled"));
    json_object_set_new(entry, "params", json_pack("{s:i}", "TS", 4));
    cr_assert_eq(json_dump_file(root, db, 0), 0);
    json_decref(root);
}

static void assert_stored(clgemm_handle h, const clgemm_tune_shape *s, const clgemm_config *want,
                          const char *why) {
    clgemm_config c;
    const char *source;
    cr_assert_eq(clgemm_load_tuning(h, NULL), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_get_config(h, CLGEMM_SINGLE, s->m, s->n, s->k, &c, &source),
                 CLGEMM_SUCCESS);
    cr_assert_str_eq(source, "tuned");
    cr_assert(same_config(&c, want), "%s: family %d TS %d", why, c.family, c.ts);
}

/* Item 5: a search cut short by max_evals (1 candidate) must not replace an entry from a longer
 * one (4 candidates); a run that also timed the stored configuration and beat it may. */
Test(tuner, short_search_never_replaces_a_longer_one, .timeout = 300) {
    char *db = temp_db();
    clgemm_handle h = open_handle();
    clgemm_tune_shape shape = {64, 64, 64};
    clgemm_tune_options o;
    clgemm_tune_options_init(&o);
    o.quick = 1;
    o.shapes = &shape;
    o.num_shapes = 1;
    o.max_evals = 4;
    clgemm_tune_result r;
    cr_assert_eq(clgemm_tune(h, &o, &r), CLGEMM_SUCCESS);
    cr_assert_eq(r.evaluated, 4);
    cr_assert_eq(clgemm_tune_save(h, NULL, &r, 1), CLGEMM_SUCCESS);
    plant_tiled4(db);
    clgemm_config tiled4 = {.family = CLGEMM_FAMILY_TILED, .ts = 4};
    assert_stored(h, &shape, &tiled4, "planted");

    o.max_evals = 1; /* only the baseline: the stored configuration is not timed */
    cr_assert_eq(clgemm_tune(h, &o, &r), CLGEMM_SUCCESS);
    cr_assert_eq(r.evaluated, 1);
    cr_assert(!same_config(&r.config, &tiled4));
    cr_assert_eq(clgemm_tune_save(h, NULL, &r, 1), CLGEMM_SUCCESS);
    assert_stored(h, &shape, &tiled4, "a 1-candidate search replaced a 4-candidate one");

    o.max_evals = 2; /* the baseline and the stored configuration, timed in the same run */
    cr_assert_eq(clgemm_tune(h, &o, &r), CLGEMM_SUCCESS);
    cr_assert_eq(r.evaluated, 2);
    cr_assert_eq(clgemm_tune_save(h, NULL, &r, 1), CLGEMM_SUCCESS);
    assert_stored(h, &shape, &r.config, "the faster of the two in the same run is stored");
    clgemm_destroy(h);
    free(db);
}

/* Item 8: a cold compile per shape must not overrun the budget. With nothing cached (neither
 * clgemm's binaries nor PoCL's), three shapes and a 0.2 s budget: only the first evaluation
 * starts regardless; the later shapes start nothing once the budget is spent. */
Test(tuner, budget_is_not_overrun_by_cold_builds, .timeout = 300) {
    setenv("POCL_KERNEL_CACHE", "0", 1);
    setenv("CLGEMM_CACHE_DIR", "off", 1);
    char *db = temp_db();
    clgemm_handle h = open_handle();
    progress_log log = {0};
    clgemm_tune_shape shapes[] = {{40, 40, 40}, {72, 72, 72}, {136, 136, 136}};
    clgemm_tune_options o;
    clgemm_tune_options_init(&o);
    o.shapes = shapes;
    o.num_shapes = 3;
    o.budget_s = 0.2;
    o.progress = on_progress;
    o.user = &log;
    clgemm_tune_result r[3];
    double t0 = now_s();
    cr_assert_eq(clgemm_tune(h, &o, r), CLGEMM_SUCCESS);
    double total = now_s() - t0, first = log.first_elapsed;
    cr_assert_eq(r[0].status, CLGEMM_SUCCESS);
    cr_assert_eq(r[0].evaluated, 1);
    cr_assert_leq(total, o.budget_s + first + 0.5,
                  "%.2f s for a %.1f s budget whose first evaluation took %.2f s", total,
                  o.budget_s, first);
    for (int i = 1; i < 3; i++)
        cr_assert_eq(r[i].evaluated, 0, "shape %d started after the budget was spent", i);
    clgemm_destroy(h);
    free(db);
}

/* Item 9: a result of an unknown precision is refused, not stored as single precision. */
Test(tuner, save_refuses_an_unknown_precision) {
    char *db = temp_db();
    clgemm_handle h = open_handle();
    clgemm_tune_result r = {.precision = (clgemm_precision)7,
                            .shape = {64, 64, 64},
                            .status = CLGEMM_SUCCESS,
                            .complete = 1,
                            .config = {.family = CLGEMM_FAMILY_TILED, .ts = 8},
                            .gflops = 1,
                            .evaluated = 1};
    cr_assert_eq(clgemm_tune_save(h, NULL, &r, 1), CLGEMM_ERR_INVALID_ARGUMENT);
    cr_assert_neq(access(db, F_OK), 0, "nothing written");
    clgemm_destroy(h);
    free(db);
}
