/* The samples `--format gbench` writes, kept on disk while the results are
 * read: they are the bulk of a result, and the writer needs them only once
 * every result has been read (it writes the tests in name order). A spool
 * is an unnamed temporary file of doubles, gone when it is closed or the
 * process ends. */
#ifndef KB_SPOOL_H
#define KB_SPOOL_H

#include "base/error.h"

#include <stdio.h>

typedef struct kb_spool {
    FILE *f; /* NULL: samples are not kept */
    long n;  /* how many were put */
} kb_spool;

int kb_spool_open(kb_spool *s, kb_err *err);
/* Appends one sample; its place is the n before the call. */
int kb_spool_put(kb_spool *s, double v, kb_err *err);
/* Reading back from place `at`, one sample after another. */
int kb_spool_seek(const kb_spool *s, long at, kb_err *err);
int kb_spool_next(const kb_spool *s, double *v, kb_err *err);
void kb_spool_close(kb_spool *s);

#endif
