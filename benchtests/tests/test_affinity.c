/* kb_affinity: the rotation order on a made-up CPU list, and pinning the
 * calling thread to each allowed CPU and back on this machine. */
#include "affinity.h"
#include "kb_test.h"

static void test_next_wraps_in_list_order(void) {
    kb_affinity a = {.n = 3, .cpu = {2, 5, 7}};
    ASSERT_INT_EQ(kb_affinity_next(&a, 5, 1), 7);
    ASSERT_INT_EQ(kb_affinity_next(&a, 5, 2), 2);
    ASSERT_INT_EQ(kb_affinity_next(&a, 5, 3), 5);
    ASSERT_INT_EQ(kb_affinity_next(&a, 7, 1), 2);
    /* A CPU outside the list (or -1, unknown) counts as the first one. */
    ASSERT_INT_EQ(kb_affinity_next(&a, -1, 1), 5);
    ASSERT_INT_EQ(kb_affinity_next(&a, 3, 4), 5);
}

static void test_next_needs_two_cpus(void) {
    kb_affinity one = {.n = 1, .cpu = {4}};
    kb_affinity none = {.n = 0};
    ASSERT_INT_EQ(kb_affinity_next(&one, 4, 1), -1);
    ASSERT_INT_EQ(kb_affinity_next(&none, 0, 1), -1);
}

#ifdef __linux__
static void test_pin_to_each_cpu_and_restore(void) {
    kb_affinity a;
    ASSERT(kb_affinity_init(&a) >= 1);
    for (int i = 0; i < a.n && i < 64; ++i) {
        ASSERT_INT_EQ(kb_affinity_pin(a.cpu[i]), 0);
        ASSERT_INT_EQ(kb_affinity_current(), a.cpu[i]);
    }
    ASSERT_INT_EQ(kb_affinity_restore(&a), 0);
    kb_affinity after;
    ASSERT_INT_EQ(kb_affinity_init(&after), a.n);
    for (int i = 0; i < a.n; ++i) ASSERT_INT_EQ(after.cpu[i], a.cpu[i]);
}

static void test_pin_rejects_a_cpu_out_of_range(void) {
    ASSERT_INT_EQ(kb_affinity_pin(-1), -1);
    ASSERT_INT_EQ(kb_affinity_pin(1 << 20), -1);
}
#endif

int main(void) {
    RUN_TEST(test_next_wraps_in_list_order);
    RUN_TEST(test_next_needs_two_cpus);
#ifdef __linux__
    RUN_TEST(test_pin_to_each_cpu_and_restore);
    RUN_TEST(test_pin_rejects_a_cpu_out_of_range);
#endif
    return kb_test_summary();
}
