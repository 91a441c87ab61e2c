/* tma_fp64_fragments.c: cl/tma.cl's FP64 consumer (WG_TYPE 7: DMMA_OFFSETS, DMMA_SLICE and the
 * epilogue's accumulator places) run on the host for one slice of one tile, built by
 * scripts/check_tma_fp64_fragments.sh against the kernel's own section (tma_fp64_section.cl,
 * extracted from cl/tma.cl) and the consumer loop's own call of DMMA_SLICE (tma_fp64_call.cl, the
 * same text, with the loop's stage `s`) for each tile and transpose given as MWG, NWG, TRANSA,
 * TRANSB: the slice in each of STAGES stages in turn, the others NaN (a load from any other stage
 * shows), filled as the bulk copies fill it (K-major, a 128-byte row a row of op(A) or column of
 * op(B); MN-major, boxes of 16 elements by 16 k lines; the 128-byte swizzle), every consumer
 * thread's loads recorded at its mma.sync calls, each warp's m16n8k16 f64 products formed from its
 * lanes' values as the PTX ISA lays the fragments out (A: a_h at row g + 8 (h & 1), k t + 4 (h >>
 * 1); B: b_s at k t + 4 s, column g; C: c_v at row g + 8 (v >> 1), column 2 t + (v & 1), lane
 * 4 g + t), and each accumulator stored where the kernel's epilogue stores it. Every element of
 * the tile must be stored once and equal the exact product (small integers). Exit 0 when so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned int uint;
typedef unsigned char uchar;
typedef struct {
    double x, y;
} __attribute__((aligned(16))) double2;
#define __local
#define DEV static inline
#define asm(...) ((void)0) /* the mma.sync is emulated below */
#define DMMA    1
#define KWG     16
#define A_BYTES (MWG * 128)
#define A_MN    (TRANSA == 0)
#define B_MN    (TRANSB == 1)
#include "tma_fp64_section.cl"
#undef asm
#define CONSUMERS (MWG / 64)
#define THREADS   (128 * CONSUMERS)
#define NACC      (NWG / 2)
#define CALLS     (NACC / 4)          /* mma.sync calls a thread makes a slice */
#define SLOT      ((MWG + NWG) * 128) /* cl/tma.cl's SLOT without 3xTF32: A's slice, B's */
#define STAGES    4

static unsigned char stages[STAGES * SLOT] __attribute__((aligned(1024)));
static double A[MWG][KWG], B[KWG][NWG], C[MWG][NWG], accs[THREADS][NACC];
static int stored[MWG][NWG];
static struct {
    int at; /* the accumulators' index */
    double a[8], b[4];
} calls[THREADS][CALLS];
static int ncalls[THREADS], thread;
static double *thread_acc;

/* The kernel's mma.sync, recorded: the warp's product needs every lane's values. */
static void record(double *d, const double *a, const double *b) {
    const int i = ncalls[thread]++;
    if (i >= CALLS) {
        printf("more than %d mma.sync calls a thread\n", CALLS);
        exit(1);
    }
    calls[thread][i].at = (int)(d - thread_acc);
    memcpy(calls[thread][i].a, a, sizeof calls[thread][i].a);
    memcpy(calls[thread][i].b, b, sizeof calls[thread][i].b);
}
#undef dmma_16816
#define dmma_16816 record

/* A byte of a 1024-byte-aligned box in the 128-byte swizzle: its 16-byte chunk XOR its row % 8. */
static size_t swizzled(size_t byte) {
    return (byte & ~(size_t)0x70) | ((((byte >> 4) & 7) ^ ((byte >> 7) & 7)) << 4);
}

/* The slice in stage `stage` (the others NaN), every consumer thread's loads and calls as the
 * kernel's consumer loop makes them there, the products and the stores: the elements wrong. */
static int run_stage(const int stage) {
    memset(stages, 0xFF, sizeof stages); /* NaN: a load from another stage spoils its sums */
    memset(ncalls, 0, sizeof ncalls);
    memset(accs, 0, sizeof accs);
    memset(stored, 0, sizeof stored);
    unsigned char *const slice = stages + (size_t)stage * SLOT;
    for (int m = 0; m < MWG; m++)
        for (int k = 0; k < KWG; k++) {
            size_t at = A_MN ? (size_t)(m / 16) * KWG * 128 + (size_t)k * 128 + (size_t)(m % 16) * 8
                             : (size_t)m * 128 + (size_t)k * 8;
            memcpy(slice + swizzled(at), &A[m][k], 8);
        }
    for (int n = 0; n < NWG; n++)
        for (int k = 0; k < KWG; k++) {
            size_t at = B_MN ? (size_t)(n / 16) * KWG * 128 + (size_t)k * 128 + (size_t)(n % 16) * 8
                             : (size_t)n * 128 + (size_t)k * 8;
            memcpy(slice + A_BYTES + swizzled(at), &B[k][n], 8);
        }
    for (uint tid = 0; tid < THREADS; tid++) {
        const uint wg = tid / 128;
        double *const acc = accs[tid];
        thread = (int)tid;
        thread_acc = acc;
        DMMA_OFFSETS();
        const int s = stage; /* the consumer loop's name for its stage */
#include "tma_fp64_call.cl"
    }
    /* Each warp's calls in order: one m16n8k16 product each, added to every lane's four. */
    for (int w0 = 0; w0 < THREADS; w0 += 32)
        for (int c = 0; c < ncalls[w0]; c++) {
            double a[16][16], b[16][8];
            for (int lane = 0; lane < 32; lane++) {
                const int g = lane / 4, t = lane % 4;
                if (ncalls[w0 + lane] != ncalls[w0] || calls[w0 + lane][c].at != calls[w0][c].at) {
                    printf("the lanes of warp %d call apart\n", w0 / 32);
                    exit(1);
                }
                for (int h = 0; h < 8; h++)
                    a[g + 8 * (h & 1)][t + 4 * (h >> 1)] = calls[w0 + lane][c].a[h];
                for (int s = 0; s < 4; s++)
                    b[t + 4 * s][g] = calls[w0 + lane][c].b[s];
            }
            for (int lane = 0; lane < 32; lane++)
                for (int v = 0; v < 4; v++) {
                    const int r = lane / 4 + 8 * (v >> 1), col = 2 * (lane % 4) + (v & 1);
                    double d = 0;
                    for (int k = 0; k < 16; k++)
                        d += a[r][k] * b[k][col];
                    accs[w0 + lane][calls[w0][c].at + v] += d;
                }
        }
    /* The epilogue's places (cl/tma.cl, clgemm_tma's DMMA stores). */
    for (uint tid = 0; tid < THREADS; tid++) {
        const uint wg = tid / 128, lane = tid % 32, warp = (tid / 32) % 4;
        for (int e = 0; e < NACC; e++) {
            const int p = e / (4 * DTQ), j = e / 4 % DTQ, v = e % 4;
            const int pr = DPROW(2 * p + v / 2, (int)(lane / 4)),
                      qr = 8 * j + 2 * (int)(lane % 4) + v % 2;
            const int m = DROWS0(warp) + (DSWAP ? qr : pr);
            const int n = DCOLS0(warp) + (DSWAP ? pr : qr);
            if (m < 0 || m >= MWG || n < 0 || n >= NWG) {
                printf("thread %u stores outside the tile: %d, %d\n", tid, m, n);
                exit(1);
            }
            C[m][n] = accs[tid][e];
            stored[m][n]++;
        }
    }
    int wrong = 0;
    for (int m = 0; m < MWG; m++)
        for (int n = 0; n < NWG; n++) {
            double want = 0;
            for (int k = 0; k < KWG; k++)
                want += A[m][k] * B[k][n];
            wrong += stored[m][n] != 1 || C[m][n] != want;
        }
    return wrong;
}

int main(void) {
    srand(7 + MWG + NWG + 3 * TRANSA + 5 * TRANSB);
    for (int m = 0; m < MWG; m++)
        for (int k = 0; k < KWG; k++)
            A[m][k] = rand() % 17 - 8;
    for (int k = 0; k < KWG; k++)
        for (int n = 0; n < NWG; n++)
            B[k][n] = rand() % 17 - 8;
    int failed = 0;
    for (int stage = 0; stage < STAGES; stage++) {
        const int wrong = run_stage(stage);
        printf("%s MWG %d NWG %d TRANSA %d TRANSB %d, stage %d: %d of %d elements wrong\n",
               wrong ? "FAIL" : "ok", MWG, NWG, TRANSA, TRANSB, stage, wrong, MWG * NWG);
        failed += wrong != 0;
    }
    return failed != 0;
}
