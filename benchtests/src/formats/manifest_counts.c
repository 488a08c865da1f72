/* The work and traffic of a case: the manifest's "flops", "bytes" and
 * "transcendentals" expressions (the kernel's or a variant's) evaluated
 * over the case's dims and the precision's element size, each checked to
 * be a count every figure can use. */
#include "formats/expr.h"
#include "formats/manifest.h"

#include <stdio.h>
#include <string.h>

/* The largest FLOP count of one call: finite, and exact as an int64. */
#define MAX_FLOPS 9.2e18

typedef struct count_ctx {
    const kb_case *c;
    double elem;
} count_ctx;

/* A dim of the case, or the precision's sizes: "elem" its element's bytes,
 * "acc" its accumulator's (double for fp64, float for the others). */
static int lookup_dim(void *ctx, const char *name, double *value) {
    const count_ctx *cc = ctx;
    int64_t v;
    if (strcmp(name, "elem") == 0 || strcmp(name, "acc") == 0) {
        *value = strcmp(name, "elem") == 0 ? cc->elem : cc->elem == 8.0 ? 8.0 : 4.0;
        return 0;
    }
    if (kb_case_find_dim(cc->c, name, &v) != 0) return -1;
    *value = (double)v;
    return 0;
}

/* A count of case c: finite and in [min, max] (min exclusive when
 * `positive`): bytes are positive, flops may be 0 (a copy does no
 * arithmetic), neither is negative, NaN or inf. */
static int eval_count(const kb_manifest *m, const kb_case *c, kb_prec prec, const char *expr,
                      const char *field, int positive, double max, double *out, kb_err *err) {
    count_ctx cc = {c, (double)kb_prec_size(prec)};
    kb_err e;
    if (kb_expr_eval(expr, lookup_dim, &cc, out, &e) != 0)
        return kb_fail(err, "%s: field '%s' for case '%s' (%s): %s", m->path, field, c->name,
                       kb_prec_name(prec), e.msg);
    if ((positive ? *out > 0.0 : *out >= 0.0) && *out <= max) return 0;
    return kb_fail(err,
                   "%s: field '%s' for case '%s' (%s): \"%s\" evaluates to %g; expected a count "
                   "%s 0 and at most %g",
                   m->path, field, c->name, kb_prec_name(prec), expr, *out,
                   positive ? "above" : "of at least", max);
}

int kb_manifest_case_counts(const kb_manifest *m, const kb_case *c, kb_prec prec,
                            const char *variant, kb_counts *out, kb_err *err) {
    const kb_variant_spec *v = kb_manifest_variant(m, variant);
    char flops_field[96] = "flops", bytes_field[96] = "bytes", tr_field[96] = "transcendentals";
    const char *f = m->flops, *b = m->bytes;
    const kb_transcendentals *tr = &m->transc;
    if (v && *v->flops) {
        f = v->flops;
        snprintf(flops_field, sizeof flops_field, "variants.%s.flops", v->name);
    }
    if (v && *v->bytes) {
        b = v->bytes;
        snprintf(bytes_field, sizeof bytes_field, "variants.%s.bytes", v->name);
    }
    if (v && *v->transc.count) {
        tr = &v->transc;
        snprintf(tr_field, sizeof tr_field, "variants.%s.transcendentals", v->name);
    }
    memset(out, 0, sizeof *out);
    if (eval_count(m, c, prec, f, flops_field, 0, MAX_FLOPS, &out->flops_arith, err) != 0 ||
        eval_count(m, c, prec, b, bytes_field, 1, (double)KB_CASE_MAX_ELEMENTS, &out->bytes, err) !=
            0)
        return -1;
    out->flops = out->flops_arith;
    if (!*tr->count) return 0;
    char count_field[112];
    snprintf(count_field, sizeof count_field, "%s.count", tr_field);
    if (eval_count(m, c, prec, tr->count, count_field, 0, MAX_FLOPS, &out->transcendentals, err) !=
        0)
        return -1;
    out->has_transcendentals = 1;
    out->flops_each = tr->flops_each;
    out->flops = out->flops_arith + out->transcendentals * tr->flops_each;
    if (out->flops <= MAX_FLOPS) return 0;
    return kb_fail(err,
                   "%s: field '%s' for case '%s' (%s): %g flops + %g calls x %g flops each is "
                   "%g; expected at most %g",
                   m->path, tr_field, c->name, kb_prec_name(prec), out->flops_arith,
                   out->transcendentals, tr->flops_each, out->flops, MAX_FLOPS);
}

int kb_manifest_counts(const kb_manifest *m, const kb_case *c, kb_prec prec, const char *variant,
                       double *flops, double *bytes, kb_err *err) {
    kb_counts k;
    if (kb_manifest_case_counts(m, c, prec, variant, &k, err) != 0) return -1;
    *flops = k.flops;
    *bytes = k.bytes;
    return 0;
}
