/* batched_bench.c: clgemm-batched-bench, strided-batched GEMM beside CLBlast's
 * XgemmStridedBatched (issue 10), built with or without CLBlast; the work is batched.c's,
 * which clgemm-bench --batched shares.
 * Usage: clgemm-batched-bench [--runs N] [--no-clblast] [--layout row|col]
 *                             [--force FAMILY[:P=V,...]] MODE:BATCH,N ...
 * MODE: s d h b (BF16), i (INT8 into INT32), e (E4M3 into FP32); the last three without
 * CLBlast. BATCH 1 gives the fixed cost of one small call (issue 10 item 4). --force runs the
 * problems after it on one family's configuration ("auto": the library's choice again). */
#include "batched.h"
#include "force_config.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int runs = 10, status = 0;
    bool clblast = true;
    clgemm_layout layout = CLGEMM_ROW_MAJOR;
    clgemm_handle h;
    clgemm_status st = clgemm_create_default(&h);
    if (st) {
        fprintf(stderr, "clgemm_create_default: %s\n", clgemm_status_string(st));
        return 1;
    }
    batched_header(stdout, h);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = atoi(argv[++i]);
            if (runs < 1) runs = 1;
            continue;
        }
        if (!strcmp(argv[i], "--no-clblast")) {
            clblast = false;
            continue;
        }
        if (!strcmp(argv[i], "--force") && i + 1 < argc) {
            if (bench_force(h, argv[++i], "clgemm-batched-bench") != 0) {
                clgemm_destroy(h);
                return 2;
            }
            continue;
        }
        if (!strcmp(argv[i], "--layout") && i + 1 < argc) {
            layout = !strcmp(argv[++i], "col") ? CLGEMM_COL_MAJOR : CLGEMM_ROW_MAJOR;
            continue;
        }
        batched_problem p;
        if (!batched_parse(argv[i], 's', &p) || !strchr(argv[i], ':')) {
            fprintf(stderr, "bad problem %s (MODE:BATCH,N, MODE s d h b i e)\n", argv[i]);
            clgemm_destroy(h);
            return 2;
        }
        p.layout = layout;
        status |= batched_run(stdout, h, &p, runs, clblast);
    }
    clgemm_destroy(h);
    return status;
}
