/* A minimal test framework for the harness self-tests, in the spirit of
 * libuv's: plain C, one line per failed assertion naming the expression, the
 * values and the place, a summary line, and a non-zero exit on failure. */
#ifndef KB_TEST_H
#define KB_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

extern int kb_test_failures;
extern const char *kb_test_current;

#define KB_TEST_FAIL(fmt, ...)                                                                     \
    do {                                                                                           \
        fprintf(stderr, "%s:%d: [%s] " fmt "\n", __FILE__, __LINE__, kb_test_current,              \
                __VA_ARGS__);                                                                      \
        kb_test_failures++;                                                                        \
    } while (0)

#define ASSERT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) KB_TEST_FAIL("assertion failed: %s", #cond);                                  \
    } while (0)

#define ASSERT_INT_EQ(a, b)                                                                        \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) KB_TEST_FAIL("%s == %s: %lld != %lld", #a, #b, a_, b_);                      \
    } while (0)

#define ASSERT_NEAR(a, b, tol)                                                                     \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (tol)))                                                             \
            KB_TEST_FAIL("%s ~= %s: %.17g vs %.17g (tolerance %g)", #a, #b, a_, b_,                \
                         (double)(tol));                                                           \
    } while (0)

#define ASSERT_STR_EQ(a, b)                                                                        \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                                     \
            KB_TEST_FAIL("%s == %s: '%s' != '%s'", #a, #b, a_ ? a_ : "(null)",                     \
                         b_ ? b_ : "(null)");                                                      \
    } while (0)

#define ASSERT_STR_CONTAINS(haystack, needle)                                                      \
    do {                                                                                           \
        const char *h_ = (haystack), *n_ = (needle);                                               \
        if (!h_ || !strstr(h_, n_))                                                                \
            KB_TEST_FAIL("'%s' does not contain '%s'", h_ ? h_ : "(null)", n_);                    \
    } while (0)

#define RUN_TEST(fn)                                                                               \
    do {                                                                                           \
        kb_test_current = #fn;                                                                     \
        int before_ = kb_test_failures;                                                            \
        fn();                                                                                      \
        printf("%s %s\n", kb_test_failures == before_ ? "ok  " : "FAIL", #fn);                     \
        kb_tests_run++;                                                                            \
        if (kb_test_failures != before_) kb_tests_failed++;                                        \
    } while (0)

extern int kb_tests_run, kb_tests_failed;

/* Prints "N passed, M failed" and returns the exit status. */
int kb_test_summary(void);

/* A fresh empty directory under the build tree for this test's files; the
 * returned buffer is reused by the next call. */
const char *kb_test_tmpdir(const char *name);

/* out = a "/" b; exits when it does not fit. */
char *kb_test_join(char *out, size_t size, const char *a, const char *b);

/* Writes text to path (for malformed-input fixtures). */
void kb_test_write(const char *path, const char *text);

#endif
