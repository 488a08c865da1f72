/* The head's side of A/B mode that needs no base process: what a run
 * without a base driver records, and how the pairs become the case's
 * latency decision and base median. The pairs themselves are measured end
 * to end by kbench.e2e.ab. */
#include "kb_test.h"
#include "partner/ab.h"

#include <math.h>
#include <string.h>

static void test_no_partner_is_not_asked(void) {
    kb_ab_setup ab;
    memset(&ab, 0, sizeof ab);
    snprintf(ab.exe, sizeof ab.exe, "/base/bin/kbench-swish");
    ab.why_new = "the base has no such manifest";
    kb_ab_result res;
    memset(&res, 0, sizeof res);
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_ab_request(&ab, "default", "n32k", &res, &err), 0);
    ASSERT_INT_EQ(res.base_status, -1);
    ASSERT_INT_EQ(res.base_asked, 0);
    ASSERT_STR_CONTAINS(res.base_why, "/base/bin/kbench-swish: the base has no such manifest");
    /* nothing asked: nothing to read, nothing to release */
    ASSERT_INT_EQ(kb_ab_open(&ab, "default", "n32k", &res, &err), 0);
    ASSERT_INT_EQ(res.base_status, -1);
    ASSERT_INT_EQ(kb_ab_close(&ab, &res, &err), 0);
}

/* A base that could not serve (it does not speak the partner protocol,
 * serves another kernel, cannot set its backend up) fails each case with
 * why, so that every case the run would have measured reports it. */
static void test_broken_base_fails_each_case(void) {
    kb_ab_setup ab;
    memset(&ab, 0, sizeof ab);
    snprintf(ab.broken, sizeof ab.broken, "base driver /b/kbench-swish does not speak it");
    kb_ab_result res;
    memset(&res, 0, sizeof res);
    kb_err err = {{0}};
    for (int i = 0; i < 2; ++i) {
        ASSERT_INT_EQ(kb_ab_request(&ab, "default", i ? "u" : "t", &res, &err), -1);
        ASSERT_STR_CONTAINS(err.msg, "base driver /b/kbench-swish does not speak it");
        ASSERT_INT_EQ(res.base_asked, 0);
    }
}

static void test_decision_from_pairs(void) {
    kb_ab_result res;
    memset(&res, 0, sizeof res);
    const double base_ms[] = {3.0, 1.0, 2.0, 5.0, 4.0};
    for (int k = 0; k < 5; ++k) {
        res.pairs[k].base_ms = base_ms[k];
        res.pairs[k].ratio = 1.0 + 0.1 * k;
    }
    res.n_pairs = 5;
    res.decision = (kb_ab_decision){KB_LAT_REGRESSION, 5, 1.2, 1.15, 1.3, 0.0};
    ASSERT_NEAR(kb_ab_base_median(&res), 3.0, 0.0);
    kb_latency_decision d = kb_ab_latency(&res);
    ASSERT_INT_EQ(d.verdict, KB_LAT_REGRESSION);
    ASSERT_NEAR(d.ratio, 1.2, 0.0);
    ASSERT_NEAR(d.first_ratio, 1.0, 0.0);
    ASSERT(d.p_value < 0.0); /* no distribution test in A/B mode */
    ASSERT_NEAR(d.drift, 1.0, 0.0);
}

static void test_no_pairs(void) {
    kb_ab_result res;
    memset(&res, 0, sizeof res);
    res.decision.verdict = KB_LAT_INCONCLUSIVE;
    ASSERT(isnan(kb_ab_base_median(&res)));
    kb_latency_decision d = kb_ab_latency(&res);
    ASSERT_INT_EQ(d.verdict, KB_LAT_INCONCLUSIVE);
    ASSERT(isnan(d.first_ratio));
}

int main(void) {
    RUN_TEST(test_no_partner_is_not_asked);
    RUN_TEST(test_broken_base_fails_each_case);
    RUN_TEST(test_decision_from_pairs);
    RUN_TEST(test_no_pairs);
    return kb_test_summary();
}
