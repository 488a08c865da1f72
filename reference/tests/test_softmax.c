/* The softmax and log-sum-exp rows against long double, and with inputs
 * whose unshifted exponentials overflow. */
#include "kb_test.h"
#include "kbref/softmax.h"
#include "ulp.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows on a grid of 2^-10 within +-50, so that every x - max is exact in
 * double and in long double alike: the error is then the library's own. */
static void grid_row(double *x, size_t n, uint64_t *seed) {
    for (size_t i = 0; i < n; i++) x[i] = floor(test_uniform(seed, -51200.0, 51200.0)) / 1024.0;
}

static void softmax_ld(const double *x, long double *y, size_t n) {
    long double m = -INFINITY, s = 0.0L;
    for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    for (size_t i = 0; i < n; i++) s += y[i] = expl(x[i] - m);
    for (size_t i = 0; i < n; i++) y[i] /= s;
}

static long double logsumexp_ld(const double *x, size_t n) {
    long double m = -INFINITY, s = 0.0L;
    for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    for (size_t i = 0; i < n; i++) s += expl(x[i] - m);
    return m + logl(s);
}

/* y[i] = e_i / S: each e_i within 1.02 u (exp's 0.51 ulp, u = 2^-53), S
 * within (n - 1) u more (a sum of n positive terms, Higham's gamma_{n-1}),
 * the quotient rounded once: |y - y*| <= (n + 1.05) u |y*| + half an ulp,
 * and an error of r u |y| is at most r ulps. So n + 2 ulps. */
static double softmax_tol(size_t n) {
    return (double)n + 2.0;
}

static void check_softmax(const double *x, size_t n, const char *what) {
    double *y = malloc(n * sizeof *y);
    long double *want = malloc(n * sizeof *want);
    if (!y || !want) abort();
    kbref_softmax_row(x, y, n);
    softmax_ld(x, want, n);
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double err = ulp_err(y[i], want[i]);
        worst = err > worst ? err : worst;
        if (!(err <= softmax_tol(n)))
            KB_TEST_FAIL("%s: softmax[%zu] = %.17g, %.3g ulp from %.21Lg", what, i, y[i], err,
                         want[i]);
    }
    printf("%s: softmax of %zu, worst %.2f ulp (bound %.0f)\n", what, n, worst, softmax_tol(n));
    free(y);
    free(want);
}

/* max + log(S): S within (n + 1.05) u relative, which log turns into as
 * much absolute error; log's own rounding (0.52 ulp of log S) and the
 * final addition's (half an ulp) on top. */
static void check_logsumexp(const double *x, size_t n, const char *what) {
    const double got = kbref_logsumexp_row(x, n);
    const long double want = logsumexp_ld(x, n);
    double m = -INFINITY;
    for (size_t i = 0; i < n; i++) m = fmax(m, x[i]);
    const double log_s = (double)(want - m);
    const double tol = ((double)n + 1.1) * TEST_U + ulp_at(log_s) + 0.5 * ulp_at(want);
    if (!(fabsl((long double)got - want) <= tol))
        KB_TEST_FAIL("%s: logsumexp of %zu = %.17g, %.3Lg from %.21Lg (bound %.3g)", what, n, got,
                     fabsl((long double)got - want), want, tol);
}

static void test_random_rows(void) {
    uint64_t seed = 0x5eed;
    static double x[1000];
    const size_t sizes[] = {1, 2, 8, 100, 1000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int rep = 0; rep < 20; rep++) {
            grid_row(x, sizes[k], &seed);
            check_softmax(x, sizes[k], rep == 0 ? "grid row" : "");
            check_logsumexp(x, sizes[k], "grid row");
        }
}

/* Inputs whose unshifted e^x overflows, or whose differences do: the
 * naive forms give inf and NaN, the library finite values. */
static void test_huge_inputs(void) {
    const double big[] = {1000.0, 1001.0, 1002.0};
    const double neg[] = {-1000.0, -1001.5, -999.25};
    ASSERT(isinf(exp(big[2])) && exp(neg[0]) == 0.0);
    if (extended_long_double()) {
        check_softmax(big, 3, "x near 1000");
        check_logsumexp(big, 3, "x near 1000");
        check_softmax(neg, 3, "x near -1000");
        check_logsumexp(neg, 3, "x near -1000");
    }

    double y[3];
    const double max3[] = {DBL_MAX, DBL_MAX, DBL_MAX};
    kbref_softmax_row(max3, y, 3);
    ASSERT(y[0] == 1.0 / 3.0 && y[1] == 1.0 / 3.0 && y[2] == 1.0 / 3.0);
    ASSERT(kbref_logsumexp_row(max3, 3) == DBL_MAX);
    /* -DBL_MAX - DBL_MAX is -inf, e^-inf 0. */
    const double spread[] = {DBL_MAX, -DBL_MAX, 0.0};
    kbref_softmax_row(spread, y, 3);
    ASSERT(y[0] == 1.0 && y[1] == 0.0 && y[2] == 0.0);
    ASSERT(kbref_logsumexp_row(spread, 3) == DBL_MAX);
    const double low[] = {-1e308, -1e308};
    kbref_softmax_row(low, y, 2);
    ASSERT(y[0] == 0.5 && y[1] == 0.5);
    ASSERT(kbref_logsumexp_row(low, 2) == -1e308 + log(2.0));
    const double two[] = {1000.0, 1000.0};
    ASSERT(isinf(log(exp(two[0]) + exp(two[1]))));
    ASSERT(kbref_logsumexp_row(two, 2) == 1000.0 + log(2.0));
}

/* -inf entries (masked positions) weigh nothing; a row of them has no
 * softmax but a log-sum-exp of -inf; a +inf gives +inf. */
static void test_infinities(void) {
    double y[3];
    const double masked[] = {0.0, -INFINITY, 0.0};
    kbref_softmax_row(masked, y, 3);
    ASSERT(y[0] == 0.5 && y[1] == 0.0 && y[2] == 0.5);
    ASSERT(kbref_logsumexp_row(masked, 3) == log(2.0));
    const double none[] = {-INFINITY, -INFINITY};
    ASSERT(kbref_logsumexp_row(none, 2) == -INFINITY);
    const double top[] = {INFINITY, 1.0};
    ASSERT(kbref_logsumexp_row(top, 2) == INFINITY);
}

static void test_parts(void) {
    const double x[] = {NAN, 1.0, 3.0, NAN, -2.0};
    ASSERT(kbref_max_row(x, 5) == 3.0);
    ASSERT(kbref_max_row(x, 0) == -INFINITY);
    const double r[] = {0.5, -1.25, 2.0, 0.0};
    double y[4];
    const double s = kbref_exp_sum_row(r, y, 4, 2.0);
    ASSERT(s == kbref_exp_sum_row(r, NULL, 4, 2.0));
    double t = 0.0;
    for (int i = 0; i < 4; i++) {
        ASSERT(y[i] == exp(r[i] - 2.0));
        t += y[i];
    }
    ASSERT(s == t);
    double z[4] = {0.5, -1.25, 2.0, 0.0};
    ASSERT(kbref_exp_sum_row(z, z, 4, 2.0) == s); /* in place */
    ASSERT(memcmp(z, y, sizeof z) == 0);
    double w[4] = {0.5, -1.25, 2.0, 0.0}, v[4];
    kbref_softmax_row(w, v, 4);
    kbref_softmax_row(w, w, 4);
    ASSERT(memcmp(w, v, sizeof w) == 0);
    const double one = 42.0;
    double out;
    kbref_softmax_row(&one, &out, 1);
    ASSERT(out == 1.0 && kbref_logsumexp_row(&one, 1) == 42.0);
}

int main(void) {
    if (extended_long_double()) {
        RUN_TEST(test_random_rows);
    } else {
        printf("long double is no wider than double here (valgrind?): the rows against long "
               "double are not checked\n");
    }
    RUN_TEST(test_huge_inputs);
    RUN_TEST(test_infinities);
    RUN_TEST(test_parts);
    return kb_test_summary();
}
