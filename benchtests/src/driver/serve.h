/* The base's side of A/B mode: a driver started with --partner serves the
 * head's requests (partner/protocol.h) on its stdin and stdout, preparing and timing
 * the cases the head names, until the head ends. */
#ifndef KB_SERVE_H
#define KB_SERVE_H

#include "run/runner.h"

/* Serves a head with the run set up in ctx (its manifest, backend and
 * precision) and these implementations. 0 when the head ended the session,
 * -1 with a message. */
int kb_serve(const kb_run_ctx *ctx, const kb_impl *const *impls, int n_impls, kb_err *err);

#endif
