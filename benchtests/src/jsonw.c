#include "jsonw.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(sbuf *b, const char *fmt, ...) {
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n) * 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

static void put_string(sbuf *b, const char *str) {
    put(b, "\"");
    for (const unsigned char *p = (const unsigned char *)str; *p; ++p) {
        switch (*p) {
        case '"': put(b, "\\\""); break;
        case '\\': put(b, "\\\\"); break;
        case '\n': put(b, "\\n"); break;
        case '\t': put(b, "\\t"); break;
        case '\r': put(b, "\\r"); break;
        default:
            if (*p < 0x20)
                put(b, "\\u%04x", *p);
            else
                put(b, "%c", *p);
        }
    }
    put(b, "\"");
}

/* Rounds to 8 significant digits first and then decides between integer and
 * fractional form on the rounded value, so that 123456789.5 (printed as
 * 123456790) reads back as a value that prints the same way. */
static void put_number(sbuf *b, double v) {
    char text[32];
    if (!isfinite(v)) {
        put(b, "null"); /* JSON has no NaN/Inf */
        return;
    }
    if (!(v == floor(v) && fabs(v) < 9007199254740992.0)) {
        snprintf(text, sizeof text, "%.8g", v);
        v = strtod(text, NULL);
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        put(b, "%.0f", v);
    else
        put(b, "%s", text);
}

static int is_scalar(const cJSON *v) {
    return !cJSON_IsArray(v) && !cJSON_IsObject(v);
}

static int cmp_keys(const void *a, const void *b) {
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

static void put_value(sbuf *b, const cJSON *v, int depth);

static void put_object(sbuf *b, const cJSON *v, int depth) {
    int n = cJSON_GetArraySize(v);
    if (n == 0) {
        put(b, "{}");
        return;
    }
    const cJSON **items = malloc((size_t)n * sizeof *items);
    if (!items) {
        b->oom = 1;
        return;
    }
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next) items[i++] = it;
    qsort(items, (size_t)n, sizeof *items, cmp_keys);
    put(b, "{\n");
    for (i = 0; i < n; ++i) {
        put(b, "%*s", 2 * (depth + 1), "");
        put_string(b, items[i]->string);
        put(b, ": ");
        put_value(b, items[i], depth + 1);
        put(b, i + 1 < n ? ",\n" : "\n");
    }
    put(b, "%*s}", 2 * depth, "");
    free(items);
}

static void put_array(sbuf *b, const cJSON *v, int depth) {
    int flat = 1;
    for (const cJSON *it = v->child; it; it = it->next) flat &= is_scalar(it);
    if (!v->child) {
        put(b, "[]");
        return;
    }
    put(b, flat ? "[" : "[\n");
    for (const cJSON *it = v->child; it; it = it->next) {
        if (!flat) put(b, "%*s", 2 * (depth + 1), "");
        put_value(b, it, depth + 1);
        if (it->next) put(b, flat ? ", " : ",\n");
    }
    if (flat)
        put(b, "]");
    else
        put(b, "\n%*s]", 2 * depth, "");
}

static void put_value(sbuf *b, const cJSON *v, int depth) {
    if (cJSON_IsObject(v))
        put_object(b, v, depth);
    else if (cJSON_IsArray(v))
        put_array(b, v, depth);
    else if (cJSON_IsString(v))
        put_string(b, v->valuestring);
    else if (cJSON_IsNumber(v))
        put_number(b, v->valuedouble);
    else if (cJSON_IsBool(v))
        put(b, cJSON_IsTrue(v) ? "true" : "false");
    else
        put(b, "null");
}

char *kb_json_print(const cJSON *root) {
    sbuf b = {0};
    put_value(&b, root, 0);
    put(&b, "\n");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
