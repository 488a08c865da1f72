/* The verdict table (verdict.h): every name reads back as its verdict, the
 * words are usable in tables and messages, and the flags agree with them. */
#include "decide/verdict.h"
#include "kb_test.h"

#include <ctype.h>
#include <string.h>

/* Every verdict's name parses back to that verdict, so no two share one. */
static void test_names_round_trip(void) {
    for (int i = 0; i < KB_LAT_N; ++i) {
        const char *name = kb_latency_verdict_name((kb_latency_verdict)i);
        kb_latency_verdict back = KB_LAT_N;
        ASSERT_INT_EQ(kb_latency_verdict_parse(name, &back), 0);
        ASSERT_INT_EQ(back, i);
    }
}

/* A name is a plain JSON word: lower case letters and underscores. */
static void test_names_are_plain_words(void) {
    for (int i = 0; i < KB_LAT_N; ++i) {
        const char *name = kb_latency_verdict_name((kb_latency_verdict)i);
        ASSERT(*name != '\0');
        for (const char *p = name; *p; ++p) ASSERT(islower((unsigned char)*p) || *p == '_');
    }
}

static void test_texts_not_empty(void) {
    for (int i = 0; i < KB_LAT_N; ++i) {
        const char *text = kb_latency_verdict_text((kb_latency_verdict)i);
        ASSERT(text && *text);
        ASSERT(strcmp(text, "?") != 0);
    }
}

/* The table says FAIL exactly for the verdicts that fail the case. */
static void test_fail_text_matches_flag(void) {
    for (int i = 0; i < KB_LAT_N; ++i) {
        kb_latency_verdict v = (kb_latency_verdict)i;
        int says_fail = strncmp(kb_latency_verdict_text(v), "FAIL", 4) == 0;
        ASSERT_INT_EQ(says_fail, kb_latency_verdict_fails(v));
    }
    ASSERT(kb_latency_verdict_fails(KB_LAT_REGRESSION));
    ASSERT(!kb_latency_verdict_fails(KB_LAT_OK));
}

/* Gated means compared with a baseline or a base and decided; only a
 * confirmed slowdown fails. */
static void test_gated_and_failing(void) {
    char gated[256] = "", fails[256] = "";
    for (int i = 0; i < KB_LAT_N; ++i) {
        kb_latency_verdict v = (kb_latency_verdict)i;
        const char *name = kb_latency_verdict_name(v);
        if (kb_latency_verdict_gated(v)) strcat(strcat(gated, " "), name);
        if (kb_latency_verdict_fails(v)) strcat(strcat(fails, " "), name);
    }
    ASSERT_STR_EQ(gated, " ok cleared regression faster");
    ASSERT_STR_EQ(fails, " regression");
}

/* The sets the gate, the runner and the CDash measurements act on: a slow
 * verdict is every round above the allowance; the probe is read whenever a
 * slowdown is suspected or being weighed; a comparison is graphed unless the
 * baseline was not one (recorded, other hardware, timed another way). */
static void test_slow_probe_compared(void) {
    char slow[256] = "", probe[256] = "", not_compared[256] = "";
    for (int i = 0; i < KB_LAT_N; ++i) {
        kb_latency_verdict v = (kb_latency_verdict)i;
        const char *name = kb_latency_verdict_name(v);
        if (kb_latency_verdict_slow(v)) strcat(strcat(slow, " "), name);
        if (kb_latency_verdict_probe(v)) strcat(strcat(probe, " "), name);
        if (!kb_latency_verdict_compared(v)) strcat(strcat(not_compared, " "), name);
    }
    ASSERT_STR_EQ(slow, " inconclusive machine_drift regression");
    ASSERT_STR_EQ(probe, " inconclusive machine_drift regression pending other_timing");
    ASSERT_STR_EQ(not_compared, " other_hardware other_timing recorded");
    /* A slow verdict is one the probe was read for. */
    for (int i = 0; i < KB_LAT_N; ++i)
        if (kb_latency_verdict_slow((kb_latency_verdict)i))
            ASSERT(kb_latency_verdict_probe((kb_latency_verdict)i));
    ASSERT(!kb_latency_verdict_slow(KB_LAT_N));
}

/* A comparison that could not decide is worded as undecided, never as ok:
 * its text starts with its name. */
static void test_undecided_not_ok(void) {
    const kb_latency_verdict undecided[] = {KB_LAT_INCONCLUSIVE, KB_LAT_PENDING};
    for (size_t i = 0; i < sizeof undecided / sizeof *undecided; ++i) {
        const char *name = kb_latency_verdict_name(undecided[i]);
        ASSERT(strncmp(kb_latency_verdict_text(undecided[i]), name, strlen(name)) == 0);
    }
}

static void test_unknown(void) {
    kb_latency_verdict v = KB_LAT_OK;
    ASSERT_INT_EQ(kb_latency_verdict_parse("passed", &v), -1);
    ASSERT_INT_EQ(kb_latency_verdict_parse("", &v), -1);
    ASSERT_INT_EQ(kb_latency_verdict_parse("OK", &v), -1);
    ASSERT_INT_EQ(v, KB_LAT_OK);
    ASSERT(strcmp(kb_latency_verdict_name(KB_LAT_N), "?") == 0);
    ASSERT(strcmp(kb_latency_verdict_text((kb_latency_verdict)-1), "?") == 0);
    ASSERT(!kb_latency_verdict_fails(KB_LAT_N));
    ASSERT(!kb_latency_verdict_gated(KB_LAT_N));
}

/* The list for messages holds every name once, in table order, with ", "
 * between them and nothing before or after. */
static void test_names_list(void) {
    const char *list = kb_latency_verdict_names();
    const char *p = list;
    for (int i = 0; i < KB_LAT_N; ++i) {
        const char *name = kb_latency_verdict_name((kb_latency_verdict)i);
        size_t len = strlen(name);
        const char *sep = i + 1 < KB_LAT_N ? ", " : "";
        if (strncmp(p, name, len) != 0 || strncmp(p + len, sep, strlen(sep)) != 0) {
            KB_TEST_FAIL("'%s' lacks '%s%s' at offset %d", list, name, sep, (int)(p - list));
            return;
        }
        p += len + strlen(sep);
    }
    ASSERT_INT_EQ(*p, '\0');
}

int main(void) {
    RUN_TEST(test_names_round_trip);
    RUN_TEST(test_names_are_plain_words);
    RUN_TEST(test_texts_not_empty);
    RUN_TEST(test_fail_text_matches_flag);
    RUN_TEST(test_gated_and_failing);
    RUN_TEST(test_slow_probe_compared);
    RUN_TEST(test_undecided_not_ok);
    RUN_TEST(test_unknown);
    RUN_TEST(test_names_list);
    return kb_test_summary();
}
