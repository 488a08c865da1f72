#include "measure/sampler.h"

#include "base/clock.h"
#include "base/stats.h"

#include <math.h>
#include <stdlib.h>

kb_sampling kb_sampling_defaults(void) {
    return (kb_sampling){
        .min_samples = 15,
        .max_samples = 400,
        .min_time_s = 0.05,
        .max_time_s = 1.0,
        .target_rel_ci = 0.005,
        .warmup_s = 0.03,
        .sample_min_s = 0.0005,
    };
}

/* Warms caches, page tables and clocks, and measures one call. A second
 * call is made to size the samples from a warm call, unless the first
 * already outlasts a sample: a cold call is only slower, so one call per
 * sample it is either way (a 375 ms call is not timed twice for nothing). */
static int warm_up(const kb_sampling *cfg, kb_time_fn fn, void *ctx, double *call_ms) {
    double t0 = kb_now_s(), ms = 0.0;
    int calls = 0;
    do {
        int rc = fn(ctx, 1, &ms);
        if (rc != 0 && rc != KB_SAMPLE_SUSPECT && rc != KB_SAMPLE_DISTURBED) return -1;
        ++calls;
    } while (kb_now_s() - t0 < cfg->warmup_s || (calls < 2 && ms * 1e-3 <= cfg->sample_min_s));
    *call_ms = ms;
    return 0;
}

static int reps_for(const kb_sampling *cfg, double call_ms) {
    double reps = ceil(cfg->sample_min_s * 1e3 / (call_ms > 1e-6 ? call_ms : 1e-6));
    return reps < 1.0 ? 1 : reps > 1e6 ? 1000000 : (int)reps;
}

static int push(kb_samples *s, double ms) {
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        double *p = realloc(s->ms, (size_t)cap * sizeof *p);
        if (!p) return -1;
        s->ms = p;
        s->cap = cap;
    }
    s->ms[s->n++] = ms;
    return 0;
}

/* Fewest samples a round ends with, whatever the time: a median of one or
 * two samples is not a measurement. Dropping is capped by count and by
 * time (kb_sample), so this cannot wait forever. */
static int min_kept(const kb_sampling *cfg) {
    return cfg->min_samples < 5 ? cfg->min_samples : 5;
}

static const char *stop_rule(const kb_sampling *cfg, const kb_samples *s, double elapsed) {
    if (s->n < min_kept(cfg)) return NULL; /* only dropped samples so far */
    if (s->n >= cfg->max_samples) return "max_samples";
    if (elapsed >= cfg->max_time_s) return "max_time";
    if (s->n < cfg->min_samples || elapsed < cfg->min_time_s) return NULL;
    kb_stats st;
    if (kb_stats_compute(s->ms, (size_t)s->n, &st) != 0) return "out_of_memory";
    double half = (st.ci_hi - st.ci_lo) / 2.0;
    return half <= cfg->target_rel_ci * st.median ? "ci_target" : NULL;
}

int kb_sample(const kb_sampling *cfg, kb_time_fn fn, void *ctx, kb_samples *out) {
    return kb_sample_marked(cfg, fn, NULL, ctx, out);
}

int kb_sample_marked(const kb_sampling *cfg, kb_time_fn fn, void (*sampling)(void *ctx), void *ctx,
                     kb_samples *out) {
    double call_ms;
    if (warm_up(cfg, fn, ctx, &call_ms) != 0) return -1;
    if (sampling) sampling(ctx);
    out->n = out->dropped = out->suspect_kept = out->disturbed = out->disturbed_kept = 0;
    out->reps = reps_for(cfg, call_ms);
    double t0 = kb_now_s();
    for (;;) {
        double ms;
        int rc = fn(ctx, out->reps, &ms);
        if (rc != 0 && rc != KB_SAMPLE_SUSPECT && rc != KB_SAMPLE_DISTURBED) return -1;
        /* Dropping ends at max_samples dropped or at max_time, so a round
         * under steady load keeps its samples (and says so) instead of
         * waiting for a quiet moment that may not come. */
        out->elapsed_s = kb_now_s() - t0;
        const int may_drop = out->elapsed_s < cfg->max_time_s;
        if (rc == KB_SAMPLE_SUSPECT && may_drop && out->dropped < cfg->max_samples) {
            out->dropped++;
        } else if (rc == KB_SAMPLE_DISTURBED && may_drop && out->disturbed < cfg->max_samples) {
            out->disturbed++;
        } else {
            out->suspect_kept += rc == KB_SAMPLE_SUSPECT;
            out->disturbed_kept += rc == KB_SAMPLE_DISTURBED;
            if (push(out, ms / out->reps) != 0) return -1;
        }
        out->stop_rule = stop_rule(cfg, out, out->elapsed_s);
        if (out->stop_rule) {
            kb_stats st;
            if (kb_stats_compute(out->ms, (size_t)out->n, &st) != 0) return -1;
            out->median = st.median;
            return 0;
        }
    }
}

void kb_samples_free(kb_samples *s) {
    free(s->ms);
    s->ms = NULL;
    s->n = s->cap = 0;
}
