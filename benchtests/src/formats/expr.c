#include "formats/expr.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Deeper nesting of parentheses or unary minus is not a count anyone means;
 * the bound keeps the recursive descent's stack small whatever the input. */
#define MAX_DEPTH 64

typedef struct parser {
    const char *src, *p;
    kb_expr_lookup lookup;
    void *ctx;
    kb_err *err;
    int failed;
    int depth;
} parser;

static double parse_sum(parser *ps);

static double fail_at(parser *ps, const char *what) {
    if (!ps->failed)
        kb_fail(ps->err, "%s at offset %d in expression \"%s\"", what, (int)(ps->p - ps->src),
                ps->src);
    ps->failed = 1;
    return 0.0;
}

static void skip_space(parser *ps) {
    while (isspace((unsigned char)*ps->p)) ps->p++;
}

static double parse_name(parser *ps) {
    char name[64];
    size_t n = 0;
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_') {
        if (n + 1 >= sizeof name) return fail_at(ps, "name too long");
        name[n++] = *ps->p++;
    }
    name[n] = '\0';
    double v = 0.0;
    if (ps->lookup(ps->ctx, name, &v) != 0) {
        if (!ps->failed) kb_fail(ps->err, "unknown name '%s' in expression \"%s\"", name, ps->src);
        ps->failed = 1;
    }
    return v;
}

/* A decimal number: digits, one point, an exponent; strtod's hex floats,
 * "inf" and "nan" are not numbers of the manifest. */
static double parse_number(parser *ps) {
    const char *q = ps->p;
    while (isdigit((unsigned char)*q) || *q == '.') q++;
    if ((*q == 'e' || *q == 'E') &&
        (isdigit((unsigned char)q[1]) ||
         ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2])))) {
        q += 2;
        while (isdigit((unsigned char)*q)) q++;
    }
    char *end;
    double v = strtod(ps->p, &end);
    if (end != q || !isfinite(v)) return fail_at(ps, "malformed or out-of-range number");
    ps->p = end;
    return v;
}

static double parse_nested(parser *ps);

static double parse_atom(parser *ps) {
    if (ps->depth >= MAX_DEPTH) return fail_at(ps, "nested too deeply");
    ps->depth++;
    double v = parse_nested(ps);
    ps->depth--;
    return v;
}

static double parse_nested(parser *ps) {
    skip_space(ps);
    if (*ps->p == '(') {
        ps->p++;
        double v = parse_sum(ps);
        skip_space(ps);
        if (*ps->p != ')') return fail_at(ps, "expected ')'");
        ps->p++;
        return v;
    }
    if (*ps->p == '-') {
        ps->p++;
        return -parse_atom(ps);
    }
    if (isdigit((unsigned char)*ps->p) || *ps->p == '.') return parse_number(ps);
    if (isalpha((unsigned char)*ps->p) || *ps->p == '_') return parse_name(ps);
    return fail_at(ps, *ps->p ? "unexpected character" : "unexpected end");
}

static double parse_product(parser *ps) {
    double v = parse_atom(ps);
    for (;;) {
        skip_space(ps);
        char op = *ps->p;
        if (op != '*' && op != '/') return v;
        ps->p++;
        double rhs = parse_atom(ps);
        if (op == '*') {
            v *= rhs;
        } else if (rhs == 0.0) {
            return fail_at(ps, "division by zero");
        } else {
            v /= rhs;
        }
    }
}

static double parse_sum(parser *ps) {
    double v = parse_product(ps);
    for (;;) {
        skip_space(ps);
        char op = *ps->p;
        if (op != '+' && op != '-') return v;
        ps->p++;
        double rhs = parse_product(ps);
        v = op == '+' ? v + rhs : v - rhs;
    }
}

int kb_expr_eval(const char *expr, kb_expr_lookup lookup, void *ctx, double *out, kb_err *err) {
    parser ps = {expr, expr, lookup, ctx, err, 0, 0};
    double v = parse_sum(&ps);
    skip_space(&ps);
    if (!ps.failed && *ps.p != '\0') fail_at(&ps, "unexpected character");
    if (ps.failed) return -1;
    /* An intermediate beyond double's range (1e300*1e300) ends as inf or NaN. */
    if (!isfinite(v))
        return kb_fail(err, "expression \"%s\" evaluates to %g, not a finite number", expr, v);
    *out = v;
    return 0;
}
