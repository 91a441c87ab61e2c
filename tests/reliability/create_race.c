/* create_race.c: item 10 of issue 14. PoCL answers concurrent first clGetDeviceIDs calls with
 * CL_DEVICE_NOT_FOUND (or crashes), so clgemm_create_default from several threads at once used
 * to fail in some of them. Each round is a fresh process (OpenCL is initialised once per
 * process) whose 8 threads call clgemm_create_default at the same moment; all must succeed. */
#include "clgemm.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 8
#define ROUNDS  6

static pthread_barrier_t start;
static clgemm_status status[THREADS];

static void *create(void *arg) {
    size_t i = (size_t)arg;
    clgemm_handle h = NULL;
    pthread_barrier_wait(&start);
    status[i] = clgemm_create_default(&h);
    clgemm_destroy(h);
    return NULL;
}

/* One round in this (fresh) process: the number of threads that failed. */
static int round_of_threads(void) {
    pthread_t t[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (size_t i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, create, (void *)i);
    int failed = 0;
    for (size_t i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        failed += status[i] != CLGEMM_SUCCESS;
    }
    return failed;
}

Test(create_race, create_default_from_many_threads_at_once, .timeout = 300) {
    for (int r = 0; r < ROUNDS; r++) {
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) _exit(round_of_threads());
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st), "round %d: the process died (signal %d)", r,
                  WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        cr_assert_eq(WEXITSTATUS(st), 0, "round %d: %d of %d threads got no handle", r,
                     WEXITSTATUS(st), THREADS);
    }
}
