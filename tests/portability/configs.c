/* configs.c: portability-configs, the list of every kernel build the library could make on a
 * recorded AMD or Intel device (recorded_devices.c), for compile.py to compile with the vendors'
 * offline compilers. For each registered family the device's class supports, each element type
 * the device computes, each C type of that type (and the arithmetic type split-K partials are
 * written in), and each transpose mode: the family's built-in defaults for the device, its
 * tuner's quick set and the planner's fallbacks, kept only when the library's own check accepts
 * them on that device. The build options are made as src/exec/gemm.c makes them. Output, one build
 * per line: file TAB kernel TAB options TAB a description of the build.
 *   portability-configs --targets     the compile targets: key TAB compiler TAB board
 *   portability-configs KEY           the builds for the device recorded under KEY
 *   portability-configs --pairwise KEY  the same with transpose modes paired (see below)
 *   portability-configs --tiers       the regblock defaults per architecture tier: tier TAB the
 *                                     recorded devices of it TAB FP32 TAB FP64 TAB complex double
 *                                     TAB source (report.py's "Defaults per architecture") */
#include "families/regblock_defaults.h"
#include "families/family.h"
#include "recorded_devices.h"

#include <stdio.h>
#include <string.h>

/* A transpose mode: -DTRANSA -DTRANSB -DCONJA -DCONJB (conjugation only for complex types). */
typedef struct trans_mode {
    const char *name;
    int ta, tb, ca, cb;
} trans_mode;

static const trans_mode modes[] = {
    {"NN", 0, 0, 0, 0},
    {"TT", 1, 1, 0, 0},
    {"CC", 1, 1, 1, 1}, /* complex types only: the last mode */
};

/* What the tool could not print (an option string too long for its buffer). */
static int errors;
/* --pairwise: each configuration of each type pair in one transpose mode, rotating, so that every
 * configuration still meets every mode (across type pairs) and every type pair every mode
 * (across configurations): all pairs covered at about half the builds (CI's time budget). */
static bool pairwise;
static int type_pair_index, config_index;

static void print_build(const char *file, const char *kernel, const char *options,
                        const char *what) {
    printf("%s\t%s\t%s\t%s\n", file, kernel, options, what);
}

/* One configuration of a family, for types ab / c, in every transpose mode. */
static void print_config(const family_desc *f, const clgemm_config *c, clgemm_precision ab,
                         clgemm_precision ct, const char *origin, bool streamk) {
    char params[256], options[768], what[512];
    clgemm_config_string(c, params, sizeof params);
    int n_modes = clgemm__type(ab)->complex ? 3 : 2,
        pick = (config_index++ + type_pair_index) % n_modes;
    for (int i = 0; i < n_modes; i++) {
        const trans_mode *m = &modes[i];
        if (pairwise && i != pick) continue;
        int used =
            snprintf(options, sizeof options,
                     "-DTYPE_AB=%d -DTYPE_C=%d -DTRANSA=%d -DTRANSB=%d -DCONJA=%d -DCONJB=%d%s",
                     (int)ab, (int)ct, m->ta, m->tb, m->ca, m->cb, streamk ? " -DSTREAMK=1" : "");
        int w = clgemm__config_options(c, options + used, sizeof options - (size_t)used);
        if (w >= 0 && f->call_options) {
            used += w;
            kernel_call k = {ab, ct, CLGEMM_COMPUTE_DEFAULT, false, false, false};
            w = f->call_options(&k, options + used, sizeof options - (size_t)used);
            if ((size_t)w >= sizeof options - (size_t)used) w = -1;
        }
        if (w < 0) {
            fprintf(stderr, "portability-configs: options of %s do not fit\n", params);
            errors++;
            continue;
        }
        /* A stream-K variant is compiled and its registers reported, but it is not a default
         * (the planner takes stream-K on NVIDIA only; elsewhere CLGEMM_STREAMK forces it), so a
         * spill there does not fail the suite. */
        snprintf(what, sizeof what, "%s %s->%s %s (%s)", params, clgemm__type(ab)->name,
                 clgemm__type(ct)->name, m->name,
                 streamk ? "stream-K variant of a default" : origin);
        print_build(f->file, f->kernel, options, what);
    }
}

/* A list of configurations ending with family 0: those the device accepts for type ab. */
static void print_list(const family_desc *f, const clgemm_config *list, const device_info *info,
                       clgemm_precision ab, clgemm_precision ct, const char *origin, int *refused) {
    for (const clgemm_config *c = list; c && c->family; c++) {
        if (c->family != f->id) continue;
        if (clgemm__config_check(c, info, ab) != CLGEMM_SUCCESS) {
            (*refused)++;
            continue;
        }
        print_config(f, c, ab, ct, origin, false);
        /* The stream-K variant of a default (forced anywhere by CLGEMM_STREAMK). */
        if (f->stream_k && strcmp(origin, "default") == 0) print_config(f, c, ab, ct, origin, true);
    }
}

static void print_device(const recorded_device *d) {
    const device_info *info = &d->info;
    /* The planner's last resorts (plan.c): a small tiled configuration, then a 1 x 1 naive one. */
    const clgemm_config fallbacks[] = {
        clgemm__config_fallback(),
        {.family = CLGEMM_FAMILY_NAIVE, .mdimc = 1, .ndimc = 1},
        {.family = 0},
    };
    int refused = 0;
    for (int t = 0; t < CLGEMM_PRECISION_COUNT; t++) {
        clgemm_precision ab = (clgemm_precision)t;
        const type_desc *type = clgemm__type(ab);
        if (type->fp64 && !info->has_fp64) continue; /* the library refuses: CLGEMM_ERR_NO_FP64 */
        /* C in each type the row allows, and split-K's partials in the arithmetic type. */
        clgemm_precision cs[4] = {type->c, type->wide_c, type->more_c, type->compute};
        for (int i = 0; i < 4; i++) {
            bool seen = false;
            for (int j = 0; j < i; j++)
                seen = seen || cs[j] == cs[i];
            if (seen || !clgemm__types_ok(ab, cs[i])) continue;
            char opts[64], what[64];
            snprintf(opts, sizeof opts, "-DTYPE_AB=%d -DTYPE_C=%d", t, (int)cs[i]);
            snprintf(what, sizeof what, "%s->%s", type->name, clgemm__type(cs[i])->name);
            print_build("scale.cl", "clgemm_scale", opts, what);
            print_build("reduce.cl", "clgemm_reduce", opts, what);
            print_build("streamk.cl", "clgemm_streamk_fixup", opts, what);
            type_pair_index++;
            config_index = 0;
            for (const family_desc *const *f = clgemm__families; *f; f++) {
                if ((*f)->supported && !(*f)->supported(info, ab, CLGEMM__COMPUTE_ANY)) continue;
                if ((*f)->defaults)
                    print_list(*f, (*f)->defaults(info, ab, ONE_MATRIX), info, ab, cs[i], "default",
                               &refused);
                print_list(*f, (*f)->quick, info, ab, cs[i], "quick", &refused);
                print_list(*f, fallbacks, info, ab, cs[i], "fallback", &refused);
            }
        }
    }
    fprintf(stderr, "portability-configs: %s: %d configuration(s) refused by the device's limits\n",
            d->key, refused);
}

/* A list as "MWGxNWGxKWG MDIMCxNDIMC KWI VWMxVWN" entries separated by "; ". */
static void print_tier_list(const clgemm_config *list) {
    for (const clgemm_config *c = list; c->family; c++)
        printf("%s%dx%dx%d %dx%d %d %dx%d", c == list ? "" : "; ", c->mwg, c->nwg, c->kwg, c->mdimc,
               c->ndimc, c->kwi, c->vwm, c->vwn);
}

static void print_tiers(void) {
    for (const regblock_tier *t = clgemm__regblock_tiers; t->tier != TIER_UNKNOWN; t++) {
        printf("%s\t", clgemm__device_tier_name(t->tier));
        int n = 0;
        for (const recorded_device *d = clgemm_recorded_devices; d->key; d++)
            if (clgemm__device_tier(&d->info) == t->tier)
                printf("%s%s%s", n++ ? ", " : "", d->key, d->compiler ? "" : " (limits only)");
        printf("\t");
        print_tier_list(t->single);
        printf("\t");
        print_tier_list(t->dbl);
        printf("\t");
        print_tier_list(t->complex_double);
        printf("\t%s\n", t->source);
    }
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--targets") == 0) {
        for (const recorded_device *d = clgemm_recorded_devices; d->key; d++)
            if (d->compiler) printf("%s\t%s\t%s\n", d->key, d->compiler, d->board);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--tiers") == 0) {
        print_tiers();
        return 0;
    }
    pairwise = argc == 3 && strcmp(argv[1], "--pairwise") == 0;
    const recorded_device *d =
        argc == 2 || pairwise ? clgemm_recorded_device(argv[argc - 1]) : NULL;
    if (!d) {
        fprintf(stderr, "usage: portability-configs --targets | --tiers | [--pairwise] KEY (a "
                        "recorded device)\n");
        return 2;
    }
    print_device(d);
    return errors ? 1 : 0;
}
