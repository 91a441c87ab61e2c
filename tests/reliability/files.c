/* files.c: the library's files under attack (issue 14): the kernel disk cache with symlinks and
 * FIFOs planted at its entry and temporary names, a FIFO and a folder as kernel sources in
 * CLGEMM_KERNEL_DIR, a relative XDG_CACHE_HOME, and the cache's size bound. Each test works in
 * a temporary folder of its own and checks the call's result on the host. */
#include "clgemm.h"

#include "../common/temp_dir.h"
#include "rel_common.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

static char *path_in(const char *dir, const char *name) {
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

/* A folder of this test's temporary folder, made. */
static char *sub_dir(const char *name) {
    char *p = path_in(temp_dir("clgemm-files"), name);
    cr_assert_eq(mkdir(p, 0700), 0, "%s", p);
    return p;
}

/* C = A B (24 x 20 x 16) with config forced (NULL: the library's choice); returns its status
 * and, on success, checks C against a host product. */
static clgemm_status multiply(const clgemm_config *config) {
    clgemm_handle h;
    cr_assert_eq(clgemm_create_default(&h), CLGEMM_SUCCESS, "no OpenCL device");
    if (config) cr_assert_eq(clgemm_set_config(h, CLGEMM_SINGLE, config), CLGEMM_SUCCESS);
    enum { M = 24, N = 20, K = 16 };
    float a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 7 - 3) / 4;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(i % 5 - 2) / 4;
    for (int i = 0; i < M * N; i++)
        c[i] = NAN;
    clgemm_status st = clgemm_sgemm_host(h, CLGEMM_COL_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M,
                                         N, K, 1.0f, a, M, b, K, 0.0f, c, M);
    for (int j = 0; st == CLGEMM_SUCCESS && j < N; j++)
        for (int i = 0; i < M; i++) {
            double ref = 0;
            for (int l = 0; l < K; l++)
                ref += (double)a[i + l * M] * b[l + j * K];
            cr_assert_eq(c[i + j * M], ref, "C(%d,%d)", i, j);
        }
    clgemm_destroy(h);
    return st;
}

/* The cache entries (clgemm-<16 hex>.bin) in dir; returns how many, names into names[]. */
static size_t entries(const char *dir, char names[][64], size_t max, long long *bytes) {
    DIR *d = opendir(dir);
    size_t n = 0;
    if (bytes) *bytes = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len != 27 || strncmp(e->d_name, "clgemm-", 7) != 0 ||
            strcmp(e->d_name + 23, ".bin") != 0)
            continue;
        if (n < max) snprintf(names[n], 64, "%s", e->d_name);
        n++;
        struct stat st;
        char *p = path_in(dir, e->d_name);
        if (bytes && lstat(p, &st) == 0) *bytes += st.st_size;
        free(p);
    }
    closedir(d);
    return n;
}

static const clgemm_config tiled8 = {.family = CLGEMM_FAMILY_TILED, .ts = 8};

/* A first run fills the cache; returns the entry names after deleting the entries. */
static size_t fill_and_empty(const char *cache, char names[][64], size_t max) {
    setenv("CLGEMM_CACHE_DIR", cache, 1);
    cr_assert_eq(multiply(&tiled8), CLGEMM_SUCCESS);
    size_t n = entries(cache, names, max, NULL);
    cr_assert_gt(n, 0, "nothing was cached");
    for (size_t i = 0; i < n && i < max; i++) {
        char *p = path_in(cache, names[i]);
        cr_assert_eq(unlink(p), 0);
        free(p);
    }
    return n < max ? n : max;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* The symlink tests' start: an emptied cache (its entry names in names, their count returned)
 * and a file holding "victim" for the planted symlinks to point at. */
static size_t empty_cache_and_victim(char **cache, char **victim, char names[16][64]) {
    *cache = sub_dir("cache");
    *victim = path_in(temp_dir("clgemm-files"), "victim");
    size_t n = fill_and_empty(*cache, names, 16);
    write_text(*victim, "victim");
    return n;
}

static void assert_text(const char *path, const char *text) {
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    cr_assert_str_eq(buf, text, "%s was overwritten", path);
}

/* Item 4: symlinks planted at the temporary names the cache used to write (<entry>.<pid>.tmp)
 * must not make the library write through them. */
Test(files, cache_write_never_follows_a_planted_symlink, .timeout = 120) {
    char *cache, *victim, names[16][64];
    size_t n = empty_cache_and_victim(&cache, &victim, names);
    for (size_t i = 0; i < n; i++) {
        char link[4200];
        snprintf(link, sizeof link, "%s/%s.%ld.tmp", cache, names[i], (long)getpid());
        cr_assert_eq(symlink(victim, link), 0);
    }
    cr_assert_eq(multiply(&tiled8), CLGEMM_SUCCESS);
    assert_text(victim, "victim");
    char again[16][64];
    cr_assert_eq(entries(cache, again, 16, NULL), n, "the entries were written again");
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        char *p = path_in(cache, again[i]);
        cr_assert(lstat(p, &st) == 0 && S_ISREG(st.st_mode));
        free(p);
    }
    free(cache);
    free(victim);
}

/* Item 4: a symlink planted at an entry's own name is neither read nor written through. */
Test(files, cache_entry_symlink_is_replaced_not_followed, .timeout = 120) {
    char *cache, *victim, names[16][64];
    size_t n = empty_cache_and_victim(&cache, &victim, names);
    for (size_t i = 0; i < n; i++) {
        char *p = path_in(cache, names[i]);
        cr_assert_eq(symlink(victim, p), 0);
        free(p);
    }
    cr_assert_eq(multiply(&tiled8), CLGEMM_SUCCESS);
    assert_text(victim, "victim");
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        char *p = path_in(cache, names[i]);
        cr_assert(lstat(p, &st) == 0 && S_ISREG(st.st_mode), "%s", p);
        free(p);
    }
    free(cache);
    free(victim);
}

/* Item 6: a FIFO at a cache entry's name must not hang the build; it is rebuilt and replaced. */
Test(files, fifo_as_cache_entry_does_not_hang, .timeout = 60) {
    char *cache = sub_dir("cache");
    char names[16][64];
    size_t n = fill_and_empty(cache, names, 16);
    for (size_t i = 0; i < n; i++) {
        char *p = path_in(cache, names[i]);
        cr_assert_eq(mkfifo(p, 0600), 0);
        free(p);
    }
    cr_assert_eq(multiply(&tiled8), CLGEMM_SUCCESS);
    free(cache);
}

/* A kernel folder: copies of $REL_KERNEL_SRC's files, then `name` made by make(). */
static char *kernel_dir(const char *name, int (*make)(const char *path)) {
    const char *src = getenv("REL_KERNEL_SRC");
    cr_assert(src && *src, "REL_KERNEL_SRC must name the source cl/ folder");
    char *dir = sub_dir("kernels");
    DIR *d = opendir(src);
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (!rel_is_kernel_file(e->d_name) || strcmp(e->d_name, name) == 0) continue;
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "cp '%s/%s' '%s/'", src, e->d_name, dir);
        cr_assert_eq(system(cmd), 0);
    }
    closedir(d);
    char *p = path_in(dir, name);
    cr_assert_eq(make(p), 0);
    free(p);
    setenv("CLGEMM_KERNEL_DIR", dir, 1);
    setenv("CLGEMM_CACHE_DIR", "off", 1);
    return dir;
}

static int make_fifo(const char *path) {
    return mkfifo(path, 0600);
}

static int make_folder(const char *path) {
    return mkdir(path, 0700);
}

/* Item 6: a FIFO as a kernel source is refused at once (CLGEMM_ERR_KERNEL_SOURCE), no hang. */
Test(files, fifo_as_kernel_source_does_not_hang, .timeout = 60) {
    char *dir = kernel_dir("tiled.cl", make_fifo);
    cr_assert_eq(multiply(&tiled8), CLGEMM_ERR_KERNEL_SOURCE);
    free(dir);
}

/* Item 6: a folder named like a kernel source is refused, not sized as 2^63 bytes. */
Test(files, folder_as_kernel_source_is_refused, .timeout = 60) {
    char *dir = kernel_dir("common.cl", make_folder);
    cr_assert_eq(multiply(&tiled8), CLGEMM_ERR_KERNEL_SOURCE);
    free(dir);
}

/* Item 8: a relative XDG_CACHE_HOME is ignored by the kernel cache too: binaries go under
 * $HOME/.cache/clgemm/kernels, never into the current folder. */
Test(files, relative_xdg_cache_home_is_ignored, .timeout = 120) {
    char *home = sub_dir("home"), *work = sub_dir("work");
    unsetenv("CLGEMM_CACHE_DIR");
    setenv("HOME", home, 1);
    setenv("XDG_CACHE_HOME", "relative-cache", 1);
    cr_assert_eq(chdir(work), 0);
    cr_assert_eq(multiply(&tiled8), CLGEMM_SUCCESS);
    /* (PoCL may put its own cache there: only clgemm's folder counts.) */
    cr_assert_neq(access("relative-cache/clgemm", F_OK), 0,
                  "the cache went into the current folder");
    char *kernels = path_in(home, ".cache/clgemm/kernels");
    char names[4][64];
    cr_assert_gt(entries(kernels, names, 4, NULL), 0, "nothing in %s", kernels);
    free(kernels);
    free(home);
    free(work);
}

#define REGBLOCK(mwg_, nwg_, kwg_, mdimc_, ndimc_, kwi_, vwm_, vwn_)                               \
    {                                                                                              \
        .family = CLGEMM_FAMILY_REGBLOCK, .mwg = mwg_, .nwg = nwg_, .kwg = kwg_, .mdimc = mdimc_,  \
        .ndimc = ndimc_, .kwi = kwi_, .vwm = vwm_, .vwn = vwn_                                     \
    }

/* Item 8: the cache is bounded (CLGEMM_CACHE_MAX_MB): after several builds it holds at most the
 * bound, the least recently used entries removed. */
Test(files, cache_is_bounded, .timeout = 300) {
    char *cache = sub_dir("cache");
    setenv("CLGEMM_CACHE_DIR", cache, 1);
    setenv("CLGEMM_CACHE_MAX_MB", "1", 1);
    /* Register-blocked binaries are 0.2 to 0.5 MiB on PoCL: together well over the bound. */
    const clgemm_config configs[] = {
        REGBLOCK(16, 16, 16, 4, 4, 2, 2, 2),      REGBLOCK(32, 32, 16, 8, 8, 2, 2, 2),
        REGBLOCK(32, 32, 32, 4, 8, 4, 4, 4),      REGBLOCK(64, 32, 16, 8, 4, 2, 4, 4),
        {.family = CLGEMM_FAMILY_TILED, .ts = 8}, {.family = CLGEMM_FAMILY_TILED, .ts = 16},
        REGBLOCK(64, 64, 16, 8, 8, 2, 4, 4),
    };
    /* What the builds wrote: the size of every entry the first time it is seen (the folder's
     * growth would hide what eviction removed meanwhile). */
    long long written = 0, bytes = 0;
    char names[32][64], seen[64][64];
    size_t nseen = 0;
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        cr_assert_eq(multiply(&configs[i]), CLGEMM_SUCCESS);
        size_t now = entries(cache, names, 32, NULL);
        for (size_t e = 0; e < now && e < 32; e++) {
            bool known = false;
            for (size_t k = 0; k < nseen; k++)
                known |= strcmp(seen[k], names[e]) == 0;
            struct stat st;
            char *p = path_in(cache, names[e]);
            if (!known && nseen < 64 && lstat(p, &st) == 0) {
                snprintf(seen[nseen++], 64, "%s", names[e]);
                written += st.st_size;
            }
            free(p);
        }
    }
    size_t n = entries(cache, names, 32, &bytes);
    cr_assert_gt(written, 1 << 20, "the builds wrote only %lld bytes: the test proves nothing",
                 written);
    cr_assert_leq(bytes, 1 << 20, "%zu entries, %lld bytes, over the 1 MiB bound", n, bytes);
    cr_log_info("the builds wrote %lld bytes; %zu entries, %lld bytes remain", written, n, bytes);
    cr_assert_gt(n, 0);
    free(cache);
}

/* A file of `size` bytes at dir/name, `age_s` seconds old (utime). */
static void plant(const char *dir, const char *name, size_t size, long age_s) {
    char *p = path_in(dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    for (size_t i = 0; i < size; i++)
        fputc('x', f);
    fclose(f);
    struct utimbuf t = {time(NULL) - age_s, time(NULL) - age_s};
    cr_assert_eq(utime(p, &t), 0);
    free(p);
}

static bool exists_in(const char *dir, const char *name) {
    char *p = path_in(dir, name);
    bool there = access(p, F_OK) == 0;
    free(p);
    return there;
}

/* Issue 36: the cache folder may be shared with other files (a project folder, ~/.cache, /tmp):
 * builds, evictions and the clean-up of stale temporaries and locks remove only the cache's own
 * names, of any age, and still remove those. */
Test(files, foreign_files_in_the_cache_folder_are_never_removed, .timeout = 300) {
    char *cache = sub_dir("cache");
    static const char *foreign[] = {
        "Cargo.lock",
        "yarn.lock",
        "report.tmp.backup",
        "notes.txt",
        "data.bin",
        "0123456789abcdef.bin",            /* a bare hash: not a name the cache makes */
        "0123456789abcdef.lock",           /* the same for a lock */
        "0123456789abcdef.bin.tmp.AbC123", /* another program's temporary pattern */
        "notes.txt.clgemm-tmp.AbC123",     /* the library's infix, not a cache entry's */
        "clgemm-0123456789abcdef.bin.clgemm-tmp.AbC12", /* five characters, not six */
        "clgemm-0123456789ABCDEF.lock",                 /* upper-case hex: never made */
        "clgemm-0123456789abcdef.lock.backup",
        "clgemm-notahash.bin",
    };
    size_t nf = sizeof foreign / sizeof foreign[0];
    /* Each foreign name twice: two hours old and new; the .bin ones large enough that counting
     * them would push the cache over its bound and make them the first to be evicted. */
    char name[128];
    for (size_t i = 0; i < nf; i++) {
        size_t size = strstr(foreign[i], ".bin") ? 700 << 10 : 16;
        plant(cache, foreign[i], size, 7200);
        snprintf(name, sizeof name, "new-%s", foreign[i]);
        plant(cache, name, size, 0);
    }
    /* The library's own leftovers: an old entry (evicted under the bound), a killed writer's
     * temporary and a killed builder's lock (both stale), and a fresh temporary (kept). */
    const char *own_entry = "clgemm-00000000000000aa.bin";
    const char *own_temp = "clgemm-00000000000000bb.bin.clgemm-tmp.XyZ789";
    const char *own_lock = "clgemm-00000000000000cc.lock";
    const char *own_fresh_temp = "clgemm-00000000000000dd.bin.clgemm-tmp.QrS456";
    plant(cache, own_entry, 1500 << 10, 7200);
    plant(cache, own_temp, 16, 7200);
    plant(cache, own_lock, 0, 7200);
    plant(cache, own_fresh_temp, 16, 0);

    setenv("CLGEMM_CACHE_DIR", cache, 1);
    setenv("CLGEMM_CACHE_MAX_MB", "1", 1);
    cr_assert_eq(multiply(&tiled8), CLGEMM_SUCCESS);
    const clgemm_config tiled16 = {.family = CLGEMM_FAMILY_TILED, .ts = 16};
    cr_assert_eq(multiply(&tiled16), CLGEMM_SUCCESS);
    unsetenv("CLGEMM_CACHE_MAX_MB");

    for (size_t i = 0; i < nf; i++) {
        cr_expect(exists_in(cache, foreign[i]), "the cache removed %s (two hours old)", foreign[i]);
        snprintf(name, sizeof name, "new-%s", foreign[i]);
        cr_expect(exists_in(cache, name), "the cache removed %s (new)", name);
    }
    cr_expect(!exists_in(cache, own_entry), "the cache's oldest entry was not evicted");
    cr_expect(!exists_in(cache, own_temp), "the cache's stale temporary is still there");
    cr_expect(!exists_in(cache, own_lock), "the cache's stale lock is still there");
    cr_expect(exists_in(cache, own_fresh_temp), "a fresh temporary (a writer's now) was removed");
    cr_expect_gt(entries(cache, NULL, 0, NULL), 0, "the builds cached nothing");
    free(cache);
}
