/* A run's setup, once the backend is: the profile and the paths of the
 * baseline and calibration files, the watchdog and the environment the run
 * is measured in, and what the run compares with (the baseline and the
 * calibration, or the A/B base), with the other processes of this build
 * that recording and gating use. */
#define _GNU_SOURCE
#include "base/atomicfile.h"
#include "driver/ab_start.h"
#include "driver/driver.h"
#include "guard/watchdog.h"
#include "machine/envinfo.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* The profile: the option's or variable's (checked as a name when parsed),
 * else the configured one, else the hardware's. */
static int resolve_profile(kb_driver *d, kb_err *err) {
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

static int resolve_paths(kb_driver *d, kb_err *err) {
    const kb_options *o = &d->opt;
    const char *results = *o->results_dir ? o->results_dir : ".";
    if (kb_driver_resolve_test_name(d, err) != 0) return -1;
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

int kb_driver_resolve_names(kb_driver *d, kb_err *err) {
    if (resolve_profile(d, err) != 0) return -1;
    return resolve_paths(d, err);
}

/* A crash or a hang leaves a result naming the case and the stage
 * (watchdog.h); an interrupted write leaves no temporary file. */
static int watch(kb_driver *d, kb_err *err) {
    kb_atomicfile_catch_signals();
    kb_watchdog_catch_crashes();
    d->env = kb_env_describe(d->hardware_id, d->profile);
    if (!d->env) return kb_fail(err, "out of memory");
    d->ctx.backend->describe(d->env);
    return kb_watchdog_start(d->opt.timeout_s, err);
}

/* A/B mode: the head compares with the base build's driver (driver/ab_start.h). */
static int start_ab(kb_driver *d, const char *argv0, kb_err *err) {
    d->ctx.ab = &d->ab;
    return kb_ab_start(&d->ab, &d->opt, d->manifest.path, d->manifest.name, argv0, d->ab_note,
                       sizeof d->ab_note, err);
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
static int start_recorders(kb_driver *d, const kb_worker_run *run, kb_err *err) {
    if (d->opt.record_processes < 2) return 0;
    if (kb_workers_start(&d->recorders, d->opt.record_processes - 1, d->self, run, err) != 0)
        return -1;
    d->ctx.recorders = &d->recorders;
    return 0;
}

/* This build's other processes: recording spreads its rounds over them;
 * gating confirms a slowdown in one, started only when a case needs it
 * (runner.c). A run under a profiler measures one process only. */
static int prepare_workers(kb_driver *d, const char *argv0, kb_err *err) {
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

/* The baseline (outside A/B mode, and not under a profiler, which gates
 * nothing) and the calibration, which gives the cases their share of the
 * machine's peak. */
static int open_baseline_and_calibration(kb_driver *d, int ab, kb_err *err) {
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
    return 0;
}

/* What the run compares with: the baseline and the calibration, or in A/B
 * mode the base build. Calibrating measures the machine: no baseline, no
 * calibration to read, nothing to compare with. */
static int prepare_comparison(kb_driver *d, const char *argv0, kb_err *err) {
    int ab = d->opt.ab_base && !d->opt.calibrate;
    if (ab && d->opt.update)
        return kb_fail(err, "A/B mode (--ab-base, KBENCH_AB_BASE) compares builds; it does not "
                            "record baselines (unset KBENCH_UPDATE_BASELINES)");
    if (d->opt.calibrate) return 0; /* --calibration is the file it writes */
    if (!ab && prepare_workers(d, argv0, err) != 0) return -1;
    if (open_baseline_and_calibration(d, ab, err) != 0) return -1;
    return ab ? start_ab(d, argv0, err) : 0;
}

int kb_driver_set_up_run(kb_driver *d, const char *argv0, kb_err *err) {
    if (kb_driver_resolve_names(d, err) != 0 || watch(d, err) != 0 ||
        prepare_comparison(d, argv0, err) != 0)
        return -1;
    d->ctx.baseline = &d->baseline;
    d->ctx.hardware_id = d->hardware_id;
    return 0;
}
