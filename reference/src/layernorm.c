#include "kbref/layernorm.h"

#include <math.h>

void kbref_mean_var(const double *x, size_t n, double *mean, double *var) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++) m += x[i];
    m /= (double)n;
    /* The sum above errs by up to n ulps of its size: with a mean of 1e8
     * and a spread of 1 that is 1e-5 of the spread. The deviations from m
     * are small and near exact, so their mean corrects m to within about
     * an ulp of itself. */
    double c = 0.0;
    for (size_t i = 0; i < n; i++) c += x[i] - m;
    m += c / (double)n;
    double v = 0.0;
    for (size_t i = 0; i < n; i++) v += (x[i] - m) * (x[i] - m);
    *mean = m;
    *var = v / (double)n;
}

double kbref_rstd(double var, double eps) {
    return 1.0 / sqrt(var + eps);
}

double kbref_normalize(double x, double mean, double rstd, double gamma, double beta) {
    return (x - mean) * rstd * gamma + beta;
}

void kbref_layernorm_row(const double *x, double *y, size_t n, double eps, const double *gamma,
                         const double *beta) {
    double mean, var;
    kbref_mean_var(x, n, &mean, &var);
    const double rstd = kbref_rstd(var, eps);
    for (size_t i = 0; i < n; i++) {
        double v = (x[i] - mean) * rstd;
        if (gamma) v *= gamma[i];
        if (beta) v += beta[i];
        y[i] = v;
    }
}
