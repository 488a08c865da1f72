/* A/B mode, the head's side: each case measured in pairs of rounds, one on
 * this build (the head) and one on the base build's driver (partner/protocol.h),
 * interleaved on the same CPU with fresh buffers, the order alternating
 * from pair to pair; the pair ratios decide (kb_gate_ab, docs/ab.md). Each
 * side's rounds are spread over several processes (workers.h), every
 * pairing of a head process with a base process in turn, so that where
 * one process's placement landed is a spread the interval sees. */
#ifndef KB_AB_H
#define KB_AB_H

#include "base/error.h"
#include "decide/gate.h"
#include "decide/run_settings.h"
#include "partner/protocol.h"
#include "partner/workers.h"

/* What a test compares with in A/B mode. */
typedef struct kb_ab_setup {
    const char *ref;     /* the base's git ref, for reports ("" when not told) */
    const char *commit;  /* its commit ("" when not told) */
    char exe[4096];      /* the base's driver of this kernel */
    int has_partner;     /* 0: the base has no such kernel or backend (new), or is broken */
    char broken[1024];   /* why the base cannot serve ("" when it can): each case's error */
    const char *why_new; /* with has_partner 0 and nothing broken: why every case is new */
    int processes;       /* per side (--ab-processes) */
    kb_workers base;     /* the base's processes */
    kb_workers head;     /* this build's processes beside this one (processes - 1) */
} kb_ab_setup;

typedef struct kb_ab_pair {
    int cpu;        /* both rounds of the pair ran there; -1: unknown */
    int base_first; /* the order of the two rounds */
    int head_proc;  /* which head process measured the head's round (0: the test's own) */
    int base_proc;  /* which base process measured the base's round */
    int stage;      /* 1; 2 for the confirmation in fresh processes */
    double head_ms, base_ms, ratio;
    int head_disturbed, base_disturbed; /* samples dropped because the thread lost its CPU */
} kb_ab_pair;

typedef struct kb_ab_result {
    int base_status; /* kb_partner_case; -1: not asked (no partner); 0: not A/B mode */
    int base_asked;  /* the case was sent to the base, its answer not read yet */
    int head_ready;  /* this build's other processes set the case up */
    char base_why[512];
    double base_rmse, base_max_abs;
    kb_ab_pair pairs[2 * KB_AB_MAX_PAIRS]; /* both stages' */
    int n_pairs;
    int processes;        /* per side, the pairs rotated over */
    int stages;           /* 2 when a verdict was measured again in fresh processes */
    kb_ab_decision first; /* with stages 2: the first stage's decision */
    kb_ab_decision decision;
    double elapsed_s;
} kb_ab_result;

/* How each side samples one round of a pair, from the run's sampling
 * settings: up to 9 samples within 0.1 s, at least one. */
kb_sampling kb_ab_round_config(const kb_sampling *defaults, int cold_cache);

/* One round of the head's own side, on `cpu`, sampled by cfg, after
 * moving the case's buffers to fresh memory (the runner's kb_case_round). */
typedef int (*kb_ab_round_fn)(void *head, int cpu, const kb_sampling *cfg, kb_samples *out,
                              kb_err *err);

/* Asks the base to set case `case_name` of `variant` up and returns at
 * once, so that the base prepares its side (inputs, reference, checked run)
 * while the head prepares its own; kb_ab_open reads the answer. -1 with
 * ab->broken when the base cannot serve. */
int kb_ab_request(kb_ab_setup *ab, const char *variant, const char *case_name, kb_ab_result *res,
                  kb_err *err);

/* The base's answer to kb_ab_request: res->base_status KB_PARTNER_READY
 * with the base's RMSE, which the head's accuracy check compares with, or
 * why the base cannot measure the case (one without it makes the case
 * "new"). Does nothing when nothing was asked. */
int kb_ab_open(kb_ab_setup *ab, const char *variant, const char *case_name, kb_ab_result *res,
               kb_err *err);

/* Measures pairs, the head's rounds through head_round(head, ...), until
 * kb_gate_ab decides or the settings' limits are reached. A regression or
 * a speed-up is then measured again the same way in fresh processes (every
 * one but the test's own restarted, the case set up again): a placement
 * that every process of one side drew alike (a library's code or memory
 * landing one of two ways in each process) looks like a difference between
 * the builds, and does not come again in new processes, while a real one
 * does. The verdict stands when the second stage reaches it too; otherwise
 * the case is INCONCLUSIVE. Fills res and head_all (every head sample, and
 * their median); variant and case_name set the case up again. */
int kb_ab_measure(kb_ab_setup *ab, const kb_run_settings *settings, kb_ab_round_fn head_round,
                  void *head, const char *variant, const char *case_name, kb_ab_result *res,
                  kb_samples *head_all, kb_err *err);

/* The latency decision the rest of the harness reads (kb_case_result's
 * decision.lat), and the base's median over the pairs. */
kb_latency_decision kb_ab_latency(const kb_ab_result *res);
double kb_ab_base_median(const kb_ab_result *res);

/* Releases the case on the base (when it was set up there). */
int kb_ab_close(kb_ab_setup *ab, kb_ab_result *res, kb_err *err);

#endif
