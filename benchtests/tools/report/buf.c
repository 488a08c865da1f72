#include "buf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hands the gathered text to the sink (or drops it when discarding). */
static void drain(kb_buf *b) {
    if (b->sink && b->len && !b->failed && fwrite(b->text, 1, b->len, b->sink) != b->len) {
        b->write_errno = errno ? errno : EIO;
        b->failed = 1;
    }
    b->len = 0;
}

static int reserve(kb_buf *b, size_t more) {
    if (b->failed) return -1;
    if ((b->sink || b->discard) && b->len && b->len + more + 1 > KB_BUF_CHUNK) drain(b);
    if (b->failed) return -1;
    if (b->len + more + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more + 1) cap *= 2;
    char *grown = realloc(b->text, cap);
    if (!grown) {
        b->failed = 1;
        return -1;
    }
    b->text = grown;
    b->cap = cap;
    return 0;
}

kb_buf kb_buf_sink(FILE *f) {
    return (kb_buf){.sink = f};
}

void kb_buf_printf(kb_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n) != 0) return;
    va_start(ap, fmt);
    vsnprintf(b->text + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void kb_buf_putn(kb_buf *b, const char *s, size_t n) {
    if (reserve(b, n) != 0) return;
    memcpy(b->text + b->len, s, n);
    b->len += n;
    b->text[b->len] = '\0';
}

void kb_buf_puts(kb_buf *b, const char *s) {
    kb_buf_putn(b, s, strlen(s));
}

/* Length of the UTF-8 sequence at s when it is one that XML 1.0 allows
 * (shortest form, no surrogate, at most U+10FFFF, not U+FFFE or U+FFFF),
 * 0 otherwise. */
static size_t utf8_len(const unsigned char *s) {
    static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
    size_t n = s[0] < 0x80         ? 1
               : (s[0] >> 5) == 6  ? 2
               : (s[0] >> 4) == 14 ? 3
               : (s[0] >> 3) == 30 ? 4
                                   : 0;
    unsigned long cp = n == 1 ? s[0] : s[0] & (0x7F >> n);
    for (size_t i = 1; i < n; ++i) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (n > 1 && (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ||
                  cp == 0xFFFE || cp == 0xFFFF))
        return 0;
    return n;
}

static const char *entity(char c) {
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&apos;";
    default: return NULL;
    }
}

/* Entities for the special characters; a control character (not allowed in
 * XML 1.0 text) or a byte that is not valid UTF-8 becomes '?'. */
void kb_buf_xml(kb_buf *b, const char *s) {
    while (*s) {
        size_t n = utf8_len((const unsigned char *)s);
        char piece[5] = "?";
        if (n > 1 || (n == 1 && (unsigned char)*s >= 0x20)) {
            memcpy(piece, s, n);
            piece[n] = '\0';
        }
        kb_buf_puts(b, entity(*s) ? entity(*s) : piece);
        s += n ? n : 1;
    }
}

const char *kb_fig(char *out, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    double v = va_arg(ap, double);
    va_end(ap);
    if (!isfinite(v)) return "-";
    va_start(ap, fmt);
    vsnprintf(out, size, fmt, ap);
    va_end(ap);
    return out;
}

char *kb_buf_finish(kb_buf *b) {
    if (b->failed || reserve(b, 0) != 0) {
        free(b->text);
        b->text = NULL;
        return NULL;
    }
    b->text[b->len] = '\0';
    return b->text;
}

int kb_buf_close(kb_buf *b) {
    drain(b);
    if (b->sink && !b->failed && fflush(b->sink) != 0) {
        b->write_errno = errno ? errno : EIO;
        b->failed = 1;
    }
    free(b->text);
    b->text = NULL;
    b->len = b->cap = 0;
    return b->failed ? -1 : 0;
}
