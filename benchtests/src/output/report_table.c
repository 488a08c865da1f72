/* The console table: one row per case x variant, then the comparisons
 * between variants and what the device monitor saw. */
#include "output/report.h"

#include "base/buildinfo.h"
#include "machine/devmon.h"

#include <math.h>

static const char *verdict_text(const kb_case_result *r) {
    if (r->error) return KB_VERDICT_TEXT_ERROR;
    if (r->skipped) return KB_VERDICT_TEXT_SKIPPED;
    if (r->decision.acc_fired) return KB_VERDICT_TEXT_ACCURACY;
    return kb_latency_verdict_text(r->decision.lat.verdict);
}

static void print_row(FILE *f, const kb_case_result *r) {
    if (r->error || r->skipped) {
        fprintf(f, "%-22s %-8s %s%s%s\n", r->c->name, r->variant, verdict_text(r),
                r->skipped ? ": " : "", r->skipped ? r->skip_why : "");
        return;
    }
    char base[32] = "-", ratio[32] = "-", peak[32] = "-", roof[32] = "-", vendor[32] = "-";
    if (r->decision.has_base) {
        snprintf(base, sizeof base, "%.4f", r->decision.base.median_ms);
        snprintf(ratio, sizeof ratio, "%.3f", r->decision.lat.ratio);
    }
    if (r->measured.pct_peak_bw >= 0.0)
        snprintf(peak, sizeof peak, "%.0f%%", r->measured.pct_peak_bw);
    if (r->measured.pct_roofline >= 0.0)
        snprintf(roof, sizeof roof, "%.0f%%", r->measured.pct_roofline);
    /* Over the library: the vendor variant, else the one compare_to names
     * (the lines under the table say which). */
    if (r->measured.vendor_speedup >= 0.0)
        snprintf(vendor, sizeof vendor, "x%.2f", r->measured.vendor_speedup);
    else if (r->measured.cmp.with)
        snprintf(vendor, sizeof vendor, "x%.2f", r->measured.cmp.speedup);
    fprintf(f,
            "%-22s %-8s %10.4f %8.1f%% %5.1f%% %4dx%-4d %8.2f %5s %8.2f %5s %-7s %7s %10s %6s "
            "%9.2e %9.2e  %s\n",
            r->c->name, r->variant, r->measured.stats.median,
            100.0 * (r->measured.stats.p90 - r->measured.stats.p10) / r->measured.stats.median,
            100.0 * r->measured.stats.cv, (int)r->measured.stats.n,
            r->measured.rounds[r->decision.lat.best].reps, r->measured.gbps, peak,
            r->measured.gflops, roof,
            r->measured.roofline.present ? r->measured.roofline.bound : "-", vendor, base, ratio,
            r->measured.acc.rmse, r->measured.acc.max_abs, verdict_text(r));
}

/* The best round's power and energy, clock limits and device memory, for
 * the cases where the backend could measure them. */
static void print_device_notes(FILE *f, const kb_case_result *r) {
    const int b = r->decision.lat.best;
    const kb_samples *best = &r->measured.rounds[b];
    if (r->error || r->skipped) return;
    if (r->measured.power_w[b] > 0.0 || r->measured.device_mem_mib >= 0.0) {
        fprintf(f, "  %s %s: ", r->c->name, r->variant);
        if (r->measured.power_w[b] > 0.0)
            fprintf(f, "%.1f W, %.4g mJ per call; ", r->measured.power_w[b],
                    r->measured.energy_mj[b]);
        if (r->measured.device_mem_mib >= 0.0)
            fprintf(f, "device memory in use %.0f MiB", r->measured.device_mem_mib);
        fprintf(f, "\n");
    }
    if (r->measured.clock_limits) {
        char names[128];
        kb_devmon_reason_names(r->measured.clock_limits, names, sizeof names);
        fprintf(f, "  %s %s: clocks limited (%s): %d samples dropped, %d kept\n", r->c->name,
                r->variant, names, best->dropped, best->suspect_kept);
    }
    if (best->disturbed || best->disturbed_kept)
        fprintf(f, "  %s %s: thread lost its CPU during %d samples: %d dropped, %d kept\n",
                r->c->name, r->variant, best->disturbed + best->disturbed_kept, best->disturbed,
                best->disturbed_kept);
}

/* A case that gates, or will gate once recorded, coarser than the
 * configured tolerance: how coarse, and why (its rounds' noise). */
static void print_tolerance_note(FILE *f, const kb_report *rep, const kb_case_result *r) {
    const double tol = rep->ctx->settings->gate.latency_tol;
    if (r->error || r->skipped || rep->ctx->ab || !(r->decision.lat.tolerance > tol)) return;
    if (r->decision.lat.verdict == KB_LAT_RECORDED) {
        fprintf(f, "  %s %s: recorded to gate at %.1f %%, not %.0f %%: the noise of its rounds",
                r->c->name, r->variant, 100.0 * r->decision.lat.tolerance, 100.0 * tol);
        if (r->measured.record_attempts > 1) {
            fprintf(f, " (attempts' noise");
            for (int a = 0; a < r->measured.record_attempts; ++a)
                fprintf(f, "%s %.1f %%", a ? "," : "", 100.0 * r->measured.attempt_noise[a]);
            fprintf(f, "; attempt %d kept)", r->measured.kept_attempt + 1);
        }
        fprintf(f, "\n");
    } else if (r->decision.has_base) {
        fprintf(
            f, "  %s %s: gated at %.1f %%, not %.0f %%: the noise its baseline was recorded with\n",
            r->c->name, r->variant, 100.0 * r->decision.lat.tolerance, 100.0 * tol);
    }
}

/* A slowdown this process confirmed that a fresh process did not: the
 * process's placement, not the code (the runner). */
static void print_fresh_note(FILE *f, const kb_case_result *r) {
    if (r->error || r->skipped || r->decision.fresh_first == 0 ||
        kb_latency_verdict_fails(r->decision.fresh.verdict))
        return;
    fprintf(f,
            "  %s %s: x%.3f in every round of this process, not in a fresh process (x%.3f): "
            "its placement, not the code; not failed\n",
            r->c->name, r->variant, r->decision.lat.ratio, r->decision.fresh.ratio);
}

/* A variant against the one it is compared with: speedup, and the memory
 * traffic where the two move different amounts. */
static void print_comparison(FILE *f, const kb_case_result *r) {
    if (!r->measured.cmp.with) return;
    fprintf(f, "  %s %s vs %s: speedup x%.2f", r->c->name, r->impl_variant, r->measured.cmp.with,
            r->measured.cmp.speedup);
    if (r->bytes != r->measured.cmp.with_bytes)
        fprintf(f, ", memory traffic %.1f%% %s (%.3g MB vs %.3g MB)",
                100.0 * fabs(r->measured.cmp.bytes_saved),
                r->measured.cmp.bytes_saved >= 0.0 ? "lower" : "higher", r->bytes * 1e-6,
                r->measured.cmp.with_bytes * 1e-6);
    fprintf(f, "\n");
}

void kb_report_roofs(FILE *f, const kb_roofs *roofs) {
    for (int i = 0; i < roofs->n_levels; ++i) {
        char cap[32];
        if (roofs->levels[i].level.capacity > 0.0)
            kb_format_bytes(roofs->levels[i].level.capacity, cap, sizeof cap);
        else
            snprintf(cap, sizeof cap, "the rest");
        fprintf(f, "     %-6s %-9s %9.2f GB/s\n", roofs->levels[i].level.name, cap,
                roofs->levels[i].gbps);
    }
    /* memory's ceiling per access pattern, which a case there is placed under */
    for (int p = 0; p < roofs->n_patterns && roofs->n_levels > 0; ++p) {
        const kb_pattern_roof *pr = &roofs->patterns[p];
        char stores[96] = "";
        if (pr->nt_gbps > 0.0)
            snprintf(stores, sizeof stores, " (cached stores %.2f, non-temporal %.2f)",
                     pr->cached_gbps, pr->nt_gbps);
        fprintf(f, "     %-6s %-9s %9.2f GB/s%s\n", roofs->levels[roofs->n_levels - 1].level.name,
                kb_pattern_name((kb_mem_pattern)p), pr->gbps, stores);
    }
    for (int p = 0; p < KB_PREC_COUNT; ++p) {
        if (roofs->fma[p].gflops > 0.0)
            fprintf(f, "     %-6s compute   %9.2f GFLOP/s\n", kb_prec_name((kb_prec)p),
                    roofs->fma[p].gflops);
        if (roofs->matrix[p].gflops > 0.0)
            fprintf(f, "     %-6s matrix    %9.2f GFLOP/s\n", kb_prec_name((kb_prec)p),
                    roofs->matrix[p].gflops);
    }
    for (int i = 0; i < roofs->n_notes; ++i) fprintf(f, "     (%s)\n", roofs->notes[i]);
}

static void print_calibration(FILE *f, const kb_calibration *cal) {
    if (!cal || (!cal->present && !*cal->note)) return;
    if (!cal->present) {
        fprintf(f, "   %%peak: not reported: %s\n   %%roof: not reported: the same\n", cal->note);
        return;
    }
    char age[48] = "";
    if (cal->age_s >= 0.0) {
        char text[32];
        kb_calibration_age_text(cal->age_s, text, sizeof text);
        snprintf(age, sizeof age, ", %s ago", text);
    }
    fprintf(f, "   %%peak: of %.2f GB/s, the calibrated bandwidth (%s, %s%s)\n", cal->peak_gbps,
            cal->file, cal->measured_at, age);
    if (cal->roofs.n_levels == 0) {
        fprintf(f, "   %%roof: not reported: %s\n", cal->roof_note);
        return;
    }
    char doc[KB_PATH_MAX];
    kb_doc_path(doc, sizeof doc, "roofline.md");
    fprintf(f,
            "   %%roof: of the attainable rate at the level the case's buffers fit in, from memory "
            "at its read/write mix (same calibration; %s):\n",
            doc);
    kb_report_roofs(f, &cal->roofs);
    if (*cal->pattern_note) fprintf(f, "     (%s)\n", cal->pattern_note);
}

void kb_report_table(FILE *f, const kb_report *rep) {
    fprintf(f, "== %s  (profile %s)\n", rep->test_name, rep->profile);
    /* A/B mode compares with the base build (the note names it), not with
     * the baseline file. */
    if (rep->ctx->ab && rep->baseline_note)
        fprintf(f, "   %s\n", rep->baseline_note);
    else
        fprintf(f, "   baseline: %s%s%s\n", rep->baseline_path, rep->baseline_note ? " - " : "",
                rep->baseline_note ? rep->baseline_note : "");
    print_calibration(f, rep->cal);
    fprintf(f, "%-22s %-8s %10s %9s %6s %9s %8s %5s %8s %5s %-7s %7s %10s %6s %9s %9s  %s\n",
            "case", "variant", "median ms", "p10-p90", "cv", "n x reps", "GB/s", "%peak", "GFLOP/s",
            "%roof", "bound", "speedup", "base ms", "ratio", "rmse", "max abs", "verdict");
    for (int i = 0; i < rep->n_results; ++i) print_row(f, &rep->results[i]);
    for (int i = 0; i < rep->n_results; ++i) print_comparison(f, &rep->results[i]);
    for (int i = 0; i < rep->n_results; ++i) print_device_notes(f, &rep->results[i]);
    for (int i = 0; i < rep->n_results; ++i) print_tolerance_note(f, rep, &rep->results[i]);
    for (int i = 0; i < rep->n_results; ++i) print_fresh_note(f, &rep->results[i]);
}
