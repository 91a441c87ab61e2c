/* options.c: the command line of clgemm-bench, and the clgemm/CLBlast parameter strings
 * ("MWG=128,NWG=128,..."), whose clgemm names come from the family registry. */
#include "bench.h"
#include "devices.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage[] =
    "usage: clgemm-bench [options]\n"
    "Times clgemm and CLBlast on the same buffers (whole call + clFinish, median of runs).\n"
    "  --list                 list the OpenCL platforms and devices, then exit\n"
    "  --device P:D|NAME      device to time: platform:device indices or name substrings, or\n"
    "                         a substring of the device name (default: CLGEMM_DEVICE, else\n"
    "                         the first GPU, else the first device)\n"
    "  --preset gpu|cpu       problem list (default: cpu on a CPU device, else gpu)\n"
    "  --sizes 512,1024       square problems instead of the preset\n"
    "  --shape M,N,K          a problem instead of the preset (repeatable)\n"
    "  --trans NN,NT,TN,TT    transpose pairs for --sizes/--shape (default NN)\n"
    "  --layout row|col       storage order (default row, like cuBLAS/PyTorch figures)\n"
    "  --precision s|d|c|z|b|both   one, or a list such as c,z; both: s,d (default; d and z\n"
    "                         skipped without cl_khr_fp64); b: BF16 A and B, FP32 C (the\n"
    "                         reference: OpenBLAS's cblas_sbgemm; CLBlast has none)\n"
    "  --runs N               timed runs per measurement (default 10; small problems get more)\n"
    "  --family naive|tiled|regblock|auto   force a clgemm kernel family (default auto)\n"
    "  --params MWG=128,...   its parameters (the family's names; others kept)\n"
    "  --clblast-params KWG=32,KWI=2,...    also time CLBlast with these Xgemm parameters\n"
    "  --clblast-params-d ... the same for FP64 only ('none': not for FP64; default: as FP32)\n"
    "  --batched BATCH,N      BATCH packed N x N x N products per call (strided batched,\n"
    "                         beside CLBlast's XgemmStridedBatched; repeatable); alone it\n"
    "                         replaces the preset; a table of its own, not in CSV/JSON\n"
    "  --reference clblast|openblas   the library timed beside clgemm (default clblast);\n"
    "                         openblas: a CBLAS library loaded by path, default Debian's\n"
    "                         /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0\n"
    "                         (threads: OPENBLAS_NUM_THREADS), on host copies of A and B\n"
    "  --reference-lib PATH   that CBLAS library instead (implies --reference openblas)\n"
    "  --no-clblast           time clgemm only (checked against a host-computed sample)\n"
    "  --csv FILE, --json FILE  also write the results there\n"
    "  --quiet                no table on stdout (use with --csv/--json)\n";

void config_string(const clgemm_config *c, char *buf, size_t size) {
    clgemm_config_string(c, buf, size);
}

clgemm_config forced_config(const options *opt, const clgemm_config *base) {
    clgemm_config c = {.family = opt->family};
    if (base && base->family == opt->family) {
        c = *base;
    } else if (opt->family == CLGEMM_FAMILY_NAIVE) {
        c.mdimc = c.ndimc = 16;
    } else if (opt->family == CLGEMM_FAMILY_TILED) {
        c.ts = 16;
    } else {
        c = (clgemm_config){.family = CLGEMM_FAMILY_REGBLOCK,
                            .mwg = 64,
                            .nwg = 64,
                            .kwg = 16,
                            .mdimc = 16,
                            .ndimc = 16,
                            .kwi = 2,
                            .vwm = 2,
                            .vwn = 2};
    }
    for (size_t i = 0; i < opt->params.count; i++)
        clgemm_config_set(&c, opt->params.names[i], (int)opt->params.values[i]); /* checked */
    return c;
}

/* "NAME=VALUE,NAME=VALUE" split in place (s is kept: names point into it). */
static bool parse_pairs(char *s, name_values *out) {
    out->count = 0;
    for (char *save = NULL, *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        char *end;
        if (!eq || eq == tok || out->count == MAX_CLBLAST_PARAMS) return false;
        *eq = '\0';
        errno = 0;
        long v = strtol(eq + 1, &end, 10);
        if (*end || end == eq + 1 || v < 0 || v > 65536 || errno) {
            fprintf(stderr, "clgemm-bench: %s=%s: values are integers from 0 to 65536\n", tok,
                    eq + 1);
            return false;
        }
        out->names[out->count] = tok;
        out->values[out->count++] = (size_t)v;
    }
    return out->count > 0;
}

/* --params: the pairs are checked against the family's names once all options are read. */
static bool parse_params(const char *arg, name_values *out) {
    char *copy = strdup(arg);
    return copy && parse_pairs(copy, out);
}

/* Every --params name belongs to the forced family, and every value is in 1..1024. */
static bool params_fit_family(const options *opt) {
    clgemm_config c;
    if (clgemm_config_init(&c, opt->family) != CLGEMM_SUCCESS) {
        fprintf(stderr, "clgemm-bench: --params needs --family naive|tiled|regblock\n");
        return false;
    }
    for (size_t j = 0; j < opt->params.count; j++) {
        if (clgemm_config_set(&c, opt->params.names[j], 1) == CLGEMM_SUCCESS &&
            opt->params.values[j] >= 1 && opt->params.values[j] <= 1024)
            continue;
        fprintf(stderr, "clgemm-bench: bad parameter %s=%zu; %s has:", opt->params.names[j],
                opt->params.values[j], clgemm_family_name(opt->family));
        for (int i = 0; i < clgemm_family_param_count(opt->family); i++)
            fprintf(stderr, " %s", clgemm_family_param_name(opt->family, i));
        fprintf(stderr, " (values 1..1024)\n");
        return false;
    }
    return true;
}

static bool parse_sizes(const char *arg, shape_list *out) {
    char *copy = strdup(arg), *save = NULL;
    bool ok = copy != NULL;
    for (char *tok = ok ? strtok_r(copy, ",", &save) : NULL; ok && tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *end;
        size_t v;
        ok = parse_dim(tok, &end, &v) && *end == 0 &&
             shape_list_add(out, v, v, v, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS);
    }
    free(copy);
    return ok;
}

static bool parse_trans_list(const char *arg, options *opt) {
    char *copy = strdup(arg), *save = NULL;
    bool ok = true;
    for (char *tok = strtok_r(copy, ",", &save); ok && tok; tok = strtok_r(NULL, ",", &save)) {
        ok = opt->trans_count < MAX_TRANS &&
             parse_trans(tok, &opt->trans[opt->trans_count][0], &opt->trans[opt->trans_count][1]);
        opt->trans_count++;
    }
    free(copy);
    return ok;
}

static bool parse_family(const char *arg, clgemm_family *f) {
    for (int i = 0; i <= CLGEMM_FAMILY_COUNT; i++)
        if (strcasecmp(arg, clgemm_family_name((clgemm_family)i)) == 0) {
            *f = (clgemm_family)i;
            return true;
        }
    return false;
}

enum {
    O_SIZES = 256,
    O_SHAPE,
    O_TRANS,
    O_LAYOUT,
    O_PRECISION,
    O_RUNS,
    O_PRESET,
    O_CSV,
    O_JSON,
    O_NO_CLBLAST,
    O_QUIET,
    O_FAMILY,
    O_PARAMS,
    O_CLBLAST_PARAMS,
    O_CLBLAST_PARAMS_D,
    O_BATCHED,
    O_DEVICE,
    O_LIST,
    O_REFERENCE,
    O_REFERENCE_LIB,
    O_HELP
};

static const struct option long_options[] = {
    {"sizes", required_argument, 0, O_SIZES},
    {"shape", required_argument, 0, O_SHAPE},
    {"trans", required_argument, 0, O_TRANS},
    {"layout", required_argument, 0, O_LAYOUT},
    {"precision", required_argument, 0, O_PRECISION},
    {"runs", required_argument, 0, O_RUNS},
    {"preset", required_argument, 0, O_PRESET},
    {"csv", required_argument, 0, O_CSV},
    {"json", required_argument, 0, O_JSON},
    {"no-clblast", no_argument, 0, O_NO_CLBLAST},
    {"quiet", no_argument, 0, O_QUIET},
    {"family", required_argument, 0, O_FAMILY},
    {"params", required_argument, 0, O_PARAMS},
    {"clblast-params", required_argument, 0, O_CLBLAST_PARAMS},
    {"clblast-params-d", required_argument, 0, O_CLBLAST_PARAMS_D},
    {"batched", required_argument, 0, O_BATCHED},
    {"device", required_argument, 0, O_DEVICE},
    {"list", no_argument, 0, O_LIST},
    {"reference", required_argument, 0, O_REFERENCE},
    {"reference-lib", required_argument, 0, O_REFERENCE_LIB},
    {"help", no_argument, 0, O_HELP},
    {0, 0, 0, 0}};

/* "both" (s and d), or a comma list of s, d, c, z, b. */
static bool parse_precisions(const char *arg, bool want[BENCH_PRECISIONS]) {
    for (int p = 0; p < BENCH_PRECISIONS; p++)
        want[p] = strcmp(arg, "both") == 0 && p < 2;
    if (strcmp(arg, "both") == 0) return true;
    for (const char *s = arg;; s += 2) {
        int found = -1;
        for (int p = 0; p < BENCH_PRECISIONS && *s; p++)
            if (bench_precision((clgemm_precision)p) && precision_char((clgemm_precision)p) == *s)
                found = p;
        if (found < 0 || (s[1] != ',' && s[1] != '\0')) return false;
        want[found] = true;
        if (s[1] == '\0') return true;
    }
}

static bool handle_option(int c, const char *arg, options *opt, shape_list *given, int *d_params) {
    size_t m, n, k;
    char *end;
    switch (c) {
    case O_SIZES:
        return parse_sizes(arg, given);
    case O_SHAPE:
        return parse_shape(arg, &m, &n, &k) &&
               shape_list_add(given, m, n, k, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS);
    case O_TRANS:
        return parse_trans_list(arg, opt);
    case O_LAYOUT:
        if (strcmp(arg, "row") == 0)
            opt->layout = CLGEMM_ROW_MAJOR;
        else if (strcmp(arg, "col") == 0)
            opt->layout = CLGEMM_COL_MAJOR;
        else
            return false;
        return true;
    case O_PRECISION:
        return parse_precisions(arg, opt->want);
    case O_RUNS: {
        errno = 0;
        long v = strtol(arg, &end, 10);
        if (errno || end == arg || *end != '\0' || v < 1 || v > MAX_RUNS) return false;
        opt->runs = (int)v;
        return true;
    }
    case O_PRESET:
        opt->preset = arg;
        return strcmp(arg, "gpu") == 0 || strcmp(arg, "cpu") == 0;
    case O_CSV:
        opt->csv = arg;
        return true;
    case O_JSON:
        opt->json = arg;
        return true;
    case O_NO_CLBLAST:
        opt->no_clblast = true;
        return true;
    case O_QUIET:
        opt->quiet = true;
        return true;
    case O_FAMILY:
        return parse_family(arg, &opt->family);
    case O_PARAMS:
        return parse_params(arg, &opt->params);
    case O_CLBLAST_PARAMS:
        return opt->clblast_tuned[0] = parse_pairs(strdup(arg), &opt->clblast[0]);
    case O_CLBLAST_PARAMS_D:
        *d_params = 1;
        if (strcmp(arg, "none") == 0) return true;
        *d_params = 2;
        return opt->clblast_tuned[1] = parse_pairs(strdup(arg), &opt->clblast[1]);
    case O_DEVICE:
        tool_select_device(arg);
        return true;
    case O_LIST:
        opt->list = true;
        return true;
    case O_REFERENCE:
        opt->reference_cblas = strcmp(arg, "openblas") == 0 || strcmp(arg, "cblas") == 0;
        return opt->reference_cblas || strcmp(arg, "clblast") == 0;
    case O_REFERENCE_LIB:
        opt->reference_cblas = true;
        opt->reference_lib = arg;
        return *arg != '\0';
    case O_BATCHED: /* the mode (precision) and layout are set per run */
        return opt->batched_count < MAX_BATCHED && !strchr(arg, ':') &&
               batched_parse(arg, 's', &opt->batched[opt->batched_count++]);
    default:
        return false;
    }
}

/* What a numeric option accepts, for its error message. */
static const char *range_hint(int c) {
    switch (c) {
    case O_SIZES:
        return " (sizes are integers from 1 to 2147482623, comma-separated)";
    case O_SHAPE:
        return " (M,N,K: integers from 1 to 2147482623)";
    case O_RUNS:
        return " (an integer from 1 to 100000)";
    case O_BATCHED:
        return " (BATCH,N: positive integers, at most 32 problems)";
    default:
        return "";
    }
}

/* Rejects a problem whose matrices' byte counts overflow: nothing of that size can be
 * allocated, and the products would wrap. */
static bool sizes_fit(const shape_list *given) {
    for (size_t i = 0; i < given->count; i++) {
        const shape *s = &given->items[i];
        size_t bytes[3];
        if (!shape_bytes(s->m, s->n, s->k, sizeof(double), bytes)) {
            fprintf(stderr,
                    "clgemm-bench: %zux%zux%zu is too large: its matrices cannot be "
                    "allocated\n",
                    s->m, s->n, s->k);
            return false;
        }
    }
    return true;
}

int options_parse(int argc, char **argv, options *opt) {
    *opt = (options){.runs = 10, .want = {true, true}, .layout = CLGEMM_ROW_MAJOR};
    shape_list given = {0};
    int d_params = 0; /* 0: as FP32, 1: none, 2: own */
    int c;
    while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
        if (c == 'h' || c == O_HELP) {
            fputs(usage, stdout);
            return 1;
        }
        if (!handle_option(c, optarg, opt, &given, &d_params)) {
            if (c != '?')
                fprintf(stderr, "clgemm-bench: bad value for --%s: %s%s\n",
                        long_options[c - O_SIZES].name, optarg ? optarg : "", range_hint(c));
            fputs(usage, stderr);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "clgemm-bench: unexpected argument %s\n%s", argv[optind], usage);
        return -1;
    }
    if (opt->list) return tool_list_devices("clgemm-bench") == 0 ? 1 : -1;
    if (!sizes_fit(&given)) {
        free(given.items);
        return -1;
    }
    if (opt->params.count && !params_fit_family(opt)) return -1;
    if (d_params == 0 && opt->clblast_tuned[0]) {
        opt->clblast[1] = opt->clblast[0];
        opt->clblast_tuned[1] = true;
    }
    if (opt->no_clblast || opt->reference_cblas)
        opt->clblast_tuned[0] = opt->clblast_tuned[1] = false;
    if (opt->trans_count == 0) {
        opt->trans[0][0] = opt->trans[0][1] = CLGEMM_NO_TRANS;
        opt->trans_count = 1;
    }
    for (size_t i = 0; i < given.count; i++)
        for (size_t t = 0; t < opt->trans_count; t++)
            shape_list_add(&opt->shapes, given.items[i].m, given.items[i].n, given.items[i].k,
                           opt->trans[t][0], opt->trans[t][1]);
    free(given.items);
    return 0;
}
