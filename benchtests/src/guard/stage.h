/* The stages of one case, in the order the runner takes them: what the
 * watchdog reports a hung or crashed case was doing. */
#ifndef KB_STAGE_H
#define KB_STAGE_H

typedef enum kb_stage {
    KB_STAGE_START,        /* before the first case: baseline, calibration, A/B base */
    KB_STAGE_SETUP,        /* layout, inputs, outputs, workspace */
    KB_STAGE_REFERENCE,    /* the double-precision reference */
    KB_STAGE_CHECK,        /* the checked run and its accuracy */
    KB_STAGE_WARMUP,       /* a round's untimed calls */
    KB_STAGE_MEASUREMENT,  /* the first round's samples */
    KB_STAGE_CONFIRMATION, /* rounds re-measuring a suspected slowdown */
    KB_STAGE_RECORDING,    /* the further rounds of a recording */
    KB_STAGE_AB_ROUNDS,    /* A/B mode: the head's and the base's rounds */
    KB_STAGE_FINISH,       /* after the last case: report, baseline, result */
    KB_STAGE_COUNT
} kb_stage;

/* "setup", "warm-up", "ab-rounds"... */
const char *kb_stage_name(kb_stage s);

#endif
