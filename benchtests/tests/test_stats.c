/* kb_stats_compute, kb_quantile_sorted and kb_mann_whitney_greater against
 * values worked out by hand. */
#include "base/rng.h"
#include "base/stats.h"
#include "kb_test.h"

#include <math.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof *(a))

static void test_odd_count_by_hand(void) {
    /* Sorted: 1 2 3 4 5 (n = 5, so the type-7 position of q is h = 4q). */
    const double x[] = {4, 1, 3, 2, 5};
    kb_stats s;
    ASSERT_INT_EQ(kb_stats_compute(x, N_OF(x), &s), 0);
    ASSERT_INT_EQ(s.n, 5);
    ASSERT_NEAR(s.min, 1, 0);
    ASSERT_NEAR(s.max, 5, 0);
    ASSERT_NEAR(s.mean, 3, 1e-15);   /* 15 / 5 */
    ASSERT_NEAR(s.median, 3, 1e-15); /* h = 2: the third value */
    /* Squared deviations 1+4+0+1+4 = 10 over n - 1 = 4: variance 2.5. */
    ASSERT_NEAR(s.stddev, sqrt(2.5), 1e-15);
    ASSERT_NEAR(s.cv, sqrt(2.5) / 3.0, 1e-15);
    ASSERT_NEAR(s.p10, 1.4, 1e-12);  /* h = 0.4:  1 + 0.4 * (2 - 1) */
    ASSERT_NEAR(s.p90, 4.6, 1e-12);  /* h = 3.6:  4 + 0.6 * (5 - 4) */
    ASSERT_NEAR(s.p99, 4.96, 1e-12); /* h = 3.96: 4 + 0.96 * (5 - 4) */
    /* |x - 3| = 1 2 0 1 2, sorted 0 1 1 2 2: median 1. */
    ASSERT_NEAR(s.mad, 1, 0);
    /* CI ranks 5/2 -+ 1.96 sqrt(5)/2 = 2.5 -+ 2.19: floor 0, ceil 5 -> clamped to 4. */
    ASSERT_NEAR(s.ci_lo, 1, 0);
    ASSERT_NEAR(s.ci_hi, 5, 0);
}

static void test_even_count_by_hand(void) {
    /* Sorted: 2 4 6 8 10 12 (n = 6, h = 5q). */
    const double x[] = {10, 2, 8, 4, 6, 12};
    kb_stats s;
    ASSERT_INT_EQ(kb_stats_compute(x, N_OF(x), &s), 0);
    ASSERT_NEAR(s.mean, 7, 1e-15);   /* 42 / 6 */
    ASSERT_NEAR(s.median, 7, 1e-15); /* h = 2.5: 6 + 0.5 * (8 - 6) */
    /* Squared deviations 25+9+1+1+9+25 = 70 over 5: variance 14. */
    ASSERT_NEAR(s.stddev, sqrt(14.0), 1e-14);
    ASSERT_NEAR(s.p10, 3, 1e-12);    /* h = 0.5:  2 + 0.5 * 2 */
    ASSERT_NEAR(s.p90, 11, 1e-12);   /* h = 4.5:  10 + 0.5 * 2 */
    ASSERT_NEAR(s.p99, 11.9, 1e-12); /* h = 4.95: 10 + 0.95 * 2 */
    /* |x - 7| sorted: 1 1 3 3 5 5, median at h = 2.5: 3. */
    ASSERT_NEAR(s.mad, 3, 1e-15);
    ASSERT_NEAR(s.min, 2, 0);
    ASSERT_NEAR(s.max, 12, 0);
}

static void test_single_sample(void) {
    const double x[] = {2.5};
    kb_stats s;
    ASSERT_INT_EQ(kb_stats_compute(x, 1, &s), 0);
    ASSERT_INT_EQ(s.n, 1);
    ASSERT_NEAR(s.min, 2.5, 0);
    ASSERT_NEAR(s.max, 2.5, 0);
    ASSERT_NEAR(s.mean, 2.5, 0);
    ASSERT_NEAR(s.median, 2.5, 0);
    ASSERT_NEAR(s.p10, 2.5, 0);
    ASSERT_NEAR(s.p99, 2.5, 0);
    ASSERT_NEAR(s.stddev, 0, 0); /* no spread estimate from one sample: 0, not NaN */
    ASSERT_NEAR(s.cv, 0, 0);
    ASSERT_NEAR(s.mad, 0, 0);
    ASSERT_NEAR(s.ci_lo, 2.5, 0);
    ASSERT_NEAR(s.ci_hi, 2.5, 0);
}

static void test_empty_input_fails(void) {
    const double x[] = {1.0};
    kb_stats s;
    ASSERT_INT_EQ(kb_stats_compute(x, 0, &s), -1);
}

static void test_input_left_unmodified(void) {
    double x[] = {9, 3, 7, 1, 5, 8, 2};
    double copy[N_OF(x)];
    memcpy(copy, x, sizeof x);
    kb_stats s;
    ASSERT_INT_EQ(kb_stats_compute(x, N_OF(x), &s), 0);
    ASSERT(memcmp(x, copy, sizeof x) == 0);
    ASSERT_NEAR(s.median, 5, 0);
}

static void test_quantile_edges(void) {
    const double sorted[] = {1, 2, 3, 4, 5};
    ASSERT_NEAR(kb_quantile_sorted(sorted, 5, 0.0), 1, 0);
    ASSERT_NEAR(kb_quantile_sorted(sorted, 5, 1.0), 5, 0);
    ASSERT_NEAR(kb_quantile_sorted(sorted, 5, 0.25), 2, 0);      /* h = 1 exactly */
    ASSERT_NEAR(kb_quantile_sorted(sorted, 5, 0.3), 2.2, 1e-12); /* h = 1.2 */
    ASSERT_NEAR(kb_quantile_sorted(sorted, 1, 0.0), 1, 0);
    ASSERT_NEAR(kb_quantile_sorted(sorted, 1, 0.5), 1, 0);
    ASSERT_NEAR(kb_quantile_sorted(sorted, 1, 1.0), 1, 0);
    ASSERT(isnan(kb_quantile_sorted(sorted, 0, 0.5)));
}

static void test_median_ci_brackets_median(void) {
    /* 1..100 in a scrambled order (37 is coprime to 100, so i*37 mod 100
     * visits every residue). Sorted v[i] = i + 1; median at h = 49.5: 50.5.
     * CI ranks 50 -+ 1.96 * 10 / 2 = 50 -+ 9.8: floor 40 and ceil 60, that is
     * the values 41 and 61. */
    double x[100];
    for (int i = 0; i < 100; ++i) x[i] = (double)((i * 37) % 100 + 1);
    kb_stats s;
    ASSERT_INT_EQ(kb_stats_compute(x, 100, &s), 0);
    ASSERT_NEAR(s.median, 50.5, 1e-12);
    ASSERT_NEAR(s.ci_lo, 41, 0);
    ASSERT_NEAR(s.ci_hi, 61, 0);
    ASSERT(s.ci_lo <= s.median && s.median <= s.ci_hi);

    /* And on noisy data of the size the sampler collects. */
    kb_rng r;
    kb_rng_seed(&r, 7, "ci");
    double y[37];
    for (int i = 0; i < 37; ++i) y[i] = 1.0 + 0.05 * kb_rng_normal(&r);
    ASSERT_INT_EQ(kb_stats_compute(y, 37, &s), 0);
    ASSERT(s.ci_lo < s.median && s.median < s.ci_hi);
    ASSERT(s.min <= s.ci_lo && s.ci_hi <= s.max);
}

/* n values around `center` with uniform jitter of +-rel (relative). */
static void jittered(double *x, int n, double center, double rel, uint64_t seed,
                     const char *stream) {
    kb_rng r;
    kb_rng_seed(&r, seed, stream);
    for (int i = 0; i < n; ++i) x[i] = center * (1.0 + rel * (2.0 * kb_rng_uniform(&r) - 1.0));
}

static void test_mann_whitney_identical_not_significant(void) {
    double a[20];
    jittered(a, 20, 1.0, 0.01, 1, "same");
    /* Every value ties with its copy: U = n1 n2 / 2 exactly, and the
     * continuity correction puts z just below 0. */
    double p = kb_mann_whitney_greater(a, 20, a, 20, 1.0);
    ASSERT(p >= 0.5);
    ASSERT(p < 0.6);
}

static void test_mann_whitney_all_tied(void) {
    /* One tie group: the variance is 0 and U = n1 n2 / 2 is not "greater". */
    const double a[] = {2, 2, 2, 2}, b[] = {2, 2, 2, 2};
    ASSERT_NEAR(kb_mann_whitney_greater(a, 4, b, 4, 1.0), 1.0, 0);
}

static void test_mann_whitney_clear_shift(void) {
    double a[20], b[20];
    jittered(a, 20, 1.3, 0.01, 2, "slow");
    jittered(b, 20, 1.0, 0.01, 2, "fast");
    /* No overlap: U = 400, mean 200, sd sqrt(400 * 41 / 12) = 36.97, so
     * z = 199.5 / 36.97 = 5.40 and p ~ 3e-8. */
    double p = kb_mann_whitney_greater(a, 20, b, 20, 1.0);
    ASSERT(p < 1e-6);
    /* The other way round nothing is greater. */
    ASSERT(kb_mann_whitney_greater(b, 20, a, 20, 1.0) > 0.999);
}

static void test_mann_whitney_scale(void) {
    double base[20], cur[20], same[20];
    jittered(base, 20, 1.0, 0.01, 3, "base");
    jittered(cur, 20, 1.3, 0.01, 3, "cur");
    for (int i = 0; i < 20; ++i) same[i] = base[i] * 1.3;
    /* 1.3x the baseline against the baseline scaled by 1.3: not greater. */
    ASSERT(kb_mann_whitney_greater(same, 20, base, 20, 1.3) >= 0.5);
    ASSERT(kb_mann_whitney_greater(cur, 20, base, 20, 1.3) > 0.001);
    /* Scaled by 1.1 the 1.3x set is still clearly greater ... */
    ASSERT(kb_mann_whitney_greater(cur, 20, base, 20, 1.1) < 1e-6);
    /* ... and scaled by 1.5 it is clearly not. */
    ASSERT(kb_mann_whitney_greater(cur, 20, base, 20, 1.5) > 0.999);
}

static void test_mann_whitney_by_hand(void) {
    /* Pooled and ranked (b's values marked *):
     *   1.0* 1.5  2.0* 2.5  3.0* 4.0  4.0* 5.0
     *   1    2    3    4    5    6.5  6.5  8
     * Rank sum of a: 2 + 4 + 6.5 + 8 = 20.5, U = 20.5 - 4*5/2 = 10.5.
     * (Counting pairs: 1.5 beats 1; 2.5 beats 2; 4.0 beats 3 and ties 1;
     * 5.0 beats 4: 1 + 2 + 3.5 + 4 = 10.5.)
     * One tie group of t = 2: sum(t^3 - t) = 6. With n = 8:
     *   var = 4*4/12 * ((8 + 1) - 6 / (8*7)) = 11.857142857...
     *   z = (10.5 - 8 - 0.5) / sqrt(var) = 0.58081...
     *   p = erfc(z / sqrt 2) / 2 = 0.2807... */
    const double a[] = {1.5, 2.5, 4.0, 5.0}, b[] = {1.0, 2.0, 3.0, 4.0};
    double var = 4.0 * 4.0 / 12.0 * (9.0 - 6.0 / 56.0);
    double z = (10.5 - 8.0 - 0.5) / sqrt(var);
    double expected = 0.5 * erfc(z / sqrt(2.0));
    double p = kb_mann_whitney_greater(a, 4, b, 4, 1.0);
    ASSERT_NEAR(p, expected, 1e-12);
    ASSERT_NEAR(p, 0.2807, 5e-4);
    /* Scaling b by 2 (2 4 6 8) against a: U = 0+1+1.5+2 = 4.5 (4.0 ties 4),
     * var as above, z = (4.5 - 8 - 0.5) / sqrt(var) < 0: p > 0.5. */
    double z2 = (4.5 - 8.0 - 0.5) / sqrt(var);
    ASSERT_NEAR(kb_mann_whitney_greater(a, 4, b, 4, 2.0), 0.5 * erfc(z2 / sqrt(2.0)), 1e-12);
}

static void test_mann_whitney_empty(void) {
    const double a[] = {1.0};
    ASSERT_NEAR(kb_mann_whitney_greater(a, 1, a, 0, 1.0), 1.0, 0);
    ASSERT_NEAR(kb_mann_whitney_greater(a, 0, a, 1, 1.0), 1.0, 0);
}

static void test_sign_ci_ranks(void) {
    double x[30], med, lo, hi;
    for (int i = 0; i < 30; ++i) x[i] = 30 - i; /* 30, 29, ..., 1: unsorted on purpose */
    /* n = 5: no order statistics give 95 %: infinite */
    ASSERT_INT_EQ(kb_median_sign_ci(x + 25, 5, &med, &lo, &hi), 0);
    ASSERT(isinf(lo) && lo < 0 && isinf(hi) && hi > 0);
    ASSERT_NEAR(med, 3.0, 0);
    /* n = 6: P(B < 1) = 1/64 <= 0.025 < P(B < 2) = 7/64: [min, max] */
    ASSERT_INT_EQ(kb_median_sign_ci(x + 24, 6, &med, &lo, &hi), 0);
    ASSERT_NEAR(lo, 1.0, 0);
    ASSERT_NEAR(hi, 6.0, 0);
    /* n = 10: P(B < 2) = 11/1024 <= 0.025 < P(B < 3) = 56/1024: [x(2), x(9)] */
    ASSERT_INT_EQ(kb_median_sign_ci(x + 20, 10, &med, &lo, &hi), 0);
    ASSERT_NEAR(lo, 2.0, 0);
    ASSERT_NEAR(hi, 9.0, 0);
    ASSERT_NEAR(med, 5.5, 0);
    /* n = 30: k = 10 (P(B < 10) = 0.0214, P(B < 11) = 0.0494): [x(10), x(21)] */
    ASSERT_INT_EQ(kb_median_sign_ci(x, 30, &med, &lo, &hi), 0);
    ASSERT_NEAR(lo, 10.0, 0);
    ASSERT_NEAR(hi, 21.0, 0);
    ASSERT(kb_median_sign_ci(x, 0, &med, &lo, &hi) != 0);
}

int main(void) {
    RUN_TEST(test_odd_count_by_hand);
    RUN_TEST(test_even_count_by_hand);
    RUN_TEST(test_single_sample);
    RUN_TEST(test_empty_input_fails);
    RUN_TEST(test_input_left_unmodified);
    RUN_TEST(test_quantile_edges);
    RUN_TEST(test_median_ci_brackets_median);
    RUN_TEST(test_mann_whitney_identical_not_significant);
    RUN_TEST(test_mann_whitney_all_tied);
    RUN_TEST(test_mann_whitney_clear_shift);
    RUN_TEST(test_mann_whitney_scale);
    RUN_TEST(test_mann_whitney_by_hand);
    RUN_TEST(test_mann_whitney_empty);
    RUN_TEST(test_sign_ci_ranks);
    return kb_test_summary();
}
