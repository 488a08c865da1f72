/* A run of the test: the selected cases of every selected implementation,
 * each with the result so far on disk before and after it (so that a crash
 * or a hang still leaves one), then what the cases need of each other and
 * of the calibration, and the end: the report, the recording or the
 * calibration, the result file and the exit status. */
#define _GNU_SOURCE
#include "base/buildinfo.h"
#include "driver/ab_start.h"
#include "driver/driver.h"
#include "formats/vocab.h"
#include "guard/progress.h"
#include "guard/watchdog.h"
#include "machine/envinfo.h"
#include "output/baseline_write.h"
#include "run/speedup.h"

#include <stdio.h>

static int record(kb_driver *d, kb_case_result *res, int n, const cJSON *env, kb_err *err) {
    int recorded = kb_baseline_record(d->baseline_path, &d->ctx, d->profile, res, n, env, err);
    if (recorded < 0) return -1;
    const double tol = d->settings.gate.latency_tol;
    int coarse = 0, coarsest = -1;
    for (int i = 0; i < n; ++i)
        if (res[i].decision.lat.verdict == KB_LAT_RECORDED && res[i].decision.lat.tolerance > tol) {
            ++coarse;
            if (coarsest < 0 ||
                res[i].decision.lat.tolerance > res[coarsest].decision.lat.tolerance)
                coarsest = i;
        }
    printf("recorded %d of %d cases into %s", recorded, n, d->baseline_path);
    if (coarse > 0)
        printf("; %d gate coarser than the %.0f %% tolerance, their rounds being noisier "
               "(coarsest %.1f %%: %s %s)",
               coarse, 100.0 * tol, 100.0 * res[coarsest].decision.lat.tolerance,
               res[coarsest].c->name, res[coarsest].variant);
    printf("\n");
    return 0;
}

static const char *baseline_note(const kb_driver *d, const kb_case_result *res, int n) {
    static char note[1200];
    if (d->opt.calibrate) return "calibration run: latency not gated";
    if (d->opt.profiled_by) return "run under a profiler (--profile-with): latency not gated";
    if (d->ctx.ab) return d->ab_note;
    if (!d->baseline.root) return "no baseline file: latency not gated";
    for (int i = 0; i < n; ++i) {
        if (res[i].decision.lat.verdict != KB_LAT_OTHER_HARDWARE) continue;
        snprintf(
            note, sizeof note,
            "recorded on other hardware, latency not gated\n     baseline: %s\n     here:     %s",
            res[i].decision.base.hardware_id, d->hardware_id);
        return note;
    }
    for (int i = 0; i < n; ++i) {
        if (res[i].decision.lat.verdict != KB_LAT_OTHER_TIMING) continue;
        char doc[KB_PATH_MAX];
        kb_doc_path(doc, sizeof doc, "baselines.md");
        snprintf(note, sizeof note,
                 "%s.%s timed %s against a baseline timed %s: a slowdown timed the slower way "
                 "is not failed (%.300s)",
                 res[i].c->name, res[i].variant, kb_timing_name(res[i].measured.timing),
                 kb_timing_name(res[i].decision.base.timing), doc);
        return note;
    }
    return NULL;
}

/* The result's members known before the first case, for the result
 * written while the cases run (progress.h). */
static int progress_fields(const kb_driver *d, kb_err *err) {
    kb_report rep = {d->test_name, &d->ctx, d->profile, d->baseline_path, NULL, &d->cal, NULL, 0};
    cJSON *json = kb_report_json(&rep, "running", cJSON_Duplicate(d->env, 1));
    cJSON_DeleteItemFromObjectCaseSensitive(json, "status");
    cJSON_DeleteItemFromObjectCaseSensitive(json, "cases");
    return kb_progress_fields(json, err);
}

/* One case of one implementation, with the result so far on disk before
 * and after it. */
static int run_one(kb_driver *d, const kb_case *c, const kb_impl *impl, kb_case_result *r,
                   kb_err *err) {
    char variant[96];
    kb_variant_key(variant, sizeof variant, impl->variant, d->opt.cold_cache);
    kb_watchdog_case();
    if (kb_progress_case_start(c->name, variant, err) != 0) return -1;
    kb_run_case(&d->ctx, c, impl, r);
    return kb_progress_case_done(kb_report_case_json(r, d->ctx.ab != NULL), err);
}

/* The case's roofline (roofline.h) under the calibrated roofs. */
static void place_under_roofs(const kb_driver *d, kb_case_result *r) {
    kb_roofline *rl = &r->measured.roofline;
    r->measured.pct_roofline = -1.0;
    if (r->error || r->skipped) return;
    if (!d->cal.present || d->cal.roofs.n_levels == 0) {
        const char *why = d->cal.present ? d->cal.roof_note : d->cal.note;
        snprintf(rl->why, sizeof rl->why, "%s",
                 *why ? why : "no calibration read (a calibration run measures the roofs)");
        return;
    }
    if (kb_roofline_of(&d->cal.roofs, d->ctx.prec, r->flops, r->bytes, r->footprint, r->written,
                       d->opt.cold_cache, r->measured.stats.median, rl))
        r->measured.pct_roofline = rl->pct;
}

static int run_all(kb_driver *d, kb_case_result *res, int *n, kb_err *err) {
    if (progress_fields(d, err) != 0) return -1;
    for (int i = 0; i < d->manifest.n_cases; ++i) {
        const kb_case *c = &d->manifest.cases[i];
        if (!kb_driver_selected(d, c)) continue;
        for (int j = 0; j < d->n_impls; ++j)
            if (run_one(d, c, d->impls[j], &res[(*n)++], err) != 0) return -1;
    }
    kb_watchdog_stage(KB_STAGE_FINISH);
    kb_compare_variants(&d->manifest, res, *n);
    kb_compare_vendor(res, *n);
    for (int i = 0; i < *n; ++i) {
        res[i].measured.pct_peak_bw = kb_calibration_pct(&d->cal, &res[i]);
        place_under_roofs(d, &res[i]);
    }
    return 0;
}

/* Cases their implementation declined (kb_unsupported). */
static int count_skipped(const kb_case_result *res, int n) {
    int skipped = 0;
    for (int i = 0; i < n; ++i) skipped += res[i].skipped;
    return skipped;
}

static int finish(kb_driver *d, kb_case_result *res, int n, int skipped, kb_err *err) {
    kb_report rep = {d->test_name, &d->ctx, d->profile, d->baseline_path, baseline_note(d, res, n),
                     &d->cal,      res,     n};
    kb_report_table(stdout, &rep);
    int failed = kb_report_failures(stdout, &rep);
    cJSON *env = d->env;
    d->env = NULL;
    cJSON_AddNumberToObject(env, "peak_rss_mib", kb_env_peak_rss_mib());
    /* a base that could not serve failed every case, and the run with it */
    int rc = d->ctx.ab && *d->ab.broken ? kb_fail(err, "%s", d->ab.broken)
             : d->opt.update            ? record(d, res, n, env, err)
                                        : 0;
    if (rc == 0 && d->opt.calibrate && !failed) rc = kb_driver_calibrate(d, res, n, err);
    const char *status = rc != 0 ? "error" : failed ? "failed" : "passed";
    if (kb_driver_write_result(d, &rep, status, env, err) != 0) rc = -1;
    if (rc != 0) fprintf(stderr, "kbench: error: %s\n", err->msg);
    printf("peak host memory %.1f MiB\n%s: %s (%d of %d cases failed, %d skipped)\n",
           kb_env_peak_rss_mib(), d->test_name, status, failed, n, skipped);
    fflush(stdout);
    kb_report_measurements(stdout, &rep);
    return rc != 0 ? KB_EXIT_ERROR : failed ? KB_EXIT_FAILED : KB_EXIT_PASS;
}

int kb_driver_run(kb_driver *d, const char *argv0) {
    kb_err err = {{0}};
    if (kb_driver_set_up_run(d, argv0, &err) != 0) return kb_driver_fail(d, err.msg);
    static kb_case_result res[KB_MAX_CASES * KB_MAX_IMPLS];
    int n = 0;
    int rc = d->opt.calibrate ? kb_driver_reuse_calibration(d) : -1; /* -1: run the cases */
    if (rc < 0) rc = run_all(d, res, &n, &err) != 0 ? kb_driver_fail(d, err.msg) : -1;
    kb_ref_cache_clear(&d->refs); /* every case done: not held through the calibration */
    /* Every case declined: the test skips with the first reason. */
    int skipped = count_skipped(res, n);
    if (rc < 0)
        rc = n > 0 && skipped == n ? kb_driver_skip(res[0].skip_why)
                                   : finish(d, res, n, skipped, &err);
    kb_watchdog_stop();
    for (int i = 0; i < n; ++i) kb_case_result_free(&res[i]);
    kb_baseline_close(&d->baseline);
    cJSON_Delete(d->env);
    if (d->ab.has_partner) kb_ab_stop(&d->ab);
    kb_workers_stop(&d->recorders);
    kb_workers_stop(&d->confirmer);
    return rc;
}
