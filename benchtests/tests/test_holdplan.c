/* kb_hold_time: the GPU backend's held-parts loop (holdplan.h), driven by a
 * fake part timer that records what it was asked and runs out on demand. */
#include "backend/holdplan.h"
#include "kb_test.h"

#include <string.h>

typedef struct {
    int parts, calls[64], held[64];
    int run_out_from, run_out_until; /* parts [from, until) run out */
    int fail_at;                     /* this part fails (-1: none) */
} fake;

static int fake_part(void *p, int calls, int held, double *ms) {
    fake *f = p;
    const int i = f->parts++;
    if (i < 64) {
        f->calls[i] = calls;
        f->held[i] = held;
    }
    if (i == f->fail_at) return -1;
    *ms = 0.5 * calls; /* half a millisecond a call */
    return held && i >= f->run_out_from && i < f->run_out_until;
}

static fake quiet(void) {
    fake f;
    memset(&f, 0, sizeof f);
    f.fail_at = -1;
    return f;
}

static const int impl_a = 0, impl_b = 0; /* distinct addresses as keys */

/* Parts of at most KB_HOLD_CALLS, every call timed once, times summed. */
static void test_parts_cover_every_call(void) {
    const int reps[] = {1, 63, 64, 65, 128, 129, 1000};
    for (size_t r = 0; r < sizeof reps / sizeof reps[0]; ++r) {
        kb_hold_table t = {.usable = 1};
        fake f = quiet();
        double ms = -1.0;
        ASSERT_INT_EQ(kb_hold_time(&t, &impl_a, reps[r], fake_part, &f, &ms), 0);
        ASSERT(f.parts <= 64); /* what the fake records */
        int total = 0;
        for (int i = 0; i < f.parts; ++i) {
            ASSERT(f.calls[i] >= 1 && f.calls[i] <= KB_HOLD_CALLS);
            ASSERT_INT_EQ(f.held[i], 1);
            total += f.calls[i];
        }
        ASSERT_INT_EQ(total, reps[r]);
        ASSERT_INT_EQ(f.parts, (reps[r] + KB_HOLD_CALLS - 1) / KB_HOLD_CALLS);
        ASSERT_NEAR(ms, 0.5 * reps[r], 1e-12);
    }
}

/* A run-out part makes the sample disturbed; KB_HOLD_GIVE_UP in a row
 * halve the key's parts, down to one call, and KB_HOLD_GIVE_UP more there
 * make it unheld, in one piece, from the next part on; another key timed
 * after it keeps whole parts and its hold. */
static void test_gives_up_after_runs_out_in_a_row(void) {
    kb_hold_table t = {.usable = 1};
    fake f = quiet();
    f.run_out_until = 64;
    double ms = 0.0;
    int sizes = 0, held_calls = 0;
    for (int c = KB_HOLD_CALLS; c >= 1; c /= 2) ++sizes, held_calls += KB_HOLD_GIVE_UP * c;
    const int reps = held_calls + 100;
    ASSERT_INT_EQ(kb_hold_time(&t, &impl_a, reps, fake_part, &f, &ms), 1);
    ASSERT_INT_EQ(f.parts, sizes * KB_HOLD_GIVE_UP + 1);
    for (int i = 0; i < sizes * KB_HOLD_GIVE_UP; ++i) {
        ASSERT_INT_EQ(f.held[i], 1);
        ASSERT_INT_EQ(f.calls[i], KB_HOLD_CALLS >> (i / KB_HOLD_GIVE_UP));
    }
    ASSERT_INT_EQ(f.held[sizes * KB_HOLD_GIVE_UP], 0);
    ASSERT_INT_EQ(f.calls[sizes * KB_HOLD_GIVE_UP], 100);
    ASSERT_NEAR(ms, 0.5 * reps, 1e-12);
    ASSERT_INT_EQ(kb_hold_holds(&t, &impl_a), 0);
    ASSERT_INT_EQ(kb_hold_part_calls(&t, &impl_a), 0);
    /* Later samples of the same key: unheld, never disturbed. */
    fake g = quiet();
    ASSERT_INT_EQ(kb_hold_time(&t, &impl_a, 10, fake_part, &g, &ms), 0);
    ASSERT_INT_EQ(g.parts, 1);
    ASSERT_INT_EQ(g.held[0], 0);
    /* Another key, in the next slot: whole parts, held. */
    fake b = quiet();
    ASSERT_INT_EQ(kb_hold_time(&t, &impl_b, 2 * KB_HOLD_CALLS, fake_part, &b, &ms), 0);
    ASSERT_INT_EQ(b.parts, 2);
    ASSERT_INT_EQ(b.held[0], 1);
    ASSERT_INT_EQ(b.calls[0], KB_HOLD_CALLS);
    ASSERT_INT_EQ(kb_hold_part_calls(&t, &impl_b), KB_HOLD_CALLS);
    ASSERT(t.key[1] == &impl_b);
}

/* Samples of fewer calls than a part: the parts are cut from what they
 * queued. Samples of 3 calls whose holds always run out: 3 run-outs at 3
 * calls, then parts of 1, 3 more, then unheld (not 21 run-outs from 64). */
static void test_few_calls_halve_from_what_they_queued(void) {
    kb_hold_table t = {.usable = 1};
    int held_parts = 0;
    for (int s = 0; s < 10; ++s) {
        fake f = quiet();
        f.run_out_until = 64;
        double ms = 0.0;
        kb_hold_time(&t, &impl_a, 3, fake_part, &f, &ms);
        for (int i = 0; i < f.parts; ++i) held_parts += f.held[i];
        ASSERT_NEAR(ms, 1.5, 1e-12);
    }
    ASSERT_INT_EQ(held_parts, 2 * KB_HOLD_GIVE_UP);
    ASSERT_INT_EQ(kb_hold_holds(&t, &impl_a), 0);
}

/* A fake whose hold runs out when more than `queue` calls wait behind it
 * (each call launches many kernels and the launch queue is full). */
typedef struct {
    fake f;
    int queue;
} queued;

static int queued_part(void *p, int calls, int held, double *ms) {
    queued *q = p;
    const int rc = fake_part(&q->f, calls, held, ms);
    return rc < 0 ? rc : held && calls > q->queue;
}

/* Parts shrink until they fit the queue and the key stays held: 64 and 32
 * calls run out (KB_HOLD_GIVE_UP times each), 16 fit; later samples start
 * at 16 and are never disturbed. */
static void test_parts_shrink_to_the_queue(void) {
    kb_hold_table t = {.usable = 1};
    queued q = {quiet(), 20};
    double ms = 0.0;
    const int reps = 2 * KB_HOLD_GIVE_UP * 64 + 100;
    ASSERT_INT_EQ(kb_hold_time(&t, &impl_a, reps, queued_part, &q, &ms), 1);
    for (int i = 0; i < q.f.parts; ++i) {
        ASSERT_INT_EQ(q.f.held[i], 1);
        const int want = i < KB_HOLD_GIVE_UP ? 64 : i < 2 * KB_HOLD_GIVE_UP ? 32 : 16;
        if (i + 1 < q.f.parts) ASSERT_INT_EQ(q.f.calls[i], want);
    }
    ASSERT_NEAR(ms, 0.5 * reps, 1e-12);
    ASSERT_INT_EQ(kb_hold_part_calls(&t, &impl_a), 16);
    queued r = {quiet(), 20};
    ASSERT_INT_EQ(kb_hold_time(&t, &impl_a, 100, queued_part, &r, &ms), 0);
    ASSERT_INT_EQ(r.f.parts, 7);
    ASSERT_INT_EQ(r.f.calls[6], 4);
    ASSERT_INT_EQ(kb_hold_part_calls(&t, &impl_b), KB_HOLD_CALLS);
}

/* Runs out that are not in a row (a slow host once in a while) keep the
 * hold: a part that was released resets the count. */
static void test_isolated_runs_out_keep_the_hold(void) {
    kb_hold_table t = {.usable = 1};
    for (int s = 0; s < 10; ++s) {
        fake f = quiet();
        f.run_out_from = 0;
        f.run_out_until = KB_HOLD_GIVE_UP - 1;
        double ms = 0.0;
        ASSERT_INT_EQ(kb_hold_time(&t, &impl_a, 4 * KB_HOLD_CALLS, fake_part, &f, &ms), 1);
        ASSERT_INT_EQ(f.held[3], 1);
    }
    ASSERT_INT_EQ(kb_hold_holds(&t, &impl_a), 1);
    ASSERT_INT_EQ(kb_hold_part_calls(&t, &impl_a), KB_HOLD_CALLS); /* never halved */
}

/* No hold (its flags could not be allocated): one unheld part a sample. */
static void test_unusable_hold_times_unheld(void) {
    kb_hold_table t = {.usable = 0};
    fake f = quiet();
    double ms = 0.0;
    ASSERT_INT_EQ(kb_hold_time(&t, &impl_a, 500, fake_part, &f, &ms), 0);
    ASSERT_INT_EQ(f.parts, 1);
    ASSERT_INT_EQ(f.calls[0], 500);
    ASSERT_INT_EQ(f.held[0], 0);
    ASSERT_INT_EQ(kb_hold_holds(&t, &impl_a), 0);
}

/* A failing part fails the sample at once. */
static void test_failure_stops(void) {
    kb_hold_table t = {.usable = 1};
    fake f = quiet();
    f.fail_at = 1;
    double ms = 0.0;
    ASSERT_INT_EQ(kb_hold_time(&t, &impl_a, 5 * KB_HOLD_CALLS, fake_part, &f, &ms), -1);
    ASSERT_INT_EQ(f.parts, 2);
}

/* No calls to time is an error, not a zero time; the key takes no slot. */
static void test_no_calls_refused(void) {
    kb_hold_table t = {.usable = 1};
    fake f = quiet();
    double ms = -1.0;
    ASSERT_INT_EQ(kb_hold_time(&t, &impl_a, 0, fake_part, &f, &ms), -1);
    ASSERT_INT_EQ(kb_hold_time(&t, &impl_a, -5, fake_part, &f, &ms), -1);
    ASSERT_INT_EQ(f.parts, 0);
    ASSERT_NEAR(ms, 0.0, 0.0);
    ASSERT(t.key[0] == NULL);
}

/* More implementations than the table tracks: the extra ones are timed
 * unheld (never an out-of-bounds slot). */
static void test_table_full(void) {
    kb_hold_table t = {.usable = 1};
    static const char keys[KB_HOLD_KEYS + 3] = {0};
    for (int k = 0; k < KB_HOLD_KEYS + 3; ++k) {
        fake f = quiet();
        double ms = 0.0;
        ASSERT_INT_EQ(kb_hold_time(&t, &keys[k], 3, fake_part, &f, &ms), 0);
        ASSERT_INT_EQ(f.held[0], k < KB_HOLD_KEYS);
        ASSERT_INT_EQ(kb_hold_holds(&t, &keys[k]), k < KB_HOLD_KEYS);
    }
}

int main(void) {
    RUN_TEST(test_parts_cover_every_call);
    RUN_TEST(test_gives_up_after_runs_out_in_a_row);
    RUN_TEST(test_parts_shrink_to_the_queue);
    RUN_TEST(test_few_calls_halve_from_what_they_queued);
    RUN_TEST(test_isolated_runs_out_keep_the_hold);
    RUN_TEST(test_unusable_hold_times_unheld);
    RUN_TEST(test_failure_stops);
    RUN_TEST(test_no_calls_refused);
    RUN_TEST(test_table_full);
    return kb_test_summary();
}
