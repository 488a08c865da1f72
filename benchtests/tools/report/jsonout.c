#include "jsonout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void indent(kb_buf *b, int depth) {
    static const char spaces[] = "                                ";
    for (int n = 2 * depth; n > 0; n -= (int)sizeof spaces - 1)
        kb_buf_putn(b, spaces, n < (int)sizeof spaces - 1 ? (size_t)n : sizeof spaces - 1);
}

void kb_jo_string(kb_buf *b, const char *s) {
    kb_buf_puts(b, "\"");
    for (;;) {
        size_t run = 0; /* bytes that go as they are */
        while (s[run] && s[run] != '"' && s[run] != '\\' && (unsigned char)s[run] >= 0x20) ++run;
        kb_buf_putn(b, s, run);
        s += run;
        if (!*s) break;
        char esc[8];
        switch (*s) {
        case '"': kb_buf_puts(b, "\\\""); break;
        case '\\': kb_buf_puts(b, "\\\\"); break;
        case '\n': kb_buf_puts(b, "\\n"); break;
        case '\t': kb_buf_puts(b, "\\t"); break;
        case '\r': kb_buf_puts(b, "\\r"); break;
        default: snprintf(esc, sizeof esc, "\\u%04x", (unsigned char)*s); kb_buf_puts(b, esc);
        }
        ++s;
    }
    kb_buf_puts(b, "\"");
}

/* Rounded to 8 significant digits first, then written as an integer when
 * the rounded value is one (jsonw.c does the same). */
const char *kb_jo_number_text(char *out, double v) {
    if (!isfinite(v)) return strcpy(out, "null");
    if (!(v == floor(v) && fabs(v) < 9007199254740992.0)) {
        snprintf(out, KB_JO_NUMBER_MAX, "%.8g", v);
        v = strtod(out, NULL);
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) snprintf(out, KB_JO_NUMBER_MAX, "%.0f", v);
    return out;
}

void kb_jo_number(kb_buf *b, double v) {
    char text[KB_JO_NUMBER_MAX];
    kb_buf_puts(b, kb_jo_number_text(text, v));
}

static int is_scalar(const cJSON *v) {
    return !cJSON_IsArray(v) && !cJSON_IsObject(v);
}

static int by_key(const void *a, const void *b) {
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* The members sorted by key; NULL (b failed) when out of memory. */
static const cJSON **sorted(kb_buf *b, const cJSON *o, int *n) {
    *n = 0;
    for (const cJSON *it = o->child; it; it = it->next) ++*n;
    const cJSON **items = malloc((size_t)(*n ? *n : 1) * sizeof *items);
    if (!items) {
        b->failed = 1;
        return NULL;
    }
    int i = 0;
    for (const cJSON *it = o->child; it; it = it->next) items[i++] = it;
    qsort(items, (size_t)*n, sizeof *items, by_key);
    return items;
}

static void key_value(kb_buf *b, const cJSON *item, int depth) {
    indent(b, depth);
    kb_jo_string(b, item->string);
    kb_buf_puts(b, ": ");
    kb_jo_value(b, item, depth);
}

void kb_jo_members(kb_buf *b, const cJSON *o, int depth) {
    int n;
    const cJSON **items = sorted(b, o, &n);
    for (int i = 0; items && i < n; ++i) {
        key_value(b, items[i], depth);
        kb_buf_puts(b, ",\n");
    }
    free(items);
}

static void object(kb_buf *b, const cJSON *o, int depth) {
    int n;
    const cJSON **items = sorted(b, o, &n);
    if (!items) return;
    kb_buf_puts(b, n ? "{\n" : "{}");
    for (int i = 0; i < n; ++i) {
        key_value(b, items[i], depth + 1);
        kb_buf_puts(b, i + 1 < n ? ",\n" : "\n");
    }
    if (n) {
        indent(b, depth);
        kb_buf_puts(b, "}");
    }
    free(items);
}

static void array(kb_buf *b, const cJSON *a, int depth) {
    int flat = 1;
    for (const cJSON *it = a->child; it; it = it->next) flat &= is_scalar(it);
    if (!a->child) {
        kb_buf_puts(b, "[]");
        return;
    }
    kb_buf_puts(b, flat ? "[" : "[\n");
    for (const cJSON *it = a->child; it; it = it->next) {
        if (!flat) indent(b, depth + 1);
        kb_jo_value(b, it, depth + 1);
        if (it->next) kb_buf_puts(b, flat ? ", " : ",\n");
    }
    if (!flat) {
        kb_buf_puts(b, "\n");
        indent(b, depth);
    }
    kb_buf_puts(b, "]");
}

void kb_jo_value(kb_buf *b, const cJSON *v, int depth) {
    if (cJSON_IsObject(v))
        object(b, v, depth);
    else if (cJSON_IsArray(v))
        array(b, v, depth);
    else if (cJSON_IsString(v))
        kb_jo_string(b, v->valuestring);
    else if (cJSON_IsNumber(v))
        kb_jo_number(b, v->valuedouble);
    else if (cJSON_IsBool(v))
        kb_buf_puts(b, cJSON_IsTrue(v) ? "true" : "false");
    else
        kb_buf_puts(b, "null");
}
