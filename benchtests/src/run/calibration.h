/* The calibration from the runner's side: the calibration cases' best
 * GB/s, the file written from their results and the roofs measured with
 * them, and a case's GB/s against it. The file as read is
 * measure/calibration_file.h, when a calibration run reuses it
 * measure/calibration_reuse.h; both come with this header. See
 * docs/calibration.md. */
#ifndef KB_CALIBRATION_H
#define KB_CALIBRATION_H

#include "base/error.h"
#include "measure/calibration_file.h"
#include "measure/calibration_reuse.h"
#include "measure/roofs.h"
#include "run/runner.h"

#include <cjson/cJSON.h>

/* The calibration cases' best GB/s, and their names and figures in `how`. */
double kb_calibration_cases_best(const kb_case_result *res, int n, char *how, size_t how_size);

/* The calibration cases' best GB/s per access pattern: a case counts for
 * the pattern whose write fraction (outputs over its footprint) it has. */
void kb_calibration_cases_patterns(const kb_case_result *res, int n, kb_pattern_cases *out);

/* Writes the calibration from the calibration cases' results and the
 * roofs measured with them (peak_gbps is then the memory level's figure),
 * with what it was measured under (stamp, for kb_calibration_reusable),
 * atomically. Fails when a case did not pass (a wrong copy measures
 * nothing). */
int kb_calibration_write(const char *path, const kb_run_ctx *ctx, const char *profile,
                         const kb_case_result *res, int n, const kb_roofs *roofs,
                         const kb_calibration_stamp *stamp, kb_err *err);

/* Adds the roofs' "levels", "compute", "matrix" and, when measured,
 * "patterns" to o (and "sweep" when `sweep`): the calibration file's
 * fields, which the result JSON repeats. */
void kb_calibration_add_roofs(cJSON *o, const kb_roofs *roofs, int sweep);

/* r's GB/s as a percentage of the calibration; < 0 when there is none. */
double kb_calibration_pct(const kb_calibration *cal, const kb_case_result *r);

#endif
