/* plan.h: the interface of src/plan/: which configuration a problem runs (plan.c: forced >
 * tuned > default > fallback), its schedule (split K, peeling, stream-K), and the tuning database
 * the tuned entries come from (tuning_db.c, the only code that touches JSON). Below the call
 * path: it takes a device, a configuration and shapes, never a handle or a call. */
#ifndef CLGEMM_PLAN_H
#define CLGEMM_PLAN_H

#include "families/family.h"

/* ---- tuning_db.c: the JSON tuning database --------------------------------------------------- */

typedef struct tuning_table tuning_table;

/* What a tuning entry is for besides its shape: the element types and the transposes of the
 * column-major problem the kernel runs. A row-major call C = op(A) op(B) runs as the
 * column-major C^T = op(B)^T op(A)^T, so it is keyed with A and B swapped: shape (n, m, k) and
 * transposes (trans_b, trans_a) of the user's call. The tuner tunes column-major calls, whose
 * keys are the user's own. On real types CLGEMM_CONJ_TRANS is CLGEMM_TRANS (clgemm__tuning_key
 * folds it). */
typedef struct tuning_key {
    clgemm_precision type_ab, type_c;
    clgemm_transpose trans_a, trans_b;
    int batch_class; /* clgemm__batch_class of the batch; 0 (one matrix) in a zeroed key */
} tuning_key;

/* The key of these types and transposes, for one matrix: 0 counts as CLGEMM_NO_TRANS, and
 * CONJ_TRANS of a real type as CLGEMM_TRANS. */
tuning_key clgemm__tuning_key(clgemm_precision type_ab, clgemm_precision type_c,
                              clgemm_transpose trans_a, clgemm_transpose trans_b);
/* The class of a batch of this many matrices (0 and 1: one matrix, class 0; then 2-15, 16-255
 * and 256 or more: classes 1 to 3; why these bounds: tuning_db.c), and the least batch of a
 * class. */
int clgemm__batch_class(size_t batch);
size_t clgemm__batch_class_least(int batch_class);
/* Whether a key names a type pair the kernels compute and transposes its type has. */
bool clgemm__tuning_key_ok(const tuning_key *key);
/* "NN", "NT", "NC", ...: the key's transposes (static storage). */
const char *clgemm__trans_name(clgemm_transpose trans_a, clgemm_transpose trans_b);

/* Loads the entries for this device from the database at path (NULL: the default path chain).
 * *table is NULL when the file is missing or has no entry for the device. Schema-1 files are
 * read too: their entries are NN entries with C of the A/B type; entries of schemas 1 and 2
 * (which had no "batch") are single-matrix entries (batch class 0). */
clgemm_status clgemm__tuning_load(const char *path, const device_info *info, tuning_table **table);
/* The entry nearest to (m, n, k) among those of the key's types, transposes and batch class;
 * when there is none with those transposes, the nearest NN entry of the key's types and batch
 * class. False if neither (entries of another batch class are never used: clgemm__plan decides
 * when a single-matrix entry may serve a batch). */
bool clgemm__tuning_lookup(const tuning_table *table, const tuning_key *key, size_t m, size_t n,
                           size_t k, clgemm_config *config);
void clgemm__tuning_free(tuning_table *table);
/* How many usable entries the table holds (0 for NULL). */
size_t clgemm__tuning_count(const tuning_table *table);

/* The exact entry for this key (batch class included) and shape (no NN fallback); false if
 * none. */
bool clgemm__tuning_exact(const tuning_table *table, const tuning_key *key, size_t m, size_t n,
                          size_t k, clgemm_config *config);

/* The largest database file that is parsed; a larger one gives CLGEMM_ERR_DB_IO. */
#define CLGEMM__TUNING_DB_MAX ((size_t)16 << 20)

/* How much a tuning search covered, stored with its entry. */
typedef struct tuning_search {
    size_t evaluated; /* candidates evaluated */
    bool exhaustive;  /* every candidate of the full search space was evaluated */
    double budget_s;  /* the time budget of the run (0: none) */
    size_t max_evals; /* its evaluation limit (0: none) */
    bool quick;       /* the curated --quick set */
} tuning_search;

/* One tuning result to store: the shape is the key, the problem what was measured. beat_valid:
 * in the same run, the configuration `beat` (the stored entry's) was measured too and this
 * result was at least as fast. */
typedef struct tuning_record {
    tuning_key key; /* normalised (clgemm__tuning_key), its batch class that of batch */
    size_t shape[3];
    size_t problem[3];
    size_t batch; /* the matrices each timed call computed (0 counts as 1) */
    clgemm_config config;
    double gflops;
    tuning_search search;
    bool beat_valid;
    clgemm_config beat;
} tuning_record;

/* Resolves the database path into buf: path, else $CLGEMM_TUNING_DB, else tuning.json in the
 * cache root (clgemm__cache_root). */
clgemm_status clgemm__tuning_path(const char *path, char *buf, size_t size);
/* Merges records for this device into the database (path NULL: the chain) under a lock file:
 * an entry of the same device, key and shape is replaced only by a record that beat it in
 * the same run or came from a search at least as full (see tuning_db.c), others are kept; the
 * file is replaced atomically (temporary file, fsync, rename). A symlink at the path is
 * followed to its target. An older file (schema 1 or 2) is rewritten as schema 3 with its
 * entries kept (as the NN or single-matrix entries they were read as). A record whose key's
 * batch class is not that of its batch is refused (CLGEMM_ERR_INVALID_ARGUMENT). A malformed or
 * newer-schema file is left alone and its status returned. With count 0 it only checks that a save
 * would work (a byte is written). */
clgemm_status clgemm__tuning_save(const char *path, const device_info *info,
                                  const tuning_record *records, size_t count);

/* ---- plan.c: the configuration and the schedule of one problem ------------------------------- */

/* Picks the configuration for a column-major problem of m x n x k (batch matrices of it) with
 * this tuning key (see tuning_key): `forced` (the handle's configuration for key->type_ab, NULL:
 * none) if its family computes the compute mode, else the nearest usable entry of `tuning` (NULL:
 * none), else the device's default, else the fallback. *source (if not NULL) says which. */
clgemm_config clgemm__plan_choose(const device_info *info, const clgemm_config *forced,
                                  const tuning_table *tuning, const tuning_key *key,
                                  clgemm_compute compute, size_t m, size_t n, size_t k,
                                  size_t batch, bool aligned, const char **source);

/* The most layers a call splits K into (a planned split, the tail's, or CLGEMM_KSPLIT, which the
 * handle clamps to it): more cost workspace traffic and a longer reduction than they win back. */
#define CLGEMM__MAX_SPLITS 64

/* How many layers to split K into for this problem (1: none). Split-K gives a small or narrow
 * M x N with a long K enough work-groups to fill the device; forced > 0 (CLGEMM_KSPLIT=<n> when the
 * handle was made; tests, benches) forces that many. */
int clgemm__plan_splits(const clgemm_config *config, const device_info *info, int forced,
                        clgemm_precision type, size_t m, size_t n, size_t k, size_t batch);

/* How many work-groups share the tiles of this problem in a stream-K schedule (0: the plain
 * data-parallel grid; see cl/common.cl). Only for one matrix without a split K, on families
 * that have the schedule. forced (CLGEMM_STREAMK=<n> when the handle was made; tests, benches)
 * is -1 when unset, 0 for never, else that many work-groups. */
int clgemm__plan_streamk(const clgemm_config *config, const device_info *info, int forced,
                         clgemm_precision type, size_t m, size_t n, size_t k, size_t batch);

/* How much of one m x n matrix the configuration's tiles cover before a mostly empty last row
 * or column of tiles, which then runs apart in small tiles (*main_m, *main_n: m, n when nothing
 * is peeled). forced: -1 unset, 0 never, 1 whenever a partial tile is left (tests). */
void clgemm__plan_peel(const clgemm_config *config, const device_info *info, int forced, size_t m,
                       size_t n, size_t batch, size_t *main_m, size_t *main_n);

/* A partial last wave's tiles shared out by splitting their K: how many of the m x n matrix's
 * tiles (in the order a 2-D grid dispatches them, down each column of tiles) make whole waves
 * (*head_tiles; 0: none, the plain grid), and the K split of the rest, which is at most two
 * rectangles (splits[0]: the bottom of the column the head ends in, splits[1]: the columns
 * after it; each about a wave of work-groups with its split). One matrix, no split K, families
 * with linear_tiles. forced: 0 unset (where the family's tail_pays, on compute capability 9.0,
 * with at most half a wave left), -1 never, 1 wherever a wave is partial, n >= 2 the same with
 * waves of n work-groups (tests). */
void clgemm__plan_tail(const clgemm_config *config, const device_info *info, int forced,
                       clgemm_precision type, size_t m, size_t n, size_t k, size_t batch,
                       size_t *head_tiles, int splits[2]);

/* A rectangle of C: rows i0 .. i0 + m - 1, columns j0 .. j0 + n - 1 (m or n 0: none). */
typedef struct tile_rect {
    size_t i0, j0, m, n;
} tile_rect;
/* What an m x n matrix in mt x nt tiles leaves after its first head_tiles tiles in dispatch
 * order: rest[0] the bottom of the column of tiles the head ends in, rest[1] the columns after
 * it. */
void clgemm__tail_rects(size_t m, size_t n, size_t mt, size_t nt, size_t head_tiles,
                        tile_rect rest[2]);

/* The settings that force a schedule (the handle's, read when it was made; see above). */
typedef struct schedule_force {
    int ksplit;  /* CLGEMM_KSPLIT: 0 unset, n > 0 that many layers */
    int peel;    /* CLGEMM_PEEL: -1 unset, 0 never, 1 always */
    int streamk; /* CLGEMM_STREAMK: -1 unset, 0 never, n work-groups */
    int pack_kc; /* CLGEMM_PACK_KC: 0 unset, -1 never, n > 0 packed K-blocks of n steps */
    int tail; /* CLGEMM_TAIL: 0 unset, -1 never, 1 always, n >= 2 waves of n (clgemm__plan_tail) */
} schedule_force;

/* Elements (4 bytes or more) a persistent stream-K launch keeps before its parts in the
 * workspace: a counter per stream-K tile and consumer warpgroup, in whole 256 bytes (as
 * cl/tma.cl's SK_COUNTERS; zero between calls, exec/gemm.c). */
#define CLGEMM__SK_COUNTERS(groups) (((size_t)(groups)*16 + 255) / 256 * 64)

/* The layers a peeled strip's K is split into: strips are a few rows or columns deep, so only K
 * gives their work-groups parallel work. */
#define CLGEMM__STRIP_SPLITS 32

/* The schedule of one column-major problem, decided at once (clgemm__plan_schedule): the launches
 * a call makes and the workspace they need. Nothing peeled: main_m, main_n are m, n and small is
 * cfg. */
typedef struct gemm_schedule {
    clgemm_config cfg;     /* the main launch's configuration */
    int splits;            /* its K split (1: none); partial products go to the workspace */
    int groups;            /* stream-K work-groups over the main part (0: the plain grid) */
    size_t main_m, main_n; /* what cfg's tiles cover; the rest is peeled strips */
    bool peeled;           /* main_m < m or main_n < n */
    clgemm_config small;   /* the strips' configuration: the family's smallest tiles */
    int strip_splits;      /* the strips' K split */
    size_t workspace;      /* bytes of workspace the launches need (0: none) */
    int pack_kc;           /* > 0: the blocked schedule, K in blocks of pack_kc steps, each
                              block of op(A) and op(B) packed into the workspace first */
    size_t pack_mc;        /* and of each K-block, op(A)'s rows pack_mc at a time (at most m) */
    size_t head_tiles;     /* > 0: the main part's first head_tiles tiles, whole waves, in one
                              launch along a 1-D grid (LINEAR_TILES); the rest in at most two
                              rectangles, K split tail_splits ways into the workspace and reduced */
    int tail_splits[2];    /* (clgemm__plan_tail) */
    size_t pack_stage;     /* C of another type than the arithmetic (FP16, BF16) and more than
                              one K-block: elements of a copy of C in the arithmetic type at the
                              workspace's start, which the K-blocks but the last add into; the
                              last adds it to its product and rounds the sum into C once (0:
                              none; one block writes C itself, rounding once) */
} gemm_schedule;

/* The schedule for configuration cfg (clgemm__plan_choose's) of m x n x k, batch matrices of
 * A/B type `type` and C type `type_c` (table: a batch by table of offsets, which keeps the plain
 * grid). The blocked schedule of a family that packs (family_desc.pack_depth), or split K, or
 * else peeling and stream-K of one matrix; a workspace that cannot be sized (size_t overflow)
 * gives clgemm__schedule_without_workspace's. A pure function: tests/test_unit.c checks it. */
gemm_schedule clgemm__plan_schedule(const clgemm_config *cfg, const device_info *info,
                                    const schedule_force *force, clgemm_precision type,
                                    clgemm_precision type_c, size_t m, size_t n, size_t k,
                                    size_t batch, bool table);
/* The same for operands laid out as dims says (its sizes and transposes: whether a CPU call is
 * blocked depends on them; clgemm__plan_schedule's operands are untransposed). */
gemm_schedule clgemm__plan_schedule_dims(const clgemm_config *cfg, const device_info *info,
                                         const schedule_force *force, clgemm_precision type,
                                         clgemm_precision type_c, const gemm_dims *dims,
                                         bool table);
/* Where the blocked schedule keeps its panels in the workspace, in panel elements
 * (clgemm__panel_size: FP16 and BF16 widened to FP32):
 * op(A)'s (m rows: the schedule's pack_mc) from 0, op(B)'s from the returned offset (64-byte
 * aligned); *total: the elements of both (false: the sizes overflow). */
bool clgemm__pack_panels_layout(const clgemm_config *cfg, clgemm_precision type, size_t m, size_t n,
                                size_t kc, size_t *b_offset, size_t *total);
/* Bytes from the workspace's start to the blocked schedule's panels: its staged C (pack_stage
 * elements of the arithmetic type of `type`), rounded up to 64. */
size_t clgemm__pack_panels_base(const gemm_schedule *s, clgemm_precision type);
/* The same problem when no workspace is to be had: one plain launch of cfg, no split, stream-K
 * or peeling (the plain kernel computes every problem). */
gemm_schedule clgemm__schedule_without_workspace(const gemm_schedule *s, size_t m, size_t n);

#endif /* CLGEMM_PLAN_H */
