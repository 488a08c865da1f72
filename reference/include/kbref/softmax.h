/* Rows under the exponential, always shifted by the row's maximum first so
 * that no e^x overflows whatever the inputs' size. */
#ifndef KBREF_SOFTMAX_H
#define KBREF_SOFTMAX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest of x[0 .. n), NaNs ignored (fmax); -inf when n is 0. */
double kbref_max_row(const double *x, size_t n);

/* y[i] = e^(x[i] - shift) for i in [0, n), returning their sum, added in
 * index order. y may be x (in place) or NULL (the sum alone). */
double kbref_exp_sum_row(const double *x, double *y, size_t n, double shift);

/* y = softmax(x) over n >= 1 values: e^(x[i] - max) / sum. y may be x. */
void kbref_softmax_row(const double *x, double *y, size_t n);

/* log(sum e^x[i]) over n >= 1 values, as max + log(sum e^(x[i] - max)):
 * finite for any finite inputs, +inf when a value is +inf, -inf when all
 * are -inf. */
double kbref_logsumexp_row(const double *x, size_t n);

#ifdef __cplusplus
}
#endif

#endif
