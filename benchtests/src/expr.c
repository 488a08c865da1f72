#include "expr.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *src, *p;
    kb_expr_lookup lookup;
    void *ctx;
    kb_err *err;
    int failed;
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

static double parse_atom(parser *ps) {
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
    if (isdigit((unsigned char)*ps->p) || *ps->p == '.') {
        char *end;
        double v = strtod(ps->p, &end);
        ps->p = end;
        return v;
    }
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
    parser ps = {expr, expr, lookup, ctx, err, 0};
    double v = parse_sum(&ps);
    skip_space(&ps);
    if (!ps.failed && *ps.p != '\0') fail_at(&ps, "unexpected character");
    if (ps.failed) return -1;
    *out = v;
    return 0;
}
