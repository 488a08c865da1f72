/* One case of one implementation, end to end: inputs, reference, the checked
 * run, the timed rounds and the decisions. */
#ifndef KB_RUNNER_H
#define KB_RUNNER_H

#include "run/case_result.h"
#include "run/case_session.h"
#include "run/run_ctx.h"

/* Runs one case; fills r (release it with kb_case_result_free). Failures of
 * the kernel or the backend are recorded in r->error, not returned. */
void kb_run_case(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl, kb_case_result *r);

#endif
