/* simple.c: the smallest complete clgemm program: C = A * B for two 2x3 / 3x2 matrices held
 * in plain host arrays, on the default OpenCL device. Built in CI against the installed
 * library: cc simple.c $(pkg-config --cflags --libs clgemm) */
#include <clgemm.h>
#include <stdio.h>

int main(void) {
    const float a[2 * 3] = {1, 2, 3, 4, 5, 6};    /* 2 x 3, row-major */
    const float b[3 * 2] = {7, 8, 9, 10, 11, 12}; /* 3 x 2, row-major */
    float c[2 * 2] = {0};

    clgemm_handle handle;
    clgemm_status st = clgemm_create_default(&handle);
    if (st == CLGEMM_SUCCESS)
        st = clgemm_sgemm_host(handle, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 2, 2, 3,
                               1.0f, a, 3, b, 2, 0.0f, c, 2);
    clgemm_destroy(handle);
    if (st != CLGEMM_SUCCESS) {
        fprintf(stderr, "clgemm: %s\n", clgemm_status_string(st));
        return 1;
    }
    printf("%g %g\n%g %g\n", c[0], c[1], c[2], c[3]); /* 58 64 / 139 154 */
    return c[0] == 58 && c[1] == 64 && c[2] == 139 && c[3] == 154 ? 0 : 1;
}
