/* Writing the calibration file from the calibration cases' results and
 * the roofs measured with them, and a case's GB/s against it. Only this
 * part needs the runner's case results; reading the file
 * (measure/calibration_file.c), which every test and the reports do, does
 * not. */
#include "run/calibration.h"

#include "base/atomicfile.h"
#include "base/clock.h"
#include "formats/json_write.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *case_entry(const kb_case_result *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "case", r->c->name);
    cJSON_AddStringToObject(o, "variant", r->variant);
    cJSON_AddNumberToObject(o, "median_ms", r->measured.stats.median);
    cJSON_AddNumberToObject(o, "bytes", r->bytes);
    cJSON_AddNumberToObject(o, "gbps", r->measured.gbps);
    return o;
}

double kb_calibration_cases_best(const kb_case_result *res, int n, char *how, size_t how_size) {
    double best = 0.0;
    size_t len = 0;
    how[0] = '\0';
    for (int i = 0; i < n; ++i) {
        if (res[i].error || res[i].skipped) continue;
        best = fmax(best, res[i].measured.gbps);
        if (len < how_size)
            len += (size_t)snprintf(how + len, how_size - len, "%s%s %.2f GB/s", len ? ", " : "",
                                    res[i].c->name, res[i].measured.gbps);
    }
    return best;
}

void kb_calibration_cases_patterns(const kb_case_result *res, int n, kb_pattern_cases *out) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; ++i) {
        if (res[i].error || res[i].skipped || !(res[i].footprint > 0.0)) continue;
        const int p = kb_pattern_of_fraction(res[i].written / res[i].footprint);
        if (p < 0) continue;
        out->gbps[p] = fmax(out->gbps[p], res[i].measured.gbps);
        /* Appended as far as it fits: the note names the cases, it holds no figure
         * that is read back. */
        char piece[256];
        const size_t len = strlen(out->how[p]), room = sizeof out->how[p] - len;
        snprintf(piece, sizeof piece, "%s%s %s %.2f GB/s", len ? ", " : "", res[i].c->name,
                 res[i].variant, res[i].measured.gbps);
        const size_t k = strlen(piece) < room ? strlen(piece) : room - 1;
        memcpy(out->how[p] + len, piece, k);
        out->how[p][len + k] = '\0';
    }
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
    if (roofs->n_patterns == KB_PATTERN_COUNT) {
        cJSON *patterns = cJSON_AddObjectToObject(o, "patterns");
        for (int p = 0; p < KB_PATTERN_COUNT; ++p) {
            const kb_pattern_roof *pr = &roofs->patterns[p];
            cJSON *e = figure_json(pr->gbps, "gbps", pr->how);
            cJSON_AddNumberToObject(e, "cached_gbps", pr->cached_gbps);
            if (pr->nt_gbps > 0.0) cJSON_AddNumberToObject(e, "nt_gbps", pr->nt_gbps);
            cJSON_AddItemToObject(patterns, kb_pattern_name((kb_mem_pattern)p), e);
        }
    }
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

/* What the calibration was measured under (kb_calibration_reusable). */
static void add_stamp(cJSON *root, const kb_calibration_stamp *s) {
    cJSON_AddStringToObject(root, "boot_id", s->boot_id);
    cJSON_AddStringToObject(root, "device", s->device);
    cJSON *b = cJSON_AddObjectToObject(root, "build");
    cJSON_AddStringToObject(b, "kbench_version", s->kbench_version);
    cJSON_AddStringToObject(b, "compiler", s->compiler);
    cJSON_AddStringToObject(b, "c_flags", s->c_flags);
    cJSON_AddStringToObject(b, "build_type", s->build_type);
    cJSON_AddStringToObject(b, "executable", s->executable);
}

int kb_calibration_write(const char *path, const kb_run_ctx *ctx, const char *profile,
                         const kb_case_result *res, int n, const kb_roofs *roofs,
                         const kb_calibration_stamp *stamp, kb_err *err) {
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
        if (res[i].measured.gbps > peak) peak = res[i].measured.gbps;
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
    if (stamp) add_stamp(root, stamp);
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
    return cal && cal->present && r->measured.gbps > 0.0 ? 100.0 * r->measured.gbps / cal->peak_gbps
                                                         : -1.0;
}
