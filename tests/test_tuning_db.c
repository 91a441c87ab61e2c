/* test_tuning_db.c: the JSON tuning database. Round trip, every kind of bad file (missing,
 * empty, malformed, truncated, wrong schema, entries that break device limits), nearest-shape
 * lookup, merging, the path chain, two processes writing at once, and, on a real device, the
 * order in which the library picks its configuration. Every file lives in a fresh temporary
 * folder: the user's ~/.cache is never touched. */
#include "configs.h"
#include "exec/exec.h"

#include "temp_dir.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- Helpers -------------------------------------------------------------------------------- */

/* A device that needs no OpenCL: 256 work-items, 32 KiB of local memory, doubles. */
static device_info fake_device(void) {
    device_info d = {.platform_name = "Test Platform",
                     .platform_version = "OpenCL 3.0 test",
                     .vendor = "Test Vendor",
                     .name = "Test Device",
                     .driver_version = "1.0",
                     .cls = DEVICE_CPU,
                     .max_work_group_size = 256,
                     .max_work_item_sizes = {256, 256, 256},
                     .local_mem_size = 32768,
                     .has_fp64 = true};
    return d;
}

static const char *device_json =
    "{\"platform\": \"Test Platform\", \"platform_version\": \"OpenCL 3.0 test\", "
    "\"vendor\": \"Test Vendor\", \"name\": \"Test Device\", \"driver\": \"1.0\"}";

/* A path in this test process's own temporary folder (removed when the process exits). */
static char *temp_path(const char *name) {
    const char *dir = temp_dir("clgemm-test");
    cr_assert_not_null(dir);
    char *path = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(path, "%s/%s", dir, name);
    return path;
}

static void write_file(const char *path, const char *text, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    fclose(f);
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = malloc((size_t)size + 1);
    cr_assert_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = 0;
    fclose(f);
    if (len) *len = (size_t)size;
    return text;
}

/* A database of one entry for the fake device (other fields as given). */
static void write_db(const char *path, const char *entries) {
    char text[16384];
    snprintf(text, sizeof text, "{\"schema\": 1, \"entries\": [%s]}", entries);
    write_file(path, text, strlen(text));
}

/* A database of `schema` whose entries are the fake device's, one for each of `fields` (what
 * follows "device" in the entry), then `others` as they are (NULL: none). */
static void write_device_db(const char *path, int schema, const char *const *fields, size_t count,
                            const char *others) {
    char text[16384];
    int used = snprintf(text, sizeof text, "{\"schema\": %d, \"entries\": [", schema);
    for (size_t i = 0; i < count; i++)
        used += snprintf(text + used, sizeof text - (size_t)used, "%s{\"device\": %s, %s}",
                         i ? "," : "", device_json, fields[i]);
    used += snprintf(text + used, sizeof text - (size_t)used, "%s%s]}", others && count ? "," : "",
                     others ? others : "");
    cr_assert_lt((size_t)used, sizeof text);
    write_file(path, text, strlen(text));
}

/* The NN key of a type, C of the same type. */
static tuning_key nn_key(clgemm_precision p) {
    return clgemm__tuning_key(p, p, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS);
}
#define NN(p) (&(const tuning_key){(p), (p), CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 0})

static tuning_record record_key(tuning_key key, size_t m, size_t n, size_t k, clgemm_config c) {
    return (tuning_record){
        .key = key, .shape = {m, n, k}, .problem = {m, n, k}, .config = c, .gflops = 12.5};
}

static tuning_record record(clgemm_precision p, size_t m, size_t n, size_t k, clgemm_config c) {
    return record_key(nn_key(p), m, n, k, c);
}

static bool config_equal(const clgemm_config *a, const clgemm_config *b) {
    return memcmp(a, b, sizeof *a) == 0;
}

static tuning_table *load_ok(const char *path, const device_info *info) {
    tuning_table *t = NULL;
    cr_assert_eq(clgemm__tuning_load(path, info, &t), CLGEMM_SUCCESS);
    return t;
}

static void assert_load_fails(const char *path, clgemm_status expected) {
    device_info info = fake_device();
    tuning_table *t = (tuning_table *)1;
    cr_assert_eq(clgemm__tuning_load(path, &info, &t), expected, "%s", path);
    cr_assert_null(t);
}

/* ---- Round trip and file format ------------------------------------------------------------- */

Test(tuning_db, round_trip) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r[] = {
        record(CLGEMM_SINGLE, 128, 128, 128, tiled(16)),
        record(CLGEMM_SINGLE, 1024, 1024, 1024, regblock(64, 64, 16, 8, 8, 2, 4, 4)),
        record(CLGEMM_DOUBLE, 256, 512, 64, regblock(32, 32, 16, 8, 8, 2, 2, 2)),
    };
    cr_assert_eq(clgemm__tuning_save(path, &info, r, 3), CLGEMM_SUCCESS);
    tuning_table *t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 3);
    for (int i = 0; i < 3; i++) {
        clgemm_config c;
        cr_assert(
            clgemm__tuning_lookup(t, &r[i].key, r[i].shape[0], r[i].shape[1], r[i].shape[2], &c));
        cr_assert(config_equal(&c, &r[i].config), "entry %d", i);
    }
    clgemm__tuning_free(t);
    free(path);
}

Test(tuning_db, file_follows_schema) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r[] = {record(CLGEMM_SINGLE, 128, 256, 512, tiled(16)),
                         record(CLGEMM_DOUBLE, 64, 64, 64, regblock(32, 32, 16, 8, 8, 2, 2, 2))};
    cr_assert_eq(clgemm__tuning_save(path, &info, r, 2), CLGEMM_SUCCESS);
    json_error_t error;
    json_t *root = json_load_file(path, 0, &error);
    cr_assert_not_null(root, "%s", error.text);
    cr_assert_eq(json_integer_value(json_object_get(root, "schema")), 3);
    json_t *entries = json_object_get(root, "entries");
    cr_assert_eq(json_array_size(entries), 2);
    json_t *e = json_array_get(entries, 0);
    cr_assert_str_eq(json_string_value(json_object_get(e, "precision")), "s");
    cr_assert_str_eq(json_string_value(json_object_get(e, "type_c")), "s");
    cr_assert_str_eq(json_string_value(json_object_get(e, "trans")), "NN");
    cr_assert_eq(json_integer_value(json_object_get(e, "batch")), 1, "one matrix, written out");
    cr_assert_str_eq(json_string_value(json_object_get(e, "family")), "tiled");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "device"), "driver")),
                     "1.0");
    json_t *params = json_object_get(e, "params");
    cr_assert_eq(json_object_size(params), 1, "only the family's parameters");
    cr_assert_eq(json_integer_value(json_object_get(params, "TS")), 16);
    cr_assert_eq(json_integer_value(json_array_get(json_object_get(e, "shape"), 2)), 512);
    cr_assert_eq(json_integer_value(json_array_get(json_object_get(e, "problem"), 1)), 256);
    cr_assert_float_eq(json_real_value(json_object_get(e, "gflops")), 12.5, 1e-9);
    cr_assert_eq(strlen(json_string_value(json_object_get(e, "date"))), 10);
    cr_assert_str_eq(json_string_value(json_object_get(e, "clgemm_version")), CLGEMM_VERSION);
    json_t *p2 = json_object_get(json_array_get(entries, 1), "params");
    cr_assert_eq(json_object_size(p2), 8);
    cr_assert_eq(json_integer_value(json_object_get(p2, "MWG")), 32);
    cr_assert_null(json_object_get(p2, "TS"));
    json_decref(root);
    free(path);
}

/* Saves two records and reads the file back as JSON: the "params" objects of the entry whose
 * shape starts with `first` (*set) and of the other one (*unset); the caller frees *root. */
static void saved_params(const char *path, const device_info *info, tuning_record r[2],
                         json_int_t first, json_t **root, json_t **set, json_t **unset) {
    cr_assert_eq(clgemm__tuning_save(path, info, r, 2), CLGEMM_SUCCESS);
    json_error_t error;
    *root = json_load_file(path, 0, &error);
    cr_assert_not_null(*root, "%s", error.text);
    json_t *entries = json_object_get(*root, "entries");
    cr_assert_eq(json_array_size(entries), 2);
    *set = *unset = NULL;
    for (size_t i = 0; i < 2; i++) {
        json_t *e = json_array_get(entries, i), *params = json_object_get(e, "params");
        const bool is_set =
            json_integer_value(json_array_get(json_object_get(e, "shape"), 0)) == first;
        *(is_set ? set : unset) = params;
    }
    cr_assert(*set && *unset);
}

/* STAGES, newer than the database's other keys: written only where it is 2, and an entry
 * without it (every older one) reads as one buffer. */
Test(tuning_db, stages_written_only_when_two) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    clgemm_config two = regblock(32, 32, 16, 8, 8, 2, 2, 2), one = two;
    clgemm_config_set(&two, "STAGES", 2);
    clgemm_config_set(&one, "STAGES", 1);
    tuning_record r[] = {record(CLGEMM_SINGLE, 512, 512, 512, two),
                         record(CLGEMM_SINGLE, 64, 64, 64, one)};
    json_t *root, *set, *unset;
    saved_params(path, &info, r, 512, &root, &set, &unset);
    cr_expect_eq(json_object_size(set), 9);
    cr_expect_eq(json_object_size(unset), 8);
    cr_expect_eq(json_integer_value(json_object_get(set, "STAGES")), 2);
    json_decref(root);
    tuning_table *t = load_ok(path, &info);
    clgemm_config c;
    cr_assert(clgemm__tuning_lookup(t, &r[0].key, 512, 512, 512, &c));
    cr_expect(config_equal(&c, &two));
    int stages = -1;
    clgemm_config_get(&c, "STAGES", &stages);
    cr_expect_eq(stages, 2);
    cr_assert(clgemm__tuning_lookup(t, &r[1].key, 64, 64, 64, &c));
    clgemm_config_get(&c, "STAGES", &stages);
    cr_expect_eq(stages, 0, "an entry without the key: one buffer");
    clgemm__tuning_free(t);
    free(path);
}

/* The micro-kernel's KC and MC, newer than its other keys: written only where set (more than
 * 1), and an entry without them (every older one) reads as the default block sizes. */
Test(tuning_db, block_sizes_written_only_when_set) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    clgemm_config set = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {32, 8, 8}}, one = set;
    clgemm_config_set(&set, "KC", 128);
    clgemm_config_set(&set, "MC", 16);
    clgemm_config_set(&one, "KC", 1);
    tuning_record r[] = {record(CLGEMM_DOUBLE, 4096, 4096, 4096, set),
                         record(CLGEMM_DOUBLE, 64, 64, 64, one)};
    json_t *root, *params, *unset;
    saved_params(path, &info, r, 4096, &root, &params, &unset);
    cr_expect_eq(json_object_size(params), 5);
    cr_expect_eq(json_object_size(unset), 3);
    cr_expect_eq(json_integer_value(json_object_get(params, "KC")), 128);
    cr_expect_eq(json_integer_value(json_object_get(params, "MC")), 16);
    json_decref(root);
    tuning_table *t = load_ok(path, &info);
    clgemm_config c;
    cr_assert(clgemm__tuning_lookup(t, &r[0].key, 4096, 4096, 4096, &c));
    cr_expect(config_equal(&c, &set));
    cr_assert(clgemm__tuning_lookup(t, &r[1].key, 64, 64, 64, &c));
    int kc = -1, mc = -1;
    clgemm_config_get(&c, "KC", &kc);
    clgemm_config_get(&c, "MC", &mc);
    cr_expect(kc == 0 && mc == 0, "an entry without the keys: KC %d, MC %d", kc, mc);
    clgemm__tuning_free(t);
    free(path);
}

/* ---- Bad files ------------------------------------------------------------------------------ */

Test(tuning_db, missing_file_is_not_an_error) {
    char *path = temp_path("no-such.json");
    device_info info = fake_device();
    tuning_table *t = (tuning_table *)1;
    cr_assert_eq(clgemm__tuning_load(path, &info, &t), CLGEMM_SUCCESS);
    cr_assert_null(t);
    cr_assert_eq(clgemm__tuning_load("/nonexistent-dir/x/tuning.json", &info, &t), CLGEMM_SUCCESS);
    cr_assert_null(t);
    free(path);
}

Test(tuning_db, empty_file) {
    char *path = temp_path("tuning.json");
    write_file(path, "", 0);
    assert_load_fails(path, CLGEMM_ERR_DB_MALFORMED);
    free(path);
}

Test(tuning_db, malformed_files) {
    static const char *bad[] = {
        "{not json",
        "[]",
        "42",
        "null",
        "{\"entries\": []}",
        "{\"schema\": \"1\", \"entries\": []}",
        "{\"schema\": 1}",
        "{\"schema\": 1, \"entries\": {}}",
        "{\"schema\": 1, \"schema\": 1, \"entries\": []}",
        "{\"schema\": 1, \"entries\": []} trailing",
        "\xff\xfe{\"schema\": 1}",
    };
    char *path = temp_path("tuning.json");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(path, bad[i], strlen(bad[i]));
        assert_load_fails(path, CLGEMM_ERR_DB_MALFORMED);
    }
    free(path);
}

Test(tuning_db, truncated_file_at_every_length) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r[] = {record(CLGEMM_SINGLE, 128, 128, 128, tiled(16)),
                         record(CLGEMM_SINGLE, 512, 512, 512, regblock(32, 32, 16, 8, 8, 2, 2, 2))};
    cr_assert_eq(clgemm__tuning_save(path, &info, r, 2), CLGEMM_SUCCESS);
    size_t len;
    char *text = read_file(path, &len);
    size_t end = (size_t)(strrchr(text, '}') - text); /* the text up to here is not JSON */
    for (size_t cut = 0; cut <= end; cut++) {
        write_file(path, text, cut);
        assert_load_fails(path, CLGEMM_ERR_DB_MALFORMED);
    }
    free(text);
    free(path);
}

Test(tuning_db, wrong_schema_version) {
    char *path = temp_path("tuning.json");
    const char *text = "{\"schema\": 4, \"entries\": \"a future layout\"}";
    write_file(path, text, strlen(text));
    assert_load_fails(path, CLGEMM_ERR_DB_SCHEMA);
    /* A writer must not clobber a newer tool's database either. */
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(8));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_ERR_DB_SCHEMA);
    char *after = read_file(path, NULL);
    cr_assert_str_eq(after, text);
    free(after);
    free(path);
}

Test(tuning_db, directory_instead_of_file) {
    char *path = temp_path("tuning.json");
    cr_assert_eq(mkdir(path, 0755), 0);
    assert_load_fails(path, CLGEMM_ERR_DB_IO);
    free(path);
}

Test(tuning_db, random_corruption_never_crashes) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r[] = {record(CLGEMM_SINGLE, 128, 128, 128, tiled(16)),
                         record(CLGEMM_DOUBLE, 512, 512, 512, regblock(32, 32, 16, 8, 8, 2, 2, 2))};
    cr_assert_eq(clgemm__tuning_save(path, &info, r, 2), CLGEMM_SUCCESS);
    size_t len;
    char *good = read_file(path, &len);
    char *text = malloc(len);
    srand(1234);
    for (int round = 0; round < 500; round++) {
        memcpy(text, good, len);
        for (int flips = 1 + rand() % 4; flips > 0; flips--)
            text[rand() % len] = (char)(" {}[]\",:0123456789-.etaxS\\"[rand() % 27]);
        write_file(path, text, len);
        tuning_table *t = NULL;
        clgemm_status st = clgemm__tuning_load(path, &info, &t);
        cr_assert(st == CLGEMM_SUCCESS || st == CLGEMM_ERR_DB_MALFORMED ||
                      st == CLGEMM_ERR_DB_SCHEMA,
                  "status %d", st);
        clgemm_config c;
        /* A flip may leave only the "d" entry (schema 2 has more keys to break). */
        if (clgemm__tuning_lookup(t, NN(CLGEMM_SINGLE), 100, 100, 100, &c))
            cr_assert_eq(clgemm__config_check(&c, &info, CLGEMM_SINGLE), CLGEMM_SUCCESS);
        clgemm__tuning_free(t);
    }
    free(text);
    free(good);
    free(path);
}

/* ---- Entries the library must refuse -------------------------------------------------------- */

Test(tuning_db, entries_breaking_rules_are_skipped) {
    char *path = temp_path("tuning.json");
    static const char *const fields[] = {
        /* the one good entry */
        "\"precision\": \"s\", \"shape\": [64,64,64], \"family\": \"tiled\", \"params\": {\"TS\": "
        "8}",
        /* 32 x 32 work-items: more than the device's 256 */
        "\"precision\": \"s\", \"shape\": [65,64,64], \"family\": \"regblock\", \"params\": "
        "{\"MWG\": 64, \"NWG\": 64, \"KWG\": 16, \"MDIMC\": 32, \"NDIMC\": 32, \"KWI\": 2, "
        "\"VWM\": 2, \"VWN\": 2}",
        /* 2 x 128 x 128 x 4 bytes of local memory: more than 32 KiB */
        "\"precision\": \"s\", \"shape\": [66,64,64], \"family\": \"tiled\", \"params\": {\"TS\": "
        "128}",
        /* a rule of the family: MWG not a multiple of MDIMC * VWM */
        "\"precision\": \"s\", \"shape\": [67,64,64], \"family\": \"regblock\", \"params\": "
        "{\"MWG\": 16, \"NWG\": 16, \"KWG\": 16, \"MDIMC\": 8, \"NDIMC\": 4, \"KWI\": 2, \"VWM\": "
        "4, \"VWN\": 2}",
        "\"precision\": \"s\", \"shape\": [68,64,64], \"family\": \"winograd\", \"params\": "
        "{\"TS\": 8}",
        "\"precision\": \"s\", \"shape\": [69,64,64], \"family\": \"regblock\", \"params\": "
        "{\"MWG\": 32}",
        "\"precision\": \"s\", \"shape\": [70,64,64], \"family\": \"tiled\", \"params\": {\"TS\": "
        "\"16\"}",
        "\"precision\": \"s\", \"shape\": [71,64,64], \"family\": \"tiled\", \"params\": {\"TS\": "
        "16.5}",
        "\"precision\": \"s\", \"shape\": [72,64,64], \"family\": \"tiled\", \"params\": {\"TS\": "
        "-8}",
        "\"precision\": \"s\", \"shape\": [73,64,64], \"family\": \"tiled\", \"params\": {\"TS\": "
        "4294967312}",
        "\"precision\": \"q\", \"shape\": [74,64,64], \"family\": \"tiled\", \"params\": {\"TS\": "
        "8}",
        "\"precision\": \"s\", \"shape\": [75,64], \"family\": \"tiled\", \"params\": {\"TS\": 8}",
        "\"precision\": \"s\", \"shape\": [0,64,64], \"family\": \"tiled\", \"params\": {\"TS\": "
        "8}",
        "\"precision\": \"s\", \"shape\": [76,64,64], \"family\": \"tiled\"",
        "\"precision\": \"s\", \"shape\": [77,64,64], \"params\": {}",
    };
    /* another device: ignored, not an error */
    write_device_db(path, 1, fields, sizeof fields / sizeof *fields,
                    "{\"device\": {\"platform\": \"Other\", \"platform_version\": \"x\", "
                    "\"vendor\": \"x\", \"name\": \"x\", \"driver\": \"x\"}, \"precision\": \"s\", "
                    "\"shape\": [78,64,64], \"family\": \"tiled\", \"params\": {\"TS\": 16}},42, "
                    "null, [], {}, {\"device\": \"Test Device\"}");
    device_info info = fake_device();
    tuning_table *t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 1);
    clgemm_config c;
    cr_assert(clgemm__tuning_lookup(t, NN(CLGEMM_SINGLE), 70, 64, 64, &c));
    clgemm_config want = tiled(8);
    cr_assert(config_equal(&c, &want));
    clgemm__tuning_free(t);
    free(path);
}

Test(tuning_db, double_entry_rejected_without_fp64) {
    char *path = temp_path("tuning.json");
    char entries[1024];
    snprintf(entries, sizeof entries,
             "{\"device\": %s, \"precision\": \"d\", \"shape\": [64,64,64], \"family\": \"tiled\","
             " \"params\": {\"TS\": 8}}",
             device_json);
    write_db(path, entries);
    device_info info = fake_device();
    info.has_fp64 = false;
    cr_assert_null(load_ok(path, &info));
    info.has_fp64 = true;
    tuning_table *t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 1);
    clgemm__tuning_free(t);
    free(path);
}

Test(tuning_db, other_device_entries_are_ignored) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(8));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    device_info newer_driver = info;
    strcpy(newer_driver.driver_version, "1.1");
    cr_assert_null(load_ok(path, &newer_driver));
    free(path);
}

/* ---- Lookup --------------------------------------------------------------------------------- */

/* The nearest entry of the shape's class within a factor of two (log2 distance 1) is borrowed;
 * a far entry, or one of another class (long along M or N, deep or shallow in K), never is:
 * the default serves those shapes (issue 11: 2047^2 and skinny shapes borrowed far entries). */
Test(tuning_db, nearest_close_shape_of_its_class) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r[] = {
        record(CLGEMM_SINGLE, 128, 128, 128, tiled(8)),
        record(CLGEMM_SINGLE, 1024, 1024, 1024, tiled(16)),
        record(CLGEMM_SINGLE, 4096, 64, 4096, tiled(4)),
        record(CLGEMM_SINGLE, 256, 256, 16384, tiled(1)),
        record(CLGEMM_SINGLE, 1200, 300, 600, tiled(2)), /* M:N exactly 4: long along M */
        record(CLGEMM_DOUBLE, 256, 256, 256, tiled(2)),
    };
    cr_assert_eq(clgemm__tuning_save(path, &info, r, sizeof r / sizeof r[0]), CLGEMM_SUCCESS);
    tuning_table *t = load_ok(path, &info);
    struct {
        clgemm_precision p;
        size_t m, n, k;
        int ts; /* 0: no entry is close */
    } cases[] = {
        {CLGEMM_SINGLE, 128, 128, 128, 8},    {CLGEMM_SINGLE, 100, 150, 128, 8},
        {CLGEMM_SINGLE, 256, 128, 128, 8}, /* twice along one dimension: still close */
        {CLGEMM_SINGLE, 256, 256, 256, 0}, /* twice along all three: far */
        {CLGEMM_SINGLE, 400, 400, 400, 0},    {CLGEMM_SINGLE, 1000, 1000, 1000, 16},
        {CLGEMM_SINGLE, 1200, 900, 1024, 16}, {CLGEMM_SINGLE, 2047, 2047, 2047, 0},
        {CLGEMM_SINGLE, 9000, 9000, 9000, 0}, {CLGEMM_SINGLE, 3000, 50, 5000, 4},
        {CLGEMM_SINGLE, 4096, 64, 8192, 4},   {CLGEMM_SINGLE, 8192, 64, 8192, 0},
        {CLGEMM_SINGLE, 4096, 256, 4096, 0}, /* four times along N */
        {CLGEMM_SINGLE, 256, 256, 8192, 1},   {CLGEMM_SINGLE, 200, 300, 16384, 1},
        {CLGEMM_SINGLE, 1024, 1024, 4096, 0}, /* deep in K: not the 1024^3 entry's class */
        {CLGEMM_SINGLE, 1024, 1024, 256, 0},  /* shallow in K */
        {CLGEMM_SINGLE, 1024, 128, 1024, 0},  /* long along M, and far from 1200 x 300 */
        {CLGEMM_SINGLE, 1200, 300, 600, 2},   {CLGEMM_SINGLE, 1300, 310, 700, 2},
        {CLGEMM_SINGLE, 1199, 300, 600, 0}, /* just under 4: the other side of the boundary */
        {CLGEMM_SINGLE, 1, 1, 1, 0},          {CLGEMM_SINGLE, 0, 0, 0, 0},
        {CLGEMM_DOUBLE, 300, 200, 256, 2},    {CLGEMM_DOUBLE, 5000, 5000, 5000, 0},
        {CLGEMM_DOUBLE, 1, 2, 3, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clgemm_config c = {0};
        bool found =
            clgemm__tuning_lookup(t, NN(cases[i].p), cases[i].m, cases[i].n, cases[i].k, &c);
        cr_assert_eq(found, cases[i].ts != 0, "case %zu", i);
        if (found) cr_assert_eq(c.ts, cases[i].ts, "case %zu: TS %d", i, c.ts);
    }
    clgemm__tuning_free(t);
    free(path);
}

Test(tuning_db, lookup_without_entries) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 128, 128, 128, tiled(8));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    tuning_table *t = load_ok(path, &info);
    clgemm_config c;
    cr_assert_not(clgemm__tuning_lookup(t, NN(CLGEMM_DOUBLE), 128, 128, 128, &c));
    cr_assert_not(clgemm__tuning_lookup(NULL, NN(CLGEMM_SINGLE), 128, 128, 128, &c));
    clgemm__tuning_free(t);
    clgemm__tuning_free(NULL);
    free(path);
}

/* ---- Writing -------------------------------------------------------------------------------- */

Test(tuning_db, newer_entry_replaces_and_others_are_kept) {
    char *path = temp_path("tuning.json");
    char entries[1024];
    snprintf(entries, sizeof entries,
             "{\"device\": {\"platform\": \"Other\", \"platform_version\": \"x\", \"vendor\": "
             "\"x\", \"name\": \"x\", \"driver\": \"x\"}, \"precision\": \"s\", \"shape\": "
             "[256,256,256], \"family\": \"tiled\", \"params\": {\"TS\": 16}}");
    write_db(path, entries);
    device_info info = fake_device();
    tuning_record a = record(CLGEMM_SINGLE, 256, 256, 256, tiled(8));
    tuning_record b = record(CLGEMM_SINGLE, 256, 256, 256, tiled(16));
    tuning_record c = record(CLGEMM_DOUBLE, 256, 256, 256, tiled(4));
    cr_assert_eq(clgemm__tuning_save(path, &info, &a, 1), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm__tuning_save(path, &info, &b, 1), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm__tuning_save(path, &info, &c, 1), CLGEMM_SUCCESS);
    json_t *root = json_load_file(path, 0, NULL);
    cr_assert_eq(json_array_size(json_object_get(root, "entries")), 3, "other device kept");
    json_decref(root);
    tuning_table *t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 2);
    clgemm_config got;
    cr_assert(clgemm__tuning_lookup(t, NN(CLGEMM_SINGLE), 256, 256, 256, &got));
    cr_assert_eq(got.ts, 16, "the newer result replaces the older");
    clgemm__tuning_free(t);
    free(path);
}

Test(tuning_db, save_leaves_a_malformed_file_alone) {
    char *path = temp_path("tuning.json");
    write_file(path, "{\"schema\": 1, \"entr", 19);
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(8));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_ERR_DB_MALFORMED);
    char *after = read_file(path, NULL);
    cr_assert_str_eq(after, "{\"schema\": 1, \"entr");
    free(after);
    free(path);
}

Test(tuning_db, save_refuses_invalid_records) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(128));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_ERR_INVALID_PARAMS);
    cr_assert_neq(access(path, F_OK), 0, "nothing written");
    free(path);
}

Test(tuning_db, save_creates_missing_folders) {
    char *base = temp_path("a");
    char path[512];
    snprintf(path, sizeof path, "%s/b/c/tuning.json", base);
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(8));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    tuning_table *t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 1);
    clgemm__tuning_free(t);
    free(base);
}

Test(tuning_db, saving_nothing_only_checks) {
    char *base = temp_path("a");
    char path[512];
    snprintf(path, sizeof path, "%s/b/tuning.json", base);
    device_info info = fake_device();
    cr_assert_eq(clgemm__tuning_save(path, &info, NULL, 0), CLGEMM_SUCCESS);
    cr_assert_neq(access(path, F_OK), 0, "no database written");
    snprintf(path, sizeof path, "%s/b", base);
    cr_assert_eq(access(path, W_OK), 0, "its folder was created");
    cr_assert_eq(clgemm__tuning_save("/proc/no/tuning.json", &info, NULL, 0), CLGEMM_ERR_DB_IO);
    free(base);
}

/* Each child saves 100 entries one at a time, both at once: every save re-reads under the lock,
 * so all 200 must be there and the file must be valid. */
static void save_many(const char *path, size_t child) {
    device_info info = fake_device();
    for (size_t i = 0; i < 100; i++) {
        tuning_record r = record(CLGEMM_SINGLE, child * 1000 + i + 1, 64, 64, tiled(8));
        if (clgemm__tuning_save(path, &info, &r, 1) != CLGEMM_SUCCESS) _exit(1);
    }
    _exit(0);
}

Test(tuning_db, two_processes_writing_lose_nothing) {
    char *path = temp_path("tuning.json");
    pid_t pids[2];
    for (size_t c = 0; c < 2; c++) {
        pids[c] = fork();
        cr_assert_geq(pids[c], 0);
        if (pids[c] == 0) save_many(path, c + 1);
    }
    for (size_t c = 0; c < 2; c++) {
        int status;
        cr_assert_eq(waitpid(pids[c], &status, 0), pids[c]);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %zu failed", c);
    }
    device_info info = fake_device();
    tuning_table *t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 200);
    clgemm__tuning_free(t);
    /* No temporary file is left behind: only the database and its lock file. */
    char *dir = strdup(path);
    *strrchr(dir, '/') = 0;
    DIR *d = opendir(dir);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') {
            cr_assert(strcmp(e->d_name, "tuning.json") == 0 ||
                          strcmp(e->d_name, "tuning.json.lock") == 0,
                      "%s", e->d_name);
            files++;
        }
    closedir(d);
    cr_assert_eq(files, 2);
    free(dir);
    free(path);
}

/* ---- Path chain ----------------------------------------------------------------------------- */

Test(tuning_db, path_chain) {
    char buf[4096];
    setenv("HOME", "/home/someone", 1);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("CLGEMM_TUNING_DB");
    cr_assert_eq(clgemm__tuning_path(NULL, buf, sizeof buf), CLGEMM_SUCCESS);
    cr_assert_str_eq(buf, "/home/someone/.cache/clgemm/tuning.json");
    setenv("XDG_CACHE_HOME", "relative/ignored", 1);
    cr_assert_eq(clgemm__tuning_path(NULL, buf, sizeof buf), CLGEMM_SUCCESS);
    cr_assert_str_eq(buf, "/home/someone/.cache/clgemm/tuning.json");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    cr_assert_eq(clgemm__tuning_path(NULL, buf, sizeof buf), CLGEMM_SUCCESS);
    cr_assert_str_eq(buf, "/xdg/clgemm/tuning.json");
    setenv("CLGEMM_TUNING_DB", "/env/db.json", 1);
    cr_assert_eq(clgemm_tuning_path(NULL, buf, sizeof buf), CLGEMM_SUCCESS);
    cr_assert_str_eq(buf, "/env/db.json");
    cr_assert_eq(clgemm_tuning_path("/explicit.json", buf, sizeof buf), CLGEMM_SUCCESS);
    cr_assert_str_eq(buf, "/explicit.json");
    cr_assert_eq(clgemm_tuning_path("/explicit.json", buf, 5), CLGEMM_ERR_DB_IO);
}

/* ---- On a device: where the configuration comes from ---------------------------------------- */

static clgemm_handle open_handle(const char *db) {
    setenv("CLGEMM_TUNING_DB", db, 1);
    clgemm_handle h;
    cr_assert_eq(clgemm_create_default(&h), CLGEMM_SUCCESS, "no OpenCL device");
    return h;
}

static const char *source_of(clgemm_handle h, clgemm_config *c) {
    const char *source = NULL;
    cr_assert_eq(clgemm_get_config(h, CLGEMM_SINGLE, 300, 300, 300, c, &source), CLGEMM_SUCCESS);
    return source;
}

Test(tuning_db, fallback_order_through_the_public_api) {
    char *path = temp_path("tuning.json");
    clgemm_handle h = open_handle(path);
    clgemm_config c;
    cr_assert_str_eq(source_of(h, &c), "default");

    /* A device too small for every default gets the always-valid fallback: 1 KiB of local
     * memory, and a GPU's class, since a CPU's micro-kernel family needs no local memory. */
    const device_info info = h->info;
    h->info.local_mem_size = 1024;
    h->info.cls = DEVICE_NVIDIA_GPU;
    cr_assert_str_eq(source_of(h, &c), "fallback");
    h->info = info;

    clgemm_config tuned = regblock(16, 16, 16, 4, 4, 2, 2, 2);
    tuning_record r = record(CLGEMM_SINGLE, 256, 256, 256, tuned);
    cr_assert_eq(clgemm__tuning_save(path, &h->info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_load_tuning(h, NULL), CLGEMM_SUCCESS);
    cr_assert_str_eq(source_of(h, &c), "tuned");
    cr_assert(config_equal(&c, &tuned));

    clgemm_config forced = tiled(8);
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, &forced), CLGEMM_SUCCESS);
    cr_assert_str_eq(source_of(h, &c), "override");
    cr_assert(config_equal(&c, &forced));
    cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, NULL), CLGEMM_SUCCESS);
    cr_assert_str_eq(source_of(h, &c), "tuned");

    /* A new handle reads the database by itself; a bad one leaves it on the defaults. */
    clgemm_destroy(h);
    h = open_handle(path);
    cr_assert_str_eq(source_of(h, &c), "tuned");
    write_file(path, "{", 1);
    cr_assert_eq(clgemm_load_tuning(h, path), CLGEMM_ERR_DB_MALFORMED);
    cr_assert_str_eq(source_of(h, &c), "default");
    clgemm_destroy(h);
    free(path);
}

/* ---- Adversarial review (issue 14) ---------------------------------------------------------- */

static tuning_record searched(size_t m, clgemm_config c, size_t evaluated, bool exhaustive) {
    tuning_record r = record(CLGEMM_SINGLE, m, m, m, c);
    r.search = (tuning_search){.evaluated = evaluated, .exhaustive = exhaustive};
    return r;
}

static clgemm_config stored_for(const char *path, size_t m) {
    device_info info = fake_device();
    tuning_table *t = load_ok(path, &info);
    clgemm_config c = {0};
    cr_assert(clgemm__tuning_exact(t, NN(CLGEMM_SINGLE), m, m, m, &c));
    clgemm__tuning_free(t);
    return c;
}

/* Item 5: an entry is replaced only by a fuller search or by a result that beat it in the same
 * run; an entry of an older clgemm (no search record) only by the latter. */
Test(tuning_db, shorter_search_never_replaces_a_fuller_one) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r = searched(64, tiled(8), 500, false);
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    r = searched(64, tiled(16), 1, false);
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(stored_for(path, 64).ts, 8, "1 candidate replaced 500");
    r = searched(64, tiled(16), 500, false);
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(stored_for(path, 64).ts, 16, "as many candidates: the newer result");
    r = searched(64, tiled(4), 21705, true);
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    r = searched(64, tiled(8), 100000, false);
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(stored_for(path, 64).ts, 4, "a non-exhaustive search replaced an exhaustive one");
    r = searched(64, tiled(8), 2, false);
    r.beat_valid = true;
    r.beat = tiled(16); /* beat another configuration than the stored one: no */
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(stored_for(path, 64).ts, 4);
    r.beat = tiled(4); /* measured faster than the stored one in the same run: yes */
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(stored_for(path, 64).ts, 8);
    json_t *root = json_load_file(path, 0, NULL);
    json_t *search = json_object_get(json_array_get(json_object_get(root, "entries"), 0), "search");
    cr_assert_eq(json_integer_value(json_object_get(search, "evaluated")), 21705,
                 "the winner of both searches covers both");
    cr_assert(json_is_true(json_object_get(search, "exhaustive")));
    json_decref(root);

    /* An entry without a search record (older clgemm) is kept against any extent. */
    char entry[1024];
    snprintf(entry, sizeof entry,
             "{\"device\": %s, \"precision\": \"s\", \"shape\": [64,64,64], \"family\": "
             "\"tiled\", \"params\": {\"TS\": 2}}",
             device_json);
    write_db(path, entry);
    r = searched(64, tiled(8), 100000, false);
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(stored_for(path, 64).ts, 2);
    r.beat_valid = true;
    r.beat = tiled(2);
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(stored_for(path, 64).ts, 8);
    free(path);
}

/* Item 6: a FIFO at the database path is refused at once, not opened for a blocking read. */
Test(tuning_db, fifo_at_the_path_does_not_block, .timeout = 20) {
    char *path = temp_path("tuning.json");
    cr_assert_eq(mkfifo(path, 0600), 0);
    assert_load_fails(path, CLGEMM_ERR_DB_IO);
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(8));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_ERR_DB_IO);
    struct stat st;
    cr_assert(stat(path, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was left alone");
    free(path);
}

/* Item 8: a database above the size cap is refused with CLGEMM_ERR_DB_IO, unparsed. */
Test(tuning_db, huge_database_is_refused) {
    char *path = temp_path("tuning.json");
    size_t size = CLGEMM__TUNING_DB_MAX + 1;
    char *text = malloc(size);
    memset(text, ' ', size);
    memcpy(text, "{\"schema\": 1, \"entries\": []}", 28); /* valid JSON, padded with blanks */
    write_file(path, text, size);
    free(text);
    assert_load_fails(path, CLGEMM_ERR_DB_IO);
    free(path);
}

/* Item 8: a symlink at the database path is followed: its target is updated, the link stays. */
Test(tuning_db, symlink_database_is_followed) {
    char *target = temp_path("real.json"), *link = temp_path("tuning.json");
    cr_assert_eq(symlink(target, link), 0);
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(8));
    cr_assert_eq(clgemm__tuning_save(link, &info, &r, 1), CLGEMM_ERR_DB_IO, "dangling: refused");
    write_db(target, "");
    cr_assert_eq(clgemm__tuning_save(link, &info, &r, 1), CLGEMM_SUCCESS);
    struct stat st;
    cr_assert(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced by a file");
    tuning_table *t = load_ok(target, &info);
    cr_assert_eq(clgemm__tuning_count(t), 1, "the target was updated");
    clgemm__tuning_free(t);
    free(target);
    free(link);
}

/* Item 8: a symlink at the lock path is refused, its target never created. */
Test(tuning_db, lock_file_symlink_is_not_followed) {
    char *path = temp_path("tuning.json"), *victim = temp_path("victim");
    char lock[512];
    snprintf(lock, sizeof lock, "%s.lock", path);
    cr_assert_eq(symlink(victim, lock), 0);
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(8));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_ERR_DB_IO);
    cr_assert_neq(access(victim, F_OK), 0, "the link's target was created");
    free(path);
    free(victim);
}

/* Item 8: a new database file gets 0666 & ~umask; a replaced one keeps its mode. */
Test(tuning_db, new_file_mode_follows_the_umask) {
    char *path = temp_path("tuning.json"), *other = temp_path("other.json");
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(8));
    umask(077);
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600, "mode %o under umask 077", st.st_mode & 0777);
    umask(002);
    cr_assert_eq(clgemm__tuning_save(other, &info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(stat(other, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0664, "mode %o under umask 002", st.st_mode & 0777);
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600, "a replaced file keeps its mode");
    free(path);
    free(other);
}

/* Item 8: the check before tuning writes a real byte, so a disk that takes no more data (here a
 * file size limit of 0) fails it, rather than the save after the whole budget. */
Test(tuning_db, probe_writes_a_byte) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {0, 0};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    cr_assert_eq(clgemm__tuning_save(path, &info, NULL, 0), CLGEMM_ERR_DB_IO);
    free(path);
}

/* Item 8: temporaries of a killed writer are removed by the next save (writers make them only
 * under the lock, so any found there is stale), whatever their time stamps say: one dated a
 * minute ahead (a skewed clock) too. */
Test(tuning_db, stale_temporaries_are_removed) {
    char *path = temp_path("tuning.json");
    char tmp[512], ahead[512];
    snprintf(tmp, sizeof tmp, "%s.clgemm-tmp.AbC123", path);
    snprintf(ahead, sizeof ahead, "%s.clgemm-tmp.XyZ789", path);
    write_file(tmp, "{", 1);
    write_file(ahead, "{", 1);
    const struct timespec later[2] = {{time(NULL) + 60, 0}, {time(NULL) + 60, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, ahead, later, 0), 0);
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(8));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_neq(access(tmp, F_OK), 0, "the stale temporary is still there");
    cr_assert_neq(access(ahead, F_OK), 0, "the temporary dated ahead is still there");
    free(path);
}

/* Issue 36: a save removes only its own database's temporaries, the exact name
 * clgemm__temp_create makes; other files beside the database, of any age, stay. */
Test(tuning_db, save_removes_no_foreign_file) {
    char *path = temp_path("t.json");
    static const char *foreign[] = {
        ".tmp.backup",        ".tmp.AbC123",  ".clgemm-tmp.AbC12",   ".clgemm-tmp.AbC1234",
        ".clgemm-tmp.Ab-123", ".lock.backup", "x.clgemm-tmp.AbC123",
    };
    char name[512];
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
        snprintf(name, sizeof name, "%s%s", path, foreign[i]);
        write_file(name, "{", 1);
    }
    char other[512];
    snprintf(other, sizeof other, "%.*sother.json.clgemm-tmp.AbC123",
             (int)(strrchr(path, '/') + 1 - path), path);
    write_file(other, "{", 1);
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(8));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
        snprintf(name, sizeof name, "%s%s", path, foreign[i]);
        cr_expect_eq(access(name, F_OK), 0, "the save removed %s", name);
    }
    cr_expect_eq(access(other, F_OK), 0, "the save removed another database's temporary");
    free(path);
}

/* Item 9: a record of an unknown precision is refused, not stored as "s". */
Test(tuning_db, save_refuses_an_unknown_precision) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r = record((clgemm_precision)99, 64, 64, 64, tiled(8));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_ERR_INVALID_ARGUMENT);
    cr_assert_neq(access(path, F_OK), 0);
    free(path);
}

/* Item 8 / issue 8: one cache-folder rule for the database and the kernel cache: a relative
 * XDG_CACHE_HOME is ignored by both. */
Test(tuning_db, one_cache_folder_rule) {
    char buf[4096];
    setenv("HOME", "/home/someone", 1);
    setenv("XDG_CACHE_HOME", "relative", 1);
    cr_assert(clgemm__cache_root(buf, sizeof buf));
    cr_assert_str_eq(buf, "/home/someone/.cache/clgemm");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    cr_assert(clgemm__cache_root(buf, sizeof buf));
    cr_assert_str_eq(buf, "/xdg/clgemm");
}

/* ---- Schema 2: element types and transposes (issue 8 item 7) -------------------------------- */

static tuning_key key_of(clgemm_precision ab, clgemm_precision c, clgemm_transpose ta,
                         clgemm_transpose tb) {
    return clgemm__tuning_key(ab, c, ta, tb);
}

static bool lookup(const tuning_table *t, tuning_key key, size_t m, size_t n, size_t k,
                   clgemm_config *c) {
    return clgemm__tuning_lookup(t, &key, m, n, k, c);
}

#define N_ CLGEMM_NO_TRANS
#define T_ CLGEMM_TRANS
#define C_ CLGEMM_CONJ_TRANS

/* One entry per type pair and per transposes, all of the same shape and each with its own
 * configuration: each comes back under its own key, and only under it. */
Test(tuning_db, schema2_round_trip_every_key) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_key keys[] = {
        key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, N_),
        key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, T_),
        key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, T_, N_),
        key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, T_, T_),
        key_of(CLGEMM_DOUBLE, CLGEMM_DOUBLE, N_, N_),
        key_of(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, N_, N_),
        key_of(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, C_, T_),
        key_of(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, T_, C_),
        key_of(CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE, C_, C_),
        key_of(CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE, N_, C_),
        key_of(CLGEMM_HALF, CLGEMM_HALF, N_, N_),
        key_of(CLGEMM_HALF, CLGEMM_SINGLE, N_, N_),
        key_of(CLGEMM_BFLOAT16, CLGEMM_BFLOAT16, T_, N_),
        key_of(CLGEMM_BFLOAT16, CLGEMM_SINGLE, T_, N_),
    };
    enum { COUNT = sizeof keys / sizeof keys[0] };
    clgemm_config configs[COUNT] = {tiled(1),    tiled(2),     tiled(4),    tiled(8),
                                    tiled(16),   naive(1, 1),  naive(2, 2), naive(4, 4),
                                    naive(8, 8), naive(2, 4),  naive(4, 2), naive(8, 4),
                                    naive(4, 8), naive(16, 16)};
    tuning_record r[COUNT];
    for (int i = 0; i < COUNT; i++)
        r[i] = record_key(keys[i], 96, 96, 96, configs[i]);
    cr_assert_eq(clgemm__tuning_save(path, &info, r, COUNT), CLGEMM_SUCCESS);
    tuning_table *t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), COUNT, "a key was merged into another");
    for (int i = 0; i < COUNT; i++) {
        clgemm_config c;
        cr_assert(clgemm__tuning_exact(t, &keys[i], 96, 96, 96, &c), "key %d", i);
        cr_assert(config_equal(&c, &configs[i]), "key %d", i);
        cr_assert(clgemm__tuning_lookup(t, &keys[i], 80, 110, 96, &c), "key %d", i);
        cr_assert(config_equal(&c, &configs[i]), "key %d", i);
    }
    clgemm__tuning_free(t);

    /* The file says what each entry is for. */
    json_t *root = json_load_file(path, 0, NULL);
    cr_assert_not_null(root);
    cr_assert_eq(json_integer_value(json_object_get(root, "schema")), 3);
    json_t *e = json_array_get(json_object_get(root, "entries"), 6);
    cr_assert_str_eq(json_string_value(json_object_get(e, "precision")), "c");
    cr_assert_str_eq(json_string_value(json_object_get(e, "type_c")), "c");
    cr_assert_str_eq(json_string_value(json_object_get(e, "trans")), "CT");
    e = json_array_get(json_object_get(root, "entries"), 13);
    cr_assert_str_eq(json_string_value(json_object_get(e, "precision")), "bf16");
    cr_assert_str_eq(json_string_value(json_object_get(e, "type_c")), "s");
    cr_assert_str_eq(json_string_value(json_object_get(e, "trans")), "TN");
    json_decref(root);
    free(path);
}

/* A real type has no conjugate transpose: the key folds it into T; a record that bypasses the
 * folding, or pairs types the kernels do not compute, is refused and nothing is written. */
Test(tuning_db, keys_are_folded_and_checked) {
    tuning_key k = key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, C_, (clgemm_transpose)0);
    cr_assert_eq(k.trans_a, CLGEMM_TRANS);
    cr_assert_eq(k.trans_b, CLGEMM_NO_TRANS);
    k = key_of(CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE, C_, T_);
    cr_assert_eq(k.trans_a, CLGEMM_CONJ_TRANS);
    cr_assert_str_eq(clgemm__trans_name(k.trans_a, k.trans_b), "CT");

    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_key bad[] = {
        {CLGEMM_SINGLE, CLGEMM_SINGLE, C_, N_, 0},      /* conjugate of a real type */
        {CLGEMM_SINGLE, CLGEMM_DOUBLE, N_, N_, 0},      /* no such type pair */
        {CLGEMM_DOUBLE, CLGEMM_SINGLE, N_, N_, 0},      /* nor this one */
        {CLGEMM_HALF, CLGEMM_BFLOAT16, N_, N_, 0},      /* nor this one */
        {CLGEMM_SINGLE, CLGEMM_SINGLE, 0, N_, 0},       /* unfolded 0 */
        {CLGEMM_SINGLE, CLGEMM_SINGLE, N_, 114, 0},     /* not a transpose */
        {CLGEMM_HALF, (clgemm_precision)99, N_, N_, 0}, /* not a type */
        {CLGEMM_INT8, CLGEMM_INT8, N_, N_, 0},          /* INT8 has INT32 C */
        {CLGEMM_INT32, CLGEMM_INT32, N_, N_, 0},        /* INT32 is never A and B */
        {CLGEMM_E4M3, CLGEMM_E4M3, N_, N_, 0},          /* FP8 has FP32 / BF16 / FP16 C */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tuning_record r = record_key(bad[i], 64, 64, 64, tiled(8));
        cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_ERR_INVALID_ARGUMENT,
                     "key %zu", i);
    }
    cr_assert_neq(access(path, F_OK), 0, "nothing written");
    free(path);
}

/* A call with transposes uses an entry for them if one exists (even of a farther shape), else the
 * nearest NN entry of its types; never an entry of other types. */
Test(tuning_db, transposes_lookup_falls_back_to_nn) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r[] = {
        record(CLGEMM_SINGLE, 128, 128, 128, tiled(8)),
        record(CLGEMM_SINGLE, 1024, 1024, 1024, tiled(16)),
        record_key(key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, T_), 1024, 1024, 1024, tiled(4)),
        record(CLGEMM_COMPLEX_SINGLE, 256, 256, 256, tiled(2)),
        record_key(key_of(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, C_, T_), 256, 256, 256,
                   tiled(1)),
        record_key(key_of(CLGEMM_HALF, CLGEMM_SINGLE, N_, N_), 64, 64, 64, naive(4, 4)),
    };
    cr_assert_eq(clgemm__tuning_save(path, &info, r, sizeof r / sizeof r[0]), CLGEMM_SUCCESS);
    tuning_table *t = load_ok(path, &info);
    struct {
        tuning_key key;
        size_t m;
        bool found;
        clgemm_config want;
    } cases[] = {
        {key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, T_), 1000, true, tiled(4)}, /* its own */
        {key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, C_), 1000, true, tiled(4)}, /* C is T */
        {key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, T_, N_), 128, true, tiled(8)},  /* NN, nearest */
        /* its own entry is far (1024), the NN one close */
        {key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, T_), 128, true, tiled(8)},
        {key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, T_, T_), 1000, true, tiled(16)},
        {key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, N_), 1000, true, tiled(16)},
        {key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, T_, T_), 400, false, {0}}, /* none close */
        {key_of(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, C_, T_), 256, true, tiled(1)},
        {key_of(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, T_, C_), 200, true, tiled(2)},
        {key_of(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, T_, T_), 300, true, tiled(2)},
        {key_of(CLGEMM_HALF, CLGEMM_SINGLE, T_, T_), 64, true, naive(4, 4)},
        {key_of(CLGEMM_HALF, CLGEMM_SINGLE, T_, T_), 4096, false, {0}}, /* far */
        {key_of(CLGEMM_HALF, CLGEMM_HALF, N_, N_), 64, false, {0}},     /* C of another type */
        {key_of(CLGEMM_BFLOAT16, CLGEMM_SINGLE, N_, N_), 64, false, {0}},
        {key_of(CLGEMM_DOUBLE, CLGEMM_DOUBLE, N_, T_), 64, false, {0}},
        {key_of(CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE, C_, T_), 256, false, {0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clgemm_config c = {0};
        bool found = lookup(t, cases[i].key, cases[i].m, cases[i].m, cases[i].m, &c);
        cr_assert_eq(found, cases[i].found, "case %zu", i);
        if (found) cr_assert(config_equal(&c, &cases[i].want), "case %zu: TS %d", i, c.ts);
    }
    /* The exact lookup (the tuner's stored configuration) never falls back. */
    clgemm_config c;
    tuning_key nt = key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, T_),
               tn = key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, T_, N_);
    cr_assert(clgemm__tuning_exact(t, &nt, 1024, 1024, 1024, &c));
    cr_assert_not(clgemm__tuning_exact(t, &nt, 128, 128, 128, &c));
    cr_assert_not(clgemm__tuning_exact(t, &tn, 128, 128, 128, &c));
    clgemm__tuning_free(t);
    free(path);
}

/* Schema-2 entries with a bad key are skipped, the rest of the file used. */
Test(tuning_db, schema2_bad_keys_are_skipped) {
    char *path = temp_path("tuning.json");
    static const char *const fields[] = {
        "\"precision\": \"h\", \"type_c\": \"s\", \"trans\": \"TT\", \"shape\": [64,64,64], "
        "\"family\": \"tiled\", \"params\": {\"TS\": 8}",
        "\"precision\": \"s\", \"trans\": \"NC\", \"shape\": [65,64,64], \"family\": \"tiled\", "
        "\"params\": {\"TS\": 8}",
        "\"precision\": \"s\", \"trans\": \"XY\", \"shape\": [66,64,64], \"family\": \"tiled\", "
        "\"params\": {\"TS\": 8}",
        "\"precision\": \"s\", \"trans\": \"NNN\", \"shape\": [67,64,64], \"family\": \"tiled\", "
        "\"params\": {\"TS\": 8}",
        "\"precision\": \"s\", \"trans\": 5, \"shape\": [68,64,64], \"family\": \"tiled\", "
        "\"params\": {\"TS\": 8}",
        "\"precision\": \"s\", \"type_c\": \"d\", \"shape\": [69,64,64], \"family\": \"tiled\", "
        "\"params\": {\"TS\": 8}",
        "\"precision\": \"h\", \"type_c\": \"q\", \"shape\": [70,64,64], \"family\": \"tiled\", "
        "\"params\": {\"TS\": 8}",
        "\"precision\": \"h\", \"type_c\": null, \"shape\": [71,64,64], \"family\": \"tiled\", "
        "\"params\": {\"TS\": 8}",
        "\"precision\": \"c\", \"trans\": \"\", \"shape\": [72,64,64], \"family\": \"tiled\", "
        "\"params\": {\"TS\": 8}",
    };
    write_device_db(path, 2, fields, sizeof fields / sizeof *fields, NULL);
    device_info info = fake_device();
    tuning_table *t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 1);
    clgemm_config c;
    cr_assert(lookup(t, key_of(CLGEMM_HALF, CLGEMM_SINGLE, T_, T_), 70, 64, 64, &c));
    cr_assert_eq(c.ts, 8);
    cr_assert_not(lookup(t, key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, N_), 70, 64, 64, &c));
    clgemm__tuning_free(t);
    free(path);
}

/* A schema-1 file (clgemm 0.1) is read, each entry an NN entry of its precision with C of the
 * same type (any "trans" / "type_c" in it is not schema 1 and ignored). A save rewrites it as
 * schema 3 with every entry kept and its schema-1 meaning written out, other devices' included;
 * the upgraded entries keep their keys for the merge (replaced in place, not duplicated). */
Test(tuning_db, schema1_file_is_read_and_kept_on_merge) {
    char *path = temp_path("tuning.json");
    static const char *const fields[] = {
        "\"precision\": \"s\", \"shape\": [64,64,64], \"family\": \"tiled\", \"params\": {\"TS\": "
        "8}",
        "\"precision\": \"d\", \"shape\": [64,64,64], \"family\": \"tiled\", \"params\": {\"TS\": "
        "4}",
        "\"precision\": \"s\", \"trans\": \"TT\", \"type_c\": \"d\", \"shape\": [512,512,512], "
        "\"family\": \"tiled\", \"params\": {\"TS\": 16}",
    };
    write_device_db(
        path, 1, fields, sizeof fields / sizeof *fields,
        "{\"device\": {\"platform\": \"Other\", \"platform_version\": \"x\", \"vendor\": \"x\", "
        "\"name\": \"x\", \"driver\": \"x\"}, \"precision\": \"s\", \"shape\": [64,64,64], "
        "\"family\": \"tiled\", \"params\": {\"TS\": 2}},42"); /* schema 1 */
    device_info info = fake_device();
    tuning_table *t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 3);
    clgemm_config c;
    cr_assert(lookup(t, key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, N_), 64, 64, 64, &c));
    cr_assert_eq(c.ts, 8);
    cr_assert(lookup(t, key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, N_), 512, 512, 512, &c));
    cr_assert_eq(c.ts, 16, "the schema-1 entry with stray keys is an NN entry");
    cr_assert(lookup(t, key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, T_, T_), 512, 512, 512, &c));
    cr_assert_eq(c.ts, 16, "TT falls back to it");
    cr_assert(lookup(t, key_of(CLGEMM_DOUBLE, CLGEMM_DOUBLE, T_, N_), 64, 64, 64, &c));
    cr_assert_eq(c.ts, 4);
    clgemm__tuning_free(t);

    /* Merging a schema-2 record keeps everything. */
    tuning_record add = record_key(key_of(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, N_, C_), 32,
                                   32, 32, tiled(2));
    cr_assert_eq(clgemm__tuning_save(path, &info, &add, 1), CLGEMM_SUCCESS);
    json_t *root = json_load_file(path, 0, NULL);
    cr_assert_not_null(root);
    cr_assert_eq(json_integer_value(json_object_get(root, "schema")), 3);
    json_t *all = json_object_get(root, "entries");
    cr_assert_eq(json_array_size(all), 6, "an entry was dropped or the new one is missing");
    json_t *e = json_array_get(all, 2);
    cr_assert_str_eq(json_string_value(json_object_get(e, "type_c")), "s");
    cr_assert_str_eq(json_string_value(json_object_get(e, "trans")), "NN");
    cr_assert_eq(json_integer_value(json_object_get(e, "batch")), 1);
    e = json_array_get(all, 3);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "device"), "name")), "x");
    cr_assert_str_eq(json_string_value(json_object_get(e, "trans")), "NN");
    cr_assert_eq(json_integer_value(json_object_get(e, "batch")), 1);
    cr_assert_eq(json_integer_value(json_array_get(all, 4)), 42);
    json_decref(root);
    t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 4);
    cr_assert(lookup(t, key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, N_, N_), 512, 512, 512, &c));
    cr_assert_eq(c.ts, 16);
    cr_assert(
        lookup(t, key_of(CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE, N_, C_), 32, 32, 32, &c));
    cr_assert_eq(c.ts, 2);
    clgemm__tuning_free(t);

    /* An old entry (no search record) is replaced in place by a result that beat it. */
    tuning_record beat = record(CLGEMM_SINGLE, 64, 64, 64, tiled(1));
    beat.beat_valid = true;
    beat.beat = tiled(8);
    cr_assert_eq(clgemm__tuning_save(path, &info, &beat, 1), CLGEMM_SUCCESS);
    root = json_load_file(path, 0, NULL);
    cr_assert_eq(json_array_size(json_object_get(root, "entries")), 6);
    json_decref(root);
    cr_assert_eq(stored_for(path, 64).ts, 1);
    free(path);
}

/* Schemas below 1 or above 3 are neither read nor written. */
Test(tuning_db, unknown_schemas_are_refused) {
    static const char *texts[] = {"{\"schema\": 0, \"entries\": []}",
                                  "{\"schema\": -1, \"entries\": []}",
                                  "{\"schema\": 4, \"entries\": []}"};
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    for (size_t i = 0; i < 3; i++) {
        write_file(path, texts[i], strlen(texts[i]));
        assert_load_fails(path, CLGEMM_ERR_DB_SCHEMA);
        tuning_record r = record(CLGEMM_SINGLE, 64, 64, 64, tiled(8));
        cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_ERR_DB_SCHEMA);
        char *after = read_file(path, NULL);
        cr_assert_str_eq(after, texts[i]);
        free(after);
    }
    free(path);
}

/* On a device, through the public API: a row-major call is keyed as the column-major problem its
 * kernel runs (A and B swapped: n x m x k, transposes swapped). */
Test(tuning_db, row_major_calls_use_the_swapped_key) {
    char *path = temp_path("tuning.json");
    clgemm_handle h = open_handle(path);
    clgemm_config want = tiled(4);
    tuning_record r = record_key(key_of(CLGEMM_SINGLE, CLGEMM_SINGLE, T_, N_), 300, 200, 100, want);
    cr_assert_eq(clgemm__tuning_save(path, &h->info, &r, 1), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_load_tuning(h, NULL), CLGEMM_SUCCESS);
    struct {
        clgemm_layout layout;
        clgemm_transpose ta, tb;
        size_t m, n;
        const char *source;
    } cases[] = {
        {CLGEMM_COL_MAJOR, T_, N_, 300, 200, "tuned"},
        {CLGEMM_ROW_MAJOR, N_, T_, 200, 300, "tuned"},
        {CLGEMM_COL_MAJOR, N_, T_, 300, 200, "default"}, /* no NT nor NN entry */
        {CLGEMM_ROW_MAJOR, T_, N_, 200, 300, "default"},
        {CLGEMM_COL_MAJOR, C_, N_, 300, 200, "tuned"}, /* real: C is T */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clgemm_config c;
        const char *source = NULL;
        cr_assert_eq(clgemm_get_config_ex(h, cases[i].layout, cases[i].ta, cases[i].tb, cases[i].m,
                                          cases[i].n, 100, CLGEMM_SINGLE, CLGEMM_SINGLE,
                                          CLGEMM_COMPUTE_DEFAULT, &c, &source),
                     CLGEMM_SUCCESS);
        cr_assert_str_eq(source, cases[i].source, "case %zu", i);
        if (strcmp(source, "tuned") == 0) cr_assert(config_equal(&c, &want), "case %zu", i);
    }
    /* Other types never see the entry; bad arguments give their status. */
    clgemm_config c;
    const char *source = NULL;
    cr_assert_eq(clgemm_get_config_ex(h, CLGEMM_COL_MAJOR, T_, N_, 300, 200, 100, CLGEMM_HALF,
                                      CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &c, &source),
                 CLGEMM_SUCCESS);
    cr_assert_str_neq(source, "tuned");
    cr_assert_eq(clgemm_get_config_ex(h, (clgemm_layout)0, N_, N_, 1, 1, 1, CLGEMM_SINGLE,
                                      CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &c, NULL),
                 CLGEMM_ERR_INVALID_ARGUMENT);
    cr_assert_eq(clgemm_get_config_ex(h, CLGEMM_COL_MAJOR, N_, (clgemm_transpose)0, 1, 1, 1,
                                      CLGEMM_SINGLE, CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &c,
                                      NULL),
                 CLGEMM_ERR_INVALID_ARGUMENT);
    cr_assert_eq(clgemm_get_config_ex(h, CLGEMM_COL_MAJOR, N_, N_, 1, 1, 1, CLGEMM_SINGLE,
                                      CLGEMM_DOUBLE, CLGEMM_COMPUTE_DEFAULT, &c, NULL),
                 CLGEMM_ERR_INVALID_TYPE);
    cr_assert_eq(clgemm_get_config_ex(NULL, CLGEMM_COL_MAJOR, N_, N_, 1, 1, 1, CLGEMM_SINGLE,
                                      CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, &c, NULL),
                 CLGEMM_ERR_NULL_ARGUMENT);
    clgemm_destroy(h);
    free(path);
}

/* Found by the fuzzer: an entry the loader skips (here: no "params") must not keep a new result
 * of its key out of the file; it stays as it was, the result is added next to it. */
Test(tuning_db, skipped_entry_does_not_block_a_save) {
    char *path = temp_path("tuning.json");
    char entry[1024];
    snprintf(entry, sizeof entry,
             "{\"device\": %s, \"precision\": \"d\", \"shape\": [96,80,112], \"family\": "
             "\"tiled\", \"Iparams\": {\"TS\": 4}}",
             device_json);
    write_db(path, entry);
    device_info info = fake_device();
    tuning_record r = record(CLGEMM_DOUBLE, 96, 80, 112, tiled(8));
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_SUCCESS);
    tuning_table *t = load_ok(path, &info);
    clgemm_config c;
    cr_assert(clgemm__tuning_exact(t, NN(CLGEMM_DOUBLE), 96, 80, 112, &c));
    cr_assert_eq(c.ts, 8);
    clgemm__tuning_free(t);
    json_t *root = json_load_file(path, 0, NULL);
    cr_assert_eq(json_array_size(json_object_get(root, "entries")), 2);
    json_decref(root);
    free(path);
}

/* ---- Schema 3: the batch class (issue 10) --------------------------------------------------- */

static tuning_record batch_record(size_t m, size_t batch, clgemm_config c) {
    tuning_record r = record(CLGEMM_SINGLE, m, m, m, c);
    r.batch = batch;
    r.key.batch_class = clgemm__batch_class(batch);
    return r;
}

static tuning_key nn_batch(size_t batch) {
    tuning_key k = nn_key(CLGEMM_SINGLE);
    k.batch_class = clgemm__batch_class(batch);
    return k;
}

Test(tuning_db, batch_classes_have_their_bounds) {
    static const struct {
        size_t batch;
        int cls;
    } cases[] = {{0, 0},   {1, 0},   {2, 1},     {15, 1},      {16, 2},
                 {255, 2}, {256, 3}, {65536, 3}, {SIZE_MAX, 3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(clgemm__batch_class(cases[i].batch), cases[i].cls, "batch %zu",
                     cases[i].batch);
    for (int c = 0; c < 4; c++)
        cr_assert_eq(clgemm__batch_class(clgemm__batch_class_least(c)), c);
    cr_assert_eq(clgemm__batch_class_least(4), 0);
    tuning_key k = nn_key(CLGEMM_SINGLE);
    k.batch_class = 4;
    cr_assert_not(clgemm__tuning_key_ok(&k), "no class 4");
}

/* Entries of one shape in different batch classes are kept apart: each class finds its own,
 * and a class without an entry finds none (clgemm__plan decides on single-matrix entries). */
Test(tuning_db, batch_classes_are_kept_apart) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r[] = {batch_record(64, 1, tiled(8)), batch_record(64, 100, tiled(4)),
                         batch_record(64, 5000, tiled(2))};
    cr_assert_eq(clgemm__tuning_save(path, &info, r, 3), CLGEMM_SUCCESS);
    json_t *root = json_load_file(path, 0, NULL);
    json_t *entries = json_object_get(root, "entries");
    cr_assert_eq(json_array_size(entries), 3);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(entries, 1), "batch")), 100);
    json_decref(root);

    tuning_table *t = load_ok(path, &info);
    clgemm_config c;
    cr_assert(lookup(t, nn_batch(1), 64, 64, 64, &c));
    cr_assert_eq(c.ts, 8);
    cr_assert(lookup(t, nn_batch(16), 70, 64, 64, &c));
    cr_assert_eq(c.ts, 4, "16 is in the class of 100");
    cr_assert(lookup(t, nn_batch(300), 64, 64, 64, &c));
    cr_assert_eq(c.ts, 2);
    cr_assert_not(lookup(t, nn_batch(8), 64, 64, 64, &c), "no entry of class 2-15");
    cr_assert(clgemm__tuning_exact(t, &r[1].key, 64, 64, 64, &c));
    cr_assert_eq(c.ts, 4);
    /* The NN fallback of a transposed key stays in its class. */
    tuning_key tn = r[1].key;
    tn.trans_a = CLGEMM_TRANS;
    cr_assert(lookup(t, tn, 64, 64, 64, &c));
    cr_assert_eq(c.ts, 4);
    clgemm__tuning_free(t);

    /* A batch of another size in the same class is the same key: a fuller search replaces it. */
    tuning_record again = batch_record(64, 200, tiled(1));
    again.search.exhaustive = true;
    cr_assert_eq(clgemm__tuning_save(path, &info, &again, 1), CLGEMM_SUCCESS);
    t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 3);
    cr_assert(lookup(t, nn_batch(100), 64, 64, 64, &c));
    cr_assert_eq(c.ts, 1);
    cr_assert(lookup(t, nn_batch(1), 64, 64, 64, &c));
    cr_assert_eq(c.ts, 8, "the single-matrix entry is untouched");
    clgemm__tuning_free(t);
    free(path);
}

/* Schemas 1 and 2 had no batch: their entries are single-matrix ones (a "batch" in them is
 * ignored), and a save writes that out. In schema 3 a bad "batch" skips its entry. */
Test(tuning_db, older_schemas_are_single_matrix_entries) {
    char *path = temp_path("tuning.json");
    char text[2048];
    snprintf(text, sizeof text,
             "{\"schema\": 2, \"entries\": [{\"device\": %s, \"precision\": \"s\", \"batch\": 500, "
             "\"shape\": [64,64,64], \"family\": \"tiled\", \"params\": {\"TS\": 8}}]}",
             device_json);
    write_file(path, text, strlen(text));
    device_info info = fake_device();
    tuning_table *t = load_ok(path, &info);
    clgemm_config c;
    cr_assert(lookup(t, nn_batch(1), 64, 64, 64, &c));
    cr_assert_not(lookup(t, nn_batch(500), 64, 64, 64, &c));
    clgemm__tuning_free(t);
    tuning_record add = batch_record(128, 20, tiled(4));
    cr_assert_eq(clgemm__tuning_save(path, &info, &add, 1), CLGEMM_SUCCESS);
    json_t *root = json_load_file(path, 0, NULL);
    cr_assert_eq(json_integer_value(json_object_get(root, "schema")), 3);
    json_t *old = json_array_get(json_object_get(root, "entries"), 0);
    cr_assert_eq(json_integer_value(json_object_get(old, "batch")), 1, "its meaning written out");
    json_decref(root);
    t = load_ok(path, &info);
    cr_assert(lookup(t, nn_batch(1), 64, 64, 64, &c));
    cr_assert_eq(c.ts, 8);
    cr_assert_not(lookup(t, nn_batch(500), 64, 64, 64, &c));
    cr_assert(lookup(t, nn_batch(20), 128, 128, 128, &c));
    cr_assert_eq(c.ts, 4);
    clgemm__tuning_free(t);

    static const char *bad[] = {"0", "-3", "\"64\"", "1.5", "null", "[2]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text,
                 "{\"schema\": 3, \"entries\": [{\"device\": %s, \"precision\": \"s\", \"batch\": "
                 "%s, \"shape\": [64,64,64], \"family\": \"tiled\", \"params\": {\"TS\": 8}}]}",
                 device_json, bad[i]);
        write_file(path, text, strlen(text));
        tuning_table *none = (tuning_table *)1;
        cr_assert_eq(clgemm__tuning_load(path, &info, &none), CLGEMM_SUCCESS);
        cr_assert_null(none, "\"batch\": %s was accepted", bad[i]);
    }
    free(path);
}

/* A record whose key's class is not its batch's would be stored under the wrong key. */
Test(tuning_db, save_refuses_a_batch_of_another_class) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_record r = batch_record(64, 100, tiled(4));
    r.batch = 1;
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_ERR_INVALID_ARGUMENT);
    r = batch_record(64, 100, tiled(4));
    r.key.batch_class = 7;
    cr_assert_eq(clgemm__tuning_save(path, &info, &r, 1), CLGEMM_ERR_INVALID_ARGUMENT);
    cr_assert_eq(access(path, F_OK), -1, "nothing written");
    free(path);
}

/* On a device: a batch uses the entry of its class, else a single-matrix entry only if its tiles
 * pad little, else the default; one matrix never uses a batch entry. */
Test(tuning_db, planner_prefers_the_batch_class) {
    char *path = temp_path("tuning.json");
    clgemm_handle h = open_handle(path);
    clgemm_config single = regblock(64, 64, 16, 8, 8, 2, 4, 4), batched = tiled(8);
    tuning_record r[] = {batch_record(64, 1, single), batch_record(64, 1000, batched),
                         batch_record(40, 1, single)};
    cr_assert_eq(clgemm__tuning_save(path, &h->info, r, 3), CLGEMM_SUCCESS);
    cr_assert_eq(clgemm_load_tuning(h, NULL), CLGEMM_SUCCESS);
    tuning_key key = nn_key(CLGEMM_SINGLE);
    struct {
        size_t m, batch;
        const char *source;
        const clgemm_config *want;
    } cases[] = {
        {64, 1, "tuned", &single},     /* its own */
        {64, 1000, "tuned", &batched}, /* its class */
        {64, 300, "tuned", &batched},  /* the same class */
        {64, 20, "tuned", &single},    /* no entry of class 16-255: 64 x 64 tiles fit 64 */
        {40, 20, "default", NULL},     /* 64 x 64 tiles on 40 x 40 pad 2.6x */
        {40, 1, "tuned", &single},     /* one matrix pays no padding rule */
    };
    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *source = NULL;
        clgemm_config c = clgemm__plan(h, &key, CLGEMM_COMPUTE_DEFAULT, cases[i].m, cases[i].m,
                                       cases[i].m, cases[i].batch, &source);
        cr_assert_str_eq(source, cases[i].source, "case %zu", i);
        if (cases[i].want) cr_assert(config_equal(&c, cases[i].want), "case %zu", i);
    }
    pthread_mutex_unlock(&h->lock);
    clgemm_destroy(h);
    free(path);
}

/* The 8-bit types' keys: saved and read back under their names (i8 -> i32, e4m3 -> bf16, e5m2
 * -> h); an entry without "type_c" has the A/B type's default C (i32 for i8, s for FP8), and
 * "i32" as the A/B type is skipped as a bad entry, like a type an older library did not know. */
Test(tuning_db, eight_bit_keys) {
    char *path = temp_path("tuning.json");
    device_info info = fake_device();
    tuning_key keys[] = {
        key_of(CLGEMM_INT8, CLGEMM_INT32, N_, T_), key_of(CLGEMM_E4M3, CLGEMM_BFLOAT16, N_, N_),
        key_of(CLGEMM_E5M2, CLGEMM_HALF, T_, N_), key_of(CLGEMM_E5M2, CLGEMM_SINGLE, N_, N_)};
    tuning_record r[4];
    for (int i = 0; i < 4; i++)
        r[i] = record_key(keys[i], 96, 96, 96, tiled(1 << i));
    cr_assert_eq(clgemm__tuning_save(path, &info, r, 4), CLGEMM_SUCCESS);
    tuning_table *t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 4);
    for (int i = 0; i < 4; i++) {
        clgemm_config c;
        cr_assert(clgemm__tuning_exact(t, &keys[i], 96, 96, 96, &c), "key %d", i);
        cr_assert_eq(c.ts, 1 << i, "key %d", i);
    }
    clgemm__tuning_free(t);
    json_t *root = json_load_file(path, 0, NULL);
    cr_assert_not_null(root);
    json_t *e = json_array_get(json_object_get(root, "entries"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(e, "precision")), "i8");
    cr_assert_str_eq(json_string_value(json_object_get(e, "type_c")), "i32");
    e = json_array_get(json_object_get(root, "entries"), 1);
    cr_assert_str_eq(json_string_value(json_object_get(e, "precision")), "e4m3");
    cr_assert_str_eq(json_string_value(json_object_get(e, "type_c")), "bf16");
    json_decref(root);

    static const char *const fields[] = {
        "\"precision\": \"i8\", \"shape\": [64,64,64], \"family\": \"tiled\", \"params\": {\"TS\": "
        "4}",
        "\"precision\": \"e4m3\", \"shape\": [64,64,64], \"family\": \"tiled\", \"params\": "
        "{\"TS\": 8}",
        "\"precision\": \"i32\", \"shape\": [65,64,64], \"family\": \"tiled\", \"params\": "
        "{\"TS\": 8}",
        "\"precision\": \"i8\", \"type_c\": \"s\", \"shape\": [66,64,64], \"family\": \"tiled\", "
        "\"params\": {\"TS\": 8}",
    };
    write_device_db(path, 3, fields, sizeof fields / sizeof *fields, NULL);
    t = load_ok(path, &info);
    cr_assert_eq(clgemm__tuning_count(t), 2, "the i32 and i8 -> s entries are skipped");
    clgemm_config c;
    cr_assert(lookup(t, key_of(CLGEMM_INT8, CLGEMM_INT32, N_, N_), 64, 64, 64, &c));
    cr_assert_eq(c.ts, 4);
    cr_assert(lookup(t, key_of(CLGEMM_E4M3, CLGEMM_SINGLE, N_, N_), 64, 64, 64, &c));
    cr_assert_eq(c.ts, 8);
    cr_assert_not(lookup(t, key_of(CLGEMM_E4M3, CLGEMM_BFLOAT16, N_, N_), 64, 64, 64, &c));
    clgemm__tuning_free(t);
    free(path);
}
