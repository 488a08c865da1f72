#define _POSIX_C_SOURCE 200809L
#include "formats/json_read.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* No kbench file comes near this; a larger one is not what it claims to be. */
#define MAX_FILE_BYTES ((size_t)1 << 28)

/* 0 for a regular file or a pipe (*is_fifo says which), -1 otherwise. */
static int check_regular(FILE *f, const char *path, int *is_fifo, kb_err *err) {
    struct stat st;
    if (fstat(fileno(f), &st) != 0)
        return kb_fail(err, "%s: cannot stat: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return kb_fail(err, "%s: is a directory, not a JSON file", path);
    /* a pipe is read like a file; a device (/dev/zero) never ends */
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        return kb_fail(err, "%s: is not a regular file", path);
    *is_fifo = S_ISFIFO(st.st_mode);
    return 0;
}

/* The whole file, NUL-terminated, with its length in *len. */
static char *read_all(FILE *f, const char *path, size_t *len, kb_err *err) {
    size_t cap = 1 << 16, n = 0;
    int too_big = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1) break; /* end of file or error */
        if (cap >= MAX_FILE_BYTES) {
            too_big = 1;
            break;
        }
        char *bigger = realloc(buf, cap *= 2);
        if (!bigger) free(buf);
        buf = bigger;
    }
    int read_errno = ferror(f) ? errno : 0;
    if (!buf) {
        kb_fail(err, "%s: out of memory reading it", path);
    } else if (read_errno || ferror(f)) {
        kb_fail(err, "%s: read error: %s", path, strerror(read_errno ? read_errno : EIO));
    } else if (too_big) {
        kb_fail(err, "%s: larger than %zu MiB: not a kbench JSON file", path, MAX_FILE_BYTES >> 20);
    } else {
        buf[n] = '\0';
        *len = n;
        return buf;
    }
    free(buf);
    return NULL;
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

/* ---- keys that appear twice, numbers that are not finite ----------------- */

static int compare_keys(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key of obj that another member repeats, or NULL. */
static const char *repeated_key(const cJSON *obj, const char ***keys, size_t *cap) {
    size_t n = 0;
    for (const cJSON *it = obj->child; it; it = it->next) {
        if (n == *cap) {
            size_t more = *cap ? *cap * 2 : 64;
            const char **bigger = realloc(*keys, more * sizeof *bigger);
            if (!bigger) return NULL;
            *keys = bigger;
            *cap = more;
        }
        (*keys)[n++] = it->string ? it->string : "";
    }
    if (n < 2) return NULL;
    qsort(*keys, n, sizeof **keys, compare_keys);
    for (size_t i = 1; i < n; ++i)
        if (strcmp((*keys)[i - 1], (*keys)[i]) == 0) return (*keys)[i];
    return NULL;
}

typedef struct tree_walk {
    const char *file;
    char path[512];
    const char **keys; /* scratch for repeated_key */
    size_t cap;
    kb_err *err;
} tree_walk;

static int walk_tree(tree_walk *w, const cJSON *node) {
    /* JSON has no infinity, but 1e999 parses as one: no field means that */
    if (cJSON_IsNumber(node) && !isfinite(node->valuedouble))
        return kb_fail(w->err, "%s: field '%s': %g is not a finite number", w->file, w->path,
                       node->valuedouble);
    if (!cJSON_IsObject(node) && !cJSON_IsArray(node)) return 0;
    size_t len = strlen(w->path);
    if (cJSON_IsObject(node)) {
        const char *dup = repeated_key(node, &w->keys, &w->cap);
        if (dup)
            return kb_fail(w->err, "%s: field '%s%s%s': the key appears twice in one object",
                           w->file, w->path, len ? "." : "", dup);
    }
    int i = 0, rc = 0;
    for (const cJSON *it = node->child; it && rc == 0; it = it->next, ++i) {
        if (cJSON_IsObject(node))
            snprintf(w->path + len, sizeof w->path - len, "%s%s", len ? "." : "", it->string);
        else
            snprintf(w->path + len, sizeof w->path - len, "[%d]", i);
        rc = walk_tree(w, it);
        w->path[len] = '\0';
    }
    return rc;
}

static int check_tree(const cJSON *root, const char *file, kb_err *err) {
    tree_walk w = {.file = file, .err = err};
    int rc = walk_tree(&w, root);
    free(w.keys);
    return rc;
}

/* ---- reading and parsing ------------------------------------------------- */

/* The first escape "\u0000" in text, or NULL: a C string ends there, so a
 * name holding one would be read cut short. (Backslashes only occur inside
 * strings, where each starts an escape of the next character.) */
static const char *escaped_nul(const char *text) {
    for (const char *p = text; (p = strchr(p, '\\')) != NULL; p += 2) {
        if (p[1] == '\0') return NULL;
        if (p[1] == 'u' && strncmp(p + 2, "0000", 4) == 0) return p;
    }
    return NULL;
}

cJSON *kb_json_parse(const char *text, size_t len, const char *path, kb_err *err) {
    size_t nul = strlen(text);
    const char *escape = nul < len ? NULL : escaped_nul(text);
    if (nul < len || escape) {
        int line, col;
        line_col(text, escape ? escape : text + nul, &line, &col);
        kb_fail(err, "%s:%d:%d: %s", path, line, col,
                escape ? "a string holds \\u0000 (NUL), which no field of kbench's files allows"
                       : "a NUL byte: not a JSON text file");
        return NULL;
    }
    const char *end = NULL;
    /* The length includes the terminating NUL: cJSON's trailing-garbage check
     * wants to see it. */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (!root) {
        int line, col;
        line_col(text, end ? end : text, &line, &col);
        kb_fail(err, "%s:%d:%d: malformed JSON%s", path, line, col,
                len == 0 ? " (empty file)" : "");
        return NULL;
    }
    if (check_tree(root, path, err) != 0) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* Opens path for reading without waiting for a writer: a named pipe that
 * nobody writes to would otherwise block the open forever; opened this way
 * it reads as empty. Reads then block as usual (a pipe from a running
 * command, such as bash's <(...), is read to its end). */
static FILE *open_for_reading(const char *path, kb_err *err) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    FILE *f = flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        kb_fail(err, "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
    }
    return f;
}

cJSON *kb_json_read_file(const char *path, kb_err *err) {
    FILE *f = open_for_reading(path, err);
    if (!f) return NULL;
    size_t len = 0;
    int is_fifo = 0;
    char *text = check_regular(f, path, &is_fifo, err) == 0 ? read_all(f, path, &len, err) : NULL;
    if (text && len == 0 && is_fifo) {
        kb_fail(err, "%s: a named pipe that nobody writes to: nothing to read", path);
        free(text);
        text = NULL;
    }
    fclose(f);
    if (!text) return NULL;
    cJSON *root = kb_json_parse(text, len, path, err);
    free(text);
    return root;
}

/* ---- members ------------------------------------------------------------- */

static const char *dot(const char *field) {
    return field[0] ? "." : "";
}

/* obj[key] when present and of the type `is` accepts: 0 with *out NULL
 * for an absent optional key; an error naming the field otherwise. */
static int member(const cJSON *obj, const char *key, int required, cJSON_bool (*is)(const cJSON *),
                  const char *what, const cJSON **out, const char *file, const char *field,
                  kb_err *err) {
    *out = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
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

int kb_json_number_value(const cJSON *v, double *out, const char *file, const char *field,
                         kb_err *err) {
    if (!cJSON_IsNumber(v)) return kb_fail(err, "%s: field '%s': expected a number", file, field);
    /* 1e999 parses as inf: no field of kbench's files means that. */
    if (!isfinite(v->valuedouble))
        return kb_fail(err, "%s: field '%s': %g is not a finite number", file, field,
                       v->valuedouble);
    *out = v->valuedouble;
    return 0;
}

/* "a positive integer of at most 64" and the like. */
static void describe_range(char *out, size_t size, int64_t min, int64_t max) {
    if (min == 1)
        snprintf(out, size, "a positive integer of at most %lld", (long long)max);
    else
        snprintf(out, size, "an integer from %lld to %lld", (long long)min, (long long)max);
}

int kb_json_int_value(const cJSON *v, int64_t min, int64_t max, int64_t *out, const char *file,
                      const char *field, kb_err *err) {
    char range[96];
    describe_range(range, sizeof range, min, max);
    if (!cJSON_IsNumber(v)) return kb_fail(err, "%s: field '%s': expected %s", file, field, range);
    double d = v->valuedouble;
    /* Compared in double before any conversion, which is undefined beyond
     * int64's range; 2^63 is the first double past it. */
    if (!isfinite(d) || d != floor(d) || d < (double)min || d >= 9223372036854775808.0 ||
        (int64_t)d > max)
        return kb_fail(err, "%s: field '%s': expected %s, got %.17g", file, field, range, d);
    *out = (int64_t)d;
    return 0;
}

static cJSON_bool any_value(const cJSON *v) {
    return v != NULL;
}

static void join_field(char *out, size_t size, const char *field, const char *key) {
    snprintf(out, size, "%s%s%s", field, dot(field), key);
}

int kb_json_number(const cJSON *obj, const char *key, int required, double *out, const char *file,
                   const char *field, kb_err *err) {
    const cJSON *v;
    if (member(obj, key, required, cJSON_IsNumber, "a number", &v, file, field, err) != 0)
        return -1;
    if (!v) return 0;
    char full[KB_PATH_MAX];
    join_field(full, sizeof full, field, key);
    return kb_json_number_value(v, out, file, full, err);
}

int kb_json_int(const cJSON *obj, const char *key, int required, int64_t min, int64_t max,
                int64_t *out, const char *file, const char *field, kb_err *err) {
    const cJSON *v;
    /* any type: kb_json_int_value says what is expected */
    if (member(obj, key, required, any_value, "", &v, file, field, err) != 0) return -1;
    if (!v) return 0;
    char full[KB_PATH_MAX];
    join_field(full, sizeof full, field, key);
    return kb_json_int_value(v, min, max, out, file, full, err);
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

int kb_json_array(const cJSON *obj, const char *key, int required, const cJSON **out,
                  const char *file, const char *field, kb_err *err) {
    return member(obj, key, required, cJSON_IsArray, "an array", out, file, field, err);
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

static int is_note(const char *key) {
    size_t n = strlen(key);
    return n > 5 && strcmp(key + n - 5, "_note") == 0;
}

int kb_json_known_keys(const cJSON *obj, const char *const *known, const char *file,
                       const char *field, kb_err *err) {
    for (const cJSON *it = obj->child; it; it = it->next) {
        int ok = is_note(it->string);
        for (const char *const *k = known; !ok && *k; ++k) ok = strcmp(it->string, *k) == 0;
        if (!ok)
            return kb_fail(err, "%s: field '%s%s%s': unknown field (a typo? see the format's doc)",
                           file, field, dot(field), it->string);
    }
    return 0;
}
