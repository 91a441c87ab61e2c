/* wait_child.h: waits for a forked child under a deadline, so that a test whose child hangs
 * fails instead of hanging the suite. */
#ifndef CLGEMM_TEST_WAIT_CHILD_H
#define CLGEMM_TEST_WAIT_CHILD_H

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* Waits for child pid at most `seconds`; kills it if it is still running. Its exit status
 * (128 + the signal if a signal ended it), or -1 when it had to be killed. */
static inline int wait_child(pid_t pid, int seconds) {
    for (int tenths = 0; tenths < seconds * 10; tenths++) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        usleep(100000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

#endif
