#include "partner/ab.h"

#include "base/affinity.h"
#include "base/clock.h"
#include "base/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One side's round: AB_SAMPLES samples, or as many as fit in
 * AB_MAX_ROUND_S but at least one, after a short warm-up (the buffers were
 * just moved and first touched; at least one call). A case whose call
 * outlasts the round's time is thus one warm-up call and one sample a
 * side: the two sides of a pair run as close together in time as they can,
 * which is what cancels a host whose speed moves in steps of a second or
 * so (docs/gate.md, "A/B mode: measured"). Both sides are sampled by the
 * same configuration. */
#define AB_SAMPLES     9
#define AB_MIN_SAMPLES 1
#define AB_WARMUP_S    0.005
#define AB_MAX_ROUND_S 0.1

/* Fewest pairs a case whose time is up may stop at: with 9 pairs the
 * sign test's 95 % interval is [x(2), x(8)], so one wild pair on either side
 * cannot set it (with 6 to 8 it spans every ratio; 6 is the fewest with a
 * finite interval at all). Long calls on a host whose speed moves in steps
 * have such pairs (docs/gate.md, "A/B mode: measured"). */
#define AB_FEWEST_PAIRS 9

kb_sampling kb_ab_round_config(const kb_sampling *defaults, int cold_cache) {
    kb_sampling c = *defaults;
    c.min_samples = AB_MIN_SAMPLES;
    c.max_samples = AB_SAMPLES;
    /* A round is its samples or its time, never cut short: the median's
     * interval rule is only consulted past min_time, which is the round's
     * whole time (a lone sample's interval has no width and would end the
     * round at once). */
    c.target_rel_ci = 0.0;
    c.max_time_s = AB_MAX_ROUND_S < c.max_time_s ? AB_MAX_ROUND_S : c.max_time_s;
    c.min_time_s = c.max_time_s;
    c.warmup_s = AB_WARMUP_S < c.warmup_s ? AB_WARMUP_S : c.warmup_s;
    if (cold_cache) c.sample_min_s = 0.0; /* one call per flush */
    return c;
}

/* Asks every process of both sides, but the test's own, to set the case
 * up. */
static int send_case(kb_ab_setup *ab, const char *variant, const char *case_name, kb_err *err) {
    return kb_workers_case_send(&ab->base, variant, case_name, err) != 0 ||
                   kb_workers_case_send(&ab->head, variant, case_name, err) != 0
               ? -1
               : 0;
}

/* Both sides' answers to send_case, all of them read whatever the first
 * were: the base's into *base (its rmse, max_abs and why), and whether this
 * build's other processes set the case up into *head_ready. */
static int read_answers(kb_ab_setup *ab, kb_partner_case *base, double *rmse, double *max_abs,
                        char *why, size_t why_size, int *head_ready, kb_err *err) {
    kb_partner_case own = KB_PARTNER_READY;
    double own_rmse, own_max_abs;
    char own_why[512];
    kb_err head_err;
    const int rc = kb_workers_case_reply(&ab->base, base, rmse, max_abs, why, why_size, err);
    const int head_rc = kb_workers_case_reply(&ab->head, &own, &own_rmse, &own_max_abs, own_why,
                                              sizeof own_why, &head_err);
    *head_ready = head_rc == 0 && own == KB_PARTNER_READY;
    if (rc == 0 && head_rc != 0) *err = head_err;
    return rc != 0 || head_rc != 0 ? -1 : 0;
}

int kb_ab_request(kb_ab_setup *ab, const char *variant, const char *case_name, kb_ab_result *res,
                  kb_err *err) {
    res->base_status = -1;
    if (*ab->broken) return kb_fail(err, "%s", ab->broken);
    if (!ab->has_partner) {
        snprintf(res->base_why, sizeof res->base_why, "the base build has no %.300s: %s", ab->exe,
                 ab->why_new ? ab->why_new : "not started");
        return 0;
    }
    if (send_case(ab, variant, case_name, err) != 0) return -1;
    res->base_asked = 1;
    return 0;
}

/* This build's other processes answer as this one did; what they answer is
 * checked when the pairs begin (ab_measure needs them only then). */
int kb_ab_open(kb_ab_setup *ab, const char *variant, const char *case_name, kb_ab_result *res,
               kb_err *err) {
    if (!res->base_asked) return 0;
    res->base_asked = 0;
    kb_partner_case status;
    if (read_answers(ab, &status, &res->base_rmse, &res->base_max_abs, res->base_why,
                     sizeof res->base_why, &res->head_ready, err) != 0)
        return -1;
    res->base_status = (int)status;
    if (status == KB_PARTNER_ABSENT)
        snprintf(res->base_why, sizeof res->base_why, "the base has no case %s of variant %s",
                 case_name, variant);
    return 0;
}

/* Releases the case on every process of both sides that set it up. */
static int release_case(kb_ab_setup *ab, kb_err *err) {
    int rc = kb_workers_case_close(&ab->base, err);
    kb_err local;
    if (kb_workers_case_close(&ab->head, &local) != 0 && rc == 0) {
        *err = local;
        rc = -1;
    }
    return rc;
}

int kb_ab_close(kb_ab_setup *ab, kb_ab_result *res, kb_err *err) {
    res->head_ready = 0;
    return release_case(ab, err);
}

static int append(kb_samples *all, const kb_samples *s) {
    if (all->n + s->n > all->cap) {
        int cap = 2 * (all->n + s->n);
        double *p = realloc(all->ms, (size_t)cap * sizeof *p);
        if (!p) return -1;
        all->ms = p;
        all->cap = cap;
    }
    memcpy(all->ms + all->n, s->ms, (size_t)s->n * sizeof *s->ms);
    all->n += s->n;
    all->reps = s->reps;
    all->dropped += s->dropped;
    all->suspect_kept += s->suspect_kept;
    all->disturbed += s->disturbed;
    all->disturbed_kept += s->disturbed_kept;
    all->elapsed_s += s->elapsed_s;
    return 0;
}

static double median_of(const kb_samples *s) {
    kb_stats st;
    return kb_stats_compute(s->ms, (size_t)s->n, &st) == 0 ? st.median : NAN;
}

/* Pair k's processes: with P a side, every (head, base) pairing once in
 * each run of P * P pairs, so that no pair of processes sets the median
 * alone. Its CPU (for a case of t threads, the first of the t CPUs both
 * sides run on: each side pins its process to the same window of the
 * allowed list, kb_affinity_window) and its order (the base first in
 * every other pair: A B, B A, ...) shift by one after each such run, so
 * that no pairing always runs on one CPU or in one order. */
static void plan_pair(int k, int processes, const kb_affinity *cpus, kb_ab_pair *pair) {
    const int p = processes, turn = k + k / (p * p);
    pair->head_proc = k % p;
    pair->base_proc = (k + k / p) % p;
    pair->cpu = cpus->n > 0 ? cpus->cpu[turn % cpus->n] : -1;
    pair->base_first = turn % 2;
}

/* One side's round: on the base's process, or on one of this build's
 * (the test's own process is head process 0). */
static int side_round(kb_ab_setup *ab, int base, const kb_ab_pair *pair, kb_ab_round_fn head_round,
                      void *head_side, const kb_sampling *cfg, kb_samples *out, kb_err *err) {
    if (base) return kb_workers_round(&ab->base, pair->base_proc, pair->cpu, cfg, out, err);
    if (pair->head_proc == 0) return head_round(head_side, pair->cpu, cfg, out, err);
    return kb_workers_round(&ab->head, pair->head_proc - 1, pair->cpu, cfg, out, err);
}

/* Pair k: both rounds on the same CPU, each after moving the case's buffers
 * to fresh memory, whatever their size: where a process's buffers land can
 * make it 10 % faster or slower for as long as they stay there, even
 * streaming from DRAM (an A/A run on this project's VMs: a 128 MiB copy
 * case 8-16 % faster on the head in all 12 pairs), and moving turns that
 * into noise the interval sees instead of a bias it cannot. What moving
 * cannot reach (the process's code and, on GPUs, its context) the
 * rotation over processes does (plan_pair). */
static int measure_pair(kb_ab_setup *ab, kb_ab_round_fn head_round, void *head_side,
                        const kb_sampling *cfg, const kb_affinity *cpus, int k, kb_ab_pair *pair,
                        kb_samples *head_all, kb_err *err) {
    kb_samples head = {0}, base = {0};
    plan_pair(k, ab->processes, cpus, pair);
    int rc = 0;
    for (int side = 0; side < 2 && rc == 0; ++side) {
        const int is_base = (side == 0) == pair->base_first;
        rc =
            side_round(ab, is_base, pair, head_round, head_side, cfg, is_base ? &base : &head, err);
    }
    if (rc == 0) {
        pair->head_ms = median_of(&head);
        pair->base_ms = median_of(&base);
        pair->ratio = pair->head_ms / pair->base_ms;
        pair->head_disturbed = head.disturbed + head.disturbed_kept;
        pair->base_disturbed = base.disturbed + base.disturbed_kept;
        if (append(head_all, &head) != 0) rc = kb_fail(err, "out of host memory");
    }
    kb_samples_free(&head);
    kb_samples_free(&base);
    return rc;
}

kb_latency_decision kb_ab_latency(const kb_ab_result *res) {
    return (kb_latency_decision){.verdict = res->decision.verdict,
                                 .best = 0,
                                 .ratio = res->decision.ratio,
                                 .first_ratio = res->n_pairs ? res->pairs[0].ratio : NAN,
                                 .p_value = -1.0,
                                 .noise = 0.0,
                                 .drift = 1.0};
}

/* Of the stage that decided (the last). */
double kb_ab_base_median(const kb_ab_result *res) {
    double base_ms[2 * KB_AB_MAX_PAIRS];
    size_t n = 0;
    for (int k = 0; k < res->n_pairs; ++k)
        if (res->pairs[k].stage == res->stages) base_ms[n++] = res->pairs[k].base_ms;
    kb_stats st;
    return kb_stats_compute(base_ms, n, &st) == 0 ? st.median : NAN;
}

/* The pairs of one stage, from index k0 on, until kb_gate_ab decides on
 * them or the limits are reached (a stage's own: pairs and time). */
static int measure_stage(kb_ab_setup *ab, const kb_run_settings *settings,
                         kb_ab_round_fn head_round, void *head, int stage, kb_ab_result *res,
                         kb_samples *head_all, kb_err *err) {
    const kb_gate_cfg *g = &settings->gate;
    const int max_pairs = g->ab_max_pairs < KB_AB_MAX_PAIRS ? g->ab_max_pairs : KB_AB_MAX_PAIRS;
    const int fewest = g->ab_min_pairs < AB_FEWEST_PAIRS ? g->ab_min_pairs : AB_FEWEST_PAIRS;
    const kb_sampling cfg = kb_ab_round_config(&settings->sampling, settings->cold_cache);
    /* the CPUs of the start, not this thread's now: a first stage's rounds
     * left it pinned */
    const kb_affinity *cpus = kb_affinity_start();
    double ratios[KB_AB_MAX_PAIRS], head_ms[KB_AB_MAX_PAIRS], base_ms[KB_AB_MAX_PAIRS];
    int head_proc[KB_AB_MAX_PAIRS], base_proc[KB_AB_MAX_PAIRS];
    const int k0 = res->n_pairs;
    const double t0 = kb_now_s();
    for (int k = 0; k < max_pairs; ++k) {
        kb_ab_pair *pair = &res->pairs[k0 + k];
        if (measure_pair(ab, head_round, head, &cfg, cpus, k, pair, head_all, err) != 0) return -1;
        pair->stage = stage;
        ratios[k] = pair->ratio;
        head_ms[k] = pair->head_ms;
        base_ms[k] = pair->base_ms;
        head_proc[k] = pair->head_proc;
        base_proc[k] = pair->base_proc;
        res->n_pairs = k0 + k + 1;
        const double elapsed = kb_now_s() - t0;
        /* once its time is up a stage ends as soon as its interval is finite */
        const int final = k + 1 == max_pairs || (k + 1 >= fewest && elapsed >= g->ab_max_time_s);
        const double spread =
            kb_gate_ab_spread(head_ms, head_proc, base_ms, base_proc, k + 1, ab->processes);
        res->decision = kb_gate_ab(g, ratios, k + 1, spread, final);
        if (res->decision.verdict != KB_LAT_PENDING) break;
    }
    return 0;
}

/* Every process but the test's own started again and the case set up on
 * the new ones. */
static int renew_processes(kb_ab_setup *ab, const char *variant, const char *case_name,
                           kb_err *err) {
    kb_err ignored;
    (void)release_case(ab, &ignored);
    if (kb_workers_restart(&ab->base, err) != 0 || kb_workers_restart(&ab->head, err) != 0 ||
        send_case(ab, variant, case_name, err) != 0)
        return -1;
    kb_partner_case base;
    double rmse, max_abs;
    char why[512];
    int head_ready;
    if (read_answers(ab, &base, &rmse, &max_abs, why, sizeof why, &head_ready, err) != 0) return -1;
    if (base != KB_PARTNER_READY || !head_ready)
        return kb_fail(err, "the fresh processes of %s could not set case %s up again",
                       base != KB_PARTNER_READY ? ab->exe : ab->head.exe, case_name);
    return 0;
}

int kb_ab_measure(kb_ab_setup *ab, const kb_run_settings *settings, kb_ab_round_fn head_round,
                  void *head, const char *variant, const char *case_name, kb_ab_result *res,
                  kb_samples *head_all, kb_err *err) {
    memset(head_all, 0, sizeof *head_all);
    res->processes = ab->processes;
    res->stages = 1;
    res->elapsed_s = 0.0;
    if (ab->head.n > 0 && !res->head_ready)
        return kb_fail(err,
                       "driver %s: this build's other processes could not set the case up "
                       "where this one did",
                       ab->head.exe);
    const double t0 = kb_now_s();
    int rc = measure_stage(ab, settings, head_round, head, 1, res, head_all, err);
    const kb_latency_verdict v = res->decision.verdict;
    if (rc == 0 && ab->processes > 1 && (v == KB_LAT_REGRESSION || v == KB_LAT_FASTER)) {
        res->first = res->decision;
        res->stages = 2;
        rc = renew_processes(ab, variant, case_name, err) != 0
                 ? -1
                 : measure_stage(ab, settings, head_round, head, 2, res, head_all, err);
        if (rc == 0 && res->decision.verdict != v) res->decision.verdict = KB_LAT_INCONCLUSIVE;
    }
    res->elapsed_s = kb_now_s() - t0;
    head_all->median = median_of(head_all);
    return rc;
}
