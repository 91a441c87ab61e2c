/* test_schedule_sweep.c: the planner swept over shapes (clgemm__plan_choose, then
 * clgemm__plan_schedule_dims), no OpenCL device needed. What a call plans, for shapes from 1 to
 * INT_MAX - 1024, batches to 2^32, every type pair and compute mode, both operand layouts and the
 * forcing variables, on modelled devices: each schedule must keep what its launches count on
 * (src/exec/gemm.c), derived here from the kernels' arithmetic rather than the planner's: a
 * configuration its family accepts, K layers that each get depth, stream-K, peeled strips and a
 * partial wave's tail only where they can run, inside the matrix, and a workspace that holds every
 * write the launches make (or the plain schedule, which needs none). The suite draws a fixed
 * sample from a fixed seed, so a failure reproduces; CLGEMM_TEST_SWEEP_CASES=<n> and
 * CLGEMM_TEST_SWEEP_SEED=<s> draw a longer or another one (a longer search than the suite can
 * afford, off by default). The planner's measured choices are test_unit's schedule_plan tests. */
#include "core/xorshift.h"
#include "device_models.h"
#include "exec/exec.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A device as the planner is given it, and a name for the messages. */
typedef struct sweep_device {
    const char *name;
    device_info info;
} sweep_device;

enum { SWEEP_DEVICE_COUNT = 11, SWEEP_NVIDIA = 6 /* the first six */ };

static void sweep_devices(sweep_device devices[SWEEP_DEVICE_COUNT]) {
    /* The H200 with the tensor-map service, the static local memory the probe finds and FP8
     * mma.sync (every family of compute capability 9.0); a call no tensor map can describe is
     * planned on it without the service (clgemm__plan_call). */
    device_info h200 = h200_static();
    h200.nv_sm90a = h200.nv_tma = h200.nv_fp8_mma = true;
    device_info unmapped = h200;
    unmapped.nv_tma = false;
    /* An H100 PCIe (114 SMs), with the probe's figure and without it (local memory counted as
     * OpenCL's 48 KiB: the planner then counts resident work-groups by registers only). */
    device_info h100 = h200;
    h100.compute_units = 114;
    device_info h100_unprobed = h100;
    h100_unprobed.local_mem_static = 0;
    /* An A100: compute capability 8.0 (the mma family, no wgmma), 108 SMs, 163 KiB a block. */
    device_info a100 = h200_device();
    a100.nv_compute_capability = 80;
    a100.compute_units = 108;
    a100.local_mem_static = 166912;
    /* CPUs as PoCL presents them: the AVX-512 tier (the blocked schedule) on 2 cores of an AMD
     * EPYC, and an AVX2 one on 16 cores of an Intel Xeon. */
    device_info epyc = cpu();
    strcpy(epyc.name, "pthread-skylake-avx512-AMD EPYC");
    strcpy(epyc.vendor, "AuthenticAMD");
    epyc.compute_units = 2;
    device_info xeon = cpu();
    strcpy(xeon.name, "pthread-haswell-Intel(R) Xeon(R) CPU");
    strcpy(xeon.vendor, "GenuineIntel");
    xeon.compute_units = 16;
    /* GPUs of the other classes: a generic one, an AMD one and one without FP64. */
    device_info generic = gpu();
    generic.compute_units = 64;
    device_info amd = fake_device(256, 1024, 1024, 65536, true);
    amd.cls = DEVICE_AMD_GPU;
    amd.compute_units = 60;
    device_info no_fp64 = fake_device(256, 256, 256, 65536, false);
    no_fp64.cls = DEVICE_INTEL_GPU;
    no_fp64.compute_units = 96;
    const sweep_device all[SWEEP_DEVICE_COUNT] = {
        {"H200", h200},
        {"H200, no tensor maps", unmapped},
        {"H200 as OpenCL reports it", h200_device()},
        {"H100 PCIe", h100},
        {"H100 PCIe, static local memory not probed", h100_unprobed},
        {"A100", a100},
        {"CPU, AVX-512, 2 cores", epyc},
        {"CPU, AVX2, 16 cores", xeon},
        {"generic GPU", generic},
        {"AMD GPU", amd},
        {"Intel GPU without FP64", no_fp64},
    };
    _Static_assert(sizeof all / sizeof all[0] == SWEEP_DEVICE_COUNT, "one entry per device");
    memcpy(devices, all, sizeof all);
}

/* One planned call: the device, the types and compute mode, the column-major problem (its
 * alignment and the layout of its operands), a batch table or not, the forcing variables and
 * the handle's forced configuration for the type (NULL: none). */
typedef struct sweep_case {
    const sweep_device *device;
    clgemm_precision type, type_c;
    clgemm_compute compute;
    gemm_dims dims;
    bool table;
    schedule_force force;
    const clgemm_config *forced;
} sweep_case;

/* The call's configuration and schedule, as clgemm__plan_call makes them. */
static gemm_schedule sweep_plan(const sweep_case *c, clgemm_config *cfg) {
    const tuning_key key =
        clgemm__tuning_key(c->type, c->type_c, c->dims.a_along_k ? CLGEMM_TRANS : CLGEMM_NO_TRANS,
                           c->dims.b_along_n ? CLGEMM_TRANS : CLGEMM_NO_TRANS);
    const gemm_dims *d = &c->dims;
    *cfg = clgemm__plan_choose(&c->device->info, c->forced, NULL, &key, c->compute, d->m, d->n,
                               d->k, d->batch, d->aligned, NULL);
    gemm_dims unaligned = *d; /* (the schedule reads no alignment) */
    unaligned.aligned = false;
    return clgemm__plan_schedule_dims(cfg, &c->device->info, &c->force, c->type, c->type_c,
                                      &unaligned, c->table);
}

typedef unsigned __int128 wide_size; /* products of sizes, never wrapped */

/* Whether each of `layers` K layers gets depth: the kernels give layer l the depths from l *
 * chunk on, chunk = ceil(K / (layers * kt)) * kt (cl/ptx.cl's GEMM_BEGIN_LAYER, cl/regblock.cl,
 * cl/microkernel.cl, cl/tma.cl), so the last one's start must lie below K. */
static bool layers_have_depth(int layers, size_t k, size_t kt) {
    const wide_size step = (wide_size)layers * kt, chunk = ((wide_size)k + step - 1) / step * kt;
    return layers == 1 || (wide_size)(layers - 1) * chunk < k;
}

static size_t tiles_of(size_t m, size_t n, size_t mt, size_t nt) {
    return ((m + mt - 1) / mt) * ((n + nt - 1) / nt);
}

#define SWEEP_FAULT(...)                                                                           \
    do {                                                                                           \
        snprintf(buf, size, __VA_ARGS__);                                                          \
        return buf;                                                                                \
    } while (0)

/* The tail's rectangles (clgemm__tail_rects, which the launches use) against the head's tiles:
 * inside the matrix, apart from each other and, with the head, covering it exactly once. */
static const char *tail_fault(const gemm_schedule *s, size_t m, size_t n, size_t mt, size_t nt,
                              char *buf, size_t size) {
    const size_t tiles_m = (m + mt - 1) / mt, col = s->head_tiles / tiles_m,
                 row = s->head_tiles % tiles_m;
    /* The head: whole columns of tiles, then the top `row` tiles of column `col`. */
    wide_size covered = (wide_size)m * (col * nt < n ? col * nt : n);
    if (row > 0) covered += (wide_size)(row * mt) * ((col + 1) * nt < n ? nt : n - col * nt);
    tile_rect rest[2];
    clgemm__tail_rects(m, n, mt, nt, s->head_tiles, rest);
    for (int q = 0; q < 2; q++) {
        const tile_rect *r = &rest[q];
        if (r->m == 0 || r->n == 0) continue;
        if (r->i0 + r->m > m || r->j0 + r->n > n)
            SWEEP_FAULT("tail rectangle %d (%zu, %zu) %zu x %zu leaves the matrix", q, r->i0, r->j0,
                        r->m, r->n);
        if (s->tail_splits[q] < 1 || s->tail_splits[q] > CLGEMM__MAX_SPLITS)
            SWEEP_FAULT("tail rectangle %d split %d ways", q, s->tail_splits[q]);
        covered += (wide_size)r->m * r->n;
    }
    const tile_rect *a = &rest[0], *b = &rest[1];
    if (a->m && a->n && b->m && b->n && a->j0 < b->j0 + b->n && b->j0 < a->j0 + a->n &&
        a->i0 < b->i0 + b->m && b->i0 < a->i0 + a->m)
        SWEEP_FAULT("the tail's rectangles overlap");
    if (covered != (wide_size)m * n) SWEEP_FAULT("head and tail do not cover C exactly once");
    if (s->tail_splits[0] < 2 && s->tail_splits[1] < 2) SWEEP_FAULT("a tail with no split");
    return NULL;
}

/* What the schedule breaks of its launches' invariants, in buf; NULL: nothing. */
static const char *schedule_fault(const sweep_case *c, const clgemm_config *cfg,
                                  const gemm_schedule *s, char *buf, size_t size) {
    const device_info *info = &c->device->info;
    const size_t m = c->dims.m, n = c->dims.n, k = c->dims.k, batch = c->dims.batch;
    const type_desc *t = clgemm__type(c->type);
    const family_desc *f = clgemm__family(s->cfg.family);
    if (!f || !clgemm__config_equal(&s->cfg, cfg))
        SWEEP_FAULT("the schedule's configuration moved");
    if (clgemm__config_check(&s->cfg, info, c->type) != CLGEMM_SUCCESS)
        SWEEP_FAULT("the configuration breaks its family's rules");
    if (!clgemm__config_supports(&s->cfg, info, c->type, c->compute))
        SWEEP_FAULT("a family that does not compute the type in this compute mode");
    size_t mt, nt, kt;
    f->tile(&s->cfg, &mt, &nt, &kt);
    const bool one = batch == 1 && !c->table; /* what stream-K, peeling and the tail need */
    const bool persistent = f->persistent_groups && f->persistent_groups(&s->cfg, info) > 0;
    /* A K split: each layer a slice at least. */
    if (s->splits < 1 || s->splits > CLGEMM__MAX_SPLITS) SWEEP_FAULT("K split %d ways", s->splits);
    if (s->splits > 1 && !f->split_k) SWEEP_FAULT("K split on a family without split K");
    if (!layers_have_depth(s->splits, k, kt)) SWEEP_FAULT("an empty K layer");
    /* Stream-K: one matrix without a split; its kernels number tiles in an int and slices in a
     * long with room for 65,535 work-groups' ranges, a persistent kernel slices in an int. */
    if (s->groups < 0 || s->groups > 65535) SWEEP_FAULT("%d stream-K work-groups", s->groups);
    if (s->groups > 0) {
        if (s->splits > 1 || !one) SWEEP_FAULT("stream-K with a split K or a batch");
        if (!f->stream_k && !f->tensor_maps) SWEEP_FAULT("stream-K on a family without it");
        const size_t tiles = tiles_of(s->main_m, s->main_n, mt, nt);
        const wide_size slices = (wide_size)tiles * ((k + kt - 1) / kt);
        if (tiles > INT_MAX || slices > (f->tensor_maps ? INT_MAX : LONG_MAX / 65536))
            SWEEP_FAULT("stream-K over %zu tiles, slices past the kernel's range", tiles);
    }
    /* Peeling: one matrix, no split; the main part whole tiles of a non-persistent
     * configuration, the strips in a legal one, K split with depth in each layer. */
    if (s->peeled != (s->main_m < m || s->main_n < n)) SWEEP_FAULT("peeled says otherwise");
    if (s->main_m == 0 || s->main_n == 0 || s->main_m > m || s->main_n > n)
        SWEEP_FAULT("main part %zu x %zu", s->main_m, s->main_n);
    if (s->peeled) {
        if (s->splits > 1 || !one || !f->peels || persistent)
            SWEEP_FAULT("peeled with a split, a batch, or on a family that does not peel");
        if ((s->main_m < m && s->main_m % mt) || (s->main_n < n && s->main_n % nt))
            SWEEP_FAULT("a peeled main part of partial tiles");
        if (clgemm__config_check(&s->small, info, c->type) != CLGEMM_SUCCESS)
            SWEEP_FAULT("the strips' configuration breaks its family's rules");
        size_t smt, snt, skt;
        clgemm__family(s->small.family)->tile(&s->small, &smt, &snt, &skt);
        if (s->strip_splits < 1 || s->strip_splits > CLGEMM__MAX_SPLITS ||
            (s->strip_splits > 1 && !clgemm__family(s->small.family)->split_k) ||
            !layers_have_depth(s->strip_splits, k, skt))
            SWEEP_FAULT("strips split %d ways", s->strip_splits);
    } else if (s->strip_splits != 1) {
        SWEEP_FAULT("strips split %d ways with nothing peeled", s->strip_splits);
    }
    /* A partial last wave's tail: whole waves first, the rest's rectangles split. */
    if (s->head_tiles > 0) {
        if (s->splits > 1 || s->groups > 0 || s->peeled || !one || !f->linear_tiles || !f->split_k)
            SWEEP_FAULT("a tail beside a split, stream-K, peeling or a batch");
        const size_t tiles = tiles_of(m, n, mt, nt);
        if (tiles > INT_MAX || s->head_tiles >= tiles)
            SWEEP_FAULT("head of %zu tiles of %zu", s->head_tiles, tiles);
        const char *fault = tail_fault(s, m, n, mt, nt, buf, size);
        if (fault) return fault;
        tile_rect rest[2];
        clgemm__tail_rects(m, n, mt, nt, s->head_tiles, rest);
        for (int q = 0; q < 2; q++)
            if (rest[q].m && rest[q].n && !layers_have_depth(s->tail_splits[q], k, kt))
                SWEEP_FAULT("an empty K layer in tail rectangle %d", q);
    }
    /* The blocked schedule: K-blocks within K, blocks of A within M. */
    if (s->pack_kc > 0) {
        if (s->splits > 1 || s->groups > 0 || s->peeled || s->head_tiles > 0 || !one ||
            !f->pack_depth)
            SWEEP_FAULT("blocked beside another schedule, a batch or a table");
        if ((size_t)s->pack_kc > k ||
            (c->type == CLGEMM_INT8 && s->pack_kc > CLGEMM__INT8_PANEL_MAX_DEPTH))
            SWEEP_FAULT("K-blocks of %d steps", s->pack_kc);
        if (s->pack_mc == 0 || s->pack_mc > m || (s->pack_mc < m && s->pack_mc % mt))
            SWEEP_FAULT("blocks of %zu rows of A", s->pack_mc);
        const bool staged = c->type_c != t->compute && (size_t)s->pack_kc < k;
        if (staged ? s->pack_stage < m * n : s->pack_stage != 0)
            SWEEP_FAULT("a staged C of %zu elements", s->pack_stage);
    }
    /* The workspace, in bytes: the blocked schedule's staged C and panels (cl/pack.cl pads each
     * operand's panels to whole tiles), else the largest of a split's layers (batch * splits
     * blocks of m x n), stream-K's two tile-sized slots a work-group (after a persistent
     * kernel's counters), the strips' layers and the tail's; launches that share it run one
     * after the other. */
    wide_size need = 0;
    if (s->pack_kc > 0) {
        const size_t panel = clgemm__panel_size(c->type);
        const wide_size kc = (wide_size)s->pack_kc;
        const wide_size a = (s->pack_mc + mt - 1) / mt * mt * kc, b = (n + nt - 1) / nt * nt * kc;
        const wide_size b_at = (a + 64 / panel - 1) / (64 / panel) * (64 / panel);
        const wide_size staged = ((wide_size)s->pack_stage * t->compute_size + 63) / 64 * 64;
        need = staged + (b_at + b) * panel;
    } else {
        wide_size elements = 0, part[5] = {0};
        if (s->splits > 1) part[0] = (wide_size)batch * (size_t)s->splits * m * n;
        if (s->groups > 0)
            part[1] = (wide_size)2 * (size_t)s->groups * mt * nt +
                      (f->tensor_maps ? CLGEMM__SK_COUNTERS((size_t)s->groups) : 0);
        if (s->peeled) {
            part[2] = (wide_size)m * (n - s->main_n) * (size_t)s->strip_splits;
            part[3] = (wide_size)(m - s->main_m) * s->main_n * (size_t)s->strip_splits;
        }
        if (s->head_tiles > 0) {
            tile_rect rest[2];
            clgemm__tail_rects(m, n, mt, nt, s->head_tiles, rest);
            for (int q = 0; q < 2; q++) {
                const wide_size layers =
                    (wide_size)rest[q].m * rest[q].n * (size_t)s->tail_splits[q];
                if (layers > part[4]) part[4] = layers;
            }
        }
        for (int i = 0; i < 5; i++)
            if (part[i] > elements) elements = part[i];
        need = elements * t->compute_size;
    }
    if (need > SIZE_MAX) SWEEP_FAULT("a schedule whose workspace does not fit a size_t");
    if (need > s->workspace)
        SWEEP_FAULT("a workspace of %zu bytes for writes to %zu", s->workspace, (size_t)need);
    return NULL;
}

/* The sizes a side or K is drawn from: every size to 130, powers of two with their neighbours to
 * 2^30, odd sizes the planner's rules turn on, and the largest a call takes. */
static size_t sweep_sizes(size_t *sizes) {
    size_t count = 0;
    for (size_t s = 1; s <= 130; s++)
        sizes[count++] = s;
    for (int p = 8; p <= 30; p++) {
        sizes[count++] = ((size_t)1 << p) - 1;
        sizes[count++] = (size_t)1 << p;
        sizes[count++] = ((size_t)1 << p) + 1;
    }
    static const size_t odd[] = {192,  384,  640,   1000,  1408,  1536,  1792,  2176,
                                 2304, 3072, 3584,  4000,  5000,  6144,  7936,  8000,
                                 8448, 9999, 10240, 12288, 46340, 46341, 100000};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        sizes[count++] = odd[i];
    sizes[count++] = (INT_MAX - 1024) / 2;
    sizes[count++] = INT_MAX - 1025;
    sizes[count++] = INT_MAX - 1024; /* (the largest m, n or k a call takes: exec/check.c) */
    return count;
}
enum { SWEEP_SIZES_MAX = 130 + 3 * 23 + 23 + 3 };

/* Whether a call can have this shape: m, n, k at most INT_MAX - 1024 and each operand of one
 * matrix within INT_MAX elements (exec/check.c). */
static bool sweep_shape_ok(size_t m, size_t n, size_t k) {
    const size_t most = INT_MAX - 1024;
    return m <= most && n <= most && k <= most && (wide_size)m * k <= INT_MAX &&
           (wide_size)k * n <= INT_MAX && (wide_size)m * n <= INT_MAX;
}

/* The type pairs and compute modes a call can ask for (exec/check.c: TF32 modes only change
 * FP32, 8-bit inputs take none); FP64 types only where the device has FP64. */
typedef struct sweep_types {
    clgemm_precision type, type_c;
    clgemm_compute compute;
} sweep_types;

static size_t sweep_type_list(sweep_types *list) {
    size_t count = 0;
    for (int ab = 0; ab < CLGEMM_PRECISION_COUNT; ab++)
        for (int c = 0; c < CLGEMM_PRECISION_COUNT; c++) {
            if (!clgemm__type((clgemm_precision)ab)->ab ||
                !clgemm__types_ok((clgemm_precision)ab, (clgemm_precision)c))
                continue;
            const int modes = ab == CLGEMM_SINGLE ? 3 : 1;
            for (int mode = 0; mode < modes; mode++)
                list[count++] =
                    (sweep_types){(clgemm_precision)ab, (clgemm_precision)c, (clgemm_compute)mode};
        }
    return count;
}
enum { SWEEP_TYPES_MAX = 3 * CLGEMM_PRECISION_COUNT * CLGEMM_PRECISION_COUNT };

static size_t draw(uint64_t *state, size_t below) {
    return (size_t)(clgemm_xorshift64s(state) % below);
}

/* The forcing variables as the handle keeps them (handle.c clamps each): mostly unset. */
static schedule_force draw_force(uint64_t *state) {
    schedule_force force = {0, -1, -1, 0, 0};
    if (draw(state, 4) != 0) return force;
    /* (each variable set in a third of these, so that they meet too) */
    static const int counts[] = {1, 2, 3, 7, 32, 64, 100, 1000, 65535};
#define SOME counts[draw(state, sizeof counts / sizeof counts[0])]
    const int layers = SOME;
    if (draw(state, 3) == 0)
        force.ksplit = layers < CLGEMM__MAX_SPLITS ? layers : CLGEMM__MAX_SPLITS;
    if (draw(state, 3) == 0) force.peel = (int)draw(state, 2);
    if (draw(state, 3) == 0) force.streamk = draw(state, 4) == 0 ? 0 : SOME;
    if (draw(state, 3) == 0) force.pack_kc = draw(state, 4) == 0 ? -1 : SOME;
    if (draw(state, 3) == 0) force.tail = draw(state, 4) == 0 ? -1 : SOME;
#undef SOME
    return force;
}

/* A configuration the handle may be given for the type (clgemm_set_config checks it): an entry
 * of a family's --quick list or defaults that the device accepts; NULL if the draw finds none. */
static const clgemm_config *draw_forced(uint64_t *state, const device_info *info,
                                        clgemm_precision type) {
    size_t families = 0;
    while (clgemm__families[families])
        families++;
    const family_desc *f = clgemm__families[draw(state, families)];
    /* (the naive family has no list: work-groups as a user might set them) */
    static const clgemm_config by_hand[] = {
        {.family = CLGEMM_FAMILY_NAIVE, .mdimc = 1, .ndimc = 1},
        {.family = CLGEMM_FAMILY_NAIVE, .mdimc = 16, .ndimc = 16},
        {.family = CLGEMM_FAMILY_NAIVE, .mdimc = 8, .ndimc = 32},
        {.family = CLGEMM_FAMILY_AUTO}};
    const clgemm_config *list = draw(state, 2) && f->quick     ? f->quick
                                : f->defaults                  ? f->defaults(info, type, ONE_MATRIX)
                                : f->id == CLGEMM_FAMILY_NAIVE ? by_hand
                                                               : NULL;
    size_t count = 0;
    while (list && list[count].family)
        count++;
    if (count == 0) return NULL;
    const clgemm_config *c = &list[draw(state, count)];
    return clgemm__config_check(c, info, type) == CLGEMM_SUCCESS ? c : NULL;
}

/* The case in words, for a failure's message. */
static void case_text(const sweep_case *c, const clgemm_config *cfg, const gemm_schedule *s,
                      char *buf, size_t size) {
    char config[300];
    clgemm_config_string(cfg, config, sizeof config);
    snprintf(buf, size,
             "%s, %s -> %s (compute %d), m %zu n %zu k %zu, batch %zu%s%s%s%s, force "
             "{ksplit %d peel %d streamk %d pack_kc %d tail %d}%s: %s; splits %d, groups %d, main "
             "%zu x %zu, strips split %d, head %zu tiles, tail split %d/%d, K-blocks %d of %zu "
             "rows, staged %zu, workspace %zu bytes",
             c->device->name, clgemm__type(c->type)->name, clgemm__type(c->type_c)->name,
             (int)c->compute, c->dims.m, c->dims.n, c->dims.k, c->dims.batch,
             c->table ? ", table" : "", c->dims.aligned ? ", aligned" : "",
             c->dims.a_along_k ? ", A along K" : "", c->dims.b_along_n ? ", B along N" : "",
             c->force.ksplit, c->force.peel, c->force.streamk, c->force.pack_kc, c->force.tail,
             c->forced ? ", forced configuration" : "", config, s->splits, s->groups, s->main_m,
             s->main_n, s->strip_splits, s->head_tiles, s->tail_splits[0], s->tail_splits[1],
             s->pack_kc, s->pack_mc, s->pack_stage, s->workspace);
}

/* How many schedules of each kind a sweep planned, and on which families: a sweep that never
 * reached one would check nothing of it. */
typedef struct sweep_tally {
    size_t split, streamk, peeled, tail, blocked;
    size_t family[CLGEMM_FAMILY_COUNT + 1];
} sweep_tally;

static void tally(sweep_tally *t, const gemm_schedule *s) {
    t->split += s->splits > 1;
    t->streamk += s->groups > 0;
    t->peeled += s->peeled;
    t->tail += s->head_tiles > 0;
    t->blocked += s->pack_kc > 0;
    if ((unsigned)s->cfg.family <= CLGEMM_FAMILY_COUNT) t->family[s->cfg.family]++;
}

/* Plans the case and checks its schedule; false (and a message) where it breaks something. */
static bool sweep_one(const sweep_case *c, sweep_tally *t) {
    clgemm_config cfg;
    const gemm_schedule s = sweep_plan(c, &cfg);
    tally(t, &s);
    char fault[300], text[1200];
    const char *why = schedule_fault(c, &cfg, &s, fault, sizeof fault);
    if (!why) return true;
    case_text(c, &cfg, &s, text, sizeof text);
    cr_log_error("%s: %s", why, text);
    return false;
}

static size_t env_size(const char *name, size_t unset) {
    const char *v = getenv(name);
    char *end;
    unsigned long long x = v && *v ? strtoull(v, &end, 0) : 0;
    return v && *v && !*end ? (size_t)x : unset;
}

/* Cases drawn: every device, type pair and compute mode; a side, the other side and K from the
 * sizes (an eighth of them from squares of 256 to 16384, a quarter narrow against long ones: a
 * side of 16 to 64 against the other and K of 4096 to 65536, the shapes the narrow rules are
 * for), batches of 1 (half) or 2
 * to 2^32, either layout and alignment, a batch table in one case of eight, the forcing
 * variables in one of four, a forced configuration in one of ten. */
Test(schedule_sweep, drawn_shapes_keep_the_launches_invariants) {
    sweep_device devices[SWEEP_DEVICE_COUNT];
    sweep_devices(devices);
    size_t sizes[SWEEP_SIZES_MAX];
    const size_t size_count = sweep_sizes(sizes);
    sweep_types types[SWEEP_TYPES_MAX];
    const size_t type_count = sweep_type_list(types);
    size_t fp32_at = 0, fp64_at = 0;
    for (size_t i = 0; i < type_count; i++) {
        if (types[i].type == CLGEMM_SINGLE && types[i].compute == CLGEMM_COMPUTE_DEFAULT)
            fp32_at = i;
        if (types[i].type == CLGEMM_DOUBLE) fp64_at = i;
    }
    static const size_t narrow[] = {16, 29, 32, 33, 48, 60, 64};
    static const size_t long_sides[] = {4096, 4097, 8192, 16384, 32768, 65536};
    static const size_t squares[] = {256,  1024, 1536, 2047, 2048, 2049, 2304,  3072,
                                     4095, 4096, 4097, 6144, 8192, 8193, 10240, 16384};
    static const size_t batches[] = {2, 3, 16, 1000, 65535, 65536, (size_t)1 << 32};
    const size_t cases = env_size("CLGEMM_TEST_SWEEP_CASES", 400000);
    uint64_t state = env_size("CLGEMM_TEST_SWEEP_SEED", 0x5eed);
    size_t faults = 0, planned = 0;
    sweep_tally t = {0};
    for (size_t i = 0; i < cases; i++) {
        /* (half the draws on the NVIDIA models and a third of them FP32 or FP64 in the default
         * mode, which have most of the rules) */
        sweep_case c = {
            .device = &devices[draw(&state, draw(&state, 2) ? SWEEP_NVIDIA : SWEEP_DEVICE_COUNT)]};
        const sweep_types *ty = &types[draw(&state, type_count)];
        if (draw(&state, 3) == 0) ty = &types[draw(&state, 2) ? fp32_at : fp64_at];
        if (clgemm__type(ty->type)->fp64 && !c.device->info.has_fp64) continue;
        c.type = ty->type;
        c.type_c = ty->type_c;
        c.compute = ty->compute;
        size_t m, n, k;
        do {
            const size_t mode = draw(&state, 8);
            if (mode == 0) { /* squares and near-squares of a few waves */
                m = squares[draw(&state, sizeof squares / sizeof squares[0])];
                n = squares[draw(&state, sizeof squares / sizeof squares[0])];
                k = squares[draw(&state, sizeof squares / sizeof squares[0])];
            } else if (mode <= 2) {
                const size_t side = narrow[draw(&state, sizeof narrow / sizeof narrow[0])];
                const size_t other =
                    long_sides[draw(&state, sizeof long_sides / sizeof long_sides[0])];
                const bool tall = draw(&state, 2);
                m = tall ? other : side;
                n = tall ? side : other;
                k = long_sides[draw(&state, sizeof long_sides / sizeof long_sides[0])];
            } else {
                m = sizes[draw(&state, size_count)];
                n = sizes[draw(&state, size_count)];
                k = sizes[draw(&state, size_count)];
            }
        } while (!sweep_shape_ok(m, n, k));
        const size_t batch =
            draw(&state, 2) ? 1 : batches[draw(&state, sizeof batches / sizeof batches[0])];
        const uint64_t bits = clgemm_xorshift64s(&state);
        c.dims = (gemm_dims){m, n, k, batch, bits & 1, (bits >> 1) & 1, (bits >> 2) & 1};
        c.table = (bits >> 3 & 7) == 0;
        c.force = draw_force(&state);
        c.forced = draw(&state, 10) == 0 ? draw_forced(&state, &c.device->info, c.type) : NULL;
        planned++;
        if (!sweep_one(&c, &t) && ++faults >= 20) break; /* (enough to go on) */
    }
    cr_log_info("schedule_sweep: %zu calls planned, %zu broke an invariant; split %zu, stream-K "
                "%zu, peeled %zu, tail %zu, blocked %zu",
                planned, faults, t.split, t.streamk, t.peeled, t.tail, t.blocked);
    for (const family_desc *const *f = clgemm__families; *f; f++) {
        cr_log_info("schedule_sweep: %s %zu", (*f)->name, t.family[(*f)->id]);
        cr_expect_gt(t.family[(*f)->id], 0, "no call planned on the %s family", (*f)->name);
    }
    cr_expect(t.split && t.streamk && t.peeled && t.tail && t.blocked,
              "a kind of schedule never planned");
    cr_expect_eq(faults, 0, "%zu of %zu planned calls broke an invariant (listed above)", faults,
                 planned);
}

/* Shapes at the edges of the rules, each planned as a call would plan it and checked as the
 * drawn ones: the narrow FP32 and FP64 shapes of the tma_simt, tma_fp64 and mma families (32 and
 * 64 rows or columns against long sides and K, laid out either way), odd squares that peel, a
 * partial last wave and stream-K where forced, the CPUs' blocked schedule with a staged C and
 * INT8's K-blocks, the largest sides a call takes, and a batch whose split's workspace would
 * overflow a size_t (the plain schedule then). */
Test(schedule_sweep, named_shapes_keep_the_launches_invariants) {
    sweep_device devices[SWEEP_DEVICE_COUNT];
    sweep_devices(devices);
    enum { H200, H200_UNMAPPED, H200_OPENCL, H100, H100_UNPROBED, A100, CPU_AVX512, CPU_AVX2 };
    const schedule_force unset = {0, -1, -1, 0, 0}, peel_streamk = {0, 1, 65535, 0, 0},
                         streamk = {0, -1, 65535, 0, 0}, tail = {0, -1, -1, 0, 1},
                         split64 = {64, -1, -1, 0, 0};
    const size_t most = INT_MAX - 1024;
    const clgemm_compute DEF = CLGEMM_COMPUTE_DEFAULT;
    const clgemm_precision FP32 = CLGEMM_SINGLE, FP64 = CLGEMM_DOUBLE, FP16 = CLGEMM_HALF,
                           I8 = CLGEMM_INT8, I32 = CLGEMM_INT32;
    const struct {
        int device;
        clgemm_precision type, type_c;
        gemm_dims dims;
        bool table;
        schedule_force force;
    } named[] = {
        {H200, FP32, FP32, {32, 8192, 8192, 1, true, false, false}, false, unset},
        {H200, FP32, FP32, {32, 8192, 8192, 1, true, true, true}, false, unset},
        {H200, FP32, FP32, {16, 4096, 4096, 1, false, false, true}, false, unset},
        {H200, FP32, FP32, {64, 8192, 8192, 1, true, false, false}, false, unset},
        {H200, FP32, FP32, {8192, 64, 8192, 1, true, false, false}, false, unset},
        {H200, FP32, FP32, {8192, 256, 4096, 1, true, false, true}, false, unset},
        {H200, FP32, FP32, {4097, 4097, 4097, 1, true, false, true}, false, unset},
        {H200, FP32, FP32, {4097, 4097, 4097, 1, true, false, true}, false, peel_streamk},
        {H200, FP32, FP32, {256, 256, 256, 1000, true, false, false}, false, unset},
        {H200_UNMAPPED, FP32, FP32, {4097, 4097, 4097, 1, false, false, false}, false, unset},
        {H200, FP64, FP64, {32, 8192, 8192, 1, true, false, false}, false, unset},
        {H200, FP64, FP64, {64, 8192, 8192, 1, true, false, false}, false, unset},
        {H200, FP64, FP64, {8192, 64, 8192, 1, true, false, false}, false, unset},
        {H200, FP64, FP64, {256, 256, 16384, 1, true, false, false}, false, unset},
        {H200, FP64, FP64, {8192, 8192, 8192, 1, true, false, false}, false, tail},
        {H200, FP64, FP64, {8192, 8192, 256, 1, true, false, false}, false, streamk},
        {H200_OPENCL, FP64, FP64, {8192, 8192, 8192, 1, true, false, false}, false, unset},
        {H100, FP32, FP32, {29, 16384, 4096, 1, true, false, false}, false, unset},
        {H100_UNPROBED, FP32, FP32, {64, 8192, 8192, 1, true, false, false}, false, unset},
        {A100, FP64, FP64, {33, 65536, 32768, 1, true, false, false}, false, unset},
        {CPU_AVX512, FP16, FP16, {1024, 1024, 1024, 1, false, false, false}, false, unset},
        {CPU_AVX512, I8, I32, {2048, 512, 4096, 1, false, true, false}, false, unset},
        {CPU_AVX2, FP32, FP32, {60, 4096, 32768, 1, false, false, false}, false, unset},
        {H200, FP32, FP32, {most, 1, 1, 1, false, false, false}, false, unset},
        {H200, FP32, FP32, {1, most, 1, 1, false, false, false}, false, unset},
        {H200, FP32, FP32, {1, 1, most, 1, false, false, false}, false, unset},
        {H200, FP64, FP64, {46340, 46340, 1, 1, false, false, false}, false, tail},
        {H200, FP32, FP32, {1, 1, most, 65535, false, false, false}, true, split64},
        {H200, FP32, FP32, {16, 16, 65536, (size_t)1 << 50, false, false, false}, false, split64},
    };
    size_t faults = 0;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        const sweep_case c = {.device = &devices[named[i].device],
                              .type = named[i].type,
                              .type_c = named[i].type_c,
                              .compute = DEF,
                              .dims = named[i].dims,
                              .table = named[i].table,
                              .force = named[i].force};
        sweep_tally t = {0};
        faults += !sweep_one(&c, &t);
    }
    cr_expect_eq(faults, 0, "%zu named shapes broke an invariant (listed above)", faults);
}
