#include "spool.h"

#include <errno.h>
#include <string.h>

static int failed(const char *what, kb_err *err) {
    return kb_fail(err, "the temporary file of samples: %s: %s", what,
                   strerror(errno ? errno : EIO));
}

int kb_spool_open(kb_spool *s, kb_err *err) {
    memset(s, 0, sizeof *s);
    s->f = tmpfile();
    return s->f ? 0 : failed("cannot create it", err);
}

int kb_spool_put(kb_spool *s, double v, kb_err *err) {
    if (fwrite(&v, sizeof v, 1, s->f) != 1) return failed("cannot write", err);
    s->n++;
    return 0;
}

int kb_spool_seek(const kb_spool *s, long at, kb_err *err) {
    if (at < 0 || at > s->n || fseek(s->f, at * (long)sizeof(double), SEEK_SET) != 0)
        return failed("cannot seek", err);
    return 0;
}

int kb_spool_next(const kb_spool *s, double *v, kb_err *err) {
    return fread(v, sizeof *v, 1, s->f) == 1 ? 0 : failed("cannot read", err);
}

void kb_spool_close(kb_spool *s) {
    if (s->f) fclose(s->f);
    memset(s, 0, sizeof *s);
}
