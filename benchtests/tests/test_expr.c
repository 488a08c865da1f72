#include "expr.h"
#include "kb_test.h"

#include <string.h>

static int lookup(void *ctx, const char *name, double *v) {
    (void)ctx;
    if (strcmp(name, "rows") == 0)
        *v = 4096;
    else if (strcmp(name, "cols") == 0)
        *v = 768;
    else if (strcmp(name, "elem") == 0)
        *v = 2;
    else
        return -1;
    return 0;
}

static double eval(const char *e, int *rc, kb_err *err) {
    double v = -1;
    *rc = kb_expr_eval(e, lookup, NULL, &v, err);
    return v;
}

static void test_arithmetic(void) {
    int rc;
    kb_err err;
    ASSERT_NEAR(eval("8*rows*cols", &rc, &err), 8.0 * 4096 * 768, 0);
    ASSERT_INT_EQ(rc, 0);
    ASSERT_NEAR(eval("(2*rows*cols + 2*cols)*elem", &rc, &err), (2.0 * 4096 * 768 + 1536) * 2, 0);
    ASSERT_NEAR(eval("10 - 4 - 3", &rc, &err), 3, 0);
    ASSERT_NEAR(eval("12 / 4 / 3", &rc, &err), 1, 0);
    ASSERT_NEAR(eval("-(2 + 3) * 1e3", &rc, &err), -5000, 0);
}

static void test_errors_name_the_problem(void) {
    int rc;
    kb_err err;
    eval("rows * hidden", &rc, &err);
    ASSERT_INT_EQ(rc, -1);
    ASSERT_STR_CONTAINS(err.msg, "unknown name 'hidden'");
    eval("rows * (cols", &rc, &err);
    ASSERT_INT_EQ(rc, -1);
    ASSERT_STR_CONTAINS(err.msg, "expected ')'");
    eval("rows $ 2", &rc, &err);
    ASSERT_STR_CONTAINS(err.msg, "unexpected character at offset 5");
    eval("rows / (cols - 768)", &rc, &err);
    ASSERT_STR_CONTAINS(err.msg, "division by zero");
    eval("", &rc, &err);
    ASSERT_STR_CONTAINS(err.msg, "unexpected end");
}

int main(void) {
    RUN_TEST(test_arithmetic);
    RUN_TEST(test_errors_name_the_problem);
    return kb_test_summary();
}
