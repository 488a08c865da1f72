/* How the GPU backend times a sample's calls in held parts (gpu_hold.h):
 * at most KB_HOLD_CALLS calls wait behind one hold, the parts' times are
 * summed. When an implementation's holds run out KB_HOLD_GIVE_UP times in
 * a row, its parts are cut to half the most calls those parts queued (a
 * call that launches many kernels can fill the launch queue behind the
 * hold); once parts of one call run out so, its calls wait for the device
 * and it is timed unheld from then on.
 * Plain C with the device work behind a callback, so that the CPU tests
 * check the same loop the GPU backend runs (holdplan.c). */
#ifndef KB_HOLDPLAN_H
#define KB_HOLDPLAN_H

#define KB_HOLD_CALLS   64 /* calls queued behind one hold */
#define KB_HOLD_GIVE_UP 3  /* holds in a row that ran out */
#define KB_HOLD_KEYS    32 /* implementations tracked */

/* Times `calls` calls, queued behind a hold when `held`: 0, 1 when the hold
 * ran out before they were all queued (the time then includes the host's),
 * -1 on a failure. */
typedef int (*kb_hold_part_fn)(void *ctx, int calls, int held, double *ms);

typedef struct kb_hold_table {
    const void *key[KB_HOLD_KEYS];
    int timeouts[KB_HOLD_KEYS]; /* holds in a row that ran out */
    int queued[KB_HOLD_KEYS];   /* the most calls of a part among those */
    int most[KB_HOLD_KEYS];     /* calls behind one hold; 0: KB_HOLD_CALLS */
    int usable;                 /* 0: the backend has no hold; every part unheld */
} kb_hold_table;

/* Times `reps` calls of the implementation `key` through `part`; the total
 * in *ms. 0, 1 when some hold ran out (a disturbed sample), -1 on a
 * failure or when reps < 1. Prints a note on the call that gives up
 * holding `key`. */
int kb_hold_time(kb_hold_table *t, const void *key, int reps, kb_hold_part_fn part, void *ctx,
                 double *ms);

/* Whether `key` is still timed held (for tests and reports). */
int kb_hold_holds(const kb_hold_table *t, const void *key);

/* The most calls of `key` queued behind one hold (KB_HOLD_CALLS for a key
 * not seen yet; 0 when `key` is timed unheld). */
int kb_hold_part_calls(const kb_hold_table *t, const void *key);

#endif
