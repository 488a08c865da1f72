/* Arithmetic expressions of the manifest ("8*batch*seq*hidden"): numbers,
 * names, + - * / and parentheses, evaluated in double. */
#ifndef KB_EXPR_H
#define KB_EXPR_H

#include "error.h"

/* Looks up a name; returns 0 and sets *value, or -1 when the name is unknown. */
typedef int (*kb_expr_lookup)(void *ctx, const char *name, double *value);

/* Evaluates expr; on a syntax error or an unknown name returns -1 with a
 * message that quotes the expression and the position. */
int kb_expr_eval(const char *expr, kb_expr_lookup lookup, void *ctx, double *out, kb_err *err);

#endif
