/* The result file while a test runs: written before every case with status
 * "running", the cases done so far and the case now running, so that a
 * driver that crashes, hangs or is killed leaves every finished case's
 * result and names the one it was in. The watchdog (watchdog.h) turns it
 * into a "timeout" or "crashed" result from a signal handler or its own
 * thread, so writing it from an event is async-signal-safe: the JSON is
 * prepared beforehand and the event only adds small, pre-escaped pieces.
 *
 *   {"status": ..., <the result's fields>, "cases": [<cases done>,
 *    {"case", "variant", "passed": false, "error"}], "in_progress": {"case",
 *    "variant", "stage", "elapsed_s", "limit_s", "signal", "stages_s"}}
 */
#ifndef KB_PROGRESS_H
#define KB_PROGRESS_H

#include "base/error.h"
#include "guard/stage.h"

#include <cjson/cJSON.h>

/* What stopped the run, as the watchdog saw it. */
typedef struct kb_progress_event {
    const char *status;             /* "running", "timeout" or "crashed" */
    const char *signal;             /* "SIGSEGV"...; NULL: none */
    kb_stage stage;                 /* the stage running */
    double elapsed_s;               /* in that stage so far */
    double limit_s;                 /* the time it had; < 0: no limit */
    double stage_s[KB_STAGE_COUNT]; /* each stage's time in the case so far */
} kb_progress_event;

/* Starts the result file at `path`: the previous run's result is removed
 * at once, so that a run that stops before writing one leaves none. */
int kb_progress_begin(const char *path, kb_err *err);

/* The result's members other than "status" and "cases" (takes `result`
 * over): set once, before the first case. Writes the file with status
 * "running" and no case yet. */
int kb_progress_fields(cJSON *result, kb_err *err);

/* A case begins: the file is rewritten with status "running", naming it. */
int kb_progress_case_start(const char *case_name, const char *variant, kb_err *err);

/* ": case <name>, variant <variant>" while a case runs, "" between
 * cases; async-signal-safe. */
const char *kb_progress_running_case(void);

/* The case is done: its entry (takes `entry` over) joins the cases. */
int kb_progress_case_done(cJSON *entry, kb_err *err);

/* Rewrites the file for the event (async-signal-safe). Returns 0 or -1. */
int kb_progress_write(const kb_progress_event *ev);

/* Takes the file's lock for good, so that no case's start or end rewrites
 * it any more: the watchdog's thread, before it writes an event and ends
 * the process. */
void kb_progress_hold(void);

/* The run ended normally: the final result replaces the file. */
void kb_progress_end(void);

/* The run has no result (it skipped): the file goes. */
void kb_progress_remove(void);

#endif
