/* Markdown pieces shared by summary.md and regressions.md (GitHub/GitLab
 * flavoured): names as code spans, free text in fenced blocks. */
#ifndef KB_MDTEXT_H
#define KB_MDTEXT_H

#include "buf.h"

#include <cjson/cJSON.h>

/* s as an inline code span, on one line. In a table cell (in_table) a '|'
 * is escaped so that it does not end the cell. */
void kb_md_code(kb_buf *b, const char *s, int in_table);

/* text as a fenced code block (a fence longer than any backtick run in it). */
void kb_md_fence(kb_buf *b, const char *text);

/* A JSON value in words: strings as code, numbers, yes/no, objects as
 * "key value, ...", arrays joined with ", ". */
void kb_md_value(kb_buf *b, const cJSON *v, int in_table);

#endif
