/* kb_report_measurements: the CTest measurements CDash graphs. CDash plots a
 * figure missing from a build as 0, so every case that ran must send the same
 * set of figures in every run, with a neutral value and a 0 flag where the
 * figure's reference (baseline, calibration, compared variant, power
 * reading) is missing. */
#include "kb_test.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* Every figure a case that ran sends, whatever the run could measure. */
static const char *const kb_figures[] = {
    "median_ms",
    "ratio_available",
    "baseline_ms",
    "ratio",
    "machine_drift",
    "ab_pairs",
    "ab_ci_lo",
    "ab_ci_hi",
    "ab_spread",
    "rmse",
    "gbps",
    "gflops",
    "pct_peak_bw_available",
    "pct_peak_bw",
    "pct_roofline_available",
    "pct_roofline",
    "speedup_available",
    "speedup",
    "bytes_saved",
    "vendor_speedup_available",
    "vendor_speedup",
    "power_available",
    "power_w",
    "energy_mj",
};
enum { KB_N_FIGURES = sizeof kb_figures / sizeof kb_figures[0] };

static kb_case test_case = {.name = "n16"};

/* A case that ran with nothing to compare with: no baseline, no
 * calibration, no compared variant, no power reading, not A/B mode. */
static kb_case_result *bare_result(void) {
    kb_case_result *r = calloc(1, sizeof *r);
    r->c = &test_case;
    strcpy(r->variant, "default");
    r->stats.median = 0.25;
    r->lat.verdict = KB_LAT_NO_BASELINE;
    r->lat.drift = 1.0;
    r->acc.rmse = 1e-7;
    r->gbps = 40.0;
    r->gflops = 3.0;
    r->pct_peak_bw = -1.0;
    r->pct_roofline = -1.0;
    r->vendor_speedup = -1.0;
    return r;
}

/* kb_report_measurements' output for one result; the caller frees it. */
static char *measurements_of(kb_case_result *r) {
    kb_report rep = {.test_name = "t.cpu.fp32", .results = r, .n_results = 1};
    FILE *f = tmpfile();
    kb_report_measurements(f, &rep);
    long n = ftell(f);
    char *out = calloc(1, (size_t)n + 1);
    rewind(f);
    if (fread(out, 1, (size_t)n, f) != (size_t)n) out[0] = '\0';
    fclose(f);
    return out;
}

/* How many times n16.default.<figure> was sent; its last value in *v. */
static int count_figure(const char *out, const char *figure, double *v) {
    char key[128];
    snprintf(key, sizeof key, "name=\"n16.default.%s\">", figure);
    int n = 0;
    for (const char *at = strstr(out, key); at; at = strstr(at + 1, key)) {
        *v = strtod(at + strlen(key), NULL);
        ++n;
    }
    return n;
}

static double figure(const char *out, const char *name) {
    double v = -12345.0;
    if (count_figure(out, name, &v) != 1) KB_TEST_FAIL("%s not sent exactly once:\n%s", name, out);
    return v;
}

/* The text of n16.default.<name> (a text/string measurement); "" when it
 * is not sent exactly once. */
static const char *text_figure(const char *out, const char *name, char *buf, size_t size) {
    char key[128];
    snprintf(key, sizeof key, "type=\"text/string\" name=\"n16.default.%s\">", name);
    const char *at = strstr(out, key);
    buf[0] = '\0';
    if (!at || strstr(at + 1, key)) return buf;
    at += strlen(key);
    size_t len = strcspn(at, "<");
    snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), at);
    return buf;
}

static void assert_every_figure_once(const char *out) {
    double v;
    for (int i = 0; i < KB_N_FIGURES; ++i)
        if (count_figure(out, kb_figures[i], &v) != 1)
            KB_TEST_FAIL("%s not sent exactly once:\n%s", kb_figures[i], out);
    int tags = 0;
    for (const char *at = strstr(out, "<CTestMeasurement "); at;
         at = strstr(at + 1, "<CTestMeasurement "))
        ++tags;
    char text[32];
    ASSERT(text_figure(out, "bound", text, sizeof text)[0] != '\0');
    ASSERT(text_figure(out, "timing", text, sizeof text)[0] != '\0');
    ASSERT_INT_EQ(tags, KB_N_FIGURES + 2); /* and the bound and the timing, as text */
}

static void test_nothing_to_compare_sends_neutral_values(void) {
    kb_case_result *r = bare_result();
    char *out = measurements_of(r);
    assert_every_figure_once(out);
    ASSERT_NEAR(figure(out, "ratio_available"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "ratio"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "baseline_ms"), 0.25, 0.0);
    ASSERT_NEAR(figure(out, "machine_drift"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "ab_pairs"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "ab_ci_lo"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "ab_ci_hi"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "ab_spread"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "pct_peak_bw_available"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "pct_peak_bw"), 100.0, 0.0);
    ASSERT_NEAR(figure(out, "pct_roofline_available"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "pct_roofline"), 100.0, 0.0);
    char bound[32];
    ASSERT(strcmp(text_figure(out, "bound", bound, sizeof bound), "none") == 0);
    ASSERT_NEAR(figure(out, "vendor_speedup_available"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "vendor_speedup"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "speedup_available"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "speedup"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "bytes_saved"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "power_available"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "power_w"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "energy_mj"), 0.0, 0.0);
    free(out);
    free(r);
}

static void test_measured_figures_pass_through(void) {
    kb_case_result *r = bare_result();
    r->has_base = 1;
    r->base.median_ms = 0.2;
    r->lat.verdict = KB_LAT_OK;
    r->lat.ratio = 1.25;
    r->lat.drift = 1.1;
    r->lat.best = 1;
    r->ab.n_pairs = 7;
    r->ab.decision.ci_lo = 0.97;
    r->ab.decision.ci_hi = 1.04;
    r->ab.decision.spread = 0.021;
    r->pct_peak_bw = 63.5;
    r->pct_roofline = 81.5;
    r->roofline.present = 1;
    snprintf(r->roofline.bound, sizeof r->roofline.bound, "L2");
    r->vendor_speedup = 0.7;
    r->cmp.with = "unfused";
    r->cmp.speedup = 1.8;
    r->cmp.bytes_saved = 0.4;
    r->power_w[1] = 210.0;
    r->energy_mj[1] = 52.5;
    r->timing = KB_TIMING_HELD;
    char *out = measurements_of(r);
    assert_every_figure_once(out);
    ASSERT_NEAR(figure(out, "ratio_available"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "ratio"), 1.25, 1e-9);
    ASSERT_NEAR(figure(out, "baseline_ms"), 0.2, 1e-9);
    ASSERT_NEAR(figure(out, "machine_drift"), 1.1, 1e-9);
    ASSERT_NEAR(figure(out, "ab_pairs"), 7.0, 0.0);
    ASSERT_NEAR(figure(out, "ab_ci_lo"), 0.97, 1e-9);
    ASSERT_NEAR(figure(out, "ab_ci_hi"), 1.04, 1e-9);
    ASSERT_NEAR(figure(out, "ab_spread"), 0.021, 1e-9);
    ASSERT_NEAR(figure(out, "pct_peak_bw_available"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "pct_peak_bw"), 63.5, 1e-9);
    ASSERT_NEAR(figure(out, "pct_roofline_available"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "pct_roofline"), 81.5, 1e-9);
    char bound[32];
    ASSERT(strcmp(text_figure(out, "bound", bound, sizeof bound), "L2") == 0);
    ASSERT(strcmp(text_figure(out, "timing", bound, sizeof bound), "held") == 0);
    ASSERT_NEAR(figure(out, "vendor_speedup_available"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "vendor_speedup"), 0.7, 1e-9);
    ASSERT_NEAR(figure(out, "speedup_available"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "speedup"), 1.8, 1e-9);
    ASSERT_NEAR(figure(out, "bytes_saved"), 0.4, 1e-9);
    ASSERT_NEAR(figure(out, "power_available"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "power_w"), 210.0, 1e-9);
    ASSERT_NEAR(figure(out, "energy_mj"), 52.5, 1e-9);
    free(out);
    free(r);
}

/* Recording a new baseline compares with nothing: no ratio, as without one. */
static void test_recording_sends_no_ratio(void) {
    kb_case_result *r = bare_result();
    r->has_base = 1;
    r->base.median_ms = 0.5;
    r->lat.verdict = KB_LAT_RECORDED;
    r->lat.ratio = 0.5;
    char *out = measurements_of(r);
    assert_every_figure_once(out);
    ASSERT_NEAR(figure(out, "ratio_available"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "ratio"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "baseline_ms"), 0.25, 0.0);
    free(out);
    free(r);
}

/* A baseline from other hardware, or a slowdown timed unlike the baseline,
 * was not compared: no ratio, which would graph as a step. */
static void test_uncompared_baselines_send_no_ratio(void) {
    const kb_latency_verdict verdicts[] = {KB_LAT_OTHER_HARDWARE, KB_LAT_OTHER_TIMING};
    for (int i = 0; i < 2; ++i) {
        kb_case_result *r = bare_result();
        r->has_base = 1;
        r->base.median_ms = 0.05;
        r->lat.verdict = verdicts[i];
        r->lat.ratio = 5.0;
        char *out = measurements_of(r);
        ASSERT_NEAR(figure(out, "ratio_available"), 0.0, 0.0);
        ASSERT_NEAR(figure(out, "ratio"), 1.0, 0.0);
        free(out);
        free(r);
    }
}

static void test_cases_that_did_not_run_send_nothing(void) {
    kb_case_result *r = bare_result();
    r->skipped = 1;
    char *out = measurements_of(r);
    ASSERT(strstr(out, "CTestMeasurement") == NULL);
    free(out);
    r->skipped = 0;
    r->error = 1;
    out = measurements_of(r);
    ASSERT(strstr(out, "CTestMeasurement") == NULL);
    free(out);
    free(r);
}

int main(void) {
    RUN_TEST(test_nothing_to_compare_sends_neutral_values);
    RUN_TEST(test_measured_figures_pass_through);
    RUN_TEST(test_recording_sends_no_ratio);
    RUN_TEST(test_uncompared_baselines_send_no_ratio);
    RUN_TEST(test_cases_that_did_not_run_send_nothing);
    return kb_test_summary();
}
