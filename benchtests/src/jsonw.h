/* Deterministic JSON text: object keys sorted, two-space indent, arrays of
 * scalars on one line, numbers in one fixed format (integers exactly, others
 * with 8 significant digits). Parsing the output and writing it again gives
 * the same bytes, so a baseline diff shows only what changed. */
#ifndef KB_JSONW_H
#define KB_JSONW_H

#include <cjson/cJSON.h>

/* Returns a malloc'ed, newline-terminated string, or NULL when out of memory. */
char *kb_json_print(const cJSON *root);

#endif
