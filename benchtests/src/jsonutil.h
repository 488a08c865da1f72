/* Reading JSON files with errors that name the file and the field. */
#ifndef KB_JSONUTIL_H
#define KB_JSONUTIL_H

#include "error.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* Reads and parses a whole file; NULL with a message naming the file and,
 * for a parse error, the line and column. */
cJSON *kb_json_read_file(const char *path, kb_err *err);

/* Reads obj[key] as a number / string. A missing key is an error only when
 * required (out is left unchanged otherwise); a value of the wrong type is
 * always an error. `field` is the path of obj inside the file ("" for the
 * root) and is used in messages. */
int kb_json_number(const cJSON *obj, const char *key, int required, double *out, const char *file,
                   const char *field, kb_err *err);
int kb_json_string(const cJSON *obj, const char *key, int required, char *out, size_t size,
                   const char *file, const char *field, kb_err *err);
/* obj[key] as a string pointing into the JSON, or as an object; *out is
 * left unchanged (text) or NULL (object) when an optional key is absent. */
int kb_json_text(const cJSON *obj, const char *key, int required, const char **out,
                 const char *file, const char *field, kb_err *err);
int kb_json_object(const cJSON *obj, const char *key, int required, const cJSON **out,
                   const char *file, const char *field, kb_err *err);

#endif
