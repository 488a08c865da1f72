/* A/B mode measures a case against the base build's driver rather than a
 * baseline file. partner/ab.c runs the pairs and does not know the case
 * result; this is where its findings are put where the rest of the
 * harness reads a baseline case's: the base as the baseline entry, the
 * head's samples as the one round, the pairs' decision as the latency's. */
#include "run/case_ab.h"

#include <stdio.h>

static int head_round(void *s, int cpu, const kb_sampling *cfg, kb_samples *out, kb_err *err) {
    return kb_case_round(s, cpu, 1, cfg, out, err);
}

int kb_case_ab_measure(kb_case_session *s, kb_case_result *r, kb_err *err) {
    kb_case_measurement *m = &r->measured;
    m->n_rounds = 1;
    if (kb_ab_measure(s->ctx->ab, s->ctx->settings, head_round, s, r->impl_variant, r->c->name,
                      &r->ab, &m->rounds[0], err) != 0)
        return -1;
    m->round_cpu[0] = r->ab.pairs[0].cpu;
    m->round_timing[0] = m->timing = kb_case_samples_timing(&s->tc);
    r->decision.base.median_ms = kb_ab_base_median(&r->ab);
    r->decision.lat = kb_ab_latency(&r->ab);
    return 0;
}

int kb_case_ab_open(const kb_run_ctx *ctx, kb_case_result *r, kb_err *err) {
    if (kb_ab_open(ctx->ab, r->impl_variant, r->c->name, &r->ab, err) != 0) return -1;
    if (r->ab.base_status != KB_PARTNER_READY) return 0;
    kb_case_decision *d = &r->decision;
    d->has_base = 1;
    d->base.rmse = r->ab.base_rmse;
    snprintf(d->base.hardware_id, sizeof d->base.hardware_id, "%s", ctx->hardware_id);
    snprintf(d->base.recorded_at, sizeof d->base.recorded_at, "measured now");
    return 0;
}
