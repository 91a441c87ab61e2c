/* handle.c: a handle's life cycle (create on a queue or on a chosen device, destroy) and the
 * per-handle settings: forced configurations, the tuning table, the last build log. */
#include "exec/call.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A forcing variable's number: true only for a whole decimal number (a sign, digits, then for
 * CLGEMM_STREAMK its ",T"), so that a garbage value is as if unset rather than a forced choice
 * ("abc" was a K split of 1, "7abc" 7). `rest` (or NULL) receives what follows the number. */
static bool env_number(const char *name, long *value, const char **rest) {
    const char *s = getenv(name);
    if (!s || !*s) return false;
    char *end;
    *value = strtol(s, &end, 10);
    if (end == s) return false;
    if (rest) *rest = end;
    return rest ? (*end == '\0' || *end == ',') : *end == '\0';
}

/* A setting that is "1" (1: always), "0" (0: never) or anything else (-1: the default). */
static int env_always_never(const char *name) {
    const char *s = getenv(name);
    return !s ? -1 : strcmp(s, "1") == 0 ? 1 : strcmp(s, "0") == 0 ? 0 : -1;
}

/* The handle's settings from the environment: read when it is made, never on the warm call
 * path. */
void clgemm__handle_read_environment(struct clgemm_handle_s *h) {
    const char *tf32 = getenv("CLGEMM_ALLOW_TF32");
    h->allow_tf32 = tf32 && strcmp(tf32, "1") == 0;
    /* The tma family's TF32 kernel loading an MN-major A into registers (cl/tma.cl's AREG) in
     * place of the copy that makes it K-major: 1 always, 0 never, else by the call's size. */
    h->tma_a_registers = env_always_never("CLGEMM_TMA_A_REGISTERS");
    h->align_copies = env_always_never("CLGEMM_ALIGN_COPIES");
    h->mn_major_copies = env_always_never("CLGEMM_MN_MAJOR_COPIES");
    long forced;
    const char *rest;
    if (env_number("CLGEMM_KSPLIT", &forced, NULL))
        h->ksplit = forced < 1 ? 1 : forced > CLGEMM__MAX_SPLITS ? CLGEMM__MAX_SPLITS : (int)forced;
    h->streamk = -1;
    if (env_number("CLGEMM_STREAMK", &forced, &rest)) {
        h->streamk = forced < 0 ? 0 : forced > 65535 ? 65535 : (int)forced;
        if (*rest == ',') h->streamk_tail = strtol(rest + 1, NULL, 10) == 1 ? 1 : 2;
    }
    const char *peel = getenv("CLGEMM_PEEL");
    h->peel = peel && *peel ? (strcmp(peel, "0") == 0 ? 0 : 1) : -1;
    /* The blocked schedule's K-block depth (tests force small ones so that every loop runs
     * several times); 0 turns it off. */
    if (env_number("CLGEMM_PACK_KC", &forced, NULL))
        h->pack_kc = forced < 1 ? -1 : forced > 65536 ? 65536 : (int)forced;
    if (env_number("CLGEMM_BATCH_CHUNK", &forced, NULL)) h->batch_chunk = forced;
    /* A partial last wave shared out by a K split (clgemm__plan_tail): 0 never, 1 always, n waves
     * of n work-groups. */
    if (env_number("CLGEMM_TAIL", &forced, NULL))
        h->tail = forced < 1 ? -1 : forced > 65535 ? 65535 : (int)forced;
}

static clgemm_status handle_init(clgemm_handle h, cl_command_queue queue) {
    cl_int err =
        clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof h->context, &h->context, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof h->device, &h->device, NULL);
    if (err != CL_SUCCESS) return err;
    /* Device facts, programs and the default tuning table are shared with the other handles
     * of this device; a bad or missing database is not fatal (built-in defaults). */
    clgemm_status st = clgemm__device_acquire(h->context, h->device, &h->dev, &h->tuning_ref);
    if (st != CLGEMM_SUCCESS) return st;
    if (pthread_mutex_init(&h->lock, NULL) != 0) {
        clgemm__tuning_unshare(h->tuning_ref);
        clgemm__device_release(h->dev);
        return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    }
    h->info = h->dev->build.info;
    h->tuning = h->tuning_ref ? h->tuning_ref->table : NULL;
    clgemm__handle_read_environment(h); /* (never on the warm call path) */
    h->queue = queue;
    clRetainCommandQueue(queue);
    clRetainContext(h->context);
    return CLGEMM_SUCCESS;
}

clgemm_status clgemm_create(clgemm_handle *handle, cl_command_queue queue) {
    if (!handle || !queue) return CLGEMM_ERR_NULL_ARGUMENT;
    *handle = NULL;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    clgemm__fork_mark_used();
    clgemm_handle h = calloc(1, sizeof *h);
    if (!h) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
    clgemm_status st = handle_init(h, queue);
    if (st != CLGEMM_SUCCESS) {
        free(h);
        return st;
    }
    *handle = h;
    return CLGEMM_SUCCESS;
}

/* True if spec (an index or a case-insensitive substring; empty matches all) names entry
 * number `index` called `name`. */
bool clgemm__spec_matches(const char *spec, size_t len, cl_uint index, const char *name) {
    if (len == 0) return true;
    char buf[128];
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, spec, len);
    buf[len] = 0;
    char *end;
    unsigned long v = strtoul(buf, &end, 10);
    if (*end == 0) return v == index;
    for (const char *s = name; *s; s++)
        if (strncasecmp(s, buf, len) == 0) return true;
    return false;
}

/* Finds the device CLGEMM_DEVICE names, or else the first GPU, or else the first device. */
static clgemm_status find_device(cl_device_id *out) {
    const char *env = getenv("CLGEMM_DEVICE");
    const char *colon = env ? strchr(env, ':') : NULL;
    size_t plen = env ? (colon ? (size_t)(colon - env) : strlen(env)) : 0;
    const char *dspec = colon ? colon + 1 : "";
    cl_platform_id platforms[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0) return CLGEMM_ERR_NO_DEVICE;
    if (np > 16) np = 16;
    cl_device_id first = NULL;
    for (int want_gpu = 1; want_gpu >= 0; want_gpu--) {
        for (cl_uint p = 0; p < np; p++) {
            char pname[128] = "";
            clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
            pname[sizeof pname - 1] = 0;
            if (env && !clgemm__spec_matches(env, plen, p, pname)) continue;
            cl_device_id devices[64];
            cl_uint nd = 0;
            if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &nd) != CL_SUCCESS)
                continue;
            if (nd > 64) nd = 64;
            for (cl_uint d = 0; d < nd; d++) {
                char dname[128] = "";
                cl_device_type type = 0;
                clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof dname, dname, NULL);
                dname[sizeof dname - 1] = 0;
                clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
                if (env) {
                    if (clgemm__spec_matches(dspec, strlen(dspec), d, dname)) {
                        *out = devices[d];
                        return CLGEMM_SUCCESS;
                    }
                    continue;
                }
                if (!first) first = devices[d];
                if (want_gpu && (type & CL_DEVICE_TYPE_GPU)) {
                    *out = devices[d];
                    return CLGEMM_SUCCESS;
                }
            }
        }
        if (env) break;
    }
    if (!first) return CLGEMM_ERR_NO_DEVICE;
    *out = first;
    return CLGEMM_SUCCESS;
}

/* Some platforms' first enumeration is not thread-safe: PoCL 3.1 answers concurrent first
 * clGetDeviceIDs calls with CL_DEVICE_NOT_FOUND (or crashes), so the library enumerates devices
 * under one process-wide lock. */
pthread_mutex_t clgemm__enumeration_lock = PTHREAD_MUTEX_INITIALIZER;

static clgemm_status pick_device(cl_device_id *out) {
    pthread_mutex_lock(&clgemm__enumeration_lock);
    clgemm_status st = find_device(out);
    pthread_mutex_unlock(&clgemm__enumeration_lock);
    return st;
}

clgemm_status clgemm_create_default(clgemm_handle *handle) {
    if (!handle) return CLGEMM_ERR_NULL_ARGUMENT;
    *handle = NULL;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    clgemm__fork_mark_used();
    cl_device_id device;
    clgemm_status st = pick_device(&device);
    if (st != CLGEMM_SUCCESS) return st;
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS) return err;
    cl_command_queue queue = clCreateCommandQueue(ctx, device, 0, &err);
    if (err == CL_SUCCESS) {
        st = clgemm_create(handle, queue);
        clReleaseCommandQueue(queue); /* the handle holds its own references now */
    } else {
        st = err;
    }
    clReleaseContext(ctx);
    return st;
}

void clgemm_destroy(clgemm_handle h) {
    if (!h) return;
    if (clgemm__forked()) {
        /* The OpenCL objects and the shared device state are the parent's: releasing them
         * would wait on a runtime that does not exist here (and another thread of the parent
         * may have held their locks at the fork). Only the handle's own memory goes. */
        free(h->kernels.slots);
        free(h->last_tune);
        free(h->build_log);
        free(h);
        return;
    }
    clgemm__kernel_table_free(&h->kernels);
    clgemm__maps_buffers_free(h);
    /* The user's buffers this handle's calls cached may be all that keeps them (and the
     * context) allocated once the user releases them; another handle of the context reads an
     * address again at its next use. */
    clgemm__device_address_forget(h->context);
    free(h->last_tune);
    clgemm__tuning_unshare(h->tuning_ref);
    clgemm__device_release(h->dev);
    free(h->build_log);
    for (int i = 0; i < CLGEMM__WORKSPACES; i++) {
        if (h->work[i].busy) clReleaseEvent(h->work[i].busy);
        if (h->work[i].mem) clReleaseMemObject(h->work[i].mem);
    }
    clReleaseCommandQueue(h->queue);
    clReleaseContext(h->context);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

cl_command_queue clgemm_queue(clgemm_handle h) {
    return h ? h->queue : NULL;
}

cl_context clgemm_context(clgemm_handle h) {
    return h ? h->context : NULL;
}

cl_device_id clgemm_device(clgemm_handle h) {
    return h ? h->device : NULL;
}

static void keep_build_log(void *owner, char *log) {
    struct clgemm_handle_s *h = owner;
    pthread_mutex_lock(&h->lock);
    free(h->build_log);
    h->build_log = log;
    pthread_mutex_unlock(&h->lock);
}

build_log_sink clgemm__handle_log_sink(struct clgemm_handle_s *h) {
    return (build_log_sink){keep_build_log, h};
}

size_t clgemm_build_log(clgemm_handle h, char *buf, size_t size) {
    if (!h || clgemm__forked()) {
        if (buf && size > 0) buf[0] = 0;
        return 0;
    }
    pthread_mutex_lock(&h->lock);
    const char *log = h->build_log ? h->build_log : "";
    size_t len = strlen(log);
    if (buf && size > 0) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buf, log, n);
        buf[n] = 0;
    }
    pthread_mutex_unlock(&h->lock);
    return len;
}

/* A type of A and B (INT32 is only C). */
static bool precision_ok(clgemm_precision precision) {
    return clgemm__type(precision) && clgemm__type(precision)->ab;
}

clgemm_status clgemm_check_config(clgemm_handle h, clgemm_precision precision,
                                  const clgemm_config *config) {
    if (!h || !config) return CLGEMM_ERR_NULL_ARGUMENT;
    if (!precision_ok(precision)) return CLGEMM_ERR_INVALID_ARGUMENT;
    return clgemm__config_check(config, &h->info, precision);
}

clgemm_status clgemm_set_config(clgemm_handle h, clgemm_precision precision,
                                const clgemm_config *config) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    if (!precision_ok(precision)) return CLGEMM_ERR_INVALID_ARGUMENT;
    bool clear = !config || config->family == CLGEMM_FAMILY_AUTO;
    if (!clear) {
        clgemm_status st = clgemm__config_check(config, &h->info, precision);
        if (st != CLGEMM_SUCCESS) return st;
    }
    pthread_mutex_lock(&h->lock);
    h->has_override[precision] = !clear;
    if (!clear) h->override[precision] = *config;
    pthread_mutex_unlock(&h->lock);
    return CLGEMM_SUCCESS;
}

clgemm_status clgemm_get_config(clgemm_handle h, clgemm_precision precision, size_t m, size_t n,
                                size_t k, clgemm_config *config, const char **source) {
    if (!h || !config) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    if (!precision_ok(precision)) return CLGEMM_ERR_INVALID_ARGUMENT;
    if (clgemm__type(precision)->fp64 && !h->info.has_fp64) return CLGEMM_ERR_NO_FP64;
    tuning_key key =
        clgemm__tuning_key(precision, clgemm__type(precision)->c, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS);
    pthread_mutex_lock(&h->lock);
    *config = clgemm__plan(h, &key, CLGEMM_COMPUTE_DEFAULT, m, n, k, 1, source);
    pthread_mutex_unlock(&h->lock);
    return CLGEMM_SUCCESS;
}

static bool trans_ok(clgemm_transpose t) {
    return t == CLGEMM_NO_TRANS || t == CLGEMM_TRANS || t == CLGEMM_CONJ_TRANS;
}

/* The configuration call `c` runs (its types checked), as clgemm__gemm plans it. */
static clgemm_status config_of_call(clgemm_handle h, gemm_call *c, clgemm_config *config,
                                    const char **source) {
    clgemm_status st = clgemm__check_types(h, c);
    if (st != CLGEMM_SUCCESS) return st;
    clgemm_compute compute = c->compute;
    /* As a call does: CLGEMM_ALLOW_TF32 turns the FP32 default into TF32. */
    if (compute == CLGEMM_COMPUTE_DEFAULT && c->precision == CLGEMM_SINGLE && h->allow_tf32)
        compute = CLGEMM_COMPUTE_TF32;
    pthread_mutex_lock(&h->lock);
    /* A call that copies an operand first (pack.c) runs the copies' plan, which the copy
     * decision made. */
    pack_choice pack;
    if (clgemm__pack_choose(h, c, compute, &pack)) {
        *config = pack.schedule.cfg;
        if (source) *source = pack.source;
    } else {
        colmajor_shape shape = clgemm__colmajor_shape(c);
        *config = clgemm__plan_call(h, c, &shape, compute, 1, false, true, source).cfg;
    }
    pthread_mutex_unlock(&h->lock);
    return CLGEMM_SUCCESS;
}

clgemm_status clgemm_get_config_ex(clgemm_handle h, clgemm_layout layout, clgemm_transpose trans_a,
                                   clgemm_transpose trans_b, size_t m, size_t n, size_t k,
                                   clgemm_precision type_ab, clgemm_precision type_c,
                                   clgemm_compute compute, clgemm_config *config,
                                   const char **source) {
    if (!h || !config) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    if ((layout != CLGEMM_ROW_MAJOR && layout != CLGEMM_COL_MAJOR) || !trans_ok(trans_a) ||
        !trans_ok(trans_b))
        return CLGEMM_ERR_INVALID_ARGUMENT;
    gemm_call call = {CALL_SHAPE(type_ab, type_c, compute)}; /* leading dimensions 0: aligned */
    return config_of_call(h, &call, config, source);
}

clgemm_status clgemm_get_config_operands(clgemm_handle h, clgemm_layout layout,
                                         clgemm_transpose trans_a, clgemm_transpose trans_b,
                                         size_t m, size_t n, size_t k, clgemm_precision type_ab,
                                         clgemm_precision type_c, clgemm_compute compute,
                                         size_t off_a, size_t lda, size_t off_b, size_t ldb,
                                         clgemm_config *config, const char **source) {
    if (!h || !config) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    gemm_call call = {CALL_SHAPE(type_ab, type_c, compute), .off_a = off_a, .lda = lda,
                      .off_b = off_b, .ldb = ldb};
    call.ldc = layout == CLGEMM_ROW_MAJOR ? n : m; /* the least C may have: C is not asked about */
    if (call.ldc == 0) call.ldc = 1;
    size_t extent[3];
    clgemm_status st = clgemm__check_shape(&call, extent);
    if (st != CLGEMM_SUCCESS) return st;
    return config_of_call(h, &call, config, source);
}

clgemm_status clgemm_load_tuning(clgemm_handle h, const char *path) {
    if (!h) return CLGEMM_ERR_NULL_ARGUMENT;
    if (clgemm__forked()) return CLGEMM_ERR_FORKED;
    tuning_table *table = NULL;
    clgemm_status st = clgemm__tuning_load(path, &h->info, &table);
    shared_tuning *mine = clgemm__tuning_share(table); /* this handle's own table */
    pthread_mutex_lock(&h->lock);
    shared_tuning *old = h->tuning_ref;
    h->tuning_ref = mine;
    h->tuning = mine ? mine->table : NULL; /* NULL on failure: the built-in defaults */
    pthread_mutex_unlock(&h->lock);
    clgemm__tuning_unshare(old);
    if (st != CLGEMM_SUCCESS) clgemm__log("tuning database not used: %s", clgemm_status_string(st));
    return st;
}
