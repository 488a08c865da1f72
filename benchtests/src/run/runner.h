/* One case of one implementation, end to end: inputs, reference, the checked
 * run, the timed rounds and the decisions. */
#ifndef KB_RUNNER_H
#define KB_RUNNER_H

#include "backend/backend.h"
#include "base/stats.h"
#include "decide/gate.h"
#include "decide/run_settings.h"
#include "formats/baseline.h"
#include "formats/manifest.h"
#include "measure/accuracy.h"
#include "measure/roofline.h"
#include "measure/sampler.h"
#include "partner/ab.h"

typedef struct kb_run_ctx {
    const kb_run_settings *settings; /* from the command line (run_settings.h) */
    const kb_manifest *manifest;
    const kb_kernel *kernel;
    const char *kernel_name;   /* the manifest's "name" */
    kb_reference_fn reference; /* the kernel folder's reference.c */
    const kb_backend *backend;
    kb_prec prec;
    const kb_baseline *baseline;
    const char *hardware_id;
    kb_ab_setup *ab;       /* A/B mode: the base to compare with; NULL: the baseline */
    kb_workers *recorders; /* recording: this build's other processes (workers.h); NULL: none */
    /* gating: a process of this build, started when first needed, that
     * measures a slowdown again before it fails; NULL: none */
    kb_workers *confirmer;
    const char *worker_exe;      /* the driver the confirmer runs */
    kb_worker_run confirmer_run; /* and what it measures */
    const char *case_set;        /* the cases measured: "default", "full" or "calibration" */
    struct kb_ref_cache *refs;   /* a case's reference, shared by its variants; NULL: none */
} kb_run_ctx;

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

typedef struct kb_case_result {
    const kb_case *c;
    const char *impl_variant; /* the implementation's variant */
    char variant[96];         /* as keyed in the baseline: the impl's, "+cold" in cold-cache mode */
    int skipped;              /* the implementation cannot run this case here */
    char skip_why[512];
    double flops, bytes;
    kb_counts counts; /* the manifest's counts: flops (as above) and its parts */
    kb_accuracy acc;
    int acc_fired;
    char acc_why[1024];
    kb_samples rounds[KB_MAX_ROUNDS];
    kb_probe_reading probe[KB_MAX_ROUNDS]; /* machine probe after each round; 0 = not run */
    int round_cpu[KB_MAX_ROUNDS];          /* CPU each round started on; -1 = unknown */
    double power_w[KB_MAX_ROUNDS];         /* device power over the round; 0 = not measured */
    double energy_mj[KB_MAX_ROUNDS];       /* device energy per call over the round */
    int n_rounds;
    kb_timing round_timing[KB_MAX_ROUNDS]; /* how each round's samples were timed */
    kb_timing timing;                      /* and all of them together (machine/timing_mode.h) */
    int clocks_checked;    /* the backend could tell whether its clocks were limited */
    unsigned clock_limits; /* KB_CLOCKS_* seen after any timed sample (devmon.h) */
    double device_mem_mib; /* device memory in use while the case ran; < 0: unknown */
    kb_stats stats;        /* of the best round */
    double gbps, gflops;
    double pct_peak_bw;    /* gbps as % of the backend's calibrated bandwidth; < 0: none */
    double footprint;      /* bytes of the case's input and output buffers at its precision */
    kb_roofline roofline;  /* the case under the calibrated roofs (roofline.h) */
    double pct_roofline;   /* roofline.pct; < 0: no roofline */
    double vendor_speedup; /* the "vendor" variant's median / this median; < 0: none */
    kb_comparison cmp;
    int has_base;
    kb_baseline_entry base;
    kb_latency_decision lat;
    kb_probe_reading recorded_probe; /* update mode: each figure's best over the rounds */
    kb_bound bound;      /* update mode: what bounds the case on this machine (machine/model.h) */
    double intensity;    /* its flops per byte */
    double balance;      /* the machine's multiply-add GFLOP/s per streaming GB/s; 0 = unknown */
    double record_noise; /* update mode: kb_gate_record_noise of the kept attempt */
    double record_drift; /* and the part of it that is drift between rounds */
    int record_attempts; /* update mode: attempts measured (KB_RECORD_ATTEMPTS at most) */
    double attempt_noise[KB_RECORD_ATTEMPTS]; /* and the noise of each */
    int kept_attempt;                         /* the one recorded (0-based) */
    int round_process[KB_MAX_ROUNDS]; /* update mode: which process measured each round (0: this
                                         one) */
    int processes;                    /* how many processes measured the rounds */
    /* gating: a slowdown this process confirmed, measured again by a fresh
     * process (rounds fresh_first..n_rounds-1); fresh_first 0: not done */
    int fresh_first;
    kb_latency_decision fresh;
    kb_ab_result ab; /* A/B mode: the pairs and their decision */
    int error;       /* the case could not run; message in error_msg */
    char error_msg[1024];
} kb_case_result;

/* Runs one case; fills r (release it with kb_case_result_free). Failures of
 * the kernel or the backend are recorded in r->error, not returned. */
void kb_run_case(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl, kb_case_result *r);

/* Whether the case passes: no error, accuracy within bounds, latency not a
 * confirmed regression, and in update mode steady enough to record. */
int kb_case_passed(const kb_case_result *r);

/* A case set up for timing (used by kb_run_case, A/B mode and the A/B
 * partner): inputs, reference and one checked run, whose accuracy goes
 * into r. NULL when the case cannot be timed: r->error or r->skipped says
 * why. */
typedef struct kb_case_session kb_case_session;
kb_case_session *kb_case_open(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl,
                              kb_case_result *r);

/* One round of cfg's samples on `cpu` (-1: wherever the scheduler puts
 * it); with `move`, every round after the first moves the case's buffers to
 * fresh memory first. */
int kb_case_round(kb_case_session *s, int cpu, int move, const kb_sampling *cfg, kb_samples *out,
                  kb_err *err);

void kb_case_close(kb_case_session *s);

void kb_case_result_free(kb_case_result *r);

#endif
