/* The figures derived from the results: per test its failures, worst ratio,
 * best % of peak and class; for the run its counts, the order failures
 * first, the shared tolerance and the environment the tests agree on. */
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is(const char *s, const char *word) {
    return strcmp(s, word) == 0;
}

/* The case's latency verdict; -1 for the load's own words "error" and
 * "skipped" (a case that got no verdict). */
static int verdict_of(const kb_sum_case *c, kb_latency_verdict *v) {
    return kb_latency_verdict_parse(c->verdict, v);
}

int kb_sum_verdict_is(const kb_sum_case *c, kb_latency_verdict want) {
    kb_latency_verdict v;
    return verdict_of(c, &v) == 0 && v == want;
}

int kb_sum_has_ratio(const kb_sum_case *c) {
    return isfinite(c->ratio) && !kb_sum_verdict_is(c, KB_LAT_RECORDED);
}

double kb_sum_case_tolerance(const kb_sum_test *t, const kb_sum_case *c) {
    return isfinite(c->tolerance) ? c->tolerance : t->latency_tol;
}

int kb_sum_coarse(const kb_sum_test *t, const kb_sum_case *c) {
    return isfinite(c->tolerance) && c->tolerance > t->latency_tol;
}

const char *kb_sum_class_name(kb_sum_class c) {
    static const char *const names[] = {"failed", "ok", "not_gated", "no_baseline"};
    return names[c];
}

const char *kb_sum_verdict_text(const kb_sum_case *c) {
    kb_latency_verdict v;
    const int known = verdict_of(c, &v) == 0;
    if (*c->acc_failures)
        return known && kb_latency_verdict_fails(v) ? KB_VERDICT_TEXT_ACCURACY " + latency"
                                                    : KB_VERDICT_TEXT_ACCURACY;
    if (is(c->verdict, "error")) return KB_VERDICT_TEXT_ERROR;
    if (known && kb_latency_verdict_fails(v)) return kb_latency_verdict_text(v);
    /* failed for a reason the result does not name */
    if (!c->passed) return "FAILED";
    if (!known) return KB_VERDICT_TEXT_SKIPPED;
    return kb_latency_verdict_text(v);
}

/* A verdict that leaves the case's latency ungated or unconfirmed. */
static int not_gated(const kb_sum_case *c) {
    kb_latency_verdict v;
    if (verdict_of(c, &v) == 0) return !kb_latency_verdict_gated(v);
    return is(c->verdict, "skipped");
}

static void digest_test(kb_sum_test *t) {
    int gated_all = 1;
    t->worst = -1;
    t->best_pct = NAN;
    for (int i = 0; i < t->n_cases; ++i) {
        const kb_sum_case *c = &t->cases[i];
        t->n_failed += !c->passed;
        t->n_regressions += kb_sum_verdict_is(c, KB_LAT_REGRESSION);
        t->n_accuracy += *c->acc_failures != '\0';
        t->n_errors += is(c->verdict, "error");
        gated_all &= !not_gated(c);
        if (kb_sum_has_ratio(c) && (t->worst < 0 || c->ratio > t->cases[t->worst].ratio))
            t->worst = i;
        if (isfinite(c->pct_peak) && !(c->pct_peak <= t->best_pct)) t->best_pct = c->pct_peak;
    }
    if (t->n_failed || !is(t->status, "passed"))
        t->cls = KB_SUM_FAILED;
    else if (t->worst < 0)
        t->cls = KB_SUM_NO_BASELINE;
    else
        t->cls = gated_all ? KB_SUM_OK : KB_SUM_NOT_GATED;
}

/* The environment fields the report compares across tests, in its order,
 * with their names in summary.md. */
static const struct {
    const char *key, *label;
} env_fields[KB_SUM_ENV_FIELDS] = {
    {"hostname", "host"},
    {"os", "OS"},
    {"kernel", "OS kernel"},
    {"arch", "architecture"},
    {"cpu_model", "CPU"},
    {"cpu_count", "CPUs"},
    {"device", "device"},
    {"hardware_id", "hardware id"},
    {"compiler", "compiler"},
    {"build_type", "build type"},
    {"c_flags", "flags"},
    {"git_commit", "commit"},
    {"git_dirty", "uncommitted changes"},
    {"kbench_version", "kbench"},
    {"profile", "profile"},
    {"libraries", "libraries"},
    {"driver_version", "GPU driver"},
    {"runtime_version", "GPU runtime"},
};

const cJSON *kb_sum_env_value(const kb_sum_test *t, const char *key) {
    /* the profile is the result's own field (the environment repeats it) */
    if (is(key, "profile")) return cJSON_GetObjectItemCaseSensitive(t->root, "profile");
    return cJSON_GetObjectItemCaseSensitive(t->env, key);
}

static void add_value(kb_sum_env *e, const cJSON *v) {
    for (int i = 0; i < e->n_values; ++i)
        if (cJSON_Compare(e->values[i], v, 1)) return;
    if (e->n_values < (int)(sizeof e->values / sizeof *e->values))
        e->values[e->n_values++] = v;
    else
        e->more = 1;
}

static void digest_env(kb_sum_run *run) {
    for (int k = 0; k < KB_SUM_ENV_FIELDS; ++k) {
        kb_sum_env *e = &run->env[run->n_env];
        memset(e, 0, sizeof *e);
        e->key = env_fields[k].key;
        e->label = env_fields[k].label;
        for (int i = 0; i < run->n_tests; ++i) {
            const cJSON *v = kb_sum_env_value(&run->tests[i], e->key);
            if (v) add_value(e, v);
        }
        run->n_env += e->n_values > 0;
    }
}

/* Whether git tracks test i's baseline file: asked once per file (a
 * kernel's precisions share one). */
static int baseline_tracked(const kb_sum_run *run, int i) {
    const kb_sum_test *t = &run->tests[i];
    if (strcmp(t->mode, "ab") == 0 || !*t->baseline_file) return -1;
    for (int j = 0; j < i; ++j)
        if (strcmp(run->tests[j].mode, "ab") != 0 &&
            strcmp(run->tests[j].baseline_file, t->baseline_file) == 0)
            return run->tests[j].baseline_tracked;
    return kb_sum_git_tracked(t->baseline_file);
}

void kb_sum_doc(const kb_sum_run *run, const char *page, char *out, size_t size) {
    if (run->docs_dir && *run->docs_dir)
        snprintf(out, size, "%s/%s", run->docs_dir, page);
    else
        snprintf(out, size, "kbench's docs/%s", page);
}

int kb_sum_digest(kb_sum_run *run, kb_err *err) {
    run->order = malloc((size_t)run->n_tests * sizeof *run->order);
    if (!run->order) return kb_fail(err, "out of memory");
    run->latency_tol = run->tests[0].latency_tol;
    for (int i = 0; i < run->n_tests; ++i) {
        kb_sum_test *t = &run->tests[i];
        digest_test(t);
        t->baseline_tracked = baseline_tracked(run, i);
        if (!run->docs_dir || !*run->docs_dir) run->docs_dir = t->docs_dir;
        run->n_cases += t->n_cases;
        run->n_failed_cases += t->n_failed;
        run->n_failed_tests += t->cls == KB_SUM_FAILED;
        if (t->latency_tol != run->latency_tol) run->latency_tol = NAN;
    }
    int n = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < run->n_tests; ++i)
            if ((run->tests[i].cls == KB_SUM_FAILED) == (pass == 0)) run->order[n++] = i;
    digest_env(run);
    return 0;
}
