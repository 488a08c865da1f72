#include "kbref/softmax.h"

#include <math.h>

double kbref_max_row(const double *x, size_t n) {
    double m = -INFINITY;
    for (size_t i = 0; i < n; i++) m = fmax(m, x[i]);
    return m;
}

double kbref_exp_sum_row(const double *x, double *y, size_t n, double shift) {
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double t = exp(x[i] - shift);
        if (y) y[i] = t;
        sum += t;
    }
    return sum;
}

void kbref_softmax_row(const double *x, double *y, size_t n) {
    const double sum = kbref_exp_sum_row(x, y, n, kbref_max_row(x, n));
    for (size_t i = 0; i < n; i++) y[i] /= sum;
}

double kbref_logsumexp_row(const double *x, size_t n) {
    const double m = kbref_max_row(x, n);
    /* All -inf (or an empty row): the sum is 0, log -inf. Any +inf: +inf,
     * where x - m would be NaN. */
    if (isinf(m)) return m;
    return m + log(kbref_exp_sum_row(x, NULL, n, m));
}
