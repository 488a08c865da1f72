/* The rounds of one case and the gate's decisions on them, against the
 * baseline: gating (a suspected slowdown measured again, then in a fresh
 * process) and recording (rounds spread over processes and attempts). */
#ifndef KB_CASE_ROUNDS_H
#define KB_CASE_ROUNDS_H

#include "run/case_result.h"
#include "run/case_timing.h"

/* Measures rounds of the set-up case in tc until the gate decides, into
 * r->measured and r->decision. */
int kb_case_time_rounds(const kb_run_ctx *ctx, kb_case_timing *tc, kb_case_result *r, kb_err *err);

/* The answers of this build's worker processes to the case sent: they run
 * the same build on the same inputs, so with `must_be_ready` (this process
 * set the case up) each must have set it up too; `who` names them in the
 * error. */
int kb_case_workers_ready(kb_workers *w, int must_be_ready, const char *who, kb_err *err);

#endif
