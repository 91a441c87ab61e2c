/* geometry.c: the tests' random values and matrix geometry: where op(X)(i, j) is stored, the
 * smallest legal leading dimension and how many elements a matrix spans. */
#include "test_common.h"
#include "core/xorshift.h"

double tc_random(uint64_t *state) {
    /* 24 random bits, so the value is exact in float. */
    uint64_t r = clgemm_xorshift64s(state) >> 40;
    return (double)r / (double)(1u << 23) - 1.0;
}

/* ---- Geometry -------------------------------------------------------------------------------- */

/* Stored rows and columns of op(X) = rows x cols. */
static void stored(clgemm_transpose trans, size_t rows, size_t cols, size_t *sr, size_t *sc) {
    *sr = trans == CLGEMM_TRANS ? cols : rows;
    *sc = trans == CLGEMM_TRANS ? rows : cols;
}

size_t tc_min_ld(clgemm_layout layout, clgemm_transpose trans, size_t rows, size_t cols) {
    size_t sr, sc;
    stored(trans, rows, cols, &sr, &sc);
    size_t v = layout == CLGEMM_ROW_MAJOR ? sc : sr;
    return v > 1 ? v : 1;
}

size_t tc_index(clgemm_layout layout, clgemm_transpose trans, size_t i, size_t j, size_t ld) {
    size_t si = trans == CLGEMM_TRANS ? j : i, sj = trans == CLGEMM_TRANS ? i : j;
    return layout == CLGEMM_ROW_MAJOR ? si * ld + sj : si + sj * ld;
}

size_t tc_extent(clgemm_layout layout, clgemm_transpose trans, size_t rows, size_t cols,
                 size_t ld) {
    /* The last element of op(X) is also the last one stored. */
    if (rows == 0 || cols == 0) return 0;
    return tc_index(layout, trans, rows - 1, cols - 1, ld) + 1;
}
