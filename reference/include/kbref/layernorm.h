/* Normalisation by a mean and a variance: layer normalisation of a row, and
 * the parts a batch normalisation shares with it. */
#ifndef KBREF_LAYERNORM_H
#define KBREF_LAYERNORM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The mean and the biased variance (divided by n) of x[0 .. n), n >= 1, in
 * two passes: the mean, corrected once by the mean of x[i] - mean (which
 * brings it within about an ulp of the true mean however large it is
 * beside the spread), then the mean of (x[i] - mean)^2. No E[x^2] - E[x]^2,
 * which cancels when the mean is large. */
void kbref_mean_var(const double *x, size_t n, double *mean, double *var);

/* 1 / sqrt(var + eps). */
double kbref_rstd(double var, double eps);

/* (x - mean) * rstd * gamma + beta, in that order. */
double kbref_normalize(double x, double mean, double rstd, double gamma, double beta);

/* y = (x - mean) / sqrt(var + eps) * gamma + beta over a row of n >= 1
 * values (kbref_mean_var's mean and variance). gamma and beta are arrays of
 * n, or NULL for 1 and 0 (not applied). y may be x. */
void kbref_layernorm_row(const double *x, double *y, size_t n, double eps, const double *gamma,
                         const double *beta);

#ifdef __cplusplus
}
#endif

#endif
