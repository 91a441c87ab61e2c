/* fileutil.c: the library's file handling, in one place for the tuning database and the kernel
 * cache: the cache-folder rule, mkdir -p with errors reported, reading a regular file without
 * ever blocking (a FIFO or device at the path is refused, not opened for a wait) and with a size
 * cap, and atomic replacement (an exclusive temporary of unpredictable name, fsync, rename, fsync
 * of the folder), so that a planted symlink is never followed and a reader never sees half a
 * file. */
#include "core/core.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- The cache folder ------------------------------------------------------------------------ */

static const char *home_dir(char *buf, size_t size) {
    const char *home = getenv("HOME");
    if (home && *home) return home;
    struct passwd pw, *found = NULL;
    if (getpwuid_r(getuid(), &pw, buf, size, &found) != 0 || !found || !found->pw_dir) return NULL;
    return found->pw_dir;
}

bool clgemm__cache_root(char *buf, size_t size) {
    const char *xdg = getenv("XDG_CACHE_HOME");
    int w;
    if (xdg && xdg[0] == '/') { /* the XDG spec says to ignore relative values */
        w = snprintf(buf, size, "%s/clgemm", xdg);
    } else {
        char pwbuf[4096];
        const char *home = home_dir(pwbuf, sizeof pwbuf);
        if (!home) {
            clgemm__log("no HOME to find ~/.cache in");
            return false;
        }
        w = snprintf(buf, size, "%s/.cache/clgemm", home);
    }
    return w > 0 && (size_t)w < size;
}

/* ---- Folders --------------------------------------------------------------------------------- */

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int clgemm__mkdir_p(const char *path) {
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) return ENAMETOOLONG;
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != 0) continue;
        char saved = *p;
        *p = 0;
        /* 0777: the umask decides, as for any folder the user makes */
        if (mkdir(dir, 0777) != 0 && errno != EEXIST && !is_dir(dir)) {
            int err = errno;
            clgemm__log("cannot create %s: %s", dir, strerror(err));
            return err;
        }
        if (saved == 0) return is_dir(dir) ? 0 : ENOTDIR;
        *p = saved;
    }
}

int clgemm__mkdir_parent(const char *path) {
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) return ENAMETOOLONG;
    char *last = strrchr(dir, '/');
    if (!last || last == dir) return 0;
    *last = 0;
    return clgemm__mkdir_p(dir);
}

void clgemm__sync_parent(const char *path) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *last = strrchr(dir, '/');
    if (!last)
        snprintf(dir, sizeof dir, ".");
    else if (last == dir)
        dir[1] = 0;
    else
        *last = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    fsync(fd);
    close(fd);
}

/* ---- Reading --------------------------------------------------------------------------------- */

file_status clgemm__read_file(const char *path, size_t max, bool follow, char **data,
                              size_t *size) {
    *data = NULL;
    if (size) *size = 0;
    /* O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
    if (fd < 0) {
        if (errno == ENOENT) return FILE_MISSING;
        return errno == ELOOP ? FILE_NOT_REGULAR : FILE_IO_ERROR;
    }
    struct stat st;
    file_status status = FILE_OK;
    char *buf = NULL;
    size_t used = 0;
    if (fstat(fd, &st) != 0)
        status = FILE_IO_ERROR;
    else if (!S_ISREG(st.st_mode))
        status = FILE_NOT_REGULAR;
    else if (st.st_size < 0 || (uintmax_t)st.st_size > max)
        status = FILE_TOO_LARGE;
    else if (!(buf = malloc((size_t)st.st_size + 1)))
        status = FILE_NO_MEMORY;
    /* Up to one byte more than fstat said, so a file that grew past the cap is noticed. */
    size_t want = status == FILE_OK ? (size_t)st.st_size + 1 : 0;
    while (status == FILE_OK && used < want) {
        ssize_t r = read(fd, buf + used, want - used);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) status = FILE_IO_ERROR;
        if (r <= 0) break;
        used += (size_t)r;
    }
    close(fd);
    if (status == FILE_OK && used > (size_t)st.st_size) status = FILE_TOO_LARGE; /* it grew */
    if (status != FILE_OK) {
        free(buf);
        return status;
    }
    buf[used] = 0;
    *data = buf;
    if (size) *size = used;
    return FILE_OK;
}

const char *clgemm__file_status_string(file_status status) {
    switch (status) {
    case FILE_OK:
        return "read";
    case FILE_MISSING:
        return "not found";
    case FILE_NOT_REGULAR:
        return "not a regular file (a FIFO, device, folder or symbolic link)";
    case FILE_TOO_LARGE:
        return "larger than the size clgemm reads";
    case FILE_NO_MEMORY:
        return "out of memory";
    default:
        return "read error";
    }
}

/* ---- Writing --------------------------------------------------------------------------------- */

/* Six characters no other process can predict (getrandom), else from the clock and pid. */
#define SUFFIX_SET "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
static void random_suffix(char out[7]) {
    static const char set[] = SUFFIX_SET;
    unsigned char bytes[6];
    if (getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != (ssize_t)sizeof bytes) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x =
            (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
        for (int i = 0; i < 6; i++, x >>= 8)
            bytes[i] = (unsigned char)(x ^ (x >> 29));
    }
    for (int i = 0; i < 6; i++)
        out[i] = set[bytes[i] % (sizeof set - 1)];
    out[6] = 0;
}

int clgemm__temp_create(const char *path, char *tmp, size_t tmp_size) {
    for (int attempt = 0; attempt < 100; attempt++) {
        char suffix[7];
        random_suffix(suffix);
        if (snprintf(tmp, tmp_size, "%s%s%s", path, CLGEMM__TEMP_INFIX, suffix) >= (int)tmp_size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        /* O_EXCL never opens an existing file or follows a symlink; 0666: the umask decides. */
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

static bool write_all(int fd, const void *data, size_t size) {
    const char *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return false;
        }
        p += w;
        size -= (size_t)w;
    }
    return true;
}

int clgemm__write_atomic(const char *path, const void *data, size_t size) {
    char tmp[4200];
    int fd = clgemm__temp_create(path, tmp, sizeof tmp);
    if (fd < 0) {
        int err = errno;
        clgemm__log("cannot create a temporary file next to %s: %s", path, strerror(err));
        return err;
    }
    /* A replaced file keeps its mode; a new one has what the umask gives (0666 & ~umask). */
    struct stat st;
    bool ok =
        write_all(fd, data, size) &&
        (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || fchmod(fd, st.st_mode & 07777) == 0) &&
        fsync(fd) == 0;
    int err = ok ? 0 : errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        clgemm__log("cannot write %s: %s", path, strerror(err));
        unlink(tmp);
        return err;
    }
    clgemm__sync_parent(path);
    return 0;
}

bool clgemm__is_cache_name(const char *name, size_t len, const char *ext) {
    size_t prefix_len = strlen(CLGEMM__CACHE_PREFIX), ext_len = strlen(ext);
    if (len != prefix_len + 16 + ext_len || memcmp(name, CLGEMM__CACHE_PREFIX, prefix_len) != 0 ||
        memcmp(name + prefix_len + 16, ext, ext_len) != 0)
        return false;
    for (size_t i = prefix_len; i < prefix_len + 16; i++)
        if (!strchr("0123456789abcdef", name[i]) || !name[i]) return false;
    return true;
}

void clgemm__remove_temps(const char *dir, const char *name, const char *ext, double min_age_s) {
    DIR *d = opendir(dir);
    if (!d) return;
    size_t infix_len = strlen(CLGEMM__TEMP_INFIX);
    time_t now = time(NULL);
    for (struct dirent *e; (e = readdir(d));) {
        /* <target><infix> and six characters of random_suffix's set, nothing else */
        size_t len = strlen(e->d_name);
        if (len < infix_len + 6) continue;
        const char *infix = e->d_name + len - 6 - infix_len;
        size_t target_len = (size_t)(infix - e->d_name);
        if (memcmp(infix, CLGEMM__TEMP_INFIX, infix_len) != 0 ||
            strspn(infix + infix_len, SUFFIX_SET) != 6)
            continue;
        if (name ? target_len != strlen(name) || memcmp(e->d_name, name, target_len) != 0
                 : !clgemm__is_cache_name(e->d_name, target_len, ext))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        /* No age asked for, no stamp compared: a temporary whose time stamp lies ahead of
         * time() (a coarse clock, a skewed file server) is as stale as any. */
        if (min_age_s > 0 && difftime(now, st.st_mtime) < min_age_s) continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0)
            clgemm__log("removed stale %s/%s", dir, e->d_name);
    }
    closedir(d);
}
