#define _POSIX_C_SOURCE 200809L
#include "base/atomicfile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary file of the write in progress: at most one per process. */
static char inflight_path[KB_PATH_MAX];
static volatile sig_atomic_t inflight;

void kb_atomicfile_abandon(void) {
    if (inflight) unlink(inflight_path);
    inflight = 0;
}

static void on_stop_signal(int sig) {
    kb_atomicfile_abandon();
    signal(sig, SIG_DFL);
    raise(sig);
}

void kb_atomicfile_catch_signals(void) {
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof signals / sizeof *signals; ++i) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(signals[i], &sa, NULL);
    }
}

int kb_atomicfile_temp_name(const char *name, long *pid) {
    const char *tmp = NULL;
    for (const char *p = strstr(name, ".tmp."); p; p = strstr(p + 1, ".tmp.")) tmp = p;
    if (!tmp || tmp == name) return 0;
    const char *digits = tmp + 5, *p = digits;
    while (isdigit((unsigned char)*p)) ++p;
    if (p == digits || p - digits > 10 || *p != '.') return 0;
    const char *suffix = p + 1;
    for (p = suffix; isalnum((unsigned char)*p); ++p) continue;
    if (*p || p - suffix != 6) return 0;
    *pid = strtol(digits, NULL, 10);
    return *pid > 0;
}

static int writer_gone(long pid) {
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int kb_atomicfile_remove_stale(const char *dir) {
    DIR *d = opendir(*dir ? dir : ".");
    if (!d) return 0;
    int removed = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        long pid;
        struct stat st;
        if (!kb_atomicfile_temp_name(de->d_name, &pid) || !writer_gone(pid)) continue;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        removed += unlinkat(dirfd(d), de->d_name, 0) == 0;
    }
    closedir(d);
    return removed;
}

/* The directory part of path ("" for a bare file name). */
static void dir_of(const char *path, char *out, size_t size) {
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + (slash == path) : 0;
    if (n >= size) n = size - 1;
    memcpy(out, path, n);
    out[n] = '\0';
}

int kb_write_all(int fd, const char *text) {
    size_t left = strlen(text);
    while (left > 0) {
        ssize_t n = write(fd, text, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        text += n;
        left -= (size_t)n;
    }
    return 0;
}

/* The file a write to `path` replaces: path itself, or, where path is a
 * symbolic link (a baseline linked from elsewhere), the file it points to,
 * through at most 40 links; renaming over the link itself would replace the
 * link with a file and leave its target stale. */
static int write_target(const char *path, char *out, size_t size, kb_err *err) {
    if (snprintf(out, size, "%s", path) >= (int)size)
        return kb_fail(err, "%s: path too long", path);
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st;
        char link[KB_PATH_MAX], dir[KB_PATH_MAX];
        if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode)) return 0;
        ssize_t n = readlink(out, link, sizeof link - 1);
        if (n < 0 || n >= (ssize_t)sizeof link - 1)
            return kb_fail(err, "%s: cannot read the symbolic link %s", path, out);
        link[n] = '\0';
        dir_of(out, dir, sizeof dir);
        int len = link[0] == '/' || !*dir ? snprintf(out, size, "%s", link)
                                          : snprintf(out, size, "%s/%s", dir, link);
        if (len >= (int)size) return kb_fail(err, "%s: path too long", path);
    }
    return kb_fail(err, "%s: too many levels of symbolic links", path);
}

/* The file being replaced by the write in progress (its path resolved). */
static char inflight_target[KB_PATH_MAX];

int kb_atomicfile_begin(const char *given, kb_err *err) {
    char dir[KB_PATH_MAX];
    if (write_target(given, inflight_target, sizeof inflight_target, err) != 0) return -1;
    const char *path = inflight_target;
    dir_of(path, dir, sizeof dir);
    kb_atomicfile_remove_stale(dir);
    char tmp[KB_PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld.XXXXXX", path, (long)getpid()) >= (int)sizeof tmp)
        return kb_fail(err, "%s: path too long", path);
    inflight = 0;
    int fd = mkstemp(tmp);
    if (fd < 0)
        return kb_fail(err, "%s: cannot create a temporary file: %s", path, strerror(errno));
    memcpy(inflight_path, tmp, sizeof tmp);
    atomic_signal_fence(memory_order_seq_cst); /* the path is complete before it counts */
    inflight = 1;
    return fd;
}

/* Removes the temporary file; the error of a write that failed with errno
 * `saved`. */
static int write_failed(const char *path, int saved, kb_err *err) {
    kb_atomicfile_abandon();
    return kb_fail(err, "%s: cannot write: %s (the previous file is unchanged)", path,
                   strerror(saved));
}

int kb_atomicfile_commit(int fd, const char *path, kb_err *err) {
    int ok = fchmod(fd, 0644) == 0 && fsync(fd) == 0;
    int saved = errno;
    ok = close(fd) == 0 && ok;
    if (ok && rename(inflight_path, inflight_target) == 0) {
        inflight = 0;
        return 0;
    }
    return write_failed(path, ok ? errno : saved, err);
}

int kb_write_file_atomic(const char *path, const char *text, kb_err *err) {
    int fd = kb_atomicfile_begin(path, err);
    if (fd < 0) return -1;
    if (kb_write_all(fd, text) == 0) return kb_atomicfile_commit(fd, path, err);
    int saved = errno;
    close(fd);
    return write_failed(path, saved, err);
}

int kb_mkdir_p(const char *path, kb_err *err) {
    char buf[KB_PATH_MAX];
    if (!path[0]) return kb_fail(err, "cannot create a directory with an empty name");
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return kb_fail(err, "%s: path too long", path);
    for (char *p = buf + 1;; ++p) {
        int end = *p == '\0';
        if (*p == '/' || end) {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return kb_fail(err, "%s: cannot create directory: %s", buf, strerror(errno));
            if (end) break;
            *p = '/';
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return kb_fail(err, "%s: not a directory", path);
    return 0;
}
