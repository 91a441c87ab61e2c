/* device_state.c: what the handles of one device (in one context) share: the device's facts,
 * queried once; its compiled programs; and the parsed tuning table of the default database.
 * A process-wide list holds one entry per (context, device), counted by the handles using it.
 * The tuning table is re-read only when the database file changed (its identity and size and
 * modification time), so a thousand handles parse a large database once. */
#include "exec/exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static pthread_mutex_t states_lock = PTHREAD_MUTEX_INITIALIZER;
static device_state *states;

/* The identity of the database file at path (all zero when it is absent). */
static void file_identity(const char *path, struct stat *out) {
    memset(out, 0, sizeof *out);
    if (stat(path, out) != 0) memset(out, 0, sizeof *out);
}

static bool same_file(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

shared_tuning *clgemm__tuning_share(tuning_table *table) {
    shared_tuning *s = calloc(1, sizeof *s);
    if (!s) {
        clgemm__tuning_free(table);
        return NULL;
    }
    s->refs = 1;
    s->table = table;
    return s;
}

void clgemm__tuning_unshare(shared_tuning *s) {
    if (!s) return;
    pthread_mutex_lock(&states_lock);
    bool last = --s->refs == 0;
    pthread_mutex_unlock(&states_lock);
    if (!last) return;
    clgemm__tuning_free(s->table);
    free(s);
}

/* The device's table of the default database, re-read if the file changed since (caller holds
 * states_lock). Returns a reference for the caller, or NULL. */
static shared_tuning *default_tuning(device_state *d) {
    char path[4096];
    if (clgemm__tuning_path(NULL, path, sizeof path) != CLGEMM_SUCCESS) path[0] = 0;
    struct stat now;
    file_identity(path, &now);
    if (!d->tuning || strcmp(path, d->tuning_path) != 0 || !same_file(&now, &d->tuning_file)) {
        tuning_table *table = NULL;
        clgemm_status st = clgemm__tuning_load(NULL, &d->build.info, &table);
        if (st != CLGEMM_SUCCESS)
            clgemm__log("tuning database not used: %s", clgemm_status_string(st));
        shared_tuning *fresh = clgemm__tuning_share(table);
        if (!fresh) return NULL;
        if (d->tuning && --d->tuning->refs == 0) {
            clgemm__tuning_free(d->tuning->table);
            free(d->tuning);
        }
        d->tuning = fresh;
        snprintf(d->tuning_path, sizeof d->tuning_path, "%s", path);
        d->tuning_file = now;
    }
    d->tuning->refs++;
    return d->tuning;
}

clgemm_status clgemm__device_acquire(cl_context context, cl_device_id device, device_state **out,
                                     shared_tuning **tuning) {
    pthread_mutex_lock(&states_lock);
    device_state *d = states;
    while (d && (d->build.context != context || d->build.device != device))
        d = d->next;
    clgemm_status st = CLGEMM_SUCCESS;
    if (!d) {
        d = calloc(1, sizeof *d);
        if (!d)
            st = CLGEMM_ERR_OUT_OF_HOST_MEMORY;
        else if ((st = clgemm__program_device_init(&d->build, context, device)) != CLGEMM_SUCCESS) {
            free(d);
            d = NULL;
        } else {
            clRetainContext(context);
            /* Tensor maps need the CUDA driver next to OpenCL (tensor_map.c, this layer). */
            d->build.info.nv_tma = d->build.info.nv_sm90a &&
                                   clgemm__tensor_map_service(&d->build.info) == TMAP_SERVICE_OK;
            d->next = states;
            states = d;
        }
    }
    if (d) {
        d->refs++;
        *tuning = default_tuning(d);
    }
    pthread_mutex_unlock(&states_lock);
    *out = d;
    return st;
}

void clgemm__device_release(device_state *d) {
    if (!d) return;
    pthread_mutex_lock(&states_lock);
    bool last = --d->refs == 0;
    if (last) {
        device_state **p = &states;
        while (*p != d)
            p = &(*p)->next;
        *p = d->next;
    }
    pthread_mutex_unlock(&states_lock);
    if (!last) return;
    clgemm__program_device_free(&d->build);
    if (d->tuning) clgemm__tuning_unshare(d->tuning);
    clReleaseContext(d->build.context);
    free(d);
}
