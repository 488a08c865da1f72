#include "jsonutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(const char *path, size_t *len, kb_err *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        kb_fail(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) break;
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1) break;
        char *bigger = realloc(buf, cap *= 2);
        if (!bigger) free(buf);
        buf = bigger;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        kb_fail(err, "%s: read error", path);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void line_col(const char *text, const char *at, int *line, int *col) {
    *line = 1;
    *col = 1;
    for (const char *p = text; p < at && *p; ++p) {
        if (*p == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

cJSON *kb_json_read_file(const char *path, kb_err *err) {
    size_t len;
    char *text = read_all(path, &len, err);
    if (!text) return NULL;
    const char *end = NULL;
    /* The length includes the terminating NUL: cJSON's trailing-garbage check
     * wants to see it. */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (!root) {
        int line, col;
        line_col(text, end ? end : text, &line, &col);
        kb_fail(err, "%s:%d:%d: malformed JSON%s", path, line, col,
                len == 0 ? " (empty file)" : "");
    }
    free(text);
    return root;
}

static const char *dot(const char *field) {
    return field[0] ? "." : "";
}

/* obj[key] when present and of the type `is` accepts: 0 with *out NULL
 * for an absent optional key; an error naming the field otherwise. */
static int member(const cJSON *obj, const char *key, int required, cJSON_bool (*is)(const cJSON *),
                  const char *what, const cJSON **out, const char *file, const char *field,
                  kb_err *err) {
    *out = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!*out) {
        if (!required) return 0;
        return kb_fail(err, "%s: field '%s%s%s': missing", file, field, dot(field), key);
    }
    if (!is(*out)) {
        *out = NULL;
        return kb_fail(err, "%s: field '%s%s%s': expected %s", file, field, dot(field), key, what);
    }
    return 0;
}

int kb_json_number(const cJSON *obj, const char *key, int required, double *out, const char *file,
                   const char *field, kb_err *err) {
    const cJSON *v;
    if (member(obj, key, required, cJSON_IsNumber, "a number", &v, file, field, err) != 0)
        return -1;
    /* 1e999 parses as inf: no field of kbench's files means that. */
    if (v && !isfinite(v->valuedouble))
        return kb_fail(err, "%s: field '%s%s%s': %g is not a finite number", file, field,
                       dot(field), key, v->valuedouble);
    if (v) *out = v->valuedouble;
    return 0;
}

int kb_json_text(const cJSON *obj, const char *key, int required, const char **out,
                 const char *file, const char *field, kb_err *err) {
    const cJSON *v;
    if (member(obj, key, required, cJSON_IsString, "a string", &v, file, field, err) != 0)
        return -1;
    if (v) *out = v->valuestring;
    return 0;
}

int kb_json_object(const cJSON *obj, const char *key, int required, const cJSON **out,
                   const char *file, const char *field, kb_err *err) {
    return member(obj, key, required, cJSON_IsObject, "an object", out, file, field, err);
}

int kb_json_string(const cJSON *obj, const char *key, int required, char *out, size_t size,
                   const char *file, const char *field, kb_err *err) {
    const char *v = NULL;
    if (kb_json_text(obj, key, required, &v, file, field, err) != 0) return -1;
    if (!v) return 0;
    if (strlen(v) >= size)
        return kb_fail(err, "%s: field '%s%s%s': longer than %zu characters", file, field,
                       dot(field), key, size - 1);
    strcpy(out, v);
    return 0;
}
