#include "mdtext.h"

#include <ctype.h>
#include <string.h>

/* The longest run of backticks in s. */
static int longest_ticks(const char *s) {
    int best = 0, run = 0;
    for (; *s; ++s) {
        run = *s == '`' ? run + 1 : 0;
        if (run > best) best = run;
    }
    return best;
}

static void ticks(kb_buf *b, int n) {
    for (int i = 0; i < n; ++i) kb_buf_puts(b, "`");
}

void kb_md_code(kb_buf *b, const char *s, int in_table) {
    int n = longest_ticks(s) + 1;
    /* a span that starts or ends with a backtick needs a space inside */
    const char *pad = n > 1 ? " " : "";
    ticks(b, n);
    kb_buf_puts(b, pad);
    for (; *s; ++s) {
        char c[2] = {*s == '\n' || *s == '\r' ? ' ' : *s, '\0'};
        kb_buf_puts(b, in_table && *s == '|' ? "\\|" : c);
    }
    kb_buf_puts(b, pad);
    ticks(b, n);
}

void kb_md_fence(kb_buf *b, const char *text) {
    int n = longest_ticks(text) + 1;
    n = n < 3 ? 3 : n;
    size_t len = strlen(text);
    ticks(b, n);
    kb_buf_printf(b, "\n%s%s", text, len && text[len - 1] == '\n' ? "" : "\n");
    ticks(b, n);
    kb_buf_puts(b, "\n");
}

/* An object's key as plain text followed by a space: Markdown's punctuation
 * backslash-escaped, a line break as a space. */
static void key_text(kb_buf *b, const char *key) {
    for (; *key; ++key) {
        char c[3] = {'\\', *key == '\n' || *key == '\r' ? ' ' : *key, '\0'};
        kb_buf_puts(b, ispunct((unsigned char)*key) ? c : c + 1);
    }
    kb_buf_puts(b, " ");
}

void kb_md_value(kb_buf *b, const cJSON *v, int in_table) {
    if (cJSON_IsString(v)) {
        kb_md_code(b, v->valuestring, in_table);
    } else if (cJSON_IsNumber(v)) {
        kb_buf_printf(b, "%.10g", v->valuedouble);
    } else if (cJSON_IsBool(v)) {
        kb_buf_puts(b, cJSON_IsTrue(v) ? "yes" : "no");
    } else if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
        for (const cJSON *it = v->child; it; it = it->next) {
            if (it != v->child) kb_buf_puts(b, ", ");
            if (it->string) key_text(b, it->string);
            kb_md_value(b, it, in_table);
        }
    } else {
        kb_buf_puts(b, "-");
    }
}
