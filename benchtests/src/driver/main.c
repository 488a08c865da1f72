/* The driver every kernel shares: kbench-<kernel> links this main with the
 * kernel's sources. One invocation = one CTest test = one kernel on one
 * backend in one precision, over all of the manifest's cases. */
#define _GNU_SOURCE
#include "backend/backend.h"
#include "base/affinity.h"
#include "base/atomicfile.h"
#include "base/buildinfo.h"
#include "base/clock.h"
#include "base/pathname.h"
#include "base/utf8.h"
#include "driver/ab_start.h"
#include "driver/options.h"
#include "driver/profile.h"
#include "driver/serve.h"
#include "formats/baseline.h"
#include "formats/json_write.h"
#include "formats/manifest.h"
#include "formats/variantcheck.h"
#include "guard/progress.h"
#include "guard/watchdog.h"
#include "kb/build.h"
#include "machine/envinfo.h"
#include "measure/refcache.h"
#include "output/baseline_write.h"
#include "output/report.h"
#include "partner/protocol.h"
#include "run/calibration.h"
#include "run/runner.h"
#include "run/speedup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_PASS = 0, EXIT_FAILED = 1, EXIT_ERROR = 2, EXIT_SKIP = 77 };

typedef struct driver {
    kb_options opt;
    kb_run_settings settings; /* what the runner takes of opt */
    kb_manifest manifest;
    kb_run_ctx ctx;
    kb_baseline baseline;
    char profile[256], hardware_id[512], baseline_path[KB_PATH_MAX], test_name[256];
    char calibration_path[KB_PATH_MAX], result_path[KB_PATH_MAX];
    cJSON *env; /* the environment the run is measured in */
    kb_calibration cal;
    kb_calibration_stamp stamp; /* calibration mode: what this run measures under */
    const kb_impl *impls[KB_MAX_IMPLS];
    int n_impls;
    kb_ab_setup ab;
    char ab_note[1024];
    kb_workers recorders;   /* recording: this build's other processes (workers.h) */
    kb_workers confirmer;   /* gating: a fresh process that measures a slowdown again */
    char self[KB_PATH_MAX]; /* this driver's executable, which both run */
    kb_ref_cache refs;      /* ctx.refs */
} driver;

static int error_exit(const char *msg) {
    fprintf(stderr, "kbench: error: %s\n", msg);
    return EXIT_ERROR;
}

/* Whether case c runs in this invocation: its set, --case, and in
 * calibration mode the manifest's calibration list. */
static int selected(const driver *d, const kb_case *c) {
    if (d->opt.case_name) return strcmp(c->name, d->opt.case_name) == 0;
    if (!d->opt.calibrate) return c->full == d->opt.full;
    for (int i = 0; i < d->manifest.n_calibration; ++i)
        if (d->manifest.calibration[i] == c) return 1;
    return 0;
}

static int selected_case(const void *d, const kb_case *c) {
    return selected(d, c);
}

static int count_selected(const driver *d) {
    int n = 0;
    for (int i = 0; i < d->manifest.n_cases; ++i) n += selected(d, &d->manifest.cases[i]);
    return n;
}

/* The set of cases this invocation measures, as reports name it. */
static const char *case_set(const kb_options *o) {
    return o->calibrate ? "calibration" : o->full ? "full" : "default";
}

/* What the runner takes of the options (run_settings.h). */
static kb_run_settings run_settings(const kb_options *o) {
    return (kb_run_settings){.seed = o->seed,
                             .sampling = o->sampling,
                             .gate = o->gate,
                             .update = o->update,
                             .record_rounds = o->record_rounds,
                             .confirm_pause_s = o->confirm_pause_s,
                             .cold_cache = o->cold_cache};
}

static void list_cases(const driver *d, kb_prec prec) {
    printf("%s (%s): %s cases\n", d->manifest.name, d->manifest.path, case_set(&d->opt));
    for (int i = 0; i < d->manifest.n_cases; ++i) {
        const kb_case *c = &d->manifest.cases[i];
        if (!selected(d, c)) continue;
        double flops = 0, bytes = 0;
        kb_manifest_counts(&d->manifest, c, prec, NULL, &flops, &bytes, NULL);
        printf("  %-24s", c->name);
        for (int j = 0; j < c->n_dims; ++j)
            printf(" %s=%lld", c->dim_names[j], (long long)c->dims[j]);
        if (kb_case_threads(c) > 1) printf(" threads=%d", kb_case_threads(c));
        printf("  (%s: %.3g MB, %.3g MFLOP)\n", kb_prec_name(prec), bytes * 1e-6, flops * 1e-6);
    }
}

/* Under KBENCH_GPU_PARALLEL, ctest sets KBENCH_REQUIRE_RESOURCE_SPEC=1 for
 * GPU tests, which then run side by side: without a resource spec they
 * would share device 0 and time each other. */
static int needs_resource_spec(void) {
    const char *required = getenv("KBENCH_REQUIRE_RESOURCE_SPEC");
    return required && strcmp(required, "1") == 0 && !getenv("CTEST_RESOURCE_GROUP_COUNT");
}

/* The kernel's own implementations, then those registered from its GPU
 * source; NULL past the last. */
static const kb_impl *implementation(const kb_kernel *k, int i) {
    int own = 0;
    while (own < KB_MAX_IMPLS && k->impls[own].run) own++;
    return i < own ? &k->impls[i] : kb_registered_impl(i - own);
}

/* The manifest's variants against every implementation linked in, whatever
 * --backend and --variant select (variantcheck.h). */
static int check_variants(const driver *d, kb_err *err) {
    const kb_impl *all[2 * KB_MAX_IMPLS]; /* the kernel's own, then as many registered */
    int n = 0;
    while (n < 2 * KB_MAX_IMPLS && (all[n] = implementation(d->ctx.kernel, n))) n++;
    return kb_check_variants(&d->manifest, d->opt.backend, all, n, err);
}

/* Precision, backend and implementations for this run, checked against the
 * manifest and what the driver was built with. */
static int select_run(driver *d, kb_err *err) {
    const kb_manifest *m = &d->manifest;
    int p = kb_prec_parse(d->opt.precision);
    if (p < 0) return kb_fail(err, "--precision: unknown precision '%s'", d->opt.precision);
    if (!(m->precisions & (1u << p)))
        return kb_fail(err, "%s: kernel '%s' does not declare precision %s", m->path, m->name,
                       d->opt.precision);
    d->ctx.prec = (kb_prec)p;
    if (!kb_manifest_has_backend(m, d->opt.backend))
        return kb_fail(err, "%s: kernel '%s' does not declare backend '%s'", m->path, m->name,
                       d->opt.backend);
    d->ctx.backend = kb_backend_find(d->opt.backend);
    if (!d->ctx.backend)
        return kb_fail(err, "backend '%s' is not built into this driver", d->opt.backend);
    const kb_impl *impl;
    for (int i = 0; d->n_impls < KB_MAX_IMPLS && (impl = implementation(d->ctx.kernel, i)); ++i) {
        if (strcmp(impl->backend, d->opt.backend) != 0) continue;
        if (d->opt.variant && strcmp(impl->variant, d->opt.variant) != 0) continue;
        d->impls[d->n_impls++] = impl;
    }
    if (d->n_impls == 0 && d->opt.variant)
        return kb_fail(err, "--variant: kernel '%s' has no %s implementation of variant '%s'",
                       m->name, d->opt.backend, d->opt.variant);
    if (d->n_impls == 0)
        return kb_fail(err, "kernel '%s' has no %s implementation", m->name, d->opt.backend);
    if (check_variants(d, err) != 0) return -1;
    if (d->opt.cold_cache && !d->ctx.backend->flush_caches)
        return kb_fail(err, "--cold-cache: backend '%s' cannot flush its caches", d->opt.backend);
    if (d->opt.case_name && !kb_manifest_find_case(m, d->opt.case_name))
        return kb_fail(err, "%s: no case '%s' (--list shows them)", m->path, d->opt.case_name);
    if (d->opt.calibrate && m->n_calibration == 0)
        return kb_fail(err, "--calibrate: %s has no 'calibration' cases", m->path);
    if (d->opt.calibrate) d->opt.update = 0; /* measures the machine, records no baseline */
    return count_selected(d) > 0 ? 0
                                 : kb_fail(err, "%s: no %s cases to run: the manifest has none",
                                           m->path, d->opt.full ? "'full'" : "default");
}

/* The profile: the option's or variable's (checked as a name when parsed),
 * else the configured one, else the hardware's. */
static int resolve_profile(driver *d, kb_err *err) {
    char detected[256];
    d->ctx.backend->identify(detected, sizeof detected, d->hardware_id, sizeof d->hardware_id);
    const char *p = d->opt.profile;
    const int given = p && *p && strcmp(p, "auto") != 0;
    /* --profile and KBENCH_PROFILE were checked when parsed; the configured
     * default and the detected slug are checked here */
    if (kb_check_name(given ? p : detected,
                      given ? "the profile (configured KBENCH_PROFILE)" : "the detected profile",
                      err) != 0)
        return -1;
    return kb_path_format(d->profile, sizeof d->profile, err, "profile", "%s",
                          given ? p : detected);
}

/* From the options alone (and the kernel this driver runs), so that it is
 * known before the manifest is read: --test-name, or the kernel, backend and
 * precision as given (select_run checks them later). */
static int resolve_test_name(driver *d, kb_err *err) {
    const kb_options *o = &d->opt;
    const char *what = o->test_name ? "--test-name" : "the test name (from --backend, --precision)";
    int rc = o->test_name
                 ? kb_path_format(d->test_name, sizeof d->test_name, err, what, "%s", o->test_name)
             : o->calibrate ? kb_path_format(d->test_name, sizeof d->test_name, err, what,
                                             "kbench.calibrate.%s", o->backend)
                            : kb_path_format(d->test_name, sizeof d->test_name, err, what,
                                             "%s.%s.%s%s", d->ctx.kernel_name, o->backend,
                                             o->precision, o->full ? ".full" : "");
    return rc == 0 ? kb_check_name(d->test_name, what, err) : -1;
}

static int resolve_paths(driver *d, kb_err *err) {
    const kb_options *o = &d->opt;
    const char *results = *o->results_dir ? o->results_dir : ".";
    if (resolve_test_name(d, err) != 0) return -1;
    int rc = o->baseline_file
                 ? kb_path_format(d->baseline_path, sizeof d->baseline_path, err, "--baseline",
                                  "%s", o->baseline_file)
                 : kb_path_format(d->baseline_path, sizeof d->baseline_path, err, "--baseline-dir",
                                  "%s/%s/%s.json", o->baseline_dir, d->profile, d->manifest.name);
    if (rc == 0)
        rc = o->calibration ? kb_path_format(d->calibration_path, sizeof d->calibration_path, err,
                                             "--calibration", "%s", o->calibration)
                            : kb_path_format(d->calibration_path, sizeof d->calibration_path, err,
                                             "--results-dir", "%s/calibration/%s.json", results,
                                             d->ctx.backend->name);
    return rc;
}

static int resolve_names(driver *d, kb_err *err) {
    if (resolve_profile(d, err) != 0) return -1;
    return resolve_paths(d, err);
}

/* Whether this invocation runs the test and writes <results>/<test>.json
 * (not --list, --print-profile or --partner, and a results directory set). */
static int writes_result(const kb_options *o) {
    return !o->list && !o->print_profile && !o->partner && !o->profile_with && *o->results_dir;
}

/* The previous run's result goes at once: whatever stops this run, it is
 * not read as this run's. */
static int begin_result(driver *d, kb_err *err) {
    if (resolve_test_name(d, err) != 0 ||
        kb_path_format(d->result_path, sizeof d->result_path, err, "--results-dir", "%s/%s.json",
                       d->opt.results_dir, d->test_name) != 0 ||
        kb_mkdir_p(d->opt.results_dir, err) != 0)
        return -1;
    return kb_progress_begin(d->result_path, err);
}

static int setup(driver *d, int argc, char **argv, kb_err *err) {
    kb_build_use(&kb_build); /* the defaults below and the environment's record */
    /* the CPUs the process may use ("threads": "all"), read before anything is pinned */
    (void)kb_affinity_start();
    if (kb_options_parse(&d->opt, argc, argv, err) != 0) return -1;
    if (d->opt.help) return 0;
    d->ctx.kernel = kb_this_kernel();
    d->ctx.kernel_name = kb_build.kernel;
    d->ctx.reference = kb_this_reference();
    d->ctx.refs = &d->refs;
    if (writes_result(&d->opt) && begin_result(d, err) != 0) return -1;
    const char *path = d->opt.manifest ? d->opt.manifest : kb_build.manifest;
    if (kb_manifest_load(&d->manifest, path, err) != 0) return -1;
    if (strcmp(d->manifest.name, d->ctx.kernel_name) != 0)
        return kb_fail(err, "%s: field 'name': '%s' but this driver was built for kernel '%s'",
                       path, d->manifest.name, d->ctx.kernel_name);
    d->ctx.manifest = &d->manifest;
    if (select_run(d, err) != 0) return -1;
    /* after select_run, which settles the mode */
    d->settings = run_settings(&d->opt);
    d->ctx.settings = &d->settings;
    d->ctx.case_set = case_set(&d->opt);
    return 0;
}

static int record(driver *d, kb_case_result *res, int n, const cJSON *env, kb_err *err) {
    int recorded = kb_baseline_record(d->baseline_path, &d->ctx, d->profile, res, n, env, err);
    if (recorded < 0) return -1;
    const double tol = d->settings.gate.latency_tol;
    int coarse = 0, coarsest = -1;
    for (int i = 0; i < n; ++i)
        if (res[i].lat.verdict == KB_LAT_RECORDED && res[i].lat.tolerance > tol) {
            ++coarse;
            if (coarsest < 0 || res[i].lat.tolerance > res[coarsest].lat.tolerance) coarsest = i;
        }
    printf("recorded %d of %d cases into %s", recorded, n, d->baseline_path);
    if (coarse > 0)
        printf("; %d gate coarser than the %.0f %% tolerance, their rounds being noisier "
               "(coarsest %.1f %%: %s %s)",
               coarse, 100.0 * tol, 100.0 * res[coarsest].lat.tolerance, res[coarsest].c->name,
               res[coarsest].variant);
    printf("\n");
    return 0;
}

static int write_text(const char *path, cJSON *json, kb_err *err) {
    char *text = kb_json_print(json);
    cJSON_Delete(json);
    int rc = text ? kb_write_file_atomic(path, text, err) : kb_fail(err, "%s: out of memory", path);
    free(text);
    return rc;
}

static int write_result(const driver *d, const kb_report *rep, const char *status, cJSON *env,
                        kb_err *err) {
    if (!*d->result_path) {
        cJSON_Delete(env);
        return 0;
    }
    kb_progress_end();
    return write_text(d->result_path, kb_report_json(rep, status, env), err);
}

/* The result of a run that stopped with an error before its cases: what
 * is known of the test, no case, and the message. */
static void write_error_result(const driver *d, const char *msg) {
    if (!*d->result_path) return;
    kb_progress_end();
    char text[sizeof(kb_err) + 8];
    kb_utf8_copy(msg, text, sizeof text);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "test", d->test_name);
    cJSON_AddStringToObject(o, "status", "error");
    cJSON_AddStringToObject(o, "error", text);
    cJSON_AddStringToObject(o, "kernel", d->ctx.kernel_name);
    cJSON_AddStringToObject(o, "backend", d->opt.backend);
    cJSON_AddStringToObject(o, "precision", d->opt.precision);
    cJSON_AddStringToObject(o, "profile", d->profile);
    cJSON_AddNumberToObject(o, "latency_tolerance", d->opt.gate.latency_tol);
    cJSON_AddArrayToObject(o, "cases");
    kb_err ignored;
    if (write_text(d->result_path, o, &ignored) != 0)
        fprintf(stderr, "kbench: error: %s\n", ignored.msg);
}

/* An error that ends the run: said, and written as the test's result. */
static int fail(const driver *d, const char *msg) {
    write_error_result(d, msg);
    return error_exit(msg);
}

static const char *baseline_note(const driver *d, const kb_case_result *res, int n) {
    static char note[1200];
    if (d->opt.calibrate) return "calibration run: latency not gated";
    if (d->opt.profiled_by) return "run under a profiler (--profile-with): latency not gated";
    if (d->ctx.ab) return d->ab_note;
    if (!d->baseline.root) return "no baseline file: latency not gated";
    for (int i = 0; i < n; ++i) {
        if (res[i].lat.verdict != KB_LAT_OTHER_HARDWARE) continue;
        snprintf(
            note, sizeof note,
            "recorded on other hardware, latency not gated\n     baseline: %s\n     here:     %s",
            res[i].base.hardware_id, d->hardware_id);
        return note;
    }
    for (int i = 0; i < n; ++i) {
        if (res[i].lat.verdict != KB_LAT_OTHER_TIMING) continue;
        char doc[KB_PATH_MAX];
        kb_doc_path(doc, sizeof doc, "baselines.md");
        snprintf(note, sizeof note,
                 "%s.%s timed %s against a baseline timed %s: a slowdown timed the slower way "
                 "is not failed (%.300s)",
                 res[i].c->name, res[i].variant, kb_timing_name(res[i].timing),
                 kb_timing_name(res[i].base.timing), doc);
        return note;
    }
    return NULL;
}

/* The result's members known before the first case, for the result
 * written while the cases run (progress.h). */
static int progress_fields(const driver *d, kb_err *err) {
    kb_report rep = {d->test_name, &d->ctx, d->profile, d->baseline_path, NULL, &d->cal, NULL, 0};
    cJSON *json = kb_report_json(&rep, "running", cJSON_Duplicate(d->env, 1));
    cJSON_DeleteItemFromObjectCaseSensitive(json, "status");
    cJSON_DeleteItemFromObjectCaseSensitive(json, "cases");
    return kb_progress_fields(json, err);
}

/* One case of one implementation, with the result so far on disk before
 * and after it. */
static int run_one(driver *d, const kb_case *c, const kb_impl *impl, kb_case_result *r,
                   kb_err *err) {
    char variant[96];
    snprintf(variant, sizeof variant, "%s%s", impl->variant, d->opt.cold_cache ? "+cold" : "");
    kb_watchdog_case();
    if (kb_progress_case_start(c->name, variant, err) != 0) return -1;
    kb_run_case(&d->ctx, c, impl, r);
    return kb_progress_case_done(kb_report_case_json(r, d->ctx.ab != NULL), err);
}

/* The case's roofline (roofline.h) under the calibrated roofs. */
static void place_under_roofs(const driver *d, kb_case_result *r) {
    kb_roofline *rl = &r->roofline;
    r->pct_roofline = -1.0;
    if (r->error || r->skipped) return;
    if (!d->cal.present || d->cal.roofs.n_levels == 0) {
        const char *why = d->cal.present ? d->cal.roof_note : d->cal.note;
        snprintf(rl->why, sizeof rl->why, "%s",
                 *why ? why : "no calibration read (a calibration run measures the roofs)");
        return;
    }
    if (kb_roofline_of(&d->cal.roofs, d->ctx.prec, r->flops, r->bytes, r->footprint,
                       d->opt.cold_cache, r->stats.median, rl))
        r->pct_roofline = rl->pct;
}

static int run_all(driver *d, kb_case_result *res, int *n, kb_err *err) {
    if (progress_fields(d, err) != 0) return -1;
    for (int i = 0; i < d->manifest.n_cases; ++i) {
        const kb_case *c = &d->manifest.cases[i];
        if (!selected(d, c)) continue;
        for (int j = 0; j < d->n_impls; ++j)
            if (run_one(d, c, d->impls[j], &res[(*n)++], err) != 0) return -1;
    }
    kb_watchdog_stage(KB_STAGE_FINISH);
    kb_compare_variants(&d->manifest, res, *n);
    kb_compare_vendor(res, *n);
    for (int i = 0; i < *n; ++i) {
        res[i].pct_peak_bw = kb_calibration_pct(&d->cal, &res[i]);
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

static int skip(const char *why) {
    printf("SKIP: %s\n", why);
    return EXIT_SKIP;
}

/* Calibration mode: the machine's roofs (roofs.h), measured after the
 * calibration cases passed, and the file with both. */
static int calibrate(driver *d, const kb_case_result *res, int n, kb_err *err) {
    static kb_roofs roofs;
    char how[512];
    double cases = kb_calibration_cases_best(res, n, how, sizeof how);
    double t0 = kb_now_s();
    if (kb_roofs_measure(d->ctx.backend, cases, how, &roofs, err) != 0) return -1;
    printf("calibration: roofs measured in %.1f s\n", kb_now_s() - t0);
    kb_report_roofs(stdout, &roofs);
    if (kb_calibration_write(d->calibration_path, &d->ctx, d->profile, res, n, &roofs, &d->stamp,
                             err) != 0)
        return -1;
    /* the result records the calibration written, as a reused one is */
    return kb_calibration_measured(&d->cal, d->calibration_path, d->ctx.backend->name,
                                   d->hardware_id, err);
}

static int finish(driver *d, kb_case_result *res, int n, int skipped, kb_err *err) {
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
    if (rc == 0 && d->opt.calibrate && !failed) rc = calibrate(d, res, n, err);
    const char *status = rc != 0 ? "error" : failed ? "failed" : "passed";
    if (write_result(d, &rep, status, env, err) != 0) rc = -1;
    if (rc != 0) fprintf(stderr, "kbench: error: %s\n", err->msg);
    printf("peak host memory %.1f MiB\n%s: %s (%d of %d cases failed, %d skipped)\n",
           kb_env_peak_rss_mib(), d->test_name, status, failed, n, skipped);
    fflush(stdout);
    kb_report_measurements(stdout, &rep);
    return rc != 0 ? EXIT_ERROR : failed ? EXIT_FAILED : EXIT_PASS;
}

/* A/B mode: the head compares with the base build's driver (driver/ab_start.h). */
static int start_ab(driver *d, const char *argv0, kb_err *err) {
    d->ctx.ab = &d->ab;
    return kb_ab_start(&d->ab, &d->opt, d->manifest.path, d->manifest.name, argv0, d->ab_note,
                       sizeof d->ab_note, err);
}

/* A test that does not run here (no device, every case declined) has no
 * result: the one begun is removed. */
static int skip_run(const char *why) {
    kb_progress_remove();
    return skip(why);
}

/* The backend cannot run here: a skip, unless a device is required. */
static int unavailable(const driver *d, const char *why) {
    if (!d->opt.require_device) return skip_run(why);
    char msg[1024];
    snprintf(msg, sizeof msg,
             "backend '%s' is not available: %s (a device is required: --require-device or "
             "KBENCH_REQUIRE_DEVICE=1)",
             d->opt.backend, why);
    return fail(d, msg);
}

/* A file named on the command line to read must be there: a missing
 * --baseline or --calibration is an error, not "no baseline" or "no
 * calibration" (which a new profile's or a new build's default file may
 * be). */
static int check_given_file(const char *option, const char *path, kb_err *err) {
    struct stat st;
    if (stat(path, &st) == 0) return 0;
    return kb_fail(err, "%s: %s: %s", option, path, strerror(errno));
}

/* Recording spreads its rounds over this build's processes: the others are
 * started here, once for every case of the test. */
static int start_recorders(driver *d, const kb_worker_run *run, kb_err *err) {
    if (d->opt.record_processes < 2) return 0;
    if (kb_workers_start(&d->recorders, d->opt.record_processes - 1, d->self, run, err) != 0)
        return -1;
    d->ctx.recorders = &d->recorders;
    return 0;
}

/* This build's other processes: recording spreads its rounds over them;
 * gating confirms a slowdown in one, started only when a case needs it
 * (runner.c). A run under a profiler measures one process only. */
static int prepare_workers(driver *d, const char *argv0, kb_err *err) {
    kb_workers_self(argv0, d->self, sizeof d->self);
    const kb_worker_run run = {d->opt.backend, d->opt.precision, d->manifest.path,
                               d->opt.seed,    d->opt.full,      d->opt.cold_cache};
    if (d->opt.update) return start_recorders(d, &run, err);
    if (d->opt.profiled_by) return 0;
    d->ctx.confirmer = &d->confirmer;
    d->ctx.worker_exe = d->self;
    d->ctx.confirmer_run = run;
    return 0;
}

/* What the run compares with: the baseline and the calibration, or in A/B
 * mode the base build. Calibrating measures the machine: no baseline, no
 * calibration to read, nothing to compare with. */
static int open_references(driver *d, const char *argv0, kb_err *err) {
    int ab = d->opt.ab_base && !d->opt.calibrate;
    if (ab && d->opt.update)
        return kb_fail(err, "A/B mode (--ab-base, KBENCH_AB_BASE) compares builds; it does not "
                            "record baselines (unset KBENCH_UPDATE_BASELINES)");
    if (d->opt.calibrate) return 0; /* --calibration is the file it writes */
    if (!ab && prepare_workers(d, argv0, err) != 0) return -1;
    /* when recording, --baseline is the file to create */
    if (!ab && d->opt.baseline_file && !d->opt.update &&
        check_given_file("--baseline", d->baseline_path, err) != 0)
        return -1;
    if (!ab && !d->opt.profiled_by &&
        kb_baseline_open_for(&d->baseline, d->baseline_path, d->manifest.name, d->profile, err) !=
            0)
        return -1;
    if (d->opt.calibration && check_given_file("--calibration", d->calibration_path, err) != 0)
        return -1;
    if (kb_calibration_read(&d->cal, d->calibration_path, d->ctx.backend->name, d->hardware_id,
                            err) != 0)
        return -1;
    return ab ? start_ab(d, argv0, err) : 0;
}

/* A crash or a hang leaves a result naming the case and the stage
 * (watchdog.h); an interrupted write leaves no temporary file. */
static int watch(driver *d, kb_err *err) {
    kb_atomicfile_catch_signals();
    kb_watchdog_catch_crashes();
    d->env = kb_env_describe(d->hardware_id, d->profile);
    if (!d->env) return kb_fail(err, "out of memory");
    d->ctx.backend->describe(d->env);
    return kb_watchdog_start(d->opt.timeout_s, err);
}

/* Calibration mode: a calibration this machine measured in this boot, with
 * this build of the driver, for the same cases, not long ago, is reused
 * instead of measured again (docs/calibration.md). EXIT_PASS when reused,
 * EXIT_ERROR on a bad setting, -1 to measure (d->stamp then says under
 * what). */
static int reuse_calibration(driver *d) {
    kb_err err = {{0}};
    kb_calibration_policy policy;
    if (kb_calibration_policy_env(&policy, &err) != 0) return fail(d, err.msg);
    const cJSON *bus = cJSON_GetObjectItemCaseSensitive(d->env, "pci_bus_id");
    kb_calibration_stamp_init(&d->stamp, d->hardware_id,
                              cJSON_IsString(bus) ? bus->valuestring : "", d->ctx.kernel_name,
                              kb_prec_name(d->ctx.prec));
    for (int i = 0; i < d->manifest.n_cases; ++i) {
        const kb_case *c = &d->manifest.cases[i];
        if (!selected(d, c)) continue;
        for (int j = 0; j < d->n_impls; ++j) {
            double flops, bytes;
            char variant[96]; /* as run_one names it */
            snprintf(variant, sizeof variant, "%s%s", d->impls[j]->variant,
                     d->opt.cold_cache ? "+cold" : "");
            if (kb_manifest_counts(&d->manifest, c, d->ctx.prec, d->impls[j]->variant, &flops,
                                   &bytes, &err) != 0)
                return fail(d, err.msg);
            kb_calibration_stamp_case(&d->stamp, c->name, variant, bytes);
        }
    }
    if (!kb_calibration_reusable(&d->cal, d->calibration_path, d->ctx.backend->name, &d->stamp,
                                 &policy, (double)time(NULL))) {
        printf("calibration: measuring (%s)\n", d->cal.why_measured);
        return -1;
    }
    char age[32];
    kb_calibration_age_text(d->cal.age_s, age, sizeof age);
    printf("calibration reused: measured %s ago on this machine since its last boot, by this "
           "build, for the same cases (%s); KBENCH_RECALIBRATE=1 re-measures\n",
           age, d->cal.file);
    kb_report_roofs(stdout, &d->cal.roofs);
    kb_report rep = {d->test_name, &d->ctx, d->profile, d->baseline_path, NULL, &d->cal, NULL, 0};
    cJSON *env = d->env;
    d->env = NULL;
    if (write_result(d, &rep, "passed", env, &err) != 0) return error_exit(err.msg);
    printf("%s: passed (calibration reused: %.2f GB/s peak, measured at %s)\n", d->test_name,
           d->cal.peak_gbps, d->cal.measured_at);
    return EXIT_PASS;
}

static int run(driver *d, const char *argv0) {
    kb_err err = {{0}};
    if (resolve_names(d, &err) != 0 || watch(d, &err) != 0 || open_references(d, argv0, &err) != 0)
        return fail(d, err.msg);
    d->ctx.baseline = &d->baseline;
    d->ctx.hardware_id = d->hardware_id;
    static kb_case_result res[KB_MAX_CASES * KB_MAX_IMPLS];
    int n = 0;
    int rc = d->opt.calibrate ? reuse_calibration(d) : -1; /* -1: run the cases */
    if (rc < 0) rc = run_all(d, res, &n, &err) != 0 ? fail(d, err.msg) : -1;
    kb_ref_cache_clear(&d->refs); /* every case done: not held through the calibration */
    /* Every case declined: the test skips with the first reason. */
    int skipped = count_skipped(res, n);
    if (rc < 0)
        rc = n > 0 && skipped == n ? skip_run(res[0].skip_why) : finish(d, res, n, skipped, &err);
    kb_watchdog_stop();
    for (int i = 0; i < n; ++i) kb_case_result_free(&res[i]);
    kb_baseline_close(&d->baseline);
    cJSON_Delete(d->env);
    if (d->ab.has_partner) kb_ab_stop(&d->ab);
    kb_workers_stop(&d->recorders);
    kb_workers_stop(&d->confirmer);
    return rc;
}

/* Sets the backend up for every mode that runs the kernel here (a run,
 * calibration, --print-profile, the A/B partner) the one same way: the
 * device CTest's resource spec assigns, its stream, events, hold and
 * monitor (backend->available), then plain timing under a profiler. 0 when
 * set up; 1 when the backend cannot run here (`why` says why); -1 with a
 * message. */
static int set_up_backend(driver *d, char *why, size_t size, kb_err *err) {
    if (needs_resource_spec()) {
        char doc[KB_PATH_MAX];
        kb_doc_path(doc, sizeof doc, "resource-spec.md");
        return kb_fail(err,
                       "this build runs GPU tests side by side (KBENCH_GPU_PARALLEL=ON), so "
                       "each needs a GPU of its own: run ctest with --resource-spec-file (%s)",
                       doc);
    }
    if (d->ctx.backend->available(why, size) != 0) return 1;
    if (d->opt.profiled_by && d->ctx.backend->profiled) d->ctx.backend->profiled();
    return 0;
}

/* The A/B partner: it serves only once its backend is set up; one that
 * cannot be declines with one protocol line the head reports (partner/protocol.h). */
static int serve(driver *d) {
    kb_err err = {{0}};
    char why[512] = "";
    int rc = set_up_backend(d, why, sizeof why, &err);
    if (rc != 0) {
        kb_partner_decline(stdout, rc > 0 ? why : err.msg);
        return error_exit(rc > 0 ? why : err.msg);
    }
    int served = kb_serve(&d->ctx, d->impls, d->n_impls, &err);
    kb_ref_cache_clear(&d->refs);
    return served == 0 ? EXIT_PASS : error_exit(err.msg);
}

int main(int argc, char **argv) {
    static driver d;
    kb_err err = {{0}};
    if (setup(&d, argc, argv, &err) != 0) {
        int rc = fail(&d, err.msg);
        kb_options_usage(stderr, argv[0]);
        return rc;
    }
    if (d.opt.help) {
        kb_options_usage(stdout, argv[0]);
        return EXIT_PASS;
    }
    /* once, by the run the user started (not by the one a profiler runs) */
    if (*d.opt.warning && !d.opt.list && !d.opt.partner && !d.opt.profiled_by)
        fprintf(stderr, "kbench: warning: %s\n", d.opt.warning);
    /* Neither mode runs the kernel in this process: --list reads the
     * manifest, --profile-with runs this driver again under the profiler,
     * which sets its backend up below. */
    if (d.opt.list) {
        list_cases(&d, d.ctx.prec);
        return EXIT_PASS;
    }
    if (d.opt.profile_with) {
        kb_profile_job job = {&d.opt,        &d.manifest, d.test_name, d.impls, d.n_impls,
                              selected_case, &d,          argc,        argv};
        return resolve_test_name(&d, &err) != 0 ? error_exit(err.msg) : kb_profile_run(&job);
    }
    if (d.opt.partner) return serve(&d);
    char why[512] = "";
    int rc = set_up_backend(&d, why, sizeof why, &err);
    if (rc < 0) return fail(&d, err.msg);
    if (rc > 0) return unavailable(&d, why);
    if (d.opt.print_profile) {
        if (resolve_names(&d, &err) != 0) return error_exit(err.msg);
        printf("profile: %s\nhardware: %s\n", d.profile, d.hardware_id);
        return EXIT_PASS;
    }
    return run(&d, argv[0]);
}
