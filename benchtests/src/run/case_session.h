/* A case set up for timing, for whoever times it: the runner's rounds, A/B
 * mode, and the driver serving as another process's partner, which times
 * rounds when told to. */
#ifndef KB_CASE_SESSION_H
#define KB_CASE_SESSION_H

#include "run/case_result.h"
#include "run/case_timing.h"

/* The case's buffers, checked once, and what the timing keeps between
 * rounds; its parts are for the run layer, which times it. */
typedef struct kb_case_session {
    const kb_run_ctx *ctx;
    kb_case_buffers bf;
    kb_probe probe;
    kb_case_timing tc;
    int rounds;  /* rounds measured so far: each after the first moves the buffers */
    int threads; /* the case's: above 1, every thread of the process was pinned */
} kb_case_session;

/* Inputs, reference and one checked run, whose accuracy goes into
 * r->measured.acc. NULL when the case cannot be timed: r->error or
 * r->skipped says why. */
kb_case_session *kb_case_open(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl,
                              kb_case_result *r);

/* One round of cfg's samples on `cpu` (-1: wherever the scheduler puts
 * it); with `move`, every round after the first moves the case's buffers to
 * fresh memory first. */
int kb_case_round(kb_case_session *s, int cpu, int move, const kb_sampling *cfg, kb_samples *out,
                  kb_err *err);

void kb_case_close(kb_case_session *s);

/* A case of more threads than the process may use CPUs is skipped, saying
 * so in r: run on fewer CPUs, its threads would take turns, and the time
 * would be theirs, not the kernel's. 1 when skipped. */
int kb_case_too_many_threads(const kb_case *c, kb_case_result *r);

#endif
