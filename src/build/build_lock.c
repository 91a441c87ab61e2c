/* build_lock.c: one compile per host. Processes that miss the same kernel-cache entry (MPI
 * ranks, Python workers started together) take a lock on <entry>.lock in the cache folder: the
 * first builds and writes the entry, the others wait and then read the binary it wrote.
 *
 * The lock is flock(2), which the kernel releases when its holder dies, however it dies (kill
 * -9 included), so a dead builder never blocks anyone: the next waiter takes the lock and
 * builds. A holder removes the lock file when it is done, while still holding it; a waiter that
 * then gets the lock on the removed file knows the build is over and reads the entry. When the
 * folder cannot hold a lock file (unwritable, full, a planted symlink or FIFO, no flock on this
 * file system) or a holder takes unreasonably long (stopped, hung), the caller just builds. */
#include "build/build.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long to wait for another process's build: far longer than any one program takes on PoCL
 * (a few seconds, a minute on a loaded machine), short enough that a stopped holder costs a
 * waiter one build's time, not its run. */
#define WAIT_MAX_S 120.0

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* True while path names the very file fd has open (a finished holder removes it). */
static bool still_named(int fd, const char *path) {
    struct stat mine, named;
    return fstat(fd, &mine) == 0 && lstat(path, &named) == 0 && mine.st_dev == named.st_dev &&
           mine.st_ino == named.st_ino;
}

build_lock_state clgemm__build_lock(const char *entry_path, build_lock *lock) {
    lock->fd = -1;
    int n = snprintf(lock->path, sizeof lock->path, "%.*s.lock",
                     (int)(strlen(entry_path) - strlen(".bin")), entry_path);
    if (n <= 0 || (size_t)n >= sizeof lock->path || clgemm__mkdir_parent(entry_path) != 0)
        return BUILD_LOCK_NONE;
    /* O_NOFOLLOW: a planted symlink is refused; O_NONBLOCK: a planted FIFO does not block.
     * Read-only: flock needs no write access, so a lock file another user of a shared cache
     * made (0644) still serves. */
    int fd = open(lock->path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        clgemm__log("no build lock %s: %s", lock->path, fd < 0 ? strerror(errno) : "not a file");
        if (fd >= 0) close(fd);
        return BUILD_LOCK_NONE;
    }
    double start = now_s(), pause = 0.005;
    bool waited = false;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK) { /* ENOLCK and the like: a file system without flock */
            clgemm__log("no build lock %s: %s", lock->path, strerror(errno));
            close(fd);
            return BUILD_LOCK_NONE;
        }
        if (!waited) {
            clgemm__log("waiting for another process to build %s", strrchr(entry_path, '/') + 1);
            waited = true;
        }
        if (now_s() - start > WAIT_MAX_S) {
            clgemm__log("gave up waiting for %s after %.0f s: building it here", lock->path,
                        WAIT_MAX_S);
            close(fd);
            return BUILD_LOCK_NONE;
        }
        /* Polling, not a blocking flock, so that the wait is bounded; a build takes seconds,
         * so a tenth of a second of latency is nothing. */
        sleep_s(pause);
        if (pause < 0.1) pause *= 2;
    }
    if (!still_named(fd, lock->path)) { /* its holder finished (and removed it) meanwhile */
        close(fd);
        return BUILD_LOCK_DONE;
    }
    lock->fd = fd;
    return waited ? BUILD_LOCK_HELD_AFTER_WAIT : BUILD_LOCK_HELD;
}

void clgemm__build_unlock(build_lock *lock) {
    if (lock->fd < 0) return;
    /* Removed while still held, so that whoever waits on this file sees the build is over. */
    if (still_named(lock->fd, lock->path)) unlink(lock->path);
    /* An explicit unlock: a child forked meanwhile shares the descriptor, and close alone
     * would leave the lock held until that child exits. */
    flock(lock->fd, LOCK_UN);
    close(lock->fd);
    lock->fd = -1;
}

void clgemm__remove_stale_locks(const char *dir, double min_age_s) {
    DIR *d = opendir(dir);
    if (!d) return;
    time_t now = time(NULL);
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (!clgemm__is_cache_name(e->d_name, len, ".lock")) continue; /* only the cache's own */
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            difftime(now, st.st_mtime) < min_age_s)
            continue;
        /* Only a lock nobody holds (a killed builder's) is removed, and while holding it. */
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) unlinkat(dirfd(d), e->d_name, 0);
        close(fd);
    }
    closedir(d);
}
