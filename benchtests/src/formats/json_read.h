/* Reading JSON files with errors that name the file and the field. Every
 * value a kbench file gives is read through these: numbers are finite,
 * integers are checked against their range before any conversion, and a
 * file that repeats a key anywhere is rejected when it is read. */
#ifndef KB_JSON_READ_H
#define KB_JSON_READ_H

#include "base/error.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* Reads and parses a whole file; NULL with a message naming the file and,
 * for a parse error, the line and column. A directory, a NUL byte in the
 * text, a number that is not finite (1e999) and a key that appears twice in
 * one object (at any depth, named by its path) are errors too. */
cJSON *kb_json_read_file(const char *path, kb_err *err);

/* Parses text (len bytes) with the same rules, `path` naming it in messages. */
cJSON *kb_json_parse(const char *text, size_t len, const char *path, kb_err *err);

/* Reads obj[key] as a number / string. A missing key is an error only when
 * required (out is left unchanged otherwise); a value of the wrong type is
 * always an error. `field` is the path of obj inside the file ("" for the
 * root) and is used in messages. Numbers are always finite. */
int kb_json_number(const cJSON *obj, const char *key, int required, double *out, const char *file,
                   const char *field, kb_err *err);
int kb_json_string(const cJSON *obj, const char *key, int required, char *out, size_t size,
                   const char *file, const char *field, kb_err *err);
/* obj[key] as a string pointing into the JSON, or as an object / array;
 * *out is left unchanged (text) or NULL (object, array) when an optional key
 * is absent. */
int kb_json_text(const cJSON *obj, const char *key, int required, const char **out,
                 const char *file, const char *field, kb_err *err);
int kb_json_object(const cJSON *obj, const char *key, int required, const cJSON **out,
                   const char *file, const char *field, kb_err *err);
int kb_json_array(const cJSON *obj, const char *key, int required, const cJSON **out,
                  const char *file, const char *field, kb_err *err);

/* obj[key] as an integer in [min, max]: a number with no fractional part,
 * range-checked before it is converted. */
int kb_json_int(const cJSON *obj, const char *key, int required, int64_t min, int64_t max,
                int64_t *out, const char *file, const char *field, kb_err *err);

/* The same checks on a value itself (an array element, a member found by
 * iterating); `field` is the value's own path ("dims.rows", "samples_ms[3]"). */
int kb_json_number_value(const cJSON *v, double *out, const char *file, const char *field,
                         kb_err *err);
int kb_json_int_value(const cJSON *v, int64_t min, int64_t max, int64_t *out, const char *file,
                      const char *field, kb_err *err);

/* Fails naming the first member of obj whose key is not in `known` (a NULL
 * terminated list) and does not end in `_note` (free-form documentation). */
int kb_json_known_keys(const cJSON *obj, const char *const *known, const char *file,
                       const char *field, kb_err *err);

#endif
