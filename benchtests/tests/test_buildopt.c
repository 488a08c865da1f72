/* kb_build_opt and kb_build_opt_differs: which flags make two builds time
 * differently, and that flags which do not (warnings, definitions, the order
 * of the same ISA switches) never do. */
#include "base/buildopt.h"
#include "kb_test.h"

#include <string.h>

static void test_opt_form(void) {
    char out[256];
    kb_build_opt("-O3 -DNDEBUG -ffp-contract=off -march=native", out, sizeof out);
    ASSERT_STR_EQ(out, "-O3 -ffp-contract=off -march=native");
    kb_build_opt("", out, sizeof out); /* no -O: the compiler's -O0 */
    ASSERT_STR_EQ(out, "-O0");
    kb_build_opt("-O2 -g -O3 -Wall", out, sizeof out); /* the last level counts */
    ASSERT_STR_EQ(out, "-O3");
    kb_build_opt("-O -mavx2 -mfma -mavx2", out, sizeof out);
    ASSERT_STR_EQ(out, "-O1 -mavx2 -mfma");
    kb_build_opt(NULL, out, sizeof out);
    ASSERT_STR_EQ(out, "-O0");
    kb_build_opt("-O3 -march=haswell", out, 4); /* cut, never overrun */
    ASSERT_INT_EQ((int)strlen(out), 3);
}

static void test_opt_differs(void) {
    char base[256];
    kb_build_opt("-O3 -DNDEBUG -ffp-contract=off -march=native", base, sizeof base);
    ASSERT_INT_EQ(kb_build_opt_differs("-O3 -ffp-contract=off -march=native -Wall -DX=1", base), 0);
    ASSERT_INT_EQ(kb_build_opt_differs("-ffp-contract=off -march=native", base), 1);
    ASSERT_INT_EQ(kb_build_opt_differs("-O3 -ffp-contract=off -march=haswell", base), 1);
    ASSERT_INT_EQ(kb_build_opt_differs("-O3 -ffp-contract=off -march=native -ffast-math", base), 1);
    /* A baseline without its flags compares with anything. */
    ASSERT_INT_EQ(kb_build_opt_differs("", ""), 0);
    ASSERT_INT_EQ(kb_build_opt_differs("-O0", ""), 0);
}

int main(void) {
    RUN_TEST(test_opt_form);
    RUN_TEST(test_opt_differs);
    return kb_test_summary();
}
