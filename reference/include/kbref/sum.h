/* Compensated summation (Neumaier): a running sum that keeps the low-order
 * bits each addition loses, for sums of many terms (a loss over a million
 * elements) whose plain double sum would err more than the kernel. */
#ifndef KBREF_SUM_H
#define KBREF_SUM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kbref_sum {
    double sum;  /* the plain running sum */
    double comp; /* what the additions into sum have lost */
} kbref_sum;

#define KBREF_SUM_INIT                                                                             \
    { 0.0, 0.0 }

void kbref_sum_add(kbref_sum *s, double term);

/* The compensated total, sum + comp. */
double kbref_sum_value(const kbref_sum *s);

/* The compensated sum of x[0 .. n). */
double kbref_sum_row(const double *x, size_t n);

#ifdef __cplusplus
}
#endif

#endif
