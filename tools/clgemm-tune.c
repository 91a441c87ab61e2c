/* clgemm-tune.c: the command-line autotuner. It picks a device, runs the library's tuner
 * (clgemm_tune) over the shapes asked for, shows progress, and merges the results into the
 * tuning database. The search itself lives in the library; this file parses arguments, prints,
 * and turns Ctrl-C into a clean stop that still saves what completed. Only clgemm.h is used. */
#include "clgemm.h"

#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SHAPES   32
#define QUICK_BUDGET 45

typedef struct cli {
    const char *device;
    clgemm_precision precision;
    clgemm_tune_shape shapes[MAX_SHAPES];
    size_t num_shapes;
    double budget;
    size_t max_evals;
    int quick, dry_run, list;
    const char *output;
} cli;

/* Set by the first Ctrl-C; the tuner checks it between candidates. */
static volatile int cancel_flag;

static void on_sigint(int sig) {
    (void)sig;
    cancel_flag = 1;
    static const char msg[] = "\nclgemm-tune: stopping after this candidate (Ctrl-C again to "
                              "abort without saving)\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
}

static void usage(FILE *out) {
    fputs("usage: clgemm-tune [options]\n"
          "Finds the fastest GEMM kernel parameters for an OpenCL device and stores them in\n"
          "the clgemm tuning database.\n\n"
          "  --list              list the OpenCL platforms and devices, then exit\n"
          "  --device P:D|NAME   device to tune: platform:device indices or name substrings\n"
          "                      (like CLGEMM_DEVICE), or a substring of the device name\n"
          "  --precision s|d     single (default) or double precision\n"
          "  --shape M,N,K       a problem shape to tune (repeatable; M alone means M,M,M);\n"
          "                      default 128/256/512 squares on CPUs, 256/1024/4096 on GPUs\n"
          "  --budget SECONDS    time for the whole search (default 600; 45 with --quick)\n"
          "  --max-evals N       at most N candidates per shape\n"
          "  --quick             a small curated candidate set on a 256 square (under a minute)\n"
          "  --dry-run           print the search-space sizes and the shapes, tune nothing\n"
          "  --output PATH       tuning database to update (default: $CLGEMM_TUNING_DB, else\n"
          "                      $XDG_CACHE_HOME/clgemm/tuning.json, else\n"
          "                      ~/.cache/clgemm/tuning.json)\n"
          "  --help              this text\n",
          out);
}

static int fail(const char *fmt, const char *arg) {
    fputs("clgemm-tune: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 1;
}

/* ---- Arguments ------------------------------------------------------------------------------ */

static int parse_size(const char *s, char **end, size_t *out) {
    if (*s < '0' || *s > '9') return -1;
    unsigned long long v = strtoull(s, end, 10);
    if (v == 0 || v > INT_MAX) return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_shape(const char *s, clgemm_tune_shape *shape) {
    size_t d[3];
    char *end;
    if (parse_size(s, &end, &d[0]) != 0) return -1;
    if (*end == 0) {
        d[1] = d[2] = d[0];
    } else if (*end != ',' || parse_size(end + 1, &end, &d[1]) != 0 || *end != ',' ||
               parse_size(end + 1, &end, &d[2]) != 0 || *end != 0) {
        return -1;
    }
    *shape = (clgemm_tune_shape){d[0], d[1], d[2]};
    return 0;
}

static int parse_option(cli *c, int opt, const char *arg) {
    char *end;
    switch (opt) {
    case 'l':
        c->list = 1;
        return 0;
    case 'd':
        c->device = arg;
        return 0;
    case 'q':
        c->quick = 1;
        return 0;
    case 'n':
        c->dry_run = 1;
        return 0;
    case 'o':
        c->output = arg;
        return 0;
    case 'p':
        if (strcmp(arg, "s") != 0 && strcmp(arg, "d") != 0)
            return fail("--precision takes s or d, not '%s'", arg);
        c->precision = arg[0] == 'd' ? CLGEMM_DOUBLE : CLGEMM_SINGLE;
        return 0;
    case 's':
        if (c->num_shapes == MAX_SHAPES) return fail("at most %s shapes", "32");
        if (parse_shape(arg, &c->shapes[c->num_shapes]) != 0)
            return fail("--shape takes M,N,K (positive integers), not '%s'", arg);
        c->num_shapes++;
        return 0;
    case 'b':
        c->budget = strtod(arg, &end);
        if (end == arg || *end != 0 || !(c->budget > 0))
            return fail("--budget takes a number of seconds > 0, not '%s'", arg);
        return 0;
    case 'e':
        if (parse_size(arg, &end, &c->max_evals) != 0 || *end != 0)
            return fail("--max-evals takes a positive integer, not '%s'", arg);
        return 0;
    case 'h':
        usage(stdout);
        exit(0);
    default:
        usage(stderr);
        return 1;
    }
}

static int parse_args(int argc, char **argv, cli *c) {
    static const struct option options[] = {{"list", no_argument, NULL, 'l'},
                                            {"device", required_argument, NULL, 'd'},
                                            {"precision", required_argument, NULL, 'p'},
                                            {"shape", required_argument, NULL, 's'},
                                            {"budget", required_argument, NULL, 'b'},
                                            {"max-evals", required_argument, NULL, 'e'},
                                            {"quick", no_argument, NULL, 'q'},
                                            {"dry-run", no_argument, NULL, 'n'},
                                            {"output", required_argument, NULL, 'o'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "ld:p:s:b:e:qno:h", options, NULL)) != -1)
        if (parse_option(c, opt, optarg) != 0) return 1;
    if (optind < argc) return fail("unexpected argument '%s' (see --help)", argv[optind]);
    return 0;
}

/* ---- Devices -------------------------------------------------------------------------------- */

static void print_device(cl_device_id d, cl_uint p, cl_uint i, const char *platform,
                         const char *platform_version) {
    char name[256] = "", vendor[256] = "", driver[256] = "";
    cl_device_type type = 0;
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VENDOR, sizeof vendor - 1, vendor, NULL);
    clGetDeviceInfo(d, CL_DRIVER_VERSION, sizeof driver - 1, driver, NULL);
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    const char *kind = type & CL_DEVICE_TYPE_GPU   ? "GPU"
                       : type & CL_DEVICE_TYPE_CPU ? "CPU"
                                                   : "other";
    printf("  %u:%u  %s (%s)\n", p, i, name, kind);
    printf("        platform: %s | platform_version: %s\n", platform, platform_version);
    printf("        vendor: %s | driver: %s\n", vendor, driver);
}

static int list_devices(void) {
    cl_platform_id platforms[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0)
        return fail("no OpenCL platform found%s",
                    ": install an OpenCL driver (ICD), e.g. pocl-opencl-icd for CPUs");
    printf("OpenCL devices (use --device P:D):\n");
    for (cl_uint p = 0; p < np && p < 16; p++) {
        char name[256] = "", version[256] = "";
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
        clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, sizeof version - 1, version, NULL);
        cl_device_id devices[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &nd) != CL_SUCCESS)
            nd = 0;
        for (cl_uint d = 0; d < nd && d < 64; d++)
            print_device(devices[d], p, d, name, version);
    }
    return 0;
}

/* --device accepts CLGEMM_DEVICE's P:D form, or a bare device-name substring. */
static int open_device(const cli *c, clgemm_handle *h) {
    if (c->device) {
        char spec[512];
        snprintf(spec, sizeof spec, "%s%s", strchr(c->device, ':') ? "" : ":", c->device);
        setenv("CLGEMM_DEVICE", spec, 1);
    }
    clgemm_status st = clgemm_create_default(h);
    if (st == CLGEMM_SUCCESS) return 0;
    fprintf(stderr, "clgemm-tune: cannot open a device: %s\n", clgemm_status_string(st));
    fprintf(stderr, "  run 'clgemm-tune --list' to see the devices, and check that an OpenCL "
                    "driver (ICD) is installed\n");
    return 1;
}

static void print_identity(clgemm_handle h) {
    char name[256] = "", platform[256] = "";
    cl_platform_id p = NULL;
    clGetDeviceInfo(clgemm_device(h), CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    clGetDeviceInfo(clgemm_device(h), CL_DEVICE_PLATFORM, sizeof p, &p, NULL);
    if (p) clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof platform - 1, platform, NULL);
    printf("device: %s (%s)\n", name, platform);
}

/* ---- Output --------------------------------------------------------------------------------- */

static void format_config(const clgemm_config *c, char *buf, size_t size) {
    size_t used = (size_t)snprintf(buf, size, "%s", clgemm_family_name(c->family));
#define APPEND_PARAM(name, field, families, meaning)                                               \
    if (used < size && (families)&CLGEMM_FAMILY_BIT(c->family - 1))                                \
        used += (size_t)snprintf(buf + used, size - used, " " #name "=%d", c->field);
    CLGEMM_PARAM_LIST(APPEND_PARAM)
#undef APPEND_PARAM
}

static void format_time(double s, char *buf, size_t size) {
    long t = s < 0 ? 0 : (long)(s + 0.5);
    snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

typedef struct progress_state {
    int tty;
    double last_line;
} progress_state;

/* One redrawn line on a terminal; on a pipe or file, a plain line every few seconds. */
static void on_progress(size_t done, size_t total, double best, double elapsed, void *user) {
    progress_state *p = user;
    char el[32], eta[32];
    format_time(elapsed, el, sizeof el);
    format_time(done ? elapsed / (double)done * (double)(total - done) : 0, eta, sizeof eta);
    if (p->tty) {
        char bar[31];
        size_t fill = total ? done * 30 / total : 0;
        for (size_t i = 0; i < 30; i++)
            bar[i] = i < fill ? '#' : '-';
        bar[30] = 0;
        fprintf(stderr, "\r\033[K[%s] %zu/%zu  elapsed %s  ETA %s  best %.1f GFLOPS", bar, done,
                total, el, eta, best);
    } else if (elapsed - p->last_line >= 5 || done == total) {
        p->last_line = elapsed;
        fprintf(stderr, "progress: %zu/%zu candidates, elapsed %s, ETA %s, best %.1f GFLOPS\n",
                done, total, el, eta, best);
    }
    fflush(stderr);
}

static size_t print_results(const clgemm_tune_result *r, size_t count) {
    size_t saved = 0;
    for (size_t i = 0; i < count; i++) {
        printf("%zux%zux%zu: ", r[i].shape.m, r[i].shape.n, r[i].shape.k);
        if (r[i].status == CLGEMM_SUCCESS) {
            char cfg[256];
            format_config(&r[i].config, cfg, sizeof cfg);
            printf("%s  %.2f GFLOPS", cfg, r[i].gflops);
            if (r[i].default_gflops > 0)
                printf(" (built-in default %.2f: x%.2f)", r[i].default_gflops,
                       r[i].gflops / r[i].default_gflops);
        } else {
            printf("no result (%s)", clgemm_status_string(r[i].status));
        }
        printf("  [%zu tried, %zu failed, %zu wrong%s]\n", r[i].evaluated, r[i].failed, r[i].wrong,
               r[i].complete ? "" : ", incomplete: not saved");
        saved += r[i].status == CLGEMM_SUCCESS && r[i].complete;
    }
    return saved;
}

/* ---- Main ----------------------------------------------------------------------------------- */

static int dry_run(clgemm_handle h, const cli *c, const char *path) {
    size_t tiled = 0, regblock = 0, all = 0;
    clgemm_status st = clgemm_tune_space(h, c->precision, c->quick, CLGEMM_FAMILY_TILED, &tiled);
    if (st == CLGEMM_SUCCESS)
        st = clgemm_tune_space(h, c->precision, c->quick, CLGEMM_FAMILY_REGBLOCK, &regblock);
    if (st == CLGEMM_SUCCESS)
        st = clgemm_tune_space(h, c->precision, c->quick, CLGEMM_FAMILY_AUTO, &all);
    if (st != CLGEMM_SUCCESS)
        return fail("cannot size the search space: %s", clgemm_status_string(st));
    printf("search space%s: %zu tiled + %zu regblock = %zu candidates per shape\n",
           c->quick ? " (--quick)" : "", tiled, regblock, all);
    for (size_t i = 0; i < c->num_shapes; i++)
        printf("shape %zux%zux%zu\n", c->shapes[i].m, c->shapes[i].n, c->shapes[i].k);
    printf("tuning database: %s\n", path);
    return 0;
}

/* Reads the database first: a bad file is reported now, not after an hour of tuning. */
static int check_database(clgemm_handle h, const char *path) {
    int existed = access(path, F_OK) == 0;
    clgemm_status st = clgemm_load_tuning(h, path);
    if (st == CLGEMM_SUCCESS) st = clgemm_tune_save(h, path, NULL, 0); /* can it be written? */
    if (st == CLGEMM_ERR_DB_IO) {
        fprintf(stderr, "clgemm-tune: cannot use the tuning database %s: %s\n", path,
                clgemm_status_string(st));
        fprintf(stderr, "  check the permissions of its folder, or pass --output another path\n");
        return 1;
    }
    if (st == CLGEMM_SUCCESS) {
        printf("tuning database: %s (%s)\n", path, existed ? "read" : "not found, will be created");
        return 0;
    }
    fprintf(stderr, "clgemm-tune: %s: %s\n", path, clgemm_status_string(st));
    fprintf(stderr, "  move the file away (or pass --output another path) and run again; "
                    "CLGEMM_LOG=1 shows where it is broken\n");
    return 1;
}

static int save(clgemm_handle h, const char *path, const clgemm_tune_result *r, size_t count,
                size_t *saved) {
    size_t n = print_results(r, count);
    if (n == 0) {
        printf("nothing to save\n");
        return 0;
    }
    clgemm_status st = clgemm_tune_save(h, path, r, count);
    if (st != CLGEMM_SUCCESS) {
        fprintf(stderr, "clgemm-tune: cannot write %s: %s\n", path, clgemm_status_string(st));
        fprintf(stderr, "  check that its folder is writable, or pass --output another path\n");
        return 1;
    }
    printf("wrote %zu entr%s to %s\n", n, n == 1 ? "y" : "ies", path);
    *saved = n;
    return 0;
}

static int tune(clgemm_handle h, const cli *c, const char *path) {
    clgemm_tune_options o;
    clgemm_tune_options_init(&o);
    progress_state p = {isatty(STDERR_FILENO), 0};
    o.precision = c->precision;
    o.shapes = c->shapes;
    o.num_shapes = c->num_shapes;
    if (c->budget > 0)
        o.budget_s = c->budget;
    else if (c->quick)
        o.budget_s = QUICK_BUDGET; /* a promise: --quick ends within a minute */
    o.max_evals = c->max_evals;
    o.quick = c->quick;
    o.progress = on_progress;
    o.user = &p;
    o.cancel = &cancel_flag;
    clgemm_tune_result results[MAX_SHAPES];
    struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_RESETHAND};
    sigaction(SIGINT, &sa, NULL);
    clgemm_status st = clgemm_tune(h, &o, results);
    signal(SIGINT, SIG_DFL);
    if (p.tty) fputc('\n', stderr);
    if (st != CLGEMM_SUCCESS && st != CLGEMM_ERR_TUNE_NONE_VALID) {
        fprintf(stderr, "clgemm-tune: tuning failed: %s\n", clgemm_status_string(st));
        if (st == CLGEMM_ERR_NO_FP64) fprintf(stderr, "  use --precision s on this device\n");
        return 1;
    }
    size_t saved = 0;
    int rc = save(h, path, results, c->num_shapes, &saved);
    if (cancel_flag) {
        fprintf(stderr, "clgemm-tune: interrupted; %s\n",
                saved ? "the completed shapes were saved" : "no shape was complete to save");
        return 130;
    }
    if (st == CLGEMM_ERR_TUNE_NONE_VALID) {
        fprintf(stderr, "clgemm-tune: no candidate ran correctly on this device; run with "
                        "CLGEMM_LOG=1 to see why each was skipped\n");
        return 1;
    }
    return rc;
}

int main(int argc, char **argv) {
    cli c = {.precision = CLGEMM_SINGLE};
    if (parse_args(argc, argv, &c) != 0) return 1;
    if (c.list) return list_devices();
    clgemm_handle h;
    if (open_device(&c, &h) != 0) return 1;
    print_identity(h);
    if (c.num_shapes == 0)
        c.num_shapes = clgemm_tune_default_shapes(h, c.quick, c.shapes, MAX_SHAPES);
    char path[PATH_MAX];
    clgemm_status st = clgemm_tuning_path(c.output, path, sizeof path);
    int rc;
    if (st != CLGEMM_SUCCESS)
        rc = fail("cannot find where the tuning database goes (%s); pass --output PATH",
                  clgemm_status_string(st));
    else if (c.dry_run)
        rc = dry_run(h, &c, path);
    else
        rc = check_database(h, path) ? 1 : tune(h, &c, path);
    clgemm_destroy(h);
    return rc;
}
