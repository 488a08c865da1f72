/* kb_affinity: the rotation order and the CPU sets of multithreaded cases
 * on made-up CPU lists, and pinning the calling thread (or every thread)
 * to allowed CPUs and back on this machine. */
#define _GNU_SOURCE
#include "base/affinity.h"
#include "kb_test.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

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

/* A case of t threads runs on t CPUs from the one a round starts at,
 * wrapping round the list; more threads than CPUs is no set at all. */
static void test_window(void) {
    kb_affinity a = {.n = 4, .cpu = {2, 5, 7, 9}};
    int set[8] = {0};
    ASSERT_INT_EQ(kb_affinity_window(&a, 2, 2, set), 2);
    ASSERT_INT_EQ(set[0], 2);
    ASSERT_INT_EQ(set[1], 5);
    ASSERT_INT_EQ(kb_affinity_window(&a, 7, 3, set), 3);
    ASSERT_INT_EQ(set[0], 7);
    ASSERT_INT_EQ(set[1], 9);
    ASSERT_INT_EQ(set[2], 2);
    /* every CPU: the same set from wherever it starts */
    ASSERT_INT_EQ(kb_affinity_window(&a, 9, 4, set), 4);
    ASSERT_INT_EQ(set[0] + set[1] + set[2] + set[3], 2 + 5 + 7 + 9);
    /* a CPU outside the list (or -1) counts as the first one */
    ASSERT_INT_EQ(kb_affinity_window(&a, -1, 1, set), 1);
    ASSERT_INT_EQ(set[0], 2);
    ASSERT_INT_EQ(kb_affinity_window(&a, 2, 5, set), 0);
    ASSERT_INT_EQ(kb_affinity_window(&a, 2, 0, set), 0);
    kb_affinity none = {.n = 0};
    ASSERT_INT_EQ(kb_affinity_window(&none, 0, 1, set), 0);
}

static void test_format(void) {
    char out[64];
    kb_affinity_format((const int[]){0, 1, 2, 3}, 4, out, sizeof out);
    ASSERT(strcmp(out, "0-3") == 0);
    kb_affinity_format((const int[]){9, 2, 3, 5, 4, 0}, 6, out, sizeof out);
    ASSERT(strcmp(out, "0,2-5,9") == 0);
    kb_affinity_format((const int[]){7}, 1, out, sizeof out);
    ASSERT(strcmp(out, "7") == 0);
    kb_affinity_format(NULL, 0, out, sizeof out);
    ASSERT(strcmp(out, "") == 0);
}

#ifdef __linux__
/* A thread's mask (tid 0: the calling thread), as a list. */
static int mask_of(pid_t tid, int *cpus) {
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(tid, sizeof set, &set) != 0) return -1;
    for (int c = 0; c < CPU_SETSIZE && c < KB_MAX_CPUS; ++c)
        if (CPU_ISSET(c, &set)) cpus[n++] = c;
    return n;
}

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int tid, quit;
} other = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

/* A thread that sleeps until told to end, as an idle OpenMP worker does. */
static void *idle_thread(void *unused) {
    (void)unused;
    pthread_mutex_lock(&other.lock);
    other.tid = (int)gettid();
    pthread_cond_broadcast(&other.cond);
    while (!other.quit) pthread_cond_wait(&other.cond, &other.lock);
    pthread_mutex_unlock(&other.lock);
    return NULL;
}

/* kb_affinity_pin_all reaches a thread started before it (a kernel's
 * thread pool), and kb_affinity_restore_all gives it the start's CPUs
 * back. The set is fewer CPUs than allowed, so that pinning shows: the
 * first of two, the first two of three or more; with one CPU allowed
 * there is no such set and only the calls are checked. */
static void test_pin_all_reaches_other_threads(void) {
    const kb_affinity *start = kb_affinity_start();
    ASSERT(start->n >= 1);
    pthread_t t;
    ASSERT_INT_EQ(pthread_create(&t, NULL, idle_thread, NULL), 0);
    pthread_mutex_lock(&other.lock);
    while (!other.tid) pthread_cond_wait(&other.cond, &other.lock);
    pthread_mutex_unlock(&other.lock);

    int set[2], got[KB_MAX_CPUS];
    const int n = kb_affinity_window(start, start->cpu[0], start->n >= 3 ? 2 : 1, set);
    ASSERT(n >= 1);
    ASSERT_INT_EQ(kb_affinity_pin_all(set, n), 0);
    ASSERT_INT_EQ(mask_of(0, got), n);
    ASSERT_INT_EQ(mask_of(other.tid, got), n);
    for (int i = 0; i < n; ++i) ASSERT_INT_EQ(got[i], set[i]);
    if (start->n == 1) printf("note: one CPU allowed: pinning to fewer CPUs is not seen\n");

    ASSERT_INT_EQ(kb_affinity_restore_all(start), 0);
    ASSERT_INT_EQ(mask_of(0, got), start->n);
    ASSERT_INT_EQ(mask_of(other.tid, got), start->n);
    ASSERT_INT_EQ(kb_affinity_pin_all((const int[]){-1}, 1), -1);
    ASSERT_INT_EQ(kb_affinity_pin_all(set, 0), -1);

    pthread_mutex_lock(&other.lock);
    other.quit = 1;
    pthread_cond_broadcast(&other.cond);
    pthread_mutex_unlock(&other.lock);
    pthread_join(t, NULL);
}

/* The start's list is read once: pinning afterwards does not change it. */
static void test_start_is_read_once(void) {
    const kb_affinity *start = kb_affinity_start();
    const int n = start->n;
    ASSERT(n >= 1);
    ASSERT_INT_EQ(kb_affinity_pin(start->cpu[0]), 0);
    ASSERT_INT_EQ(kb_affinity_start()->n, n);
    ASSERT_INT_EQ(kb_affinity_restore(start), 0);
}

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
    RUN_TEST(test_window);
    RUN_TEST(test_format);
#ifdef __linux__
    RUN_TEST(test_start_is_read_once);
    RUN_TEST(test_pin_all_reaches_other_threads);
    RUN_TEST(test_pin_to_each_cpu_and_restore);
    RUN_TEST(test_pin_rejects_a_cpu_out_of_range);
#endif
    return kb_test_summary();
}
