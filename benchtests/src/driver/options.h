/* The driver's settings: command-line options over environment variables
 * over the values configured into the build. */
#ifndef KB_OPTIONS_H
#define KB_OPTIONS_H

#include "base/error.h"
#include "decide/gate.h"
#include "measure/sampler.h"

#include <stdint.h>
#include <stdio.h>

/* Longest --timeout / KBENCH_TIMEOUT accepted: a week (as a manifest's "timeout"). */
#define KB_TIMEOUT_MAX_S 604800.0

typedef struct kb_options {
    const char *manifest;     /* NULL: the kernel's folder in the source tree */
    const char *backend;      /* "cpu" */
    const char *precision;    /* "fp32" */
    const char *variant;      /* NULL: every variant of the backend */
    const char *case_name;    /* NULL: every case */
    int full;                 /* run the manifest's "full" set instead of the default one */
    int calibrate;            /* measure the calibration cases and write the calibration */
    const char *calibration;  /* calibration file; NULL: <results_dir>/calibration/<backend>.json */
    const char *test_name;    /* NULL: <kernel>.<backend>.<precision> */
    const char *profile;      /* NULL or "auto": detected from the hardware */
    const char *baseline_dir; /* root of baselines/<profile>/<kernel>.json */
    const char *baseline_file; /* explicit file, overrides dir and profile */
    const char *results_dir;   /* where <test>.json goes */
    int update;                /* record into the baseline instead of gating latency */
    int cold_cache;            /* flush the caches before every timed call */
    int list, print_profile, help;
    uint64_t seed;
    kb_sampling sampling;
    kb_gate_cfg gate;
    int record_rounds;      /* rounds measured when recording; the fastest is kept */
    int record_processes;   /* processes the recorded rounds are spread over */
    double confirm_pause_s; /* pause before the first confirmation round, doubling */
    /* A/B mode (docs/ab.md): compare with the base build's driver instead of
     * the baseline. */
    const char *ab_base;   /* the base build's driver directory; NULL: not A/B */
    const char *ab_source; /* the base's source tree (maps --manifest onto it) */
    const char *ab_ref;    /* the base's git ref, for reports */
    int partner;           /* serve as the base of an A/B head (partner/protocol.h) */
    double timeout_s;      /* the test's time limit (watchdog.h); 0: none */
    int require_device;    /* a backend without a usable device is an error, not a skip */
    /* Profiling (docs/profiling.md): re-run the one selected case under a
     * tool (profile.h); the child run is told which tool runs it. */
    const char *profile_with; /* "nsys", "ncu" or "perf"; NULL: not profiling */
    const char *profiled_by;  /* set by --profile-with for its child: no gate, no recording */
    char warning[768];        /* values that all but switch a check off ("" none) */
} kb_options;

/* The tools --profile-with runs, in the order the messages list them. */
#define KB_PROFILE_TOOLS "nsys, ncu or perf"

/* Fills o from the environment and argv. Returns 0, or -1 with a message
 * naming the option or variable. */
int kb_options_parse(kb_options *o, int argc, char **argv, kb_err *err);

void kb_options_usage(FILE *f, const char *prog);

#endif
