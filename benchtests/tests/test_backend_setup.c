/* The backend contract every mode relies on: nothing before available().
 * A GPU backend has no device, stream or events until then; the CPU backend
 * refuses work the same way, so that a mode skipping the setup fails in the
 * project's own tests and not only on a GPU machine. */
#include "backend/backend.h"
#include "kb_test.h"

static int call(const kb_args *a) {
    (void)a;
    return 0;
}

static void test_cpu_refuses_work_before_setup(void) {
    const kb_backend *b = kb_backend_find("cpu");
    ASSERT(b != NULL);
    if (!b) return;
    kb_err err = {{0}};
    void *p = b->alloc(64, &err);
    ASSERT(p == NULL);
    ASSERT_STR_CONTAINS(err.msg, "before it was set up");
    kb_args args = {0};
    double ms = 0.0;
    ASSERT_INT_EQ(b->time_calls(call, &args, 1, &ms), -1);
    /* once set up, the same calls work */
    char why[256] = "";
    ASSERT_INT_EQ(b->available(why, sizeof why), 0);
    p = b->alloc(64, &err);
    ASSERT(p != NULL);
    if (p) b->release(p);
    ASSERT(b->time_calls(call, &args, 1, &ms) >= 0);
}

int main(void) {
    RUN_TEST(test_cpu_refuses_work_before_setup);
    return kb_test_summary();
}
