#define _POSIX_C_SOURCE 200809L
#include "outfiles.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int kb_outfiles_check(const char *path, kb_err *err) {
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    if (S_ISLNK(st.st_mode))
        return kb_fail(err,
                       "%s: is a symbolic link: the report writes into its directory only, not "
                       "where a link points (nothing written; remove the link)",
                       path);
    if (!S_ISREG(st.st_mode))
        return kb_fail(err, "%s: is not a regular file: cannot replace it (nothing written)", path);
    return 0;
}

FILE *kb_outfiles_add(kb_outfiles *o, const char *path, kb_err *err) {
    if (o->n == KB_OUTFILES_MAX) {
        kb_fail(err, "%s: more than %d report files", path, KB_OUTFILES_MAX);
        return NULL;
    }
    kb_outfile *f = &o->files[o->n];
    if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path ||
        snprintf(f->tmp, sizeof f->tmp, "%s.tmp.%ld.XXXXXX", path, (long)getpid()) >=
            (int)sizeof f->tmp) {
        kb_fail(err, "%s: path too long", path);
        return NULL;
    }
    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        kb_fail(err, "%s: cannot create a temporary file: %s", path, strerror(errno));
        return NULL;
    }
    f->f = fdopen(fd, "w");
    if (!f->f) {
        kb_fail(err, "%s: cannot write: %s", path, strerror(errno));
        close(fd);
        unlink(f->tmp);
        return NULL;
    }
    o->n++;
    return f->f;
}

/* Flushed to disk and closed: the temporary is complete. */
static int finish(kb_outfile *f, kb_err *err) {
    int ok = !ferror(f->f) && fflush(f->f) == 0 && fchmod(fileno(f->f), 0644) == 0 &&
             fsync(fileno(f->f)) == 0;
    int saved = errno;
    ok = fclose(f->f) == 0 && ok;
    f->f = NULL;
    if (ok) return 0;
    return kb_fail(err, "%s: cannot write: %s (the previous report is unchanged)", f->path,
                   strerror(saved ? saved : EIO));
}

int kb_outfiles_commit(kb_outfiles *o, kb_err *err) {
    for (int i = 0; i < o->n; ++i)
        if (finish(&o->files[i], err) != 0) {
            kb_outfiles_abandon(o);
            return -1;
        }
    for (int i = 0; i < o->n; ++i)
        if (rename(o->files[i].tmp, o->files[i].path) != 0) {
            int saved = errno;
            kb_fail(err, "%s: cannot replace it: %s (%d of the %d report files were replaced)",
                    o->files[i].path, strerror(saved), i, o->n);
            for (int j = i; j < o->n; ++j) unlink(o->files[j].tmp);
            o->n = 0;
            return -1;
        }
    o->n = 0;
    return 0;
}

void kb_outfiles_abandon(kb_outfiles *o) {
    for (int i = 0; i < o->n; ++i) {
        if (o->files[i].f) fclose(o->files[i].f);
        unlink(o->files[i].tmp);
    }
    o->n = 0;
}
