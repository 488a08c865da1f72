/* The machine probe: the four figures of machine/model.h, timed on the case's
 * backend right after a round. The streaming and copy passes run over a
 * working set of the case's own size (the level of the memory hierarchy the
 * case lives in); the core probes are size-free. The gate compares the
 * figures with those stored in the baseline to tell a slower kernel from a
 * slower machine: on a shared host memory bandwidth moves by tens of percent
 * over minutes, and instances of one profile differ in clock (docs/gate.md). */
#ifndef KB_PROBE_H
#define KB_PROBE_H

#include "backend/backend.h"
#include "base/error.h"
#include "machine/model.h"

#include <stddef.h>

/* Smallest and largest bytes moved per pass (read + write). */
#define KB_PROBE_MIN_BYTES ((size_t)64 << 10)
#define KB_PROBE_MAX_BYTES ((size_t)128 << 20)

typedef struct kb_probe {
    const kb_backend *backend;
    size_t bytes; /* per buffer: half of the bytes moved per pass */
    void *src, *dst;
    int reps[KB_PROBE_N]; /* passes per timed sample of each figure; 0 = not sized yet */
} kb_probe;

/* Sizes the probe for a case that moves case_bytes per call, clamped to
 * [KB_PROBE_MIN_BYTES, KB_PROBE_MAX_BYTES]. Allocates nothing yet. */
void kb_probe_init(kb_probe *p, const kb_backend *backend, double case_bytes);

/* Every figure the backend can measure, each the median pass over at least
 * 5 samples and 20 ms (0 for the others). Allocates the buffers on first
 * use (outside any timed region). */
int kb_probe_measure(kb_probe *p, kb_probe_reading *out, kb_err *err);

void kb_probe_free(kb_probe *p);

#endif
