/* test_forward_lookups.c: the drop-in's small calls, which it forwards to the system BLAS, look the
 * system BLAS's routines up once per process, not once per call. LAPACK's dpotrf makes about n
 * small ?syrk calls: a lookup per call (dlsym through the process's libraries and dladdr over their
 * symbols, about 2 us) made dpotrf 2048 on OpenBLAS 10-20 % slower with the drop-in preloaded.
 *
 * This program defines dladdr, which the drop-in's lookups call (to tell its own definitions from
 * the system BLAS's), so it counts them: each routine's first call may look up, the calls after it
 * must not. That the first calls were seen at all shows the count works. dsyrk's results are
 * checked against a double reference with the other triangle poisoned, so that the calls counted
 * are calls that computed. CLGEMM_BLAS_MIN_FLOPS=1e30: every call goes to the system BLAS. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static atomic_int lookups;

int dladdr(const void *addr, Dl_info *info) {
    static int (*real)(const void *, Dl_info *);
    if (!real) real = (int (*)(const void *, Dl_info *))dlsym(RTLD_NEXT, "dladdr");
    atomic_fetch_add(&lookups, 1);
    return real(addr, info);
}

typedef void gemm_fn(const char *, const char *, const int *, const int *, const int *,
                     const void *, const void *, const int *, const void *, const int *,
                     const void *, void *, const int *, size_t, size_t);
gemm_fn dgemm_, zgemm_;
typedef void rank_fn(const char *, const char *, const int *, const int *, const void *,
                     const void *, const int *, const void *, void *, const int *, size_t, size_t);
rank_fn dsyrk_, zsyrk_, zherk_;
typedef void rank2_fn(const char *, const char *, const int *, const int *, const void *,
                      const void *, const int *, const void *, const int *, const void *, void *,
                      const int *, size_t, size_t);
rank2_fn dsyr2k_, zsyr2k_, zher2k_;
typedef void tri_fn(const char *, const char *, const char *, const char *, const int *,
                    const int *, const void *, const void *, const int *, void *, const int *,
                    size_t, size_t, size_t, size_t);
tri_fn dtrsm_, ztrsm_, dtrmm_, ztrmm_;
typedef void sym_fn(const char *, const char *, const int *, const int *, const void *,
                    const void *, const int *, const void *, const int *, const void *, void *,
                    const int *, size_t, size_t);
sym_fn dsymm_, zsymm_, zhemm_;

enum { N = 8, CALLS = 50 };
/* Room for N x N complex doubles; the scalars as complex (real routines read the first part). */
static double a[2 * N * N], b[2 * N * N], c[2 * N * N];
static const double one[2] = {1, 0}, zero[2] = {0, 0};
static const int n = N;

static void call(int which) {
    switch (which) {
    case 0:
        dgemm_("N", "T", &n, &n, &n, one, a, &n, b, &n, zero, c, &n, 1, 1);
        break;
    case 1:
        zgemm_("N", "C", &n, &n, &n, one, a, &n, b, &n, zero, c, &n, 1, 1);
        break;
    case 2:
    case 3:
    case 4: {
        rank_fn *f = which == 2 ? dsyrk_ : which == 3 ? zsyrk_ : zherk_;
        f("L", "N", &n, &n, one, a, &n, zero, c, &n, 1, 1);
        break;
    }
    case 5:
    case 6:
    case 7: {
        rank2_fn *f = which == 5 ? dsyr2k_ : which == 6 ? zsyr2k_ : zher2k_;
        f("U", "N", &n, &n, one, a, &n, b, &n, zero, c, &n, 1, 1);
        break;
    }
    case 8:
    case 9:
    case 10:
    case 11: {
        static tri_fn *const fns[4] = {dtrsm_, ztrsm_, dtrmm_, ztrmm_};
        fns[which - 8]("L", "L", "N", "U", &n, &n, one, a, &n, c, &n, 1, 1, 1, 1);
        break;
    }
    default: {
        sym_fn *f = which == 12 ? dsymm_ : which == 13 ? zsymm_ : zhemm_;
        f("R", "U", &n, &n, one, a, &n, b, &n, zero, c, &n, 1, 1);
    }
    }
}

static const char *const names[] = {"dgemm",  "zgemm",  "dsyrk",  "zsyrk", "zherk",
                                    "dsyr2k", "zsyr2k", "zher2k", "dtrsm", "ztrsm",
                                    "dtrmm",  "ztrmm",  "dsymm",  "zsymm", "zhemm"};
#define ROUTINES ((int)(sizeof names / sizeof *names))

static void fill(uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < 2 * N * N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        a[i] = (double)((s >> 11) & 0xfffff) / 0x100000 - 0.5;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = (double)((s >> 11) & 0xfffff) / 0x100000 - 0.5;
    }
}

Test(forward_lookups, once_per_process) {
    setenv("CLGEMM_BLAS_MIN_FLOPS", "1e30", 1);
    fill(7);
    int first = 0;
    for (int r = 0; r < ROUTINES; r++) {
        int before = atomic_load(&lookups);
        call(r);
        first += atomic_load(&lookups) - before;
        before = atomic_load(&lookups);
        for (int i = 0; i < CALLS; i++)
            call(r);
        cr_expect_eq(atomic_load(&lookups) - before, 0,
                     "%s: %d lookups in %d calls after the first", names[r],
                     atomic_load(&lookups) - before, CALLS);
    }
    cr_assert_gt(first, 0,
                 "no lookup seen in the first calls: no system BLAS, or dladdr not "
                 "interposed (the test could not fail)");
}

Test(forward_lookups, dsyrk_computes) {
    setenv("CLGEMM_BLAS_MIN_FLOPS", "1e30", 1);
    for (int round = 0; round < 3; round++) {
        fill(100 + (uint64_t)round);
        for (int i = 0; i < N * N; i++)
            c[i] = NAN;
        for (int j = 0; j < N; j++)
            for (int i = 0; i < j; i++)
                c[i + j * N] = -12345.0; /* the upper triangle, which 'L' must not write */
        dsyrk_("L", "N", &n, &n, one, a, &n, zero, c, &n, 1, 1);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                if (i < j) {
                    cr_expect_eq(c[i + j * N], -12345.0, "C(%d,%d) written", i, j);
                    continue;
                }
                double ref = 0;
                for (int p = 0; p < N; p++)
                    ref += a[i + p * N] * a[j + p * N];
                cr_expect(fabs(c[i + j * N] - ref) <= 1e-14 * N, "C(%d,%d) = %g, not %g", i, j,
                          c[i + j * N], ref);
            }
    }
}
