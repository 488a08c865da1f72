/* A kernel's output against its double-precision reference: poisoned
 * outputs (an element the kernel never wrote is recognised), RMSE and the
 * largest absolute error, NaN/Inf counted apart. For every precision of
 * kb/prec.h. */
#ifndef KBREF_METRICS_H
#define KBREF_METRICS_H

#include "kb/prec.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kbref_accuracy {
    size_t n;           /* elements compared */
    size_t n_nonfinite; /* NaN/Inf where the reference is finite */
    size_t n_unwritten; /* still holding the poison pattern */
    size_t n_compared;  /* finite output against finite reference */
    double sum_sq;      /* of (out - ref) over the compared pairs */
    double rmse;
    double max_abs;
    size_t worst; /* index of max_abs within its tensor */
    double worst_out, worst_ref;
} kbref_accuracy;

/* Fills n elements with a signalling-NaN pattern that no arithmetic or
 * conversion produces, so an element left unwritten is recognised. */
void kbref_poison(void *buf, kb_prec prec, size_t n);

/* Whether element i of buf still holds the poison pattern. */
int kbref_is_poison(const void *buf, kb_prec prec, size_t i);

/* Adds one output tensor to the running comparison (call once per output;
 * start from a zeroed struct), then kbref_accuracy_finish computes the
 * RMSE. Elements are compared only where the reference is finite: a poisoned
 * one counts in n_unwritten, a NaN/Inf one in n_nonfinite, the others in
 * n_compared, sum_sq and max_abs (the first largest error's index and
 * values in worst, worst_out, worst_ref). */
void kbref_accuracy_add(kbref_accuracy *acc, const void *out, kb_prec prec, const double *ref,
                        size_t n);
void kbref_accuracy_finish(kbref_accuracy *acc);

#ifdef __cplusplus
}
#endif

#endif
