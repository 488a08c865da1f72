/* The loop that measures a case against its baseline: a round, the gate's
 * decision on the rounds so far, the machine probed where the decision
 * needs it, and another round after a pause until the gate decides. The
 * harness owns this loop, not the kernel: every kernel is gated by the same
 * rules (docs/gate.md), and a round measured by another process of this
 * build goes through the same decisions as one measured here. */
#include "run/case_rounds.h"

#include "base/clock.h"
#include "guard/watchdog.h"

#include <string.h>

static int read_energy(const kb_backend *b, double *joules) {
    return b->energy_j && b->energy_j(joules) == 0 ? 0 : -1;
}

/* One round of samples, with the device's power and energy per call over
 * it where the backend has an energy counter. */
static int measure_round(const kb_run_ctx *ctx, kb_case_timing *tc, kb_case_measurement *m) {
    const int i = m->n_rounds;
    kb_samples *s = &m->rounds[i];
    memset(s, 0, sizeof *s);
    m->round_cpu[i] = tc->threads > 1 ? tc->set_first : kb_affinity_current();
    kb_sampling cfg = ctx->settings->sampling;
    if (ctx->settings->cold_cache) cfg.sample_min_s = 0.0; /* one call per flush */
    double e0 = 0.0, e1 = 0.0, t0 = kb_now_s();
    const long long calls0 = tc->calls;
    const int metered = read_energy(ctx->backend, &e0) == 0;
    tc->round_t0 = t0;
    tc->sampling = 0;
    tc->timing = KB_TIMING_UNKNOWN;
    tc->round_stage = i == 0                  ? KB_STAGE_MEASUREMENT
                      : ctx->settings->update ? KB_STAGE_RECORDING
                                              : KB_STAGE_CONFIRMATION;
    kb_watchdog_stage(KB_STAGE_WARMUP);
    kb_case_range_push(ctx->backend, "round %d", i + 1);
    int rc = kb_sample_marked(&cfg, kb_case_time_reps, kb_case_samples_begin, tc, s);
    kb_case_range_pop(ctx->backend);
    if (rc != 0) return -1;
    m->round_timing[i] = kb_case_samples_timing(tc);
    m->timing = kb_timing_join(m->timing, m->round_timing[i]);
    const double wall = kb_now_s() - t0;
    if (metered && read_energy(ctx->backend, &e1) == 0 && e1 >= e0 && wall > 0.0) {
        m->power_w[i] = (e1 - e0) / wall;
        m->energy_mj[i] = (e1 - e0) * 1e3 / (double)(tc->calls - calls0);
    }
    m->n_rounds++;
    return 0;
}

/* The rounds measured so far, as the gate takes them. */
static void gate_rounds(const kb_case_measurement *m, kb_round *rounds) {
    for (int i = 0; i < m->n_rounds; ++i)
        rounds[i] = (kb_round){m->rounds[i].ms,
                               m->rounds[i].n,
                               m->rounds[i].median,
                               m->probe[i],
                               m->rounds[i].disturbed_kept,
                               m->round_timing[i]};
}

static kb_latency_decision decide(const kb_run_ctx *ctx, const kb_case_result *r) {
    kb_round rounds[KB_MAX_ROUNDS];
    gate_rounds(&r->measured, rounds);
    return kb_gate_latency(&ctx->settings->gate, rounds, r->measured.n_rounds,
                           r->decision.has_base ? &r->decision.base : NULL, ctx->hardware_id);
}

/* The machine is probed after every recorded round and after
 * every round of a suspected slowdown; a case within tolerance costs none. */
static int needs_probe(const kb_run_ctx *ctx, const kb_case_result *r) {
    return ctx->settings->update || kb_latency_verdict_probe(r->decision.lat.verdict);
}

/* Which process measures round i of a recording: the rounds go round this
 * process (0) and its recording workers, so that the baseline's round
 * medians hold the spread between processes (workers.h) and the gate's
 * noise grants it. */
static int recorder_of(const kb_run_ctx *ctx, int i) {
    const kb_workers *w = ctx->recorders;
    return ctx->settings->update && w && w->open ? i % (w->n + 1) : 0;
}

/* A round measured by worker `w` (1-based) of `set`, on the CPU this
 * process's next round would take; its samples were timed as this
 * process's first round was (the same build on the same backend). */
static int measure_worker_round(const kb_run_ctx *ctx, kb_workers *set, kb_case_timing *tc,
                                kb_case_measurement *m, int w, kb_err *err) {
    const int i = m->n_rounds;
    kb_samples *s = &m->rounds[i];
    kb_sampling cfg = ctx->settings->sampling;
    if (ctx->settings->cold_cache) cfg.sample_min_s = 0.0; /* one call per flush */
    const int cpu = kb_affinity_next(&tc->cpus, m->round_cpu[0], i);
    kb_watchdog_stage(ctx->settings->update ? KB_STAGE_RECORDING : KB_STAGE_CONFIRMATION);
    if (kb_workers_round(set, w - 1, cpu, &cfg, s, err) != 0) return -1;
    kb_stats st;
    if (kb_stats_compute(s->ms, (size_t)s->n, &st) != 0)
        return kb_fail(err, "worker process %d of %s returned no samples", w, set->exe);
    s->median = st.median;
    s->stop_rule = "measured by another process of this build";
    m->round_cpu[i] = cpu;
    m->round_timing[i] = m->round_timing[0];
    m->n_rounds++;
    return 0;
}

static int measure_and_decide(const kb_run_ctx *ctx, kb_case_timing *tc, kb_case_result *r, int w,
                              kb_err *err) {
    kb_case_measurement *m = &r->measured;
    m->round_process[m->n_rounds] = w;
    if (w > 0 && measure_worker_round(ctx, ctx->recorders, tc, m, w, err) != 0) return -1;
    if (w == 0 && measure_round(ctx, tc, m) != 0)
        return kb_fail(err, "the implementation failed while timed");
    r->decision.lat = decide(ctx, r);
    if (!needs_probe(ctx, r)) return 0;
    if (kb_probe_measure(tc->probe, &m->probe[m->n_rounds - 1], err) != 0) return -1;
    r->decision.lat = decide(ctx, r);
    return 0;
}

/* The noise of one recording attempt: rounds [first, first + n). */
static double attempt_noise(const kb_case_measurement *m, int first, int n) {
    kb_round rounds[KB_MAX_ROUNDS];
    gate_rounds(m, rounds);
    int best = kb_gate_record_best(rounds + first, m->round_process + first, n);
    return kb_gate_record_noise(rounds + first, n, best);
}

/* Whether a recording measures another attempt after the one just ended:
 * only when that one was noisier than the tolerance, rounds are left for a
 * whole attempt, and the run has more than half its time limit ahead (the
 * cases after this one need theirs). */
static int another_attempt(const kb_run_ctx *ctx, kb_case_measurement *m) {
    const int k = ctx->settings->record_rounds;
    const double noise = attempt_noise(m, m->n_rounds - k, k);
    m->attempt_noise[m->record_attempts++] = noise;
    return noise > ctx->settings->gate.latency_tol && m->record_attempts < KB_RECORD_ATTEMPTS &&
           m->n_rounds + k <= KB_MAX_ROUNDS && kb_watchdog_share_left() > 0.5;
}

/* Moves round `from` of the measurement to index `to` (its samples with it). */
static void move_round(kb_case_measurement *m, int to, int from) {
    m->rounds[to] = m->rounds[from];
    m->probe[to] = m->probe[from];
    m->round_cpu[to] = m->round_cpu[from];
    m->power_w[to] = m->power_w[from];
    m->energy_mj[to] = m->energy_mj[from];
    m->round_timing[to] = m->round_timing[from];
    m->round_process[to] = m->round_process[from];
}

/* Keeps the steadiest attempt's rounds (the first of equals) as the
 * recording's, and frees the others'. */
static void keep_steadiest(const kb_run_ctx *ctx, kb_case_measurement *m) {
    const int k = ctx->settings->record_rounds;
    int keep = 0;
    for (int a = 1; a < m->record_attempts; ++a)
        if (m->attempt_noise[a] < m->attempt_noise[keep]) keep = a;
    m->kept_attempt = keep;
    for (int i = 0; i < m->n_rounds; ++i)
        if (i / k != keep) kb_samples_free(&m->rounds[i]);
    for (int i = 0; i < k && keep > 0; ++i) move_round(m, i, keep * k + i);
    m->n_rounds = k;
}

/* The recorded rounds: the machine as the baseline will hold it (each probe
 * figure's best over the rounds), what bounds the case on it, the round
 * kept, the noise the rounds hold and the tolerance the case will therefore
 * gate at (kb_gate_case_tolerance: never finer than the configured one). */
static void judge_recording(const kb_run_ctx *ctx, kb_case_result *r) {
    kb_case_measurement *m = &r->measured;
    kb_latency_decision *lat = &r->decision.lat;
    keep_steadiest(ctx, m);
    kb_probe_best(m->probe, m->n_rounds, &m->recorded_probe);
    m->bound = kb_bound_of(r->bytes, r->flops, &m->recorded_probe, &m->intensity, &m->balance);
    kb_round rounds[KB_MAX_ROUNDS];
    gate_rounds(m, rounds);
    unsigned seen = 0;
    for (int i = 0; i < m->n_rounds; ++i) seen |= 1u << m->round_process[i];
    m->processes = __builtin_popcount(seen);
    lat->best = kb_gate_record_best(rounds, m->round_process, m->n_rounds);
    m->record_noise = kb_gate_record_noise(rounds, m->n_rounds, lat->best);
    m->record_drift = kb_gate_round_drift(rounds, m->n_rounds);
    const double tol = ctx->settings->gate.latency_tol;
    lat->tolerance = m->record_noise > tol ? m->record_noise : tol;
    lat->verdict = KB_LAT_RECORDED;
}

int kb_case_workers_ready(kb_workers *w, int must_be_ready, const char *who, kb_err *err) {
    kb_partner_case status = KB_PARTNER_ABSENT;
    double rmse, max_abs;
    char why[512];
    if (kb_workers_case_reply(w, &status, &rmse, &max_abs, why, sizeof why, err) != 0) return -1;
    if (must_be_ready && status != KB_PARTNER_READY)
        return kb_fail(err, "driver %s: %s could not set the case up where this one did (%s)",
                       w->exe, who, *why ? why : "no such case");
    return 0;
}

/* Gating: a slowdown this process confirmed in every round is measured
 * again by a fresh process of this build before it fails, and fails only
 * if that process confirms it too. A process keeps its placement for life
 * (where its buffers and code landed; a vendor library's speed, which
 * oneDNN picks per process), so the confirmation rounds of one process
 * cannot tell a slower kernel from an unlucky process (docs/gate.md,
 * "Confirmation in a fresh process"). Not confirmed: inconclusive. */
static int confirm_in_fresh_process(const kb_run_ctx *ctx, kb_case_timing *tc, kb_case_result *r,
                                    kb_err *err) {
    kb_case_measurement *m = &r->measured;
    kb_case_decision *d = &r->decision;
    kb_workers *w = ctx->confirmer;
    const int first = m->n_rounds;
    int k = 1 + ctx->settings->gate.confirm_rounds;
    if (first + k > KB_MAX_ROUNDS) k = KB_MAX_ROUNDS - first;
    if (!w || k < 1) return 0;
    int rc = w->started ? kb_workers_restart(w, err)
                        : kb_workers_start(w, 1, ctx->worker_exe, &ctx->confirmer_run, err);
    if (rc != 0 || kb_workers_case_send(w, r->impl_variant, r->c->name, err) != 0) return -1;
    if (kb_case_workers_ready(w, 1, "a fresh process", err) != 0) {
        kb_workers_case_close(w, &(kb_err){{0}});
        return -1;
    }
    const kb_latency_decision mine = d->lat;
    double pause = ctx->settings->confirm_pause_s;
    for (int i = 0; i < k && rc == 0; ++i) {
        kb_sleep_s(pause);
        m->round_process[m->n_rounds] = 1;
        rc = measure_worker_round(ctx, w, tc, m, 1, err);
        if (rc == 0) rc = kb_probe_measure(tc->probe, &m->probe[m->n_rounds - 1], err);
    }
    if (kb_workers_case_close(w, rc == 0 ? err : &(kb_err){{0}}) != 0) rc = -1;
    if (rc != 0) return -1;
    kb_round rounds[KB_MAX_ROUNDS];
    gate_rounds(m, rounds);
    d->fresh_first = first;
    d->fresh = kb_gate_latency(&ctx->settings->gate, rounds + first, k, &d->base, ctx->hardware_id);
    m->processes = 2;
    d->lat = mine;
    if (!kb_latency_verdict_fails(d->fresh.verdict)) d->lat.verdict = KB_LAT_INCONCLUSIVE;
    return 0;
}

/* Every round after the first runs on the next CPU the process may use (a
 * multithreaded case: on the set of CPUs moved on by one), on buffers first
 * touched from there: a slower kernel is slower everywhere, a busy
 * neighbour or an unlucky placement is not (docs/gate.md, rule 3). */
static int place_round(const kb_run_ctx *ctx, kb_case_timing *tc, const kb_case_measurement *m,
                       kb_err *err) {
    int cpu = kb_affinity_next(&tc->cpus, m->round_cpu[0], m->n_rounds);
    if (cpu >= 0) kb_case_timing_pin(tc, cpu);
    return kb_case_buffers_move(ctx, tc->bf, err);
}

/* Recording measures record_rounds rounds spaced in time, spread over
 * processes (recorder_of), and keeps the middle process's fastest
 * (kb_gate_record_best; every round's median goes into the baseline too:
 * their spread tells the gate how far the case wanders by itself and from
 * one process to the next); an attempt noisier than the tolerance is
 * measured again after a longer pause (another_attempt). Gating re-measures
 * a suspected slowdown after growing pauses, so a burst of load on the
 * machine can pass. Either way each round after the first runs on the next
 * CPU with its buffers moved. */
int kb_case_time_rounds(const kb_run_ctx *ctx, kb_case_timing *tc, kb_case_result *r, kb_err *err) {
    kb_case_measurement *m = &r->measured;
    double pause = ctx->settings->confirm_pause_s;
    for (;;) {
        const int w = recorder_of(ctx, m->n_rounds);
        if (w == 0 && m->n_rounds > 0 && place_round(ctx, tc, m, err) != 0) return -1;
        if (measure_and_decide(ctx, tc, r, w, err) != 0) return -1;
        if (ctx->settings->update) {
            if (m->n_rounds % ctx->settings->record_rounds != 0) {
                kb_sleep_s(ctx->settings->confirm_pause_s);
            } else if (another_attempt(ctx, m)) {
                kb_sleep_s(4.0 * ctx->settings->confirm_pause_s * m->record_attempts);
            } else {
                judge_recording(ctx, r);
                return 0;
            }
            continue;
        }
        if (kb_latency_verdict_fails(r->decision.lat.verdict))
            return confirm_in_fresh_process(ctx, tc, r, err);
        if (r->decision.lat.verdict != KB_LAT_PENDING || m->n_rounds == KB_MAX_ROUNDS) return 0;
        kb_sleep_s(pause);
        pause *= 2.0;
    }
}
