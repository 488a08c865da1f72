/* A growing text buffer for the report's files. Bound to a file
 * (kb_buf_sink), it hands its text to the file whenever KB_BUF_CHUNK bytes
 * have gathered, so that a file of any size is written in bounded memory;
 * set to discard (a layout pass that only measures), it drops them. An
 * allocation or write failure is remembered and reported once, by
 * kb_buf_finish or kb_buf_close. */
#ifndef KB_BUF_H
#define KB_BUF_H

#include <stddef.h>
#include <stdio.h>

#define KB_BUF_CHUNK ((size_t)1 << 16)

typedef struct kb_buf {
    char *text;
    size_t len, cap;
    int failed;
    FILE *sink;      /* where the text goes; NULL: it stays in memory */
    int discard;     /* the text is dropped as it gathers */
    int write_errno; /* the sink's error, 0 when none */
} kb_buf;

/* A buffer whose text goes to `f` as it fills (kb_buf_close ends it). */
kb_buf kb_buf_sink(FILE *f);

void kb_buf_printf(kb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kb_buf_puts(kb_buf *b, const char *s);
/* The n bytes at s (no NUL needed). */
void kb_buf_putn(kb_buf *b, const char *s, size_t n);
/* s with XML's special characters as entities; a character XML 1.0 does not
 * allow (a control character, invalid UTF-8) becomes '?'. */
void kb_buf_xml(kb_buf *b, const char *s);
/* The one double argument printed with fmt into out, or "-" for a figure
 * the result does not report (not finite). Returns what to print. */
const char *kb_fig(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The text (the caller frees it), or NULL after an allocation failure. */
char *kb_buf_finish(kb_buf *b);
/* A sink's end: the rest of the text written and flushed, the memory
 * freed. 0, or -1 after an allocation or write failure (write_errno says
 * which write, 0 for memory). */
int kb_buf_close(kb_buf *b);

#endif
