#define _GNU_SOURCE
#include "calibration.h"

#include "atomicfile.h"
#include "jsonutil.h"
#include "jsonw.h"
#include "timer.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int read_roofs(kb_calibration *cal, const cJSON *root, const char *path, kb_err *err) {
    kb_roofs *r = &cal->roofs;
    if (read_levels(root, r, path, err) != 0 ||
        read_compute(root, "compute", r->fma, path, err) != 0 ||
        read_compute(root, "matrix", r->matrix, path, err) != 0 ||
        read_sweep(root, r, path, err) != 0)
        return -1;
    if (r->n_levels == 0)
        snprintf(cal->roof_note, sizeof cal->roof_note,
                 "no roofline: %s has no 'levels' (written before the roofline; the calibration "
                 "test writes them)",
                 path);
    return 0;
}

int kb_calibration_read(kb_calibration *cal, const char *path, const char *backend,
                        const char *hardware_id, kb_err *err) {
    memset(cal, 0, sizeof *cal);
    snprintf(cal->file, sizeof cal->file, "%s", path);
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return absent(cal, "no calibration at %s (the kbench.calibrate.%s test writes it)", path,
                      backend);
    cJSON *root = kb_json_read_file(path, err);
    if (!root) return -1;
    char file_hw[512] = "";
    int rc = read_fields(cal, root, path, backend, file_hw, sizeof file_hw, err);
    if (rc == 0) rc = read_roofs(cal, root, path, err);
    cJSON_Delete(root);
    if (rc != 0) {
        cal->peak_gbps = 0.0;
        memset(&cal->roofs, 0, sizeof cal->roofs);
        return -1;
    }
    if (strcmp(file_hw, hardware_id) != 0) {
        memset(&cal->roofs, 0, sizeof cal->roofs);
        return absent(cal, "%s was measured on other hardware (%s)", path, file_hw);
    }
    cal->present = 1;
    return 0;
}

static cJSON *case_entry(const kb_case_result *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "case", r->c->name);
    cJSON_AddStringToObject(o, "variant", r->variant);
    cJSON_AddNumberToObject(o, "median_ms", r->stats.median);
    cJSON_AddNumberToObject(o, "bytes", r->bytes);
    cJSON_AddNumberToObject(o, "gbps", r->gbps);
    return o;
}

double kb_calibration_cases_best(const kb_case_result *res, int n, char *how, size_t how_size) {
    double best = 0.0;
    size_t len = 0;
    how[0] = '\0';
    for (int i = 0; i < n; ++i) {
        if (res[i].error || res[i].skipped) continue;
        best = fmax(best, res[i].gbps);
        if (len < how_size)
            len += (size_t)snprintf(how + len, how_size - len, "%s%s %.2f GB/s", len ? ", " : "",
                                    res[i].c->name, res[i].gbps);
    }
    return best;
}

static cJSON *figure_json(double value, const char *key, const char *how) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, key, value);
    cJSON_AddStringToObject(o, "how", how);
    return o;
}

static cJSON *compute_json(const kb_compute_roof *roofs) {
    cJSON *o = cJSON_CreateObject();
    for (int p = 0; p < KB_PREC_COUNT; ++p)
        if (roofs[p].gflops > 0.0)
            cJSON_AddItemToObject(o, kb_prec_name((kb_prec)p),
                                  figure_json(roofs[p].gflops, "gflops", roofs[p].how));
    return o;
}

void kb_calibration_add_roofs(cJSON *o, const kb_roofs *roofs, int sweep) {
    cJSON *levels = cJSON_AddArrayToObject(o, "levels");
    for (int i = 0; i < roofs->n_levels; ++i) {
        const kb_level_roof *l = &roofs->levels[i];
        cJSON *e = figure_json(l->gbps, "gbps", l->how);
        cJSON_AddStringToObject(e, "name", l->level.name);
        cJSON_AddNumberToObject(e, "capacity_bytes", l->level.capacity);
        cJSON_AddItemToArray(levels, e);
    }
    cJSON_AddItemToObject(o, "compute", compute_json(roofs->fma));
    cJSON_AddItemToObject(o, "matrix", compute_json(roofs->matrix));
    if (!sweep) return;
    cJSON *points = cJSON_AddArrayToObject(o, "sweep");
    for (int i = 0; i < roofs->n_sweep; ++i) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "working_set_bytes", roofs->sweep[i].working_set_bytes);
        cJSON_AddNumberToObject(e, "gbps", roofs->sweep[i].gbps);
        cJSON_AddItemToArray(points, e);
    }
}

/* The notes on figures not measured, one string each. */
static cJSON *notes_json(const kb_roofs *roofs) {
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < roofs->n_notes; ++i)
        cJSON_AddItemToArray(arr, cJSON_CreateString(roofs->notes[i]));
    return arr;
}

/* The memory level's figure, or without levels the cases' best. */
static double memory_gbps(const kb_roofs *roofs, double cases_best) {
    return roofs && roofs->n_levels > 0 ? roofs->levels[roofs->n_levels - 1].gbps : cases_best;
}

int kb_calibration_write(const char *path, const kb_run_ctx *ctx, const char *profile,
                         const kb_case_result *res, int n, const kb_roofs *roofs, kb_err *err) {
    double peak = 0.0;
    cJSON *root = cJSON_CreateObject();
    cJSON *cases = cJSON_CreateArray();
    for (int i = 0; i < n; ++i) {
        if (!kb_case_passed(&res[i]) || res[i].skipped) {
            cJSON_Delete(root);
            cJSON_Delete(cases);
            return kb_fail(err, "calibration case '%s' (%s) did not pass: %s not written",
                           res[i].c->name, res[i].variant, path);
        }
        if (res[i].gbps > peak) peak = res[i].gbps;
        cJSON_AddItemToArray(cases, case_entry(&res[i]));
    }
    char now[40];
    kb_utc_now(now, sizeof now);
    cJSON_AddStringToObject(root, "backend", ctx->backend->name);
    cJSON_AddStringToObject(root, "hardware_id", ctx->hardware_id);
    cJSON_AddStringToObject(root, "profile", profile);
    cJSON_AddStringToObject(root, "kernel", ctx->kernel_name);
    cJSON_AddStringToObject(root, "precision", kb_prec_name(ctx->prec));
    cJSON_AddStringToObject(root, "measured_at", now);
    peak = memory_gbps(roofs, peak);
    cJSON_AddNumberToObject(root, "peak_gbps", peak);
    cJSON_AddItemToObject(root, "cases", cases);
    if (roofs) {
        kb_calibration_add_roofs(root, roofs, 1);
        cJSON_AddItemToObject(root, "notes", notes_json(roofs));
    }
    char *text = kb_json_print(root);
    cJSON_Delete(root);
    if (!text) return kb_fail(err, "%s: out of memory", path);
    char dir[KB_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    int rc = 0;
    if (slash && slash != dir) {
        *slash = '\0';
        rc = kb_mkdir_p(dir, err);
    }
    if (rc == 0) rc = kb_write_file_atomic(path, text, err);
    free(text);
    if (rc == 0) printf("calibration: %.2f GB/s peak written to %s\n", peak, path);
    return rc;
}

double kb_calibration_pct(const kb_calibration *cal, const kb_case_result *r) {
    return cal && cal->present && r->gbps > 0.0 ? 100.0 * r->gbps / cal->peak_gbps : -1.0;
}
