/* fuzz_tuning_db.c: libFuzzer target for the JSON tuning-database loader, clgemm__tuning_load
 * (src/plan/tuning_db.c), on a fake device. Each input is written to a temporary file and loaded.
 * Checks, beyond "no crash, no leak, no undefined behaviour" (ASan, LSan and UBSan do those):
 * a failed load returns no table; a loaded table is non-empty and every entry it accepted has a
 * valid key (a type pair the kernels compute, transposes its type has, a batch class: schema 1
 * entries are NN with C of their type, schema 1 and 2 entries single-matrix ones), a positive shape
 * and a configuration that passes clgemm__config_check on the device; lookups (with any transposes,
 * which fall back to NN) only ever return such configurations. For one input in 16 (chosen by a
 * hash, so runs are reproducible) it also merges new records with clgemm__tuning_save: a database
 * the loader refused must be refused and left byte for byte alone; an accepted one must take the
 * records, load again as schema 3, give each record back for its key and shape, and keep every
 * entry the first load accepted (a schema-1 or schema-2 file's entries included, under the same
 * keys).
 *
 * src/plan/tuning_db.c is included (not linked) so that the table's entries can be inspected; build
 * and run with fuzz/run.sh. */
#include "plan/tuning_db.c"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static device_info info;
static char path[256], save_path[256];

static void remove_files(void) {
    unlink(path);
    unlink(save_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    /* The identity the seed corpus (fuzz/corpus) uses. */
    snprintf(info.platform_name, sizeof info.platform_name, "FuzzPlatform");
    snprintf(info.platform_version, sizeof info.platform_version, "OpenCL 1.2 fuzz");
    snprintf(info.vendor, sizeof info.vendor, "FuzzVendor");
    snprintf(info.name, sizeof info.name, "FuzzDevice");
    snprintf(info.driver_version, sizeof info.driver_version, "1.0");
    info.cls = DEVICE_CPU;
    info.max_work_group_size = 256;
    info.max_work_item_sizes[0] = 256;
    info.max_work_item_sizes[1] = 256;
    info.max_work_item_sizes[2] = 64;
    info.local_mem_size = 32768;
    info.has_fp64 = true;
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof path, "%s/clgemm-fuzz-%ld.json", dir, (long)getpid());
    snprintf(save_path, sizeof save_path, "%s/clgemm-fuzz-save-%ld.json", dir, (long)getpid());
    unsetenv("CLGEMM_LOG");
    atexit(remove_files);
    return 0;
}

static void write_file(const char *p, const uint8_t *data, size_t size) {
    FILE *f = fopen(p, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        fprintf(stderr, "fuzz_tuning_db: cannot write %s\n", p);
        abort();
    }
}

static uint8_t *read_back(const char *p, size_t *size) {
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) n = -1;
    fclose(f);
    *size = n > 0 ? (size_t)n : 0;
    return buf;
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_tuning_db: check failed: %s: ", #cond);                          \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static void check_table(const tuning_table *t) {
    CHECK(t->count > 0, "an empty table is returned as NULL");
    CHECK(clgemm__tuning_count(t) == t->count, "count");
    for (size_t i = 0; i < t->count; i++) {
        const tuning_entry *e = &t->entries[i];
        CHECK(clgemm__tuning_key_ok(&e->key), "entry %zu key", i);
        CHECK(e->shape[0] >= 1 && e->shape[1] >= 1 && e->shape[2] >= 1, "entry %zu shape", i);
        CHECK(clgemm__config_check(&e->config, &info, e->key.type_ab) == CLGEMM_SUCCESS,
              "entry %zu: accepted configuration fails clgemm__config_check", i);
        clgemm_config c;
        CHECK(clgemm__tuning_lookup(t, &e->key, e->shape[0], e->shape[1], e->shape[2], &c),
              "entry %zu not found by its own shape", i);
        CHECK(clgemm__config_check(&c, &info, e->key.type_ab) == CLGEMM_SUCCESS, "lookup %zu", i);
        CHECK(clgemm__tuning_exact(t, &e->key, e->shape[0], e->shape[1], e->shape[2], &c),
              "entry %zu not found exactly", i);
    }
    /* Shapes no entry has, including degenerate and huge ones. */
    static const size_t probes[][3] = {
        {0, 0, 0}, {1, 1, 1}, {SIZE_MAX, 1, SIZE_MAX}, {64, 4096, 7}};
    static const clgemm_transpose trans[] = {CLGEMM_NO_TRANS, CLGEMM_TRANS, CLGEMM_CONJ_TRANS};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        for (int p = 0; p < CLGEMM_PRECISION_COUNT; p++)
            for (int w = 0; w < 2; w++)
                for (int ta = 0; ta < 12; ta++) {
                    clgemm_precision type = (clgemm_precision)p;
                    tuning_key key = clgemm__tuning_key(type, w ? clgemm__type(type)->wide_c : type,
                                                        trans[ta % 3], trans[2 - ta % 3]);
                    key.batch_class = ta / 3; /* every batch class */
                    clgemm_config c;
                    if (clgemm__tuning_lookup(t, &key, probes[i][0], probes[i][1], probes[i][2],
                                              &c))
                        CHECK(clgemm__config_check(&c, &info, type) == CLGEMM_SUCCESS, "probe %zu",
                              i);
                }
}

/* Whether the table holds an entry of this key and shape with this configuration. */
static bool holds(const tuning_table *t, const tuning_entry *want) {
    for (size_t i = 0; i < t->count; i++) {
        const tuning_entry *e = &t->entries[i];
        if (memcmp(&e->key, &want->key, sizeof e->key) == 0 &&
            memcmp(e->shape, want->shape, sizeof e->shape) == 0 &&
            clgemm__config_equal(&e->config, &want->config))
            return true;
    }
    return false;
}

/* Merges two records (an NN double one, and a complex batch one with conjugate transposes) into a
 * copy of the input and checks the outcome against the load's (first: the table it gave). */
static void check_save(const uint8_t *data, size_t size, clgemm_status loaded,
                       const tuning_table *first) {
    write_file(save_path, data, size);
    tuning_record r[2] = {
        {.key = clgemm__tuning_key(CLGEMM_DOUBLE, CLGEMM_DOUBLE, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS),
         .shape = {96, 80, 112},
         .problem = {96, 80, 112},
         .config = {.family = CLGEMM_FAMILY_REGBLOCK,
                    .mwg = 16,
                    .nwg = 16,
                    .kwg = 8,
                    .mdimc = 4,
                    .ndimc = 4,
                    .kwi = 2,
                    .vwm = 2,
                    .vwn = 2},
         .gflops = 3.5,
         .search = {.evaluated = 1, .exhaustive = true}},
        {.key = clgemm__tuning_key(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, CLGEMM_CONJ_TRANS,
                                   CLGEMM_TRANS),
         .shape = {33, 1, 7},
         .problem = {33, 1, 7},
         .config = {.family = CLGEMM_FAMILY_TILED, .ts = 4},
         .gflops = 1.0,
         .search = {.evaluated = 1, .exhaustive = true}}};
    r[1].batch = 40; /* a batch entry: class 16-255 */
    r[1].key.batch_class = clgemm__batch_class(r[1].batch);
    clgemm_status st = clgemm__tuning_save(save_path, &info, r, 2);
    if (loaded == CLGEMM_ERR_DB_MALFORMED || loaded == CLGEMM_ERR_DB_SCHEMA) {
        CHECK(st == loaded, "save of a refused database: %d, load gave %d", st, loaded);
        size_t now_size;
        uint8_t *now = read_back(save_path, &now_size);
        CHECK(now && now_size == size && (size == 0 || memcmp(now, data, size) == 0),
              "a refused database was modified by a save");
        free(now);
    } else if (loaded == CLGEMM_SUCCESS) {
        CHECK(st == CLGEMM_SUCCESS, "save into an accepted database: %d", st);
        tuning_table *t = NULL;
        st = clgemm__tuning_load(save_path, &info, &t);
        CHECK(st == CLGEMM_SUCCESS && t, "the saved database does not load: %d", st);
        check_table(t);
        /* A record replaces an entry of its key and shape unless that entry has no search
         * record (an older clgemm's): then the old configuration stays. */
        for (int i = 0; i < 2; i++) {
            clgemm_config c;
            tuning_entry old = {.key = r[i].key};
            memcpy(old.shape, r[i].shape, sizeof old.shape);
            CHECK(
                clgemm__tuning_exact(t, &r[i].key, r[i].shape[0], r[i].shape[1], r[i].shape[2], &c),
                "record %d not found", i);
            old.config = c;
            CHECK(clgemm__config_equal(&c, &r[i].config) || (first && holds(first, &old)),
                  "the lookup gives neither record %d nor the entry it met", i);
        }
        /* Every entry the first load accepted is still there, under the same key, unless a
         * record replaced it (same key and shape). */
        for (size_t i = 0; first && i < first->count; i++) {
            const tuning_entry *e = &first->entries[i];
            bool replaced = false;
            for (int j = 0; j < 2; j++)
                replaced |= memcmp(&e->key, &r[j].key, sizeof e->key) == 0 &&
                            memcmp(e->shape, r[j].shape, sizeof e->shape) == 0;
            CHECK(replaced || holds(t, e), "entry %zu of the first load was lost by a save", i);
        }
        size_t text_size;
        uint8_t *text = read_back(save_path, &text_size);
        CHECK(text && text_size > 13 && memmem(text, text_size, "\"schema\": 3", 11),
              "a save does not write schema 3");
        free(text);
        clgemm__tuning_free(t);
    }
    unlink(save_path);
    char lock[300];
    snprintf(lock, sizeof lock, "%s.lock", save_path);
    unlink(lock);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    write_file(path, data, size);
    tuning_table *t = (tuning_table *)0x1;
    clgemm_status st = clgemm__tuning_load(path, &info, &t);
    if (st != CLGEMM_SUCCESS) {
        CHECK(t == NULL, "a failed load (%d) returned a table", st);
        CHECK(st == CLGEMM_ERR_DB_MALFORMED || st == CLGEMM_ERR_DB_SCHEMA ||
                  st == CLGEMM_ERR_DB_IO || st == CLGEMM_ERR_OUT_OF_HOST_MEMORY,
              "unexpected status %d", st);
    } else if (t) {
        check_table(t);
    }
    uint64_t hash = 14695981039346656037ull;
    for (size_t i = 0; i < size; i++)
        hash = (hash ^ data[i]) * 1099511628211ull;
    if (hash % 16 == 0) check_save(data, size, st, st == CLGEMM_SUCCESS ? t : NULL);
    clgemm__tuning_free(t);
    return 0;
}
