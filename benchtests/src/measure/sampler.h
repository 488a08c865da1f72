/* The adaptive sampling loop: warm up, choose how many calls make one sample,
 * then take samples until the median is known well enough or a limit is hit.
 * It is backend-neutral: the backend supplies a function that times `reps`
 * back-to-back calls (host clock on the CPU, device events on GPUs). */
#ifndef KB_SAMPLER_H
#define KB_SAMPLER_H

#include <stddef.h>

typedef struct kb_sampling {
    int min_samples;      /* never stop before this many samples */
    int max_samples;      /* stop at this many */
    double min_time_s;    /* never stop before this much sampling time */
    double max_time_s;    /* stop after this much sampling time */
    double target_rel_ci; /* stop once the median's 95% CI half-width / median is below */
    double warmup_s;      /* run the kernel this long before sampling */
    double sample_min_s;  /* batch calls so that one sample lasts at least this */
} kb_sampling;

/* Default limits (documented in docs/gate.md). */
kb_sampling kb_sampling_defaults(void);

/* Times `reps` consecutive calls; stores the elapsed milliseconds of all of
 * them in *ms. Returns 0; KB_SAMPLE_SUSPECT when the sample was taken while
 * the device was not running free (clocks held down by a power or thermal
 * limit); KB_SAMPLE_DISTURBED when the timing thread lost its CPU during the
 * sample (preempted, stolen: disturb.h); anything else when the kernel
 * failed. The sampler drops suspect and disturbed samples, up to
 * max_samples of each; past that it keeps and counts them. */
typedef int (*kb_time_fn)(void *ctx, int reps, double *ms);

#define KB_SAMPLE_SUSPECT   1
#define KB_SAMPLE_DISTURBED 2

typedef struct kb_samples {
    double *ms; /* per-call milliseconds, one per sample */
    int n, cap;
    int reps;              /* calls per sample */
    int dropped;           /* suspect samples left out (at most max_samples) */
    int suspect_kept;      /* suspect samples kept: the device stayed limited */
    int disturbed;         /* disturbed samples left out (at most max_samples) */
    int disturbed_kept;    /* disturbed samples kept: the thread kept losing its CPU */
    double elapsed_s;      /* wall time spent sampling */
    double median;         /* of ms, set once the loop ends */
    const char *stop_rule; /* which rule ended the loop */
} kb_samples;

/* Runs the loop. Returns 0, or non-zero when fn failed or memory ran out. */
int kb_sample(const kb_sampling *cfg, kb_time_fn fn, void *ctx, kb_samples *out);

/* The same, calling sampling(ctx) once the warm-up is over, before the
 * first sample: what fn times from then on are the samples. */
int kb_sample_marked(const kb_sampling *cfg, kb_time_fn fn, void (*sampling)(void *ctx), void *ctx,
                     kb_samples *out);

void kb_samples_free(kb_samples *s);

#endif
