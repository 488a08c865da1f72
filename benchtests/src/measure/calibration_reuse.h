/* When a calibration run reuses the calibration file instead of measuring
 * again (docs/calibration.md): what a calibration is measured under, which
 * the file records, and how old it may be. */
#ifndef KB_CALIBRATION_REUSE_H
#define KB_CALIBRATION_REUSE_H

#include "base/error.h"
#include "measure/calibration_file.h"

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

#endif
