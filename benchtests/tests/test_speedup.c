/* kb_compare_vendor: each variant's speedup over the "vendor" variant on
 * the same case, only where the vendor ran it. */
#include "kb_test.h"
#include "run/speedup.h"

#include <stdio.h>
#include <string.h>

static kb_case one = {.name = "one"}, two = {.name = "two"};

static kb_case_result result(const kb_case *c, const char *variant, double median) {
    kb_case_result r;
    memset(&r, 0, sizeof r);
    r.c = c;
    r.impl_variant = variant;
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    r.measured.stats.median = median;
    return r;
}

static void test_speedup_over_the_vendor(void) {
    kb_case_result res[] = {result(&one, "default", 2.0), result(&one, "vendor", 1.0),
                            result(&two, "default", 4.0), result(&two, "fused", 1.0),
                            result(&two, "vendor", 2.0)};
    kb_compare_vendor(res, 5);
    ASSERT_NEAR(res[0].measured.vendor_speedup, 0.5, 1e-12);
    ASSERT_NEAR(res[1].measured.vendor_speedup, -1.0, 0); /* the vendor itself */
    ASSERT_NEAR(res[2].measured.vendor_speedup, 0.5, 1e-12);
    ASSERT_NEAR(res[3].measured.vendor_speedup, 2.0, 1e-12);
    ASSERT_NEAR(res[4].measured.vendor_speedup, -1.0, 0);
}

/* A vendor that declined the case or failed on it gives no figure, and no
 * vendor variant gives none. */
static void test_no_figure_without_a_measured_vendor(void) {
    kb_case_result res[] = {result(&one, "default", 2.0), result(&one, "vendor", 1.0),
                            result(&two, "default", 2.0), result(&two, "vendor", 1.0)};
    res[1].skipped = 1;
    res[3].error = 1;
    kb_compare_vendor(res, 4);
    ASSERT_NEAR(res[0].measured.vendor_speedup, -1.0, 0);
    ASSERT_NEAR(res[2].measured.vendor_speedup, -1.0, 0);
    kb_case_result alone[] = {result(&one, "default", 2.0)};
    kb_compare_vendor(alone, 1);
    ASSERT_NEAR(alone[0].measured.vendor_speedup, -1.0, 0);
}

int main(void) {
    RUN_TEST(test_speedup_over_the_vendor);
    RUN_TEST(test_no_figure_without_a_measured_vendor);
    return kb_test_summary();
}
