/* Mean, variance and layer normalisation against long double, including
 * rows whose mean is a billion times their spread. */
#include "kb_test.h"
#include "kbref/layernorm.h"
#include "ulp.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 768

/* The statistics in long double, shifted by the first value (x - x[0] is
 * exact for values this close), so that a large mean costs nothing. */
static void mean_var_ld(const double *x, size_t n, long double *mean, long double *var) {
    long double s = 0.0L, v = 0.0L;
    for (size_t i = 0; i < n; i++) s += (long double)x[i] - x[0];
    const long double m = x[0] + s / n;
    for (size_t i = 0; i < n; i++) v += ((long double)x[i] - m) * ((long double)x[i] - m);
    *mean = m;
    *var = v / n;
}

/* The bounds (u = 2^-53), from the operations kbref_mean_var does:
 * - mean: the corrected mean is the mean m rounded once (u |mean|) plus the
 *   correction's error, the sum of n deviations each within u of itself
 *   (Higham's gamma_n over their sizes): 2 u |mean| + (n + 2) u max|x - mean|;
 * - variance: (x - m)^2 rounded, summed over n terms, divided: (n + 4) u
 *   relative (the mean's error adds only its square);
 * - y = (x - m) r gamma + beta: x - m off by the mean's error and its own
 *   rounding, r = 1 / sqrt(var + eps) by half the variance's error and three
 *   roundings, then two more. */
static double mean_tol(const double *x, size_t n, long double mean) {
    double spread = 0.0;
    for (size_t i = 0; i < n; i++) spread = fmax(spread, (double)fabsl(x[i] - mean));
    return 2.0 * TEST_U * (double)fabsl(mean) + ((double)n + 2.0) * TEST_U * spread;
}

static void check_row(const double *x, size_t n, double eps, const double *gamma,
                      const double *beta, const char *what) {
    long double mean_ld, var_ld;
    mean_var_ld(x, n, &mean_ld, &var_ld);
    double mean, var;
    kbref_mean_var(x, n, &mean, &var);
    const double dmean = mean_tol(x, n, mean_ld);
    ASSERT(fabsl(mean - mean_ld) <= dmean);
    if (!(fabsl(var - var_ld) <= ((double)n + 4.0) * TEST_U * var_ld + dmean * dmean))
        KB_TEST_FAIL("%s: variance %.17g, %.3Lg from %.21Lg", what, var,
                     fabsl(var - var_ld) / var_ld, var_ld);

    static double y[N];
    kbref_layernorm_row(x, y, n, eps, gamma, beta);
    const long double r = 1.0L / sqrtl(var_ld + eps);
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double g = gamma ? gamma[i] : 1.0, b = beta ? beta[i] : 0.0;
        const long double d = ((long double)x[i] - mean_ld) * r;
        const long double want = d * g + b;
        const double scaled = (double)(fabsl(d) * fabs(g));
        const double tol =
            fabs(g) * (double)r * (dmean + 2.0 * TEST_U * (double)fabsl(x[i] - mean_ld)) +
            ((double)n / 2.0 + 10.0) * TEST_U * scaled + 2.0 * TEST_U * (scaled + fabs(b)) +
            DBL_TRUE_MIN;
        const double err = (double)fabsl(y[i] - want);
        worst = fmax(worst, err / tol);
        if (!(err <= tol))
            KB_TEST_FAIL("%s: y[%zu] = %.17g, %.3g from %.21Lg (bound %.3g)", what, i, y[i], err,
                         want, tol);
    }
    printf("%s: mean %.6Lg, variance %.6Lg: worst error %.3f of its bound\n", what, mean_ld, var_ld,
           worst);
}

static void fill(double *x, size_t n, double centre, double spread, uint64_t *seed) {
    for (size_t i = 0; i < n; i++) x[i] = centre + test_uniform(seed, -spread, spread);
}

static void test_rows(void) {
    uint64_t seed = 0x1a7e;
    static double x[N], gamma[N], beta[N];
    fill(gamma, N, 1.0, 0.5, &seed);
    fill(beta, N, 0.0, 0.5, &seed);
    fill(x, N, 0.0, 2.0, &seed);
    check_row(x, N, 1e-5, gamma, beta, "centred row");
    check_row(x, N, 1e-5, NULL, NULL, "centred row, no gamma/beta");
    fill(x, N, 3.0, 1e-3, &seed);
    check_row(x, N, 0.0, gamma, NULL, "narrow row");
    fill(x, 100, -1e-3, 5.0, &seed);
    check_row(x, 100, 1e-5, NULL, beta, "short row");
}

/* The mean 1e9 times the spread: two passes keep the variance to a few
 * ulps where E[x^2] - E[x]^2 loses every digit (E[x^2] is 1e18, its ulp
 * 128, the variance about 1.3), and the corrected mean stays within an
 * ulp of 1e9 (1.2e-7), the best a double holds: y within about 1e-7. */
static void test_large_mean(void) {
    uint64_t seed = 0xb16;
    static double x[N];
    fill(x, N, 1e9, 2.0, &seed);
    check_row(x, N, 1e-5, NULL, NULL, "mean 1e9");
    fill(x, N, -3e12, 0.5, &seed);
    check_row(x, N, 1e-5, NULL, NULL, "mean -3e12");

    fill(x, N, 1e9, 2.0, &seed);
    long double mean_ld, var_ld;
    mean_var_ld(x, N, &mean_ld, &var_ld);
    double s = 0.0, s2 = 0.0;
    for (size_t i = 0; i < N; i++) s += x[i], s2 += x[i] * x[i];
    const double naive_var = s2 / N - (s / N) * (s / N);
    double mean, var;
    kbref_mean_var(x, N, &mean, &var);
    printf("mean 1e9: variance %.17Lg; one-pass E[x^2] - E[x]^2 gives %.17g, kbref_mean_var "
           "%.17g\n",
           var_ld, naive_var, var);
    ASSERT(fabsl(naive_var - var_ld) > 10.0L * var_ld);
    ASSERT(fabsl(var - var_ld) <= 1e-12L * var_ld);
    ASSERT(fabsl(mean - mean_ld) <= ulp_at(mean_ld));
}

/* What needs no reference: a single value, a constant row, in place, the
 * defaults of gamma and beta, and the scalar parts. */
static void test_exact(void) {
    double mean, var;
    const double one = -7.25;
    kbref_mean_var(&one, 1, &mean, &var);
    ASSERT(mean == -7.25 && var == 0.0);
    const double flat[4] = {3.0, 3.0, 3.0, 3.0}, beta[4] = {1.0, -1.0, 0.5, 0.0};
    double y[4];
    kbref_layernorm_row(flat, y, 4, 1e-5, NULL, beta);
    ASSERT(memcmp(y, beta, sizeof y) == 0);
    const double x[4] = {1.0, 2.0, 3.0, 4.0}, ones[4] = {1.0, 1.0, 1.0, 1.0};
    const double zeros[4] = {0.0, 0.0, 0.0, 0.0};
    double a[4], b[4], c[4] = {1.0, 2.0, 3.0, 4.0};
    kbref_mean_var(x, 4, &mean, &var);
    ASSERT(mean == 2.5 && var == 1.25);
    kbref_layernorm_row(x, a, 4, 0.0, NULL, NULL);
    kbref_layernorm_row(x, b, 4, 0.0, ones, zeros);
    kbref_layernorm_row(c, c, 4, 0.0, NULL, NULL);
    for (int i = 0; i < 4; i++) {
        ASSERT(a[i] == b[i] && a[i] == c[i]);
        ASSERT(a[i] == (x[i] - 2.5) / sqrt(1.25) ||
               fabs(a[i] - (x[i] - 2.5) / sqrt(1.25)) <= 4e-16);
    }
    ASSERT(kbref_rstd(3.0, 1.0) == 0.5);
    ASSERT(kbref_normalize(5.0, 1.0, 0.5, 2.0, 1.0) == 5.0);
}

int main(void) {
    if (extended_long_double()) {
        RUN_TEST(test_rows);
        RUN_TEST(test_large_mean);
    } else {
        printf("long double is no wider than double here (valgrind?): the rows against long "
               "double are not checked\n");
    }
    RUN_TEST(test_exact);
    return kb_test_summary();
}
