/* temp_dir.h: a temporary folder for one test process, removed with everything in it when the
 * process exits (Criterion runs each test in a process of its own), so test runs leave nothing
 * behind in /tmp. */
#ifndef CLGEMM_TEST_TEMP_DIR_H
#define CLGEMM_TEST_TEMP_DIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char temp_dir_made[64];

static int temp_dir_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void temp_dir_remove(void) {
    if (temp_dir_made[0]) nftw(temp_dir_made, temp_dir_remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* A new folder /tmp/<prefix>-XXXXXX (NULL on failure); one per process, made on first use. */
static inline const char *temp_dir(const char *prefix) {
    if (temp_dir_made[0]) return temp_dir_made;
    snprintf(temp_dir_made, sizeof temp_dir_made, "/tmp/%s-XXXXXX", prefix);
    if (!mkdtemp(temp_dir_made)) {
        temp_dir_made[0] = 0;
        return NULL;
    }
    atexit(temp_dir_remove);
    return temp_dir_made;
}

#endif
