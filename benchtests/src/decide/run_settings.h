/* What the runner and the modules below it (sampling, A/B, the partner
 * server) need to know of the command line. The driver fills it from its
 * options, so they never read the options themselves. */
#ifndef KB_RUN_SETTINGS_H
#define KB_RUN_SETTINGS_H

#include "decide/gate.h"
#include "measure/sampler.h"

#include <stdint.h>

typedef struct kb_run_settings {
    uint64_t seed;          /* inputs are generated from it */
    kb_sampling sampling;   /* each round's sample limits and warm-up */
    kb_gate_cfg gate;       /* tolerances, confirmation rounds, A/B pair limits */
    int update;             /* record the baseline instead of gating latency */
    int record_rounds;      /* rounds measured when recording; the fastest is kept */
    double confirm_pause_s; /* pause before the first confirmation round, doubling */
    int cold_cache;         /* flush the caches before every timed call */
} kb_run_settings;

#endif
