/* gbench.json: the run in Google Benchmark's JSON output format, which
 * compare.py (google/benchmark's tools), Bencher (adapter cpp_google) and
 * github-action-benchmark (tool googlecpp) read. One benchmark per case and
 * variant, named <test>/<case>[/<variant>]: the samples of the round its
 * median comes from as repetitions (run_type "iteration", so that
 * compare.py's U test has them), then the mean, median, stddev and cv
 * aggregates, as `--benchmark_repetitions` writes them. Times in
 * microseconds; kbench measures wall time only, so cpu_time repeats
 * real_time. Written row by row as it is made, each row on one line (the
 * samples come back from the run's spool), so that its memory does not
 * grow with the run. Mapping and choices: docs/gbench.md. */
#include "buf.h"
#include "formats/json_write.h"
#include "jsonout.h"
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Microseconds: kernels take from about one to some 10^5 of them. One unit
 * for every benchmark, since compare.py pairs only rows of equal units. */
#define TIME_UNIT  "us"
#define MS_TO_UNIT 1e3
#define NOTES_MAX  10 /* cases without samples named on `notes`; the rest counted */

typedef struct row_ctx {
    kb_buf *b;
    const kb_sum_test *t;
    const kb_sum_case *c;
    char run_name[512];
    int family, instance, repetitions, rows;
} row_ctx;

/* ", "<name>": " before a field's value. */
static void key(kb_buf *b, const char *name) {
    kb_buf_puts(b, ", \"");
    kb_buf_puts(b, name);
    kb_buf_puts(b, "\": ");
}

static void field_text(kb_buf *b, const char *name, const char *value) {
    key(b, name);
    kb_jo_string(b, value);
}

static void field_num(kb_buf *b, const char *name, double value) {
    key(b, name);
    kb_jo_number(b, value);
}

/* Between rows. */
static void separate(row_ctx *x) {
    kb_buf_puts(x->b, x->rows++ ? ",\n    " : "    ");
}

/* A row's start, with the fields every row of a benchmark has, in Google
 * Benchmark's order; the caller adds the rest and ends it (end_row). */
static void begin_row(row_ctx *x, const char *name, const char *run_type) {
    kb_buf *b = x->b;
    kb_buf_puts(b, "{\"name\": ");
    kb_jo_string(b, name);
    field_num(b, "family_index", x->family);
    field_num(b, "per_family_instance_index", x->instance);
    field_text(b, "run_name", x->run_name);
    field_text(b, "run_type", run_type);
    field_num(b, "repetitions", x->repetitions);
}

static void times(kb_buf *b, double value, double iterations) {
    field_num(b, "threads", 1);
    field_num(b, "iterations", iterations);
    field_num(b, "real_time", value);
    field_num(b, "cpu_time", value);
    field_text(b, "time_unit", TIME_UNIT);
}

/* User counters, as Google Benchmark writes them: extra numeric fields.
 * Rates scale with the row's time (bytes and FLOPs are per call); the
 * case's accuracy is the case's, not a repetition's, so it goes on the
 * median only. */
static void counters(kb_buf *b, const kb_sum_case *c, double ms, int accuracy) {
    double scale = c->median_ms / ms;
    if (isfinite(c->gbps * scale)) field_num(b, "GB/s", c->gbps * scale);
    if (isfinite(c->gflops * scale)) field_num(b, "GFLOP/s", c->gflops * scale);
    if (isfinite(c->pct_peak * scale)) field_num(b, "pct_peak_bw", c->pct_peak * scale);
    if (isfinite(c->pct_roofline * scale)) field_num(b, "pct_roofline", c->pct_roofline * scale);
    if (accuracy && isfinite(c->rmse)) field_num(b, "rmse", c->rmse);
    if (accuracy && isfinite(c->max_abs)) field_num(b, "max_abs", c->max_abs);
}

static void end_row(row_ctx *x) {
    field_text(x->b, "label", x->c ? kb_sum_verdict_text(x->c) : KB_VERDICT_TEXT_ERROR);
    kb_buf_puts(x->b, "}");
}

/* A case that did not run, or a test that stopped before its cases: Google
 * Benchmark's error row (a SkipWithError run), zero times. */
static void error_row(row_ctx *x, const char *verdict, const char *why) {
    char msg[1200];
    snprintf(msg, sizeof msg, "%s: %s", verdict, why);
    x->repetitions = 1;
    separate(x);
    begin_row(x, x->run_name, "iteration");
    field_num(x->b, "repetition_index", 0);
    kb_buf_puts(x->b, ", \"error_occurred\": true");
    field_text(x->b, "error_message", msg);
    times(x->b, 0, 0);
    end_row(x);
}

/* The rows of the samples, which differ only in their index, time and
 * rates: what they share is made once (a case may have thousands). */
static int sample_rows(row_ctx *x, const kb_spool *spool, kb_err *err) {
    const kb_sum_samples *s = &x->c->samples;
    kb_buf *out = x->b, head = {0}, tail = {0};
    x->b = &head;
    begin_row(x, x->run_name, "iteration");
    key(&head, "repetition_index");
    x->b = &tail;
    end_row(x);
    x->b = out;
    char iterations[KB_JO_NUMBER_MAX], t[KB_JO_NUMBER_MAX], index[16];
    kb_jo_number_text(iterations, s->reps);
    int rc = head.failed || tail.failed ? kb_fail(err, "out of memory") : 0;
    if (rc == 0) rc = kb_spool_seek(spool, s->at, err);
    for (int i = 0; i < s->n && rc == 0 && !out->failed; ++i) {
        double ms;
        if ((rc = kb_spool_next(spool, &ms, err)) != 0) break;
        kb_jo_number_text(t, ms * MS_TO_UNIT);
        snprintf(index, sizeof index, "%d", i);
        separate(x);
        kb_buf_putn(out, head.text, head.len);
        kb_buf_puts(out, index);
        kb_buf_puts(out, ", \"threads\": 1, \"iterations\": ");
        kb_buf_puts(out, iterations);
        kb_buf_puts(out, ", \"real_time\": ");
        kb_buf_puts(out, t);
        kb_buf_puts(out, ", \"cpu_time\": ");
        kb_buf_puts(out, t);
        kb_buf_puts(out, ", \"time_unit\": \"" TIME_UNIT "\"");
        counters(out, x->c, ms, 0);
        kb_buf_putn(out, tail.text, tail.len);
    }
    free(head.text);
    free(tail.text);
    return rc;
}

/* One aggregate row (a time, or the cv as a fraction); none for a figure
 * the result does not report. */
static void aggregate(row_ctx *x, const char *agg, double value, int is_time) {
    if (!isfinite(value)) return;
    char name[600];
    snprintf(name, sizeof name, "%s_%s", x->run_name, agg);
    separate(x);
    begin_row(x, name, "aggregate");
    field_text(x->b, "aggregate_name", agg);
    field_text(x->b, "aggregate_unit", is_time ? "time" : "percentage");
    times(x->b, is_time ? value * MS_TO_UNIT : value, x->repetitions);
    if (strcmp(agg, "median") == 0) counters(x->b, x->c, x->c->median_ms, 1);
    end_row(x);
}

/* A case whose result has no samples is written as its aggregates, and
 * said: compare.py has no repetitions of it to run its U test on. */
static void note_no_samples(FILE *notes, const row_ctx *x, int *n) {
    if (!notes || (*n)++ >= NOTES_MAX) return;
    fprintf(notes,
            "kbench-report: %s: field 'cases[%d].rounds': none for case '%s' variant '%s': "
            "written as its aggregates only (no repetitions: compare.py runs no U test on "
            "it)\n",
            x->t->file, x->instance, x->c->name, x->c->variant);
}

static int case_rows(row_ctx *x, const kb_sum_run *run, int aggregates_only, FILE *notes,
                     int *no_samples, kb_err *err) {
    const kb_sum_case *c = x->c;
    if (strcmp(c->verdict, "error") == 0 || strcmp(c->verdict, "skipped") == 0) {
        error_row(x, c->verdict, c->error);
        return 0;
    }
    x->repetitions = c->samples.n > 0 ? c->samples.n : 1;
    if (!aggregates_only && c->samples.n == 0) note_no_samples(notes, x, no_samples);
    if (!aggregates_only && c->samples.n > 0 && sample_rows(x, &run->samples, err) != 0) return -1;
    aggregate(x, "mean", c->mean_ms, 1);
    aggregate(x, "median", c->median_ms, 1);
    aggregate(x, "stddev", c->stddev_ms, 1);
    aggregate(x, "cv", c->cv, 0);
    return 0;
}

static int benchmarks(kb_buf *b, const kb_sum_run *run, int aggregates_only, FILE *notes,
                      kb_err *err) {
    int no_samples = 0, rows = 0;
    for (int i = 0; i < run->n_tests; ++i) {
        const kb_sum_test *t = &run->tests[i];
        if (t->n_cases == 0) { /* it stopped before its cases: one row says why */
            row_ctx x = {.b = b, .t = t, .family = i, .rows = rows++};
            snprintf(x.run_name, sizeof x.run_name, "%s", t->name);
            error_row(&x, t->status,
                      *t->error ? t->error : "the test stopped before its cases (see its log)");
        }
        for (int j = 0; j < t->n_cases && !b->failed; ++j) {
            row_ctx x = {
                .b = b, .t = t, .c = &t->cases[j], .family = i, .instance = j, .rows = rows};
            int def = strcmp(x.c->variant, "default") == 0;
            snprintf(x.run_name, sizeof x.run_name, "%s/%s%s%s", t->name, x.c->name, def ? "" : "/",
                     def ? "" : x.c->variant);
            if (case_rows(&x, run, aggregates_only, notes, &no_samples, err) != 0) return -1;
            rows = x.rows;
        }
    }
    if (notes && no_samples > NOTES_MAX)
        fprintf(notes, "kbench-report: and %d more cases without samples, written the same way\n",
                no_samples - NOTES_MAX);
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

int kb_sum_gbench_write(kb_buf *b, const kb_sum_run *run, int aggregates_only, FILE *notes,
                        kb_err *err) {
    cJSON *ctx = context(run);
    char *text = ctx ? kb_json_print(ctx) : NULL;
    cJSON_Delete(ctx);
    if (!text) return kb_fail(err, "out of memory");
    kb_buf_puts(b, "{\n  \"context\": ");
    /* the context at depth 1: its lines after the first indented */
    for (const char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        if (line != text) kb_buf_puts(b, "  ");
        kb_buf_putn(b, line, n);
        line += n;
        if (*line) ++line;
        if (*line) kb_buf_puts(b, "\n");
    }
    free(text);
    kb_buf_puts(b, ",\n  \"benchmarks\": [\n");
    if (benchmarks(b, run, aggregates_only, notes, err) != 0) return -1;
    kb_buf_puts(b, "\n  ]\n}\n");
    return 0;
}
