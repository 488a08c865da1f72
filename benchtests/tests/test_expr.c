#include "formats/expr.h"
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

/* A value beyond double's range is no count: 1e999 is inf as a number,
 * 1e300*1e300 as a product, inf-inf NaN. Each is an error quoting the
 * expression, never a figure for the report. */
static void test_non_finite_results_are_errors(void) {
    int rc;
    kb_err err;
    const char *exprs[] = {"1e300 * 1e300", "1e999", "1e300*1e300 - 1e300*1e300", "1 / 1e-320"};
    for (size_t i = 0; i < sizeof exprs / sizeof *exprs; ++i) {
        err.msg[0] = '\0';
        eval(exprs[i], &rc, &err);
        ASSERT_INT_EQ(rc, -1);
        ASSERT_STR_CONTAINS(err.msg, exprs[i]);
    }
}

/* Only decimal numbers: strtod would also take hex floats and "infinity". */
static void test_numbers_are_decimal(void) {
    int rc;
    kb_err err;
    ASSERT_NEAR(eval("0x10", &rc, &err), -1, 0);
    ASSERT_INT_EQ(rc, -1);
    ASSERT_NEAR(eval("2.5e3 + .5 + 1E-1", &rc, &err), 2500.6, 1e-9);
    ASSERT_INT_EQ(rc, 0);
    eval("2e", &rc, &err);
    ASSERT_INT_EQ(rc, -1);
}

/* Deep nesting is refused, not recursed into until the stack runs out. */
static void test_deep_nesting_is_bounded(void) {
    static char deep[200001];
    int rc;
    kb_err err;
    memset(deep, '(', 100000);
    memset(deep + 100000, ')', 100000);
    deep[99999] = '1';
    eval(deep, &rc, &err);
    ASSERT_INT_EQ(rc, -1);
    ASSERT_STR_CONTAINS(err.msg, "nested too deeply");
    memset(deep, '-', 200000);
    deep[199999] = '1';
    eval(deep, &rc, &err);
    ASSERT_INT_EQ(rc, -1);
    ASSERT_NEAR(eval("((((((((((rows))))))))))", &rc, &err), 4096, 0);
    ASSERT_INT_EQ(rc, 0);
}

int main(void) {
    RUN_TEST(test_arithmetic);
    RUN_TEST(test_errors_name_the_problem);
    RUN_TEST(test_non_finite_results_are_errors);
    RUN_TEST(test_numbers_are_decimal);
    RUN_TEST(test_deep_nesting_is_bounded);
    return kb_test_summary();
}
