/* Recording: a baseline entry for each case a run measured, merged into the
 * baseline file. The format's reading, checks and atomic merge are in
 * baseline.c; this file needs the runner's case results, which baseline.c
 * (read by the runner) must not depend on. */
#include "output/baseline_write.h"

#include "base/clock.h"

/* One recorded case's entry (takes a copy of env). */
static cJSON *entry_of(const kb_case_result *r, const cJSON *env, const char *now) {
    cJSON *e = cJSON_CreateObject();
    const kb_samples *best = &r->measured.rounds[r->decision.lat.best];
    const kb_timing best_timing = r->measured.round_timing[r->decision.lat.best];
    cJSON_AddStringToObject(e, "case", r->c->name);
    cJSON_AddStringToObject(e, "variant", r->variant);
    cJSON_AddNumberToObject(e, "median_ms", r->measured.stats.median);
    cJSON_AddNumberToObject(e, "min_ms", r->measured.stats.min);
    cJSON_AddNumberToObject(e, "p10_ms", r->measured.stats.p10);
    cJSON_AddNumberToObject(e, "p90_ms", r->measured.stats.p90);
    cJSON_AddNumberToObject(e, "reps", best->reps);
    cJSON_AddItemToObject(e, "samples_ms", cJSON_CreateDoubleArray(best->ms, best->n));
    double medians[KB_MAX_ROUNDS];
    for (int i = 0; i < r->measured.n_rounds; ++i) medians[i] = r->measured.rounds[i].median;
    cJSON_AddItemToObject(e, "round_medians_ms",
                          cJSON_CreateDoubleArray(medians, r->measured.n_rounds));
    /* the rounds came from this many processes: their spread is in the medians */
    cJSON_AddNumberToObject(e, "processes", r->measured.processes);
    cJSON_AddNumberToObject(e, "rmse", r->measured.acc.rmse);
    cJSON_AddNumberToObject(e, "max_abs_err", r->measured.acc.max_abs);
    cJSON_AddNumberToObject(e, "gbps", r->measured.gbps);
    kb_baseline_add_probe(e, &r->measured.recorded_probe);
    cJSON_AddStringToObject(e, "bound", kb_bound_name(r->measured.bound));
    cJSON_AddNumberToObject(e, "intensity", r->measured.intensity);
    cJSON_AddNumberToObject(e, "balance", r->measured.balance);
    /* the kept round's samples are the entry's: how they were timed */
    if (best_timing != KB_TIMING_UNKNOWN)
        cJSON_AddStringToObject(e, "timing", kb_timing_name(best_timing));
    cJSON_AddStringToObject(e, "recorded_at", now);
    cJSON_AddItemToObject(e, "environment", cJSON_Duplicate(env, 1));
    return e;
}

int kb_baseline_record(const char *path, const kb_run_ctx *ctx, const char *profile,
                       const kb_case_result *res, int n, const cJSON *env, kb_err *err) {
    char now[40];
    kb_utc_now(now, sizeof now);
    cJSON *entries = cJSON_CreateObject();
    int recorded = 0;
    for (int i = 0; i < n; ++i) {
        /* a wrong result is never a baseline, nor is a case that did not run */
        if (!kb_case_passed(&res[i]) || res[i].skipped) continue;
        char key[512];
        kb_baseline_key(key, sizeof key, ctx->backend->name, kb_prec_name(ctx->prec),
                        res[i].variant, res[i].c->name, kb_case_threads(res[i].c));
        cJSON_AddItemToObject(entries, key, entry_of(&res[i], env, now));
        ++recorded;
    }
    /* nothing to record leaves the file as it is (not even rewritten) */
    if (recorded == 0) {
        cJSON_Delete(entries);
        return 0;
    }
    return kb_baseline_merge(path, ctx->kernel_name, profile, entries, err) != 0 ? -1 : recorded;
}
