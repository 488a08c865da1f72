/* summary.json: the run in one machine-readable file (schema in
 * docs/report.md). Written as the harness's deterministic JSON writer
 * writes (keys sorted, numbers in one fixed format, absent figures as
 * null), one test at a time: a test's object is made, written out and
 * freed before the next. */
#include "jsonout.h"
#include "summary.h"

#include <math.h>
#include <string.h>

static void add_num(cJSON *o, const char *key, double v) {
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static void add_comparison(cJSON *o, const kb_sum_case *c) {
    if (!*c->compare_to) return;
    cJSON_AddStringToObject(o, "compare_to", c->compare_to);
    add_num(o, "speedup", c->speedup);
    add_num(o, "bytes_saved", c->bytes_saved);
}

/* The case's roofline as the result holds it, or null. */
static void add_roofline(cJSON *o, const kb_sum_case *c) {
    if (!isfinite(c->intensity)) {
        cJSON_AddNullToObject(o, "roofline");
        return;
    }
    cJSON *r = cJSON_AddObjectToObject(o, "roofline");
    add_num(r, "intensity", c->intensity);
    add_num(r, "footprint_bytes", c->footprint_bytes);
    cJSON_AddStringToObject(r, "level", c->level);
    cJSON_AddStringToObject(r, "bound", c->bound);
    /* as the result holds them: results written before them have neither */
    if (isfinite(c->write_fraction)) {
        cJSON_AddNumberToObject(r, "write_fraction", c->write_fraction);
        if (*c->pattern)
            cJSON_AddStringToObject(r, "pattern", c->pattern);
        else
            cJSON_AddNullToObject(r, "pattern");
    }
    add_num(r, "roof_gbps", c->roof_gbps);
    add_num(r, "compute_gflops", c->compute_gflops);
    add_num(r, "attainable_gflops", c->attainable_gflops);
}

static cJSON *case_json(const kb_sum_case *c) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "case", c->name);
    cJSON_AddStringToObject(o, "variant", c->variant);
    cJSON_AddBoolToObject(o, "passed", c->passed);
    cJSON_AddStringToObject(o, "verdict", c->verdict);
    add_num(o, "median_ms", c->median_ms);
    add_num(o, "gbps", c->gbps);
    add_num(o, "gflops", c->gflops);
    add_num(o, "pct_peak_bw", c->pct_peak);
    add_num(o, "rmse", c->rmse);
    add_num(o, "ratio", c->ratio);
    add_num(o, "baseline_median_ms", c->base_ms);
    add_num(o, "baseline_rmse", c->base_rmse);
    add_num(o, "tolerance", c->tolerance);
    if (*c->acc_failures) cJSON_AddStringToObject(o, "accuracy_failures", c->acc_failures);
    if (strcmp(c->verdict, "error") == 0 || strcmp(c->verdict, "skipped") == 0)
        cJSON_AddStringToObject(o, c->verdict, c->error);
    add_comparison(o, c);
    add_num(o, "pct_roofline", c->pct_roofline);
    add_num(o, "vendor_speedup", c->vendor_speedup);
    add_roofline(o, c);
    if (isfinite(c->ab_pairs)) {
        add_num(o, "ab_ci_lo", c->ab_lo);
        add_num(o, "ab_ci_hi", c->ab_hi);
        add_num(o, "ab_pairs", c->ab_pairs);
    }
    return o;
}

/* The values of the environment fields on which the run's tests differ. */
static cJSON *differing_env(const kb_sum_run *run, const kb_sum_test *t) {
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < run->n_env; ++k) {
        const char *key = run->env[k].key;
        if (run->env[k].n_values < 2) continue;
        const cJSON *v = kb_sum_env_value(t, key);
        cJSON_AddItemToObject(o, key, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
    }
    return o;
}

static cJSON *test_json(const kb_sum_run *run, const kb_sum_test *t) {
    cJSON *o = cJSON_CreateObject();
    const char *slash = strrchr(t->file, '/');
    cJSON_AddStringToObject(o, "test", t->name);
    cJSON_AddStringToObject(o, "kernel", t->kernel);
    cJSON_AddStringToObject(o, "backend", t->backend);
    cJSON_AddStringToObject(o, "precision", t->precision);
    cJSON_AddStringToObject(o, "status", t->status);
    cJSON_AddStringToObject(o, "verdict", kb_sum_class_name(t->cls));
    cJSON_AddStringToObject(o, "profile", t->profile);
    cJSON_AddStringToObject(o, "case_set", t->case_set);
    cJSON_AddStringToObject(o, "mode", *t->mode ? t->mode : "baseline");
    if (*t->ab_base) cJSON_AddStringToObject(o, "ab_base", t->ab_base);
    cJSON_AddStringToObject(o, "result_file", slash ? slash + 1 : t->file);
    if (*t->error) cJSON_AddStringToObject(o, "error", t->error);
    add_num(o, "latency_tolerance", t->latency_tol);
    cJSON_AddNumberToObject(o, "cases_failed", t->n_failed);
    const kb_sum_case *worst = t->worst >= 0 ? &t->cases[t->worst] : NULL;
    add_num(o, "worst_ratio", worst ? worst->ratio : NAN);
    if (worst) {
        cJSON *w = cJSON_AddObjectToObject(o, "worst_case");
        cJSON_AddStringToObject(w, "case", worst->name);
        cJSON_AddStringToObject(w, "variant", worst->variant);
    } else {
        cJSON_AddNullToObject(o, "worst_case");
    }
    add_num(o, "best_pct_peak_bw", t->best_pct);
    cJSON_AddItemToObject(o, "environment", differing_env(run, t));
    cJSON *cases = cJSON_AddArrayToObject(o, "cases");
    for (int i = 0; i < t->n_cases; ++i) cJSON_AddItemToArray(cases, case_json(&t->cases[i]));
    return o;
}

static cJSON *env_json(const kb_sum_run *run, cJSON **differs) {
    cJSON *o = cJSON_CreateObject();
    *differs = cJSON_CreateArray();
    for (int k = 0; k < run->n_env; ++k) {
        const kb_sum_env *e = &run->env[k];
        if (e->n_values == 1) {
            cJSON_AddItemToObject(o, e->key, cJSON_Duplicate(e->values[0], 1));
            continue;
        }
        cJSON *all = cJSON_AddArrayToObject(o, e->key);
        for (int i = 0; i < e->n_values; ++i)
            cJSON_AddItemToArray(all, cJSON_Duplicate(e->values[i], 1));
        if (e->more) cJSON_AddItemToArray(all, cJSON_CreateString("..."));
        cJSON_AddItemToArray(*differs, cJSON_CreateString(e->key));
    }
    return o;
}

static cJSON *counts_json(const kb_sum_run *run) {
    int regressions = 0, accuracy = 0, errors = 0;
    for (int i = 0; i < run->n_tests; ++i) {
        regressions += run->tests[i].n_regressions;
        accuracy += run->tests[i].n_accuracy;
        errors += run->tests[i].n_errors;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "tests", run->n_tests);
    cJSON_AddNumberToObject(o, "tests_failed", run->n_failed_tests);
    cJSON_AddNumberToObject(o, "cases", run->n_cases);
    cJSON_AddNumberToObject(o, "cases_failed", run->n_failed_cases);
    cJSON_AddNumberToObject(o, "latency_regressions", regressions);
    cJSON_AddNumberToObject(o, "accuracy_failures", accuracy);
    cJSON_AddNumberToObject(o, "errors", errors);
    return o;
}

void kb_sum_json_write(kb_buf *b, const kb_sum_run *run) {
    cJSON *o = cJSON_CreateObject(), *differs;
    cJSON_AddStringToObject(o, "schema", "kbench-summary/1");
    cJSON_AddStringToObject(o, "generated_at", run->generated_at);
    cJSON_AddStringToObject(o, "newest_result_at", run->newest_result_at);
    cJSON_AddStringToObject(o, "results_dir", run->results_dir);
    cJSON_AddItemToObject(o, "counts", counts_json(run));
    add_num(o, "latency_tolerance", run->latency_tol);
    cJSON_AddItemToObject(o, "environment", env_json(run, &differs));
    cJSON_AddItemToObject(o, "environment_differs", differs);
    const char *backends[16];
    cJSON *charts = cJSON_AddArrayToObject(o, "roofline_charts");
    for (int i = 0, n = kb_sum_backends(run, backends, 16); i < n; ++i) {
        char file[300];
        kb_sum_roofline_file(backends[i], file, sizeof file);
        cJSON_AddItemToArray(charts, cJSON_CreateString(file));
    }
    /* "tests" sorts after every other key: written last, one at a time */
    kb_buf_puts(b, "{\n");
    kb_jo_members(b, o, 1);
    cJSON_Delete(o);
    kb_buf_puts(b, "  \"tests\": [\n");
    for (int i = 0; i < run->n_tests && !b->failed; ++i) {
        cJSON *t = test_json(run, &run->tests[i]);
        if (!t) {
            b->failed = 1;
            break;
        }
        kb_buf_puts(b, "    ");
        kb_jo_value(b, t, 2);
        kb_buf_puts(b, i + 1 < run->n_tests ? ",\n" : "\n");
        cJSON_Delete(t);
    }
    kb_buf_puts(b, "  ]\n}\n");
}
