/* kbench-report's model of a run: the result JSONs a ctest run left in the
 * results directory, read into tests and cases, plus the figures derived
 * from them (worst ratio, best % of peak, the test's verdict, the run's
 * environment). Each output (stdout table, summary.json, summary.md,
 * regressions.md, summary.svg, gbench.json) is written by its own file from
 * this model. The model holds what the outputs need of each case, not the
 * result's JSON: the results are read one case at a time and their samples
 * go to a spool on disk (gbench), so that the report's memory grows with
 * the number of cases, not with the size of the results. */
#ifndef KB_SUMMARY_H
#define KB_SUMMARY_H

#include "base/error.h"
#include "decide/verdict.h"
#include "spool.h"
#include "strpool.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* A case's samples: those of the round its median comes from (the round the
 * gate used), as the result holds them; in the run's spool when kept. */
typedef struct kb_sum_samples {
    int n;       /* how many; 0 when the result has no rounds for the case */
    int round;   /* the round they come from */
    double reps; /* calls timed per sample */
    long at;     /* the first one's place in the spool; -1 when not kept */
} kb_sum_samples;

/* One case x variant of a test. Figures the result does not report are NAN;
 * strings are never NULL ("" when absent). They are the run's copies
 * (strpool.h): load.c copies each string member, so a new one is added to
 * its own_strings too. */
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
    double tolerance;            /* the slowdown the case is allowed: its baseline's, or recorded */
    double record_noise;         /* update mode: the noise of the kept rounds */
    double record_drift;         /* and the part of it that is drift between rounds */
    double speedup, bytes_saved; /* against compare_to */
    /* The roofline (docs/report.md): NAN and "" where the result has none
     * (results written before it, a case with no roofline). */
    double pct_roofline, vendor_speedup;
    double intensity, footprint_bytes, roof_gbps, compute_gflops, attainable_gflops;
    const char *level, *bound;     /* the level its working set lives in; what bounds it */
    double write_fraction;         /* its outputs' share of the footprint */
    const char *pattern;           /* memory's ceiling it is placed under; "": its level's */
    double mean_ms, stddev_ms, cv; /* the case's own figures of its samples */
    kb_sum_samples samples;
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
    char *file;  /* the result JSON's path */
    cJSON *root; /* the result without its cases (read one at a time into `cases`) */
    const char *name, *kernel, *backend, *precision, *status, *profile, *case_set;
    const char *mode, *ab_base; /* "baseline" or "ab" ("" in older results); the A/B base */
    const char *baseline_file;  /* the baseline it was compared with ("" none) */
    int baseline_tracked;       /* kb_sum_git_tracked(baseline_file) (kb_sum_digest) */
    /* the speed-relevant flags of this build and of the baseline compared
     * with ("" when not recorded), from "optimisation" */
    const char *opt_build, *opt_baseline;
    const char *docs_dir; /* kbench's documentation, as the driver knew it ("" unknown) */
    const char *error;    /* why a run stopped before its cases (status "error"); "" none */
    double latency_tol, accuracy_drift;
    const cJSON *env; /* the result's "environment" object, or NULL */
    /* the machine's ceilings from the result's "calibration" (none when it
     * has no "levels", "compute" or "matrix") */
    kb_sum_ceiling levels[KB_SUM_MAX_CEILINGS], compute[KB_SUM_MAX_CEILINGS],
        matrix[KB_SUM_MAX_CEILINGS];
    int n_levels, n_compute, n_matrix;
    const char *calibration_file, *calibrated_at;
    double calibration_age_s; /* its age when the test read it; NAN: not recorded */
    int calibration_reused;   /* 1 a calibration run that reused one (no case ran), 0 one
                               * that measured, -1 any other test */
    kb_sum_case *cases;
    int n_cases, cap_cases;
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
    kb_strpool strings;   /* the cases' strings */
    kb_spool samples;     /* the cases' samples, when kept */
    const char *docs_dir; /* the first test's docs_dir ("" unknown) */
} kb_sum_run;

/* load.c: reads every *.json directly in dir (not subfolders); with `since`
 * (a file's path, or NULL), only those modified at or after that file (the
 * results of one ctest run: kbench.session touches it first). Fails naming
 * the file and the field of a result that cannot be read, and when the
 * directory is missing or holds no result. With keep_samples, each case's
 * samples go to the run's spool (gbench writes them). */
int kb_sum_load(kb_sum_run *run, const char *dir, const char *since, int keep_samples, kb_err *err);
void kb_sum_free(kb_sum_run *run);

/* digest.c: the derived figures, the order and the environment. */
int kb_sum_digest(kb_sum_run *run, kb_err *err);
const char *kb_sum_class_name(kb_sum_class c);
/* A test's value of an environment field (NULL when it has none). */
const cJSON *kb_sum_env_value(const kb_sum_test *t, const char *key);
/* The case's verdict as the driver's table words it ("ok (noise cleared)"). */
const char *kb_sum_verdict_text(const kb_sum_case *c);
int kb_sum_has_ratio(const kb_sum_case *c);
/* The slowdown the case is allowed: its own (gated against a baseline
 * recorded with more noise than the test's tolerance, or recorded so), else
 * the test's. */
double kb_sum_case_tolerance(const kb_sum_test *t, const kb_sum_case *c);
/* Whether that is coarser than the test's tolerance. */
int kb_sum_coarse(const kb_sum_test *t, const kb_sum_case *c);
/* Whether the case's latency verdict is `v` (never for "error", "skipped"). */
int kb_sum_verdict_is(const kb_sum_case *c, kb_latency_verdict v);

/* table.c: every case, failures first, on stdout. */
void kb_sum_print_table(FILE *f, const kb_sum_run *run);

/* The files, written into b (buf.h: bound to the file, it writes as it
 * fills); a failure is b's. */
struct kb_buf;
void kb_sum_json_write(struct kb_buf *b, const kb_sum_run *run);        /* summary_json.c */
void kb_sum_md_write(struct kb_buf *b, const kb_sum_run *run);          /* summary_md.c */
void kb_sum_regressions_write(struct kb_buf *b, const kb_sum_run *run); /* regressions_md.c */
void kb_sum_svg_write(struct kb_buf *b, const kb_sum_run *run);         /* svg.c */
/* headline.c: summary.txt, the run in a few lines; `out` is the report's
 * directory, named in it. */
char *kb_sum_headline_text(const kb_sum_run *run, const char *out);
/* gating.c: how many tests were gated, against what, and (when none was)
 * how to get a gate; markdown (`md`) or plain text. */
void kb_sum_gating_text(struct kb_buf *b, const kb_sum_run *run, int md);
/* 1 when git tracks `path` (a regular file) in the repository it lies in, 0
 * when that repository does not track it, -1 when it cannot tell (no such
 * file, no repository, no git). tracked.c */
int kb_sum_git_tracked(const char *path);
/* Where kbench's documentation page `page` is, for the report's text: under
 * the run's docs_dir, else "kbench's docs/<page>" (digest.c). */
void kb_sum_doc(const kb_sum_run *run, const char *page, char *out, size_t size);

/* roofline_svg.c: one roofline chart per backend. kb_sum_backends lists the
 * run's backends (tests of the calibration set aside: they measure the
 * ceilings), at most `max`, in name order; the chart of one of them. */
int kb_sum_backends(const kb_sum_run *run, const char **out, int max);
void kb_sum_roofline_svg_write(struct kb_buf *b, const kb_sum_run *run, const char *backend);
/* The chart's file name, "roofline-<backend>.svg" (characters other than
 * letters, digits, '-' and '_' become '_'). */
void kb_sum_roofline_file(const char *backend, char *out, size_t size);

/* gbench_json.c: the run in Google Benchmark's JSON format (docs/gbench.md),
 * with each case's samples (from the run's spool) as repetitions unless
 * aggregates_only. A case whose result has no samples gets its aggregate
 * rows only, and a line on `notes` says so. */
int kb_sum_gbench_write(struct kb_buf *b, const kb_sum_run *run, int aggregates_only, FILE *notes,
                        kb_err *err);

#endif
