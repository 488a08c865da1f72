/* The backend's attainable memory bandwidth, measured by the calibration
 * test (kbench.calibrate.<backend>, a CTest fixture every kernel test
 * requires; it reuses the last calibration while that is fresh) from the
 * cases a manifest lists under "calibration", and read by every other test
 * to report its GB/s as a percentage of it; with it the machine's roofs
 * (roofs.h: each memory level's bandwidth, the compute throughput per
 * precision), from which every case gets its roofline (roofline.h). See
 * docs/calibration.md. */
#ifndef KB_CALIBRATION_H
#define KB_CALIBRATION_H

#include "base/error.h"
#include "measure/roofs.h"
#include "run/runner.h"

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

/* What a calibration is measured under. A calibration file is reused
 * instead of measured again only when all of it matches: the roofs depend on
 * the hardware, on what the machine has been doing since it booted (clocks,
 * huge pages, a driver reloaded) and on how the driver was compiled (an AVX2
 * build and an AVX-512 build measure different roofs). */
typedef struct kb_calibration_stamp {
    char hardware_id[512]; /* the backend's (hwinfo.h; a GPU's model and properties) */
    char device[128];      /* which device of that model (a GPU's PCI bus id); "" on the CPU */
    char boot_id[64];      /* /proc/sys/kernel/random/boot_id */
    char kbench_version[32], compiler[128], c_flags[2048], build_type[32];
    char executable[32]; /* digest of the driver's executable: any rebuild changes it */
    char kernel[64], precision[16];
    char cases[2048];  /* "<case> <variant> <bytes>" of each calibration case, "; " between */
    char unknown[256]; /* why no calibration can be reused ("" when none): a part unreadable */
} kb_calibration_stamp;

/* This run's stamp: the boot and the build read here, the rest as given;
 * the cases are added with kb_calibration_stamp_case, in the order they
 * run. */
void kb_calibration_stamp_init(kb_calibration_stamp *s, const char *hardware_id, const char *device,
                               const char *kernel, const char *precision);
void kb_calibration_stamp_case(kb_calibration_stamp *s, const char *name, const char *variant,
                               double bytes);

/* When a calibration is reused (docs/calibration.md). */
typedef struct kb_calibration_policy {
    double max_age_s; /* reused only when at most this old; 0: measured every run */
    int forced;       /* measured whatever the file */
} kb_calibration_policy;

#define KB_CALIBRATION_MAX_AGE_S (12.0 * 3600.0)

/* From KBENCH_CALIBRATION_MAX_AGE (seconds) and KBENCH_RECALIBRATE (0 or 1);
 * a value that is neither fails naming the variable. */
int kb_calibration_policy_env(kb_calibration_policy *p, kb_err *err);

/* Whether the calibration at `path` may be reused by a calibration run with
 * this stamp at time `now` (seconds since the epoch): 1, with cal read as
 * kb_calibration_read reads it, its age and reused 1; 0 when it must be
 * measured, with why in one line in cal->why_measured and reused 0. Never
 * an error: a missing, unreadable or malformed file, or one measured on
 * other hardware, in another boot, by another build, for other cases, too
 * long ago or at a time still to come, is measured again. */
int kb_calibration_reusable(kb_calibration *cal, const char *path, const char *backend,
                            const kb_calibration_stamp *stamp, const kb_calibration_policy *p,
                            double now);

/* After a calibration run measured and wrote `path`: cal as read from it,
 * reused 0, keeping why_measured (for the run's result). */
int kb_calibration_measured(kb_calibration *cal, const char *path, const char *backend,
                            const char *hardware_id, kb_err *err);

/* Seconds since the epoch of a measured_at ("2026-01-31T12:00:00Z"); < 0
 * when it is not such a time. */
double kb_calibration_time(const char *measured_at);

/* An age as people say it: "40 s", "14 min", "3.5 h", "2.0 days". */
void kb_calibration_age_text(double age_s, char *out, size_t size);

/* Writes the calibration from the calibration cases' results and the
 * roofs measured with them (peak_gbps is then the memory level's figure),
 * with what it was measured under (stamp, for kb_calibration_reusable),
 * atomically. Fails when a case did not pass (a wrong copy measures
 * nothing). */
int kb_calibration_write(const char *path, const kb_run_ctx *ctx, const char *profile,
                         const kb_case_result *res, int n, const kb_roofs *roofs,
                         const kb_calibration_stamp *stamp, kb_err *err);

/* Adds the roofs' "levels", "compute" and "matrix" to o (and "sweep" when
 * `sweep`): the calibration file's fields, which the result JSON repeats. */
void kb_calibration_add_roofs(cJSON *o, const kb_roofs *roofs, int sweep);

/* r's GB/s as a percentage of the calibration; < 0 when there is none. */
double kb_calibration_pct(const kb_calibration *cal, const kb_case_result *r);

#endif
