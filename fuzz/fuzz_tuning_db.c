/* fuzz_tuning_db.c: libFuzzer target for the JSON tuning-database loader, clgemm__tuning_load
 * (src/tuning_db.c), on a fake device. Each input is written to a temporary file and loaded.
 * Checks, beyond "no crash, no leak, no undefined behaviour" (ASan, LSan and UBSan do those):
 * a failed load returns no table; a loaded table is non-empty and every entry it accepted has a
 * known precision, a positive shape and a configuration that passes clgemm__config_check on the
 * device; lookups only ever return such configurations. For one input in 16 (chosen by a hash,
 * so runs are reproducible) it also merges a new record with clgemm__tuning_save: a database the
 * loader refused must be refused and left byte for byte alone, an accepted one must take the
 * record, load again, and give the record back for its shape.
 *
 * src/tuning_db.c is included (not linked) so that the table's entries can be inspected; build
 * and run with fuzz/run.sh. */
#include "tuning_db.c"

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
        CHECK(e->precision == CLGEMM_SINGLE || e->precision == CLGEMM_DOUBLE, "entry %zu", i);
        CHECK(e->shape[0] >= 1 && e->shape[1] >= 1 && e->shape[2] >= 1, "entry %zu shape", i);
        CHECK(clgemm__config_check(&e->config, &info, e->precision) == CLGEMM_SUCCESS,
              "entry %zu: accepted configuration fails clgemm__config_check", i);
        clgemm_config c;
        CHECK(clgemm__tuning_lookup(t, e->precision, e->shape[0], e->shape[1], e->shape[2], &c),
              "entry %zu not found by its own shape", i);
        CHECK(clgemm__config_check(&c, &info, e->precision) == CLGEMM_SUCCESS, "lookup %zu", i);
    }
    /* Shapes no entry has, including degenerate and huge ones. */
    static const size_t probes[][3] = {
        {0, 0, 0}, {1, 1, 1}, {SIZE_MAX, 1, SIZE_MAX}, {64, 4096, 7}};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        for (int p = 0; p < 2; p++) {
            clgemm_config c;
            if (clgemm__tuning_lookup(t, (clgemm_precision)p, probes[i][0], probes[i][1],
                                      probes[i][2], &c))
                CHECK(clgemm__config_check(&c, &info, (clgemm_precision)p) == CLGEMM_SUCCESS,
                      "probe %zu", i);
        }
}

/* Merges one record into a copy of the input and checks the outcome against the load's. */
static void check_save(const uint8_t *data, size_t size, clgemm_status loaded) {
    write_file(save_path, data, size);
    tuning_record r = {.precision = CLGEMM_DOUBLE,
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
                       .gflops = 3.5};
    clgemm_status st = clgemm__tuning_save(save_path, &info, &r, 1);
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
        clgemm_config c;
        CHECK(clgemm__tuning_lookup(t, r.precision, 96, 80, 112, &c), "record not found");
        CHECK(memcmp(&c, &r.config, sizeof c) == 0, "the lookup does not give the record back");
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
    clgemm__tuning_free(t);
    uint64_t hash = 14695981039346656037ull;
    for (size_t i = 0; i < size; i++)
        hash = (hash ^ data[i]) * 1099511628211ull;
    if (hash % 16 == 0) check_save(data, size, st);
    return 0;
}
