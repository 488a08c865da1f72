/* What one case of one implementation came to, in three parts kept apart
 * because different readers want them: what was measured (the figures and
 * the tables print these), what the gate decided from it against the
 * baseline (pass or fail, and why), and, in A/B mode, what the pairs
 * against the base found. The runner fills it; the outputs, the baseline
 * writer and the calibration read it. */
#ifndef KB_CASE_RESULT_H
#define KB_CASE_RESULT_H

#include "base/stats.h"
#include "decide/gate.h"
#include "formats/baseline.h"
#include "formats/manifest.h"
#include "kbref/metrics.h"
#include "measure/roofline.h"
#include "measure/sampler.h"
#include "partner/ab.h"

/* A variant measured against the one the manifest compares it with
 * ("compare_to"), on the same case. */
typedef struct kb_comparison {
    const char *with;   /* the other variant; NULL: no comparison */
    double speedup;     /* other median / this median */
    double with_bytes;  /* the other variant's bytes */
    double bytes_saved; /* 1 - this bytes / other bytes (memory-traffic reduction) */
} kb_comparison;

/* A recording whose rounds are noisier than the tolerance is measured again
 * after a pause, up to this many attempts in all; the steadiest is kept. */
#define KB_RECORD_ATTEMPTS 3

/* What the case measured: the checked run's accuracy, every round with the
 * machine's state around it, the figures of the best round, and in update
 * mode what the recording found about the case and the machine. */
typedef struct kb_case_measurement {
    kbref_accuracy acc;
    kb_samples rounds[KB_MAX_ROUNDS];
    kb_probe_reading probe[KB_MAX_ROUNDS]; /* machine probe after each round; 0 = not run */
    int round_cpu[KB_MAX_ROUNDS];          /* CPU each round started on; -1 = unknown */
    double power_w[KB_MAX_ROUNDS];         /* device power over the round; 0 = not measured */
    double energy_mj[KB_MAX_ROUNDS];       /* device energy per call over the round */
    int n_rounds;
    kb_timing round_timing[KB_MAX_ROUNDS]; /* how each round's samples were timed */
    kb_timing timing;                      /* and all of them together (machine/timing_mode.h) */
    int round_process[KB_MAX_ROUNDS];      /* which process measured each round (0: this one) */
    int processes;                         /* how many processes measured the rounds */
    int clocks_checked;    /* the backend could tell whether its clocks were limited */
    unsigned clock_limits; /* KB_CLOCKS_* seen after any timed sample (devmon.h) */
    double device_mem_mib; /* device memory in use while the case ran; < 0: unknown */
    kb_stats stats;        /* of the best round (decision.lat.best) */
    double gbps, gflops;
    double pct_peak_bw;    /* gbps as % of the backend's calibrated bandwidth; < 0: none */
    kb_roofline roofline;  /* the case under the calibrated roofs (roofline.h) */
    double pct_roofline;   /* roofline.pct; < 0: no roofline */
    double vendor_speedup; /* the "vendor" variant's median / this median; < 0: none */
    kb_comparison cmp;
    kb_probe_reading recorded_probe; /* update mode: each figure's best over the rounds */
    kb_bound bound;      /* update mode: what bounds the case on this machine (machine/model.h) */
    double intensity;    /* its flops per byte */
    double balance;      /* the machine's multiply-add GFLOP/s per streaming GB/s; 0 = unknown */
    double record_noise; /* update mode: kb_gate_record_noise of the kept attempt */
    double record_drift; /* and the part of it that is drift between rounds */
    int record_attempts; /* update mode: attempts measured (KB_RECORD_ATTEMPTS at most) */
    double attempt_noise[KB_RECORD_ATTEMPTS]; /* and the noise of each */
    int kept_attempt;                         /* the one recorded (0-based) */
} kb_case_measurement;

/* What the gate decided from the measurement: the baseline entry it
 * compared with (in A/B mode, the base's figures stand in for it), the
 * latency decision, a fresh process's word on a slowdown, and the accuracy
 * verdict. */
typedef struct kb_case_decision {
    int has_base;
    kb_baseline_entry base;
    kb_latency_decision lat;
    /* gating: a slowdown this process confirmed, measured again by a fresh
     * process (rounds fresh_first..n_rounds-1); fresh_first 0: not done */
    int fresh_first;
    kb_latency_decision fresh;
    int acc_fired;      /* accuracy rules that fired (kb_gate_accuracy); 0: none */
    char acc_why[1024]; /* and what each said, one per line */
} kb_case_decision;

typedef struct kb_case_result {
    const kb_case *c;
    const char *impl_variant; /* the implementation's variant */
    char variant[96];         /* as keyed in the baseline: the impl's, "+cold" in cold-cache mode */
    int skipped;              /* the implementation cannot run this case here */
    char skip_why[512];
    int error; /* the case could not run; message in error_msg */
    char error_msg[1024];
    double flops, bytes;
    kb_counts counts; /* the manifest's counts: flops (as above) and its parts */
    double footprint; /* bytes of the case's input and output buffers at its precision */
    double written;   /* the part of footprint in its outputs */
    kb_case_measurement measured;
    kb_case_decision decision;
    kb_ab_result ab; /* A/B mode: the pairs and their decision */
} kb_case_result;

/* Records that the case could not run, and why; returns -1. */
int kb_case_error(kb_case_result *r, const char *msg);

/* Whether the case passes: no error, accuracy within bounds, latency not a
 * confirmed regression, and in update mode steady enough to record. */
int kb_case_passed(const kb_case_result *r);

void kb_case_result_free(kb_case_result *r);

#endif
