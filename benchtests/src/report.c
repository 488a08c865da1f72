#include "report.h"

#include "case.h"
#include "devmon.h"

#include <math.h>
#include <string.h>

static const char *verdict_text(const kb_case_result *r) {
    if (r->error) return KB_VERDICT_TEXT_ERROR;
    if (r->skipped) return KB_VERDICT_TEXT_SKIPPED;
    if (r->acc_fired) return KB_VERDICT_TEXT_ACCURACY;
    return kb_latency_verdict_text(r->lat.verdict);
}

static void print_row(FILE *f, const kb_case_result *r) {
    if (r->error || r->skipped) {
        fprintf(f, "%-22s %-8s %s%s%s\n", r->c->name, r->variant, verdict_text(r),
                r->skipped ? ": " : "", r->skipped ? r->skip_why : "");
        return;
    }
    char base[32] = "-", ratio[32] = "-", peak[32] = "-";
    if (r->has_base) {
        snprintf(base, sizeof base, "%.4f", r->base.median_ms);
        snprintf(ratio, sizeof ratio, "%.3f", r->lat.ratio);
    }
    if (r->pct_peak_bw >= 0.0) snprintf(peak, sizeof peak, "%.0f%%", r->pct_peak_bw);
    fprintf(f,
            "%-22s %-8s %10.4f %8.1f%% %5.1f%% %4dx%-4d %8.2f %5s %8.2f %10s %6s %9.2e %9.2e  %s\n",
            r->c->name, r->variant, r->stats.median,
            100.0 * (r->stats.p90 - r->stats.p10) / r->stats.median, 100.0 * r->stats.cv,
            (int)r->stats.n, r->rounds[r->lat.best].reps, r->gbps, peak, r->gflops, base, ratio,
            r->acc.rmse, r->acc.max_abs, verdict_text(r));
}

/* The best round's power and energy, clock limits and device memory, for
 * the cases where the backend could measure them. */
static void print_device_notes(FILE *f, const kb_case_result *r) {
    const int b = r->lat.best;
    const kb_samples *best = &r->rounds[b];
    if (r->error || r->skipped) return;
    if (r->power_w[b] > 0.0 || r->device_mem_mib >= 0.0) {
        fprintf(f, "  %s %s: ", r->c->name, r->variant);
        if (r->power_w[b] > 0.0)
            fprintf(f, "%.1f W, %.4g mJ per call; ", r->power_w[b], r->energy_mj[b]);
        if (r->device_mem_mib >= 0.0)
            fprintf(f, "device memory in use %.0f MiB", r->device_mem_mib);
        fprintf(f, "\n");
    }
    if (r->clock_limits) {
        char names[128];
        kb_devmon_reason_names(r->clock_limits, names, sizeof names);
        fprintf(f, "  %s %s: clocks limited (%s): %d samples dropped, %d kept\n", r->c->name,
                r->variant, names, best->dropped, best->suspect_kept);
    }
    if (best->disturbed || best->disturbed_kept)
        fprintf(f, "  %s %s: thread lost its CPU during %d samples: %d dropped, %d kept\n",
                r->c->name, r->variant, best->disturbed + best->disturbed_kept, best->disturbed,
                best->disturbed_kept);
}

/* A variant against the one it is compared with: speedup and traffic. */
static void print_comparison(FILE *f, const kb_case_result *r) {
    if (!r->cmp.with) return;
    fprintf(f, "  %s %s vs %s: speedup x%.2f, memory traffic %.1f%% lower (%.3g MB vs %.3g MB)\n",
            r->c->name, r->impl_variant, r->cmp.with, r->cmp.speedup, 100.0 * r->cmp.bytes_saved,
            r->bytes * 1e-6, r->cmp.with_bytes * 1e-6);
}

static void print_calibration(FILE *f, const kb_calibration *cal) {
    if (!cal || (!cal->present && !*cal->note)) return;
    if (cal->present)
        fprintf(f, "   %%peak: of %.2f GB/s, the calibrated bandwidth (%s, %s)\n", cal->peak_gbps,
                cal->file, cal->measured_at);
    else
        fprintf(f, "   %%peak: not reported: %s\n", cal->note);
}

void kb_report_table(FILE *f, const kb_report *rep) {
    fprintf(f, "== %s  (profile %s)\n", rep->test_name, rep->profile);
    fprintf(f, "   baseline: %s%s%s\n", rep->baseline_path, rep->baseline_note ? " - " : "",
            rep->baseline_note ? rep->baseline_note : "");
    print_calibration(f, rep->cal);
    fprintf(f, "%-22s %-8s %10s %9s %6s %9s %8s %5s %8s %10s %6s %9s %9s  %s\n", "case", "variant",
            "median ms", "p10-p90", "cv", "n x reps", "GB/s", "%peak", "GFLOP/s", "base ms",
            "ratio", "rmse", "max abs", "verdict");
    for (int i = 0; i < rep->n_results; ++i) print_row(f, &rep->results[i]);
    for (int i = 0; i < rep->n_results; ++i) print_comparison(f, &rep->results[i]);
    for (int i = 0; i < rep->n_results; ++i) print_device_notes(f, &rep->results[i]);
}

/* One probe figure: the baseline's and every round's, when both exist. */
static void print_probe(FILE *f, const kb_case_result *r, kb_probe_kind k) {
    if (r->base.probe.v[k] <= 0.0) return;
    int any = 0;
    for (int i = 0; i < r->n_rounds; ++i) any |= r->probe[i].v[k] > 0.0;
    if (!any) return;
    fprintf(f, "  probe %-5s baseline %.2f %s; now ", kb_probe_name(k), r->base.probe.v[k],
            kb_probe_unit(k));
    for (int i = 0, first = 1; i < r->n_rounds; ++i)
        if (r->probe[i].v[k] > 0.0) {
            fprintf(f, "%s%.2f", first ? "" : ", ", r->probe[i].v[k]);
            first = 0;
        }
    fprintf(f, "\n");
}

static void print_rounds(FILE *f, const kb_case_result *r) {
    fprintf(f, "  rounds:     ");
    for (int i = 0; i < r->n_rounds; ++i) {
        fprintf(f, "%s%.4f ms (x%.3f", i ? ", " : "", r->rounds[i].median,
                r->rounds[i].median / r->base.median_ms);
        if (r->round_cpu[i] >= 0) fprintf(f, ", cpu %d", r->round_cpu[i]);
        fprintf(f, ")");
    }
    fprintf(f, "\n");
    for (int k = 0; k < KB_PROBE_N; ++k) print_probe(f, r, (kb_probe_kind)k);
    kb_probe_kind figs[2];
    kb_bound_probes(r->base.bound, figs);
    fprintf(f,
            "  machine:    the case is %s-bound (recorded: %s), so the %s and %s figures count: ",
            r->base.bound == KB_BOUND_COMPUTE ? "compute" : "memory", kb_bound_name(r->base.bound),
            kb_probe_name(figs[0]), kb_probe_name(figs[1]));
    if (r->lat.drift_probe == KB_PROBE_N)
        fprintf(f, "neither was measured on both sides\n");
    else
        fprintf(f, "machine x%.3f slower by the %s probe\n", r->lat.drift,
                kb_probe_name(r->lat.drift_probe));
}

/* A slowdown that the machine's own slowdown explains passes, but says so. */
static void print_drift_note(FILE *f, const kb_report *rep, const kb_case_result *r) {
    fprintf(f,
            "\n---- note: %s  case %s  variant %s: every round slower than the baseline, "
            "but the machine probe was slower by as much; not failed\n",
            rep->test_name, r->c->name, r->variant);
    print_rounds(f, r);
}

/* A/B: every pair's medians and ratio, then the interval that decided. */
static void print_ab_failure(FILE *f, const kb_run_ctx *ctx, const kb_case_result *r) {
    const kb_ab_result *ab = &r->ab;
    fprintf(f,
            "  latency:    head %.4f ms vs base %.4f ms (%s): ratio x%.3f, 95%% interval "
            "[%.3f, %.3f] over %d pairs\n",
            r->stats.median, r->base.median_ms, ctx->ab->ref, ab->decision.ratio,
            ab->decision.ci_lo, ab->decision.ci_hi, ab->n_pairs);
    fprintf(f, "  pairs:      ");
    for (int i = 0; i < ab->n_pairs; ++i) fprintf(f, "%sx%.3f", i ? ", " : "", ab->pairs[i].ratio);
    fprintf(f,
            "\n  rule:       the interval's lower end is above x%.2f (tolerance %.0f %%): "
            "the head is slower than the base beyond doubt\n",
            1.0 + ctx->opt->gate.latency_tol, 100.0 * ctx->opt->gate.latency_tol);
}

/* Update mode: rounds too noisy to become a baseline. */
static void print_too_noisy(FILE *f, const kb_run_ctx *ctx, const kb_case_result *r) {
    fprintf(f, "  recording:  not recorded: round medians ");
    for (int i = 0; i < r->n_rounds; ++i) fprintf(f, "%s%.4f", i ? ", " : "", r->rounds[i].median);
    fprintf(f,
            " ms; the gate would grant this case %.1f %% of noise (half the wider of the "
            "rounds' spread and the best round's p10-p90), more than the tolerance (%.1f %%), "
            "so a slowdown of twice the tolerance could pass\n"
            "  rule:       record on a quieter machine, or with the tolerance the baseline "
            "is meant for (--latency-tolerance)\n",
            100.0 * r->record_noise, 100.0 * ctx->opt->gate.latency_tol);
}

static void print_failure(FILE *f, const kb_report *rep, const kb_case_result *r) {
    const kb_run_ctx *ctx = rep->ctx;
    fprintf(f, "\n---- FAILED %s  case %s  variant %s\n", rep->test_name, r->c->name, r->variant);
    if (r->error) {
        fprintf(f, "  error:      %s\n", r->error_msg);
        return;
    }
    if (r->acc_fired) {
        fprintf(f,
                "  accuracy:   rmse %.3e, max abs %.3e over %zu elements "
                "(tolerance rmse %.3e, max abs %.3e, %s)\n",
                r->acc.rmse, r->acc.max_abs, r->acc.n, ctx->manifest->tol[ctx->prec].rmse,
                ctx->manifest->tol[ctx->prec].max_abs, ctx->manifest->path);
        fprintf(f, "  rule:       %s", r->acc_why);
    }
    if (r->lat.verdict == KB_LAT_REGRESSION && ctx->ab) {
        print_ab_failure(f, ctx, r);
    } else if (r->lat.verdict == KB_LAT_REGRESSION) {
        fprintf(f, "  latency:    median %.4f ms vs baseline %.4f ms (x%.3f; recorded %s)\n",
                r->stats.median, r->base.median_ms, r->lat.ratio, r->base.recorded_at);
        print_rounds(f, r);
        fprintf(f,
                "  rule:       median above baseline x %.2f in the first round and all %d "
                "confirmation rounds; best round above it by more than the case's noise "
                "(%.1f %%) and slower than the baseline's samples x %.2f "
                "(Mann-Whitney p = %.2g < %.2g); machine slower x%.3f by its probe "
                "(allowed for beyond x%.2f)\n",
                1.0 + ctx->opt->gate.latency_tol, ctx->opt->gate.confirm_rounds,
                100.0 * r->lat.noise, 1.0 + ctx->opt->gate.latency_tol, r->lat.p_value,
                ctx->opt->gate.alpha, r->lat.drift, 1.0 + ctx->opt->gate.latency_tol);
        fprintf(f, "  baseline:   %s\n", rep->baseline_path);
    }
    if (r->lat.verdict == KB_LAT_TOO_NOISY) print_too_noisy(f, ctx, r);
}

int kb_report_failures(FILE *f, const kb_report *rep) {
    int failed = 0;
    for (int i = 0; i < rep->n_results; ++i) {
        if (rep->results[i].lat.verdict == KB_LAT_MACHINE_DRIFT)
            print_drift_note(f, rep, &rep->results[i]);
        if (kb_case_passed(&rep->results[i])) continue;
        print_failure(f, rep, &rep->results[i]);
        ++failed;
    }
    return failed;
}

static void measurement(FILE *f, const kb_case_result *r, const char *what, double v) {
    if (!isfinite(v)) return;
    fprintf(f,
            "<CTestMeasurement type=\"numeric/double\" name=\"%s.%s.%s\">%.9g</CTestMeasurement>\n",
            r->c->name, r->variant, what, v);
}

/* CDash plots a figure missing from a build as 0, so every case sends every
 * figure in every run. A relative figure whose reference is missing is taken
 * against the case itself (ratio 1, pct_peak_bw 100, speedup 1) and its
 * <figure>_available flag says 0; docs/cdash.md lists each one's meaning. */
static void baseline_measurements(FILE *f, const kb_case_result *r) {
    const int compared = r->has_base && r->lat.verdict != KB_LAT_RECORDED;
    measurement(f, r, "ratio_available", compared);
    measurement(f, r, "baseline_ms", compared ? r->base.median_ms : r->stats.median);
    measurement(f, r, "ratio", compared ? r->lat.ratio : 1.0);
    measurement(f, r, "machine_drift", isfinite(r->lat.drift) ? r->lat.drift : 1.0);
}

static void ab_measurements(FILE *f, const kb_case_result *r) {
    const int paired =
        r->ab.n_pairs > 0 && isfinite(r->ab.decision.ci_lo) && isfinite(r->ab.decision.ci_hi);
    measurement(f, r, "ab_pairs", r->ab.n_pairs);
    measurement(f, r, "ab_ci_lo", paired ? r->ab.decision.ci_lo : 1.0);
    measurement(f, r, "ab_ci_hi", paired ? r->ab.decision.ci_hi : 1.0);
}

static void bandwidth_measurements(FILE *f, const kb_case_result *r) {
    const int calibrated = r->pct_peak_bw >= 0.0;
    measurement(f, r, "gbps", r->gbps);
    measurement(f, r, "gflops", r->gflops);
    measurement(f, r, "pct_peak_bw_available", calibrated);
    measurement(f, r, "pct_peak_bw", calibrated ? r->pct_peak_bw : 100.0);
}

static void comparison_measurements(FILE *f, const kb_case_result *r) {
    const int compared = r->cmp.with != NULL;
    measurement(f, r, "speedup_available", compared);
    measurement(f, r, "speedup", compared ? r->cmp.speedup : 1.0);
    measurement(f, r, "bytes_saved", compared ? r->cmp.bytes_saved : 0.0);
}

/* Power and energy have no neutral value: 0 (which no running device
 * draws) with power_available 0 when the backend gave no reading. */
static void power_measurements(FILE *f, const kb_case_result *r) {
    const int b = r->lat.best;
    const int measured = r->power_w[b] > 0.0;
    measurement(f, r, "power_available", measured);
    measurement(f, r, "power_w", measured ? r->power_w[b] : 0.0);
    measurement(f, r, "energy_mj", measured ? r->energy_mj[b] : 0.0);
}

void kb_report_measurements(FILE *f, const kb_report *rep) {
    for (int i = 0; i < rep->n_results; ++i) {
        const kb_case_result *r = &rep->results[i];
        if (r->error || r->skipped) continue;
        measurement(f, r, "median_ms", r->stats.median);
        baseline_measurements(f, r);
        ab_measurements(f, r);
        measurement(f, r, "rmse", r->acc.rmse);
        bandwidth_measurements(f, r);
        comparison_measurements(f, r);
        power_measurements(f, r);
    }
}

static cJSON *samples_json(const kb_samples *s) {
    return cJSON_CreateDoubleArray(s->ms, s->n);
}

static void add_stats(cJSON *o, const kb_stats *s) {
    cJSON_AddNumberToObject(o, "median_ms", s->median);
    cJSON_AddNumberToObject(o, "min_ms", s->min);
    cJSON_AddNumberToObject(o, "max_ms", s->max);
    cJSON_AddNumberToObject(o, "mean_ms", s->mean);
    cJSON_AddNumberToObject(o, "stddev_ms", s->stddev);
    cJSON_AddNumberToObject(o, "mad_ms", s->mad);
    cJSON_AddNumberToObject(o, "p10_ms", s->p10);
    cJSON_AddNumberToObject(o, "p90_ms", s->p90);
    cJSON_AddNumberToObject(o, "p99_ms", s->p99);
    cJSON_AddNumberToObject(o, "cv", s->cv);
    cJSON_AddNumberToObject(o, "n_samples", (double)s->n);
}

static cJSON *accuracy_json(const kb_case_result *r) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "rmse", r->acc.rmse);
    cJSON_AddNumberToObject(a, "max_abs_err", r->acc.max_abs);
    cJSON_AddNumberToObject(a, "elements", (double)r->acc.n);
    cJSON_AddNumberToObject(a, "nonfinite", (double)r->acc.n_nonfinite);
    cJSON_AddNumberToObject(a, "unwritten", (double)r->acc.n_unwritten);
    cJSON_AddStringToObject(a, "failures", r->acc_why);
    return a;
}

/* The figures of a machine probe reading that were measured, under their
 * baseline names. */
static void add_probe(cJSON *o, const kb_probe_reading *p) {
    for (int k = 0; k < KB_PROBE_N; ++k)
        if (p->v[k] > 0.0) cJSON_AddNumberToObject(o, kb_probe_key((kb_probe_kind)k), p->v[k]);
}

static cJSON *rounds_json(const kb_case_result *r) {
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < r->n_rounds; ++i) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "median_ms", r->rounds[i].median);
        cJSON_AddNumberToObject(o, "reps", r->rounds[i].reps);
        cJSON_AddNumberToObject(o, "elapsed_ms", r->rounds[i].elapsed_s * 1e3);
        cJSON_AddStringToObject(o, "stop_rule", r->rounds[i].stop_rule);
        if (r->round_cpu[i] >= 0) cJSON_AddNumberToObject(o, "cpu", r->round_cpu[i]);
        add_probe(o, &r->probe[i]);
        if (r->power_w[i] > 0.0) {
            cJSON_AddNumberToObject(o, "power_w", r->power_w[i]);
            cJSON_AddNumberToObject(o, "energy_per_call_mj", r->energy_mj[i]);
        }
        cJSON_AddNumberToObject(o, "clock_limited_dropped", r->rounds[i].dropped);
        cJSON_AddNumberToObject(o, "clock_limited_kept", r->rounds[i].suspect_kept);
        cJSON_AddNumberToObject(o, "disturbed_dropped", r->rounds[i].disturbed);
        cJSON_AddNumberToObject(o, "disturbed_kept", r->rounds[i].disturbed_kept);
        cJSON_AddItemToObject(o, "samples_ms", samples_json(&r->rounds[i]));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* What the backend's monitor saw while the case ran: clock limits (null when
 * it cannot tell), power and energy of the best round, device memory. */
static cJSON *device_json(const kb_case_result *r) {
    cJSON *d = cJSON_CreateObject();
    char names[128];
    kb_devmon_reason_names(r->clock_limits, names, sizeof names);
    if (r->clocks_checked)
        cJSON_AddStringToObject(d, "clock_limits", names);
    else
        cJSON_AddNullToObject(d, "clock_limits");
    if (r->power_w[r->lat.best] > 0.0) {
        cJSON_AddNumberToObject(d, "power_w", r->power_w[r->lat.best]);
        cJSON_AddNumberToObject(d, "energy_per_call_mj", r->energy_mj[r->lat.best]);
    }
    if (r->device_mem_mib >= 0.0)
        cJSON_AddNumberToObject(d, "memory_in_use_mib", r->device_mem_mib);
    return d;
}

static const char *base_status_name(int status) {
    switch (status) {
    case KB_PARTNER_READY: return "measured";
    case KB_PARTNER_ABSENT: return "no such case";
    case KB_PARTNER_SKIP: return "declined";
    default: return "no driver";
    }
}

/* A/B: the base, every pair and the interval that decided. */
static cJSON *ab_json(const kb_case_result *r) {
    const kb_ab_result *ab = &r->ab;
    const kb_ab_decision *d = &ab->decision;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "base", base_status_name(ab->base_status));
    if (ab->base_status != KB_PARTNER_READY) {
        cJSON_AddStringToObject(o, "note", ab->base_why);
        return o;
    }
    cJSON_AddNumberToObject(o, "base_rmse", ab->base_rmse);
    cJSON_AddNumberToObject(o, "n_pairs", ab->n_pairs);
    cJSON_AddNumberToObject(o, "elapsed_ms", ab->elapsed_s * 1e3);
    if (isfinite(d->ci_lo) && isfinite(d->ci_hi)) {
        cJSON_AddNumberToObject(o, "ci_lo", d->ci_lo);
        cJSON_AddNumberToObject(o, "ci_hi", d->ci_hi);
        /* the slowdown this interval can tell from none: its half-width */
        cJSON_AddNumberToObject(o, "resolution", (d->ci_hi - d->ci_lo) / (2.0 * d->ratio));
    } else {
        cJSON_AddNullToObject(o, "ci_lo");
        cJSON_AddNullToObject(o, "ci_hi");
        cJSON_AddNullToObject(o, "resolution");
    }
    cJSON *pairs = cJSON_AddArrayToObject(o, "pairs");
    for (int i = 0; i < ab->n_pairs; ++i) {
        const kb_ab_pair *p = &ab->pairs[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "cpu", p->cpu);
        cJSON_AddStringToObject(j, "order", p->base_first ? "base,head" : "head,base");
        cJSON_AddNumberToObject(j, "head_ms", p->head_ms);
        cJSON_AddNumberToObject(j, "base_ms", p->base_ms);
        cJSON_AddNumberToObject(j, "ratio", p->ratio);
        cJSON_AddNumberToObject(j, "head_disturbed", p->head_disturbed);
        cJSON_AddNumberToObject(j, "base_disturbed", p->base_disturbed);
        cJSON_AddItemToArray(pairs, j);
    }
    return o;
}

static cJSON *case_json(const kb_case_result *r, int ab) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "case", r->c->name);
    cJSON_AddStringToObject(o, "variant", r->variant);
    cJSON *dims = cJSON_AddObjectToObject(o, "dims");
    for (int i = 0; i < r->c->n_dims; ++i)
        cJSON_AddNumberToObject(dims, r->c->dim_names[i], (double)r->c->dims[i]);
    cJSON_AddBoolToObject(o, "passed", kb_case_passed(r));
    if (r->error || r->skipped) {
        cJSON_AddStringToObject(o, r->error ? "error" : "skipped",
                                r->error ? r->error_msg : r->skip_why);
        return o;
    }
    cJSON_AddNumberToObject(o, "flops", r->flops);
    cJSON_AddNumberToObject(o, "bytes", r->bytes);
    cJSON_AddNumberToObject(o, "gbps", r->gbps);
    cJSON_AddNumberToObject(o, "gflops", r->gflops);
    if (r->pct_peak_bw >= 0.0)
        cJSON_AddNumberToObject(o, "pct_peak_bw", r->pct_peak_bw);
    else
        cJSON_AddNullToObject(o, "pct_peak_bw");
    if (r->cmp.with) {
        cJSON *cmp = cJSON_AddObjectToObject(o, "comparison");
        cJSON_AddStringToObject(cmp, "with", r->cmp.with);
        cJSON_AddNumberToObject(cmp, "speedup", r->cmp.speedup);
        cJSON_AddNumberToObject(cmp, "bytes_saved", r->cmp.bytes_saved);
    }
    add_stats(o, &r->stats);
    cJSON_AddItemToObject(o, "accuracy", accuracy_json(r));
    cJSON *lat = cJSON_AddObjectToObject(o, "latency");
    cJSON_AddStringToObject(lat, "verdict", kb_latency_verdict_name(r->lat.verdict));
    if (r->has_base) {
        cJSON_AddNumberToObject(lat, "baseline_median_ms", r->base.median_ms);
        cJSON_AddNumberToObject(lat, "baseline_rmse", r->base.rmse);
        cJSON_AddStringToObject(lat, "baseline_recorded_at", r->base.recorded_at);
        cJSON_AddNumberToObject(lat, "ratio", r->lat.ratio);
        cJSON_AddNumberToObject(lat, "first_ratio", r->lat.first_ratio);
    }
    if (r->lat.p_value >= 0.0) {
        cJSON_AddNumberToObject(lat, "p_value", r->lat.p_value);
        cJSON_AddNumberToObject(lat, "noise", r->lat.noise);
        cJSON_AddNumberToObject(lat, "machine_drift", r->lat.drift);
        cJSON_AddStringToObject(lat, "bound", kb_bound_name(r->base.bound));
        if (r->lat.drift_probe != KB_PROBE_N)
            cJSON_AddStringToObject(lat, "drift_probe", kb_probe_name(r->lat.drift_probe));
    }
    if (r->lat.verdict == KB_LAT_RECORDED || r->lat.verdict == KB_LAT_TOO_NOISY) {
        cJSON_AddNumberToObject(lat, "record_noise", r->record_noise);
        cJSON_AddStringToObject(lat, "bound", kb_bound_name(r->bound));
        cJSON_AddNumberToObject(lat, "intensity", r->intensity);
        cJSON_AddNumberToObject(lat, "balance", r->balance);
    }
    if (ab) cJSON_AddItemToObject(lat, "ab", ab_json(r));
    cJSON_AddItemToObject(o, "device", device_json(r));
    cJSON_AddItemToObject(o, "rounds", rounds_json(r));
    return o;
}

static cJSON *calibration_json(const kb_calibration *cal) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", cal ? cal->file : "");
    if (cal && cal->present) {
        cJSON_AddNumberToObject(o, "peak_gbps", cal->peak_gbps);
        cJSON_AddStringToObject(o, "measured_at", cal->measured_at);
    } else {
        cJSON_AddNullToObject(o, "peak_gbps");
        cJSON_AddStringToObject(o, "note", cal && *cal->note ? cal->note : "not read");
    }
    return o;
}

cJSON *kb_report_json(const kb_report *rep, const char *status, cJSON *env) {
    const kb_run_ctx *ctx = rep->ctx;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "test", rep->test_name);
    cJSON_AddStringToObject(o, "status", status);
    cJSON_AddStringToObject(o, "kernel", ctx->kernel_name);
    cJSON_AddStringToObject(o, "backend", ctx->backend->name);
    cJSON_AddStringToObject(o, "precision", kb_prec_name(ctx->prec));
    cJSON_AddStringToObject(o, "profile", rep->profile);
    cJSON_AddStringToObject(o, "mode", ctx->ab ? "ab" : "baseline");
    if (ctx->ab) cJSON_AddStringToObject(o, "ab_base", ctx->ab->ref);
    cJSON_AddStringToObject(o, "baseline_file", rep->baseline_path);
    cJSON_AddStringToObject(o, "manifest", ctx->manifest->path);
    cJSON_AddNumberToObject(o, "seed", (double)ctx->opt->seed);
    cJSON_AddNumberToObject(o, "latency_tolerance", ctx->opt->gate.latency_tol);
    cJSON_AddNumberToObject(o, "accuracy_drift", ctx->opt->gate.accuracy_drift);
    cJSON_AddBoolToObject(o, "cold_cache", ctx->opt->cold_cache);
    cJSON_AddStringToObject(o, "case_set",
                            ctx->opt->calibrate ? "calibration"
                            : ctx->opt->full    ? "full"
                                                : "default");
    cJSON_AddItemToObject(o, "calibration", calibration_json(rep->cal));
    cJSON *cases = cJSON_AddArrayToObject(o, "cases");
    for (int i = 0; i < rep->n_results; ++i)
        cJSON_AddItemToArray(cases, case_json(&rep->results[i], ctx->ab != NULL));
    if (env) cJSON_AddItemToObject(o, "environment", env);
    return o;
}

cJSON *kb_report_case_json(const kb_case_result *r, int ab) {
    return case_json(r, ab);
}

cJSON *kb_report_baseline_entry(const kb_case_result *r, const cJSON *env, const char *now) {
    cJSON *e = cJSON_CreateObject();
    const kb_samples *best = &r->rounds[r->lat.best];
    cJSON_AddStringToObject(e, "case", r->c->name);
    cJSON_AddStringToObject(e, "variant", r->variant);
    cJSON_AddNumberToObject(e, "median_ms", r->stats.median);
    cJSON_AddNumberToObject(e, "min_ms", r->stats.min);
    cJSON_AddNumberToObject(e, "p10_ms", r->stats.p10);
    cJSON_AddNumberToObject(e, "p90_ms", r->stats.p90);
    cJSON_AddNumberToObject(e, "reps", best->reps);
    cJSON_AddItemToObject(e, "samples_ms", samples_json(best));
    double medians[KB_MAX_ROUNDS];
    for (int i = 0; i < r->n_rounds; ++i) medians[i] = r->rounds[i].median;
    cJSON_AddItemToObject(e, "round_medians_ms", cJSON_CreateDoubleArray(medians, r->n_rounds));
    cJSON_AddNumberToObject(e, "rmse", r->acc.rmse);
    cJSON_AddNumberToObject(e, "max_abs_err", r->acc.max_abs);
    cJSON_AddNumberToObject(e, "gbps", r->gbps);
    add_probe(e, &r->recorded_probe);
    cJSON_AddStringToObject(e, "bound", kb_bound_name(r->bound));
    cJSON_AddNumberToObject(e, "intensity", r->intensity);
    cJSON_AddNumberToObject(e, "balance", r->balance);
    cJSON_AddStringToObject(e, "recorded_at", now);
    cJSON_AddItemToObject(e, "environment", cJSON_Duplicate(env, 1));
    return e;
}
