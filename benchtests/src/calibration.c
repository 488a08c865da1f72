#define _GNU_SOURCE
#include "calibration.h"

#include "atomicfile.h"
#include "jsonutil.h"
#include "jsonw.h"
#include "timer.h"

#include <cjson/cJSON.h>
#include <errno.h>
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
    cJSON_Delete(root);
    if (rc != 0) {
        cal->peak_gbps = 0.0;
        return -1;
    }
    if (strcmp(file_hw, hardware_id) != 0)
        return absent(cal, "%s was measured on other hardware (%s)", path, file_hw);
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

int kb_calibration_write(const char *path, const kb_run_ctx *ctx, const char *profile,
                         const kb_case_result *res, int n, kb_err *err) {
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
    cJSON_AddNumberToObject(root, "peak_gbps", peak);
    cJSON_AddItemToObject(root, "cases", cases);
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
