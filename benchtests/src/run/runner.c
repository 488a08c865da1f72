/* One case of one implementation from start to end: the result set up with
 * its counts and baseline entry, the other processes the mode needs asked
 * to set the case up beside this one, the case timed by the mode's rule
 * (against the baseline, or A/B against the base), and everything released
 * whatever failed. The parts live in the case_*.c files; this is the order
 * they run in. */
#include "run/runner.h"

#include "formats/case.h"
#include "formats/vocab.h"
#include "guard/watchdog.h"
#include "run/case_ab.h"
#include "run/case_rounds.h"

#include <stdio.h>
#include <string.h>

/* Clears r and fills in what is known before anything runs: the case and
 * variant, the manifest's counts, and the baseline entry the case is
 * compared with (none in A/B mode, where the base is measured instead).
 * 0, or -1 with r->error set. */
static int set_up_result(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl,
                         kb_case_result *r) {
    memset(r, 0, sizeof *r);
    r->c = c;
    r->impl_variant = impl->variant;
    r->measured.pct_peak_bw = -1.0;
    r->measured.pct_roofline = -1.0;
    r->measured.vendor_speedup = -1.0;
    kb_variant_key(r->variant, sizeof r->variant, impl->variant, ctx->settings->cold_cache);
    kb_err err = {{0}};
    if (kb_manifest_case_counts(ctx->manifest, c, ctx->prec, impl->variant, &r->counts, &err) != 0)
        return kb_case_error(r, err.msg);
    r->flops = r->counts.flops;
    r->bytes = r->counts.bytes;
    if (ctx->ab) return 0;
    char key[512];
    kb_baseline_key(key, sizeof key, ctx->backend->name, kb_prec_name(ctx->prec), r->variant,
                    c->name, kb_case_threads(c));
    r->decision.has_base = kb_baseline_get(ctx->baseline, key, &r->decision.base);
    return 0;
}

/* The accuracy rules: the manifest's tolerance, and the drift from the
 * baseline's or the A/B base's RMSE when there is one. */
static void judge_accuracy(const kb_run_ctx *ctx, kb_case_result *r) {
    kb_case_decision *d = &r->decision;
    const kb_baseline_entry *base = d->has_base && !ctx->settings->update ? &d->base : NULL;
    d->acc_fired = kb_gate_accuracy(&ctx->settings->gate, &ctx->manifest->tol[ctx->prec],
                                    &r->measured.acc, base, d->acc_why, sizeof d->acc_why);
}

/* The figures of the best round. */
static void summarise(kb_case_result *r) {
    kb_case_measurement *m = &r->measured;
    const kb_samples *best = &m->rounds[r->decision.lat.best];
    kb_stats_compute(best->ms, (size_t)best->n, &m->stats);
    double s = m->stats.median * 1e-3;
    m->gbps = s > 0.0 ? r->bytes / s * 1e-9 : 0.0;
    m->gflops = s > 0.0 ? r->flops / s * 1e-9 : 0.0;
}

/* Times an open case by the mode's rule: against the baseline (rounds and
 * confirmations), or A/B against the base (pairs). */
static int time_session(kb_case_session *s, kb_case_result *r, kb_err *err) {
    const int paired = s->ctx->ab && r->decision.has_base;
    if (paired) kb_watchdog_stage(KB_STAGE_AB_ROUNDS);
    int rc = paired ? kb_case_ab_measure(s, r, err) : kb_case_time_rounds(s->ctx, &s->tc, r, err);
    r->measured.clocks_checked = s->tc.clocks_checked;
    r->measured.clock_limits = s->tc.clock_limits;
    if (rc != 0) return -1;
    if (s->ctx->ab && !r->decision.has_base) r->decision.lat.verdict = KB_LAT_NEW;
    summarise(r);
    return 0;
}

/* Recording: this build's other processes set the case up while this one
 * does; they must answer as it did (same build, same inputs). */
static int recorders_open(const kb_run_ctx *ctx, const kb_case_session *s, kb_err *err) {
    return kb_case_workers_ready(ctx->recorders, s != NULL, "a recording process", err);
}

/* In A/B mode the base prepares the case (inputs, reference, checked run)
 * while this side does, and the accuracy is judged once the base's RMSE is
 * known; a recording's other processes likewise set the case up. */
static void run_case(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl,
                     kb_case_result *r) {
    kb_watchdog_stage(KB_STAGE_SETUP);
    /* a case of more threads than CPUs is skipped before any other process
     * is asked to set it up */
    if (set_up_result(ctx, c, impl, r) != 0 || kb_case_too_many_threads(c, r)) return;
    kb_err err = {{0}};
    kb_workers *rec =
        ctx->settings->update && ctx->recorders && ctx->recorders->n > 0 ? ctx->recorders : NULL;
    if ((ctx->ab && kb_ab_request(ctx->ab, r->impl_variant, c->name, &r->ab, &err) != 0) ||
        (rec && kb_workers_case_send(rec, r->impl_variant, c->name, &err) != 0)) {
        kb_case_error(r, err.msg);
        return;
    }
    kb_case_session *s = kb_case_open(ctx, c, impl, r);
    if (s && !ctx->ab) judge_accuracy(ctx, r);
    /* every answer is read, whatever the others were: an unread one would be
     * taken for the answer to the next command */
    kb_err rec_err = {{0}};
    const int ab_failed = ctx->ab && kb_case_ab_open(ctx, r, &err) != 0;
    const int rec_failed = rec && recorders_open(ctx, s, &rec_err) != 0;
    if (ab_failed || rec_failed) {
        kb_case_close(s);
        s = NULL;
        kb_case_error(r, ab_failed ? err.msg : rec_err.msg);
    }
    if (s && ctx->ab) judge_accuracy(ctx, r);
    if (s && time_session(s, r, &err) != 0) kb_case_error(r, err.msg);
    kb_case_close(s);
    if (ctx->ab && kb_ab_close(ctx->ab, &r->ab, &err) != 0 && !r->error) kb_case_error(r, err.msg);
    if (rec && kb_workers_case_close(rec, &err) != 0 && !r->error) kb_case_error(r, err.msg);
}

void kb_run_case(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl, kb_case_result *r) {
    kb_case_range_push(ctx->backend, "%s.%s.%s", ctx->kernel_name, c->name, impl->variant);
    run_case(ctx, c, impl, r);
    kb_case_range_pop(ctx->backend);
}
