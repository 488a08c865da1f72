/* The pass/fail decisions. Pure functions of measurements, baseline and
 * configuration, so the self-tests can drive them with synthetic samples.
 * The rule and its rationale are in docs/gate.md. */
#ifndef KB_GATE_H
#define KB_GATE_H

#include "decide/verdict.h"
#include "formats/baseline.h"
#include "formats/manifest.h"
#include "kbref/metrics.h"
#include "machine/model.h"

#include <stddef.h>

/* The most rounds a case measures: the first and at most
 * KB_MAX_ROUNDS - 1 confirmations (--confirm-rounds is refused above). */
#define KB_MAX_ROUNDS 16

/* The most pairs an A/B case measures (--ab-max-pairs is refused above). */
#define KB_AB_MAX_PAIRS 64

typedef struct kb_gate_cfg {
    double latency_tol; /* allowed median slowdown, fraction (KBENCH_LATENCY_TOLERANCE) */
    /* KBENCH_ACCURACY_DRIFT: the |rmse - baseline rmse| allowed, absolute
     * and as a share of the baseline's rmse; < 0 where not given. A drift
     * fails when it exceeds every limit given (kb_gate_drift_allowed). */
    double accuracy_drift, accuracy_drift_rel;
    int confirm_rounds; /* re-measurements that must all confirm a slowdown */
    double alpha;       /* significance level of the distribution test */
    /* A/B mode (ab.h): pairs measured at least / at most, the wall time
     * after which no pair is added once the minimum is reached, and the
     * processes each side's rounds are spread over (workers.h). */
    int ab_min_pairs, ab_max_pairs;
    double ab_max_time_s;
    int ab_processes;
} kb_gate_cfg;

kb_gate_cfg kb_gate_defaults(void);

/* One round of samples (per-call milliseconds), its median, the machine
 * probe measured right after it (all 0 when not measured), how many of
 * its samples were disturbed but kept (the thread kept losing its CPU),
 * and how its samples were timed (machine/timing_mode.h; UNKNOWN: not said). */
typedef struct kb_round {
    const double *ms;
    int n;
    double median;
    kb_probe_reading probe;
    int disturbed_kept;
    kb_timing timing;
} kb_round;

typedef struct kb_latency_decision {
    kb_latency_verdict verdict;
    int best;           /* index of the round with the lowest median */
    double ratio;       /* best round's median / baseline median */
    double first_ratio; /* first round's median / baseline median */
    double p_value;     /* distribution test, when it ran (else -1) */
    double noise;       /* half the widest spread: see kb_gate_latency */
    double drift;       /* how much slower the machine is (kb_machine_drift; 1 when unknown) */
    kb_probe_kind drift_probe; /* the figure that said so; KB_PROBE_N when none */
    double tolerance;          /* the slowdown the case was allowed (kb_gate_case_tolerance) */
} kb_latency_decision;

/* Decides on the rounds measured so far; base may be NULL (no baseline).
 * A slowdown fails only when every round confirms it beyond the case's
 * tolerance and noise, the best round is significantly slower than the
 * baseline's samples, and neither a slower machine (its probe), disturbed
 * samples, other hardware nor a slower way of timing explains it. The rule
 * and why: docs/gate.md, "The decision". */
kb_latency_decision kb_gate_latency(const kb_gate_cfg *cfg, const kb_round *rounds, int n_rounds,
                                    const kb_baseline_entry *base, const char *hardware_id);

/* The round a recording keeps as the baseline, of rounds measured by
 * processes process[i]: within one process timing noise only adds time, so
 * its fastest round stands for it; across processes a placement can go
 * either way, so the kept round is the fastest of the middle process (by
 * those fastest rounds; the faster middle one of an even count). With one
 * process that is its fastest round. */
int kb_gate_record_best(const kb_round *rounds, const int *process, int n_rounds);

/* The noise a recording's rounds hold, which the gate will grant the case
 * from its baseline alone: half the wider of the spread of the round
 * medians and the kept round's (`best`) p10-p90 spread. */
double kb_gate_record_noise(const kb_round *rounds, int n_rounds, int best);

/* The part of that noise that is drift between rounds: half the relative
 * range of the round medians. A/B mode's interleaved pairs cancel it. */
double kb_gate_round_drift(const kb_round *rounds, int n_rounds);

/* The slowdown a case is allowed against its baseline: the configured
 * tolerance, or the noise the baseline was recorded with when that is
 * larger. A recording on a noisy machine keeps every case, and each then
 * gates as finely as its own rounds allow, no finer (docs/gate.md). With no
 * baseline, the configured tolerance. */
double kb_gate_case_tolerance(const kb_gate_cfg *cfg, const kb_baseline_entry *base);

/* The A/B decision on n paired ratios (head median / base median, one per
 * pair of interleaved rounds): their median and its distribution-free 95 %
 * confidence interval (sign test), judged against the tolerance widened by
 * `spread`, the process spread (kb_gate_ab_spread; 0 with one process a
 * side): REGRESSION when the interval lies above (1 + tolerance)(1 +
 * spread), FASTER when it lies below the inverse, OK when its upper end is
 * within (1 + tolerance) / (1 + spread) and its lower end above the inverse;
 * otherwise PENDING (another pair), or when `final` (no more pairs will
 * come) OK if its upper end is within that bound and INCONCLUSIVE if not.
 * PENDING too below ab_min_pairs unless `final`. */
typedef struct kb_ab_decision {
    kb_latency_verdict verdict;
    int n_pairs;
    double ratio;        /* median of the pair ratios */
    double ci_lo, ci_hi; /* its 95 % interval */
    double spread;       /* the process spread the rule was widened by */
} kb_ab_decision;

kb_ab_decision kb_gate_ab(const kb_gate_cfg *cfg, const double *ratios, int n, double spread,
                          int final);

/* The fewest pairs on which kb_gate_ab can reach a verdict: the smallest n
 * whose sign-test interval (kb_median_sign_ci) is finite. Below it every
 * case would end inconclusive and nothing could fail, so --ab-min-pairs
 * and --ab-max-pairs are refused below it. */
int kb_gate_ab_fewest_pairs(void);

/* How far one build's processes differ from each other in the same run,
 * which a difference between the builds must exceed to count: each
 * process's median over its rounds (round medians ms[i] measured by process
 * proc[i], for the head and the base side), the relative range (max - min)
 * / min of those medians on each side, half the wider of the two (as the
 * baseline gate's noise margin takes half a spread). 0 with fewer than two
 * processes a side or while one has not measured. */
double kb_gate_ab_spread(const double *head_ms, const int *head_proc, const double *base_ms,
                         const int *base_proc, int n, int processes);

/* Reads an accuracy drift (KBENCH_ACCURACY_DRIFT, --accuracy-drift):
 * an absolute limit ("1e-3", "abs:1e-3"), a relative one ("rel:0.5" or
 * "50%": that share of the baseline's RMSE), or one of each separated by a
 * comma ("1e-20,rel:0.5"), each number finite and from 0 to 1e30. Sets
 * *abs and *rel, -1 for the kind not given. 0, or -1 with a message naming
 * `what` and the value. */
int kb_gate_parse_drift(const char *s, double *abs, double *rel, const char *what, kb_err *err);

/* The largest |rmse - base_rmse| the configured drift allows: the larger
 * of the absolute limit and the relative one times base_rmse, of those
 * given. */
double kb_gate_drift_allowed(const kb_gate_cfg *cfg, double base_rmse);

/* The configured drift in words, for messages: "0.001", "50 % of the
 * baseline's rmse", or both ("... or ..., whichever is larger"). */
void kb_gate_drift_describe(const kb_gate_cfg *cfg, char *out, size_t size);

/* Checks the output against the manifest tolerance and the baseline RMSE
 * (base may be NULL). Returns the number of rules that fired and describes
 * each, one per line, in `why`. */
int kb_gate_accuracy(const kb_gate_cfg *cfg, const kb_tolerance *tol, const kbref_accuracy *acc,
                     const kb_baseline_entry *base, char *why, size_t size);

#endif
