/* clgemm-tune.c: the command-line autotuner. It picks a device, runs the library's tuner
 * (clgemm_tune) over the shapes asked for, shows progress, and merges the results into the
 * tuning database, for one element type and any transposes (one tuning run per pair of
 * transposes). The search itself lives in the library; this file parses arguments, prints,
 * and turns Ctrl-C into a clean stop that still saves what completed. Only clgemm.h is used. */
#include "clgemm.h"
#include "devices.h"

#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SHAPES   32
#define MAX_TRANS    9 /* NN ... CC */
#define QUICK_BUDGET 45

typedef struct trans_pair {
    clgemm_transpose a, b;
} trans_pair;

typedef struct cli {
    const char *device;
    clgemm_precision precision; /* of A and B */
    const char *type_name, *type_c_name;
    int wide_c;
    trans_pair trans[MAX_TRANS];
    size_t num_trans;
    clgemm_tune_shape shapes[MAX_SHAPES];
    size_t num_shapes;
    double budget;
    size_t max_evals;
    size_t batch; /* 0: one matrix per call */
    int quick, dry_run, list;
    const char *output;
} cli;

/* Ctrl-C. SIGINT is blocked in every thread from the start of main, before OpenCL starts any
 * (a thread inherits its creator's mask, and a signal goes to any thread that does not block
 * it: a handler in the main thread alone never saw the presses that landed on a driver thread),
 * and one thread takes it with sigwait. What a press does depends on the phase:
 *   idle     (arguments, the device, the database check): the program dies of SIGINT as usual;
 *   search   the first press sets cancel_flag, which the tuner checks between candidates, and
 *            the completed shapes are saved; a second one aborts without saving;
 *   saving   the press waits for the save (the database is never left half-replaced), then no
 *            further transposes are tuned.
 * The phase changes under phase_lock, so a press never aborts a save that has begun. */
typedef enum phase { PHASE_IDLE, PHASE_SEARCH, PHASE_SAVING } phase;
static pthread_mutex_t phase_lock = PTHREAD_MUTEX_INITIALIZER;
static phase current_phase = PHASE_IDLE;
static int presses; /* in this run's search and saves */
static volatile int cancel_flag;

static void say(const char *msg) {
    ssize_t ignored = write(STDERR_FILENO, msg, strlen(msg));
    (void)ignored;
}

static void on_sigint(void) {
    pthread_mutex_lock(&phase_lock);
    if (current_phase == PHASE_IDLE) {
        /* As if nothing caught it: the shell sees a death by SIGINT. */
        signal(SIGINT, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        raise(SIGINT);
        _exit(130);
    }
    presses++;
    cancel_flag = 1;
    if (current_phase == PHASE_SAVING) {
        say("\nclgemm-tune: Ctrl-C: finishing the save first, then stopping\n");
    } else if (presses == 1) {
        say("\nclgemm-tune: stopping after this candidate and saving the completed shapes "
            "(Ctrl-C again to abort without saving)\n");
    } else {
        say("\nclgemm-tune: aborted without saving\n");
        _exit(130);
    }
    pthread_mutex_unlock(&phase_lock);
}

static void *signal_thread(void *arg) {
    (void)arg;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    for (;;) {
        int sig;
        if (sigwait(&set, &sig) == 0 && sig == SIGINT) on_sigint();
    }
    return NULL;
}

/* Blocks SIGINT in this thread (so in every thread created after it) and starts the thread
 * that takes it. Call first in main. */
static void start_signal_thread(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    pthread_t thread;
    if (pthread_create(&thread, NULL, signal_thread, NULL) == 0) pthread_detach(thread);
}

static void set_phase(phase p) {
    pthread_mutex_lock(&phase_lock);
    current_phase = p;
    pthread_mutex_unlock(&phase_lock);
}

static void usage(FILE *out) {
    fputs("usage: clgemm-tune [options]\n"
          "Finds the fastest GEMM kernel parameters for an OpenCL device and stores them in\n"
          "the clgemm tuning database.\n\n"
          "  --list              list the OpenCL platforms and devices, then exit\n"
          "  --device P:D|NAME   device to tune: platform:device indices or name substrings\n"
          "                      (like CLGEMM_DEVICE), or a substring of the device name\n"
          "  --type T            element type of A and B: s (FP32, default), d (FP64), c, z\n"
          "                      (complex FP32 / FP64), h (FP16), bf16, i8 (INT8, C i32),\n"
          "                      e4m3, e5m2 (FP8, C s) (--precision: the same)\n"
          "  --type-c T          type of C: the type of A and B (default; i32 for i8, s for\n"
          "                      e4m3 and e5m2), or s for h and bf16, bf16 for e4m3 and e5m2\n"
          "  --trans LIST        transposes of A and B to tune, comma-separated: NN (default),\n"
          "                      NT, TN, TT, and for c and z also NC, CN, TC, CT, CC (C:\n"
          "                      conjugate transpose). A call whose transposes have no entry\n"
          "                      uses the NN entry of its types\n"
          "  --shape M,N,K       a problem shape to tune (repeatable; M alone means M,M,M);\n"
          "                      default 128/256/512 squares on CPUs, 256/1024/4096 on GPUs\n"
          "  --budget SECONDS    time for the whole search (default 600; 45 with --quick)\n"
          "  --max-evals N       at most N candidates per shape\n"
          "  --batch N           time strided-batched calls of N matrices of each shape and\n"
          "                      store the results for N's batch class (1, 2-15, 16-255, 256+)\n"
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

/* The largest m, n or k the library accepts (CLGEMM_ERR_TOO_LARGE above). */
#define MAX_DIM ((1ull << 31) - 1025)

static int parse_size(const char *s, char **end, size_t *out) {
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    unsigned long long v = strtoull(s, end, 10);
    if (errno || v == 0 || v > MAX_DIM) return -1;
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

static const char *const type_names[] = {
    [CLGEMM_SINGLE] = "s",         [CLGEMM_DOUBLE] = "d",  [CLGEMM_COMPLEX_SINGLE] = "c",
    [CLGEMM_COMPLEX_DOUBLE] = "z", [CLGEMM_HALF] = "h",    [CLGEMM_BFLOAT16] = "bf16",
    [CLGEMM_INT8] = "i8",          [CLGEMM_INT32] = "i32", [CLGEMM_E4M3] = "e4m3",
    [CLGEMM_E5M2] = "e5m2"};

/* The C types clgemm_tune offers for each A/B type (clgemm.h, clgemm_tune_options): the
 * default, and the one wide_c asks for (the default again where there is none). */
static const clgemm_precision tune_c[][2] = {
    [CLGEMM_SINGLE] = {CLGEMM_SINGLE, CLGEMM_SINGLE},
    [CLGEMM_DOUBLE] = {CLGEMM_DOUBLE, CLGEMM_DOUBLE},
    [CLGEMM_COMPLEX_SINGLE] = {CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE},
    [CLGEMM_COMPLEX_DOUBLE] = {CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE},
    [CLGEMM_HALF] = {CLGEMM_HALF, CLGEMM_SINGLE},
    [CLGEMM_BFLOAT16] = {CLGEMM_BFLOAT16, CLGEMM_SINGLE},
    [CLGEMM_INT8] = {CLGEMM_INT32, CLGEMM_INT32},
    [CLGEMM_INT32] = {CLGEMM_INT32, CLGEMM_INT32},
    [CLGEMM_E4M3] = {CLGEMM_SINGLE, CLGEMM_BFLOAT16},
    [CLGEMM_E5M2] = {CLGEMM_SINGLE, CLGEMM_BFLOAT16}};

static int type_from_name(const char *name, clgemm_precision *type) {
    for (int t = 0; t < CLGEMM_PRECISION_COUNT; t++)
        if (strcmp(name, type_names[t]) == 0) {
            *type = (clgemm_precision)t;
            return 0;
        }
    return -1;
}

static int trans_from_letter(char l, clgemm_transpose *t) {
    *t = l == 'N' ? CLGEMM_NO_TRANS : l == 'T' ? CLGEMM_TRANS : CLGEMM_CONJ_TRANS;
    return l == 'N' || l == 'T' || l == 'C' ? 0 : -1;
}

/* "NN,NT,...": each pair once (whether C fits the type is checked once the type is known). */
static int parse_trans(cli *c, const char *arg) {
    c->num_trans = 0;
    for (const char *p = arg;; p += 3) {
        trans_pair t;
        if (strlen(p) < 2 || (p[2] != ',' && p[2] != 0) || trans_from_letter(p[0], &t.a) != 0 ||
            trans_from_letter(p[1], &t.b) != 0)
            return fail("--trans takes pairs of N, T, C separated by commas (NN,NT,TN,TT), "
                        "not '%s'",
                        arg);
        for (size_t i = 0; i < c->num_trans; i++)
            if (c->trans[i].a == t.a && c->trans[i].b == t.b)
                return fail("--trans names a pair twice: '%s'", arg);
        c->trans[c->num_trans++] = t;
        if (p[2] == 0) return 0;
    }
}

/* After parsing: C's type, and conjugate transposes only for complex types. */
static int check_types(cli *c) {
    int complex = c->precision == CLGEMM_COMPLEX_SINGLE || c->precision == CLGEMM_COMPLEX_DOUBLE;
    clgemm_precision tc;
    if (c->type_c_name) {
        if (type_from_name(c->type_c_name, &tc) != 0)
            return fail("--type-c takes s, d, c, z, h, bf16 or i32, not '%s'", c->type_c_name);
        if (tc != tune_c[c->precision][0] && tc != tune_c[c->precision][1])
            return fail("--type-c: C is the type of A and B (i32 for i8, s for e4m3 and e5m2), "
                        "or s when they are h or bf16, bf16 when they are e4m3 or e5m2 "
                        "(not '%s')",
                        c->type_c_name);
        c->wide_c = tc != tune_c[c->precision][0];
    }
    for (size_t i = 0; i < c->num_trans && !complex; i++)
        if (c->trans[i].a == CLGEMM_CONJ_TRANS || c->trans[i].b == CLGEMM_CONJ_TRANS)
            return fail("--trans: C (conjugate transpose) is for the complex types c and z, "
                        "not '%s'",
                        type_names[c->precision]);
    if (c->num_trans == 0)
        c->trans[c->num_trans++] = (trans_pair){CLGEMM_NO_TRANS, CLGEMM_NO_TRANS};
    return 0;
}

static char trans_letter(clgemm_transpose t) {
    return t == CLGEMM_TRANS ? 'T' : t == CLGEMM_CONJ_TRANS ? 'C' : 'N';
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
        if (!*arg) return fail("--output needs a path%s", "");
        c->output = arg;
        return 0;
    case 'p':
        if (type_from_name(arg, &c->precision) != 0 || c->precision == CLGEMM_INT32)
            return fail("--type takes s, d, c, z, h, bf16, i8, e4m3 or e5m2, not '%s'", arg);
        c->type_name = arg;
        return 0;
    case 'c':
        c->type_c_name = arg;
        return 0;
    case 't':
        return parse_trans(c, arg);
    case 's':
        if (c->num_shapes == MAX_SHAPES) return fail("at most %s shapes", "32");
        if (parse_shape(arg, &c->shapes[c->num_shapes]) != 0)
            return fail("--shape takes M,N,K (integers from 1 to 2147482623), not '%s'", arg);
        c->num_shapes++;
        return 0;
    case 'b':
        errno = 0;
        c->budget = strtod(arg, &end);
        if (errno || end == arg || *end != 0 || !(c->budget > 0) || c->budget > 1e7)
            return fail("--budget takes a number of seconds from 0 to 10000000, not '%s'", arg);
        return 0;
    case 'e':
        if (parse_size(arg, &end, &c->max_evals) != 0 || *end != 0)
            return fail("--max-evals takes an integer from 1 to 2147482623, not '%s'", arg);
        return 0;
    case 'B':
        if (parse_size(arg, &end, &c->batch) != 0 || *end != 0)
            return fail("--batch takes an integer from 1 to 2147482623, not '%s'", arg);
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
                                            {"type", required_argument, NULL, 'p'},
                                            {"type-c", required_argument, NULL, 'c'},
                                            {"trans", required_argument, NULL, 't'},
                                            {"shape", required_argument, NULL, 's'},
                                            {"budget", required_argument, NULL, 'b'},
                                            {"max-evals", required_argument, NULL, 'e'},
                                            {"batch", required_argument, NULL, 'B'},
                                            {"quick", no_argument, NULL, 'q'},
                                            {"dry-run", no_argument, NULL, 'n'},
                                            {"output", required_argument, NULL, 'o'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "ld:p:s:b:e:qno:h", options, NULL)) != -1)
        if (parse_option(c, opt, optarg) != 0) return 1;
    if (optind < argc) return fail("unexpected argument '%s' (see --help)", argv[optind]);
    return check_types(c);
}

/* ---- Devices -------------------------------------------------------------------------------- */

/* --device accepts CLGEMM_DEVICE's P:D form, or a bare device-name substring. */
static int open_device(const cli *c, clgemm_handle *h) {
    if (c->device) tool_select_device(c->device);
    clgemm_status st = clgemm_create_default(h);
    if (st == CLGEMM_SUCCESS) return 0;
    tool_no_device("clgemm-tune", clgemm_status_string(st));
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
    clgemm_config_string(c, buf, size);
}

static void format_time(double s, char *buf, size_t size) {
    long t = s < 0 ? 0 : (long)(s + 0.5);
    snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

typedef struct progress_state {
    int tty;
    double last_line;
    size_t done, total; /* of the last report */
} progress_state;

/* One redrawn line on a terminal; on a pipe or file, a plain line every few seconds. */
static void on_progress(size_t done, size_t total, double best, double elapsed, void *user) {
    progress_state *p = user;
    p->done = done;
    p->total = total;
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
        printf("%s%s%s %c%c %zux%zux%zu", type_names[r[i].precision], r[i].wide_c ? "->" : "",
               r[i].wide_c ? type_names[tune_c[r[i].precision][1]] : "", trans_letter(r[i].trans_a),
               trans_letter(r[i].trans_b), r[i].shape.m, r[i].shape.n, r[i].shape.k);
        printf(r[i].batch > 1 ? " batch %zu: " : ": ", r[i].batch);
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
               r[i].complete ? "" : ", interrupted: not saved");
        saved += r[i].status == CLGEMM_SUCCESS && r[i].complete;
    }
    return saved;
}

/* ---- Main ----------------------------------------------------------------------------------- */

static int dry_run(clgemm_handle h, const cli *c, const char *path) {
    size_t all = 0, sum = 0;
    clgemm_status st = clgemm_tune_space(h, c->precision, c->quick, CLGEMM_FAMILY_AUTO, &all);
    if (st != CLGEMM_SUCCESS)
        return fail("cannot size the search space: %s", clgemm_status_string(st));
    printf("search space%s for %s:", c->quick ? " (--quick)" : "", type_names[c->precision]);
    for (int f = 1; f <= CLGEMM_FAMILY_COUNT; f++) {
        size_t n = 0;
        if (clgemm_tune_space(h, c->precision, c->quick, (clgemm_family)f, &n) != CLGEMM_SUCCESS ||
            n == 0)
            continue;
        printf("%s %zu %s", sum ? " +" : "", n, clgemm_family_name((clgemm_family)f));
        sum += n;
    }
    printf(" = %zu candidates per shape and transposes\n", all);
    printf("transposes:");
    for (size_t i = 0; i < c->num_trans; i++)
        printf(" %c%c", trans_letter(c->trans[i].a), trans_letter(c->trans[i].b));
    printf("\n");
    for (size_t i = 0; i < c->num_shapes; i++)
        printf("shape %zux%zux%zu\n", c->shapes[i].m, c->shapes[i].n, c->shapes[i].k);
    if (c->batch > 1) printf("batch %zu (strided-batched calls)\n", c->batch);
    printf("tuning database: %s\n", path);
    return 0;
}

/* Whether every shape's buffers can be made, as clgemm-bench checks its problems: the tuner
 * keeps A, B and C of a whole batch on the device (each below CL_DEVICE_MAX_MEM_ALLOC_SIZE,
 * together below its global memory) and one matrix of each on the host (below the physical
 * memory). Says why not; checked before anything is tuned or written. */
static bool shapes_fit(clgemm_handle h, const cli *c) {
    double batch = c->batch > 1 ? (double)c->batch : 1;
    double ab = (double)clgemm_type_size(c->precision);
    double cs = (double)clgemm_type_size(tune_c[c->precision][c->wide_c ? 1 : 0]);
    for (size_t i = 0; i < c->num_shapes; i++) {
        const clgemm_tune_shape *s = &c->shapes[i];
        double m = (double)s->m, n = (double)s->n, k = (double)s->k;
        double one[3] = {m * k * ab, k * n * ab, m * n * cs};
        const double all[3] = {one[0] * batch, one[1] * batch, one[2] * batch};
        const char *why = tool_buffers_unfit(clgemm_device(h), all, one[0] + one[1] + 2 * one[2]);
        if (why) {
            fprintf(stderr, "clgemm-tune: shape %zux%zux%zu%s cannot be allocated: %s\n", s->m,
                    s->n, s->k, c->batch > 1 ? " in the batch" : "", why);
            if (c->batch > 1) fprintf(stderr, "  use a smaller --batch or --shape\n");
            return false;
        }
    }
    return true;
}

/* Why the database at path cannot be used, from what the tool can see itself (the library
 * only returns CLGEMM_ERR_DB_IO; CLGEMM_LOG=1 shows its own reason). */
static void explain_db_io(const char *path) {
    char real[PATH_MAX], lock[PATH_MAX + 8], dir[PATH_MAX];
    struct stat st, lst;
    const char *target = realpath(path, real) ? real : path;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && stat(path, &st) != 0) {
        fprintf(stderr, "  it is a symbolic link to a missing file: fix or remove the link\n");
        return;
    }
    if (stat(target, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            fprintf(stderr, "  it is not a regular file (a FIFO, device or folder)\n");
            return;
        }
        if (st.st_size > (16 << 20)) {
            fprintf(stderr, "  it is %lld MiB; clgemm reads tuning databases up to 16 MiB\n",
                    (long long)(st.st_size >> 20));
            return;
        }
        if (access(target, R_OK | W_OK) != 0) {
            fprintf(stderr,
                    "  you cannot read and write it (owner uid %u): fix its permissions "
                    "or pass --output another path\n",
                    (unsigned)st.st_uid);
            return;
        }
    }
    snprintf(lock, sizeof lock, "%s.lock", target);
    if (lstat(lock, &lst) == 0) {
        if (S_ISLNK(lst.st_mode)) {
            fprintf(stderr, "  its lock file %s is a symbolic link: remove it\n", lock);
            return;
        }
        if (!S_ISREG(lst.st_mode) || access(lock, R_OK | W_OK) != 0) {
            fprintf(stderr,
                    "  its lock file %s is not a file you can write (owner uid %u): "
                    "remove it, or pass --output another path\n",
                    lock, (unsigned)lst.st_uid);
            return;
        }
    }
    snprintf(dir, sizeof dir, "%s", target);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    if (slash && access(slash == dir ? "/" : dir, W_OK | X_OK) != 0) {
        fprintf(stderr,
                "  you cannot write its folder %s: check its permissions, or pass "
                "--output another path\n",
                dir);
        return;
    }
    fprintf(stderr, "  writing next to it failed (a full disk or a file size limit?); "
                    "CLGEMM_LOG=1 shows the cause, or pass --output another path\n");
}

/* Reads the database first: a bad file is reported now, not after an hour of tuning; and a
 * save is tried (a real byte written), so a full disk is found before the tuning too. */
static int check_database(clgemm_handle h, const char *path) {
    int existed = access(path, F_OK) == 0;
    clgemm_status st = clgemm_load_tuning(h, path);
    if (st == CLGEMM_SUCCESS) st = clgemm_tune_save(h, path, NULL, 0); /* can it be written? */
    if (st == CLGEMM_ERR_DB_IO) {
        fprintf(stderr, "clgemm-tune: cannot use the tuning database %s: %s\n", path,
                clgemm_status_string(st));
        explain_db_io(path);
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

/* After a save: which results the database now holds, and which met an entry from a fuller
 * search that was kept. clgemm_get_config_ex plans one matrix, so a batch's result is counted as
 * written without this check. */
static void report_saved(clgemm_handle h, const char *path, const clgemm_tune_result *r,
                         size_t count, size_t *saved) {
    if (clgemm_load_tuning(h, path) != CLGEMM_SUCCESS) return;
    for (size_t i = 0; i < count; i++) {
        if (r[i].status != CLGEMM_SUCCESS || !r[i].complete || r[i].batch > 1) continue;
        clgemm_config c;
        const char *source = "";
        char stored[256] = "", found[256];
        clgemm_precision type_c = tune_c[r[i].precision][r[i].wide_c ? 1 : 0];
        if (clgemm_get_config_ex(h, CLGEMM_COL_MAJOR, r[i].trans_a, r[i].trans_b, r[i].shape.m,
                                 r[i].shape.n, r[i].shape.k, r[i].precision, type_c,
                                 CLGEMM_COMPUTE_DEFAULT, &c, &source) == CLGEMM_SUCCESS &&
            strcmp(source, "tuned") == 0)
            format_config(&c, stored, sizeof stored);
        format_config(&r[i].config, found, sizeof found);
        if (strcmp(stored, found) == 0) continue;
        printf("%c%c %zux%zux%zu: kept the stored entry, which came from a fuller search than "
               "this run's %zu candidates\n",
               trans_letter(r[i].trans_a), trans_letter(r[i].trans_b), r[i].shape.m, r[i].shape.n,
               r[i].shape.k, r[i].evaluated);
        (*saved)--;
    }
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
        fprintf(stderr, "clgemm-tune: the results above could NOT be saved to %s: %s\n", path,
                clgemm_status_string(st));
        if (st == CLGEMM_ERR_DB_IO) explain_db_io(path);
        return 1;
    }
    *saved = n;
    report_saved(h, path, r, count, saved);
    printf("wrote %zu entr%s to %s\n", *saved, *saved == 1 ? "y" : "ies", path);
    return 0;
}

/* What the search did: how many candidates the cost model kept, how many were compiled ahead
 * and timed, and where the time went (compiling on the threads overlaps the timing). */
static void report_stats(clgemm_handle h) {
    clgemm_tune_stats s;
    if (clgemm_tune_stats_get(h, &s) != CLGEMM_SUCCESS) return;
    printf("search: %zu candidates considered, %zu pruned by the cost model, %zu compiled ahead "
           "(%d thread%s), %zu built while timing, %zu timed, %zu finalists re-timed\n",
           s.considered, s.pruned, s.compiled_ahead, s.build_threads,
           s.build_threads == 1 ? "" : "s", s.compiled, s.timed, s.finalists);
    printf("time: %.1f s in all: compiling %.1f s (threads and first runs), waiting for builds "
           "%.1f s, timing %.1f s, finalists %.1f s\n",
           s.wall_s, s.compile_s, s.wait_s, s.timing_s, s.finalist_s);
}

/* Tunes the shapes for one pair of transposes within `budget` seconds, then saves what
 * completed (a Ctrl-C meanwhile waits, so the database is never left half-replaced). 0; 1 when
 * tuning or the save failed; 2 when no candidate ran correctly. Each pair is saved as soon as it
 * is done: clgemm_tune_save knows how much the handle's last search covered. */
static int tune_pair(clgemm_handle h, const cli *c, const trans_pair *t, double budget,
                     const char *path, size_t *saved_total) {
    clgemm_tune_options o;
    clgemm_tune_options_init(&o);
    progress_state p = {isatty(STDERR_FILENO), 0, 0, 0};
    o.precision = c->precision;
    o.wide_c = c->wide_c;
    o.trans_a = t->a;
    o.trans_b = t->b;
    o.shapes = c->shapes;
    o.num_shapes = c->num_shapes;
    o.budget_s = budget;
    o.max_evals = c->max_evals;
    o.batch = c->batch;
    o.quick = c->quick;
    o.progress = on_progress;
    o.user = &p;
    o.cancel = &cancel_flag;
    clgemm_tune_result results[MAX_SHAPES];
    clgemm_status st = clgemm_tune(h, &o, results);
    set_phase(PHASE_SAVING); /* until the save is done: a Ctrl-C now waits for it */
    if (p.tty) fputc('\n', stderr);
    /* The last report's total was an estimate: say where the search ended, so the progress
     * lines agree with the counts below. */
    if (p.done < p.total)
        fprintf(stderr, "progress: %zu of %zu candidates timed: %s\n", p.done, p.total,
                cancel_flag ? "interrupted" : "the budget could not cover the others");
    report_stats(h);
    int rc = 0;
    if (st != CLGEMM_SUCCESS && st != CLGEMM_ERR_TUNE_NONE_VALID) {
        fprintf(stderr, "clgemm-tune: tuning failed: %s\n", clgemm_status_string(st));
        if (st == CLGEMM_ERR_NO_FP64)
            fprintf(stderr, "  this device has no double precision: use --type s, c, h or bf16\n");
        rc = 1;
    } else {
        size_t saved = 0;
        rc = save(h, path, results, c->num_shapes, &saved);
        *saved_total += saved;
        if (rc == 0 && st == CLGEMM_ERR_TUNE_NONE_VALID && !cancel_flag) rc = 2;
    }
    fflush(stdout);
    set_phase(PHASE_SEARCH);
    return rc;
}

static int tune(clgemm_handle h, const cli *c, const char *path) {
    double budget = c->budget > 0 ? c->budget : c->quick ? QUICK_BUDGET : 600;
    /* --quick's budget is a promise (under a minute) for the whole run, all transposes. */
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t saved = 0;
    int rc = 0, none_valid = 0;
    set_phase(PHASE_SEARCH);
    for (size_t i = 0; i < c->num_trans && !cancel_flag && rc == 0; i++) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        double used = (double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec);
        double left = budget - used;
        /* The budget left is shared evenly by the pairs left; each starts at least one
         * candidate per shape, as the library's tuner does. */
        double share = (left > 0 ? left : 0) / (double)(c->num_trans - i);
        if (c->num_trans > 1)
            printf("transposes %c%c\n", trans_letter(c->trans[i].a), trans_letter(c->trans[i].b));
        rc = tune_pair(h, c, &c->trans[i], share > 1e-3 ? share : 1e-3, path, &saved);
        if (rc == 2) {
            none_valid = 1;
            rc = 0;
        }
    }
    set_phase(PHASE_IDLE);
    if (rc != 0) return rc;
    if (cancel_flag) {
        fprintf(stderr, "clgemm-tune: interrupted; %s\n",
                saved ? "the completed shapes were saved" : "no shape was complete to save");
        return 130;
    }
    if (none_valid) {
        fprintf(stderr, "clgemm-tune: no candidate ran correctly on this device for some "
                        "transposes; run with CLGEMM_LOG=1 to see why each was skipped\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    start_signal_thread(); /* before anything starts a thread */
    cli c = {.precision = CLGEMM_SINGLE};
    if (parse_args(argc, argv, &c) != 0) return 1;
    if (c.list) return tool_list_devices("clgemm-tune");
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
    else if (!shapes_fit(h, &c))
        rc = 1;
    else if (c.dry_run)
        rc = dry_run(h, &c, path);
    else
        rc = check_database(h, path) ? 1 : tune(h, &c, path);
    clgemm_destroy(h);
    return rc;
}
