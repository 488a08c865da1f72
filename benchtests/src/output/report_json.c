/* The result JSON (<results>/<test>.json) and the per-case entries the
 * progress file receives while the test runs. */
#include "output/report.h"

#include "base/affinity.h"
#include "base/buildinfo.h"
#include "base/buildopt.h"
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
    if (set) cJSON_AddItemToObject(o, "cpus", set);
}

static cJSON *samples_json(const kb_samples *s) {
    return cJSON_CreateDoubleArray(s->ms, s->n);
}

static void add_stats(cJSON *o, const kb_stats *s) {
    cJSON_AddNumberToObject(o, "median_ms", s->median);
    cJSON_AddNumberToObject(o, "min_ms", s->min);
    cJSON_AddNumberToObject(o, "max_ms", s->max);
    cJSON_AddNumberToObject(o, "mean_ms", s->mean);
    cJSON_AddNumberToObject(o, "stddev_ms", s->stddev);
    cJSON_AddNumberToObject(o, "mad_ms", s->mad);
    cJSON_AddNumberToObject(o, "p10_ms", s->p10);
    cJSON_AddNumberToObject(o, "p90_ms", s->p90);
    cJSON_AddNumberToObject(o, "p99_ms", s->p99);
    cJSON_AddNumberToObject(o, "cv", s->cv);
    cJSON_AddNumberToObject(o, "n_samples", (double)s->n);
}

static cJSON *accuracy_json(const kb_case_result *r) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "rmse", r->acc.rmse);
    cJSON_AddNumberToObject(a, "max_abs_err", r->acc.max_abs);
    cJSON_AddNumberToObject(a, "elements", (double)r->acc.n);
    cJSON_AddNumberToObject(a, "nonfinite", (double)r->acc.n_nonfinite);
    cJSON_AddNumberToObject(a, "unwritten", (double)r->acc.n_unwritten);
    cJSON_AddStringToObject(a, "failures", r->acc_why);
    return a;
}

static cJSON *rounds_json(const kb_case_result *r) {
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < r->n_rounds; ++i) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "median_ms", r->rounds[i].median);
        cJSON_AddNumberToObject(o, "reps", r->rounds[i].reps);
        cJSON_AddNumberToObject(o, "elapsed_ms", r->rounds[i].elapsed_s * 1e3);
        cJSON_AddStringToObject(o, "stop_rule", r->rounds[i].stop_rule);
        cJSON_AddStringToObject(o, "timing", kb_timing_name(r->round_timing[i]));
        if (r->round_cpu[i] >= 0) cJSON_AddNumberToObject(o, "cpu", r->round_cpu[i]);
        add_cpu_set(o, r->round_cpu[i], kb_case_threads(r->c));
        /* a recording's rounds go round processes, and a slowdown is measured
         * again in a fresh one (0: the test's own) */
        if (r->processes > 1) cJSON_AddNumberToObject(o, "process", r->round_process[i]);
        kb_baseline_add_probe(o, &r->probe[i]);
        if (r->power_w[i] > 0.0) {
            cJSON_AddNumberToObject(o, "power_w", r->power_w[i]);
            cJSON_AddNumberToObject(o, "energy_per_call_mj", r->energy_mj[i]);
        }
        cJSON_AddNumberToObject(o, "clock_limited_dropped", r->rounds[i].dropped);
        cJSON_AddNumberToObject(o, "clock_limited_kept", r->rounds[i].suspect_kept);
        cJSON_AddNumberToObject(o, "disturbed_dropped", r->rounds[i].disturbed);
        cJSON_AddNumberToObject(o, "disturbed_kept", r->rounds[i].disturbed_kept);
        cJSON_AddItemToObject(o, "samples_ms", samples_json(&r->rounds[i]));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* What the backend's monitor saw while the case ran: clock limits (null when
 * it cannot tell), power and energy of the best round, device memory. */
static cJSON *device_json(const kb_case_result *r) {
    cJSON *d = cJSON_CreateObject();
    char names[128];
    kb_devmon_reason_names(r->clock_limits, names, sizeof names);
    if (r->clocks_checked)
        cJSON_AddStringToObject(d, "clock_limits", names);
    else
        cJSON_AddNullToObject(d, "clock_limits");
    if (r->power_w[r->lat.best] > 0.0) {
        cJSON_AddNumberToObject(d, "power_w", r->power_w[r->lat.best]);
        cJSON_AddNumberToObject(d, "energy_per_call_mj", r->energy_mj[r->lat.best]);
    }
    if (r->device_mem_mib >= 0.0)
        cJSON_AddNumberToObject(d, "memory_in_use_mib", r->device_mem_mib);
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
    cJSON_AddStringToObject(o, "base", base_status_name(ab->base_status));
    if (ab->base_status != KB_PARTNER_READY) {
        cJSON_AddStringToObject(o, "note", ab->base_why);
        return o;
    }
    cJSON_AddNumberToObject(o, "base_rmse", ab->base_rmse);
    cJSON_AddNumberToObject(o, "n_pairs", ab->n_pairs);
    cJSON_AddNumberToObject(o, "processes", ab->processes);
    cJSON_AddNumberToObject(o, "process_spread", d->spread);
    cJSON_AddNumberToObject(o, "stages", ab->stages);
    if (ab->stages > 1) {
        /* what the first processes found, which fresh ones measured again */
        cJSON *first = cJSON_AddObjectToObject(o, "first_stage");
        cJSON_AddStringToObject(first, "verdict", kb_latency_verdict_name(ab->first.verdict));
        cJSON_AddNumberToObject(first, "ratio", ab->first.ratio);
        cJSON_AddNumberToObject(first, "ci_lo", ab->first.ci_lo);
        cJSON_AddNumberToObject(first, "ci_hi", ab->first.ci_hi);
        cJSON_AddNumberToObject(first, "process_spread", ab->first.spread);
    }
    cJSON_AddNumberToObject(o, "elapsed_ms", ab->elapsed_s * 1e3);
    if (isfinite(d->ci_lo) && isfinite(d->ci_hi)) {
        cJSON_AddNumberToObject(o, "ci_lo", d->ci_lo);
        cJSON_AddNumberToObject(o, "ci_hi", d->ci_hi);
        /* the slowdown this interval can tell from none: its half-width */
        cJSON_AddNumberToObject(o, "resolution", (d->ci_hi - d->ci_lo) / (2.0 * d->ratio));
    } else {
        cJSON_AddNullToObject(o, "ci_lo");
        cJSON_AddNullToObject(o, "ci_hi");
        cJSON_AddNullToObject(o, "resolution");
    }
    cJSON *pairs = cJSON_AddArrayToObject(o, "pairs");
    for (int i = 0; i < ab->n_pairs; ++i) {
        const kb_ab_pair *p = &ab->pairs[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "cpu", p->cpu);
        add_cpu_set(j, p->cpu, threads);
        cJSON_AddStringToObject(j, "order", p->base_first ? "base,head" : "head,base");
        cJSON_AddNumberToObject(j, "head_process", p->head_proc);
        cJSON_AddNumberToObject(j, "base_process", p->base_proc);
        cJSON_AddNumberToObject(j, "stage", p->stage);
        cJSON_AddNumberToObject(j, "head_ms", p->head_ms);
        cJSON_AddNumberToObject(j, "base_ms", p->base_ms);
        cJSON_AddNumberToObject(j, "ratio", p->ratio);
        cJSON_AddNumberToObject(j, "head_disturbed", p->head_disturbed);
        cJSON_AddNumberToObject(j, "base_disturbed", p->base_disturbed);
        cJSON_AddItemToArray(pairs, j);
    }
    return o;
}

/* "pct_roofline" and "roofline" (docs/roofline.md); null when the case has
 * none, with "roofline_note" saying why. */
static void add_roofline(cJSON *o, const kb_case_result *r) {
    const kb_roofline *rl = &r->roofline;
    if (!rl->present) {
        cJSON_AddNullToObject(o, "pct_roofline");
        cJSON_AddNullToObject(o, "roofline");
        cJSON_AddStringToObject(o, "roofline_note", rl->why);
        return;
    }
    cJSON_AddNumberToObject(o, "pct_roofline", r->pct_roofline);
    cJSON *j = cJSON_AddObjectToObject(o, "roofline");
    cJSON_AddNumberToObject(j, "intensity", rl->intensity);
    cJSON_AddNumberToObject(j, "footprint_bytes", rl->footprint_bytes);
    cJSON_AddStringToObject(j, "level", rl->level);
    cJSON_AddStringToObject(j, "bound", rl->bound);
    cJSON_AddNumberToObject(j, "roof_gbps", rl->roof_gbps);
    if (rl->compute_unit) {
        cJSON_AddNumberToObject(j, "compute_gflops", rl->compute_gflops);
        cJSON_AddStringToObject(j, "compute_unit", rl->compute_unit);
    } else {
        cJSON_AddNullToObject(j, "compute_gflops");
    }
    cJSON_AddNumberToObject(j, "attainable_gflops", rl->attainable_gflops);
}

static cJSON *case_json(const kb_case_result *r, int ab) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "case", r->c->name);
    cJSON_AddStringToObject(o, "variant", r->variant);
    cJSON *dims = cJSON_AddObjectToObject(o, "dims");
    for (int i = 0; i < r->c->n_dims; ++i)
        cJSON_AddNumberToObject(dims, r->c->dim_names[i], (double)r->c->dims[i]);
    cJSON_AddBoolToObject(o, "passed", kb_case_passed(r));
    /* the threads it runs with and, for more than one, the CPUs it was
     * pinned to in its first round (every round's are under rounds) */
    cJSON_AddNumberToObject(o, "threads", kb_case_threads(r->c));
    if (r->n_rounds > 0) add_cpu_set(o, r->round_cpu[0], kb_case_threads(r->c));
    if (r->error || r->skipped) {
        cJSON_AddStringToObject(o, r->error ? "error" : "skipped",
                                r->error ? r->error_msg : r->skip_why);
        return o;
    }
    cJSON_AddNumberToObject(o, "flops", r->flops);
    /* what "flops" holds where the manifest counts elementary functions at
     * their cost (docs/roofline.md) */
    if (r->counts.has_transcendentals) {
        cJSON_AddNumberToObject(o, "flops_arith", r->counts.flops_arith);
        cJSON_AddNumberToObject(o, "transcendentals", r->counts.transcendentals);
        cJSON_AddNumberToObject(o, "flops_per_transcendental", r->counts.flops_each);
    }
    cJSON_AddNumberToObject(o, "bytes", r->bytes);
    cJSON_AddNumberToObject(o, "gbps", r->gbps);
    cJSON_AddNumberToObject(o, "gflops", r->gflops);
    if (r->pct_peak_bw >= 0.0)
        cJSON_AddNumberToObject(o, "pct_peak_bw", r->pct_peak_bw);
    else
        cJSON_AddNullToObject(o, "pct_peak_bw");
    add_roofline(o, r);
    if (r->vendor_speedup >= 0.0)
        cJSON_AddNumberToObject(o, "vendor_speedup", r->vendor_speedup);
    else
        cJSON_AddNullToObject(o, "vendor_speedup");
    if (r->cmp.with) {
        cJSON *cmp = cJSON_AddObjectToObject(o, "comparison");
        cJSON_AddStringToObject(cmp, "with", r->cmp.with);
        cJSON_AddNumberToObject(cmp, "speedup", r->cmp.speedup);
        cJSON_AddNumberToObject(cmp, "bytes_saved", r->cmp.bytes_saved);
    }
    add_stats(o, &r->stats);
    cJSON_AddStringToObject(o, "timing", kb_timing_name(r->timing));
    cJSON_AddItemToObject(o, "accuracy", accuracy_json(r));
    cJSON *lat = cJSON_AddObjectToObject(o, "latency");
    cJSON_AddStringToObject(lat, "verdict", kb_latency_verdict_name(r->lat.verdict));
    if (r->has_base) {
        cJSON_AddNumberToObject(lat, "baseline_median_ms", r->base.median_ms);
        cJSON_AddNumberToObject(lat, "baseline_rmse", r->base.rmse);
        cJSON_AddStringToObject(lat, "baseline_recorded_at", r->base.recorded_at);
        /* A/B: the base's timing is not known here */
        if (!ab) cJSON_AddStringToObject(lat, "baseline_timing", kb_timing_name(r->base.timing));
        cJSON_AddNumberToObject(lat, "ratio", r->lat.ratio);
        cJSON_AddNumberToObject(lat, "first_ratio", r->lat.first_ratio);
    }
    if (r->lat.p_value >= 0.0) {
        cJSON_AddNumberToObject(lat, "p_value", r->lat.p_value);
        cJSON_AddNumberToObject(lat, "noise", r->lat.noise);
        cJSON_AddNumberToObject(lat, "machine_drift", r->lat.drift);
        cJSON_AddStringToObject(lat, "bound", kb_bound_name(r->base.bound));
        if (r->lat.drift_probe != KB_PROBE_N)
            cJSON_AddStringToObject(lat, "drift_probe", kb_probe_name(r->lat.drift_probe));
    }
    /* the slowdown the case is allowed: from its baseline, or, recorded, the
     * one its new baseline will allow (A/B has its own rule: ab) */
    if ((r->has_base && !ab) || r->lat.verdict == KB_LAT_RECORDED)
        cJSON_AddNumberToObject(lat, "tolerance", r->lat.tolerance);
    if (r->lat.verdict == KB_LAT_RECORDED) {
        cJSON_AddNumberToObject(lat, "record_noise", r->record_noise);
        cJSON_AddNumberToObject(lat, "record_drift", r->record_drift);
        cJSON_AddItemToObject(lat, "attempt_noise",
                              cJSON_CreateDoubleArray(r->attempt_noise, r->record_attempts));
        cJSON_AddNumberToObject(lat, "kept_attempt", r->kept_attempt);
        cJSON_AddStringToObject(lat, "bound", kb_bound_name(r->bound));
        cJSON_AddNumberToObject(lat, "intensity", r->intensity);
        cJSON_AddNumberToObject(lat, "balance", r->balance);
    }
    if (r->fresh_first > 0) {
        /* the slowdown measured again in a fresh process (rounds from first_round) */
        cJSON *f = cJSON_AddObjectToObject(lat, "fresh_process");
        cJSON_AddStringToObject(f, "verdict", kb_latency_verdict_name(r->fresh.verdict));
        cJSON_AddNumberToObject(f, "ratio", r->fresh.ratio);
        cJSON_AddNumberToObject(f, "first_ratio", r->fresh.first_ratio);
        cJSON_AddNumberToObject(f, "first_round", r->fresh_first);
    }
    if (ab) cJSON_AddItemToObject(lat, "ab", ab_json(r));
    cJSON_AddItemToObject(o, "device", device_json(r));
    cJSON_AddItemToObject(o, "rounds", rounds_json(r));
    return o;
}

static cJSON *calibration_json(const kb_calibration *cal) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", cal ? cal->file : "");
    if (cal && cal->present) {
        cJSON_AddNumberToObject(o, "peak_gbps", cal->peak_gbps);
        cJSON_AddStringToObject(o, "measured_at", cal->measured_at);
        if (cal->age_s >= 0.0)
            cJSON_AddNumberToObject(o, "age_s", round(cal->age_s));
        else
            cJSON_AddNullToObject(o, "age_s");
        kb_calibration_add_roofs(o, &cal->roofs, 0);
        if (cal->roofs.n_levels == 0) cJSON_AddStringToObject(o, "roofline_note", cal->roof_note);
    } else {
        cJSON_AddNullToObject(o, "peak_gbps");
        cJSON_AddNullToObject(o, "levels");
        cJSON_AddNullToObject(o, "compute");
        cJSON_AddNullToObject(o, "matrix");
        cJSON_AddStringToObject(o, "note", cal && *cal->note ? cal->note : "not read");
    }
    if (cal && cal->reused >= 0) { /* a calibration run */
        cJSON_AddBoolToObject(o, "reused", cal->reused);
        if (!cal->reused) cJSON_AddStringToObject(o, "why_measured", cal->why_measured);
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
    cJSON_AddStringToObject(o, "build", mine);
    const char *base = NULL;
    for (int i = 0; i < rep->n_results; ++i) {
        const kb_case_result *r = &rep->results[i];
        if (!r->has_base || !*r->base.build_opt) continue;
        base = r->base.build_opt;
        if (strcmp(mine, base) != 0) break;
    }
    if (base)
        cJSON_AddStringToObject(o, "baseline", base);
    else
        cJSON_AddNullToObject(o, "baseline");
    return o;
}

cJSON *kb_report_json(const kb_report *rep, const char *status, cJSON *env) {
    const kb_run_ctx *ctx = rep->ctx;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "test", rep->test_name);
    cJSON_AddStringToObject(o, "status", status);
    cJSON_AddStringToObject(o, "kernel", ctx->kernel_name);
    cJSON_AddStringToObject(o, "backend", ctx->backend->name);
    cJSON_AddStringToObject(o, "precision", kb_prec_name(ctx->prec));
    cJSON_AddStringToObject(o, "profile", rep->profile);
    cJSON_AddStringToObject(o, "mode", ctx->ab ? "ab" : "baseline");
    if (ctx->ab) cJSON_AddStringToObject(o, "ab_base", ctx->ab->ref);
    cJSON_AddStringToObject(o, "baseline_file", rep->baseline_path);
    cJSON_AddItemToObject(o, "optimisation", optimisation_json(rep));
    const char *docs = kb_build_current()->docs_dir;
    cJSON_AddStringToObject(o, "docs_dir", docs ? docs : "");
    cJSON_AddStringToObject(o, "manifest", ctx->manifest->path);
    cJSON_AddNumberToObject(o, "seed", (double)ctx->settings->seed);
    cJSON_AddNumberToObject(o, "latency_tolerance", ctx->settings->gate.latency_tol);
    /* the drift's limits: absolute, and relative to the baseline's rmse;
     * each only when given (KBENCH_ACCURACY_DRIFT) */
    if (ctx->settings->gate.accuracy_drift >= 0.0)
        cJSON_AddNumberToObject(o, "accuracy_drift", ctx->settings->gate.accuracy_drift);
    if (ctx->settings->gate.accuracy_drift_rel >= 0.0)
        cJSON_AddNumberToObject(o, "accuracy_drift_rel", ctx->settings->gate.accuracy_drift_rel);
    cJSON_AddBoolToObject(o, "cold_cache", ctx->settings->cold_cache);
    cJSON_AddStringToObject(o, "case_set", ctx->case_set);
    cJSON_AddItemToObject(o, "calibration", calibration_json(rep->cal));
    cJSON *cases = cJSON_AddArrayToObject(o, "cases");
    for (int i = 0; i < rep->n_results; ++i)
        cJSON_AddItemToArray(cases, case_json(&rep->results[i], ctx->ab != NULL));
    if (env) cJSON_AddItemToObject(o, "environment", env);
    return o;
}

cJSON *kb_report_case_json(const kb_case_result *r, int ab) {
    return case_json(r, ab);
}
