/* report.c: how clgemm-bench shows its results: the table on stdout (one row per problem,
 * flushed at once), and the same rows as CSV and JSON files. */
#include "bench.h"

#include <clblast_c.h>
#include <math.h>
#include <string.h>

#define STR2(x) #x
#define STR(x)  STR2(x)
#define CLBLAST_VERSION                                                                            \
    STR(CLBLAST_VERSION_MAJOR) "." STR(CLBLAST_VERSION_MINOR) "." STR(CLBLAST_VERSION_PATCH)

/* ---- table ---------------------------------------------------------------------------------- */

void report_header(FILE *f, const run_info *info, const options *opt) {
    if (opt->reference_cblas)
        fprintf(f, "# clgemm-bench: clgemm %s vs OpenBLAS (%s)\n", CLGEMM_VERSION,
                opt->no_clblast ? "reference not run"
                                : "same process, host copies of the same A and B");
    else
        fprintf(f, "# clgemm-bench: clgemm %s vs CLBlast %s (%s)\n", CLGEMM_VERSION,
                CLBLAST_VERSION,
                opt->no_clblast ? "CLBlast not run" : "same process, same buffers");
    if (opt->reference_cblas && !opt->no_clblast)
        fprintf(f, "# reference: %s\n", info->reference_detail);
    fprintf(f, "# date:   %s\n", info->date);
    fprintf(f, "# device: %s (%s, %s), driver %s\n", info->device, info->platform,
            info->device_version, info->driver);
    fprintf(f,
            "# timing: whole call (host clock around call + clFinish), 2 warm-up calls, median "
            "of >= %d runs; GFLOPS = 2MNK (complex: 8MNK) / median\n",
            opt->runs);
    fprintf(f,
            "# check:  max |clgemm - %s| / max |%s| over C (h: vs a 256-element "
            "host sample), MISMATCH above 2*K*eps (complex: 4*K*eps)\n",
            info->reference, info->reference);
    char column[32];
    snprintf(column, sizeof column, "%s GFLOPS ms", info->reference);
    fprintf(f, "%-2s %-3s %-2s %6s %6s %6s | %-17s | %-17s |", "p", "lay", "tr", "M", "N", "K",
            "clgemm GFLOPS ms", column);
    if (info->tuned_any) fprintf(f, " %-17s |", "CLB-tuned GF ms");
    fprintf(f, " %6s", "ratio");
    if (info->tuned_any) fprintf(f, " %6s", "r/tune");
    fprintf(f, " | %-17s | %s\n", "max rel diff", "clgemm config");
    fflush(f);
}

static void print_measurement(FILE *f, const measurement *m) {
    char buf[32];
    if (!m->ran)
        snprintf(buf, sizeof buf, "-");
    else if (m->status)
        snprintf(buf, sizeof buf, "error %d", m->status);
    else
        snprintf(buf, sizeof buf, "%8.1f %8.3f", m->gflops, m->median_ms);
    fprintf(f, " %-17s |", buf);
}

static bool ok(const measurement *m) {
    return m->ran && m->status == 0;
}

static double ratio(const measurement *a, const measurement *b) {
    return ok(a) && ok(b) ? a->gflops / b->gflops : NAN;
}

static void print_ratio(FILE *f, double r) {
    if (isnan(r))
        fprintf(f, " %6s", "-");
    else
        fprintf(f, " %6.2f", r);
}

void report_row(FILE *f, const result *r, bool tuned_column) {
    const problem *p = &r->p;
    fprintf(f, "%-2c %-3s %-2s %6zu %6zu %6zu |", precision_char(p->precision),
            layout_string(p->layout), trans_string(p->trans_a, p->trans_b), p->m, p->n, p->k);
    print_measurement(f, &r->clgemm);
    print_measurement(f, &r->clblast);
    if (tuned_column) print_measurement(f, &r->tuned);
    print_ratio(f, ratio(&r->clgemm, &r->clblast));
    if (tuned_column) print_ratio(f, ratio(&r->clgemm, &r->tuned));
    char diff[32] = "-";
    if (!isnan(r->diff))
        snprintf(diff, sizeof diff, "%s%.1e %s", r->diff_is_host ? "h " : "", r->diff,
                 r->mismatch ? "MISMATCH" : "ok");
    fprintf(f, " | %-17s | %s (%s)\n", diff, r->config, r->config_source);
    fflush(f);
}

/* ---- CSV ------------------------------------------------------------------------------------- */

/* The reference's columns are named for it: "clblast" or "openblas". */
static const char *reference_key(const run_info *info) {
    return strcmp(info->reference, "OpenBLAS") == 0 ? "openblas" : "clblast";
}

void csv_header(FILE *f, const run_info *info) {
    const char *ref = reference_key(info);
    const char *csv_measures[] = {"clgemm", ref, "clblast_tuned"};
    fprintf(f, "device,precision,layout,trans,M,N,K");
    for (int i = 0; i < 3; i++)
        fprintf(f, ",%s_gflops,%s_ms,%s_min_ms,%s_runs,%s_status", csv_measures[i], csv_measures[i],
                csv_measures[i], csv_measures[i], csv_measures[i]);
    fprintf(f,
            ",ratio,ratio_tuned,max_rel_diff,diff_against,host_diff_clgemm,host_diff_%s,"
            "check,config,config_source\n",
            ref);
    fflush(f);
}

static void csv_number(FILE *f, double v, const char *fmt) {
    fputc(',', f);
    if (!isnan(v)) fprintf(f, fmt, v);
}

static void csv_measurement(FILE *f, const measurement *m) {
    if (!m->ran) {
        fprintf(f, ",,,,,");
        return;
    }
    if (m->status) {
        fprintf(f, ",,,,,%d", m->status);
        return;
    }
    fprintf(f, ",%.2f,%.4f,%.4f,%d,0", m->gflops, m->median_ms, m->min_ms, m->runs);
}

void csv_row(FILE *f, const result *r, const run_info *info) {
    const problem *p = &r->p;
    char device[sizeof info->device];
    snprintf(device, sizeof device, "%s", info->device);
    for (char *c = device; *c; c++)
        if (*c == ',' || *c == '"') *c = ' ';
    fprintf(f, "%s,%c,%s,%s,%zu,%zu,%zu", device, precision_char(p->precision),
            layout_string(p->layout), trans_string(p->trans_a, p->trans_b), p->m, p->n, p->k);
    csv_measurement(f, &r->clgemm);
    csv_measurement(f, &r->clblast);
    csv_measurement(f, &r->tuned);
    csv_number(f, ratio(&r->clgemm, &r->clblast), "%.4f");
    csv_number(f, ratio(&r->clgemm, &r->tuned), "%.4f");
    csv_number(f, r->diff, "%.3e");
    fprintf(f, ",%s", isnan(r->diff) ? "" : r->diff_is_host ? "host" : reference_key(info));
    csv_number(f, r->host_diff_clgemm, "%.3e");
    csv_number(f, r->host_diff_clblast, "%.3e");
    fprintf(f, ",%s,%s,%s\n",
            isnan(r->diff) ? ""
            : r->mismatch  ? "MISMATCH"
                           : "ok",
            r->config, r->config_source);
    fflush(f);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s >= 0x20) fputc(*s, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double v) {
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

void json_begin(FILE *f, const run_info *info, const options *opt) {
    fprintf(f, "{\n  \"clgemm_version\": \"%s\",\n  \"clblast_version\": \"%s\",\n", CLGEMM_VERSION,
            CLBLAST_VERSION);
    fprintf(f, "  \"reference\": \"%s\",\n", reference_key(info));
    if (opt->reference_cblas) {
        fputs("  \"reference_library\": ", f);
        json_string(f, info->reference_detail);
        fputs(",\n", f);
    }
    const char *keys[] = {"date", "device", "platform", "device_version", "driver"};
    const char *vals[] = {info->date, info->device, info->platform, info->device_version,
                          info->driver};
    for (int i = 0; i < 5; i++) {
        fprintf(f, "  \"%s\": ", keys[i]);
        json_string(f, vals[i]);
        fputs(",\n", f);
    }
    fprintf(f,
            "  \"runs\": %d,\n  \"timing\": \"whole call + clFinish, median after 2 warm-up "
            "calls\",\n  \"results\": [",
            opt->runs);
}

static void json_measurement(FILE *f, const char *name, const measurement *m) {
    fprintf(f, ", \"%s\": ", name);
    if (!m->ran) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"status\": %d", m->status);
    if (m->status == 0) {
        fputs(", \"gflops\": ", f);
        json_number(f, m->gflops);
        fputs(", \"median_ms\": ", f);
        json_number(f, m->median_ms);
        fputs(", \"min_ms\": ", f);
        json_number(f, m->min_ms);
        fprintf(f, ", \"runs\": %d", m->runs);
    }
    fputc('}', f);
}

void json_row(FILE *f, const result *r, const run_info *info, bool first) {
    const problem *p = &r->p;
    fprintf(f,
            "%s\n    {\"precision\": \"%c\", \"layout\": \"%s\", \"trans\": \"%s\", \"m\": %zu, "
            "\"n\": %zu, \"k\": %zu",
            first ? "" : ",", precision_char(p->precision), layout_string(p->layout),
            trans_string(p->trans_a, p->trans_b), p->m, p->n, p->k);
    json_measurement(f, "clgemm", &r->clgemm);
    json_measurement(f, reference_key(info), &r->clblast);
    json_measurement(f, "clblast_tuned", &r->tuned);
    fputs(", \"max_rel_diff\": ", f);
    json_number(f, r->diff);
    fprintf(f, ", \"diff_against\": \"%s\", \"host_diff_clgemm\": ",
            r->diff_is_host ? "host" : reference_key(info));
    json_number(f, r->host_diff_clgemm);
    fprintf(f, ", \"host_diff_%s\": ", reference_key(info));
    json_number(f, r->host_diff_clblast);
    fprintf(f, ", \"mismatch\": %s, \"config\": ", r->mismatch ? "true" : "false");
    json_string(f, r->config);
    fputs(", \"config_source\": ", f);
    json_string(f, r->config_source);
    fputc('}', f);
    fflush(f);
}

void json_end(FILE *f) {
    fputs("\n  ]\n}\n", f);
}
