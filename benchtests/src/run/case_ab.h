/* A/B mode's side of a case: what the base answered when it set the case
 * up, and the pairs of rounds measured against it (partner/ab.h). */
#ifndef KB_CASE_AB_H
#define KB_CASE_AB_H

#include "run/case_session.h"

/* The base's answer to the case requested; a base that set the case up
 * stands in for the baseline in r->decision (its RMSE, on this hardware,
 * measured now). */
int kb_case_ab_open(const kb_run_ctx *ctx, kb_case_result *r, kb_err *err);

/* The pairs into r->ab, every head sample as the case's one round, and the
 * decision and the base's median where the baseline's would be. */
int kb_case_ab_measure(kb_case_session *s, kb_case_result *r, kb_err *err);

#endif
