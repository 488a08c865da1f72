/* gbench.json: the run in Google Benchmark's JSON output format, which
 * compare.py (google/benchmark's tools), Bencher (adapter cpp_google) and
 * github-action-benchmark (tool googlecpp) read. One benchmark per case and
 * variant, named <test>/<case>[/<variant>]: the samples of the round its
 * median comes from as repetitions (run_type "iteration", so that
 * compare.py's U test has them), then the mean, median, stddev and cv
 * aggregates, as `--benchmark_repetitions` writes them. Times in
 * microseconds; kbench measures wall time only, so cpu_time repeats
 * real_time. Mapping and choices: docs/report.md. */
#include "jsonutil.h"
#include "jsonw.h"
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Microseconds: kernels take from about one to some 10^5 of them. One unit
 * for every benchmark, since compare.py pairs only rows of equal units. */
#define TIME_UNIT  "us"
#define MS_TO_UNIT 1e3

/* The samples of one case: its best round's, per call. */
typedef struct samples {
    const cJSON *ms; /* the round's samples_ms array, NULL when the result has none */
    double reps;     /* calls per sample */
    int n;
} samples;

/* The round whose median is the case's (the round the gate used), else the
 * first; its samples must be positive finite times. */
static int find_samples(const cJSON *c, double median_ms, samples *s, const char *file,
                        const char *field, kb_err *err) {
    memset(s, 0, sizeof *s);
    const cJSON *rounds, *r;
    if (kb_json_array(c, "rounds", 0, &rounds, file, field, err) != 0) return -1;
    const cJSON *pick = rounds ? rounds->child : NULL;
    int at = 0, i = 0;
    cJSON_ArrayForEach(r, rounds) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "median_ms");
        if (cJSON_IsNumber(m) && m->valuedouble == median_ms) {
            pick = r;
            at = i;
            break;
        }
        ++i;
    }
    if (!pick) return 0;
    char path[96];
    snprintf(path, sizeof path, "%s.rounds[%d]", field, at);
    int64_t reps;
    if (kb_json_array(pick, "samples_ms", 1, &s->ms, file, path, err) != 0 ||
        kb_json_int(pick, "reps", 1, 1, INT64_MAX, &reps, file, path, err) != 0)
        return -1;
    s->reps = (double)reps;
    const cJSON *v;
    cJSON_ArrayForEach(v, s->ms) {
        if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || !isfinite(v->valuedouble))
            return kb_fail(err, "%s: field '%s.samples_ms[%d]': expected a positive time in ms",
                           file, path, s->n);
        s->n++;
    }
    return 0;
}

typedef struct row_ctx {
    const kb_sum_test *t;
    const kb_sum_case *c;
    char run_name[512];
    int family, instance, repetitions;
} row_ctx;

/* The fields every row of a benchmark has. */
static cJSON *row(const row_ctx *x, const char *name, const char *run_type) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "run_name", x->run_name);
    cJSON_AddStringToObject(o, "run_type", run_type);
    cJSON_AddNumberToObject(o, "family_index", x->family);
    cJSON_AddNumberToObject(o, "per_family_instance_index", x->instance);
    cJSON_AddNumberToObject(o, "repetitions", x->repetitions);
    cJSON_AddNumberToObject(o, "threads", 1);
    cJSON_AddStringToObject(o, "time_unit", TIME_UNIT);
    cJSON_AddStringToObject(o, "label", kb_sum_verdict_text(x->c));
    return o;
}

static void add_times(cJSON *o, double value, double iterations) {
    cJSON_AddNumberToObject(o, "iterations", iterations);
    cJSON_AddNumberToObject(o, "real_time", value);
    cJSON_AddNumberToObject(o, "cpu_time", value);
}

/* User counters, as Google Benchmark writes them: extra numeric fields.
 * Rates scale with the row's time (bytes and FLOPs are per call). */
static void add_counters(cJSON *o, const kb_sum_case *c, double ms) {
    double scale = c->median_ms / ms;
    if (isfinite(c->gbps * scale)) cJSON_AddNumberToObject(o, "GB/s", c->gbps * scale);
    if (isfinite(c->gflops * scale)) cJSON_AddNumberToObject(o, "GFLOP/s", c->gflops * scale);
    if (isfinite(c->pct_peak * scale))
        cJSON_AddNumberToObject(o, "pct_peak_bw", c->pct_peak * scale);
    if (isfinite(c->pct_roofline * scale))
        cJSON_AddNumberToObject(o, "pct_roofline", c->pct_roofline * scale);
    if (isfinite(c->rmse)) cJSON_AddNumberToObject(o, "rmse", c->rmse);
    if (isfinite(c->max_abs)) cJSON_AddNumberToObject(o, "max_abs", c->max_abs);
}

/* A case that did not run: Google Benchmark's error row, zero times. */
static void error_row(cJSON *out, const row_ctx *x) {
    cJSON *o = row(x, x->run_name, "iteration");
    char msg[1200];
    snprintf(msg, sizeof msg, "%s: %s", x->c->verdict, x->c->error);
    cJSON_AddNumberToObject(o, "repetition_index", 0);
    cJSON_AddBoolToObject(o, "error_occurred", 1);
    cJSON_AddStringToObject(o, "error_message", msg);
    add_times(o, 0, 0);
    cJSON_AddItemToArray(out, o);
}

static void sample_rows(cJSON *out, const row_ctx *x, const samples *s) {
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, s->ms) {
        cJSON *o = row(x, x->run_name, "iteration");
        cJSON_AddNumberToObject(o, "repetition_index", i++);
        add_times(o, v->valuedouble * MS_TO_UNIT, s->reps);
        add_counters(o, x->c, v->valuedouble);
        cJSON_AddItemToArray(out, o);
    }
}

/* One aggregate row (a time, or the cv as a fraction); none for a figure
 * the result does not report. */
static void aggregate(cJSON *out, const row_ctx *x, const char *agg, double value, int is_time) {
    if (!isfinite(value)) return;
    char name[600];
    snprintf(name, sizeof name, "%s_%s", x->run_name, agg);
    cJSON *o = row(x, name, "aggregate");
    cJSON_AddStringToObject(o, "aggregate_name", agg);
    cJSON_AddStringToObject(o, "aggregate_unit", is_time ? "time" : "percentage");
    add_times(o, is_time ? value * MS_TO_UNIT : value, x->repetitions);
    if (strcmp(agg, "median") == 0) add_counters(o, x->c, x->c->median_ms);
    cJSON_AddItemToArray(out, o);
}

/* The case's own mean, stddev and cv: NAN when absent, else not negative. */
static int case_figures(const cJSON *c, double out[3], const char *file, const char *field,
                        kb_err *err) {
    static const char *const keys[3] = {"mean_ms", "stddev_ms", "cv"};
    for (int k = 0; k < 3; ++k) {
        out[k] = NAN;
        if (kb_json_number(c, keys[k], 0, &out[k], file, field, err) != 0) return -1;
        if (out[k] < 0)
            return kb_fail(err, "%s: field '%s.%s': %g is negative", file, field, keys[k], out[k]);
    }
    return 0;
}

static int case_rows(cJSON *out, row_ctx *x, const cJSON *c, int aggregates_only, kb_err *err) {
    char field[32];
    snprintf(field, sizeof field, "cases[%d]", x->instance);
    if (strcmp(x->c->verdict, "error") == 0 || strcmp(x->c->verdict, "skipped") == 0) {
        x->repetitions = 1;
        error_row(out, x);
        return 0;
    }
    samples s;
    double fig[3];
    if (find_samples(c, x->c->median_ms, &s, x->t->file, field, err) != 0 ||
        case_figures(c, fig, x->t->file, field, err) != 0)
        return -1;
    x->repetitions = s.n > 0 ? s.n : 1;
    if (!aggregates_only) sample_rows(out, x, &s);
    aggregate(out, x, "mean", fig[0], 1);
    aggregate(out, x, "median", x->c->median_ms, 1);
    aggregate(out, x, "stddev", fig[1], 1);
    aggregate(out, x, "cv", fig[2], 0);
    return 0;
}

static int benchmarks(cJSON *out, const kb_sum_run *run, int aggregates_only, kb_err *err) {
    for (int i = 0; i < run->n_tests; ++i) {
        const kb_sum_test *t = &run->tests[i];
        const cJSON *cases = cJSON_GetObjectItemCaseSensitive(t->root, "cases");
        for (int j = 0; j < t->n_cases; ++j) {
            row_ctx x = {.t = t, .c = &t->cases[j], .family = i, .instance = j};
            int def = strcmp(x.c->variant, "default") == 0;
            snprintf(x.run_name, sizeof x.run_name, "%s/%s%s%s", t->name, x.c->name, def ? "" : "/",
                     def ? "" : x.c->variant);
            if (case_rows(out, &x, cJSON_GetArrayItem(cases, j), aggregates_only, err) != 0)
                return -1;
        }
    }
    return 0;
}

/* ---- context ------------------------------------------------------------- */

/* The first test's (by name) value of an environment field. */
static const cJSON *env(const kb_sum_run *run, const char *key) {
    for (int i = 0; i < run->n_tests; ++i) {
        const cJSON *v = kb_sum_env_value(&run->tests[i], key);
        if (v) return v;
    }
    return NULL;
}

static const char *env_text(const kb_sum_run *run, const char *key) {
    const cJSON *v = env(run, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The CPU's hardware id names its L2 and L3 sizes and its clock
 * ("...|L2 512 KiB|L3 32768 KiB|2400 MHz|..."); a GPU's does not. */
static void hardware(cJSON *ctx, const char *id) {
    cJSON *caches = cJSON_AddArrayToObject(ctx, "caches");
    double mhz = 0;
    for (const char *p = id; p && *p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL) {
        int level, end = 0;
        long kib;
        double f;
        if (sscanf(p, "L%d %ld KiB", &level, &kib) == 2 && kib > 0) {
            cJSON *c = cJSON_CreateObject();
            cJSON_AddStringToObject(c, "type", "Unified");
            cJSON_AddNumberToObject(c, "level", level);
            cJSON_AddNumberToObject(c, "size", (double)kib * 1024);
            cJSON_AddNumberToObject(c, "num_sharing", 0);
            cJSON_AddItemToArray(caches, c);
        } else if (sscanf(p, "%lf MHz%n", &f, &end) == 1 && end > 0 && (p[end] == '|' || !p[end]) &&
                   f > 0) {
            mhz = f; /* the whole field is "<clock> MHz" */
        }
    }
    cJSON_AddNumberToObject(ctx, "mhz_per_cpu", mhz);
}

/* "2026-01-31T12:00:00Z" as Google Benchmark writes dates: +00:00. */
static void add_date(cJSON *ctx, const char *utc) {
    char date[48];
    size_t n = strlen(utc);
    snprintf(date, sizeof date, "%.*s+00:00", (int)(n && utc[n - 1] == 'Z' ? n - 1 : n), utc);
    cJSON_AddStringToObject(ctx, "date", date);
}

static cJSON *context(const kb_sum_run *run) {
    cJSON *ctx = cJSON_CreateObject();
    add_date(ctx, *run->newest_result_at ? run->newest_result_at : run->generated_at);
    cJSON_AddStringToObject(ctx, "host_name", env_text(run, "hostname"));
    cJSON_AddStringToObject(ctx, "executable", run->results_dir);
    const cJSON *ncpu = env(run, "cpu_count");
    cJSON_AddNumberToObject(ctx, "num_cpus", cJSON_IsNumber(ncpu) ? ncpu->valuedouble : 0);
    hardware(ctx, env_text(run, "hardware_id"));
    const char *build = env_text(run, "build_type");
    cJSON_AddStringToObject(ctx, "library_build_type",
                            strcmp(build, "Debug") == 0 ? "debug" : "release");
    cJSON_AddNumberToObject(ctx, "json_schema_version", 1);
    cJSON_AddStringToObject(ctx, "kbench_profile", env_text(run, "profile"));
    cJSON_AddStringToObject(ctx, "kbench_commit", env_text(run, "git_commit"));
    cJSON_AddStringToObject(ctx, "kbench_build_type", build);
    return ctx;
}

int kb_sum_gbench_text(const kb_sum_run *run, int aggregates_only, char **text, kb_err *err) {
    *text = NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "context", context(run));
    cJSON *list = cJSON_AddArrayToObject(root, "benchmarks");
    int rc = benchmarks(list, run, aggregates_only, err);
    if (rc == 0 && !(*text = kb_json_print(root))) rc = kb_fail(err, "out of memory");
    cJSON_Delete(root);
    return rc;
}
