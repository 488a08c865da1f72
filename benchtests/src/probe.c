#include "probe.h"

#include "stats.h"
#include "timer.h"

#include <stdlib.h>
#include <string.h>

#define MIN_SAMPLES   5
#define MAX_SAMPLES   256
#define MIN_TIME_S    0.02
#define SAMPLE_MIN_MS 0.05 /* batch passes so a sample outlasts the clock's resolution */

void kb_probe_init(kb_probe *p, const kb_backend *backend, double case_bytes) {
    memset(p, 0, sizeof *p);
    p->backend = backend;
    size_t moved = case_bytes > (double)KB_PROBE_MAX_BYTES   ? KB_PROBE_MAX_BYTES
                   : case_bytes < (double)KB_PROBE_MIN_BYTES ? KB_PROBE_MIN_BYTES
                                                             : (size_t)case_bytes;
    p->bytes = moved / 2 / 64 * 64;
}

/* Allocates both buffers and zeroes the source with one upload. The first
 * pass faults the pages in; the second, timed, sets how many passes make a
 * sample. */
static int allocate(kb_probe *p, kb_err *err) {
    p->src = p->backend->alloc(p->bytes, err);
    if (!p->src) return -1;
    p->dst = p->backend->alloc(p->bytes, err);
    if (!p->dst) return -1;
    void *zeros = calloc(1, p->bytes);
    if (!zeros) return kb_fail(err, "out of host memory for the bandwidth probe");
    int rc = p->backend->upload(p->src, zeros, p->bytes, err);
    free(zeros);
    if (rc != 0) return -1;
    double ms = 0.0;
    for (int pass = 0; pass < 2; ++pass)
        if (p->backend->time_stream(p->dst, p->src, p->bytes, 1, &ms) != 0)
            return kb_fail(err, "the %s bandwidth probe failed", p->backend->name);
    p->reps = ms > 0.0 && ms < SAMPLE_MIN_MS ? (int)(SAMPLE_MIN_MS / ms) + 1 : 1;
    return 0;
}

/* The median pass, not the best one: a slower machine shows in the typical
 * pass first, as it does in the kernel's median. */
int kb_probe_measure(kb_probe *p, double *gbps, kb_err *err) {
    *gbps = 0.0; /* unknown: the gate then applies its plain rule */
    if (!p->backend->time_stream) return 0;
    if (!p->src && allocate(p, err) != 0) return -1;
    double ms[MAX_SAMPLES], t0 = kb_now_s();
    int n = 0;
    while (n < MAX_SAMPLES && (n < MIN_SAMPLES || kb_now_s() - t0 < MIN_TIME_S)) {
        if (p->backend->time_stream(p->dst, p->src, p->bytes, p->reps, &ms[n]) != 0)
            return kb_fail(err, "the %s bandwidth probe failed", p->backend->name);
        ms[n++] /= p->reps;
    }
    kb_stats s;
    if (kb_stats_compute(ms, (size_t)n, &s) != 0) return kb_fail(err, "out of host memory");
    *gbps = s.median > 0.0 ? 2.0 * (double)p->bytes / (s.median * 1e-3) * 1e-9 : 0.0;
    return 0;
}

void kb_probe_free(kb_probe *p) {
    if (p->src) p->backend->release(p->src);
    if (p->dst) p->backend->release(p->dst);
    p->src = p->dst = NULL;
}
