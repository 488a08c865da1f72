/* The backend's attainable memory bandwidth, measured once per suite run by
 * the calibration test (kbench.calibrate.<backend>, a CTest fixture every
 * kernel test requires) from the cases a manifest lists under
 * "calibration", and read by every other test to report its GB/s as a
 * percentage of it; with it the machine's roofs (roofs.h: each memory
 * level's bandwidth, the compute throughput per precision), from which
 * every case gets its roofline (roofline.h). See docs/calibration.md. */
#ifndef KB_CALIBRATION_H
#define KB_CALIBRATION_H

#include "error.h"
#include "roofs.h"
#include "runner.h"

#include <cjson/cJSON.h>

typedef struct kb_calibration {
    int present;      /* a calibration of this backend on this hardware was read */
    double peak_gbps; /* the best GB/s of its cases */
    char file[KB_PATH_MAX];
    char measured_at[40];
    char note[512];      /* when not present: why */
    kb_roofs roofs;      /* as read; roofs.n_levels 0 when the file has no "levels" */
    char roof_note[256]; /* present without roofs: why */
} kb_calibration;

/* Reads `path`. A missing file, or one measured on other hardware, leaves
 * cal->present 0 with the reason in cal->note; a malformed one (peak_gbps
 * not a positive finite number, a field missing) or one holding another
 * backend's calibration is an error naming the file and the field. The
 * roofs ("levels", "compute", "matrix", "sweep") are optional, for files
 * written before them (cal->roof_note then says so), and checked as
 * strictly when there: names known, numbers positive and finite, levels
 * smallest first and memory last. */
int kb_calibration_read(kb_calibration *cal, const char *path, const char *backend,
                        const char *hardware_id, kb_err *err);

/* The calibration cases' best GB/s, and their names and figures in `how`. */
double kb_calibration_cases_best(const kb_case_result *res, int n, char *how, size_t how_size);

/* Writes the calibration from the calibration cases' results and the
 * roofs measured with them (peak_gbps is then the memory level's figure),
 * atomically. Fails when a case did not pass (a wrong copy measures
 * nothing). */
int kb_calibration_write(const char *path, const kb_run_ctx *ctx, const char *profile,
                         const kb_case_result *res, int n, const kb_roofs *roofs, kb_err *err);

/* Adds the roofs' "levels", "compute" and "matrix" to o (and "sweep" when
 * `sweep`): the calibration file's fields, which the result JSON repeats. */
void kb_calibration_add_roofs(cJSON *o, const kb_roofs *roofs, int sweep);

/* r's GB/s as a percentage of the calibration; < 0 when there is none. */
double kb_calibration_pct(const kb_calibration *cal, const kb_case_result *r);

#endif
