/* The calibration file as read: its fields checked (a malformed one is an
 * error naming the field), the roofs it holds, and its age. Every test
 * reads it to report its GB/s against the machine; it needs nothing of the
 * runner, so the reports and the fuzzer read it without one. */
#define _GNU_SOURCE
#include "measure/calibration_file.h"

#include "formats/json_read.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((format(printf, 2, 3))) static int absent(kb_calibration *cal, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cal->note, sizeof cal->note, fmt, ap);
    va_end(ap);
    return 0;
}

/* The fields every calibration file holds, checked; the backend must be
 * the one being run (the file is <results>/calibration/<backend>.json). */
static int read_fields(kb_calibration *cal, const cJSON *root, const char *path,
                       const char *backend, char *file_hw, size_t hw_size, kb_err *err) {
    char file_backend[16];
    if (!cJSON_IsObject(root)) return kb_fail(err, "%s: expected a JSON object", path);
    if (kb_json_string(root, "backend", 1, file_backend, sizeof file_backend, path, "", err) != 0 ||
        kb_json_string(root, "hardware_id", 1, file_hw, hw_size, path, "", err) != 0 ||
        kb_json_string(root, "measured_at", 1, cal->measured_at, sizeof cal->measured_at, path, "",
                       err) != 0 ||
        kb_json_number(root, "peak_gbps", 1, &cal->peak_gbps, path, "", err) != 0)
        return -1;
    if (!(cal->peak_gbps > 0.0))
        return kb_fail(err, "%s: field 'peak_gbps': expected a positive number, got %g", path,
                       cal->peak_gbps);
    if (strcmp(file_backend, backend) != 0)
        return kb_fail(err,
                       "%s: field 'backend': the file holds the calibration of backend '%s', not "
                       "'%s' (the backend being run)",
                       path, file_backend, backend);
    const cJSON *cases;
    return kb_json_array(root, "cases", 0, &cases, path, "", err);
}

static int positive(double v, const char *path, const char *field, kb_err *err) {
    return v > 0.0
               ? 0
               : kb_fail(err, "%s: field '%s': expected a positive number, got %g", path, field, v);
}

/* A number member that must be positive (and, as every number read, finite). */
static int read_positive(const cJSON *o, const char *key, double *out, const char *path,
                         const char *field, kb_err *err) {
    char full[96];
    snprintf(full, sizeof full, "%.60s.%.30s", field, key);
    if (kb_json_number(o, key, 1, out, path, field, err) != 0) return -1;
    return positive(*out, path, full, err);
}

static int read_level(const cJSON *o, kb_level_roof *l, const char *path, const char *field,
                      kb_err *err) {
    static const char *const known[] = {"name", "capacity_bytes", "gbps", "how", NULL};
    char full[96];
    snprintf(full, sizeof full, "%.60s.capacity_bytes", field);
    if (!cJSON_IsObject(o)) return kb_fail(err, "%s: field '%s': expected an object", path, field);
    if (kb_json_known_keys(o, known, path, field, err) != 0 ||
        kb_json_string(o, "name", 1, l->level.name, sizeof l->level.name, path, field, err) != 0 ||
        kb_json_number(o, "capacity_bytes", 1, &l->level.capacity, path, field, err) != 0 ||
        read_positive(o, "gbps", &l->gbps, path, field, err) != 0 ||
        kb_json_string(o, "how", 1, l->how, sizeof l->how, path, field, err) != 0)
        return -1;
    if (!l->level.name[0]) return kb_fail(err, "%s: field '%s.name': empty", path, field);
    return l->level.capacity >= 0.0
               ? 0
               : kb_fail(err, "%s: field '%s': expected 0 or a positive number, got %g", path, full,
                         l->level.capacity);
}

static int read_levels(const cJSON *root, kb_roofs *r, const char *path, kb_err *err) {
    const cJSON *levels;
    if (kb_json_array(root, "levels", 0, &levels, path, "", err) != 0) return -1;
    if (!levels) return 0;
    int n = cJSON_GetArraySize(levels);
    if (n < 1 || n > KB_MAX_MEM_LEVELS)
        return kb_fail(err, "%s: field 'levels': expected 1 to %d levels, got %d", path,
                       KB_MAX_MEM_LEVELS, n);
    kb_mem_level check[KB_MAX_MEM_LEVELS];
    for (int i = 0; i < n; ++i) {
        char field[32];
        snprintf(field, sizeof field, "levels[%d]", i);
        if (read_level(cJSON_GetArrayItem(levels, i), &r->levels[i], path, field, err) != 0)
            return -1;
        check[i] = r->levels[i].level;
    }
    const char *problem = kb_levels_problem(check, n);
    if (problem) return kb_fail(err, "%s: field 'levels': %s", path, problem);
    r->n_levels = n;
    return 0;
}

/* "compute" or "matrix": {"<precision>": {"gflops", "how"}}. */
static int read_compute(const cJSON *root, const char *key, kb_compute_roof *roofs,
                        const char *path, kb_err *err) {
    const cJSON *obj;
    if (kb_json_object(root, key, 0, &obj, path, "", err) != 0) return -1;
    static const char *const known[] = {"gflops", "how", NULL};
    for (const cJSON *e = obj ? obj->child : NULL; e; e = e->next) {
        char field[96];
        snprintf(field, sizeof field, "%s.%.40s", key, e->string);
        int p = kb_prec_parse(e->string);
        if (p < 0) return kb_fail(err, "%s: field '%s': not a precision", path, field);
        if (!cJSON_IsObject(e))
            return kb_fail(err, "%s: field '%s': expected an object", path, field);
        if (kb_json_known_keys(e, known, path, field, err) != 0 ||
            read_positive(e, "gflops", &roofs[p].gflops, path, field, err) != 0 ||
            kb_json_string(e, "how", 1, roofs[p].how, sizeof roofs[p].how, path, field, err) != 0)
            return -1;
    }
    return 0;
}

static int read_sweep(const cJSON *root, kb_roofs *r, const char *path, kb_err *err) {
    const cJSON *sweep;
    if (kb_json_array(root, "sweep", 0, &sweep, path, "", err) != 0) return -1;
    if (!sweep) return 0;
    int n = cJSON_GetArraySize(sweep);
    if (n > KB_MAX_SWEEP)
        return kb_fail(err, "%s: field 'sweep': more than %d points (%d)", path, KB_MAX_SWEEP, n);
    static const char *const known[] = {"working_set_bytes", "gbps", NULL};
    for (int i = 0; i < n; ++i) {
        const cJSON *o = cJSON_GetArrayItem(sweep, i);
        char field[32];
        snprintf(field, sizeof field, "sweep[%d]", i);
        if (!cJSON_IsObject(o))
            return kb_fail(err, "%s: field '%s': expected an object", path, field);
        if (kb_json_known_keys(o, known, path, field, err) != 0 ||
            read_positive(o, "working_set_bytes", &r->sweep[i].working_set_bytes, path, field,
                          err) != 0 ||
            read_positive(o, "gbps", &r->sweep[i].gbps, path, field, err) != 0)
            return -1;
    }
    r->n_sweep = n;
    return 0;
}

/* An optional member that, when there, must be positive. */
static int read_optional_positive(const cJSON *o, const char *key, double *out, const char *path,
                                  const char *field, kb_err *err) {
    return cJSON_GetObjectItemCaseSensitive(o, key) ? read_positive(o, key, out, path, field, err)
                                                    : 0;
}

/* "patterns": {"read", "triad", "copy": {"gbps", "cached_gbps", "nt_gbps",
 * "how"}}, all three or none. */
static int read_patterns(const cJSON *root, kb_roofs *r, const char *path, kb_err *err) {
    const cJSON *obj;
    if (kb_json_object(root, "patterns", 0, &obj, path, "", err) != 0) return -1;
    if (!obj) return 0;
    static const char *const names[] = {"read", "triad", "copy", NULL};
    static const char *const known[] = {"gbps", "cached_gbps", "nt_gbps", "how", NULL};
    if (kb_json_known_keys(obj, names, path, "patterns", err) != 0) return -1;
    for (int p = 0; p < KB_PATTERN_COUNT; ++p) {
        kb_pattern_roof *pr = &r->patterns[p];
        const char *name = kb_pattern_name((kb_mem_pattern)p);
        char field[32];
        snprintf(field, sizeof field, "patterns.%s", name);
        const cJSON *e;
        if (kb_json_object(obj, name, 1, &e, path, "patterns", err) != 0 ||
            kb_json_known_keys(e, known, path, field, err) != 0 ||
            read_positive(e, "gbps", &pr->gbps, path, field, err) != 0 ||
            read_optional_positive(e, "cached_gbps", &pr->cached_gbps, path, field, err) != 0 ||
            read_optional_positive(e, "nt_gbps", &pr->nt_gbps, path, field, err) != 0 ||
            kb_json_string(e, "how", 1, pr->how, sizeof pr->how, path, field, err) != 0)
            return -1;
    }
    r->n_patterns = KB_PATTERN_COUNT;
    return 0;
}

static int read_roofs(kb_calibration *cal, const cJSON *root, const char *path, kb_err *err) {
    kb_roofs *r = &cal->roofs;
    if (read_levels(root, r, path, err) != 0 ||
        read_compute(root, "compute", r->fma, path, err) != 0 ||
        read_compute(root, "matrix", r->matrix, path, err) != 0 ||
        read_patterns(root, r, path, err) != 0 || read_sweep(root, r, path, err) != 0)
        return -1;
    if (r->n_levels == 0)
        snprintf(cal->roof_note, sizeof cal->roof_note,
                 "no roofline: %s has no 'levels' (written before the roofline; the calibration "
                 "test writes them)",
                 path);
    else if (r->n_patterns == 0)
        snprintf(cal->pattern_note, sizeof cal->pattern_note,
                 "memory has one ceiling, its level's: %s has no 'patterns' (written before "
                 "them, or by a backend without a pass per access pattern)",
                 path);
    return 0;
}

int kb_calibration_read_json(kb_calibration *cal, const char *path, const char *backend,
                             const char *hardware_id, cJSON **keep, kb_err *err) {
    memset(cal, 0, sizeof *cal);
    snprintf(cal->file, sizeof cal->file, "%s", path);
    cal->age_s = -1.0;
    cal->reused = -1;
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return absent(cal, "no calibration at %s (the kbench.calibrate.%s test writes it)", path,
                      backend);
    cJSON *root = kb_json_read_file(path, err);
    if (!root) return -1;
    char file_hw[512] = "";
    int rc = read_fields(cal, root, path, backend, file_hw, sizeof file_hw, err);
    if (rc == 0) rc = read_roofs(cal, root, path, err);
    if (rc != 0) {
        cJSON_Delete(root);
        cal->peak_gbps = 0.0;
        memset(&cal->roofs, 0, sizeof cal->roofs);
        return -1;
    }
    if (strcmp(file_hw, hardware_id) != 0) {
        cJSON_Delete(root);
        memset(&cal->roofs, 0, sizeof cal->roofs);
        return absent(cal, "%s was measured on other hardware (%s)", path, file_hw);
    }
    cal->present = 1;
    /* the age is for the record: a time that is not one, or one to come,
     * leaves it unknown */
    const double t = kb_calibration_time(cal->measured_at), now = (double)time(NULL);
    if (t >= 0.0 && now >= t) cal->age_s = now - t;
    if (keep)
        *keep = root;
    else
        cJSON_Delete(root);
    return 0;
}

int kb_calibration_read(kb_calibration *cal, const char *path, const char *backend,
                        const char *hardware_id, kb_err *err) {
    return kb_calibration_read_json(cal, path, backend, hardware_id, NULL, err);
}

int kb_calibration_measured(kb_calibration *cal, const char *path, const char *backend,
                            const char *hardware_id, kb_err *err) {
    char why[sizeof cal->why_measured];
    snprintf(why, sizeof why, "%s", cal->why_measured);
    if (kb_calibration_read(cal, path, backend, hardware_id, err) != 0) return -1;
    if (!cal->present) return kb_fail(err, "%s: not read back after writing: %s", path, cal->note);
    cal->reused = 0;
    snprintf(cal->why_measured, sizeof cal->why_measured, "%s", why);
    return 0;
}

double kb_calibration_time(const char *measured_at) {
    static const char form[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(measured_at) != sizeof form - 1) return -1.0;
    for (size_t i = 0; form[i]; ++i)
        if (form[i] == 'd' ? !isdigit((unsigned char)measured_at[i]) : measured_at[i] != form[i])
            return -1.0;
    struct tm tm = {0}, back;
    if (sscanf(measured_at, "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
               &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return -1.0;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const struct tm given = tm;
    time_t t = timegm(&tm);
    /* timegm normalizes: 2026-02-30 would become March 2nd */
    if (t < 0 || !gmtime_r(&t, &back) || back.tm_year != given.tm_year ||
        back.tm_mon != given.tm_mon || back.tm_mday != given.tm_mday ||
        back.tm_hour != given.tm_hour || back.tm_min != given.tm_min || back.tm_sec != given.tm_sec)
        return -1.0;
    return (double)t;
}

void kb_calibration_age_text(double age_s, char *out, size_t size) {
    if (age_s < 90.0)
        snprintf(out, size, "%.0f s", age_s);
    else if (age_s < 90.0 * 60.0)
        snprintf(out, size, "%.0f min", age_s / 60.0);
    else if (age_s < 48.0 * 3600.0)
        snprintf(out, size, "%.1f h", age_s / 3600.0);
    else
        snprintf(out, size, "%.1f days", age_s / 86400.0);
}
