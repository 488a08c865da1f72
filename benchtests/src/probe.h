/* The bandwidth probe: a streaming pass (dst = s * src) over a working set
 * of the case's own size, timed on the case's backend right after a round.
 * The gate compares its GB/s with the figure stored in the baseline to tell
 * a slower kernel from a slower machine: on a shared host the memory
 * bandwidth itself moves by tens of percent over minutes (docs/gate.md). */
#ifndef KB_PROBE_H
#define KB_PROBE_H

#include "backend.h"
#include "error.h"

#include <stddef.h>

/* Smallest and largest bytes moved per pass (read + write). */
#define KB_PROBE_MIN_BYTES ((size_t)64 << 10)
#define KB_PROBE_MAX_BYTES ((size_t)128 << 20)

typedef struct kb_probe {
    const kb_backend *backend;
    size_t bytes; /* per buffer: half of the bytes moved per pass */
    void *src, *dst;
    int reps; /* passes per timed sample */
} kb_probe;

/* Sizes the probe for a case that moves case_bytes per call, clamped to
 * [KB_PROBE_MIN_BYTES, KB_PROBE_MAX_BYTES]. Allocates nothing yet. */
void kb_probe_init(kb_probe *p, const kb_backend *backend, double case_bytes);

/* GB/s of the median pass over at least 5 samples and 20 ms. Allocates the
 * buffers on first use (outside any timed region). */
int kb_probe_measure(kb_probe *p, double *gbps, kb_err *err);

void kb_probe_free(kb_probe *p);

#endif
