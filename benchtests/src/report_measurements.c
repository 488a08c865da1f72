/* The CTest measurement block CDash graphs: every figure of every case that
 * ran, with neutral values and availability flags where a figure's
 * reference is missing. */
#include "report.h"

#include <math.h>

static void measurement(FILE *f, const kb_case_result *r, const char *what, double v) {
    if (!isfinite(v)) return;
    fprintf(f,
            "<CTestMeasurement type=\"numeric/double\" name=\"%s.%s.%s\">%.9g</CTestMeasurement>\n",
            r->c->name, r->variant, what, v);
}

/* CDash plots a figure missing from a build as 0, so every case sends every
 * figure in every run. A relative figure whose reference is missing is taken
 * against the case itself (ratio 1, pct_peak_bw and pct_roofline 100, speedup
 * and vendor_speedup 1) and its <figure>_available flag says 0;
 * docs/cdash.md lists each one's meaning. */
static void baseline_measurements(FILE *f, const kb_case_result *r) {
    /* a baseline from other hardware, or a slowdown timed unlike the
     * baseline, was not compared: its ratio would graph as a step */
    const kb_latency_verdict v = r->lat.verdict;
    const int compared = r->has_base && v != KB_LAT_RECORDED && v != KB_LAT_OTHER_HARDWARE &&
                         v != KB_LAT_OTHER_TIMING;
    measurement(f, r, "ratio_available", compared);
    measurement(f, r, "baseline_ms", compared ? r->base.median_ms : r->stats.median);
    measurement(f, r, "ratio", compared ? r->lat.ratio : 1.0);
    measurement(f, r, "machine_drift", isfinite(r->lat.drift) ? r->lat.drift : 1.0);
    fprintf(f,
            "<CTestMeasurement type=\"text/string\" name=\"%s.%s.timing\">%s</CTestMeasurement>\n",
            r->c->name, r->variant, kb_timing_name(r->timing));
}

static void ab_measurements(FILE *f, const kb_case_result *r) {
    const int paired =
        r->ab.n_pairs > 0 && isfinite(r->ab.decision.ci_lo) && isfinite(r->ab.decision.ci_hi);
    measurement(f, r, "ab_pairs", r->ab.n_pairs);
    measurement(f, r, "ab_ci_lo", paired ? r->ab.decision.ci_lo : 1.0);
    measurement(f, r, "ab_ci_hi", paired ? r->ab.decision.ci_hi : 1.0);
    measurement(f, r, "ab_spread", r->ab.n_pairs > 0 ? r->ab.decision.spread : 0.0);
}

static void bandwidth_measurements(FILE *f, const kb_case_result *r) {
    const int calibrated = r->pct_peak_bw >= 0.0;
    measurement(f, r, "gbps", r->gbps);
    measurement(f, r, "gflops", r->gflops);
    measurement(f, r, "pct_peak_bw_available", calibrated);
    measurement(f, r, "pct_peak_bw", calibrated ? r->pct_peak_bw : 100.0);
}

/* The roofline (docs/roofline.md): pct_roofline against 100 when there is
 * none, and what bounds the case as text ("none" without a roofline),
 * which CDash shows on the test's page. */
static void roofline_measurements(FILE *f, const kb_case_result *r) {
    const int placed = r->pct_roofline >= 0.0;
    measurement(f, r, "pct_roofline_available", placed);
    measurement(f, r, "pct_roofline", placed ? r->pct_roofline : 100.0);
    fprintf(f,
            "<CTestMeasurement type=\"text/string\" name=\"%s.%s.bound\">%s</CTestMeasurement>\n",
            r->c->name, r->variant, placed ? r->roofline.bound : "none");
}

static void comparison_measurements(FILE *f, const kb_case_result *r) {
    const int compared = r->cmp.with != NULL;
    measurement(f, r, "speedup_available", compared);
    measurement(f, r, "speedup", compared ? r->cmp.speedup : 1.0);
    measurement(f, r, "bytes_saved", compared ? r->cmp.bytes_saved : 0.0);
    const int vendor = r->vendor_speedup >= 0.0;
    measurement(f, r, "vendor_speedup_available", vendor);
    measurement(f, r, "vendor_speedup", vendor ? r->vendor_speedup : 1.0);
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
        roofline_measurements(f, r);
        comparison_measurements(f, r);
        power_measurements(f, r);
    }
}
