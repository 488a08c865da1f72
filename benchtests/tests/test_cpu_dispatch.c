/* kb_cpu_dispatch (kb/cpu.h): each precision reaches its path with the
 * implementation's parameters, fp16 and bf16 share the half path, and a
 * precision without a path is declined with a reason naming it. */
#include "kb/cpu.h"
#include "kb_test.h"

#include <string.h>

/* Which path ran last, and with what parameters. */
static char ran[8];
static const void *ran_params;

#define RECORDER(NAME)                                                                             \
    static int path_##NAME(const kb_args *a, const void *params) {                                 \
        (void)a;                                                                                   \
        snprintf(ran, sizeof ran, "%s", #NAME);                                                    \
        ran_params = params;                                                                       \
        return 0;                                                                                  \
    }

RECORDER(f64)
RECORDER(f32)
RECORDER(half)

static const kb_cpu_paths all = {path_f64, path_f32, path_half};

static int dispatch(kb_prec prec, const kb_cpu_paths *paths, const void *params) {
    kb_args a;
    memset(&a, 0, sizeof a);
    a.prec = prec;
    ran[0] = '\0';
    ran_params = NULL;
    return kb_cpu_dispatch(&a, paths, params);
}

static void test_each_precision_its_path(void) {
    static const struct {
        kb_prec prec;
        const char *path;
    } want[] = {{KB_FP64, "f64"}, {KB_FP32, "f32"}, {KB_FP16, "half"}, {KB_BF16, "half"}};
    int params = 42;
    for (size_t i = 0; i < sizeof want / sizeof *want; ++i) {
        ASSERT_INT_EQ(dispatch(want[i].prec, &all, &params), 0);
        ASSERT(strcmp(ran, want[i].path) == 0);
        ASSERT(ran_params == &params);
    }
}

static void test_missing_path_declined(void) {
    const kb_cpu_paths no_half = {path_f64, path_f32, NULL};
    ASSERT_INT_EQ(dispatch(KB_BF16, &no_half, NULL), KB_UNSUPPORTED);
    ASSERT_INT_EQ(ran[0], '\0');
    ASSERT_STR_CONTAINS(kb_unsupported_reason(), "no cpu implementation for precision bf16");
}

static void test_unknown_precision_declined(void) {
    ASSERT_INT_EQ(dispatch((kb_prec)99, &all, NULL), KB_UNSUPPORTED);
    ASSERT_INT_EQ(ran[0], '\0');
    ASSERT_STR_CONTAINS(kb_unsupported_reason(),
                        "no cpu implementation for precision 99 (not a precision)");
    ASSERT_INT_EQ(dispatch(KB_PREC_COUNT, &all, NULL), KB_UNSUPPORTED);
}

int main(void) {
    RUN_TEST(test_each_precision_its_path);
    RUN_TEST(test_missing_path_declined);
    RUN_TEST(test_unknown_precision_declined);
    return kb_test_summary();
}
