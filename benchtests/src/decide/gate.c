#include "decide/gate.h"

#include "base/stats.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kb_gate_cfg kb_gate_defaults(void) {
    return (kb_gate_cfg){
        .latency_tol = 0.10,
        .accuracy_drift = 1e-3,
        .accuracy_drift_rel = -1.0,
        .confirm_rounds = 3,
        .alpha = 0.001,
        .ab_min_pairs = 10,
        .ab_max_pairs = 30,
        .ab_max_time_s = 4.0,
        .ab_processes = 3,
    };
}

/* Is the round slower than baseline x (1 + tol) beyond reasonable doubt? With
 * the baseline's samples: a one-sided Mann-Whitney test against the scaled
 * samples. Without them: the lower end of the round median's confidence
 * interval must clear the threshold. */
static double significance(const kb_round *r, const kb_baseline_entry *base, double tol) {
    if (base->n_samples >= 8)
        return kb_mann_whitney_greater(r->ms, (size_t)r->n, base->samples_ms,
                                       (size_t)base->n_samples, 1.0 + tol);
    kb_stats s;
    if (kb_stats_compute(r->ms, (size_t)r->n, &s) != 0) return 1.0;
    return s.ci_lo > base->median_ms * (1.0 + tol) ? 0.0 : 1.0;
}

/* (p90 - p10) / median of a sample set; 0 when there are too few samples. */
static double relative_spread(const double *ms, int n) {
    kb_stats s;
    if (n < 8 || kb_stats_compute(ms, (size_t)n, &s) != 0 || s.median <= 0.0) return 0.0;
    return (s.p90 - s.p10) / s.median;
}

/* (max - min) / min of round medians: how far a case wandered between
 * rounds. */
static double medians_spread(const double *medians, int n) {
    if (n < 2) return 0.0;
    double lo = medians[0], hi = lo;
    for (int i = 1; i < n; ++i) {
        if (medians[i] < lo) lo = medians[i];
        if (medians[i] > hi) hi = medians[i];
    }
    return lo > 0.0 ? (hi - lo) / lo : 0.0;
}

static double round_spread(const kb_baseline_entry *base) {
    return medians_spread(base->round_medians_ms, base->n_rounds);
}

/* The noise a recording holds: half the wider of the spread between its
 * round medians and the kept round's p10-p90 spread. The recording judges
 * its rounds by it and the gate reads it back from the baseline, so both
 * come from this one function. */
static double recorded_noise(const double *kept_ms, int n_kept, const double *medians,
                             int n_medians) {
    double between = medians_spread(medians, n_medians);
    double within = relative_spread(kept_ms, n_kept);
    return 0.5 * (between > within ? between : within);
}

double kb_gate_case_tolerance(const kb_gate_cfg *cfg, const kb_baseline_entry *base) {
    double noise = base ? recorded_noise(base->samples_ms, base->n_samples, base->round_medians_ms,
                                         base->n_rounds)
                        : 0.0;
    return noise > cfg->latency_tol ? noise : cfg->latency_tol;
}

static double widest(double a, double b, double c) {
    return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

/* How much slower the machine is than when the baseline was recorded, by
 * the figures of the case's bound (all four near the ridge): the
 * baseline's over the best of these rounds (each side is the best of its
 * rounds, as the medians compared are). */
static double machine_drift(const kb_round *rounds, int n_rounds, const kb_baseline_entry *base,
                            kb_probe_kind *which) {
    kb_probe_reading best = {{0}};
    for (int i = 0; i < n_rounds; ++i) kb_probe_keep_best(&best, &rounds[i].probe);
    return kb_machine_drift(base->bound, kb_near_ridge(base->intensity, base->balance),
                            &base->probe, &best, which);
}

/* How the rounds' samples were timed, together. */
static kb_timing rounds_timing(const kb_round *rounds, int n_rounds) {
    kb_timing t = KB_TIMING_UNKNOWN;
    for (int i = 0; i < n_rounds; ++i) t = kb_timing_join(t, rounds[i].timing);
    return t;
}

static kb_latency_decision decide(const kb_gate_cfg *cfg, const kb_round *rounds, int n_rounds,
                                  const kb_baseline_entry *base, const char *hardware_id) {
    kb_latency_decision d = {KB_LAT_NO_BASELINE, 0, NAN, NAN, -1.0, 0.0, 1.0, KB_PROBE_N,
                             cfg->latency_tol};
    for (int i = 1; i < n_rounds; ++i)
        if (rounds[i].median < rounds[d.best].median) d.best = i;
    if (!base || n_rounds == 0) return d;
    d.ratio = rounds[d.best].median / base->median_ms;
    d.first_ratio = rounds[0].median / base->median_ms;
    if (strcmp(base->hardware_id, hardware_id) != 0) {
        d.verdict = KB_LAT_OTHER_HARDWARE;
        return d;
    }
    d.tolerance = kb_gate_case_tolerance(cfg, base);
    double limit = 1.0 + d.tolerance;
    if (d.ratio <= limit) {
        d.verdict = n_rounds == 1 ? KB_LAT_OK : KB_LAT_CLEARED;
        return d;
    }
    if (n_rounds < 1 + cfg->confirm_rounds) {
        d.verdict = KB_LAT_PENDING;
        return d;
    }
    double spread_now = relative_spread(rounds[d.best].ms, rounds[d.best].n);
    double spread_base = relative_spread(base->samples_ms, base->n_samples);
    d.noise = 0.5 * widest(spread_now, spread_base, round_spread(base));
    d.p_value = significance(&rounds[d.best], base, d.tolerance);
    if (!(d.ratio > limit + d.noise && d.p_value < cfg->alpha) ||
        rounds[d.best].disturbed_kept > 0) {
        d.verdict = KB_LAT_INCONCLUSIVE;
        return d;
    }
    d.drift = machine_drift(rounds, n_rounds, base, &d.drift_probe);
    /* The machine must have moved by more than a kernel may (the tolerance):
     * smaller drift is what the tolerance is for. */
    int drifted = d.drift > limit && !(d.ratio / d.drift > limit + d.noise);
    d.verdict = drifted ? KB_LAT_MACHINE_DRIFT : KB_LAT_REGRESSION;
    return d;
}

kb_latency_decision kb_gate_latency(const kb_gate_cfg *cfg, const kb_round *rounds, int n_rounds,
                                    const kb_baseline_entry *base, const char *hardware_id) {
    kb_latency_decision d = decide(cfg, rounds, n_rounds, base, hardware_id);
    /* A slowdown measured the slower way (machine/timing_mode.h) decides nothing. */
    if (kb_latency_verdict_slow(d.verdict) &&
        kb_timing_handicapped(base->timing, rounds_timing(rounds, n_rounds)))
        d.verdict = KB_LAT_OTHER_TIMING;
    return d;
}

int kb_gate_record_best(const kb_round *rounds, const int *process, int n_rounds) {
    int best[KB_MAX_ROUNDS], n = 0; /* each process's fastest round */
    for (int i = 0; i < n_rounds; ++i) {
        int j = 0;
        while (j < n && process[best[j]] != process[i]) ++j;
        if (j == n)
            best[n++] = i;
        else if (rounds[i].median < rounds[best[j]].median)
            best[j] = i;
    }
    /* sorted by median (few: insertion), the middle one's round */
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && rounds[best[j]].median < rounds[best[j - 1]].median; --j) {
            int t = best[j];
            best[j] = best[j - 1];
            best[j - 1] = t;
        }
    return n > 0 ? best[(n - 1) / 2] : 0;
}

double kb_gate_round_drift(const kb_round *rounds, int n_rounds) {
    double medians[KB_MAX_ROUNDS];
    int n = n_rounds < KB_MAX_ROUNDS ? n_rounds : KB_MAX_ROUNDS;
    for (int i = 0; i < n; ++i) medians[i] = rounds[i].median;
    return 0.5 * medians_spread(medians, n);
}

double kb_gate_record_noise(const kb_round *rounds, int n_rounds, int best) {
    double medians[KB_MAX_ROUNDS];
    int n = n_rounds < KB_MAX_ROUNDS ? n_rounds : KB_MAX_ROUNDS;
    for (int i = 0; i < n; ++i) medians[i] = rounds[i].median;
    return recorded_noise(rounds[best].ms, rounds[best].n, medians, n);
}

kb_ab_decision kb_gate_ab(const kb_gate_cfg *cfg, const double *ratios, int n, double spread,
                          int final) {
    kb_ab_decision d = {KB_LAT_PENDING, n, NAN, NAN, NAN, spread};
    if (n < 1 || kb_median_sign_ci(ratios, (size_t)n, &d.ratio, &d.ci_lo, &d.ci_hi) != 0) {
        if (final) d.verdict = KB_LAT_INCONCLUSIVE;
        return d;
    }
    if (n < cfg->ab_min_pairs && !final) return d;
    /* A difference between the builds counts only beyond what separates one
     * build's own processes (ab.h): the tolerance is widened by it both
     * ways, and "ok" is narrowed by it. */
    const double limit = 1.0 + cfg->latency_tol, widen = 1.0 + (spread > 0.0 ? spread : 0.0);
    /* Decided once the interval is on one side of both thresholds; an
     * interval below the limit that still reaches under its inverse may yet
     * turn out faster, so it waits for more pairs. */
    if (d.ci_lo > limit * widen)
        d.verdict = KB_LAT_REGRESSION;
    else if (d.ci_hi < 1.0 / (limit * widen))
        d.verdict = KB_LAT_FASTER;
    else if (d.ci_hi * widen <= limit && (d.ci_lo / widen >= 1.0 / limit || final))
        d.verdict = KB_LAT_OK;
    else if (final)
        d.verdict = KB_LAT_INCONCLUSIVE;
    return d;
}

int kb_gate_ab_fewest_pairs(void) {
    double ratios[KB_AB_MAX_PAIRS], median, lo, hi;
    for (int n = 1; n <= KB_AB_MAX_PAIRS; ++n) {
        ratios[n - 1] = (double)n;
        if (kb_median_sign_ci(ratios, (size_t)n, &median, &lo, &hi) == 0 && isfinite(lo) &&
            isfinite(hi))
            return n;
    }
    return KB_AB_MAX_PAIRS + 1;
}

/* The median of the ms[i] with proc[i] == p, or NAN when there is none. */
static double process_median(const double *ms, const int *proc, int n, int p) {
    double mine[KB_AB_MAX_PAIRS];
    size_t k = 0;
    for (int i = 0; i < n && k < KB_AB_MAX_PAIRS; ++i)
        if (proc[i] == p) mine[k++] = ms[i];
    kb_stats s;
    return k > 0 && kb_stats_compute(mine, k, &s) == 0 ? s.median : NAN;
}

/* (max - min) / min of the per-process medians of one side; NAN when a
 * process has none. */
static double side_range(const double *ms, const int *proc, int n, int processes) {
    double lo = INFINITY, hi = 0.0;
    for (int p = 0; p < processes; ++p) {
        double m = process_median(ms, proc, n, p);
        if (!(m > 0.0)) return NAN;
        if (m < lo) lo = m;
        if (m > hi) hi = m;
    }
    return (hi - lo) / lo;
}

double kb_gate_ab_spread(const double *head_ms, const int *head_proc, const double *base_ms,
                         const int *base_proc, int n, int processes) {
    if (processes < 2) return 0.0;
    double h = side_range(head_ms, head_proc, n, processes);
    double b = side_range(base_ms, base_proc, n, processes);
    if (!(h >= 0.0) || !(b >= 0.0)) return 0.0;
    return 0.5 * (h > b ? h : b);
}

static void append(char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *why, size_t size, const char *fmt, ...) {
    size_t len = strlen(why);
    if (len >= size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + len, size - len, fmt, ap);
    va_end(ap);
}

/* One limit of a drift: "<number>", "abs:<number>", "rel:<number>" or
 * "<number>%", len characters at s. Sets *kind ('a' or 'r') and *v. */
static int drift_limit(const char *s, size_t len, char *kind, double *v) {
    char text[64], *end;
    if (len == 0 || len >= sizeof text) return -1;
    memcpy(text, s, len);
    text[len] = '\0';
    const char *num = text;
    const int prefixed = strncmp(text, "abs:", 4) == 0 || strncmp(text, "rel:", 4) == 0;
    *kind = prefixed ? text[0] : 'a';
    if (prefixed) num += 4;
    /* a decimal number: no sign, blank or word strtod would also take
     * ("inf", "nan", hexadecimal) */
    if (!((*num >= '0' && *num <= '9') || *num == '.') ||
        strspn(num, "0123456789.eE+-%") != strlen(num))
        return -1;
    errno = 0;
    double x = strtod(num, &end);
    if (!prefixed && end != num && strcmp(end, "%") == 0) {
        *kind = 'r';
        x /= 100.0;
        ++end;
    }
    if (errno || end == num || *end || !isfinite(x) || x < 0.0 || x > 1e30) return -1;
    *v = x;
    return 0;
}

int kb_gate_parse_drift(const char *s, double *abs, double *rel, const char *what, kb_err *err) {
    double limit[2] = {-1.0, -1.0}; /* absolute, relative */
    const char *p = s;
    for (int n = 0;; ++n) {
        const size_t len = strcspn(p, ",");
        char kind;
        double v;
        if (n == 2 || drift_limit(p, len, &kind, &v) != 0)
            return kb_fail(err,
                           "%s: '%s' is not an accuracy drift: expected an absolute limit (1e-3 "
                           "or abs:1e-3), a share of the baseline's RMSE (rel:0.5 or 50%%), or "
                           "one of each separated by a comma (1e-20,rel:0.5); numbers from 0 "
                           "to 1e30",
                           what, s);
        double *slot = &limit[kind == 'r'];
        if (*slot >= 0.0)
            return kb_fail(err, "%s: '%s' gives two %s limits; give at most one of each", what, s,
                           kind == 'r' ? "relative" : "absolute");
        *slot = v;
        if (p[len] == '\0') break;
        p += len + 1;
    }
    *abs = limit[0];
    *rel = limit[1];
    return 0;
}

double kb_gate_drift_allowed(const kb_gate_cfg *cfg, double base_rmse) {
    const double by_rel =
        cfg->accuracy_drift_rel >= 0.0 ? cfg->accuracy_drift_rel * base_rmse : -1.0;
    return cfg->accuracy_drift > by_rel ? cfg->accuracy_drift : by_rel;
}

void kb_gate_drift_describe(const kb_gate_cfg *cfg, char *out, size_t size) {
    const int a = cfg->accuracy_drift >= 0.0, r = cfg->accuracy_drift_rel >= 0.0;
    char rel[64] = "";
    if (r)
        snprintf(rel, sizeof rel, "%g %% of the baseline's rmse", 100.0 * cfg->accuracy_drift_rel);
    if (a && r)
        snprintf(out, size, "%g or %s, whichever is larger", cfg->accuracy_drift, rel);
    else if (a)
        snprintf(out, size, "%g", cfg->accuracy_drift);
    else
        snprintf(out, size, "%s", rel);
}

int kb_gate_accuracy(const kb_gate_cfg *cfg, const kb_tolerance *tol, const kbref_accuracy *acc,
                     const kb_baseline_entry *base, char *why, size_t size) {
    int fired = 0;
    why[0] = '\0';
    if (acc->n_unwritten) {
        append(why, size, "%zu of %zu output elements were never written\n", acc->n_unwritten,
               acc->n);
        ++fired;
    }
    if (acc->n_nonfinite) {
        append(why, size, "%zu output elements are NaN/Inf where the reference is finite\n",
               acc->n_nonfinite);
        ++fired;
    }
    if (!(acc->rmse <= tol->rmse)) {
        append(why, size, "rmse %.3e exceeds the manifest tolerance %.3e\n", acc->rmse, tol->rmse);
        ++fired;
    }
    if (tol->max_abs >= 0.0 && !(acc->max_abs <= tol->max_abs)) {
        append(why, size,
               "max abs error %.3e exceeds the manifest tolerance %.3e "
               "(element %zu: got %.9g, reference %.9g)\n",
               acc->max_abs, tol->max_abs, acc->worst, acc->worst_out, acc->worst_ref);
        ++fired;
    }
    const double allowed = base ? kb_gate_drift_allowed(cfg, base->rmse) : 0.0;
    if (base && !(fabs(acc->rmse - base->rmse) <= allowed)) {
        char rule[160] = "";
        if (cfg->accuracy_drift_rel >= 0.0) {
            rule[0] = ':';
            rule[1] = ' ';
            kb_gate_drift_describe(cfg, rule + 2, sizeof rule - 2);
        }
        append(why, size, "rmse drifted from the baseline's %.3e by %.3e (allowed %.3e%s)\n",
               base->rmse, fabs(acc->rmse - base->rmse), allowed, rule);
        ++fired;
    }
    return fired;
}
