/* kbench-report's model of a run: the result JSONs a ctest run left in the
 * results directory, read into tests and cases, plus the figures derived
 * from them (worst ratio, best % of peak, the test's verdict, the run's
 * environment). Each output (stdout table, summary.json, summary.md,
 * regressions.md, summary.svg) is written by its own file from this model. */
#ifndef KB_SUMMARY_H
#define KB_SUMMARY_H

#include "error.h"
#include "verdict.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* One case x variant of a test. Figures the result does not report are NAN;
 * strings are never NULL ("" when absent). They point into the test's JSON. */
typedef struct kb_sum_case {
    const char *name, *variant;
    const char *verdict;      /* latency verdict (verdict.h's names), "error" or "skipped" */
    const char *error;        /* the error or skip message, "" otherwise */
    const char *acc_failures; /* the accuracy rules that fired, one per line; "" none */
    const char *compare_to;   /* the variant this one is compared with; "" none */
    int passed;
    double median_ms, gbps, gflops, pct_peak, rmse, max_abs;
    double ratio, first_ratio, base_ms, base_rmse; /* against the baseline */
    double p_value, noise, drift;                  /* the latency decision's evidence */
    const char *drift_probe;                       /* the probe figure behind drift; "" */
    double ab_lo, ab_hi, ab_pairs;                 /* A/B: the ratio's 95 % interval, pairs */
    double record_noise;                           /* update mode: the noise of the rounds */
    double speedup, bytes_saved;                   /* against compare_to */
    /* The roofline (docs/report.md): NAN and "" where the result has none
     * (results written before it, a case with no roofline). */
    double pct_roofline, vendor_speedup;
    double intensity, footprint_bytes, roof_gbps, compute_gflops, attainable_gflops;
    const char *level, *bound; /* the level its working set lives in; what bounds it */
} kb_sum_case;

/* A ceiling of the machine from a result's calibration: a memory level's
 * bandwidth (gbps) or a precision's compute peak (gflops). */
typedef struct kb_sum_ceiling {
    const char *name; /* "L1", "DRAM"...; or the precision */
    double capacity_bytes, gbps, gflops;
    const char *how;
} kb_sum_ceiling;

#define KB_SUM_MAX_CEILINGS 16

/* How a test reads at a glance (summary.md, summary.svg). */
typedef enum kb_sum_class {
    KB_SUM_FAILED,      /* a case failed: latency regression, accuracy or error */
    KB_SUM_OK,          /* every case gated and within tolerance */
    KB_SUM_NOT_GATED,   /* passed, but some case was not gated or was slower than the
                           tolerance without a confirmed regression */
    KB_SUM_NO_BASELINE, /* passed, no case had a baseline */
} kb_sum_class;

typedef struct kb_sum_test {
    char *file; /* the result JSON's path */
    cJSON *root;
    const char *name, *kernel, *backend, *precision, *status, *profile, *case_set;
    const char *mode, *ab_base; /* "baseline" or "ab" ("" in older results); the A/B base */
    double latency_tol, accuracy_drift;
    const cJSON *env; /* the result's "environment" object, or NULL */
    /* the machine's ceilings from the result's "calibration" (none when it
     * has no "levels", "compute" or "matrix") */
    kb_sum_ceiling levels[KB_SUM_MAX_CEILINGS], compute[KB_SUM_MAX_CEILINGS],
        matrix[KB_SUM_MAX_CEILINGS];
    int n_levels, n_compute, n_matrix;
    const char *calibration_file, *calibrated_at;
    kb_sum_case *cases;
    int n_cases;
    /* derived (kb_sum_digest) */
    int n_failed, n_regressions, n_accuracy, n_errors;
    int worst;       /* index of the case with the highest ratio, -1 when none has one */
    double best_pct; /* highest % of peak bandwidth, NAN when none reported */
    kb_sum_class cls;
} kb_sum_test;

/* One environment field across the run's tests: its value when they agree,
 * each distinct value (in test-name order) when they do not. */
typedef struct kb_sum_env {
    const char *key, *label; /* in the result's "environment"; in summary.md */
    const cJSON *values[16];
    int n_values; /* 0: no test reports it; > 1: the tests differ */
    int more;     /* more distinct values than fit in `values` */
} kb_sum_env;

#define KB_SUM_ENV_FIELDS 18

typedef struct kb_sum_run {
    char results_dir[KB_PATH_MAX];
    kb_sum_test *tests; /* sorted by name */
    int n_tests;
    int *order; /* test indices: failed tests first, then by name */
    char generated_at[40], newest_result_at[40];
    int n_cases, n_failed_cases, n_failed_tests;
    double latency_tol; /* shared by every test; NAN when they differ */
    kb_sum_env env[KB_SUM_ENV_FIELDS];
    int n_env;
} kb_sum_run;

/* load.c: reads every *.json directly in dir (not subfolders); with `since`
 * (a file's path, or NULL), only those modified at or after that file (the
 * results of one ctest run: kbench.session touches it first). Fails naming
 * the file and the field of a result that cannot be read, and when the
 * directory is missing or holds no result. */
int kb_sum_load(kb_sum_run *run, const char *dir, const char *since, kb_err *err);
void kb_sum_free(kb_sum_run *run);

/* digest.c: the derived figures, the order and the environment. */
int kb_sum_digest(kb_sum_run *run, kb_err *err);
const char *kb_sum_class_name(kb_sum_class c);
/* A test's value of an environment field (NULL when it has none). */
const cJSON *kb_sum_env_value(const kb_sum_test *t, const char *key);
/* The case's verdict as the driver's table words it ("ok (noise cleared)"). */
const char *kb_sum_verdict_text(const kb_sum_case *c);
int kb_sum_has_ratio(const kb_sum_case *c);
/* Whether the case's latency verdict is `v` (never for "error", "skipped"). */
int kb_sum_verdict_is(const kb_sum_case *c, kb_latency_verdict v);

/* table.c: every case, failures first, on stdout. */
void kb_sum_print_table(FILE *f, const kb_sum_run *run);

/* The files, as text (malloc'ed; NULL when out of memory). */
char *kb_sum_json_text(const kb_sum_run *run);        /* summary_json.c */
char *kb_sum_md_text(const kb_sum_run *run);          /* summary_md.c */
char *kb_sum_regressions_text(const kb_sum_run *run); /* regressions_md.c */
char *kb_sum_svg_text(const kb_sum_run *run);         /* svg.c */
/* headline.c: summary.txt, the run in a few lines; `out` is the report's
 * directory, named in it. */
char *kb_sum_headline_text(const kb_sum_run *run, const char *out);
/* gating.c: how many tests were gated, against what, and (when none was)
 * how to get a gate; markdown (`md`) or plain text. */
struct kb_buf;
void kb_sum_gating_text(struct kb_buf *b, const kb_sum_run *run, int md);

/* roofline_svg.c: one roofline chart per backend. kb_sum_backends lists the
 * run's backends (tests of the calibration set aside: they measure the
 * ceilings), at most `max`, in name order; the chart of one of them. */
int kb_sum_backends(const kb_sum_run *run, const char **out, int max);
char *kb_sum_roofline_svg_text(const kb_sum_run *run, const char *backend);
/* The chart's file name, "roofline-<backend>.svg" (characters other than
 * letters, digits, '-' and '_' become '_'). */
void kb_sum_roofline_file(const char *backend, char *out, size_t size);

/* gbench_json.c: the run in Google Benchmark's JSON format (docs/report.md),
 * with each case's samples as repetitions unless aggregates_only. It reads
 * the samples from the results, so it can fail naming the file and field. */
int kb_sum_gbench_text(const kb_sum_run *run, int aggregates_only, char **text, kb_err *err);

#endif
