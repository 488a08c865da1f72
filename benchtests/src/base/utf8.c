#include "base/utf8.h"

/* Length of the valid UTF-8 character at s, 0 if there is none. */
static int char_length(const unsigned char *s) {
    const unsigned char c = s[0];
    const int n = c < 0x80                 ? 1
                  : c >= 0xc2 && c <= 0xdf ? 2
                  : c >= 0xe0 && c <= 0xef ? 3
                  : c >= 0xf0 && c <= 0xf4 ? 4
                                           : 0;
    for (int i = 1; i < n; ++i)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xf0 && s[1] < 0x90)) return 0; /* overlong */
    if (c == 0xed && s[1] >= 0xa0) return 0;                                /* surrogate */
    if (c == 0xf4 && s[1] >= 0x90) return 0;                                /* > U+10FFFF */
    return n;
}

int kb_utf8_valid(const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    for (int n; *s; s += n)
        if ((n = char_length(s)) == 0) return 0;
    return 1;
}

void kb_utf8_copy(const char *text, char *out, size_t size) {
    size_t k = 0;
    if (size == 0) return;
    for (const unsigned char *s = (const unsigned char *)text; *s;) {
        int n = char_length(s);
        if (k + (n ? (size_t)n : 1) >= size) break;
        if (n == 0) {
            out[k++] = '?';
            ++s;
            continue;
        }
        for (int i = 0; i < n; ++i) out[k++] = (char)*s++;
    }
    out[k] = '\0';
}
