/* The sampler's side of a case: each timed call of the implementation goes
 * through here, which is where the calls are counted, the warm-up is told
 * from the samples, a sample taken under limited clocks or a broken hold is
 * flagged, and the way the backend timed the samples is gathered. Whoever
 * times rounds (case_rounds.c, case_session.c) starts it and reads that. */
#include "run/case_timing.h"

#include "base/clock.h"
#include "guard/watchdog.h"
#include "measure/sampler.h"

#include <stdarg.h>
#include <stdio.h>

void kb_case_timing_pin(kb_case_timing *tc, int cpu) {
    int set[KB_MAX_CPUS];
    if (tc->threads <= 1) {
        (void)kb_affinity_pin(cpu);
    } else if (kb_affinity_window(&tc->cpus, cpu, tc->threads, set) == tc->threads &&
               kb_affinity_pin_all(set, tc->threads) == 0) {
        tc->set_first = set[0];
    }
}

/* Whether the device's clocks were held down when the sample ended: such a
 * sample measures the limit, not the kernel, and the sampler drops it. */
static int clock_suspect(kb_case_timing *t) {
    unsigned reasons = 0;
    const kb_backend *b = t->ctx->backend;
    if (!b->clock_limits || b->clock_limits(&reasons) != 0) return 0;
    t->clocks_checked = 1;
    t->clock_limits |= reasons;
    return reasons ? KB_SAMPLE_SUSPECT : 0;
}

/* The sampler warms up for warmup_s before its first sample (sampler.c):
 * the calls that begin before then are the round's warm-up. */
static void end_warm_up(const kb_case_timing *t) {
    if (kb_watchdog_current() == KB_STAGE_WARMUP &&
        kb_now_s() - t->round_t0 >= t->ctx->settings->sampling.warmup_s)
        kb_watchdog_stage(t->round_stage);
}

/* How the backend times the implementation's calls now: the host clock, or
 * device events with the calls held or not (a hold that gives up on an
 * implementation does so for good, so the state after a sample is how its
 * last calls were timed). */
static kb_timing timed_as(const kb_case_timing *t) {
    const kb_backend *b = t->ctx->backend;
    if (!b->times_held) return KB_TIMING_HOST;
    return b->times_held(t->impl->run) ? KB_TIMING_HELD : KB_TIMING_UNHELD;
}

void kb_case_samples_begin(void *p) {
    ((kb_case_timing *)p)->sampling = 1;
}

kb_timing kb_case_samples_timing(const kb_case_timing *t) {
    if (t->timing != KB_TIMING_UNKNOWN) return t->timing;
    const kb_timing now = timed_as(t);
    return now == KB_TIMING_HELD ? KB_TIMING_MIXED : now;
}

int kb_case_time_reps(void *p, int reps, double *ms) {
    kb_case_timing *t = p;
    const kb_backend *b = t->ctx->backend;
    if (t->ctx->settings->cold_cache && b->flush_caches() != 0) return -1;
    int rc = b->time_calls(t->impl->run, &t->bf->args, reps, ms);
    if (rc < 0) return -1;
    t->calls += reps;
    if (t->sampling && rc != KB_TIMED_DISTURBED) t->timing = kb_timing_join(t->timing, timed_as(t));
    end_warm_up(t);
    int suspect = clock_suspect(t);
    return rc == KB_TIMED_DISTURBED ? KB_SAMPLE_DISTURBED : suspect;
}

void kb_case_range_push(const kb_backend *b, const char *fmt, ...) {
    if (!b->range_push) return;
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    b->range_push(name);
}

void kb_case_range_pop(const kb_backend *b) {
    if (b->range_pop) b->range_pop();
}
