/* One invocation of a kernel's driver, shared by the driver's files: what
 * the options select, the manifest, the run's context and what it compares
 * with. main() fills one and hands it to the mode the options name; the
 * files below each do one part of that and meet only through this state. */
#ifndef KB_DRIVER_H
#define KB_DRIVER_H

#include "base/error.h"
#include "base/pathname.h"
#include "driver/options.h"
#include "formats/baseline.h"
#include "formats/manifest.h"
#include "measure/refcache.h"
#include "output/report.h"
#include "partner/ab.h"
#include "partner/workers.h"
#include "run/calibration.h"
#include "run/runner.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* The statuses CTest reads: 77 is its skip (SKIP_RETURN_CODE). */
enum { KB_EXIT_PASS = 0, KB_EXIT_FAILED = 1, KB_EXIT_ERROR = 2, KB_EXIT_SKIP = 77 };

typedef struct kb_driver {
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
} kb_driver;

/* invocation.c: what every mode needs. Parses the options, starts the
 * result file, loads the manifest and selects the precision, backend,
 * implementations and cases; 0, or -1 with a message. */
int kb_driver_prepare(kb_driver *d, int argc, char **argv, kb_err *err);
/* Whether case c runs in this invocation. */
int kb_driver_selected(const kb_driver *d, const kb_case *c);
/* The test's name, from the options alone. */
int kb_driver_resolve_test_name(kb_driver *d, kb_err *err);

/* backend_setup.c: the one way every mode that runs the kernel in this
 * process sets its backend up. 0 when set up; 1 when the backend cannot run
 * here (`why` says why); -1 with a message. */
int kb_driver_set_up_backend(kb_driver *d, char *why, size_t size, kb_err *err);

/* run_setup.c: the profile and the files' paths (also --print-profile). */
int kb_driver_resolve_names(kb_driver *d, kb_err *err);
/* Names, the watchdog, and what the run compares with. */
int kb_driver_set_up_run(kb_driver *d, const char *argv0, kb_err *err);

/* run.c: runs the selected cases and reports them; the exit status. */
int kb_driver_run(kb_driver *d, const char *argv0);

/* calibrate.c: calibration mode. kb_driver_reuse_calibration returns
 * KB_EXIT_PASS when a fresh calibration is reused, KB_EXIT_ERROR on a bad
 * setting, -1 to measure; kb_driver_calibrate measures the roofs after the
 * cases and writes the calibration (0, or -1 with a message). */
int kb_driver_reuse_calibration(kb_driver *d);
int kb_driver_calibrate(kb_driver *d, const kb_case_result *res, int n, kb_err *err);

/* result_file.c: the test's result file and the ways a test ends early.
 * Starts <results>/<test>.json when this invocation writes one. */
int kb_driver_start_result_file(kb_driver *d, kb_err *err);
/* Writes the result with `status`; takes env. No result file: none. */
int kb_driver_write_result(const kb_driver *d, const kb_report *rep, const char *status, cJSON *env,
                           kb_err *err);
/* An error, said; KB_EXIT_ERROR. */
int kb_driver_error(const char *msg);
/* An error that ends the run: said, and written as the test's result. */
int kb_driver_fail(const kb_driver *d, const char *msg);
/* A test that does not run here: its result removed; KB_EXIT_SKIP. */
int kb_driver_skip(const char *why);
/* The backend cannot run here: a skip, unless a device is required. */
int kb_driver_unavailable(const kb_driver *d, const char *why);

/* modes.c: the modes that run no test of the cases; each returns the exit
 * status. */
int kb_driver_list(const kb_driver *d);
int kb_driver_profile(kb_driver *d, int argc, char **argv);
int kb_driver_serve(kb_driver *d);
int kb_driver_print_profile(kb_driver *d);

#endif
