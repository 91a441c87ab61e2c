/* log_capture.h: the drop-in's log (CLGEMM_BLAS_LOG lines on stderr) captured in a temporary
 * file, for the tests that check where calls went. Header-only: each test program has its own
 * copy of the file handle. */
#ifndef CLGEMM_TESTS_BLAS_LOG_CAPTURE_H
#define CLGEMM_TESTS_BLAS_LOG_CAPTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static FILE *log_file;

/* stderr from here on goes to a fresh temporary file. */
static void capture_log(void) {
    log_file = tmpfile();
    cr_assert(log_file && dup2(fileno(log_file), 2) == 2);
}

/* Lines of the captured log holding `what`. */
static int count_log_lines(const char *what) {
    fflush(stderr);
    rewind(log_file);
    char line[512];
    int count = 0;
    while (fgets(line, sizeof line, log_file))
        if (strstr(line, what)) count++;
    return count;
}

#endif /* CLGEMM_TESTS_BLAS_LOG_CAPTURE_H */
