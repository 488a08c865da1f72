/* The held-parts loop of the GPU backend's timing (holdplan.h). */
#include "holdplan.h"

#include <stdio.h>

/* The slot of `key`, taken on first use; NULL when the table is full (such
 * a key is timed unheld). */
static int *timeouts_of(kb_hold_table *t, const void *key) {
    for (int i = 0; i < KB_HOLD_KEYS; ++i) {
        if (t->key[i] == key) return &t->timeouts[i];
        if (!t->key[i]) {
            t->key[i] = key;
            return &t->timeouts[i];
        }
    }
    return NULL;
}

int kb_hold_holds(const kb_hold_table *t, const void *key) {
    if (!t->usable) return 0;
    int i = 0;
    for (; i < KB_HOLD_KEYS && t->key[i]; ++i)
        if (t->key[i] == key) return t->timeouts[i] < KB_HOLD_GIVE_UP;
    return i < KB_HOLD_KEYS; /* not seen yet: held if a slot is free */
}

/* Counts a held part's outcome; says so when it makes `key` unheld. */
static void note_part(int *timeouts, int ran_out) {
    *timeouts = ran_out ? *timeouts + 1 : 0;
    if (*timeouts == KB_HOLD_GIVE_UP)
        fprintf(stderr,
                "note: %d stream holds in a row ran out before their calls were queued: "
                "these calls wait for the device; timed unheld from now on\n",
                KB_HOLD_GIVE_UP);
}

int kb_hold_time(kb_hold_table *t, const void *key, int reps, kb_hold_part_fn part, void *ctx,
                 double *ms) {
    *ms = 0.0;
    if (reps < 1) return -1; /* nothing to time is the caller's error */
    int *timeouts = t->usable ? timeouts_of(t, key) : NULL;
    int disturbed = 0;
    for (int done = 0; done < reps;) {
        const int held = timeouts && *timeouts < KB_HOLD_GIVE_UP;
        const int calls = held && reps - done > KB_HOLD_CALLS ? KB_HOLD_CALLS : reps - done;
        double part_ms = 0.0;
        const int rc = part(ctx, calls, held, &part_ms);
        if (rc < 0) return -1;
        if (held) note_part(timeouts, rc == 1);
        disturbed |= rc == 1;
        *ms += part_ms;
        done += calls;
    }
    return disturbed;
}
