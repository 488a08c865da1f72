#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELISION " [...] "

/* Copies text (len characters) into out, dropping its middle when it does
 * not fit: the head keeps the start of the path, the tail the reason. */
static void copy_shortened(char *out, size_t size, const char *text, size_t len) {
    if (len < size) {
        memcpy(out, text, len + 1);
        return;
    }
    size_t keep = size - 1 - strlen(ELISION), head = keep / 3, tail = keep - head;
    memcpy(out, text, head);
    memcpy(out + head, ELISION, strlen(ELISION));
    memcpy(out + head + strlen(ELISION), text + len - tail, tail + 1);
}

int kb_fail(kb_err *e, const char *fmt, ...) {
    if (!e) return -1;
    char local[2 * sizeof e->msg];
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(local, sizeof local, fmt, ap);
    va_end(ap);
    char *text = local;
    if (n >= (int)sizeof local && (text = malloc((size_t)n + 1)) != NULL)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    if (n < 0) {
        snprintf(e->msg, sizeof e->msg, "(unprintable error message)");
    } else if (!text) {
        copy_shortened(e->msg, sizeof e->msg, local, strlen(local));
    } else {
        copy_shortened(e->msg, sizeof e->msg, text, (size_t)n);
    }
    if (text && text != local) free(text);
    return -1;
}
