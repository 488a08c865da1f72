/* kb_path_format, kb_check_name and kb_check_path: a path is never cut. */
#include "base/pathname.h"
#include "kb_test.h"

#include <string.h>

static void test_format_fits(void) {
    char out[16];
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_path_format(out, sizeof out, &err, "--results-dir", "%s/%s.json", "r", "t"),
                  0);
    ASSERT(strcmp(out, "r/t.json") == 0);
    ASSERT_INT_EQ(kb_path_format(out, sizeof out, &err, "x", "%s", "123456789012345"), 0);
}

/* One character too many: an error naming the option, and no path left
 * to use by mistake (a cut path names another file). */
static void test_format_too_long(void) {
    char out[16];
    kb_err err = {{0}};
    ASSERT_INT_EQ(
        kb_path_format(out, sizeof out, &err, "--results-dir", "%s/%s", "results", "kernel.json"),
        -1);
    ASSERT_STR_CONTAINS(err.msg, "--results-dir: the path 'results/kernel....'");
    ASSERT_STR_CONTAINS(err.msg, "would be 19 characters long, above the 15");
    ASSERT_INT_EQ(out[0], '\0');
}

static void test_names(void) {
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_check_name("layernorm.cpu.fp16.full", "--test-name", &err), 0);
    ASSERT_INT_EQ(kb_check_name("amd-epyc-7763_64c+avx2", "--profile", &err), 0);
    ASSERT_INT_EQ(kb_check_name("x..y", "--profile", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "--profile: 'x..y' contains '..'");
    ASSERT_INT_EQ(kb_check_name("a/b", "KBENCH_PROFILE", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "KBENCH_PROFILE: 'a/b' contains a '/'");
    ASSERT_INT_EQ(kb_check_name("", "--test-name", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "is empty");
    ASSERT_INT_EQ(kb_check_name("caf\xc3\xa9", "--profile", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "non-ASCII");
}

static void test_paths(void) {
    kb_err err = {{0}};
    static char p[KB_PATH_MAX + 1];
    memset(p, 'a', KB_PATH_MAX - 1);
    ASSERT_INT_EQ(kb_check_path(p, "--baseline", &err), 0); /* 4095: the longest */
    p[KB_PATH_MAX - 1] = 'a';
    ASSERT_INT_EQ(kb_check_path(p, "--baseline", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "is 4096 characters long");
    ASSERT_INT_EQ(kb_check_path("", "--baseline", &err), -1);
}

int main(void) {
    RUN_TEST(test_format_fits);
    RUN_TEST(test_format_too_long);
    RUN_TEST(test_names);
    RUN_TEST(test_paths);
    return kb_test_summary();
}
