/* The result JSON (<results>/<test>.json) and the per-case entries the
 * progress file receives while the test runs. */
#include "output/report.h"

#include "base/affinity.h"
#include "base/buildinfo.h"
#include "base/buildopt.h"
#include "base/result_keys.h"
#include "machine/devmon.h"

#include <math.h>
#include <string.h>

/* The CPUs a case of `threads` threads ran on in a round or pair that
 * started at `first` (kb_affinity_window), ascending; NULL when unknown. */
static cJSON *cpu_set_json(int first, int threads) {
    int set[KB_MAX_CPUS], sorted[KB_MAX_CPUS], n = 0;
    const int k = kb_affinity_window(kb_affinity_start(), first, threads, set);
    for (int c = 0; c < KB_MAX_CPUS && n < k; ++c)
        for (int i = 0; i < k; ++i)
            if (set[i] == c) sorted[n++] = c;
    return k > 0 ? cJSON_CreateIntArray(sorted, n) : NULL;
}

static void add_cpu_set(cJSON *o, int first, int threads) {
    cJSON *set = threads > 1 && first >= 0 ? cpu_set_json(first, threads) : NULL;
    if (set) cJSON_AddItemToObject(o, KB_KEY_CPUS, set);
}

static cJSON *samples_json(const kb_samples *s) {
    return cJSON_CreateDoubleArray(s->ms, s->n);
}

static void add_stats(cJSON *o, const kb_stats *s) {
    cJSON_AddNumberToObject(o, KB_KEY_MEDIAN_MS, s->median);
    cJSON_AddNumberToObject(o, KB_KEY_MIN_MS, s->min);
    cJSON_AddNumberToObject(o, KB_KEY_MAX_MS, s->max);
    cJSON_AddNumberToObject(o, KB_KEY_MEAN_MS, s->mean);
    cJSON_AddNumberToObject(o, KB_KEY_STDDEV_MS, s->stddev);
    cJSON_AddNumberToObject(o, KB_KEY_MAD_MS, s->mad);
    cJSON_AddNumberToObject(o, KB_KEY_P10_MS, s->p10);
    cJSON_AddNumberToObject(o, KB_KEY_P90_MS, s->p90);
    cJSON_AddNumberToObject(o, KB_KEY_P99_MS, s->p99);
    cJSON_AddNumberToObject(o, KB_KEY_CV, s->cv);
    cJSON_AddNumberToObject(o, KB_KEY_N_SAMPLES, (double)s->n);
}

static cJSON *accuracy_json(const kb_case_result *r) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, KB_KEY_RMSE, r->measured.acc.rmse);
    cJSON_AddNumberToObject(a, KB_KEY_MAX_ABS_ERR, r->measured.acc.max_abs);
    cJSON_AddNumberToObject(a, KB_KEY_ELEMENTS, (double)r->measured.acc.n);
    cJSON_AddNumberToObject(a, KB_KEY_NONFINITE, (double)r->measured.acc.n_nonfinite);
    cJSON_AddNumberToObject(a, KB_KEY_UNWRITTEN, (double)r->measured.acc.n_unwritten);
    cJSON_AddStringToObject(a, KB_KEY_FAILURES, r->decision.acc_why);
    return a;
}

static cJSON *rounds_json(const kb_case_result *r) {
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < r->measured.n_rounds; ++i) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, KB_KEY_MEDIAN_MS, r->measured.rounds[i].median);
        cJSON_AddNumberToObject(o, KB_KEY_REPS, r->measured.rounds[i].reps);
        cJSON_AddNumberToObject(o, KB_KEY_ELAPSED_MS, r->measured.rounds[i].elapsed_s * 1e3);
        cJSON_AddStringToObject(o, KB_KEY_STOP_RULE, r->measured.rounds[i].stop_rule);
        cJSON_AddStringToObject(o, KB_KEY_TIMING, kb_timing_name(r->measured.round_timing[i]));
        if (r->measured.round_cpu[i] >= 0)
            cJSON_AddNumberToObject(o, KB_KEY_CPU, r->measured.round_cpu[i]);
        add_cpu_set(o, r->measured.round_cpu[i], kb_case_threads(r->c));
        /* a recording's rounds go round processes, and a slowdown is measured
         * again in a fresh one (0: the test's own) */
        if (r->measured.processes > 1)
            cJSON_AddNumberToObject(o, KB_KEY_PROCESS, r->measured.round_process[i]);
        kb_baseline_add_probe(o, &r->measured.probe[i]);
        if (r->measured.power_w[i] > 0.0) {
            cJSON_AddNumberToObject(o, KB_KEY_POWER_W, r->measured.power_w[i]);
            cJSON_AddNumberToObject(o, KB_KEY_ENERGY_PER_CALL_MJ, r->measured.energy_mj[i]);
        }
        cJSON_AddNumberToObject(o, KB_KEY_CLOCK_LIMITED_DROPPED, r->measured.rounds[i].dropped);
        cJSON_AddNumberToObject(o, KB_KEY_CLOCK_LIMITED_KEPT, r->measured.rounds[i].suspect_kept);
        cJSON_AddNumberToObject(o, KB_KEY_DISTURBED_DROPPED, r->measured.rounds[i].disturbed);
        cJSON_AddNumberToObject(o, KB_KEY_DISTURBED_KEPT, r->measured.rounds[i].disturbed_kept);
        cJSON_AddItemToObject(o, KB_KEY_SAMPLES_MS, samples_json(&r->measured.rounds[i]));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* What the backend's monitor saw while the case ran: clock limits (null when
 * it cannot tell), power and energy of the best round, device memory. */
static cJSON *device_json(const kb_case_result *r) {
    cJSON *d = cJSON_CreateObject();
    char names[128];
    kb_devmon_reason_names(r->measured.clock_limits, names, sizeof names);
    if (r->measured.clocks_checked)
        cJSON_AddStringToObject(d, KB_KEY_CLOCK_LIMITS, names);
    else
        cJSON_AddNullToObject(d, KB_KEY_CLOCK_LIMITS);
    if (r->measured.power_w[r->decision.lat.best] > 0.0) {
        cJSON_AddNumberToObject(d, KB_KEY_POWER_W, r->measured.power_w[r->decision.lat.best]);
        cJSON_AddNumberToObject(d, KB_KEY_ENERGY_PER_CALL_MJ,
                                r->measured.energy_mj[r->decision.lat.best]);
    }
    if (r->measured.device_mem_mib >= 0.0)
        cJSON_AddNumberToObject(d, KB_KEY_MEMORY_IN_USE_MIB, r->measured.device_mem_mib);
    return d;
}

static const char *base_status_name(int status) {
    switch (status) {
    case KB_PARTNER_READY: return "measured";
    case KB_PARTNER_ABSENT: return "no such case";
    case KB_PARTNER_SKIP: return "declined";
    default: return "no driver";
    }
}

/* A/B: the base, every pair and the interval that decided. */
static cJSON *ab_json(const kb_case_result *r) {
    const kb_ab_result *ab = &r->ab;
    const int threads = kb_case_threads(r->c);
    const kb_ab_decision *d = &ab->decision;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, KB_KEY_BASE, base_status_name(ab->base_status));
    if (ab->base_status != KB_PARTNER_READY) {
        cJSON_AddStringToObject(o, KB_KEY_NOTE, ab->base_why);
        return o;
    }
    cJSON_AddNumberToObject(o, KB_KEY_BASE_RMSE, ab->base_rmse);
    cJSON_AddNumberToObject(o, KB_KEY_N_PAIRS, ab->n_pairs);
    cJSON_AddNumberToObject(o, KB_KEY_PROCESSES, ab->processes);
    cJSON_AddNumberToObject(o, KB_KEY_PROCESS_SPREAD, d->spread);
    cJSON_AddNumberToObject(o, KB_KEY_STAGES, ab->stages);
    if (ab->stages > 1) {
        /* what the first processes found, which fresh ones measured again */
        cJSON *first = cJSON_AddObjectToObject(o, KB_KEY_FIRST_STAGE);
        cJSON_AddStringToObject(first, KB_KEY_VERDICT, kb_latency_verdict_name(ab->first.verdict));
        cJSON_AddNumberToObject(first, KB_KEY_RATIO, ab->first.ratio);
        cJSON_AddNumberToObject(first, KB_KEY_CI_LO, ab->first.ci_lo);
        cJSON_AddNumberToObject(first, KB_KEY_CI_HI, ab->first.ci_hi);
        cJSON_AddNumberToObject(first, KB_KEY_PROCESS_SPREAD, ab->first.spread);
    }
    cJSON_AddNumberToObject(o, KB_KEY_ELAPSED_MS, ab->elapsed_s * 1e3);
    if (isfinite(d->ci_lo) && isfinite(d->ci_hi)) {
        cJSON_AddNumberToObject(o, KB_KEY_CI_LO, d->ci_lo);
        cJSON_AddNumberToObject(o, KB_KEY_CI_HI, d->ci_hi);
        /* the slowdown this interval can tell from none: its half-width */
        cJSON_AddNumberToObject(o, KB_KEY_RESOLUTION, (d->ci_hi - d->ci_lo) / (2.0 * d->ratio));
    } else {
        cJSON_AddNullToObject(o, KB_KEY_CI_LO);
        cJSON_AddNullToObject(o, KB_KEY_CI_HI);
        cJSON_AddNullToObject(o, KB_KEY_RESOLUTION);
    }
    cJSON *pairs = cJSON_AddArrayToObject(o, KB_KEY_PAIRS);
    for (int i = 0; i < ab->n_pairs; ++i) {
        const kb_ab_pair *p = &ab->pairs[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, KB_KEY_CPU, p->cpu);
        add_cpu_set(j, p->cpu, threads);
        cJSON_AddStringToObject(j, KB_KEY_ORDER, p->base_first ? "base,head" : "head,base");
        cJSON_AddNumberToObject(j, KB_KEY_HEAD_PROCESS, p->head_proc);
        cJSON_AddNumberToObject(j, KB_KEY_BASE_PROCESS, p->base_proc);
        cJSON_AddNumberToObject(j, KB_KEY_STAGE, p->stage);
        cJSON_AddNumberToObject(j, KB_KEY_HEAD_MS, p->head_ms);
        cJSON_AddNumberToObject(j, KB_KEY_BASE_MS, p->base_ms);
        cJSON_AddNumberToObject(j, KB_KEY_RATIO, p->ratio);
        cJSON_AddNumberToObject(j, KB_KEY_HEAD_DISTURBED, p->head_disturbed);
        cJSON_AddNumberToObject(j, KB_KEY_BASE_DISTURBED, p->base_disturbed);
        cJSON_AddItemToArray(pairs, j);
    }
    return o;
}

/* "pct_roofline" and "roofline" (docs/roofline.md); null when the case has
 * none, with "roofline_note" saying why. */
static void add_roofline(cJSON *o, const kb_case_result *r) {
    const kb_roofline *rl = &r->measured.roofline;
    if (!rl->present) {
        cJSON_AddNullToObject(o, KB_KEY_PCT_ROOFLINE);
        cJSON_AddNullToObject(o, KB_KEY_ROOFLINE);
        cJSON_AddStringToObject(o, KB_KEY_ROOFLINE_NOTE, rl->why);
        return;
    }
    cJSON_AddNumberToObject(o, KB_KEY_PCT_ROOFLINE, r->measured.pct_roofline);
    cJSON *j = cJSON_AddObjectToObject(o, KB_KEY_ROOFLINE);
    cJSON_AddNumberToObject(j, KB_KEY_INTENSITY, rl->intensity);
    cJSON_AddNumberToObject(j, KB_KEY_FOOTPRINT_BYTES, rl->footprint_bytes);
    cJSON_AddStringToObject(j, KB_KEY_LEVEL, rl->level);
    cJSON_AddStringToObject(j, KB_KEY_BOUND, rl->bound);
    cJSON_AddNumberToObject(j, KB_KEY_WRITE_FRACTION, rl->write_fraction);
    if (rl->pattern)
        cJSON_AddStringToObject(j, KB_KEY_PATTERN, rl->pattern);
    else
        cJSON_AddNullToObject(j, KB_KEY_PATTERN);
    cJSON_AddNumberToObject(j, KB_KEY_ROOF_GBPS, rl->roof_gbps);
    if (rl->compute_unit) {
        cJSON_AddNumberToObject(j, KB_KEY_COMPUTE_GFLOPS, rl->compute_gflops);
        cJSON_AddStringToObject(j, KB_KEY_COMPUTE_UNIT, rl->compute_unit);
    } else {
        cJSON_AddNullToObject(j, KB_KEY_COMPUTE_GFLOPS);
    }
    cJSON_AddNumberToObject(j, KB_KEY_ATTAINABLE_GFLOPS, rl->attainable_gflops);
}

static cJSON *case_json(const kb_case_result *r, int ab) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, KB_KEY_CASE, r->c->name);
    cJSON_AddStringToObject(o, KB_KEY_VARIANT, r->variant);
    cJSON *dims = cJSON_AddObjectToObject(o, KB_KEY_DIMS);
    for (int i = 0; i < r->c->n_dims; ++i)
        cJSON_AddNumberToObject(dims, r->c->dim_names[i], (double)r->c->dims[i]);
    cJSON_AddBoolToObject(o, KB_KEY_PASSED, kb_case_passed(r));
    /* the threads it runs with and, for more than one, the CPUs it was
     * pinned to in its first round (every round's are under rounds) */
    cJSON_AddNumberToObject(o, KB_KEY_THREADS, kb_case_threads(r->c));
    if (r->measured.n_rounds > 0) add_cpu_set(o, r->measured.round_cpu[0], kb_case_threads(r->c));
    if (r->error || r->skipped) {
        cJSON_AddStringToObject(o, r->error ? KB_KEY_ERROR : KB_KEY_SKIPPED,
                                r->error ? r->error_msg : r->skip_why);
        return o;
    }
    cJSON_AddNumberToObject(o, KB_KEY_FLOPS, r->flops);
    /* what "flops" holds where the manifest counts elementary functions at
     * their cost (docs/roofline.md) */
    if (r->counts.has_transcendentals) {
        cJSON_AddNumberToObject(o, KB_KEY_FLOPS_ARITH, r->counts.flops_arith);
        cJSON_AddNumberToObject(o, KB_KEY_TRANSCENDENTALS, r->counts.transcendentals);
        cJSON_AddNumberToObject(o, KB_KEY_FLOPS_PER_TRANSCENDENTAL, r->counts.flops_each);
    }
    cJSON_AddNumberToObject(o, KB_KEY_BYTES, r->bytes);
    cJSON_AddNumberToObject(o, KB_KEY_GBPS, r->measured.gbps);
    cJSON_AddNumberToObject(o, KB_KEY_GFLOPS, r->measured.gflops);
    if (r->measured.pct_peak_bw >= 0.0)
        cJSON_AddNumberToObject(o, KB_KEY_PCT_PEAK_BW, r->measured.pct_peak_bw);
    else
        cJSON_AddNullToObject(o, KB_KEY_PCT_PEAK_BW);
    add_roofline(o, r);
    if (r->measured.vendor_speedup >= 0.0)
        cJSON_AddNumberToObject(o, KB_KEY_VENDOR_SPEEDUP, r->measured.vendor_speedup);
    else
        cJSON_AddNullToObject(o, KB_KEY_VENDOR_SPEEDUP);
    if (r->measured.cmp.with) {
        cJSON *cmp = cJSON_AddObjectToObject(o, KB_KEY_COMPARISON);
        cJSON_AddStringToObject(cmp, KB_KEY_WITH, r->measured.cmp.with);
        cJSON_AddNumberToObject(cmp, KB_KEY_SPEEDUP, r->measured.cmp.speedup);
        cJSON_AddNumberToObject(cmp, KB_KEY_BYTES_SAVED, r->measured.cmp.bytes_saved);
    }
    add_stats(o, &r->measured.stats);
    cJSON_AddStringToObject(o, KB_KEY_TIMING, kb_timing_name(r->measured.timing));
    cJSON_AddItemToObject(o, KB_KEY_ACCURACY, accuracy_json(r));
    cJSON *lat = cJSON_AddObjectToObject(o, KB_KEY_LATENCY);
    cJSON_AddStringToObject(lat, KB_KEY_VERDICT, kb_latency_verdict_name(r->decision.lat.verdict));
    if (r->decision.has_base) {
        cJSON_AddNumberToObject(lat, KB_KEY_BASELINE_MEDIAN_MS, r->decision.base.median_ms);
        cJSON_AddNumberToObject(lat, KB_KEY_BASELINE_RMSE, r->decision.base.rmse);
        cJSON_AddStringToObject(lat, KB_KEY_BASELINE_RECORDED_AT, r->decision.base.recorded_at);
        /* A/B: the base's timing is not known here */
        if (!ab)
            cJSON_AddStringToObject(lat, KB_KEY_BASELINE_TIMING,
                                    kb_timing_name(r->decision.base.timing));
        cJSON_AddNumberToObject(lat, KB_KEY_RATIO, r->decision.lat.ratio);
        cJSON_AddNumberToObject(lat, KB_KEY_FIRST_RATIO, r->decision.lat.first_ratio);
    }
    if (r->decision.lat.p_value >= 0.0) {
        cJSON_AddNumberToObject(lat, KB_KEY_P_VALUE, r->decision.lat.p_value);
        cJSON_AddNumberToObject(lat, KB_KEY_NOISE, r->decision.lat.noise);
        cJSON_AddNumberToObject(lat, KB_KEY_MACHINE_DRIFT, r->decision.lat.drift);
        cJSON_AddStringToObject(lat, KB_KEY_BOUND, kb_bound_name(r->decision.base.bound));
        if (r->decision.lat.drift_probe != KB_PROBE_N)
            cJSON_AddStringToObject(lat, KB_KEY_DRIFT_PROBE,
                                    kb_probe_name(r->decision.lat.drift_probe));
    }
    /* the slowdown the case is allowed: from its baseline, or, recorded, the
     * one its new baseline will allow (A/B has its own rule: ab) */
    if ((r->decision.has_base && !ab) || r->decision.lat.verdict == KB_LAT_RECORDED)
        cJSON_AddNumberToObject(lat, KB_KEY_TOLERANCE, r->decision.lat.tolerance);
    if (r->decision.lat.verdict == KB_LAT_RECORDED) {
        cJSON_AddNumberToObject(lat, KB_KEY_RECORD_NOISE, r->measured.record_noise);
        cJSON_AddNumberToObject(lat, KB_KEY_RECORD_DRIFT, r->measured.record_drift);
        cJSON_AddItemToObject(
            lat, KB_KEY_ATTEMPT_NOISE,
            cJSON_CreateDoubleArray(r->measured.attempt_noise, r->measured.record_attempts));
        cJSON_AddNumberToObject(lat, KB_KEY_KEPT_ATTEMPT, r->measured.kept_attempt);
        cJSON_AddStringToObject(lat, KB_KEY_BOUND, kb_bound_name(r->measured.bound));
        cJSON_AddNumberToObject(lat, KB_KEY_INTENSITY, r->measured.intensity);
        cJSON_AddNumberToObject(lat, KB_KEY_BALANCE, r->measured.balance);
    }
    if (r->decision.fresh_first > 0) {
        /* the slowdown measured again in a fresh process (rounds from first_round) */
        cJSON *f = cJSON_AddObjectToObject(lat, KB_KEY_FRESH_PROCESS);
        cJSON_AddStringToObject(f, KB_KEY_VERDICT,
                                kb_latency_verdict_name(r->decision.fresh.verdict));
        cJSON_AddNumberToObject(f, KB_KEY_RATIO, r->decision.fresh.ratio);
        cJSON_AddNumberToObject(f, KB_KEY_FIRST_RATIO, r->decision.fresh.first_ratio);
        cJSON_AddNumberToObject(f, KB_KEY_FIRST_ROUND, r->decision.fresh_first);
    }
    if (ab) cJSON_AddItemToObject(lat, KB_KEY_AB, ab_json(r));
    cJSON_AddItemToObject(o, KB_KEY_DEVICE, device_json(r));
    cJSON_AddItemToObject(o, KB_KEY_ROUNDS, rounds_json(r));
    return o;
}

static cJSON *calibration_json(const kb_calibration *cal) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, KB_KEY_FILE, cal ? cal->file : "");
    if (cal && cal->present) {
        cJSON_AddNumberToObject(o, KB_KEY_PEAK_GBPS, cal->peak_gbps);
        cJSON_AddStringToObject(o, KB_KEY_MEASURED_AT, cal->measured_at);
        if (cal->age_s >= 0.0)
            cJSON_AddNumberToObject(o, KB_KEY_AGE_S, round(cal->age_s));
        else
            cJSON_AddNullToObject(o, KB_KEY_AGE_S);
        kb_calibration_add_roofs(o, &cal->roofs, 0);
        if (cal->roofs.n_levels == 0)
            cJSON_AddStringToObject(o, KB_KEY_ROOFLINE_NOTE, cal->roof_note);
    } else {
        cJSON_AddNullToObject(o, KB_KEY_PEAK_GBPS);
        cJSON_AddNullToObject(o, KB_KEY_LEVELS);
        cJSON_AddNullToObject(o, KB_KEY_COMPUTE);
        cJSON_AddNullToObject(o, KB_KEY_MATRIX);
        cJSON_AddStringToObject(o, KB_KEY_NOTE, cal && *cal->note ? cal->note : "not read");
    }
    if (cal && cal->reused >= 0) { /* a calibration run */
        cJSON_AddBoolToObject(o, KB_KEY_REUSED, cal->reused);
        if (!cal->reused) cJSON_AddStringToObject(o, KB_KEY_WHY_MEASURED, cal->why_measured);
    }
    return o;
}

/* {"build": this build's speed-relevant flags, "baseline": those of the
 * baseline entries compared with (the first that differs, else the first),
 * null when none was compared or its flags were not kept}: docs/gate.md. */
static cJSON *optimisation_json(const kb_report *rep) {
    cJSON *o = cJSON_CreateObject();
    const char *flags = kb_build_current()->c_flags;
    char mine[256];
    kb_build_opt(flags, mine, sizeof mine);
    cJSON_AddStringToObject(o, KB_KEY_BUILD, mine);
    const char *base = NULL;
    for (int i = 0; i < rep->n_results; ++i) {
        const kb_case_result *r = &rep->results[i];
        if (!r->decision.has_base || !*r->decision.base.build_opt) continue;
        base = r->decision.base.build_opt;
        if (strcmp(mine, base) != 0) break;
    }
    if (base)
        cJSON_AddStringToObject(o, KB_KEY_BASELINE, base);
    else
        cJSON_AddNullToObject(o, KB_KEY_BASELINE);
    return o;
}

cJSON *kb_report_json(const kb_report *rep, const char *status, cJSON *env) {
    const kb_run_ctx *ctx = rep->ctx;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, KB_KEY_TEST, rep->test_name);
    cJSON_AddStringToObject(o, KB_KEY_STATUS, status);
    cJSON_AddStringToObject(o, KB_KEY_KERNEL, ctx->kernel_name);
    cJSON_AddStringToObject(o, KB_KEY_BACKEND, ctx->backend->name);
    cJSON_AddStringToObject(o, KB_KEY_PRECISION, kb_prec_name(ctx->prec));
    cJSON_AddStringToObject(o, KB_KEY_PROFILE, rep->profile);
    cJSON_AddStringToObject(o, KB_KEY_MODE, ctx->ab ? "ab" : "baseline");
    if (ctx->ab) cJSON_AddStringToObject(o, KB_KEY_AB_BASE, ctx->ab->ref);
    cJSON_AddStringToObject(o, KB_KEY_BASELINE_FILE, rep->baseline_path);
    cJSON_AddItemToObject(o, KB_KEY_OPTIMISATION, optimisation_json(rep));
    const char *docs = kb_build_current()->docs_dir;
    cJSON_AddStringToObject(o, KB_KEY_DOCS_DIR, docs ? docs : "");
    cJSON_AddStringToObject(o, KB_KEY_MANIFEST, ctx->manifest->path);
    cJSON_AddNumberToObject(o, KB_KEY_SEED, (double)ctx->settings->seed);
    cJSON_AddNumberToObject(o, KB_KEY_LATENCY_TOLERANCE, ctx->settings->gate.latency_tol);
    /* the drift's limits: absolute, and relative to the baseline's rmse;
     * each only when given (KBENCH_ACCURACY_DRIFT) */
    if (ctx->settings->gate.accuracy_drift >= 0.0)
        cJSON_AddNumberToObject(o, KB_KEY_ACCURACY_DRIFT, ctx->settings->gate.accuracy_drift);
    if (ctx->settings->gate.accuracy_drift_rel >= 0.0)
        cJSON_AddNumberToObject(o, KB_KEY_ACCURACY_DRIFT_REL,
                                ctx->settings->gate.accuracy_drift_rel);
    cJSON_AddBoolToObject(o, KB_KEY_COLD_CACHE, ctx->settings->cold_cache);
    cJSON_AddStringToObject(o, KB_KEY_CASE_SET, ctx->case_set);
    cJSON_AddItemToObject(o, KB_KEY_CALIBRATION, calibration_json(rep->cal));
    cJSON *cases = cJSON_AddArrayToObject(o, KB_KEY_CASES);
    for (int i = 0; i < rep->n_results; ++i)
        cJSON_AddItemToArray(cases, case_json(&rep->results[i], ctx->ab != NULL));
    if (env) cJSON_AddItemToObject(o, KB_KEY_ENVIRONMENT, env);
    return o;
}

cJSON *kb_report_case_json(const kb_case_result *r, int ab) {
    return case_json(r, ab);
}
