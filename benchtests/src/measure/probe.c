#include "measure/probe.h"

#include "base/clock.h"
#include "base/stats.h"
#include "machine/probe_core.h"

#include <stdlib.h>
#include <string.h>

#define MIN_SAMPLES   5
#define MAX_SAMPLES   256
#define MIN_TIME_S    0.02
#define SAMPLE_MIN_MS 0.05 /* batch passes so a sample outlasts the clock's resolution */
#define CORE_STEPS    4096 /* steps of a core probe's pass */

void kb_probe_init(kb_probe *p, const kb_backend *backend, double case_bytes) {
    memset(p, 0, sizeof *p);
    p->backend = backend;
    size_t moved = case_bytes > (double)KB_PROBE_MAX_BYTES   ? KB_PROBE_MAX_BYTES
                   : case_bytes < (double)KB_PROBE_MIN_BYTES ? KB_PROBE_MIN_BYTES
                                                             : (size_t)case_bytes;
    p->bytes = moved / 2 / 64 * 64;
}

/* Whether the backend can measure figure k. */
static int measurable(const kb_probe *p, kb_probe_kind k) {
    const kb_backend *b = p->backend;
    return k == KB_PROBE_SCALE  ? b->time_stream != NULL
           : k == KB_PROBE_COPY ? b->time_copy != NULL
                                : b->time_core != NULL;
}

/* `reps` passes of figure k, elapsed milliseconds in *ms. */
static int pass(const kb_probe *p, kb_probe_kind k, int reps, double *ms) {
    const kb_backend *b = p->backend;
    switch (k) {
    case KB_PROBE_SCALE: return b->time_stream(p->dst, p->src, p->bytes, reps, ms);
    case KB_PROBE_COPY: return b->time_copy(p->dst, p->src, p->bytes, reps, ms);
    default: return b->time_core(k == KB_PROBE_CHAIN, (long)reps * CORE_STEPS, ms);
    }
}

/* The work of one pass, in the figure's unit times 1e9 per second. */
static double work(const kb_probe *p, kb_probe_kind k) {
    switch (k) {
    case KB_PROBE_SCALE:
    case KB_PROBE_COPY: return 2.0 * (double)p->bytes;
    case KB_PROBE_MADD: return 2.0 * KB_PROBE_MADD_LANES * (double)CORE_STEPS;
    default: return (double)CORE_STEPS;
    }
}

/* Allocates both buffers and zeroes the source with one upload. */
static int allocate(kb_probe *p, kb_err *err) {
    p->src = p->backend->alloc(p->bytes, err);
    if (!p->src) return -1;
    p->dst = p->backend->alloc(p->bytes, err);
    if (!p->dst) {
        p->backend->release(p->src);
        p->src = NULL;
        return -1;
    }
    void *zeros = calloc(1, p->bytes);
    if (!zeros) return kb_fail(err, "out of host memory for the machine probe");
    int rc = p->backend->upload(p->src, zeros, p->bytes, err);
    free(zeros);
    return rc;
}

/* The first pass faults the pages in (or warms the core); the second,
 * timed, sets how many passes make a sample. */
static int size_figure(kb_probe *p, kb_probe_kind k) {
    double ms = 0.0;
    for (int i = 0; i < 2; ++i)
        if (pass(p, k, 1, &ms) != 0) return -1;
    p->reps[k] = ms > 0.0 && ms < SAMPLE_MIN_MS ? (int)(SAMPLE_MIN_MS / ms) + 1 : 1;
    return 0;
}

/* The median pass, not the best one: a slower machine shows in the typical
 * pass first, as it does in the kernel's median. */
static int measure_figure(kb_probe *p, kb_probe_kind k, double *rate, kb_err *err) {
    if (!p->reps[k] && size_figure(p, k) != 0)
        return kb_fail(err, "the %s %s probe failed", p->backend->name, kb_probe_name(k));
    double ms[MAX_SAMPLES], t0 = kb_now_s();
    int n = 0;
    while (n < MAX_SAMPLES && (n < MIN_SAMPLES || kb_now_s() - t0 < MIN_TIME_S)) {
        if (pass(p, k, p->reps[k], &ms[n]) != 0)
            return kb_fail(err, "the %s %s probe failed", p->backend->name, kb_probe_name(k));
        ms[n++] /= p->reps[k];
    }
    kb_stats s;
    if (kb_stats_compute(ms, (size_t)n, &s) != 0) return kb_fail(err, "out of host memory");
    *rate = s.median > 0.0 ? work(p, k) / (s.median * 1e-3) * 1e-9 : 0.0;
    return 0;
}

int kb_probe_measure(kb_probe *p, kb_probe_reading *out, kb_err *err) {
    memset(out, 0, sizeof *out); /* unknown: the gate then leaves that figure out */
    int memory = measurable(p, KB_PROBE_SCALE) || measurable(p, KB_PROBE_COPY);
    if (memory && !p->src && allocate(p, err) != 0) return -1;
    for (int k = 0; k < KB_PROBE_N; ++k)
        if (measurable(p, (kb_probe_kind)k) &&
            measure_figure(p, (kb_probe_kind)k, &out->v[k], err) != 0)
            return -1;
    return 0;
}

void kb_probe_free(kb_probe *p) {
    if (p->src) p->backend->release(p->src);
    if (p->dst) p->backend->release(p->dst);
    p->src = p->dst = NULL;
}
