/* The backend's attainable memory bandwidth, measured by the calibration
 * test (kbench.calibrate.<backend>, a CTest fixture every kernel test
 * requires; it reuses the last calibration while that is fresh:
 * calibration_reuse.h) from the cases a manifest lists under "calibration",
 * and read by every other test to report its GB/s as a percentage of it;
 * with it the machine's roofs (roofs.h: each memory level's bandwidth, the
 * compute throughput per precision), from which every case gets its
 * roofline (roofline.h). This is the file as read; run/calibration.h writes
 * it. See docs/calibration.md. */
#ifndef KB_CALIBRATION_FILE_H
#define KB_CALIBRATION_FILE_H

#include "base/error.h"
#include "measure/roofs.h"

#include <cjson/cJSON.h>

typedef struct kb_calibration {
    int present;      /* a calibration of this backend on this hardware was read */
    double peak_gbps; /* the best GB/s of its cases */
    char file[KB_PATH_MAX];
    char measured_at[40];
    double age_s; /* seconds from measured_at to when it was read; < 0: unknown */
    int reused;   /* calibration runs: 1 reused, 0 measured; -1 in other tests */
    char why_measured[KB_PATH_MAX + 512]; /* reused 0: why the file was not reused */
    char note[512];                       /* when not present: why */
    kb_roofs roofs;      /* as read; roofs.n_levels 0 when the file has no "levels" */
    char roof_note[256]; /* present without roofs: why */
    char pattern_note[KB_PATH_MAX + 160]; /* roofs without a memory ceiling per pattern: why */
} kb_calibration;

/* Reads `path`. A missing file, or one measured on other hardware, leaves
 * cal->present 0 with the reason in cal->note; a malformed one (peak_gbps
 * not a positive finite number, a field missing) or one holding another
 * backend's calibration is an error naming the file and the field. The
 * roofs ("levels", "compute", "matrix", "patterns", "sweep") are optional,
 * for files written before them (cal->roof_note, cal->pattern_note then say
 * so), and checked as strictly when there: names known, numbers positive
 * and finite, levels smallest first and memory last, all three patterns. */
int kb_calibration_read(kb_calibration *cal, const char *path, const char *backend,
                        const char *hardware_id, kb_err *err);

/* kb_calibration_read, keeping the parsed file in *keep when it is present
 * (the caller deletes it): what it was measured under is read from there
 * (calibration_reuse.h). */
int kb_calibration_read_json(kb_calibration *cal, const char *path, const char *backend,
                             const char *hardware_id, cJSON **keep, kb_err *err);

/* After a calibration run measured and wrote `path`: cal as read from it,
 * reused 0, keeping why_measured (for the run's result). */
int kb_calibration_measured(kb_calibration *cal, const char *path, const char *backend,
                            const char *hardware_id, kb_err *err);

/* Seconds since the epoch of a measured_at ("2026-01-31T12:00:00Z"); < 0
 * when it is not such a time. */
double kb_calibration_time(const char *measured_at);

/* An age as people say it: "40 s", "14 min", "3.5 h", "2.0 days". */
void kb_calibration_age_text(double age_s, char *out, size_t size);

#endif
