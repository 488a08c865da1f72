#include "base/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double kb_quantile_sorted(const double *sorted, size_t n, double q) {
    if (n == 0) return NAN;
    double h = q * (double)(n - 1);
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n) return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

/* Order statistics bounding the median with ~95% coverage: ranks
 * n/2 -+ 1.96 sqrt(n)/2 (normal approximation of the binomial). */
static void median_ci(const double *sorted, size_t n, double *lo, double *hi) {
    double half = 1.96 * sqrt((double)n) / 2.0;
    long l = (long)floor((double)n / 2.0 - half);
    long u = (long)ceil((double)n / 2.0 + half);
    if (l < 0) l = 0;
    if (u > (long)n - 1) u = (long)n - 1;
    *lo = sorted[l];
    *hi = sorted[u];
}

/* A sorted, malloc'ed copy of n > 0 values; NULL when out of memory. */
static double *sorted_copy(const double *x, size_t n) {
    double *v = malloc(n * sizeof *v);
    if (!v) return NULL;
    memcpy(v, x, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_double);
    return v;
}

int kb_stats_compute(const double *samples, size_t n, kb_stats *s) {
    memset(s, 0, sizeof *s);
    if (n == 0) return -1;
    double *v = sorted_copy(samples, n);
    if (!v) return -1;
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) sum += v[i];
    s->n = n;
    s->min = v[0];
    s->max = v[n - 1];
    s->mean = sum / (double)n;
    double ss = 0.0;
    for (size_t i = 0; i < n; ++i) ss += (v[i] - s->mean) * (v[i] - s->mean);
    s->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    s->cv = s->mean > 0.0 ? s->stddev / s->mean : 0.0;
    s->median = kb_quantile_sorted(v, n, 0.5);
    s->p10 = kb_quantile_sorted(v, n, 0.10);
    s->p90 = kb_quantile_sorted(v, n, 0.90);
    s->p99 = kb_quantile_sorted(v, n, 0.99);
    median_ci(v, n, &s->ci_lo, &s->ci_hi);
    for (size_t i = 0; i < n; ++i) v[i] = fabs(v[i] - s->median);
    qsort(v, n, sizeof *v, cmp_double);
    s->mad = kb_quantile_sorted(v, n, 0.5);
    free(v);
    return 0;
}

typedef struct ranked {
    double v;
    int from_a;
} ranked;

static int cmp_ranked(const void *x, const void *y) {
    return cmp_double(&((const ranked *)x)->v, &((const ranked *)y)->v);
}

double kb_mann_whitney_greater(const double *a, size_t na, const double *b, size_t nb,
                               double scale) {
    size_t n = na + nb;
    ranked *r = malloc(n * sizeof *r);
    if (!r || na == 0 || nb == 0) {
        free(r);
        return 1.0;
    }
    for (size_t i = 0; i < na; ++i) r[i] = (ranked){a[i], 1};
    for (size_t j = 0; j < nb; ++j) r[na + j] = (ranked){b[j] * scale, 0};
    qsort(r, n, sizeof *r, cmp_ranked);
    /* Rank sum of a with average ranks for ties, and the tie term
     * sum(t^3 - t) of the variance correction. */
    double rank_sum_a = 0.0, tie_term = 0.0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && r[j + 1].v == r[i].v) ++j;
        double t = (double)(j - i + 1), avg_rank = (double)(i + j) / 2.0 + 1.0;
        for (size_t k = i; k <= j; ++k)
            if (r[k].from_a) rank_sum_a += avg_rank;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    free(r);
    double n1 = (double)na, n2 = (double)nb, nn = (double)n;
    double u = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    double var = n1 * n2 / 12.0 * ((nn + 1.0) - tie_term / (nn * (nn - 1.0)));
    if (var <= 0.0) return u > n1 * n2 / 2.0 ? 0.0 : 1.0;
    double z = (u - n1 * n2 / 2.0 - 0.5) / sqrt(var);
    return 0.5 * erfc(z / sqrt(2.0));
}

/* P(Binomial(n, 1/2) < k), summed in log space so large n stays exact
 * enough. */
static double binom_below(size_t n, size_t k) {
    double p = 0.0;
    for (size_t i = 0; i < k; ++i)
        p += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
                 (double)n * log(2.0));
    return p;
}

int kb_median_sign_ci(const double *x, size_t n, double *median, double *lo, double *hi) {
    if (n == 0) return -1;
    double *v = sorted_copy(x, n);
    if (!v) return -1;
    *median = kb_quantile_sorted(v, n, 0.5);
    size_t k = 0;
    while (k + 1 <= n / 2 && binom_below(n, k + 1) <= 0.025) ++k;
    *lo = k ? v[k - 1] : -INFINITY;
    *hi = k ? v[n - k] : INFINITY;
    free(v);
    return 0;
}
