/* The block printed for each failing case (and the note for a slowdown the
 * machine explains): the figures and the rule that decided. */
#include "output/report.h"

#include "base/buildinfo.h"
#include "base/buildopt.h"

/* One probe figure: the baseline's and every round's, when both exist. */
static void print_probe(FILE *f, const kb_case_result *r, kb_probe_kind k) {
    if (r->decision.base.probe.v[k] <= 0.0) return;
    int any = 0;
    for (int i = 0; i < r->measured.n_rounds; ++i) any |= r->measured.probe[i].v[k] > 0.0;
    if (!any) return;
    fprintf(f, "  probe %-5s baseline %.2f %s; now ", kb_probe_name(k), r->decision.base.probe.v[k],
            kb_probe_unit(k));
    for (int i = 0, first = 1; i < r->measured.n_rounds; ++i)
        if (r->measured.probe[i].v[k] > 0.0) {
            fprintf(f, "%s%.2f", first ? "" : ", ", r->measured.probe[i].v[k]);
            first = 0;
        }
    fprintf(f, "\n");
}

static void print_rounds(FILE *f, const kb_case_result *r) {
    fprintf(f, "  rounds:     ");
    for (int i = 0; i < r->measured.n_rounds; ++i) {
        fprintf(f, "%s%.4f ms (x%.3f", i ? ", " : "", r->measured.rounds[i].median,
                r->measured.rounds[i].median / r->decision.base.median_ms);
        if (r->measured.round_cpu[i] >= 0) fprintf(f, ", cpu %d", r->measured.round_cpu[i]);
        fprintf(f, ")");
    }
    fprintf(f, "\n");
    for (int k = 0; k < KB_PROBE_N; ++k) print_probe(f, r, (kb_probe_kind)k);
    const kb_baseline_entry *b = &r->decision.base;
    kb_probe_kind figs[KB_PROBE_N];
    if (kb_drift_figures(b->bound, kb_near_ridge(b->intensity, b->balance), figs) == KB_PROBE_N)
        fprintf(f,
                "  machine:    the case is near the ridge (recorded: %s, %.3g flop/byte against a "
                "balance of %.3g), so every figure counts: ",
                kb_bound_name(b->bound), b->intensity, b->balance);
    else
        fprintf(f,
                "  machine:    the case is %s-bound (recorded: %s), so the %s and %s figures "
                "count: ",
                b->bound == KB_BOUND_COMPUTE ? "compute" : "memory", kb_bound_name(b->bound),
                kb_probe_name(figs[0]), kb_probe_name(figs[1]));
    if (r->decision.lat.drift_probe == KB_PROBE_N)
        fprintf(f, "none was measured on both sides\n");
    else
        fprintf(f, "machine x%.3f slower by the %s probe\n", r->decision.lat.drift,
                kb_probe_name(r->decision.lat.drift_probe));
}

/* A slowdown that the machine's own slowdown explains passes, but says so. */
static void print_drift_note(FILE *f, const kb_report *rep, const kb_case_result *r) {
    fprintf(f,
            "\n---- note: %s  case %s  variant %s: every round slower than the baseline, "
            "but the machine probe was slower by as much; not failed\n",
            rep->test_name, r->c->name, r->variant);
    print_rounds(f, r);
}

/* A/B: every pair's ratio, then the interval that decided and, when the
 * verdict was measured again in fresh processes, both stages'. */
static void print_ab_failure(FILE *f, const kb_run_ctx *ctx, const kb_case_result *r) {
    const kb_ab_result *ab = &r->ab;
    int last = 0; /* the deciding stage's pairs */
    for (int i = 0; i < ab->n_pairs; ++i) last += ab->pairs[i].stage == ab->stages;
    fprintf(f,
            "  latency:    head %.4f ms vs base %.4f ms (%s): ratio x%.3f, 95%% interval "
            "[%.3f, %.3f] over %d pairs\n",
            r->measured.stats.median, r->decision.base.median_ms, ctx->ab->ref, ab->decision.ratio,
            ab->decision.ci_lo, ab->decision.ci_hi, last);
    if (ab->stages > 1)
        fprintf(f,
                "  confirmed:  the first %d processes measured x%.3f [%.3f, %.3f]; %d fresh ones "
                "measured it again (above)\n",
                2 * ab->processes, ab->first.ratio, ab->first.ci_lo, ab->first.ci_hi,
                2 * ab->processes - 1);
    fprintf(f, "  pairs:      ");
    for (int i = 0; i < ab->n_pairs; ++i)
        fprintf(f, "%s%sx%.3f", i ? ", " : "",
                i > 0 && ab->pairs[i].stage != ab->pairs[i - 1].stage ? "| " : "",
                ab->pairs[i].ratio);
    const double tol = ctx->settings->gate.latency_tol, spread = ab->decision.spread;
    fprintf(f,
            "\n  rule:       the interval's lower end is above x%.3f (tolerance %.0f %%, widened "
            "by %.1f %%, half the widest spread between one build's own %d processes), in "
            "fresh processes too: the head is slower than the base beyond doubt\n",
            (1.0 + tol) * (1.0 + spread), 100.0 * tol, 100.0 * spread, ab->processes);
}

/* A baseline recorded by a build optimised otherwise: what differs, before
 * the figures, which then compare the builds as much as the code. */
static void print_build_note(FILE *f, const kb_case_result *r) {
    const char *flags = kb_build_current()->c_flags;
    if (!r->decision.has_base || !kb_build_opt_differs(flags, r->decision.base.build_opt)) return;
    char mine[256];
    kb_build_opt(flags, mine, sizeof mine);
    fprintf(f,
            "  build:      the baseline was recorded by a build with %s, this build has %s: "
            "the difference may be the build's, not the code's (record the baseline again with "
            "this build's flags, or build as it was)\n",
            r->decision.base.build_opt, mine);
}

static void print_failure(FILE *f, const kb_report *rep, const kb_case_result *r) {
    const kb_run_ctx *ctx = rep->ctx;
    fprintf(f, "\n---- FAILED %s  case %s  variant %s\n", rep->test_name, r->c->name, r->variant);
    if (r->error) {
        fprintf(f, "  error:      %s\n", r->error_msg);
        return;
    }
    print_build_note(f, r);
    if (r->decision.acc_fired) {
        fprintf(f,
                "  accuracy:   rmse %.3e, max abs %.3e over %zu elements "
                "(tolerance rmse %.3e, max abs %.3e, %s)\n",
                r->measured.acc.rmse, r->measured.acc.max_abs, r->measured.acc.n,
                ctx->manifest->tol[ctx->prec].rmse, ctx->manifest->tol[ctx->prec].max_abs,
                ctx->manifest->path);
        fprintf(f, "  rule:       %s", r->decision.acc_why);
    }
    if (r->decision.lat.verdict == KB_LAT_REGRESSION && ctx->ab) {
        print_ab_failure(f, ctx, r);
    } else if (r->decision.lat.verdict == KB_LAT_REGRESSION) {
        fprintf(f, "  latency:    median %.4f ms vs baseline %.4f ms (x%.3f; recorded %s)\n",
                r->measured.stats.median, r->decision.base.median_ms, r->decision.lat.ratio,
                r->decision.base.recorded_at);
        print_rounds(f, r);
        fprintf(f,
                "  rule:       median above baseline x %.2f in the first round and all %d "
                "confirmation rounds; best round above it by more than the case's noise "
                "(%.1f %%) and slower than the baseline's samples x %.2f "
                "(Mann-Whitney p = %.2g < %.2g); machine slower x%.3f by its probe "
                "(allowed for beyond x%.2f)\n",
                1.0 + r->decision.lat.tolerance, ctx->settings->gate.confirm_rounds,
                100.0 * r->decision.lat.noise, 1.0 + r->decision.lat.tolerance,
                r->decision.lat.p_value, ctx->settings->gate.alpha, r->decision.lat.drift,
                1.0 + r->decision.lat.tolerance);
        if (r->decision.fresh_first > 0)
            fprintf(f,
                    "  fresh:      measured again in a fresh process of this build (rounds %d-%d: "
                    "x%.3f), and a fresh process confirmed it\n",
                    r->decision.fresh_first + 1, r->measured.n_rounds, r->decision.fresh.ratio);
        fprintf(f, "  baseline:   %s\n", rep->baseline_path);
    }
}

int kb_report_failures(FILE *f, const kb_report *rep) {
    int failed = 0;
    for (int i = 0; i < rep->n_results; ++i) {
        if (rep->results[i].decision.lat.verdict == KB_LAT_MACHINE_DRIFT)
            print_drift_note(f, rep, &rep->results[i]);
        if (kb_case_passed(&rep->results[i])) continue;
        print_failure(f, rep, &rep->results[i]);
        ++failed;
    }
    return failed;
}
