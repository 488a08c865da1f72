/* The held-parts loop of the GPU backend's timing (holdplan.h). */
#include "backend/holdplan.h"

#include <stdio.h>

/* The slot that holds `key`, else the first free one (key[i] NULL), else
 * -1: the table is full. */
static int slot_find(const kb_hold_table *t, const void *key) {
    for (int i = 0; i < KB_HOLD_KEYS; ++i)
        if (t->key[i] == key || !t->key[i]) return i;
    return -1;
}

/* The slot of `key`, taken on first use; -1 when the table is full (such
 * a key is timed unheld). */
static int slot_of(kb_hold_table *t, const void *key) {
    const int i = slot_find(t, key);
    if (i >= 0) t->key[i] = key;
    return i;
}

/* The most calls behind one hold for slot i; 0 once it gave up holding. */
static int slot_calls(const kb_hold_table *t, int i) {
    if (t->timeouts[i] >= KB_HOLD_GIVE_UP) return 0;
    return t->most[i] ? t->most[i] : KB_HOLD_CALLS;
}

int kb_hold_part_calls(const kb_hold_table *t, const void *key) {
    const int i = t->usable ? slot_find(t, key) : -1;
    if (i < 0) return 0;
    return t->key[i] ? slot_calls(t, i) : KB_HOLD_CALLS; /* not seen yet: held */
}

int kb_hold_holds(const kb_hold_table *t, const void *key) {
    return kb_hold_part_calls(t, key) > 0;
}

/* Counts a held part of `calls` calls for slot i. KB_HOLD_GIVE_UP
 * run-outs in a row cut its parts to half the most calls those parts
 * queued (a sample of few calls halves from what it queued, not from the
 * limit), and give up the hold when that was one call; each step is said
 * on stderr. */
static void note_part(kb_hold_table *t, int i, int calls, int ran_out) {
    if (!ran_out) {
        t->timeouts[i] = t->queued[i] = 0;
        return;
    }
    ++t->timeouts[i];
    if (calls > t->queued[i]) t->queued[i] = calls;
    if (t->timeouts[i] < KB_HOLD_GIVE_UP) return;
    const int queued = t->queued[i];
    if (queued > 1) {
        t->most[i] = queued / 2;
        t->timeouts[i] = t->queued[i] = 0;
        fprintf(stderr,
                "note: %d stream holds in a row ran out with up to %d calls queued behind "
                "each: %d from now on\n",
                KB_HOLD_GIVE_UP, queued, queued / 2);
        return;
    }
    fprintf(stderr,
            "note: %d stream holds in a row ran out before one call was queued: these calls "
            "wait for the device; timed unheld from now on\n",
            KB_HOLD_GIVE_UP);
}

int kb_hold_time(kb_hold_table *t, const void *key, int reps, kb_hold_part_fn part, void *ctx,
                 double *ms) {
    *ms = 0.0;
    if (reps < 1) return -1; /* nothing to time is the caller's error */
    const int slot = t->usable ? slot_of(t, key) : -1;
    int disturbed = 0;
    for (int done = 0; done < reps;) {
        const int most = slot < 0 ? 0 : slot_calls(t, slot), held = most > 0;
        const int calls = held && reps - done > most ? most : reps - done;
        double part_ms = 0.0;
        const int rc = part(ctx, calls, held, &part_ms);
        if (rc < 0) return -1;
        if (held) note_part(t, slot, calls, rc == 1);
        disturbed |= rc == 1;
        *ms += part_ms;
        done += calls;
    }
    return disturbed;
}
