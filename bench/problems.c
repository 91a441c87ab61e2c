/* problems.c: the problem lists of clgemm-bench: the gpu and cpu presets, and the parsing of
 * sizes, shapes and transpose pairs given on the command line. */
#include "bench.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool grow(void **items, size_t *capacity, size_t count, size_t item_size) {
    if (count < *capacity) return true;
    size_t cap = *capacity ? *capacity * 2 : 16;
    void *p = realloc(*items, cap * item_size);
    if (!p) return false;
    *items = p;
    *capacity = cap;
    return true;
}

bool shape_list_add(shape_list *list, size_t m, size_t n, size_t k, clgemm_transpose ta,
                    clgemm_transpose tb) {
    if (!grow((void **)&list->items, &list->capacity, list->count, sizeof(shape))) return false;
    list->items[list->count++] = (shape){m, n, k, ta, tb};
    return true;
}

bool problem_list_add(problem_list *list, problem p) {
    if (!grow((void **)&list->items, &list->capacity, list->count, sizeof(problem))) return false;
    list->items[list->count++] = p;
    return true;
}

#define N CLGEMM_NO_TRANS
#define T CLGEMM_TRANS

static bool add_square(shape_list *out, const size_t *sizes, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (!shape_list_add(out, sizes[i], sizes[i], sizes[i], N, N)) return false;
    return true;
}

bool preset_shapes(const char *preset, clgemm_precision precision, shape_list *out) {
    (void)precision; /* both precisions use the same list (FP64 8192^3 is 512 MiB a matrix) */
    bool ok = true;
    if (strcmp(preset, "gpu") == 0) {
        static const size_t square[] = {128, 256, 512, 1024, 2048, 4096, 8192};
        static const size_t irregular[] = {1000, 2047, 4097};
        ok = add_square(out, square, sizeof square / sizeof *square) &&
             add_square(out, irregular, sizeof irregular / sizeof *irregular) &&
             shape_list_add(out, 8192, 64, 8192, N, N) &&
             shape_list_add(out, 64, 8192, 8192, N, N) &&
             shape_list_add(out, 256, 256, 16384, N, N) &&
             /* NN at 4096 is already in the square list */
             shape_list_add(out, 4096, 4096, 4096, N, T) &&
             shape_list_add(out, 4096, 4096, 4096, T, N) &&
             shape_list_add(out, 4096, 4096, 4096, T, T);
    } else if (strcmp(preset, "cpu") == 0) {
        static const size_t square[] = {64, 128, 256, 512, 1024};
        static const size_t irregular[] = {100, 1000};
        ok = add_square(out, square, sizeof square / sizeof *square) &&
             add_square(out, irregular, sizeof irregular / sizeof *irregular) &&
             shape_list_add(out, 512, 512, 512, T, N) &&
             shape_list_add(out, 1000, 1000, 1000, T, N);
    } else {
        return false;
    }
    return ok;
}

bool parse_trans(const char *s, clgemm_transpose *ta, clgemm_transpose *tb) {
    if (strlen(s) != 2) return false;
    clgemm_transpose t[2];
    for (int i = 0; i < 2; i++) {
        if (s[i] == 'N' || s[i] == 'n')
            t[i] = N;
        else if (s[i] == 'T' || s[i] == 't')
            t[i] = T;
        else
            return false;
    }
    *ta = t[0];
    *tb = t[1];
    return true;
}

bool parse_dim(const char *s, char **end, size_t *v) {
    errno = 0;
    if (*s < '0' || *s > '9') return false; /* no sign, no space */
    unsigned long long x = strtoull(s, end, 10);
    if (errno || *end == s || x == 0 || x > MAX_BENCH_DIM) return false;
    *v = (size_t)x;
    return true;
}

bool parse_shape(const char *s, size_t *m, size_t *n, size_t *k) {
    size_t v[3];
    char *end;
    for (int i = 0; i < 3; i++) {
        if (!parse_dim(s, &end, &v[i])) return false;
        if (i < 2 && *end != ',' && *end != 'x') return false;
        s = end + 1;
    }
    if (*end != '\0') return false;
    *m = v[0];
    *n = v[1];
    *k = v[2];
    return true;
}

bool shape_bytes(size_t m, size_t n, size_t k, size_t elem, size_t bytes[3]) {
    return !__builtin_mul_overflow(m, k, &bytes[0]) &&
           !__builtin_mul_overflow(bytes[0], elem, &bytes[0]) &&
           !__builtin_mul_overflow(k, n, &bytes[1]) &&
           !__builtin_mul_overflow(bytes[1], elem, &bytes[1]) &&
           !__builtin_mul_overflow(m, n, &bytes[2]) &&
           !__builtin_mul_overflow(bytes[2], elem, &bytes[2]) && bytes[0] <= SIZE_MAX / 4 &&
           bytes[1] <= SIZE_MAX / 4 && bytes[2] <= SIZE_MAX / 4;
}

char precision_char(clgemm_precision p) {
    return p == CLGEMM_DOUBLE           ? 'd'
           : p == CLGEMM_COMPLEX_SINGLE ? 'c'
           : p == CLGEMM_COMPLEX_DOUBLE ? 'z'
           : p == CLGEMM_BFLOAT16       ? 'b'
           : p == CLGEMM_HALF           ? 'h'
                                        : 's';
}

bool bench_precision(clgemm_precision p) {
    return (int)p >= 0 && p < BENCH_PRECISIONS && p != CLGEMM_HALF;
}

bool precision_complex(clgemm_precision p) {
    return p == CLGEMM_COMPLEX_SINGLE || p == CLGEMM_COMPLEX_DOUBLE;
}

bool precision_double(clgemm_precision p) {
    return p == CLGEMM_DOUBLE || p == CLGEMM_COMPLEX_DOUBLE;
}

size_t precision_bytes(clgemm_precision p) {
    if (p == CLGEMM_BFLOAT16) return sizeof(uint16_t);
    const size_t component = precision_double(p) ? sizeof(double) : sizeof(float);
    return precision_complex(p) ? 2 * component : component;
}

size_t precision_c_bytes(clgemm_precision p) {
    return p == CLGEMM_BFLOAT16 ? sizeof(float) : precision_bytes(p);
}

bool problem_bytes(clgemm_precision p, size_t m, size_t n, size_t k, size_t bytes[3]) {
    size_t c[3];
    return shape_bytes(m, n, k, precision_bytes(p), bytes) &&
           shape_bytes(m, n, k, precision_c_bytes(p), c) && (bytes[2] = c[2], true);
}

const char *trans_string(clgemm_transpose ta, clgemm_transpose tb) {
    static const char *names[2][2] = {{"NN", "NT"}, {"TN", "TT"}};
    return names[ta == T][tb == T];
}

const char *layout_string(clgemm_layout layout) {
    return layout == CLGEMM_COL_MAJOR ? "col" : "row";
}
