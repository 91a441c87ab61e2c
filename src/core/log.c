/* log.c: the library's only output, to stderr and only when CLGEMM_LOG is set (not "0"). */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void clgemm__log(const char *fmt, ...) {
    const char *env = getenv("CLGEMM_LOG");
    if (!env || !*env || (env[0] == '0' && !env[1])) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("clgemm: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
