/* clgemm-bench.c: the benchmark program, which times clgemm against CLBlast on the same buffers in
 * one process and prints one row per problem: GFLOPS, median ms, ratio, difference of the results,
 * and the clgemm configuration used. See docs/BENCH.md. */
#include "bench.h"
#include "devices.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void device_string(cl_device_id d, cl_device_info what, char *buf, size_t size) {
    if (clGetDeviceInfo(d, what, size, buf, NULL) != CL_SUCCESS) snprintf(buf, size, "?");
}

static void describe(const bench_ctx *bc, run_info *info, bool *is_cpu, bool *has_fp64) {
    device_string(bc->device, CL_DEVICE_NAME, info->device, sizeof info->device);
    device_string(bc->device, CL_DRIVER_VERSION, info->driver, sizeof info->driver);
    device_string(bc->device, CL_DEVICE_VERSION, info->device_version, sizeof info->device_version);
    cl_platform_id platform;
    snprintf(info->platform, sizeof info->platform, "?");
    if (clGetDeviceInfo(bc->device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) ==
        CL_SUCCESS)
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof info->platform, info->platform, NULL);
    time_t now = time(NULL);
    strftime(info->date, sizeof info->date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    cl_device_type type = 0;
    clGetDeviceInfo(bc->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    *is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(bc->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    *has_fp64 = fp64 != 0;
}

/* A --family configuration and whether clgemm took it (0, or the error shown on every row). */
typedef struct forced {
    int status;
    clgemm_config config;
} forced;

static void force_family(const bench_ctx *bc, const options *opt, forced f[BENCH_PRECISIONS]) {
    for (int pr = 0; pr < BENCH_PRECISIONS; pr++) {
        f[pr].status = 0;
        if (opt->family == CLGEMM_FAMILY_AUTO || !opt->want[pr]) continue;
        clgemm_config base;
        if (clgemm_get_config(bc->handle, (clgemm_precision)pr, 1024, 1024, 1024, &base, NULL))
            base.family = CLGEMM_FAMILY_AUTO;
        f[pr].config = forced_config(opt, &base);
        f[pr].status = clgemm_set_config(bc->handle, (clgemm_precision)pr, &f[pr].config);
        if (f[pr].status) {
            char s[160];
            config_string(&f[pr].config, s, sizeof s);
            fprintf(stderr, "clgemm-bench: %c: %s refused: %s\n", precision_char(pr), s,
                    clgemm_status_string(f[pr].status));
        }
    }
}

typedef struct outputs {
    FILE *table, *csv, *json;
    size_t rows;
} outputs;

/* Runs one problem: both libraries, the checks, and its row in every output. */
static bool bench_problem(const bench_ctx *bc, const options *opt, const problem *p,
                          const forced *force, const run_info *info, outputs *out) {
    result r = {.p = *p, .diff = NAN, .host_diff_clgemm = NAN, .host_diff_clblast = NAN};
    clgemm_config cfg;
    r.config_source = "?";
    int set_status = force->status;
    size_t lda, ldb, ldc;
    problem_leading(p, &lda, &ldb, &ldc);
    if (set_status) {
        config_string(&force->config, r.config, sizeof r.config);
        r.config_source = "refused";
    } else if (clgemm_get_config_operands(bc->handle, p->layout, p->trans_a, p->trans_b, p->m, p->n,
                                          p->k, p->precision, p->precision, CLGEMM_COMPUTE_DEFAULT,
                                          0, lda ? lda : 1, 0, ldb ? ldb : 1, &cfg,
                                          &r.config_source))
        /* this call's: row-major swap, operands as they lie (BLAS's least ld for empty ones) */
        snprintf(r.config, sizeof r.config, "?");
    else
        config_string(&cfg, r.config, sizeof r.config);

    buffers b = {0};
    size_t bytes[3];
    bool sized = problem_bytes(p->precision, p->m, p->n, p->k, bytes); /* checked by fits() */
    void *hc = sized ? malloc(bytes[2]) : NULL, *href = sized ? malloc(bytes[2]) : NULL;
    int err = hc && href ? buffers_create(bc, p, &b, 0x5EEDull + out->rows * 7919u)
                         : CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    if (err) {
        r.clgemm = (measurement){.ran = true, .status = err};
        if (!opt->no_clblast) r.clblast = r.clgemm;
    } else {
        r.clgemm = set_status ? (measurement){.ran = true, .status = set_status}
                              : run_clgemm(bc, p, &b, opt->runs, hc);
        bool have_c = r.clgemm.ran && r.clgemm.status == 0;
        if (have_c) r.host_diff_clgemm = host_sample_diff(p, &b, hc);
        const name_values *tuned = p->precision < 2 && opt->clblast_tuned[p->precision]
                                       ? &opt->clblast[p->precision]
                                       : NULL;
        for (int v = 0; v < 2 && !opt->no_clblast; v++) {
            if (v == 1 && !tuned) break;
            measurement *m = v ? &r.tuned : &r.clblast;
            *m = opt->reference_cblas ? run_cblas(bc, p, &b, opt->runs, href)
                                      : run_clblast(bc, p, &b, opt->runs, v ? tuned : NULL, href);
            if (m->status != 0) continue;
            if (v == 0) r.host_diff_clblast = host_sample_diff(p, &b, href);
            if (!have_c) continue;
            double d = max_rel_diff(p, hc, href, b.c_elems);
            r.diff = isnan(r.diff) || d > r.diff ? d : r.diff;
        }
        if (isnan(r.diff) && have_c) {
            r.diff = r.host_diff_clgemm;
            r.diff_is_host = true;
        }
    }
    buffers_free(&b);
    free(hc);
    free(href);

    double tol = tolerance(p);
    r.mismatch = (!isnan(r.diff) && !(r.diff <= tol)) ||
                 (!isnan(r.host_diff_clgemm) && !(r.host_diff_clgemm <= tol));
    if (r.mismatch)
        fprintf(stderr,
                "clgemm-bench: MISMATCH %c %s %zux%zux%zu: vs host sample: clgemm %.2e, "
                "%s %.2e (tolerance %.2e)\n",
                precision_char(p->precision), trans_string(p->trans_a, p->trans_b), p->m, p->n,
                p->k, r.host_diff_clgemm, info->reference, r.host_diff_clblast, tol);
    if (out->table) report_row(out->table, &r, info->tuned_any);
    if (out->csv) csv_row(out->csv, &r, info);
    if (out->json) json_row(out->json, &r, info, out->rows == 0);
    out->rows++;
    return !r.mismatch;
}

/* Whether a problem's buffers can be allocated: each below the device's largest allocation,
 * together below its global memory, and the host copies (A, B and two of C) below the host's
 * physical memory. Says why not on stderr. */
static bool fits(const bench_ctx *bc, const problem *p) {
    size_t b[3];
    const char *why = NULL;
    if (!problem_bytes(p->precision, p->m, p->n, p->k, b)) {
        why = "its byte counts overflow";
    } else {
        const double bytes[3] = {(double)b[0], (double)b[1], (double)b[2]};
        why = tool_buffers_unfit(bc->device, bytes, bytes[0] + bytes[1] + 2.0 * bytes[2]);
    }
    if (why)
        fprintf(stderr, "clgemm-bench: %c %zux%zux%zu cannot be allocated: %s\n",
                precision_char(p->precision), p->m, p->n, p->k, why);
    return !why;
}

/* --batched: each problem in each precision wanted and the layout asked for, as a table of its
 * own on stdout (--quiet too: it has no CSV or JSON) before the other problems; the work is
 * batched.c's, which clgemm-batched-bench shares. 0, or 1 when the buffers of one could not be
 * made. */
static int run_batched(const bench_ctx *bc, const options *opt) {
    int status = 0;
    if (opt->batched_count) batched_header(stdout, bc->handle);
    for (int pr = 0; pr < 2; pr++) /* s and d: batched.c has no complex modes */
        for (size_t i = 0; opt->want[pr] && i < opt->batched_count; i++) {
            batched_problem p = opt->batched[i];
            p.mode = precision_char((clgemm_precision)pr);
            p.layout = opt->layout;
            status |= batched_run(stdout, bc->handle, &p, opt->runs, !opt->no_clblast);
        }
    if (opt->batched_count) printf("\n");
    return status;
}

static FILE *open_output(const char *path) {
    FILE *f = path ? fopen(path, "w") : NULL;
    if (path && !f) perror(path);
    return f;
}

/* Flushes (and, unless it is stdout, closes) an output; false, with the reason, when any of
 * its writes failed. stdio keeps a write error to itself until asked, so without this a full
 * disk left an empty or cut CSV/JSON file (or a lost table) behind an exit status of 0. */
static bool finish_output(FILE *f, const char *name) {
    if (!f) return true;
    errno = 0;
    bool ok = fflush(f) == 0 && !ferror(f);
    int err = errno;
    if (f != stdout && fclose(f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok)
        fprintf(stderr, "clgemm-bench: writing %s failed: %s\n", name,
                err ? strerror(err) : "write error");
    return ok;
}

int main(int argc, char **argv) {
    options opt;
    int rc = options_parse(argc, argv, &opt);
    if (rc) return rc > 0 ? 0 : 2;

    bench_ctx bc;
    clgemm_status st = clgemm_create_default(&bc.handle);
    if (st) {
        tool_no_device("clgemm-bench", clgemm_status_string(st));
        return 1;
    }
    bc.queue = clgemm_queue(bc.handle);
    bc.context = clgemm_context(bc.handle);
    bc.device = clgemm_device(bc.handle);

    run_info info = {.tuned_any = opt.clblast_tuned[0] || opt.clblast_tuned[1],
                     .reference = opt.reference_cblas ? "OpenBLAS" : "CLBlast"};
    if (opt.reference_cblas && !opt.no_clblast &&
        !cblas_reference_open(opt.reference_lib, info.reference_detail,
                              sizeof info.reference_detail)) {
        clgemm_destroy(bc.handle);
        return 2;
    }
    bool is_cpu, has_fp64;
    describe(&bc, &info, &is_cpu, &has_fp64);
    const char *preset = opt.preset ? opt.preset : is_cpu ? "cpu" : "gpu";
    if ((opt.want[CLGEMM_DOUBLE] || opt.want[CLGEMM_COMPLEX_DOUBLE]) && !has_fp64) {
        fprintf(stderr, "clgemm-bench: the device has no FP64: FP64 problems skipped\n");
        opt.want[CLGEMM_DOUBLE] = opt.want[CLGEMM_COMPLEX_DOUBLE] = false;
    }
    forced force[BENCH_PRECISIONS];
    force_family(&bc, &opt, force);

    outputs out = {.table = opt.quiet ? NULL : stdout};
    if ((opt.csv && !(out.csv = open_output(opt.csv))) ||
        (opt.json && !(out.json = open_output(opt.json))))
        return 1;
    int batched_status = run_batched(&bc, &opt);
    bool batched_only = opt.batched_count && opt.shapes.count == 0;
    if (out.table && !batched_only) report_header(out.table, &info, &opt);
    if (out.csv) csv_header(out.csv, &info);
    if (out.json) json_begin(out.json, &info, &opt);

    /* Every problem is checked before any is timed: one that cannot be allocated ends the run
     * at once rather than after the others (or in a crash). */
    shape_list preset_list[BENCH_PRECISIONS] = {{0}};
    const shape_list *shapes[BENCH_PRECISIONS];
    bool all_fit = true;
    for (int pr = 0; pr < BENCH_PRECISIONS; pr++) {
        shapes[pr] = &opt.shapes;
        if (opt.shapes.count == 0 && opt.batched_count == 0) {
            preset_shapes(preset, (clgemm_precision)pr, &preset_list[pr]);
            shapes[pr] = &preset_list[pr];
        }
        for (size_t i = 0; opt.want[pr] && i < shapes[pr]->count; i++) {
            const shape *s = &shapes[pr]->items[i];
            problem p = {
                (clgemm_precision)pr, opt.layout, s->trans_a, s->trans_b, s->m, s->n, s->k};
            all_fit &= fits(&bc, &p);
        }
    }
    bool all_ok = true;
    for (int pr = 0; pr < BENCH_PRECISIONS && all_fit; pr++) {
        if (!opt.want[pr]) continue;
        for (size_t i = 0; i < shapes[pr]->count; i++) {
            const shape *s = &shapes[pr]->items[i];
            problem p = {
                (clgemm_precision)pr, opt.layout, s->trans_a, s->trans_b, s->m, s->n, s->k};
            all_ok &= bench_problem(&bc, &opt, &p, &force[pr], &info, &out);
        }
    }
    for (int pr = 0; pr < BENCH_PRECISIONS; pr++)
        free(preset_list[pr].items);

    if (out.json) json_end(out.json);
    bool written = finish_output(out.csv, opt.csv);
    written &= finish_output(out.json, opt.json);
    written &= finish_output(out.table, "the table (stdout)");
    free(opt.shapes.items);
    clgemm_destroy(bc.handle);
    if (!all_fit || batched_status) return 2;
    if (!written) return 1; /* as when an output cannot be opened */
    return all_ok ? 0 : 3;
}
