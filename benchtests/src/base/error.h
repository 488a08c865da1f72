/* A message buffer for errors that travel up to the driver, which prints them
 * once. Functions that can fail take a kb_err * and return -1 after kb_fail. */
#ifndef KB_ERROR_H
#define KB_ERROR_H

/* Longest file path the harness handles. */
#define KB_PATH_MAX 4096

typedef struct kb_err {
    char msg[1024];
} kb_err;

/* Formats the message into e (if non-NULL) and returns -1. A message longer
 * than e->msg (a very long path in it) loses its middle, not its end: the
 * start (the file) and the end (the reason) are both kept. The arguments may
 * point into e->msg itself. */
int kb_fail(kb_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
