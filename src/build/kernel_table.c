/* kernel_table.c: a handle's kernels by integer key, so a warm call finds its kernel without
 * building an options string, allocating, or comparing strings: open addressing over a hash of
 * the key, compared field by field with memcmp (keys are zero-initialised, padding included). */
#include "build/build.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Eight bytes a step, each mixed into the low bits the slot index takes: hashing the 72-byte key
 * a byte at a time (FNV-1a) took about 0.1 us, a tenth of a warm call's host time on PoCL. */
static uint64_t hash_key(const kernel_key *k) {
    const unsigned char *p = (const unsigned char *)k;
    uint64_t h = 14695981039346656037ull, w;
    size_t i = 0;
    for (; i + sizeof w <= sizeof *k; i += sizeof w) {
        memcpy(&w, p + i, sizeof w);
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    for (; i < sizeof *k; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h ^ (h >> 32);
}

cl_kernel clgemm__kernel_find(const kernel_table *t, const kernel_key *k) {
    if (!t->cap) return NULL;
    for (size_t i = hash_key(k) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        const kernel_slot *s = &t->slots[i];
        if (!s->kernel) return NULL;
        if (memcmp(&s->key, k, sizeof *k) == 0) return s->kernel;
    }
}

static void insert(kernel_slot *slots, size_t cap, const kernel_key *k, cl_kernel kernel) {
    size_t i = hash_key(k) & (cap - 1);
    while (slots[i].kernel)
        i = (i + 1) & (cap - 1);
    slots[i].key = *k;
    slots[i].kernel = kernel;
}

clgemm_status clgemm__kernel_add(kernel_table *t, const kernel_key *k, cl_kernel kernel) {
    if (2 * (t->count + 1) > t->cap) { /* at most half full: probes stay short */
        size_t cap = t->cap ? 2 * t->cap : 32;
        kernel_slot *slots = calloc(cap, sizeof *slots);
        if (!slots) return CLGEMM_ERR_OUT_OF_HOST_MEMORY;
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].kernel) insert(slots, cap, &t->slots[i].key, t->slots[i].kernel);
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    insert(t->slots, t->cap, k, kernel);
    t->count++;
    return CLGEMM_SUCCESS;
}

void clgemm__kernel_table_free(kernel_table *t) {
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].kernel) clReleaseKernel(t->slots[i].kernel);
    free(t->slots);
    memset(t, 0, sizeof *t);
}
