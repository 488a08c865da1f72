/* kb_sample driven by a fake timed function: it returns reps x call_ms
 * without running or sleeping, so every assertion is independent of the
 * machine's speed. Time limits are set to 0 or far out of reach so that the
 * real clock the loop reads never decides an outcome. */
#include "base/clock.h"
#include "kb_test.h"
#include "measure/sampler.h"
#include "partner/ab.h"

#include <string.h>

typedef struct fake {
    double call_ms[2]; /* per-call time, alternating between the two */
    int calls;         /* how many times the function ran */
    int last_reps;
    int fail_at;                  /* the call (1-based) that fails; 0: never */
    int suspect_from, suspect_to; /* calls (1-based) reported as suspect */
    int code;                     /* what they report: 0 = KB_SAMPLE_SUSPECT */
} fake;

static int fake_time(void *ctx, int reps, double *ms) {
    fake *f = ctx;
    f->calls++;
    f->last_reps = reps;
    if (f->calls == f->fail_at) return 7;
    *ms = reps * f->call_ms[f->calls % 2];
    if (f->calls < f->suspect_from || f->calls > f->suspect_to) return 0;
    return f->code ? f->code : KB_SAMPLE_SUSPECT;
}

/* Limits where only the sample counts matter: no warm-up time (so exactly
 * two warm-up calls), no minimum time, a maximum time never reached. */
static kb_sampling config(void) {
    kb_sampling c = kb_sampling_defaults();
    c.min_samples = 10;
    c.max_samples = 100;
    c.min_time_s = 0.0;
    c.max_time_s = 3600.0;
    c.warmup_s = 0.0;
    c.sample_min_s = 0.0005;
    c.target_rel_ci = 0.005;
    return c;
}

/* kb_sample_marked's mark, once, between the warm-up and the first sample. */
static int marks, marked_after;

static void mark(void *ctx) {
    marks++;
    marked_after = ((fake *)ctx)->calls;
}

static void test_marks_the_first_sample(void) {
    kb_sampling c = config();
    fake f = {{0.5, 0.5}, 0, 0, 0, 0, 0, 0};
    kb_samples s = {0};
    marks = marked_after = 0;
    ASSERT_INT_EQ(kb_sample_marked(&c, fake_time, mark, &f, &s), 0);
    ASSERT_INT_EQ(marks, 1);
    ASSERT_INT_EQ(marked_after, 2); /* the two warm-up calls */
    ASSERT_INT_EQ(f.calls, 2 + s.n);
    kb_samples_free(&s);
    /* a warm-up that fails marks nothing */
    fake g = {{0.5, 0.5}, 0, 0, 1, 0, 0, 0};
    marks = 0;
    ASSERT(kb_sample_marked(&c, fake_time, mark, &g, &s) != 0);
    ASSERT_INT_EQ(marks, 0);
    kb_samples_free(&s);
}

static void test_stops_at_ci_target(void) {
    kb_sampling c = config();
    fake f = {{0.5, 0.5}, 0, 0, 0, 0, 0, 0};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    /* Identical samples: the CI has width 0 as soon as min_samples is met. */
    ASSERT_INT_EQ(s.n, 10);
    ASSERT(s.stop_rule && strcmp(s.stop_rule, "ci_target") == 0);
    ASSERT_INT_EQ(s.reps, 1); /* 0.5 ms per call already lasts sample_min_s */
    ASSERT_INT_EQ(f.calls, 2 + 10);
    for (int i = 0; i < s.n; ++i) ASSERT_NEAR(s.ms[i], 0.5, 0);
    ASSERT(s.elapsed_s >= 0.0);
    kb_samples_free(&s);
    ASSERT(s.ms == NULL && s.n == 0);
}

static void test_stops_at_max_samples(void) {
    kb_sampling c = config();
    c.max_samples = 25;
    /* Alternating 0.5 / 1.5 ms (0.5 first: two warm-up calls): the
     * median's CI never gets narrow. */
    fake f = {{1.5, 0.5}, 0, 0, 0, 0, 0, 0};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.n, 25);
    ASSERT(s.stop_rule && strcmp(s.stop_rule, "max_samples") == 0);
    ASSERT_INT_EQ(f.calls, 2 + 25);
    kb_samples_free(&s);
}

static void test_many_samples_grow_buffer(void) {
    kb_sampling c = config();
    c.max_samples = 1000; /* more than the first allocation */
    fake f = {{1.5, 0.5}, 0, 0, 0, 0, 0, 0};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.n, 1000);
    ASSERT(s.cap >= 1000);
    /* Sample i comes from call i + 3 (two warm-up calls first). */
    ASSERT_NEAR(s.ms[999], f.call_ms[(999 + 3) % 2], 0);
    kb_samples_free(&s);
}

static void test_min_time_keeps_sampling(void) {
    /* The CI target is met at 10 samples, but the minimum time is out of
     * reach, so only max_samples ends the loop. */
    kb_sampling c = config();
    c.min_time_s = 3600.0;
    c.max_samples = 30;
    fake f = {{0.5, 0.5}, 0, 0, 0, 0, 0, 0};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.n, 30);
    ASSERT(s.stop_rule && strcmp(s.stop_rule, "max_samples") == 0);
    kb_samples_free(&s);
}

static void test_max_time_zero_stops_at_five_samples(void) {
    kb_sampling c = config();
    c.min_time_s = 0.0;
    c.max_time_s = 0.0; /* any elapsed time is >= 0 */
    fake f = {{0.5, 0.5}, 0, 0, 0, 0, 0, 0};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    /* A round ends with at least min(5, min_samples) samples. */
    ASSERT_INT_EQ(s.n, 5);
    ASSERT(s.stop_rule && strcmp(s.stop_rule, "max_time") == 0);
    kb_samples_free(&s);
    c.min_samples = 2;
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.n, 2);
    kb_samples_free(&s);
}

static void test_reps_batching(void) {
    kb_sampling c = config();
    /* 0.001 ms a call, samples of at least 0.0005 s = 0.5 ms: 500 calls. */
    fake f = {{0.001, 0.001}, 0, 0, 0, 0, 0, 0};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.reps, 500);
    ASSERT_INT_EQ(f.last_reps, 500);
    /* Samples are per call: 500 x 0.001 ms / 500. */
    for (int i = 0; i < s.n; ++i) ASSERT_NEAR(s.ms[i], 0.001, 1e-15);
    kb_samples_free(&s);

    /* 0.3 ms a call: ceil(0.5 / 0.3) = 2. */
    fake g = {{0.3, 0.3}, 0, 0, 0, 0, 0, 0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &g, &s), 0);
    ASSERT_INT_EQ(s.reps, 2);
    kb_samples_free(&s);

    /* A call reported as taking no time: clamped to 1e-6 ms, 500000 reps. */
    fake z = {{0.0, 0.0}, 0, 0, 0, 0, 0, 0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &z, &s), 0);
    ASSERT_INT_EQ(s.reps, 500000);
    kb_samples_free(&s);

    /* No batching asked for: one call per sample. */
    c.sample_min_s = 0.0;
    fake h = {{0.001, 0.001}, 0, 0, 0, 0, 0, 0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &h, &s), 0);
    ASSERT_INT_EQ(s.reps, 1);
    kb_samples_free(&s);
}

static void test_error_propagates(void) {
    kb_sampling c = config();
    kb_samples s = {0};
    fake warm = {{0.5, 0.5}, 0, 0, 1, 0, 0, 0}; /* fails in the warm-up */
    ASSERT(kb_sample(&c, fake_time, &warm, &s) != 0);
    ASSERT_INT_EQ(warm.calls, 1);
    kb_samples_free(&s);

    fake mid = {{0.5, 0.5}, 0, 0, 6, 0, 0, 0}; /* fails at the fourth sample */
    ASSERT(kb_sample(&c, fake_time, &mid, &s) != 0);
    ASSERT_INT_EQ(mid.calls, 6); /* stopped right there */
    kb_samples_free(&s);
    ASSERT(s.ms == NULL);
}

static void test_suspect_samples_dropped(void) {
    kb_sampling c = config();
    /* Calls 3-7 (the first five samples) were taken with the clocks held
     * down: they are left out and the loop goes on to its ten samples. */
    fake f = {{0.5, 0.5}, 0, 0, 0, 3, 7, 0};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.dropped, 5);
    ASSERT_INT_EQ(s.suspect_kept, 0);
    ASSERT_INT_EQ(s.n, 10);
    ASSERT_INT_EQ(f.calls, 2 + 5 + 10);
    ASSERT_NEAR(s.median, 0.5, 0);
    kb_samples_free(&s);
}

static void test_suspect_kept_when_limited_for_good(void) {
    /* Every sample suspect: max_samples of them are dropped, then they are
     * kept and counted, so a device limited for good is still measured. */
    kb_sampling c = config();
    c.max_samples = 20;
    fake f = {{0.5, 0.5}, 0, 0, 0, 1, 1000000, 0};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.dropped, 20);
    ASSERT_INT_EQ(s.suspect_kept, 10);
    ASSERT_INT_EQ(s.n, 10);
    ASSERT_INT_EQ(f.calls, 2 + 20 + 10);
    kb_samples_free(&s);
}

static void test_disturbed_samples_dropped(void) {
    kb_sampling c = config();
    /* The first five samples lost their CPU to a neighbour: left out,
     * counted apart from clock-limited ones, and the loop goes on. */
    fake f = {{0.5, 0.5}, 0, 0, 0, 3, 7, KB_SAMPLE_DISTURBED};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.disturbed, 5);
    ASSERT_INT_EQ(s.disturbed_kept, 0);
    ASSERT_INT_EQ(s.dropped, 0);
    ASSERT_INT_EQ(s.n, 10);
    ASSERT_NEAR(s.median, 0.5, 0);
    kb_samples_free(&s);
}

static void test_disturbed_kept_when_never_clean(void) {
    /* Every sample disturbed, time to spare: max_samples are dropped, then
     * the rest are kept and counted up to the round's usual end (its ten
     * samples); the loop does not wait forever. */
    kb_sampling c = config();
    c.max_samples = 20;
    c.max_time_s = 3600.0;
    fake f = {{0.5, 0.5}, 0, 0, 0, 1, 1000000, KB_SAMPLE_DISTURBED};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.disturbed, 20);
    ASSERT_INT_EQ(s.disturbed_kept, 10);
    ASSERT_INT_EQ(s.n, 10);
    kb_samples_free(&s);
}

/* A call longer than a sample is warmed up once, not twice: one call per
 * sample either way. */
static void test_long_call_warms_up_once(void) {
    kb_sampling c = config();
    fake f = {{5.0, 5.0}, 0, 0, 0, 0, 0, 0};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.reps, 1);
    ASSERT_INT_EQ(f.calls, 1 + s.n);
    kb_samples_free(&s);
}

static void test_disturbed_kept_past_max_time(void) {
    /* Every sample disturbed and the round's time already spent: nothing
     * more is dropped, five are kept and counted (steady load does not
     * stretch a round past its time by max_samples samples). */
    kb_sampling c = config();
    c.max_samples = 20;
    c.max_time_s = 0.0;
    fake f = {{0.5, 0.5}, 0, 0, 0, 1, 1000000, KB_SAMPLE_DISTURBED};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.disturbed, 0);
    ASSERT_INT_EQ(s.disturbed_kept, 5);
    ASSERT_INT_EQ(s.n, 5);
    kb_samples_free(&s);
}

/* A/B rounds (ab.c): identical short samples must not end a round before
 * its nine samples (a lone sample's median interval has no width; the round
 * once stopped there, one sample a side). */
static void test_ab_round_takes_its_samples(void) {
    kb_sampling defaults = kb_sampling_defaults();
    kb_sampling c = kb_ab_round_config(&defaults, 0);
    fake f = {{0.5, 0.5}, 0, 0, 0, 0, 0, 0};
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, fake_time, &f, &s), 0);
    ASSERT_INT_EQ(s.n, 9);
    ASSERT(s.stop_rule && strcmp(s.stop_rule, "max_samples") == 0);
    kb_samples_free(&s);
}

/* A call that outlasts the A/B round's time: one warm-up call and one
 * sample, so the two sides of a pair run close together. */
static int slow_call(void *ctx, int reps, double *ms) {
    int *calls = ctx;
    ++*calls;
    kb_sleep_s(0.12 * reps);
    *ms = 120.0 * reps;
    return 0;
}

static void test_ab_round_long_call_one_sample(void) {
    kb_sampling defaults = kb_sampling_defaults();
    kb_sampling c = kb_ab_round_config(&defaults, 0);
    int calls = 0;
    kb_samples s = {0};
    ASSERT_INT_EQ(kb_sample(&c, slow_call, &calls, &s), 0);
    ASSERT_INT_EQ(s.n, 1);
    ASSERT_INT_EQ(calls, 2);
    ASSERT(s.stop_rule && strcmp(s.stop_rule, "max_time") == 0);
    kb_samples_free(&s);
}

int main(void) {
    RUN_TEST(test_stops_at_ci_target);
    RUN_TEST(test_marks_the_first_sample);
    RUN_TEST(test_stops_at_max_samples);
    RUN_TEST(test_many_samples_grow_buffer);
    RUN_TEST(test_min_time_keeps_sampling);
    RUN_TEST(test_max_time_zero_stops_at_five_samples);
    RUN_TEST(test_reps_batching);
    RUN_TEST(test_error_propagates);
    RUN_TEST(test_suspect_samples_dropped);
    RUN_TEST(test_suspect_kept_when_limited_for_good);
    RUN_TEST(test_disturbed_samples_dropped);
    RUN_TEST(test_disturbed_kept_when_never_clean);
    RUN_TEST(test_disturbed_kept_past_max_time);
    RUN_TEST(test_long_call_warms_up_once);
    RUN_TEST(test_ab_round_takes_its_samples);
    RUN_TEST(test_ab_round_long_call_one_sample);
    return kb_test_summary();
}
