/* Deterministic JSON text: object keys sorted, two-space indent, arrays of
 * scalars on one line, numbers in one fixed format (integers exactly, others
 * with 8 significant digits). Parsing the output and writing it again gives
 * the same bytes, so a baseline diff shows only what changed. The one
 * writer of that layout: into a string (kb_json_print), or piece by piece
 * into any sink (the run report streams its files through one). */
#ifndef KB_JSON_WRITE_H
#define KB_JSON_WRITE_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* Where the text goes, n bytes at a time. The writer sets `failed` when it
 * runs out of memory itself; the sink records its own failures. */
typedef struct kb_json_sink {
    void (*put)(void *ctx, const char *s, size_t n);
    void *ctx;
    int failed;
} kb_json_sink;

/* Value v at nesting depth `depth` (its members indented 2 x (depth + 1)). */
void kb_json_write(kb_json_sink *o, const cJSON *v, int depth);
/* The members of object obj, sorted, each on its own line at `depth` and
 * followed by ",\n": for an object whose last members the caller writes. */
void kb_json_write_members(kb_json_sink *o, const cJSON *obj, int depth);
void kb_json_write_string(kb_json_sink *o, const char *s);

/* A number's text in out (KB_JSON_NUMBER_MAX bytes; "null" when not
 * finite: JSON has no NaN or Inf); returns out. */
#define KB_JSON_NUMBER_MAX 32
const char *kb_json_number_text(char *out, double v);

/* Returns a malloc'ed, newline-terminated string, or NULL when out of memory. */
char *kb_json_print(const cJSON *root);

#endif
