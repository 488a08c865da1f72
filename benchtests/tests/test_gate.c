/* The latency and accuracy gates on synthetic measurements, and the output
 * comparison (poisoning, unwritten and non-finite elements) they rely on. */
#include "base/rng.h"
#include "base/stats.h"
#include "decide/gate.h"
#include "kb_test.h"
#include "kbref/metrics.h"

#include <math.h>
#include <string.h>

#define N_BASE     40
#define N_ROUND    30
#define MAX_ROUNDS 6
#define HW         "cpu-test|avx2"

/* Per-test fixture: a baseline entry and up to MAX_ROUNDS rounds. */
static double base_ms[N_BASE];
static double round_ms[MAX_ROUNDS][N_ROUND];
static kb_round rounds[MAX_ROUNDS];
static kb_baseline_entry base;

static double median_of(const double *x, int n) {
    kb_stats s;
    kb_stats_compute(x, (size_t)n, &s);
    return s.median;
}

/* n values center * (1 + u), u uniform in [-rel, rel), from a seeded stream. */
static void jittered(double *x, int n, double center, double rel, const char *stream) {
    kb_rng r;
    kb_rng_seed(&r, 42, stream);
    for (int i = 0; i < n; ++i) x[i] = center * (1.0 + rel * (2.0 * kb_rng_uniform(&r) - 1.0));
}

/* A baseline of N_BASE samples around 1.0 ms with +-1% jitter. */
static void make_base(void) {
    memset(&base, 0, sizeof base);
    jittered(base_ms, N_BASE, 1.0, 0.01, "base");
    base.samples_ms = base_ms;
    base.n_samples = N_BASE;
    base.median_ms = median_of(base_ms, N_BASE);
    base.min_ms = base.median_ms * 0.99;
    snprintf(base.hardware_id, sizeof base.hardware_id, "%s", HW);
}

static void set_round(int i, const double *x, int n) {
    memcpy(round_ms[i], x, (size_t)n * sizeof *x);
    rounds[i] = (kb_round){round_ms[i], n, median_of(round_ms[i], n), {{0}}, 0, KB_TIMING_UNKNOWN};
}

/* Round i: N_ROUND samples around center with +-rel jitter. */
static void make_round(int i, double center, double rel) {
    char stream[32];
    double x[N_ROUND];
    snprintf(stream, sizeof stream, "round%d", i);
    jittered(x, N_ROUND, center, rel, stream);
    set_round(i, x, N_ROUND);
}

static kb_latency_verdict decide(int n_rounds, kb_latency_decision *d) {
    kb_gate_cfg cfg = kb_gate_defaults();
    *d = kb_gate_latency(&cfg, rounds, n_rounds, &base, HW);
    return d->verdict;
}

static void test_defaults(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    ASSERT_NEAR(cfg.latency_tol, 0.10, 0);
    ASSERT_INT_EQ(cfg.confirm_rounds, 3);
    ASSERT(strcmp(kb_latency_verdict_name(KB_LAT_REGRESSION), "regression") == 0);
    ASSERT(strcmp(kb_latency_verdict_name(KB_LAT_RECORDED), "recorded") == 0);
    ASSERT(strcmp(kb_latency_verdict_name((kb_latency_verdict)99), "?") == 0);
}

static void test_same_speed_ok(void) {
    kb_latency_decision d;
    make_base();
    make_round(0, 1.0, 0.01);
    ASSERT_INT_EQ(decide(1, &d), KB_LAT_OK);
    ASSERT_NEAR(d.ratio, 1.0, 0.02);
    ASSERT_NEAR(d.p_value, -1.0, 0); /* no distribution test needed */
}

static void test_slow_then_fast_cleared(void) {
    kb_latency_decision d;
    make_base();
    make_round(0, 1.3, 0.01);
    make_round(1, 1.0, 0.01);
    ASSERT_INT_EQ(decide(1, &d), KB_LAT_PENDING);
    ASSERT_NEAR(d.first_ratio, 1.3, 0.03);
    ASSERT_INT_EQ(decide(2, &d), KB_LAT_CLEARED);
    ASSERT_INT_EQ(d.best, 1);
    ASSERT_NEAR(d.ratio, 1.0, 0.02);
    ASSERT_NEAR(d.first_ratio, 1.3, 0.03);
}

static void test_25_percent_slower_regression(void) {
    kb_latency_decision d;
    make_base();
    for (int i = 0; i < 4; ++i) make_round(i, 1.25, 0.01);
    /* 1 + confirm_rounds = 4 rounds are needed before the verdict. */
    ASSERT_INT_EQ(decide(1, &d), KB_LAT_PENDING);
    ASSERT_INT_EQ(decide(2, &d), KB_LAT_PENDING);
    ASSERT_INT_EQ(decide(3, &d), KB_LAT_PENDING);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    ASSERT_NEAR(d.ratio, 1.25, 0.03);
    ASSERT(d.p_value >= 0.0 && d.p_value < 1e-6);
    ASSERT(rounds[d.best].median <= rounds[0].median);
}

static void test_disturbed_round_cannot_confirm(void) {
    kb_latency_decision d;
    make_base();
    for (int i = 0; i < 4; ++i) make_round(i, 1.25, 0.01);
    /* The same slowdown, but the best round had to keep disturbed samples
     * (the thread kept losing its CPU): reported, not failed. */
    for (int i = 0; i < 4; ++i) rounds[i].disturbed_kept = 3;
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_INCONCLUSIVE);
    /* A clean round that is the best one still confirms. */
    make_round(1, 1.22, 0.01);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    ASSERT_INT_EQ(d.best, 1);
}

/* n ratios around center, spread +-rel evenly (deterministic). */
static void ab_ratios(double *x, int n, double center, double rel) {
    for (int i = 0; i < n; ++i) x[i] = center * (1.0 + rel * (2.0 * i / (n - 1) - 1.0));
}

static void test_ab_decisions(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    double x[30];
    ab_ratios(x, 10, 1.0, 0.02);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 5, 0.0, 0).verdict, KB_LAT_PENDING); /* below the minimum */
    kb_ab_decision d = kb_gate_ab(&cfg, x, 10, 0.0, 0);
    ASSERT_INT_EQ(d.verdict, KB_LAT_OK);
    ASSERT_INT_EQ(d.n_pairs, 10);
    ASSERT(d.ci_lo < 1.0 && d.ci_hi > 1.0);
    ab_ratios(x, 10, 1.15, 0.02);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.0, 0).verdict, KB_LAT_REGRESSION);
    ab_ratios(x, 10, 0.8, 0.02);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.0, 0).verdict, KB_LAT_FASTER);
    /* 1.10 sits inside the interval: not decided until the end */
    ab_ratios(x, 10, 1.10, 0.05);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.0, 0).verdict, KB_LAT_PENDING);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.0, 1).verdict, KB_LAT_INCONCLUSIVE);
    /* under 1.10 but reaching below 1/1.10: may yet be faster */
    ab_ratios(x, 10, 0.93, 0.05);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.0, 0).verdict, KB_LAT_PENDING);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.0, 1).verdict, KB_LAT_OK);
    /* two wild pairs of ten move the interval by two ranks only */
    ab_ratios(x, 10, 1.0, 0.01);
    x[3] = 3.0;
    x[7] = 0.3;
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.0, 0).verdict, KB_LAT_OK);
    /* final with too few pairs for a finite interval */
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 4, 0.0, 1).verdict, KB_LAT_INCONCLUSIVE);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 0, 0.0, 1).verdict, KB_LAT_INCONCLUSIVE);
    /* The spread between one build's own processes widens the rule: a
     * 1.15 that clears 1.10 alone does not clear it widened by 8 %, and an
     * interval within 1.10 is not ok while it is within 1.10 only by less
     * than the spread. */
    ab_ratios(x, 10, 1.15, 0.02);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.08, 0).verdict, KB_LAT_PENDING);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.08, 1).verdict, KB_LAT_INCONCLUSIVE);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.02, 0).verdict, KB_LAT_REGRESSION);
    /* faster by less than the widened tolerance: within it, so ok */
    ab_ratios(x, 10, 0.8, 0.02);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.2, 0).verdict, KB_LAT_PENDING);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.2, 1).verdict, KB_LAT_OK);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.05, 0).verdict, KB_LAT_FASTER);
    ab_ratios(x, 10, 1.05, 0.01);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.0, 0).verdict, KB_LAT_OK);
    ASSERT_INT_EQ(kb_gate_ab(&cfg, x, 10, 0.06, 1).verdict, KB_LAT_INCONCLUSIVE);
}

/* The kept round: each process's fastest, then the middle process's. */
static void test_record_best(void) {
    double ms[5] = {1.00, 0.90, 1.20, 0.95, 1.10};
    kb_round kept[5];
    for (int i = 0; i < 5; ++i) kept[i] = (kb_round){.median = ms[i]};
    /* processes 0: 1.00, 0.95 -> 0.95 (round 3); 1: 0.90 (round 1), 1.10;
     * 2: 1.20 (round 2); the middle of 0.90, 0.95, 1.20 is round 3 */
    const int three[5] = {0, 1, 2, 0, 1};
    ASSERT_INT_EQ(kb_gate_record_best(kept, three, 5), 3);
    /* one process: its fastest round */
    const int one[5] = {0, 0, 0, 0, 0};
    ASSERT_INT_EQ(kb_gate_record_best(kept, one, 5), 1);
    /* two processes: the faster one's fastest (0.90 of process 1) */
    const int two[5] = {0, 1, 0, 1, 0};
    ASSERT_INT_EQ(kb_gate_record_best(kept, two, 5), 1);
}

/* Per-process medians: the head's processes agree, the base's differ by
 * 20 % (1.0 against 1.2): half of that is the spread. */
static void test_ab_spread(void) {
    const double head[6] = {1.0, 1.01, 0.99, 1.0, 1.0, 1.01};
    const int hp[6] = {0, 1, 2, 0, 1, 2};
    const double other[6] = {1.0, 1.2, 1.0, 1.2, 1.0, 1.0};
    const int op[6] = {0, 1, 2, 1, 0, 2};
    ASSERT_NEAR(kb_gate_ab_spread(head, hp, other, op, 6, 3), 0.1, 1e-12);
    ASSERT_NEAR(kb_gate_ab_spread(head, hp, other, op, 6, 1), 0.0, 0.0);
    /* a process that has not measured yet: no spread to judge by */
    ASSERT_NEAR(kb_gate_ab_spread(head, hp, other, op, 6, 4), 0.0, 0.0);
    ASSERT_NEAR(kb_gate_ab_spread(head, hp, other, op, 2, 3), 0.0, 0.0);
}

static void test_confirm_rounds_zero_decides_at_once(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    cfg.confirm_rounds = 0;
    make_base();
    make_round(0, 1.25, 0.01);
    kb_latency_decision d = kb_gate_latency(&cfg, rounds, 1, &base, HW);
    ASSERT_INT_EQ(d.verdict, KB_LAT_REGRESSION);
}

static void test_15_percent_slower_regression(void) {
    /* 1.15 +- 1% lies wholly above the baseline x 1.10 (at most 1.111). */
    kb_latency_decision d;
    make_base();
    for (int i = 0; i < 4; ++i) make_round(i, 1.15, 0.01);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    ASSERT(d.p_value < 1e-6);
}

/* A case recorded in two states (round medians 1.00 and 1.16: the machine
 * moved it by 16 % by itself) needs more than half of that beyond the
 * tolerance: 1.15 stays inconclusive, 1.25 is a regression. */
static void test_recorded_round_spread_raises_the_bar(void) {
    static double medians[] = {1.0, 1.16, 1.02, 1.15, 1.01};
    kb_latency_decision d;
    make_base();
    base.round_medians_ms = medians;
    base.n_rounds = 5;
    for (int i = 0; i < 4; ++i) make_round(i, 1.15, 0.01);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_INCONCLUSIVE);
    ASSERT_NEAR(d.noise, 0.08, 1e-9);
    for (int i = 0; i < 4; ++i) make_round(i, 1.25, 0.01);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    base.round_medians_ms = NULL;
    base.n_rounds = 0;
}

/* Every round `ratio` slower, with the baseline recorded when the machine's
 * bandwidth probe read 29 GB/s. Probes per round: */
static void probed_rounds_at(double ratio, double p0, double p1, double p2, double p3) {
    double probes[4] = {p0, p1, p2, p3};
    base.probe.v[KB_PROBE_SCALE] = 29.0;
    for (int i = 0; i < 4; ++i) {
        make_round(i, ratio, 0.01);
        rounds[i].probe.v[KB_PROBE_SCALE] = probes[i];
    }
}

static void probed_rounds(double p0, double p1, double p2, double p3) {
    probed_rounds_at(1.27, p0, p1, p2, p3);
}

/* The machine's bandwidth fell by as much (best probe 23 GB/s: x1.26): the
 * kernel itself is not slower, so the case is not failed. */
static void test_machine_drift_explains_slowdown(void) {
    kb_latency_decision d;
    make_base();
    probed_rounds(22.1, 23.0, 22.5, 21.9);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_MACHINE_DRIFT);
    ASSERT_NEAR(d.drift, 29.0 / 23.0, 1e-12);
    ASSERT(strcmp(kb_latency_verdict_name(d.verdict), "machine_drift") == 0);
}

/* A probe that reads low in some rounds but at full speed in one: the
 * machine is not slower (the best probe counts), so the slowdown fails. */
static void test_one_fast_probe_means_no_drift(void) {
    kb_latency_decision d;
    make_base();
    probed_rounds(22.1, 23.0, 29.2, 21.9);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    ASSERT(d.drift < 1.0);
}

/* Drift within the tolerance is not allowed for: a 27 % slowdown with the
 * machine 4 % slower fails. */
static void test_small_drift_ignored(void) {
    kb_latency_decision d;
    make_base();
    probed_rounds(27.9, 27.8, 27.5, 27.0);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    ASSERT_NEAR(d.drift, 29.0 / 27.9, 1e-12);
}

/* A 16 % slowdown with the machine 7.8 % slower: divided out it would pass
 * (1.16 / 1.078 = 1.076), but the machine moved by less than the 10 %
 * tolerance allows any kernel to move, so the slowdown is the kernel's. */
static void test_drift_within_tolerance_ignored(void) {
    kb_latency_decision d;
    make_base();
    probed_rounds_at(1.16, 26.9, 26.8, 26.5, 26.0);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    ASSERT_NEAR(d.drift, 29.0 / 26.9, 1e-12);
}

/* The machine 12 % slower does not excuse a kernel 27 % slower:
 * 1.27 / 1.12 = 1.13 is still beyond the tolerance. */
static void test_drift_smaller_than_slowdown_fails(void) {
    kb_latency_decision d;
    make_base();
    probed_rounds(25.9, 25.8, 25.0, 25.5);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    ASSERT_NEAR(d.drift, 29.0 / 25.9, 1e-12);
}

/* Without a probe on either side, the rule is the plain one. */
static void test_no_probe_no_drift(void) {
    kb_latency_decision d;
    make_base();
    probed_rounds(0.0, 0.0, 0.0, 0.0);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    ASSERT_NEAR(d.drift, 1.0, 0);
    probed_rounds(20.0, 20.0, 20.0, 20.0);
    base.probe.v[KB_PROBE_SCALE] = 0.0;
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    ASSERT_NEAR(d.drift, 1.0, 0);
    ASSERT_INT_EQ(d.drift_probe, KB_PROBE_N);
}

/* The machine model: a baseline recorded with every figure (scale 29 GB/s,
 * copy 31 GB/s, multiply-add 120 GFLOP/s, chain 1.0 Gstep/s) and bound b, and four
 * rounds 27 % slower whose probes read `now` in every round. */
static void modelled_rounds(kb_bound b, kb_probe_reading now) {
    make_base();
    base.bound = b;
    base.probe = (kb_probe_reading){{29.0, 31.0, 120.0, 1.0}};
    for (int i = 0; i < 4; ++i) {
        make_round(i, 1.27, 0.01);
        rounds[i].probe = now;
    }
}

/* A compute-bound case on a core 26 % slower by its multiply-add throughput, with
 * memory as fast as ever: the machine explains it. */
static void test_compute_bound_follows_madd(void) {
    kb_latency_decision d;
    modelled_rounds(KB_BOUND_COMPUTE, (kb_probe_reading){{29.0, 31.0, 95.0, 0.99}});
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_MACHINE_DRIFT);
    ASSERT_INT_EQ(d.drift_probe, KB_PROBE_MADD);
    ASSERT_NEAR(d.drift, 120.0 / 95.0, 1e-12);
}

/* The same readings do not excuse a memory-bound case: its figures (scale
 * and copy) did not move, so the slowdown is the kernel's. */
static void test_memory_bound_ignores_core(void) {
    kb_latency_decision d;
    modelled_rounds(KB_BOUND_MEMORY, (kb_probe_reading){{29.0, 30.5, 95.0, 0.79}});
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    ASSERT_INT_EQ(d.drift_probe, KB_PROBE_COPY);
    ASSERT_NEAR(d.drift, 31.0 / 30.5, 1e-12);
}

/* A memory-bound case on a host whose copies slowed while its streaming
 * scale did not (seen on bandwidth.cpu.fp32 copy_n16M: docs/gate.md): the
 * slower of the two figures counts. */
static void test_memory_bound_follows_copy(void) {
    kb_latency_decision d;
    modelled_rounds(KB_BOUND_MEMORY, (kb_probe_reading){{28.5, 24.0, 120.0, 1.0}});
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_MACHINE_DRIFT);
    ASSERT_INT_EQ(d.drift_probe, KB_PROBE_COPY);
    ASSERT_NEAR(d.drift, 31.0 / 24.0, 1e-12);
}

/* A slower clock with the multiply-add throughput unchanged (a latency-bound core
 * loop): the chain figure explains a compute-bound slowdown. */
static void test_compute_bound_follows_clock(void) {
    kb_latency_decision d;
    modelled_rounds(KB_BOUND_COMPUTE, (kb_probe_reading){{29.0, 31.0, 119.0, 0.78}});
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_MACHINE_DRIFT);
    ASSERT_INT_EQ(d.drift_probe, KB_PROBE_CHAIN);
}

/* Recording: steady rounds hold little noise; rounds whose medians spread
 * by 30 % hold 15 %, and a kept round whose samples spread by +-25 % about
 * as much. */
static void test_record_noise(void) {
    for (int i = 0; i < 3; ++i) make_round(i, 1.0 + 0.01 * i, 0.01);
    double noise = kb_gate_record_noise(rounds, 3, 0);
    ASSERT(noise < 0.02);
    make_round(2, 1.3, 0.01);
    noise = kb_gate_record_noise(rounds, 3, 0);
    ASSERT(noise > 0.14 && noise < 0.16);
    make_round(2, 1.0, 0.25);
    noise = kb_gate_record_noise(rounds, 3, 2);
    ASSERT(noise > 0.2 && noise < 0.25);
}

/* A baseline recorded with 30 % of noise gates at 30 %, read back from the
 * baseline itself (its kept round's samples and its round medians) exactly
 * as the recording judged them: a x1.25 slowdown is within it, a x2 one is
 * not. A steady baseline gates at the configured tolerance, never finer. */
static void test_case_tolerance(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    double medians[3] = {1.0, 1.6, 1.2};
    make_base();
    ASSERT_NEAR(kb_gate_case_tolerance(&cfg, &base), 0.10, 0);
    ASSERT_NEAR(kb_gate_case_tolerance(&cfg, NULL), 0.10, 0);
    base.round_medians_ms = medians;
    base.n_rounds = 3;
    ASSERT_NEAR(kb_gate_case_tolerance(&cfg, &base), 0.30, 1e-12);
    for (int i = 0; i < 3; ++i) make_round(i, medians[i], 0.01);
    for (int i = 0; i < 3; ++i) rounds[i].median = medians[i];
    memcpy(base_ms, round_ms[0], N_ROUND * sizeof *base_ms); /* the kept round's samples */
    base.n_samples = N_ROUND;
    ASSERT_NEAR(kb_gate_record_noise(rounds, 3, 0), 0.30, 1e-12);
    kb_latency_decision d;
    for (int i = 0; i < 4; ++i) make_round(i, 1.25, 0.01);
    ASSERT_INT_EQ(decide(1, &d), KB_LAT_OK);
    ASSERT_NEAR(d.tolerance, 0.30, 1e-12);
    for (int i = 0; i < 4; ++i) make_round(i, 2.0, 0.01);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    cfg.latency_tol = 0.5; /* a coarser configured tolerance wins */
    ASSERT_NEAR(kb_gate_case_tolerance(&cfg, &base), 0.5, 0);
    base.round_medians_ms = NULL;
    base.n_rounds = 0;
}

static void test_5_percent_slower_ok(void) {
    kb_latency_decision d;
    make_base();
    make_round(0, 1.05, 0.01);
    ASSERT_INT_EQ(decide(1, &d), KB_LAT_OK);
    ASSERT_NEAR(d.ratio, 1.05, 0.02);
}

/* Bimodal timings (two clock states, say): the baseline has half its
 * samples near 0.5 ms and half near 1.5 ms, so its median is ~1.0. Each
 * round has the same two modes scaled by 1.10 -- exactly the tolerated
 * slowdown -- but 21 of 40 samples in the upper mode, so its median lands in
 * the upper mode (~1.65, ratio ~1.65). Against the scaled baseline the
 * samples interleave: U stays near n1 n2 / 2 (expected 820 of 1600 with
 * sd 104), p ~0.4-0.5: no evidence of a slowdown beyond the tolerance. */
static void test_bimodal_overlap_inconclusive(void) {
    static double bimodal_base[40], bimodal_round[4][40];
    kb_round r[4];
    memset(&base, 0, sizeof base);
    jittered(bimodal_base, 20, 0.5, 0.02, "base-lo");
    jittered(bimodal_base + 20, 20, 1.5, 0.02, "base-hi");
    base.samples_ms = bimodal_base;
    base.n_samples = 40;
    base.median_ms = median_of(bimodal_base, 40);
    snprintf(base.hardware_id, sizeof base.hardware_id, "%s", HW);
    ASSERT_NEAR(base.median_ms, 1.0, 0.05);
    for (int i = 0; i < 4; ++i) {
        char lo[16], hi[16];
        snprintf(lo, sizeof lo, "lo%d", i);
        snprintf(hi, sizeof hi, "hi%d", i);
        jittered(bimodal_round[i], 19, 0.55, 0.02, lo);
        jittered(bimodal_round[i] + 19, 21, 1.65, 0.02, hi);
        r[i] = (kb_round){bimodal_round[i], 40, median_of(bimodal_round[i], 40), {{0}}, 0,
                          KB_TIMING_UNKNOWN};
        ASSERT(r[i].median > 1.10 * base.median_ms);
    }
    kb_gate_cfg cfg = kb_gate_defaults();
    kb_latency_decision d = kb_gate_latency(&cfg, r, 4, &base, HW);
    ASSERT_INT_EQ(d.verdict, KB_LAT_INCONCLUSIVE);
    ASSERT(d.ratio > 1.5);
    ASSERT(d.p_value > 0.05); /* ~0.5 with this seed: nowhere near alpha */
}

static void test_no_baseline(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    make_round(0, 2.0, 0.01);
    kb_latency_decision d = kb_gate_latency(&cfg, rounds, 1, NULL, HW);
    ASSERT_INT_EQ(d.verdict, KB_LAT_NO_BASELINE);
    ASSERT(isnan(d.ratio));
}

static void test_other_hardware(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    make_base();
    for (int i = 0; i < 4; ++i) make_round(i, 2.0, 0.01);
    kb_latency_decision d = kb_gate_latency(&cfg, rounds, 4, &base, "cpu-test|avx512f");
    ASSERT_INT_EQ(d.verdict, KB_LAT_OTHER_HARDWARE);
    ASSERT_NEAR(d.ratio, 2.0, 0.05); /* still reported */
}

/* Rounds timed a slower way than the baseline (GPU calls unheld against
 * held ones: an unheld small case takes several times as long) fail no
 * slowdown; within tolerance they pass, and the faster way is gated. */
static void rounds_timed(int n, double center, kb_timing t) {
    for (int i = 0; i < n; ++i) {
        make_round(i, center, 0.01);
        rounds[i].timing = t;
    }
}

static kb_latency_verdict verdict_of(int n) {
    kb_gate_cfg cfg = kb_gate_defaults();
    return kb_gate_latency(&cfg, rounds, n, &base, HW).verdict;
}

static void test_other_timing(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    make_base();
    base.timing = KB_TIMING_HELD;
    rounds_timed(4, 2.0, KB_TIMING_UNHELD);
    kb_latency_decision d = kb_gate_latency(&cfg, rounds, 4, &base, HW);
    ASSERT_INT_EQ(d.verdict, KB_LAT_OTHER_TIMING);
    ASSERT_NEAR(d.ratio, 2.0, 0.05); /* still reported */
    ASSERT(!kb_latency_verdict_fails(d.verdict) && !kb_latency_verdict_gated(d.verdict));
    ASSERT_INT_EQ(verdict_of(1), KB_LAT_PENDING); /* confirmation rounds first, as ever */
    /* held then unheld (the hold gave up part way): mixed, slower than held */
    rounds[0].timing = KB_TIMING_HELD;
    ASSERT_INT_EQ(verdict_of(4), KB_LAT_OTHER_TIMING);
    /* within tolerance even timed the slower way: passes, gated */
    rounds_timed(1, 1.0, KB_TIMING_UNHELD);
    ASSERT_INT_EQ(verdict_of(1), KB_LAT_OK);
    /* the same way, or the faster way (held against unheld): a regression */
    rounds_timed(4, 2.0, KB_TIMING_HELD);
    ASSERT_INT_EQ(verdict_of(4), KB_LAT_REGRESSION);
    base.timing = KB_TIMING_UNHELD;
    ASSERT_INT_EQ(verdict_of(4), KB_LAT_REGRESSION);
    base.timing = KB_TIMING_MIXED;
    ASSERT_INT_EQ(verdict_of(4), KB_LAT_REGRESSION);
    rounds_timed(4, 2.0, KB_TIMING_UNHELD);
    ASSERT_INT_EQ(verdict_of(4), KB_LAT_OTHER_TIMING);
    /* a baseline from before the mode was kept is compared as before */
    base.timing = KB_TIMING_UNKNOWN;
    ASSERT_INT_EQ(verdict_of(4), KB_LAT_REGRESSION);
    /* another clock altogether: not failed either */
    base.timing = KB_TIMING_HOST;
    ASSERT_INT_EQ(verdict_of(4), KB_LAT_OTHER_TIMING);
    rounds_timed(1, 1.0, KB_TIMING_HOST);
    ASSERT_INT_EQ(verdict_of(1), KB_LAT_OK);
}

/* The modes' names, their parsing (an absent field is "unknown": no file
 * names it) and how rounds' modes combine. */
static void test_timing_modes(void) {
    for (int t = KB_TIMING_HOST; t < KB_TIMING_N; ++t) {
        kb_timing back = KB_TIMING_UNKNOWN;
        ASSERT_INT_EQ(kb_timing_parse(kb_timing_name((kb_timing)t), &back), 0);
        ASSERT_INT_EQ(back, t);
    }
    kb_timing t = KB_TIMING_HOST;
    ASSERT_INT_EQ(kb_timing_parse("unknown", &t), -1);
    ASSERT_INT_EQ(kb_timing_parse("Held", &t), -1);
    ASSERT_INT_EQ(kb_timing_parse("", &t), -1);
    ASSERT(strcmp(kb_timing_name(KB_TIMING_N), "?") == 0);
    ASSERT_INT_EQ(kb_timing_join(KB_TIMING_UNKNOWN, KB_TIMING_HELD), KB_TIMING_HELD);
    ASSERT_INT_EQ(kb_timing_join(KB_TIMING_UNHELD, KB_TIMING_UNKNOWN), KB_TIMING_UNHELD);
    ASSERT_INT_EQ(kb_timing_join(KB_TIMING_HELD, KB_TIMING_HELD), KB_TIMING_HELD);
    ASSERT_INT_EQ(kb_timing_join(KB_TIMING_HELD, KB_TIMING_UNHELD), KB_TIMING_MIXED);
    ASSERT_INT_EQ(kb_timing_join(KB_TIMING_MIXED, KB_TIMING_HELD), KB_TIMING_MIXED);
    ASSERT(!kb_timing_handicapped(KB_TIMING_UNKNOWN, KB_TIMING_UNHELD));
    ASSERT(!kb_timing_handicapped(KB_TIMING_HELD, KB_TIMING_UNKNOWN));
    ASSERT(!kb_timing_handicapped(KB_TIMING_HELD, KB_TIMING_HELD));
    ASSERT(kb_timing_handicapped(KB_TIMING_HELD, KB_TIMING_MIXED));
    ASSERT(kb_timing_handicapped(KB_TIMING_HELD, KB_TIMING_UNHELD));
    ASSERT(kb_timing_handicapped(KB_TIMING_MIXED, KB_TIMING_UNHELD));
    ASSERT(!kb_timing_handicapped(KB_TIMING_UNHELD, KB_TIMING_HELD));
    ASSERT(!kb_timing_handicapped(KB_TIMING_MIXED, KB_TIMING_HELD));
    ASSERT(kb_timing_handicapped(KB_TIMING_HOST, KB_TIMING_HELD));
    ASSERT(kb_timing_handicapped(KB_TIMING_UNHELD, KB_TIMING_HOST));
}

/* n evenly spaced values center * (1 - w + 2w (i + 0.5) / n), reversed so
 * that the input is not already sorted. Their median is exactly center. */
static void even_round(int i, double center, double w) {
    double x[N_ROUND];
    for (int k = 0; k < N_ROUND; ++k)
        x[N_ROUND - 1 - k] = center * (1.0 - w + 2.0 * w * (k + 0.5) / N_ROUND);
    set_round(i, x, N_ROUND);
}

static void test_no_samples_falls_back_to_ci(void) {
    kb_latency_decision d;
    make_base();
    base.samples_ms = NULL;
    base.n_samples = 0;
    base.median_ms = 1.0;
    /* Clear shift: 1.25 +-1%: the CI of the median is far above 1.10. */
    for (int i = 0; i < 4; ++i) even_round(i, 1.25, 0.01);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_REGRESSION);
    ASSERT_NEAR(d.p_value, 0.0, 0);
    /* Median 1.15 but +-15% spread. With n = 30 the CI's lower rank is
     * floor(15 - 1.96 sqrt(30) / 2) = floor(9.63) = 9, the value
     * 1.15 (0.85 + 0.3 * 9.5 / 30) = 1.08675 < 1.10: not proven. */
    for (int i = 0; i < 4; ++i) even_round(i, 1.15, 0.15);
    ASSERT_NEAR(rounds[0].median, 1.15, 1e-12);
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_INCONCLUSIVE);
    ASSERT_NEAR(d.p_value, 1.0, 0);
    /* Fewer than 8 samples count as none. */
    base.samples_ms = base_ms;
    base.n_samples = 7;
    ASSERT_INT_EQ(decide(4, &d), KB_LAT_INCONCLUSIVE);
}

/* --- accuracy --- */

static const kb_tolerance tol = {1, 1e-3, 1e-2};

/* An fp64 output of n elements equal to ref plus err[i]. */
static kbref_accuracy compare(const double *ref, const double *err, int n) {
    double out[128];
    kbref_accuracy acc = {0};
    for (int i = 0; i < n; ++i) out[i] = ref[i] + err[i];
    kbref_accuracy_add(&acc, out, KB_FP64, ref, (size_t)n);
    kbref_accuracy_finish(&acc);
    return acc;
}

static double ref100[100];

static void init_ref(void) {
    for (int i = 0; i < 100; ++i) ref100[i] = 0.25 * i - 10.0;
}

static void test_accuracy_within_tolerance(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    char why[1024];
    double err[100];
    init_ref();
    for (int i = 0; i < 100; ++i) err[i] = i % 2 ? 5e-4 : -5e-4; /* rmse 5e-4 */
    kbref_accuracy acc = compare(ref100, err, 100);
    ASSERT_NEAR(acc.rmse, 5e-4, 1e-12);
    kb_baseline_entry b = {.rmse = 4e-4};
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &tol, &acc, &b, why, sizeof why), 0);
    ASSERT(why[0] == '\0');
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &tol, &acc, NULL, why, sizeof why), 0);
}

static void test_accuracy_rmse_over(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    char why[1024];
    double err[100];
    init_ref();
    for (int i = 0; i < 100; ++i) err[i] = 2e-3; /* rmse 2e-3 > 1e-3; max 2e-3 < 1e-2 */
    kbref_accuracy acc = compare(ref100, err, 100);
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &tol, &acc, NULL, why, sizeof why), 1);
    ASSERT_STR_CONTAINS(why, "rmse 2.000e-03 exceeds the manifest tolerance 1.000e-03");
}

static void test_accuracy_max_abs_over(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    kb_tolerance loose = {1, 1e-2, 1e-2};
    char why[1024];
    double err[100];
    init_ref();
    memset(err, 0, sizeof err);
    err[7] = 2e-2; /* rmse sqrt(4e-4 / 100) = 2e-3, fine; one element 2e-2 off */
    kbref_accuracy acc = compare(ref100, err, 100);
    ASSERT_NEAR(acc.rmse, 2e-3, 1e-12);
    ASSERT_INT_EQ(acc.worst, 7);
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, NULL, why, sizeof why), 1);
    ASSERT_STR_CONTAINS(why, "max abs error 2.000e-02 exceeds");
    ASSERT_STR_CONTAINS(why, "element 7");
    /* max_abs < 0: not checked. */
    kb_tolerance unchecked = {1, 1e-2, -1.0};
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &unchecked, &acc, NULL, why, sizeof why), 0);
}

static void test_accuracy_unwritten_and_nonfinite(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    char why[1024];
    double out[4];
    const double ref[4] = {1, 2, 3, 4};
    kbref_poison(out, KB_FP64, 4);
    out[0] = 1;
    out[1] = 2;
    kbref_accuracy acc = {0};
    kbref_accuracy_add(&acc, out, KB_FP64, ref, 4);
    kbref_accuracy_finish(&acc);
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &tol, &acc, NULL, why, sizeof why), 1);
    ASSERT_STR_CONTAINS(why, "2 of 4 output elements were never written");

    out[2] = NAN;
    out[3] = INFINITY;
    memset(&acc, 0, sizeof acc);
    kbref_accuracy_add(&acc, out, KB_FP64, ref, 4);
    kbref_accuracy_finish(&acc);
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &tol, &acc, NULL, why, sizeof why), 1);
    ASSERT_STR_CONTAINS(why, "2 output elements are NaN/Inf");
}

static void test_accuracy_drift(void) {
    kb_gate_cfg cfg = kb_gate_defaults(); /* drift 1e-3 */
    kb_tolerance loose = {1, 1e-1, -1.0};
    char why[1024];
    double err[100];
    init_ref();
    for (int i = 0; i < 100; ++i) err[i] = 5e-3;
    kbref_accuracy acc = compare(ref100, err, 100);
    kb_baseline_entry b = {.rmse = 1e-3}; /* |5e-3 - 1e-3| = 4e-3 > 1e-3 */
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 1);
    ASSERT_STR_CONTAINS(why, "rmse drifted");
    b.rmse = 4.5e-3; /* within 1e-3 */
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 0);
    b.rmse = 7e-3; /* better than the baseline by more than the drift also counts */
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 1);
    ASSERT_STR_CONTAINS(why, "rmse drifted");
}

/* The accepted forms of KBENCH_ACCURACY_DRIFT and what each sets. */
static void test_drift_parse(void) {
    double a = 7, r = 7;
    kb_err err;
    ASSERT_INT_EQ(kb_gate_parse_drift("1e-3", &a, &r, "V", &err), 0);
    ASSERT_NEAR(a, 1e-3, 0);
    ASSERT(r < 0.0);
    ASSERT_INT_EQ(kb_gate_parse_drift("abs:0", &a, &r, "V", &err), 0);
    ASSERT_NEAR(a, 0.0, 0);
    ASSERT(r < 0.0);
    ASSERT_INT_EQ(kb_gate_parse_drift("rel:0.5", &a, &r, "V", &err), 0);
    ASSERT(a < 0.0);
    ASSERT_NEAR(r, 0.5, 0);
    ASSERT_INT_EQ(kb_gate_parse_drift("50%", &a, &r, "V", &err), 0);
    ASSERT(a < 0.0);
    ASSERT_NEAR(r, 0.5, 0);
    ASSERT_INT_EQ(kb_gate_parse_drift(".5%", &a, &r, "V", &err), 0);
    ASSERT_NEAR(r, 0.005, 1e-18);
    ASSERT_INT_EQ(kb_gate_parse_drift("1e-20,rel:0.5", &a, &r, "V", &err), 0);
    ASSERT_NEAR(a, 1e-20, 0);
    ASSERT_NEAR(r, 0.5, 0);
    ASSERT_INT_EQ(kb_gate_parse_drift("10%,abs:1e-12", &a, &r, "V", &err), 0);
    ASSERT_NEAR(a, 1e-12, 0);
    ASSERT_NEAR(r, 0.1, 1e-17);
    const char *bad[] = {
        "",       "-1",        "rel:-0.5",     "rel:",          "abs:",  "x",
        "1e-3 ",  " 1e-3",     "inf",          "nan",           "0x10",  "rel:50%",
        "abs:5%", "50 %",      "1e31",         "1e-3,",         ",1e-3", "1e-3,,rel:1",
        "%",      "rel:1e999", "1e-3;rel:0.5", "1e-3,rel:0.5,1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        err.msg[0] = '\0';
        ASSERT_INT_EQ(kb_gate_parse_drift(bad[i], &a, &r, "KBENCH_ACCURACY_DRIFT", &err), -1);
        ASSERT_STR_CONTAINS(err.msg, "KBENCH_ACCURACY_DRIFT: '");
        ASSERT_STR_CONTAINS(err.msg, bad[i]);
    }
    ASSERT_INT_EQ(kb_gate_parse_drift("1e-3,2e-3", &a, &r, "--accuracy-drift", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "--accuracy-drift: '1e-3,2e-3' gives two absolute limits");
    ASSERT_INT_EQ(kb_gate_parse_drift("rel:1,50%", &a, &r, "--accuracy-drift", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "gives two relative limits");
}

/* A relative drift scales with the baseline's RMSE: an fp64 kernel's
 * 2e-14 may move by 1e-14 at rel:0.5, where 1e-3 would let it move by
 * eleven orders of magnitude. */
static void test_accuracy_drift_relative(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    cfg.accuracy_drift = -1.0;
    cfg.accuracy_drift_rel = 0.5;
    kb_tolerance loose = {1, 1e-1, -1.0};
    char why[1024];
    kb_baseline_entry b = {.rmse = 2e-14};
    kbref_accuracy acc = {.n = 10, .n_compared = 10, .rmse = 2.9e-14};
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 0);
    acc.rmse = 1.1e-14;
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 0);
    acc.rmse = 3.1e-14;
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 1);
    ASSERT_STR_CONTAINS(why, "rmse drifted from the baseline's 2.000e-14 by 1.100e-14 "
                             "(allowed 1.000e-14: 50 % of the baseline's rmse)");
    acc.rmse = 0.9e-14; /* better by more than half also moves */
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 1);
    /* the default absolute 1e-3 lets the same drift through */
    cfg = kb_gate_defaults();
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 0);

    /* relative alone: an exact baseline allows no drift at all */
    cfg.accuracy_drift = -1.0;
    cfg.accuracy_drift_rel = 0.5;
    b.rmse = 0.0;
    acc.rmse = 0.0;
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 0);
    acc.rmse = 1e-300;
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 1);
    /* both: a drift fails only beyond both limits (the larger allowed) */
    cfg.accuracy_drift = 1e-20;
    ASSERT_NEAR(kb_gate_drift_allowed(&cfg, 0.0), 1e-20, 0);
    ASSERT_NEAR(kb_gate_drift_allowed(&cfg, 2e-14), 1e-14, 0);
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 0);
    acc.rmse = 2e-20;
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 1);
    ASSERT_STR_CONTAINS(why, "(allowed 1.000e-20: 1e-20 or 50 % of the baseline's rmse, "
                             "whichever is larger)");
    b.rmse = 2e-14;
    acc.rmse = 2.9e-14;
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 0);
    acc.rmse = 3.1e-14;
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why), 1);
    /* a NaN rmse never passes a drift rule */
    acc.rmse = NAN;
    ASSERT(kb_gate_accuracy(&cfg, &loose, &acc, &b, why, sizeof why) >= 1);
    ASSERT_STR_CONTAINS(why, "rmse drifted");
}

static void test_accuracy_counts_every_rule(void) {
    kb_gate_cfg cfg = kb_gate_defaults();
    char why[2048];
    kbref_accuracy acc = {.n = 10, .n_nonfinite = 1, .n_unwritten = 2, .rmse = 0.5, .max_abs = 2.0};
    kb_baseline_entry b = {.rmse = 0.0};
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &tol, &acc, &b, why, sizeof why), 5);
    int lines = 0;
    for (const char *p = why; *p; ++p) lines += *p == '\n';
    ASSERT_INT_EQ(lines, 5); /* one line per rule */
    /* A NaN rmse never passes. */
    kbref_accuracy nan_acc = {.n = 1, .rmse = NAN};
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &tol, &nan_acc, NULL, why, sizeof why), 1);
    /* A short buffer truncates the text but not the count. */
    char small[16];
    ASSERT_INT_EQ(kb_gate_accuracy(&cfg, &tol, &acc, &b, small, sizeof small), 5);
    ASSERT(strlen(small) < sizeof small);
}

static void test_poison_counts_unwritten_all_precisions(void) {
    const double ref[10] = {0.5, 1, 1.5, 2, -0.25, 3, 4, -8, 0.125, 6};
    for (int p = 0; p < KB_PREC_COUNT; ++p) {
        kb_test_current = kb_prec_name((kb_prec)p);
        unsigned char buf[10 * 8];
        kbref_poison(buf, (kb_prec)p, 10);
        /* The kernel writes elements 0, 3 and 7 (values exact in all four). */
        kb_store_f64(buf, (kb_prec)p, 0, ref[0]);
        kb_store_f64(buf, (kb_prec)p, 3, ref[3]);
        kb_store_f64(buf, (kb_prec)p, 7, ref[7]);
        kbref_accuracy acc = {0};
        kbref_accuracy_add(&acc, buf, (kb_prec)p, ref, 10);
        kbref_accuracy_finish(&acc);
        ASSERT_INT_EQ(acc.n, 10);
        ASSERT_INT_EQ(acc.n_unwritten, 7);
        ASSERT_INT_EQ(acc.n_nonfinite, 0);
        ASSERT_NEAR(acc.rmse, 0, 0);
        /* A NaN and an Inf written by the kernel are non-finite, not unwritten. */
        kb_store_f64(buf, (kb_prec)p, 5, NAN);
        kb_store_f64(buf, (kb_prec)p, 6, -INFINITY);
        kb_store_f64(buf, (kb_prec)p, 9, ref[9] + 0.5);
        memset(&acc, 0, sizeof acc);
        kbref_accuracy_add(&acc, buf, (kb_prec)p, ref, 10);
        kbref_accuracy_finish(&acc);
        ASSERT_INT_EQ(acc.n_unwritten, 4);
        ASSERT_INT_EQ(acc.n_nonfinite, 2);
        /* Four finite pairs, one 0.5 off: rmse sqrt(0.25 / 4) = 0.25. */
        ASSERT_NEAR(acc.rmse, 0.25, 1e-15);
        ASSERT_NEAR(acc.max_abs, 0.5, 0);
        ASSERT_INT_EQ(acc.worst, 9);
        /* The poison itself reads as a NaN, never as a number. */
        ASSERT(isnan(kb_load_f64(buf, (kb_prec)p, 1)));
    }
    kb_test_current = "test_poison_counts_unwritten_all_precisions";
}

static void test_accuracy_accumulates_tensors(void) {
    const double ref[2] = {1, 2};
    const double a[2] = {1.5, 2}, b[2] = {1, 1.5};
    kbref_accuracy acc = {0};
    kbref_accuracy_add(&acc, a, KB_FP64, ref, 2);
    kbref_accuracy_add(&acc, b, KB_FP64, ref, 2);
    kbref_accuracy_finish(&acc);
    ASSERT_INT_EQ(acc.n, 4);
    ASSERT_NEAR(acc.rmse, sqrt(0.5 / 4), 1e-15); /* two errors of 0.5 in four */
    ASSERT_INT_EQ(acc.worst, 0);                 /* the first tensor's 0.5 came first */
    /* Nothing finite to compare: rmse 0, not NaN. */
    double nothing[2];
    kbref_accuracy none = {0};
    kbref_poison(nothing, KB_FP64, 2);
    kbref_accuracy_add(&none, nothing, KB_FP64, ref, 2);
    kbref_accuracy_finish(&none);
    ASSERT_NEAR(none.rmse, 0, 0);
}

int main(void) {
    RUN_TEST(test_defaults);
    RUN_TEST(test_same_speed_ok);
    RUN_TEST(test_slow_then_fast_cleared);
    RUN_TEST(test_25_percent_slower_regression);
    RUN_TEST(test_disturbed_round_cannot_confirm);
    RUN_TEST(test_ab_decisions);
    RUN_TEST(test_ab_spread);
    RUN_TEST(test_record_best);
    RUN_TEST(test_confirm_rounds_zero_decides_at_once);
    RUN_TEST(test_15_percent_slower_regression);
    RUN_TEST(test_recorded_round_spread_raises_the_bar);
    RUN_TEST(test_machine_drift_explains_slowdown);
    RUN_TEST(test_one_fast_probe_means_no_drift);
    RUN_TEST(test_small_drift_ignored);
    RUN_TEST(test_drift_within_tolerance_ignored);
    RUN_TEST(test_drift_smaller_than_slowdown_fails);
    RUN_TEST(test_no_probe_no_drift);
    RUN_TEST(test_compute_bound_follows_madd);
    RUN_TEST(test_memory_bound_ignores_core);
    RUN_TEST(test_memory_bound_follows_copy);
    RUN_TEST(test_compute_bound_follows_clock);
    RUN_TEST(test_record_noise);
    RUN_TEST(test_case_tolerance);
    RUN_TEST(test_5_percent_slower_ok);
    RUN_TEST(test_bimodal_overlap_inconclusive);
    RUN_TEST(test_no_baseline);
    RUN_TEST(test_other_hardware);
    RUN_TEST(test_other_timing);
    RUN_TEST(test_timing_modes);
    RUN_TEST(test_no_samples_falls_back_to_ci);
    RUN_TEST(test_accuracy_within_tolerance);
    RUN_TEST(test_accuracy_rmse_over);
    RUN_TEST(test_accuracy_max_abs_over);
    RUN_TEST(test_accuracy_unwritten_and_nonfinite);
    RUN_TEST(test_accuracy_drift);
    RUN_TEST(test_drift_parse);
    RUN_TEST(test_accuracy_drift_relative);
    RUN_TEST(test_accuracy_counts_every_rule);
    RUN_TEST(test_poison_counts_unwritten_all_precisions);
    RUN_TEST(test_accuracy_accumulates_tensors);
    return kb_test_summary();
}
