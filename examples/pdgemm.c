/* pdgemm.c: distributed C = alpha A B + beta C with ScaLAPACK's PDGEMM on a process grid (2 x 2
 * for 4 ranks), which calls the local BLAS dgemm_ on every rank: preload libclgemm_blas (or
 * link it) and each rank's share runs on its OpenCL device. Every rank builds its blocks of
 * A, B and C from a formula of the global indices, so it can check its part of the result
 * against a long-double host reference; rank 0 prints the largest error. With an output
 * prefix each rank also writes its local C (PREFIX.RANK, raw doubles) for comparing runs.
 *
 *   mpirun -np 4 [-x LD_PRELOAD=libclgemm_blas.so] ./clgemm-pdgemm [M N K NB [PREFIX]] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void Cblacs_pinfo(int *me, int *nprocs);
void Cblacs_get(int context, int what, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int not_done);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja, const int *desca,
             const double *b, const int *ib, const int *jb, const int *descb, const double *beta,
             double *c, const int *ic, const int *jc, const int *descc);

/* Matrix entries: exact in double, in [-1, 1), different for each matrix. */
static double entry(int which, int i, int j) {
    unsigned h = (unsigned)i * 2654435761u ^ (unsigned)j * 40503u ^ (unsigned)which * 97u;
    h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
    return (double)(h % 2048u) / 1024.0 - 1.0;
}

/* Global index of local index l in a block-cyclic distribution starting on process 0. */
static int global_index(int l, int nb, int p, int nprocs) {
    return (l / nb * nprocs + p) * nb + l % nb;
}

/* A local m_loc x n_loc block of a global matrix, column-major with leading dimension ld. */
static double *local_matrix(int which, int m_loc, int n_loc, int ld, int nb, int myrow, int mycol,
                            int nprow, int npcol) {
    double *x = malloc(sizeof *x * (size_t)ld * (n_loc > 0 ? n_loc : 1));
    for (int j = 0; j < n_loc; j++)
        for (int i = 0; i < m_loc; i++)
            x[i + (size_t)j * ld] =
                entry(which, global_index(i, nb, myrow, nprow), global_index(j, nb, mycol, npcol));
    return x;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int m = argc > 4 ? atoi(argv[1]) : 300, n = argc > 4 ? atoi(argv[2]) : 260;
    int k = argc > 4 ? atoi(argv[3]) : 280, nb = argc > 4 ? atoi(argv[4]) : 32;
    const char *prefix = argc > 5 ? argv[5] : NULL;
    int me, nprocs, ctx, nprow, npcol, myrow, mycol, zero = 0, one = 1, info;
    Cblacs_pinfo(&me, &nprocs);
    int p = (int)sqrt((double)nprocs);
    while (nprocs % p)
        p--;
    Cblacs_get(-1, 0, &ctx);
    Cblacs_gridinit(&ctx, "Row", p, nprocs / p);
    Cblacs_gridinfo(ctx, &nprow, &npcol, &myrow, &mycol);

    /* Local shares of A (m x k), B (k x n), C (m x n). */
    int ma = numroc_(&m, &nb, &myrow, &zero, &nprow), ka = numroc_(&k, &nb, &mycol, &zero, &npcol);
    int kb = numroc_(&k, &nb, &myrow, &zero, &nprow), nb_ = numroc_(&n, &nb, &mycol, &zero, &npcol);
    int lda = ma > 1 ? ma : 1, ldb = kb > 1 ? kb : 1;
    int desca[9], descb[9], descc[9];
    descinit_(desca, &m, &k, &nb, &nb, &zero, &zero, &ctx, &lda, &info);
    descinit_(descb, &k, &n, &nb, &nb, &zero, &zero, &ctx, &ldb, &info);
    descinit_(descc, &m, &n, &nb, &nb, &zero, &zero, &ctx, &lda, &info);
    double *a = local_matrix(1, ma, ka, lda, nb, myrow, mycol, nprow, npcol);
    double *b = local_matrix(2, kb, nb_, ldb, nb, myrow, mycol, nprow, npcol);
    double *c = local_matrix(3, ma, nb_, lda, nb, myrow, mycol, nprow, npcol);
    const double alpha = 0.75, beta = -0.5;
    pdgemm_("N", "N", &m, &n, &k, &alpha, a, &one, &one, desca, b, &one, &one, descb, &beta, c,
            &one, &one, descc);

    /* This rank's part of C against the host reference. */
    double err = 0, scale = 0;
    for (int j = 0; j < nb_; j++)
        for (int i = 0; i < ma; i++) {
            int gi = global_index(i, nb, myrow, nprow), gj = global_index(j, nb, mycol, npcol);
            long double sum = 0;
            for (int q = 0; q < k; q++)
                sum += (long double)entry(1, gi, q) * entry(2, q, gj);
            long double want = alpha * sum + beta * entry(3, gi, gj);
            double d = fabs((double)(c[i + (size_t)j * lda] - want));
            if (!(d <= err)) err = isnan(d) ? INFINITY : d;
            if (fabsl(want) > scale) scale = (double)fabsl(want);
        }
    double max_err, max_scale;
    MPI_Allreduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&scale, &max_scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double tol = 4.0 * k * 1.1e-16 * (1 + max_scale);
    if (prefix) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", prefix, me);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(c, sizeof *c, (size_t)lda * nb_, f) != (size_t)lda * nb_)
            max_err = INFINITY;
        if (f) fclose(f);
    }
    if (me == 0)
        printf("pdgemm %dx%dx%d nb %d on %dx%d ranks: max error %.3g (tolerance %.3g): %s\n", m, n,
               k, nb, nprow, npcol, max_err, tol, max_err <= tol ? "ok" : "WRONG");
    free(a), free(b), free(c);
    Cblacs_gridexit(ctx);
    Cblacs_exit(1);
    MPI_Finalize();
    return max_err <= tol ? 0 : 1;
}
