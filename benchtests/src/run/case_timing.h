/* How one case's calls are timed: the sampler's callbacks (kb_sample_marked)
 * over the case's buffers, the CPUs its rounds run on, and the profiler
 * ranges around cases and rounds. */
#ifndef KB_CASE_TIMING_H
#define KB_CASE_TIMING_H

#include "base/affinity.h"
#include "guard/stage.h"
#include "machine/timing_mode.h"
#include "measure/probe.h"
#include "run/case_buffers.h"

typedef struct kb_case_timing {
    const kb_run_ctx *ctx;
    const kb_impl *impl;
    kb_case_buffers *bf;
    kb_probe *probe;
    kb_affinity cpus;      /* the CPUs the process may use (kb_affinity_start) */
    int threads;           /* the case's (kb_case_threads) */
    int set_first;         /* threads > 1: the first CPU of the set the case runs on now */
    long long calls;       /* timed or warm-up calls made so far */
    double round_t0;       /* when the round began (kb_now_s) */
    kb_stage round_stage;  /* the round's stage once its warm-up is over */
    int clocks_checked;    /* the backend answered a clock-limit query */
    unsigned clock_limits; /* every limit it reported */
    int sampling;          /* the round's warm-up is over (kb_sample_marked) */
    kb_timing timing;      /* how its undisturbed samples were timed (machine/timing_mode.h) */
} kb_case_timing;

/* Puts the case's next calls on `cpu`: a single-threaded case's thread
 * there; a case of t threads, every thread of the process on the t CPUs
 * from `cpu` on (kb_affinity_window), which the threads the kernel starts
 * inherit. A CPU the process may not use is left to the scheduler. */
void kb_case_timing_pin(kb_case_timing *tc, int cpu);

/* kb_sample_marked's callbacks, p a kb_case_timing: times `reps` calls of
 * the implementation, and marks the calls timed from now on as samples. */
int kb_case_time_reps(void *p, int reps, double *ms);
void kb_case_samples_begin(void *p);

/* How the samples so far were timed. With none undisturbed, how the calls
 * are timed now, but not "held": every sample lost time, as one does whose
 * hold ran out, so some of its calls waited on the host (mixed). */
kb_timing kb_case_samples_timing(const kb_case_timing *tc);

/* A profiler range (NVTX, ROCTX) where the backend has them: one around
 * each case, one around each timed round, for a profiler's timeline. */
__attribute__((format(printf, 2, 3))) void kb_case_range_push(const kb_backend *b, const char *fmt,
                                                              ...);
void kb_case_range_pop(const kb_backend *b);

#endif
