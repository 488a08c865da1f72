/* kb_report_measurements: the CTest measurements CDash graphs. CDash plots a
 * figure missing from a build as 0, so every case that ran must send the same
 * set of figures in every run, with a neutral value and a 0 flag where the
 * figure's reference (baseline, calibration, compared variant, power
 * reading) is missing. CDash 2.6 keeps 40 characters of a name, so no name
 * made for any case of the committed kernels may be longer, and two may not
 * be the same. */
#include "formats/manifest.h"
#include "kb_test.h"
#include "output/report.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* Every figure a case that ran sends, whatever the run could measure. */
static const char *const kb_figures[] = {
    "median_ms",   "has_ratio",   "base_ms",   "ratio",     "drift",       "ab_pairs",
    "ab_ci_lo",    "ab_ci_hi",    "ab_spread", "rmse",      "gbps",        "gflops",
    "has_peak_bw", "pct_peak_bw", "has_roof",  "pct_roof",  "has_speedup", "speedup",
    "bytes_saved", "has_vendor",  "vs_vendor", "has_power", "power_w",     "energy_mj",
};
enum { KB_N_FIGURES = sizeof kb_figures / sizeof kb_figures[0] };

static kb_case test_case = {.name = "n16"};

/* A case that ran with nothing to compare with: no baseline, no
 * calibration, no compared variant, no power reading, not A/B mode. */
static kb_case_result *bare_result(void) {
    kb_case_result *r = calloc(1, sizeof *r);
    r->c = &test_case;
    strcpy(r->variant, "default");
    r->measured.stats.median = 0.25;
    r->decision.lat.verdict = KB_LAT_NO_BASELINE;
    r->decision.lat.drift = 1.0;
    r->measured.acc.rmse = 1e-7;
    r->measured.gbps = 40.0;
    r->measured.gflops = 3.0;
    r->measured.pct_peak_bw = -1.0;
    r->measured.pct_roofline = -1.0;
    r->measured.vendor_speedup = -1.0;
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
    ASSERT_NEAR(figure(out, "has_ratio"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "ratio"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "base_ms"), 0.25, 0.0);
    ASSERT_NEAR(figure(out, "drift"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "ab_pairs"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "ab_ci_lo"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "ab_ci_hi"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "ab_spread"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "has_peak_bw"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "pct_peak_bw"), 100.0, 0.0);
    ASSERT_NEAR(figure(out, "has_roof"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "pct_roof"), 100.0, 0.0);
    char bound[32];
    ASSERT(strcmp(text_figure(out, "bound", bound, sizeof bound), "none") == 0);
    ASSERT_NEAR(figure(out, "has_vendor"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "vs_vendor"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "has_speedup"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "speedup"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "bytes_saved"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "has_power"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "power_w"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "energy_mj"), 0.0, 0.0);
    free(out);
    free(r);
}

static void test_measured_figures_pass_through(void) {
    kb_case_result *r = bare_result();
    r->decision.has_base = 1;
    r->decision.base.median_ms = 0.2;
    r->decision.lat.verdict = KB_LAT_OK;
    r->decision.lat.ratio = 1.25;
    r->decision.lat.drift = 1.1;
    r->decision.lat.best = 1;
    r->ab.n_pairs = 7;
    r->ab.decision.ci_lo = 0.97;
    r->ab.decision.ci_hi = 1.04;
    r->ab.decision.spread = 0.021;
    r->measured.pct_peak_bw = 63.5;
    r->measured.pct_roofline = 81.5;
    r->measured.roofline.present = 1;
    snprintf(r->measured.roofline.bound, sizeof r->measured.roofline.bound, "L2");
    r->measured.vendor_speedup = 0.7;
    r->measured.cmp.with = "unfused";
    r->measured.cmp.speedup = 1.8;
    r->measured.cmp.bytes_saved = 0.4;
    r->measured.power_w[1] = 210.0;
    r->measured.energy_mj[1] = 52.5;
    r->measured.timing = KB_TIMING_HELD;
    char *out = measurements_of(r);
    assert_every_figure_once(out);
    ASSERT_NEAR(figure(out, "has_ratio"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "ratio"), 1.25, 1e-9);
    ASSERT_NEAR(figure(out, "base_ms"), 0.2, 1e-9);
    ASSERT_NEAR(figure(out, "drift"), 1.1, 1e-9);
    ASSERT_NEAR(figure(out, "ab_pairs"), 7.0, 0.0);
    ASSERT_NEAR(figure(out, "ab_ci_lo"), 0.97, 1e-9);
    ASSERT_NEAR(figure(out, "ab_ci_hi"), 1.04, 1e-9);
    ASSERT_NEAR(figure(out, "ab_spread"), 0.021, 1e-9);
    ASSERT_NEAR(figure(out, "has_peak_bw"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "pct_peak_bw"), 63.5, 1e-9);
    ASSERT_NEAR(figure(out, "has_roof"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "pct_roof"), 81.5, 1e-9);
    char bound[32];
    ASSERT(strcmp(text_figure(out, "bound", bound, sizeof bound), "L2") == 0);
    ASSERT(strcmp(text_figure(out, "timing", bound, sizeof bound), "held") == 0);
    ASSERT_NEAR(figure(out, "has_vendor"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "vs_vendor"), 0.7, 1e-9);
    ASSERT_NEAR(figure(out, "has_speedup"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "speedup"), 1.8, 1e-9);
    ASSERT_NEAR(figure(out, "bytes_saved"), 0.4, 1e-9);
    ASSERT_NEAR(figure(out, "has_power"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "power_w"), 210.0, 1e-9);
    ASSERT_NEAR(figure(out, "energy_mj"), 52.5, 1e-9);
    free(out);
    free(r);
}

/* Recording a new baseline compares with nothing: no ratio, as without one. */
static void test_recording_sends_no_ratio(void) {
    kb_case_result *r = bare_result();
    r->decision.has_base = 1;
    r->decision.base.median_ms = 0.5;
    r->decision.lat.verdict = KB_LAT_RECORDED;
    r->decision.lat.ratio = 0.5;
    char *out = measurements_of(r);
    assert_every_figure_once(out);
    ASSERT_NEAR(figure(out, "has_ratio"), 0.0, 0.0);
    ASSERT_NEAR(figure(out, "ratio"), 1.0, 0.0);
    ASSERT_NEAR(figure(out, "base_ms"), 0.25, 0.0);
    free(out);
    free(r);
}

/* A baseline from other hardware, or a slowdown timed unlike the baseline,
 * was not compared: no ratio, which would graph as a step. */
static void test_uncompared_baselines_send_no_ratio(void) {
    const kb_latency_verdict verdicts[] = {KB_LAT_OTHER_HARDWARE, KB_LAT_OTHER_TIMING};
    for (int i = 0; i < 2; ++i) {
        kb_case_result *r = bare_result();
        r->decision.has_base = 1;
        r->decision.base.median_ms = 0.05;
        r->decision.lat.verdict = verdicts[i];
        r->decision.lat.ratio = 5.0;
        char *out = measurements_of(r);
        ASSERT_NEAR(figure(out, "has_ratio"), 0.0, 0.0);
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

/* Appends every name="..." of out to names (room for max); their count. */
static int names_in(const char *out, char (*names)[96], int max) {
    int n = 0;
    for (const char *at = strstr(out, "name=\""); at && n < max; at = strstr(at + 1, "name=\"")) {
        at += strlen("name=\"");
        size_t len = strcspn(at, "\"");
        snprintf(names[n++], 96, "%.*s", (int)len, at);
    }
    return n;
}

static int by_text(const void *a, const void *b) {
    return strcmp(a, b);
}

/* The shortened names keep the start of the case, the whole variant and a
 * tag of the case name (FNV-1a, low 24 bits: docs/cdash-measurements.md), so they are the
 * same in every run and differ between cases that start alike. */
static void test_long_names_are_shortened_stably(void) {
    for (int i = 0; i < KB_N_FIGURES; ++i)
        if (strlen(kb_figures[i]) > KB_MEASUREMENT_FIGURE_MAX)
            KB_TEST_FAIL("figure '%s' is longer than %d", kb_figures[i], KB_MEASUREMENT_FIGURE_MAX);
    char p[64], again[64], other[64];
    kb_measurement_prefix("n16", "default", p, sizeof p);
    ASSERT(strcmp(p, "n16.default") == 0);
    kb_measurement_prefix("t256_i512_o512_relu", "unfused", p, sizeof p);
    ASSERT(strcmp(p, "t256_i512_o512_relu.unfused") == 0); /* 27 + ".has_vendor": 38 */
    kb_measurement_prefix("batch128_seq2048_hidden256", "default", p, sizeof p);
    ASSERT(strcmp(p, "batch128_seq2~67e994.default") == 0);
    ASSERT_INT_EQ(strlen(p), KB_MEASUREMENT_NAME_MAX - 1 - KB_MEASUREMENT_FIGURE_MAX);
    kb_measurement_prefix("batch128_seq2048_hidden256", "default", again, sizeof again);
    ASSERT(strcmp(p, again) == 0);
    kb_measurement_prefix("batch128_seq2048_hidden64", "default", other, sizeof other);
    ASSERT(strcmp(other, "batch128_seq2~2f68e9.default") == 0);
    kb_measurement_prefix("batch128_seq2048_hidden256", "default+cold", p, sizeof p);
    ASSERT(strcmp(p, "batch128~67e994.default+cold") == 0);
    /* a variant past KB_MEASUREMENT_VARIANT_MAX is shortened too */
    kb_measurement_prefix("n16", "a_very_long_variant_name", p, sizeof p);
    ASSERT(strncmp(p, "n16.a_ver~", 10) == 0);
    ASSERT_INT_EQ(strlen(p), 4 + KB_MEASUREMENT_VARIANT_MAX);
}

/* kernels/ of this source tree: KB_KERNELS_DIR, else found from where this
 * file was compiled (the test runs from the build tree). */
static const char *kernels_dir(char *buf, size_t size) {
    const char *env = getenv("KB_KERNELS_DIR");
    if (env && *env) return env;
    const char *tests = strstr(__FILE__, "benchtests/tests/test_measurements.c");
    if (!tests) return NULL;
    snprintf(buf, size, "%.*skernels", (int)(tests - __FILE__), __FILE__);
    return buf;
}

/* The names sent for every case (default and full sets, sweeps expanded)
 * of one manifest, by every variant, also in cold-cache mode ("+cold"):
 * none longer than KB_MEASUREMENT_NAME_MAX, none twice. Returns how many. */
static int check_manifest_names(const kb_manifest *m) {
    const int n_variants = m->n_variants ? m->n_variants : 1;
    const int max = m->n_cases * n_variants * 2 * (KB_N_FIGURES + 2);
    char(*names)[96] = calloc((size_t)max, sizeof *names);
    int n = 0;
    const char *const modes[] = {"", "+cold"};
    for (int c = 0; c < m->n_cases; ++c)
        for (int v = 0; v < n_variants; ++v)
            for (int mode = 0; mode < 2; ++mode) {
                kb_case_result *r = bare_result();
                r->c = &m->cases[c];
                snprintf(r->variant, sizeof r->variant, "%s%s",
                         m->n_variants ? m->variants[v].name : "default", modes[mode]);
                char *out = measurements_of(r);
                n += names_in(out, names + n, max - n);
                free(out);
                free(r);
            }
    ASSERT_INT_EQ(n, max); /* every case sent every figure */
    for (int i = 0; i < n; ++i)
        if (strlen(names[i]) > KB_MEASUREMENT_NAME_MAX)
            KB_TEST_FAIL("%s: '%s' has %zu characters, more than %d", m->path, names[i],
                         strlen(names[i]), KB_MEASUREMENT_NAME_MAX);
    qsort(names, (size_t)n, sizeof *names, by_text);
    for (int i = 1; i < n; ++i)
        if (strcmp(names[i], names[i - 1]) == 0)
            KB_TEST_FAIL("%s: two figures are both named '%s'", m->path, names[i]);
    free(names);
    return n;
}

static void test_committed_kernels_names_fit_cdash(void) {
    char buf[KB_PATH_MAX];
    const char *dir = kernels_dir(buf, sizeof buf);
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) {
        KB_TEST_FAIL("cannot read the kernels directory '%s' (set KB_KERNELS_DIR)",
                     dir ? dir : "(unknown)");
        return;
    }
    static char kernels[256][256];
    int n_kernels = 0;
    for (struct dirent *e = readdir(d); e && n_kernels < 256; e = readdir(d))
        if (e->d_name[0] != '.') snprintf(kernels[n_kernels++], sizeof kernels[0], "%s", e->d_name);
    closedir(d);
    qsort(kernels, (size_t)n_kernels, sizeof kernels[0], by_text);
    int manifests = 0, names = 0;
    kb_manifest *m = malloc(sizeof *m);
    for (int i = 0; i < n_kernels; ++i) {
        char path[KB_PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%.255s/kernel.json", dir, kernels[i]) >=
            (int)sizeof path) {
            KB_TEST_FAIL("%s/%s: path too long", dir, kernels[i]);
            continue;
        }
        FILE *probe = fopen(path, "r");
        if (!probe) continue;
        fclose(probe);
        kb_err err = {0};
        if (kb_manifest_load(m, path, &err) != 0) {
            KB_TEST_FAIL("%s", err.msg);
            continue;
        }
        names += check_manifest_names(m);
        ++manifests;
    }
    free(m);
    printf("checked the %d measurement names of %d kernels under %s\n", names, manifests, dir);
    ASSERT(manifests > 0);
}

int main(void) {
    RUN_TEST(test_nothing_to_compare_sends_neutral_values);
    RUN_TEST(test_measured_figures_pass_through);
    RUN_TEST(test_recording_sends_no_ratio);
    RUN_TEST(test_uncompared_baselines_send_no_ratio);
    RUN_TEST(test_cases_that_did_not_run_send_nothing);
    RUN_TEST(test_long_names_are_shortened_stably);
    RUN_TEST(test_committed_kernels_names_fit_cdash);
    return kb_test_summary();
}
