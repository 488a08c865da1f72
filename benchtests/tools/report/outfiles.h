/* The report's files, replaced together. Each is written, as it is made,
 * to a temporary file beside its target (<target>.tmp.<pid>.XXXXXX, the
 * harness's names for them: one a killed report leaves is removed by the
 * next, atomicfile.h), and all are renamed into place once every one is
 * complete: a report that fails half way leaves the previous one whole. */
#ifndef KB_OUTFILES_H
#define KB_OUTFILES_H

#include "base/error.h"

#include <stdio.h>

#define KB_OUTFILES_MAX 24

typedef struct kb_outfile {
    char path[KB_PATH_MAX], tmp[KB_PATH_MAX + 32];
    FILE *f;
} kb_outfile;

typedef struct kb_outfiles {
    kb_outfile files[KB_OUTFILES_MAX];
    int n;
} kb_outfiles;

/* Whether `path` may be replaced: absent, or a regular file (not a
 * directory, a device or a symbolic link, which would take the write
 * elsewhere). 0, or -1 with a message naming it. */
int kb_outfiles_check(const char *path, kb_err *err);
/* A new file of the set: its temporary, open for writing; NULL on error. */
FILE *kb_outfiles_add(kb_outfiles *o, const char *path, kb_err *err);
/* Every file flushed to disk and renamed over its target, in order. */
int kb_outfiles_commit(kb_outfiles *o, kb_err *err);
/* The temporaries removed, nothing replaced. */
void kb_outfiles_abandon(kb_outfiles *o);

#endif
