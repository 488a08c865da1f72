/* A growing text buffer for the report's files. An allocation failure is
 * remembered and reported once, by kb_buf_finish. */
#ifndef KB_BUF_H
#define KB_BUF_H

#include <stddef.h>

typedef struct kb_buf {
    char *text;
    size_t len, cap;
    int failed;
} kb_buf;

void kb_buf_printf(kb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kb_buf_puts(kb_buf *b, const char *s);
/* s with XML's special characters as entities; a character XML 1.0 does not
 * allow (a control character, invalid UTF-8) becomes '?'. */
void kb_buf_xml(kb_buf *b, const char *s);
/* The one double argument printed with fmt into out, or "-" for a figure
 * the result does not report (not finite). Returns what to print. */
const char *kb_fig(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The text (the caller frees it), or NULL after an allocation failure. */
char *kb_buf_finish(kb_buf *b);

#endif
