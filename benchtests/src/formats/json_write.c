#include "formats/json_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void puts_(kb_json_sink *o, const char *s) {
    o->put(o->ctx, s, strlen(s));
}

static void indent(kb_json_sink *o, int depth) {
    static const char spaces[] = "                                ";
    for (int n = 2 * depth; n > 0; n -= (int)sizeof spaces - 1)
        o->put(o->ctx, spaces, n < (int)sizeof spaces - 1 ? (size_t)n : sizeof spaces - 1);
}

void kb_json_write_string(kb_json_sink *o, const char *s) {
    puts_(o, "\"");
    for (;;) {
        size_t run = 0; /* bytes that go as they are */
        while (s[run] && s[run] != '"' && s[run] != '\\' && (unsigned char)s[run] >= 0x20) ++run;
        o->put(o->ctx, s, run);
        s += run;
        if (!*s) break;
        char esc[8];
        switch (*s) {
        case '"': puts_(o, "\\\""); break;
        case '\\': puts_(o, "\\\\"); break;
        case '\n': puts_(o, "\\n"); break;
        case '\t': puts_(o, "\\t"); break;
        case '\r': puts_(o, "\\r"); break;
        default: snprintf(esc, sizeof esc, "\\u%04x", (unsigned char)*s); puts_(o, esc);
        }
        ++s;
    }
    puts_(o, "\"");
}

/* Rounds to 8 significant digits first and then decides between integer and
 * fractional form on the rounded value, so that 123456789.5 (printed as
 * 123456790) reads back as a value that prints the same way. */
const char *kb_json_number_text(char *out, double v) {
    if (!isfinite(v)) return strcpy(out, "null");
    if (!(v == floor(v) && fabs(v) < 9007199254740992.0)) {
        snprintf(out, KB_JSON_NUMBER_MAX, "%.8g", v);
        v = strtod(out, NULL);
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) snprintf(out, KB_JSON_NUMBER_MAX, "%.0f", v);
    return out;
}

static int is_scalar(const cJSON *v) {
    return !cJSON_IsArray(v) && !cJSON_IsObject(v);
}

static int by_key(const void *a, const void *b) {
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* The members sorted by key; NULL (o failed) when out of memory. */
static const cJSON **sorted(kb_json_sink *o, const cJSON *obj, int *n) {
    *n = 0;
    for (const cJSON *it = obj->child; it; it = it->next) ++*n;
    const cJSON **items = malloc((size_t)(*n ? *n : 1) * sizeof *items);
    if (!items) {
        o->failed = 1;
        return NULL;
    }
    int i = 0;
    for (const cJSON *it = obj->child; it; it = it->next) items[i++] = it;
    qsort(items, (size_t)*n, sizeof *items, by_key);
    return items;
}

static void key_value(kb_json_sink *o, const cJSON *item, int depth) {
    indent(o, depth);
    kb_json_write_string(o, item->string);
    puts_(o, ": ");
    kb_json_write(o, item, depth);
}

void kb_json_write_members(kb_json_sink *o, const cJSON *obj, int depth) {
    int n;
    const cJSON **items = sorted(o, obj, &n);
    for (int i = 0; items && i < n; ++i) {
        key_value(o, items[i], depth);
        puts_(o, ",\n");
    }
    free(items);
}

static void object(kb_json_sink *o, const cJSON *obj, int depth) {
    int n;
    const cJSON **items = sorted(o, obj, &n);
    if (!items) return;
    puts_(o, n ? "{\n" : "{}");
    for (int i = 0; i < n; ++i) {
        key_value(o, items[i], depth + 1);
        puts_(o, i + 1 < n ? ",\n" : "\n");
    }
    if (n) {
        indent(o, depth);
        puts_(o, "}");
    }
    free(items);
}

static void array(kb_json_sink *o, const cJSON *a, int depth) {
    int flat = 1;
    for (const cJSON *it = a->child; it; it = it->next) flat &= is_scalar(it);
    if (!a->child) {
        puts_(o, "[]");
        return;
    }
    puts_(o, flat ? "[" : "[\n");
    for (const cJSON *it = a->child; it; it = it->next) {
        if (!flat) indent(o, depth + 1);
        kb_json_write(o, it, depth + 1);
        if (it->next) puts_(o, flat ? ", " : ",\n");
    }
    if (!flat) {
        puts_(o, "\n");
        indent(o, depth);
    }
    puts_(o, "]");
}

void kb_json_write(kb_json_sink *o, const cJSON *v, int depth) {
    char number[KB_JSON_NUMBER_MAX];
    if (cJSON_IsObject(v))
        object(o, v, depth);
    else if (cJSON_IsArray(v))
        array(o, v, depth);
    else if (cJSON_IsString(v))
        kb_json_write_string(o, v->valuestring);
    else if (cJSON_IsNumber(v))
        puts_(o, kb_json_number_text(number, v->valuedouble));
    else if (cJSON_IsBool(v))
        puts_(o, cJSON_IsTrue(v) ? "true" : "false");
    else
        puts_(o, "null");
}

/* A growing string, for kb_json_print. */
typedef struct text {
    char *s;
    size_t len, cap;
    int oom;
} text;

static void put_text(void *ctx, const char *s, size_t n) {
    text *t = ctx;
    if (t->oom) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->cap + n + 1) * 2;
        char *grown = realloc(t->s, cap);
        if (!grown) {
            t->oom = 1;
            return;
        }
        t->s = grown;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

char *kb_json_print(const cJSON *root) {
    text t = {0};
    kb_json_sink o = {put_text, &t, 0};
    kb_json_write(&o, root, 0);
    put_text(&t, "\n", 1);
    if (t.oom || o.failed) {
        free(t.s);
        return NULL;
    }
    return t.s;
}
