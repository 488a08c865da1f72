/* JSON text written into a kb_buf (buf.h) as it is made, so that a file of
 * any length goes out in pieces: the harness's deterministic writer
 * (formats/json_write.h) bound to the buffer, so summary.json has the layout and number
 * format of every other JSON file kbench writes. */
#ifndef KB_JSONOUT_H
#define KB_JSONOUT_H

#include "buf.h"
#include "formats/json_write.h"

#include <cjson/cJSON.h>

void kb_jo_string(kb_buf *b, const char *s);
void kb_jo_number(kb_buf *b, double v); /* null when not finite */
/* The number's text in out (KB_JO_NUMBER_MAX bytes), for a figure written
 * more than once; returns out. */
#define KB_JO_NUMBER_MAX KB_JSON_NUMBER_MAX
const char *kb_jo_number_text(char *out, double v);
/* v at nesting depth `depth` (its members indented 2 x (depth + 1)). */
void kb_jo_value(kb_buf *b, const cJSON *v, int depth);
/* The members of object o, sorted, each on its own line at `depth` and
 * followed by ",": for an object whose last members the caller writes. */
void kb_jo_members(kb_buf *b, const cJSON *o, int depth);

#endif
