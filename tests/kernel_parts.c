/* kernel_parts.c: kernel-parts FILE prints, one a line, the parts of cl/ that the library joins
 * into the source of kernel file FILE (clgemm__kernel_source_parts: the common parts, those its
 * family names in family_desc.parts, FILE last), each to be followed by a newline;
 * kernel-parts --common, the common parts alone (what every kernel starts with). The library's
 * own list, for what compiles kernels outside it: tests/portability/compile.py (the AMD and
 * Intel compilers) and tests/gpu/build_mma_lab.sh. Exit status 2 on a wrong use. */
#include <string.h>
#include "build/build.h"

#include <stdio.h>

int main(int argc, char **argv) {
    const char *parts[KERNEL_PARTS_MAX];
    const char *file = argc == 2 && strcmp(argv[1], "--common") != 0 ? argv[1] : NULL;
    const int n = argc == 2 ? clgemm__kernel_source_parts(file, parts) : -1;
    if (n < 0) {
        fprintf(stderr, "usage: kernel-parts FILE (a kernel file of cl/, such as mma.cl) | "
                        "kernel-parts --common\n");
        return 2;
    }
    for (int i = 0; i < n; i++)
        printf("%s\n", parts[i]);
    return 0;
}
