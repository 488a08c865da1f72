/* Arithmetic expressions of the manifest ("8*batch*seq*hidden"): numbers,
 * names, + - * / and parentheses, evaluated in double. */
#ifndef KB_EXPR_H
#define KB_EXPR_H

#include "base/error.h"

/* Looks up a name; returns 0 and sets *value, or -1 when the name is unknown. */
typedef int (*kb_expr_lookup)(void *ctx, const char *name, double *value);

/* Evaluates expr; on a syntax error, an unknown name, a number that is not
 * decimal, nesting deeper than 64 levels or a result that is not finite
 * (1e300*1e300) returns -1 with a message that quotes the expression (and the
 * position, for a syntax error). */
int kb_expr_eval(const char *expr, kb_expr_lookup lookup, void *ctx, double *out, kb_err *err);

#endif
