#define _POSIX_C_SOURCE 200809L
#include "atomicfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const char *text) {
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

int kb_write_file_atomic(const char *path, const char *text, kb_err *err) {
    char tmp[KB_PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof tmp)
        return kb_fail(err, "%s: path too long", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return kb_fail(err, "%s: cannot create a temporary file: %s", path, strerror(errno));
    int ok = write_all(fd, text) == 0 && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
    int saved = errno;
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, path) == 0) return 0;
    if (!ok) errno = saved;
    saved = errno;
    unlink(tmp);
    return kb_fail(err, "%s: cannot write: %s (the previous file is unchanged)", path,
                   strerror(saved));
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
