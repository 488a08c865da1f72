#define _POSIX_C_SOURCE 200809L
#include "jsonstream.h"

#include "base/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEST_MAX 1000 /* cJSON's own limit, which the harness's reader has */
#define PATH_CAP 512

#define END_OF_FILE (-1)
#define FAILED      (-2) /* the message is set */

typedef struct js {
    int fd;
    const char *file;
    const kb_js_hooks *h;
    kb_err *err;
    unsigned char buf[1 << 16];
    size_t len, pos;
    long line, col; /* of the next byte */
    int got_any;    /* a byte was read (an empty FIFO reads none) */
    char path[PATH_CAP];
    size_t plen;
    int index[KB_JS_MAX_INDEX];
    int n_index; /* may pass KB_JS_MAX_INDEX: the deeper ones are not kept */
    char *tok;   /* the string or number being read */
    size_t tok_len, tok_cap;
} js;

/* ---- bytes ------------------------------------------------------------------ */

static int fail_at(js *j, const char *what) {
    kb_fail(j->err, "%s:%ld:%ld: %s", j->file, j->line, j->col, what);
    return FAILED;
}

static int bad(js *j, const char *what) {
    char msg[160];
    snprintf(msg, sizeof msg, "malformed JSON: %s", what);
    return fail_at(j, msg);
}

/* The next byte without taking it: END_OF_FILE, or FAILED for a read
 * error or a NUL byte (not JSON text: a C string would end there). */
static int peek(js *j) {
    while (j->pos == j->len) {
        ssize_t n = read(j->fd, j->buf, sizeof j->buf);
        if (n == 0) return END_OF_FILE;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            kb_fail(j->err, "%s: read error: %s", j->file, strerror(errno));
            return FAILED;
        }
        j->len = (size_t)n;
        j->pos = 0;
        j->got_any = 1;
    }
    int c = j->buf[j->pos];
    return c ? c : fail_at(j, "a NUL byte: not a JSON text file");
}

static int get(js *j) {
    int c = peek(j);
    if (c < 0) return c;
    j->pos++;
    if (c == '\n') {
        ++j->line;
        j->col = 1;
    } else {
        ++j->col;
    }
    return c;
}

/* A byte where the text must go on: the end of the file is an error. */
static int more(js *j) {
    int c = get(j);
    return c == END_OF_FILE ? bad(j, "the file ends inside a value") : c;
}

/* The next byte that is not white space, not taken. */
static int skip_space(js *j) {
    int c;
    while ((c = peek(j)) == ' ' || c == '\t' || c == '\n' || c == '\r') get(j);
    return c;
}

static int take(js *j, char c) {
    if (j->tok_len + 2 > j->tok_cap) {
        size_t cap = j->tok_cap ? 2 * j->tok_cap : 256;
        char *grown = realloc(j->tok, cap);
        if (!grown) return kb_fail(j->err, "%s: out of memory reading it", j->file), FAILED;
        j->tok = grown;
        j->tok_cap = cap;
    }
    j->tok[j->tok_len++] = c;
    j->tok[j->tok_len] = '\0';
    return 0;
}

/* ---- the path of the value being read ------------------------------------- */

static size_t push_key(js *j, const char *key) {
    size_t at = j->plen;
    snprintf(j->path + at, sizeof j->path - at, "%s%s", at ? "." : "", key);
    j->plen = strlen(j->path);
    return at;
}

static size_t push_index(js *j, int i) {
    size_t at = j->plen;
    snprintf(j->path + at, sizeof j->path - at, "[%d]", i);
    j->plen = strlen(j->path);
    if (j->n_index < KB_JS_MAX_INDEX) j->index[j->n_index] = i;
    j->n_index++;
    return at;
}

static void pop(js *j, size_t at) {
    j->path[at] = '\0';
    j->plen = at;
}

int kb_js_path_is(const char *path, const char *pattern) {
    while (*pattern) {
        if (pattern[0] == '[' && pattern[1] == ']') {
            if (*path++ != '[' || !(*path >= '0' && *path <= '9')) return 0;
            while (*path >= '0' && *path <= '9') ++path;
            if (*path++ != ']') return 0;
            pattern += 2;
        } else if (*path++ != *pattern++) {
            return 0;
        }
    }
    return *path == '\0';
}

/* ---- values ------------------------------------------------------------------ */

static cJSON *value(js *j, int depth);

static cJSON *out_of_memory(js *j) {
    kb_fail(j->err, "%s: out of memory reading it", j->file);
    return NULL;
}

static int hex4(js *j, unsigned *out) {
    *out = 0;
    for (int i = 0; i < 4; ++i) {
        int c = more(j);
        if (c < 0) return c;
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return bad(j, "a \\u escape needs four hex digits");
        *out = *out << 4 | (unsigned)d;
    }
    return 0;
}

/* \uXXXX (a surrogate pair for a character above U+FFFF) as UTF-8. */
static int unicode_escape(js *j) {
    unsigned cp, lo;
    if (hex4(j, &cp) != 0) return FAILED;
    if (cp == 0)
        return fail_at(j, "a string holds \\u0000 (NUL), which no field of kbench's files allows");
    if (cp >= 0xDC00 && cp <= 0xDFFF) return bad(j, "a lone low surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (more(j) != '\\' || more(j) != 'u' || hex4(j, &lo) != 0 || lo < 0xDC00 || lo > 0xDFFF)
            return j->err->msg[0] ? FAILED : bad(j, "a high surrogate without its low half");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    char u[4];
    int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    static const unsigned char lead[] = {0, 0, 0xC0, 0xE0, 0xF0};
    for (int i = n - 1; i > 0; --i, cp >>= 6) u[i] = (char)(0x80 | (cp & 0x3F));
    u[0] = (char)(n == 1 ? cp : (lead[n] | cp));
    for (int i = 0; i < n; ++i)
        if (take(j, u[i]) != 0) return FAILED;
    return 0;
}

/* A string into j->tok, from its opening quote. */
static int string(js *j) {
    j->tok_len = 0;
    j->tok[0] = '\0';
    if (get(j) != '"') return bad(j, "expected a string");
    for (;;) {
        int c = more(j), rc = 0;
        if (c < 0) return c;
        if (c == '"') return 0;
        if (c < 0x20) return bad(j, "a control character in a string (it must be escaped)");
        if (c != '\\') {
            rc = take(j, (char)c);
        } else {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            c = more(j);
            if (c < 0) return c;
            const char *e = c ? strchr(from, c) : NULL;
            if (c == 'u')
                rc = unicode_escape(j);
            else if (e)
                rc = take(j, to[e - from]);
            else
                return bad(j, "an unknown escape in a string");
        }
        if (rc != 0) return FAILED;
    }
}

/* JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number_text_ok(const char *s) {
    if (*s == '-') ++s;
    if (*s == '0')
        ++s;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9') ++s;
    else
        return 0;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') ++s;
    }
    if (*s == 'e' || *s == 'E') {
        if (*++s == '+' || *s == '-') ++s;
        if (!(*s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') ++s;
    }
    return *s == '\0';
}

static cJSON *number(js *j) {
    int c;
    j->tok_len = 0;
    j->tok[0] = '\0';
    while ((c = peek(j)) >= 0 && c && strchr("0123456789+-.eE", c)) {
        get(j);
        if (take(j, (char)c) != 0) return NULL;
    }
    if (c == FAILED) return NULL;
    if (!j->tok_len || !number_text_ok(j->tok)) {
        bad(j, "not a number");
        return NULL;
    }
    double v = strtod(j->tok, NULL);
    /* JSON has no infinity, but 1e999 reads as one: no field means that */
    if (!isfinite(v)) {
        kb_fail(j->err, "%s: field '%s': %g is not a finite number", j->file, j->path, v);
        return NULL;
    }
    cJSON *n = cJSON_CreateNumber(v);
    return n ? n : out_of_memory(j);
}

static cJSON *literal(js *j) {
    static const char *const words[] = {"true", "false", "null"};
    int c = peek(j);
    for (int w = 0; w < 3; ++w) {
        if (c != words[w][0]) continue;
        for (const char *p = words[w]; *p; ++p)
            if (more(j) != *p) {
                if (!j->err->msg[0]) bad(j, "not a value");
                return NULL;
            }
        cJSON *v = w == 0 ? cJSON_CreateTrue() : w == 1 ? cJSON_CreateFalse() : cJSON_CreateNull();
        return v ? v : out_of_memory(j);
    }
    if (c >= 0) bad(j, "not a value");
    if (c == END_OF_FILE) bad(j, "the file ends where a value should be");
    return NULL;
}

static int by_key(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key of o that another member repeats, or NULL. */
static int repeated_key(js *j, const cJSON *o) {
    size_t n = 0;
    for (const cJSON *it = o->child; it; it = it->next) ++n;
    if (n < 2) return 0;
    const char **keys = malloc(n * sizeof *keys);
    if (!keys) return out_of_memory(j), FAILED;
    n = 0;
    for (const cJSON *it = o->child; it; it = it->next) keys[n++] = it->string;
    qsort(keys, n, sizeof *keys, by_key);
    int rc = 0;
    for (size_t i = 1; i < n && rc == 0; ++i)
        if (strcmp(keys[i - 1], keys[i]) == 0)
            rc = kb_fail(j->err, "%s: field '%s%s%.200s': the key appears twice in one object",
                         j->file, j->path, j->plen ? "." : "", keys[i]);
    free(keys);
    return rc;
}

static int member(js *j, cJSON *o, int depth) {
    if (skip_space(j) != '"') return j->err->msg[0] ? FAILED : bad(j, "expected a key in quotes");
    if (string(j) != 0) return FAILED;
    if (!kb_utf8_valid(j->tok))
        return kb_fail(j->err, "%s: field '%s': a key that is not valid UTF-8", j->file,
                       j->plen ? j->path : "(the top level)");
    char *key = strdup(j->tok);
    if (!key) return out_of_memory(j), FAILED;
    int c = skip_space(j);
    cJSON *v = NULL;
    if (c == ':') {
        get(j);
        size_t at = push_key(j, key);
        v = value(j, depth + 1);
        pop(j, at);
    } else if (c != FAILED) {
        bad(j, "expected ':' after a key");
    }
    if (v) cJSON_AddItemToObject(o, key, v);
    free(key);
    return v ? 0 : FAILED;
}

/* After a member or an element: ',' or the closing byte; FAILED, with the
 * message, for anything else. */
static int separator(js *j, int close) {
    int c = skip_space(j);
    if (c == FAILED) return FAILED;
    if (c == END_OF_FILE)
        return bad(j, close == '}' ? "the file ends inside an object"
                                   : "the file ends inside an array");
    get(j);
    if (c == ',' || c == close) return c;
    return bad(j, close == '}' ? "expected ',' or '}' in an object"
                               : "expected ',' or ']' in an array");
}

static cJSON *object(js *j, int depth) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return out_of_memory(j);
    get(j);
    if (skip_space(j) == '}') {
        get(j);
        return o;
    }
    while (member(j, o, depth) == 0) {
        int c = separator(j, '}');
        if (c == '}' && repeated_key(j, o) == 0) return o;
        if (c != ',') break;
    }
    cJSON_Delete(o);
    return NULL;
}

static int element(js *j, cJSON *a, int claimed, int i, int depth) {
    int n_index = j->n_index < KB_JS_MAX_INDEX ? j->n_index : KB_JS_MAX_INDEX;
    char path[PATH_CAP];
    if (claimed) memcpy(path, j->path, j->plen + 1);
    size_t at = push_index(j, i);
    cJSON *v = value(j, depth + 1);
    pop(j, at);
    j->n_index--;
    if (!v) return FAILED;
    if (!claimed) {
        cJSON_AddItemToArray(a, v);
        return 0;
    }
    kb_js_at where = {path, j->index, n_index};
    int rc = j->h->element(j->h->ctx, &where, i, v, j->err);
    cJSON_Delete(v);
    return rc;
}

static cJSON *array(js *j, int depth) {
    const kb_js_hooks *h = j->h;
    const int claimed = h && h->claims && h->claims(h->ctx, j->path);
    cJSON *a = cJSON_CreateArray();
    if (!a) return out_of_memory(j);
    get(j);
    int c = skip_space(j), n = 0;
    if (c == ']')
        get(j);
    else
        while ((c = element(j, a, claimed, n++, depth) == 0 ? separator(j, ']') : FAILED) == ',')
            ;
    if (c == ']' && claimed) {
        int n_index = j->n_index < KB_JS_MAX_INDEX ? j->n_index : KB_JS_MAX_INDEX;
        kb_js_at where = {j->path, j->index, n_index};
        if (h->end && h->end(h->ctx, &where, n, j->err) != 0) c = FAILED;
    }
    if (c == ']') return a;
    cJSON_Delete(a);
    return NULL;
}

static cJSON *value(js *j, int depth) {
    if (depth > NEST_MAX) {
        bad(j, "nested deeper than 1000 levels");
        return NULL;
    }
    int c = skip_space(j);
    if (c == FAILED) return NULL;
    if (c == '{') return object(j, depth);
    if (c == '[') return array(j, depth);
    if (c == '-' || (c >= '0' && c <= '9')) return number(j);
    if (c != '"') return literal(j);
    if (string(j) != 0) return NULL;
    if (!kb_utf8_valid(j->tok)) {
        kb_fail(j->err, "%s: field '%s': not valid UTF-8", j->file, j->path);
        return NULL;
    }
    cJSON *s = cJSON_CreateString(j->tok);
    return s ? s : out_of_memory(j);
}

/* ---- the file ------------------------------------------------------------------ */

/* Opens the file without waiting for a writer (a FIFO nobody writes to
 * would block the open forever; opened this way it reads as empty), then
 * reads as usual. Refuses what is not a file or a pipe. */
static int open_file(const char *file, int *fifo, kb_err *err) {
    int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    struct stat st;
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 || fstat(fd, &st) != 0) {
        kb_fail(err, "%s: cannot open: %s", file, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        kb_fail(err, "%s: is a directory, not a JSON file", file);
    } else if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        kb_fail(err, "%s: is not a regular file", file); /* a device never ends */
    } else {
        *fifo = S_ISFIFO(st.st_mode);
        return fd;
    }
    if (fd >= 0) close(fd);
    return -1;
}

static cJSON *root(js *j, const char *what, int fifo) {
    int c = skip_space(j);
    if (c == END_OF_FILE && fifo && !j->got_any) {
        kb_fail(j->err, "%s: a named pipe that nobody writes to: nothing to read", j->file);
        return NULL;
    }
    if (c == END_OF_FILE) {
        fail_at(j, "malformed JSON (empty file)");
        return NULL;
    }
    if (what && c != '{' && c >= 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "expected a JSON object (%s)", what);
        fail_at(j, msg);
        return NULL;
    }
    cJSON *v = c >= 0 ? value(j, 1) : NULL;
    if (!v) return NULL;
    c = skip_space(j);
    if (c == END_OF_FILE) return v;
    if (c >= 0) bad(j, "more text after the value");
    cJSON_Delete(v);
    return NULL;
}

cJSON *kb_js_read_file(const char *file, const kb_js_hooks *hooks, const char *what, kb_err *err) {
    int fifo = 0;
    err->msg[0] = '\0';
    int fd = open_file(file, &fifo, err);
    if (fd < 0) return NULL;
    js *j = calloc(1, sizeof *j);
    cJSON *v = NULL;
    if (j && (j->tok = malloc(j->tok_cap = 256)) != NULL) {
        j->fd = fd;
        j->file = file;
        j->h = hooks;
        j->err = err;
        j->line = j->col = 1;
        v = root(j, what, fifo);
    } else {
        kb_fail(err, "%s: out of memory reading it", file);
    }
    if (j) free(j->tok);
    free(j);
    close(fd);
    return v;
}
