/* Text that goes into JSON must be UTF-8: a message may quote a file name
 * or a field with any bytes in it. */
#ifndef KB_UTF8_H
#define KB_UTF8_H

#include <stddef.h>

/* Copies text into out[size] (cut at a character boundary when longer),
 * every byte that is not part of a valid UTF-8 character (RFC 3629: no
 * overlong forms, surrogates or code points above U+10FFFF) shown as '?'. */
void kb_utf8_copy(const char *text, char *out, size_t size);

/* Whether all of text is valid UTF-8 by the same rules: 1 or 0. */
int kb_utf8_valid(const char *text);

#endif
