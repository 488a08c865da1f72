#define _GNU_SOURCE
#include "guard/progress.h"

#include "base/atomicfile.h"
#include "base/result_keys.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "<key>": as the JSON text names a member. */
#define KEY(k) "\"" k "\":"

/* The parts of the file prepared outside any event, as JSON text. */
typedef struct snapshot {
    char *fields;   /* the result's members, without the enclosing braces */
    char *cases;    /* the cases done, without the enclosing brackets */
    char *case_key; /* "case":"<name>","variant":"<variant>", or NULL: no case running */
} snapshot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char path[KB_PATH_MAX], tmp_path[KB_PATH_MAX];
static snapshot now;
static int active;

static void snapshot_free(snapshot *s) {
    free(s->fields);
    free(s->cases);
    free(s->case_key);
    memset(s, 0, sizeof *s);
}

int kb_progress_begin(const char *result_path, kb_err *err) {
    if (snprintf(path, sizeof path, "%s", result_path) >= (int)sizeof path ||
        snprintf(tmp_path, sizeof tmp_path, "%s.tmp.%ld.signal", result_path, (long)getpid()) >=
            (int)sizeof tmp_path)
        return kb_fail(err, "%s: path too long", result_path);
    if (unlink(path) != 0 && errno != ENOENT)
        return kb_fail(err, "%s: cannot remove the previous run's result: %s", path,
                       strerror(errno));
    active = 1;
    return 0;
}

/* ---- async-signal-safe output -------------------------------------------- */

static int put(int fd, const char *s) {
    return kb_write_all(fd, s);
}

/* Seconds with six decimals ("2.500000"), without printf. */
static void format_seconds(double v, char *out) {
    unsigned long long us = v > 0.0 && v < 1e12 ? (unsigned long long)(v * 1e6 + 0.5) : 0;
    char digits[32];
    int n = 0;
    unsigned long long whole = us / 1000000;
    do digits[n++] = (char)('0' + whole % 10);
    while ((whole /= 10) > 0);
    int k = 0;
    while (n > 0) out[k++] = digits[--n];
    out[k++] = '.';
    for (unsigned long long unit = 100000; unit > 0; unit /= 10)
        out[k++] = (char)('0' + us / unit % 10);
    out[k] = '\0';
}

static int put_seconds(int fd, double v) {
    char text[40];
    format_seconds(v, text);
    return put(fd, text);
}

static int put_string(int fd, const char *s) {
    return put(fd, "\"") || put(fd, s) || put(fd, "\""); /* s holds no JSON specials */
}

static int put_stages(int fd, const kb_progress_event *ev) {
    int rc = put(fd, KEY(KB_KEY_STAGES_S) "{"), first = 1;
    for (int i = 0; i < KB_STAGE_COUNT && rc == 0; ++i) {
        if (ev->stage_s[i] <= 0.0 && i != (int)ev->stage) continue;
        rc = (first ? 0 : put(fd, ",")) || put_string(fd, kb_stage_name((kb_stage)i)) ||
             put(fd, ":") || put_seconds(fd, ev->stage_s[i]);
        first = 0;
    }
    return rc || put(fd, "}");
}

/* The running case's entry in "cases": failed, with what stopped it. */
static int put_case_entry(int fd, const kb_progress_event *ev) {
    const char *stage = kb_stage_name(ev->stage);
    int rc = put(fd, "{") || put(fd, now.case_key) ||
             put(fd, "," KEY(KB_KEY_PASSED) "false," KEY(KB_KEY_ERROR) "\"");
    if (strcmp(ev->status, "timeout") == 0)
        rc = rc || put(fd, "timeout: stage '") || put(fd, stage) || put(fd, "' ran ") ||
             put_seconds(fd, ev->elapsed_s) || put(fd, " s of the ") ||
             put_seconds(fd, ev->limit_s) ||
             put(fd, " s left before the test's time limit (--timeout, KBENCH_TIMEOUT)");
    else if (strcmp(ev->status, "crashed") == 0)
        rc = rc || put(fd, "crashed: ") || put(fd, ev->signal ? ev->signal : "signal") ||
             put(fd, " in stage '") || put(fd, stage) || put(fd, "'");
    else
        rc = rc || put(fd, "running when the result was last written: the driver did not "
                           "finish this case (killed, or still running)");
    return rc || put(fd, "\"}");
}

static int put_in_progress(int fd, const kb_progress_event *ev) {
    int rc = put(fd, "," KEY(KB_KEY_IN_PROGRESS) "{");
    if (now.case_key) rc = rc || put(fd, now.case_key) || put(fd, ",");
    rc = rc || put(fd, KEY(KB_KEY_STAGE)) || put_string(fd, kb_stage_name(ev->stage)) ||
         put(fd, "," KEY(KB_KEY_ELAPSED_S)) || put_seconds(fd, ev->elapsed_s) ||
         put(fd, "," KEY(KB_KEY_LIMIT_S));
    rc = rc || (ev->limit_s >= 0.0 ? put_seconds(fd, ev->limit_s) : put(fd, "null"));
    if (ev->signal) rc = rc || put(fd, "," KEY(KB_KEY_SIGNAL)) || put_string(fd, ev->signal);
    return rc || put(fd, ",") || put_stages(fd, ev) || put(fd, "}");
}

static int put_document(int fd, const kb_progress_event *ev) {
    int rc = put(fd, "{" KEY(KB_KEY_STATUS)) || put_string(fd, ev->status) || put(fd, ",") ||
             put(fd, now.fields) || put(fd, "," KEY(KB_KEY_CASES) "[") || put(fd, now.cases);
    if (now.case_key) rc = rc || put(fd, *now.cases ? "," : "") || put_case_entry(fd, ev);
    return rc || put(fd, "]") || put_in_progress(fd, ev) || put(fd, "}\n");
}

int kb_progress_write(const kb_progress_event *ev) {
    if (!active || !now.fields || !now.cases) return 0;
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    int rc = put_document(fd, ev);
    rc = close(fd) != 0 || rc;
    if (rc == 0 && rename(tmp_path, path) == 0) return 0;
    unlink(tmp_path);
    return -1;
}

/* ---- preparing the text ---------------------------------------------------- */

/* cJSON's compact text of item with its first and last character (the
 * braces) cut, or the whole text; takes item over. */
static char *json_text(cJSON *item, int inner) {
    char *text = item ? cJSON_PrintUnformatted(item) : NULL;
    cJSON_Delete(item);
    size_t n = text ? strlen(text) : 0;
    if (inner && n >= 2) {
        memmove(text, text + 1, n - 2);
        text[n - 2] = '\0';
    }
    return text;
}

/* Rewrites the file for the state now, with status "running". */
static int write_running(kb_err *err) {
    kb_progress_event ev = {.status = "running", .limit_s = -1.0};
    ev.stage = now.case_key ? KB_STAGE_SETUP : KB_STAGE_START;
    if (kb_progress_write(&ev) == 0) return 0;
    return kb_fail(err, "%s: cannot write the result so far: %s", path, strerror(errno));
}

/* Replaces *field with text (NULL: out of memory) and rewrites the file. */
static int update(char **field, char *text, int write, kb_err *err) {
    if (!text) return kb_fail(err, "%s: out of memory for the result so far", path);
    pthread_mutex_lock(&lock);
    free(*field);
    *field = text;
    int rc = write ? write_running(err) : 0;
    pthread_mutex_unlock(&lock);
    return rc;
}

int kb_progress_fields(cJSON *result, kb_err *err) {
    char *cases = strdup("");
    if (update(&now.cases, cases, 0, err) != 0) return -1;
    char *fields = json_text(result, 1);
    if (fields && !*fields) { /* never an empty object: the text after it starts with ',' */
        free(fields);
        fields = NULL;
    }
    return update(&now.fields, fields, 1, err);
}

/* ": case <name>, variant <variant>" while a case runs, else "": for the
 * watchdog's messages, read without the lock (a signal handler may). */
static char running_case[256];

const char *kb_progress_running_case(void) {
    return running_case;
}

int kb_progress_case_start(const char *case_name, const char *variant, kb_err *err) {
    snprintf(running_case, sizeof running_case, ": case %.100s, variant %.100s", case_name,
             variant);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, KB_KEY_CASE, case_name);
    cJSON_AddStringToObject(o, KB_KEY_VARIANT, variant);
    return update(&now.case_key, json_text(o, 1), 1, err);
}

int kb_progress_case_done(cJSON *entry, kb_err *err) {
    char *text = json_text(entry, 0), *joined = NULL;
    if (text && asprintf(&joined, "%s%s%s", now.cases, *now.cases ? "," : "", text) < 0)
        joined = NULL;
    free(text);
    int rc = update(&now.cases, joined, 0, err);
    pthread_mutex_lock(&lock);
    free(now.case_key);
    now.case_key = NULL;
    running_case[0] = '\0';
    pthread_mutex_unlock(&lock);
    return rc;
}

void kb_progress_hold(void) {
    pthread_mutex_lock(&lock);
}

void kb_progress_remove(void) {
    int was_active = active;
    kb_progress_end();
    if (was_active) unlink(path);
}

void kb_progress_end(void) {
    pthread_mutex_lock(&lock);
    active = 0;
    snapshot_free(&now);
    pthread_mutex_unlock(&lock);
}
