/* The compensated sum against long double and on sums whose plain double
 * evaluation loses everything. */
#include "kb_test.h"
#include "kbref/sum.h"
#include "ulp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Cancellation a plain sum gets wrong, and that Kahan's original loop gets
 * wrong too where a term is larger than the running sum (the 1e100 case):
 * Neumaier's keeps what either operand loses. */
static void test_cancellation(void) {
    const double a[] = {1e16, 1.0, -1e16};
    ASSERT(1e16 + 1.0 - 1e16 == 0.0);
    ASSERT(kbref_sum_row(a, 3) == 1.0);
    const double b[] = {1.0, 1e100, 1.0, -1e100};
    ASSERT(kbref_sum_row(b, 4) == 2.0);
    const double c[] = {0x1p53, 1.0, 1.0, 1.0, 1.0, -0x1p53};
    ASSERT(kbref_sum_row(c, 6) == 4.0);
    ASSERT(kbref_sum_row(c, 0) == 0.0);
    kbref_sum s = KBREF_SUM_INIT;
    for (int i = 0; i < 6; i++) kbref_sum_add(&s, c[i]);
    ASSERT(kbref_sum_value(&s) == 4.0 && s.sum == 0.0 && s.comp == 4.0);
}

/* A million terms of mixed sign and sizes from 2^-20 to 2^20, multiples of
 * 2^-20 below 2^40 of them, so that their long double sum (below 2^60 of
 * them) is exact. The compensated sum's error is u |S| + O(n u^2) sum |x|
 * (Higham, the compensated summation bound): a rounding of the result plus
 * what the n u^2 term can reach; a plain sum errs up to n u sum |x|. */
static void test_against_long_double(void) {
    enum { n = 1000000 };
    double *x = malloc(n * sizeof *x);
    if (!x) abort();
    uint64_t seed = 0x50e;
    long double want = 0.0L, mag = 0.0L;
    double plain = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double t = ldexp(test_uniform(&seed, -1.0, 1.0), (int)(test_rand(&seed) % 41));
        x[i] = ldexp(trunc(t), -20);
        want += x[i];
        mag += fabsl(x[i]);
        plain += x[i];
    }
    const double got = kbref_sum_row(x, n);
    const double tol = ulp_at(want) + 4.0 * n * TEST_U * TEST_U * (double)mag;
    printf("sum of %d terms: compensated %.3g ulp off, plain %.3g ulp\n", n, ulp_err(got, want),
           ulp_err(plain, want));
    ASSERT(fabsl(got - want) <= tol);
    free(x);
}

int main(void) {
    RUN_TEST(test_cancellation);
    /* The long double sum is exact only where long double is wider than
     * double. */
    if (extended_long_double()) {
        RUN_TEST(test_against_long_double);
    } else {
        printf("long double is no wider than double here (valgrind?): the sum against long "
               "double is not checked\n");
    }
    return kb_test_summary();
}
