/* tuning_db.c: the JSON tuning database, and the only code that touches JSON. It resolves the
 * database path, loads the entries of one device (rejecting any the library would refuse),
 * finds the entry nearest to a shape (of its class and close, else none), and merges new tuning
 * results into the file under a lock with an atomic replace, so that concurrent tuners lose nothing
 * and a killed one leaves the old file whole.
 *
 * Schema 3: {"schema": 3, "entries": [{"device": {"platform", "platform_version", "vendor",
 * "name", "driver"}, "precision": "h" (the type of A and B: s d c z h bf16 i8 e4m3 e5m2),
 * "type_c": "s" (the type of C), "trans": "NT" (of the column-major problem, see tuning_key in
 * plan/plan.h: N or T for each of A and B, or C for a conjugate transpose of a complex type),
 * "shape": [m,n,k], "batch": 64 (the matrices of each timed call: strided-batched calls when > 1),
 * "family": "tiled", "params": {"TS": 16}, "gflops": 12.5, "problem": [m,n,k], "search": {...},
 * "date": "YYYY-MM-DD", "clgemm_version": ...}]}. An entry without "type_c", "trans" or "batch"
 * has C of its A/B type's default C type (the A/B type itself, i32 for i8, s for e4m3 and e5m2),
 * NN, or one matrix. An older clgemm skips entries of types it does not know (as bad entries),
 * so the 8-bit types needed no new schema. The key is the device, the types, the transposes,
 * the shape and the batch's class (clgemm__batch_class): a batch of 100 replaces the entry of a
 * batch of 64 of the same shape.
 *
 * Schema 1 (clgemm 0.1) had no "type_c" or "trans": its files are read with every entry an NN
 * entry of its precision (any "type_c" or "trans" in them ignored). Schemas 1 and 2 had no
 * "batch": their entries are single-matrix entries (any "batch" in them ignored). A save into
 * an older file writes it back as schema 3 with its entries kept, their meaning written out
 * ("type_c" = "precision" and "trans" = "NN" for schema 1, "batch" = 1). Schema 3 is new
 * because an older clgemm would take a batch entry for a single-matrix one (and its merge
 * would replace it by one): a file of a newer schema is neither read nor written.
 */
#include "plan/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SCHEMA_VERSION 3 /* written */
#define SCHEMA_OLDEST  1 /* the oldest still read */

/* Long along M, long along N, or neither (a ratio of 4 or more); deep in K as the planner's
 * split K (K >= 4 max(M, N)), shallow (4 K <= min(M, N)), or neither. */
typedef struct shape_class {
    int mn, k;
} shape_class;

typedef struct tuning_entry {
    tuning_key key;
    size_t shape[3];
    clgemm_config config;
    /* For the lookup, worked out once when loaded: every call plans, and the logarithms of a
     * few dozen entries cost more than the rest of the planning (PoCL, 40 entries: 0.55 us). */
    double log_shape[3];
    shape_class cls;
} tuning_entry;

struct tuning_table {
    size_t count;
    tuning_entry entries[];
};

/* ---- Keys: generated from the lists in clgemm.h and plan/plan.h ----------------------------- */

typedef struct device_key {
    const char *name;
    size_t offset;
} device_key;

/* The identity of a device: a tuning result is only trusted on the exact same stack. */
static const device_key device_keys[] = {
    {"platform", offsetof(device_info, platform_name)},
    {"platform_version", offsetof(device_info, platform_version)},
    {"vendor", offsetof(device_info, vendor)},
    {"name", offsetof(device_info, name)},
    {"driver", offsetof(device_info, driver_version)},
};
#define DEVICE_KEY_COUNT (sizeof device_keys / sizeof device_keys[0])

static const char *device_string(const device_info *info, const device_key *key) {
    return (const char *)info + key->offset;
}

static clgemm_family family_from_name(const char *name) {
    return clgemm_family_from_name(name);
}

static const char *precision_key(clgemm_precision precision) {
    const type_desc *t = clgemm__type(precision);
    return t ? t->name : "s";
}

/* ---- Keys: types and transposes ----------------------------------------------------------------
 */

static bool is_complex(clgemm_precision type) {
    const type_desc *t = clgemm__type(type);
    return t && t->complex;
}

static clgemm_transpose fold_trans(clgemm_transpose t, bool complex) {
    if (t == 0) return CLGEMM_NO_TRANS;
    return t == CLGEMM_CONJ_TRANS && !complex ? CLGEMM_TRANS : t;
}

tuning_key clgemm__tuning_key(clgemm_precision type_ab, clgemm_precision type_c,
                              clgemm_transpose trans_a, clgemm_transpose trans_b) {
    bool complex = is_complex(type_ab);
    return (tuning_key){type_ab, type_c, fold_trans(trans_a, complex), fold_trans(trans_b, complex),
                        0};
}

/* ---- Keys: batch classes -----------------------------------------------------------------------
 * A batch multiplies the work-groups of one matrix's tiles by its size, and how much of the
 * device one matrix's tiles must fill decides which tiles are fast: alone (class 0) they must
 * give every compute unit a work-group, so large matrices only get large tiles; a batch of 2-15
 * adds less than a factor of 16, too little to fill a large GPU (132 SMs on an H200, 304 CUs on
 * an MI300X) with matrices of a few tiles, so occupancy still limits the tiles; from 16 a matrix
 * of 8 to 19 tiles fills those GPUs and the tiles are chosen more for their own speed; from 256
 * one work-group per matrix fills almost any device, and the tiles are chosen for their speed
 * and padding alone. Classes a factor of 16 apart keep the occupancy a batch adds within one
 * class within that factor. They are fixed counts, not fractions of the compute units, so that
 * an entry means the same whatever a driver reports (a CPU's PoCL is filled by any batch). */
static const size_t batch_class_least[] = {1, 2, 16, 256};
#define BATCH_CLASSES ((int)(sizeof batch_class_least / sizeof batch_class_least[0]))

int clgemm__batch_class(size_t batch) {
    int c = 0;
    while (c + 1 < BATCH_CLASSES && batch >= batch_class_least[c + 1])
        c++;
    return c;
}

size_t clgemm__batch_class_least(int batch_class) {
    return batch_class >= 0 && batch_class < BATCH_CLASSES ? batch_class_least[batch_class] : 0;
}

static bool trans_ok(clgemm_transpose t, bool complex) {
    return t == CLGEMM_NO_TRANS || t == CLGEMM_TRANS || (complex && t == CLGEMM_CONJ_TRANS);
}

bool clgemm__tuning_key_ok(const tuning_key *key) {
    bool complex = is_complex(key->type_ab);
    return clgemm__types_ok(key->type_ab, key->type_c) && trans_ok(key->trans_a, complex) &&
           trans_ok(key->trans_b, complex) && key->batch_class >= 0 &&
           key->batch_class < BATCH_CLASSES;
}

const char *clgemm__trans_name(clgemm_transpose trans_a, clgemm_transpose trans_b) {
    static const char names[3][3][3] = {{"NN", "NT", "NC"}, {"TN", "TT", "TC"}, {"CN", "CT", "CC"}};
    int a = trans_a == CLGEMM_TRANS ? 1 : trans_a == CLGEMM_CONJ_TRANS ? 2 : 0;
    int b = trans_b == CLGEMM_TRANS ? 1 : trans_b == CLGEMM_CONJ_TRANS ? 2 : 0;
    return names[a][b];
}

static bool trans_from_letter(char c, clgemm_transpose *t) {
    *t = c == 'N' ? CLGEMM_NO_TRANS : c == 'T' ? CLGEMM_TRANS : CLGEMM_CONJ_TRANS;
    return c == 'N' || c == 'T' || c == 'C';
}

static bool keys_equal(const tuning_key *a, const tuning_key *b) {
    return a->type_ab == b->type_ab && a->type_c == b->type_c && a->trans_a == b->trans_a &&
           a->trans_b == b->trans_b && a->batch_class == b->batch_class;
}

/* ---- Path ----------------------------------------------------------------------------------- */

clgemm_status clgemm__tuning_path(const char *path, char *buf, size_t size) {
    if (!buf || size == 0) return CLGEMM_ERR_NULL_ARGUMENT;
    const char *env = getenv("CLGEMM_TUNING_DB");
    int w;
    char root[4096];
    if (path && *path) {
        w = snprintf(buf, size, "%s", path);
    } else if (env && *env) {
        w = snprintf(buf, size, "%s", env);
    } else if (clgemm__cache_root(root, sizeof root)) {
        w = snprintf(buf, size, "%s/tuning.json", root);
    } else {
        clgemm__log("tuning database: no cache folder (HOME unset?)");
        return CLGEMM_ERR_DB_IO;
    }
    if (w < 0 || (size_t)w >= size) {
        clgemm__log("tuning database: path too long");
        return CLGEMM_ERR_DB_IO;
    }
    return CLGEMM_SUCCESS;
}

/* ---- Reading -------------------------------------------------------------------------------- */

static clgemm_status check_root(const json_t *root, const char *path) {
    if (!json_is_object(root)) {
        clgemm__log("tuning database %s: not a JSON object", path);
        return CLGEMM_ERR_DB_MALFORMED;
    }
    const json_t *schema = json_object_get(root, "schema");
    if (!json_is_integer(schema)) {
        clgemm__log("tuning database %s: no integer \"schema\"", path);
        return CLGEMM_ERR_DB_MALFORMED;
    }
    json_int_t version = json_integer_value(schema);
    if (version < SCHEMA_OLDEST || version > SCHEMA_VERSION) {
        clgemm__log("tuning database %s: schema %" JSON_INTEGER_FORMAT
                    ", this clgemm reads %d to %d",
                    path, version, SCHEMA_OLDEST, SCHEMA_VERSION);
        return CLGEMM_ERR_DB_SCHEMA;
    }
    if (!json_is_array(json_object_get(root, "entries"))) {
        clgemm__log("tuning database %s: no \"entries\" array", path);
        return CLGEMM_ERR_DB_MALFORMED;
    }
    return CLGEMM_SUCCESS;
}

/* Reads and checks the database file; *root is NULL (and the status success) if it is missing.
 * The file is never opened for a blocking read: a FIFO or device at the path is refused. */
static clgemm_status read_root(const char *path, json_t **root) {
    *root = NULL;
    char *text;
    size_t size;
    file_status fs = clgemm__read_file(path, CLGEMM__TUNING_DB_MAX, true, &text, &size);
    if (fs == FILE_MISSING) return CLGEMM_SUCCESS;
    if (fs == FILE_NO_MEMORY) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    if (fs != FILE_OK) {
        if (fs == FILE_TOO_LARGE)
            clgemm__log("tuning database %s: larger than %zu MiB, not read", path,
                        CLGEMM__TUNING_DB_MAX >> 20);
        else
            clgemm__log("tuning database %s: %s", path,
                        fs == FILE_IO_ERROR ? strerror(errno) : clgemm__file_status_string(fs));
        return CLGEMM_ERR_DB_IO;
    }
    json_error_t error;
    json_t *json = json_loadb(text, size, JSON_REJECT_DUPLICATES, &error);
    free(text);
    if (!json) {
        clgemm__log("tuning database %s:%d:%d: %s", path, error.line, error.column, error.text);
        return CLGEMM_ERR_DB_MALFORMED;
    }
    clgemm_status status = check_root(json, path);
    if (status != CLGEMM_SUCCESS) {
        json_decref(json);
        return status;
    }
    *root = json;
    return CLGEMM_SUCCESS;
}

static bool device_matches(const json_t *device, const device_info *info) {
    for (size_t i = 0; i < DEVICE_KEY_COUNT; i++) {
        const char *s = json_string_value(json_object_get(device, device_keys[i].name));
        if (!s || strcmp(s, device_string(info, &device_keys[i])) != 0) return false;
    }
    return true;
}

static bool parse_precision(const json_t *json, clgemm_precision *precision) {
    return clgemm__type_by_name(json_string_value(json), precision) != NULL;
}

/* The schema of a root that check_root accepted. */
static int root_schema(const json_t *root) {
    return (int)json_integer_value(json_object_get(root, "schema"));
}

/* The batch class of an entry's "batch" (missing: one matrix); false if it is not a positive
 * integer. */
static bool parse_batch(const json_t *batch, int *batch_class) {
    *batch_class = 0;
    if (!batch) return true;
    if (!json_is_integer(batch) || json_integer_value(batch) < 1) return false;
    *batch_class = clgemm__batch_class((size_t)json_integer_value(batch));
    return true;
}

/* The entry's key; NULL, or the reason it has none. Schema 1 knew only NN entries with C of the
 * A/B type; schema 2 says so by leaving "type_c" and "trans" out. Schemas 1 and 2 knew only
 * single matrices; schema 3 says so by leaving "batch" out. */
static const char *parse_key(const json_t *entry, int schema, tuning_key *key) {
    if (!parse_precision(json_object_get(entry, "precision"), &key->type_ab) ||
        !clgemm__type(key->type_ab)->ab)
        return "\"precision\" is not a known type of A and B (s, d, c, z, h, bf16, i8, e4m3, e5m2)";
    key->type_c = clgemm__type(key->type_ab)->c;
    key->trans_a = key->trans_b = CLGEMM_NO_TRANS;
    key->batch_class = 0;
    if (schema < 2) return NULL;
    if (schema >= 3 && !parse_batch(json_object_get(entry, "batch"), &key->batch_class))
        return "\"batch\" is not a positive integer";
    const json_t *type_c = json_object_get(entry, "type_c");
    if (type_c && !parse_precision(type_c, &key->type_c))
        return "\"type_c\" is not a known type (s, d, c, z, h, bf16, i32)";
    const json_t *trans = json_object_get(entry, "trans");
    const char *t = json_string_value(trans);
    if (trans && (!t || strlen(t) != 2 || !trans_from_letter(t[0], &key->trans_a) ||
                  !trans_from_letter(t[1], &key->trans_b)))
        return "\"trans\" is not two of N, T, C";
    if (!clgemm__types_ok(key->type_ab, key->type_c))
        return "\"type_c\" is not a C type of this \"precision\"";
    if (!clgemm__tuning_key_ok(key)) return "\"trans\" has C (conjugate) on a real type";
    return NULL;
}

static bool parse_dims(const json_t *json, size_t dims[3]) {
    if (!json_is_array(json) || json_array_size(json) != 3) return false;
    for (size_t i = 0; i < 3; i++) {
        const json_t *v = json_array_get(json, i);
        if (!json_is_integer(v) || json_integer_value(v) < 1) return false;
        dims[i] = (size_t)json_integer_value(v);
    }
    return true;
}

/* Fills the family's parameters from "params"; NULL, or the reason it cannot. */
static const char *parse_params(const json_t *params, clgemm_config *config) {
    if (!json_is_object(params)) return "no \"params\" object";
    const family_desc *f = clgemm__family(config->family);
    for (int i = 0; f && i < f->num_params; i++) {
        const json_t *v = json_object_get(params, f->params[i].name);
        if (!v && clgemm__param_optional(f, i)) { /* an entry older than the parameter */
            config->params[f->params[i].slot] = 0;
            continue;
        }
        if (!json_is_integer(v)) return "a parameter is missing or not an integer";
        json_int_t value = json_integer_value(v);
        if (value < 1 || value > INT_MAX) return "a parameter is out of range";
        config->params[f->params[i].slot] = (int)value;
    }
    return NULL;
}

typedef enum entry_kind { ENTRY_OK, ENTRY_OTHER_DEVICE, ENTRY_BAD } entry_kind;

/* Parses one entry; for this device, a reason to reject it is set in *why. */
static entry_kind parse_entry(const json_t *json, int schema, const device_info *info,
                              tuning_entry *entry, const char **why) {
    *why = NULL;
    if (!json_is_object(json))
        *why = "not an object";
    else if (!json_is_object(json_object_get(json, "device")))
        *why = "no \"device\" object";
    if (*why) return ENTRY_BAD;
    if (!device_matches(json_object_get(json, "device"), info)) return ENTRY_OTHER_DEVICE;

    memset(entry, 0, sizeof *entry);
    const char *family = json_string_value(json_object_get(json, "family"));
    if ((*why = parse_key(json, schema, &entry->key)) != NULL)
        ;
    else if (!parse_dims(json_object_get(json, "shape"), entry->shape))
        *why = "\"shape\" is not three positive integers";
    else if (!family || (entry->config.family = family_from_name(family)) == CLGEMM_FAMILY_AUTO)
        *why = "unknown \"family\"";
    else
        *why = parse_params(json_object_get(json, "params"), &entry->config);
    if (*why) return ENTRY_BAD;

    clgemm_status status = clgemm__config_check(&entry->config, info, entry->key.type_ab);
    if (status != CLGEMM_SUCCESS) {
        *why = clgemm_status_string(status);
        return ENTRY_BAD;
    }
    return ENTRY_OK;
}

static void index_entry(tuning_entry *e); /* the lookup's (below) */

static tuning_table *table_from_entries(const json_t *entries, int schema,
                                        const device_info *info) {
    size_t n = json_array_size(entries);
    if (n > (SIZE_MAX - sizeof(tuning_table)) / sizeof(tuning_entry)) return NULL;
    tuning_table *table = malloc(sizeof *table + n * sizeof table->entries[0]);
    if (!table) return NULL;
    table->count = 0;
    for (size_t i = 0; i < n; i++) {
        const char *why;
        entry_kind kind = parse_entry(json_array_get(entries, i), schema, info,
                                      &table->entries[table->count], &why);
        if (kind == ENTRY_OK)
            index_entry(&table->entries[table->count++]);
        else if (kind == ENTRY_BAD)
            clgemm__log("tuning database entry %zu skipped: %s", i, why);
    }
    return table;
}

clgemm_status clgemm__tuning_load(const char *path, const device_info *info, tuning_table **table) {
    if (!table || !info) return CLGEMM_ERR_NULL_ARGUMENT;
    *table = NULL;
    char resolved[PATH_MAX];
    json_t *root;
    clgemm_status status = clgemm__tuning_path(path, resolved, sizeof resolved);
    if (status == CLGEMM_SUCCESS) status = read_root(resolved, &root);
    if (status != CLGEMM_SUCCESS) return status;
    if (!root) {
        clgemm__log("tuning database %s: not found, using defaults", resolved);
        return CLGEMM_SUCCESS;
    }
    tuning_table *t = table_from_entries(json_object_get(root, "entries"), root_schema(root), info);
    json_decref(root);
    if (!t) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    clgemm__log("tuning database %s: %zu entries for this device", resolved, t->count);
    if (t->count == 0) {
        free(t);
        t = NULL;
    }
    *table = t;
    return CLGEMM_SUCCESS;
}

/* ---- Lookup --------------------------------------------------------------------------------- */

/* A tuned configuration suits shapes like the one it was tuned for, and a far one can be much
 * worse than the built-in default (on the H200, 2047^2 ran slower on the 1024^2 entry's small
 * tiles, and 8192 x 64 x 8192 borrowed the 4096^2 entry). So an entry is borrowed only by a
 * shape of its class and near it: within MAX_LOG2_DISTANCE in log2 space, i.e. a factor of two
 * along one dimension, or about 1.5 along all three. Otherwise the default is used. */
#define MAX_LOG2_DISTANCE 1.0

static shape_class classify(double m, double n, double k) {
    shape_class c = {0, 0};
    if (m >= 4 * n) c.mn = 1;
    if (n >= 4 * m) c.mn = -1;
    if (k >= 4 * (m > n ? m : n)) c.k = 1;
    if (4 * k <= (m < n ? m : n)) c.k = -1;
    return c;
}

/* Fills in what the lookup needs of a loaded entry. */
static void index_entry(tuning_entry *e) {
    for (int i = 0; i < 3; i++)
        e->log_shape[i] = log2((double)e->shape[i]);
    e->cls = classify((double)e->shape[0], (double)e->shape[1], (double)e->shape[2]);
}

/* Squared distance in log2 space: a shape twice as large counts as far as one half as large. */
static double shape_distance(const double log_shape[3], const double want[3]) {
    double d = 0;
    for (int i = 0; i < 3; i++) {
        double r = want[i] - log_shape[i];
        d += r * r;
    }
    return d;
}

/* The entry of this key nearest to the shape among those of its class and close enough;
 * NULL if there is none. */
static const tuning_entry *nearest(const tuning_table *table, const tuning_key *key,
                                   shape_class cls, const double want[3]) {
    const tuning_entry *best = NULL;
    double best_distance = INFINITY;
    for (size_t i = 0; i < table->count; i++) {
        const tuning_entry *e = &table->entries[i];
        if (!keys_equal(&e->key, key)) continue;
        if (e->cls.mn != cls.mn || e->cls.k != cls.k) continue;
        double d = shape_distance(e->log_shape, want);
        if (d <= MAX_LOG2_DISTANCE * MAX_LOG2_DISTANCE && d < best_distance) {
            best = e;
            best_distance = d;
        }
    }
    return best;
}

bool clgemm__tuning_lookup(const tuning_table *table, const tuning_key *key, size_t m, size_t n,
                           size_t k, clgemm_config *config) {
    if (!table || !key || !config) return false;
    size_t dims[3] = {m, n, k};
    double want[3];
    for (int i = 0; i < 3; i++) {
        if (dims[i] == 0) dims[i] = 1;
        want[i] = log2((double)dims[i]);
    }
    /* Classified from the sizes themselves, exactly as the entries are. */
    shape_class cls = classify((double)dims[0], (double)dims[1], (double)dims[2]);
    const tuning_entry *best = nearest(table, key, cls, want);
    if (!best && (key->trans_a != CLGEMM_NO_TRANS || key->trans_b != CLGEMM_NO_TRANS)) {
        /* No close entry for these transposes: a close NN entry of the types is the next best
         * guess (the same kernel reads its operands in another order). */
        tuning_key nn = *key;
        nn.trans_a = nn.trans_b = CLGEMM_NO_TRANS;
        best = nearest(table, &nn, cls, want);
    }
    if (best) *config = best->config;
    return best != NULL;
}

bool clgemm__tuning_exact(const tuning_table *table, const tuning_key *key, size_t m, size_t n,
                          size_t k, clgemm_config *config) {
    for (size_t i = 0; table && key && i < table->count; i++) {
        const tuning_entry *e = &table->entries[i];
        if (keys_equal(&e->key, key) && e->shape[0] == m && e->shape[1] == n && e->shape[2] == k) {
            *config = e->config;
            return true;
        }
    }
    return false;
}

size_t clgemm__tuning_count(const tuning_table *table) {
    return table ? table->count : 0;
}

void clgemm__tuning_free(tuning_table *table) {
    free(table);
}

/* ---- Writing -------------------------------------------------------------------------------- */

static json_t *device_json(const device_info *info) {
    json_t *device = json_object();
    for (size_t i = 0; device && i < DEVICE_KEY_COUNT; i++) {
        if (json_object_set_new(device, device_keys[i].name,
                                json_string(device_string(info, &device_keys[i]))) != 0) {
            json_decref(device);
            return NULL;
        }
    }
    return device;
}

static json_t *params_json(const clgemm_config *config) {
    json_t *params = json_object();
    const family_desc *f = clgemm__family(config->family);
    for (int i = 0; params && f && i < f->num_params; i++) {
        int value = config->params[f->params[i].slot];
        if (clgemm__param_optional(f, i) && clgemm__param_value(f, i, config) == 0) continue;
        if (json_object_set_new(params, f->params[i].name, json_integer(value)) != 0) {
            json_decref(params);
            return NULL;
        }
    }
    return params;
}

static json_t *search_json(const tuning_search *s) {
    double budget = isfinite(s->budget_s) && s->budget_s > 0 ? s->budget_s : 0.0;
    return json_pack("{s:I, s:b, s:f, s:I, s:b}", "evaluated", (json_int_t)s->evaluated,
                     "exhaustive", s->exhaustive, "budget_s", budget, "max_evals",
                     (json_int_t)s->max_evals, "quick", s->quick);
}

static json_t *record_json(const device_info *info, const tuning_record *r,
                           const tuning_search *search) {
    char date[16] = "1970-01-01";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(date, sizeof date, "%Y-%m-%d", &tm);
    double gflops = isfinite(r->gflops) && r->gflops > 0 ? r->gflops : 0.0;
    /* "o" steals the references, and json_pack frees them if it fails. */
    return json_pack(
        "{s:o, s:s, s:s, s:s, s:[I,I,I], s:I, s:s, s:o, s:f, s:[I,I,I], s:o, s:s, s:s}", "device",
        device_json(info), "precision", precision_key(r->key.type_ab), "type_c",
        precision_key(r->key.type_c), "trans", clgemm__trans_name(r->key.trans_a, r->key.trans_b),
        "shape", (json_int_t)r->shape[0], (json_int_t)r->shape[1], (json_int_t)r->shape[2], "batch",
        (json_int_t)(r->batch > 1 ? r->batch : 1), "family", clgemm_family_name(r->config.family),
        "params", params_json(&r->config), "gflops", gflops, "problem", (json_int_t)r->problem[0],
        (json_int_t)r->problem[1], (json_int_t)r->problem[2], "search", search_json(search), "date",
        date, "clgemm_version", CLGEMM_VERSION);
}

/* True if the stored entry (of a root of this schema) is one the loader uses and has the
 * record's key: device, types, transposes, batch class and shape. An entry the loader skips (a bad
 * parameter, say) guards nothing: the record is added next to it, and it stays as it is. */
static bool same_key(const json_t *entry, const device_info *info, const tuning_record *r) {
    tuning_entry e;
    const char *why;
    return parse_entry(entry, SCHEMA_VERSION, info, &e, &why) == ENTRY_OK &&
           keys_equal(&e.key, &r->key) && e.shape[0] == r->shape[0] && e.shape[1] == r->shape[1] &&
           e.shape[2] == r->shape[2];
}

/* The stored entry's configuration (family and the parameters it uses). */
static bool entry_config(const json_t *entry, clgemm_config *config) {
    const char *family = json_string_value(json_object_get(entry, "family"));
    memset(config, 0, sizeof *config);
    return family && (config->family = family_from_name(family)) != CLGEMM_FAMILY_AUTO &&
           parse_params(json_object_get(entry, "params"), config) == NULL;
}

static bool same_config(const clgemm_config *a, const clgemm_config *b) {
    return clgemm__config_equal(a, b);
}

/* How much the stored entry's search covered; false for an entry without that record (written
 * by an older clgemm), whose extent is unknown. */
static bool entry_search(const json_t *entry, tuning_search *s) {
    const json_t *j = json_object_get(entry, "search");
    const json_t *evaluated = json_object_get(j, "evaluated");
    if (!json_is_integer(evaluated) || json_integer_value(evaluated) < 0 ||
        !json_is_boolean(json_object_get(j, "exhaustive")))
        return false;
    s->evaluated = (size_t)json_integer_value(evaluated);
    s->exhaustive = json_is_true(json_object_get(j, "exhaustive"));
    return true;
}

/* Whether the record may replace the stored entry of its key, and the search to record: a result
 * replaces an entry only if it was measured faster than that entry's configuration in the same
 * run, or came from a search at least as full (the whole space, or no fewer candidates than an
 * entry that was not exhaustive). An entry of unknown extent is replaced only by the first. */
static bool replaces(const json_t *old, const tuning_record *r, tuning_search *search) {
    clgemm_config old_config;
    tuning_search old_search = {0};
    bool known = entry_search(old, &old_search);
    *search = r->search;
    if (r->beat_valid && entry_config(old, &old_config) && same_config(&old_config, &r->beat)) {
        /* The result is the best of this search and the old one's: it covers both. */
        if (known) {
            if (old_search.evaluated > search->evaluated) search->evaluated = old_search.evaluated;
            search->exhaustive = search->exhaustive || old_search.exhaustive;
        }
        return true;
    }
    if (!known) return false;
    return r->search.exhaustive ||
           (!old_search.exhaustive && r->search.evaluated >= old_search.evaluated);
}

/* Adds the record, or replaces the entry of its key when replaces() allows it. */
static clgemm_status merge_record(json_t *entries, const device_info *info,
                                  const tuning_record *r) {
    size_t i = 0, n = json_array_size(entries);
    while (i < n && !same_key(json_array_get(entries, i), info, r))
        i++;
    tuning_search search = r->search;
    if (i < n && !replaces(json_array_get(entries, i), r, &search)) {
        clgemm__log("tuning database: the entry for %zux%zux%zu (batch class from %zu) is kept: "
                    "it came from a fuller search than this result's %zu candidates",
                    r->shape[0], r->shape[1], r->shape[2],
                    clgemm__batch_class_least(r->key.batch_class), r->search.evaluated);
        return CLGEMM_SUCCESS;
    }
    json_t *entry = record_json(info, r, &search);
    if (!entry) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    int err = i < n ? json_array_set_new(entries, i, entry) : json_array_append_new(entries, entry);
    return err == 0 ? CLGEMM_SUCCESS : CLGEMM_ERR_OUT_OF_HOST_MEMORY;
}

/* Takes the writers' lock (a lock file next to the database); the descriptor, or -1. A symlink
 * at the lock path is refused (O_NOFOLLOW), never followed to create its target. */
static int lock_database(const char *path) {
    char lock_path[PATH_MAX];
    if (snprintf(lock_path, sizeof lock_path, "%s.lock", path) >= (int)sizeof lock_path) return -1;
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
    if (fd < 0) {
        clgemm__log("tuning database: cannot open the lock file %s: %s", lock_path,
                    errno == ELOOP ? "it is a symbolic link" : strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        clgemm__log("tuning database: the lock file %s is not a regular file", lock_path);
        close(fd);
        return -1;
    }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno == EINTR) continue;
        clgemm__log("tuning database: cannot lock %s: %s", lock_path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static clgemm_status write_root(const char *path, const json_t *root) {
    char *text = json_dumps(root, JSON_INDENT(2));
    if (!text) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    size_t len = strlen(text);
    char *with_newline = realloc(text, len + 2);
    if (!with_newline) {
        free(text);
        return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    }
    memcpy(with_newline + len, "\n", 2);
    int err = clgemm__write_atomic(path, with_newline, len + 1);
    free(with_newline);
    return err == 0 ? CLGEMM_SUCCESS : CLGEMM_ERR_DB_IO;
}

/* Whether a save would work: a temporary file next to the database takes a real byte and its
 * fsync (a full disk fails here, before the tuning, not after it). */
static clgemm_status probe_folder(const char *path) {
    char tmp[PATH_MAX];
    int fd = clgemm__temp_create(path, tmp, sizeof tmp);
    if (fd < 0) {
        clgemm__log("tuning database: cannot create a file next to %s: %s", path, strerror(errno));
        return CLGEMM_ERR_DB_IO;
    }
    bool ok = write(fd, "\n", 1) == 1 && fsync(fd) == 0;
    int err = errno;
    ok = close(fd) == 0 && ok;
    unlink(tmp);
    if (!ok) {
        clgemm__log("tuning database: cannot write next to %s: %s", path, strerror(err));
        return CLGEMM_ERR_DB_IO;
    }
    return CLGEMM_SUCCESS;
}

/* An older root becomes schema 3 with every entry kept, each entry's old meaning written out so
 * that schema 3 reads it the same way: of schema 1 an NN entry with C of its precision, of
 * schemas 1 and 2 one matrix (any "batch" there was ignored). Entries that are not objects or
 * have no string "precision" stay as they are (no reader uses them). */
static clgemm_status upgrade(json_t *root, json_t *entries, int schema) {
    for (size_t i = 0; i < json_array_size(entries); i++) {
        json_t *e = json_array_get(entries, i);
        const json_t *precision = json_object_get(e, "precision");
        if (!json_is_string(precision)) continue; /* unusable in any schema: kept verbatim */
        if (schema < 2 &&
            (json_object_set_new(e, "type_c", json_string(json_string_value(precision))) != 0 ||
             json_object_set_new(e, "trans", json_string("NN")) != 0))
            return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
        if (json_object_set_new(e, "batch", json_integer(1)) != 0)
            return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    }
    return json_object_set_new(root, "schema", json_integer(SCHEMA_VERSION)) == 0
               ? CLGEMM_SUCCESS
               : CLGEMM_ERR_OUT_OF_HOST_MEMORY;
}

/* Under the lock: re-read what other writers saved, merge, replace the file. With nothing to
 * merge, only check that all of this would work. */
static clgemm_status merge_locked(const char *path, const device_info *info,
                                  const tuning_record *records, size_t count) {
    json_t *root;
    clgemm_status status = read_root(path, &root);
    if (status != CLGEMM_SUCCESS) return status; /* never overwrite a file we cannot read */
    if (count == 0) {
        json_decref(root);
        return probe_folder(path);
    }
    if (!root) root = json_pack("{s:i, s:[]}", "schema", SCHEMA_VERSION, "entries");
    if (!root) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    json_t *entries = json_object_get(root, "entries");
    if (root_schema(root) < SCHEMA_VERSION) status = upgrade(root, entries, root_schema(root));
    for (size_t i = 0; i < count && status == CLGEMM_SUCCESS; i++)
        status = merge_record(entries, info, &records[i]);
    if (status == CLGEMM_SUCCESS) status = write_root(path, root);
    json_decref(root);
    return status;
}

/* The file a save writes: a symlink at the database path is followed to its target (so the
 * target is updated, not replaced by a regular file); a dangling one is refused. */
static clgemm_status resolve_target(const char *path, char *out, size_t size) {
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) {
        snprintf(out, size, "%s", path);
        return CLGEMM_SUCCESS;
    }
    char *real = realpath(path, NULL);
    if (!real || strlen(real) >= size) {
        clgemm__log("tuning database %s: a symbolic link whose target %s", path,
                    real ? "has too long a path" : "does not exist: refusing to write");
        free(real);
        return CLGEMM_ERR_DB_IO;
    }
    snprintf(out, size, "%s", real);
    free(real);
    return CLGEMM_SUCCESS;
}

/* The folder part of path, and the file name after it. */
static void split_path(const char *path, char *dir, size_t size, const char **name) {
    const char *slash = strrchr(path, '/');
    *name = slash ? slash + 1 : path;
    if (!slash)
        snprintf(dir, size, ".");
    else
        snprintf(dir, size, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

clgemm_status clgemm__tuning_save(const char *path, const device_info *info,
                                  const tuning_record *records, size_t count) {
    if (!info || (!records && count > 0)) return CLGEMM_ERR_NULL_ARGUMENT;
    /* Never write what the loader would reject. */
    for (size_t i = 0; i < count; i++) {
        const tuning_record *r = &records[i];
        if (!clgemm__type(r->key.type_ab) || !clgemm__tuning_key_ok(&r->key) ||
            r->key.batch_class != clgemm__batch_class(r->batch))
            return CLGEMM_ERR_INVALID_ARGUMENT;
        if (r->shape[0] < 1 || r->shape[1] < 1 || r->shape[2] < 1)
            return CLGEMM_ERR_INVALID_ARGUMENT;
        clgemm_status status = clgemm__config_check(&r->config, info, r->key.type_ab);
        if (status != CLGEMM_SUCCESS) return status;
    }
    char given[PATH_MAX], resolved[PATH_MAX];
    clgemm_status status = clgemm__tuning_path(path, given, sizeof given);
    if (status == CLGEMM_SUCCESS) status = resolve_target(given, resolved, sizeof resolved);
    if (status != CLGEMM_SUCCESS) return status;
    if (clgemm__mkdir_parent(resolved) != 0) return CLGEMM_ERR_DB_IO;
    int lock = lock_database(resolved);
    if (lock < 0) return CLGEMM_ERR_DB_IO;
    /* Writers make temporaries only under this lock: any left now is a killed writer's. */
    char dir[PATH_MAX];
    const char *name;
    split_path(resolved, dir, sizeof dir, &name);
    clgemm__remove_temps(dir, name, NULL, 0);
    status = merge_locked(resolved, info, records, count);
    close(lock); /* releases the flock */
    return status;
}
