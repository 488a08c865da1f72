/* The test's result file, <results>/<test>.json, and how a test ends before
 * its report: the previous run's result is replaced as the run starts (so
 * that whatever stops this run, it is not read as this run's), the report
 * is written at the end, an error that stops the run is written as the
 * result, and a test that skips leaves none. */
#define _GNU_SOURCE
#include "base/atomicfile.h"
#include "base/utf8.h"
#include "driver/driver.h"
#include "formats/json_write.h"
#include "guard/progress.h"

#include <stdio.h>
#include <stdlib.h>

int kb_driver_error(const char *msg) {
    fprintf(stderr, "kbench: error: %s\n", msg);
    return KB_EXIT_ERROR;
}

/* Whether this invocation runs the test and writes <results>/<test>.json
 * (not --list, --print-profile or --partner, and a results directory set). */
static int writes_result(const kb_options *o) {
    return !o->list && !o->print_profile && !o->partner && !o->profile_with && *o->results_dir;
}

/* The previous run's result goes at once: whatever stops this run, it is
 * not read as this run's. */
int kb_driver_start_result_file(kb_driver *d, kb_err *err) {
    if (!writes_result(&d->opt)) return 0;
    if (kb_driver_resolve_test_name(d, err) != 0 ||
        kb_path_format(d->result_path, sizeof d->result_path, err, "--results-dir", "%s/%s.json",
                       d->opt.results_dir, d->test_name) != 0 ||
        kb_mkdir_p(d->opt.results_dir, err) != 0)
        return -1;
    return kb_progress_begin(d->result_path, err);
}

static int write_text(const char *path, cJSON *json, kb_err *err) {
    char *text = kb_json_print(json);
    cJSON_Delete(json);
    int rc = text ? kb_write_file_atomic(path, text, err) : kb_fail(err, "%s: out of memory", path);
    free(text);
    return rc;
}

int kb_driver_write_result(const kb_driver *d, const kb_report *rep, const char *status, cJSON *env,
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
static void write_error_result(const kb_driver *d, const char *msg) {
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

int kb_driver_fail(const kb_driver *d, const char *msg) {
    write_error_result(d, msg);
    return kb_driver_error(msg);
}

/* A test that does not run here (no device, every case declined) has no
 * result: the one begun is removed. */
int kb_driver_skip(const char *why) {
    kb_progress_remove();
    printf("SKIP: %s\n", why);
    return KB_EXIT_SKIP;
}

int kb_driver_unavailable(const kb_driver *d, const char *why) {
    if (!d->opt.require_device) return kb_driver_skip(why);
    char msg[1024];
    snprintf(msg, sizeof msg,
             "backend '%s' is not available: %s (a device is required: --require-device or "
             "KBENCH_REQUIRE_DEVICE=1)",
             d->opt.backend, why);
    return kb_driver_fail(d, msg);
}
