/* kb_utf8_copy: what a result's "error" may quote is made valid UTF-8. */
#include "base/utf8.h"
#include "kb_test.h"

#include <string.h>

static void expect_copy(const char *in, const char *want) {
    char out[64];
    kb_utf8_copy(in, out, sizeof out);
    if (strcmp(out, want) != 0) KB_TEST_FAIL("'%s' became '%s', expected '%s'", in, out, want);
}

static void test_valid_text_is_kept(void) {
    expect_copy("plain ascii", "plain ascii");
    expect_copy("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

static void test_invalid_bytes_become_question_marks(void) {
    expect_copy("a\xff\xfe"
                "b",
                "a??b"); /* never valid */
    expect_copy("a\xc3"
                "b",
                "a?b"); /* cut sequence */
    expect_copy("a\xc0\xaf"
                "b",
                "a??b"); /* overlong '/' */
    expect_copy("a\xe0\x80\xaf"
                "b",
                "a???b"); /* overlong, 3 bytes */
    expect_copy("a\xed\xa0\x80"
                "b",
                "a???b"); /* surrogate */
    expect_copy("a\xf4\x90\x80\x80"
                "b",
                "a????b");               /* above U+10FFFF */
    expect_copy("end\xe2\x82", "end??"); /* cut at the end */
}

static void test_cut_at_a_character(void) {
    char out[6];
    kb_utf8_copy("ab\xe2\x82\xac"
                 "cd",
                 out, sizeof out); /* "ab€" is 5 bytes: fits */
    ASSERT(strcmp(out, "ab\xe2\x82\xac") == 0);
    char small[5];
    kb_utf8_copy("ab\xe2\x82\xac"
                 "cd",
                 small, sizeof small); /* the € does not fit */
    ASSERT(strcmp(small, "ab") == 0);
}

int main(void) {
    RUN_TEST(test_valid_text_is_kept);
    RUN_TEST(test_invalid_bytes_become_question_marks);
    RUN_TEST(test_cut_at_a_character);
    return kb_test_summary();
}
