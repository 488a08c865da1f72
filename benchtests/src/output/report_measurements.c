/* The CTest measurement block CDash graphs: every figure of every case that
 * ran, with neutral values and availability flags where a figure's
 * reference is missing. */
#include "output/report.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* FNV-1a of s, its low 24 bits: the stable tag of a shortened name. */
static unsigned long name_tag(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; ++s) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return (unsigned long)(h & 0xffffffu);
}

/* The first `keep` characters of s, '~' and its tag: keep + 7 characters. */
static void shorten(const char *s, size_t keep, char *out, size_t size) {
    snprintf(out, size, "%.*s~%06lx", (int)keep, s, name_tag(s));
}

/* CDash 2.6 keeps a measurement's name in 40 characters (its pinned
 * measurement columns), so `<case>.<variant>` gets at most 40 - 1 -
 * KB_MEASUREMENT_FIGURE_MAX. A longer one keeps the variant (shortened
 * itself past KB_MEASUREMENT_VARIANT_MAX) and as much of the case as fits,
 * then '~' and a tag of the whole case name (docs/cdash-measurements.md), so that the
 * name stays the same from run to run and two cases do not share one. */
void kb_measurement_prefix(const char *case_name, const char *variant, char *out, size_t size) {
    enum { PREFIX_MAX = KB_MEASUREMENT_NAME_MAX - 1 - KB_MEASUREMENT_FIGURE_MAX, TAG = 7 };
    char v[KB_MEASUREMENT_VARIANT_MAX + 1];
    if (strlen(variant) > KB_MEASUREMENT_VARIANT_MAX)
        shorten(variant, KB_MEASUREMENT_VARIANT_MAX - TAG, v, sizeof v);
    else
        snprintf(v, sizeof v, "%s", variant);
    if (strlen(case_name) + 1 + strlen(v) <= PREFIX_MAX) {
        snprintf(out, size, "%s.%s", case_name, v);
        return;
    }
    char c[PREFIX_MAX + 1];
    shorten(case_name, PREFIX_MAX - 1 - strlen(v) - TAG, c, sizeof c);
    snprintf(out, size, "%s.%s", c, v);
}

static void measurement(FILE *f, const char *prefix, const char *what, double v) {
    if (!isfinite(v)) return;
    fprintf(f, "<CTestMeasurement type=\"numeric/double\" name=\"%s.%s\">%.9g</CTestMeasurement>\n",
            prefix, what, v);
}

static void text_measurement(FILE *f, const char *prefix, const char *what, const char *text) {
    fprintf(f, "<CTestMeasurement type=\"text/string\" name=\"%s.%s\">%s</CTestMeasurement>\n",
            prefix, what, text);
}

/* CDash plots a figure missing from a build as 0, so every case sends every
 * figure in every run. A relative figure whose reference is missing is taken
 * against the case itself (ratio 1, pct_peak_bw and pct_roof 100, speedup
 * and vs_vendor 1) and its has_<figure> flag says 0; docs/cdash-measurements.md
 * lists each one's name and meaning. */
static void baseline_measurements(FILE *f, const char *p, const kb_case_result *r) {
    /* a baseline from other hardware, or a slowdown timed unlike the
     * baseline, was not compared: its ratio would graph as a step */
    const int compared =
        r->decision.has_base && kb_latency_verdict_compared(r->decision.lat.verdict);
    measurement(f, p, "has_ratio", compared);
    measurement(f, p, "base_ms", compared ? r->decision.base.median_ms : r->measured.stats.median);
    measurement(f, p, "ratio", compared ? r->decision.lat.ratio : 1.0);
    measurement(f, p, "drift", isfinite(r->decision.lat.drift) ? r->decision.lat.drift : 1.0);
    text_measurement(f, p, "timing", kb_timing_name(r->measured.timing));
}

static void ab_measurements(FILE *f, const char *p, const kb_case_result *r) {
    const int paired =
        r->ab.n_pairs > 0 && isfinite(r->ab.decision.ci_lo) && isfinite(r->ab.decision.ci_hi);
    measurement(f, p, "ab_pairs", r->ab.n_pairs);
    measurement(f, p, "ab_ci_lo", paired ? r->ab.decision.ci_lo : 1.0);
    measurement(f, p, "ab_ci_hi", paired ? r->ab.decision.ci_hi : 1.0);
    measurement(f, p, "ab_spread", r->ab.n_pairs > 0 ? r->ab.decision.spread : 0.0);
}

static void bandwidth_measurements(FILE *f, const char *p, const kb_case_result *r) {
    const int calibrated = r->measured.pct_peak_bw >= 0.0;
    measurement(f, p, "gbps", r->measured.gbps);
    measurement(f, p, "gflops", r->measured.gflops);
    measurement(f, p, "has_peak_bw", calibrated);
    measurement(f, p, "pct_peak_bw", calibrated ? r->measured.pct_peak_bw : 100.0);
}

/* The roofline (docs/roofline.md): pct_roof against 100 when there is none,
 * and what bounds the case as text ("none" without a roofline), which
 * CDash shows on the test's page. */
static void roofline_measurements(FILE *f, const char *p, const kb_case_result *r) {
    const int placed = r->measured.pct_roofline >= 0.0;
    measurement(f, p, "has_roof", placed);
    measurement(f, p, "pct_roof", placed ? r->measured.pct_roofline : 100.0);
    text_measurement(f, p, "bound", placed ? r->measured.roofline.bound : "none");
}

static void comparison_measurements(FILE *f, const char *p, const kb_case_result *r) {
    const int compared = r->measured.cmp.with != NULL;
    measurement(f, p, "has_speedup", compared);
    measurement(f, p, "speedup", compared ? r->measured.cmp.speedup : 1.0);
    measurement(f, p, "bytes_saved", compared ? r->measured.cmp.bytes_saved : 0.0);
    const int vendor = r->measured.vendor_speedup >= 0.0;
    measurement(f, p, "has_vendor", vendor);
    measurement(f, p, "vs_vendor", vendor ? r->measured.vendor_speedup : 1.0);
}

/* Power and energy have no neutral value: 0 (which no running device
 * draws) with has_power 0 when the backend gave no reading. */
static void power_measurements(FILE *f, const char *p, const kb_case_result *r) {
    const int b = r->decision.lat.best;
    const int measured = r->measured.power_w[b] > 0.0;
    measurement(f, p, "has_power", measured);
    measurement(f, p, "power_w", measured ? r->measured.power_w[b] : 0.0);
    measurement(f, p, "energy_mj", measured ? r->measured.energy_mj[b] : 0.0);
}

void kb_report_measurements(FILE *f, const kb_report *rep) {
    for (int i = 0; i < rep->n_results; ++i) {
        const kb_case_result *r = &rep->results[i];
        if (r->error || r->skipped) continue;
        char p[KB_MEASUREMENT_NAME_MAX + 1];
        kb_measurement_prefix(r->c->name, r->variant, p, sizeof p);
        measurement(f, p, "median_ms", r->measured.stats.median);
        baseline_measurements(f, p, r);
        ab_measurements(f, p, r);
        measurement(f, p, "rmse", r->measured.acc.rmse);
        bandwidth_measurements(f, p, r);
        roofline_measurements(f, p, r);
        comparison_measurements(f, p, r);
        power_measurements(f, p, r);
    }
}
