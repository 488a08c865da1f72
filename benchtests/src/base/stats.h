/* Descriptive statistics of timing samples and the tests the gate uses. */
#ifndef KB_STATS_H
#define KB_STATS_H

#include <stddef.h>

typedef struct kb_stats {
    size_t n;
    double min, max, mean, stddev, cv; /* stddev: sample (n - 1); cv = stddev / mean */
    double median, p10, p90, p99;
    double mad;          /* median absolute deviation from the median */
    double ci_lo, ci_hi; /* distribution-free ~95% confidence interval of the median */
} kb_stats;

/* Sample quantile q in [0, 1] of sorted data, linear interpolation between
 * order statistics (Hyndman & Fan type 7, as R and NumPy default). */
double kb_quantile_sorted(const double *sorted, size_t n, double q);

/* Fills s from n >= 1 samples (the input is not modified). Returns -1 only
 * when out of memory or n == 0. */
int kb_stats_compute(const double *samples, size_t n, kb_stats *s);

/* One-sided Mann-Whitney U test: the p-value of "values in a tend to be
 * larger than values in b" under the null hypothesis of equal distributions
 * (normal approximation with tie and continuity corrections; fine for the
 * sample sizes the harness uses, n >= 8 each). b is scaled by `scale`. */
double kb_mann_whitney_greater(const double *a, size_t na, const double *b, size_t nb,
                               double scale);

/* The median of n values and its distribution-free confidence interval
 * of at least 95 % coverage from the exact binomial (sign test): the
 * order statistics x(k) and x(n+1-k) with the largest k for which
 * P(Binomial(n, 1/2) < k) <= 0.025. For n < 6 no such k exists and the
 * interval is infinite (-inf, +inf). Returns -1 when n == 0 or out of
 * memory. */
int kb_median_sign_ci(const double *x, size_t n, double *median, double *lo, double *hi);

#endif
