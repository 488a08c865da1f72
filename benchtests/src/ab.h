/* A/B mode, the head's side: each case measured in pairs of rounds, one on
 * this build (the head) and one on the base build's driver (partner.h),
 * interleaved on the same CPU with fresh buffers, the order alternating
 * from pair to pair; the pair ratios decide (kb_gate_ab, docs/ab.md). */
#ifndef KB_AB_H
#define KB_AB_H

#include "error.h"
#include "gate.h"
#include "partner.h"

#define KB_AB_MAX_PAIRS 64

/* What a test compares with in A/B mode. */
typedef struct kb_ab_setup {
    const char *ref;    /* the base's git ref, for reports ("" when not told) */
    const char *commit; /* its commit ("" when not told) */
    char exe[4096];     /* the base's driver of this kernel */
    int has_partner;    /* 0: the base build has no such driver (a new kernel) */
    kb_partner partner;
} kb_ab_setup;

typedef struct kb_ab_pair {
    int cpu;        /* both rounds of the pair ran there; -1: unknown */
    int base_first; /* the order of the two rounds */
    double head_ms, base_ms, ratio;
    int head_disturbed, base_disturbed; /* samples dropped because the thread lost its CPU */
} kb_ab_pair;

typedef struct kb_ab_result {
    int base_status; /* kb_partner_case; -1: not asked (no partner); 0: not A/B mode */
    int base_asked;  /* the case was sent to the base, its answer not read yet */
    int base_open;   /* the case is set up on the base and must be released */
    char base_why[512];
    double base_rmse, base_max_abs;
    kb_ab_pair pairs[KB_AB_MAX_PAIRS];
    int n_pairs;
    kb_ab_decision decision;
    double elapsed_s;
} kb_ab_result;

/* How each side samples one round of a pair, from the run's sampling
 * settings: up to 9 samples within 0.1 s, at least one. */
kb_sampling kb_ab_round_config(const kb_sampling *defaults, int cold_cache);

struct kb_run_ctx;
struct kb_case_result;
struct kb_case_session;

/* Asks the base to set the case up and returns at once, so that the base
 * prepares its side (inputs, reference, checked run) while the head
 * prepares its own; kb_ab_open reads the answer. */
int kb_ab_request(const struct kb_run_ctx *ctx, struct kb_case_result *r, kb_err *err);

/* The base's answer to kb_ab_request. A base without the case leaves
 * r->has_base 0 (the case is then "new"); a ready one sets r->has_base and
 * the base's RMSE, which the head's accuracy check compares with. Does
 * nothing when nothing was asked. */
int kb_ab_open(const struct kb_run_ctx *ctx, struct kb_case_result *r, kb_err *err);

/* Measures pairs until kb_gate_ab decides or the limits are reached; fills
 * r->ab, r->lat, r->base.median_ms and r->rounds[0] (every head sample). */
int kb_ab_measure(const struct kb_run_ctx *ctx, struct kb_case_session *s, struct kb_case_result *r,
                  kb_err *err);

/* Releases the case on the base (when it was set up there). */
int kb_ab_close(const struct kb_run_ctx *ctx, struct kb_case_result *r, kb_err *err);

#endif
