/* The backend's attainable memory bandwidth, measured once per suite run by
 * the calibration test (kbench.calibrate.<backend>, a CTest fixture every
 * kernel test requires) from the cases a manifest lists under
 * "calibration", and read by every other test to report its GB/s as a
 * percentage of it. See docs/calibration.md. */
#ifndef KB_CALIBRATION_H
#define KB_CALIBRATION_H

#include "error.h"
#include "runner.h"

typedef struct kb_calibration {
    int present;      /* a calibration of this backend on this hardware was read */
    double peak_gbps; /* the best GB/s of its cases */
    char file[KB_PATH_MAX];
    char measured_at[40];
    char note[512]; /* when not present: why */
} kb_calibration;

/* Reads `path`. A missing file, or one measured on other hardware, leaves
 * cal->present 0 with the reason in cal->note; a malformed one (peak_gbps
 * not a positive finite number, a field missing) or one holding another
 * backend's calibration is an error naming the file and the field. */
int kb_calibration_read(kb_calibration *cal, const char *path, const char *backend,
                        const char *hardware_id, kb_err *err);

/* Writes the calibration from the calibration cases' results, atomically.
 * Fails when a case did not pass (a wrong copy measures nothing). */
int kb_calibration_write(const char *path, const kb_run_ctx *ctx, const char *profile,
                         const kb_case_result *res, int n, kb_err *err);

/* r's GB/s as a percentage of the calibration; < 0 when there is none. */
double kb_calibration_pct(const kb_calibration *cal, const kb_case_result *r);

#endif
