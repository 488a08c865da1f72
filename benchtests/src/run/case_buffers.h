/* The buffers of one case: its inputs, outputs and workspace on the
 * backend, the host copies its outputs are checked through, and the
 * double-precision reference outputs they are checked against. */
#ifndef KB_CASE_BUFFERS_H
#define KB_CASE_BUFFERS_H

#include "base/error.h"
#include "kbref/metrics.h"
#include "run/run_ctx.h"

typedef struct kb_case_buffers {
    kb_layout layout;
    void *dev_in[KB_MAX_TENSORS], *dev_out[KB_MAX_TENSORS];
    void *host_out[KB_MAX_TENSORS];
    double *ref_out[KB_MAX_TENSORS];
    int ref_shared; /* ref_out is the run's reference cache's (refcache.h) */
    kb_args args;   /* what the implementation is called with */
} kb_case_buffers;

/* Asks the kernel for case c's layout and checks that the case fits: no
 * tensor too large to size, and every buffer within the host's memory.
 * Once the layout is known, *footprint is the bytes of its inputs and
 * outputs at the run's precision and *written those of its outputs, even
 * when the case does not fit. */
int kb_case_buffers_layout(const kb_run_ctx *ctx, const kb_case *c, kb_case_buffers *bf,
                           double *footprint, double *written, kb_err *err);

/* The inputs (uploaded), their reference outputs, the poisoned outputs
 * and the workspace; bf->args is then ready for a call of the case. */
int kb_case_buffers_make(const kb_run_ctx *ctx, const kb_case *c, kb_case_buffers *bf, kb_err *err);

/* Downloads the outputs and measures them against the reference. */
int kb_case_buffers_check(const kb_run_ctx *ctx, kb_case_buffers *bf, kbref_accuracy *acc,
                          kb_err *err);

/* Moves every buffer of the case to fresh memory, contents kept. */
int kb_case_buffers_move(const kb_run_ctx *ctx, kb_case_buffers *bf, kb_err *err);

void kb_case_buffers_free(const kb_run_ctx *ctx, kb_case_buffers *bf);

#endif
