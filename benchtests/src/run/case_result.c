/* The few rules every reader of a case result shares: how a failure to run
 * is recorded, whether the case passed, and what the result owns. */
#include "run/case_result.h"

#include <stdio.h>

int kb_case_error(kb_case_result *r, const char *msg) {
    snprintf(r->error_msg, sizeof r->error_msg, "%s", msg);
    r->error = 1;
    return -1;
}

int kb_case_passed(const kb_case_result *r) {
    return !r->error && r->decision.acc_fired == 0 &&
           !kb_latency_verdict_fails(r->decision.lat.verdict);
}

void kb_case_result_free(kb_case_result *r) {
    for (int i = 0; i < r->measured.n_rounds; ++i) kb_samples_free(&r->measured.rounds[i]);
    kb_baseline_entry_free(&r->decision.base);
}
