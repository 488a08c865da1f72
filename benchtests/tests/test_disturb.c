/* kb_thread_disturbed on constructed marks, and kb_thread_mark_now on this
 * thread (its CPU time moves while it computes). */
#include "kb_test.h"
#include "machine/disturb.h"

/* A switch is judged by the time it cost: 1 us lost of 1 ms is none, and
 * without a CPU clock the switch alone counts. */
static void test_involuntary_switch(void) {
    kb_thread_mark a = {1.0, 3}, b = {1.000999, 4};
    ASSERT(!kb_thread_disturbed(&a, &b, 0.001));
    kb_thread_mark c = {1.0, 3}, d = {1.0005, 4};
    ASSERT(kb_thread_disturbed(&c, &d, 0.001));
    kb_thread_mark e = {-1.0, 3}, f = {-1.0, 4};
    ASSERT(kb_thread_disturbed(&e, &f, 0.001));
}

static void test_lost_time_disturbs(void) {
    /* 1 ms of wall time, 0.9 ms on the CPU: 10 % lost, over the 3 %. */
    kb_thread_mark a = {1.0, 3}, b = {1.0009, 3};
    ASSERT(kb_thread_disturbed(&a, &b, 0.001));
}

static void test_clean_sample(void) {
    /* 1 ms of wall time, 0.99 ms on the CPU: within 3 % + 5 us. */
    kb_thread_mark a = {1.0, 3}, b = {1.00099, 3};
    ASSERT(!kb_thread_disturbed(&a, &b, 0.001));
    /* A 20 us sample may lose the fixed 5 us allowance (clock reads). */
    kb_thread_mark c = {1.0, 3}, d = {1.000016, 3};
    ASSERT(!kb_thread_disturbed(&c, &d, 20e-6));
}

static void test_unknown_is_not_disturbed(void) {
    kb_thread_mark a = {-1.0, -1}, b = {-1.0, -1};
    ASSERT(!kb_thread_disturbed(&a, &b, 1.0));
}

static void test_marks_of_this_thread(void) {
    kb_thread_mark a, b;
    kb_thread_mark_now(&a);
    volatile double x = 1.0;
    for (int i = 0; i < 2000000; ++i) x = x * 1.0000001;
    kb_thread_mark_now(&b);
    ASSERT(a.cpu_s >= 0.0 && b.cpu_s > a.cpu_s);
    ASSERT(a.nivcsw >= 0 && b.nivcsw >= a.nivcsw);
}

int main(void) {
    RUN_TEST(test_involuntary_switch);
    RUN_TEST(test_lost_time_disturbs);
    RUN_TEST(test_clean_sample);
    RUN_TEST(test_unknown_is_not_disturbed);
    RUN_TEST(test_marks_of_this_thread);
    return kb_test_summary();
}
